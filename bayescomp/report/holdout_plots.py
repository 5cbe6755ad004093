"""Plots of a comparison on one test set: the posterior of the difference with its ROPE, and
the cluster design effect (the cluster posterior beside the cluster-blind one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.margins import Absolute
from bayescomp.core.orientation import difference_label
from bayescomp.report._literal import literal_text
from bayescomp.report.plots import (
    REGION_COLOURS,
    fitted_title,
    new_axes,
    region_title,
    shaded_density,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes


def _density(x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    from scipy import stats

    if np.ptp(x) == 0:
        return np.zeros_like(grid)
    return stats.gaussian_kde(x)(grid)


def _grid(res: Any, *samples: np.ndarray) -> np.ndarray:
    lo = min(float(np.quantile(s, 0.0005)) for s in samples)
    hi = max(float(np.quantile(s, 0.9995)) for s in samples)
    lo, hi = min(lo, -1.5 * res.rope), max(hi, 1.5 * res.rope)
    pad = 0.05 * max(hi - lo, 1e-9)
    return np.linspace(lo - pad, hi + pad, 500)


def _rope_lines(ax: Axes, rope: float) -> None:
    if rope > 0:
        ax.axvspan(-rope, rope, color=REGION_COLOURS[1], alpha=0.12, lw=0)
        for x in (-rope, rope):
            ax.axvline(x, color=REGION_COLOURS[1], ls=":", lw=1)
    ax.axvline(0, color="k", ls="--", lw=0.8)


@literal_text
def plot_draws_posterior(res: Any, ax: Axes | None = None, level: float = 0.95) -> Axes:
    """Density of the posterior draws of a :class:`~bayescomp.posterior.holdout.HoldoutResult`
    with the ROPE band, the HDI and the three region probabilities."""

    ax = new_axes(ax, (7, 3.6))
    x = _grid(res, res.draws)
    dens = _density(res.draws, x)
    ymax = max(float(dens.max()), 1e-12)
    rope = res.rope
    shaded_density(ax, x, dens, rope, res.hdi(level), f"{100 * level:g}% HDI", ymax)
    _rope_lines(ax, rope)
    fitted_title(ax, region_title(res))
    unit = res.metric or "score"
    ax.set_xlabel(
        f"difference in {unit} ({difference_label(res)}), {res.n_items} items"
        + (f", {res.n_clusters} clusters" if res.n_clusters else "")
        + (f", ROPE {Absolute(rope).label()}" if rope else "")
    )
    ax.set_ylabel("posterior density")
    ax.spines[["top", "right"]].set_visible(False)
    return ax


@literal_text
def plot_design_effect(res: Any, ax: Axes | None = None, level: float = 0.95) -> Axes:
    """The posterior that resamples clusters beside the cluster-blind one, with both HDIs."""

    if res.blind_draws is None:
        raise ValueError("this comparison has no clusters; pass cluster= to see a design effect")
    ax = new_axes(ax, (7, 3.6))
    x = _grid(res, res.draws, res.blind_draws)
    blind = res.blind_draws
    for k, (draws, colour, name) in enumerate(
        (
            (blind, "#95a5a6", "items resampled (cluster-blind)"),
            (res.draws, "#2c3e50", "clusters resampled"),
        )
    ):
        dens = _density(draws, x)
        ax.plot(x, dens, color=colour, lw=1.6, label=name)
        ax.fill_between(x, dens, color=colour, alpha=0.15, lw=0)
        lo, hi = res.hdi(level) if k else _blind_hdi(blind, level)
        y = -0.06 * (k + 1) * float(dens.max() or 1)
        ax.plot([lo, hi], [y, y], color=colour, lw=3, solid_capstyle="butt")
    _rope_lines(ax, res.rope)
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
    import matplotlib.pyplot as plt

    out = {}
    kinds = [("posterior", plot_draws_posterior)]
    if res.blind_draws is not None:
        kinds.append(("design_effect", plot_design_effect))
    for name, draw in kinds:
        fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
        draw(res, ax=ax)
        out[name] = fig
    if res.slices is not None:  # the slice guardrail's forest plot
        out["slices"] = res.plot_slices().figure
    return out


def _blind_hdi(draws: np.ndarray, level: float) -> tuple[float, float]:
    from bayescomp.core.regions import shortest_interval

    return shortest_interval(draws, level)
