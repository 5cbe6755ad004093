"""Plots for comparisons across many datasets (hierarchical model and rank tests)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.margins import Absolute
from bayescomp.core.orientation import difference_label
from bayescomp.report._literal import literal_text
from bayescomp.report.plots import REGION_COLOURS, new_axes

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

_SQRT3 = np.sqrt(3.0)


def _project(points: np.ndarray) -> np.ndarray:
    """Barycentric (left, rope, right) -> 2-D: left at (0, 0), right at (1, 0), rope on top."""
    p = np.asarray(points, dtype=float)
    x = p[:, 2] + 0.5 * p[:, 1]
    y = (_SQRT3 / 2.0) * p[:, 1]
    return np.column_stack([x, y])


@literal_text
def plot_simplex(
    sample: Any,
    *,
    baseline: str = "baseline",
    candidate: str = "candidate",
    probabilities: Any = None,
    ax: Axes | None = None,
    max_points: int = 20_000,
    title: str | None = None,
) -> Axes:
    """Draws of (p_left, p_rope, p_right) in the probability triangle.

    The three corners are labelled by the region they stand for, with the
    model names; the three lines from the centre split the triangle into the
    areas where each region is the most probable (baycomp's convention), whose
    shares of draws are printed at the corners when ``probabilities`` is given.

    Parameters
    ----------
    sample : array_like, shape (draws, 3)
        Region probabilities of each posterior draw.
    baseline, candidate : str
        Model names used in the labels.
    probabilities : sequence of three floats, optional
        Numbers printed at the corners (e.g. ``result.baycomp_convention``).
    ax : matplotlib Axes, optional
    max_points : int
        Draws beyond this are thinned (evenly) before plotting.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import numpy as np
    >>> s = np.random.default_rng(0).dirichlet([2, 5, 9], 500)
    >>> ax = plot_simplex(s, baseline="nbc", candidate="aode")
    >>> [float(x) for x in ax.get_xlim()]
    [-0.15, 1.15]
    """

    pts = np.asarray(sample, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 3:
        raise ValueError(f"sample must have shape (draws, 3); got {pts.shape}")
    if len(pts) > max_points:
        pts = pts[:: int(np.ceil(len(pts) / max_points))]
    ax = new_axes(ax, (5.2, 4.8))
    corners = np.array([[0.0, 0.0], [0.5, _SQRT3 / 2], [1.0, 0.0], [0.0, 0.0]])
    ax.plot(corners[:, 0], corners[:, 1], color="k", lw=1)
    centre = _project(np.array([[1 / 3, 1 / 3, 1 / 3]]))[0]
    for mid in _project(np.array([[0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])):
        ax.plot([centre[0], mid[0]], [centre[1], mid[1]], color="0.55", lw=0.8, ls="--")
    xy = _project(pts)
    winners = np.argmax(pts, axis=1)
    for k in range(3):
        sel = winners == k
        if sel.any():
            ax.scatter(
                xy[sel, 0],
                xy[sel, 1],
                s=3,
                alpha=0.25,
                color=REGION_COLOURS[k],
                lw=0,
                rasterized=True,
            )
    labels = (
        f"{baseline} better\nbeyond the ROPE",
        "practically\nequivalent (ROPE)",
        f"{candidate} better\nbeyond the ROPE",
    )
    if probabilities is not None:
        p = [float(v) for v in probabilities]
        labels = tuple(f"{lab}\n{v:.3f}" for lab, v in zip(labels, p, strict=True))
    ax.text(0.0, -0.04, labels[0], ha="center", va="top", fontsize=9, color=REGION_COLOURS[0])
    ax.text(0.5, _SQRT3 / 2 + 0.03, labels[1], ha="center", va="bottom", fontsize=9, color="0.3")
    ax.text(1.0, -0.04, labels[2], ha="center", va="top", fontsize=9, color=REGION_COLOURS[2])
    ax.set_xlim(-0.15, 1.15)
    ax.set_ylim(-0.22, _SQRT3 / 2 + 0.18)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


@literal_text
def plot_forest(res: Any, ax: Axes | None = None) -> Axes:
    """Shrunk per-dataset differences with 95% HDIs, the observed means, ROPE and ``delta0``.

    ``res`` is a :class:`~bayescomp.posterior.hierarchical.HierarchicalResult`.
    """

    frame = res.per_dataset.sort_values("mean").reset_index(drop=True)
    q = len(frame)
    ax = new_axes(ax, (6.5, max(3.0, 0.16 * q + 1.2)))
    y = np.arange(q)
    rope = float(res.rope)
    if rope > 0:
        ax.axvspan(
            -rope,
            rope,
            color=REGION_COLOURS[1],
            alpha=0.15,
            lw=0,
            label=f"ROPE {Absolute(rope).label()}",
        )
    lo, hi = res.hdi(0.95)
    ax.axvspan(lo, hi, color="#2c7fb8", alpha=0.12, lw=0, label="δ0 95% HDI")
    ax.axvline(
        res.expected_gain, color="#2c7fb8", lw=1.2, label=f"δ0 mean {res.expected_gain:+.3g}"
    )
    ax.axvline(0, color="k", ls="--", lw=0.8)
    colours = np.where(
        frame["hdi_95_low"] > rope,
        REGION_COLOURS[2],
        np.where(frame["hdi_95_high"] < -rope, REGION_COLOURS[0], "0.25"),
    )
    ax.hlines(y, frame["hdi_95_low"], frame["hdi_95_high"], colors=colours, lw=1.4)
    ax.scatter(frame["mean"], y, color=colours, s=14, zorder=3, label="shrunk δᵢ (95% HDI)")
    ax.scatter(
        frame["observed_mean"],
        y,
        facecolors="none",
        edgecolors="0.45",
        s=14,
        zorder=2,
        label="observed mean",
    )
    ax.set_yticks(y)
    ax.set_yticklabels(frame["dataset"], fontsize=7 if q > 25 else 9)
    ax.set_ylim(-1, q)
    unit = res.metric or "score"
    ax.set_xlabel(f"difference in {unit} ({difference_label(res)})")
    ax.legend(fontsize=7, loc="lower right", frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return ax


@literal_text
def plot_trace(res: Any, var_names: tuple[str, ...] = ("delta0", "std0", "nu")) -> np.ndarray:
    """Per-chain densities (left) and rank plots (right) of the hyper-parameters.

    Each chain's kernel density, and each chain's histogram of its draws' ranks among all
    draws as vertical lines around the dashed uniform level: chains that mix well give flat
    rank histograms.  Returns the ``(len(var_names), 2)`` array of Axes.
    """
    import matplotlib.pyplot as plt
    from scipy.stats import gaussian_kde, rankdata

    figsize = (9, 2.2 * len(var_names))
    _, axes = plt.subplots(len(var_names), 2, figsize=figsize, layout="constrained", squeeze=False)
    for row, var in zip(axes, var_names, strict=True):
        draws = np.asarray(res._arrays.groups["posterior"][var], dtype=float)
        chains, n = draws.shape[:2]
        ranks = rankdata(draws.ravel()).reshape(chains, n)
        bins = np.linspace(0, chains * n, 21)
        for c in range(chains):
            if np.ptp(draws[c]) > 0:
                grid = np.linspace(draws.min(), draws.max(), 200)
                row[0].plot(grid, gaussian_kde(draws[c])(grid), color=f"C{c}", lw=1)
            counts = np.histogram(ranks[c], bins=bins)[0] / (n / 20) - 1
            mids = (bins[1:] + bins[:-1]) / 2
            row[1].vlines(mids, c, c + counts * 0.4, color=f"C{c}")
            row[1].axhline(c, color="k", ls="--", lw=0.5)
        row[0].set_title(var)
        row[1].set_title(var)
        row[1].set_yticks(range(chains))
    d = res.diagnostics_summary()
    axes[0, 0].figure.suptitle(
        f"max R-hat {d['max_r_hat']:.3f}, min bulk ESS {d['min_ess_bulk']:.0f}, "
        f"divergences {d['divergences']} ({'converged' if d['converged'] else 'NOT converged'})",
        fontsize=10,
    )
    return axes


@literal_text
def plot_slices(res: Any, ax: Axes | None = None, slice_gamma: float = 0.5) -> Axes:
    """Forest plot of a :class:`~bayescomp.posterior.slices.SliceResult`: each slice's shrunk
    difference and 95 % HDI (labelled with its rows), the slice ROPE, and in red the flagged
    slices, whose own P(worse beyond the slice ROPE) > 1 − ``slice_gamma`` blocks a promotion."""
    ax = plot_forest(res, ax=ax)
    f = res.per_slice.sort_values("mean").reset_index(drop=True)
    ax.set_yticklabels([f"{s} ({n:,})" for s, n in zip(f["slice"], f["rows"], strict=True)])
    bad = f.index[f["p_worse"] > 1 - slice_gamma].to_numpy()
    if bad.size:
        ax.hlines(
            bad, f.loc[bad, "hdi_95_low"], f.loc[bad, "hdi_95_high"], colors="#d7301f", lw=2.6
        )
        ax.scatter(f.loc[bad, "mean"], bad, color="#d7301f", s=30, zorder=4, label="flagged slice")
        ax.legend(fontsize=7, loc="lower right", frameon=False)
    ax.set_ylabel("slice (rows)")
    ax.set_title(
        f"P(no slice worse beyond {Absolute(res.rope).label()}) = {res.p_no_slice_worse:.3f}",
        fontsize=9,
    )
    return ax
