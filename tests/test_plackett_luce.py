"""Joint Bayesian ranking (Plackett–Luce): likelihood, ties, recovery, coverage, real data."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.core.exceptions import ConvergenceWarning
from bayescomp.posterior.plackett_luce import (
    PlackettLuceResult,
    expected_rank,
    plackett_luce,
    plackett_luce_loglik,
    rankings_from_scores,
)
from bayescomp.posterior.plackett_luce import model as M
from bayescomp.posterior.plackett_luce.sampling import _to_idata

K = 5  # every MCMC test ranks five models: one compiled model serves them all
FAST = dict(chains=4, draws=500, tune=500)
TRUE_WORTH = 1.7 ** -np.arange(5) / (1.7 ** -np.arange(5)).sum()  # each 1.7 x the next


# ------------------------------------------------------------------ helpers
def _pl_probability(worth, order) -> float:
    """P(order | worth), written out as the sequential choice it is."""
    p, left = 1.0, list(order)
    for m in order:
        p *= worth[m] / sum(worth[j] for j in left)
        left.remove(m)
    return p


def _simulate(worth, n: int, rng) -> pd.DataFrame:
    """Rankings drawn by sequential choice (independent of the Gumbel trick or the model)."""
    k = len(worth)
    rows = []
    for _ in range(n):
        left, scores = list(range(k)), np.empty(k)
        for place in range(k):
            p = worth[left] / worth[left].sum()
            pick = left[rng.choice(len(left), p=p)]
            scores[pick] = k - place
            left.remove(pick)
        rows.append(scores)
    return pd.DataFrame(
        rows, columns=[f"m{i}" for i in range(k)], index=[f"d{i}" for i in range(n)]
    )


def _hand_result(draws: np.ndarray, table: pd.DataFrame) -> PlackettLuceResult:
    """A result built by the package's own InferenceData builder from given worth draws."""
    from bayescomp.core.arviz_compat import from_dict

    rankings = rankings_from_scores(table)
    chains = 2
    raw = from_dict(
        {
            "posterior": {"worth": draws.reshape(chains, -1, draws.shape[-1])},
            "sample_stats": {"diverging": np.zeros((chains, len(draws) // chains))},
        }
    )
    return PlackettLuceResult(idata=_to_idata(raw, rankings, {"metric": "acc"}), metric="acc")


# --------------------------------------------------------------- likelihood
@pytest.mark.parametrize("k", [2, 3, 5])
def test_loglik_matches_sequential_choice_and_is_normalised(k):
    rng = np.random.default_rng(k)
    worth = rng.dirichlet(np.ones(k))
    perms = list(itertools.permutations(range(k)))
    table = pd.DataFrame(
        [[k - list(p).index(m) for m in range(k)] for p in perms],
        columns=[f"m{i}" for i in range(k)],
    )
    r = rankings_from_scores(table)
    ll = plackett_luce_loglik(worth, r)
    expected = np.array([_pl_probability(worth, p) for p in perms])
    np.testing.assert_allclose(np.exp(ll), expected, rtol=1e-12)
    assert np.exp(ll).sum() == pytest.approx(1.0, abs=1e-12)  # a distribution over rankings
    # scale-free: only ratios of worths matter
    np.testing.assert_allclose(plackett_luce_loglik(7.0 * worth, r), ll, rtol=1e-12)


def test_tied_ranking_is_the_exact_marginal_over_consistent_orders():
    rng = np.random.default_rng(1)
    worth = rng.dirichlet(np.ones(5))
    # m3 best; m0, m2, m4 tied; m1 last
    row = pd.DataFrame([[0.5, 0.1, 0.5, 0.9, 0.5]], columns=[f"m{i}" for i in range(5)])
    # 2nd dataset: m4 moves up to second place, m0 and m2 still tie
    table = pd.concat([row, row + np.array([0, 0, 0, 0, 0.2])], ignore_index=True)
    r = rankings_from_scores(table)
    assert r.valid.sum(axis=1).tolist() == [6, 2]  # 3! orders; then m0 = m2 tied (2!)
    brute = 0.0  # every strict order of the 5 models, kept when consistent with the ties
    for order in itertools.permutations(range(5)):
        if order[0] == 3 and set(order[1:4]) == {0, 2, 4} and order[4] == 1:
            brute += _pl_probability(worth, order)
    assert np.exp(plackett_luce_loglik(worth, r)[0]) == pytest.approx(brute, rel=1e-12)
    # listing the tied models in another column order changes nothing
    perm = [4, 2, 0, 3, 1]
    r2 = rankings_from_scores(table.iloc[:, perm])
    np.testing.assert_allclose(
        plackett_luce_loglik(worth[perm], r2), plackett_luce_loglik(worth, r), rtol=1e-12
    )
    assert r.ranks.iloc[0].tolist() == [3.0, 5.0, 3.0, 1.0, 3.0]  # ties share the average place
    assert r.tied == ("0", "1")


def test_all_tied_dataset_is_left_out_and_ties_chain_within_tolerance():
    table = pd.DataFrame(
        {"a": [0.9, 0.7, 0.50], "b": [0.8, 0.7, 0.505], "c": [0.7, 0.7, 0.51]},
        index=["x", "y", "z"],
    )
    r = rankings_from_scores(table, tie_tol=0.006)  # z: c-b and b-a within tol -> all tied
    assert r.all_tied == ("y", "z") and r.datasets == ("x",)
    assert r.ranks.loc["z"].tolist() == [2.0, 2.0, 2.0]
    r = rankings_from_scores(table)
    assert r.all_tied == ("y",) and r.ranks.loc["z"].tolist() == [3.0, 2.0, 1.0]


@pytest.mark.slow  # ~45 s: .ci/run runs it on the PyMC 6 stack
@pytest.mark.stack
def test_pytensor_graph_uses_the_same_likelihood():
    import pymc as pm

    rng = np.random.default_rng(3)
    table = pd.DataFrame(rng.integers(0, 3, size=(6, 4)).astype(float), columns=list("abcd"))
    r = rankings_from_scores(table)
    assert r.tied
    model = M.build_model(4)
    with model:
        pm.set_data(r.data())
    worth = rng.dirichlet(np.ones(4))
    pot = model.potentials[0].eval({model["worth"]: worth})
    assert float(pot) == pytest.approx(plackett_luce_loglik(worth, r).sum(), rel=1e-10)


def test_expected_rank_matches_simulated_rankings():
    rng = np.random.default_rng(0)
    worth = np.array([0.45, 0.3, 0.15, 0.1])
    # Gumbel-max: argsort of log w + Gumbel noise is a Plackett–Luce ranking
    keys = np.log(worth) + rng.gumbel(size=(200_000, 4))
    places = np.argsort(np.argsort(-keys, axis=1), axis=1) + 1
    np.testing.assert_allclose(expected_rank(worth[None])[0], places.mean(axis=0), atol=0.01)
    draws = rng.dirichlet(np.ones(6), size=50)
    np.testing.assert_allclose(expected_rank(draws).sum(axis=1), 21.0)  # 1 + 2 + ... + 6


@pytest.mark.parametrize(
    ("table", "kwargs", "match"),
    [
        (pd.DataFrame({"a": [1.0, np.nan], "b": [0.5, 0.2]}), {}, "missing"),
        (pd.DataFrame({"a": [1.0, 2.0]}), {}, "at least 2 models"),
        (pd.DataFrame({c: [1.0, 2.0] for c in "abcdefgh"}), {}, "every model scores the same"),
        (pd.DataFrame({c: [1.0, float(i)] for i, c in enumerate("abcdefgh")}), {}, None),
        (
            pd.DataFrame({c: [1.0, 1.0, 0.0] for c in "abcdefgh"}).assign(i=[2.0, 0, 1]),
            {},
            "40320 orderings",
        ),
        (pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, 0.2]}), {"tie_tol": -1}, "tie_tol"),
    ],
)
def test_bad_rankings_raise_clear_errors(table, kwargs, match):
    if match is None:  # one all-tied dataset among informative ones is fine
        assert rankings_from_scores(table).all_tied == ("0",)
        return
    with pytest.raises(ValueError, match=match):
        rankings_from_scores(table, **kwargs)


