"""A self-contained HTML report of a champion/challenger selection.

:func:`write_selection_report` writes into one folder:

* ``report.html`` — opens offline in any browser: every plot is embedded as a
  base64 PNG and the style sheet is inline;
* ``timeline.png``, ``step_NN_posterior.png``, ``step_NN_scores.png`` — the same
  plots as files;
* ``selection.json`` — the machine-readable record (:meth:`Selection.to_dict`).
"""

from __future__ import annotations

import base64
import html
import io
import json
import time
from pathlib import Path
from typing import Any

from bayescomp.core.tally import win_loss_tie

_CSS = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0 auto;
max-width:1100px;padding:24px 32px;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:0.2em} h2{border-bottom:1px solid #ddd;padding-bottom:4px;
margin-top:1.8em} .meta{color:#666;font-size:0.9em}
.rec{border-radius:6px;padding:14px 18px;margin:18px 0;font-size:1.08em}
.rec.promote{background:#e8f6ee;border-left:6px solid #27ae60}
.rec.keep{background:#f2f3f4;border-left:6px solid #7f8c8d}
.rec b.big{font-size:1.25em}
table{border-collapse:collapse;font-size:0.88em;margin:8px 0}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f7f7f7} td.num{text-align:right;font-variant-numeric:tabular-nums}
.d-promote{color:#1e8449;font-weight:bold}.d-reject{color:#c0392b;font-weight:bold}
.d-equivalent{color:#555;font-weight:bold}.d-inconclusive{color:#b9770e;font-weight:bold}
.d-error{color:#c0392b}
.plots{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
.plots img{max-width:100%;border:1px solid #eee}
details{margin:6px 0} summary{cursor:pointer;color:#2471a3}
.step{margin-bottom:28px}
"""


def _png(fig: Any, path: Path) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    data = buf.getvalue()
    path.write_bytes(data)
    return base64.b64encode(data).decode("ascii")


def _img(b64: str, alt: str, width: int | None = None) -> str:
    w = f' width="{width}"' if width else ""
    return f'<img alt="{html.escape(alt)}"{w} src="data:image/png;base64,{b64}">'


def _fmt(v: Any, spec: str = ".3f") -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return "—" if v != v else format(v, spec)
    return html.escape(str(v))


def _table(rows: list[dict[str, Any]], columns: list[str], fmt: dict[str, str] | None = None
           ) -> str:
    fmt = fmt or {}
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for r in rows:
        cells = []
        for c in columns:
            v = r.get(c)
            cls = ' class="num"' if isinstance(v, int | float) and not isinstance(v, bool) else ""
            if c == "decision":
                cls = f' class="d-{html.escape(str(v))}"'
            cells.append(f"<td{cls}>{_fmt(v, fmt.get(c, '.3f'))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def write_selection_report(sel: Any, directory: str | Path) -> Path:
    """Write the HTML report, PNGs and JSON of a selection into ``directory``.

    Returns the path of ``report.html``.
    """
    import matplotlib.pyplot as plt

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    record = sel.to_dict(include_scores=True)
    (out / "selection.json").write_text(json.dumps(record, indent=2, allow_nan=False))

    axes = sel.plot()
    fig = axes[0].figure if hasattr(axes, "__len__") else axes.figure
    timeline_b64 = _png(fig, out / "timeline.png")
    plt.close(fig)

    parts = _header(sel)
    parts += _timeline_section(sel, record, timeline_b64)
    for i, step in enumerate(record["steps"], start=1):
        parts += _step_section(sel, i, step, out)
    parts += _candidates_section(sel, record)
    parts.append("</body></html>")
    path = out / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def _header(sel: Any) -> list[str]:
    """Document head, the run's settings line and the recommendation box."""
    rec = sel.recommendation
    action = rec["action"]
    cv = sel.settings.get("cv", "")
    design = "; ".join(f"{k}: {v}" for k, v in cv.items()) if isinstance(cv, dict) else str(cv)
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>bayescomp selection — {html.escape(sel.champion)}</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Champion/challenger selection</h1>",
        f"<div class='meta'>metric <b>{html.escape(sel.metric)}</b> · ROPE ±{sel.rope:g} · "
        f"γ = {sel.gamma:g} · baseline <b>{html.escape(sel.baseline)}</b> · design "
        f"{html.escape(design)} · fits: {sel.fits_total} needed, "
        f"{sel.fits_performed} computed, {sel.fits_loaded} from the store"
        + (f" ({html.escape(sel.store)})" if sel.store else "")
        + f" · written {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}</div>",
        f"<div class='rec {action}'><b class='big'>Recommendation: "
        f"{'promote' if action == 'promote' else 'keep'} {html.escape(sel.champion)}</b><br>"
        f"{html.escape(rec['text'])}",
    ]
    if action == "promote":
        parts.append(
            f"<br>Risk that {html.escape(sel.champion)} is worse than "
            f"{html.escape(sel.baseline)}: <b>{rec['risk']:.3f}</b>; expected gain "
            f"<b>{rec['expected_gain']:+.4g}</b> {html.escape(sel.metric)}.")
    parts.append("</div>")
    return parts


def _timeline_section(sel: Any, record: dict[str, Any], timeline_b64: str) -> list[str]:
    """Who was champion when, the timeline plot, and the table of every step."""
    return [
        "<h2>Decision timeline</h2>",
        _table(
            [{"champion": t["champion"], "from step": t["from_step"],
              "until step": "end" if t["to_step"] is None else t["to_step"], "why": t["why"]}
             for t in sel.timeline()], ["champion", "from step", "until step", "why"]),
        f"<div class='plots'>{_img(timeline_b64, 'decision timeline')}</div>",
        "<h2>Steps</h2>",
        _table(record["steps"], ["step", "champion", "challenger", "champion_score",
                                 "challenger_score", "p_better", "p_left",
                                 "p_rope", "p_right", "risk", "expected_gain",
                                 "decision", "fits", "n_splits", "extra_repeats"],
               {"expected_gain": "+.4f", "champion_score": ".4f", "challenger_score": ".4f"}),
        f"<p class='meta'>champion_score, challenger_score: mean {html.escape(sel.metric)} of "
        "each model on the step's paired splits (what the posterior saw).</p>",
    ]


def _step_section(sel: Any, i: int, step: dict[str, Any], out: Path) -> list[str]:
    """Step ``i``: its decision, probabilities, two plots (also written as PNGs) and scores."""
    import matplotlib.pyplot as plt

    tag = f"step_{i:02d}"
    parts = [f"<div class='step' id='{tag}'><h2>Step {i}: "
             f"{html.escape(step['challenger'])} vs {html.escape(step['champion'])} — "
             f"<span class='d-{html.escape(step['decision'])}'>"
             f"{html.escape(step['decision'])}</span></h2>",
             f"<p>{html.escape(step['reason'])}</p>"]
    if sel.results[i - 1] is None:
        parts.append("</div>")
        return parts
    parts.append(
        f"<p>P(challenger worse beyond ROPE) = <b>{_fmt(step['p_left'])}</b> · "
        f"P(equivalent) = <b>{_fmt(step['p_rope'])}</b> · P(challenger better beyond ROPE) "
        f"= <b>{_fmt(step['p_right'])}</b> · P(better at all) = "
        f"<b>{_fmt(step['p_better'])}</b> · risk P(worse) = <b>{_fmt(step['risk'])}</b> · "
        f"expected gain <b>{_fmt(step['expected_gain'], '+.4g')}</b></p>")
    tally = win_loss_tie([r["champion"] for r in step["paired_scores"]],
                         [r["challenger"] for r in step["paired_scores"]],
                         bool(getattr(sel.results[i - 1], "higher_is_better", True)))
    parts.append(
        f"<p>mean {html.escape(sel.metric)}: {html.escape(step['champion'])} "
        f"<b>{_fmt(step.get('champion_score'), '.4f')}</b> · "
        f"{html.escape(step['challenger'])} <b>{_fmt(step.get('challenger_score'), '.4f')}</b>"
        f" · {html.escape(tally.text(step['challenger'], step['champion']))}</p>")
    ax = sel.plot_step(i)
    post = _png(ax.figure, out / f"{tag}_posterior.png")
    plt.close(ax.figure)
    ax = sel.plot_scores(i)
    pair = _png(ax.figure, out / f"{tag}_scores.png")
    plt.close(ax.figure)
    parts.append(f"<div class='plots'>{_img(post, f'posterior of step {i}', 620)}"
                 f"{_img(pair, f'paired scores of step {i}', 380)}</div>")
    rows = [{"dataset": r["dataset"], "split": r["split"], step["champion"]: r["champion"],
             step["challenger"]: r["challenger"],
             "difference": r["challenger"] - r["champion"]}
            for r in step["paired_scores"]]
    parts.append(f"<details><summary>per-split paired scores ({len(rows)} splits)</summary>"
                 + _table(rows, ["dataset", "split", step["champion"], step["challenger"],
                                 "difference"], {"difference": "+.4f",
                                                 step["champion"]: ".4f",
                                                 step["challenger"]: ".4f"})
                 + "</details></div>")
    return parts


def _candidates_section(sel: Any, record: dict[str, Any]) -> list[str]:
    """The candidate models, skipped model files, and how to read the report."""
    score = f"mean {sel.metric}"
    rows = [{**r, score: r.get("mean")} for r in record["candidates"]]
    parts = [
        "<h2>Candidates</h2>",
        _table(rows, ["model", score, "description", "nested", "status"], {score: ".4f"}),
        f"<p class='meta'>{html.escape(score)}: over every split of the base design.</p>",
        "<p class='meta'>nested = the model tunes itself; it was evaluated by nested "
        "cross-validation (tuning saw only each outer training fold). The hyperparameters chosen "
        "inside the outer folds are not used for production: the production model is the winning "
        "procedure refitted on all the data.</p>",
    ]
    if sel.skipped:
        parts.append("<h2>Skipped model files</h2><ul>" + "".join(
            f"<li><b>{html.escape(k)}</b>: {html.escape(v)}</li>" for k, v in sel.skipped.items())
            + "</ul>")
    parts.append("<p class='meta'>Machine-readable record: <code>selection.json</code>. "
                 "Posterior: Bayesian correlated t-test (Benavoli et al. 2017) unless stated "
                 "otherwise; decision rule: promote if P(Δ &gt; ROPE) ≥ γ, reject if P(Δ &lt; "
                 "−ROPE) ≥ γ, equivalent if P(|Δ| ≤ ROPE) ≥ γ, else inconclusive.</p>")
    return parts
