"""Plots for metric uncertainty: intervals, BLB convergence, threshold curves with
bands, recall@k on an unlabeled pool, classic metric tables and learning curves.

Every function takes ``ax=None`` (a new figure is made) and returns the Axes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.report._literal import literal_text
from bayescomp.report.plots import new_axes

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes


@literal_text
def plot_metric_interval(res: Any, ax: Axes | None = None, color: str = "C0") -> Axes:
    """Histogram of the resampled metric; estimate and interval bounds as vertical lines."""
    ax = new_axes(ax, (6.4, 4.2), None)
    dist = np.asarray(res.distribution)
    ax.hist(
        dist,
        bins=min(60, max(10, dist.size // 40)),
        color=color,
        alpha=0.55,
        density=True,
        label=f"{res.method} resamples",
    )
    ax.axvline(res.estimate, color="black", lw=1.5, label=f"estimate {res.estimate:.4g}")
    for x in (res.low, res.high):
        ax.axvline(x, color="crimson", ls="--", lw=1.2)
    ax.axvspan(
        res.low,
        res.high,
        color="crimson",
        alpha=0.08,
        label=f"{100 * res.confidence_level:g}% CI [{res.low:.4g}, {res.high:.4g}]",
    )
    ax.set_xlabel(res.metric)
    ax.set_ylabel("density")
    ax.set_title(f"{res.metric}: n = {res.n:,} test rows")
    ax.legend(fontsize=8, loc="upper left")
    return ax


@literal_text
def plot_blb_convergence(res: Any, ax: Axes | None = None) -> Axes:
    """Averaged BLB interval width after each subset."""
    ax = new_axes(ax, (6.4, 4.2), None)
    h = np.asarray(res.history)
    ax.plot(np.arange(1, h.size + 1), h, marker="o", color="C0")
    ax.set_xlabel("subsets processed")
    ax.set_ylabel("averaged interval width")
    state = "converged" if res.converged else "not converged"
    ax.set_title(f"BLB, b = {res.b:,} rows per subset ({state})")
    ax.grid(alpha=0.3)
    return ax


@literal_text
def plot_threshold_curves(
    cur: Any,
    kind: str = "pr",
    ax: Axes | None = None,
    band: str = "std",
    annotate_every: int = 10,
    label: str | None = None,
    color: str | None = None,
) -> Axes:
    """Mean curve over repetitions with a band, thresholds written along the curve."""
    if band not in ("std", "quantile"):
        raise ValueError(f"band must be 'std' or 'quantile'; got {band!r}")
    ax = new_axes(ax, (6.0, 5.4), None)
    color = color or "C0"
    if kind == "pr":
        xname, yname = xlabel, ylabel = "recall", "precision"
    elif kind == "roc":
        xname, yname, xlabel, ylabel = "fpr", "recall", "false positive rate", "true positive rate"
    else:
        xname, yname, xlabel, ylabel = None, kind, "threshold", kind
    ys = cur.summary(yname)
    lo_col, hi_col = (c for c in ys.columns if c.startswith("q"))
    if band == "std":
        # precision, recall and rates are proportions: a ±SD band is clipped to [0, 1]
        # (the quantile band is bounded by construction)
        lo = (ys["mean"] - ys["std"]).clip(lower=0.0)
        hi = (ys["mean"] + ys["std"]).clip(upper=1.0)
        band_label = "± 1 SD (clipped to [0, 1])"
    else:
        lo, hi = ys[lo_col], ys[hi_col]
        band_label = f"{lo_col}–{hi_col}"
    x = cur.thresholds if xname is None else cur.summary(xname)["mean"].to_numpy()
    y = ys["mean"].to_numpy()
    partial = ys["n_defined"].to_numpy() < cur.n_repetitions
    name = label or f"mean of {cur.n_repetitions} repetitions"
    ax.plot(x, y, color=color, lw=1.8, label=name)
    ax.fill_between(
        x,
        lo.to_numpy(),
        hi.to_numpy(),
        color=color,
        alpha=0.25,
        label=f"{yname} {band_label}",
        step=None,
    )
    if partial.any():
        ax.scatter(
            x[partial],
            y[partial],
            s=12,
            marker="x",
            color="black",
            zorder=3,
            label=f"{yname} undefined in some repetitions",
        )
    if annotate_every and annotate_every > 0:
        for i in range(0, x.size, int(annotate_every)):
            if np.isfinite(x[i]) and np.isfinite(y[i]):
                ax.annotate(
                    f"{cur.thresholds[i]:.2g}",
                    (x[i], y[i]),
                    fontsize=7,
                    textcoords="offset points",
                    xytext=(3, 3),
                    color="black",
                )
    if kind == "roc":
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls=":")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if xname is not None:
        ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left" if kind == "pr" else "lower right")
    n_test = np.median(cur.n_test)
    ax.set_title(
        f"{ylabel} vs {xlabel}: {cur.n_repetitions} repetitions, ~{n_test:.0f} test rows each",
        fontsize=10,
    )
    return ax


@literal_text
def plot_recall_at_k(res: Any, ax: Axes | None = None, max_k: int | None = None) -> Axes:
    """recall@k on the unlabeled pool against k, with the class size and the ideal line."""
    ax = new_axes(ax, (6.4, 4.2), None)
    t = res.table
    if max_k is None:
        size = res.class_size if np.ndim(res.class_size) == 0 else max(res.class_size)
        max_k = int(min(res.n_pool, max(3 * float(size), 10)))
    t = t.loc[:max_k]
    k = t.index.to_numpy()
    ax.plot(k, t["recall_at_k"], color="C0", lw=1.8, label="recall@k (test recall at t_k)")
    if np.ndim(res.class_size) == 0:
        c = float(res.class_size)
        ax.axvline(c, color="crimson", ls="--", lw=1.2, label=f"class size {c:g}")
        ax.plot([0, c, max_k], [0, 1, 1], color="grey", ls=":", label="ideal (unbiased, perfect)")
    else:
        lo, hi = res.class_size
        ax.axvspan(lo, hi, color="crimson", alpha=0.12, label=f"class size {lo:g}–{hi:g}")
        mid = 0.5 * (lo + hi)
        ax.plot([0, mid, max_k], [0, 1, 1], color="grey", ls=":", label="ideal (central size)")
    flagged = t.get("above_one_significant", t["above_one"])
    if flagged.any():
        ka = k[flagged.to_numpy()]
        ax.scatter(
            ka,
            t.loc[ka, "recall_at_k"],
            s=6,
            color="darkorange",
            zorder=3,
            label="precision@k > 1 (labeled data unrepresentative)",
        )
    ax.axvline(
        res.best_k,
        color="C2",
        lw=1,
        label=f"best F1 at k={res.best_k} (t={res.best_threshold:.3g})",
    )
    ax.set_xlabel("k (top-k of the unlabeled pool)")
    ax.set_ylabel("recall@k")
    ax.set_ylim(-0.01, 1.05)
    ax.set_xlim(0, max_k)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(
        f"class {res.positive_class!r}: recall@k on {res.n_pool:,} unlabeled rows", fontsize=10
    )
    return ax


@literal_text
def plot_metric_table(frame: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Forest plot of a :func:`bayescomp.metric_table`: estimate and interval per metric."""
    ax = new_axes(ax, (6.0, 0.45 * len(frame) + 1.2), None)
    y = np.arange(len(frame))[::-1]
    est = frame["estimate"].to_numpy(dtype=float)
    lo = frame["low"].to_numpy(dtype=float)
    hi = frame["high"].to_numpy(dtype=float)
    ok = np.isfinite(lo) & np.isfinite(hi)
    ax.errorbar(
        est[ok], y[ok], xerr=[est[ok] - lo[ok], hi[ok] - est[ok]], fmt="o", color="C0", capsize=3
    )
    ax.plot(est[~ok], y[~ok], "o", color="grey")
    ax.set_yticks(y, frame.index.tolist())
    for yi, e, lw, hg in zip(y, est, lo, hi, strict=True):
        txt = f"{e:.3g}" + (f" [{lw:.3g}, {hg:.3g}]" if np.isfinite(lw) else "")
        ax.annotate(
            txt, (e, yi), textcoords="offset points", xytext=(0, 6), fontsize=7, ha="center"
        )
    level = frame.attrs.get("confidence_level", 0.95)
    ax.set_title(
        f"metrics with {100 * level:g}% bootstrap intervals (n = {frame.attrs.get('n', '?')})",
        fontsize=10,
    )
    ax.grid(alpha=0.3, axis="x")
    return ax


