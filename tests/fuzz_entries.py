"""Hostile arguments for every public entry point a user calls with data (issue 12, the API row).

Each entry point has a valid call (small data, cheap settings) and a list of mutations: one
argument replaced by a hostile value (NaN/inf, empty, mismatched length, strings/objects/None,
extreme magnitude, bad rope/rho/gamma/level/n_resamples, unknown metric or model, single-class
labels, constant predictions), plus whole-call variants (issue 28: probabilities under a label
metric, misaligned Series, predictions tables with text or duplicate columns, ...), some with
an independent check (scikit-learn, scipy) whose failure is a "wrong number".  A mutation says
whether the input must be refused (``True``), must be answered (``False``) or may be either
(``None``: a finite answer, or a documented NaN with a warning, or a clear error).  :func:`run_entry` calls it under a time limit and names the
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
        # two columns of one name (pandas' TypeError before: the frame's door checks it)
        "duplicate_column": (lambda df: _duplicate(df, "n_train", "accuracy"), R),
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
    #: whole-call mutations (several arguments at once): label -> (kwargs -> kwargs, refuse)
    variants: dict[str, tuple[Callable[[dict], dict], bool | None]] = dataclasses.field(
        default_factory=dict
    )
    #: independent checks of an answer: label -> check(kwargs, result) -> None, or what is
    #: wrong (the outcome is then "wrong number")
    checks: dict[str, Callable[[dict, Any], str | None]] = dataclasses.field(default_factory=dict)


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
        "draws": (COUNT, [R] * 5),
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
                "draws": 2000,
            },
            {"scores": frame},
            {
                "rope": (ROPE, ROPE_R),
                "method": (["signed_rank", "bogus"], [False, R]),
                "draws": (COUNT, [R] * 5),
                "prior_strength": ([-1.0, NAN], [R, R]),
            },
        ),
        "sign_test": Entry(
            lambda kw: bc.sign_test(**kw),
            lambda: {"differences": rank_diffs, "rope": 0.01, "draws": 2000, "random_state": 0},
            {"differences": ONE_ARRAY},
            rank_scalars,
        ),
        "signed_rank_test": Entry(
            lambda kw: bc.signed_rank_test(**kw),
            lambda: {"differences": rank_diffs, "rope": 0.01, "draws": 2000, "random_state": 0},
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
                "compare_options": ([{"method": "bogus"}], [R]),
                "order": (["bogus"], [R]),
                "scores": ([None, 5], [R, R]),
            },
            # the family rule's own columns
            # (NaN elsewhere by design): every other number must be finite
            numbers=lambda sel: _numbers(
                sel.steps.drop(columns=["p_family", "gain_lower"], errors="ignore")
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
                "subset_exponent": ([0.0, -1.0, 1.5, NAN, "x"], [R] * 5),
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
                "confidence_level": (LEVEL, [R] * 6),
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
                "draws": 2000,
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
                "draws": (COUNT, [R] * 5),
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
    """A selection's numbers but the family rule's own columns, which
    exist for a tested winner only (NaN elsewhere by design, as for ``select`` on scores)."""
    return _numbers(sel.steps.drop(columns=["p_family", "gain_lower"], errors="ignore"))


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


def _audited_entries(found: dict[str, Entry]) -> dict[str, Entry]:
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
    found["plan_repetitions"] = Entry(
        lambda kw: bc.plan_repetitions(**kw),
        lambda: {"pilot": _rng().normal(0.02, 0.03, 20), "folds": 10, "rope": 0.01},
        {},
        {
            "rope": ([-0.01, NAN, "x"], [R] * 3),
            "gamma": ([0.3, 1.5, NAN], [R] * 3),
            "assurance": ([0.0, 1.5, NAN], [R] * 3),
            "folds": ([1, 2.5, "x"], [R] * 3),
            "max_repetitions": ([0, 2.5, NAN], [R] * 3),
        },
    )
    return found


def _many(k: int, n: int) -> pd.DataFrame:
    """``k`` challengers and a baseline on ``n`` splits (k >= n: the family rule's edge)."""
    rng = _rng(11)
    base = 0.8 + 0.01 * rng.standard_normal(n)
    gains = np.r_[0.0, np.linspace(0.02, -0.02, k)]  # the first challenger the best
    return pd.DataFrame(
        {
            "model": np.repeat([f"m{i}" for i in range(k + 1)], n),
            "split": np.tile(np.arange(n), k + 1),
        }
        | {"n_train": 90, "n_test": 10}
        | {"accuracy": (base + gains[:, None] + 0.005 * rng.standard_normal((k + 1, n))).ravel()}
    )


def _new_surfaces(found: dict[str, Entry]) -> dict[str, Entry]:
    """This round's surfaces: margins at every door, the slice guardrail's options, the
    planner's table pilot, the family rule with at least as many challengers as splits, the
    pytest assertions and the pull-request comment of hostile names."""
    bc = _bc()
    truth = np.tile([0, 1], 200)
    preds = pd.DataFrame(
        {"y_true": truth, "region": np.repeat(list("nsew"), 100)}
        | {
            m: np.where(_rng(i).random(400) < acc, truth, 1 - truth)
            for i, (m, acc) in enumerate((("a", 0.8), ("b", 0.85)))
        }
    )
    margins = (
        ["200%", "1e3%", "5sd", True, 2, "1%", "0.1sd", "x%", -0.1],
        [R] * 5 + [False, False, R, R],
    )
    found["compare"].scalars["rope"] = margins
    found["compare[predictions]"] = Entry(
        lambda kw: bc.compare(**kw),
        lambda: {
            "scores": preds,
            "baseline": "a",
            "candidate": "b",
            "rope": 0.01,
            "random_state": 0,
        },
        {},
        {"rope": (["1%", "0.1sd", 2, True], [False, False, R, R]), "cluster": (["nope"], [R])},
        variants={
            "slices without slice_rope": (lambda kw: {**kw, "slices": "region"}, R),
            "slices a list": (lambda kw: {**kw, "slices": ["region"], "slice_rope": 0.02}, R),
            "slice_rope alone": (lambda kw: {**kw, "slice_rope": 0.02}, R),
            "slice_rope True": (lambda kw: {**kw, "slices": "region", "slice_rope": True}, R),
        },
    )
    pilot = _many(1, 20).assign(fold=lambda f: f["split"] % 10)
    found["plan_repetitions[table]"] = Entry(
        lambda kw: bc.plan_repetitions(**kw),
        lambda: {
            "pilot": bc.Scores.from_frame(pilot),
            "baseline": "m0",
            "candidate": "m1",
            "rope": 0.01,
        },
        {},
        {
            "rho": ([0.5, 1.0], [R, R]),
            "folds": ([3, 10], [R, False]),
            "rope": (["1%", "0.1sd"], [R, R]),
        },
    )
    found["select[k >= splits]"] = Entry(
        lambda kw: bc.select(kw["table"], **{k: v for k, v in kw.items() if k != "table"}),
        lambda: {"table": bc.Scores.from_frame(_many(10, 10)), "baseline": "m0", "rope": 0.01},
        {},
        {"rope": (["0.1sd", "1%"], [False, False])},
        variants={
            "30 on 30": (lambda kw: {**kw, "table": bc.Scores.from_frame(_many(30, 30))}, False),
            "50 on 10": (lambda kw: {**kw, "table": bc.Scores.from_frame(_many(50, 10))}, False),
        },
    )
    from bayescomp.integrations.testing import assert_better

    found["assert_better"] = Entry(
        lambda kw: assert_better(**kw),
        lambda: {
            "table": bc.Scores.from_frame(_many(1, 20)),
            "baseline": "m0",
            "candidate": "m1",
            "rope": 0.0,
        },
        {},
        {"rope": (["200%", True, "x"], [R, R, R]), "candidate": (["zzz"], [R])},
    )
    hostile = ["@octocat <!--", "<details>", "[x](https://e.com)", "a`b|c", "two\nlines"]
    frame = _many(len(hostile), 20)
    frame["model"] = frame["model"].map(
        dict(zip([f"m{i}" for i in range(1, 6)], hostile, strict=True)) | {"m0": "base"}
    )

    def comment(kw: dict) -> Any:
        from bayescomp.core.margins import parse_margin
        from bayescomp.report.markdown import comparison_markdown

        s = bc.Scores.from_frame(kw["table"])
        rows = [
            (r, r.decision(0.95).outcome, r.decision(0.95).reason)
            for r in (bc.compare(s, "base", h, rope=kw["rope"]) for h in hostile)
        ]
        text = comparison_markdown(rows, parse_margin(kw["rope"]), 0.95)
        bad = [h for h in ("<!--", "<details>", "](", "@o") if h in text.split("\n", 1)[1]]
        if bad:
            raise AssertionError(f"markup left live in the comment: {bad}")
        return 0.0

    found["pull-request comment"] = Entry(
        comment,
        lambda: {"table": frame, "rope": 0.01},
        {},
        {"rope": (["1%", "0.1sd"], [False, False])},
    )
    rng = _rng(9)
    y = rng.integers(0, 2, 400)
    log = pd.DataFrame({"y": y, "a": np.where(rng.random(400) < 0.8, y, 1 - y), "b": y})
    found["watch"] = Entry(
        lambda kw: bc.watch(**kw),
        lambda: {
            "log": log,
            "baseline": "a",
            "candidate": "b",
            "metric": "accuracy",
            "rope": 0.02,
            "label": "y",
            "every": 50,
        },
        {},
        {
            "rope": ([-1, NAN, "1%", "0.1sd", "x", None, True, 5], [R] * 8),
            "gamma": ([0.3, 1.0, NAN, "x"], [R] * 4),
            "every": ([0, -3, 1.5, "x", True, 10**9], [R] * 5 + [E]),
            "metric": (["roc_auc", "f1", "nope", None], [R] * 4),
            "baseline": (["zz", None], [R] * 2),
            "log": ([pd.DataFrame(), "nope.csv", 3, [1, 2]], [R] * 4),
        },
        numbers=lambda r: [r.estimate, r.lower, r.upper],
    )
    return found


def _ranking_edges(found: dict[str, Entry]) -> dict[str, Entry]:
    """The Plackett–Luce ranking's bad inputs: a NaN score (refused, as compare refuses it)
    and more models than one fit ranks (refused naming the limit)."""
    bc = _bc()

    def pl(frame: Callable[[], pd.DataFrame]) -> Callable[[dict], dict]:
        return lambda kw: {
            **kw,
            "scores": bc.Scores.from_frame(frame()),
            "rope": 0.0,
            "method": "plackett_luce",
        }

    def nan() -> pd.DataFrame:
        return _long(datasets=("d1", "d2", "d3")).assign(
            accuracy=lambda f: f["accuracy"].where(f.index != 5)
        )

    def many() -> pd.DataFrame:
        f = _long(models=[f"m{i}" for i in range(2001)], n=2, datasets=("d1", "d2"))
        return f.assign(accuracy=_rng(3).uniform(0.6, 0.9, len(f)))

    found["rank"].variants.update(
        {"plackett_luce, a NaN score": (pl(nan), R), "plackett_luce, 2,001 models": (pl(many), R)}
    )
    return found


def _one_test_set_labels(found: dict[str, Entry]) -> dict[str, Entry]:
    """One test set: text labels under ``pos_label``, a missing label (refused, not counted
    as the negative class), relative and standardized margins on the metric's scale."""
    bc = _bc()
    rng = _rng(5)
    y = np.where(rng.random(300) < 0.4, "yes", "no")
    flip = {"yes": "no", "no": "yes"}

    def labels(p: float) -> np.ndarray:
        return np.where(rng.random(300) < p, y, [flip[v] for v in y])

    base = {"y_true": y, "baseline": labels(0.8), "candidate": labels(0.85)}

    def missing(arg: str) -> Callable[[dict], dict]:
        return lambda kw: {**kw, arg: np.where(np.arange(300) == 7, None, kw[arg])}

    found["holdout_posterior[pos_label]"] = Entry(
        lambda kw: bc.holdout_posterior(**kw),
        lambda: {**base, "metric": "f1", "pos_label": "yes", "random_state": 0},
        {},
        {
            "pos_label": (["maybe", None], [R, R]),
            "rope": (["1%", "0.1sd"], [False, R]),  # f1 has no per-item differences
        },
        variants={
            "y_true with a missing label": (missing("y_true"), R),
            "a missing predicted label": (missing("candidate"), R),
            "metric accuracy": (lambda kw: {**kw, "metric": "accuracy"}, False),
            "accuracy, rope 0.1sd": (
                lambda kw: {**kw, "metric": "accuracy", "rope": "0.1sd"},
                False,
            ),
        },
    )
    return found


def entries() -> dict[str, Entry]:
    if not _CACHE:
        found = _new_surfaces(_audited_doors(_this_round(_audited_entries(_entries()))))
        _CACHE.update(_changed_outside(_one_test_set_labels(_ranking_edges(found))))
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
    for label, (f, refuse) in e.variants.items():
        out.append((label, f, refuse))
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
    check = entries()[name].checks.get(label)
    wrong = check(kwargs, result) if check is not None else None
    if wrong:
        return "wrong number", wrong
    return "ok", ""


# ---------------------------------------------------------------- issue 28
def _differs(what: str, got: float, want: float, tol: float = 1e-12) -> str | None:
    return None if abs(float(got) - float(want)) <= tol else f"{what}: {got!r}, expected {want!r}"


def _t_power(n: int, effect: float, sd: float, gamma: float = 0.95) -> float:
    """Exact power of the one-sided t decision on ``n`` normal differences (noncentral t)."""
    from scipy import stats

    nc = min(effect * np.sqrt(n) / sd, 1e6)  # beyond 1e6 sds the power is 1
    return float(stats.nct.sf(stats.t.ppf(gamma, n - 1), n - 1, nc))


def _audited_doors(found: dict[str, Entry]) -> dict[str, Entry]:
    """Issue 28's defects, now fixed: a label metric on predicted probabilities, predictions
    tables with a text column / duplicate names, misaligned Series, an item with two labels,
    per-item values without a direction, TimeSeriesSplit results, rank tests on ties at rope
    0, two-class metrics on three classes, text scores, integer model names, planning at the
    edges.  Each answered case has an independent check (scikit-learn, scipy, numpy)."""
    from sklearn.metrics import accuracy_score, roc_auc_score

    bc = _bc()
    rng = _rng(28)
    y = np.r_[np.ones(20, int), np.zeros(20, int)]
    # probabilities of class 1, none of them 0 or 1, neither model perfect at 0.5
    pa = np.clip(np.where(y == 1, rng.beta(3, 2, 40), rng.beta(2, 3, 40)), 0.01, 0.99)
    pb = np.clip(np.where(y == 1, rng.beta(5, 2, 40), rng.beta(2, 5, 40)), 0.01, 0.99)
    probs = pd.DataFrame({"y_true": y, "a": pa, "b": pb, "c": (pa + pb) / 2})

    def thresholded(metric: str, t: float = 0.5):
        def check(kw, res):
            acc = [accuracy_score(y, p >= t) for p in (pa, pb)]
            want = acc if metric == "accuracy" else [1 - a for a in acc]
            return _differs("baseline score", res.baseline_score, want[0]) or _differs(
                "candidate score", res.candidate_score, want[1]
            )

        return check

    # -- holdout_posterior: probabilities under a label metric, Series, items, direction
    h = found["holdout_posterior"]
    labels = h.base()
    ser = lambda a: pd.Series(a, index=np.arange(100, 140))  # noqa: E731
    h.variants.update(
        {
            "probabilities, accuracy": (lambda kw: {**kw, "baseline": pa, "candidate": pb}, R),
            "probabilities, error_rate": (
                lambda kw: {**kw, "baseline": pa, "candidate": pb, "metric": "error_rate"},
                R,
            ),
            "probabilities, accuracy, threshold=0.5": (
                lambda kw: {**kw, "baseline": pa, "candidate": pb, "threshold": 0.5},
                False,
            ),
            "probabilities, error_rate, threshold=0.5": (
                lambda kw: {
                    **kw,
                    "baseline": pa,
                    "candidate": pb,
                    "metric": "error_rate",
                    "threshold": 0.5,
                },
                False,
            ),
            "Series with different indexes": (
                lambda kw: {
                    **kw,
                    "y_true": ser(kw["y_true"]),
                    "baseline": ser(kw["baseline"]),
                    "candidate": ser(kw["candidate"]).sample(frac=1.0, random_state=0),
                },
                R,
            ),
            "Series with the same index": (
                lambda kw: {
                    k: ser(kw[k]) if k in ("y_true", "baseline", "candidate") else v
                    for k, v in kw.items()
                },
                False,
            ),
            "item with two y_true": (lambda kw: {**kw, "item": np.arange(40) % 20}, R),
            "per-item values without a direction": (
                lambda kw: {**kw, "y_true": None, "baseline": pa, "candidate": pb, "metric": None},
                R,
            ),
            "per-item values, lower is better": (
                lambda kw: {
                    **kw,
                    "y_true": None,
                    "baseline": pa,
                    "candidate": pb,
                    "metric": None,
                    "higher_is_better": False,
                },
                False,
            ),
            "threshold with a score metric": (
                lambda kw: {
                    **kw,
                    "baseline": pa,
                    "candidate": pb,
                    "metric": "log_loss",
                    "threshold": 0.5,
                },
                R,
            ),
        }
    )
    h.checks.update(
        {
            "probabilities, accuracy, threshold=0.5": thresholded("accuracy"),
            "probabilities, error_rate, threshold=0.5": thresholded("error_rate"),
            "Series with the same index": lambda kw, res: _differs(
                "candidate score",
                res.candidate_score,
                accuracy_score(labels["y_true"], labels["candidate"]),
            ),
            "per-item values, lower is better": lambda kw, res: _differs(
                "estimate (lower is better: baseline - candidate)",
                res.estimate,
                pa.mean() - pb.mean(),
            ),
        }
    )

    # -- compare on a predictions table
    found["compare[predictions table]"] = Entry(
        lambda kw: bc.compare(kw.pop("table"), **kw),
        lambda: {
            "table": found["select[predictions table]"].base()["table"],
            "baseline": "a",
            "candidate": "b",
            "rope": 0.01,
            "random_state": 0,
        },
        {},
        {"rope": (ROPE, ROPE_R), "candidate": (["zzz"], [R])},
        variants={
            "probabilities, accuracy": (lambda kw: {**kw, "table": probs}, R),
            "probabilities, error_rate": (
                lambda kw: {**kw, "table": probs, "metric": "error_rate"},
                R,
            ),
            "probabilities, accuracy, threshold=0.5": (
                lambda kw: {**kw, "table": probs, "threshold": 0.5},
                False,
            ),
            "probabilities, error_rate, threshold=0.5": (
                lambda kw: {**kw, "table": probs, "metric": "error_rate", "threshold": 0.5},
                False,
            ),
            "duplicate column names": (
                lambda kw: {**kw, "table": _duplicate(kw["table"], "c", "b")},
                R,
            ),
        },
        checks={
            "probabilities, accuracy, threshold=0.5": thresholded("accuracy"),
            "probabilities, error_rate, threshold=0.5": thresholded("error_rate"),
        },
    )

    # -- select on a predictions table
    sel = found["select[predictions table]"]

    def means(kw, res, t=0.5):
        got = res.candidates.set_index("model")["mean"]
        for m in ("a", "b", "c"):
            wrong = _differs(f"mean of {m}", got[m], accuracy_score(y, probs[m] >= t))
            if wrong:
                return wrong
        return None

    text = lambda t: t.assign(question=[f"q{i}" for i in range(len(t))])  # noqa: E731
    sel.variants.update(
        {
            "probabilities, accuracy": (lambda kw: {**kw, "table": probs}, R),
            "probabilities, error_rate": (
                lambda kw: {**kw, "table": probs, "metric": "error_rate"},
                R,
            ),
            "probabilities, compare_options threshold=0.5": (
                lambda kw: {**kw, "table": probs, "compare_options": {"threshold": 0.5}},
                False,
            ),
            "misspelt keyword": (
                lambda kw: {**kw, "table": probs, "compare_options": {"thresold": 0.5}},
                R,
            ),
            "text column beside the labels": (lambda kw: {**kw, "table": text(kw["table"])}, R),
            "text column, models named": (
                lambda kw: {**kw, "table": text(kw["table"]), "models": ["a", "b", "c"]},
                False,
            ),
            "duplicate column names": (
                lambda kw: {**kw, "table": _duplicate(kw["table"], "c", "b")},
                R,
            ),
        }
    )
    sel.checks.update(
        {
            "probabilities, compare_options threshold=0.5": means,
            "text column, models named": lambda kw, res: _label_means(kw["table"], res),
        }
    )

    # -- from_cross_validate on TimeSeriesSplit results: the time-ordered posterior
    fcv = found["Scores.from_cross_validate"]
    fcv.variants["TimeSeriesSplit results"] = (lambda kw: _tss_results(), False)
    fcv.checks["TimeSeriesSplit results"] = _tss_check

    # -- rank tests on all-zero differences at rope 0: 0.5/0/0.5, no NaN anywhere
    for name in ("sign_test", "signed_rank_test"):
        found[name].variants["all-zero differences, rope=0"] = (
            lambda kw: {**kw, "differences": np.zeros(8), "rope": 0.0},
            False,
        )
        found[name].checks["all-zero differences, rope=0"] = _ties_check

    # -- a two-class metric on a three-class target
    y3 = rng.integers(0, 3, 60)
    proba3 = rng.dirichlet([1, 1, 1], 60) + np.eye(3)[y3] * 0.5
    proba3 /= proba3.sum(axis=1, keepdims=True)
    for name, pred in (("bootstrap_metric", "y_pred_or_score"),):
        e = found[name]

        def three(metric, p, pred=pred):
            def f(kw):
                out = {**kw, "y_true": y3, "metric": metric}
                if pred:
                    return {**out, pred: p}
                return {**out, "baseline_pred": p, "candidate_pred": p[::-1]}

            return f

        e.variants.update(
            {
                "roc_auc on three classes": (three("roc_auc", proba3[:, 1]), R),
                "average_precision on three classes": (
                    three("average_precision", proba3[:, 1]),
                    R,
                ),
                "f1 on three classes": (three("f1", proba3.argmax(axis=1)), R),
                "precision on three classes": (three("precision", proba3.argmax(axis=1)), R),
            }
        )
    found["bootstrap_metric"].variants["roc_auc_ovr on three classes"] = (
        lambda kw: {**kw, "y_true": y3, "y_pred_or_score": proba3, "metric": "roc_auc_ovr"},
        False,
    )
    found["bootstrap_metric"].checks["roc_auc_ovr on three classes"] = lambda kw, res: _differs(
        "estimate", res.estimate, roc_auc_score(y3, proba3, multi_class="ovr")
    )

    # -- text scores in threshold_curves (even text that reads as numbers)
    ys = _labels()[0]
    txt = np.array(["0.1", "0.9"] * 20)
    tc = found["threshold_curves"]
    tc.variants.update(
        {
            "text scores that read as numbers": (
                lambda kw: {**kw, "predictions": [(ys, txt), (ys, txt)]},
                R,
            ),
            "text y_score column": (
                lambda kw: {
                    **kw,
                    "predictions": pd.DataFrame(
                        {
                            "repetition": np.repeat([0, 1], 40),
                            "y_true": np.r_[ys, ys],
                            "y_score": np.r_[txt, txt],
                        }
                    ),
                },
                R,
            ),
        }
    )

    # -- Scores.from_wide with integer column names: models "0" and "1"
    fw = found["Scores.from_wide"]
    fw.variants["integer column names"] = (
        lambda kw: {**kw, "frame": kw["frame"].set_axis([0, 1], axis=1)},
        False,
    )

    def int_names(kw, res):
        if res.models != ["0", "1"]:
            return f"models {res.models}, expected ['0', '1']"
        p = res.paired("0", "1", "accuracy")
        want = kw["frame"][1].to_numpy() - kw["frame"][0].to_numpy()
        got = (p["candidate"] - p["baseline"]).to_numpy()
        return None if np.allclose(got, want, rtol=0, atol=1e-15) else "paired differences"

    fw.checks["integer column names"] = int_names

    # -- plan_test_set: a huge difference (not 1 item), a negative one (planned on its size),
    # a tiny one (beyond any plan: a clear error, not OverflowError)
    pl = found["plan_test_set"]
    for d in (0.5, 1e300, -0.5, -0.05, 0.05):
        pl.variants[f"difference={d:g}"] = (lambda kw, d=d: {**kw, "difference": d}, False)
        pl.checks[f"difference={d:g}"] = _plan_check
    for d in (1e-300, 1e-100, 0.01 + 1e-17):
        rope = 0.01 if d > 0.01 else 0.0
        pl.variants[f"difference={d!r}, rope={rope:g}"] = (
            lambda kw, d=d, rope=rope: {**kw, "difference": d, "rope": rope},
            R,
        )
    return found


def _duplicate(table: pd.DataFrame, old: str, new: str) -> pd.DataFrame:
    """``table`` with column ``old`` renamed ``new``: two columns of one name."""
    return table.set_axis([new if c == old else c for c in table.columns], axis=1)


def _label_means(table: pd.DataFrame, res: Any) -> str | None:
    from sklearn.metrics import accuracy_score

    got = res.candidates.set_index("model")["mean"]
    for m in ("a", "b", "c"):
        wrong = _differs(f"mean of {m}", got[m], accuracy_score(table["y_true"], table[m]))
        if wrong:
            return wrong
    return None


def _tss_results() -> dict:
    from sklearn.dummy import DummyRegressor
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import TimeSeriesSplit, cross_validate

    X, y = _tss_data()
    return {
        "results_by_model": {
            m: cross_validate(est, X, y, cv=TimeSeriesSplit(6), scoring="r2", return_indices=True)
            for m, est in (("dummy", DummyRegressor()), ("ridge", Ridge()))
        },
        "metric": "r2",
    }


def _tss_data():
    rng = _rng(4)
    X = rng.normal(size=(120, 3))
    return X, X @ [1.0, 0.5, 0.0] + rng.normal(0, 1, 120)


def _tss_check(kw: dict, scores: Any) -> str | None:
    """The imported scores give cross_validate_paired's time-ordered posterior."""
    from sklearn.dummy import DummyRegressor
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import TimeSeriesSplit

    bc = _bc()
    X, y = _tss_data()
    models = {"dummy": DummyRegressor(), "ridge": Ridge()}
    paired = bc.cross_validate_paired(
        models, X, y, cv=TimeSeriesSplit(6), scoring="r2", progress=False
    )
    a = bc.compare(paired, "dummy", "ridge", metric="r2", rope=0.01)
    b = bc.compare(scores, "dummy", "ridge", metric="r2", rope=0.01)
    if type(b).__name__ != "TimeOrderedResult":
        return f"{type(b).__name__}, expected TimeOrderedResult (as cross_validate_paired)"
    got, want = [b.p_left, b.p_rope, b.p_right], [a.p_left, a.p_rope, a.p_right]
    return None if np.allclose(got, want, rtol=1e-12, atol=0) else f"{got} != {want}"


def _ties_check(kw: dict, res: Any) -> str | None:
    """Identical models at rope 0: no direction favoured, nothing NaN."""
    got = [res.p_left, res.p_rope, res.p_right, res.p_better]
    if got != [0.5, 0.0, 0.5, 0.5]:
        return f"p_left, p_rope, p_right, p_better = {got}, expected [0.5, 0, 0.5, 0.5]"
    summary = res.summary().drop(columns="metric", errors="ignore")
    if summary.isna().any().any():
        return "NaN in summary()"
    return None


def _plan_check(kw: dict, plan: Any) -> str | None:
    """The fewest items whose one-sided t decision has the power: exact noncentral-t power
    at n and not at n - 1 (at least 2 items: one item has no posterior of a difference)."""
    effect = abs(kw["difference"]) - kw.get("rope", 0.0)
    n, sd = plan.n_items, kw["sd"]
    if n < 2 or _t_power(n, effect, sd) < 0.8:
        return f"{n} items have power {_t_power(n, effect, sd):.3f} < 0.8"
    # the plan uses the t quantiles' sum (slightly conservative): allow 1 % more items
    fewer = int(n / 1.02) - 1
    if fewer >= 2 and _t_power(fewer, effect, sd) >= 0.8:
        return f"{n} items, but {fewer} already have power 0.8"
    return None


# ------------------------------------------- inputs changed outside bayescomp (CLI defects)
def _model_files(code: str) -> list[str]:
    """A good model file and one that calls ``sys.exit(code)`` at import."""
    folder = Path(tempfile.mkdtemp())
    (folder / "nb.py").write_text(
        "from sklearn.naive_bayes import GaussianNB\nmodel = GaussianNB()\n"
    )
    (folder / "bad.py").write_text(f"import sys\nsys.exit({code})\n")
    return [str(folder / "nb.py"), str(folder / "bad.py")]


def _damaged_store(kw: dict) -> Any:
    """A store with one fit, changed by ``damage`` (SQL) outside bayescomp, read again."""
    import sqlite3

    from bayescomp.studies.store import ResultStore

    path = Path(tempfile.mkdtemp()) / "s.sqlite"
    from bayescomp.core.protocols import Fit

    fit = Fit({"accuracy": 0.9}, fit_time=0.1)
    with ResultStore(path) as store:
        store.write_fit(
            dataset="d", model="m", split=0, seed=0, result=fit, params_hash="h", params="{}"
        )
    if kw["damage"]:
        with sqlite3.connect(path) as con:
            con.execute(kw["damage"])
    with ResultStore(path) as store:
        return store.load_fits("d", "m")


def _runs_on_an_empty_server(kw: dict) -> Any:
    """compare_runs on a tracking store (SQLite, real MLflow) that holds no run."""
    import mlflow

    from bayescomp.integrations.mlflow import compare_runs

    old = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri(f"sqlite:///{Path(tempfile.mkdtemp()) / 'mlflow.db'}")
    try:
        return compare_runs(**kw)
    finally:
        mlflow.set_tracking_uri(old)


def _changed_outside(found: dict[str, Entry]) -> dict[str, Entry]:
    """A model file that exits at import, a scores frame with two columns of one name, a
    store whose table was dropped or whose score was set to text, unknown MLflow run IDs."""
    import importlib.util

    for code in ("0", "3"):
        found["select_models"].variants[f"model file calling sys.exit({code}) at import"] = (
            lambda kw, code=code: {**kw, "models": _model_files(code), "on_error": "raise"},
            R,
        )
    for name in ("select", "rank"):
        found[name].variants["scores frame with two columns of one name"] = (
            lambda kw: {**kw, "scores": _duplicate(_long(), "n_train", "accuracy")},
            R,
        )
    found["ResultStore.load_fits"] = Entry(
        _damaged_store,
        lambda: {"damage": None},
        {},
        {
            "damage": (
                [
                    "DROP TABLE fits",
                    "DROP TABLE designs",
                    "UPDATE scores SET value = 'oops'",
                    "UPDATE scores SET value = X'00ff'",
                ],
                [R] * 4,
            )
        },
    )
    if importlib.util.find_spec("mlflow") is not None:
        found["compare_runs"] = Entry(
            _runs_on_an_empty_server,
            lambda: {"candidate_run_id": "0" * 32, "baseline_run_id": "1" * 32, "rope": 0.05},
            {},
            {"candidate_run_id": (["f" * 32, "", "no such run"], [R] * 3)},
            skip_valid=True,
        )
    return found
