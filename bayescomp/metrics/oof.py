"""Out-of-fold scores of the positive class, for :func:`bayescomp.threshold_curves`:
fitted by the one fitter (:func:`~bayescomp.scores.crossval.fit_paired`), so kept in and
resumed from its cache."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import FitStore


def oof_positive_scores(
    estimator: Any,
    X: Any,
    y: Any,
    cv: Any,
    groups: Any,
    pos_label: Any,
    response_method: str,
    n_jobs: int | None,
    cache: FitStore | None,
    names: tuple[str, str],
) -> tuple[list[tuple[np.ndarray, np.ndarray]], bool]:
    """Out-of-fold scores of the positive class, one pair per split, fitted by the one
    fitter (:func:`~bayescomp.scores.crossval.fit_paired`), so kept in and resumed from
    ``cache`` (a stored fit is reused when it kept the same kind of scores)."""
    from functools import partial

    from bayescomp.scores.crossval import fit_paired

    if response_method == "auto":
        response_method = (
            "predict_proba" if hasattr(estimator, "predict_proba") else ("decision_function")
        )
    if response_method not in ("predict_proba", "decision_function"):
        raise ValueError(
            f"response_method must be 'auto', 'predict_proba' or 'decision_function'; got "
            f"{response_method!r}"
        )
    predict = partial(positive_scores, pos_label=pos_label, response_method=response_method)
    kind = f"positive class score: {response_method}, pos_label={pos_label!r}"
    dataset, model = names
    fits = fit_paired(
        {model: estimator},
        X,
        y,
        cv=cv,
        groups=groups,
        n_jobs=n_jobs,
        progress=False,
        dataset=dataset,
        cache=cache,
        predict=(kind, predict),
    )
    pairs = [fits.results[t].predictions for t in fits.tasks]
    return [(p.y_true, p.y_score) for p in pairs], response_method == "predict_proba"


def positive_scores(
    est: Any, X_test: Any, y_test: Any, *, pos_label: Any, response_method: str
) -> tuple[np.ndarray, np.ndarray]:
    """``(y_test, score of the positive class)`` of a fitted classifier on one test fold."""
    if response_method == "predict_proba":
        classes = list(est.classes_)
        if pos_label not in classes:
            raise ValueError(
                f"pos_label={pos_label!r} is not among the classes {classes} of a training "
                "split; use a stratified splitter"
            )
        s = est.predict_proba(X_test)[:, classes.index(pos_label)]
    else:
        s = est.decision_function(X_test)
        if np.ndim(s) != 1:
            raise ValueError("decision_function must give one score per row (binary task)")
        if list(est.classes_).index(pos_label) == 0:
            s = -s
    return np.asarray(y_test), np.asarray(s, dtype=float)
