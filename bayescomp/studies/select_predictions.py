"""Champion/challenger selection over several models' predictions on one holdout.

Every step compares a challenger with a champion on the same items by
:func:`~bayescomp.posterior.predictions.compare_predictions` (clusters and repeated samples
honoured) and decides by the one rule.  Two rules, as for score tables:

``"family"`` (default)
    Every challenger against the baseline; only the best can be promoted, and only if it
    is still better beyond the ROPE given that it was selected as the best
    (:mod:`bayescomp.studies.predictions_family`): the false-promotion rate of the whole
    selection stays at most ``1 - gamma`` however many challengers there are.
``"champion_challenger"``
    Each challenger against the current champion, promoted on *promote*; each step keeps
    its rate, the selection does not.

The result is the same :class:`~bayescomp.studies.selection.Selection` as a selection over
scores, so its summary, report and JSON work unchanged; its ``scores`` hold the per-item
scores (the items play the role of splits).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.decision.family_walk import FAMILY_COLUMNS, family_note
from bayescomp.decision.walk import (
    PAIRED_COLUMNS,
    SCORE_COLUMNS,
    STEP_COLUMNS,
    order_challengers,
    step_row,
)
from bayescomp.posterior.holdout_data import ITEMWISE, item_scores, resolve
from bayescomp.posterior.predictions import compare_predictions, prediction_models
from bayescomp.studies.predictions_family import family_decisions, joint_item_differences

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.studies.selection import Selection


def _item_scores(
    predictions: pd.DataFrame,
    models: list[str],
    metric: str,
    columns: dict[str, Any],
    threshold: float | None,
) -> pd.DataFrame:
    """Per-item score of every model (per-item predictions for a whole-set metric), tidy."""
    import pandas as pd

    y = None if columns["y_true"] is None else predictions[columns["y_true"]].to_numpy()
    item = (
        np.arange(len(predictions))
        if columns["item"] is None
        else pd.factorize(predictions[columns["item"]], sort=True)[0]
    )
    frames = []
    for m in models:
        values = predictions[m].to_numpy()
        per_row = (
            item_scores(metric, y, values, threshold)
            if y is not None and metric in ITEMWISE
            else np.asarray(values, dtype=float)
        )
        per_item = pd.Series(per_row).groupby(item).mean()
        frames.append(
            pd.DataFrame(
                {
                    "dataset": "holdout",
                    "model": m,
                    "split": per_item.index.to_numpy(),
                    # one item per "split": independent, rho = 1 / n_items
                    "n_train": per_item.size - 1,
                    "n_test": 1,
                    metric: per_item.to_numpy(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def select_predictions(
    predictions: pd.DataFrame,
    *,
    baseline: str,
    rope: float,
    gamma: float = 0.95,
    metric: str | None = "accuracy",
    models: list[str] | None = None,
    y_true: str | None = "y_true",
    cluster: str | None = None,
    item: str | None = None,
    sample: str | None = None,
    higher_is_better: bool | None = None,
    threshold: float | None = None,
    order: str = "given",
    rule: str = "family",
    draws: int = 4000,
    random_state: int = 0,
) -> Selection:
    """Champion/challenger selection from item-level predictions on one test set.

    Parameters
    ----------
    predictions : DataFrame
        ``y_true``, one column per model, optional cluster/item/sample columns.
    baseline : str
        The model in production: the first champion.
    rope, gamma : float
        The ROPE half-width and the decision threshold of every step.
    metric, y_true, cluster, item, sample, higher_is_better, threshold, draws
        As in :func:`~bayescomp.posterior.predictions.compare_predictions`.
    models : list of str, optional
        The candidates including the baseline (default: every model column).
    order : {"given", "name", "mean"}
    rule : {"family", "champion_challenger"}, default "family"
        ``"family"`` keeps the false-promotion rate of the whole selection at most
        ``1 - gamma`` (module docstring); ``"champion_challenger"`` only each step's.
    random_state : int
        Seed of the posterior draws (each step gets its own stream).

    Returns
    -------
    Selection

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 600)
    >>> t = pd.DataFrame({"y_true": y, **{m: np.where(rng.random(600) < acc, y, 1 - y)
    ...                   for m, acc in (("old", .80), ("same", .80), ("new", .88))}})
    >>> sel = select_predictions(t, baseline="old", rope=0.01)
    >>> sel.champion, sel.steps["decision"].tolist()
    ('new', ['inconclusive', 'promote'])
    >>> bool(sel.steps["p_selective"].iloc[1] < 0.05)
    True
    """
    import pandas as pd

    from bayescomp.scores.table import Scores
    from bayescomp.studies.selection import Selection

    columns = {"y_true": y_true, "cluster": cluster, "item": item, "sample": sample}
    names = prediction_models(predictions, **columns, models=models)
    if baseline not in names or len(names) < 2:
        raise ValueError(f"a selection needs {baseline!r} and a challenger; models: {names}")
    name, hib = resolve(metric, predictions[y_true] if y_true else None, higher_is_better)
    root = np.random.SeedSequence(random_state)  # one child stream per posterior, in order

    def compare(champion: str, challenger: str) -> tuple[Any, Any]:
        res = compare_predictions(
            predictions,
            champion,
            challenger,
            metric=metric,
            rope=rope,
            higher_is_better=higher_is_better,
            threshold=threshold,
            draws=draws,
            random_state=np.random.default_rng(root.spawn(1)[0]),
            **columns,
        )
        return res, res.decision(gamma)

    first = {m: compare(baseline, m)[0] for m in names if m != baseline}
    means = {m: r.candidate_score for m, r in first.items()}
    means[baseline] = next(iter(first.values())).baseline_score
    if rule not in ("family", "champion_challenger"):
        raise ValueError(
            f"rule must be 'family' (keeps the false-promotion rate of the whole "
            f"selection) or 'champion_challenger' (each step's only); got {rule!r}"
        )
    challengers = order_challengers([m for m in names if m != baseline], order, means, hib)
    # a whole-set metric (AUC, F1) has no per-item score: the table holds the predictions
    column = name if y_true is None or name in ITEMWISE else f"{name}_prediction"
    scores = Scores.from_frame(
        _item_scores(predictions, names, name, columns, threshold).rename(columns={name: column}),
        metrics=[column],
    )
    walk = _family_walk if rule == "family" else _stepwise_walk
    champion, rows, results = walk(
        predictions,
        baseline,
        challengers,
        first,
        compare,
        gamma,
        rope,
        name,
        hib,
        dict(columns, threshold=threshold, draws=draws, seed=root.spawn(1)[0]),
    )
    paired = [
        scores.paired(r["champion"], r["challenger"], column).rename(
            columns={"baseline": "champion", "candidate": "challenger"}
        )[PAIRED_COLUMNS]
        for r in rows
    ]
    columns_out = STEP_COLUMNS[:3] + SCORE_COLUMNS + STEP_COLUMNS[3:]
    if rule == "family":
        columns_out += FAMILY_COLUMNS
    steps = pd.DataFrame(rows, columns=columns_out)
    rec = _recommend(baseline, champion, first, gamma, rope, name)
    return Selection(
        champion=champion,
        baseline=baseline,
        metric=name,
        rope=rope,
        gamma=gamma,
        steps=steps,
        recommendation=family_note(rec, steps, rule, gamma),
        scores=scores,
        results=results,
        paired=paired,
        candidates=_candidates(names, means),
        skipped={},
        fits_performed=0,
        fits_loaded=0,
        fits_total=0,
        settings={
            "baseline": baseline,
            "rope": rope,
            "gamma": gamma,
            "metric": name,
            "order": order,
            "rule": rule,
            "cv": "one test set (item-level predictions)",
            "cluster": cluster,
            "item": item,
            "random_state": random_state,
        },
        base_scores=scores,
    )


def _candidates(names: list[str], means: dict[str, float]) -> pd.DataFrame:
    """The Selection's candidates table: every model column, scored on the test set."""
    import pandas as pd

    return pd.DataFrame(
        {
            "model": names,
            "description": "",
            "path": None,
            "nested": False,
            "mean": [means[m] for m in names],
            "status": "predictions",
        }
    )


