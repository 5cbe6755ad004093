"""A selection as GitHub-flavoured Markdown, for CI job summaries (``$GITHUB_STEP_SUMMARY``)."""

from __future__ import annotations

from typing import Any

from bayescomp.core.regions import format_probability
from bayescomp.decision.walk import STEP_COLUMNS


def _cell(v: Any, spec: str = ".3f") -> str:
    """One table cell: numbers formatted, text with ``|``, newlines and markup neutralised."""
    if v is None or (isinstance(v, float) and v != v):
        return "—"
    if isinstance(v, float):
        return format(v, spec)
    text = str(v).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    for ch in "*_`[]<>":
        text = text.replace(ch, "\\" + ch)
    return text


def selection_markdown(sel: Any) -> str:
    """The recommendation, the steps table and every step's reason as Markdown.

    Examples
    --------
    >>> _cell("a|b*c"), _cell(0.12345), _cell(float("nan"))
    ('a\\\\|b\\\\*c', '0.123', '—')
    """
    rec = sel.recommendation
    head = "promote" if rec["action"] == "promote" else "keep"
    lines = [
        f"## bayescomp selection: **{head} {_cell(sel.champion)}**",
        "",
        f"{_cell(rec['text'])}",
        "",
        f"metric `{sel.metric}` · ROPE ±{sel.rope:g} · γ = {sel.gamma:g} · rule "
        f"{_cell(str(rec.get('rule', 'champion_challenger')))} · baseline {_cell(sel.baseline)}",
        "",
    ]
    cols = STEP_COLUMNS[: STEP_COLUMNS.index("decision") + 1]
    lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in sel.steps.to_dict("records"):
        cells = [
            str(int(r["step"])),
            _cell(r["champion"]),
            _cell(r["challenger"]),
            *(
                "—" if r[c] != r[c] else format_probability(r[c], sel.gamma)
                for c in ("p_better", "p_left", "p_rope", "p_right", "risk")
            ),
            _cell(float(r["expected_gain"]), "+.4f"),
            f"**{_cell(r['decision'])}**",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if sel.steps.empty:
        lines.append("| " + " | ".join(["—"] * len(cols)) + " |")
    lines += ["", "<details><summary>why</summary>", ""]
    lines += [
        f"- step {int(r['step'])}: {_cell(r['reason'])}" for r in sel.steps.to_dict("records")
    ]
    lines += ["", "</details>", ""]
    return "\n".join(lines)
