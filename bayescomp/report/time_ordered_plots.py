"""The posterior of a time-ordered comparison: a mixture of Student-t's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.orientation import difference_label
from bayescomp.report._literal import literal_text
from bayescomp.report.plots import (
    fitted_title,
    new_axes,
    region_title,
    shaded_density,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes


@literal_text
def plot_mixture_posterior(
    res: Any, ax: Axes | None = None, confidence_level: float = 0.95
) -> Axes:
    """Density of ``mu`` (a :class:`~bayescomp.posterior.time_ordered.TimeOrderedResult`),
    the ROPE band, the equal-tailed interval and the three region probabilities."""
    from scipy import stats

    ax = new_axes(ax, (7, 3.6))
    rope = float(res.rope)
    lo_q, hi_q = res.quantile(0.005), res.quantile(0.995)
    lo, hi = min(lo_q, -1.5 * rope), max(hi_q, 1.5 * rope)
    x = np.linspace(lo, hi, 600)
    keep = res.weights > 1e-9
    scale = np.where(res.scale[keep] > 0, res.scale[keep], 1e-12)
    dens = (
        res.weights[keep, None]
        * stats.t.pdf((x[None, :] - res.loc[keep, None]) / scale[:, None], res.df)
        / scale[:, None]
    ).sum(0)
    interval = res.interval(confidence_level)
    name = f"{100 * confidence_level:g}% interval"
    shaded_density(ax, x, dens, rope, interval, name, float(dens.max()))
    ax.set_xlabel(f"{difference_label(res)} ({res.metric or 'score'})")
    ax.set_ylabel("posterior density")
    fitted_title(
        ax,
        region_title(
            res, f"time-ordered windows (n = {res.n}, posterior mean phi = {res.phi_mean:.2f})"
        ),
    )
    return ax
