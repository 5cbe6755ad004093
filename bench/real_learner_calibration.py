"""How honest is the correlated t-test on real learners? Coverage, width and variance ratio.

Every posterior of the package is checked against simulations from its own model; this
bench checks the correlated t-test where the correlation between folds is whatever the
learners make it.  A *problem* is a population (``sklearn.datasets.make_classification``
with a fixed seed: a pool of rows to draw data sets from, and a held-out population that
defines the truth), a pair of learners and a data-set size ``n``.  For each of ``--datasets``
data sets of ``n`` rows drawn from the pool, both learners are compared by repeated
stratified ``k``-fold cross-validation (``--folds`` × ``--repeats``, a new seed per data
set), on accuracy and ROC AUC, and each interval the package offers for CV scores gives a
95 % interval of the difference (candidate − baseline):

``ttest``
    :func:`bayescomp.correlated_ttest` at ρ = n_test / n (the default of ``compare``);
``ttest_rho0``
    the same with ρ = 0 (no correction: an ordinary paired t over the splits);
``row_variance``
    (accuracy only) the package's formula with ``s²`` replaced by the per-row variance of
    the out-of-fold differences ``e_ri`` (each row ``i`` is predicted once per repetition
    ``r``), averaged over the repetitions and scaled to a split's test set:
    ``s² = k · mean_r var_i(e_ri) / n``;
``row_mean_variance``
    (accuracy only) the same with the variance of the rows' differences averaged over the
    repetitions first, ``s² = k · var_i(mean_r e_ri) / n``: the disagreements of two
    near-identical models that cancel across repetitions cancel here too.

Two truths per data set: the **CV estimand** — the mean difference of the two learners
trained on ``n (k − 1) / k`` rows, over training sets drawn from the pool (``--truth``
of them, scored on the held-out population) — and the **deployed** estimand — the
difference of the two models trained on the whole data set, scored on the held-out
population.  Printed per problem, metric and interval: coverage of each truth, mean width,
the variance ratio (variance over data sets of the CV mean difference / the mean posterior
variance; 1 is calibrated, above 1 over-confident) and the share of data sets decided
(promote, worse or equivalent at γ = 0.95, ROPE ±0.01).

Finished cells are kept in ``--checkpoint`` (a JSON file keyed by a fingerprint of this
code and scikit-learn's version): an interrupted run resumes where it stopped.

Run at a modest scale (about 10 minutes on one idle core)::

    nice -n 10 python bench/real_learner_calibration.py --datasets 40 --repeats 5
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import bayescomp as bc  # noqa: E402

GAMMA, ROPE, LEVEL = 0.95, 0.01, 0.95
POOL, HELD_OUT = 100_000, 20_000


def learners() -> dict[str, tuple[object, object]]:
    """The learner pairs (baseline, candidate), by name."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    return {
        "nb/logreg": (GaussianNB(), LogisticRegression(max_iter=2000)),
        "logreg/tree": (
            LogisticRegression(max_iter=2000),
            DecisionTreeClassifier(min_samples_leaf=5, random_state=0),
        ),
        "tree/knn": (
            DecisionTreeClassifier(min_samples_leaf=5, random_state=0),
            KNeighborsClassifier(15),
        ),
        "logreg C=0.5/C=1": (
            LogisticRegression(C=0.5, max_iter=2000),
            LogisticRegression(C=1.0, max_iter=2000),
        ),
    }


def population(problem: str) -> tuple[np.ndarray, np.ndarray]:
    """A fixed population: ``POOL`` rows to draw data sets from, then ``HELD_OUT`` rows."""
    from sklearn.datasets import make_classification

    settings = {
        "easy": dict(n_features=10, n_informative=4, class_sep=1.2, flip_y=0.02),
        "hard": dict(n_features=20, n_informative=6, class_sep=0.6, flip_y=0.1),
    }[problem]
    return make_classification(n_samples=POOL + HELD_OUT, random_state=0, **settings)


def _scores(model, X, y):
    """Accuracy and ROC AUC of a fitted model on ``(X, y)``, and its per-row correctness."""
    from sklearn.metrics import roc_auc_score

    p = model.predict_proba(X)[:, 1]
    correct = ((p > 0.5) == y).astype(float)
    return correct.mean(), roc_auc_score(y, p), correct


