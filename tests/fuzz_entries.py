"""Hostile arguments for every public entry point a user calls with data (issue 12, the API row).

Each entry point has a valid call (small data, cheap settings) and a list of mutations: one
argument replaced by a hostile value (NaN/inf, empty, mismatched length, strings/objects/None,
extreme magnitude, bad rope/rho/gamma/level/n_resamples, unknown metric or model, single-class
labels, constant predictions).  A mutation says whether the input must be refused (``True``),
must be answered (``False``) or may be either (``None``: a finite answer, or a documented NaN
with a warning, or a clear error).  :func:`run_entry` calls it under a time limit and names the
outcome with the columns of ``fuzz_cases.OUTCOMES``.
"""

from __future__ import annotations

import dataclasses
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from fuzz_cases import Hang, _ours, time_limit
from hypothesis import strategies as st

NAN, INF = float("nan"), float("inf")
R = True  # must refuse
E = None  # either answered (finite) or refused clearly


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _long(models=("a", "b", "c"), n=8, datasets=("d",), seed=0) -> pd.DataFrame:
    rng = _rng(seed)
    rows = [
        {
            "dataset": d,
            "model": m,
            "split": s,
            "accuracy": 0.8 + 0.01 * i + rng.normal(0, 0.01),
            "n_train": 90,
            "n_test": 10,
        }
        for d in datasets
        for i, m in enumerate(models)
        for s in range(n)
    ]
    return pd.DataFrame(rows)


