"""The cluster design effect of a comparison on one test set: the cluster posterior beside the
cluster-blind one (its posterior plot is :func:`bayescomp.report.plots.plot_posterior`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.orientation import difference_label
from bayescomp.report._literal import literal_text
from bayescomp.report.plots import new_axes, rope_band

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes


@literal_text
def plot_design_effect(res: Any, ax: Axes | None = None, level: float = 0.95) -> Axes:
    """The posterior that resamples clusters beside the cluster-blind one, with both HDIs."""

    if res.blind_draws is None:
        raise ValueError("this comparison has no clusters; pass cluster= to see a design effect")
    ax = new_axes(ax, (7, 3.6))
    blind = replace(res, draws=res.blind_draws, blind_draws=None)
    ends = np.array([p.hdi(0.998) for p in (blind, res)])
    lo, hi = min(ends.min(), -1.5 * res.rope), max(ends.max(), 1.5 * res.rope)
    pad = 0.05 * max(hi - lo, 1e-9)
    x = np.linspace(lo - pad, hi + pad, 500)
    for k, (post, colour, name) in enumerate(
        (
            (blind, "#95a5a6", "items resampled (cluster-blind)"),
            (res, "#2c3e50", "clusters resampled"),
        )
    ):
        dens = post.density(x)
        ax.plot(x, dens, color=colour, lw=1.6, label=name)
        ax.fill_between(x, dens, color=colour, alpha=0.15, lw=0)
        y = -0.06 * (k + 1) * float(dens.max())
        ax.plot(post.hdi(level), [y, y], color=colour, lw=3, solid_capstyle="butt")
    rope_band(ax, res.rope)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.set_title(
        f"design effect {res.design_effect:.2f}: the {100 * level:g}% interval is "
        f"{res.interval_widening:.2f}× as wide with {res.n_clusters} clusters of "
        f"{res.n_items} items",
        fontsize=9,
    )
    ax.set_xlabel(f"difference in {res.metric or 'score'} ({difference_label(res)})")
    ax.set_ylabel("posterior density")
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def holdout_figures(res: Any) -> dict[str, Any]:
    """Every plot of a comparison on one test set (its slices' too), each on a new figure."""
    out = {"posterior": res.plot().figure}
    if res.blind_draws is not None:
        out["design_effect"] = res.plot_design_effect().figure
    if res.slices is not None:  # the slice guardrail's forest plot
        out["slices"] = res.plot_slices().figure
    return out
