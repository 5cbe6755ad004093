"""Paired cross-validation: every model is fitted on exactly the same splits."""

from __future__ import annotations

import numbers
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from bayescomp.core.exceptions import FitFailedWarning
from bayescomp.scores.table import Scores
from bayescomp.splits.design import SplitDesign, materialise_splits


def resolve_scorers(scoring: Any, estimator: Any = None) -> dict[str, Callable]:
    """Turn any scikit-learn ``scoring`` spec into ``{name: scorer}``.

    ``None`` uses the estimator's own ``score`` (named ``score``); a string,
    list/tuple of strings, callable ``scorer(est, X, y)`` or dict of those are
    accepted.  Unknown names raise a ``ValueError`` listing how to find valid ones.
    """
    from sklearn.metrics import check_scoring, get_scorer

    def one(spec: Any) -> Callable:
        if isinstance(spec, str):
            try:
                return get_scorer(spec)
            except ValueError:
                raise ValueError(
                    f"unknown scoring {spec!r}; use a scikit-learn scorer name "
                    "(sklearn.metrics.get_scorer_names()) or a callable scorer(estimator, X, y)"
                ) from None
        if callable(spec):
            return spec
        raise ValueError(f"scoring entries must be names or callables, got {spec!r}")

    if scoring is None:
        if estimator is None:
            raise ValueError("scoring=None needs an estimator with a score method")
        return {"score": check_scoring(estimator)}
    if isinstance(scoring, str):
        return {scoring: one(scoring)}
    if isinstance(scoring, Mapping):
        if not scoring:
            raise ValueError("scoring dict is empty")
        for key in scoring:
            _check_scorer_key(str(key))
        return {str(k): one(v) for k, v in scoring.items()}
    if callable(scoring):
        return {getattr(scoring, "__name__", "score"): scoring}
    if isinstance(scoring, Iterable):
        names = list(scoring)
        if not names or len(set(names)) != len(names):
            raise ValueError(f"scoring list must be non-empty and without repeats: {names}")
        return {str(n): one(n) for n in names}
    raise ValueError(f"cannot interpret scoring={scoring!r}")


def _check_scorer_key(key: str) -> None:
    """A scorer's values are always higher-is-better (scikit-learn negates losses), so a
    column named after a loss ("mse") would hold negated values that every comparison would
    flip a second time."""
    from bayescomp.core.orientation import higher_is_better

    try:
        lower = not higher_is_better(key)
    except ValueError:  # unknown name: compare() asks for the direction
        return
    if lower:
        raise ValueError(
            f"scoring key {key!r} names a lower-is-better metric, but scikit-learn scorers are "
            f"higher-is-better (losses are negated, e.g. neg_mean_squared_error), so the column "
            f"would hold negated {key} and comparisons would read it the wrong way round; name "
            f"it 'neg_{key}'"
        )


def _take(data: Any, idx: np.ndarray) -> Any:
    if data is None:
        return None
    if hasattr(data, "iloc"):
        return data.iloc[idx]
    if hasattr(data, "shape"):
        return data[idx]
    return [data[i] for i in idx]


def fit_and_score(
    estimator: Any,
    X: Any,
    y: Any,
    train: np.ndarray,
    test: np.ndarray,
    scorers: Mapping[str, Callable],
    error_score: Any = "raise",
    multimetric: Callable | None = None,
    inspect: Callable[[Any], Any] | None = None,
) -> dict[str, Any]:
    """Clone, fit on ``train``, score on ``test``; one task of paired cross-validation.

    Returns ``{"scores": {name: float}, "fit_time": s, "score_time": s, "error": str|None,
    "info": ...}``.  ``multimetric`` is ``scorers`` combined into one callable that shares
    predictions between them (built here when not given).  ``inspect(fitted_estimator)``
    runs in the worker after a successful fit and its value is returned as ``info``
    (e.g. the hyperparameters a search chose); ``info`` is None otherwise.

    Warnings raised by the fit or the scoring are caught here and returned as
    ``"warnings": [(category, message, count), ...]`` (distinct ones, counted), so
    that they reach the calling process whatever the joblib backend:
    :func:`replay_warnings` raises them there, where the caller's filters apply.
    """
    with warnings.catch_warnings(record=True) as caught:
        res = _fit_and_score(estimator, X, y, train, test, scorers, error_score, multimetric,
                             inspect)
    counts: dict[tuple[type, str], int] = {}
    for w in caught:
        key = (w.category, str(w.message))
        counts[key] = counts.get(key, 0) + 1
    res["warnings"] = [(cat, msg, n) for (cat, msg), n in counts.items()]
    return res


