"""Paired cross-validation: every model is fitted on exactly the same splits."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from bayescomp.core.checks import check_n_jobs, check_number, check_samples
from bayescomp.core.exceptions import FitFailedWarning, WorkersLostError
from bayescomp.core.orientation import LOSS_SCORERS, canonical_metric, higher_is_better
from bayescomp.core.protocols import OutOfFold, Split
from bayescomp.scores.cells import split_ranges
from bayescomp.scores.engine import FitTask, Progress, multimetric, run_fits
from bayescomp.scores.estimators import tuned_params
from bayescomp.scores.fit_cache import check_cache, load_cached, recorder, split_records
from bayescomp.scores.per_row import checked_rows, per_row_frame, row_predictions
from bayescomp.scores.table import Scores
from bayescomp.splits.design import SplitDesign, materialise_splits

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import Estimator, Fit, FitStore


def resolve_scorers(scoring: Any, estimator: Any = None) -> dict[str, Callable]:
    """Turn any scikit-learn ``scoring`` spec into ``{name: scorer}``.

    ``None`` uses the estimator's own ``score`` (named ``score``); a string,
    list/tuple of strings, callable ``scorer(est, X, y)`` or dict of those are
    accepted.  Unknown names raise a ``ValueError`` listing how to find valid ones.
    """
    from sklearn.metrics import check_scoring, get_scorer, get_scorer_names

    def one(spec: Any) -> Callable:
        if isinstance(spec, str) and canonical_metric(spec).lower() in LOSS_SCORERS:
            # "rmse": the positive loss, lower is better (the one alias table of interval)
            return PositiveLoss(get_scorer(LOSS_SCORERS[canonical_metric(spec).lower()]))
        if isinstance(spec, str):
            try:
                return get_scorer(canonical_metric(spec))
            except ValueError:
                neg = f"neg_{spec.strip().lower()}"
                hint = (
                    f" (losses are negated scorers: {neg!r})" if neg in get_scorer_names() else ""
                )
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
        return {canonical_metric(str(n)) if isinstance(n, str) else str(n): one(n) for n in names}
    raise ValueError(f"cannot interpret scoring={scoring!r}")


class PositiveLoss:
    """A scikit-learn loss scorer (``neg_root_mean_squared_error``) turned back into the
    loss itself (``rmse``, lower is better): ``PositiveLoss(scorer)(est, X, y)`` is
    ``-scorer(est, X, y)``."""

    def __init__(self, negated: Callable) -> None:
        self.negated = negated

    def __call__(self, estimator: Any, X: Any, y: Any) -> float:
        return -float(self.negated(estimator, X, y))

    def __repr__(self) -> str:
        return f"PositiveLoss({self.negated!r})"


def _check_scorer_key(key: str) -> None:
    """A scorer's values are always higher-is-better (scikit-learn negates losses), so a
    column named after a loss ("mse") would hold negated values that every comparison would
    flip a second time."""
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


def check_models(models: Any) -> dict[str, Any]:
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


def check_target_scorers(names: Iterable[str], y: Any) -> None:
    """A binary scorer on a multiclass target is refused before any fit, naming the ones
    that score it."""
    from sklearn.utils.multiclass import type_of_target

    if "roc_auc" in names and type_of_target(y) == "multiclass":
        raise ValueError(
            "roc_auc compares two classes and the target has more: score roc_auc_ovr (each "
            "class against the rest) or roc_auc_ovo (each pair of classes)"
        )


def cross_validate_paired(
    models: Mapping[str, Estimator],
    X: Any,
    y: Any = None,
    *,
    cv: Any,
    scoring: Any = None,
    groups: Any = None,
    n_jobs: int | None = None,
    progress: bool | Progress = True,
    error_score: Any = "raise",
    dataset: str = "data",
    cache: FitStore | None = None,
    extra_repeats: int = 0,
    retries: int | None = None,
    worker_timeout: float | None = None,
    per_row: bool = True,
) -> Scores:
    """Cross-validate several models on exactly the same ``(train, test)`` splits.

    The splits are materialised once (:func:`bayescomp.materialise_splits`) and
    every model is fitted on the same pairs, so the per-split scores are paired
    and the correlation between splits is known from their sizes.  This is the
    package's one fitter: :func:`bayescomp.select_models` and
    :func:`bayescomp.learning_curves` fit through it.

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
        splits, and the table gains a column ``error`` saying why.  NaN scores
        are refused later by ``compare``.
    dataset : str, default "data"
        Name of the dataset in the resulting table (and in ``cache``).
    cache : FitStore, optional
        Where every fit is kept (:class:`bayescomp.ResultStore`, or any object with
        the methods of :class:`~bayescomp.core.protocols.FitStore`): stored fits
        are read instead of refitted, each new fit is written as soon as it
        finishes, and a changed design, data or model is refused before any fit.
        Native thread pools are limited to one thread per fit, so a fit gives the
        same numbers whichever run computed it.
    extra_repeats : int, default 0
        Seeded repetitions of the design appended after it (``cv`` with
        ``n_repeats=1`` and a seed derived from its own; sequential testing); the
        table gains a column ``block`` (0 the design, k the k-th repetition).
    retries : int, optional
        Times a fit lost with its worker (a killed process, a lost cluster node) is sent
        again on a fresh task (default 2, or that of an enclosing
        :func:`~bayescomp.scores.engine.fit_policy`).
    worker_timeout : float, optional
        Seconds a Dask or Ray cluster may have no live worker before the call stops with
        a :class:`~bayescomp.core.exceptions.WorkersLostError` (default 180); the error's
        ``results`` holds the fits that finished (with ``cache``, they are kept there).
    per_row : bool, default True
        Keep every test row's score in every split for the metrics that are means of
        per-row scores (accuracy, error rate, log loss, Brier, squared and absolute error;
        ``Scores.per_row``), for ``compare(..., variance="rows")``.  It costs one more
        prediction per fit; a design of more than 5 million per-row scores keeps none.

    Returns
    -------
    Scores
        Columns ``dataset, model, split, repeat, fold, n_train, n_test,
        fit_time, score_time`` and one per scorer; ``.design`` holds the splits
        (without ``extra_repeats``); ``.attrs`` counts ``fits_performed`` and
        ``fits_loaded`` (read from ``cache``); ``.fits_retried`` the number of fits sent
        again after a lost worker.

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
    fits = fit_paired(
        models,
        X,
        y,
        cv=cv,
        scoring=scoring,
        groups=groups,
        n_jobs=n_jobs,
        progress=progress,
        error_score=error_score,
        dataset=dataset,
        cache=cache,
        extra_repeats=extra_repeats,
        retries=retries,
        worker_timeout=worker_timeout,
        per_row=per_row,
    )
    results = [fits.results[t] for t in fits.tasks]
    out = _to_scores(
        fits.tasks, results, fits.splits, dataset, fits.design, blocks=extra_repeats > 0
    )
    if fits.row_metrics:
        rows = per_row_frame(fits.tasks, results, fits.splits, dataset, fits.row_metrics)
        out.per_row = checked_rows(rows, out.to_frame())
    out.attrs.update(fits_performed=len(fits.tasks) - fits.loaded, fits_loaded=fits.loaded)
    out.fits_retried = fits.retried
    return out


