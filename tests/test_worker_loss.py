"""Distributed fits survive worker loss (issue 25): real clusters, real SIGKILLs.

A selection with a store runs on a local Dask cluster (a scheduler in this process,
worker processes started by the test) while the test SIGKILLs workers:

* three kills at seeded random points in fits, each worker replaced as a preempted node
  is: the call finishes, every fit is in the store exactly once, and the answer equals
  the uninterrupted run's;
* a worker killed under a known fit until Dask gives the fit up (``KilledWorker``;
  joblib's Dask backend then waited forever, which was the six-kill hang): the fit is
  sent again and the call finishes with the uninterrupted scores;
* every worker killed, none replaced: the call stops within ``worker_timeout`` with one
  error counting the fits it kept, the store holds exactly those, and the same call with
  workers back resumes to the uninterrupted answer; without a store the error returns
  the finished fits, and a rerun on a store holding them repeats none;
* Ray: a pool worker killed during a selection with a store: every fit stored once,
  the uninterrupted answer.

The workers are the test's own processes (no nanny): under heavy load a
``LocalCluster``'s nannies were seen closing instead of restarting a killed worker.
Every wait has a timeout, so a hang fails the test instead of blocking CI.
"""

from __future__ import annotations

import functools
import os
import random
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import joblib
import pytest
from sklearn.model_selection import RepeatedStratifiedKFold

import bayescomp as bc
from bayescomp.splits.repeats import default_cv

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.xdist_group("dask")

REPO = Path(__file__).resolve().parents[1]
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


