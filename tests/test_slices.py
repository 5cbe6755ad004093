"""Slice guardrails (issue 32): per-slice partially pooled differences on one test set,
the blocked promotion that names the slice, the CLI gate, bad input, and a small version of
``bench/slice_guardrails.py``."""

from __future__ import annotations

import importlib.util
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from cli_run import REPO, run_cli
from scipy import stats

from bayescomp.cli.main import main
from bayescomp.posterior.compare import compare
from bayescomp.posterior.holdout import HoldoutResult
from bayescomp.posterior.request import slice_guard
from bayescomp.posterior.slices import slice_differences, slice_test

REGIONS = ["north", "south", "east", "west", "centre", "coast", "hills", "lakes"]
SIZES = [3000, 2000, 1500, 1000, 800, 600, 400, 200]


def _table(south: float, seed: int = 1, good: float = 0.04, disc: float = 0.12) -> pd.DataFrame:
    """Item-level predictions of ``a`` and ``b`` on eight regions: a share ``disc`` of the
    items discordant, split so that b's accuracy is a's plus the region's difference."""
    rng = np.random.default_rng(seed)
    parts = []
    for r, n in zip(REGIONS, SIZES, strict=True):
        d = south if r == "south" else good
        y, u, both = rng.integers(0, 2, n), rng.random(n), rng.random(n) < 0.8
        only_b = u < (disc + d) / 2
        only_a = ~only_b & (u < disc)
        a_right = np.where(only_b, False, np.where(only_a, True, both))
        b_right = np.where(only_b, True, np.where(only_a, False, both))
        a, b = np.where(a_right, y, 1 - y), np.where(b_right, y, 1 - y)
        parts.append(pd.DataFrame({"y_true": y, "a": a, "b": b, "region": r}))
    return pd.concat(parts, ignore_index=True)


def _compare(t: pd.DataFrame, **kw) -> HoldoutResult:
    kw = {"metric": "accuracy", "rope": 0.01, "slices": "region", "slice_rope": 0.02} | kw
    return compare(t, "a", "b", random_state=0, **kw)


@pytest.fixture(scope="module")
def degraded() -> HoldoutResult:
    return _compare(_table(south=-0.05))


def test_large_slices_match_their_own_means_and_normal_intervals():
    """With 3,000 units per slice and slices far apart the pooling barely moves a slice: its
    posterior mean is its observed mean and its 95 % HDI is mean ± 1.96 standard errors."""
    rng = np.random.default_rng(3)
    truth = np.linspace(-0.1, 0.1, 8)
    d = {f"s{i}": rng.normal(m, 0.3, 3000) for i, m in enumerate(truth)}
    res = slice_test(d, 0.0, slice_rope=0.02, random_state=0, rows={k: 3000 for k in d})
    f = res.per_slice.set_index("slice")
    mean = pd.Series({k: v.mean() for k, v in d.items()})
    se = pd.Series({k: v.std(ddof=1) / np.sqrt(v.size) for k, v in d.items()})
    assert (f["rows"] == 3000).all()
    np.testing.assert_allclose(f["observed_mean"], mean[f.index], atol=1e-12)
    np.testing.assert_allclose(f["mean"], mean[f.index], atol=0.25 * se.max())
    width = (f["hdi_95_high"] - f["hdi_95_low"]) / (2 * stats.norm.ppf(0.975) * se[f.index])
    np.testing.assert_allclose(width, 1.0, atol=0.12)
    # P(worse beyond 0.02) of each slice: the normal tail beyond -0.02
    p = pd.Series(stats.norm.cdf((-0.02 - mean) / se), index=mean.index)
    np.testing.assert_allclose(f["p_worse"], p[f.index], atol=0.03)
    # P(no slice worse): the slices are nearly independent here, so about the product
    assert res.p_no_slice_worse == pytest.approx(np.prod(1 - p), abs=0.04)


def test_a_degraded_region_blocks_the_promotion_and_is_named(degraded):
    overall = degraded.overall.decision(0.95)
    d = degraded.decision(0.95)
    assert overall.outcome == "promote"  # better overall ...
    assert d.outcome == "inconclusive" and d.slice_blocked == "south"  # ... but not on south
    assert "south" in d.reason and d.p_no_slice_worse < 0.5
    f = degraded.slices.per_slice.set_index("slice")
    assert f.loc["south", "p_worse"] > 0.95 and f.drop("south")["p_worse"].max() < 0.2
    # the joint probability is at most one minus the worst slice's own probability
    assert d.p_no_slice_worse <= 1 - f["p_worse"].max() + 1e-12
    out = json.loads(json.dumps(degraded.to_dict()))
    assert out["decision"] == "inconclusive" and out["slice_blocked"] == "south"
    assert {s["slice"] for s in out["slice_guardrail"]["slices"]} == set(REGIONS)
    assert d.step_fields()["slice_blocked"] == "south"


