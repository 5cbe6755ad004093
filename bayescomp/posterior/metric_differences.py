"""Several metrics from a scores table: one ROPE and orientation per metric, and the
oriented per-split difference matrix that :mod:`bayescomp.posterior.multivariate` models."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_rope
from bayescomp.core.margins import Absolute, as_margin
from bayescomp.core.orientation import resolve_direction

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.scores.table import Scores

#: timing columns a scores table keeps as bookkeeping, usable as guardrails
TIMINGS = ("fit_time", "score_time")


def resolve_ropes(metrics: Sequence[str], rope: Any) -> list[float]:
    """One ROPE per metric from a dict ``{metric: half-width}`` (missing ones are 0), a
    sequence in the order of ``metrics``, or a single number (only for one metric or 0)."""
    if isinstance(rope, Mapping):
        unknown = [m for m in rope if m not in metrics]
        if unknown:
            raise ValueError(
                f"rope names metric(s) {unknown} that are not compared; the "
                f"metrics are {list(metrics)}"
            )
        where = "a guardrail"
        return [
            float(as_margin(rope.get(m, 0.0), metric=m, takes=(Absolute,), where=where))
            for m in metrics
        ]
    arr = check_rope(rope)
    if arr.ndim == 0:
        if float(arr) != 0.0 and len(metrics) > 1:
            raise ValueError(
                f"one rope={float(arr):g} for {len(metrics)} metrics on different scales is "
                "ambiguous; pass a dict, e.g. rope={"
                + ", ".join(f"{m!r}: ..." for m in metrics)
                + "}"
            )
        return [float(arr)] * len(metrics)
    if arr.shape != (len(metrics),):
        raise ValueError(f"rope has {arr.size} values for {len(metrics)} metrics {list(metrics)}")
    return arr.astype(float).tolist()


def resolve_directions(metrics: Sequence[str], higher_is_better: Any) -> list[bool]:
    """Orientation per metric: a dict (missing ones from the registry), one bool for the
    primary metric, or None (the registry for all)."""
    given = (
        higher_is_better
        if isinstance(higher_is_better, Mapping)
        else {metrics[0]: higher_is_better}
    )
    out = []
    for m in metrics:
        try:
            out.append(resolve_direction(m, given.get(m)))
        except ValueError:
            raise ValueError(
                f"unknown metric {m!r}: bayescomp cannot tell whether higher is better; pass "
                f"higher_is_better={{{m!r}: True or False}}"
            ) from None
    return out


def with_timings(scores: Scores, metrics: Sequence[str]) -> Scores:
    """The table with its timing columns (``fit_time``, ``score_time``) usable as metrics
    when they are asked for (a scores table keeps them as bookkeeping)."""
    from bayescomp.scores.table import Scores

    extra = [m for m in metrics if m in TIMINGS and m not in scores.metrics]
    if not extra:
        return scores
    frame = scores.to_frame()
    missing = [m for m in extra if m not in frame.columns]
    if missing:
        raise ValueError(
            f"the table has no {missing} column; timings are recorded by "
            "cross_validate_paired, select and Scores.from_cross_validate"
        )
    return Scores(frame, metrics=[*scores.metrics, *extra], design=scores.design)


def difference_matrix(
    scores: Scores,
    baseline: str,
    candidate: str,
    metrics: Sequence[str],
    dataset: str,
    directions: Sequence[bool],
) -> tuple[np.ndarray, float]:
    """Oriented per-split differences, one column per metric, on the shared splits."""
    cols, splits, rho = [], None, 0.0
    for m, hib in zip(metrics, directions, strict=True):
        paired = scores.paired(baseline, candidate, scores._check_metric(m), dataset)
        if splits is None:
            splits, rho = paired["split"].to_numpy(), float(paired.attrs["rho"])
        d = paired["candidate"].to_numpy(float) - paired["baseline"].to_numpy(float)
        cols.append(d if hib else -d)
    return np.column_stack(cols), rho