def _fit(model, X, y):
    from sklearn.base import clone

    return clone(model).fit(X, y)


def cv_truth(pair: str, problem: str, n: int, folds: int, draws: int, seed: int) -> list[float]:
    """The CV estimand: mean (accuracy, AUC) difference of the pair trained on
    ``n (folds − 1) / folds`` rows drawn from the pool, on the held-out population."""
    X, y = population(problem)
    base, cand = learners()[pair]
    rng = np.random.default_rng(seed)
    size = n - n // folds
    out = []
    for _ in range(draws):
        rows = rng.choice(POOL, size, replace=False)
        b = _scores(_fit(base, X[rows], y[rows]), X[POOL:], y[POOL:])
        c = _scores(_fit(cand, X[rows], y[rows]), X[POOL:], y[POOL:])
        out.append([c[0] - b[0], c[1] - b[1]])
    return np.mean(out, axis=0).tolist()


def one_dataset(pair: str, problem: str, n: int, folds: int, repeats: int, seed: int) -> dict:
    """One data set: per-split differences, per-row variance and the deployed truth."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    X, y = population(problem)
    base, cand = learners()[pair]
    rng = np.random.default_rng(seed)
    rows = rng.choice(POOL, n, replace=False)
    Xd, yd = X[rows], y[rows]
    cv = RepeatedStratifiedKFold(n_splits=folds, n_repeats=repeats, random_state=seed)
    acc, auc, n_test = [], [], []
    row_diff = np.zeros((repeats, n))
    for j, (tr, te) in enumerate(cv.split(Xd, yd)):
        b = _scores(_fit(base, Xd[tr], yd[tr]), Xd[te], yd[te])
        c = _scores(_fit(cand, Xd[tr], yd[tr]), Xd[te], yd[te])
        acc.append([b[0], c[0]])
        auc.append([b[1], c[1]])
        n_test.append(te.size)
        row_diff[j // folds, te] = c[2] - b[2]
    b = _scores(_fit(base, Xd, yd), X[POOL:], y[POOL:])
    c = _scores(_fit(cand, Xd, yd), X[POOL:], y[POOL:])
    return {
        "accuracy": np.array(acc).T.tolist(),
        "roc_auc": np.array(auc).T.tolist(),
        "rho": float(np.mean(n_test) / n),
        "row_var": float(np.mean(row_diff.var(axis=1, ddof=1))),
        "row_mean_var": float(row_diff.mean(axis=0).var(ddof=1)),
        "deployed": [c[0] - b[0], c[1] - b[1]],
    }


def intervals(data: dict, metric: str, folds: int) -> dict[str, tuple[float, float, float]]:
    """(mean, posterior variance, decided?) of each interval of one data set's scores."""
    base, cand = (np.asarray(x) for x in data[metric])
    out = {}
    for name, rho in (("ttest", data["rho"]), ("ttest_rho0", 0.0)):
        res = bc.correlated_ttest(base, cand, rho=rho, rope=ROPE)
        out[name] = (res.mean, res.scale, res.df, res.decision(GAMMA).outcome)
    if metric == "accuracy":  # the package's formula with a per-row variance as s²
        res = bc.correlated_ttest(base, cand, rho=data["rho"], rope=ROPE)
        for name, key in (("row_variance", "row_var"), ("row_mean_variance", "row_mean_var")):
            s2 = folds * data[key] / data["n"]
            scale = float(np.sqrt(s2 * (1 / res.n + res.rho / (1 - res.rho))))
            one = dataclasses.replace(res, scale=scale)
            out[name] = (one.mean, one.scale, one.df, one.decision(GAMMA).outcome)
    return out


