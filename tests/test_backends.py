"""The fit engine on every tested joblib backend: loky, Dask, Ray and Spark (issue 22).

One real local cluster per engine, started once per session and kept small (2 CPUs):
Dask ``LocalCluster``, ``ray.init(num_cpus=2)``, Spark ``local[2]`` through joblibspark.
In each, ``cross_validate_paired`` and ``select`` give per-split scores identical to
loky's, and a ``select`` killed mid-way (SIGKILL of the driving process) resumes from its
store to the same answer.  An engine that is not installed (or Java, for Spark) skips.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from processes import descendants, guard, spawn
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import bayescomp as bc
from bayescomp.scores.dispatch import active_backend, can_stream
from bayescomp.splits.repeats import default_cv

REPO = Path(__file__).resolve().parents[1]
DRIVER = REPO / "tests" / "fit_driver.py"


# ------------------------------------------------------------------ clusters
@pytest.fixture(scope="session")
def dask_cluster():
    distributed = pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=None
        )
        client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="session")
def ray_cluster():
    ray = pytest.importorskip("ray")
    from ray.util.joblib import register_ray

    from bayescomp.scores.backends import start_local_ray

    start_local_ray(2)  # retried where the node dies while starting (a loaded CI machine)
    # a pytest killed with SIGKILL took only some of Ray's processes with it (issue 41, 9)
    guard(descendants(os.getpid()))
    register_ray()
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


BACKENDS = [
    pytest.param("loky"),
    pytest.param("dask", marks=pytest.mark.xdist_group("dask")),
    pytest.param("ray", marks=pytest.mark.xdist_group("ray")),
    pytest.param("spark", marks=pytest.mark.xdist_group("spark")),
]


@pytest.fixture(params=BACKENDS)
def backend(request) -> tuple[str, str | None]:
    """(backend name, scheduler address for a separate process, or None) inside
    ``joblib.parallel_config`` of that backend."""
    name = request.param
    address = None
    if name == "dask":
        address = request.getfixturevalue("dask_cluster").scheduler.address
    elif name == "ray":
        address = request.getfixturevalue("ray_cluster")
    elif name == "spark":
        request.getfixturevalue("spark_session")
    with joblib.parallel_config(backend=name):
        yield name, address


# ------------------------------------------------------------------ data, reference
@pytest.fixture(scope="module")
def data():
    return load_breast_cancer(return_X_y=True)


def _models() -> dict:
    return {
        "nb": GaussianNB(),
        "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
    }


CV = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
SCORING = ["roc_auc", "accuracy"]


def _frame(scores: bc.Scores) -> pd.DataFrame:
    cols = ["dataset", "model", "split", "repeat", "fold", "n_train", "n_test", *SCORING]
    return scores.to_frame()[cols].sort_values(["model", "split"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def reference(data):
    """The loky answers every backend must reproduce."""
    X, y = data
    with joblib.parallel_config(backend="loky"):
        cv = bc.cross_validate_paired(
            _models(), X, y, cv=CV, scoring=SCORING, n_jobs=2, progress=False
        )
        sel = bc.select_models(
            _models(),
            X,
            y,
            baseline="nb",
            scoring="roc_auc",
            rope=0.005,
            n_jobs=2,
            progress=False,
            cv=default_cv(y, n_splits=3, n_repeats=2),
        )
    return cv, sel


# ------------------------------------------------------------------ tests
def test_dispatch_mode_per_backend(backend):
    """Streams where joblib can return a generator, batches elsewhere (Ray, Spark)."""
    name, _ = backend
    assert can_stream(active_backend()[0]) == (name in ("loky", "dask"))


def test_cross_validate_paired_identical_to_loky(backend, data, reference):
    X, y = data
    scores = bc.cross_validate_paired(
        _models(), X, y, cv=CV, scoring=SCORING, n_jobs=2, progress=False
    )
    pd.testing.assert_frame_equal(_frame(scores), _frame(reference[0]))
    assert scores.fits_retried == 0
    # and equal to a plain serial scikit-learn computation of one split
    from sklearn.base import clone

    train, test = scores.design.splits[4]
    est = clone(_models()["lr"]).fit(X[train], y[train])
    from sklearn.metrics import roc_auc_score

    want = roc_auc_score(y[test], est.predict_proba(X[test])[:, 1])
    got = scores.to_frame().query("model == 'lr' and split == 4")["roc_auc"].item()
    assert got == want


def test_select_identical_to_loky(backend, data, reference):
    X, y = data
    sel = bc.select_models(
        _models(),
        X,
        y,
        baseline="nb",
        scoring="roc_auc",
        rope=0.005,
        n_jobs=2,
        progress=False,
        cv=default_cv(y, n_splits=3, n_repeats=2),
    )
    ref = reference[1]
    assert sel.champion == ref.champion
    assert sel.steps["decision"].tolist() == ref.steps["decision"].tolist()
    np.testing.assert_array_equal(sel.steps["p_better"], ref.steps["p_better"])
    key = ["dataset", "model", "split", "roc_auc"]
    pd.testing.assert_frame_equal(
        sel.base_scores.to_frame()[key].sort_values(key[:3]).reset_index(drop=True),
        ref.base_scores.to_frame()[key].sort_values(key[:3]).reset_index(drop=True),
    )


def _store_fits(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as con:
            return con.execute("SELECT COUNT(*) FROM fits").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is not written yet
        return 0


def _driver(
    out: Path, name: str, address: str | None, store: Path, delay: float, **popen
) -> subprocess.Popen:
    cmd = [
        sys.executable,
        str(DRIVER),
        str(out),
        "--backend",
        name,
        "--store",
        str(store),
        "--delay",
        str(delay),
    ]
    if address is not None:
        cmd += ["--scheduler", address]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    log = open(out.with_suffix(".log"), "a")  # noqa: SIM115 - closed with the process
    # its own group (the kill takes the driver and its local workers, loky, together), which
    # dies with this test process
    return spawn(cmd, env=env, stdout=log, stderr=log, **popen)


def _log(out: Path) -> str:
    return out.with_suffix(".log").read_text()


def test_killed_run_resumes_from_the_store(backend, tmp_path, reference):
    """SIGKILL the process driving a selection mid-way; the same call on the same store
    finishes with the uninterrupted answer, refitting only what was not stored."""
    name, address = backend
    store, out = tmp_path / "s.sqlite", tmp_path / "out.json"
    proc = _driver(out, name, address, store, delay=0.4)
    deadline = time.monotonic() + 240
    while _store_fits(store) < 4:  # some fits are kept, most are still to run
        assert proc.poll() is None, _log(out)
        assert time.monotonic() < deadline, "the run did not start"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    kept = _store_fits(store)
    assert 4 <= kept < 18  # killed mid-way: 3 models x 6 splits in all
    again = _driver(out, name, address, store, delay=0.4)
    assert again.wait(timeout=300) == 0, _log(out)
    res = json.loads(out.read_text())
    ref = reference[1]
    assert res["fits_loaded"] == kept and res["fits_performed"] == 18 - kept
    assert _store_fits(store) == 18
    assert res["champion"] == ref.champion
    assert res["decisions"] == ref.steps["decision"].tolist()
    want = ref.base_scores.to_frame().sort_values(["model", "split"])
    assert [s[2] for s in res["scores"]] == want["roc_auc"].tolist()
