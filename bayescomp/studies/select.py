"""Champion/challenger selection: promote a candidate only when it is really better.

:func:`select` walks a list of candidate models against the current champion
(initially the production *baseline*).  Each step is one posterior of
``challenger - champion`` from :func:`bayescomp.compare` on the same fixed
splits, decided with the rule of :func:`bayescomp.decide`: the challenger
becomes champion only when ``P(difference > rope) >= gamma``.

Cost: the splits are materialised once per dataset, every model is fitted once
on them and the champion's per-split scores are reused at every step, so
choosing among ``k`` candidates costs ``k + 1`` cross-validations.  Every fit is
written to an optional SQLite store (:class:`~bayescomp.studies.store.ResultStore`)
as soon as it finishes; rerunning resumes without refitting.

Self-tuning candidates (``GridSearchCV``, ``RandomizedSearchCV``, ``*CV``
estimators, any estimator that tunes itself inside ``fit``) are evaluated by
nested cross-validation: the search is cloned and fitted on the outer training
fold only, so its inner cross-validation never sees the outer test fold.  The
hyperparameters it picks in each outer fold are recorded for the audit trail but
never used to decide what goes to production: the production model is the
winning *procedure* refitted on all the data (:meth:`Selection.refit_champion`).

Where the parts live: the walk and the recommendation in
:mod:`bayescomp.decision.walk`, the fitted runs in :mod:`bayescomp.studies.fitted`,
the result in :mod:`bayescomp.studies.selection`; this module validates the
arguments once and puts them together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescomp.core.exceptions import FitError
from bayescomp.decision.walk import (
    ORDERS,
    STEP_COLUMNS,
    TableSource,
    compare_step,
    order_challengers,
    recommend,
    walk,
)
from bayescomp.splits.repeats import default_cv
from bayescomp.studies.estimators import estimator_params, is_self_tuning
from bayescomp.studies.selection import Selection, format_steps

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.core.protocols import SelectionTracker
    from bayescomp.scores.model_files import ModelSpec
    from bayescomp.scores.table import Scores

__all__ = ["ORDERS", "STEP_COLUMNS", "FitError", "Selection", "default_cv", "estimator_params",
           "format_steps", "is_self_tuning", "select"]


def select(
    models: Any = None,
    X: Any = None,
    y: Any = None,
    *,
    baseline: str,
    scoring: Any = None,
    rope: float,
    gamma: float = 0.95,
    metric: str | None = None,
    cv: Any = None,
    n_splits: int = 10,
    n_repeats: int = 10,
    random_state: int = 0,
    groups: Any = None,
    store: str | Path | None = None,
    order: str = "given",
    max_repeats: int = 0,
    n_jobs: int | None = None,
    progress: bool = True,
    on_error: str = "skip",
    scores: Scores | str | Path | None = None,
    dataset: str | None = None,
    higher_is_better: bool | None = None,
    method: str = "auto",
    compare_options: dict[str, Any] | None = None,
    guardrails: Mapping[str, float] | None = None,
    tracker: SelectionTracker | None = None,
    retries: int = 2,
    worker_timeout: float = 180.0,
) -> Selection:
    """Champion/challenger selection: promote only what is better beyond the ROPE.

    Starting from ``baseline`` as champion, each challenger (in ``order``) is
    compared with the current champion on the same splits; it becomes champion
    when ``P(challenger - champion > rope) >= gamma`` (the rule of
    :func:`bayescomp.decide`).  Otherwise the champion stays (the step is
    *reject*, *equivalent* or *inconclusive*).

    Parameters
    ----------
    models : folder, list of model files, dict of estimators, or None
        Candidates, including the baseline.  A file that cannot be loaded is
        skipped with a warning (``on_error="skip"``) or fatal (``"raise"``).
        With ``scores=``: ``None`` (every model of the table) or a list of names.
    X, y : array-like, or X a dict ``{dataset: (X, y)}``
        The data the models are cross-validated on (not with ``scores=``).
    baseline : str
        The model in production: the first champion.
    scoring : str, list or dict, optional
        scikit-learn scoring spec for the fits (every scorer is stored);
        with ``scores=`` it names the metric column.  Default (with
        ``metric=``): the decision metric and the task's cheap standard
        scorers every model supports (e.g. roc_auc, accuracy, balanced
        accuracy, average precision, f1, log-loss, Brier for two classes), so
        that a store serves a later run on any of them without refitting.
    rope : float
        Half-width of the region of practical equivalence on the metric's scale.
    gamma : float, default 0.95
        Posterior probability needed to decide, in (0.5, 1).
    metric : str, optional
        Decision metric when ``scoring`` names several scorers or is omitted
        (aliases such as ``"auc"`` are accepted).
    cv : splitter, int or index pairs, optional
        The design; default ``Repeated(Stratified)KFold(n_splits, n_repeats,
        random_state)``.  It is materialised once per dataset and shared by
        every model.
    store : path, optional
        SQLite file keeping every fit (:class:`~bayescomp.studies.store.ResultStore`);
        rerunning with the same store resumes without refitting, and a changed
        design, metric, data or model is refused.
    order : {"given", "name", "mean"}
        Challenger order: as given, by name, or by mean score (best first).
    max_repeats : int, default 0
        Sequential testing budget per step: while a step is inconclusive, add up
        to this many seeded repetitions of the design (one more pass of the
        splitter with ``n_repeats=1``) to both models and decide again.
    n_jobs : int, optional
        Parallel fits (joblib); results are written by this process as they arrive.
    progress : bool, default True
        One progress bar over all fits (when stderr is a terminal or in Jupyter).
    on_error : {"skip", "raise"}
        Broken model files and failing fits: skip the model (its step is
        ``error``), or stop.  A failing baseline always stops.
    scores : Scores or CSV path, optional
        Precomputed per-split scores: nothing is fitted.
    dataset : str, optional
        Name of the dataset (fitted mode), or the dataset of a multi-dataset
        ``scores`` table to decide on.
    higher_is_better : bool, optional
        Orientation of the metric (looked up when omitted).
    method : str, default "auto"
        Passed to :func:`bayescomp.compare` (which picks the posterior; several
        datasets go to the hierarchical model there).
    compare_options : dict, optional
        Further keyword arguments of :func:`bayescomp.compare` for the
        posterior across datasets (e.g. ``{"draws": 1000, "chains": 4}``); the
        sampler is seeded with ``random_state``.
    guardrails : dict, optional
        ``{metric: rope}`` of metrics the challenger must not be worse on beyond their
        ROPE (e.g. ``{"neg_log_loss": 0.01, "fit_time": 0.5}``): every step then uses
        the joint posterior of the decision metric and the guardrails, and promotes when
        ``P(better beyond rope and every guardrail held) >= gamma``; the steps table gains
        the columns ``p_joint`` and ``guardrails`` (``docs/guardrails.md``).
    tracker : SelectionTracker, optional
        Told about the selection as it runs: ``on_start`` before the fits,
        ``on_step`` as each step is decided, ``on_finish`` with the result
        (e.g. :class:`bayescomp.integrations.mlflow.MlflowTracker`, which logs every
        step as an MLflow run and moves a registry alias on *promote*).  Its
        ``identity`` argument is the same for every rerun of the same selection.
    retries : int, default 2
        Times a fit lost with its worker (a killed process, a lost cluster node) is sent
        again on a fresh task; ``Selection.fits_retried`` counts them.
    worker_timeout : float, default 180
        Seconds a Dask or Ray cluster may have no live worker before the call stops with
        a :class:`~bayescomp.core.exceptions.WorkersLostError`; with ``store=`` every
        finished fit is kept and the same call resumes from it.

    Returns
    -------
    Selection

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> models = {"nb": GaussianNB(),
    ...           "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))}
    >>> sel = select(models, X, y, baseline="nb", scoring="accuracy", rope=0.005,
    ...              n_splits=5, n_repeats=2, progress=False)
    >>> sel.champion, sel.steps["decision"].tolist(), sel.fits_total
    ('lr', ['promote'], 20)
    """
    from bayescomp.core.checks import check_gamma, check_scalar_rope

    gamma = check_gamma(gamma)
    rope = check_scalar_rope(rope)
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    if int(max_repeats) < 0:
        raise ValueError(f"max_repeats must be >= 0, got {max_repeats}")
    max_repeats = int(max_repeats)
    settings = dict(baseline=baseline, rope=rope, gamma=gamma, order=order,
                    max_repeats=max_repeats, method=method, random_state=random_state)
    decide = dict(rope=rope, gamma=gamma, method=method,
                  options={"random_state": random_state, **(compare_options or {})})
    if guardrails:
        decide["options"]["guardrails"] = settings["guardrails"] = dict(guardrails)
    if scores is not None:
        if X is not None or y is not None:
            raise ValueError("pass either the data (X, y) or scores=, not both")
        if store is not None:
            raise ValueError("store= keeps fits; with precomputed scores nothing is fitted — "
                             "drop store=")
        if max_repeats:
            raise ValueError("max_repeats adds repetitions by fitting; it cannot be used with "
                             "precomputed scores")
        return _select_on_scores(models, scores, baseline=baseline, scoring=scoring,
                                 metric=metric, order=order, dataset=dataset,
                                 higher_is_better=higher_is_better, settings=settings,
                                 tracker=tracker, **decide)
    import dataclasses

    from bayescomp.scores.engine import fit_policy

    with fit_policy(retries=retries, worker_timeout=worker_timeout) as policy:
        out = _select_fitted(
            models, X, y, groups, baseline=baseline, scoring=scoring, metric=metric,
            higher_is_better=higher_is_better, on_error=on_error, order=order,
            max_repeats=max_repeats, settings=settings, store=store, n_jobs=n_jobs,
            progress=progress, design=dict(dataset=dataset, cv=cv, n_splits=n_splits,
                                           n_repeats=n_repeats, random_state=random_state),
            tracker=tracker, **decide)
    return dataclasses.replace(out, fits_retried=policy.retried)


def selection_identity(settings: Mapping[str, Any], models: Mapping[str, str]) -> str:
    """A digest naming one selection: its settings (design fingerprints included) and the
    parameter hash of every model; a rerun of the same selection has the same identity.

    Examples
    --------
    >>> a = selection_identity({"rope": 0.01}, {"lr": "ab12"})
    >>> a == selection_identity({"rope": 0.01}, {"lr": "ab12"}), len(a)
    (True, 64)
    >>> a == selection_identity({"rope": 0.02}, {"lr": "ab12"})
    False
    """
    import hashlib
    import json

    text = json.dumps({"settings": dict(settings), "models": dict(models)}, sort_keys=True,
                      default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def _means(table: Scores, models: list[str], metric: str) -> dict[str, float]:
    f = table.to_frame()
    return {m: float(f.loc[f["model"] == m, metric].mean()) for m in models}  # NaN-skipping


def _fitted_metric(specs: Mapping[str, ModelSpec], scoring: Any, metric: str | None
                   ) -> tuple[dict[str, dict[str, Any]], list[str], str]:
    """Scorers per model, their names, and the decision metric among them."""
    from bayescomp.core.orientation import canonical_metric
    from bayescomp.scores.crossval import resolve_scorers

    if scoring is None:
        raise ValueError("pass scoring= (e.g. 'roc_auc'): the metric the decision is made on")
    scorers = {m: resolve_scorers(scoring, s.estimator) for m, s in specs.items()}
    names = list(next(iter(scorers.values())))
    if metric is not None:
        metric = canonical_metric(metric)
    if metric is None:
        if len(names) > 1:
            raise ValueError(f"scoring has several scorers {names}; choose the decision metric "
                             "with metric=")
        metric = names[0]
    if metric not in names:
        raise ValueError(f"metric {metric!r} is not among the scorers {names}")
    return scorers, names, metric


def _standard_scoring(specs: Mapping[str, ModelSpec], datasets: Mapping[str, Any],
                      metric: str | None) -> list[str]:
    """``scoring=None``: the decision metric, then the task's cheap standard scorers that
    every model supports (scored once per fit, so a store serves later runs on any of
    them)."""
    from bayescomp.core.orientation import canonical_metric
    from bayescomp.scores.datasets import standard_scorers, task_of

    if metric is None:
        raise ValueError("pass metric= (e.g. 'roc_auc'): the metric the decision is made on "
                         "(or scoring=, the scorers to fit with)")
    from sklearn.base import is_regressor

    estimators = {m: s.estimator for m, s in specs.items()}
    common: list[str] | None = None
    for d in datasets.values():
        if d.y is None:
            return [canonical_metric(metric)]
        task = task_of(d.y)
        if all(is_regressor(e) for e in estimators.values()):
            task = "regression"  # e.g. counts: whole numbers, but a regression
        found = standard_scorers(d.y, task, estimators)
        common = found if common is None else [n for n in common if n in found]
    metric = canonical_metric(metric)
    return [metric, *(n for n in common or [] if n != metric)]


def _fitted_models(models: Any, baseline: str, on_error: str
                   ) -> tuple[dict[str, ModelSpec], dict[str, str]]:
    from bayescomp.studies.fitted import load_specs

    if models is None:
        raise ValueError("pass the candidate models (a folder, model files or a dict)")
    specs, skipped = load_specs(models, on_error)
    if baseline not in specs:
        why = f" ({skipped[baseline]})" if baseline in skipped else ""
        raise ValueError(f"the baseline {baseline!r} is not among the loaded models "
                         f"{list(specs)}{why}")
    if len(specs) < 2:
        raise ValueError(f"only the baseline {baseline!r} was loaded; there is no challenger")
    return specs, skipped


def _select_fitted(models: Any, X: Any, y: Any, groups: Any, *, baseline: str, scoring: Any,
                   metric: str | None, higher_is_better: bool | None, on_error: str,
                   order: str, max_repeats: int, settings: dict[str, Any],
                   store: str | Path | None, n_jobs: int | None, progress: bool,
                   design: dict[str, Any], tracker: SelectionTracker | None, rope: float,
                   gamma: float, method: str, options: dict[str, Any]) -> Selection:
    from bayescomp.core.orientation import resolve_direction
    from bayescomp.scores.datasets import check_task, task_of
    from bayescomp.scores.engine import Progress
    from bayescomp.splits.repeats import cv_text
    from bayescomp.studies.estimators import check_inner_cv
    from bayescomp.studies.fitted import FittedRuns, prepare_datasets, start_run
    from bayescomp.studies.store import ResultStore

    specs, skipped = _fitted_models(models, baseline, on_error)
    for m, s in specs.items():
        check_inner_cv(m, s.estimator)
    targets = ({str(k): v[1] for k, v in X.items() if isinstance(v, tuple | list) and len(v) > 1}
               if isinstance(X, Mapping) else {str(design["dataset"] or "data"): y})
    for name, target in targets.items():  # classifiers on a regression target: say so first
        if target is not None and task_of(target) == "regression":
            check_task({m: s.estimator for m, s in specs.items()}, "regression", name)
    datasets = prepare_datasets(X, y, groups, **design)
    if scoring is None:
        scoring = _standard_scoring(specs, datasets, metric)
    scorers, names, metric = _fitted_metric(specs, scoring, metric)
    hib = resolve_direction(metric, higher_is_better)
    settings.update(cv={n: cv_text(d.cv) for n, d in datasets.items()}, metric=metric,
                    scoring=names,
                    design_fingerprint={n: d.design.fingerprint() for n, d in datasets.items()},
                    data_hash={n: d.data_hash for n, d in datasets.items()})
    if tracker is not None:
        tracker.on_start(selection_identity(settings, {m: estimator_params(s.estimator)[1]
                                                       for m, s in specs.items()}), settings)
    st = ResultStore(store) if store is not None else None
    bar = Progress(progress, "select")
    try:
        run_id = start_run(st, datasets, specs, settings, metric, names) if st else None
        runs = FittedRuns(specs, datasets, scorers, st, run_id, n_jobs, bar, on_error)
        # every model on the base design, in one parallel stream: k + 1 cross-validations
        runs.ensure(runs.keys(list(specs), [0]))
        base_errors = runs.errors(baseline, runs.keys([baseline], [0]))
        if base_errors:
            raise FitError(f"the baseline {baseline!r} failed to fit: {base_errors[0]}")
        means = _means(runs.table(list(specs), [0]), list(specs), metric)
        challengers = order_challengers([m for m in specs if m != baseline], order, means, hib)
        cmp = partial(compare_step, metric=metric, rope=rope, gamma=gamma, hib=hib,
                      method=method, options=options)
        w = walk(runs, baseline, challengers, metric=metric, compare=cmp,
                 max_repeats=max_repeats, on_step=tracker.on_step if tracker else None)
        base_scores = runs.table(list(specs), [0])
        blocks = sorted({b for d in datasets.values() for b in d.blocks})
        selection = Selection(
            champion=w.champion, baseline=baseline, metric=metric, rope=rope, gamma=gamma,
            steps=w.steps, recommendation=recommend(base_scores, baseline, w.champion, w.steps,
                                                    compare=cmp, metric=metric, rope=rope,
                                                    gamma=gamma),
            scores=runs.table(list(specs), blocks, complete=False), results=w.results,
            paired=w.paired, candidates=_candidates_frame(specs, means, skipped),
            skipped=skipped, fits_performed=runs.fits_performed,
            fits_loaded=runs.fits_loaded, fits_total=len(runs.cache), settings=settings,
            store=str(st.path) if st is not None else None, base_scores=base_scores,
            _specs=specs, _data={n: (d.X, d.y) for n, d in datasets.items()},
        )
        if st is not None:
            st.finish_run(run_id, w.champion, w.steps)
        if tracker is not None:
            tracker.on_finish(selection)
        return selection
    finally:
        bar.close()
        if st is not None:
            st.close()


def _candidates_frame(specs: Mapping[str, ModelSpec], means: Mapping[str, float],
                      skipped: Mapping[str, str]) -> pd.DataFrame:
    import pandas as pd

    rows = [{"model": m, "description": s.description, "path": s.path,
             "nested": is_self_tuning(s.estimator) if s.estimator is not None else False,
             "mean": means.get(m, float("nan")), "status": "loaded"}
            for m, s in specs.items()]
    rows += [{"model": m, "description": "", "path": None, "nested": False,
              "mean": float("nan"), "status": f"skipped: {why}"} for m, why in skipped.items()]
    return pd.DataFrame(rows)


def _table_models(models: Any, scores: Scores, baseline: str) -> list[str]:
    if models is None:
        names = scores.models
    elif isinstance(models, Mapping) or (isinstance(models, Iterable)
                                         and not isinstance(models, str | Path)):
        names = [str(m) for m in models]
    else:
        raise ValueError("with scores=, models must be None (every model of the table) or a list "
                         "of model names")
    for m in names:
        scores._check_model(m)
    if baseline not in names:
        raise ValueError(f"the baseline {baseline!r} is not among the models {names}")
    return names


def _select_on_scores(models: Any, scores: Any, *, baseline: str, scoring: Any,
                      metric: str | None, order: str, dataset: str | None,
                      higher_is_better: bool | None, settings: dict[str, Any],
                      tracker: SelectionTracker | None, rope: float, gamma: float,
                      method: str, options: dict[str, Any]) -> Selection:
    import pandas as pd

    from bayescomp.core.orientation import resolve_direction
    from bayescomp.scores.table import Scores

    if isinstance(scores, str | Path):
        scores = Scores.read_csv(scores)
    if not isinstance(scores, Scores):
        raise ValueError(f"scores must be a bayescomp.Scores or a CSV path, got "
                         f"{type(scores).__name__}")
    if metric is None and isinstance(scoring, str):
        metric = scoring
    metric = scores._check_metric(metric)
    hib = resolve_direction(metric, higher_is_better)
    names = _table_models(models, scores, baseline)
    if dataset is not None:
        scores = scores.select(datasets=[dataset])
    scores = scores.select(models=names)
    means = _means(scores, names, metric)
    settings.update(metric=metric, scoring=[metric], cv="precomputed scores",
                    design_fingerprint=_table_digest(scores))
    if tracker is not None:
        tracker.on_start(selection_identity(settings, dict.fromkeys(names, "precomputed")),
                         settings)
    challengers = order_challengers([m for m in names if m != baseline], order, means, hib)
    cmp = partial(compare_step, metric=metric, rope=rope, gamma=gamma, hib=hib, method=method,
                  options=options)
    w = walk(TableSource(scores), baseline, challengers, metric=metric, compare=cmp,
             on_step=tracker.on_step if tracker else None)
    recommendation = recommend(scores, baseline, w.champion, w.steps, compare=cmp,
                               metric=metric, rope=rope, gamma=gamma)
    cand = pd.DataFrame({"model": names, "description": "", "path": None, "nested": False,
                         "mean": [means[m] for m in names], "status": "precomputed"})
    sel = Selection(champion=w.champion, baseline=baseline, metric=metric, rope=rope,
                    gamma=gamma, steps=w.steps, recommendation=recommendation, scores=scores,
                    results=w.results, paired=w.paired, candidates=cand, skipped={},
                    fits_performed=0, fits_loaded=0, fits_total=0, settings=settings,
                    base_scores=scores)
    if tracker is not None:
        tracker.on_finish(sel)
    return sel


def _table_digest(scores: Scores) -> str:
    """SHA-256 of a scores table's content (the design fingerprint of precomputed scores)."""
    import hashlib

    import pandas as pd

    f = scores.to_frame()
    return hashlib.sha256(pd.util.hash_pandas_object(f, index=False).to_numpy().tobytes()
                          ).hexdigest()
