"""Plots of single-comparison posteriors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.margins import Absolute
from bayescomp.core.orientation import difference_label
from bayescomp.core.tally import win_loss_tie
from bayescomp.report._literal import literal_text

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

#: colours of the three regions: candidate worse, equivalent, better
REGION_COLOURS = ("#c0392b", "#7f8c8d", "#27ae60")


def new_axes(
    ax: Axes | None, figsize: tuple[float, float], layout: str | None = "constrained"
) -> Axes:
    """``ax``, or the axes of a new figure of ``figsize`` (every plot's start)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize, layout=layout)[1]


@literal_text
def plot_posterior(
    res: Any,
    ax: Axes | None = None,
    confidence_level: float = 0.95,
    *,
    head: str = "",
) -> Axes:
    """The posterior density of the difference shaded by the three ROPE regions, the ROPE band,
    the HDI and the three region probabilities (in the title, after ``head``).

    ``res`` is a single posterior (:class:`~bayescomp.core.protocols.Posterior`) with a
    ``density(x)``.  The plotted range holds 99.8 % of the
    posterior (``res.hdi(0.998)``) and the ROPE; a posterior whose mass is one point is drawn as
    a line there.
    """
    ax = new_axes(ax, (7, 3.6))
    rope = float(res.rope)
    lo, hi = res.hdi(0.998)
    if lo == hi:
        ax.axvline(lo, color="k", lw=2, label="point mass (zero variance)")
        ax.legend(loc="upper left", fontsize=8, frameon=False)
        half = max(abs(lo), rope, 1e-3) * 1.5
        ax.set_xlim(-half, half)
        ax.set_yticks([])
    else:
        lo, hi = min(lo, -1.5 * rope), max(hi, 1.5 * rope)
        pad = 0.05 * (hi - lo)
        x = np.linspace(lo - pad, hi + pad, 600)
        dens = res.density(x)
        for (a, b), colour in zip(
            ((-np.inf, -rope), (-rope, rope), (rope, np.inf)), REGION_COLOURS, strict=True
        ):
            sel = (x >= a) & (x <= b)
            ax.fill_between(x[sel], dens[sel], color=colour, alpha=0.35, lw=0)
        ax.plot(x, dens, color="k", lw=1.4)
        interval_bar(ax, res.hdi(confidence_level), dens.max(), f"{100 * confidence_level:g}% HDI")
    rope_band(ax, rope)
    fitted_title(ax, region_title(res, head))
    ax.set_xlabel(
        f"difference in {res.metric or 'score'} ({difference_label(res)})"
        + (f", ROPE {Absolute(rope).label()}" if rope else "")
    )
    ax.set_ylabel("posterior density")
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def rope_band(ax: Axes, rope: float) -> None:
    """The ROPE ``[-rope, rope]`` as a grey band between dotted lines (none for a ROPE of 0),
    and zero as a dashed line."""
    if rope > 0:
        ax.axvspan(-rope, rope, color=REGION_COLOURS[1], alpha=0.12, lw=0)
        for x in (-rope, rope):
            ax.axvline(x, color=REGION_COLOURS[1], ls=":", lw=1)
    ax.axvline(0, color="k", ls="--", lw=0.8)


def interval_bar(ax: Axes, interval: tuple[float, float], ymax: float, name: str) -> None:
    """``interval`` as a bar above a density of height ``ymax`` (the axes' top set to 1.3
    ``ymax``), labelled in the top corner away from the zero line (a label centred over an
    interval across zero sat on the dashed line)."""
    lo, hi = interval
    ax.plot([lo, hi], [ymax * 1.08] * 2, color="k", lw=3, solid_capstyle="butt")
    ax.set_ylim(0, ymax * 1.3)
    x0, x1 = ax.get_xlim()
    left = (0 - x0) / (x1 - x0) > 0.5  # zero in the right half: label on the left
    ax.text(
        0.01 if left else 0.99,
        0.98,
        f"{name} [{lo:+.4g}, {hi:+.4g}]",
        transform=ax.transAxes,
        ha="left" if left else "right",
        va="top",
        fontsize=8,
    )


def fitted_title(ax: Axes, text: str, fontsize: float = 9) -> None:
    """Set a title whose lines are entries three spaces apart, moving an entry to a line of
    its own where its line would be wider than the figure (long model names); matplotlib's
    own ``wrap=True`` measures the text as mathtext, which a name like ``$x^$`` breaks."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    font = FontProperties(size=fontsize)
    fits = ax.figure.get_figwidth() * 72 * 0.85  # points; centred on the axes, not the figure

    def width(s: str) -> float:
        return text_to_path.get_text_width_height_descent(s, font, ismath=False)[0]

    lines: list[str] = []
    for line in text.split("\n"):
        entries = line.split("   ")
        lines.append(entries[0])
        for entry in entries[1:]:
            if width(f"{lines[-1]}   {entry}") > fits:
                lines.append(entry)
            else:
                lines[-1] += "   " + entry
    ax.set_title("\n".join(lines), fontsize=fontsize)


def region_title(res: Any, head: str = "") -> str:
    """The region probabilities of a posterior for a plot title, each named by its region:
    ``P(b better beyond the ROPE)`` (what ``promote`` reads) is not ``P(b better at all)``
    (``p_better``), which is given after it, two to a line (a title fits a figure 7 in wide).  With a ROPE of 0 both are the
    same and one line says so.

    Examples
    --------
    >>> from types import SimpleNamespace as R
    >>> print(region_title(R(candidate_name="rf", rope=0.01, p_left=0.1, p_rope=0.3,
    ...                      p_right=0.6, p_better=0.8)))
    P(rf worse beyond the ROPE) = 0.100   P(inside the ROPE) = 0.300
    P(rf better beyond the ROPE) = 0.600   P(rf better at all, difference > 0) = 0.800
    """
    c = res.candidate_name
    head = f"{head}\n" if head else ""
    if float(np.max(np.asarray(res.rope, dtype=float))) == 0:
        return f"{head}P({c} worse) = {res.p_left:.3f}   P({c} better) = {res.p_right:.3f} (ROPE 0)"
    return (
        f"{head}P({c} worse beyond the ROPE) = {res.p_left:.3f}   "
        f"P(inside the ROPE) = {res.p_rope:.3f}\n"
        f"P({c} better beyond the ROPE) = {res.p_right:.3f}   "
        f"P({c} better at all, difference > 0) = {float(res.p_better):.3f}"
    )


@literal_text
def plot_frequentist(res: Any, ax: Axes | None = None) -> Axes:
    """The t sampling distribution of the mean paired difference (Nadeau–Bengio), with its
    confidence interval shaded and zero marked; the title gives t and the p-value."""
    from scipy import stats

    ax = new_axes(ax, (7, 3.6))
    mean, se = float(res.mean), float(res.standard_error)
    q = stats.t.ppf(0.999, res.df)
    x = np.linspace(min(mean - q * se, 0.0), max(mean + q * se, 0.0), 600)
    ax.plot(x, stats.t.pdf(x, res.df, loc=mean, scale=se), color="k", lw=1.4)
    lo, hi = (float(np.clip(v, x[0], x[-1])) for v in res.confidence_interval(0.95))
    ax.axvspan(lo, hi, color=REGION_COLOURS[1], alpha=0.15, lw=0, label="95% CI")
    ax.axvline(0, color="k", ls="--", lw=0.8)
    ax.set_title(
        f"t = {float(res.statistic):.3f}, df = {res.df}, p = {float(res.pvalue):.3g} "
        f"({res.alternative})",
        fontsize=9,
    )
    ax.set_xlabel("mean paired difference (candidate − baseline)")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return ax


@literal_text
def plot_paired_lines(
    paired: Any, ax: Axes | None = None, metric: str | None = None, higher_is_better: bool = True
) -> Axes:
    """Per-split scores of two models side by side, one line per split.

    ``paired`` is the frame returned by :meth:`bayescomp.Scores.paired` (columns
    ``baseline``, ``candidate``; attrs ``baseline_name``/``candidate_name``).
    Lines going up are splits where the candidate scored higher; the panel on
    the right shows the distribution of the paired differences.
    """

    ax = new_axes(ax, (6, 3.6))
    b = np.asarray(paired["baseline"], dtype=float)
    c = np.asarray(paired["candidate"], dtype=float)
    bname = paired.attrs.get("baseline_name", "baseline")
    cname = paired.attrs.get("candidate_name", "candidate")
    d = (c - b) if higher_is_better else (b - c)  # positive: the candidate is better
    up = d > 0
    for mask, colour in (
        (up, REGION_COLOURS[2]),
        (d < 0, REGION_COLOURS[0]),
        (d == 0, REGION_COLOURS[1]),
    ):
        if mask.any():
            ax.plot(
                np.vstack([np.zeros(mask.sum()), np.ones(mask.sum())]),
                np.vstack([b[mask], c[mask]]),
                color=colour,
                alpha=0.35,
                lw=0.8,
            )
    ax.scatter(np.zeros_like(b), b, s=10, color="k", zorder=3)
    ax.scatter(np.ones_like(c), c, s=10, color="k", zorder=3)
    ax.plot([0, 1], [b.mean(), c.mean()], color="k", lw=2.5, marker="D", zorder=4, label="mean")
    ax.set_xticks([0, 1], [bname, cname])
    ax.set_xlim(-0.3, 1.3)
    ax.set_ylabel(metric or "score")
    what = "" if higher_is_better else f", lower {metric or 'score'} is better"
    tally = win_loss_tie(b, c, higher_is_better)
    ax.set_title(
        f"{tally.text(cname, bname)}\n(mean {cname} − {bname}: {(c - b).mean():+.4g}{what})",
        fontsize=9,
    )
    ax.spines[["top", "right"]].set_visible(False)
    return ax
