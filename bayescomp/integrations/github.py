"""The pull-request check's upsert: the comment ``select``/``compare --comment-file`` write
(``report/markdown.py``) sent by ``python -m bayescomp.integrations.github --file PATH --repo
OWNER/NAME --pr N`` (``action.yml``): one comment per pull request, found by :data:`MARKER`
and edited in place.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from pathlib import Path
from typing import Any

from bayescomp.report.markdown import MARKER

__all__ = ["MARKER", "main", "upsert_comment"]


def _call(method: str, url: str, token: str, body: str | None = None) -> tuple[Any, Any]:
    data = None if body is None else json.dumps({"body": body}).encode()
    auth = {"Accept": "application/vnd.github+json", "Authorization": f"Bearer {token}"}
    req = urllib.request.Request(url, data=data, method=method, headers=auth)
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read() or b"null"), resp.headers


def upsert_comment(body: str, repo: str, pr: int, token: str, api: str | None = None) -> dict:
    """Edit the pull request's comment holding :data:`MARKER` (read every page), else post."""
    api = (api or os.environ.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    if not body.startswith(MARKER) or body.count(MARKER) > 1:  # the marker once, on top
        body = f"{MARKER}\n" + body.replace(MARKER, "").lstrip("\n")
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