@pytest.fixture(scope="module")
def reference():
    """The uninterrupted answer (serial, same estimators without the sleep)."""
    import fit_driver
    from sklearn.datasets import load_breast_cancer

    import bayescomp as bc

    X, y = load_breast_cancer(return_X_y=True)
    sel = bc.select_models(
        fit_driver.models(0.0),
        X,
        y,
        baseline="nb",
        scoring="roc_auc",
        rope=0.005,
        n_jobs=1,
        progress=False,
        cv=default_cv(y, n_splits=3, n_repeats=N_REPEATS),
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


class WorkerPool:
    """Dask worker processes without a nanny, started and watched by the test.

    ``keep`` of them run at a time: ``supervise()`` replaces any that ended (killed by the
    test, or shut down by themselves: under heavy load a ``LocalCluster``'s nannies were
    seen closing instead of restarting a killed worker), as an autoscaler replaces
    preempted nodes."""

    def __init__(self, address: str, keep: int):
        self.address, self.keep = address, keep
        self.procs: list[subprocess.Popen] = []
        self.supervise()

    def supervise(self) -> None:
        self.procs = [p for p in self.procs if p.poll() is None]
        while len(self.procs) < self.keep:
            self.procs += _bare_workers(self.address, 1)

    def kill_one(self, rng: random.Random) -> bool:
        live = [p for p in self.procs if p.poll() is None]
        if not live:
            return False
        os.kill(rng.choice(live).pid, signal.SIGKILL)
        return True

    def wait(self, thread: threading.Thread, timeout: float) -> None:
        """Supervise until ``thread`` ends; fail on a hang."""
        deadline = time.monotonic() + timeout
        while thread.is_alive():
            assert time.monotonic() < deadline, f"the call hung (no answer after {timeout} s)"
            self.supervise()
            thread.join(0.2)

    def close(self) -> None:
        for p in self.procs:
            p.kill()
            p.wait(timeout=30)
        self.procs = []


@pytest.fixture(scope="module")
def dask_pool():
    """A local scheduler (in this process) and two watched workers, shared by the tests."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=0, dashboard_address=None)
        client = distributed.Client(cluster, set_as_default=False)
    pool = WorkerPool(cluster.scheduler_address, keep=2)
    client.wait_for_workers(2, timeout=120)
    pool.client, pool.scheduler = client, cluster.scheduler
    yield pool
    pool.close()
    client.close()
    cluster.close(timeout=30)


def _selection(store: Path, delay: float = DELAY) -> functools.partial:
    """The reference selection's call with a store (what ``fit_driver`` runs)."""
    import fit_driver
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return functools.partial(
        bc.select_models,
        fit_driver.models(delay),
        X,
        y,
        baseline="nb",
        scoring="roc_auc",
        rope=0.005,
        cv=default_cv(y, n_splits=3, n_repeats=N_REPEATS),
        store=str(store),
        n_jobs=2,
        progress=False,
        worker_timeout=60,
    )


def _answer(sel) -> dict:
    base = sel.base_scores.to_frame().sort_values(["model", "split"])
    return {
        "champion": sel.champion,
        "decisions": sel.steps["decision"].tolist(),
        "scores": [[r.model, int(r.split), float(r.roc_auc)] for r in base.itertuples()],
    }


def test_worker_kills_lose_no_fit(dask_pool, tmp_path, reference):
    """Three SIGKILLs of workers at random points in fits (each replaced, as a preempted
    node is): every fit is stored once, and the answer equals the uninterrupted run's."""
    kills, rng = 3, random.Random(3)
    store = tmp_path / "s.sqlite"
    thread, out = _background(_selection(store), backend="dask", client=dask_pool.client)
    done, deadline = 0, time.monotonic() + 240
    while done < kills and thread.is_alive() and time.monotonic() < deadline:
        dask_pool.supervise()
        if _fits(store) < 2 + 6 * done:  # spread the kills over the run
            time.sleep(0.05)
            continue
        time.sleep(rng.uniform(0.0, DELAY))  # a random point in a fit
        done += dask_pool.kill_one(rng)
    dask_pool.wait(thread, timeout=300)
    assert "bayescomp-fit" in dask_pool.scheduler.task_prefixes  # the fits ran on Dask
    assert done == kills, "the run ended before every kill"
    assert "error" not in out, out.get("error")
    sel = out["value"]
    assert _fits(store) == N_FITS == sel.fits_total == sel.fits_performed
    assert 0 <= sel.fits_retried <= N_FITS
    _same_answer(_answer(sel), reference)


def _background(call, **backend) -> tuple[threading.Thread, dict]:
    """``call()`` started in a thread inside ``joblib.parallel_config(**backend)`` (joblib's
    configuration is per thread); the dict gets its ``value`` or its ``error``."""
    out: dict = {}

    def run():
        try:
            with joblib.parallel_config(**backend):
                out["value"] = call()
        except BaseException as exc:  # handed to the test
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def _in_thread(call, timeout: float) -> dict:
    """``call()`` in a thread: its ``value`` or ``error``; fails on a hang."""
    thread, out = _background(call)
    thread.join(timeout)
    assert not thread.is_alive(), f"the call hung (no answer after {timeout} s)"
    return out


CV = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)  # 3 models: 18 fits


@pytest.fixture(scope="module")
def cv_reference():
    """The uninterrupted per-fit scores of ``cross_validate_paired`` (serial)."""
    import fit_driver
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    s = bc.cross_validate_paired(
        fit_driver.models(0.0), X, y, cv=CV, scoring="roc_auc", n_jobs=1, progress=False
    )
    return {(r.model, int(r.split)): float(r.roc_auc) for r in s.to_frame().itertuples()}


def _cv_scores(s) -> dict:
    return {(r.model, int(r.split)): float(r.roc_auc) for r in s.to_frame().itertuples()}


def test_a_fit_dask_gave_up_on_is_sent_again(dask_pool, tmp_path, cv_reference):
    """The six-kill hang: a task whose workers died ``allowed-failures`` + 1 times is
    failed by Dask (``KilledWorker``), and joblib's Dask backend never handed that error
    to ``Parallel``, which waited forever with live workers.  With ``allowed_failures=0``
    one death of the worker running a known fit is enough."""
    import fit_driver
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    models = fit_driver.models(0.0)
    marker = tmp_path / "died"
    models["lr"] = fit_driver.DieOnce(models["lr"].inner, marker=str(marker))
    scheduler = dask_pool.scheduler
    allowed, scheduler.allowed_failures = scheduler.allowed_failures, 0
    try:
        thread, out = _background(
            lambda: bc.cross_validate_paired(
                models, X, y, cv=CV, scoring="roc_auc", n_jobs=2, progress=False
            ),
            backend="dask",
            client=dask_pool.client,
        )
        dask_pool.wait(thread, timeout=90)
    finally:
        scheduler.allowed_failures = allowed
    assert "error" not in out, out.get("error")
    assert marker.exists()  # a worker did die under the fit
    assert out["value"].fits_retried >= 1  # Dask gave it up; it was sent again
    assert _cv_scores(out["value"]) == cv_reference


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
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'tests'}"}
    return [
        subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(n)
    ]