def warning_tally(
    tasks: list[tuple[str, int]], results: list[Fit], dataset: str
) -> list[dict[str, Any]]:
    """The warnings the fits computed now raised (fits read from a cache raised nothing
    now), one record per fit and warning: ``{"dataset", "model", "warning", "message",
    "count"}`` (:func:`~bayescomp.studies.selection.merge_warnings` adds them up)."""
    return [
        {"dataset": dataset, "model": m, "warning": c.__name__, "message": msg, "count": n}
        for (m, _), res in zip(tasks, results, strict=True)
        for c, msg, n in res.warnings
    ]


@dataclass(frozen=True)
class PairedFits:
    """What :func:`fit_paired` computed (or read from its cache): one result per
    ``(model, split)`` task, in ``tasks`` order, and the splits they were fitted on."""

    tasks: list[tuple[str, int]]
    results: dict[tuple[str, int], Fit]
    splits: list[Split]
    design: SplitDesign
    loaded: int
    retried: int
    row_metrics: list[str]


def fit_paired(
    models: Mapping[str, Estimator],
    X: Any,
    y: Any = None,
    *,
    cv: Any,
    scoring: Any = None,
    groups: Any = None,
    n_jobs: int | None = None,
    progress: bool | Progress = True,
    error_score: Any = "raise",
    dataset: str = "data",
    cache: FitStore | None = None,
    extra_repeats: int = 0,
    retries: int | None = None,
    worker_timeout: float | None = None,
    predict: tuple[str, Callable[[Any, Any, Any], Any]] | None = None,
    per_row: bool = False,
) -> PairedFits:
    """The fits of :func:`cross_validate_paired`, before they become a table.

    Takes the arguments of :func:`cross_validate_paired`, and ``predict``: ``(kind,
    predict(fitted_estimator, X_test, y_test) -> (y_true, y_score))``, the out-of-fold
    predictions to keep with every fit (e.g. :func:`bayescomp.threshold_curves`'s scores of
    the positive class).  They are kept with each fit (:class:`OutOfFold`) and written to
    ``cache`` with it, and a stored fit is reused only when it holds predictions of the
    same ``kind`` (a name that changes whenever the predictions would).  ``per_row``
    (without ``predict``): the per-row scores of :mod:`bayescomp.scores.per_row` are those
    predictions, for the metrics that have them, unless there would be more than
    :data:`~bayescomp.scores.per_row.MAX_ROW_SCORES`.
    """
    from sklearn.base import is_classifier, is_regressor
    from sklearn.utils import indexable

    models = check_models(models)
    n_jobs = check_n_jobs(n_jobs)
    _check_fit_arguments(error_score, extra_repeats)
    check_samples(
        X, y, groups, need_y=any(is_classifier(m) or is_regressor(m) for m in models.values())
    )
    X, y, groups = indexable(X, y, groups)
    classifier = all(is_classifier(m) for m in models.values())
    design = materialise_splits(cv, X, y, groups, classifier=classifier)
    splits, prints = split_records(cv, design, X, y, groups, int(extra_repeats))
    scorers = {name: resolve_scorers(scoring, est) for name, est in models.items()}
    check_target_scorers(next(iter(scorers.values())), y)
    multi = {name: multimetric(scorers[name], est) for name, est in models.items()}
    kind = predict[0] if predict is not None else None  # a stored fit without rows is read
    rows: list[str] = []
    if per_row and predict is None:  # the per-row scores are the fits' predictions
        size = sum(len(s.test) for s in splits) * len(models)
        predict, rows = row_predictions(next(iter(scorers.values())), y, size)
    tasks = [(name, k) for name in models for k in range(len(splits))]
    results: dict[Any, Fit] = {}
    params, loaded = {}, 0
    if cache is not None:  # a changed design, data or model is refused before any fit
        params = check_cache(
            cache, dataset, models, scorers, (X, y), cv, splits, prints, design.n_samples
        )
    bar = progress if isinstance(progress, Progress) else Progress(bool(progress), "paired CV")
    if cache is not None:
        loaded = load_cached(cache, dataset, scorers, len(splits), results, bar, kind)

    finished = recorder(results, cache, dataset, splits, params)

    todo = [
        FitTask(
            t,
            models[t[0]],
            X,
            y,
            splits[t[1]].train,
            splits[t[1]].test,
            scorers[t[0]],
            error_score,
            multi[t[0]],
            inspect=tuned_params,
            predict=partial(out_of_fold, *predict) if predict is not None else None,
        )
        for t in tasks
        if t not in results
    ]
    try:
        retried = _run(
            todo, finished, results, n_jobs, bar, cache is not None, retries, worker_timeout
        )
    finally:
        if bar is not progress:
            bar.close()
    return PairedFits(tasks, results, splits, design, loaded, retried, rows)


