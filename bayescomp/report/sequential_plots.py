"""The sequence of ``bc.watch`` over items, and its small HTML report (``bayescomp watch
--report``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescomp.core.margins import Absolute
from bayescomp.report._literal import literal_text
from bayescomp.report.plots import new_axes
from bayescomp.report.templating import figure_of, png_b64, render

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes


@literal_text
def plot_sequence(res: Any, ax: Axes | None = None) -> Axes:
    """The estimate and the confidence sequence at each look, the margin band, and the
    decision point (a :class:`~bayescomp.posterior.sequential.SequentialResult`)."""
    import numpy as np

    ax = new_axes(ax, (7, 3.6))
    looks, m, p = res.looks, res.margin, res.plan
    lo, hi = (np.clip(looks[k], -1e300, 1e300) for k in ("lower", "upper"))
    ax.axhspan(-m, m, color="0.85", label=f"margin {Absolute(m).label()}")
    ax.fill_between(
        looks["items"], lo, hi, alpha=0.3, step="post", label=f"{100 * p.gamma:g}% sequence"
    )
    ax.plot(looks["items"], looks["estimate"], drawstyle="steps-post", label="estimate")
    if res.decided_at is not None:
        ax.axvline(res.decided_at, color="k", ls="--", label=f"{res.decision} at {res.decided_at}")
    finite = np.r_[lo[np.isfinite(looks["lower"])], hi[np.isfinite(looks["upper"])], -2 * m, 2 * m]
    span = np.quantile(np.abs(finite), 0.9) if finite.size else 1.0
    ax.set_ylim(-1.5 * span, 1.5 * span)
    ax.set_xlabel("labelled items")
    ax.set_ylabel(f"{p.candidate} − {p.baseline} ({p.metric}, better > 0)")
    ax.set_title(f"{res.decision}: {res.method} confidence sequence")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def write_watch_report(res: Any, directory: str | Path) -> Path:
    """``report.html`` (the plot and the look history), ``sequence.png`` and
    ``watch.json`` in ``directory``; returns the page's path."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    record = res.to_dict()
    (out / "watch.json").write_text(json.dumps(record, indent=2, allow_nan=False))
    png = png_b64(figure_of(plot_sequence(res)), out / "sequence.png")
    page = out / "report.html"
    page.write_text(
        render(
            "watch.html.j2", res=res, record=record, png=png, margin=Absolute(res.margin).label()
        ),
        encoding="utf-8",
    )
    return page