def test_all_workers_killed_stops_then_resumes(dask_pool, tmp_path, reference):
    """Every worker killed and none replaced: the selection stops within
    ``worker_timeout`` with one error counting the fits kept in the store; the same call
    on another cluster (the module's) resumes from the store to the uninterrupted answer."""
    from bayescomp.core.exceptions import WorkersLostError

    store = tmp_path / "s.sqlite"
    timeout = 6.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=0, dashboard_address=None)
        client = distributed.Client(cluster, set_as_default=False)
    pool = WorkerPool(cluster.scheduler_address, keep=1)  # one worker: a cheap cluster
    try:
        client.wait_for_workers(1, timeout=120)
        call, on = _selection(store), {"backend": "dask", "client": client}
        thread, out = _background(functools.partial(call, worker_timeout=timeout), **on)
        deadline = time.monotonic() + 240
        while _fits(store) < 6:
            assert thread.is_alive() and time.monotonic() < deadline, out
            pool.supervise()
            time.sleep(0.05)
        pool.keep = 0  # none replaced
        for w in pool.procs:
            w.send_signal(signal.SIGKILL)
        killed_at = time.monotonic()
        thread.join(timeout + 120)
        assert not thread.is_alive(), "the call hung after every worker was killed"
        assert time.monotonic() - killed_at < timeout + 60
        exc = out.get("error")
        assert isinstance(exc, WorkersLostError), out  # not a hang
        assert f"{exc.finished} of {N_FITS} fits finished and were kept" in str(exc)
        assert "run the same call again with the same store" in str(exc)
        assert _fits(store) == exc.finished >= 6  # every finished fit is in the store
        assert not client.scheduler_info(n_workers=-1)["workers"]
        # the same call on another cluster resumes from the store
        thread, out = _background(call, backend="dask", client=dask_pool.client)
        dask_pool.wait(thread, timeout=300)
        assert "error" not in out, out.get("error")
        sel = out["value"]
        assert sel.fits_loaded == exc.finished
        assert sel.fits_performed == N_FITS - exc.finished
        assert _fits(store) == N_FITS
        _same_answer(_answer(sel), reference)
    finally:
        pool.close()
        client.close()
        cluster.close(timeout=30)


def _starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_all_workers_killed_without_a_store_returns_the_finished_fits(tmp_path, cv_reference):
    """No store: the error carries every finished fit (``results``), and a rerun on a
    store holding them fits only the rest, to the uninterrupted scores."""
    import fit_driver
    from sklearn.datasets import load_breast_cancer

    from bayescomp.core.exceptions import WorkersLostError

    X, y = load_breast_cancer(return_X_y=True)
    log = tmp_path / "starts"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=0, dashboard_address=None)
        client = distributed.Client(cluster, set_as_default=False)
    pool = WorkerPool(cluster.scheduler_address, keep=1)  # one worker: a cheap cluster
    try:
        client.wait_for_workers(1, timeout=120)
        timeout = 6.0

        def call():
            with joblib.parallel_config(backend="dask", client=client):
                return bc.cross_validate_paired(
                    fit_driver.models(DELAY, str(log)),
                    X,
                    y,
                    cv=CV,
                    scoring="roc_auc",
                    n_jobs=2,
                    progress=False,
                    worker_timeout=timeout,
                )

        thread, out = _background(call)
        deadline = time.monotonic() + 240
        while _starts(log) < 7:  # about five fits finished, most still to run
            assert thread.is_alive() and time.monotonic() < deadline, out
            pool.supervise()
            time.sleep(0.05)
        pool.keep = 0  # none replaced
        for w in pool.procs:
            w.send_signal(signal.SIGKILL)
        killed_at = time.monotonic()
        thread.join(timeout + 120)
        assert not thread.is_alive(), "the call hung after every worker was killed"
        assert time.monotonic() - killed_at < timeout + 60
        exc = out.get("error")
        assert isinstance(exc, WorkersLostError), out
        assert f"{exc.finished} of 18 fits finished and were kept" in str(exc)
        assert 1 <= exc.finished == len(exc.results) < 18
        kept = {key: r.scores["roc_auc"] for key, r in exc.results.items()}
        assert kept == {key: cv_reference[key] for key in kept}
    finally:
        pool.close()
        client.close()
        cluster.close(timeout=30)
    # a rerun on a store holding the returned fits repeats none of them
    store = bc.MemoryStore()
    for (model, split), res in exc.results.items():
        store.write_fit(
            dataset="data",
            model=model,
            split=split,
            seed=None,
            result=res,
            params_hash="",
            params="",
        )
    s = bc.cross_validate_paired(
        fit_driver.models(0.0), X, y, cv=CV, scoring="roc_auc", cache=store, progress=False
    )
    assert s.attrs["fits_loaded"] == exc.finished
    assert s.attrs["fits_performed"] == 18 - exc.finished
    assert _cv_scores(s) == cv_reference