def replay_warnings(result: Mapping[str, Any]) -> None:
    """Raise again, in this process, the warnings a :func:`fit_and_score` task caught."""
    for category, message, count in result.get("warnings", ()):
        for _ in range(count):
            warnings.warn(message, category, stacklevel=2)


def _fit_and_score(estimator: Any, X: Any, y: Any, train: np.ndarray, test: np.ndarray,
                   scorers: Mapping[str, Callable], error_score: Any,
                   multimetric: Callable | None, inspect: Callable[[Any], Any] | None
                   ) -> dict[str, Any]:
    from sklearn.base import clone

    est = clone(estimator)
    X_tr, X_te = _take(X, train), _take(X, test)
    y_tr, y_te = _take(y, train), _take(y, test)
    t0 = time.perf_counter()
    try:
        est.fit(X_tr, y_tr) if y is not None else est.fit(X_tr)
    except Exception as exc:
        if isinstance(error_score, str) and error_score == "raise":
            raise
        return {
            "scores": dict.fromkeys(scorers, float(error_score)),
            "fit_time": time.perf_counter() - t0,
            "score_time": 0.0,
            "error": f"{type(exc).__name__}: {exc}",
            "info": None,
        }
    fit_time = time.perf_counter() - t0
    t0 = time.perf_counter()
    if multimetric is None:
        multimetric = _multimetric(scorers, est)
    try:
        scores = {name: float(v) for name, v in multimetric(est, X_te, y_te).items()}
    except Exception as exc:  # scoring failures follow error_score too, as in scikit-learn
        if isinstance(error_score, str) and error_score == "raise":
            raise
        return {
            "scores": dict.fromkeys(scorers, float(error_score)),
            "fit_time": fit_time,
            "score_time": time.perf_counter() - t0,
            "error": f"scoring failed: {type(exc).__name__}: {exc}",
            "info": None,
        }
    return {"scores": scores, "fit_time": fit_time, "score_time": time.perf_counter() - t0,
            "error": None, "info": inspect(est) if inspect is not None else None}


def _multimetric(scorers: Mapping[str, Callable], estimator: Any) -> Callable:
    """One callable ``(est, X, y) -> {name: score}`` that shares predictions between scorers.

    scikit-learn's multimetric scorer calls ``predict``/``predict_proba`` once for
    all scorers that need it (as ``cross_validate`` does); calling each scorer on
    its own would repeat the predictions once per metric.
    """
    from sklearn.metrics import check_scoring

    return check_scoring(estimator, scoring=dict(scorers))


def _check_models(models: Any) -> dict[str, Any]:
    if not isinstance(models, Mapping) or not models:
        raise ValueError(
            "models must be a non-empty dict {name: unfitted estimator}, e.g. "
            "{'logreg': LogisticRegression(), 'forest': RandomForestClassifier()}"
        )
    out = {}
    for name, est in models.items():
        if not (hasattr(est, "fit") and hasattr(est, "get_params")):
            raise ValueError(
                f"model {name!r} is not a scikit-learn estimator (needs fit and get_params); "
                f"got {type(est).__name__}"
            )
        out[str(name)] = est
    return out


