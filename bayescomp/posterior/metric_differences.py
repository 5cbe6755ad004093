"""Several metrics from a scores table: one ROPE and orientation per metric, and the
oriented per-split difference matrix that :mod:`bayescomp.posterior.multivariate` models."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_rope
from bayescomp.core.margins import Absolute, Margin, parse_margin

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.scores.table import Scores

#: timing columns a scores table keeps as bookkeeping, usable as guardrails
TIMINGS = ("fit_time", "score_time")


def joint_ropes(metrics: Sequence[str], rope: Any) -> list[Any]:
    """One ROPE per metric, as given (checked by the request): from a dict ``{metric:
    half-width}`` (missing ones are 0), a sequence in the order of ``metrics``, or a single
    margin (only for one metric or 0)."""
    if isinstance(rope, Mapping):
        unknown = [m for m in rope if m not in metrics]
        if unknown:
            raise ValueError(
                f"rope names metric(s) {unknown} that are not compared; the "
                f"metrics are {list(metrics)}"
            )
        return [rope.get(m, 0.0) for m in metrics]
    if isinstance(rope, str | Margin) or np.ndim(rope) == 0:
        one = parse_margin(rope)
        if isinstance(one, Absolute) and float(one) != 0.0 and len(metrics) > 1:
            raise ValueError(
                f"one rope={float(one):g} for {len(metrics)} metrics on different scales is "
                "ambiguous; pass a dict, e.g. rope={"
                + ", ".join(f"{m!r}: ..." for m in metrics)
                + "}"
            )
        return [one] + [one if isinstance(one, Absolute) else 0.0] * (len(metrics) - 1)
    arr = check_rope(rope)
    if arr.shape != (len(metrics),):
        raise ValueError(f"rope has {arr.size} values for {len(metrics)} metrics {list(metrics)}")
    return arr.astype(float).tolist()


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
        paired = scores.paired(baseline, candidate, m, dataset)
        if splits is None:
            splits, rho = paired["split"].to_numpy(), float(paired.attrs["rho"])
        d = paired["candidate"].to_numpy(float) - paired["baseline"].to_numpy(float)
        cols.append(d if hib else -d)
    return np.column_stack(cols), rho
