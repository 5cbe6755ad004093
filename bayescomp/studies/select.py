"""Champion/challenger selection: promote only what is really better.

:func:`select` is a pure function of a table, like :func:`bayescomp.compare` and
:func:`bayescomp.rank`: a :class:`~bayescomp.scores.table.Scores` table (per-split scores
of cross-validated models) or a predictions table (item-level predictions of several
models on one test set).  A *rule* (:data:`bayescomp.decision.family_walk.RULES`) walks
the challengers, each step one posterior of ``challenger - champion`` from
:func:`bayescomp.compare` decided by the rule of :func:`bayescomp.decide`.  Nothing is
fitted here; :func:`bayescomp.select_models` cross-validates the candidates and walks the
same rule through :func:`walk_selection`, the one place a :class:`Selection` is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescomp.core.checks import check_number
from bayescomp.decision.walk import (
    ORDERS,
    Rule,
    blocked_scores,
    charge_fits,
    order_challengers,
    recommend,
)
from bayescomp.studies.selection import (
    Selection,
    SelectionSetup,
    format_steps,
    listed_candidates,
    merge_warnings,
)

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import SelectionTracker
    from bayescomp.decision.steps import Steps
    from bayescomp.scores.table import Scores

__all__ = ["Selection", "format_steps", "select", "walk_selection"]


def select(
    table: Any,
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
    compare_options: Mapping[str, Any] | None = None,
    tracker: SelectionTracker | None = None,
) -> Selection:
    """Champion/challenger selection over a table: promote only what is better beyond
    the ROPE.

    With ``rule="family"`` (the default) every challenger is compared with the baseline;
    those certified better beyond the ROPE for the whole selection that hold every
    guardrail can be promoted, and the one with the largest expected gain is
    (:mod:`bayescomp.decision.family`): the probability of promoting a model that is not
    better beyond the ROPE stays at most ``1 - gamma`` for the whole selection, whatever
    the number of challengers (``docs/family.md``).
    With ``rule="champion_challenger"``, starting from ``baseline`` as champion, each
    challenger (in ``order``) is compared with the current champion; it becomes champion
    when ``P(challenger - champion > rope) >= gamma``: each step keeps its rate, the
    selection does not.  Nothing is fitted: to cross-validate candidates and select in
    one call, use :func:`bayescomp.select_models`.

    Parameters
    ----------
    table : Scores, DataFrame or CSV path of scores, or DataFrame of predictions
        Per-split scores of the candidates (a frame as :meth:`Scores.from_frame` reads it); or
        item-level predictions on one test set
        (``y_true`` and one column per model, docs "One test set").
    baseline : str
        The model in production: the first champion.
    rope : float, str or a margin (Absolute, Relative, Standardized)
        Half-width of the region of practical equivalence on the metric's scale, or a
        margin of :mod:`bayescomp.core.margins` (``"1%"``, ``"0.1sd"``) resolved by each
        step's :func:`bayescomp.compare`.
    gamma : float, default 0.95
        Posterior probability needed to decide, in (0.5, 1).
    rule : str or callable, default "family"
        ``"family"`` or ``"champion_challenger"`` (with several datasets ``"family"``
        decides per step, with a warning), or a callable
        ``rule(scores, baseline, challengers, *, metric, compare, max_repeats)``
        (:mod:`bayescomp.decision.walk`).
    metric : str, optional
        The metric to decide on (the table's only metric when omitted; ``"accuracy"``
        for predictions with labels).
    models : list of str, optional
        The candidates including the baseline (default: every model of the table).
    dataset : str, optional
        The dataset of a multi-dataset scores table to decide on (default: all of them,
        through the hierarchical model).
    order : {"given", "name", "mean"}
        Challenger order: as given, by name, or by mean score (best first).
    higher_is_better : bool, optional
        Orientation of the metric (looked up when omitted).
    compare_options : dict, optional
        Keyword arguments of each step's :func:`bayescomp.compare`: ``method``,
        ``random_state`` (default 0: the sampler's seed), ``guardrails`` (``{metric:
        rope}`` the challenger must not be worse on, ``docs/guardrails.md``), ``draws``;
        for predictions also ``y_true``, ``cluster``, ``item``, ``sample``, ``threshold``.
    tracker : SelectionTracker, optional
        Told about the selection: ``on_start``, ``on_step`` for each step, ``on_finish``.

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
    from bayescomp.decision.family_walk import resolve_rule
    from bayescomp.posterior.predictions import is_predictions

    options = {"random_state": 0, **(compare_options or {})}
    resolve_rule(rule, variance=options.get("variance", "split"))  # said before any work
    check_walk(order, 0)
    if is_predictions(table, options.get("y_true", "y_true")):
        from bayescomp.studies.select_predictions import predictions_walk

        options.pop("method", None)
        walk = predictions_walk(
            table, models, metric, higher_is_better, baseline, rope, gamma, options
        )
    else:
        walk = _scores_walk(
            table, models, metric, dataset, higher_is_better, baseline, rope, gamma, options
        )
    rule_fn, rule_name = resolve_rule(rule, len(walk["table"].datasets))
    setup = SelectionSetup(walk.pop("request"), baseline, order, 0, rule_name, walk.pop("design"))
    trackers = [tracker] if tracker is not None else []
    for t in trackers:
        t.on_start(setup.identity(dict.fromkeys(walk["names"], "precomputed")), setup.to_dict())
    sel = walk_selection(rule=rule_fn, setup=setup, trackers=trackers, **walk)
    for t in trackers:
        t.on_finish(sel)
    return sel


