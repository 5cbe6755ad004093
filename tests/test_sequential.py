"""The anytime-valid comparison on a prediction log (``bayescomp.posterior.sequential``)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayescomp as bc
from bayescomp.posterior.sequential import (
    asymptotic_cs,
    betting_log_wealth,
    decision_codes,
    empirical_bernstein_cs,
    look_positions,
)


def _eb_by_hand(x, alpha, bound, c=0.5):
    """Waudby-Smith & Ramdas (2024) PrPl-EB, one item at a time as the paper writes it."""
    out, mu_prev, sig2_prev = [], 0.5, 0.25
    s_y = s_sq = s_lam = s_lam_y = s_vpsi = 0.0
    for t, xi in enumerate(x, start=1):
        y = (xi + bound) / (2 * bound)
        lam = min(math.sqrt(2 * math.log(2 / alpha) / (sig2_prev * t * math.log(1 + t))), c)
        s_vpsi += 4 * (y - mu_prev) ** 2 * (-math.log(1 - lam) - lam) / 4
        s_lam += lam
        s_lam_y += lam * y
        s_y += y
        mu = (0.5 + s_y) / (t + 1)
        s_sq += (y - mu) ** 2
        mu_prev, sig2_prev = mu, (0.25 + s_sq) / (t + 1)
        centre, width = s_lam_y / s_lam, (math.log(2 / alpha) + s_vpsi) / s_lam
        out.append([2 * bound * (centre - width) - bound, 2 * bound * (centre + width) - bound])
    return np.array(out)


def test_empirical_bernstein_sequence_matches_the_papers_recursion():
    x = np.random.default_rng(3).choice([-1.0, 0.0, 1.0], p=[0.1, 0.7, 0.2], size=300)
    _, lo, hi = empirical_bernstein_cs(x, 0.1, 1.0)
    np.testing.assert_allclose(np.c_[lo, hi], _eb_by_hand(x, 0.1, 1.0), rtol=1e-10)
    wide = x * 3  # on [-log(1000), log(1000)] the same recursion after rescaling
    _, lo3, hi3 = empirical_bernstein_cs(wide, 0.1, math.log(1000))
    np.testing.assert_allclose(np.c_[lo3, hi3], _eb_by_hand(wide, 0.1, math.log(1000)))


def _wealth_by_hand(x, null, bound, side, c=0.5):
    """The aGRAPA betting wealth against ``side * (mean - null) <= 0``, one item at a time:
    the bet from the mean and second moment of the earlier ``side * (x - null)`` (prior 0 and
    ``bound ** 2`` with weight 1), capped at ``c / (bound + side * null)``."""
    log_k, best, s1, s2, out = 0.0, -math.inf, 0.0, bound**2, []
    for t, xi in enumerate(x):
        y = side * (xi - null)
        lam = min(max((s1 / (t + 1)) / (s2 / (t + 1)), 0.0), c / (bound + side * null))
        log_k += math.log(1 + lam * y)
        best = max(best, log_k)
        out.append(best)
        s1, s2 = s1 + y, s2 + y * y
    return np.array(out)


def test_betting_e_processes_match_their_item_by_item_formula():
    x = np.random.default_rng(7).choice([-1.0, 0.0, 1.0], p=[0.1, 0.6, 0.3], size=400)
    for null, bound in [(0.05, 1.0), (-0.3, 1.0), (0.2, math.log(1000))]:
        above, below = betting_log_wealth(x * bound, null, bound)
        np.testing.assert_allclose(above, _wealth_by_hand(x * bound, null, bound, 1), rtol=1e-10)
        np.testing.assert_allclose(below, _wealth_by_hand(x * bound, null, bound, -1), rtol=1e-10)
    assert above[-1] > math.log(20) > below[-1]  # a mean of 0.2 * bound is above 0.2


def test_asymptotic_sequence_is_the_normal_mixture_boundary():
    x = np.random.default_rng(4).exponential(size=500)
    mean, lo, hi = asymptotic_cs(x, 0.1, t_star=200, t_min=50)
    t, a = 400, 0.1
    r2 = (-2 * math.log(a) + math.log(-2 * math.log(a) + 1)) / 200
    sd = np.std(x[:t], ddof=1)
    w = sd * math.sqrt(2 * (t * r2 + 1) / (t**2 * r2) * math.log(math.sqrt(t * r2 + 1) / a))
    assert mean[t - 1] == pytest.approx(x[:t].mean())
    assert (lo[t - 1], hi[t - 1]) == pytest.approx((x[:t].mean() - w, x[:t].mean() + w))
    assert np.isinf(lo[:49]).all() and np.isfinite(lo[49])


def _edge_runs(rng, runs, n, margin, disagree=0.1):
    """Paired accuracy differences whose mean is exactly the margin (the edge)."""
    u = rng.random((runs, n))
    p, q = (disagree + margin) / 2, (disagree - margin) / 2
    return np.where(u < p, 1.0, np.where(u < p + q, -1.0, 0.0))


def test_edge_false_promotion_stays_below_one_minus_gamma_while_naive_looks_exceed_it():
    rng = np.random.default_rng(11)
    runs, n, m, gamma = 400, 5000, 0.01, 0.95
    x = _edge_runs(rng, runs, n, m)
    codes = decision_codes(x, 2 * (1 - gamma), 1.0, m)  # a look after every item
    first = np.take_along_axis(codes, (codes > 0).argmax(axis=1)[:, None], axis=1)
    rate = np.mean(first == 1)
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)
    at = look_positions(np.ones(n), 100)  # naive: the fixed-sample test at every 100 items
    t = at + 1
    mean = np.cumsum(x, axis=1)[:, at] / t
    sd = np.sqrt(np.maximum(np.cumsum(x * x, axis=1)[:, at] / t - mean**2, 1e-12))
    naive = (mean - stats.norm.ppf(gamma) * sd / np.sqrt(t) > m).any(axis=1).mean()
    assert naive > 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)


def _log(rng, n, acc_b=0.8, acc_c=0.9):
    y = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "y_true": y,
            "old": np.where(rng.random(n) < acc_b, y, 1 - y),
            "new": np.where(rng.random(n) < acc_c, y, 1 - y),
        }
    )


def test_watch_promotes_at_the_first_look_whose_betting_wealth_reached_one_over_alpha():
    log = _log(np.random.default_rng(0), 20000)
    res = bc.watch(log, baseline="old", candidate="new", metric="accuracy", rope=0.02, every=10)
    d = (log.new == log.y_true).astype(float) - (log.old == log.y_true)
    _, lo, hi = empirical_bernstein_cs(d.to_numpy(), 0.1, 1.0)  # shown, not deciding
    wealth = _wealth_by_hand(d.to_numpy()[:5000], 0.02, 1.0, 1)
    first = next(k for k in range(9, 5000, 10) if wealth[k] >= math.log(20))
    assert (res.decision, res.decided_at) == ("promote", first + 1)
    assert res.estimate == pytest.approx(d[: first + 1].mean())
    assert (res.lower, res.upper) == pytest.approx((lo[first], hi[first]))
    assert list(res.looks["items"]) == list(range(10, first + 2, 10))
    shown = np.minimum(lo[9:first:10], 0.02)  # above +margin only once promoted
    np.testing.assert_allclose(res.looks["lower"][:-1], shown)
    assert set(res.looks["decision"][:-1]) == {"continue"}
    np.testing.assert_allclose(res.looks["e promote"], np.exp(wealth[9 : first + 1 : 10]))
    out = res.to_dict()
    assert (
        out["decided_at"] == first + 1
        and out["margin"] == 0.02
        and len(out["looks"]) == first // 10 + 1
    )


def test_the_shown_sequence_clears_the_margin_only_once_the_test_has_promoted():
    u = np.random.default_rng(16).random(10000)  # the sequence clears +0.01 before the test
    d = np.where(u < 0.115, 1.0, np.where(u < 0.2, -1.0, 0.0))
    log = pd.DataFrame({"y_true": 1, "old": (d < 0).astype(int), "new": (d >= 0).astype(int)})
    log.loc[d == 0, "old"] = 1
    res = bc.watch(log, baseline="old", candidate="new", metric="accuracy", rope=0.01, every=1)
    lo = empirical_bernstein_cs(d, 0.1, 1.0)[1]
    before = np.flatnonzero(lo[: res.decided_at - 1] > 0.01)
    assert res.decision == "promote" and before.size > 100  # the sequence cleared it earlier
    np.testing.assert_allclose(res.looks["lower"][:-1], np.minimum(lo[: res.decided_at - 1], 0.01))
    assert res.lower == pytest.approx(lo[res.decided_at - 1])


def test_a_worse_candidate_is_worse_and_a_loss_is_oriented_by_its_record():
    rng = np.random.default_rng(1)
    log = _log(rng, 20000, 0.9, 0.8)
    res = bc.watch(log, baseline="old", candidate="new", metric="error_rate", rope=0.02, every=50)
    assert res.decision == "worse" and res.estimate < 0
    y = rng.integers(0, 2, 5000)
    probs = pd.DataFrame({"y": y, "a": np.where(y, 0.6, 0.4), "b": np.where(y, 0.9, 0.1)})
    res = bc.watch(probs, baseline="a", candidate="b", metric="log_loss", rope=0.05, label="y")
    assert res.decision == "promote"
    assert res.estimate == pytest.approx(math.log(0.9) - math.log(0.6))  # lower loss: positive


def test_clusters_enter_as_their_mean_and_labels_yet_to_come_are_left_for_later():
    rng = np.random.default_rng(2)
    log = _log(rng, 3000)
    log["c"] = np.arange(3000) // 10
    log.loc[log.index % 7 == 0, "y_true"] = np.nan
    res = bc.watch(log, baseline="old", candidate="new", metric="accuracy", rope=0.5, cluster="c")
    seen = log.dropna(subset=["y_true"])
    d = (seen.new == seen.y_true).astype(float) - (seen.old == seen.y_true)
    per_cluster = d.groupby(seen.c).mean().to_numpy()
    below = _wealth_by_hand(per_cluster, 0.5, 1.0, -1) >= math.log(20)
    above = _wealth_by_hand(per_cluster, -0.5, 1.0, 1) >= math.log(20)
    k = int(np.argmax(below & above))
    assert (
        res.decision == "equivalent"
        and res.decided_at == seen.c.value_counts(sort=False).sort_index().to_numpy()[: k + 1].sum()
    )
    assert res.estimate == pytest.approx(per_cluster[: k + 1].mean())


def test_a_slice_not_yet_known_not_worse_holds_promotion_back_and_a_worse_one_stops():
    rng = np.random.default_rng(5)
    log = _log(rng, 40000, 0.8, 0.9)
    log["s"] = np.where(np.arange(40000) % 20 == 0, "small", "big")
    bad = (log.s == "small").to_numpy()
    log.loc[bad, "new"] = np.where(
        rng.random(bad.sum()) < 0.7, log.y_true[bad], 1 - log.y_true[bad]
    )
    kw = dict(baseline="old", candidate="new", metric="accuracy", rope=0.02, every=100)
    alone = bc.watch(log, **kw)
    guarded = bc.watch(log, slice="s", slice_rope=0.05, **kw)
    assert alone.decision == "promote"
    assert alone.decided_at < guarded.decided_at  # held back, then shown worse
    assert guarded.decision == "worse" and guarded.plan.gamma_each == pytest.approx(1 - 0.05 / 3)
    assert guarded.looks["slice small upper"].iloc[-1] < -0.05
    d = ((log.new == log.y_true).astype(float) - (log.old == log.y_true)).to_numpy()
    wealth = _wealth_by_hand(d[: guarded.decided_at], 0.02, 1.0, 1)
    overall = wealth[guarded.looks["items"].to_numpy() - 1] >= math.log(60)
    assert overall.any()  # the overall test promotes before the slice is worse
    assert set(guarded.looks["decision"][overall][:-1]) == {"continue"}


def test_batches_and_a_parquet_file_give_the_same_answer_as_one_frame(tmp_path):
    log = _log(np.random.default_rng(6), 4000)
    kw = dict(baseline="old", candidate="new", metric="accuracy", rope=0.02, every=100)
    whole = bc.watch(log, **kw).to_dict()
    assert bc.watch((log.iloc[i : i + 700] for i in range(0, 4000, 700)), **kw).to_dict() == whole
    log.to_parquet(tmp_path / "log.parquet")
    assert bc.watch(tmp_path / "log.parquet", **kw).to_dict() == whole


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (dict(metric="roc_auc"), "no per-item score"),
        (dict(rope="1%"), "takes a ROPE that is absolute"),
        (dict(candidate="nope"), "the log has no column 'nope'"),
        (dict(time="t"), "goes back at row 3"),
        (dict(metric="brier"), "y_true coded 0/1"),
        (dict(every=0), "every must be a whole number"),
        (dict(classes=(0, 1)), r"column 'y_true' holds \['2'\], outside the classes \[0, 1\]"),
        (dict(classes=(0, 1, 2), baseline="t"), r"column 't' holds \['3'\], outside the classes"),
    ],
)
def test_bad_input_is_refused_in_one_line(change, says):
    log = pd.DataFrame(
        {"y_true": [0, 1, 2, 1], "a": [0, 1, 1, 1], "b": [0, 1, 0, 1], "t": [1, 2, 3, 2]}
    )
    kw = dict(baseline="a", candidate="b", metric="accuracy", rope=0.02) | change
    with pytest.raises(ValueError, match=says) as err:
        bc.watch(log, **kw)
    assert "\n" not in str(err.value)


def test_labels_inside_the_classes_change_nothing():
    """With every label named, a log whose labels (read as floats: one is missing) are all
    classes gives the answer it gives without classes=."""
    log = _log(np.random.default_rng(3), 3000).astype({"y_true": float})
    log.loc[2999, "y_true"] = np.nan
    kw = dict(baseline="old", candidate="new", metric="accuracy", rope=0.02, every=100)
    named, plain = bc.watch(log, classes=("0", "1"), **kw).to_dict(), bc.watch(log, **kw).to_dict()
    assert named.pop("plan")["classes"] == ["0", "1"] and plain.pop("plan")["classes"] == []
    assert named == plain


def test_the_plot_draws_the_sequence_the_margin_band_and_the_decision_point():
    import matplotlib

    matplotlib.use("Agg")
    res = bc.watch(
        _log(np.random.default_rng(0), 5000),
        baseline="old",
        candidate="new",
        metric="accuracy",
        rope=0.02,
        every=100,
    )
    ax = res.plot()
    est, decision = ax.lines[0], ax.lines[1]
    assert list(est.get_xdata()) == list(res.looks["items"])
    assert np.allclose(est.get_ydata(), res.looks["estimate"])
    assert list(decision.get_xdata()) == [res.decided_at] * 2
    assert ax.patches[0].get_y() == pytest.approx(-0.02)  # the margin band
