"""One fitter with a cache, a pure walk: a dict-backed store passes through selection and
resumes; a store written by the previous version is read back; a rule plugs into the
sequential-testing loop."""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayescomp as bc
from bayescomp.core.exceptions import DesignChangedError
from bayescomp.core.protocols import FitStore
from bayescomp.decision.walk import Walk, champion_challenger

DATA = Path(__file__).parent / "data"


class DictStore:
    """A whole FitStore backend in a dict (the recipe of docs/selection.md)."""

    def __init__(self):
        self.designs, self.models, self.fits = {}, {}, {}
        self.writes = 0

    def check_design(
        self,
        dataset,
        *,
        fingerprint,
        data_hash,
        n_samples,
        n_splits,
        metric,
        scoring,
        cv,
        seed,
        splits,
    ):
        old = self.designs.setdefault((dataset, 0), (fingerprint, data_hash))
        if old != (fingerprint, data_hash):
            raise DesignChangedError(f"other splits or data for {dataset!r}")
        return True

    def check_block(self, dataset, block, *, fingerprint, seed, splits):
        if self.designs.setdefault((dataset, block), fingerprint) != fingerprint:
            raise DesignChangedError(f"other repetition {block} for {dataset!r}")

    def check_model(self, model, *, params_hash, params, description="", path=None, nested=False):
        if self.models.setdefault(model, params_hash) != params_hash:
            raise DesignChangedError(f"model {model!r} changed")

    def load_fits(self, dataset, model):
        return {
            k: r
            for (d, m, k), r in self.fits.items()
            if (d, m) == (dataset, model) and r.error is None
        }

    def write_fit(self, *, dataset, model, split, seed, result, params_hash, params):
        self.fits[(dataset, model, split)] = result
        self.writes += 1


@pytest.fixture(scope="module")
def bc_data():
    return load_breast_cancer(return_X_y=True)


def _lr(c=1.0):
    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000))


def test_a_dict_store_passes_through_select_and_resumes(bc_data):
    X, y = bc_data
    models = {"nb": GaussianNB(), "lr": _lr(), "lr_weak": _lr(0.01)}
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=3)
    store = DictStore()
    assert isinstance(store, FitStore)
    kw = dict(baseline="nb", cv=cv, scoring="roc_auc", rope=0.002, progress=False)
    sel = bc.select_models(models, X, y, store=store, **kw)
    assert (sel.fits_performed, sel.fits_loaded, store.writes) == (30, 0, 30)
    again = bc.select_models(models, X, y, store=store, **kw)  # used as is: no rewrapping
    assert (again.fits_performed, again.fits_loaded, store.writes) == (0, 30, 30)
    pd.testing.assert_frame_equal(again.steps, sel.steps)
    # the stored scores are an independent cross_validate_paired's
    ref = bc.cross_validate_paired(models, X, y, cv=cv, scoring="roc_auc", progress=False)
    for (_, m, k), r in store.fits.items():
        f = ref.to_frame()
        assert r.scores["roc_auc"] == f.loc[(f["model"] == m) & (f["split"] == k), "roc_auc"].item()
    with pytest.raises(DesignChangedError, match="changed"):
        bc.select_models({**models, "lr": _lr(2.0)}, X, y, store=store, **kw)


def test_sequential_repetitions_resume_from_a_dict_store(bc_data):
    X, y = bc_data
    models = {"lr": _lr(), "nb": GaussianNB()}
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    kw = dict(
        baseline="lr",
        cv=cv,
        scoring="accuracy",
        rope=0.02,
        gamma=0.99,
        max_repeats=2,
        progress=False,
    )
    store = DictStore()
    sel = bc.select_models(models, X, y, store=store, **kw)
    assert sel.steps.iloc[0]["extra_repeats"] == 2 and store.writes == 40
    again = bc.select_models(models, X, y, store=store, **kw)
    assert (again.fits_performed, again.fits_loaded) == (0, 40)
    pd.testing.assert_frame_equal(again.steps, sel.steps)
    # the same selection without a store computes each fit once (an in-memory cache)
    fresh = bc.select_models(models, X, y, **kw)
    assert (fresh.fits_performed, fresh.fits_loaded, fresh.fits_total) == (40, 0, 40)
    pd.testing.assert_frame_equal(fresh.steps.drop(columns="fits"), sel.steps.drop(columns="fits"))
    # the pure walk over the table decides the same on the design
    base = bc.select(sel.base_scores, baseline="lr", metric="accuracy", rope=0.02, gamma=0.99)
    ref = bc.compare(sel.base_scores, "lr", "nb", metric="accuracy", rope=0.02)
    assert base.steps.iloc[0]["p_left"] == pytest.approx(ref.p_left, abs=1e-12)


