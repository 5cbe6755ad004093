"""The one Markdown renderer: a comparison or a selection as the pull-request comment
(``--comment-file``, ``--format markdown``, ``$GITHUB_STEP_SUMMARY``), every user's text
through :func:`escape`.  ``integrations/github.py`` only sends it.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from bayescomp.core.margins import Absolute
from bayescomp.core.regions import format_probability as fp

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.margins import Margin

#: the hidden line that marks bayescomp's comment on a pull request (once, at the top)
MARKER = "<!-- bayescomp -->"
#: characters after which a zero-width space keeps GitHub from linking (mentions, issues)
_UNLINK = "@#"
#: the longest user's text a comment shows (GitHub refuses comments over 65,536 characters)
MAX_TEXT = 200


def escape(value: Any, limit: int = MAX_TEXT) -> str:
    """A user's text (a model, slice, metric name, a reason naming them) as inert Markdown:
    one line, HTML tags and comments as entities, every ASCII punctuation mark backslash-
    escaped (no emphasis, link, image, heading, code or table cell boundary), no mention or
    issue link, at most ``limit`` characters.

    Examples
    --------
    >>> escape("a|b*c"), escape("<!-- x -->"), escape("@octocat")
    ('a\\\\|b\\\\*c', '&lt;\\\\!\\\\-\\\\- x \\\\-\\\\-&gt;', '@\\u200boctocat')
    """
    text = " ".join(str(value).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    out = []
    for ch in text:
        if ch in "<>&":
            out.append(html.escape(ch))
        elif ch in _UNLINK:
            out.append(ch + "\u200b")
        elif ch.isascii() and not ch.isalnum() and ch != " " and ch.isprintable():
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def _cell(v: Any, spec: str = ".3f") -> str:
    """One table cell: numbers formatted, text escaped, missing values as a dash."""
    if v is None or (isinstance(v, float) and v != v):
        return "—"
    return format(v, spec) if isinstance(v, float) else escape(v)


def _table(columns: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    rule = align or "|" + "---|" * len(columns)
    return ["| " + " | ".join(columns) + " |", rule, *("| " + " | ".join(r) + " |" for r in rows)]


def slice_lines(results: list[Any]) -> list[str]:
    """Per candidate under a slice guardrail (``--slice``): P(no slice worse) and the slices
    most likely worse, with their rows, posterior mean, 95 % interval and P(worse)."""
    lines = []
    for r in results:
        s = r.guards().get("slices")
        if s is None:
            continue
        f = s.per_slice.sort_values("p_worse", ascending=False).head(5)
        lines += [
            "",
            f"**Slices of {escape(r.candidate_name)}** (slice ROPE {Absolute(s.rope).label()}): ",
        ]
        lines[-1] += f"P(no slice worse) = {s.p_no_slice_worse:.3f}, needed ≥ {s.slice_gamma:g}"
        cols = ["slice", "rows", "mean difference", "95% interval", "P(worse)"]
        rows = [
            [
                escape(x.slice),
                str(x.rows),
                f"{x.mean:+.4g}",
                f"[{x.hdi_95_low:+.4g}, {x.hdi_95_high:+.4g}]",
                f"{x.p_worse:.3f}",
            ]
            for x in f.itertuples()
        ]
        lines += ["", *_table(cols, rows, "|---|---:|---:|---|---:|")]
    return lines


def used_variances(results: list[Any]) -> list[str]:
    """The variances the t-tests used other than the split variance (their records say)."""
    return sorted({r.to_dict().get("variance", "split") for r in results} - {"split"})


def comparison_markdown(
    rows: list[tuple[Any, str, str]], rope: Margin, gamma: float, head: str | None = None
) -> str:
    """The comment of a comparison: a row per ``(posterior, decision, reason)``, each
    candidate's ROPE, the reasons and the slices."""
    if head is None:
        head = ", ".join(f"{escape(r.candidate_name)} **{o}**" for r, o, _ in rows)
    labels = [rope.label(r.half_width) for r, _, _ in rows]
    each = len(set(labels)) > 1  # a margin resolved per candidate: a column of its own
    cols = ["candidate", "decision", "P(better beyond ROPE)", "P(ROPE)", "P(worse beyond ROPE)"]
    cols += ["mean difference", "95% interval", *(["ROPE"] if each else [])]
    table = []
    for (r, outcome, _), label in zip(rows, labels, strict=True):
        lo, hi = r.hdi(0.95)
        p = [fp(x, gamma) for x in (r.p_right, r.p_rope, r.p_left)]
        gain, interval = f"{float(r.expected_gain):+.4g}", f"[{lo:+.4g}, {hi:+.4g}]"
        row = [escape(r.candidate_name), f"**{escape(outcome)}**", *p, gain, interval]
        table.append([*row, *([label] if each else [])])
    lines = [MARKER, f"### bayescomp: {head}", ""]
    lines += _table(cols, table, "|---|---|---:|---:|---:|---:|---|" + "---|" * each)
    if rows:
        rope_text = "ROPE per candidate (its column)" if each else f"ROPE {labels[0]}"
        lines += [
            "",
            f"baseline {escape(rows[0][0].baseline_name)} · {rope_text} · γ = {gamma:g}"
            + "".join(f" · variance {v}" for v in used_variances([r for r, _, _ in rows])),
        ]
    lines += ["", *(f"- {escape(r.candidate_name)}: {escape(why, 2000)}" for r, _, why in rows)]
    return "\n".join([*lines, *slice_lines([r for r, _, _ in rows]), ""])


