"""Plots of a champion/challenger selection and of a pairwise ranking."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.margins import Absolute
from bayescomp.core.tally import win_loss_tie
from bayescomp.report._literal import literal_text
from bayescomp.report.plots import REGION_COLOURS, new_axes

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

DECISION_MARK = {
    "promote": "▲ promote",
    "runner-up": "△ runner-up",
    "worse": "▼ worse",
    "equivalent": "= equivalent",
    "inconclusive": "? inconclusive",
    "error": "✗ error",
}


@literal_text
def plot_selection(sel: Any, ax: Axes | None = None) -> Any:
    """Decision timeline of a :class:`~bayescomp.studies.select.Selection`.

    Left: for every step, the posterior mass of "challenger worse", "equivalent"
    and "challenger better" as a stacked bar, with ``gamma`` marked.  Right: the
    expected gain with its 95% interval and the ROPE band.  With ``ax`` given,
    only the left panel is drawn there.
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    steps = sel.steps
    n = max(len(steps), 1)
    if ax is None:
        _, axes = plt.subplots(
            1,
            2,
            figsize=(11, 1.2 + 0.55 * n),
            layout="constrained",
            gridspec_kw={"width_ratios": [1.35, 1]},
            sharey=True,
        )
        ax_p, ax_g = axes
    else:
        ax_p, ax_g, axes = ax, None, ax
    labels = [
        f"{int(r['step'])}. {r['challenger']} vs {r['champion']}\n"
        f"{DECISION_MARK.get(r['decision'], r['decision'])}"
        for r in steps.to_dict("records")
    ]
    ypos = np.arange(len(steps))[::-1]
    left = np.zeros(len(steps))
    for col, colour, name in zip(
        ("p_left", "p_rope", "p_right"),
        REGION_COLOURS,
        ("challenger worse", "equivalent", "challenger better"),
        strict=True,
    ):
        vals = np.nan_to_num(steps[col].to_numpy(dtype=float))
        ax_p.barh(ypos, vals, left=left, color=colour, alpha=0.8, label=name, height=0.6)
        left += vals
    ax_p.axvline(sel.gamma, color="k", ls=":", lw=1)
    ax_p.axvline(1 - sel.gamma, color="k", ls=":", lw=1)
    ax_p.set_yticks(ypos, labels, fontsize=8)
    ax_p.set_xlim(0, 1)
    ax_p.set_xlabel(f"posterior probability (dotted: γ = {sel.gamma:g} from either side)")
    ax_p.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8, frameon=False)
    ax_p.spines[["top", "right"]].set_visible(False)
    if ax_g is not None:
        for y, res, r in zip(ypos, sel.results, steps.to_dict("records"), strict=True):
            if res is None:
                continue
            gain = float(r["expected_gain"])
            ax_g.plot(res.hdi(0.95), [y, y], color="k", lw=1.5)
            colour = {"promote": REGION_COLOURS[2], "worse": REGION_COLOURS[0]}.get(
                r["decision"], REGION_COLOURS[1]
            )
            ax_g.plot(gain, y, "o", color=colour, ms=7, mec="k")
        halves = sel.steps["rope"].dropna().unique() if "rope" in sel.steps else []
        if len(halves) == 1 and halves[0] > 0:  # one half-width, as each step resolved it
            ax_g.axvspan(
                -halves[0],
                halves[0],
                color=REGION_COLOURS[1],
                alpha=0.15,
                lw=0,
                label=f"ROPE {sel.rope.label(float(halves[0]))}",
            )
            ax_g.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=8, frameon=False)
        ax_g.axvline(0, color="k", ls="--", lw=0.8)
        ax_g.xaxis.set_major_locator(MaxNLocator(5))
        ax_g.set_xlabel(f"Δ {sel.metric}: challenger − champion\n(mean and 95% HDI)")
        ax_g.spines[["top", "right"]].set_visible(False)
        ax_g.tick_params(axis="y", length=0)
        ax_p.figure.suptitle(
            f"champion/challenger steps — final champion: {sel.champion}", fontsize=10
        )
    return axes


@literal_text
def plot_paired_scores(
    paired: pd.DataFrame,
    champion: str,
    challenger: str,
    metric: str,
    rope: float = 0.0,
    ax: Axes | None = None,
    higher_is_better: bool = True,
) -> Axes:
    """Challenger's score against the champion's on every split (one point per split).

    Wins, losses and ties (:func:`bayescomp.core.tally.win_loss_tie`) are drawn and
    counted separately: a tie is nobody's win.  For a higher-is-better metric points
    above the diagonal are splits the challenger won; the grey band is the ROPE around
    the diagonal.
    """

    ax = new_axes(ax, (4.2, 4))
    x = paired["champion"].to_numpy(dtype=float)
    y = paired["challenger"].to_numpy(dtype=float)
    lo = float(min(x.min(), y.min()))
    hi = float(max(x.max(), y.max()))
    pad = 0.05 * (hi - lo or 1.0)
    grid = np.array([lo - pad, hi + pad])
    if rope > 0:
        ax.fill_between(
            grid,
            grid - rope,
            grid + rope,
            color=REGION_COLOURS[1],
            alpha=0.18,
            lw=0,
            label=f"ROPE {Absolute(rope).label()}",
        )
    ax.plot(grid, grid, color="k", lw=0.8, ls="--")
    tally = win_loss_tie(x, y, higher_is_better)
    d = (y - x) if higher_is_better else (x - y)
    for mask, colour, name, count in (
        (d > 0, REGION_COLOURS[2], f"{challenger} better", tally.wins),
        (d < 0, REGION_COLOURS[0], f"{champion} better", tally.losses),
        (d == 0, "#2c3e50", "tie", tally.ties),
    ):
        ax.scatter(
            x[mask],
            y[mask],
            s=16,
            color=colour,
            alpha=0.75,
            label=f"{name} ({count})",
            marker="o" if name != "tie" else "x",
        )
    ax.set_xlim(*grid)
    ax.set_ylim(*grid)
    ax.set_aspect("equal")
    ax.set_xlabel(f"{champion} ({metric})")
    ax.set_ylabel(f"{challenger} ({metric})")
    ax.set_title(f"{len(x)} paired splits", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return ax


@literal_text
def plot_ranking(matrix: pd.DataFrame, title: str, ax: Axes | None = None) -> Axes:
    """Heatmap of a pairwise probability matrix (rows against columns), values annotated."""

    k = len(matrix)
    ax = new_axes(ax, (1.6 + 0.75 * k, 1.2 + 0.65 * k))
    vals = matrix.to_numpy(dtype=float)
    im = ax.imshow(vals, cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(k), matrix.columns, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(k), matrix.index, fontsize=8)
    for i in range(k):
        for j in range(k):
            v = vals[i, j]
            ax.text(
                j,
                i,
                "—" if not np.isfinite(v) else f"{v:.2f}",
                ha="center",
                va="center",
                fontsize=8,
                color="k",
            )
    ax.set_xlabel("column model")
    ax.set_ylabel("row model")
    ax.set_title(title, fontsize=9)
    ax.figure.colorbar(im, ax=ax, shrink=0.8)
    return ax