def _labels(n=40, seed=0):
    rng = _rng(seed)
    y = np.r_[np.ones(n // 2, int), np.zeros(n - n // 2, int)]
    return y, y * 0.8 + rng.normal(0, 0.5, n), y * 0.6 + rng.normal(0, 0.5, n)


# ---------------------------------------------------------------- generic mutations
def _set(a, i, v):
    a = np.asarray(a, dtype=float).copy()
    a.flat[i] = v
    return a


ARRAY_MUTATIONS: dict[str, tuple[Callable[[Any], Any], bool | None]] = {
    "nan": (lambda a: _set(a, 1, NAN), R),
    "inf": (lambda a: _set(a, 0, INF), R),
    "empty": (lambda a: np.array([]), R),
    "short": (lambda a: np.asarray(a)[:-1], R),
    "strings": (lambda a: np.array(["x"] * len(a)), R),
    "none": (lambda a: None, R),
    "objects": (lambda a: np.array([None, *list(a)[1:]], dtype=object), R),
    "huge": (lambda a: np.asarray(a, dtype=float) * 1e300, E),
    "tiny": (lambda a: np.asarray(a, dtype=float) * 1e-300, E),
    "constant": (lambda a: np.full(len(a), 0.5), E),
}
LABEL_MUTATIONS = {k: ARRAY_MUTATIONS[k] for k in ("nan", "empty", "short", "none", "objects")}
LABEL_MUTATIONS["single_class"] = (lambda a: np.ones(len(a), int), E)
ONE_ARRAY = {**ARRAY_MUTATIONS, "short": (ARRAY_MUTATIONS["short"][0], E)}
ROPE = [-0.01, NAN, INF, "x", None, 1e300, 0.0]
ROPE_R = [R, R, R, R, R, E, E]
RHO = [-0.1, 1.0, 1.5, NAN, "x", None, 0.0]
RHO_R = [R, R, R, R, R, R, E]
LEVEL = [0.0, 1.0, 1.5, -0.1, NAN, "x"]
COUNT = [0, -5, 2.5, "x", None]


def _frame_mutations() -> dict[str, tuple[Callable[[pd.DataFrame], Any], bool | None]]:
    def cell(v):
        def f(df):
            df = df.copy()
            df["accuracy"] = df["accuracy"].astype(object)
            df.loc[1, "accuracy"] = v
            return df

        return f

    def scale(k):
        def f(df):
            df = df.copy()
            df["accuracy"] *= k
            return df

        return f

    return {
        "nan_cell": (cell(NAN), R),
        "inf_cell": (cell(INF), R),
        "str_cell": (cell("oops"), R),
        "none_cell": (cell(None), R),
        "empty": (lambda df: df.iloc[:0], R),
        "no_model": (lambda df: df.drop(columns="model"), R),
        "duplicate": (lambda df: pd.concat([df, df.iloc[[0]]], ignore_index=True), R),
        "huge": (scale(1e300), E),
        "tiny": (scale(1e-300), E),
        "not_a_frame": (lambda df: "scores.csv-that-does-not-exist", R),
        "one_model": (lambda df: df[df["model"] == "a"], E),
        "neg_size": (lambda df: df.assign(n_train=-5), R),
        # issue 23: sizes that overflow or are not row counts, values against the metric's
        # range (a negated loss under the loss's name, an accuracy of 1.2), subnormals
        "huge_size": (lambda df: df.assign(n_train=1e308, n_test=1e308), R),
        "fractional_size": (lambda df: df.assign(n_train=89.5), R),
        "negated_loss": (
            lambda df: df.rename(columns={"accuracy": "log_loss"}).assign(
                log_loss=lambda d: -d["log_loss"]
            ),
            R,
        ),
        "above_range": (scale(1.5), R),
        "subnormal": (scale(1e-320), None),
    }


# ---------------------------------------------------------------- entry points
@dataclass
class Entry:
    call: Callable[[dict], Any]
    base: Callable[[], dict]
    arrays: dict[str, dict] = dataclasses.field(default_factory=dict)
    scalars: dict[str, tuple[list, list]] = dataclasses.field(default_factory=dict)
    #: the numbers that must be finite (default: every float the result carries)
    numbers: Callable[[Any], Any] | None = None
    #: the unchanged call is not run (it would sample an MCMC posterior)
    skip_valid: bool = False


def _bc():
    import bayescomp as bc

    return bc


def _scores(**kw):
    return _bc().Scores.from_frame(_long(**kw))


def _read_csv(kw):
    folder = Path(tempfile.mkdtemp())
    path = folder / "s.csv"
    content = kw.pop("content")
    if content is not None:
        path.write_bytes(content)
    return _bc().Scores.read_csv(path, **kw)


def _rgkf(kw):
    bc = _bc()
    X, y, groups = kw.pop("X"), kw.pop("y"), kw.pop("groups")
    return list(bc.RepeatedGroupKFold(**kw).split(X, y, groups))


def _gtss(kw):
    bc = _bc()
    X, y, groups = kw.pop("X"), kw.pop("y"), kw.pop("groups")
    return list(bc.GroupTimeSeriesSplit(**kw).split(X, y, groups))


def _off_diagonal(ranking: Any) -> list[float]:
    """A pairwise ranking's matrices hold NaN on the diagonal only (a model versus itself)."""
    out = []
    for f in dataclasses.fields(ranking):
        v = getattr(ranking, f.name)
        if isinstance(v, pd.DataFrame) and v.shape[0] == v.shape[1] and v.shape[0] > 1:
            out += list(v.to_numpy(float)[~np.eye(v.shape[0], dtype=bool)])
    return out


def _defined_curves(curves: Any) -> list[float]:
    """Precision is documented NaN where nothing is predicted positive (``n_defined`` counts)."""
    s = curves.summary("precision")
    return list(s.loc[s["n_defined"] > 0, "mean"]) + _numbers(curves.summary("recall")["mean"])


def _entries() -> dict[str, Entry]:
    from sklearn.dummy import DummyClassifier
    from sklearn.model_selection import KFold
    from sklearn.tree import DecisionTreeClassifier

    bc = _bc()
    b = 0.8 + _rng().normal(0, 0.02, 10)
    c = b + _rng(1).normal(0.005, 0.01, 10)
    y, s1, s2 = _labels()
    pairs = {"baseline": ARRAY_MUTATIONS, "candidate": ARRAY_MUTATIONS}
    frame = _frame_mutations()
    models = lambda: {  # noqa: E731
        "a": DummyClassifier(),
        "b": DecisionTreeClassifier(
            max_depth=2,
            random_state=0,
        ),
    }
    X = _rng(3).normal(size=(40, 2)) + y[:, None]
    rank_diffs = np.array([-0.05, -0.03, -0.02, 0.0, 0.04, 0.07, 0.07, 0.07])
    rank_scalars = {
        "rope": (ROPE, ROPE_R),
        "prior_strength": ([-1.0, NAN, "x", INF], [R] * 4),
        "prior_place": (["bogus", None], [R, R]),
        "n_samples": (COUNT, [R] * 5),
        "random_state": (["x", -1], [R, R]),
    }
    return {
        "correlated_ttest": Entry(
            lambda kw: bc.correlated_ttest(**kw),
            lambda: {"baseline": b, "candidate": c, "rho": 0.1, "rope": 0.01},
            pairs,
            {"rho": (RHO, RHO_R), "rope": (ROPE, ROPE_R)},
        ),
        "nadeau_bengio_ttest": Entry(
            lambda kw: bc.nadeau_bengio_ttest(**kw),
            lambda: {"baseline": b, "candidate": c, "rho": 0.1},
            pairs,
            {"rho": (RHO, RHO_R), "alternative": (["bogus", None], [R, R])},
        ),
        "compare": Entry(
            lambda kw: bc.compare(**kw),
            lambda: {
                "scores": _long(),
                "baseline": "a",
                "candidate": "b",
                "metric": "accuracy",
                "rope": 0.01,
            },
            {"scores": frame},
            {
                "rope": (ROPE, ROPE_R),
                "metric": (["nope", 3], [R, R]),
                "candidate": (["zzz", None, "a"], [R, R, R]),
                "baseline": (["zzz", NAN], [R, R]),
                "method": (["bogus", "hierarchical"], [R, R]),
                "dataset": (["nope"], [R]),
            },
        ),
        "compare[several datasets]": Entry(
            lambda kw: bc.compare(**kw),
            lambda: {
                "scores": _long(datasets=tuple("pqrstu")),
                "baseline": "a",
                "candidate": "b",
                "metric": "accuracy",
                "rope": 0.01,
                "method": "sign",
                "random_state": 0,
                "n_samples": 2000,
            },
            {"scores": frame},
            {
                "rope": (ROPE, ROPE_R),
                "method": (["signed_rank", "bogus"], [False, R]),
                "n_samples": (COUNT, [R] * 5),
                "prior_strength": ([-1.0, NAN], [R, R]),
            },
        ),
        "sign_test": Entry(
            lambda kw: bc.sign_test(**kw),
            lambda: {"differences": rank_diffs, "rope": 0.01, "n_samples": 2000, "random_state": 0},
            {"differences": ONE_ARRAY},
            rank_scalars,
        ),
        "signed_rank_test": Entry(
            lambda kw: bc.signed_rank_test(**kw),
            lambda: {"differences": rank_diffs, "rope": 0.01, "n_samples": 2000, "random_state": 0},
            {"differences": ONE_ARRAY},
            {**rank_scalars, "chunk_size": ([0, -1, "x"], [R, R, R])},
        ),
        "hierarchical_test": Entry(
            lambda kw: bc.hierarchical_test(**kw),
            lambda: {
                "differences": {f"d{i}": _rng(i).normal(0.01, 0.01, 6) for i in range(4)},
                "rho": 0.1,
                "rope": 0.01,
                "chains": 1,
                "draws": 20,
                "tune": 20,
            },
            {},
            {
                "rope": ([-0.01, NAN, INF, "x", None], [R] * 5),
                "differences": (
                    [
                        {},
                        {"d": np.array([0.1])},
                        {"d": np.array([[0.1, 0.2]])},
                        {"d": np.array([0.1, NAN, 0.2])},
                        {"d": np.array(["a", "b"])},
                        np.array([0.1, 0.2]),
                        None,
                        {"d": np.array([0.1, INF, 0.2])},
                    ],
                    [R] * 8,
                ),
                "chains": ([0, -1, "x"], [R] * 3),
                "draws": ([0, -1], [R] * 2),
            },
            skip_valid=True,
        ),
        "Scores.from_frame": Entry(
            lambda kw: bc.Scores.from_frame(**kw),
            lambda: {"df": _long()},
            {"df": frame},
            {
                "metrics": ([["nope"], "accuracy"], [R, R]),
                "test_fraction": ([-0.1, 1.5, NAN, "x"], [R] * 4),
                "model_col": (["nope"], [R]),
            },
        ),
        "Scores.read_csv": Entry(
            _read_csv,
            lambda: {"content": _long().to_csv(index=False).encode()},
            {},
            {
                "content": (
                    [
                        None,
                        b"",
                        b"\x00\x01\xff\xfe garbage",
                        b"model,split\n",
                        b"a;b\n1;2\n",
                        "not bytes".encode("utf-16")[:7],
                    ],
                    [R] * 6,
                ),
                "sep": (["\x00", 5], [R, R]),
            },
        ),
        "Scores.paired": Entry(
            lambda kw: _scores().paired(**kw),
            lambda: {"baseline": "a", "candidate": "b", "metric": "accuracy"},
            {},
            {
                "baseline": (["zzz", None, 1.5], [R] * 3),
                "candidate": (["zzz", "a"], [R, R]),
                "metric": (["nope", 3], [R, R]),
                "dataset": (["nope", 0], [R, R]),
            },
        ),
        "Scores.from_wide": Entry(
            lambda kw: bc.Scores.from_wide(**kw),
            lambda: {
                "frame": pd.DataFrame({"a": b, "b": c}),
                "metric": "accuracy",
                "test_fraction": 0.1,
            },
            {
                "frame": {
                    "nan": (lambda f: f.assign(a=_set(f["a"], 1, NAN)), R),
                    "strings": (lambda f: f.assign(a="x"), R),
                    "empty": (lambda f: f.iloc[:0], R),
                    "one_model": (lambda f: f[["a"]], E),
                    "huge": (lambda f: f * 1e300, E),
                    "not_a_frame": (lambda f: [1, 2], R),
                }
            },
            {
                "test_fraction": ([-0.1, 1.5, NAN, "x"], [R] * 4),
                "rows": (["bogus"], [R]),
                "models": ([["zzz"]], [R]),
                "n_train": ([-1, NAN], [R, R]),
            },
        ),
        "Scores.from_cross_validate": Entry(
            lambda kw: bc.Scores.from_cross_validate(**kw),
            lambda: {
                "results_by_model": {"a": {"test_score": b}, "b": {"test_score": c}},
                "metric": "accuracy",
                "cv": KFold(10),
                "X": np.zeros((50, 1)),
            },
            {},
            {
                "results_by_model": (
                    [
                        {},
                        {"a": {"test_score": b}, "b": {"test_score": c[:-1]}},
                        {"a": {"fit_time": b}, "b": {"fit_time": c}},
                        {"a": {"test_score": _set(b, 1, NAN)}, "b": {"test_score": c}},
                        {"a": {"test_score": ["x"] * 10}, "b": {"test_score": c}},
                        [b, c],
                        None,
                    ],
                    [R] * 7,
                )
            },
        ),
        "cross_validate_paired": Entry(
            lambda kw: bc.cross_validate_paired(**kw),
            lambda: {"models": models(), "X": X, "y": y, "cv": KFold(3), "progress": False},
            {
                "X": {
                    "nan": (lambda a: _set(a, 1, NAN), E),
                    "inf": (lambda a: _set(a, 0, INF), R),
                    "empty": (lambda a: np.empty((0, 2)), R),
                    "short": (lambda a: a[:-1], R),
                    "strings": (lambda a: np.full(a.shape, "x"), R),
                    "none": (lambda a: None, R),
                },
                "y": LABEL_MUTATIONS,
            },
            {
                "models": ([{}, [1, 2], {"a": "not an estimator"}], [R] * 3),
                "cv": ([-1, 1, "x", 100], [R] * 4),
                "scoring": (["nope", 5], [R, R]),
            },
        ),
        "select": Entry(
            lambda kw: bc.select(kw.pop("scores"), **kw),
            lambda: {
                "scores": _scores(),
                "baseline": "a",
                "rope": 0.01,
                "metric": "accuracy",
            },
            {},
            {
                "rope": (ROPE, ROPE_R),
                "gamma": ([0.4, 1.5, NAN, 0.0, "x"], [R] * 5),
                "baseline": (["zzz", None], [R, R]),
                "metric": (["nope"], [R]),
                "method": (["bogus"], [R]),
                "order": (["bogus"], [R]),
                "scores": ([None, 5], [R, R]),
            },
            # the family rule's selective p and corrected gain exist for the winner only
            # (NaN elsewhere by design): every other number must be finite
            numbers=lambda sel: _numbers(
                sel.steps.drop(columns=["p_selective", "corrected_gain"], errors="ignore")
            ),
        ),
        "rank": Entry(
            lambda kw: bc.rank(**kw),
            lambda: {"scores": _scores(), "metric": "accuracy", "rope": 0.01},
            {},
            {
                "rope": (ROPE, ROPE_R),
                "models": ([["zzz"], ["a"], []], [R] * 3),
                "method": (["bogus"], [R]),
                "metric": (["nope"], [R]),
            },
            numbers=_off_diagonal,
        ),
        "bootstrap_metric": Entry(
            lambda kw: bc.bootstrap_metric(**kw),
            lambda: {
                "y_true": y,
                "y_pred_or_score": s1,
                "metric": "roc_auc",
                "n_resamples": 200,
                "random_state": 0,
            },
            {"y_true": LABEL_MUTATIONS, "y_pred_or_score": ARRAY_MUTATIONS},
            {
                "metric": (["nope", 5, None], [R] * 3),
                "n_resamples": (COUNT, [R] * 5),
                "confidence_level": (LEVEL, [R] * 6),
                "method": (["bogus"], [R]),
                "threshold": ([NAN, "x"], [R, R]),
            },
        ),
        "blb_metric": Entry(
            lambda kw: bc.blb_metric(**kw),
            lambda: {
                "y_true": np.tile(y, 5),
                "y_pred_or_score": np.tile(s1, 5),
                "metric": "roc_auc",
                "n_subsets": 4,
                "n_resamples": 20,
                "adaptive": False,
                "random_state": 0,
            },
            {"y_true": LABEL_MUTATIONS, "y_pred_or_score": ARRAY_MUTATIONS},
            {
                "gamma": ([0.0, -1.0, 1.5, NAN, "x"], [R] * 5),
                "n_subsets": (COUNT, [R] * 5),
                "n_resamples": (COUNT, [R] * 5),
                "confidence_level": (LEVEL, [R] * 6),
                "metric": (["nope"], [R]),
                "tol": ([-1.0, NAN], [R, R]),
            },
        ),
        "threshold_curves": Entry(
            lambda kw: bc.threshold_curves(**kw),
            lambda: {
                "predictions": [(y, s1), (y, s2), (y, s1 + s2)],
                "thresholds": np.linspace(-1, 2, 7),
            },
            {
                "thresholds": {
                    k: ARRAY_MUTATIONS[k]
                    for k in ("nan", "inf", "empty", "strings", "none", "huge")
                }
            },
            {
                "predictions": (
                    [
                        [],
                        [(y, s1[:-1])],
                        [(y, _set(s1, 1, NAN))],
                        [(np.ones(40, int), s1)],
                        [(y, np.full(40, "x"))],
                        None,
                    ],
                    [R, R, R, E, R, R],
                ),
                "metrics": ([["nope"], "precision", []], [R, E, R]),
                "quantiles": ([(0.9, 0.1), (-1, 2), (NAN, 0.5)], [R] * 3),
            },
            numbers=_defined_curves,
        ),
        "precision_at_k_unlabeled": Entry(
            lambda kw: bc.precision_at_k_unlabeled(**kw),
            lambda: {
                "test_scores": s1,
                "test_labels": y,
                "unlabeled_scores": _rng(4).normal(0, 1, 100),
                "class_size": 20,
            },
            {
                "test_scores": ARRAY_MUTATIONS,
                "test_labels": LABEL_MUTATIONS,
                "unlabeled_scores": {k: v for k, v in ARRAY_MUTATIONS.items() if k != "short"},
            },
            {
                "class_size": ([-5, 0, NAN, 1e12, (30, 10), "x", None, INF], [R] * 8),
                "positive_class": ([7], [R]),
            },
        ),
        "metric_table": Entry(
            lambda kw: bc.metric_table(**kw),
            lambda: {
                "y_true": y,
                "y_pred": (s1 > 0.4).astype(int),
                "y_score": s1,
                "n_resamples": 100,
                "random_state": 0,
            },
            {
                "y_true": LABEL_MUTATIONS,
                "y_pred": LABEL_MUTATIONS,
                "y_score": {**ARRAY_MUTATIONS, "none": (ARRAY_MUTATIONS["none"][0], E)},
            },
            {
                "metrics": ([["nope"], "accuracy"], [R, E]),
                "beta": ([-1.0, NAN, "x"], [R] * 3),
                "n_resamples": (COUNT, [R] * 5),
                "confidence_level": (LEVEL, [R] * 6),
                "task": (["bogus"], [R]),
            },
        ),
        "learning_curves": Entry(
            lambda kw: bc.learning_curves(**kw),
            lambda: {
                "models": models(),
                "X": X,
                "y": y,
                "cv": KFold(2),
                "n_sizes": 2,
                "baseline": "a",
            },
            {"y": {k: LABEL_MUTATIONS[k] for k in ("short", "none", "empty")}},
            {
                "level": (LEVEL, [R] * 6),
                "rope": (ROPE[:5], [R] * 5),
                "n_sizes": ([0, -1, "x"], [R] * 3),
                "train_sizes": ([[0.0], [1.5], [NAN], []], [R] * 4),
                "scoring": (["nope"], [R]),
                "baseline": (["zzz"], [R]),
            },
        ),
        "multivariate_ttest": Entry(
            lambda kw: bc.multivariate_ttest(**kw),
            lambda: {
                "differences": np.column_stack([c - b, (c - b)[::-1]]),
                "rho": 0.1,
                "rope": [0.01, 0.01],
                "n_samples": 2000,
            },
            {
                "differences": {
                    k: ARRAY_MUTATIONS[k]
                    for k in ("nan", "inf", "empty", "strings", "none", "huge", "tiny")
                }
            },
            {
                "rho": (RHO, RHO_R),
                "rope": ([[0.01] * 3, [-0.01, 0.01], [NAN, 0.01], "x"], [R] * 4),
                "metrics": ([["a"]], [R]),
                "n_samples": (COUNT, [R] * 5),
                "prior": (["bogus"], [R]),
            },
        ),
        "decide": Entry(
            lambda kw: bc.decide(**kw),
            lambda: {
                "p_left": 0.1,
                "p_rope": 0.2,
                "p_right": 0.7,
                "expected_gain": 0.01,
                "risk": 0.1,
            },
            {},
            {
                "p_left": ([0.5, -0.1, NAN, "x"], [R] * 4),
                "p_right": ([1.5, INF], [R, R]),
                "gamma": ([0.4, 1.5, NAN, "x"], [R] * 4),
                "risk": ([NAN, -1.0], [R, R]),
                "expected_gain": ([NAN], [R]),
            },
        ),
        "materialise_splits": Entry(
            lambda kw: bc.materialise_splits(**kw),
            lambda: {"cv": KFold(3), "X": X, "y": y},
            {"y": {k: LABEL_MUTATIONS[k] for k in ("short", "empty")}},
            {
                "cv": ([-1, "x", KFold(100), None], [R, R, R, E]),
                "X": ([np.empty((0, 2)), None], [R, R]),
                "groups": ([np.arange(5)], [R]),
            },
        ),
        "RepeatedGroupKFold": Entry(
            _rgkf,
            lambda: {"n_splits": 3, "n_repeats": 2, "X": X, "y": y, "groups": np.arange(40) % 8},
            {
                "groups": {
                    "short": ARRAY_MUTATIONS["short"],
                    "none": ARRAY_MUTATIONS["none"],
                    "nan": ARRAY_MUTATIONS["nan"],
                }
            },
            {
                "n_splits": ([1, 0, -1, 2.5, "x", 100], [R] * 6),
                "n_repeats": ([0, -1, 2.5, "x"], [R] * 4),
            },
        ),
        "GroupTimeSeriesSplit": Entry(
            _gtss,
            lambda: {"n_splits": 3, "X": X, "y": y, "groups": np.arange(40) // 4},
            {
                "groups": {
                    "short": ARRAY_MUTATIONS["short"],
                    "none": ARRAY_MUTATIONS["none"],
                    "nan": ARRAY_MUTATIONS["nan"],
                }
            },
            {
                "n_splits": ([1, 0, -1, 2.5, "x", 100], [R] * 6),
                "gap": ([-1, 2.5, "x", 100], [R] * 4),
            },
        ),
    }


#: findings of the fuzz not fixed yet (raw library errors, inputs accepted silently): skipped by
#: tests/test_fuzz_entry_points.py, counted by bench/fuzz_table.py.  Empty: every case is checked.
OPEN: set[tuple[str, str]] = set()  # every case the table found is fixed or by design


def _family_numbers(sel: Any) -> list[float]:
    """A selection's numbers but the family rule's selective p and corrected gain, which
    exist for a tested winner only (NaN elsewhere by design, as for ``select`` on scores)."""
    return _numbers(sel.steps.drop(columns=["p_selective", "corrected_gain"], errors="ignore"))


_CACHE: dict[str, Entry] = {}


#: issue 23: arrays that are not real scores, refused where scores are read
SCORE_KINDS: dict[str, tuple[Callable[[Any], Any], bool | None]] = {
    "complex": (lambda a: np.asarray(a, dtype=float) + 1j, R),
    "datetime": (
        lambda a: np.datetime64("2024-01-01") + np.arange(len(a)).astype("timedelta64[D]"),
        R,
    ),
    "subnormal": (lambda a: np.asarray(a, dtype=float) * 1e-320, R),
}
#: issue 23: a string (or a number) where a boolean belongs is refused
STRING_BOOLS = (["False", "True", "no", 0, 1], [R] * 5)


def _issue23(found: dict[str, Entry]) -> dict[str, Entry]:
    """String booleans, complex/datetime/subnormal scores and loss-named scorer keys."""
    for name in ("correlated_ttest", "nadeau_bengio_ttest"):
        for arg in ("baseline", "candidate"):
            found[name].arrays[arg] = {**found[name].arrays[arg], **SCORE_KINDS}
    for name in ("compare", "correlated_ttest", "rank"):
        found[name].scalars["higher_is_better"] = STRING_BOOLS
    values, refuse = found["Scores.from_cross_validate"].scalars["results_by_model"]
    b, c = (
        found["Scores.from_cross_validate"].base()["results_by_model"][m]["test_score"]
        for m in ("a", "b")
    )
    loss_named = {"a": {"test_log_loss": -b}, "b": {"test_log_loss": -c}}  # neg_log_loss values
    found["Scores.from_cross_validate"].scalars["results_by_model"] = (
        [*values, loss_named],
        [*refuse, R],
    )
    return found


def _this_round(found: dict[str, Entry]) -> dict[str, Entry]:
    """The entry points added by this round's other issues (fitting vs deciding, one test
    set, family-wise selection) and issue 23's own checks: text features, missing labels."""
    from sklearn.model_selection import RepeatedStratifiedKFold
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    bc = _bc()
    y, s1, _ = _labels()
    X = pd.DataFrame({"f": _rng(3).normal(size=40) + y, "g": _rng(4).normal(size=40)})
    text = lambda X: X.assign(colour=np.where(_rng(5).random(40) < 0.5, "red", "blue"))  # noqa: E731
    found["threshold_curves"].scalars["predictions"][0].append(
        [(_set(y.astype(float), 2, NAN), s1)]
    )
    found["threshold_curves"].scalars["predictions"][1].append(R)
    found["select_models"] = Entry(
        lambda kw: bc.select_models(**kw),
        lambda: {
            "models": {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=2)},
            "X": X,
            "y": y,
            "baseline": "nb",
            "rope": 0.01,
            "metric": "accuracy",
            "cv": RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0),
            "progress": False,
        },
        {"X": {"text_feature": (text, R)}, "y": LABEL_MUTATIONS},
        {
            "rope": (ROPE, ROPE_R),
            "metric": (["nope", "rmse"], [R, E]),
            "baseline": (["zzz"], [R]),
            "rule": (["bogus", "champion_challenger"], [R, False]),
            "on_error": (["bogus"], [R]),
        },
        numbers=_family_numbers,
    )
    truth = y.astype(int)
    preds = pd.DataFrame(
        {
            "y_true": truth,
            "a": np.where(_rng(6).random(40) < 0.7, truth, 1 - truth),
            "b": np.where(_rng(7).random(40) < 0.8, truth, 1 - truth),
            "c": np.where(_rng(8).random(40) < 0.75, truth, 1 - truth),
        }
    )
    found["select[predictions table]"] = Entry(
        lambda kw: bc.select(kw.pop("table"), **kw),
        lambda: {"table": preds, "baseline": "a", "rope": 0.01, "metric": "accuracy"},
        {},
        {
            "rope": (ROPE, ROPE_R),
            "baseline": (["zzz"], [R]),
            "rule": (["bogus"], [R]),
            "higher_is_better": STRING_BOOLS,
        },
        numbers=_family_numbers,
    )
    found["holdout_posterior"] = Entry(
        lambda kw: bc.holdout_posterior(**kw),
        lambda: {
            "y_true": truth,
            "baseline": preds["a"].to_numpy(),
            "candidate": preds["b"].to_numpy(),
            "rope": 0.01,
            "random_state": 0,
        },
        # y_true=None is the documented per-item-scores call (baseline and candidate then
        # are the items' 0/1 correctness): answered, not refused
        {
            "y_true": {**LABEL_MUTATIONS, "none": (LABEL_MUTATIONS["none"][0], E)},
            "baseline": ONE_ARRAY,
            "candidate": ONE_ARRAY,
        },
        {"rope": (ROPE, ROPE_R), "draws": (COUNT, [R] * 5), "metric": (["nope"], [R])},
    )
    found["plan_test_set"] = Entry(
        lambda kw: bc.plan_test_set(**kw),
        lambda: {"difference": 0.03, "rope": 0.01, "sd": 0.2},
        {},
        {
            "difference": ([NAN, INF, "x", None], [R] * 4),
            "rope": ([-0.01, NAN, "x"], [R] * 3),
            "gamma": ([0.3, 1.5, NAN], [R] * 3),
            "power": ([0.0, 1.5, NAN], [R] * 3),
            "sd": ([-1.0, 0.0, NAN], [R] * 3),
        },
    )
    return found


def entries() -> dict[str, Entry]:
    if not _CACHE:
        _CACHE.update(_this_round(_issue23(_entries())))
    return _CACHE


def mutations(name: str) -> list[tuple[str, Callable[[dict], dict], bool | None]]:
    """Every (label, kwargs -> kwargs, must_refuse) of an entry point, the valid call first."""
    e = entries()[name]
    out: list = [] if e.skip_valid else [("valid", lambda kw: kw, False)]
    for arg, table in e.arrays.items():
        for label, (f, refuse) in table.items():
            out.append((f"{arg}={label}", lambda kw, a=arg, f=f: {**kw, a: f(kw[a])}, refuse))
    for arg, (values, refuse) in e.scalars.items():
        for v, r in zip(values, refuse, strict=True):
            out.append((f"{arg}={v!r:.40}", lambda kw, a=arg, v=v: {**kw, a: v}, r))
    return out


@st.composite
def api_calls(draw: Any, names: tuple[str, ...] | None = None) -> tuple[str, str, bool | None]:
    name = draw(st.sampled_from(names or tuple(entries())))
    label, _, refuse = draw(st.sampled_from(mutations(name)))
    return name, label, refuse


# ---------------------------------------------------------------- judging outcomes
def _numbers(obj: Any, depth: int = 0, seen: set | None = None) -> list[float]:
    """Every float a result carries (fields, frames, arrays), to check they are finite."""
    seen = set() if seen is None else seen
    if depth > 3 or id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, (bool, np.bool_, str, bytes)) or obj is None:
        return []
    if isinstance(obj, (int, float, np.number)):
        return [float(obj)]
    if isinstance(obj, (pd.DataFrame, pd.Series)):
        return list(
            np.ravel(obj.select_dtypes("number").to_numpy(float))
            if isinstance(obj, pd.DataFrame)
            else (obj.to_numpy(float) if pd.api.types.is_numeric_dtype(obj) else [])
        )
    if isinstance(obj, np.ndarray):
        return (
            list(obj.ravel().astype(float)) if obj.dtype.kind in "fiu" and obj.size < 10**6 else []
        )
    if isinstance(obj, (list, tuple)):
        return [x for v in obj[:1000] for x in _numbers(v, depth + 1, seen)]
    if isinstance(obj, dict):
        return [x for v in list(obj.values())[:1000] for x in _numbers(v, depth + 1, seen)]
    if dataclasses.is_dataclass(obj):
        return [
            x
            for f in dataclasses.fields(obj)
            for x in _numbers(getattr(obj, f.name), depth + 1, seen)
        ]
    return []