def cross_validate_paired(
    models: Mapping[str, Any],
    X: Any,
    y: Any = None,
    *,
    cv: Any,
    scoring: Any = None,
    groups: Any = None,
    n_jobs: int | None = None,
    progress: bool = True,
    error_score: Any = "raise",
    dataset: str = "data",
) -> Scores:
    """Cross-validate several models on exactly the same ``(train, test)`` splits.

    The splits are materialised once (:func:`bayescomp.materialise_splits`) and
    every model is fitted on the same pairs, so the per-split scores are paired
    and the correlation between splits is known from their sizes.

    Parameters
    ----------
    models : dict of str -> estimator
        Unfitted scikit-learn estimators (cloned for every fit).
    X, y : array-like
        Data; ``y`` may be None for unsupervised estimators.
    cv : int, splitter or iterable of (train, test)
        Any scikit-learn splitter (``RepeatedStratifiedKFold``,
        :class:`bayescomp.RepeatedGroupKFold`, ...), an int, or index pairs.
    scoring : str, list, dict or callable, optional
        Any scikit-learn scoring spec; ``None`` uses each estimator's ``score``.
    groups : array-like, optional
        Group labels for group splitters.
    n_jobs : int, optional
        Parallel fits through joblib; any joblib backend works
        (``with joblib.parallel_config(backend="dask"): ...``).
    progress : bool, default True
        Progress bar over all fits (only when writing to a terminal).
    error_score : "raise" or float
        ``"raise"`` re-raises a failing fit or scorer; a number is recorded
        instead, with one :class:`FitFailedWarning` per model listing the failed
        splits.  NaN scores are refused later by ``compare``.
    dataset : str, default "data"
        Name of the dataset in the resulting table.

    Returns
    -------
    Scores
        Columns ``dataset, model, split, repeat, fold, n_train, n_test,
        fit_time, score_time`` and one per scorer; ``.design`` holds the splits.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.model_selection import RepeatedStratifiedKFold
    >>> X, y = load_iris(return_X_y=True)
    >>> cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    >>> s = cross_validate_paired({"nb": GaussianNB(), "lda": LinearDiscriminantAnalysis()},
    ...                           X, y, cv=cv, scoring="accuracy", progress=False)
    >>> s.models, len(s), s.rho()
    (['nb', 'lda'], 20, 0.2)
    """
    from joblib import Parallel, delayed
    from sklearn.base import is_classifier
    from sklearn.utils import indexable

    models = _check_models(models)
    if not (isinstance(error_score, str) and error_score == "raise") and not isinstance(
        error_score, numbers.Number
    ):
        raise ValueError(f"error_score must be 'raise' or a number, got {error_score!r}")
    X, y, groups = indexable(X, y, groups)
    classifier = all(is_classifier(m) for m in models.values())
    design = materialise_splits(cv, X, y, groups, classifier=classifier)
    scorers = {name: resolve_scorers(scoring, est) for name, est in models.items()}
    multi = {name: _multimetric(scorers[name], est) for name, est in models.items()}
    tasks = [(name, k) for name in models for k in range(len(design))]

    results = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(fit_and_score)(models[name], X, y, *design.splits[k], scorers[name], error_score,
                               multi[name])
        for name, k in tasks
    )
    results = _with_progress(results, tasks, progress)
    return _to_scores(tasks, results, design, dataset)


def _with_progress(results: Iterable[dict], tasks: list[tuple[str, int]], progress: bool
                   ) -> list[dict]:
    import sys

    if not progress or not sys.stderr.isatty():
        out = list(results)
        for res in out:
            replay_warnings(res)
        return out
    from tqdm.auto import tqdm

    out = []
    with tqdm(total=len(tasks), desc="paired CV", unit="fit", leave=False) as bar:
        for (name, k), res in zip(tasks, results, strict=True):
            replay_warnings(res)
            out.append(res)
            bar.set_postfix_str(f"{name} split {k}", refresh=False)
            bar.update()
    return out


def _to_scores(tasks: list[tuple[str, int]], results: list[dict], design: SplitDesign,
               dataset: str) -> Scores:
    import pandas as pd

    from bayescomp.scores.table import _ranges

    rows = []
    failed: dict[str, list[tuple[int, str]]] = {}
    for (name, k), res in zip(tasks, results, strict=True):
        if res["error"] is not None:
            failed.setdefault(name, []).append((k, res["error"]))
        train, test = design.splits[k]
        rows.append({
            "dataset": dataset, "model": name, "split": k,
            "repeat": int(design.repeat[k]), "fold": int(design.fold[k]),
            "n_train": len(train), "n_test": len(test),
            "fit_time": res["fit_time"], "score_time": res["score_time"],
            **res["scores"],
        })
    # one warning per model (not one per split: 100 identical warnings hide the message)
    for name, errors in failed.items():
        splits = sorted(k for k, _ in errors)
        warnings.warn(
            f"fit or scoring of {name!r} failed on {len(splits)} of {len(design)} splits "
            f"({_ranges(splits)}); first error: {errors[0][1]}; recorded error_score",
            FitFailedWarning, stacklevel=3,
        )
    frame = pd.DataFrame(rows)
    metrics = list(dict.fromkeys(m for res in results for m in res["scores"]))
    return Scores(frame, metrics=metrics, design=design)
