"""Scores from other tools: scikit-learn's ``cross_validate``, wide tables, OpenML.

Each importer builds the arguments of a tidy :class:`~bayescomp.scores.table.Scores`
(``Scores.from_cross_validate``, ``from_wide`` and ``from_openml`` call them) and needs the
split design *stated*, never guessed: a table without the test fraction ``rho`` is refused
with a message saying what to pass (``docs/scores.md``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.splits.design import SplitDesign

DEFAULT_DATASET = "data"
#: the columns of a cross_validate table that are not metrics
_NOT_METRICS = [
    "dataset",
    "model",
    "split",
    "repeat",
    "fold",
    "n_train",
    "n_test",
    "fit_time",
    "score_time",
]

DESIGN_HINT = (
    "state the split design: test_fraction= (n_test / (n_train + n_test), e.g. 0.1 "
    "for 10-fold cross-validation) or n_train= and n_test=; bayescomp does not guess "
    "it because the correlation between splits (rho) changes the posterior"
)


# ------------------------------------------------------------------ cross_validate
def _check_results(results_by_model: Any) -> dict[str, Mapping[str, Any]]:
    if not isinstance(results_by_model, Mapping) or len(results_by_model) < 1:
        raise ValueError("pass a dict {model name: cross_validate(...) result}")
    out = {}
    for name, res in results_by_model.items():
        if not isinstance(res, Mapping) or not any(str(k).startswith("test_") for k in res):
            raise ValueError(
                f"the result of {name!r} is not a cross_validate output (a dict with test_* arrays)"
            )
        out[str(name)] = res
    sizes = {
        m: len(np.atleast_1d(r[next(k for k in r if str(k).startswith("test_"))]))
        for m, r in out.items()
    }
    if len(set(sizes.values())) > 1:
        raise ValueError(
            f"the models were scored on different numbers of splits {sizes}; "
            "cross-validate every model with the same cv"
        )
    return out


def _indices_of(name: str, res: Mapping[str, Any]) -> list[tuple[np.ndarray, np.ndarray]] | None:
    idx = res.get("indices")
    if idx is None:
        return None
    return [
        (np.asarray(tr), np.asarray(te)) for tr, te in zip(idx["train"], idx["test"], strict=True)
    ]


def _same_splits(
    a: list[tuple[np.ndarray, np.ndarray]], b: list[tuple[np.ndarray, np.ndarray]]
) -> int | None:
    """The first split on which two lists of (train, test) differ, or None."""
    for k, ((tra, tea), (trb, teb)) in enumerate(zip(a, b, strict=True)):
        if not (
            np.array_equal(np.sort(tra), np.sort(trb))
            and np.array_equal(np.sort(tea), np.sort(teb))
        ):
            return k
    return None


def _design_of(
    results: dict[str, Mapping[str, Any]], cv: Any, X: Any, y: Any, groups: Any
) -> SplitDesign:
    """The splits the models share: from their indices, checked against each other and
    against ``cv`` (when given), or from ``cv`` on ``X`` when no indices were returned."""
    from bayescomp.splits.design import materialise_splits

    given = {m: _indices_of(m, r) for m, r in results.items()}
    reference = None
    if cv is not None:
        if X is None:
            raise ValueError(
                "cv= needs X= (and y=, groups= as given to cross_validate) to regenerate the splits"
            )
        reference = materialise_splits(cv, X, y, groups)
        again = materialise_splits(cv, X, y, groups)
        if reference.fingerprint() != again.fingerprint():
            raise ValueError(
                "cv gives different splits on every call (shuffle without a fixed "
                "random_state), so the models' splits cannot be recovered; rerun "
                "cross_validate with return_indices=True"
            )
    missing = [m for m, ix in given.items() if ix is None]
    if missing and reference is None:
        raise ValueError(
            f"the results of {missing} have no 'indices'; rerun cross_validate "
            "with return_indices=True (scikit-learn >= 1.3), or pass the cv= and "
            "X= (y=, groups=) the models were cross-validated with"
        )
    pairs = {m: ix if ix is not None else reference.splits for m, ix in given.items()}
    first = next(iter(pairs))
    for m, ix in pairs.items():
        if reference is not None and len(ix) != len(reference):
            raise ValueError(f"{m!r} has {len(ix)} splits but cv gives {len(reference)}")
        other, who = (reference.splits, "cv") if reference is not None else (pairs[first], first)
        k = _same_splits(ix, other)
        if k is not None:
            raise ValueError(
                f"split {k} of {m!r} has other train/test indices than {who!r}: the models were "
                "not evaluated on the same splits; pass the same cv object with a fixed "
                "random_state to every cross_validate call (or cv=int without shuffling)"
            )
    if reference is not None:
        return reference
    n = (
        len(X)
        if X is not None
        else 1 + max(int(max(tr.max(initial=0), te.max(initial=0))) for tr, te in pairs[first])
    )
    return materialise_splits(pairs[first], np.zeros((n, 1)))


def cross_validate_parts(
    results_by_model: Mapping[str, Mapping[str, Any]],
    *,
    cv: Any = None,
    X: Any = None,
    y: Any = None,
    groups: Any = None,
    metric: str = "score",
    dataset: str = "data",
) -> dict[str, Any]:
    """Scores from scikit-learn's ``cross_validate`` outputs, one per model.

    Parameters
    ----------
    results_by_model : dict
        ``{model name: cross_validate(estimator, X, y, ..., return_indices=True)}``.
        Every ``test_<name>`` array becomes metric ``<name>`` (a single scorer's
        ``test_score`` becomes ``metric``); ``fit_time`` and ``score_time`` are kept.
    cv, X, y, groups : optional
        The splitter and data the models were cross-validated with: needed when the
        results have no ``indices``, and checked against them when they do.
    metric : str, default "score"
        Name of the metric of ``test_score`` (e.g. ``"roc_auc"`` for ``scoring="roc_auc"``).
    dataset : str, default "data"

    Returns
    -------
    dict
        The arguments of ``Scores``: a frame of one row per model and split with
        ``n_train``/``n_test`` from the indices, its metrics, and the shared splits
        (``design``).

    Raises
    ------
    ValueError
        When the models' splits differ, or when neither indices nor ``cv``/``X`` say
        what the splits were.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import cross_validate, StratifiedKFold
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> cv = StratifiedKFold(5, shuffle=True, random_state=0)
    >>> res = {name: cross_validate(est, X, y, cv=cv, scoring="accuracy", return_indices=True)
    ...        for name, est in {"nb": GaussianNB(), "tree": DecisionTreeClassifier()}.items()}
    >>> from bayescomp import Scores
    >>> s = Scores.from_cross_validate(res, metric="accuracy")
    >>> s.models, s.metrics, s.rho()
    (['nb', 'tree'], ['accuracy'], 0.2)
    """
    results = _check_results(results_by_model)
    design = _design_of(results, cv, X, y, groups)
    rows = []
    for name, res in results.items():
        cols = {
            ("test_" + metric if k == "test_score" else k)[5:]: np.asarray(v, dtype=float)
            for k, v in res.items()
            if str(k).startswith("test_")
        }
        timings = {
            k: np.asarray(res[k], dtype=float) for k in ("fit_time", "score_time") if k in res
        }
        for j in range(len(design)):
            rows.append(
                {
                    "dataset": dataset,
                    "model": name,
                    "split": j,
                    "repeat": int(design.repeat[j]),
                    "fold": int(design.fold[j]),
                    "n_train": int(design.n_train[j]),
                    "n_test": int(design.n_test[j]),
                    **{k: v[j] for k, v in timings.items()},
                    **{k: v[j] for k, v in cols.items()},
                }
            )
    metrics = list(dict.fromkeys(k for r in rows for k in r if k not in _NOT_METRICS))
    frame = pd.DataFrame(rows)
    if design.time_ordered:  # as cross_validate_paired: compare() uses the AR(1) posterior
        frame["time_ordered"] = True
    return {"frame": frame, "metrics": metrics, "design": design}


# ------------------------------------------------------------------------- wide
def _sizes(n: int, test_fraction: Any, n_train: Any, n_test: Any) -> tuple[Any, Any]:
    if test_fraction is not None:
        if n_train is not None or n_test is not None:
            raise ValueError("pass either test_fraction= or n_train=/n_test=, not both")
        from bayescomp.core.checks import check_fraction

        tf = check_fraction(test_fraction, "test_fraction")
        frac = Fraction(tf).limit_denominator(10_000)
        return frac.denominator - frac.numerator, frac.numerator
    if n_train is None or n_test is None:
        raise ValueError(DESIGN_HINT)
    return (
        np.broadcast_to(np.asarray(n_train), (n,)).copy(),
        np.broadcast_to(np.asarray(n_test), (n,)).copy(),
    )


def wide_parts(
    frame: pd.DataFrame,
    *,
    metric: str = "score",
    rows: str = "splits",
    test_fraction: float | None = None,
    n_train: Any = None,
    n_test: Any = None,
    models: Sequence[str] | None = None,
    dataset: str | None = None,
    dataset_col: str | None = None,
    split_col: str | None = None,
) -> dict[str, Any]:
    """Scores from a wide table: one column per model (the autorank / baycomp layout).

    Parameters
    ----------
    frame : DataFrame
        One column per model, holding ``metric``.
    metric : str, default "score"
        Name of the metric the cells hold.
    rows : {"splits", "datasets"}
        ``"splits"``: each row is one split of one dataset (``dataset_col`` names the
        dataset when the table holds several; splits are numbered in row order unless
        ``split_col`` is given).  ``"datasets"``: each row is one dataset's summary score
        (the dataset is ``dataset_col`` or the index), for the rank tests across datasets.
    test_fraction : float, optional
        ``n_test / (n_train + n_test)`` of the splits.
    n_train, n_test : int or array_like, optional
        Split sizes (one value, or one per row) instead of ``test_fraction``.  One of
        the two designs is required: bayescomp refuses to guess it.
    models : list of str, optional
        The model columns (default: every column except ``dataset_col``/``split_col``).
    dataset : str, optional
        Name of the one dataset of a ``rows="splits"`` table without ``dataset_col``.

    Examples
    --------
    >>> import pandas as pd
    >>> wide = pd.DataFrame({"nb": [.80, .82, .81, .79], "svm": [.84, .85, .83, .84]})
    >>> from bayescomp import Scores
    >>> s = Scores.from_wide(wide, metric="accuracy", test_fraction=0.1)
    >>> s.models, len(s), s.rho()
    (['nb', 'svm'], 8, 0.1)
    """
    if rows not in ("splits", "datasets"):
        raise ValueError(f"rows must be 'splits' or 'datasets', got {rows!r}")
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"from_wide needs a pandas DataFrame with one column per model; got "
            f"{type(frame).__name__} (e.g. pd.DataFrame({{'nb': [...], 'svm': [...]}}))"
        )
    if frame.empty:
        raise ValueError(
            "the wide table is empty: it needs one column per model and one row per "
            "split (or dataset) holding the scores"
        )
    f = frame.set_axis([str(c) for c in frame.columns], axis=1)  # column 0 is model "0"
    dataset_col, split_col = (None if c is None else str(c) for c in (dataset_col, split_col))
    keys = [c for c in (dataset_col, split_col) if c is not None]
    for c in keys:
        if c not in f.columns:
            raise ValueError(f"column {c!r} not in the table; columns are {list(f.columns)}")
    models = [
        str(m) for m in (models if models is not None else [c for c in f.columns if c not in keys])
    ]
    absent = [m for m in models if m not in f.columns.astype(str)]
    bad = [m for m in models if m not in absent and not pd.api.types.is_numeric_dtype(f[m])]
    if absent or bad or not models:
        raise ValueError(
            f"model columns must be numeric scores; missing {absent}, not numeric "
            f"{bad}; pass models= (the score columns) and dataset_col=/split_col="
        )
    for m in models:
        cells = f[m].to_numpy(dtype=float)
        if not np.isfinite(cells).all():
            rows = np.flatnonzero(~np.isfinite(cells))
            raise ValueError(
                f"model column {m!r} holds {rows.size} NaN/inf score(s) (rows "
                f"{rows[:5].tolist()}); every cell of a wide table needs a finite "
                "score: drop those rows (the same split for every model)"
            )
    f["n_train"], f["n_test"] = _sizes(len(f), test_fraction, n_train, n_test)
    if rows == "datasets":
        f["dataset"] = (f[dataset_col] if dataset_col else f.index).astype(str)
        if f["dataset"].duplicated().any():
            raise ValueError("rows='datasets' needs one row per dataset; dataset names repeat")
        f["split"] = 0
    else:
        f["dataset"] = f[dataset_col].astype(str) if dataset_col else (dataset or DEFAULT_DATASET)
        f["split"] = f[split_col] if split_col else f.groupby("dataset", sort=False).cumcount()
    long = f.melt(
        id_vars=["dataset", "split", "n_train", "n_test"],
        value_vars=models,
        var_name="model",
        value_name=metric,
    )
    return {"frame": long, "metrics": [metric]}


# ------------------------------------------------------------------------ OpenML
def _openml_values(v: Any) -> list[list[float]]:
    """OpenML's per-fold ``values``: a list per repeat of the fold scores (a JSON string
    when read from a CSV)."""
    if isinstance(v, str):
        v = json.loads(v)
    arr = [list(map(float, np.atleast_1d(r))) for r in v]
    if not arr or any(len(r) != len(arr[0]) for r in arr):
        raise ValueError(f"per-fold values must be a list per repeat of fold scores, got {v!r}")
    return arr


def openml_split_sizes(splits: pd.DataFrame) -> pd.DataFrame:
    """``n_train``/``n_test`` per (repeat, fold) from an OpenML task's ``datasplits`` table
    (columns ``type`` TRAIN/TEST, ``rowid``, ``repeat``, ``fold``)."""
    need = {"type", "rowid", "repeat", "fold"}
    if not need <= set(splits.columns):
        raise ValueError(
            f"an OpenML datasplits table has columns {sorted(need)}; got {list(splits.columns)}"
        )
    s = splits
    if "sample" in s.columns:
        s = s[s["sample"] == s["sample"].max()]  # learning-curve tasks: the full sample
    kind = s["type"].astype(str).str.upper()
    counts = (
        s.assign(kind=kind).groupby(["repeat", "fold", "kind"]).size().unstack("kind", fill_value=0)
    )
    if not {"TRAIN", "TEST"} <= set(counts.columns):
        raise ValueError("the datasplits table needs TRAIN and TEST rows")
    return counts.rename(columns={"TRAIN": "n_train", "TEST": "n_test"})[["n_train", "n_test"]]


def openml_parts(
    evaluations: pd.DataFrame,
    *,
    splits: Any = None,
    test_fraction: float | None = None,
    model_col: str = "flow_name",
    dataset_col: str = "data_name",
) -> dict[str, Any]:
    """Scores from OpenML per-fold evaluations, with the task's fixed splits.

    Parameters
    ----------
    evaluations : DataFrame
        OpenML's evaluation listing with per-fold values (``openml.evaluations.
        list_evaluations(function, tasks=..., per_fold=True, output_format="dataframe")``,
        or the same table saved to CSV): columns ``task_id``, ``function``, ``values``
        (per repeat, the list of fold scores), ``model_col`` and ``dataset_col``.  Every
        ``function`` becomes a metric column.
    splits : DataFrame or dict, optional
        The task's ``datasplits`` table (``type``, ``rowid``, ``repeat``, ``fold``), or a
        dict ``{task_id: table}``: the split sizes, and so ``rho``, are then exact.
    test_fraction : float, optional
        Instead of ``splits``, when every fold has the same test fraction.
    model_col, dataset_col : str
        Which columns name the model (``flow_name``; ``setup_id`` when one flow was run
        with several hyperparameter settings) and the dataset.
    """
    need = {"task_id", "function", "values", model_col, dataset_col}
    if not need <= set(evaluations.columns):
        raise ValueError(
            f"OpenML per-fold evaluations need columns {sorted(need)}; missing "
            f"{sorted(need - set(evaluations.columns))} (list them with "
            "per_fold=True)"
        )
    if splits is None and test_fraction is None:
        raise ValueError(
            "pass splits= (the task's datasplits table, which makes rho exact) or "
            "test_fraction=; " + DESIGN_HINT
        )
    key = ["task_id", model_col, "function"]
    dup = evaluations.duplicated(key)
    if dup.any():
        example = evaluations.loc[dup, key].iloc[0].tolist()
        raise ValueError(
            f"several runs share {key} (e.g. {example}); name models by a finer "
            "column, e.g. model_col='setup_id'"
        )
    rows, by_task = [], {}
    for r in evaluations.to_dict("records"):
        if r["task_id"] not in by_task:
            by_task[r["task_id"]] = _task_sizes(splits, r["task_id"], test_fraction)
        sizes, values = by_task[r["task_id"]], _openml_values(r["values"])
        if isinstance(sizes, dict) and len(sizes) != sum(map(len, values)):
            raise ValueError(
                f"task {r['task_id']}: {sum(map(len, values))} fold scores but "
                f"{len(sizes)} splits in its datasplits table; pass the task's own "
                "splits"
            )
        for rep, fold_values in enumerate(values):
            for fold, v in enumerate(fold_values):
                if isinstance(sizes, dict) and (rep, fold) not in sizes:
                    raise ValueError(
                        f"task {r['task_id']}: repeat {rep} fold {fold} is not in "
                        "its datasplits table; pass the task's own splits"
                    )
                n_tr, n_te = sizes[(rep, fold)] if isinstance(sizes, dict) else sizes
                rows.append(
                    {
                        "dataset": str(r[dataset_col]),
                        "model": str(r[model_col]),
                        "split": rep * len(fold_values) + fold,
                        "repeat": rep,
                        "fold": fold,
                        "n_train": int(n_tr),
                        "n_test": int(n_te),
                        "metric": str(r["function"]),
                        "value": v,
                    }
                )
    long = pd.DataFrame(rows)
    tidy = long.pivot_table(
        index=["dataset", "model", "split", "repeat", "fold", "n_train", "n_test"],
        columns="metric",
        values="value",
    ).reset_index()
    tidy.columns.name = None
    return {"frame": tidy, "metrics": list(dict.fromkeys(long["metric"]))}


def _task_sizes(
    splits: Any, task: Any, test_fraction: float | None
) -> dict[tuple[int, int], tuple[int, int]] | tuple[int, int]:
    """Per (repeat, fold) the exact sizes from the task's splits, or one (n_train, n_test)
    pair from ``test_fraction``."""
    if splits is None:
        return _sizes(1, test_fraction, None, None)
    table = splits
    if isinstance(splits, Mapping):
        table = splits.get(task, splits.get(str(task)))
        if table is None:
            raise ValueError(
                f"no datasplits table for task {task}; splits has tasks {list(splits)}"
            )
    sizes = openml_split_sizes(table)
    return {
        (int(r), int(f)): (int(a), int(b))
        for (r, f), a, b in zip(sizes.index, sizes["n_train"], sizes["n_test"], strict=True)
    }
