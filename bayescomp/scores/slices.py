"""Per-slice scores of paired cross-validation: every split's test predictions of every model,
kept by the one fitter (:func:`~bayescomp.scores.crossval.fit_paired`, so stored in and
resumed from its cache) with each test row's slice, for the slice guardrail
(:func:`bayescomp.posterior.slices.slice_cv_test`, ``docs/slices.md``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.core.protocols import FitStore


def cross_validate_slices(
    models: dict[str, Any],
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
    split and test row: ``model, split, row, slice, y_true, y_pred`` and ``rho`` (the split's
    test fraction).  ``slices`` gives each row of ``X`` its slice (region, segment, ...).

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
        test = np.asarray(fits.splits[k]["test"])
        kept = fits.results[model, k].predictions
        rho = test.size / (test.size + len(fits.splits[k]["train"]))
        parts.append(
            pd.DataFrame({"model": model, "split": k, "row": test, "rho": rho})
            .assign(slice=labels.to_numpy()[test].astype(str))
            .assign(y_true=kept.y_true, y_pred=kept.y_score)
        )
    return pd.concat(parts, ignore_index=True)


def test_labels(est: Any, X_test: Any, y_test: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(y_test, predicted labels or values)`` of a fitted model on one test fold."""
    return np.asarray(y_test), np.asarray(est.predict(X_test))
