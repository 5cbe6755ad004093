"""How honest are the posteriors of CV scores on real learners? Coverage, power, variance ratio.

Every posterior of the package is checked against simulations from its own model; this
bench checks them where the correlation between folds, repetitions and rows is whatever the
learners make it.  A *problem* is a population (``sklearn.datasets.make_classification``
with a fixed seed: a pool of rows to draw data sets from and a held-out population of
``HELD_OUT`` rows that defines the truth) and a pair of learners (baseline, candidate); a
*cell* is a problem at a data-set size ``n``.  For each data set of ``n`` rows drawn from
the pool, both learners are compared by 10 × 10 repeated stratified cross-validation (a new
seed per data set) on accuracy and ROC AUC.

The expensive part (the fits) and the cheap part (the posteriors) are apart:

``run``
    fits and keeps, per data set, what every candidate posterior needs: the per-split
    differences, the per-row out-of-fold differences summarised as variances (accuracy: the
    per-row differences ``e_ri``; ROC AUC: each row's DeLong placement difference within its
    test fold), the deployed truth; and per cell the CV truth in chunks.  Every record is a
    line of ``--checkpoint`` (JSON lines, keyed by a fingerprint of the fitting code and
    scikit-learn's version), written as soon as it is done: ``--minutes`` bounds a slice,
    the next slice resumes where it stopped.  The grid runs its cheap cells first.
``report``
    reads the records and prints, per cell, metric and variance: coverage of the CV estimand
    and of the deployed model, the variance ratio (variance over data sets of the CV mean
    difference / the mean posterior variance: 1 is calibrated, above 1 over-confident) with
    a 90 % bootstrap interval, the share decided at γ = 0.95 with ROPE ±0.01, and false
    promotion at the ROPE edge (every difference shifted so that the truth is +ROPE: the
    share of data sets promoted).  ``report --planner``: the decisive rate a 10 × 2 (and
    10 × 3) pilot predicts for the full design, by the package's planner
    (:func:`bayescomp.posterior.repetitions.decisive_rates`), beside the share decided; the
    same on data drawn from the planner's model.

The truths: the **CV estimand** is the mean difference of the two learners trained on
``n (k − 1) / k`` rows, over training sets drawn from the pool (``TRUTH_DRAWS`` of them),
scored on the held-out population; the **deployed** difference is that of the two models
trained on the whole data set.

Variances (each gives a Student-t posterior ``t(J − 1, mean, σ)`` with
``σ² = s² (1 / J + ρ / (1 − ρ))``, Nadeau–Bengio's correction, ρ = n_test / n):

``split``
    ``s²`` the sample variance of the ``J`` per-split differences (today's default);
``rows``
    from the rows: a row's difference in one repetition is its persistent difference plus
    partition noise, so the per-row variance of one repetition (``each``; accuracy
    ``k · var_i(e_ri) / n``, AUC a test fold's DeLong variance
    ``var_pos(ΔV_i) / m₁ + var_neg(ΔV_j) / m₀``) and of the rows' averages over the ``R``
    repetitions (``cum``) give the persistent part ``V = (R·cum − each) / (R − 1)``;
    ``σ² = V (1 / J + ρ / (1 − ρ)) + var_r(mean of repetition r) / R`` (the second term: the
    CV mean's partition variance given the data set);
``gated``
    ``rows`` when ``V ≤ each / 3`` (at least two thirds of the per-row variance is partition
    noise: a near-equal pair), ``split`` otherwise.

None of them estimates the training-set part of the variance (how the expected difference
moves with the data set: one cross-validation cannot see it); ``docs/honesty.md``
("Choosing the default variance") has the candidates read and rejected (``row``,
``row_split``, ``row_train3``, a χ² test, other gates).  Two read a *nested* CV of the same
data set (``run --kind nested``: its own units, fingerprint and checkpoint,
``bench/data/real_learner_nested.jsonl``; :func:`nested_dataset`):

``nested``
    Bates, Hastie & Tibshirani's (2024) estimate of the mean squared error of CV, for the
    paired difference, scaled to the full data, less the partition noise the repetitions
    average away (:func:`variances`);
``rows_nested``
    the larger of ``rows`` and ``nested`` (``rows`` plus the nested excess over it).

What ``nested`` estimates is not quite the posterior's target: BHT's MSE is
``E[(CV − Err_XY)²]``, the error of CV about the difference of the two models trained on the
data set at hand (the deployed difference), = ``var(CV) + var(Err_XY) − 2 cov(CV, Err_XY)``
+ the squared bias of CV at ``n (K − 2)/K`` training rows for ``n (K − 1)/K``; the
posterior's target is ``var(CV)`` about the CV estimand (the mean over training sets, see
:func:`truth_chunk`).  The training-set part of ``var(CV)`` — the part one CV cannot see —
is shared by CV and ``Err_XY`` (both move with the data set's rows) and cancels in the MSE
as far as it is shared; ``var(Err_XY)`` and the covariance of the held-out rows' noise
with it come in instead.  The posterior's mean stays the 10 × 10 CV mean, which is
unbiased for the CV estimand (BHT's bias correction aims at the full-data model and is not
applied).  The estimate is noisy: ``report --nested-noise``.

Run in slices of under 10 minutes (one core; the grid is a few CPU-hours)::

    OMP_NUM_THREADS=1 nice -n 10 python bench/real_learner_calibration.py run --minutes 9
    python bench/real_learner_calibration.py status
    python bench/real_learner_calibration.py report
    python bench/real_learner_calibration.py report --targets   # the cells that miss a target
    python bench/real_learner_calibration.py report --planner   # predicted vs realised decisions

The nested grid (about 2.3 CPU h; the cells the variances above fail first), back to back::

    while true; do
      out=$(OMP_NUM_THREADS=1 nice -n 10 python bench/real_learner_calibration.py \\
            run --kind nested --minutes 9); rc=$?; echo "$out"
      [ $rc -ne 0 ] && break; echo "$out" | grep -q " 0 left" && break
    done
    python bench/real_learner_calibration.py status --kind nested
    python bench/real_learner_calibration.py report --targets --nested-only \\
        --variances split,rows,gated,nested,rows_nested   # on the data sets with nested units
    python bench/real_learner_calibration.py report --nested-noise
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import inspect
import itertools
import json
import textwrap
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy import special, stats

REPO = Path(__file__).resolve().parents[1]
GAMMA, ROPE, LEVEL = 0.95, 0.01, 0.95
POOL, HELD_OUT = 100_000, 100_000
FOLDS, REPEATS, TRUTH_DRAWS, TRUTH_CHUNK = 10, 10, 100, 25
CHECKPOINT = REPO / "bench" / "data" / "real_learner_calibration.jsonl"
SEED = 2026

POPULATIONS = {
    # few informative features, little noise
    "easy": dict(n_features=10, n_informative=4, class_sep=1.2, flip_y=0.02),
    # 20 % of the labels flipped at random
    "noisy": dict(n_features=20, n_informative=6, n_redundant=0, class_sep=0.8, flip_y=0.2),
    # many features, few of them informative
    "wide": dict(n_features=200, n_informative=10, n_redundant=0, class_sep=1.0, flip_y=0.03),
}

# (kind, baseline, candidate): "near" are the promotions teams make every day (a tuned
# hyper-parameter, more boosting iterations, another seed of an unstable learner);
# "different" are learners of another family, stable and unstable.
PAIRS = {
    "knn k=15/17": "near",
    "logreg C=0.5/C=1": "near",
    "boost 60/100": "near",
    "forest seed 0/1": "near",
    "nb/logreg": "different",
    "lda/qda": "different",
    "tree/knn": "different",
}

PROBLEMS = [  # (population, pair)
    ("easy", "knn k=15/17"),
    ("easy", "logreg C=0.5/C=1"),
    ("easy", "nb/logreg"),
    ("easy", "tree/knn"),
    ("noisy", "boost 60/100"),
    ("noisy", "forest seed 0/1"),
    ("noisy", "lda/qda"),
    ("wide", "logreg C=0.5/C=1"),
    ("wide", "nb/logreg"),
]
NS = (200, 1000, 5000)


def datasets_in(problem: tuple[str, str], n: int) -> int:
    """Data sets per cell: 40; 100 at n = 1,000 (the planner's check needs ≥ 100), and 60
    for the near-equal pairs at n = 5,000."""
    if n == 1000:
        return 100
    return 60 if n >= 1000 and PAIRS[problem[1]] == "near" else 40


def _pair_probabilities(pair: str, X, y, X_test) -> tuple[np.ndarray, np.ndarray]:
    """P(class 1) of the baseline and the candidate, trained on ``(X, y)``, on ``X_test``."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as LDA
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis as QDA
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    def both(a, b):
        return a.fit(X, y).predict_proba(X_test)[:, 1], b.fit(X, y).predict_proba(X_test)[:, 1]

    if pair == "boost 60/100":  # the first 60 iterations of a 100-iteration fit
        m = HistGradientBoostingClassifier(max_iter=100, early_stopping=False, random_state=0)
        staged = list(m.fit(X, y).staged_predict_proba(X_test))
        return staged[59][:, 1], staged[99][:, 1]
    forest = dict(n_estimators=10, min_samples_leaf=3, max_features="sqrt")
    return both(
        *{
            "knn k=15/17": (KNeighborsClassifier(15), KNeighborsClassifier(17)),
            "logreg C=0.5/C=1": (
                LogisticRegression(C=0.5, max_iter=2000),
                LogisticRegression(C=1.0, max_iter=2000),
            ),
            "forest seed 0/1": (
                RandomForestClassifier(random_state=0, **forest),
                RandomForestClassifier(random_state=1, **forest),
            ),
            "nb/logreg": (GaussianNB(), LogisticRegression(max_iter=2000)),
            "lda/qda": (LDA(), QDA(reg_param=0.01)),
            "tree/knn": (
                DecisionTreeClassifier(min_samples_leaf=5, random_state=0),
                KNeighborsClassifier(15),
            ),
        }[pair]
    )


_POPULATION_CACHE: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def population(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A fixed population: ``POOL`` rows to draw data sets from, then ``HELD_OUT`` rows."""
    from sklearn.datasets import make_classification

    if name not in _POPULATION_CACHE:
        _POPULATION_CACHE[name] = make_classification(
            n_samples=POOL + HELD_OUT, random_state=0, **POPULATIONS[name]
        )
    return _POPULATION_CACHE[name]


def _placements(score: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each row's DeLong placement in one test set: a positive's share of negatives scored
    below it, a negative's share of positives scored above it (ties count a half); the mean
    over either class is the ROC AUC."""
    ranks = stats.rankdata(score)
    pos = y == 1
    out = np.empty(score.size)
    m1, m0 = pos.sum(), (~pos).sum()
    out[pos] = (ranks[pos] - stats.rankdata(score[pos])) / m0
    out[~pos] = 1 - (ranks[~pos] - stats.rankdata(score[~pos])) / m1
    return out


def _held_out_difference(pair: str, X, y, rows) -> list[float]:
    """(accuracy, AUC) difference candidate − baseline, trained on ``rows`` of the pool,
    scored on the held-out population."""
    from sklearn.metrics import roc_auc_score

    pb, pc = _pair_probabilities(pair, X[rows], y[rows], X[POOL:])
    yt = y[POOL:]
    acc = np.mean((pc > 0.5) == yt) - np.mean((pb > 0.5) == yt)
    return [float(acc), float(roc_auc_score(yt, pc) - roc_auc_score(yt, pb))]


def one_dataset(
    population_name: str, pair: str, n: int, index: int, folds: int = FOLDS, repeats: int = REPEATS
) -> dict:
    """One data set: per-split differences, per-row variances and the deployed truth."""
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import RepeatedStratifiedKFold

    X, y = population(population_name)
    seed = SEED + 7919 * index + n
    rows = np.random.default_rng(seed).choice(POOL, n, replace=False)
    Xd, yd = X[rows], y[rows]
    cv = RepeatedStratifiedKFold(n_splits=folds, n_repeats=repeats, random_state=seed)
    acc, auc, n_test = [], [], []
    e = np.zeros((repeats, n))  # per-row accuracy differences, one row per repetition
    v = np.zeros((repeats, n))  # per-row placement differences
    for j, (tr, te) in enumerate(cv.split(Xd, yd)):
        pb, pc = _pair_probabilities(pair, Xd[tr], yd[tr], Xd[te])
        cb, cc = (pb > 0.5) == yd[te], (pc > 0.5) == yd[te]
        acc.append(cc.mean() - cb.mean())
        auc.append(roc_auc_score(yd[te], pc) - roc_auc_score(yd[te], pb))
        n_test.append(te.size)
        e[j // folds, te] = cc.astype(float) - cb
        v[j // folds, te] = _placements(pc, yd[te]) - _placements(pb, yd[te])
    pos = yd == 1
    cum = np.cumsum(e, axis=0) / np.arange(1, repeats + 1)[:, None]
    vcum = np.cumsum(v, axis=0) / np.arange(1, repeats + 1)[:, None]
    return {
        "folds": folds,
        "acc": np.round(acc, 8).tolist(),
        "auc": np.round(auc, 8).tolist(),
        "n_test": n_test,
        "n_pos": int(pos.sum()),
        # var_i of the rows' differences averaged over the first R repetitions, R = 1..10
        "acc_row_cum": cum.var(axis=1, ddof=1).tolist(),
        "acc_row_each": e.var(axis=1, ddof=1).tolist(),
        "auc_pos_cum": vcum[:, pos].var(axis=1, ddof=1).tolist(),
        "auc_neg_cum": vcum[:, ~pos].var(axis=1, ddof=1).tolist(),
        "auc_pos_each": v[:, pos].var(axis=1, ddof=1).tolist(),
        "auc_neg_each": v[:, ~pos].var(axis=1, ddof=1).tolist(),
        "deployed": _held_out_difference(pair, X, y, rows),
    }


def truth_chunk(
    population_name: str,
    pair: str,
    n: int,
    chunk: int,
    folds: int = FOLDS,
    draws: int = TRUTH_CHUNK,
) -> dict:
    """``draws`` draws of the CV estimand: training sets of ``n (k − 1) / k`` rows."""
    X, y = population(population_name)
    rng = np.random.default_rng([SEED, n, chunk, 1])
    size = n - n // folds
    return {
        "draws": [
            _held_out_difference(pair, X, y, rng.choice(POOL, size, replace=False))
            for _ in range(draws)
        ]
    }


# ------------------------------------------------- the nested CV (its own fingerprint)

#: nested CV (Bates, Hastie & Tibshirani 2024): ``NESTED_FOLDS`` outer folds, each with an
#: inner (``NESTED_FOLDS`` − 1)-fold CV on its training rows, repeated ``NESTED_REPEATS``
#: times.  Measured on one core (a repetition's CPU s; the sd of one repetition's estimate
#: within a data set, over the variance over data sets of the 10 × 10 CV mean, which it
#: estimates): K = 10, 0.15 s and 3.5 × (easy nb/logreg, n = 1,000, accuracy), 5.8 s and
#: 32 × (noisy boosting 60/100, accuracy); K = 5, 0.04 s and 2.7 ×, 1.4 s and 26 ×.  The
#: noise falls as 1/√R, so at equal CPU K = 5 is about 2.5 × less noisy than K = 10 (its
#: inner CVs train on 3/5 of the rows, not 9/10: the estimate is scaled, not measured, at
#: the CV's size); R = 10 puts the whole grid at about 2.3 CPU h (measured on its first
#: 530 units and guessed for the rest: ``status --kind nested``)
NESTED_FOLDS, NESTED_REPEATS = 5, 10
NESTED_CHECKPOINT = REPO / "bench" / "data" / "real_learner_nested.jsonl"


def _fold_scores(pb: np.ndarray, pc: np.ndarray, y: np.ndarray) -> tuple[float, ...]:
    """On one test fold: the accuracy difference candidate − baseline and its variance given
    the training rows (the per-row differences' variance over the fold's size), the ROC AUC
    difference (the mean placement difference over the positives: exactly the difference of
    the two AUCs) and its DeLong variance ``var_pos(ΔV) / m₁ + var_neg(ΔV) / m₀``."""
    e = ((pc > 0.5) == y).astype(float) - ((pb > 0.5) == y)
    v = _placements(pc, y) - _placements(pb, y)
    pos = y == 1
    delong = v[pos].var(ddof=1) / pos.sum() + v[~pos].var(ddof=1) / (~pos).sum()
    return float(e.mean()), float(e.var(ddof=1) / e.size), float(v[pos].mean()), float(delong)


def nested_dataset(
    population_name: str,
    pair: str,
    n: int,
    index: int,
    folds: int = NESTED_FOLDS,
    repeats: int = NESTED_REPEATS,
) -> dict:
    """Nested CV of the paired difference (candidate − baseline) on the data set of a ``data``
    unit (the same rows: its two lines of row drawing are repeated here, not shared, so that
    :func:`one_dataset`'s fingerprinted code stays as it is).

    Bates, Hastie & Tibshirani (2024, Algorithm 1), for a difference: per repetition, a
    stratified partition into ``K = folds`` folds; per outer fold ``k``, the *inner*
    estimate is the (K − 1)-fold CV of the outer training rows (the mean over the other folds
    ``j`` of the difference on ``I_j`` of the two models trained without ``I_j`` and ``I_k``:
    one fit per pair of folds serves both inner CVs it belongs to, so a repetition is
    ``K (K − 1) / 2 + K`` fits of each learner), the *outer* estimate is the difference on
    ``I_k`` of the models trained without ``I_k``, and ``b`` is the outer estimate's variance
    given its training rows (:func:`_fold_scores`: per-row for accuracy, DeLong placements
    for AUC).  Kept per outer fold and repetition (in that order): ``inner``, ``outer``,
    ``b`` for each metric; :func:`nested_mse` reads them.  Partitions are seeded from the
    data set's seed and the repetition, independent of the ``data`` unit's."""
    from sklearn.model_selection import StratifiedKFold

    X, y = population(population_name)
    seed = SEED + 7919 * index + n
    rows = np.random.default_rng(seed).choice(POOL, n, replace=False)
    Xd, yd = X[rows], y[rows]
    out: dict = {"folds": folds, "repeats": repeats, "n_pos": int(yd.sum())}
    got: dict[str, list[float]] = {f"{m}_{p}": [] for m in ("acc", "auc") for p in "iob"}
    for r in range(repeats):
        state = int(np.random.default_rng([seed, 5, r]).integers(2**31))
        fold = np.empty(n, dtype=int)
        for f, (_, te) in enumerate(
            StratifiedKFold(folds, shuffle=True, random_state=state).split(Xd, yd)
        ):
            fold[te] = f
        pairs = np.zeros((2, folds, folds))  # [metric, scored fold, the other fold left out]
        for j, k in itertools.combinations(range(folds), 2):
            out_jk = (fold == j) | (fold == k)
            pb, pc = _pair_probabilities(pair, Xd[~out_jk], yd[~out_jk], Xd[out_jk])
            for a, other in ((j, k), (k, j)):
                here = fold[out_jk] == a
                acc, _, auc, _ = _fold_scores(pb[here], pc[here], yd[out_jk][here])
                pairs[:, a, other] = acc, auc
        for k in range(folds):
            test = fold == k
            pb, pc = _pair_probabilities(pair, Xd[~test], yd[~test], Xd[test])
            acc, acc_b, auc, auc_b = _fold_scores(pb, pc, yd[test])
            rest = np.arange(folds) != k
            for m, (outer, b) in enumerate(((acc, acc_b), (auc, auc_b))):
                name = ("acc", "auc")[m]
                got[f"{name}_i"].append(float(pairs[m, rest, k].mean()))
                got[f"{name}_o"].append(outer)
                got[f"{name}_b"].append(b)
    for name in ("acc", "auc"):
        for p, word in (("i", "inner"), ("o", "outer"), ("b", "b")):
            out[f"{name}_{word}"] = np.round(got[f"{name}_{p}"], 10).tolist()
    return out


def nested_mse(nrec: dict, metric: str, repeats: int | None = None) -> float:
    """Bates–Hastie–Tibshirani's estimate from the first ``repeats`` repetitions of a nested
    record: ``mean((inner − outer)²) − mean(b)``, the mean squared error of a
    (K − 1)-fold CV on ``n (K − 1) / K`` rows as an estimate of the difference of the two
    models trained on those rows (its deployed difference).  May be negative."""
    k = nrec["folds"]
    repeats = repeats or nrec["repeats"]
    inner, outer, b = (
        np.asarray(nrec[f"{metric}_{p}"][: k * repeats]) for p in ("inner", "outer", "b")
    )
    return float(np.mean((inner - outer) ** 2) - np.mean(b))


def nested_fingerprint() -> str:
    """The nested unit's code, the fitting code it calls, its constants and scikit-learn's
    version: the ``data`` and ``truth`` records' :func:`fingerprint` does not move with it."""
    import sklearn

    funcs = (_pair_probabilities, population, _placements, _fold_scores, nested_dataset)
    parts = [_code(f) for f in funcs]
    parts += [repr((POPULATIONS, POOL, SEED, NESTED_FOLDS, NESTED_REPEATS)), sklearn.__version__]
    return hashlib.sha256("nested".join(parts).encode()).hexdigest()[:16]


def _code(func) -> str:
    """A function's syntax tree without its docstring: comments, layout and docs may change."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        if docstring and isinstance(first.value.value, str):  # type: ignore[union-attr]
            node.body = body[1:]  # type: ignore[attr-defined,index]
    return ast.dump(tree)


def fingerprint() -> str:
    """The fitting code and scikit-learn's version: records of other code are not reused."""
    import sklearn

    funcs = (_pair_probabilities, population, _placements, _held_out_difference)
    parts = [_code(f) for f in (*funcs, one_dataset, truth_chunk)]
    parts += [repr((POPULATIONS, POOL, HELD_OUT, FOLDS, REPEATS, SEED)), sklearn.__version__]
    return hashlib.sha256("".join(parts).encode()).hexdigest()[:16]


def grid() -> list[tuple[str, str, str, int, int]]:
    """Every unit of work, cheapest first: (kind, population, pair, n, index)."""
    work = []
    for n in NS:
        for problem in PROBLEMS:
            work += [("truth", *problem, n, c) for c in range(TRUTH_DRAWS // TRUTH_CHUNK)]
            work += [("data", *problem, n, i) for i in range(datasets_in(problem, n))]
    return work


#: the cells the variances from one CV fail (``report --targets``: over-confident under
#: ``rows`` or ``gated``), whose nested units run first: boosting AUC, tree / kNN, naive
#: Bayes / logistic regression, forest seeds, logistic regression on ``wide``
NESTED_FIRST = (
    ("noisy", "boost 60/100", 1000),
    ("noisy", "boost 60/100", 5000),
    ("noisy", "boost 60/100", 200),
    ("easy", "tree/knn", 200),
    ("easy", "tree/knn", 1000),
    ("easy", "tree/knn", 5000),
    ("easy", "nb/logreg", 1000),
    ("easy", "nb/logreg", 5000),
    ("noisy", "forest seed 0/1", 1000),
    ("noisy", "forest seed 0/1", 200),
    ("wide", "logreg C=0.5/C=1", 200),
    ("wide", "logreg C=0.5/C=1", 5000),
    ("wide", "nb/logreg", 200),
)


def nested_grid(block: int = 20) -> list[tuple[str, str, str, int, int]]:
    """Every nested unit, one per data set of the ``data`` grid: the cells of
    :data:`NESTED_FIRST` first, then the rest; within each group, round-robin in blocks of
    ``block`` data sets (every cell of the group gets its first 20 before any gets 40)."""
    first = list(NESTED_FIRST)
    rest = [(*p, n) for n in NS for p in PROBLEMS if (*p, n) not in NESTED_FIRST]
    work = []
    for group in (first, rest):
        for start in range(0, max(datasets_in(c[:2], c[2]) for c in group), block):
            for pop, pair, n in group:
                stop = min(start + block, datasets_in((pop, pair), n))
                work += [("nested", pop, pair, n, i) for i in range(start, stop)]
    return work


def load(path: Path, key: str | None = None) -> dict[tuple, dict]:
    """The records of this code's fingerprint (or ``key``), by unit of work."""
    key, out = key or fingerprint(), {}
    if path.exists():
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                if i == len(lines) - 1:  # a run killed while writing its last unit
                    break
                raise
            if rec["code"] == key:
                out[tuple(rec["unit"])] = rec
    return out


def run(path: Path, minutes: float, kind: str = "grid") -> int:
    """Work through the grid (``kind="nested"``: the nested grid, its own fingerprint) until
    done or ``minutes`` have passed; the units left."""
    key = nested_fingerprint() if kind == "nested" else fingerprint()
    work = nested_grid() if kind == "nested" else grid()
    done = load(path, key)
    todo = [u for u in work if u not in done]
    t0, longest = time.monotonic(), 0.0
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and not path.read_bytes().endswith(b"\n"):  # cut by a killed run
        text = path.read_bytes()
        path.write_bytes(text[: text.rfind(b"\n") + 1])
    for unit in todo:
        if time.monotonic() - t0 + longest > 60 * minutes:  # the next unit may be as long
            break
        c0, w0 = time.process_time(), time.monotonic()
        _, pop, pair, n, i = unit
        fit = {"data": one_dataset, "truth": truth_chunk, "nested": nested_dataset}[unit[0]]
        body = fit(pop, pair, n, i)
        rec = {"code": key, "unit": list(unit), **body}
        rec["cpu_s"] = round(time.process_time() - c0, 3)
        rec["wall_s"] = round(time.monotonic() - w0, 3)
        longest = max(longest, rec["wall_s"])
        with path.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        done[unit] = rec
    left = sum(u not in done for u in work)
    print(f"{len(done)} units done, {left} left ({time.monotonic() - t0:.0f} s this slice)")
    return left


# ----------------------------------------------------------------- the posteriors (cheap)


#: the candidate variances every cell is read under (docs/honesty.md, "Choosing the default
#: variance", records the ones rejected)
VARIANCES = ("split", "rows", "gated", "nested", "rows_nested")
#: the variances read from a data set's nested record: a cell shows them on the data sets
#: that have one (and is missing, not zero, without)
NESTED_VARIANCES = ("nested", "rows_nested")
#: ``gated`` reads ``rows`` when less than this share of the per-row variance persists over
#: the repetitions (the rest is partition noise), ``split`` otherwise
PERSISTENT_SHARE = 1 / 3


def _nb(rec: dict, n: int, repeats: int) -> float:
    """Nadeau–Bengio's factor ``1 / J + ρ / (1 − ρ)``: the posterior variance is ``s²`` times it."""
    k = rec["folds"]
    rho = float(np.mean(rec["n_test"][: k * repeats])) / n
    return 1 / (k * repeats) + rho / (1 - rho)


def variances(rec: dict, metric: str, n: int, repeats: int | None = None) -> dict[str, float]:
    """``s²`` (the variance of one split's difference) of each candidate variance, from the
    first ``repeats`` repetitions of one data set (all of them by default).

    A row's out-of-fold difference in one repetition is its persistent difference plus
    partition noise (which training set it fell out of), so, per test fold of ``n / k`` rows,
    ``each`` (one repetition's per-row variance) ≈ ``V + W`` and ``cum`` (the variance of
    the rows' averages over ``R`` repetitions) ≈ ``V + W / R``: ``V = (R·cum − each) / (R − 1)``.
    ``rows`` is ``V`` at Nadeau–Bengio's factor plus the partition variance of the CV mean,
    the spread of the ``R`` repetition means over ``R`` (exact given the data set).  Neither
    sees the training-set part: how the expected difference moves with the data set.

    With the data set's nested record (``rec["nested"]``, :func:`nested_dataset`):
    ``nested`` is Bates–Hastie–Tibshirani's MSE (:func:`nested_mse`) scaled to the full data
    by ``(K − 1) / K``, less the partition noise the 10 repetitions average away (the inner
    CVs are one partition each; the CV mean's is ``P / R``, ``P`` the variance of one
    repetition's mean): ``max((K − 1)/K · MSE − (1 − 1/R) P, P / R)`` — the floor, the
    partition variance the CV mean has given the data set, catches the negative estimates;
    ``rows_nested`` is ``rows`` plus the nested estimate's excess over it (its training-set
    part, clipped at 0), i.e. the larger of the two.  Both are the posterior variance of
    the CV mean, divided here by Nadeau–Bengio's factor like ``rows``' partition term;
    ``nan`` without a nested record."""
    k = rec["folds"]
    repeats = repeats or len(rec[metric]) // k
    d = np.asarray(rec[metric][: k * repeats])
    r = repeats - 1
    if metric == "acc":
        cum = k * rec["acc_row_cum"][r] / n
        each = k * np.mean(rec["acc_row_each"][:repeats]) / n
    else:  # DeLong: the placement variances of a test fold's m₁ positives and m₀ negatives
        m1 = rec["n_pos"] / k
        m0 = (n - rec["n_pos"]) / k
        cum = rec["auc_pos_cum"][r] / m1 + rec["auc_neg_cum"][r] / m0
        each = (
            np.mean(rec["auc_pos_each"][:repeats]) / m1
            + np.mean(rec["auc_neg_each"][:repeats]) / m0
        )
    split = float(d.var(ddof=1))
    nan = float("nan")
    if repeats < 2:  # no repetitions to tell persistent differences from partition noise
        return {"split": split, "rows": nan, "gated": split, "nested": nan, "rows_nested": nan}
    persistent = max((repeats * cum - each) / (repeats - 1), 0.0)
    partition = float(d.reshape(repeats, k).mean(axis=1).var(ddof=1)) / repeats
    nb = _nb(rec, n, repeats)
    rows = persistent + partition / nb
    near_equal = persistent <= PERSISTENT_SHARE * each
    out = {"split": split, "rows": float(rows), "gated": float(rows if near_equal else split)}
    nested = nan
    if "nested" in rec:
        kn = rec["nested"]["folds"]
        mse = (kn - 1) / kn * nested_mse(rec["nested"], metric)
        nested = max(mse - (repeats - 1) * partition, partition) / nb
    both = max(rows, nested) if "nested" in rec else nan
    return out | {"nested": nested, "rows_nested": both}


def posterior(rec: dict, metric: str, n: int, how: str, repeats: int | None = None):
    """(mean, scale, df) of the Student-t posterior of one data set under variance ``how``."""
    k = rec["folds"]
    repeats = repeats or len(rec[metric]) // k
    d = np.asarray(rec[metric][: k * repeats])
    s2 = variances(rec, metric, n, repeats)[how]
    return float(d.mean()), float(np.sqrt(s2 * _nb(rec, n, repeats))), d.size - 1


def outcome(mean: float, scale: float, df: int) -> str:
    """The package's decision at γ and ROPE on a t posterior."""
    t = stats.t(df, mean, max(scale, 1e-12))  # identical out-of-fold scores: no spread
    left, right = t.cdf(-ROPE), t.sf(ROPE)
    if right >= GAMMA:
        return "promote"
    if left >= GAMMA:
        return "worse"
    if 1 - left - right >= GAMMA:
        return "equivalent"
    return "inconclusive"


def cell_table(
    records: dict[tuple, dict], hows: tuple[str, ...] = VARIANCES, nested_only: bool = False
) -> list[dict]:
    """Every statistic of every finished cell, metric and variance (of ``hows``).  A data
    set's nested record, if any, rides on its data record; the nested variances are read on
    the data sets that have one (a cell without any is left out), and with ``nested_only``
    every variance is (the same data sets for all)."""
    cells: dict[tuple, dict] = defaultdict(lambda: {"data": [], "truth": []})
    nested = {key[1:]: rec for key, rec in records.items() if key[0] == "nested"}
    for (kind, pop, pair, n, i), rec in records.items():
        if kind == "data" and (pop, pair, n, i) in nested:
            rec = {**rec, "nested": nested[(pop, pair, n, i)]}
        if kind != "nested":
            cells[(pop, pair, n)][kind].append(rec)
    rows = []
    rng = np.random.default_rng(0)
    for (pop, pair, n), got in cells.items():
        if not got["data"] or not got["truth"]:
            continue
        draws = np.array([d for rec in got["truth"] for d in rec["draws"]])
        for m, metric in enumerate(("acc", "auc")):
            truth = draws[:, m].mean()
            for how in hows:
                data = got["data"]
                if nested_only or how in NESTED_VARIANCES:
                    data = [r for r in data if "nested" in r]
                if len(data) < 2:
                    continue
                deployed = np.array([r["deployed"][m] for r in data])
                post = np.array([posterior(r, metric, n, how) for r in data])
                mean, scale, df = post[:, 0], post[:, 1], int(post[0, 2])
                q = stats.t.ppf(0.5 + LEVEL / 2, df)
                var = scale**2 * df / (df - 2)
                lo, hi = mean - q * scale, mean + q * scale
                boot = rng.integers(0, len(mean), (2000, len(mean)))
                ratios = np.var(mean[boot], axis=1, ddof=1) / var[boot].mean(axis=1)
                shift = ROPE - truth  # the truth moved to the ROPE's edge
                rows.append(
                    {
                        "population": pop,
                        "pair": pair,
                        "kind": PAIRS[pair],
                        "n": n,
                        "metric": "accuracy" if metric == "acc" else "roc_auc",
                        "variance": how,
                        "datasets": len(mean),
                        "truth_cv": truth,
                        "truth_se": draws[:, m].std(ddof=1) / np.sqrt(len(draws)),
                        "cover_cv": float(np.mean((lo <= truth) & (truth <= hi))),
                        "cover_deployed": float(np.mean((lo <= deployed) & (deployed <= hi))),
                        "width": float(np.mean(hi - lo)),
                        "var_ratio": float(np.var(mean, ddof=1) / var.mean()),
                        "var_ratio_90": np.quantile(ratios, [0.05, 0.95]).tolist(),
                        "decided": float(np.mean([outcome(*p) != "inconclusive" for p in post])),
                        "false_promotion": float(
                            np.mean([outcome(a + shift, s, df) == "promote" for a, s, _ in post])
                        ),
                        "cpu_s": float(np.mean([r["cpu_s"] for r in data])),
                    }
                )
    return rows


# ------------------------------------------------------------------ the planner (cheap)


def _decided(d: np.ndarray, rho: float) -> np.ndarray:
    """The correlated t-test's decision (any of promote, worse, equivalent) on the splits
    ``d`` (last axis) at γ and ROPE: :func:`outcome`, vectorised."""
    n = d.shape[-1]
    scale = d.std(axis=-1, ddof=1) * np.sqrt(1 / n + rho / (1 - rho))
    mean = d.mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        left = special.stdtr(n - 1, (-ROPE - mean) / scale)
        right = special.stdtr(n - 1, (mean - ROPE) / scale)
    return (right >= GAMMA) | (left >= GAMMA) | (1 - left - right >= GAMMA)


def planner_table(records: dict[tuple, dict], pilot: int = 2) -> list[dict]:
    """Does the planner keep its word?  Per cell of at least 100 data sets and metric: the
    decisive rate a 10 × ``pilot`` pilot (the data set's first ``pilot`` repetitions)
    predicts for the full 10 × 10 design by the package's planner
    (:func:`bayescomp.posterior.repetitions.decisive_rates`), averaged over the data sets,
    beside the share the full design decided; ``se`` the standard error of
    ``realised − predicted`` (over the data sets of the cell: per data set, its decision
    minus its prediction)."""
    from bayescomp.posterior.repetitions import decisive_rates

    cells: dict[tuple, list] = defaultdict(list)
    for (kind, pop, pair, n, _), rec in records.items():
        if kind == "data":
            cells[(pop, pair, n)].append(rec)
    rows = []
    for (pop, pair, n), recs in sorted(cells.items()):
        if len(recs) < 100:
            continue
        k = recs[0]["folds"]
        rho = float(np.mean(recs[0]["n_test"])) / n
        for metric in ("acc", "auc"):
            full = np.array([r[metric] for r in recs])
            realised = np.array(
                [outcome(*posterior(r, metric, n, "split")) != "inconclusive" for r in recs],
                float,
            )
            reps = [full.shape[1] // k]
            p = np.sum(decisive_rates(full[:, : k * pilot], k, rho, ROPE, GAMMA, reps), axis=0)
            p = p[:, 0]
            row = {"population": pop, "pair": pair, "n": n, "metric": metric, "pilot": pilot}
            row |= {"datasets": len(recs), "realised": float(realised.mean())}
            row |= {"predicted": float(p.mean())}
            row["se"] = float(np.std(realised - p, ddof=1) / np.sqrt(len(recs)))
            row["per_dataset"] = (p, realised)
            rows.append(row)
    return rows


def keeps_word(r: dict) -> bool:
    """The issue's target for one cell: the prediction within ±3 points and 2 se of the
    realised rate."""
    err = abs(r["predicted"] - r["realised"])
    return err <= 0.03 + 1e-12 and err <= 2 * r["se"] + 1e-12


def saturated(r: dict) -> bool:
    """A cell the planner and the full design both put at ≤ 1 % or at ≥ 99 %."""
    got = (r["predicted"], r["realised"])
    return max(got) <= 0.01 or min(got) >= 0.99


def cell_world(records: dict[tuple, dict], copies: int = 3, seed: int = 46) -> list[dict]:
    """The planner on data drawn from its own model (a repetition effect), with each cell's
    data sets as they are: per data set of a cell (≥ 100 data sets), its level ``μ`` (the
    mean of its 100 splits), its within-repetition variance ``σ²`` (the mean of the 10
    repetitions' sample variances) and the variance ``v`` of its 10 repetition means;
    ``copies`` seeded 10 × 10 designs drawn from ``N(μ, v)`` repetition means and
    ``σ·(z − z̄)`` splits about them; the decisive rate the first 2 repetitions predict
    beside the share the full design decides.  When this reproduces the real cell's
    errors, they are not the model's misfit."""
    from bayescomp.posterior.repetitions import decisive_rates

    rng = np.random.default_rng(seed)
    rows = []
    for r in planner_table(records, pilot=2):
        recs = [
            rec
            for (kind, pop, pair, n, _), rec in records.items()
            if kind == "data" and (pop, pair, n) == (r["population"], r["pair"], r["n"])
        ]
        k, reps = recs[0]["folds"], REPEATS
        rho = float(np.mean(recs[0]["n_test"])) / r["n"]
        x = np.array([rec[r["metric"]] for rec in recs]).reshape(len(recs), reps, k)
        mu, sw = x.mean(axis=(1, 2)), np.sqrt(x.var(axis=2, ddof=1).mean(axis=1))
        v = x.mean(axis=2).var(axis=1, ddof=1)
        mu, sw, v = (np.repeat(a, copies) for a in (mu, sw, v))
        z = rng.standard_normal((mu.size, reps, k))
        means = mu[:, None] + np.sqrt(v)[:, None] * rng.standard_normal((mu.size, reps))
        d = (means[..., None] + sw[:, None, None] * (z - z.mean(axis=2, keepdims=True))).reshape(
            mu.size, -1
        )
        p = np.sum(decisive_rates(d[:, : 2 * k], k, rho, ROPE, GAMMA, [reps]), axis=0)
        got = {key: r[key] for key in ("population", "pair", "n", "metric")}
        got |= {"predicted": float(p.mean())}
        got |= {"realised": float(_decided(d, rho).mean()), "datasets": mu.size}
        rows.append(got)
    return rows


def planner_model_check(pilots: int = 3000, seed: int = 46) -> list[dict]:
    """The planner on its own model, across a wide prior: per pilot ``φ ~ U(0, 1)``,
    ``σ ~ log-uniform(0.004, 0.04)``, ``μ ~ U(−0.03, 0.03)`` (ROPE 0.01, 10 folds,
    ρ = 0.1), a 10 × 10 design drawn from the model; the first 2 repetitions predict, the
    full design decides.  Rows: the pilots by predicted rate (bins), their
    mean prediction and realised share, with the binomial se of the share."""
    from bayescomp.posterior.repetitions import decisive_rates

    rng = np.random.default_rng(seed)
    k, reps, rho = FOLDS, REPEATS, 1 / FOLDS
    phi = rng.uniform(0, 1, pilots)
    sw = np.exp(rng.uniform(np.log(0.004), np.log(0.04), pilots))
    mu = rng.uniform(-0.03, 0.03, pilots)
    z = rng.standard_normal((pilots, reps, k))
    means = mu[:, None] + np.sqrt(phi * sw**2 / k)[:, None] * rng.standard_normal((pilots, reps))
    d = (means[..., None] + sw[:, None, None] * (z - z.mean(axis=2, keepdims=True))).reshape(
        pilots, -1
    )
    realised = _decided(d, rho).astype(float)
    p = np.sum(decisive_rates(d[:, : 2 * k], k, rho, ROPE, GAMMA, [reps]), axis=0)[:, 0]
    rows = []
    for lo, hi in itertools.pairwise([0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0001]):
        inside = (p >= lo) & (p < hi)
        if inside.sum() < 10:
            continue
        share = realised[inside].mean()
        rows.append(
            {
                "bin": f"[{lo:.2f}, {min(hi, 1):.2f}]",
                "pilots": int(inside.sum()),
                "predicted": float(p[inside].mean()),
                "realised": float(share),
                "se": float(np.sqrt(max(share * (1 - share), 1 / inside.sum()) / inside.sum())),
            }
        )
    rows.append(
        {
            "bin": "all",
            "pilots": pilots,
            "predicted": float(p.mean()),
            "realised": float(realised.mean()),
            "se": float(np.std(realised - p, ddof=1) / np.sqrt(pilots)),
        }
    )
    return rows


def planner_report(records: dict[tuple, dict]) -> None:
    """``report --planner``: predicted vs realised per cell (pilots of 2 and 3
    repetitions), the cells that meet the target, the pooled calibration by predicted rate,
    the cells on data drawn from the model, and the model check across a wide prior."""
    for pilot in (2, 3):
        rows = planner_table(records, pilot)
        print(f"\npilot 10 × {pilot} → full 10 × 10 (split variance, γ = {GAMMA}, ROPE {ROPE})")
        print("| population | pair | n | metric | data sets | predicted | realised | se |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            mark = "" if keeps_word(r) else "*"
            print(
                f"| {r['population']} | {r['pair']} | {r['n']} | {r['metric']} | {r['datasets']} "
                f"| {100 * r['predicted']:.1f}{mark} | {100 * r['realised']:.1f} "
                f"| {100 * r['se']:.1f} |"
            )
        live = [r for r in rows if not saturated(r)]
        errs = [r["predicted"] - r["realised"] for r in live]
        kept = {(r["population"], r["pair"]) for r in rows if keeps_word(r)}
        print(
            f"{sum(map(keeps_word, rows))} of {len(rows)} cells ({len(kept)} problems) within "
            f"±3 points and 2 se ({sum(map(keeps_word, live))} of {len(live)} not saturated); "
            "errors on those: " + ", ".join(f"{100 * e:+.1f}" for e in errs)
        )
        # pooled calibration: every data set of every cell, by its predicted rate
        p = np.concatenate([r["per_dataset"][0] for r in rows])
        y = np.concatenate([r["per_dataset"][1] for r in rows])
        bins = []
        for lo, hi in ((0, 0.05), (0.05, 0.5), (0.5, 0.95), (0.95, 1.0001)):
            inside = (p >= lo) & (p < hi)
            if inside.any():
                bins.append(
                    f"[{lo:.2f}, {min(hi, 1):.2f}]: {inside.sum()} data sets, predicted "
                    f"{100 * p[inside].mean():.1f}, realised {100 * y[inside].mean():.1f}"
                )
        print("pooled: " + "; ".join(bins))
    print("\ncells on data drawn from the model (each data set's μ, σ², v; 3 copies)")
    print("| population | pair | metric | predicted | realised |")
    print("|---|---|---|---|---|")
    for r in cell_world(records):
        if max(r["predicted"], r["realised"]) > 0.01 and min(r["predicted"], r["realised"]) < 0.99:
            print(
                f"| {r['population']} | {r['pair']} | {r['metric']} "
                f"| {100 * r['predicted']:.1f} | {100 * r['realised']:.1f} |"
            )
    print("\nthe model across a wide prior (3,000 seeded pilots)")
    print("| predicted bin | pilots | predicted | realised | se |")
    print("|---|---|---|---|---|")
    for r in planner_model_check():
        print(
            f"| {r['bin']} | {r['pilots']} | {100 * r['predicted']:.1f} "
            f"| {100 * r['realised']:.1f} | {100 * r['se']:.1f} |"
        )


def missed_targets(r: dict) -> list[str]:
    """The targets a cell misses (docs/honesty.md): coverage of the CV estimand
    ≥ 93 % and false promotion at the edge ≤ 5 % (each within 2 binomial se); variance ratio
    in [0.5, 1.25], ≥ 0.8 for the near-equal pairs at n ≥ 1,000, which are also decided in
    ≥ 70 % of the data sets."""
    se = np.sqrt(0.05 * 0.95 / r["datasets"])
    ratio, (lo, hi) = r["var_ratio"], r["var_ratio_90"]
    near = r["kind"] == "near" and r["n"] >= 1000
    out = []
    if r["cover_cv"] < 0.93 - 2 * se:
        out.append(f"cover {100 * r['cover_cv']:.0f} %")
    if r["false_promotion"] > 0.05 + 2 * se:
        out.append(f"FP {100 * r['false_promotion']:.0f} %")
    if not (0.8 if near else 0.5) <= ratio <= 1.25:
        out.append(f"ratio {ratio:.2f} [{lo:.2f}, {hi:.2f}]")
    if near and r["decided"] < 0.70:
        out.append(f"decided {100 * r['decided']:.0f} %")
    return out


def targets(rows: list[dict], hows: tuple[str, ...]) -> None:
    """Per variance: the range of every statistic, then each cell that misses a target."""
    for how in hows:
        got = [r for r in rows if r["variance"] == how]
        if not got:
            print(f"\n{how}: no cell has the records it needs")
            continue
        near = [r for r in got if r["kind"] == "near" and r["n"] >= 1000]
        missed = [(r, missed_targets(r)) for r in got]
        missed = [(r, m) for r, m in missed if m]
        ratios = [r["var_ratio"] for r in got]
        sets = sorted({r["datasets"] for r in got})
        near_text = (
            f"ratio ≥ {min(r['var_ratio'] for r in near):.2f}, decided "
            f"{100 * min(r['decided'] for r in near):.0f}–"
            f"{100 * max(r['decided'] for r in near):.0f} %"
            if near
            else "no cell"
        )
        print(
            f"\n{how}: {len(missed)} of {len(got)} cells miss a target ({sets[0]}–{sets[-1]} "
            f"data sets a cell); variance ratio {min(ratios):.2f}–{max(ratios):.2f}, coverage "
            f"≥ {100 * min(r['cover_cv'] for r in got):.0f} %, false promotion ≤ "
            f"{100 * max(r['false_promotion'] for r in got):.0f} %; near-equal at n ≥ 1,000: "
            + near_text
        )
        for r, m in sorted(missed, key=lambda x: (x[0]["n"], x[0]["population"], x[0]["pair"])):
            print(
                f"  {r['population']} {r['pair']} n={r['n']} {r['metric']} "
                f"({r['datasets']} data sets): {'; '.join(m)}"
            )


def compact(rows: list[dict], hows: tuple[str, ...] = ("split", "gated")) -> None:
    """One line per cell and metric, the variances side by side (docs/honesty.md's table)."""
    by: dict[tuple, dict] = defaultdict(dict)
    for r in rows:
        by[(r["population"], r["pair"], r["kind"], r["n"], r["metric"])][r["variance"]] = r
    head = " | ".join(f"{v}: cover CV / var ratio [90 %] / decided / FP at edge" for v in hows)
    print(f"| population | pair | kind | n | metric | data sets | {head} |")
    print("|---|---|---|---|---|---|" + "---|" * len(hows))
    for key in sorted(by, key=lambda k: (k[3], k[0], k[1], k[4])):
        got = by[key]
        sets = got[next(v for v in (*hows, *got) if v in got)]["datasets"]
        cells = []
        for v in hows:
            if v not in got:  # no records for this variance (a nested one without nested units)
                cells.append("missing")
                continue
            (lo, hi), mark = got[v]["var_ratio_90"], "**" if missed_targets(got[v]) else ""
            own = f" ({got[v]['datasets']} data sets)" if got[v]["datasets"] != sets else ""
            cells.append(
                f"{mark}{100 * got[v]['cover_cv']:.0f} % / {got[v]['var_ratio']:.2f} "
                f"[{lo:.2f}, {hi:.2f}] / {100 * got[v]['decided']:.0f} % / "
                f"{100 * got[v]['false_promotion']:.0f} %{mark}{own}"
            )
        print(f"| {' | '.join(map(str, key))} | {sets} | {' | '.join(cells)} |")


def nested_noise(records: dict[tuple, dict]) -> None:
    """``report --nested-noise``: per cell and metric with nested records, the variance over
    all its data sets of the 10 × 10 CV mean (what the nested estimate should be near, after its
    partition correction), the mean of the nested estimate ``(K − 1)/K · MSE`` (before it),
    the share of data sets whose estimate is negative, and its repetition noise: the sd of a
    data set's estimate from all ``R`` repetitions about its infinite-repetition value,
    ``sd(first half − second half) / 2``, over the variance of the CV mean, and the
    correlation of the two halves over the data sets."""
    data = {key[1:]: rec for key, rec in records.items() if key[0] == "data"}
    cells: dict[tuple, list] = defaultdict(list)
    for (kind, pop, pair, n, i), rec in records.items():
        if kind == "nested" and (pop, pair, n, i) in data:
            cells[(pop, pair, n)].append((data[(pop, pair, n, i)], rec))
    print(
        "| population | pair | n | metric | data sets | var of CV mean | nested mean "
        "| negative | noise sd / var | halves' correlation |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (pop, pair, n), got in sorted(cells.items(), key=lambda c: (c[0][2], c[0][0], c[0][1])):
        if len(got) < 3:
            continue
        for metric in ("acc", "auc"):
            means = [np.mean(d[metric]) for key, d in data.items() if key[:3] == (pop, pair, n)]
            target = float(np.var(means, ddof=1))
            k, reps = got[0][1]["folds"], got[0][1]["repeats"]
            scale = (k - 1) / k
            full = scale * np.array([nested_mse(r, metric) for _, r in got])
            halves: list[list[float]] = [[], []]
            for half, (lo, hi) in enumerate(((0, reps // 2), (reps // 2, reps))):
                for _, r in got:
                    part = {
                        f"{metric}_{p}": r[f"{metric}_{p}"][k * lo : k * hi]
                        for p in ("inner", "outer", "b")
                    }
                    halves[half].append(scale * nested_mse({**part, "folds": k}, metric, hi - lo))
            h1, h2 = np.array(halves)
            print(
                f"| {pop} | {pair} | {n} | {metric} | {len(got)} | {target:.2e} "
                f"| {full.mean():.2e} | {100 * np.mean(full < 0):.0f} % "
                f"| {np.std(h1 - h2, ddof=1) / 2 / target:.1f} "
                f"| {np.corrcoef(h1, h2)[0, 1]:.2f} |"
            )


def report(
    path: Path,
    short: bool = False,
    hows: tuple[str, ...] = VARIANCES,
    missed: bool = False,
    planner: bool = False,
    nested_path: Path = NESTED_CHECKPOINT,
    nested_only: bool = False,
    noise: bool = False,
) -> None:
    records = load(path)
    if planner:
        planner_report(records)
        return
    records |= load(nested_path, nested_fingerprint())
    if noise:
        nested_noise(records)
        return
    rows = cell_table(records, hows, nested_only)
    if short:
        compact(rows, hows)
    if missed:
        targets(rows, hows)
    if short or missed:
        return
    print(
        "| population | pair | n | metric | variance | data sets | cover CV | cover deployed "
        "| var ratio [90 %] | decided | false promotion | CPU s / data set |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in sorted(rows, key=lambda r: (r["population"], r["pair"], r["n"], r["metric"])):
        lo, hi = r["var_ratio_90"]
        print(
            f"| {r['population']} | {r['pair']} | {r['n']} | {r['metric']} | {r['variance']} "
            f"| {r['datasets']} | {100 * r['cover_cv']:.0f} % | {100 * r['cover_deployed']:.0f} % "
            f"| {r['var_ratio']:.2f} [{lo:.2f}, {hi:.2f}] | {100 * r['decided']:.0f} % "
            f"| {100 * r['false_promotion']:.1f} % | {r['cpu_s']:.1f} |"
        )
    planner_report(records)


def status(path: Path, kind: str = "grid") -> None:
    """Units done and the CPU time spent and left; a nested unit not yet measured in its
    cell is guessed from its data units' mean as ``R K (K + 1) / 2`` fits of each learner
    against their 100 (a nested repetition's ``K (K − 1) / 2 + K``; an over-estimate:
    smaller training sets, and no held-out population to score)."""
    nested = kind == "nested"
    done = load(path, nested_fingerprint() if nested else None)
    work = nested_grid() if nested else grid()
    cpu = defaultdict(list)
    if nested:
        for (_, pop, pair, n, _), rec in load(CHECKPOINT).items():
            fits = NESTED_REPEATS * NESTED_FOLDS * (NESTED_FOLDS + 1) / 2
            cpu[("nested", pop, pair, n)].append(rec["cpu_s"] * fits / (FOLDS * REPEATS))
        cpu = defaultdict(list, {key: [float(np.mean(v))] for key, v in cpu.items()})
        measured = defaultdict(list)
        for (k, pop, pair, n, _), rec in done.items():
            measured[(k, pop, pair, n)].append(rec["cpu_s"])
        cpu |= measured
        spent = sum(rec["cpu_s"] for rec in done.values())
        left = sum(float(np.mean(cpu[u[:4]])) for u in work if u not in done)
        print(
            f"{len(done)} of {len(work)} nested units done, {spent / 3600:.2f} CPU h spent, "
            f"about {left / 3600:.2f} CPU h left"
        )
        return
    for (kind, pop, pair, n, _), rec in done.items():
        cpu[(kind, pop, pair, n)].append(rec["cpu_s"])
    spent = sum(sum(v) for v in cpu.values())
    # the cost of what is left: each unit at its cell's mean so far (or the mean of its n)
    by_n: dict[tuple, list] = defaultdict(list)
    for (kind, _, _, n), v in cpu.items():
        by_n[(kind, n)] += v
    left = 0.0
    for u in work:
        if u not in done:
            known = cpu.get(u[:4]) or by_n.get((u[0], u[3])) or [30.0]
            left += float(np.mean(known))
    print(
        f"{len(done)} of {len(work)} units done, {spent / 3600:.2f} CPU h spent, "
        f"about {left / 3600:.2f} CPU h left"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("action", choices=["run", "status", "report"])
    p.add_argument("--minutes", type=float, default=9.0, help="a slice's budget")
    p.add_argument("--checkpoint", type=Path, default=CHECKPOINT)
    p.add_argument(
        "--kind",
        choices=["grid", "nested"],
        default="grid",
        help="run, status: the data and truth grid, or the nested grid (its own checkpoint)",
    )
    p.add_argument("--nested-checkpoint", type=Path, default=NESTED_CHECKPOINT)
    p.add_argument(
        "--nested-only",
        action="store_true",
        help="report: every variance on the data sets that have a nested record only",
    )
    p.add_argument(
        "--nested-noise",
        action="store_true",
        help="report: the nested estimate per cell beside its target and its repetition noise",
    )
    p.add_argument("--compact", action="store_true", help="report: the docs' table")
    p.add_argument(
        "--targets", action="store_true", help="report: the cells that miss the issue's targets"
    )
    p.add_argument(
        "--planner",
        action="store_true",
        help="report: the planner's predicted decisive rates against the realised",
    )
    p.add_argument(
        "--variances",
        default=None,
        help=f"report: comma-separated, of {', '.join(VARIANCES)} "
        "(default: all; --variances split,gated --compact is the docs' table)",
    )
    args = p.parse_args(argv)
    hows = tuple(args.variances.split(",")) if args.variances else None
    if hows and not set(hows) <= set(VARIANCES):
        p.error(f"--variances: choose from {', '.join(VARIANCES)}")
    path = args.nested_checkpoint if args.kind == "nested" else args.checkpoint
    if args.action == "run":
        run(path, args.minutes, args.kind)
    elif args.action == "status":
        status(path, args.kind)
    else:
        default = ("split", "rows", "gated", *NESTED_VARIANCES) if args.compact else VARIANCES
        report(
            args.checkpoint,
            args.compact,
            hows or default,
            args.targets,
            args.planner,
            args.nested_checkpoint,
            args.nested_only,
            args.nested_noise,
        )


if __name__ == "__main__":
    main()
