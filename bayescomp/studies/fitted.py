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
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.exceptions import FitError
from bayescomp.decision.family_walk import family_note, resolve_rule
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
from bayescomp.studies.select import checked_settings, score_means, selection_identity
from bayescomp.studies.selection import Selection, merge_warnings

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import FitStore, SelectionTracker
    from bayescomp.decision.walk import Rule
    from bayescomp.scores.engine import Progress
    from bayescomp.scores.table import Scores


def select_models(
    models: Any,
    X: Any,
    y: Any = None,
    *,
    baseline: str,
    rope: float,
    gamma: float = 0.95,
    scoring: Any = None,
    metric: str | None = None,
    cv: Any = None,
    n_splits: int = 10,
    n_repeats: int = 10,
    random_state: int = 0,
    groups: Any = None,
    store: str | Path | FitStore | None = None,
    order: str = "given",
    max_repeats: int = 0,
    n_jobs: int | None = None,
    progress: bool = True,
    on_error: str = "skip",
    dataset: str | None = None,
    higher_is_better: bool | None = None,
    method: str = "auto",
    compare_options: dict[str, Any] | None = None,
    guardrails: Mapping[str, float] | None = None,
    tracker: SelectionTracker | None = None,
    rule: str | Rule = "family",
    retries: int = 2,
    worker_timeout: float = 180.0,
) -> Selection:
    """Cross-validate the candidates on one design, then select: promote only what is better
    beyond the ROPE.

    :func:`bayescomp.cross_validate_paired` fits every model on the same splits (``store``
    is its cache), then :func:`bayescomp.select` decides over the table: starting from
    ``baseline``, each challenger (in ``order``) becomes champion when
    ``P(challenger - champion > rope) >= gamma``.  Choosing among ``k`` candidates costs
    ``k + 1`` cross-validations: the champion's scores are reused at every step.

    Self-tuning candidates (searches) get nested cross-validation: fitted on the outer
    training fold only; the production model is the winning *procedure* refitted on all
    data (:meth:`Selection.refit_champion`).

    Parameters
    ----------
    models : folder, list of model files, or dict of estimators
        Candidates, including the baseline (a file that cannot be loaded: ``on_error``).
    X, y : array-like, or X a dict ``{dataset: (X, y)}``
    baseline : str
        The model in production: the first champion.
    rope, gamma
        As for :func:`bayescomp.select`.
    scoring : str, list or dict, optional
        scikit-learn scoring spec for the fits (every scorer is stored).  Default (with
        ``metric=``): the decision metric and the task's cheap standard scorers every
        model supports, so that a store serves a later run on any of them.
    metric : str, optional
        Decision metric when ``scoring`` names several scorers or is omitted.
    cv : splitter, int or index pairs, optional
        The design; default ``Repeated(Stratified)KFold(n_splits, n_repeats,
        random_state)``, materialised once per dataset and shared by every model.
    n_splits, n_repeats, random_state : int
        The default design (``random_state`` also seeds the posterior's sampler).
    groups : array-like, optional
        Group labels for group splitters.
    store : path or FitStore, optional
        Where every fit is kept: a path opens a :class:`~bayescomp.studies.store.ResultStore`
        (SQLite; its runs and steps are recorded by a
        :class:`~bayescomp.studies.store.SqliteTracker`); any object with the methods of
        :class:`~bayescomp.core.protocols.FitStore` is used as is.  Rerunning resumes
        without refitting; a changed design, data or model is refused.
    order : {"given", "name", "mean"}
        Challenger order: as given, by name, or by mean score (best first).
    max_repeats : int, default 0
        Sequential testing budget per step: while a step is inconclusive, fit up to this
        many seeded repetitions of the design (the splitter with ``n_repeats=1``) for
        both models and decide again.
    n_jobs, progress
        Parallel fits (joblib) and one progress bar over all fits (on a terminal).
    on_error : {"skip", "raise"}
        Broken model files and failing fits: skip the model (its step is ``error``), or
        stop.  A failing baseline always stops.
    dataset : str, optional
        Name of the dataset (one dataset).
    higher_is_better, method, compare_options, guardrails, rule
        As for :func:`bayescomp.select`.
    tracker : SelectionTracker, optional
        Told about the selection as it runs (``on_step`` as each step is final).
    retries, worker_timeout
        Fits lost with their worker are sent again ``retries`` times
        (``Selection.fits_retried``); a Dask or Ray cluster without a live worker for
        ``worker_timeout`` seconds stops the call (every finished fit is in ``store``).

    Returns
    -------
    Selection

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> models = {"nb": GaussianNB(),
    ...           "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))}
    >>> sel = select_models(models, X, y, baseline="nb", scoring="accuracy", rope=0.005,
    ...                     n_splits=5, n_repeats=2, progress=False)
    >>> sel.champion, sel.steps["decision"].tolist(), sel.fits_total
    ('lr', ['promote'], 20)
    """
    from bayescomp.scores.engine import Progress, fit_policy

    settings, decide = checked_settings(
        baseline=baseline,
        rope=rope,
        gamma=gamma,
        order=order,
        max_repeats=max_repeats,
        method=method,
        random_state=random_state,
        compare_options=compare_options,
        guardrails=guardrails,
    )
    specs, skipped = fitted_models(models, baseline, on_error)
    data = prepare(specs, X, y, groups, dataset, cv, n_splits, n_repeats, random_state)
    rule, settings["rule"] = resolve_rule(rule, len(data))
    if len(data) > 1 and method in ("auto", "hierarchical"):  # say it before any fit
        from bayescomp.core.optional import require

        require("pymc", "mcmc", "the hierarchical model across several datasets")
    if scoring is None:
        scoring = standard_scoring(specs, data, metric)
    names, metric = fitted_metric(specs, scoring, metric)
    settings.update(design_settings(data), metric=metric, scoring=names)
    cache, trackers, close = open_store(store, tracker)
    bar = Progress(progress, "select")
    try:
        identity = selection_identity(settings, {m: params_hash(s) for m, s in specs.items()})
        for t in trackers:
            t.on_start(identity, settings)
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
            sel = _decide(
                fit,
                specs,
                skipped,
                baseline,
                metric,
                higher_is_better,
                settings,
                decide,
                trackers,
                rule,
                str(Path(store)) if isinstance(store, str | Path) else None,
            )
        sel = dataclasses.replace(sel, fits_retried=policy.retried)
        for t in trackers:
            t.on_finish(sel)
        return sel
    finally:
        bar.close()
        close()


