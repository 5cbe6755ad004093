"""A pytest killed with SIGKILL leaves nothing it started running (issue 41, item 9): no
``mlflow server`` (nine processes, for half an hour before), no process of ``spawn``'s."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import alive, descendants

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="parent-death signals are a Linux feature"
)

#: a test that starts a group whose grandchildren outlive its direct child
GRANDCHILDREN = """
from processes import spawn

def test_hold(tmp_path):
    spawn(["sh", "-c", "sleep 300 & sleep 300 & wait"])
    open({ready!r}, "w").write("up")
    __import__("time").sleep(300)
"""

#: a test that holds the session's real ``mlflow server`` (tests/test_mlflow.py)
SERVER = """
from test_mlflow import server

def test_hold(server):
    open({ready!r}, "w").write(server)
    __import__("time").sleep(300)
"""


def _kill_pytest_holding(tmp_path: Path, test: str, wait: float) -> tuple[set[int], str]:
    """Run pytest on ``test`` until it says it is ready; SIGKILL it; return what it had
    started (pids) and what it wrote (the server's address)."""
    ready = tmp_path / "ready"
    (tmp_path / "test_hold.py").write_text(test.format(ready=str(ready)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_hold.py"]
    proc = subprocess.Popen(
        cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + wait
        while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert ready.exists(), (
            proc.communicate(timeout=30)[0].decode()[-2000:]
            if (proc.poll() is not None)
            else f"not ready within {wait:g} s"
        )
        started = descendants(proc.pid)
        assert started
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        return started, ready.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _left(pids: set[int], within: float) -> list[int]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.2)
    left = sorted(p for p in pids if alive(p))
    for p in left:  # not left for the next test either
        os.kill(p, signal.SIGKILL)
    return left


def _command(pid: int) -> str:
    """The name of ``pid``'s program ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _listening(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(2)
        return s.connect_ex((host, port)) == 0


def test_spawned_group_dies_with_a_killed_pytest(tmp_path):
    started, _ = _kill_pytest_holding(tmp_path, GRANDCHILDREN, wait=60)
    assert len(started) >= 4  # sh, its two sleeps, the watchdog
    assert not _left(started, within=5), "alive 5 s after pytest's SIGKILL"


def test_mlflow_server_dies_with_a_killed_pytest(tmp_path):
    pytest.importorskip("mlflow")
    started, uri = _kill_pytest_holding(tmp_path, SERVER, wait=180)
    assert len(started) >= 3  # mlflow server, uvicorn and its worker(s), the watchdog
    assert not _left(started, within=10), "alive 10 s after pytest's SIGKILL"
    host, port = uri.removeprefix("http://").split(":")
    deadline = time.monotonic() + 10  # a killed process's threads may take a moment
    while _listening(host, int(port)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _listening(host, int(port)), f"{uri} still answers after pytest's SIGKILL"


#: a test that holds the session's Spark ``local[2]`` (tests/conftest.py) with a Python
#: worker, and a forked child (as a fork-started pool has) that keeps the JVM's stdin open
SPARK = """
import multiprocessing, time
from conftest import _spark_available, spark_session

def test_hold(spark_session):
    assert spark_session.sparkContext.parallelize(range(8), 2).map(lambda x: x).sum() == 28
    multiprocessing.get_context("fork").Process(target=time.sleep, args=(300,)).start()
    open({ready!r}, "w").write("up")
    time.sleep(300)
"""


def test_spark_jvm_dies_with_a_killed_pytest(tmp_path):
    """The JVM PySpark starts for the tests' Spark session dies with a SIGKILLed pytest,
    also while a forked child holds its stdin open (its own exit on EOF never comes)."""
    pytest.importorskip("pyspark")
    started, _ = _kill_pytest_holding(tmp_path, SPARK, wait=180)
    jvm = {p for p in started if _command(p) == "java"}
    assert jvm
    try:
        assert not _left(jvm, within=10), "the JVM is alive 10 s after pytest's SIGKILL"
    finally:
        _left(started, within=0)  # the forked child, which nothing of the tests started
