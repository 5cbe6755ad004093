"""numbers that were wrong, inputs accepted silently, slow paths.

Every test here failed on the code before its fix and checks a number against an
independent computation (scipy, scikit-learn, baycomp, exact enumeration or numpy).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc


# ---------------------------------------------------------------- item 4: TimeSeriesSplit
def test_from_cross_validate_time_series_split_same_posterior_as_cross_validate_paired():
    from sklearn.dummy import DummyRegressor
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import TimeSeriesSplit, cross_validate

    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 3))
    y = X @ [1.0, 0.5, 0.0] + rng.normal(0, 1, 240)
    models = {"dummy": DummyRegressor(), "ridge": Ridge()}
    cv = TimeSeriesSplit(8)
    paired = bc.cross_validate_paired(models, X, y, cv=cv, scoring="r2", progress=False)
    res = {
        m: cross_validate(est, X, y, cv=cv, scoring="r2", return_indices=True)
        for m, est in models.items()
    }
    imported = bc.Scores.from_cross_validate(res, metric="r2")
    a = bc.compare(paired, "dummy", "ridge", metric="r2", rope=0.01)
    b = bc.compare(imported, "dummy", "ridge", metric="r2", rope=0.01)
    assert type(a).__name__ == type(b).__name__ == "TimeOrderedResult"
    np.testing.assert_allclose(
        [b.p_left, b.p_rope, b.p_right], [a.p_left, a.p_rope, a.p_right], rtol=1e-12
    )
    with pytest.warns(bc.TimeOrderedDesignWarning):
        bc.compare(imported, "dummy", "ridge", metric="r2", rope=0.01, method="ttest")


# ---------------------------------------------------- item 5: rank tests, ties at rope 0
@pytest.mark.parametrize("test", [bc.sign_test, bc.signed_rank_test])
def test_rank_tests_all_ties_at_rope0_consistent_and_inconclusive(test):
    res = test(np.zeros(10), rope=0, random_state=0, draws=4000)
    probs = [res.p_left, res.p_rope, res.p_right]
    # identical models: no direction is favoured, and nothing is NaN anywhere
    assert probs == [0.5, 0.0, 0.5]
    assert res.p_better == res.p_worse == 0.5
    assert not res.summary().drop(columns="metric").isna().any().any()
    d = res.to_dict()
    assert [d["p_left"], d["p_rope"], d["p_right"], d["p_better"]] == [0.5, 0.0, 0.5, 0.5]
    for on in ("baycomp_convention", "next_dataset"):
        dec = res.decision(on=on)
        assert dec.outcome == "inconclusive"
        assert "all 10 per-dataset differences are exactly 0" in dec.reason
        assert "rope > 0" in dec.reason


def _decimal_table(seed: int) -> bc.Scores:
    """Scores with two decimals, as accuracies are: the per-dataset mean differences have
    exact ties (z_i = -z_j, z_i = 0) that float residue must not break."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(8):
        for s in range(10):
            b = rng.integers(70, 90) / 100
            c = b + rng.choice([-2, -1, 0, 1, 2]) / 100
            rows += [(f"d{d}", "a", s, b), (f"d{d}", "b", s, c)]
    frame = pd.DataFrame(rows, columns=["dataset", "model", "split", "accuracy"])
    return bc.Scores.from_frame(frame, test_fraction=0.1)


def _signed_rank_reference(z_int: np.ndarray, draws: int, seed: int) -> float:
    """p_left of the signed-rank test by hand, ties classified on integers (exact)."""
    zz = np.r_[0, z_int]
    sums = zz[:, None] + zz[None, :]
    right = (sums > 0) + 0.5 * (sums == 0)
    w = np.random.default_rng(seed).dirichlet(np.r_[0.5, np.ones(len(z_int))], draws)
    theta_right = np.einsum("si,ij,sj->s", w, right, w)
    return float(np.mean(theta_right < 0.5) + 0.5 * np.mean(theta_right == 0.5))


@pytest.mark.parametrize("seed", [0, 2, 4])
def test_signed_rank_both_doors_same_numbers_and_match_exact_and_baycomp(seed):
    from baycomp.multiple import SignedRankTest

    scores = _decimal_table(seed)
    via_compare = bc.compare(
        scores, "a", "b", metric="accuracy", method="signed_rank", rope=0, random_state=0
    )
    means = scores.mean("accuracy")
    z = (means["b"] - means["a"]).to_numpy()
    direct = bc.signed_rank_test(z, rope=0, random_state=0)
    assert via_compare.p_left == direct.p_left
    assert np.array_equal(via_compare.sample, direct.sample)
    # exact ties: integer per-dataset sums of differences (hundredths x 10 splits)
    z_int = np.round(z * 1000).astype(int)
    exact = _signed_rank_reference(z_int, 400_000, 1)
    se = np.sqrt(exact * (1 - exact) / 50_000) + np.sqrt(exact * (1 - exact) / 400_000)
    assert abs(direct.p_left - exact) < 4 * se
    # baycomp 1.0.3 on the same means, given exactly tied floats (x and y = x + z)
    zb = z_int / 1000
    p_left_bc = SignedRankTest.probs(np.zeros(8), zb, rope=0, nsamples=20_000, random_state=0)[0]
    se_bc = np.sqrt(exact * (1 - exact) / 20_000) + se
    assert abs(p_left_bc - exact) < 4 * se_bc
    assert abs(direct.p_left - p_left_bc) < 4 * se_bc