def check_walk(order: str, max_repeats: int) -> None:
    """The walk's own settings checked: the challengers' order and the repetitions it adds."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    check_number(max_repeats, "max_repeats", integer=True, min_val=0)


def score_means(table: Scores, models: list[str], metric: str) -> dict[str, float]:
    """Mean score of each model on the design (NaN-skipping: failed fits are left out)."""
    f = blocked_scores(table)
    f = f[f["block"] == 0]
    return {m: float(f.loc[f["model"] == m, metric].mean()) for m in models}


def _scores_walk(
    scores: Any,
    models: Any,
    metric: str | None,
    dataset: str | None,
    higher_is_better: bool | None,
    baseline: str,
    rope: Any,
    gamma: float,
    options: dict[str, Any],
) -> dict[str, Any]:
    """What :func:`walk_selection` needs to walk a scores table, its request checked and
    its design."""
    import joblib
    import pandas as pd

    from bayescomp.decision.steps import ScoreSteps
    from bayescomp.posterior.compare import as_scores, scores_request
    from bayescomp.scores.table import Scores

    slices = options.get("slices")
    if isinstance(scores, str | Path):
        scores = Scores.read_csv(scores, slice_col=slices or "slice")
    if not isinstance(scores, Scores | pd.DataFrame):
        raise ValueError(
            "select takes a bayescomp.Scores, a scores DataFrame or CSV path, or a predictions "
            f"table (y_true and a column per model), got {type(scores).__name__}; to fit "
            "models first use bayescomp.select_models(models, X, y, ...)"
        )
    scores, request = scores_request(
        as_scores(scores, slices),  # a scores frame, as compare and rank take it
        metric=metric,
        rope=rope,
        gamma=gamma,
        higher_is_better=higher_is_better,
        **options,
    )
    metric = str(request.metric)
    names = _table_models(models, scores, baseline)
    if dataset is not None:
        scores = scores.subset(datasets=[dataset])
    scores = scores.subset(models=names)
    means = score_means(scores, names, metric)
    # the design's fingerprint: a hash of the table's values
    table_hash = joblib.hash(pd.util.hash_pandas_object(scores.to_frame(), index=False).to_numpy())
    design = dict(scoring=[metric], cv="precomputed scores", design_fingerprint=table_hash)
    return dict(
        request=request,
        design=design,
        table=scores,
        names=names,
        means=means,
        compare=ScoreSteps(request),
        candidates=listed_candidates(names, means, "precomputed"),
    )


def walk_selection(
    *,
    table: Scores,
    names: list[str],
    means: Mapping[str, float],
    compare: Steps,
    rule: Rule,
    setup: SelectionSetup,
    trackers: list[Any],
    column: str | None = None,
    fit: Callable[..., Scores] | None = None,
    **fields: Any,
) -> Selection:
    """Walk ``rule`` over ``table`` and build the :class:`Selection`: the one walk of every
    selection (scores, predictions, fitted).

    With ``fit`` (a fitted selection), while the rule names models *pending* one more
    block of repetitions, ``fit(models, block, table)`` fits it (the table it returns
    counts that call's fits in its ``attrs``) and the rule walks again; each step is told
    to the trackers as soon as it is final.  ``column`` is the table's
    column the rule reads when it is not ``metric`` (a predictions table's predictions);
    ``means``, each model's mean score, order the challengers (``order="mean"``).
    """
    from bayescomp.decision.family_walk import family_note

    baseline, metric = setup.baseline, str(setup.request.metric)
    challengers = order_challengers(
        [m for m in names if m != baseline],
        setup.order,
        means,
        bool(setup.request.higher_is_better),
    )
    blocks = [table.attrs] if fit is not None else []  # each fitting call's counts
    reported = 0
    while True:
        w = rule(
            table,
            baseline,
            challengers,
            metric=column or metric,
            compare=compare,
            max_repeats=setup.max_repeats,
        )
        steps = charge_fits(w.steps, table, baseline) if fit is not None else w.steps
        final = len(steps) if not w.pending else int(w.final or 0)
        for i in range(reported, final):
            for t in trackers:
                t.on_step(steps.iloc[i], w.results[i], w.paired[i])
        reported = max(reported, final)
        if not w.pending or fit is None:
            break
        table = fit(list(w.pending), _next_block(table, w.pending), table)
        if not table.attrs["fits_performed"] + table.attrs["fits_loaded"]:
            break
        blocks.append(table.attrs)
    base = _base(table)
    rec = recommend(
        base,
        baseline,
        w.champion,
        steps,
        compare=compare,
        metric=metric,
    )
    return Selection(
        champion=w.champion,
        setup=setup,
        steps=steps,
        recommendation=family_note(rec, steps, setup.rule, setup.request.gamma),
        scores=table,
        results=w.results,
        paired=w.paired,
        fits_performed=sum(b.get("fits_performed", 0) for b in blocks),
        fits_loaded=sum(b.get("fits_loaded", 0) for b in blocks),
        fit_warnings=merge_warnings([w for b in blocks for w in b.get("fit_warnings", ())]),
        fits_total=len(table) if fit is not None else 0,
        base_scores=base,
        **{"skipped": {}, **fields},
    )


def _next_block(table: Scores, models: Iterable[str]) -> int:
    f = blocked_scores(table)
    return 1 + int(min(f.loc[f["model"] == m, "block"].max() for m in models))


def _base(table: Scores) -> Scores:
    """Every model on the design (block 0): complete and paired, ready for ``rank``."""
    from bayescomp.scores.table import Scores

    f = table.to_frame()
    if "block" not in f.columns:
        return table
    return Scores(f[f["block"] == 0].drop(columns="block"), metrics=table.metrics)


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
    if len(set(names)) < 2:
        raise ValueError(
            f"the table holds only the baseline {baseline!r}: there is no challenger to select "
            "from; add the candidates' scores"
        )
    return names
