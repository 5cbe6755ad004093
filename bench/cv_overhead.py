"""Overhead of ``cross_validate_paired`` over scikit-learn's ``cross_validate``.

Both run on the *same* materialised splits with the same estimators and
scorers; scikit-learn is called once per model (that is what a user would do
by hand), bayescomp once for all models.  The ratio is
``time(cross_validate_paired) / sum(time(cross_validate) per model)``; the
goal is <= 1.05.  Each figure is the best of ``--repeats`` interleaved runs
(the machine may be shared: the minimum is the least disturbed run).

Because fit times of BLAS-backed estimators swing wildly on a loaded machine,
BLAS is limited to one thread (``--blas-threads``), and a second, load-robust
figure is printed: the bookkeeping time per fit outside the estimator,
``(wall - sum(fit_time) - sum(score_time)) / fits``, for both tools.

Run: ``python bench/cv_overhead.py [--repeats 3] [--n-jobs 1] [--blas-threads 1]``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from bayescomp import cross_validate_paired, materialise_splits


def timed(fn):
    """Wall-clock and CPU seconds of one call (CPU time of this process only)."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def case(name, models, X, y, cv, scoring, repeats, n_jobs):
    design = materialise_splits(cv, X, y)
    splits = design.splits

    def sk():
        return {
            m: cross_validate(est, X, y, cv=splits, scoring=scoring, n_jobs=n_jobs)
            for m, est in models.items()
        }

    def bc():
        return cross_validate_paired(
            models, X, y, cv=cv, scoring=scoring, n_jobs=n_jobs, progress=False
        )

    # interleave the two so that load from other processes hits both alike
    w_sk = w_bc = c_sk = c_bc = o_sk = o_bc = np.inf
    for _ in range(repeats):
        w, c, ref = timed(sk)
        w_sk, c_sk = min(w_sk, w), min(c_sk, c)
        inner = sum(r["fit_time"].sum() + r["score_time"].sum() for r in ref.values())
        o_sk = min(o_sk, w - inner)
        w, c, scores = timed(bc)
        w_bc, c_bc = min(w_bc, w), min(c_bc, c)
        f = scores.to_frame()
        o_bc = min(o_bc, w - f["fit_time"].sum() - f["score_time"].sum())
    # same splits, same estimators: identical scores (a sanity check of the benchmark)
    frame = scores.to_frame()
    names = [scoring] if isinstance(scoring, str) else list(scoring)
    for m in models:
        for s in names:
            got = frame.loc[frame["model"] == m, s].to_numpy()
            key = "test_score" if isinstance(scoring, str) else f"test_{s}"
            assert np.allclose(got, ref[m][key], rtol=0, atol=1e-12), (m, s)
    fits = len(models) * len(splits)
    return name, fits, w_sk, w_bc, c_sk, c_bc, 1e3 * o_sk / fits, 1e3 * o_bc / fits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="BLAS/OpenMP threads per process (0: library default)",
    )
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    if args.blas_threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.blas_threads)

    Xb, yb = load_breast_cancer(return_X_y=True)
    Xs, ys = make_classification(n_samples=2000, n_features=20, random_state=0)
    cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0)
    cv_small = RepeatedStratifiedKFold(n_splits=10, n_repeats=3, random_state=0)
    lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    cases = [
        (
            "dummy + naive Bayes, accuracy",
            {"dummy": DummyClassifier(), "nb": GaussianNB()},
            Xb,
            yb,
            cv,
            "accuracy",
        ),
        (
            "dummy + naive Bayes, roc_auc+accuracy+f1",
            {"dummy": DummyClassifier(), "nb": GaussianNB()},
            Xb,
            yb,
            cv,
            ["roc_auc", "accuracy", "f1"],
        ),
        (
            "naive Bayes + scaled logreg, roc_auc+accuracy",
            {"nb": GaussianNB(), "lr": lr},
            Xb,
            yb,
            cv,
            ["roc_auc", "accuracy"],
        ),
        (
            "kNN + logreg (2000 rows), accuracy+f1+precision",
            {"knn": KNeighborsClassifier(), "lr": lr},
            Xs,
            ys,
            cv_small,
            ["accuracy", "f1", "precision"],
        ),
        (
            "random forest (50 trees) + logreg, roc_auc",
            {"rf": RandomForestClassifier(n_estimators=50, random_state=0), "lr": lr},
            Xb,
            yb,
            cv_small,
            "roc_auc",
        ),
    ]
    print(
        f"n_jobs={args.n_jobs}, blas_threads={args.blas_threads or 'default'}, "
        f"best of {args.repeats}\n"
    )
    print("wall = elapsed seconds; cpu = CPU seconds of this process (meaningful for n_jobs=1,")
    print("less sensitive to other load on a shared machine)\n")
    print("overhead = wall time outside fit and score, per fit (ms)\n")
    print(
        f"{'case':<48} {'fits':>4} {'sklearn s':>9} {'bayescomp s':>11} "
        f"{'ratio wall':>10} {'ratio cpu':>9} {'ovh sk ms':>9} {'ovh bc ms':>9}"
    )
    for c in cases:
        name, fits, w_sk, w_bc, c_sk, c_bc, o_sk, o_bc = case(
            *c, repeats=args.repeats, n_jobs=args.n_jobs
        )
        if args.n_jobs not in (None, 1):  # fit times overlap and CPU is in the workers
            print(
                f"{name:<48} {fits:>4} {w_sk:>9.3f} {w_bc:>11.3f} {w_bc / w_sk:>10.3f} "
                f"{'n/a':>9} {'n/a':>9} {'n/a':>9}"
            )
            continue
        print(
            f"{name:<48} {fits:>4} {w_sk:>9.3f} {w_bc:>11.3f} {w_bc / w_sk:>10.3f} "
            f"{c_bc / c_sk:>9.3f} {o_sk:>9.3f} {o_bc:>9.3f}"
        )


if __name__ == "__main__":
    main()