def test_bad_options_and_inputs_raise():
    table = pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, 0.2]})
    with pytest.raises(ValueError, match="DataFrame"):
        plackett_luce(table.to_numpy())
    with pytest.raises(ValueError, match="concentration"):
        plackett_luce(table, concentration=0)
    with pytest.raises(ValueError, match="draws"):
        plackett_luce(table, draws=0)
    with pytest.raises(ValueError, match="sampler"):
        plackett_luce(table, sampler="stan")
    scores = bc.Scores.from_frame(
        pd.DataFrame(
            {
                "dataset": np.repeat(["x", "y"], 6),
                "model": np.tile(np.repeat(["a", "b"], 3), 2),
                "split": np.tile(range(3), 4),
                "accuracy": np.linspace(0.7, 0.9, 12),
            }
        ),
        test_fraction=0.1,
    )
    with pytest.raises(ValueError, match="rope"):
        bc.rank(scores, "accuracy", rope=0.01, method="plackett_luce")
    with pytest.raises(ValueError, match="at least 2"):
        bc.rank(scores, "accuracy", dataset="x", method="plackett_luce")
    with pytest.raises(ValueError, match="method"):
        bc.rank(scores, "accuracy", method="borda")


# ------------------------------------------------------- summaries, LaTeX
@pytest.fixture()
def hand():
    """6 draws w = (.5, .3, .2) and 2 draws w = (.2, .5, .3) of models a_1, b, c."""
    draws = np.array(
        [[0.5, 0.3, 0.2]] * 3 + [[0.2, 0.5, 0.3]] + [[0.5, 0.3, 0.2]] * 3 + [[0.2, 0.5, 0.3]]
    )
    table = pd.DataFrame({"a_1": [0.9, 0.8], "b": [0.8, 0.9], "c": [0.7, 0.8]}, index=["d1", "d2"])
    return _hand_result(draws, table)


