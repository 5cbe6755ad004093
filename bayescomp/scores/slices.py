"""Per-slice scores of paired cross-validation, for the slice guardrail (``docs/slices.md``).

A scores table's *slice rows* (a value in its slice column) score one slice's test rows of a
split: :func:`checked_slices` checks them once, :func:`paired_slices` pairs two models' for
:func:`bayescomp.compare`.  :func:`cross_validate_slices` keeps every split's test
predictions of every model, by the one fitter (:func:`~bayescomp.scores.crossval.fit_paired`,
so stored in and resumed from its cache), with each test row's slice
(:func:`bayescomp.posterior.slices.slice_scores` turns them into a scores table)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.scores.cells import check_numeric_cells, check_unique_keys

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.core.protocols import Estimator, FitStore
    from bayescomp.scores.table import Scores


def checked_slices(rows: pd.DataFrame, column: str, metrics: list[str]) -> pd.DataFrame:
    """A scores table's slice rows, checked: one per (dataset, model, split, slice), numbers
    in the metric columns; names as text."""
    keys = ["dataset", "model", "split", column]
    check_unique_keys(rows, keys)
    checked = {m: check_numeric_cells(rows, m, required=True) for m in metrics}
    return rows[keys].astype(str).assign(**checked).reset_index(drop=True)


def paired_slices(
    scores: Scores, baseline: str, candidate: str, metric: str, dataset: str, column: str
) -> tuple[np.ndarray, np.ndarray]:
    """``candidate - baseline`` of ``metric`` on each split's slice rows of ``dataset``,
    and each difference's slice (a split where a slice has no row is left out for it)."""
    if scores.slice_scores is None or column != scores.slice_col:
        raise ValueError(
            f"slices={column!r}: the scores table has no per-slice rows under a {column!r} "
            "column; add rows scoring each slice's test rows of each split, their slice in "
            f"that column (Scores.from_frame(..., slice_col={column!r}))"
        )
    f = scores.slice_scores[scores.slice_scores["dataset"] == dataset]
    wide = f.pivot(index=["split", column], columns="model", values=metric)
    wide = wide.reindex(columns=[baseline, candidate])
    one = wide.isna().sum(axis=1) == 1
    if one.any() or wide.isna().all(axis=None):
        key = wide.index[one][0] if one.any() else dataset
        raise ValueError(
            f"the slice rows are not paired: {key} has a {metric!r} score for one of "
            f"{baseline!r} and {candidate!r} only; score both models on every slice of a split"
        )
    wide = wide.dropna()
    return (wide[candidate] - wide[baseline]).to_numpy(), wide.index.get_level_values(1)


def cross_validate_slices(
    models: Mapping[str, Estimator],
    X: Any,
    y: Any,
    slices: Any,
    *,
    cv: Any,
    groups: Any = None,
    n_jobs: int | None = None,
    cache: FitStore | None = None,
    dataset: str = "data",
) -> pd.DataFrame:
    """Paired cross-validation that keeps each split's test predictions, one row per model,
    split and test row: ``model, split, row, slice, y_true, y_pred`` and ``n_train`` (the
    split's training rows); :func:`bayescomp.posterior.slices.slice_scores` scores them.  ``slices`` gives each row of ``X`` its slice (region, segment, ...).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.dummy import DummyClassifier
    >>> from sklearn.model_selection import KFold
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> t = cross_validate_slices({"prior": DummyClassifier(), "nb": GaussianNB()}, X, y,
    ...                           X[:, 0] > 14, cv=KFold(5))
    >>> len(t) == 2 * len(y), sorted(t["slice"].unique())
    (True, ['False', 'True'])
    """
    import pandas as pd

    from bayescomp.scores.crossval import fit_paired

    labels = pd.Series(np.asarray(slices, dtype=object))
    if labels.size != len(X):
        raise ValueError(f"{labels.size} slice labels for {len(X)} rows; give one per row")
    if labels.isna().any():
        raise ValueError(
            f"the slice labels have {int(labels.isna().sum())} missing value(s); fill them "
            "(e.g. 'unknown') or drop those rows"
        )
    fits = fit_paired(
        models,
        X,
        y,
        cv=cv,
        groups=groups,
        n_jobs=n_jobs,
        progress=False,
        dataset=dataset,
        cache=cache,
        predict=("test labels", test_labels),
    )
    parts = []
    for model, k in fits.tasks:
        test = np.asarray(fits.splits[k].test)
        kept = fits.results[model, k].predictions
        n_train = len(fits.splits[k].train)
        parts.append(
            pd.DataFrame({"model": model, "split": k, "row": test, "n_train": n_train})
            .assign(slice=labels.to_numpy()[test].astype(str))
            .assign(y_true=kept.y_true, y_pred=kept.y_score)
        )
    return pd.concat(parts, ignore_index=True)


def test_labels(est: Any, X_test: Any, y_test: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(y_test, predicted labels or values)`` of a fitted model on one test fold."""
    return np.asarray(y_test), np.asarray(est.predict(X_test))