def test_sign_test_rope_boundary_not_moved_by_float_residue():
    scores = _decimal_table(0)
    rope = 0.001  # per-dataset means are multiples of 0.001: some sit on the boundary
    via_compare = bc.compare(scores, "a", "b", metric="accuracy", method="sign", rope=rope)
    means = scores.mean("accuracy")
    direct = bc.sign_test((means["b"] - means["a"]).to_numpy(), rope=rope)
    z_int = np.round((means["b"] - means["a"]).to_numpy() * 1000).astype(int)
    counts = [np.sum(z_int < -1), np.sum(np.abs(z_int) <= 1) + 1, np.sum(z_int > 1)]
    assert via_compare.alpha.tolist() == direct.alpha.tolist() == counts


# ------------------------------------------------- item 18: rank of many models, fast path
def _many_models(k: int, n: int = 10, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    vals = rng.normal(0.85, 0.03, n) + rng.normal(0, 0.01, (k, 1)) + rng.normal(0, 0.005, (k, n))
    return pd.DataFrame(
        {
            "model": np.repeat([f"m{i:03d}" for i in range(k)], n),
            "split": np.tile(np.arange(n), k),
            "accuracy": vals.ravel(),
            "n_train": 90,
            "n_test": 10,
        }
    )


def test_ranking_summary_vectorised_equals_per_pair_reference():
    frame = _many_models(50)
    scores = bc.Scores.from_frame(frame)
    r = bc.rank(scores, "accuracy", rope=0.002)
    fast = r.summary()
    kinds = ["p_better", "p_left", "p_rope", "p_right", "expected_gain"]
    # slow reference: one pandas lookup per ordered pair, and each pair's own t-test
    ref = pd.DataFrame(
        [
            {"model": a, "versus": b, **{c: getattr(r, c).loc[a, b] for c in kinds}}
            for a in r.models
            for b in r.models
            if a != b
        ]
    )
    pd.testing.assert_frame_equal(fast[["model", "versus", *kinds]], ref)
    for a, b in [(r.models[0], r.models[1]), (r.models[7], r.models[30])]:
        p = scores.paired(b, a, "accuracy")
        direct = bc.correlated_ttest(p["baseline"], p["candidate"], rho=p.attrs["rho"], rope=0.002)
        row = fast[(fast["model"] == a) & (fast["versus"] == b)].iloc[0]
        assert row["p_right"] == pytest.approx(direct.p_right, abs=1e-12)
    adj = r.summary(adjacent=True)
    assert list(adj["model"]) == r.models[:-1] and list(adj["versus"]) == r.models[1:]
    both = fast.merge(adj, on=["model", "versus"], suffixes=("", "_adj"))
    assert len(both) == 49
    for c in [*kinds, "decision"]:
        assert (both[c] == both[c + "_adj"]).all()


def test_cli_rank_many_models_prints_adjacent_pairs_one_per_line(tmp_path, capsys):
    from bayescomp.cli.main import main

    frame = _many_models(40)
    frame.to_csv(tmp_path / "s.csv", index=False)
    assert main(["rank", str(tmp_path / "s.csv")]) == 0
    out = capsys.readouterr().out
    lines = [ln.split() for ln in out.splitlines() if ln.lstrip().startswith("m0")]
    assert len(lines) == 39  # each model against the next one, one line each
    ref = bc.rank(bc.Scores.read_csv(tmp_path / "s.csv"), "accuracy")
    for (model, _mean, versus, p_better, *_), a, b in zip(
        lines, ref.models[:-1], ref.models[1:], strict=True
    ):
        assert (model, versus) == (a, b)
        assert float(p_better) == pytest.approx(ref.p_better.loc[a, b], abs=5e-4)
    assert "\\n" not in out
    assert "39 of 1560 ordered pairs" in out


# ------------------------------------------------ item 24: every MCMC retry is said
def test_hierarchical_retries_are_each_said_with_why_and_reach_the_cli():
    from test_hierarchical import _fake_draws

    from bayescomp.cli.main import format_warnings
    from bayescomp.posterior.hierarchical import model as H
    from bayescomp.posterior.hierarchical import sampling
    from bayescomp.scores.engine import counted_warnings

    prep = H.prepare_datasets({"a": [0.1, 0.2, 0.4], "b": [0.0, -0.1, 0.05, 0.2]}, 0.2, 1000.0)
    raws = {
        ("centered", 0.9): _fake_draws(0, 0, 3.0),
        ("centered", 0.99): _fake_draws(2, 9, 3.0),
        ("noncentered", 0.9): _fake_draws(1, 5, 3.0),
        ("noncentered", 0.99): _fake_draws(3, 7, 3.0),
    }  # every attempt fails (chains 3 sd apart): three retries
    settings = dict(rope=0.01, baseline_name="b", candidate_name="c", metric=None)
    settings |= dict(sampler="pymc", random_state=None)

    def fit():
        return sampling._fit(
            prep,
            "centered",
            lambda p, a, t, d: raws[p, a],
            settings,
            refit=True,
            target_accept=0.9,
            tune=1000,
            draws=50,
        )

    with counted_warnings() as counts:
        res = fit()
    said = [m for (cat, m) in counts if issubclass(cat, bc.ConvergenceWarning)]
    assert len(said) == 3 == len(res.attempts) - 1
    first, second = res.attempts[:2]
    assert f"R-hat {first['max_r_hat']:.3f}," in said[0]  # three decimals: the threshold is 1.01
    assert (
        "after 50 draws: retrying with the centered parameterisation, target_accept 0.99, "
        "2,000 tuning steps and 100 draws" in said[0]  # ESS 3: twice the draws
    )
    assert f"{second['divergences']} divergent transitions" in said[1]
    assert "noncentered parameterisation, target_accept 0.9, 1,000 tuning steps" in said[1]
    assert "attempt 3 of up to 4" in said[2]
    lines = format_warnings(counts, "compare")
    assert sum("ConvergenceWarning" in ln and "retrying with" in ln for ln in lines) == 3


# ------------------------------------- item 7: a two-class metric on a three-class target
def _three_classes():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    proba = rng.dirichlet([1, 1, 1], 300) + np.eye(3)[y] * 0.5
    return y, proba / proba.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision", "f1", "precision"])
def test_binary_metric_on_three_classes_is_refused(metric):
    y, proba = _three_classes()
    pred = proba[:, 1] if metric in ("roc_auc", "average_precision") else proba.argmax(axis=1)
    with pytest.raises(ValueError, match=r"holds 3 classes \[0, 1, 2\].*--pos-label"):
        bc.bootstrap_metric(y, pred, metric, n_resamples=100, random_state=0)


def test_roc_auc_ovr_on_three_classes_matches_sklearn():
    from sklearn.metrics import roc_auc_score

    y, proba = _three_classes()
    res = bc.bootstrap_metric(y, proba, "roc_auc_ovr", n_resamples=200, random_state=0)
    assert res.estimate == pytest.approx(roc_auc_score(y, proba, multi_class="ovr"), abs=1e-12)


# ------------------------------------------- item 15: text scores, integer column names
def test_cli_interval_text_score_column_is_a_user_error(tmp_path, capsys):
    from bayescomp.cli.main import main

    pd.DataFrame({"y": [0, 1] * 10, "s": list("abcdefghij") * 2}).to_csv(
        tmp_path / "p.csv", index=False
    )
    code = main(["interval", str(tmp_path / "p.csv"), "--y-true", "y", "--pred", "s"])
    err = capsys.readouterr().err
    assert code == 2
    assert "column 's' is text; scores must be numbers" in err


@pytest.mark.parametrize("kind", ["frame", "pairs"])
def test_threshold_curves_text_scores_refused_by_name(kind):
    y = np.array([0, 1] * 20)
    s = np.array(["0.1", "0.9"] * 20)  # text, even when it reads as numbers
    if kind == "frame":
        preds = pd.DataFrame({"repetition": np.repeat([0, 1], 40), "y_true": np.r_[y, y]})
        preds["y_score"] = np.r_[s, s]
        where = "column 'y_score'"
    else:
        preds, where = [(y, s), (y, s)], "column 'y_score of repetition 0'"
    with pytest.raises(ValueError, match=f"{where} is text; scores must be numbers"):
        bc.threshold_curves(predictions=preds)


def test_from_wide_integer_column_names():
    wide = pd.DataFrame({0: [0.80, 0.82, 0.81], 1: [0.84, 0.85, 0.83]})
    s = bc.Scores.from_wide(wide, metric="accuracy", test_fraction=0.1)
    assert s.models == ["0", "1"]
    p = s.paired("0", "1")
    np.testing.assert_array_equal(p["candidate"] - p["baseline"], wide[1] - wide[0])