def test_summaries_follow_from_the_draws(hand):
    assert hand.p_best.tolist() == [0.75, 0.25, 0.0]
    assert hand.p_first.tolist() == pytest.approx([0.425, 0.35, 0.225])
    # expected ranks per draw: (1.661, 2.025, 2.314) and (2.314, 1.661, 2.025)
    r1 = [1 + 0.3 / 0.8 + 0.2 / 0.7, 1 + 0.5 / 0.8 + 0.2 / 0.5, 1 + 0.5 / 0.7 + 0.3 / 0.5]
    r2 = [r1[2], r1[0], r1[1]]
    mean = [(6 * a + 2 * b) / 8 for a, b in zip(r1, r2, strict=True)]
    assert hand.expected_ranks()["expected_rank"].tolist() == pytest.approx(mean)
    assert hand.order == ["a_1", "b", "c"]
    pb = hand.p_beats
    assert pb.loc["a_1", "b"] == 0.75 and pb.loc["b", "a_1"] == 0.25
    assert pb.loc["b", "c"] == 1.0 and np.isnan(pb.loc["c", "c"])
    assert hand.mean_ranks.tolist() == [1.75, 1.5, 2.75]  # d2: c and a_1 tie for 2nd and 3rd
    assert list(hand.idata.posterior["worth"].dims) == ["chain", "draw", "model"]
    assert not hand.converged  # eight draws: no claims
    assert hand.best(0.7).model is None and "did not converge" in hand.best(0.7).reason
    assert hand.uncertain_groups() == [("a_1", "b", "c")]


def test_to_latex_exact_text(hand):
    text = hand.to_latex(confidence_level=0.5, digits=3)
    first, rest = text.split("\n", 1)
    assert first.startswith("% NOT CONVERGED (")
    # interval: 25% and 75% quantiles of six 1.661 and two 2.314 (linear interpolation)
    assert rest == (
        "\\begin{tabular}{lrrr}\n"
        "\\toprule\n"
        "model & $P(\\text{best})$ & expected rank [50\\% CI] & mean rank \\\\\n"
        "\\midrule\n"
        "a\\_1 & 0.750 & 1.824 [1.661, 1.824] & 1.750 \\\\\n"
        "b & 0.250 & 1.934 [1.934, 2.025] & 1.500 \\\\\n"
        "c & 0.000 & 2.242 [2.242, 2.314] & 2.750 \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
    )
    wrapped = hand.to_latex(caption="Ranks of 3 models & more", label="tab:rank")
    assert (
        "\\begin{table}\n\\centering\n\\caption{Ranks of 3 models \\& more}\n"
        "\\label{tab:rank}\n" in wrapped
    )
    assert wrapped.endswith("\\end{tabular}\n\\end{table}\n")


def test_uncertain_groups_on_a_converged_fit(hand, monkeypatch):
    monkeypatch.setattr(type(hand), "converged", property(lambda self: True))
    assert hand.best(0.7) == ("a_1", 0.75, "P(a_1 is best) = 0.750 >= 0.7")
    assert hand.best(0.95).model is None
    # P(a beats b) = P(a beats c) = .75 (unresolved at .95), P(b beats c) = 1
    assert hand.uncertain_groups(0.95) == [("a_1", "b")]
    assert hand.uncertain_groups(0.7) == []