def out_of_fold(
    kind: str, predict: Callable[[Any, Any, Any], Any], est: Any, X_test: Any, y_test: Any
) -> OutOfFold:
    """``predict``'s ``(y_true, y_score)`` of a fitted estimator on its test rows, kept as
    the :class:`~bayescomp.core.protocols.OutOfFold` predictions of ``kind``."""
    return OutOfFold(kind, *predict(est, X_test, y_test))


def _check_fit_arguments(error_score: Any, extra_repeats: Any) -> None:
    if not (isinstance(error_score, str) and error_score == "raise") and not isinstance(
        error_score, numbers.Number
    ):
        raise ValueError(f"error_score must be 'raise' or a number, got {error_score!r}")
    check_number(extra_repeats, "extra_repeats", integer=True, min_val=0)


def _run(
    tasks: list[FitTask],
    finished: Callable[[Any, Fit], None],
    results: dict[Any, Fit],
    n_jobs: int | None,
    bar: Progress,
    single_thread: bool,
    retries: int | None,
    worker_timeout: float | None,
) -> int:
    """Run the fits not read from the cache; return how many were sent again."""
    try:
        report = run_fits(
            tasks,
            finished,
            n_jobs=n_jobs,
            progress=bar,
            single_thread=single_thread,
            describe=lambda key: f"{key[0]} split {key[1]}",
            source=lambda key: f"model {key[0]!r}",
            retries=retries,
            worker_timeout=worker_timeout,
        )
    except WorkersLostError as exc:  # the finished fits go back with the error
        exc.results = dict(results)
        raise
    except (ValueError, TypeError) as exc:  # the estimator refused the data: say so, and how
        failure = exc.__dict__.get("bayescomp_model_failure", exc)  # as the fit engine marked it
        raise (ValueError if isinstance(exc, ValueError) else TypeError)(
            f"a model could not be fitted or scored on these data: {failure}. Check "
            "that X and y suit every model (e.g. numeric features, or a pipeline that encodes "
            "them), or pass error_score=np.nan to record the failed splits and go on"
        ) from exc
    return report.retried


