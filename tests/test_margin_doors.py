"""The one margin at every door: parsed and checked once (``core/margins.as_margin``), an
implausible one refused with what to do (and let through by ``force``), a kind a door cannot
resolve refused in one sentence naming the kinds it takes, and a standardized margin's
half-width printed per candidate (it differs by candidate)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.cli.main import main
from bayescomp.core.margins import Absolute, Relative, Standardized, as_margin


@pytest.fixture(scope="module")
def scores_csv(tmp_path_factory):
    rng = np.random.default_rng(0)
    b = 0.8 + 0.01 * rng.standard_normal(20)
    f = pd.DataFrame(
        {"model": np.repeat(["lr", "a", "b"], 20), "split": np.tile(np.arange(20), 3)}
        | {"n_train": 90, "n_test": 10}
        | {
            "accuracy": np.r_[
                b, b + 0.001 * rng.standard_normal(20), b + 0.02 * rng.standard_normal(20)
            ]
        }
    )
    path = tmp_path_factory.mktemp("m") / "s.csv"
    f.to_csv(path, index=False)
    return path


def _sd_of_differences(path, name):
    f = pd.read_csv(path).pivot(index="split", columns="model", values="accuracy")
    return float(np.std(f[name] - f["lr"], ddof=1))


def test_standardized_half_width_is_printed_per_candidate(scores_csv, capsys):
    argv = ["compare", str(scores_csv), "--baseline", "lr", "--rope", "0.1sd"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    halves = {m: 0.1 * _sd_of_differences(scores_csv, m) for m in ("a", "b")}
    assert halves["b"] > 10 * halves["a"]  # the two candidates really differ
    for m, h in halves.items():
        row = next(line for line in text.splitlines() if line.startswith(f"{m} "))
        assert f"±{h:g}" in row  # Margin.label of the half-width
    assert "per candidate" in text.splitlines()[0]
    assert main([*argv, "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    got = {r["candidate"]: r["rope"] for r in records}
    assert got == pytest.approx(halves, rel=1e-9)


@pytest.mark.parametrize(
    ("rope", "message"),
    [
        ("200%", "relative ROPE of 200 %"),
        ("1e3%", "relative ROPE of 1000 %"),
        ("5sd", "standardized ROPE of 5 sd"),
        ("2", "wider than half the metric's range"),
    ],
)
def test_implausible_margins_are_refused_and_forced_through(scores_csv, capsys, rope, message):
    argv = ["compare", str(scores_csv), "--baseline", "lr", "--metric", "accuracy"]
    assert main([*argv, "--rope", rope]) == 2
    err = capsys.readouterr().err
    assert message in err and "--force-rope" in err and len(err.strip().splitlines()) == 1
    assert main([*argv, "--rope", rope, "--force-rope"]) == 0
    capsys.readouterr()


def test_implausible_margins_in_python():
    f = pd.DataFrame(
        {"model": ["lr"] * 10 + ["rf"] * 10, "split": list(range(10)) * 2}
        | {"roc_auc": np.r_[np.linspace(0.8, 0.82, 10), np.linspace(0.81, 0.83, 10)]}
    )
    s = bc.Scores.from_frame(f, test_fraction=0.1)
    for bad in (2, True, "200%", "5sd"):
        with pytest.raises(ValueError, match=r"margin|ROPE|rope"):
            bc.compare(s, "lr", "rf", rope=bad)
        with pytest.raises(ValueError, match=r"margin|ROPE|rope"):
            bc.select(s, baseline="lr", rope=bad)
    res = bc.compare(s, "lr", "rf", rope=Absolute(2, force=True))
    assert res.p_rope == pytest.approx(1.0)


def test_doors_that_take_absolute_margins_say_which_in_one_sentence():
    rng = np.random.default_rng(1)
    f = pd.DataFrame(
        {"dataset": np.repeat(["d1", "d2", "d3"], 20), "model": np.tile(["a", "b"], 30)}
        | {"split": np.tile(np.repeat(np.arange(10), 2), 3), "acc": rng.uniform(0.7, 0.9, 60)}
    )
    s = bc.Scores.from_frame(f, test_fraction=0.1)
    preds = pd.DataFrame({"y_true": [0, 1] * 20, "a": [0, 1] * 20, "b": [1, 1] * 20})
    calls = {
        "rank": lambda r: bc.rank(s, "acc", rope=r),
        "slice_rope": lambda r: bc.compare(
            preds.assign(s=[0, 1] * 20), "a", "b", slices="s", slice_rope=r
        ),
        "plan_repetitions": lambda r: bc.plan_repetitions(
            np.full(20, 0.01) + rng.normal(0, 0.01, 20), rho=0.1, rope=r
        ),
    }
    for where, call in calls.items():
        for margin in ("1%", "0.1sd"):
            with pytest.raises(ValueError) as info:
                call(margin)
            text = str(info.value)
            assert "absolute (rope=0.01)" in text and "\n" not in text, (where, text)


def test_nan_score_with_a_relative_margin_names_the_nan():
    f = pd.DataFrame(
        {"model": ["lr"] * 10 + ["rf"] * 10, "split": list(range(10)) * 2}
        | {"accuracy": np.r_[np.linspace(0.6, 0.62, 10), np.linspace(0.61, 0.63, 10)]}
    )
    f.loc[3, "accuracy"] = np.nan
    s = bc.Scores.from_frame(f, test_fraction=0.1)
    with pytest.raises(ValueError, match="NaN"):
        bc.compare(s, "lr", "rf", rope="1%")


def test_as_margin_parses_every_spelling_once():
    assert as_margin("2 %") == Relative(0.02) and as_margin(" 0.3sd") == Standardized(0.3)
    assert as_margin(0.01) == 0.01 and isinstance(as_margin(np.float64(0.01)), Absolute)
    assert as_margin(as_margin("1%")) == Relative(0.01)
    with pytest.raises(ValueError, match="not a margin"):
        as_margin(True)


def test_family_rule_tests_each_challenger_at_its_own_standardized_half_width():
    """A standardized margin differs by challenger: the family test gets each one's own
    (before, the widest: a steady gain of 8 of its own half-widths stayed uncertified)."""
    rng = np.random.default_rng(3)
    base = 0.8 + 0.01 * rng.standard_normal(20)
    steady = base + 0.004 + 0.0005 * rng.standard_normal(20)
    noisy = base + 0.05 * rng.standard_normal(20)
    f = pd.DataFrame(
        {"model": np.repeat(["b", "steady", "noisy"], 20), "split": np.tile(np.arange(20), 3)}
        | {"n_train": 90, "n_test": 10, "accuracy": np.r_[base, steady, noisy]}
    )
    scores = bc.Scores.from_frame(f)
    assert bc.compare(scores, "b", "steady", rope="0.1sd").decision().outcome == "promote"
    assert float(bc.compare(scores, "b", "noisy", rope="0.1sd").rope) > 0.004  # the widest
    sel = bc.select(scores, baseline="b", rope="0.1sd")
    assert sel.champion == "steady" and sel.recommendation["action"] == "promote"
    gain = float(np.mean(steady - base))
    assert 0 < sel.recommendation["gain_lower"] < gain  # on the metric's scale
    assert "rope" in str(sel).splitlines()[2]  # each step's half-width in the table


@pytest.fixture(scope="module")
def one_test_set():
    """Two models' labels and probabilities on 600 items: B right more often than A."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 600)
    p_a = np.clip(0.5 + (y - 0.5) * rng.uniform(0.0, 0.8, 600), 0.01, 0.99)
    p_b = np.clip(0.5 + (y - 0.5) * rng.uniform(0.1, 0.9, 600), 0.01, 0.99)
    return pd.DataFrame(
        {"y_true": y, "A": (rng.random(600) < 0.2) ^ y, "B": (rng.random(600) < 0.12) ^ y}
        | {"pA": p_a, "pB": p_b}
    ).astype({"A": int, "B": int})