def test_plots(hand):
    from matplotlib.axes import Axes

    ax = hand.plot_ranks(gamma=0.95)
    assert isinstance(ax, Axes)
    assert next(t.get_text() for t in ax.get_yticklabels()).startswith("a_1")
    assert len(ax.lines) == 1 + len(hand.uncertain_groups())  # the dots, then one bar per group
    ax = hand.plot_p_best()
    assert len(ax.patches) == 3 and ax.patches[0].get_width() == 0.75
    ax = hand.plot_control("c", gamma=0.95)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "a_1"]
    assert [p.get_width() for p in ax.patches] == [1.0, 0.75]
    with pytest.raises(ValueError, match="control"):
        hand.plot_control("zzz")
    assert isinstance(hand.plot(), Axes)


# ------------------------------------------------------------- MCMC fits
@pytest.fixture(scope="module")
def simulated():
    rng = np.random.default_rng(42)
    table = _simulate(TRUE_WORTH, 150, rng)
    return table, plackett_luce(table, random_state=1, **FAST)


def test_recovers_the_order_of_known_worths(simulated):
    _table, res = simulated
    assert res.converged, res.convergence_problems
    assert res.order == [f"m{i}" for i in range(K)]
    s = res.summary(0.95).loc[[f"m{i}" for i in range(K)]]
    assert ((s.worth_low < TRUE_WORTH) & (s.worth_high > TRUE_WORTH)).all()
    assert res.p_best.idxmax() == "m0"
    assert res.p_beats.loc["m0", "m4"] > 0.99
    # the posterior expected rank tracks the observed mean rank
    assert np.corrcoef(s.expected_rank, s.mean_rank)[0, 1] > 0.98
    assert res.idata.posterior["worth"].sizes == {"chain": 4, "draw": 500, "model": K}


def test_same_seed_same_draws_and_all_tied_datasets_change_nothing(simulated):
    table, res = simulated
    tied = pd.DataFrame(np.ones((3, K)), columns=table.columns, index=["t0", "t1", "t2"])
    again = plackett_luce(pd.concat([table, tied]), random_state=1, **FAST)
    np.testing.assert_array_equal(
        again.idata.posterior["worth"].values, res.idata.posterior["worth"].values
    )
    assert again.all_tied == ("t0", "t1", "t2")
    assert list(again.idata.constant_data["informative"].values[-3:]) == [0, 0, 0]


def test_tied_models_get_exchangeable_posteriors(simulated):
    table, _ = simulated
    tied = table.copy()
    tied["m1"] = tied["m0"]  # m0 and m1 tie on every dataset
    res = plackett_luce(tied, random_state=2, **FAST)
    assert len(res.tied) == len(table)
    w = res.worth_draws
    mcse = np.std(w[:, 0] - w[:, 1]) / np.sqrt(res.diagnostics["ess_bulk"].min())
    assert abs(np.mean(w[:, 0] - w[:, 1])) < 4 * mcse
    assert 0.4 < res.p_beats.loc["m0", "m1"] < 0.6
    assert res.p_beats.loc["m0", "m4"] > 0.99


def test_not_converged_means_no_claims():
    rng = np.random.default_rng(5)
    table = _simulate(TRUE_WORTH, 30, rng)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        res = plackett_luce(table, random_state=3, chains=2, draws=15, tune=15)
    assert not res.converged
    assert res.best(0.6).model is None
    assert res.uncertain_groups(0.6) == [tuple(res.order)]


def test_rank_with_plackett_luce_from_a_scores_table(simulated):
    table, res = simulated
    rows = []
    for ds, scores in table.iterrows():  # 3 splits per dataset around the dataset's score
        for m, v in scores.items():
            # a loss (positive, lower is better) that orders the models as the table does
            rows += [(ds, m, s, 1000.0 - v + 0.01 * (s - 1)) for s in range(3)]
    frame = pd.DataFrame(rows, columns=["dataset", "model", "split", "rmse"])  # lower is better
    scores = bc.Scores.from_frame(frame, test_fraction=0.1)
    r = bc.rank(scores, "rmse", method="plackett_luce", random_state=1, **FAST)
    assert isinstance(r, bc.PlackettLuceResult)
    assert r.metric == "rmse"
    # the same rankings, listed in another dataset order: the same draws up to the order of
    # floating-point summation
    np.testing.assert_allclose(r.worth_draws, res.worth_draws, rtol=0, atol=1e-6)