def _row(step: int, champion: str, res: Any, d: Any, reason: str) -> dict[str, Any]:
    return step_row(
        step,
        champion,
        res.candidate_name,
        res,
        d,
        0,
        res.n_items,
        0,
        reason,
        (res.baseline_score, res.candidate_score),
    )


def _stepwise_walk(
    predictions: Any,
    baseline: str,
    challengers: list[str],
    first: dict[str, Any],
    compare: Any,
    gamma: float,
    *_: Any,
) -> tuple[str, list[dict[str, Any]], list[Any]]:
    """``"champion_challenger"``: each challenger against the current champion."""
    champion, rows, results = baseline, [], []
    for step, challenger in enumerate(challengers, start=1):
        res, d = (
            (first[challenger], first[challenger].decision(gamma))
            if champion == baseline
            else compare(champion, challenger)
        )
        rows.append(_row(step, champion, res, d, d.reason))
        results.append(res)
        if d.outcome == "promote":
            champion = challenger
    return champion, rows, results


def _family_walk(
    predictions: Any,
    baseline: str,
    challengers: list[str],
    first: dict[str, Any],
    compare: Any,
    gamma: float,
    rope: float,
    metric: str,
    hib: bool,
    columns: dict[str, Any],
) -> tuple[str, list[dict[str, Any]], list[Any]]:
    """``"family"``: every challenger against the baseline, the winner's selective test."""
    y = columns["y_true"]
    item = columns["item"]
    joint = joint_item_differences(
        None if y is None else predictions[y].to_numpy(),
        predictions[baseline].to_numpy(),
        [predictions[c].to_numpy() for c in challengers],
        metric=metric,
        higher_is_better=hib,
        item=None if item is None else predictions[item].to_numpy(),
        cluster=None if columns["cluster"] is None else predictions[columns["cluster"]].to_numpy(),
        threshold=columns["threshold"],
        draws=columns["draws"],
        random_state=np.random.default_rng(columns["seed"]),
    )
    results = [first[c] for c in challengers]
    winner, test, decided = family_decisions(challengers, results, joint, rope, gamma)
    rows = []
    for step, (c, res, (d, why)) in enumerate(
        zip(challengers, results, decided, strict=True), start=1
    ):
        row = _row(step, baseline, res, d, why)
        row["looks"] = 1
        if c == challengers[int(test.winner)]:
            row["p_selective"] = float(test.p_selective)
            row["corrected_gain"] = float(test.corrected_gain)
        rows.append(row)
    return winner or baseline, rows, results


def _recommend(
    baseline: str, champion: str, first: dict[str, Any], gamma: float, rope: float, metric: str
) -> dict[str, Any]:
    """Keep the baseline, or promote the champion (its posterior against the baseline)."""
    if champion == baseline:
        return {
            "action": "keep",
            "champion": baseline,
            "baseline": baseline,
            "text": f"keep {baseline}: no challenger was better beyond the ROPE (±{rope:g}) "
            f"with probability ≥ {gamma:g}",
            "p_better": None,
            "p_left": None,
            "p_rope": None,
            "p_right": None,
            "risk": None,
            "expected_gain": None,
        }
    res = first[champion]
    d = res.decision(gamma)
    return {
        "action": "promote",
        "champion": champion,
        "baseline": baseline,
        "text": f"promote {champion} to replace {baseline}: on the same items "
        f"P(better beyond ±{rope:g}) = {d.p_right:.3f}, expected gain "
        f"{d.expected_gain:+.4g} {metric}, risk P(worse) = {d.risk:.3f}",
        "p_better": res.p_better,
        "p_left": d.p_left,
        "p_rope": d.p_rope,
        "p_right": d.p_right,
        "risk": d.risk,
        "expected_gain": d.expected_gain,
        "direct_decision": d.outcome,
    }
