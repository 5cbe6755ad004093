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
    data = "; ".join(
        ("" if k == "path" else f"{k} ")
        + (", ".join(map(str, v)) if isinstance(v, list) else str(v))
        for k, v in (sel.settings.get("data") or {}).items()
        if v not in (None, [])
    )
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
    used = dict.fromkeys(s["row"].get("method") for s in steps if s["row"].get("method"))
    candidates = [{**r, f"mean {sel.metric}": r.get("mean")} for r in record["candidates"]]
    html = render(
        "report.html.j2",
        sel=sel,
        record=record,
        design=design,
        data=data,
        timeline=timeline,
        timeline_png=timeline_png,
        steps=steps,
        candidates=candidates,
        methods=[METHOD_NAMES.get(m, m) for m in used],
        written=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    )
    path = out / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


#: the posterior of each compare method, as the report names it
METHOD_NAMES: dict[str, str] = {
    "ttest": "Bayesian correlated t-test (Benavoli et al. 2017), closed form",
    "correlated_ttest": "Bayesian correlated t-test (Benavoli et al. 2017), closed form",
    "hierarchical": "Bayesian hierarchical model across datasets (Corani et al. 2017), MCMC",
    "multivariate": "joint correlated t-test of the metric and its guardrails, closed form",
    "sign": "Bayesian sign test across datasets (Benavoli et al. 2014)",
    "signed_rank": "Bayesian signed-rank test across datasets (Benavoli et al. 2014)",
    "time_ordered": "time-ordered windows with AR(1) correlation",
}


def how_decided(method: str | None, diag: dict[str, Any]) -> str:
    """One line saying which posterior decided a step and, for a sampled one, the sampler
    that ran and its convergence: R-hat, bulk ESS, divergences, attempts and seconds, and
    why each retry was run.

    Examples
    --------
    >>> how_decided("hierarchical", {"max_r_hat": 1.0031, "min_ess_bulk": 812.4,
    ...     "divergences": 0, "attempts": 2, "attempt_seconds": [12.0, 55.2],
    ...     "retry_notes": ["R-hat 1.030, 0 divergent transitions, worst bulk ESS 180 after "
    ...                     "1,000 draws: retrying with the centered parameterisation, "
    ...                     "target_accept 0.99, 2,000 tuning steps and 2,000 draws"],
    ...     "converged": True, "sampler": "fast"})  # doctest: +NORMALIZE_WHITESPACE
    'Posterior: Bayesian hierarchical model across datasets (Corani et al. 2017), MCMC
    (sampler fast) · max R-hat 1.003 · min bulk ESS 812 · divergences 0 · 2 attempts
    (1 retry: 12.0 s, 55.2 s) · converged · attempt 1: R-hat 1.030, 0 divergent transitions,
    worst bulk ESS 180 after 1,000 draws: retrying with the centered parameterisation,
    target_accept 0.99, 2,000 tuning steps and 2,000 draws'
    """
    if method is None:
        return "No posterior: the step could not be compared."
    text = f"Posterior: {METHOD_NAMES.get(method, method)}"
    if "max_r_hat" not in diag:
        return text
    n = int(diag.get("attempts", 1))
    secs = ", ".join(f"{t:.1f} s" for t in diag.get("attempt_seconds", []))
    retries = f"{n - 1} retr{'y' if n == 2 else 'ies'}: {secs}" if n > 1 else secs
    notes = "".join(
        f" · attempt {k}: {note}" for k, note in enumerate(diag.get("retry_notes", []), 1)
    )
    return (
        f"{text} (sampler {diag.get('sampler')}) · max R-hat {diag['max_r_hat']:.3f} · "
        f"min bulk ESS {diag['min_ess_bulk']:.0f} · divergences {diag['divergences']} · "
        f"{n} attempt{'s' if n > 1 else ''} ({retries}) · "
        + ("converged" if diag.get("converged") else "NOT converged: " + str(diag.get("problems")))
        + notes
    )


#: rows of a step's paired-scores table in the report (every one is in ``selection.json``)
MAX_PAIRED_ROWS = 200


def _step(sel: Any, i: int, step: dict[str, Any], out: Path) -> dict[str, Any]:
    """Context of step ``i``: its row, two plots (also written as PNGs) and paired scores."""
    tag = f"step_{i:02d}"
    ctx: dict[str, Any] = {
        "i": i,
        "tag": tag,
        "row": step,
        "posterior_png": None,
        "slices_png": None,
    }
    ctx["how"] = how_decided(step.get("method"), step.get("diagnostics") or {})
    if sel.results[i - 1] is None:
        return ctx
    ctx["posterior_png"] = png_b64(sel.plot_step(i).figure, out / f"{tag}_posterior.png")
    ctx["scores_png"] = png_b64(sel.plot_scores(i).figure, out / f"{tag}_scores.png")
    if "slices" in sel.results[i - 1].guards():  # the slice guardrail's forest plot
        fig = sel.results[i - 1].plot_slices().figure
        ctx["slices_png"] = png_b64(fig, out / f"{tag}_slices.png")
    champ, chall = step["champion"], step["challenger"]
    ctx["paired"] = [
        {
            "dataset": r["dataset"],
            "split": r["split"],
            champ: r["champion"],
            chall: r["challenger"],
            "difference": r["challenger"] - r["champion"],
        }
        for r in step["paired_scores"][:MAX_PAIRED_ROWS]
    ]
    items = str(sel.settings.get("cv", "")).startswith("one test set")
    ctx["unit"], ctx["n_paired"] = ("items" if items else "splits"), len(step["paired_scores"])
    ctx["columns"] = ["dataset", "item" if items else "split", champ, chall, "difference"]
    if items:
        ctx["paired"] = [{**r, "item": r.pop("split")} for r in ctx["paired"]]
    tally = win_loss_tie(
        [r["champion"] for r in step["paired_scores"]],
        [r["challenger"] for r in step["paired_scores"]],
        bool(sel.results[i - 1].higher_is_better),
    )
    ctx["tally"] = tally.text(chall, champ)
    ctx["fmt"] = {"difference": "+.4f", champ: ".4f", chall: ".4f"}
    return ctx
