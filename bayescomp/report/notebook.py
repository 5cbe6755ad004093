"""Rich display of results in Jupyter: ``_repr_html_`` of every result renders here.

One card per result — the key numbers, the decision with its reason, a small inline
plot — from the same jinja2 templates as the HTML report (:mod:`.templating`), so
names from user data are escaped the same way in both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bayescomp.core.jsonable import jsonable
from bayescomp.report.templating import figure_of, png_b64, render

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import Posterior, Result

_DPI = 72  # a small inline plot


def _plot(result: Any) -> str | None:
    try:
        return png_b64(figure_of(result.plot()), dpi=_DPI)
    except Exception:  # a display must not fail because a plot cannot be drawn
        return None


def _table(frame: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows and columns of a summary; a one-row summary is shown as ``quantity, value``."""
    if len(frame) == 1:
        rec = jsonable(frame.iloc[0].to_dict())
        return [{"quantity": k, "value": v} for k, v in rec.items()], ["quantity", "value"]
    frame = (
        frame.reset_index()
        if frame.index.name or not frame.index.equals(frame.index.__class__(range(len(frame))))
        else frame
    )
    rows = [{str(k): v for k, v in jsonable(r).items()} for r in frame.to_dict("records")]
    return rows, [str(c) for c in frame.columns]


def posterior_html(res: Posterior, gamma: float = 0.95) -> str:
    """The notebook card of a posterior (a :class:`~bayescomp.core.protocols.Posterior`):
    the comparison, its decision at ``gamma`` with the reason, the summary, the plot."""
    d = res.decision(gamma)
    subtitle = type(res).__name__ + (f" on {res.metric}" if res.metric else "")
    return _card(
        res,
        f"{res.candidate_name} vs {res.baseline_name}",
        subtitle,
        outcome=d.outcome,
        reason=d.reason,
    )


def slices_html(res: Any) -> str:
    """The forest plot of a comparison's slice guardrail (``res.plot_slices()``)."""
    png = png_b64(figure_of(res.plot_slices()), dpi=_DPI)
    return f"<img alt='slices' src='data:image/png;base64,{png}'>"


def result_html(result: Result, title: str | None = None, reason: str | None = None) -> str:
    """The notebook card of any other :class:`~bayescomp.core.protocols.Result` (an
    interval, curves, a ranking): the title, a one-line description, the summary, the plot."""
    return _card(result, title or type(result).__name__, "", outcome=None, reason=reason)


def _card(
    result: Result, title: str, subtitle: str, *, outcome: str | None, reason: str | None
) -> str:
    rows, columns = _table(result.summary())
    return render(
        "card.html.j2",
        title=title,
        subtitle=subtitle,
        outcome=outcome,
        reason=reason,
        rows=rows,
        columns=columns,
        fmt={},
        plot=_plot(result),
    )


def selection_html(sel: Any) -> str:
    """The notebook card of a :class:`~bayescomp.studies.selection.Selection`."""
    steps = [dict(r) for r in sel.steps.to_dict("records")]
    return render("selection_card.html.j2", sel=sel, steps=steps, plot=_plot(sel))


def scores_html(scores: Any) -> str:
    """The notebook card of a :class:`~bayescomp.scores.table.Scores` table: its size and
    the mean of every metric per dataset and model (with the number of splits)."""
    f = scores.to_frame()
    g = f.groupby(["dataset", "model"], sort=False)
    means = g[scores.metrics].mean().join(g.size().rename("splits")).reset_index()
    rows = [{str(k): v for k, v in jsonable(r).items()} for r in means.to_dict("records")]
    n_ds, n_m = len(scores.datasets), len(scores.models)
    return render(
        "card.html.j2",
        title="Scores",
        subtitle=f"{n_ds} dataset(s) × {n_m} model(s), {len(f)} rows; each metric is the mean over the splits",
        outcome=None,
        reason=None,
        rows=rows,
        columns=["dataset", "model", "splits", *map(str, scores.metrics)],
        fmt=dict.fromkeys(map(str, scores.metrics), ".4f"),
        plot=None,
    )