def _coverage(n_rep: int, seed: int) -> tuple[int, int]:
    rng = np.random.default_rng(seed)
    hits = total = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for rep in range(n_rep):
            worth = rng.dirichlet(np.ones(K))  # truth drawn from the prior: exact calibration
            table = _simulate(worth, 15, rng)
            res = plackett_luce(table, random_state=rep, chains=2, draws=400, tune=300)
            s = res.summary(0.9).loc[list(table.columns)]
            hits += int(((s.worth_low <= worth) & (worth <= s.worth_high)).sum())
            total += K
    return hits, total


def test_worth_intervals_cover_in_a_small_simulation():
    hits, total = _coverage(20, seed=7)  # 100 intervals at 90%
    from scipy import stats

    assert stats.binomtest(hits, total, 0.9).pvalue > 0.001, (hits, total)


@pytest.mark.slow
def test_worth_intervals_cover_in_a_large_simulation():
    hits, total = _coverage(200, seed=8)  # 1000 intervals at 90%
    assert 0.88 < hits / total < 0.92, (hits, total)


# -------------------------------------------------- the shared 54-dataset data
@pytest.fixture(scope="module")
def baycomp_scores(shared_data):
    from baycomp_data import load_baycomp_accuracies

    return bc.Scores.from_frame(load_baycomp_accuracies(shared_data / "baycomp_accuracies.txt"))


@pytest.fixture(scope="module")
def baycomp_ranking(baycomp_scores):
    return bc.rank(baycomp_scores, "accuracy", method="plackett_luce", random_state=0, **FAST)


def test_shared_data_order_agrees_with_mean_ranks(baycomp_scores, baycomp_ranking):
    res = baycomp_ranking
    assert res.converged, res.convergence_problems
    # independent: scipy's average ranks of the per-dataset mean accuracies
    from scipy.stats import rankdata

    means = baycomp_scores.to_frame().pivot_table(
        index="dataset", columns="model", values="accuracy"
    )
    mean_rank = pd.Series(rankdata(-means.to_numpy(), axis=1).mean(axis=0), index=means.columns)
    assert res.order == list(mean_rank.sort_values().index)
    assert res.order == ["aode", "hnb", "j48gr", "j48", "nbc"]
    np.testing.assert_allclose(res.mean_ranks.loc[mean_rank.index], mean_rank, atol=1e-12)
    assert len(res.tied) > 0  # e.g. nbc and aode agree on every split of hayes-roth
    assert res.p_beats.loc["aode", "nbc"] > 0.99


@pytest.mark.parametrize(
    ("a", "b"), [("aode", "nbc"), pytest.param("hnb", "j48", marks=pytest.mark.slow)]
)
def test_shared_data_agrees_with_the_pairwise_hierarchical_model(
    baycomp_scores, baycomp_ranking, a, b
):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        h = bc.compare(
            baycomp_scores,
            baseline=b,
            candidate=a,
            metric="accuracy",
            rope=0.0,
            method="hierarchical",
            random_state=1,
            chains=2,
            draws=500,
            tune=1000,
        )
    # both say a is better than b, and confidently
    assert h.p_better > 0.95
    assert baycomp_ranking.p_beats.loc[a, b] > 0.95


@pytest.mark.slow
def test_shared_data_agrees_with_pairwise_rank_on_every_pair(baycomp_scores, baycomp_ranking):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        pairwise = bc.rank(
            baycomp_scores, "accuracy", random_state=1, chains=4, draws=1000, tune=1000
        )
    pl = baycomp_ranking.p_beats
    for a, b in itertools.permutations(pl.index, 2):
        ph = pairwise.p_better.loc[a, b]
        if ph >= 0.95:  # wherever the hierarchical model is sure, the ranking agrees in sign
            assert pl.loc[a, b] > 0.5, (a, b, ph, pl.loc[a, b])
    assert math.isclose(pl.loc["aode", "nbc"], 1.0, abs_tol=0.01)


def test_the_retired_nuts_fast_path_is_refused_naming_the_samplers():
    table = pd.DataFrame(np.random.default_rng(0).normal(size=(4, 3)), columns=list("abc"))
    with pytest.raises(ValueError, match=r"sampler must be one of \('auto', 'gibbs', 'nutpie'"):
        plackett_luce(table, sampler="fast")


