"""Paired cross-validation: every model is fitted on exactly the same splits."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bayescomp.core.checks import check_n_jobs, check_samples
from bayescomp.core.exceptions import FitFailedWarning, WorkersLostError
from bayescomp.core.orientation import canonical_metric
from bayescomp.scores.engine import FitTask, Progress, multimetric, run_fits
from bayescomp.scores.table import Scores
from bayescomp.splits.design import SplitDesign, materialise_splits


def resolve_scorers(scoring: Any, estimator: Any = None) -> dict[str, Callable]:
    """Turn any scikit-learn ``scoring`` spec into ``{name: scorer}``.

    ``None`` uses the estimator's own ``score`` (named ``score``); a string,
    list/tuple of strings, callable ``scorer(est, X, y)`` or dict of those are
    accepted.  Unknown names raise a ``ValueError`` listing how to find valid ones.
    """
    from sklearn.metrics import check_scoring, get_scorer, get_scorer_names

    def one(spec: Any) -> Callable:
        if isinstance(spec, str):
            try:
                return get_scorer(canonical_metric(spec))
            except ValueError:
                neg = f"neg_{spec.strip().lower()}"
                hint = (f" (losses are negated scorers: {neg!r})"
                        if neg in get_scorer_names() else "")
                raise ValueError(
                    f"unknown scoring {spec!r}{hint}; use a scikit-learn scorer name such as "
                    "'roc_auc', 'accuracy', 'f1', 'r2', 'neg_log_loss' (all of them: "
                    "sklearn.metrics.get_scorer_names()) or a callable scorer(estimator, X, y)"
                ) from None
        if callable(spec):
            return spec
        raise ValueError(f"scoring entries must be names or callables, got {spec!r}")

    if scoring is None:
        if estimator is None:
            raise ValueError("scoring=None needs an estimator with a score method")
        return {"score": check_scoring(estimator)}
    if isinstance(scoring, str):
        return {canonical_metric(scoring): one(scoring)}
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
        return {canonical_metric(str(n)) if isinstance(n, str) else str(n): one(n)
                for n in names}
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
    retries: int | None = None,
    worker_timeout: float | None = None,
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
        Parallel fits through joblib, on the backend of the enclosing
        ``joblib.parallel_config`` (loky by default; Dask, Ray and Spark are tested:
        ``docs/scaling_out.md``).
    progress : bool, default True
        Progress bar over all fits (only when writing to a terminal).
    error_score : "raise" or float
        ``"raise"`` re-raises a failing fit or scorer; a number is recorded
        instead, with one :class:`FitFailedWarning` per model listing the failed
        splits.  NaN scores are refused later by ``compare``.
    dataset : str, default "data"
        Name of the dataset in the resulting table.
    retries : int, optional
        Times a fit lost with its worker (a killed process, a lost cluster node) is sent
        again on a fresh task (default 2, or that of an enclosing
        :func:`~bayescomp.scores.engine.fit_policy`).
    worker_timeout : float, optional
        Seconds a Dask or Ray cluster may have no live worker before the call stops with
        a :class:`~bayescomp.core.exceptions.WorkersLostError` (default 180); the error's
        ``results`` holds the fits that finished.

    Returns
    -------
    Scores
        Columns ``dataset, model, split, repeat, fold, n_train, n_test,
        fit_time, score_time`` and one per scorer; ``.design`` holds the splits and
        ``.fits_retried`` the number of fits sent again after a lost worker.

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
    from sklearn.base import is_classifier, is_regressor
    from sklearn.utils import indexable

    models = _check_models(models)
    n_jobs = check_n_jobs(n_jobs)
    if not (isinstance(error_score, str) and error_score == "raise") and not isinstance(
        error_score, numbers.Number
    ):
        raise ValueError(f"error_score must be 'raise' or a number, got {error_score!r}")
    check_samples(X, y, groups,
                  need_y=any(is_classifier(m) or is_regressor(m) for m in models.values()))
    X, y, groups = indexable(X, y, groups)
    classifier = all(is_classifier(m) for m in models.values())
    design = materialise_splits(cv, X, y, groups, classifier=classifier)
    scorers = {name: resolve_scorers(scoring, est) for name, est in models.items()}
    multi = {name: multimetric(scorers[name], est) for name, est in models.items()}
    tasks = [(name, k) for name in models for k in range(len(design))]
    results: dict[Any, dict[str, Any]] = {}
    try:
        with Progress(progress, "paired CV") as bar:
            report = run_fits(
                (FitTask((name, k), models[name], X, y, *design.splits[k], scorers[name],
                         error_score, multi[name]) for name, k in tasks),
                results.__setitem__, n_jobs=n_jobs, progress=bar,
                describe=lambda key: f"{key[0]} split {key[1]}", retries=retries,
                worker_timeout=worker_timeout)
    except WorkersLostError as exc:  # the finished fits go back with the error
        exc.results = dict(results)
        raise
    except (ValueError, TypeError) as exc:  # the estimator refused the data: say so, and how
        raise (ValueError if isinstance(exc, ValueError) else TypeError)(
            f"a model could not be fitted or scored on these data: {exc}. Check that X and y "
            "suit every model (e.g. numeric features, or a pipeline that encodes them), or pass "
            "error_score=np.nan to record the failed splits and go on") from exc
    out = _to_scores(tasks, [results[t] for t in tasks], design, dataset)
    out.fits_retried = report.retried
    return out


def _to_scores(tasks: list[tuple[str, int]], results: list[dict], design: SplitDesign,
               dataset: str) -> Scores:
    import pandas as pd

    from bayescomp.scores.cells import split_ranges

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
            f"({split_ranges(splits)}); first error: {errors[0][1]}; recorded error_score",
            FitFailedWarning, stacklevel=3,
        )
    frame = pd.DataFrame(rows)
    if design.time_ordered:  # compare() then uses the time-ordered posterior
        frame["time_ordered"] = True
    metrics = list(dict.fromkeys(m for res in results for m in res["scores"]))
    # a failed split holds the user's numeric error_score, which may lie outside the range
    return Scores(frame, metrics=metrics, design=design, check_ranges=not failed)