# ------------------------------------------------------------------ Ray
@pytest.fixture(scope="module")
def ray_local():
    """A local Ray cluster of 2 CPUs (the session's one where a test module started it)."""
    ray = pytest.importorskip("ray")
    import fit_driver
    from ray.util.joblib import register_ray

    ray.cloudpickle.register_pickle_by_value(fit_driver)  # workers need not import it
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    register_ray()
    yield ray
    if started:
        ray.shutdown()


def _pool_workers() -> list[int]:
    """Ray's joblib pool workers (``ray::PoolActor``) under this process's raylet."""
    import psutil

    pids = []
    for p in psutil.Process().children(recursive=True):
        try:
            if "PoolActor" in " ".join(p.cmdline()):
                pids.append(p.pid)
        except psutil.Error:  # ended meanwhile
            continue
    return pids


@pytest.mark.slow  # ~30 s: the Dask worker-kill tests cover the same loss in the default suite
@pytest.mark.xdist_group("ray")
def test_ray_worker_kill_loses_no_fit(ray_local, tmp_path, reference):
    """A Ray pool worker SIGKILLed in the middle of a selection with a store: every fit
    is stored once, and the answer equals the uninterrupted run's."""
    import fit_driver
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    log, store = tmp_path / "starts", tmp_path / "s.sqlite"

    def call():
        with joblib.parallel_config(backend="ray"):
            return bc.select_models(
                fit_driver.models(DELAY, str(log)),
                X,
                y,
                baseline="nb",
                scoring="roc_auc",
                rope=0.005,
                store=str(store),
                n_jobs=2,
                progress=False,
                worker_timeout=60,
                cv=default_cv(y, n_splits=3, n_repeats=N_REPEATS),
            )

    thread, out = _background(call)
    rng = random.Random(0)
    deadline = time.monotonic() + 240
    killed = None
    while killed is None and thread.is_alive() and time.monotonic() < deadline:
        pids = _pool_workers() if _starts(log) >= 3 else []
        if not pids:
            time.sleep(0.05)
            continue
        time.sleep(rng.uniform(0.0, DELAY))  # a random point in a fit
        try:
            os.kill(rng.choice(pids), signal.SIGKILL)
            killed = True
        except ProcessLookupError:
            continue
    thread.join(300)
    assert not thread.is_alive(), "the call hung after the kill"
    assert killed, "the run ended before the kill"
    assert "error" not in out, out.get("error")
    sel = out["value"]
    assert _fits(store) == N_FITS == sel.fits_total
    assert sel.fits_loaded == 0 and sel.fits_performed == N_FITS
    base = sel.base_scores.to_frame().sort_values(["model", "split"])
    res = {
        "champion": sel.champion,
        "decisions": sel.steps["decision"].tolist(),
        "scores": [[r.model, int(r.split), float(r.roc_auc)] for r in base.itertuples()],
    }
    _same_answer(res, reference)