def test_loglik_is_finite_when_the_last_worth_underflows_or_the_worths_overflow():
    r = rankings_from_scores(pd.DataFrame({"a": [3.0, 2.0], "b": [2.0, 3.0], "c": [1.0, 1.0]}))
    # c last on both (a > b > c, b > a > c) with no worth: P = 0.5 / 1 * 0.5 / 0.5 * 1
    np.testing.assert_allclose(plackett_luce_loglik(np.array([0.5, 0.5, 0.0]), r), np.log(0.5))
    w = np.array([0.5, 0.3, 0.2])
    np.testing.assert_allclose(plackett_luce_loglik(w * 1e307, r), plackett_luce_loglik(w, r))
    want = [np.log(_pl_probability(w, [0, 1, 2])), np.log(_pl_probability(w, [1, 0, 2]))]
    np.testing.assert_allclose(plackett_luce_loglik(w * 1e307, r), want, rtol=1e-12)


def test_expected_rank_of_a_worth_that_underflowed_is_last():
    np.testing.assert_allclose(expected_rank(np.array([[0.5, 0.5, 0.0]])), [[1.5, 1.5, 3.0]])


def test_expected_ranks_and_p_beats_are_computed_in_bounded_blocks():
    """300 models x 400 draws: the (draws, k, k) array (288 MB per temporary) is never formed;
    the values equal the pairwise formulas evaluated draw by draw."""
    import tracemalloc

    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(300), size=400)
    tracemalloc.start()
    er = expected_rank(w.reshape(2, 200, 300))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 120e6, peak
    for d in (0, 199, 399):
        row = w[d]
        want = 1.0 + (row[None, :] / (row[:, None] + row[None, :])).sum(axis=1) - 0.5
        np.testing.assert_allclose(er.reshape(-1, 300)[d], want, rtol=1e-12)
    table = pd.DataFrame(rng.normal(size=(3, 300)), columns=[f"m{i}" for i in range(300)])
    res = _hand_result(w, table)
    tracemalloc.start()
    p = res.p_beats.to_numpy()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 120e6, peak
    assert p[3, 7] == pytest.approx(float(np.mean(w[:, 3] > w[:, 7])))
    assert np.isnan(np.diag(p)).all()


def test_more_models_than_one_fit_ranks_is_refused_in_one_line():
    from bayescomp.posterior.plackett_luce.sampling import MAX_MODELS

    table = pd.DataFrame(np.random.default_rng(0).normal(size=(2, MAX_MODELS + 1)))
    with pytest.raises(ValueError, match=r"at most 2,000 models, got 2,001") as exc:
        plackett_luce(table, random_state=0)
    assert "\n" not in str(exc.value)


def test_rank_refuses_a_nan_score_as_compare_does():
    rng = np.random.default_rng(0)
    f = pd.DataFrame(
        {
            "dataset": np.repeat(["d1", "d2", "d3"], 12),
            "model": np.tile(np.repeat(["a", "b", "c"], 4), 3),
            "split": np.tile(np.arange(4), 9),
            "accuracy": rng.uniform(0.7, 0.9, 36),
            "n_train": 90,
            "n_test": 10,
        }
    )
    f.loc[(f["dataset"] == "d2") & (f["model"] == "b") & (f["split"] == 3), "accuracy"] = np.nan
    s = bc.Scores.from_frame(f)
    with pytest.raises(ValueError, match=r"'accuracy' of 'b' on dataset 'd2' is NaN/inf on split"):
        bc.rank(s, "accuracy", method="plackett_luce", random_state=0)
    with pytest.raises(ValueError, match=r"'accuracy' of 'b' on dataset 'd2' is NaN/inf on split"):
        bc.compare(s, "a", "b", metric="accuracy")


def test_rank_ranks_finite_scores_near_the_largest_float():
    """Means over splits of scores near 1.8e308 overflowed to inf, which read as "missing"."""
    rng = np.random.default_rng(0)
    level = {"a": 1.0e308, "b": 1.2e308, "c": 1.4e308}
    f = pd.DataFrame(
        [
            {"dataset": d, "model": m, "split": s, "n_train": 90, "n_test": 10}
            | {"gain": level[m] + 1e306 * rng.standard_normal()}
            for d in ("d1", "d2", "d3")
            for m in level
            for s in range(4)
        ]
    )
    res = bc.rank(
        bc.Scores.from_frame(f),
        "gain",
        method="plackett_luce",
        higher_is_better=True,
        random_state=0,
    )
    assert res.mean_ranks.tolist() == [3.0, 2.0, 1.0]  # c first on every dataset
