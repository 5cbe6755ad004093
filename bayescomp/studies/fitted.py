"""Fitting plus selecting in one call: :func:`select_models`.

It is a composition, with no statistics of its own: every model is cross-validated
on the same design by the one fitter (:func:`bayescomp.cross_validate_paired`, with
the store as its cache), then the pure walk (:func:`bayescomp.select`'s rule,
:mod:`bayescomp.decision.walk`) decides over the table.  Sequential testing is a
short loop: while the rule names models of an undecided step (``Walk.pending``), fit
one more seeded block of repetitions for them and decide again.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.exceptions import FitError, FitFailedWarning
from bayescomp.decision.family_walk import resolve_rule
from bayescomp.decision.steps import ScoreSteps
from bayescomp.posterior.request import check_request
from bayescomp.scores.model_files import ModelSpec
from bayescomp.studies.fit_setup import (
    Data,
    candidates_frame,
    design_settings,
    fitted_metric,
    fitted_models,
    open_store,
    params_hash,
    prepare,
    standard_scoring,
)
from bayescomp.studies.select import check_walk, score_means, select, walk_selection
from bayescomp.studies.selection import Selection, SelectionSetup

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import FitStore
    from bayescomp.scores.engine import Progress
    from bayescomp.scores.table import Scores


def select_models(
    models: Any,
    X: Any,
    y: Any = None,
    *,
    cv: Any = None,
    scoring: Any = None,
    groups: Any = None,
    store: str | Path | FitStore | None = None,
    max_repeats: int = 0,
    n_jobs: int | None = None,
    progress: bool = True,
    on_error: str = "skip",
    retries: int = 2,
    worker_timeout: float = 180.0,
    **selection: Any,
) -> Selection:
    """Cross-validate the candidates on one design, then select: promote only what is better
    beyond the ROPE.

    :func:`bayescomp.cross_validate_paired` fits every model on the same splits (``store``
    is its cache), then the rule of :func:`bayescomp.select` decides over the table, with
    ``selection`` — :func:`bayescomp.select`'s keyword arguments (``baseline``, ``rope``,
    ``gamma``, ``rule``, ``metric``, ``order``, ``higher_is_better``, ``dataset``,
    ``compare_options``, ``tracker``).  Choosing among ``k`` candidates costs ``k + 1``
    cross-validations: the champion's scores are reused at every step.

    Self-tuning candidates (searches) get nested cross-validation: fitted on the outer
    training fold only; the production model is the winning *procedure* refitted on all
    data (:meth:`Selection.refit_champion`).

    Parameters
    ----------
    models : folder, list of model files, or dict of estimators
        Candidates, including the baseline (a file that cannot be loaded: ``on_error``).
    X, y : array-like, or X a dict ``{dataset: (X, y)}``
    cv : splitter, int or index pairs, optional
        The design, materialised once per dataset and shared by every model; default
        ``Repeated(Stratified)KFold(n_splits=10, n_repeats=10, random_state=0)``
        (:func:`bayescomp.splits.repeats.default_cv`; an int is its number of folds).
    scoring : str, list or dict, optional
        scikit-learn scoring spec for the fits (every scorer is stored).  Default (with
        ``metric=``): the decision metric and the task's cheap standard scorers every
        model supports, so that a store serves a later run on any of them.
    groups : array-like, optional
        Group labels for group splitters.
    store : path or FitStore, optional
        Where every fit is kept: a path opens a :class:`~bayescomp.studies.store.ResultStore`
        (SQLite; its runs and steps are recorded by a
        :class:`~bayescomp.studies.store.SqliteTracker`); any object with the methods of
        :class:`~bayescomp.core.protocols.FitStore` is used as is.  Rerunning resumes
        without refitting; a changed design, data or model is refused.
    max_repeats : int, default 0
        Sequential testing budget per step: while a step is inconclusive, fit up to this
        many seeded repetitions of the design (the splitter with ``n_repeats=1``) for
        both models and decide again.
    n_jobs, progress
        Parallel fits (joblib) and one progress bar over all fits (on a terminal).
    on_error : {"skip", "raise"}
        Broken model files and failing fits: skip the model (its step is ``error``), or
        stop.  A failing baseline always stops.
    retries, worker_timeout
        Fits lost with their worker are sent again ``retries`` times
        (``Selection.fits_retried``); a Dask or Ray cluster without a live worker for
        ``worker_timeout`` seconds stops the call (every finished fit is in ``store``).
    **selection
        The decision: :func:`bayescomp.select`'s keyword arguments.

    Returns
    -------
    Selection

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import RepeatedStratifiedKFold
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> models = {"nb": GaussianNB(),
    ...           "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))}
    >>> cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    >>> sel = select_models(models, X, y, cv=cv, scoring="accuracy", baseline="nb",
    ...                     rope=0.005, progress=False)
    >>> sel.champion, sel.steps["decision"].tolist(), sel.fits_total
    ('lr', ['promote'], 20)
    """
    from bayescomp.scores.engine import Progress, fit_policy

    args = _selection_args(selection)
    options = {"random_state": 0, **(args["compare_options"] or {})}
    check_walk(args["order"], max_repeats)
    baseline, method = args["baseline"], options.get("method", "auto")
    specs, skipped = fitted_models(models, baseline, on_error)
    data = prepare(specs, X, y, groups, args["dataset"], cv)
    rule, rule_name = resolve_rule(args["rule"], len(data), options.get("variance", "split"))
    if len(data) > 1 and method in ("auto", "hierarchical"):  # say it before any fit
        from bayescomp.core.optional import require

        require("pymc", "mcmc", "the hierarchical model across several datasets")
    if scoring is None:
        scoring = standard_scoring(specs, data, args["metric"])
    names, metric = fitted_metric(specs, scoring, args["metric"])
    request = check_request(
        metric=metric,
        rope=args["rope"],
        gamma=args["gamma"],
        higher_is_better=args["higher_is_better"],
        **options,
    )
    design = {**design_settings(data), "scoring": names}
    setup = SelectionSetup(request, baseline, args["order"], int(max_repeats), rule_name, design)
    cache, trackers, close = open_store(store, args["tracker"])
    bar = Progress(progress, "select")
    try:
        identity = setup.identity({m: params_hash(s) for m, s in specs.items()})
        for t in trackers:
            t.on_start(identity, setup.to_dict())
        fit = partial(
            _fit,
            specs=specs,
            data=data,
            scoring=scoring,
            cache=cache,
            n_jobs=n_jobs,
            bar=bar,
            on_error=on_error,
        )
        with fit_policy(retries=retries, worker_timeout=worker_timeout) as policy:
            table = fit(list(specs), 0, None)
            if base_errors := _errors(table, baseline):
                raise FitError(f"the baseline {baseline!r} failed to fit: {base_errors[0]}")
            means = score_means(table, list(specs), metric)
            sel = walk_selection(
                table=table,
                names=list(specs),
                means=means,
                compare=ScoreSteps(request),
                rule=rule,
                setup=setup,
                trackers=trackers,
                fit=fit,
                candidates=candidates_frame(specs, means, skipped),
                skipped=dict(skipped),
                store=str(Path(store)) if isinstance(store, str | Path) else None,
                _specs=dict(specs),
                _data={n: (d.X, d.y) for n, d in data.items()},
            )
        sel = dataclasses.replace(sel, fits_retried=policy.retried)
        for t in trackers:
            t.on_finish(sel)
        return sel
    finally:
        bar.close()
        close()


def _selection_args(selection: Mapping[str, Any]) -> dict[str, Any]:
    """``select``'s keyword arguments, with its defaults; anything else is refused."""
    import inspect

    params = inspect.signature(select).parameters
    defaults = {k: p.default for k, p in params.items() if p.kind is p.KEYWORD_ONLY}
    unknown = sorted(set(selection) - set(defaults) | ({"models"} & set(selection)))
    if unknown:
        raise TypeError(
            f"select_models() got unexpected keyword argument(s) {unknown} (the candidates "
            "are its first argument; the decision takes bayescomp.select's keywords)"
        )
    missing = [k for k in ("baseline", "rope") if k not in selection]
    if missing:
        raise TypeError(f"select_models() missing required keyword argument(s) {missing}")
    return {**defaults, **selection}


def _fit(
    models: list[str],
    extra: int,
    table: Scores | None,
    *,
    specs: Mapping[str, ModelSpec],
    data: Mapping[str, Data],
    scoring: Any,
    cache: FitStore,
    n_jobs: int | None,
    bar: Progress,
    on_error: str,
) -> Scores:
    """Cross-validate ``models`` on every dataset, on the design and ``extra`` more blocks
    (fits the cache already holds are read), merged into ``table``; its ``attrs`` count
    this call's fits (``fits_performed``, ``fits_loaded``) and their ``fit_warnings``."""
    import pandas as pd

    from bayescomp.scores.crossval import cross_validate_paired
    from bayescomp.scores.table import Scores

    parts = []
    with warnings.catch_warnings():
        if on_error == "skip":  # a failed model becomes an error step, saying why
            warnings.simplefilter("ignore", FitFailedWarning)
        for name, d in data.items():
            parts.append(
                cross_validate_paired(
                    {m: specs[m].estimator for m in models},
                    d.X,
                    d.y,
                    cv=d.cv,
                    scoring=scoring,
                    groups=d.groups,
                    n_jobs=n_jobs,
                    progress=bar,
                    error_score=np.nan,
                    dataset=name,
                    cache=cache,
                    extra_repeats=extra,
                )
            )
    frames = [p.to_frame() for p in parts]
    if table is not None:
        frames.insert(0, table.to_frame())
    f = pd.concat(frames, ignore_index=True)
    if extra or "block" in f.columns:
        f["block"] = f["block"].fillna(0).astype(int) if "block" in f.columns else 0
    key = ["dataset", "model", "split"]
    before = 0 if table is None else len(table)
    f = f.drop_duplicates(key, keep="first").reset_index(drop=True)
    if "error" in f.columns:
        f["error"] = f["error"].astype(object).where(f["error"].notna(), None)
    performed = sum(p.attrs["fits_performed"] for p in parts)
    new = len(f) - before
    out = Scores(f, metrics=parts[0].metrics)
    rows = [t.per_row for t in (table, *parts) if t is not None]
    if all(r is not None for r in rows):  # every fit's per-row scores, each split once
        out.per_row = pd.concat(rows, ignore_index=True).drop_duplicates(
            ["dataset", "model", "split", "row"]
        )
    if on_error == "raise" and _errors(out, *models):
        raise FitError(
            f"{_errors(out, *models)[0]} (use on_error='skip' to go on without this model)"
        )
    out.attrs.update(
        fits_performed=performed,
        fits_loaded=new - performed,
        fit_warnings=[w for p in parts for w in p.attrs.get("fit_warnings", ())],
    )
    return out


def _errors(table: Scores, *models: str) -> list[str]:
    f = table.to_frame()
    if "error" not in f.columns:
        return []
    bad = f[f["model"].isin(models) & f["error"].notna()]
    return [
        f"fit of model {r['model']!r} on split {r['split']} of dataset {r['dataset']!r} "
        f"failed: {r['error']}"
        if len(models) > 1
        else f"split {r['split']}: {r['error']}"
        for r in bad.to_dict("records")
    ]
