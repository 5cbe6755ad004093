"""Champion/challenger selection over several models' predictions on one holdout.

Each step compares the challenger with the current champion on the same items by
:func:`~bayescomp.posterior.predictions.compare_predictions` (clusters and repeated samples
honoured) and decides by the one rule; a challenger becomes champion on *promote*.  The
result is the same :class:`~bayescomp.studies.selection.Selection` as a selection over
scores, so its summary, report and JSON work unchanged; its ``scores`` hold the per-item
scores (the items play the role of splits).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.decision.walk import (
    PAIRED_COLUMNS,
    SCORE_COLUMNS,
    STEP_COLUMNS,
    order_challengers,
    step_row,
)
from bayescomp.posterior.holdout_data import ITEMWISE, resolve
from bayescomp.posterior.predictions import compare_predictions, prediction_models

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.studies.selection import Selection


def _item_scores(
    predictions: pd.DataFrame, models: list[str], metric: str, columns: dict[str, Any]
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
            ITEMWISE[metric](y, values)
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
    """
    import pandas as pd

    from bayescomp.scores.table import Scores
    from bayescomp.studies.selection import Selection

    columns = {"y_true": y_true, "cluster": cluster, "item": item, "sample": sample}
    names = list(models) if models is not None else prediction_models(predictions, **columns)
    if baseline not in names:
        raise ValueError(f"the baseline {baseline!r} is not among the models {names}")
    name, hib = resolve(metric, predictions[y_true] if y_true else None, higher_is_better)
    seeds = iter(np.random.SeedSequence(random_state).spawn(len(names) + 1))

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
            random_state=np.random.default_rng(next(seeds)),
            **columns,
        )
        return res, res.decision(gamma)

    first = {m: compare(baseline, m)[0] for m in names if m != baseline}
    means = {
        baseline: next(iter(first.values())).baseline_score if first else np.nan,
        **{m: r.candidate_score for m, r in first.items()},
    }
    challengers = order_challengers([m for m in names if m != baseline], order, means, hib)
    scores = Scores.from_frame(_item_scores(predictions, names, name, columns), metrics=[name])
    champion, rows, results, paired = baseline, [], [], []
    for step, challenger in enumerate(challengers, start=1):
        res, d = (
            (first[challenger], first[challenger].decision(gamma))
            if champion == baseline
            else compare(champion, challenger)
        )
        rows.append(
            step_row(
                step,
                champion,
                challenger,
                res,
                d,
                0,
                res.n_items,
                0,
                d.reason,
                (res.baseline_score, res.candidate_score),
            )
        )
        results.append(res)
        pf = scores.paired(champion, challenger, name)
        paired.append(
            pf.rename(columns={"baseline": "champion", "candidate": "challenger"})[PAIRED_COLUMNS]
        )
        if d.outcome == "promote":
            champion = challenger
    steps = pd.DataFrame(rows, columns=STEP_COLUMNS[:3] + SCORE_COLUMNS + STEP_COLUMNS[3:])
    return Selection(
        champion=champion,
        baseline=baseline,
        metric=name,
        rope=rope,
        gamma=gamma,
        steps=steps,
        recommendation=_recommend(baseline, champion, first, gamma, rope, name),
        scores=scores,
        results=results,
        paired=paired,
        candidates=pd.DataFrame(
            {
                "model": names,
                "description": "",
                "path": None,
                "nested": False,
                "mean": [means[m] for m in names],
                "status": "predictions",
            }
        ),
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
            "cv": "one test set (item-level predictions)",
            "cluster": cluster,
            "item": item,
            "random_state": random_state,
        },
        base_scores=scores,
    )


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