@literal_text
def plot_learning_curves(
    lc: Any, ax: Axes | None = None, confidence_level: float | None = None
) -> Axes:
    """Mean score per training size with credible bands, one line per model."""
    ax = new_axes(ax, (6.4, 4.2), None)
    s = lc.summary(confidence_level=confidence_level)
    _curves_with_bands(ax, lc, s[s["kind"] == "model"], 0, str)
    lv = s["confidence_level"].iloc[0]
    ax.set_ylabel(lc.metric)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(f"learning curves: {100 * lv:g}% credible bands (correlated t)", fontsize=10)
    return ax


@literal_text
def plot_learning_difference(lc: Any, ax: Axes | None = None) -> Axes:
    """Difference candidate − baseline per training size with its band and P(better at all)."""
    ax = new_axes(ax, (6.4, 4.2), None)
    s = lc.summary()
    d = s[s["kind"] == "difference"]
    if d.empty:
        raise ValueError("no comparison in these learning curves: pass baseline= to compute one")
    _curves_with_bands(ax, lc, d, 1, lambda model: f"{model} − {lc.baseline}")
    for x, yv, p in zip(d["n_train"], d["high"], d["p_better"], strict=True):
        ax.annotate(
            f"{p:.2f}", (x, yv), textcoords="offset points", xytext=(0, 3), fontsize=7, ha="center"
        )
    ax.axhline(0, color="grey", lw=1)
    ax.set_ylabel(f"difference in {lc.metric}")
    ax.legend(fontsize=8)
    ax.set_title(
        "difference with credible band; numbers: P(candidate better at all, difference > 0)",
        fontsize=10,
    )
    return ax


def _curves_with_bands(
    ax: Axes, lc: Any, rows: pd.DataFrame, first: int, name: Callable[[Any], str]
) -> None:
    """Each model's mean in ``rows`` (a learning-curve summary) against the training rows, with
    its credible band, in the colours from ``C{first}`` on; the x axis of training rows (log
    for a geometric schedule)."""
    for i, (model, g) in enumerate(rows.groupby("model", sort=False), start=first):
        g = g.sort_values("n_train")
        ax.plot(g["n_train"], g["mean"], marker="o", ms=3, color=f"C{i}", label=name(model))
        ax.fill_between(g["n_train"], g["low"], g["high"], color=f"C{i}", alpha=0.2)
    if lc.schedule == "geometric":
        ax.set_xscale("log")
    ax.set_xlabel("training rows")
    ax.grid(alpha=0.3)