def _decide(
    fit: Any,
    specs: Mapping[str, ModelSpec],
    skipped: Mapping[str, str],
    baseline: str,
    metric: str,
    higher_is_better: bool | None,
    settings: dict[str, Any],
    decide: dict[str, Any],
    trackers: list[Any],
    rule: Any,
    store: str | None,
) -> Selection:
    """Fit the design and walk; fit one more block for the pending models, walk again."""
    from bayescomp.core.orientation import resolve_direction
    from bayescomp.decision.walk import (
        charge_fits,
        compare_step,
        memoized,
        order_challengers,
        recommend,
    )

    hib = resolve_direction(metric, higher_is_better)
    table, counts = fit(list(specs), 0, None)
    if base_errors := _errors(table, baseline):
        raise FitError(f"the baseline {baseline!r} failed to fit: {base_errors[0]}")
    means = score_means(table, list(specs), metric)
    challengers = order_challengers(
        [m for m in specs if m != baseline], settings["order"], means, hib
    )
    cmp = memoized(
        partial(
            compare_step,
            metric=metric,
            hib=hib,
            rope=decide["rope"],
            gamma=decide["gamma"],
            method=decide["method"],
            options=decide["options"],
        )
    )
    reported = 0
    while True:
        w = rule(
            table,
            baseline,
            challengers,
            metric=metric,
            compare=cmp,
            max_repeats=settings["max_repeats"],
        )
        steps = charge_fits(w.steps, table, baseline)
        final = len(steps) if not w.pending else int(w.final or 0)
        for i in range(reported, final):
            for t in trackers:
                t.on_step(steps.iloc[i].to_dict(), w.results[i], w.paired[i])
        reported = max(reported, final)
        if not w.pending:
            break
        table, more = fit(list(w.pending), _next_block(table, w.pending), table)
        if not more["fits_performed"] + more["fits_loaded"]:
            break
        counts = {k: counts[k] + more[k] for k in counts}
    base = _base(table)
    return Selection(
        champion=w.champion,
        baseline=baseline,
        metric=metric,
        rope=decide["rope"],
        gamma=decide["gamma"],
        steps=steps,
        recommendation=family_note(
            recommend(
                base,
                baseline,
                w.champion,
                steps,
                compare=cmp,
                metric=metric,
                rope=decide["rope"],
                gamma=decide["gamma"],
            ),
            steps,
            settings["rule"],
            decide["gamma"],
        ),
        scores=table,
        results=w.results,
        paired=w.paired,
        candidates=candidates_frame(specs, means, skipped),
        skipped=dict(skipped),
        fits_performed=counts["fits_performed"],
        fits_loaded=counts["fits_loaded"],
        fit_warnings=merge_warnings(counts["warned"]),
        fits_total=len(table),
        settings=settings,
        store=store,
        base_scores=base,
        _specs=dict(specs),
        _data={n: (d.X, d.y) for n, d in fit.keywords["data"].items()},
    )


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
) -> tuple[Scores, dict[str, int]]:
    """Cross-validate ``models`` on every dataset, on the design and ``extra`` more blocks
    (fits the cache already holds are read), merged into ``table``."""
    import pandas as pd

    from bayescomp.scores.crossval import cross_validate_paired
    from bayescomp.scores.table import Scores

    parts = []
    with warnings.catch_warnings():
        if on_error == "skip":  # a failed model becomes an error step, saying why
            from bayescomp.core.exceptions import FitFailedWarning

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
    if on_error == "raise" and _errors(out, *models):
        raise FitError(
            f"{_errors(out, *models)[0]} (use on_error='skip' to go on without this model)"
        )
    warned = [w for p in parts for w in p.attrs.get("fit_warnings", ())]
    return out, {"fits_performed": performed, "fits_loaded": new - performed, "warned": warned}


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


def _next_block(table: Scores, models: Iterable[str]) -> int:
    f = table.to_frame()
    if "block" not in f.columns:
        return 1
    return 1 + int(min(f.loc[f["model"] == m, "block"].max() for m in models))


def _base(table: Scores) -> Scores:
    """Every model on the design (block 0): complete and paired, ready for ``rank``."""
    from bayescomp.scores.table import Scores

    f = table.to_frame()
    if "block" in f.columns:
        f = f[f["block"] == 0].drop(columns="block")
    return Scores(f, metrics=table.metrics)