def selection_markdown(sel: Any, age: str | None = None) -> str:
    """A selection's comment: the recommendation, the steps table, every step's reason, the
    slices of its candidates and the age of the baseline's fits (``age``: ``"3 d 4 h"``)."""
    rec = sel.recommendation
    head = "promote" if rec["action"] == "promote" else "keep"
    label = sel.rope.label()
    lines = [
        MARKER,
        f"## bayescomp selection: **{head} {escape(sel.champion)}**",
        "",
        escape(rec["text"], 2000),
        "",
        f"metric {escape(sel.metric)} · ROPE {label} · γ = {sel.gamma:g} · rule "
        f"{escape(rec.get('rule', 'champion_challenger'))} · baseline {escape(sel.baseline)}",
        "",
    ]
    shown = list(sel.steps.columns)[: list(sel.steps.columns).index("decision") + 1]
    cols = [c for c in shown if not c.endswith("_score")]  # the steps table's, to decision
    rows = []
    for r in sel.steps.to_dict("records"):
        probs = ("—" if r[c] != r[c] else fp(r[c], sel.gamma) for c in cols[3:8])
        gain = _cell(float(r["expected_gain"]), "+.4f")
        row = [str(int(r["step"])), _cell(r["champion"]), _cell(r["challenger"]), *probs, gain]
        rows.append([*row, f"**{_cell(r['decision'])}**"])
    lines += _table(cols, rows or [["—"] * len(cols)])
    lines += ["", "<details><summary>why</summary>", ""]
    lines += [
        f"- step {int(r['step'])}: {escape(r['reason'], 2000)}"
        for r in sel.steps.to_dict("records")
    ]
    lines += ["", "</details>", *slice_lines([r for r in sel.results if r is not None])]
    return "\n".join([*lines, *([f"\nBaseline fits stored {age} ago."] if age else []), ""])


def watch_markdown(res: Any, last: int = 10) -> str:
    """A watched comparison (``bayescomp watch --comment-file``) as the pull-request comment:
    its decision and its last ``last`` looks."""
    p = res.plan
    at = f" at {res.decided_at} items" if res.decided_at is not None else ""
    lines = [
        MARKER,
        f"## bayescomp watch: {escape(p.candidate)} vs {escape(p.baseline)} ({escape(p.metric)})",
        "",
        f"**{res.decision}**{at}: estimate {_cell(res.estimate, '+.4f')}, {100 * p.gamma:g} % "
        f"confidence sequence [{_cell(res.lower, '+.4f')}, {_cell(res.upper, '+.4f')}], margin "
        f"{Absolute(p.margin).label()} ({res.method}); {res.n_items} labelled items read.",
        "",
    ]
    rows = [
        [
            str(int(k.items)),
            _cell(k.estimate, "+.4f"),
            f"[{k.lower:+.4f}, {k.upper:+.4f}]",
            k.decision,
        ]
        for k in res.looks.tail(last).itertuples()
    ]
    lines += _table(["items", "estimate", "sequence", "decision"], rows)
    if len(res.looks) > last:
        lines += ["", f"{len(res.looks) - last} earlier looks are in the report (--report)."]
    return "\n".join(lines) + "\n"