@pytest.mark.parametrize(
    ("metric", "cols", "by_hand"),
    [
        ("accuracy", "AB", lambda y, p: np.mean(y == p)),
        ("log_loss", ["pA", "pB"], lambda y, p: -np.mean(np.log(np.where(y == 1, p, 1 - p)))),
        ("roc_auc", ["pA", "pB"], None),
    ],
)
def test_relative_margin_on_one_test_set_is_a_share_of_the_baseline_metric(
    one_test_set, metric, cols, by_hand
):
    """``"1%"`` on a predictions table: ±1 % of the baseline's metric on the test set, on
    the metric's scale; the same posterior as that absolute half-width given by hand."""
    from sklearn.metrics import roc_auc_score

    t, (a, b) = one_test_set, cols
    base = (by_hand or (lambda y, p: roc_auc_score(y, p)))(t.y_true.to_numpy(), t[a].to_numpy())
    res = bc.compare(t, a, b, metric=metric, rope="1%", random_state=3)
    assert res.rope == pytest.approx(0.01 * base, rel=1e-12)
    same = bc.compare(t, a, b, metric=metric, rope=0.01 * base, random_state=3)
    assert (res.p_left, res.p_rope, res.p_right) == (same.p_left, same.p_rope, same.p_right)


def test_standardized_margin_on_one_test_set_counts_sds_of_the_item_differences(one_test_set):
    """``"0.1sd"`` on a predictions table: 0.1 sd (ddof 1) of the per-item differences; a
    whole-set metric (no per-item differences) is refused in one line."""
    t = one_test_set
    d = (t.y_true == t.B).astype(float) - (t.y_true == t.A).astype(float)
    res = bc.compare(t, "A", "B", metric="accuracy", rope="0.1sd", random_state=0)
    assert res.rope == pytest.approx(0.1 * np.std(d, ddof=1), rel=1e-12)
    with pytest.raises(ValueError, match=r"^a standardized margin .*roc_auc[^\n]*'1%'\)$"):
        bc.compare(t, "pA", "pB", metric="roc_auc", rope="0.1sd")