def run_entry(name: str, label: str, refuse: bool | None, seconds: float = 30) -> tuple[str, str]:
    """Call entry point ``name`` with mutation ``label``; return (outcome, detail)."""
    kwargs = next(f for lab, f, _ in mutations(name) if lab == label)(entries()[name].base())
    try:
        with warnings.catch_warnings(record=True) as caught, time_limit(seconds):
            warnings.simplefilter("always")
            result = entries()[name].call(dict(kwargs))
    except Hang:
        return "hang", ""
    except (ValueError, TypeError, FileNotFoundError, KeyError) as exc:
        ours = str(exc) and (_ours(exc) or isinstance(exc, FileNotFoundError))
        if isinstance(exc, (ValueError, TypeError, FileNotFoundError)) and ours:
            return "clear error", str(exc)[:200]
        return "raw exception", f"{type(exc).__name__}: {str(exc)[:200]}"
    except Exception as exc:  # bayescomp's own exception types (FitError, ...) are clear
        if type(exc).__module__.startswith("bayescomp.") and str(exc) and _ours(exc):
            return "clear error", str(exc)[:200]
        return "raw exception", f"{type(exc).__name__}: {str(exc)[:200]}"
    if refuse:
        return "accepted silently", ""
    pick = entries()[name].numbers or _numbers
    values = np.asarray(pick(result), dtype=float)
    if not np.all(np.isfinite(values)) and not caught:
        return "silent NaN", f"{int((~np.isfinite(values)).sum())} non-finite, no warning"
    return "ok", ""
