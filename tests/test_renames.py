"""One spelling per argument: every renamed argument, attribute and flag keeps its old name
for a deprecation cycle, with a FutureWarning, and gives the same numbers as the new name."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.cli import main as cli


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    b = rng.normal(0.8, 0.02, 30)
    return b, b + rng.normal(0.01, 0.01, 30)


def test_level_is_now_confidence_level(data):
    res = bc.correlated_ttest(*data, rho=0.1, rope=0.005)
    with pytest.warns(FutureWarning, match="'level' is renamed 'confidence_level'"):
        old = res.hdi(level=0.9)
    assert old == res.hdi(confidence_level=0.9)
    with pytest.warns(FutureWarning):
        table = res.summary(level=0.8)
    assert table.equals(res.summary(confidence_level=0.8))
    with pytest.warns(FutureWarning):
        assert res.interval(level=0.8) == res.interval(confidence_level=0.8)
    with pytest.raises(TypeError, match="pass confidence_level= only"):
        res.hdi(level=0.9, confidence_level=0.9)


def test_n_samples_is_now_draws(data):
    z = data[1] - data[0]
    for test in (bc.sign_test, bc.signed_rank_test):
        with pytest.warns(FutureWarning, match="'n_samples' is renamed 'draws'"):
            old = test(z, rope=0.005, random_state=0, n_samples=3000)
        new = test(z, rope=0.005, random_state=0, draws=3000)
        assert (old.p_left, old.p_rope, old.p_right) == (new.p_left, new.p_rope, new.p_right)
    d = np.c_[z, z[::-1]]
    with pytest.warns(FutureWarning):
        old = bc.multivariate_ttest(d, rho=0.1, n_samples=2000)
    assert (
        old.draws == 2000 and old.p_joint == bc.multivariate_ttest(d, rho=0.1, draws=2000).p_joint
    )
    with pytest.warns(FutureWarning):
        assert old.n_samples == 2000


def test_blb_gamma_is_now_subset_exponent():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 3000)
    s = y + rng.normal(0, 1, 3000)
    with pytest.warns(FutureWarning, match="'gamma' is renamed 'subset_exponent'"):
        old = bc.blb_metric(y, s, "roc_auc", gamma=0.6, n_subsets=3, random_state=0)
    new = bc.blb_metric(y, s, "roc_auc", subset_exponent=0.6, n_subsets=3, random_state=0)
    assert (old.low, old.high, old.b) == (new.low, new.high, new.b)
    assert new.b == int(np.ceil(3000**0.6))
    with pytest.warns(FutureWarning):
        assert new.gamma == new.subset_exponent == 0.6


def test_paired_interval_share_is_named_as_a_bootstrap_share():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 200)
    res = bc.paired_bootstrap_metric(
        y,
        y + rng.normal(0, 1, 200),
        y + rng.normal(0, 0.5, 200),
        "roc_auc",
        n_resamples=300,
        random_state=0,
    )
    d = res.difference.distribution
    assert res.share_resamples_better == pytest.approx(np.mean(d > 0) + 0.5 * np.mean(d == 0))
    with pytest.warns(FutureWarning, match="'p_better' is renamed 'share_resamples_better'"):
        assert res.p_better == res.share_resamples_better


def test_renamed_cli_flags_keep_working(tmp_path, capsys):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    path = tmp_path / "p.csv"
    pd.DataFrame({"y": y, "s": y + rng.normal(0, 1, 300)}).to_csv(path, index=False)
    base = [
        "interval",
        str(path),
        "--y-true",
        "y",
        "--pred",
        "s",
        "--seed",
        "0",
        "--n-resamples",
        "200",
    ]
    assert cli.main([*base, "--confidence-level", "0.9"]) == 0
    new = capsys.readouterr().out
    with pytest.warns(FutureWarning, match="'--level' is renamed '--confidence-level'"):
        assert cli.main([*base, "--level", "0.9"]) == 0
    assert capsys.readouterr().out == new and "90% CI" in new
    with pytest.warns(FutureWarning, match="'--gamma' is renamed '--subset-exponent'"):
        assert cli.main([*base, "--blb", "--gamma", "0.6"]) == 0


def test_scores_select_is_now_subset():
    frame = pd.DataFrame(
        {
            "model": np.repeat(["a", "b", "c"], 4),
            "split": np.tile(range(4), 3),
            "acc": np.arange(12) / 12,
        }
    )
    s = bc.Scores.from_frame(frame, test_fraction=0.1)
    assert s.subset(models=["a", "c"]).models == ["a", "c"]
    with pytest.warns(FutureWarning, match="'select' is renamed 'subset'"):
        old = s.select(models=["a", "c"])
    assert old.to_frame().equals(s.subset(models=["a", "c"]).to_frame())


def test_one_plot_paired_scores():
    from bayescomp.report import plots, selection_plots

    paired = pd.DataFrame({"baseline": [0.8, 0.7, 0.9], "candidate": [0.85, 0.7, 0.8]})
    with pytest.warns(FutureWarning, match="'plot_paired_scores' is renamed 'plot_paired_lines'"):
        ax = plots.plot_paired_scores(paired)
    assert ax.get_title() == plots.plot_paired_lines(paired).get_title()
    sel = paired.rename(columns={"baseline": "champion", "candidate": "challenger"})
    labels = [
        t.get_text()
        for t in selection_plots.plot_paired_scores(sel, "a", "b", "acc").get_legend().get_texts()
    ]
    assert "b better (1)" in labels and "a better (1)" in labels and "tie (1)" in labels


def test_compare_and_select_default_to_the_same_metric():
    from bayescomp.scores.datasets import default_metric

    assert default_metric([0, 1, 2, 1], "classification") == "accuracy"
    assert default_metric([0, 1, 0], "classification") == "roc_auc"
    assert default_metric([0.5, 1.2], "regression") == "r2"


def test_every_warning_shares_one_exported_base_class():
    import inspect
    import warnings

    import sklearn.exceptions

    from bayescomp.core import exceptions

    found = [
        c
        for _, c in inspect.getmembers(exceptions, inspect.isclass)
        if issubclass(c, Warning) and c.__module__ == exceptions.__name__
    ]
    assert len(found) >= 10
    for cls in found:
        assert issubclass(cls, bc.BayescompWarning) and getattr(bc, cls.__name__) is cls
    assert issubclass(bc.ConvergenceWarning, sklearn.exceptions.ConvergenceWarning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=bc.BayescompWarning)
        bc.correlated_ttest([0.8] * 5, [0.8] * 5, rho=0.1)  # ZeroVarianceWarning: filtered
        warnings.warn("not ours", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["not ours"]
