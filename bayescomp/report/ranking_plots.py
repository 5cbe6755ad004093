"""Plots of a joint ranking across datasets: the Bayesian rank diagram, P(best), control vs all.

Each function takes the numbers to draw (tables from a
:class:`~bayescomp.posterior.plackett_luce.PlackettLuceResult`) and an optional
``ax``, draws there (or on a new figure) and returns the axes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.report._literal import literal_text
from bayescomp.report.plots import REGION_COLOURS, new_axes

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes


@literal_text
def plot_rank_diagram(
    ranks: pd.DataFrame,
    groups: list[tuple[str, ...]],
    *,
    confidence_level: float = 0.95,
    gamma: float = 0.95,
    ax: Axes | None = None,
) -> Axes:
    """Bayesian critical-difference diagram.

    One row per model, best at the top: its posterior mean expected rank (dot) and
    ``confidence_level`` credible interval (line) on a rank axis.  A vertical bar to the right
    joins each group of models whose order the data do not resolve (no pair in the
    group has ``P(i beats j) >= gamma``), where a classic critical-difference
    diagram joins models whose mean ranks do not differ significantly.

    Parameters
    ----------
    ranks : DataFrame
        Index: models; columns ``expected_rank``, ``rank_low``, ``rank_high``.
    groups : list of tuple of str
        The groups to join (e.g. ``result.uncertain_groups(gamma)``).
    """

    ranks = ranks.sort_values("expected_rank", kind="stable")
    k = len(ranks)
    ax = new_axes(ax, (6.4, 0.9 + 0.42 * k))
    y = np.arange(k)[::-1]
    row = dict(zip(ranks.index, y, strict=True))
    ax.hlines(y, ranks["rank_low"], ranks["rank_high"], color="k", lw=1.6)
    ax.plot(ranks["expected_rank"], y, "o", color=REGION_COLOURS[2], mec="k", ms=7, zorder=3)
    right = float(ranks["rank_high"].max())
    step = 0.05 * max(right - float(ranks["rank_low"].min()), 0.5)
    for n, members in enumerate(groups):
        ys = [row[m] for m in members]
        x = right + step * (n + 1)
        ax.plot(
            [x, x],
            [min(ys) - 0.15, max(ys) + 0.15],
            color=REGION_COLOURS[0],
            lw=4,
            solid_capstyle="round",
            alpha=0.8,
        )
    ax.set_yticks(y, [f"{m}  ({r:.2f})" for m, r in ranks["expected_rank"].items()])
    ax.set_ylim(-0.7, k - 0.3)
    ax.set_xlim(0.9, max(right + step * (len(groups) + 1.5), k + 0.1) if k else 1)
    ax.set_xlabel(
        f"expected rank on a new dataset (1 = best; dot: mean, line: "
        f"{100 * confidence_level:g}% interval)"
    )
    ax.set_title(
        f"bars join models whose order is uncertain (no pair with P(beats) ≥ {gamma:g})", fontsize=9
    )
    ax.spines[["top", "right"]].set_visible(False)
    return ax


@literal_text
def plot_p_best(
    p_best: pd.Series, p_first: pd.Series | None = None, ax: Axes | None = None
) -> Axes:
    """Bar chart of ``P(model is best)``, largest first, with ``E[w]`` marked when given.

    ``p_first`` (the probability of ranking first on a *new* dataset) is drawn as a
    diamond on each bar: it is smaller than ``P(best)`` for a clear winner, because
    even the best model loses some datasets.
    """

    order = p_best.sort_values(ascending=False, kind="stable")
    ax = new_axes(ax, (6.4, 0.9 + 0.4 * len(order)))
    y = _probability_bars(ax, order, REGION_COLOURS[2], label="P(best)")
    if p_first is not None:
        ax.plot(
            p_first.loc[order.index].to_numpy(dtype=float),
            y,
            "D",
            color="k",
            ms=5,
            label="P(ranks first on a new dataset)",
        )
    ax.set_xlabel("posterior probability")
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    return ax


@literal_text
def plot_control(
    p_beats_control: pd.Series, control: str, *, gamma: float = 0.95, ax: Axes | None = None
) -> Axes:
    """``P(model beats control)`` for every other model, with ``gamma`` from both sides.

    A bar past ``gamma`` is a model better than the control, one below ``1 - gamma``
    a model worse than it; in between the data do not tell.
    """

    p = p_beats_control.sort_values(ascending=False, kind="stable")
    ax = new_axes(ax, (6.4, 0.9 + 0.4 * len(p)))
    colours = [
        REGION_COLOURS[2]
        if v >= gamma
        else REGION_COLOURS[0]
        if v <= 1 - gamma
        else REGION_COLOURS[1]
        for v in p
    ]
    _probability_bars(ax, p, colours)
    for x in (gamma, 1 - gamma):
        ax.axvline(x, color="k", ls=":", lw=1)
    ax.axvline(0.5, color="k", lw=0.6)
    ax.set_xlabel(
        f"P(model beats {control}: ranks above it, no ROPE)  (dotted: γ = {gamma:g}, 1 − γ)"
    )
    ax.set_title(f"every model against the control {control}", fontsize=9)
    return ax


def _probability_bars(ax: Axes, p: pd.Series, colours: Any, label: str | None = None) -> np.ndarray:
    """The probabilities ``p`` as horizontal bars on ``[0, 1]``, the first at the top, each
    with its value and its name; returns the bars' heights."""
    y = np.arange(len(p))[::-1]
    ax.barh(y, p.to_numpy(dtype=float), color=colours, alpha=0.8, height=0.6, label=label)
    for yy, v in zip(y, p, strict=True):
        ax.text(min(v + 0.01, 0.93), yy, f"{v:.3f}", va="center", fontsize=8)
    ax.set_yticks(y, list(p.index))
    ax.set_xlim(0, 1)
    ax.spines[["top", "right"]].set_visible(False)
    return y
