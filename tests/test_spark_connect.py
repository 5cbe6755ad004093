"""The metric paths on a Spark Connect DataFrame (issue 39): the same as on classic Spark.

A real Spark Connect server (``SparkConnectServer`` from the pyspark wheel's jars, ``local[2]``
on a free loopback port) is started by the fixture in its own process group, with
``PR_SET_PDEATHSIG`` so that it dies with the test process even when pytest is SIGKILLed
(its Python workers end with it: they read the JVM's pipe).  Classic Spark reads the same
Parquet files (the same partitions, so the same row ids): the seeded draws are then the
same on both, and the results are compared exactly; against NumPy they agree exactly for
exact quantities and within Monte-Carlo error for resampled ones.

pyspark's ``functions`` choose classic or Connect by a process-wide variable
(``SPARK_CONNECT_MODE_ENABLED``): it is set while this module runs and removed by
:func:`classic` around the classic calls, and afterwards for the other modules.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import bayescomp as bc

pytestmark = pytest.mark.xdist_group("spark")
COLS = {"label": "label", "score": "p"}
MODE = "SPARK_CONNECT_MODE_ENABLED"


def _die_with_parent() -> None:  # runs in the child between fork and exec
    os.setpgrp()
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def start_connect_server(log: Path) -> tuple[subprocess.Popen, str]:
    """A Spark Connect server (``local[2]``) on a free loopback port, and its address."""
    import pyspark

    home = Path(pyspark.__file__).parent
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = {
        "spark.connect.grpc.binding.address": "127.0.0.1",
        "spark.connect.grpc.binding.port": str(port),
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "4",
    }
    args = [str(home / "bin" / "spark-submit"), "--master", "local[2]"]
    args += [x for k, v in conf.items() for x in ("--conf", f"{k}={v}")]
    args += ["--class", "org.apache.spark.sql.connect.service.SparkConnectServer", "spark-internal"]
    env = dict(os.environ, SPARK_HOME=str(home), PYSPARK_PYTHON=sys.executable)
    with log.open("wb") as out:
        proc = subprocess.Popen(
            args, env=env, stdout=out, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent
        )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, f"sc://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.5)
    _kill(proc)
    raise RuntimeError(f"the Spark Connect server did not start:\n{log.read_text()[-3000:]}")


def _kill(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 20)):
        try:
            os.killpg(proc.pid, sig)
            proc.wait(wait)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


@contextmanager
def classic() -> Iterator[None]:
    """pyspark's functions build classic columns inside the block."""
    was = os.environ.pop(MODE, None)
    try:
        yield
    finally:
        if was is not None:
            os.environ[MODE] = was


@pytest.fixture(scope="module")
def connect(spark_session, tmp_path_factory):
    """A Spark Connect session on a server started here; stopped and killed at the end.
    (The classic session is created first: in connect mode its builder refuses.)"""
    import pyspark

    if not list((Path(pyspark.__file__).parent / "jars").glob("spark-connect_*.jar")):
        pytest.skip(f"pyspark {pyspark.__version__} ships no Spark Connect server (4.0+ does)")
    pytest.importorskip("grpc", reason="the Spark Connect client: pip install 'pyspark[connect]'")
    proc, url = start_connect_server(tmp_path_factory.mktemp("connect") / "server.log")
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    os.environ[MODE] = "1"
    try:
        session = ConnectSession.builder.remote(url).create()
        yield session
        session.stop()
    finally:
        os.environ.pop(MODE, None)
        _kill(proc)


@pytest.fixture(scope="module")
def parquet(tmp_path_factory) -> tuple[np.ndarray, np.ndarray, str]:
    """20,000 labelled scores with ties, in two Parquet files read by both Sparks."""
    rng = np.random.default_rng(11)
    n = 20_000
    y = rng.integers(0, 2, n)
    p = np.round(1 / (1 + np.exp(-(y + rng.normal(0, 1.5, n)))), 3)
    folder = tmp_path_factory.mktemp("scores")
    for k, part in enumerate(np.array_split(np.arange(n), 2)):
        pd.DataFrame({"label": y[part], "p": p[part]}).to_parquet(folder / f"part-{k}.parquet")
    return y, p, str(folder)


