"""Champion/challenger selection over a scores table: promote only what is really better.

:func:`select` is a pure function of a :class:`~bayescomp.scores.table.Scores` table, like
:func:`bayescomp.compare` and :func:`bayescomp.rank`: a *rule* (default
:func:`~bayescomp.decision.walk.champion_challenger`) walks the challengers against the
current champion, each step one posterior of ``challenger - champion`` from
:func:`bayescomp.compare` decided with the rule of :func:`bayescomp.decide`.  Nothing is
fitted here; :func:`bayescomp.select_models` (``studies/fitted.py``) cross-validates the
candidates with :func:`bayescomp.cross_validate_paired` and then calls the same rule.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescomp.core.exceptions import FitError
from bayescomp.decision.family_walk import RULES
from bayescomp.decision.walk import ORDERS, STEP_COLUMNS, Rule
from bayescomp.posterior.predictions import is_predictions
from bayescomp.scores.estimators import estimator_params, is_self_tuning
from bayescomp.splits.repeats import default_cv
from bayescomp.studies.selection import Selection, format_steps

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import SelectionTracker
    from bayescomp.scores.table import Scores

__all__ = [
    "ORDERS",
    "RULES",
    "STEP_COLUMNS",
    "FitError",
    "Selection",
    "default_cv",
    "estimator_params",
    "format_steps",
    "is_self_tuning",
    "select",
]

#: keyword arguments of the fitting call that ``select`` forwards (with a FutureWarning)
#: to :func:`bayescomp.select_models`
_FITTING = (
    "scoring",
    "cv",
    "n_splits",
    "n_repeats",
    "groups",
    "store",
    "max_repeats",
    "n_jobs",
    "progress",
    "on_error",
    "retries",
    "worker_timeout",
)


def select(
    table: Any = None,
    X: Any = None,
    y: Any = None,
    /,
    *,
    baseline: str,
    rope: float,
    gamma: float = 0.95,
    rule: str | Rule = "family",
    metric: str | None = None,
    models: Iterable[str] | None = None,
    dataset: str | None = None,
    order: str = "given",
    higher_is_better: bool | None = None,
    method: str = "auto",
    compare_options: dict[str, Any] | None = None,
    guardrails: Mapping[str, float] | None = None,
    random_state: int = 0,
    tracker: SelectionTracker | None = None,
    scores: Scores | str | Path | None = None,
    **fitting: Any,
) -> Selection:
    """Champion/challenger selection over a scores table: promote only what is better
    beyond the ROPE.

    With ``rule="family"`` (the default) every challenger is compared with the baseline
    and only the best of them can be promoted, when it is better beyond the ROPE *given
    that it was selected as the best* (:mod:`bayescomp.decision.family`): the probability
    of promoting a model that is not better beyond the ROPE stays at most ``1 - gamma``
    for the whole selection, whatever the number of challengers (``docs/family.md``).
    With ``rule="champion_challenger"``, starting from ``baseline`` as champion, each
    challenger (in ``order``) is compared with the current champion; it becomes champion
    when ``P(challenger - champion > rope) >= gamma`` (:func:`bayescomp.decide`): each
    step keeps its rate, the selection does not.
    Nothing is fitted: to cross-validate candidates and select in one call, use
    :func:`bayescomp.select_models`.

    Parameters
    ----------
    table : Scores or CSV path, or DataFrame of predictions
        Per-split scores of the candidates (also accepted as ``scores=``); or item-level
        predictions on one test set (``y_true`` and one column per model; docs "One test
        set"), walked by :func:`~bayescomp.studies.select_predictions.select_predictions`
        with ``compare_options`` ``cluster=``, ``item=``, ``threshold=``, ``draws=``.
    baseline : str
        The model in production: the first champion.
    rope : float
        Half-width of the region of practical equivalence on the metric's scale.
    gamma : float, default 0.95
        Posterior probability needed to decide, in (0.5, 1).
    rule : str or callable, default "family"
        The selection rule: a name in :data:`bayescomp.decision.family_walk.RULES` (with
        several datasets ``"family"`` decides per step, with a warning) or a callable
        ``rule(scores, baseline, challengers, *, metric, compare, max_repeats) -> Walk``
        (the interface is documented in :mod:`bayescomp.decision.walk`).
    metric : str, optional
        The metric column to decide on (the table's only metric when omitted).
    models : list of str, optional
        The candidates (default: every model of the table), including the baseline.
    dataset : str, optional
        The dataset of a multi-dataset table to decide on (default: all of them, through
        the hierarchical model).
    order : {"given", "name", "mean"}
        Challenger order: as given, by name, or by mean score (best first).
    higher_is_better : bool, optional
        Orientation of the metric (looked up when omitted).
    method : str, default "auto"
        Passed to :func:`bayescomp.compare`.
    compare_options : dict, optional
        Further keyword arguments of :func:`bayescomp.compare` (e.g. ``{"draws": 1000}``
        for the hierarchical model); the sampler is seeded with ``random_state``.
    guardrails : dict, optional
        ``{metric: rope}`` of metrics the challenger must not be worse on beyond their
        ROPE: every step then uses the joint posterior (``docs/guardrails.md``).
    random_state : int, default 0
        Seed of the posterior's sampler (hierarchical model).
    tracker : SelectionTracker, optional
        Told about the selection: ``on_start``, ``on_step`` for each step, ``on_finish``.
    **fitting
        Deprecated: ``select(models, X, y, ...)`` with the fitting arguments of
        :func:`bayescomp.select_models` still fits, with a ``FutureWarning``.

    Returns
    -------
    Selection

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import bayescomp as bc
    >>> rng = np.random.default_rng(0)
    >>> base = 0.80 + 0.01 * rng.standard_normal(20)
    >>> f = pd.DataFrame({"model": np.repeat(["lr", "gbm"], 20),
    ...                   "split": np.tile(np.arange(20), 2),
    ...                   "accuracy": np.r_[base, base + 0.03 + 0.005 * rng.standard_normal(20)]})
    >>> sel = select(bc.Scores.from_frame(f, test_fraction=0.1), baseline="lr", rope=0.01)
    >>> sel.champion, sel.steps["decision"].tolist()
    ('gbm', ['promote'])
    """
    if is_predictions(table):  # item-level predictions of several models on one test set
        return _select_predictions(
            table,
            baseline=baseline,
            rope=rope,
            gamma=gamma,
            rule=rule,
            metric=metric,
            models=models,
            order=order,
            higher_is_better=higher_is_better,
            random_state=random_state,
            options=_prediction_options(compare_options, fitting),
        )
    if (
        X is not None
        or y is not None
        or (scores is None and table is not None and _names_models(table))
    ):
        return _fit_and_select(
            table,
            X,
            y,
            baseline=baseline,
            rope=rope,
            gamma=gamma,
            rule=rule,
            metric=metric,
            dataset=dataset,
            order=order,
            higher_is_better=higher_is_better,
            method=method,
            compare_options=compare_options,
            guardrails=guardrails,
            random_state=random_state,
            tracker=tracker,
            **fitting,
        )
    if scores is not None and table is not None:
        warnings.warn(
            "select(models, scores=...) is deprecated: pass the table first and the "
            "candidates as models=, e.g. select(scores, models=[...], ...)",
            FutureWarning,
            stacklevel=2,
        )
        models = table
    scores = scores if scores is not None else table
    if scores is None:
        raise ValueError(
            "pass a scores table (a bayescomp.Scores or a CSV path), e.g. "
            "select(scores, baseline=..., rope=...); to fit models first use "
            "bayescomp.select_models(models, X, y, ...)"
        )
    metric = _legacy_fitting(fitting, metric)
    settings, decide = checked_settings(
        baseline=baseline,
        rope=rope,
        gamma=gamma,
        order=order,
        max_repeats=0,
        method=method,
        random_state=random_state,
        compare_options=compare_options,
        guardrails=guardrails,
    )
    return _select_table(
        models,
        scores,
        metric=metric,
        dataset=dataset,
        higher_is_better=higher_is_better,
        settings=settings,
        tracker=tracker,
        rule=rule,
        **decide,
    )


def _select_predictions(
    table: Any,
    *,
    rule: Any,
    metric: str | None,
    models: Any,
    options: dict[str, Any] | None,
    **kwargs: Any,
) -> Selection:
    """``select`` on a predictions table (``y_true`` and a column per model): the
    selection of :mod:`bayescomp.studies.select_predictions` (rule ``"family"`` by default);
    ``compare_options``
    carry ``cluster``, ``item``, ``sample``, ``threshold``, ``draws``."""
    from bayescomp.studies.select_predictions import select_predictions

    if callable(rule) or rule not in ("family", "champion_challenger"):
        raise ValueError(
            f"a predictions table is selected by rule 'family' (the default) or "
            f"'champion_challenger'; got rule={rule!r}"
        )
    return select_predictions(
        table,
        rule=rule,
        metric=metric or "accuracy",
        models=list(models) if models is not None else None,
        **kwargs,
        **(options or {}),
    )


#: keywords of a predictions table's comparisons, also accepted by ``select`` itself
_PREDICTION_OPTIONS = ("threshold", "cluster", "item", "sample", "draws", "y_true")


def _prediction_options(options: dict[str, Any] | None, given: dict[str, Any]) -> dict[str, Any]:
    """``compare_options`` and the keywords of a predictions table given to ``select``
    directly (``threshold=0.5``), which were dropped without a word: any other keyword is
    refused, as on a scores table."""
    unknown = sorted(set(given) - set(_PREDICTION_OPTIONS))
    if unknown:
        raise TypeError(
            f"select() on a predictions table got unexpected keyword argument(s) {unknown}; "
            f"it takes {', '.join(_PREDICTION_OPTIONS)} (or compare_options=)"
        )
    options = dict(options or {})
    twice = sorted(set(given) & set(options))
    if twice:
        raise TypeError(f"{twice} given both as keyword and in compare_options; give it once")
    return {**options, **given}


def _names_models(table: Any) -> bool:
    """A first argument that is not a table: candidates to fit (the old signature)."""
    from bayescomp.scores.table import Scores

    if isinstance(table, Scores):
        return False
    return not (isinstance(table, str | Path) and Path(table).suffix.lower() == ".csv")


def _fit_and_select(models: Any, X: Any, y: Any, **kwargs: Any) -> Selection:
    from bayescomp.studies.fitted import select_models

    warnings.warn(
        "select(models, X, y, ...) fits the models; that is now "
        "bayescomp.select_models(models, X, y, ...) (same arguments), and "
        "select(scores, ...) decides over a scores table",
        FutureWarning,
        stacklevel=3,
    )
    return select_models(models, X, y, **kwargs)


def _legacy_fitting(fitting: dict[str, Any], metric: str | None) -> str | None:
    """The fitting arguments a scores table cannot use: refused, or ignored with a warning
    (``scoring=`` names the metric, as it used to)."""
    unknown = sorted(set(fitting) - set(_FITTING))
    if unknown:
        raise TypeError(f"select() got unexpected keyword argument(s) {unknown}")
    if fitting.get("store") is not None:
        raise ValueError(
            "store= keeps fits; with precomputed scores nothing is fitted — drop store="
        )
    if fitting.get("max_repeats"):
        raise ValueError(
            "max_repeats adds repetitions by fitting; it cannot be used with "
            "precomputed scores (use bayescomp.select_models)"
        )
    scoring = fitting.get("scoring")
    if metric is None and isinstance(scoring, str):
        warnings.warn(
            "select(scores, scoring=...) is deprecated: name the metric column with metric=",
            FutureWarning,
            stacklevel=3,
        )
        return scoring
    return metric


def checked_settings(
    *,
    baseline: str,
    rope: float,
    gamma: float,
    order: str,
    max_repeats: int,
    method: str,
    random_state: int,
    compare_options: Mapping[str, Any] | None,
    guardrails: Mapping[str, float] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Check the decision arguments once; return the selection's settings (what its
    identity and its record say) and the arguments of :func:`compare_step`."""
    from bayescomp.core.checks import check_gamma, check_number, check_scalar_rope

    gamma = check_gamma(gamma)
    rope = check_scalar_rope(rope)
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    check_number(max_repeats, "max_repeats", integer=True, min_val=0)
    settings = dict(
        baseline=baseline,
        rope=rope,
        gamma=gamma,
        order=order,
        max_repeats=int(max_repeats),
        method=method,
        random_state=random_state,
    )
    decide = dict(
        rope=rope,
        gamma=gamma,
        method=method,
        options={"random_state": random_state, **(compare_options or {})},
    )
    if guardrails:
        decide["options"]["guardrails"] = settings["guardrails"] = dict(guardrails)
    return settings, decide


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

    text = json.dumps(
        {"settings": dict(settings), "models": dict(models)}, sort_keys=True, default=repr
    )
    return hashlib.sha256(text.encode()).hexdigest()


def score_means(table: Scores, models: list[str], metric: str) -> dict[str, float]:
    """Mean score of each model on the design (NaN-skipping: failed fits are left out)."""
    f = table.to_frame()
    if "block" in f.columns:
        f = f[f["block"] == 0]
    return {m: float(f.loc[f["model"] == m, metric].mean()) for m in models}


def _table_models(models: Any, scores: Scores, baseline: str) -> list[str]:
    if models is None:
        names = scores.models
    elif isinstance(models, Mapping) or (
        isinstance(models, Iterable) and not isinstance(models, str | Path)
    ):
        names = [str(m) for m in models]
    else:
        raise ValueError(
            "with a scores table, models must be None (every model of the table) "
            "or a list of model names"
        )
    for m in names:
        scores._check_model(m)
    if baseline not in names:
        raise ValueError(f"the baseline {baseline!r} is not among the models {names}")
    return names


def _select_table(
    models: Any,
    scores: Any,
    *,
    metric: str | None,
    dataset: str | None,
    higher_is_better: bool | None,
    settings: dict[str, Any],
    tracker: SelectionTracker | None,
    rule: str | Rule,
    rope: float,
    gamma: float,
    method: str,
    options: dict[str, Any],
) -> Selection:
    import pandas as pd

    from bayescomp.core.orientation import resolve_direction
    from bayescomp.decision.walk import compare_step, order_challengers, recommend
    from bayescomp.scores.table import Scores

    if isinstance(scores, str | Path):
        scores = Scores.read_csv(scores)
    if not isinstance(scores, Scores):
        raise ValueError(
            f"scores must be a bayescomp.Scores or a CSV path, got {type(scores).__name__}"
        )
    metric = scores._check_metric(metric)
    hib = resolve_direction(metric, higher_is_better)
    names = _table_models(models, scores, baseline := settings["baseline"])
    if dataset is not None:
        scores = scores.subset(datasets=[dataset])
    scores = scores.subset(models=names)
    means = score_means(scores, names, metric)
    from bayescomp.decision.family_walk import family_note, resolve_rule

    rule_fn, settings["rule"] = resolve_rule(rule, len(scores.datasets))
    settings.update(
        metric=metric,
        scoring=[metric],
        cv="precomputed scores",
        design_fingerprint=_table_digest(scores),
    )
    if tracker is not None:
        tracker.on_start(
            selection_identity(settings, dict.fromkeys(names, "precomputed")), settings
        )
    challengers = order_challengers(
        [m for m in names if m != baseline], settings["order"], means, hib
    )
    cmp = partial(
        compare_step, metric=metric, rope=rope, gamma=gamma, hib=hib, method=method, options=options
    )
    w = rule_fn(scores, baseline, challengers, metric=metric, compare=cmp, max_repeats=0)
    if tracker is not None:
        for i, row in enumerate(w.steps.to_dict("records")):
            tracker.on_step(row, w.results[i], w.paired[i])
    cand = pd.DataFrame(
        {
            "model": names,
            "description": "",
            "path": None,
            "nested": False,
            "mean": [means[m] for m in names],
            "status": "precomputed",
        }
    )
    sel = Selection(
        champion=w.champion,
        baseline=baseline,
        metric=metric,
        rope=rope,
        gamma=gamma,
        steps=w.steps,
        recommendation=family_note(
            recommend(
                scores,
                baseline,
                w.champion,
                w.steps,
                compare=cmp,
                metric=metric,
                rope=rope,
                gamma=gamma,
            ),
            w.steps,
            settings["rule"],
            gamma,
        ),
        scores=scores,
        results=w.results,
        paired=w.paired,
        candidates=cand,
        skipped={},
        fits_performed=0,
        fits_loaded=0,
        fits_total=0,
        settings=settings,
        base_scores=scores,
    )
    if tracker is not None:
        tracker.on_finish(sel)
    return sel


def _table_digest(scores: Scores) -> str:
    """SHA-256 of a scores table's content (the design fingerprint of precomputed scores)."""
    import hashlib

    import pandas as pd

    f = scores.to_frame()
    return hashlib.sha256(
        pd.util.hash_pandas_object(f, index=False).to_numpy().tobytes()
    ).hexdigest()
