"""Distributed fits survive worker loss (issue 25): real clusters, real SIGKILLs.

A selection with a store runs in its own process (``tests/fit_driver.py``) on a local
Dask cluster while this test SIGKILLs worker processes at seeded random points:

* one kill and six kills (each worker's nanny restarts it): the call finishes, every fit
  is in the store exactly once, and the answer equals the uninterrupted run's;
* every worker killed, none restarted (workers started without a nanny): the call stops
  within ``worker_timeout`` with one error counting the fits it kept, the store holds
  exactly those, and the same call on a new cluster resumes to the uninterrupted answer.

Every wait has a timeout, so a hang fails the test instead of blocking CI.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.xdist_group("dask")

REPO = Path(__file__).resolve().parents[1]
DRIVER = REPO / "tests" / "fit_driver.py"
N_REPEATS = 4  # 3 models x 3 folds x 4 repeats = 36 fits
N_FITS = 36
DELAY = 0.4


def _fits(store: Path) -> int:
    import sqlite3

    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store, timeout=5) as con:
            return con.execute("SELECT COUNT(*) FROM fits").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _start(out: Path, address: str, store: Path, worker_timeout: float = 60) -> subprocess.Popen:
    cmd = [
        sys.executable,
        str(DRIVER),
        str(out),
        "--backend",
        "dask",
        "--scheduler",
        address,
        "--store",
        str(store),
        "--delay",
        str(DELAY),
        "--n-repeats",
        str(N_REPEATS),
        "--worker-timeout",
        str(worker_timeout),
    ]
    log = open(out.with_suffix(".log"), "a")  # noqa: SIM115 - closed with the process
    return subprocess.Popen(
        cmd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=log,
        stderr=log,
        start_new_session=True,
    )


def _finish(proc: subprocess.Popen, out: Path, timeout: float) -> tuple[int, dict]:
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail(
            f"the call hung (no answer after {timeout} s): "
            f"{out.with_suffix('.log').read_text()[-2000:]}"
        )
    log = out.with_suffix(".log").read_text()
    assert out.exists(), log[-3000:]
    return rc, json.loads(out.read_text())


@pytest.fixture(scope="module")
def reference():
    """The uninterrupted answer (serial, same estimators without the sleep)."""
    import fit_driver
    from sklearn.datasets import load_breast_cancer

    import bayescomp as bc

    X, y = load_breast_cancer(return_X_y=True)
    sel = bc.select(
        fit_driver.models(0.0),
        X,
        y,
        baseline="nb",
        scoring="roc_auc",
        rope=0.005,
        n_splits=3,
        n_repeats=N_REPEATS,
        n_jobs=1,
        progress=False,
    )
    base = sel.base_scores.to_frame().sort_values(["model", "split"])
    return {
        "champion": sel.champion,
        "decisions": sel.steps["decision"].tolist(),
        "scores": [[r.model, int(r.split), float(r.roc_auc)] for r in base.itertuples()],
    }


def _same_answer(res: dict, ref: dict) -> None:
    assert res["champion"] == ref["champion"]
    assert res["decisions"] == ref["decisions"]
    assert res["scores"] == ref["scores"]


@pytest.fixture
def nanny_cluster():
    """Two workers under nannies (a killed worker is restarted)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=None
        )
        client = distributed.Client(cluster)
    client.wait_for_workers(2, timeout=120)
    yield client
    client.close()
    cluster.close(timeout=30)


def _worker_pids(client) -> list[int]:
    return list(client.run(os.getpid, on_error="ignore").values())


def _kill_workers(client, proc: subprocess.Popen, store: Path, kills: int, seed: int) -> int:
    """SIGKILL a random worker ``kills`` times while the call runs; the kills done."""
    rng = random.Random(seed)
    done = 0
    deadline = time.monotonic() + 240
    while done < kills and proc.poll() is None and time.monotonic() < deadline:
        if _fits(store) < 2 + 4 * done:  # spread the kills over the run
            time.sleep(0.05)
            continue
        try:
            client.wait_for_workers(1, timeout=60)  # a nanny restarted a killed one
            pids = _worker_pids(client)
        except (TimeoutError, OSError):
            continue
        if not pids:  # between a worker's death and its restart: try again
            time.sleep(0.1)
            continue
        time.sleep(rng.uniform(0.0, DELAY))  # a random point in a fit
        try:
            os.kill(rng.choice(pids), signal.SIGKILL)
        except ProcessLookupError:  # it died meanwhile (e.g. the nanny restarted it)
            continue
        done += 1
    return done


@pytest.mark.parametrize("kills", [1, 6])
def test_worker_kills_lose_no_fit(nanny_cluster, tmp_path, reference, kills):
    store, out = tmp_path / "s.sqlite", tmp_path / "out.json"
    proc = _start(out, nanny_cluster.scheduler.address, store)
    assert _kill_workers(nanny_cluster, proc, store, kills, seed=kills) == kills, (
        "the run ended before every kill"
    )
    rc, res = _finish(proc, out, timeout=300)
    assert rc == 0, res
    assert _fits(store) == N_FITS == res["fits_total"] == res["fits_performed"]
    assert 0 <= res["fits_retried"] <= N_FITS
    _same_answer(res, reference)


def _bare_workers(address: str, n: int) -> list[subprocess.Popen]:
    """Worker processes without a nanny: once killed, nothing restarts them."""
    cmd = [
        sys.executable,
        "-m",
        "distributed.cli.dask_worker",
        address,
        "--no-nanny",
        "--nthreads",
        "1",
        "--no-dashboard",
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return [
        subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(n)
    ]


def test_all_workers_killed_stops_then_resumes(tmp_path, reference):
    store, out = tmp_path / "s.sqlite", tmp_path / "out.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=0, dashboard_address=None)
        client = distributed.Client(cluster)
    workers = _bare_workers(cluster.scheduler_address, 2)
    try:
        client.wait_for_workers(2, timeout=120)
        timeout = 8.0
        proc = _start(out, cluster.scheduler_address, store, worker_timeout=timeout)
        deadline = time.monotonic() + 240
        while _fits(store) < 6:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        for w in workers:
            w.send_signal(signal.SIGKILL)
        killed_at = time.monotonic()
        rc, res = _finish(proc, out, timeout=120)
        assert rc == 4, res  # WorkersLostError, not a hang
        assert time.monotonic() - killed_at < timeout + 60
        assert f"{res['finished']} of {N_FITS} fits finished and were kept" in res["error"]
        assert "run the same call again with the same store" in res["error"]
        assert _fits(store) == res["finished"] >= 6  # every finished fit is in the store
        assert not client.scheduler_info(n_workers=-1)["workers"]
        # workers come back: the same call resumes from the store
        workers += _bare_workers(cluster.scheduler_address, 2)
        client.wait_for_workers(2, timeout=120)
        out2 = tmp_path / "out2.json"
        rc, res2 = _finish(_start(out2, cluster.scheduler_address, store), out2, timeout=300)
        assert rc == 0, res2
        assert res2["fits_loaded"] == res["finished"]
        assert res2["fits_performed"] == N_FITS - res["finished"]
        assert _fits(store) == N_FITS
        _same_answer(res2, reference)
    finally:
        for w in workers:
            w.kill()
            w.wait(timeout=30)
        client.close()
        cluster.close(timeout=30)