def both(connect, spark_session, path: str, run):
    """``run(df)`` on the Parquet files read by Spark Connect and by classic Spark."""
    on_connect = run(connect.read.parquet(path))
    with classic():
        on_classic = run(spark_session.read.parquet(path))
    return on_connect, on_classic


def test_blb_metric_on_spark_connect_equals_numpy_within_monte_carlo_error(
    connect, spark_session, parquet
):
    """The centre (full-data AUC) equals scikit-learn's; the averaged per-subset offsets and
    values differ from the NumPy run's by less than 4 standard errors of the difference
    (each SE from that run's own spread over its 12 subsets: the subsets are independent,
    so a mean over them has SE sd/sqrt(12)); and Connect equals classic Spark exactly."""
    y, p, path = parquet
    kw = dict(n_subsets=12, n_resamples=60, adaptive=False, random_state=5, columns=COLS)
    on_connect, on_classic = both(
        connect, spark_session, path, lambda df: bc.blb_metric(df, None, "roc_auc", **kw)
    )
    kw.pop("columns")
    memory = bc.blb_metric(y, p, "roc_auc", **kw)
    assert on_connect.estimate == pytest.approx(roc_auc_score(y, p), abs=1e-12)
    assert (on_connect.n, on_connect.b, on_connect.n_subsets) == (memory.n, memory.b, 12)
    for col in ("offset_low", "offset_high", "value"):
        a, m = on_connect.subsets[col], memory.subsets[col]
        se = np.sqrt(a.var(ddof=1) / a.size + m.var(ddof=1) / m.size)
        assert abs(a.mean() - m.mean()) < 4 * se, col
    assert (on_connect.low, on_connect.high) == (on_classic.low, on_classic.high)
    pd.testing.assert_frame_equal(on_connect.subsets, on_classic.subsets)


def test_bootstrap_metric_on_spark_connect_equals_classic_spark(connect, spark_session, parquet):
    """Accuracy (Poisson counts) and ROC AUC (hashed Poisson row weights): the estimates
    equal NumPy's exactly, the seeded resamples equal classic Spark's exactly."""
    y, p, path = parquet
    kw = dict(method="percentile", n_resamples=200, random_state=3, columns=COLS)
    for metric, threshold, want in (
        ("accuracy", 0.5, np.mean((p >= 0.5) == y)),
        ("roc_auc", None, roc_auc_score(y, p)),
    ):
        on_connect, on_classic = both(
            connect,
            spark_session,
            path,
            lambda df: bc.bootstrap_metric(df, None, metric, threshold=threshold, **kw),  # noqa: B023
        )
        assert on_connect.estimate == pytest.approx(want, abs=1e-12), metric
        np.testing.assert_array_equal(on_connect.distribution, on_classic.distribution)
        assert on_connect.n == y.size and on_connect.low < want < on_connect.high


def test_threshold_curves_on_spark_connect_equal_in_memory(connect, parquet):
    """Exact counts: every curve value equals the in-memory one."""
    y, p, path = parquet
    thr = np.linspace(0, 1, 21)
    metrics = ("precision", "recall", "fpr", "accuracy")
    on_connect = bc.threshold_curves(
        predictions=connect.read.parquet(path), thresholds=thr, metrics=metrics, columns=COLS
    )
    memory = bc.threshold_curves(
        predictions=pd.DataFrame({"repetition": 0, "y_true": y, "y_score": p}),
        thresholds=thr,
        metrics=metrics,
    )
    np.testing.assert_array_equal(on_connect.values, memory.values)
    assert on_connect.n_test[0] == y.size


def test_connect_server_dies_when_its_test_process_is_sigkilled(_spark_available, tmp_path):
    """A process that started the server (as the fixture does) is SIGKILLed: the server's
    whole process group is gone within seconds (PR_SET_PDEATHSIG), no JVM is left behind."""
    code = (
        "import sys, time; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
        "from test_spark_connect import start_connect_server; "
        "proc, _ = start_connect_server(Path(sys.argv[2])); "
        "print(proc.pid, flush=True); time.sleep(600)"
    )
    args = [sys.executable, "-c", code, str(Path(__file__).parent), str(tmp_path / "log")]
    parent = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    try:
        jvm = int(parent.stdout.readline())
        assert Path(f"/proc/{jvm}/comm").read_text().strip() == "java"
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(jvm, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.killpg(jvm, signal.SIGKILL)
    pytest.fail("the Connect server outlived the SIGKILLed process that started it")