def _to_scores(
    tasks: list[tuple[str, int]],
    results: list[Fit],
    splits: list[Split],
    dataset: str,
    design: SplitDesign,
    *,
    blocks: bool,
) -> Scores:
    import pandas as pd

    rows = []
    failed: dict[str, list[tuple[int, str]]] = {}
    for (name, k), res in zip(tasks, results, strict=True):
        if res.error is not None:
            failed.setdefault(name, []).append((k, res.error))
        s = splits[k]
        rows.append(
            {
                "dataset": dataset,
                "model": name,
                "split": k,
                "repeat": s.repeat,
                "fold": s.fold,
                "n_train": len(s.train),
                "n_test": len(s.test),
                "fit_time": res.fit_time,
                "score_time": res.score_time,
                **res.scores,
                **({"block": s.block} if blocks else {}),
                "error": res.error,
            }
        )
    # one warning per model (not one per split: 100 identical warnings hide the message)
    for name, errors in failed.items():
        bad = sorted(k for k, _ in errors)
        warnings.warn(
            f"fit or scoring of {name!r} failed on {len(bad)} of {len(splits)} splits "
            f"({split_ranges(bad)}); first error: {errors[0][1]}; recorded error_score",
            FitFailedWarning,
            stacklevel=3,
        )
    frame = pd.DataFrame(rows)
    if not failed:  # the column "error" (why a fit failed) only when one did
        frame = frame.drop(columns="error")
    if design.time_ordered:  # compare() then uses the time-ordered posterior
        frame["time_ordered"] = True
    metrics = list(dict.fromkeys(m for res in results for m in res.scores))
    # a failed split holds the user's numeric error_score, which may lie outside the range
    out = Scores(frame, metrics=metrics, design=None if blocks else design, check_ranges=not failed)
    out.attrs["fit_warnings"] = warning_tally(tasks, results, dataset)
    return out
