"""The pull-request check: the comment ``select``/``compare --comment-file`` write, and its
upsert (``python -m bayescomp.integrations.github --file PATH --repo OWNER/NAME --pr N``,
run by ``action.yml``): one comment per pull request, found by :data:`MARKER`, edited in place.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from datetime import UTC
from pathlib import Path
from typing import Any

from bayescomp.core.margins import rope_label
from bayescomp.core.regions import format_probability as fp

#: the hidden line that marks bayescomp's comment on a pull request
MARKER = "<!-- bayescomp -->"


def slice_lines(results: list[Any]) -> list[str]:
    """Per candidate under a slice guardrail (``--slice``): P(no slice worse) and the slices
    most likely worse, with their rows, posterior mean, 95 % interval and P(worse)."""
    lines = []
    for r in results:
        s = getattr(r, "slices", None)
        if s is None or not hasattr(s, "per_slice"):
            continue
        f = s.per_slice.sort_values("p_worse", ascending=False).head(5)
        lines += ["", f"**Slices of `{r.candidate_name}`** (slice ROPE ±{float(s.rope):g}): "]
        lines[-1] += f"P(no slice worse) = {s.p_no_slice_worse:.3f}, needed ≥ {r.slice_gamma:g}"
        lines += ["", "| slice | rows | mean difference | 95% interval | P(worse) |"]
        lines += ["|---|---:|---:|---|---:|"]
        lines += [
            f"| {str(x.slice).replace('|', '/')} | {x.rows} | {x.mean:+.4g} | "
            f"[{x.hdi_95_low:+.4g}, {x.hdi_95_high:+.4g}] | {x.p_worse:.3f} |"
            for x in f.itertuples()
        ]
    return lines


def baseline_age(store: Any, baseline: str) -> str | None:
    """How old the baseline's newest stored fit is (``--store``), e.g. ``"3 d 4 h"``."""
    if not store or not Path(store).is_file():
        return None
    from datetime import datetime

    from bayescomp.studies.store import ResultStore

    sql = "SELECT MAX(finished_at) AS t FROM fits WHERE model = ? AND error IS NULL"
    with ResultStore(store) as st:
        t = st.query(sql, (baseline,))["t"].iloc[0]
    if t is None:
        return None
    age = datetime.now(UTC) - datetime.fromisoformat(t.replace("Z", "+00:00"))
    return f"{age.days} d {age.seconds // 3600} h"


def comment(head: str, rows: list[tuple[Any, str, str]], rope: Any, gamma: float, age: Any) -> str:
    """``head``, a row per ``(posterior, decision, reason)``, the ROPE, slices, baseline age."""
    lines = [MARKER, f"### bayescomp: {head}", ""]
    lines += ["| candidate | decision | P(better beyond ROPE) | P(ROPE) | P(worse beyond ROPE) "]
    lines[-1] += "| mean difference | 95% interval |\n|---|---|---:|---:|---:|---:|---|"
    for r, outcome, _ in rows:
        lo, hi = r.hdi(0.95)
        p = (fp(x, gamma) for x in (r.p_right, r.p_rope, r.p_left))
        lines.append(
            f"| {str(r.candidate_name).replace('|', '/')} | **{outcome}** | {' | '.join(p)} | "
            f"{float(r.expected_gain):+.4g} | [{lo:+.4g}, {hi:+.4g}] |"
        )
    if rows:
        base, half = rows[0][0].baseline_name, float(rows[0][0].rope)
        lines += ["", f"baseline `{base}` · ROPE {rope_label(rope, half)} · γ = {gamma:g}"]
    lines += ["", *(f"- {r.candidate_name}: {why}" for r, _, why in rows)]
    lines += slice_lines([r for r, _, _ in rows])
    return "\n".join([*lines, *([f"\nBaseline fits stored {age} ago."] if age else []), ""])


def selection_comment(sel: Any, store: Any = None) -> str:
    """A selection's comment: its recommendation and every step's posterior."""
    steps = zip(sel.results, sel.steps.to_dict("records"), strict=True)
    rows = [(r, s["decision"], s["reason"]) for r, s in steps if r is not None]
    rec = sel.recommendation
    head = f"**{rec['action']} {sel.champion}**\n\n{rec['text']}"
    return comment(head, rows, sel.rope, sel.gamma, baseline_age(store, sel.baseline))


def _call(method: str, url: str, token: str, body: str | None = None) -> tuple[Any, Any]:
    data = None if body is None else json.dumps({"body": body}).encode()
    auth = {"Accept": "application/vnd.github+json", "Authorization": f"Bearer {token}"}
    req = urllib.request.Request(url, data=data, method=method, headers=auth)
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read() or b"null"), resp.headers


def upsert_comment(body: str, repo: str, pr: int, token: str, api: str | None = None) -> dict:
    """Edit the pull request's comment holding :data:`MARKER` (read every page), else post."""
    api = (api or os.environ.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    if MARKER not in body:
        body = f"{MARKER}\n{body}"
    issues = f"{api}/repos/{repo}/issues"
    url: str | None = f"{issues}/{int(pr)}/comments?per_page=100"
    while url:
        page, headers = _call("GET", url, token)
        for c in page:
            if MARKER in (c.get("body") or ""):
                return _call("PATCH", f"{issues}/comments/{c['id']}", token, body)[0]
        url = next(iter(re.findall(r'<([^>]+)>;\s*rel="next"', headers.get("Link") or "")), None)
    return _call("POST", f"{issues}/{int(pr)}/comments", token, body)[0]


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m bayescomp.integrations.github")
    for flag, kind in (("--file", str), ("--repo", str), ("--pr", int)):  # OWNER/NAME, number
        p.add_argument(flag, required=True, type=kind)
    args = p.parse_args(argv)
    if not os.environ.get("GITHUB_TOKEN"):
        p.error("set GITHUB_TOKEN (the workflow's token, with pull-requests: write)")
    text = Path(args.file).read_text(encoding="utf-8")
    print(upsert_comment(text, args.repo, args.pr, os.environ["GITHUB_TOKEN"]).get("html_url"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
