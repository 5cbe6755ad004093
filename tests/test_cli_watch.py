"""``bayescomp watch``: the sequential comparison on a prediction log, from the command line."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys

import numpy as np
import pandas as pd
import pytest
from cli_run import REPO, run_cli
from processes import spawn

import bayescomp as bc

with contextlib.suppress(pytest.skip.Exception):  # no MLflow here: its test skips
    from test_mlflow import server  # noqa: F401 - the session's real mlflow server

ARGS = ("--baseline", "old", "--candidate", "new", "--metric", "accuracy")


def _log(n, acc_new=0.85, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "y_true": y,
            "old": np.where(rng.random(n) < 0.8, y, 1 - y),
            "new": np.where(rng.random(n) < acc_new, y, 1 - y),
        }
    )


def _looks(stdout):
    return [int(line.split()[0]) for line in stdout.splitlines() if line.split()[1:2] == ["items"]]


def test_csv_and_parquet_give_the_librarys_answer_and_the_gate_its_exit_status(tmp_path):
    log = _log(20000)
    log.to_csv(tmp_path / "log.csv", index=False)
    log.to_parquet(tmp_path / "log.parquet")
    want = bc.watch(log, baseline="old", candidate="new", metric="accuracy", rope=0.01, every=200)
    for name in ("log.csv", "log.parquet"):
        out = run_cli(
            "watch", name, *ARGS, "--rope", "0.01", "--every", "200", "--json", cwd=tmp_path
        )
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == json.loads(json.dumps(want.to_dict()))
    text = run_cli("watch", "log.csv", *ARGS, "--rope", "0.01", "--every", "200", cwd=tmp_path)
    assert _looks(text.stdout) == list(range(200, want.decided_at + 1, 200))
    assert text.stdout.splitlines()[-1].startswith(f"promote at {want.decided_at} items")
    gate = run_cli(
        "watch", "log.csv", *ARGS, "--rope", "0.01", "--fail-unless", "worse", cwd=tmp_path
    )
    assert gate.returncode == 1


def test_an_hourly_job_with_a_store_reaches_the_answer_of_one_long_run(tmp_path):
    log = _log(30000, acc_new=0.83, seed=1)  # promoted at 17,700 items
    flags = (*ARGS, "--rope", "0.005", "--every", "300")
    log.to_csv(tmp_path / "whole.csv", index=False)
    long = run_cli("watch", "whole.csv", *flags, cwd=tmp_path)
    seen = []
    for hour, n in enumerate((2000, 9000, 30000)):
        part = log.iloc[:n].copy()
        if hour == 0:  # the last rows' labels have not arrived yet: left for later
            part.loc[1500:, "y_true"] = np.nan
        part.to_csv(tmp_path / "log.csv", index=False)
        out = run_cli("watch", "log.csv", *flags, "--store", "s.sqlite", cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        seen += _looks(out.stdout)
    assert seen == _looks(long.stdout)  # each look once, none twice
    assert out.stdout.splitlines()[-1].endswith(long.stdout.splitlines()[-1])
    again = run_cli("watch", "log.csv", *flags, "--store", "s.sqlite", cwd=tmp_path)
    assert again.stdout.startswith("already decided at the last run: ")


def test_a_run_killed_between_looks_resumes_to_the_same_decision(tmp_path):
    log = _log(200000, acc_new=0.805, seed=2)
    log.to_csv(tmp_path / "log.csv", index=False)
    flags = (*ARGS, "--rope", "0.02", "--every", "50")
    long = run_cli("watch", "log.csv", *flags, cwd=tmp_path)
    assert len(_looks(long.stdout)) > 100
    cmd = [sys.executable, "-m", "bayescomp", "watch", "log.csv", *flags, "--store", "s.sqlite"]
    proc = spawn(
        cmd, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=-1, text=True
    )
    printed = [proc.stdout.readline() for _ in range(5)]
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL  # killed while it was still looking
    resumed = run_cli("watch", "log.csv", *flags, "--store", "s.sqlite", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    first = _looks(resumed.stdout)[0]
    assert first > _looks("".join(printed))[-1] and first in _looks(long.stdout)
    assert resumed.stdout.splitlines()[-1] == long.stdout.splitlines()[-1]


@pytest.mark.parametrize(
    ("change", "extra", "says"),
    [
        ("unsorted", ("--time", "t"), "the time column 't' goes back at row 3"),
        ("label 2", ("--metric", "brier"), "needs y_true coded 0/1"),
        ("", ("--candidate", "nope"), "the log has no column 'nope'"),
        ("", ("--metric", "roc_auc"), "no per-item score"),
        ("label 2", ("--classes", "0,1"), "column 'y_true' holds ['2'], outside the classes"),
    ],
)
def test_bad_logs_are_refused_in_one_line(tmp_path, change, extra, says):
    log = pd.DataFrame(
        {"y_true": [0, 1, 1, 0], "old": [0.2, 0.6, 0.7, 0.1], "new": [0.1, 0.9, 0.8, 0.3]}
    )
    log["t"] = [1, 2, 3, 2] if change == "unsorted" else [1, 2, 3, 4]
    if change == "label 2":
        log.loc[2, "y_true"] = 2
    log.to_csv(tmp_path / "log.csv", index=False)
    flags = dict(zip(ARGS[::2], ARGS[1::2], strict=True)) | {"--metric": "log_loss"}
    flags |= dict(zip(extra[::2], extra[1::2], strict=True))
    out = run_cli("watch", "log.csv", *sum(flags.items(), ()), "--rope", "0.01", cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and says in out.stderr


def test_a_log_that_shrank_or_was_rewritten_since_the_last_run_is_refused(tmp_path):
    log = _log(3000, acc_new=0.8)
    flags = (*ARGS, "--rope", "0.01", "--every", "500", "--store", "s.sqlite")
    log.to_csv(tmp_path / "log.csv", index=False)
    assert run_cli("watch", "log.csv", *flags, cwd=tmp_path).returncode == 0
    log.iloc[:2000].to_csv(tmp_path / "log.csv", index=False)
    out = run_cli("watch", "log.csv", *flags, cwd=tmp_path)
    assert (
        out.returncode == 2 and "the log has 2000 rows but had 3000 at the last run" in out.stderr
    )
    log.iloc[::-1].to_csv(tmp_path / "log.csv", index=False)
    out = run_cli("watch", "log.csv", *flags, cwd=tmp_path)
    assert out.returncode == 2 and "the first 3000 rows of the log differ" in out.stderr
    flags = (*ARGS, "--rope", "0.02", "--every", "500", "--store", "s.sqlite")
    out = run_cli("watch", "log.csv", *flags, cwd=tmp_path)
    assert out.returncode == 2 and "other settings (margin)" in out.stderr


def test_the_report_shows_the_looks_and_model_names_as_text(tmp_path):
    log = _log(5000).rename(columns={"new": "<i>new</i>"})
    log.to_csv(tmp_path / "log.csv", index=False)
    flags = ("--baseline", "old", "--candidate", "<i>new</i>", "--metric", "accuracy")
    out = run_cli(
        "watch",
        "log.csv",
        *flags,
        "--rope",
        "0.01",
        "--every",
        "100",
        "--report",
        "rep",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    page = (tmp_path / "rep" / "report.html").read_text()
    record = json.loads((tmp_path / "rep" / "watch.json").read_text())
    assert "&lt;i&gt;new&lt;/i&gt;" in page and "<i>new</i>" not in page
    assert page.count("<tr>") == len(record["looks"]) + 1 == len(_looks(out.stdout)) + 1
    assert (tmp_path / "rep" / "sequence.png").stat().st_size > 0


def test_each_look_is_an_mlflow_step_and_promote_moves_the_alias(server, tmp_path):
    from mlflow import MlflowClient

    client = MlflowClient(server)
    client.create_registered_model("shadowed")
    for _ in range(2):  # versions 1 (production) and 2 (the shadow candidate)
        run = client.create_run("0").info
        client.create_model_version("shadowed", f"{run.artifact_uri}/model", run_id=run.run_id)
    client.set_registered_model_alias("shadowed", "champion", "1")
    log = _log(20000)
    flags = (*ARGS, "--rope", "0.01", "--every", "50", "--store", "s.sqlite")
    mlflow_flags = ("--mlflow-uri", server, "--mlflow-model", "shadowed", "--mlflow-version", "2")
    log.iloc[:60].to_csv(tmp_path / "log.csv", index=False)  # the first hour: one look
    first = run_cli("watch", "log.csv", *flags, *mlflow_flags, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert client.get_model_version_by_alias("shadowed", "champion").version == "1"
    log.to_csv(tmp_path / "log.csv", index=False)
    out = run_cli("watch", "log.csv", *flags, *mlflow_flags, "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["decision"] == "promote"
    assert client.get_model_version_by_alias("shadowed", "champion").version == "2"
    exp = client.get_experiment_by_name("bayescomp")
    (run,) = client.search_runs(
        [exp.experiment_id], filter_string="tags.`bayescomp.kind` = 'watch'"
    )
    history = sorted(
        (m.step, m.value) for m in client.get_metric_history(run.info.run_id, "estimate")
    )
    assert history == [(look["items"], pytest.approx(look["estimate"])) for look in res["looks"]]
    assert run.data.tags["bayescomp.alias.action"] == "moved"
    assert run.data.tags["bayescomp.alias.from_version"] == "1"


def test_a_watch_killed_mid_move_records_the_move_as_select_does(server):
    """The watch moves the alias with select's code: the version is tagged with the run, and a
    watch killed after moving the alias (its ``alias.pending_from`` tag still on the run) is
    recorded as moved from the old version on its next run, not as "unchanged"."""
    from mlflow import MlflowClient

    from bayescomp.core.jsonable import json_digest
    from bayescomp.integrations.mlflow_watch import WatchTracker

    client = MlflowClient(server)
    client.create_registered_model("midmove")
    for _ in range(2):
        run = client.create_run("0").info
        client.create_model_version("midmove", f"{run.artifact_uri}/model", run_id=run.run_id)
    client.set_registered_model_alias("midmove", "champion", "1")
    res = bc.watch(_log(4000), baseline="old", candidate="new", metric="accuracy", rope=0.01)
    assert res.decision == "promote"
    killed = {  # the run of this watch, killed between moving the alias and recording it
        "bayescomp.identity": json_digest(res.plan.to_dict())[:16],
        "bayescomp.kind": "watch",
        "bayescomp.alias.pending_from": "1",
    }
    client.create_run(client.create_experiment("midmove"), tags=killed)
    client.set_registered_model_alias("midmove", "champion", "2")
    run_id = WatchTracker("midmove", tracking_uri=server, experiment="midmove").log_watch(res, "2")
    tags = client.get_run(run_id).data.tags
    assert (tags["bayescomp.alias.action"], tags["bayescomp.alias.from_version"]) == ("moved", "1")
    assert "bayescomp.alias.pending_from" not in tags
    assert client.get_model_version_by_alias("midmove", "champion").version == "2"


def test_the_pull_request_comment_has_the_decision_and_the_last_looks(tmp_path):
    log = _log(20000).rename(columns={"new": "new|*x*"})
    log.to_csv(tmp_path / "log.csv", index=False)
    flags = (
        "--baseline",
        "old",
        "--candidate",
        "new|*x*",
        "--metric",
        "accuracy",
        "--rope",
        "0.01",
    )
    out = run_cli(
        "watch", "log.csv", *flags, "--every", "5", "--comment-file", "c.md", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    comment = (tmp_path / "c.md").read_text()
    looks = _looks(out.stdout)
    assert comment.startswith("<!-- bayescomp -->\n## bayescomp watch: new\\|\\*x\\* vs old")
    assert f"**promote** at {looks[-1]} items" in comment
    rows = [
        line.split(" | ")[0][2:]
        for line in comment.splitlines()
        if line[:3] == "| " + line[2:3] and line[2:3].isdigit()
    ]
    assert rows == [str(k) for k in looks[-10:]]
    assert f"{len(looks) - 10} earlier looks" in comment


def test_a_cluster_partial_at_a_run_keeps_the_value_it_entered_with(tmp_path):
    log = _log(2000, acc_new=0.8, seed=4)
    log["user"] = np.arange(2000) // 10
    flags = (*ARGS, "--rope", "0", "--every", "1", "--cluster", "user", "--store", "s.sqlite")
    log.iloc[:1005].to_csv(tmp_path / "log.csv", index=False)  # user 100 has 5 of its 10 rows
    assert run_cli("watch", "log.csv", *flags, cwd=tmp_path).returncode == 0
    log.to_csv(tmp_path / "log.csv", index=False)
    out = run_cli("watch", "log.csv", *flags, "--json", cwd=tmp_path)
    res = json.loads(out.stdout)
    assert res["decision"] == "continue" and res["n_items"] == 1995  # its later 5 rows unused
    d = (log.new == log.y_true).astype(float) - (log.old == log.y_true)
    per_user = d.groupby(log.user).mean()
    per_user[100] = d[1000:1005].mean()
    assert res["estimate"] == pytest.approx(per_user.mean())


def test_a_guardrail_metric_known_worse_stops_a_promotion_its_metric_alone_would_make(tmp_path):
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 40000)
    wrong = rng.random(y.size) < 0.1  # the candidate: sharper, but sure and wrong on 10 %
    cand = np.where(wrong, 1 - y, y) * 0.9999 + np.where(wrong, y, 1 - y) * 0.0001
    cand = np.where(wrong, cand, np.where(y == 1, 0.97, 0.03))
    pd.DataFrame({"y_true": y, "old": np.where(y == 1, 0.6, 0.4), "new": cand}).to_csv(
        tmp_path / "log.csv", index=False
    )
    flags = ("--baseline", "old", "--candidate", "new", "--metric", "brier", "--rope", "0.005")
    alone = json.loads(
        run_cli("watch", "log.csv", *flags, "--every", "500", "--json", cwd=tmp_path).stdout
    )
    out = run_cli(
        "watch",
        "log.csv",
        *flags,
        "--every",
        "500",
        "--guardrail",
        "log_loss:0.05",
        "--json",
        cwd=tmp_path,
    )
    guarded = json.loads(out.stdout)
    brier = 0.9 * 0.03**2 + 0.1 * 0.999**2 - 0.4**2  # lower is better: +0.059 for the candidate
    loss = 0.9 * -np.log(0.97) + 0.1 * np.log(1000) - -np.log(0.6)  # clipped: 0.207 worse
    assert alone["decision"] == "promote" and alone["estimate"] == pytest.approx(-brier, abs=0.01)
    assert guarded["decision"] == "worse" and guarded["decided_at"] > alone["decided_at"]
    last = guarded["looks"][-1]
    assert last["guardrail log_loss upper"] < -0.05 and last["lower"] > 0.005
    assert loss > 0.05  # the guard's true difference is beyond its margin
