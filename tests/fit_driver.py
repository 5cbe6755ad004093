"""A small selection run on a chosen joblib backend, as a separate process.

The scale-out and worker-loss tests start it with ``subprocess``, kill it (or the
workers under it) and run it again on the same store::

    python tests/fit_driver.py OUT.json --backend dask --scheduler tcp://... \
        --store s.sqlite --delay 0.3 --worker-timeout 10

It writes the answer (champion, steps, the base-design scores, fit counts) to OUT.json.
The estimators sleep ``--delay`` seconds per fit, so a kill lands in the middle of the run;
their scores are those of the wrapped scikit-learn estimator (deterministic).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from sklearn.base import BaseEstimator, ClassifierMixin, clone


class Slow(ClassifierMixin, BaseEstimator):
    """``inner``, fitted after sleeping ``delay`` seconds (a stand-in for a costly fit)."""

    def __init__(self, inner=None, delay: float = 0.0, log: str | None = None):
        self.inner = inner
        self.delay = delay
        self.log = log  # a file that gets one line per fit started (bench/worker_loss.py)

    def fit(self, X, y):
        if self.log:
            with open(self.log, "a") as f:
                f.write("start\n")
        time.sleep(self.delay)
        self.est_ = clone(self.inner).fit(X, y)
        self.classes_ = self.est_.classes_
        return self

    def predict(self, X):
        return self.est_.predict(X)

    def predict_proba(self, X):
        return self.est_.predict_proba(X)


class DieOnce(Slow):
    """``Slow``, except that the first fit to find no file at ``marker`` creates it and
    SIGKILLs its own process: a worker lost in the middle of a known fit."""

    def __init__(self, inner=None, delay: float = 0.0, log: str | None = None, marker=None):
        super().__init__(inner, delay, log)
        self.marker = marker

    def fit(self, X, y):
        import os
        import signal

        if self.marker and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().fit(X, y)


def models(delay: float, log: str | None = None) -> dict:
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return {
        "nb": Slow(GaussianNB(), delay, log),
        "lr": Slow(make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)), delay, log),
        "tree": Slow(DecisionTreeClassifier(max_depth=3, random_state=0), delay, log),
    }


def run(args: argparse.Namespace) -> dict:
    from sklearn.datasets import load_breast_cancer

    import bayescomp as bc
    from bayescomp.scores.backends import use_backend
    from bayescomp.splits.repeats import default_cv

    X, y = load_breast_cancer(return_X_y=True)
    with use_backend(args.backend, args.scheduler, n_workers=2):
        sel = bc.select_models(
            models(args.delay, args.log),
            X,
            y,
            baseline="nb",
            scoring="roc_auc",
            rope=0.005,
            store=args.store,
            n_jobs=2,
            progress=False,
            retries=args.retries,
            worker_timeout=args.worker_timeout,
            cv=default_cv(y, n_splits=3, n_repeats=args.n_repeats),
        )
    base = sel.base_scores.to_frame().sort_values(["model", "split"])
    return {
        "champion": sel.champion,
        "decisions": sel.steps["decision"].tolist(),
        "p_better": [round(float(p), 12) for p in sel.steps["p_better"]],
        "scores": [[r.model, int(r.split), float(r.roc_auc)] for r in base.itertuples()],
        "fits_performed": sel.fits_performed,
        "fits_loaded": sel.fits_loaded,
        "fits_total": sel.fits_total,
        "fits_retried": sel.fits_retried,
    }


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--backend", default="loky")
    p.add_argument("--scheduler", default=None)
    p.add_argument("--store", default=None)
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--n-repeats", type=int, default=2)
    p.add_argument("--retries", type=int, default=2)
    p.add_argument("--worker-timeout", type=float, default=180.0)
    p.add_argument("--log", default=None, help="file getting one line per fit started")
    args = p.parse_args()
    from bayescomp.core.exceptions import WorkersLostError

    try:
        out = run(args)
    except WorkersLostError as exc:
        print(f"WorkersLostError: {exc}", file=sys.stderr)
        with open(args.out, "w") as f:
            json.dump({"error": str(exc), "finished": exc.finished, "total": exc.total}, f)
        return 4
    with open(args.out, "w") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
