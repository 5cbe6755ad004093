"""The pull-request check (issue 33): the comment's numbers, its upsert against a fake
GitHub API on 127.0.0.1 (GitHub itself is not reachable from tests), the exit codes and
the composite action's structure."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.cli.main import main
from bayescomp.core.regions import format_probability
from bayescomp.integrations import github

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def scores_csv(tmp_path):
    i = np.arange(20)
    base = 0.80 + 0.01 * np.sin(i)
    f = pd.DataFrame(
        {"model": np.repeat(["lr", "gbm", "coin"], 20), "split": np.tile(i, 3)}
        | {"n_train": 90, "n_test": 10}
        | {
            "accuracy": np.r_[
                base, base * 1.03 + 0.002 * np.cos(i), base + 0.004 + 0.02 * np.cos(3 * i)
            ]
        }
    )
    f.to_csv(tmp_path / "s.csv", index=False)
    return tmp_path / "s.csv"


def _table_rows(text):
    rows = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| ")]
    return {r[0].strip(): [c.strip() for c in r[1:]] for r in rows[1:]}


def test_compare_comment_holds_the_posterior(scores_csv, tmp_path, capsys):
    out = tmp_path / "c.md"
    argv = ["compare", str(scores_csv), "--baseline", "lr", "--rope", "1%"]
    assert main([*argv, "--comment-file", str(out), "--fail-unless", "promote"]) == 1  # coin
    text = out.read_text()
    assert text.startswith(github.MARKER + "\n") and "ROPE ±1 % (relative;" in text
    rows = _table_rows(text)
    scores = bc.Scores.read_csv(scores_csv)
    for name in ("gbm", "coin"):
        res = bc.compare(scores, "lr", name, rope="1%")
        d = res.decision(0.95)
        lo, hi = res.hdi(0.95)
        assert rows[name][0] == f"**{d.outcome}**"
        assert rows[name][1:4] == [
            format_probability(p, 0.95) for p in (d.p_right, d.p_rope, d.p_left)
        ]
        assert rows[name][4:] == [f"{float(res.expected_gain):+.4g}", f"[{lo:+.4g}, {hi:+.4g}]"]
    assert rows["gbm"][0] == "**promote**" and rows["coin"][0] == "**inconclusive**"
    assert (
        main([*argv, "--candidate", "gbm", "--comment-file", str(out), "--fail-unless", "promote"])
        == 0
    )


def test_compare_format_markdown_prints_the_comment(scores_csv, tmp_path, capsys):
    argv = ["compare", str(scores_csv), "--baseline", "lr", "--rope", "0.005"]
    assert main([*argv, "--format", "markdown", "--comment-file", str(tmp_path / "c.md")]) == 0
    assert capsys.readouterr().out == (tmp_path / "c.md").read_text() + "\n"
    f = pd.read_csv(scores_csv).assign(auc=lambda d: d["accuracy"])
    f.to_csv(tmp_path / "two.csv", index=False)
    guarded = ["compare", str(tmp_path / "two.csv"), "--baseline", "lr", "--metric", "accuracy"]
    guarded += ["--rope", "0.005", "--guardrail", "auc:0.01", "--format", "markdown"]
    assert main(guarded) == 2 and "not --guardrail" in capsys.readouterr().err


def test_select_comment_and_exit_status(scores_csv, tmp_path, capsys):
    out = tmp_path / "s.md"
    argv = [
        "select",
        str(scores_csv),
        "--baseline",
        "lr",
        "--rope",
        "0.005",
        "--format",
        "markdown",
    ]
    assert main([*argv, "--comment-file", str(out), "--fail-unless", "promote"]) == 0
    text = out.read_text()
    assert "**promote gbm**" in text and github.MARKER in text and "ROPE ±0.005" in text
    assert "Baseline fits stored" not in text  # a scores CSV: no store, no age
    assert main([*argv, "--comment-file", str(out), "--fail-unless", "keep"]) == 1


def test_baseline_age_from_a_store(tmp_path):
    """The age of the baseline's newest stored fit (a fit written on 2020-01-01)."""
    import sqlite3

    from bayescomp.studies.store import ResultStore, baseline_age

    ResultStore(tmp_path / "runs.sqlite").close()  # the store's own schema
    con = sqlite3.connect(tmp_path / "runs.sqlite")
    con.execute(
        "INSERT INTO fits (dataset, model, split, params_hash, params, versions, finished_at) "
        "VALUES ('d', 'lr', 0, 'h', '{}', '{}', '2020-01-01T00:00:00Z')"
    )
    con.commit()
    con.close()
    age = baseline_age(tmp_path / "runs.sqlite", "lr")
    days = (pd.Timestamp.now(tz="UTC") - pd.Timestamp("2020-01-01", tz="UTC")).days
    assert age is not None and age.startswith(f"{days} d ")
    assert baseline_age(tmp_path / "runs.sqlite", "gbm") is None  # no fit of it
    assert baseline_age(None, "lr") is None


