"""A self-contained HTML report of a champion/challenger selection.

:func:`write_selection_report` writes into one folder:

* ``report.html`` — opens offline in any browser: every plot is embedded as a
  base64 PNG and the style sheet is inline;
* ``timeline.png``, ``step_NN_posterior.png``, ``step_NN_scores.png`` — the same
  plots as files;
* ``selection.json`` — the machine-readable record (:meth:`Selection.to_dict`).

The page is rendered from the package's jinja2 templates (:mod:`bayescomp.report.templating`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from bayescomp.core.tally import win_loss_tie
from bayescomp.report.templating import figure_of, png_b64, render


def write_selection_report(sel: Any, directory: str | Path) -> Path:
    """Write the HTML report, PNGs and JSON of a selection into ``directory``.

    The page is ``templates/report.html.j2`` (autoescaped jinja2), sharing its macros and
    style sheet with the notebook display of the results.  Returns the path of
    ``report.html``.
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    record = sel.to_dict(include_scores=True)
    (out / "selection.json").write_text(json.dumps(record, indent=2, allow_nan=False))

    timeline_png = png_b64(figure_of(sel.plot()), out / "timeline.png")
    cv = sel.settings.get("cv", "")
    design = "; ".join(f"{k}: {v}" for k, v in cv.items()) if isinstance(cv, dict) else str(cv)
    timeline = [
        {
            "champion": t["champion"],
            "from step": t["from_step"],
            "until step": "end" if t["to_step"] is None else t["to_step"],
            "why": t["why"],
        }
        for t in sel.timeline()
    ]
    steps = [_step(sel, i, step, out) for i, step in enumerate(record["steps"], start=1)]
    candidates = [{**r, f"mean {sel.metric}": r.get("mean")} for r in record["candidates"]]
    html = render(
        "report.html.j2",
        sel=sel,
        record=record,
        design=design,
        timeline=timeline,
        timeline_png=timeline_png,
        steps=steps,
        candidates=candidates,
        written=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    )
    path = out / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


def _step(sel: Any, i: int, step: dict[str, Any], out: Path) -> dict[str, Any]:
    """Context of step ``i``: its row, two plots (also written as PNGs) and paired scores."""
    tag = f"step_{i:02d}"
    ctx: dict[str, Any] = {"i": i, "tag": tag, "row": step, "posterior_png": None}
    if sel.results[i - 1] is None:
        return ctx
    ctx["posterior_png"] = png_b64(sel.plot_step(i).figure, out / f"{tag}_posterior.png")
    ctx["scores_png"] = png_b64(sel.plot_scores(i).figure, out / f"{tag}_scores.png")
    champ, chall = step["champion"], step["challenger"]
    ctx["paired"] = [
        {
            "dataset": r["dataset"],
            "split": r["split"],
            champ: r["champion"],
            chall: r["challenger"],
            "difference": r["challenger"] - r["champion"],
        }
        for r in step["paired_scores"]
    ]
    ctx["columns"] = ["dataset", "split", champ, chall, "difference"]
    tally = win_loss_tie(
        [r["champion"] for r in step["paired_scores"]],
        [r["challenger"] for r in step["paired_scores"]],
        bool(sel.results[i - 1].higher_is_better),
    )
    ctx["tally"] = tally.text(chall, champ)
    ctx["fmt"] = {"difference": "+.4f", champ: ".4f", chall: ".4f"}
    return ctx