def test_slice_differences_units_and_clusters():
    d = np.array([1.0, 0.0, -1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0])
    lab = np.array(["x"] * 5 + ["y"] * 5)
    groups, rows = slice_differences(d, lab)
    assert rows == {"x": 5, "y": 5} and groups["y"].tolist() == [1.0, 0.0, 0.0, 1.0, 1.0]
    cl = np.array([0, 0, 1, 1, 1, 2, 2, 3, 3, 3])  # per-cluster mean differences in a slice
    groups, _ = slice_differences(d, lab, cl)
    assert groups["x"].tolist() == [0.5, 0.0] and groups["y"].tolist() == [0.5, 2 / 3]


def test_bad_slice_input_is_said():
    t = _table(south=0.04)
    with pytest.raises(ValueError, match="missing value"):
        _compare(t.assign(region=t["region"].where(t.index % 97 > 0)))
    with pytest.raises(ValueError, match="not in the predictions table"):
        _compare(t, slices="country")
    with pytest.raises(ValueError, match="looks like an id"):
        slice_differences(np.zeros(900), np.arange(900) // 2)
    with pytest.raises(ValueError, match="looks like an id"):
        slice_differences(np.zeros(2010), np.arange(2010) // 10)  # 201 slices
    for bad in (0, -0.1, "2%", True, float("nan")):
        with pytest.raises(ValueError, match="slice_rope"):
            slice_guard("region", bad)
    with pytest.raises(ValueError, match="slice_gamma"):
        slice_guard("region", 0.02, slice_gamma=1.0)
    with pytest.raises(ValueError, match="slice_rope"):
        _compare(t, slice_rope=None)
    with pytest.raises(ValueError, match="mean of per-item scores"):
        compare(
            t.assign(a=t["a"] * 0.5 + 0.2), "a", "b", metric="roc_auc",
            slices="region", slice_rope=0.02,
        )  # fmt: skip
    with pytest.warns(UserWarning, match=r"\['tiny'\] have one unit only"):
        groups, _ = slice_differences(np.ones(13), ["a"] * 6 + ["b"] * 6 + ["tiny"])
    assert list(groups) == ["a", "b"]


def test_cli_gate_names_the_degraded_region(tmp_path, capsys, monkeypatch):
    """``compare --predictions ... --slice region --slice-rope 0.02 --json --fail-unless
    promote`` exits 1 naming the degraded region, 0 when none is (in-process: the same
    ``main`` the command runs; ``test_cli_gate_subprocess`` runs it as a user does)."""
    monkeypatch.chdir(tmp_path)
    args = ["--baseline", "a", "--candidate", "b", "--metric", "accuracy", "--rope", "0.01"]
    args += ["--slice", "region", "--slice-rope", "0.02", "--json", "--fail-unless", "promote"]
    for south, code in ((-0.05, 1), (0.04, 0)):
        _table(south).to_csv("p.csv", index=False)
        assert main(["compare", "--predictions", "p.csv", *args]) == code
        out = json.loads(capsys.readouterr().out)[0]
        assert out["decision"] == ("inconclusive" if code else "promote")
        assert out["slice_blocked"] == ("south" if code else None)
        assert len(out["slice_guardrail"]["slices"]) == 8
    assert main(["compare", "--predictions", "p.csv", *args[:8], "--slice", "country"]) == 2
    err = capsys.readouterr().err
    assert "country" in err and "region" in err
    assert main(["compare", "--predictions", "p.csv", *args[:8], "--slice-rope", "0.02"]) == 2
    assert "--slice" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_gate_subprocess(tmp_path):
    args = ["--baseline", "a", "--candidate", "b", "--metric", "accuracy", "--rope", "0.01"]
    args += ["--slice", "region", "--slice-rope", "0.02", "--json", "--fail-unless", "promote"]
    for south, code in ((-0.05, 1), (0.04, 0)):
        _table(south).to_csv(tmp_path / "p.csv", index=False)
        r = run_cli("compare", "--predictions", "p.csv", *args, cwd=tmp_path)
        assert r.returncode == code, r.stderr
        assert json.loads(r.stdout)["slice_blocked"] == ("south" if code else None)


def _bench():
    spec = importlib.util.spec_from_file_location("slice_bench", REPO / "bench/slice_guardrails.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_small_bench_false_alarm_and_detection():
    """40 runs of each bench cell on one test set: the false-alarm count stays below the
    binomial upper bound of a 5 % rate, the detection count above that of an 80 % rate."""
    bench = _bench()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        null = bench.cell("test", False, 40, 11)
        bad = bench.cell("test", True, 40, 12)
    j = bench.GAMMAS.index(0.5)
    assert null["blocked"][j] <= stats.binom.ppf(0.99, 40, 0.05)  # <= 6 of 40
    assert bad["named"][j] >= stats.binom.ppf(0.01, 40, 0.80)  # >= 26 of 40


def _select_sliced(t: pd.DataFrame, **kw):
    """``select`` from baseline ``a`` under the slice guardrail on ``region``."""
    import bayescomp as bc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bc.select(
            t,
            baseline="a",
            metric="accuracy",
            rope=0.01,
            compare_options={"slices": "region", "slice_rope": 0.02, "random_state": 0},
            **kw,
        )


def test_select_promotes_the_next_challenger_that_holds_its_slices(degraded, tmp_path):
    """The family rule blocks the challenger worse on south and promotes the one that holds
    its slices; the steps, selection.json, the report and the notebook card show the slices."""

    t = _table(south=-0.05)
    t["c"] = t["b"].where(t["region"] != "south", t["a"])  # b's gains, without the south loss
    sel = _select_sliced(t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = sel.report(tmp_path / "rep")
    steps = sel.steps.set_index("challenger")
    assert sel.champion == "c"
    assert steps.loc["b", "slice_blocked"] == "south" and steps.loc["c", "slice_blocked"] == ""
    assert steps.loc["b", "p_no_slice_worse"] < 0.5 <= steps.loc["c", "p_no_slice_worse"]
    assert "blocked by slice 'south'" in steps.loc["b", "reason"]
    saved = json.loads((tmp_path / "rep" / "selection.json").read_text())
    first = next(s for s in saved["steps"] if s["challenger"] == "b")
    assert first["slice_guardrail"]["worst_slice"] == "south"
    assert (tmp_path / "rep" / "step_01_slices.png").is_file() and report.is_file()
    assert "blocked by slice" in degraded._repr_html_()


@pytest.mark.parametrize("rule", ["family", "champion_challenger"])
def test_select_recommendation_names_the_slice_that_blocks_the_promotion(rule):
    """A predictions table has no repetitions: when a slice blocks the only challenger that
    is better overall, the recommendation names that slice (the one whose mean per-item
    difference is lowest, by hand) and says to score more of its items."""

    t = _table(south=-0.05)
    by_hand = ((t.b == t.y_true).astype(float) - (t.a == t.y_true)).groupby(t.region).mean()
    sel = _select_sliced(t, rule=rule)
    text = sel.recommendation["text"]
    worst = by_hand.idxmin()
    assert sel.champion == "a" and sel.steps.loc[0, "p_right"] >= 0.95
    assert f"score more items of slice {worst!r}" in text and "repetitions" not in text
    assert text.startswith("keep a: b is better beyond the ROPE overall")


def test_cv_slices_from_the_one_fitter_match_per_split_accuracy():
    """cross_validate_slices keeps every split's test predictions; slice_scores turns them
    into each split's accuracy on its whole test set and on each slice's test rows (checked
    against scikit-learn's accuracy_score), and compare's slice posterior takes the slice
    rows' differences as its units, with rho the test fraction."""
    from sklearn.base import clone
    from sklearn.datasets import load_breast_cancer
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import RepeatedKFold
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    from bayescomp.posterior.slices import slice_scores
    from bayescomp.scores.slices import cross_validate_slices

    X, y = load_breast_cancer(return_X_y=True)
    size = np.digitize(X[:, 0], [12, 14, 17])  # mean radius band: four slices
    cv = RepeatedKFold(n_splits=5, n_repeats=2, random_state=0)
    models = {"tree": DecisionTreeClassifier(max_depth=2, random_state=0), "nb": GaussianNB()}
    scores = slice_scores(cross_validate_slices(models, X, y, size, cv=cv))
    want = np.zeros((2, 10, 5))  # per model, split and slice (the whole test set last)
    for k, (train, test) in enumerate(cv.split(X)):
        for i, est in enumerate(models.values()):
            pred = clone(est).fit(X[train], y[train]).predict(X[test])
            for s in range(4):
                m = size[test] == s
                want[i, k, s] = accuracy_score(y[test][m], pred[m])
            want[i, k, 4] = accuracy_score(y[test], pred)
    got = scores.slice_scores.pivot(index=["model", "split"], columns="slice", values="accuracy")
    np.testing.assert_allclose(got.loc[["tree", "nb"]].to_numpy(), want[:, :, :4].reshape(20, 4))
    whole = scores.to_frame().set_index(["model", "split"]).loc[["tree", "nb"], "accuracy"]
    np.testing.assert_allclose(whole.to_numpy(), want[:, :, 4].ravel(), atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compare(scores, "tree", "nb", slices="slice", slice_rope=0.02, random_state=0)
    observed = res.slices.per_slice.set_index("slice").loc[["0", "1", "2", "3"], "observed_mean"]
    np.testing.assert_allclose(observed, (want[1] - want[0])[:, :4].mean(axis=0), atol=1e-12)
    rho = res.slices.idata.constant_data["rho"].values[0]
    assert float(rho) == pytest.approx(114 / 569, abs=1e-3)
    assert np.isfinite(res.slices.p_no_slice_worse)


def test_slice_results_keep_the_result_contract(degraded):
    from test_contract import _check_contract

    _check_contract(degraded, posterior=True)
    _check_contract(degraded.slices, posterior=True)
    row = degraded.summary(confidence_level=0.9).iloc[0]
    assert row["decision"] == "inconclusive" and row["p_no_slice_worse"] < 0.5


def test_pull_request_comment_shows_the_slices(degraded):
    """The PR comment (``--comment-file``) carries the guardrail: P(no slice worse) and the
    slices most likely worse, with the posterior's own numbers, worst first."""
    from bayescomp.core.margins import Absolute
    from bayescomp.report.markdown import comparison_markdown

    d = degraded.decision(0.95)
    md = comparison_markdown([(degraded, d.outcome, d.reason)], Absolute(0.01), 0.95)
    s = degraded.slices
    assert f"P(no slice worse) = {s.p_no_slice_worse:.3f}, needed ≥ 0.5" in md
    rows = [line for line in md.splitlines() if line.startswith("| ") and "|---" not in line]
    slice_rows = rows[3:]  # after the candidates' header and row, and the slices' header
    assert len(slice_rows) == 5 and slice_rows[0].startswith("| south | 2000 |")
    f = s.per_slice.set_index("slice")
    assert f"[{f.loc['south', 'hdi_95_low']:+.4g}, {f.loc['south', 'hdi_95_high']:+.4g}]" in md
    assert f"| {f.loc['south', 'p_worse']:.3f} |" in slice_rows[0]
    plain = comparison_markdown([(degraded.overall, "promote", "")], Absolute(0.01), 0.95)
    assert "Slices of" not in plain


def test_no_slice_is_named_most_likely_worse_when_none_is_worse_in_any_draw():
    from bayescomp.posterior.slices import SliceResult, worse_text

    class Fake:  # the per-slice table is all a name needs
        per_slice = pd.DataFrame({"slice": ["n", "s"], "p_worse": [0.0, 0.0]})

    assert SliceResult.worst_slice.fget(Fake()) is None
    assert worse_text(None) == "no slice worse in any draw"
    Fake.per_slice = pd.DataFrame({"slice": ["n", "s"], "p_worse": [0.0, 0.2]})
    assert SliceResult.worst_slice.fget(Fake()) == "s"


def _two_slices(tmp_path) -> list[str]:
    """``--predictions`` of a table with two slices, which leave the slice fit's spread
    poorly identified (so it retries), and the slice flags."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    t = pd.DataFrame(
        {"y_true": y, "region": rng.choice(["north", "south"], 300)}
        | {m: np.where(rng.random(300) < acc, y, 1 - y) for m, acc in (("A", 0.8), ("B", 0.85))}
    )
    t.to_csv(tmp_path / "p.csv", index=False)
    flags = ["--baseline", "A", "--rope", "0.01", "--slice", "region", "--slice-rope", "0.02"]
    return ["--predictions", str(tmp_path / "p.csv"), *flags]


@pytest.mark.parametrize("command", ["compare", "select"])
def test_quiet_leaves_out_the_slice_fits_retries(tmp_path, capsys, command):
    """Each retry of the slice fit is said, but not under ``--quiet``."""
    err = {}
    for quiet in ([], ["--quiet"]):
        main([command, *_two_slices(tmp_path), "--seed", "1", *quiet])
        err[bool(quiet)] = capsys.readouterr().err
    assert "hierarchical fit, attempt 1 of up to" in err[False]
    assert "attempt" not in err[True]


def test_quiet_still_says_a_slice_fit_that_never_converged(tmp_path, capsys):
    main(["compare", *_two_slices(tmp_path), "--seed", "0", "--quiet"])
    err = capsys.readouterr().err
    assert "did not converge after 4 attempts" in err and "attempt 1 of up to" not in err


def _cv_items(n: int = 3000, folds: int = 5, repeats: int = 2, seed: int = 0) -> pd.DataFrame:
    """Per-item out-of-fold predictions of ``a``, ``b`` and ``c`` over repeated k-fold
    splits of equal size (the shape :func:`cross_validate_slices` returns): b and c predict
    as a on half the items and are right more often on the rest, by 0.14 on slices a–c; on
    slice ``d`` b is right less often by 0.12, c as often as a."""
    rng = np.random.default_rng(seed)
    region, y = rng.choice(list("abcd"), n), rng.integers(0, 2, n)
    gains = {"b": np.where(region == "d", -0.12, 0.14), "c": np.where(region == "d", 0, 0.14)}
    parts = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % folds)
        for k in range(folds):
            test = np.flatnonzero(fold == k)
            right = {"a": rng.random(test.size) < 0.8}
            for m, gain in gains.items():
                same = rng.random(test.size) < 0.5
                right[m] = np.where(same, right["a"], rng.random(test.size) < 0.8 + gain[test])
            for m, hit in right.items():
                part = {"model": m, "split": r * folds + k, "row": test}
                part |= {"n_train": n - test.size}
                part |= {"slice": region[test], "y_true": y[test]}
                parts.append(pd.DataFrame(part | {"y_pred": np.where(hit, y[test], 1 - y[test])}))
    return pd.concat(parts, ignore_index=True)


def _cv_scores(items: pd.DataFrame, n: int = 3000) -> pd.DataFrame:
    """The scores table of ``items``: each split's accuracy on its whole test set (no slice)
    and on each slice's test rows (the slice in ``slice``)."""
    hit = items.assign(accuracy=(items["y_pred"] == items["y_true"]).astype(float))
    g = hit.groupby(["model", "split"])
    whole = g.agg(accuracy=("accuracy", "mean"), n_test=("row", "size")).reset_index()
    slices = hit.groupby(["model", "split", "slice"])["accuracy"].mean().reset_index()
    return pd.concat([whole.assign(n_train=n - whole["n_test"]), slices], ignore_index=True)


def test_a_score_tables_slice_posterior_is_the_hierarchical_model_of_its_split_differences():
    """``compare(scores, ..., slices=)`` on a table of per-split slice scores is the
    hierarchical model (``slice_test``) of each split's slice accuracy difference computed
    by hand from the per-item predictions, with rho the test fraction: the same posterior,
    draw for draw; the overall posterior is the plain correlated t-test's."""
    from bayescomp.posterior.slices import slice_scores

    items = _cv_items()
    hit = items.assign(hit=(items["y_pred"] == items["y_true"]).astype(float))
    acc = hit.groupby(["slice", "split", "model"])["hit"].mean().unstack("model")
    by_hand = {s: (g["b"] - g["a"]).to_numpy() for s, g in acc.groupby(level="slice")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = slice_test(by_hand, 0.2, slice_rope=0.02, random_state=0)
        res = compare(
            slice_scores(items), "a", "b", rope=0.01, slices="slice", slice_rope=0.02,
            random_state=0,
        )  # fmt: skip
    got, want = res.slices.per_slice.set_index("slice"), ref.per_slice.set_index("slice")
    cols = ["observed_mean", "mean", "hdi_95_low", "hdi_95_high", "p_worse"]
    np.testing.assert_allclose(got[cols], want[cols], atol=1e-9)
    assert res.slices.p_no_slice_worse == pytest.approx(ref.p_no_slice_worse, abs=1e-12)
    assert res.slices.worst_slice == "d"
    plain = compare(_cv_scores(items), "a", "b", rope=0.01)  # the same overall posterior
    assert res.overall.p_right == pytest.approx(plain.p_right, rel=1e-12)


def test_a_score_tables_slice_rows_survive_csv_and_block_a_selection(tmp_path, capsys):
    """The slice rows of a scores table are written and read back by ``to_csv`` /
    ``read_csv``; ``bayescomp select scores.csv --slice slice --slice-rope R`` blocks the
    challenger worse on a slice, names it, and promotes the one that holds its slices."""
    from bayescomp.scores.table import Scores

    table = Scores.from_frame(_cv_scores(_cv_items(repeats=4)))
    table.to_csv(tmp_path / "scores.csv")
    back = Scores.read_csv(tmp_path / "scores.csv")
    pd.testing.assert_frame_equal(back.slice_scores, table.slice_scores)
    pd.testing.assert_frame_equal(back.to_frame(), table.to_frame(), check_dtype=False)
    assert back.subset(models=["a", "b"]).slice_scores["model"].unique().tolist() == ["a", "b"]
    args = ["select", str(tmp_path / "scores.csv"), "--baseline", "a", "--rope", "0.01"]
    assert main([*args, "--slice", "slice", "--slice-rope", "0.02", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    steps = {s["challenger"]: s for s in out["steps"]}
    assert out["champion"] == "c" and steps["b"]["slice_blocked"] == "d"
    assert steps["b"]["slice_guardrail"]["worst_slice"] == "d" and not steps["c"]["slice_blocked"]
    assert main([*args, "--json"]) == 0  # without the guardrail nothing blocks b
    plain = json.loads(capsys.readouterr().out)["steps"][0]
    assert plain["p_right"] >= 0.95 and "slice_blocked" not in plain


def test_bad_slices_of_a_score_table_are_said(tmp_path, capsys):
    scores = _cv_scores(_cv_items(n=600))
    whole = scores[scores["slice"].isna()]
    with pytest.raises(ValueError, match="no per-slice rows under a 'slice' column"):
        compare(whole, "a", "b", slices="slice", slice_rope=0.02)
    with pytest.raises(ValueError, match="not paired"):
        compare(scores.drop(index=scores.index[-2:]), "b", "c", slices="slice", slice_rope=0.02)
    two = pd.concat([scores.assign(dataset="x"), scores.assign(dataset="y")])
    with pytest.raises(ValueError, match="one dataset's comparison"):
        compare(two, "a", "b", method="hierarchical", slices="slice", slice_rope=0.02)
    with pytest.raises(ValueError, match=r"repeat a \(dataset, model, split, slice\) key"):
        compare(pd.concat([scores, scores.tail(1)]), "a", "b", slices="slice", slice_rope=0.02)
    scores.to_csv(tmp_path / "s.csv", index=False)
    args = ["compare", str(tmp_path / "s.csv"), "--baseline", "a", "--candidate", "b"]
    assert main([*args, "--rope", "0", "--slice", "slice", "--slice-rope", "0.02"]) == 2
    assert "select's scores CSV" in capsys.readouterr().err  # compare takes them in Python


def test_a_score_tables_slices_match_the_one_test_set_path_on_the_same_items():
    """One test set's items written as a scores table, each item a split of one test row
    (training sets so large that rho is 0, as the one-test-set path's): the slice posterior
    of ``compare(scores, ..., slices="slice")`` is the one-test-set path's on the same
    items, up to the sampler's Monte Carlo error (the same units in another order)."""
    t = _table(south=-0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = _compare(t)
    want = one.slices.per_slice.set_index("slice")
    parts = []
    for m in ("a", "b"):
        hit = (t[m] == t["y_true"]).astype(float)
        item = {"model": m, "split": np.arange(len(t)), "accuracy": hit}
        parts.append(pd.DataFrame(item | {"n_train": 10**12, "n_test": 1}))
        parts.append(pd.DataFrame(item | {"slice": t["region"]}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compare(
            pd.concat(parts, ignore_index=True), "a", "b", rope=0.01, slices="slice",
            slice_rope=0.02, random_state=0,
        )  # fmt: skip
    got = res.slices.per_slice.set_index("slice").loc[want.index]
    np.testing.assert_allclose(got["observed_mean"], want["observed_mean"], atol=1e-12)
    np.testing.assert_array_equal(got["rows"], want["rows"])
    np.testing.assert_allclose(got["mean"], want["mean"], atol=0.004)
    np.testing.assert_allclose(got[["hdi_95_low", "hdi_95_high"]], want.iloc[:, 3:5], atol=0.008)
    assert res.slices.worst_slice == "south"
    assert res.decision().slice_blocked == one.decision().slice_blocked == "south"
