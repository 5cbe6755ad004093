"""Result store: refusal of a changed design, and a real SIGKILL-and-resume run."""

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

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB

import bayescomp as bc
from bayescomp.splits.repeats import default_cv
from bayescomp.studies.store import DesignChangedError

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def data():
    return load_breast_cancer(return_X_y=True)


def _run(store, X, y, *, models=None, seed=0, scoring="roc_auc", n_repeats=2):
    models = models or {"nb": GaussianNB(), "lr": LogisticRegression(C=0.5, max_iter=3000)}
    return bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        scoring=scoring,
        rope=0.002,
        progress=False,
        cv=RepeatedStratifiedKFold(n_splits=3, n_repeats=n_repeats, random_state=seed),
        store=store,
    )


def test_store_schema_is_plain_sql(data, tmp_path):
    X, y = data
    store = tmp_path / "s.sqlite"
    sel = _run(store, X, y)
    con = sqlite3.connect(store)  # any SQLite client reads it
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "meta",
        "designs",
        "blocks",
        "splits",
        "models",
        "fits",
        "scores",
        "runs",
        "steps",
    } <= tables
    (n,) = con.execute("SELECT COUNT(*) FROM fits WHERE error IS NULL").fetchone()
    assert n == 12
    rows = con.execute(
        "SELECT f.model, f.split, s.value, sp.n_test, f.versions, f.params "
        "FROM fits f JOIN scores s USING (fit_id) JOIN splits sp "
        "ON sp.dataset = f.dataset AND sp.split = f.split "
        "WHERE s.metric='roc_auc' ORDER BY f.model, f.split"
    ).fetchall()
    got = {(m, k): v for m, k, v, _, _, _ in rows}
    f = sel.scores.to_frame()
    for r in f.to_dict("records"):
        assert got[(r["model"], r["split"])] == pytest.approx(r["roc_auc"], abs=0)
    assert "sklearn" in json.loads(rows[0][4]) and "__class__" in json.loads(rows[0][5])
    # the stored split indices are the design's
    train = json.loads(con.execute("SELECT train_idx FROM splits WHERE split=0").fetchone()[0])
    design = bc.materialise_splits(
        RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0), X, y
    )
    np.testing.assert_array_equal(train, design.splits[0][0])
    steps = con.execute("SELECT challenger, decision FROM steps").fetchall()
    assert steps == [("lr", sel.steps.iloc[0]["decision"])]
    con.close()


def test_changed_design_is_refused_before_any_fit(data, tmp_path, capsys):
    X, y = data
    store = tmp_path / "s.sqlite"
    _run(store, X, y)
    with bc.ResultStore(store) as st:
        before = st.count_fits(successful=False)
    with pytest.raises(DesignChangedError, match="other splits"):
        _run(store, X, y, seed=1)
    with pytest.raises(DesignChangedError, match="other splits"):
        _run(store, X, y, n_repeats=3)
    X2 = X.copy()
    X2[0, 0] += 1.0
    with pytest.raises(DesignChangedError, match="data of dataset 'data' changed"):
        _run(store, X2, y)
    with pytest.raises(DesignChangedError, match=r"model 'lr' changed.*\['C'\]|C"):
        _run(
            store, X, y, models={"nb": GaussianNB(), "lr": LogisticRegression(C=2.0, max_iter=3000)}
        )
    with bc.ResultStore(store) as st:
        assert st.count_fits(successful=False) == before
    # the CLI turns it into one line and exit status 2
    from bayescomp.cli.main import main

    argv = [
        "select",
        str(REPO / "models" / "naive_bayes.py"),
        str(REPO / "models" / "logistic_regression.py"),
        "--dataset",
        "breast_cancer",
        "--baseline",
        "naive_bayes",
        "--metric",
        "accuracy",
        "--rope",
        "0.01",
        "--store",
        str(tmp_path / "cli.sqlite"),
        "--n-splits",
        "3",
        "--n-repeats",
        "1",
        "--quiet",
    ]
    assert main(argv) == 0
    capsys.readouterr()
    # another metric is fine (tests/test_new_user_paths.py), other splits are not
    assert main([*argv, "--seed", "1"]) == 2
    assert "other splits" in capsys.readouterr().err


SLOW_MODEL = '''"""Logistic regression behind a deliberately slow (sleeping) identity step."""
import time

from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler


def _slow(X):
    time.sleep(0.03)
    return X


model = make_pipeline(FunctionTransformer(_slow), StandardScaler(),
                      LogisticRegression(C={C}, max_iter=3000))
'''
FAST_MODEL = (
    '"""Naive Bayes."""\nfrom sklearn.naive_bayes import GaussianNB\nmodel = GaussianNB()\n'
)


def _cli(models: Path, store: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "bayescomp",
        "select",
        str(models),
        "--dataset",
        "breast_cancer",
        "--baseline",
        "nb",
        "--metric",
        "roc_auc",
        "--rope",
        "0.002",
        "--n-splits",
        "5",
        "--n-repeats",
        "4",
        "--store",
        str(store),
        "--quiet",
        "--json",
    ]


def _fits(store: Path) -> list[tuple]:
    con = sqlite3.connect(store, timeout=30)
    try:
        return con.execute(
            "SELECT fit_id, run_id, model, split, finished_at FROM fits "
            "WHERE error IS NULL ORDER BY fit_id"
        ).fetchall()
    except sqlite3.OperationalError:  # schema not created yet
        return []
    finally:
        con.close()


