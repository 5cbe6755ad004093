"""The store never serves a stale or tampered answer, and two runs never fit twice.

Real SQLite files, real subprocesses (``python -m bayescomp``), real signals and locks.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NB = (ROOT / "models" / "naive_bayes.py").read_text()
SLOW = """
import time

from sklearn.naive_bayes import GaussianNB


class SlowNB(GaussianNB):
    def fit(self, X, y, sample_weight=None):
        time.sleep({sleep})
        return super().fit(X, y, sample_weight=sample_weight)


model = SlowNB({params})
"""
FUNC = """
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler


def squash(X):
    return {body}


model = make_pipeline(FunctionTransformer(squash), StandardScaler(),
                      LogisticRegression(max_iter=500, n_jobs={n_jobs}))
"""
ARGS = [
    "select",
    ".",
    "--dataset",
    "breast_cancer",
    "--baseline",
    "nb",
    "--metric",
    "accuracy",
    "--rope",
    "0.01",
    "--n-splits",
    "2",
    "--n-repeats",
    "3",
    "--quiet",
    "--store",
    "runs/s.sqlite",
]


def _run(args, cwd, *, prefix=(), timeout=300):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [*prefix, sys.executable, "-m", "bayescomp", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _fits_line(out: str) -> tuple[int, int, int]:
    m = re.search(r"fits: (\d+) needed, (\d+) computed now, (\d+) read from the store", out)
    assert m, out
    return tuple(int(g) for g in m.groups())


def _folder(tmp_path, **files) -> Path:
    (tmp_path / "nb.py").write_text(NB)
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text)
    return tmp_path


def test_edited_function_body_is_not_served_from_the_store(tmp_path):
    """A FunctionTransformer whose function body changes, same parameters: the rerun used
    to load every fit and answer for the old code."""
    d = _folder(tmp_path, lr=FUNC.format(body="np.log1p(np.abs(X))", n_jobs=1))
    first = _run(ARGS, d)
    assert first.returncode == 0, first.stderr
    assert _fits_line(first.stdout) == (12, 12, 0)
    (d / "lr.py").write_text(FUNC.format(body="np.sqrt(np.abs(X))", n_jobs=1))
    second = _run(ARGS, d)
    assert second.returncode == 2, second.stdout + second.stderr
    assert "model 'lr' changed since its fits were stored" in second.stderr
    assert "functiontransformer__func" in second.stderr


def test_n_jobs_and_verbose_do_not_invalidate_the_store(tmp_path):
    d = _folder(tmp_path, lr=FUNC.format(body="np.log1p(np.abs(X))", n_jobs=1))
    assert _run(ARGS, d).returncode == 0
    (d / "lr.py").write_text(
        FUNC.format(body="np.log1p(np.abs(X))", n_jobs=2)
        + "\nmodel.set_params(logisticregression__verbose=0)\n"
    )
    again = _run(ARGS, d)
    assert again.returncode == 0, again.stderr
    assert _fits_line(again.stdout) == (12, 0, 12)


def test_a_tampered_score_is_refused_naming_the_fit(tmp_path):
    d = _folder(tmp_path, slow=SLOW.format(sleep=0, params=""))
    first = _run(ARGS, d)
    assert first.returncode == 0, first.stderr
    with sqlite3.connect(d / "runs" / "s.sqlite") as con:
        fit_id, _model, split = con.execute(
            "SELECT fit_id, model, split FROM fits WHERE model='slow' ORDER BY split LIMIT 1"
        ).fetchone()
        con.execute(
            "UPDATE scores SET value = value - 0.05 WHERE fit_id=? AND metric='accuracy'", (fit_id,)
        )
    second = _run(ARGS, d)
    assert second.returncode == 2, second.stdout + second.stderr
    assert (
        f"the stored fit of model 'slow' on split {split} of dataset 'breast_cancer'"
        in second.stderr
    )
    assert "does not match its checksum" in second.stderr
    assert f"fit_id={fit_id}" in second.stderr
    assert len(second.stderr.strip().splitlines()) == 1


def test_a_damaged_store_gets_one_line(tmp_path):
    d = _folder(tmp_path, slow=SLOW.format(sleep=0, params=""))
    assert _run(ARGS, d).returncode == 0
    store = d / "runs" / "s.sqlite"
    for extra in ("-wal", "-shm"):
        Path(str(store) + extra).unlink(missing_ok=True)
    data = bytearray(store.read_bytes())
    page = 4096
    assert len(data) > 3 * page
    data[2 * page : 3 * page] = os.urandom(page)  # a malformed page, header intact
    store.write_bytes(bytes(data))
    res = _run(ARGS, d)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "internal error" not in res.stderr
    assert f"the store {Path('runs/s.sqlite')} is damaged" in res.stderr
    assert "move it aside" in res.stderr


def test_a_read_only_store_gets_one_line(tmp_path):
    d = _folder(tmp_path, slow=SLOW.format(sleep=0, params=""))
    assert _run(ARGS, d).returncode == 0
    store = d / "runs" / "s.sqlite"
    store.chmod(0o444)
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:  # root ignores file modes: drop that power for the run
        if not shutil.which("setpriv"):
            pytest.skip("running as root without setpriv: a read-only file is writable")
        prefix = ("setpriv", "--bounding-set=-dac_override,-dac_read_search", "--")
    res = _run(ARGS, d, prefix=prefix)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "internal error" not in res.stderr
    assert "is read-only: make it writable (chmod u+w" in res.stderr


def test_two_runs_on_one_store_never_fit_twice(tmp_path):
    d = _folder(tmp_path, slow=SLOW.format(sleep=0.3, params=""))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = []
    for _ in range(2):
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "bayescomp", *ARGS],
                cwd=d,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
        time.sleep(0.5)
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (_out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
    lines = [_fits_line(out) for out, _ in outs]
    assert [needed for needed, _, _ in lines] == [12, 12]
    assert sum(computed for _, computed, _ in lines) == 12, lines  # every fit done once
    assert any("is in use by pid" in err and "waiting" in err for _, err in outs)
    with sqlite3.connect(d / "runs" / "s.sqlite") as con:
        count, top = con.execute("SELECT COUNT(*), MAX(fit_id) FROM fits").fetchone()
    assert count == top == 12  # no fit written twice (ids are never reused)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("DROP TABLE fits", "the store {store} has no table 'fits' (dropped outside bayescomp)"),
        ("DROP TABLE designs", "the store {store} has no table 'designs' (dropped outside"),
        (
            "UPDATE scores SET value = 'oops' WHERE fit_id = {fit_id}",
            "the stored fit of model 'slow' on split {split} of dataset 'breast_cancer' in "
            "{store} has the accuracy score 'oops', not a number",
        ),
    ],
)
def test_a_store_changed_outside_bayescomp_gets_one_line_naming_it(tmp_path, damage, message):
    """A dropped table gave an internal IntegrityError (exit 3), a score set to text Python's
    bare 'could not convert string to float'."""
    d = _folder(tmp_path, slow=SLOW.format(sleep=0, params=""))
    assert _run(ARGS, d).returncode == 0
    with sqlite3.connect(d / "runs" / "s.sqlite") as con:
        fit_id, split = con.execute(
            "SELECT fit_id, split FROM fits WHERE model='slow' ORDER BY split LIMIT 1"
        ).fetchone()
        con.execute(damage.format(fit_id=fit_id))
    res = _run(ARGS, d)
    assert res.returncode == 2, res.stdout + res.stderr
    want = message.format(store=Path("runs/s.sqlite"), fit_id=fit_id, split=split)
    assert want in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
