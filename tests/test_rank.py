"""``rank``: the pairwise matrices must agree with pairwise ``compare`` calls."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayescomp as bc


def _scores(metric: str = "accuracy", k: int = 5, n: int = 25, seed: int = 0) -> bc.Scores:
    rng = np.random.default_rng(seed)
    base = rng.normal(0.8, 0.03, n)
    offsets = np.linspace(-0.02, 0.02, k)
    rows = []
    for i, off in enumerate(offsets):
        vals = base + off + rng.normal(0, 0.01 + 0.004 * i, n)
        rows.append(
            pd.DataFrame(
                {
                    "model": f"m{i}",
                    "split": np.arange(n),
                    metric: vals,
                    "n_train": 180,
                    "n_test": 20,
                }
            )
        )
    return bc.Scores.from_frame(pd.concat(rows, ignore_index=True))


@pytest.mark.parametrize("metric", ["accuracy", "rmse"])
def test_rank_agrees_with_pairwise_compare(metric):
    scores = _scores(metric)
    r = bc.rank(scores, metric, rope=0.01)
    assert len(r.models) == 5
    for a in r.models:
        for b in r.models:
            if a == b:
                assert np.isnan(r.p_better.loc[a, b])
                continue
            res = bc.compare(scores, baseline=b, candidate=a, metric=metric, rope=0.01)
            assert r.p_better.loc[a, b] == pytest.approx(res.p_better, abs=1e-12)
            assert r.p_left.loc[a, b] == pytest.approx(res.p_left, abs=1e-12)
            assert r.p_rope.loc[a, b] == pytest.approx(res.p_rope, abs=1e-12)
            assert r.p_right.loc[a, b] == pytest.approx(res.p_right, abs=1e-12)
            assert r.expected_gain.loc[a, b] == pytest.approx(res.mean, abs=1e-12)
    # symmetry of the t posterior: P(a > b) + P(b > a) = 1, p_right(a, b) = p_left(b, a)
    pb = r.p_better.to_numpy()
    off = ~np.eye(5, dtype=bool)
    np.testing.assert_allclose((pb + pb.T)[off], 1.0, atol=1e-12)
    np.testing.assert_allclose(r.p_right.to_numpy()[off], r.p_left.to_numpy().T[off], atol=1e-12)
    # rows sorted best first (for rmse: lowest first)
    means = scores.mean(metric).iloc[0]
    order = means.sort_values(ascending=(metric == "rmse")).index.tolist()
    assert r.models == order


def test_rank_against_scipy_formula():
    scores = _scores()
    r = bc.rank(scores, "accuracy", rope=0.005)
    f = scores.to_frame().pivot(index="split", columns="model", values="accuracy")
    d = (f["m4"] - f["m0"]).to_numpy()
    n, rho = len(d), 0.1
    post = stats.t(n - 1, loc=d.mean(), scale=np.sqrt(d.var(ddof=1) * (1 / n + rho / (1 - rho))))
    assert r.p_better.loc["m4", "m0"] == pytest.approx(post.sf(0), abs=1e-12)
    assert r.p_rope.loc["m4", "m0"] == pytest.approx(post.cdf(0.005) - post.cdf(-0.005), abs=1e-12)
    summ = r.summary(0.95)
    assert len(summ) == 20 and set(summ["decision"]) <= {
        "promote",
        "worse",
        "equivalent",
        "inconclusive",
    }
    row = summ[(summ["model"] == "m4") & (summ["versus"] == "m0")].iloc[0]
    assert row["decision"] == bc.compare(scores, "m0", "m4", rope=0.005).decision(0.95).outcome


def test_rank_heatmap_and_errors(tmp_path):
    scores = _scores(k=4)
    r = bc.rank(scores, rope=0.01)
    ax = r.plot()
    assert ax.get_images() and len(ax.texts) == 16
    ax.figure.savefig(tmp_path / "rank.png", dpi=80)
    assert (tmp_path / "rank.png").stat().st_size > 5000
    with pytest.raises(ValueError, match="kind"):
        r.plot("nope")
    with pytest.raises(ValueError, match="at least two models"):
        bc.rank(scores, rope=0.01, models=["m0"])
    f = scores.to_frame()
    f = f[~((f["model"] == "m2") & (f["split"] == 3))]
    with pytest.raises(ValueError, match="unpaired splits"):
        bc.rank(bc.Scores(f), rope=0.01)


def test_rank_on_one_dataset_of_several():
    s = _scores(k=3)
    f = s.to_frame()
    two = bc.Scores(pd.concat([f.assign(dataset="a"), f.assign(dataset="b")], ignore_index=True))
    r2 = bc.rank(two, rope=0.01, dataset="b")
    r1 = bc.rank(s, rope=0.01)
    pd.testing.assert_frame_equal(r1.p_better, r2.p_better)


def test_rank_across_datasets_fits_each_pair_once_and_mirrors_it(monkeypatch):
    import dataclasses
    import warnings

    import bayescomp.posterior.compare as cmp

    rng = np.random.default_rng(0)
    rows = []
    for ds in ["d1", "d2", "d3"]:
        base = rng.normal(0.8, 0.02, 10)
        for m, shift in (("a", 0.0), ("b", 0.03), ("c", 0.01)):
            rows += [
                (ds, m, sp, 9, 1, v) for sp, v in enumerate(base + shift + rng.normal(0, 0.005, 10))
            ]
    scores = bc.Scores(
        pd.DataFrame(rows, columns=["dataset", "model", "split", "n_train", "n_test", "accuracy"])
    )
    real, calls = cmp.compare_scores, []

    def counted(table, baseline, candidate, request, **kwargs):
        calls.append((baseline, candidate))
        request = dataclasses.replace(request, method="signed_rank", random_state=0)
        return real(table, baseline, candidate, request, **kwargs)

    monkeypatch.setattr(cmp, "compare_scores", counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = bc.rank(scores, "accuracy", rope=0.01)
    assert len(calls) == 3 and len({frozenset(c) for c in calls}) == 3  # k(k-1)/2 posteriors
    names = list(r.p_right.index)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            direct = bc.compare(
                scores, b, a, metric="accuracy", rope=0.01, method="signed_rank", random_state=0
            )
            assert r.p_right.loc[a, b] == pytest.approx(direct.p_right)
            assert r.p_left.loc[b, a] == pytest.approx(direct.p_right)  # the mirror
            assert r.p_right.loc[b, a] == pytest.approx(direct.p_left)
            assert r.p_rope.loc[b, a] == pytest.approx(direct.p_rope)
            assert r.expected_gain.loc[b, a] == pytest.approx(-direct.expected_gain)
