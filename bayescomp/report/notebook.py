"""Rich display of results in Jupyter: ``_repr_html_`` of every result renders here.

One card per result — the key numbers, the decision with its reason, a small inline
plot — from the same jinja2 templates as the HTML report (:mod:`.templating`), so
names from user data are escaped the same way in both.
"""

from __future__ import annotations

from typing import Any

from bayescomp.report.templating import png_b64, render

_DPI = 72  # a small inline plot


def _figure(drawn: Any) -> Any:
    """The figure of what a ``plot()`` method returned (an Axes or an array of them)."""
    if hasattr(drawn, "figure"):
        return drawn.figure
    return next(iter(getattr(drawn, "flat", drawn))).figure


def _plot(result: Any) -> str | None:
    try:
        return png_b64(_figure(result.plot()), dpi=_DPI)
    except Exception:  # a display must not fail because a plot cannot be drawn
        return None


def _table(frame: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows and columns of a summary; a one-row summary is shown as ``quantity, value``."""
    import numpy as np

    def plain(v: Any) -> Any:
        return v.item() if isinstance(v, np.generic) else v

    if len(frame) == 1:
        rec = frame.iloc[0].to_dict()
        return [{"quantity": k, "value": plain(v)} for k, v in rec.items()], ["quantity", "value"]
    frame = frame.reset_index() if frame.index.name or not frame.index.equals(
        frame.index.__class__(range(len(frame)))) else frame
    rows = [{str(k): plain(v) for k, v in r.items()} for r in frame.to_dict("records")]
    return rows, [str(c) for c in frame.columns]


def result_html(result: Any, gamma: float = 0.95) -> str:
    """The notebook card of a posterior, a ranking or a metric interval."""
    if hasattr(result, "candidate_name"):
        title = f"{result.candidate_name} vs {result.baseline_name}"
        metric = getattr(result, "metric", None)
        subtitle = f"{type(result).__name__}" + (f" on {metric}" if metric else "")
    else:
        title, subtitle = type(result).__name__, ""
    outcome = reason = None
    try:
        d = result.decision(gamma)
        outcome, reason = d.outcome, d.reason
    except (AttributeError, TypeError, ValueError):  # no decision (intervals, vectorised)
        text = str(result)
        reason = text if "\n" not in text and not text.startswith("<") else None
    try:
        summary = result.summary(gamma=gamma)
    except TypeError:
        summary = result.summary()
    rows, columns = _table(summary)
    return render("card.html.j2", title=title, subtitle=subtitle, outcome=outcome,
                  reason=reason, rows=rows, columns=columns, fmt={}, plot=_plot(result))


def selection_html(sel: Any) -> str:
    """The notebook card of a :class:`~bayescomp.studies.selection.Selection`."""
    steps = [dict(r) for r in sel.steps.to_dict("records")]
    return render("selection_card.html.j2", sel=sel, steps=steps, plot=_plot(sel))
