"""threshold_curves(cache=): the out-of-fold scores are kept with each fit in the store and
read back on a rerun (or after a killed run), as the other fits are."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import precision_score, recall_score
from sklearn.model_selection import ShuffleSplit
from sklearn.naive_bayes import GaussianNB

import bayescomp as bc
from bayescomp.studies.integrity import StoreError

DATA = Path(__file__).parent / "data"
THR = np.linspace(0, 1, 11)


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:, :5], y


def _cv():
    return ShuffleSplit(n_splits=6, test_size=0.3, random_state=0)


def _max_fit_id(path: Path) -> int:
    with sqlite3.connect(path) as con:
        return int(con.execute("SELECT MAX(fit_id) FROM fits").fetchone()[0])


def test_a_killed_run_resumes_with_the_stored_predictions(tmp_path, data):
    X, y = data
    path = tmp_path / "curves.sqlite"
    plain = bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), thresholds=THR)
    with bc.ResultStore(path) as st:
        first = bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), thresholds=THR, cache=st)
    assert _max_fit_id(path) == 6
    np.testing.assert_array_equal(first.values, plain.values)
    # the run was killed after three fits: the others are not in the store
    with sqlite3.connect(path) as con:
        con.execute("PRAGMA foreign_keys=ON")
        con.execute("DELETE FROM fits WHERE split >= 3")
        assert con.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == 3
    with bc.ResultStore(path) as st:
        resumed = bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), thresholds=THR, cache=st)
    assert _max_fit_id(path) == 9  # exactly the three missing fits
    np.testing.assert_array_equal(resumed.values, plain.values)
    with bc.ResultStore(path) as st:
        again = bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), thresholds=THR, cache=st)
    assert _max_fit_id(path) == 9  # nothing refitted
    np.testing.assert_array_equal(again.values, plain.values)
    # the stored numbers are sklearn's: precision and recall at 0.5, split by split
    for r, (train, test) in enumerate(_cv().split(X)):
        p = clone(GaussianNB()).fit(X[train], y[train]).predict_proba(X[test])[:, 1]
        j = int(np.argmin(np.abs(again.thresholds - 0.5)))
        assert again.metric_values("precision")[r, j] == pytest.approx(
            precision_score(y[test], p >= 0.5)
        )
        assert again.metric_values("recall")[r, j] == pytest.approx(recall_score(y[test], p >= 0.5))


def test_other_positive_class_is_fitted_again_not_read(tmp_path, data):
    """Stored scores of class 1 are not the scores of class 0: a changed pos_label refits."""
    X, y = data
    with bc.ResultStore(tmp_path / "s.sqlite") as st:
        bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), thresholds=THR, cache=st)
        zero = bc.threshold_curves(
            GaussianNB(), X, y, cv=_cv(), thresholds=THR, pos_label=0, cache=st
        )
        assert st.count_fits() == 6
    assert _max_fit_id(tmp_path / "s.sqlite") == 12
    plain = bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), thresholds=THR, pos_label=0)
    np.testing.assert_array_equal(zero.values, plain.values)


def test_changed_predictions_are_refused(tmp_path, data):
    X, y = data
    path = tmp_path / "s.sqlite"
    with bc.ResultStore(path) as st:
        bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), thresholds=THR, cache=st)
    with sqlite3.connect(path) as con:
        con.execute("UPDATE predictions SET y_score = replace(y_score, '0.', '1.') WHERE fit_id=2")
    with bc.ResultStore(path) as st, pytest.raises(StoreError, match="fit_id=2"):
        bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), thresholds=THR, cache=st)


def test_a_store_from_before_predictions_gains_the_table_and_keeps_its_fits(tmp_path, data):
    """tests/data/store_v1.sql was written before predictions were kept (and before
    checksums): opening it adds both in place, its fits still load, and curves go in it."""
    path = tmp_path / "v1.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript((DATA / "store_v1.sql").read_text())
        assert "predictions" not in {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    X, y = data
    with bc.ResultStore(path) as st:
        assert st.count_fits() == 6
        old = st.load_fits("data", "nb")
        assert len(old) == 3 and all(f.predictions is None for f in old.values())
        with pytest.raises(bc.DesignChangedError, match="data"):  # iris is stored as "data"
            bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), cache=st)
        bc.threshold_curves(
            GaussianNB(), X, y, cv=_cv(), thresholds=THR, cache=st, dataset="breast_cancer"
        )
        assert st.count_fits() == 12
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == 6


class CountingStore(bc.MemoryStore):
    """The in-memory cache, counting what is written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.written = 0

    def write_fit(self, **kwargs):
        self.written += 1
        super().write_fit(**kwargs)


def test_any_fit_store_serves_the_curves(data):
    X, y = data
    st = CountingStore()
    a = bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), thresholds=THR, cache=st)
    b = bc.threshold_curves(GaussianNB(), X, y, cv=_cv(), thresholds=THR, cache=st)
    assert st.written == 6
    np.testing.assert_array_equal(a.values, b.values)