def test_sigkill_then_resume_equals_uninterrupted_run(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "nb.py").write_text(FAST_MODEL)
    (models / "slow_lr.py").write_text(SLOW_MODEL.replace("{C}", "1.0"))
    (models / "slow_lr_weak.py").write_text(SLOW_MODEL.replace("{C}", "0.05"))
    total = 3 * 20
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    store = tmp_path / "killed.sqlite"
    proc = subprocess.Popen(
        _cli(models, store), cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if store.exists() and len(_fits(store)) >= 28:  # the baseline and some slow fits
            break
        time.sleep(0.02)
    assert proc.poll() is None, (
        "the run finished before it could be killed: " + proc.stderr.read().decode()
    )
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    before = _fits(store)
    assert 28 <= len(before) < total

    resumed = subprocess.run(
        _cli(models, store), cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    out = json.loads(resumed.stdout)
    after = _fits(store)
    assert len(after) == total  # every fit once, nothing duplicated
    assert out["fits"] == {
        "performed": total - len(before),
        "loaded_from_store": len(before),
        "total": total,
        "retried": 0,
    }
    # the fits finished before the kill were not redone: same rows, same ids, same times
    assert set(before) <= set(after)
    assert sum(1 for r in after if r[1] == before[0][1]) == len(before)
    # the audit trail says what happened: the killed run is marked, the resumed one finished
    with sqlite3.connect(store) as con:
        statuses = con.execute("SELECT status FROM runs ORDER BY run_id").fetchall()
    assert statuses == [("interrupted",), ("finished",)]

    clean = tmp_path / "clean.sqlite"
    ref = subprocess.run(
        _cli(models, clean), cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert ref.returncode == 0, ref.stderr
    expected = json.loads(ref.stdout)
    assert out["steps"] == expected["steps"]
    assert out["champion"] == expected["champion"]
    assert out["recommendation"] == expected["recommendation"]
    con_a, con_b = sqlite3.connect(store), sqlite3.connect(clean)
    q = "SELECT model, split, metric, value FROM scores ORDER BY model, split, metric"
    assert con_a.execute(q).fetchall() == con_b.execute(q).fetchall()
    con_a.close()
    con_b.close()


def test_parallel_workers_results_written_by_the_parent(data, tmp_path):
    X, y = data
    models = {"nb": GaussianNB(), "lr": LogisticRegression(C=0.5, max_iter=3000)}
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    par = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        cv=cv,
        scoring="roc_auc",
        rope=0.002,
        n_jobs=2,
        progress=False,
        store=tmp_path / "par.sqlite",
    )
    seq = bc.select_models(
        models, X, y, baseline="nb", cv=cv, scoring="roc_auc", rope=0.002, n_jobs=1, progress=False
    )
    con = sqlite3.connect(tmp_path / "par.sqlite")
    pids = {r[0] for r in con.execute("SELECT pid FROM fits")}
    (n,) = con.execute("SELECT COUNT(*) FROM fits").fetchone()
    con.close()
    assert n == 12 and pids == {os.getpid()}  # one writer: the parent process
    key = ["model", "split"]
    a = par.scores.to_frame().sort_values(key)["roc_auc"].to_numpy()
    b = seq.scores.to_frame().sort_values(key)["roc_auc"].to_numpy()
    np.testing.assert_array_equal(a, b)


def test_several_datasets_are_stored_and_decided_by_the_hierarchical_model(data, tmp_path):
    from bayescomp.posterior.hierarchical import HierarchicalResult

    X, y = data
    two = {"full": (X, y), "half": (X[::2], y[::2])}
    models = {"nb": GaussianNB(), "lr": LogisticRegression(C=0.5, max_iter=3000)}
    small = {"chains": 2, "draws": 300, "tune": 300, "refit": False}
    kw = dict(
        baseline="nb",
        scoring="roc_auc",
        rope=0.002,
        cv=default_cv(y, n_splits=3, n_repeats=2),
        progress=False,
        store=tmp_path / "multi.sqlite",
        compare_options=small,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = bc.select_models(models, two, **kw)
    with bc.ResultStore(tmp_path / "multi.sqlite") as st:
        designs = st.query("SELECT dataset, n_samples FROM designs ORDER BY dataset")
        assert designs.values.tolist() == [["full", len(y)], ["half", len(y[::2])]]
        assert st.count_fits() == 24  # 2 models x 2 datasets x 6 splits
    step = sel.steps.iloc[0]
    assert step["n_splits"] == 12 and step["fits"] == 12
    # the step is exactly the hierarchical posterior of compare() on the same scores and seed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = bc.compare(
            sel.scores, "nb", "lr", metric="roc_auc", rope=0.002, random_state=0, **small
        )
    assert isinstance(direct, HierarchicalResult) and direct.n_datasets == 2
    assert step["p_left"] == pytest.approx(direct.p_left)
    assert step["p_rope"] == pytest.approx(direct.p_rope)
    assert step["p_right"] == pytest.approx(direct.p_right)
    # 2 chains x 300 draws over 2 datasets need not converge; then the rule must refuse
    if not direct.converged:
        assert step["decision"] == "inconclusive" and "converged" in step["reason"]


def test_result_store_satisfies_the_fit_store_protocol(tmp_path):
    from bayescomp.core.protocols import FitStore
    from bayescomp.studies.store import ResultStore

    st = ResultStore(tmp_path / "s.sqlite")
    try:
        assert isinstance(st, FitStore)
    finally:
        st.close()
