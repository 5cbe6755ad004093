"""Plots of a joint comparison of several metrics (a primary metric and its guardrails)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.margins import Absolute
from bayescomp.report._literal import literal_text
from bayescomp.report.plots import REGION_COLOURS

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes


@literal_text
def plot_guardrails(res: Any, ax: Any = None, draws: int = 4000) -> Any:
    """Posterior draws of the primary difference (x) against each guardrail's (y).

    One panel per guardrail: the draws in the promotion event (primary better beyond its
    ROPE and every guardrail held) in green, the others in grey, the ROPE limits as
    dashed lines.  ``res`` is a :class:`~bayescomp.posterior.multivariate.MultiMetricResult`;
    ``ax`` is one axes (one guardrail) or a sequence of one per guardrail.  Returns the axes
    (an array of them for several guardrails).
    """
    import matplotlib.pyplot as plt

    k = len(res.metrics) - 1
    if k == 0:
        return res.marginal().plot(ax=ax)
    if ax is None:
        _, axes = plt.subplots(1, k, figsize=(4.2 * k, 3.8), layout="constrained", squeeze=False)
        axes = axes[0]
    else:
        axes = np.atleast_1d(np.asarray(ax, dtype=object))
        if len(axes) != k:
            raise ValueError(f"pass one axes per guardrail ({k}), got {len(axes)}")
    x = res.sample(draws, random_state=0)
    ok = res.joint_event(x)
    for j, a in enumerate(axes, start=1):
        _panel(a, res, x, ok, j)
    a0 = axes[0]
    a0.figure.suptitle(
        f"{res.candidate_name} vs {res.baseline_name}: P(promotion event) = {res.p_joint:.3f}",
        fontsize=10,
    )
    return axes[0] if k == 1 else axes


def _panel(ax: Axes, res: Any, x: np.ndarray, ok: np.ndarray, j: int) -> None:
    ax.scatter(
        x[~ok, 0],
        x[~ok, j],
        s=3,
        alpha=0.25,
        color=REGION_COLOURS[1],
        label="other draws",
        rasterized=True,
    )
    ax.scatter(
        x[ok, 0],
        x[ok, j],
        s=3,
        alpha=0.35,
        color=REGION_COLOURS[2],
        label="promotion event",
        rasterized=True,
    )
    ax.axvline(res.rope[0], color="k", ls="--", lw=1)
    ax.axhline(-res.rope[j], color=REGION_COLOURS[0], ls="--", lw=1)
    ax.axvline(0, color="k", lw=0.5)
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel(f"{res.metrics[0]} gain (primary, ROPE {Absolute(res.half_width).label()})")
    ax.set_ylabel(f"{res.metrics[j]} gain (guardrail, −{res.rope[j]:g} allowed)")
    p_broken = res.p_guardrail_broken(res.metrics[j])
    ax.set_title(f"P({res.metrics[j]} worse beyond ROPE) = {p_broken:.3f}", fontsize=9)
    ax.locator_params(axis="x", nbins=5)
    ax.legend(loc="best", fontsize=7, frameon=False, markerscale=3)