def test_a_store_written_by_the_previous_version_is_read_back(tmp_path):
    """tests/data/store_v1.sql is the dump of a store the previous version (select with its
    own fitter) wrote: iris, nb vs lda, 3 folds x 1 repetition, seed 0, accuracy."""
    path = tmp_path / "v1.sqlite"
    con = sqlite3.connect(path)
    con.executescript((DATA / "store_v1.sql").read_text())
    con.close()
    X, y = load_iris(return_X_y=True)
    models = {"nb": GaussianNB(), "lda": LinearDiscriminantAnalysis()}
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0)
    sel = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        scoring="accuracy",
        rope=0.01,
        cv=cv,
        store=path,
        progress=False,
    )
    assert (sel.fits_performed, sel.fits_loaded) == (0, 6)  # nothing refitted
    # the posterior the previous version recorded for this step
    row = sel.steps.iloc[0]
    assert row["p_left"] == pytest.approx(0.12103163552006649, abs=1e-12)
    assert row["p_right"] == pytest.approx(0.680578779628654, abs=1e-12)
    with sqlite3.connect(path) as c:
        runs = c.execute("SELECT run_id, status FROM runs ORDER BY run_id").fetchall()
        steps = c.execute("SELECT run_id, challenger, decision FROM steps").fetchall()
    assert runs == [(1, "finished"), (2, "finished")]
    assert steps == [(1, "lda", "inconclusive"), (2, "lda", "inconclusive")]
    # and the scores are what an independent fit gives on the same splits
    ref = bc.cross_validate_paired(models, X, y, cv=cv, scoring="accuracy", progress=False)
    got = sel.scores.to_frame().set_index(["model", "split"])["accuracy"].sort_index()
    exp = ref.to_frame().set_index(["model", "split"])["accuracy"].sort_index()
    np.testing.assert_allclose(got.to_numpy(), exp.to_numpy(), rtol=0, atol=1e-15)


def test_a_rule_plugs_into_the_loop_through_pending(bc_data):
    """A rule that wants every challenger on two extra blocks before it decides: the loop
    fits exactly those blocks (for the pending models) and calls it again."""
    X, y = bc_data
    calls = []

    def patient(scores, baseline, challengers, *, metric, compare, max_repeats):
        f = scores.to_frame()
        blocks = int(f["block"].max()) if "block" in f.columns else 0
        calls.append(blocks)
        w = champion_challenger(
            scores, baseline, challengers, metric=metric, compare=compare, max_repeats=0
        )
        if blocks < max_repeats:
            return Walk(
                w.steps, w.results, w.paired, w.champion, pending=(baseline, *challengers), final=0
            )
        return w

    models = {"nb": GaussianNB(), "lr": _lr()}
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0)
    sel = bc.select_models(
        models,
        X,
        y,
        baseline="nb",
        cv=cv,
        scoring="accuracy",
        rope=0.01,
        max_repeats=2,
        rule=patient,
        progress=False,
    )
    assert calls == [0, 1, 2]
    f = sel.scores.to_frame()
    assert sorted(f["block"].unique()) == [0, 1, 2] and len(f) == 2 * 9
    extra = bc.cross_validate_paired(
        models, X, y, cv=cv, scoring="accuracy", progress=False, extra_repeats=2
    ).to_frame()
    pd.testing.assert_series_equal(
        f.sort_values(["model", "split"])["accuracy"].reset_index(drop=True),
        extra.sort_values(["model", "split"])["accuracy"].reset_index(drop=True),
    )


def test_pure_select_decides_over_a_table_without_fitting():
    rng = np.random.default_rng(1)
    base = 0.8 + 0.01 * rng.standard_normal(30)
    f = pd.DataFrame(
        {
            "model": np.repeat(["a", "b", "c"], 30),
            "split": np.tile(range(30), 3),
            "accuracy": np.r_[
                base,
                base + 0.04 + 0.004 * rng.standard_normal(30),
                base + 0.001 * rng.standard_normal(30),
            ],
        }
    )
    scores = bc.Scores.from_frame(f, test_fraction=0.1)
    sel = bc.select(scores, baseline="a", rope=0.01, metric="accuracy")
    assert sel.champion == "b" and sel.fits_total == 0
    for row in sel.steps.to_dict("records"):
        res = bc.compare(scores, row["champion"], row["challenger"], metric="accuracy", rope=0.01)
        assert row["p_right"] == pytest.approx(res.p_right, abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new spelling warns about nothing
        bc.select(scores, models=["a", "c"], baseline="a", rope=0.01, metric="accuracy")
    with pytest.raises(TypeError, match="max_repeats"):  # nothing is fitted: no repetitions
        bc.select(scores, baseline="a", rope=0.01, metric="accuracy", max_repeats=1)


def test_learning_curves_resume_from_the_cache(bc_data, tmp_path):
    X, y = bc_data
    models = {"nb": GaussianNB(), "lr": _lr()}
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    kw = dict(baseline="nb", cv=cv, train_sizes=[0.3, 1.0], random_state=1)
    with bc.ResultStore(tmp_path / "lc.sqlite") as st:
        first = bc.learning_curves(models, X, y, cache=st, **kw)
        assert st.count_fits() == 2 * 2 * 6
    with bc.ResultStore(tmp_path / "lc.sqlite") as st:
        again = bc.learning_curves(models, X, y, cache=st, **kw)
        assert st.count_fits() == 24
        stored = st.query("SELECT DISTINCT dataset FROM designs ORDER BY dataset")
    plain = bc.learning_curves(models, X, y, **kw)
    pd.testing.assert_frame_equal(again.summary(), first.summary())
    pd.testing.assert_frame_equal(plain.summary(), first.summary())
    assert stored["dataset"].tolist() == [
        f"train_size={n}" for n in sorted(first.train_sizes, key=str)
    ]