def cell(
    pair: str,
    problem: str,
    n: int,
    folds: int,
    repeats: int,
    datasets: int,
    truth_draws: int,
    seed: int,
) -> dict:
    """Every statistic of one problem (pair, population, n) for every metric and interval."""
    truth = cv_truth(pair, problem, n, folds, truth_draws, seed)
    runs = [one_dataset(pair, problem, n, folds, repeats, seed + 1 + i) for i in range(datasets)]
    q = stats.t.ppf(0.5 + LEVEL / 2, folds * repeats - 1)
    result = {}
    for m, metric in enumerate(("accuracy", "roc_auc")):
        per = [intervals({**r, "n": n}, metric, folds) for r in runs]
        means = np.array([p["ttest"][0] for p in per])
        deployed = np.array([r["deployed"][m] for r in runs])
        for name in per[0]:
            mean = np.array([p[name][0] for p in per])
            scale = np.array([p[name][1] for p in per])
            df = per[0][name][2]
            var = scale**2 * df / (df - 2)
            lo, hi = mean - q * scale, mean + q * scale
            result[f"{metric}|{name}"] = {
                "cover_cv": float(np.mean((lo <= truth[m]) & (truth[m] <= hi))),
                "cover_deployed": float(np.mean((lo <= deployed) & (deployed <= hi))),
                "width": float(np.mean(hi - lo)),
                "var_ratio": float(np.var(means, ddof=1) / np.mean(var)),
                "decided": float(np.mean([p[name][3] != "inconclusive" for p in per])),
                "equivalent": float(np.mean([p[name][3] == "equivalent" for p in per])),
                "truth_cv": truth[m],
            }
    return result


def _fingerprint() -> str:
    """The code the cells depend on and scikit-learn's version: a checkpoint of other code
    is not reused."""
    import hashlib
    import inspect

    import sklearn

    funcs = (learners, population, _scores, cv_truth, one_dataset, intervals, cell)
    parts = [inspect.getsource(f) for f in funcs] + [sklearn.__version__]
    return hashlib.sha256("".join(parts).encode()).hexdigest()[:16]


class Checkpoint:
    """Finished cells in a JSON file, written after every cell: an interrupted run resumes."""

    def __init__(self, path: str | None) -> None:
        self.path = Path(path) if path else None
        self.key = _fingerprint()
        self.cells: dict[str, dict] = {}
        if self.path and self.path.exists():
            saved = json.loads(self.path.read_text())
            if saved.get("code") == self.key:
                self.cells = saved["cells"]

    def cell(self, *args) -> dict:
        name = json.dumps(args)
        if name not in self.cells:
            self.cells[name] = cell(*args)
            if self.path:
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text(json.dumps({"code": self.key, "cells": self.cells}))
                tmp.replace(self.path)
        return self.cells[name]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", nargs="+", default=["nb/logreg", "logreg/tree", "logreg C=0.5/C=1"])
    p.add_argument("--problems", nargs="+", default=["easy", "hard"])
    p.add_argument("--ns", type=int, nargs="+", default=[200, 1000])
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--datasets", type=int, default=100)
    p.add_argument("--truth", type=int, default=100, help="training sets behind the CV truth")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--checkpoint", default="real_learner_calibration.json")
    args = p.parse_args(argv)
    ck = Checkpoint(args.checkpoint)
    se = 100 * np.sqrt(0.05 * 0.95 / args.datasets)
    print(
        f"{args.folds} folds × {args.repeats} repetitions, {args.datasets} data sets per problem "
        f"(binomial se of a 95 % coverage: {se:.1f} points), CV truth from {args.truth} "
        f"training sets; ROPE ±{ROPE}, γ = {GAMMA}; seed {args.seed}\n"
    )
    print(
        "| problem | pair | n | metric | interval | cover CV | cover deployed | mean width "
        "| var ratio | decided | equivalent |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    t0 = time.perf_counter()
    for problem in args.problems:
        for pair in args.pairs:
            for n in args.ns:
                res = ck.cell(
                    pair,
                    problem,
                    n,
                    args.folds,
                    args.repeats,
                    args.datasets,
                    args.truth,
                    args.seed,
                )
                for key, r in res.items():
                    metric, name = key.split("|")
                    print(
                        f"| {problem} | {pair} | {n} | {metric} | {name} | "
                        f"{100 * r['cover_cv']:.0f} % | {100 * r['cover_deployed']:.0f} % | "
                        f"{r['width']:.4f} | {r['var_ratio']:.2f} | {100 * r['decided']:.0f} % | "
                        f"{100 * r['equivalent']:.0f} % |",
                        flush=True,
                    )
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