class FakeGitHub(BaseHTTPRequestHandler):
    """Issue comments of one pull request, two per page, as the REST API serves them."""

    comments: ClassVar[list[dict]] = []
    calls: ClassVar[list[tuple[str, str, str | None]]] = []

    def _send(self, code, payload, link=None):
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        if link:
            self.send_header("Link", link)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self):
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))["body"]

    def do_GET(self):
        self.calls.append(("GET", self.path, self.headers.get("Authorization")))
        m = re.search(r"[?&]page=(\d+)", self.path)
        page = int(m.group(1)) if m else 1
        chunk = self.comments[2 * (page - 1) : 2 * page]
        base = f"http://127.0.0.1:{self.server.server_port}/repos/o/r/issues/7/comments"
        more = len(self.comments) > 2 * page
        self._send(
            200, chunk, f'<{base}?per_page=100&page={page + 1}>; rel="next"' if more else None
        )

    def do_POST(self):
        body = self._body()
        self.calls.append(("POST", self.path, body))
        c = {"id": 100 + len(self.comments), "body": body, "html_url": "http://x/c"}
        self.comments.append(c)
        self._send(201, c)

    def do_PATCH(self):
        body = self._body()
        self.calls.append(("PATCH", self.path, body))
        cid = int(self.path.rsplit("/", 1)[1])
        c = next(c for c in self.comments if c["id"] == cid)
        c["body"] = body
        self._send(200, c)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_api():
    FakeGitHub.comments = [{"id": i, "body": f"review {i}"} for i in range(1, 6)]  # 3 pages
    FakeGitHub.calls = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeGitHub)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def test_upsert_posts_then_patches_the_same_comment(fake_api):
    first = github.upsert_comment("decision: promote", "o/r", 7, "tok", api=fake_api)
    gets = [c for c in FakeGitHub.calls if c[0] == "GET"]
    assert len(gets) == 3 and all(c[2] == "Bearer tok" for c in gets)  # every page read
    assert FakeGitHub.calls[-1][:2] == ("POST", "/repos/o/r/issues/7/comments")
    assert first["body"] == f"{github.MARKER}\ndecision: promote"
    FakeGitHub.calls.clear()
    second = github.upsert_comment(
        f"{github.MARKER}\ndecision: worse", "o/r", 7, "tok", api=fake_api
    )
    assert second["id"] == first["id"] and len(FakeGitHub.comments) == 6
    assert FakeGitHub.calls[-1][:2] == ("PATCH", f"/repos/o/r/issues/comments/{first['id']}")
    assert [c[0] for c in FakeGitHub.calls] == ["GET", "GET", "GET", "PATCH"]  # found on page 3
    assert FakeGitHub.comments[-1]["body"].endswith("decision: worse")


def test_upsert_command_line(fake_api, tmp_path, monkeypatch, capsys):
    (tmp_path / "c.md").write_text(f"{github.MARKER}\nhello")
    argv = ["--file", str(tmp_path / "c.md"), "--repo", "o/r", "--pr", "7"]
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    with pytest.raises(SystemExit) as exc:
        github.main(argv)
    assert exc.value.code == 2 and "GITHUB_TOKEN" in capsys.readouterr().err
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    monkeypatch.setenv("GITHUB_API_URL", fake_api)
    assert github.main(argv) == 0 and FakeGitHub.comments[-1]["body"] == f"{github.MARKER}\nhello"
    with pytest.raises(SystemExit):
        github.main([*argv[:-1], "seven"])  # --pr must be a number


def test_action_yml_is_a_composite_action_using_every_input():
    yaml = pytest.importorskip("yaml")
    text = (ROOT / "action.yml").read_text()
    action = yaml.safe_load(text)
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    for name in action["inputs"]:
        assert f"inputs.{name}" in json.dumps(steps), name
    runs = " ".join(s.get("run", "") for s in steps)
    assert "--comment-file" in runs and "python -m bayescomp.integrations.github" in runs
    assert all(s.get("shell") == "bash" for s in steps if "run" in s)  # composite steps need it
    assert steps[-1]["run"].strip() == 'exit "$STATUS"'