def test_relative_margin_on_predictions_from_the_command_line(one_test_set, tmp_path, capsys):
    """``compare``/``select --predictions --rope 1%``: the header says the margin and its
    half-width on the metric's scale; the selection decides at the same half-width."""
    path = tmp_path / "p.csv"
    one_test_set[["y_true", "A", "B"]].to_csv(path, index=False)
    base = float(np.mean(one_test_set.y_true == one_test_set.A))
    argv = ["--predictions", str(path), "--baseline", "A", "--rope", "1%", "--quiet"]
    assert main(["compare", *argv]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert f"rope: ±1 % (relative; ±{0.01 * base:.3g} on the metric's scale)" in head
    assert main(["select", *argv, "--json"]) == 0
    steps = json.loads(capsys.readouterr().out)["steps"]
    assert steps[0]["rope"] == pytest.approx(0.01 * base, rel=1e-12)


def test_nan_scores_under_a_relative_margin_name_only_the_model_that_has_them():
    f = pd.DataFrame(
        {"model": ["lr"] * 10 + ["rf"] * 10, "split": list(range(10)) * 2}
        | {"accuracy": np.r_[np.linspace(0.6, 0.62, 10), np.linspace(0.61, 0.63, 10)]}
    )
    f.loc[[3, 5], "accuracy"] = np.nan
    s = bc.Scores.from_frame(f, test_fraction=0.1)
    with pytest.raises(ValueError, match=r"in 'lr' \(2 scores\); fix") as info:
        bc.compare(s, "lr", "rf", rope="1%")
    assert "rf" not in str(info.value)
