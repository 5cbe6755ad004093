"""``rank`` at scale, and rankings/selections across datasets that decide honestly.

The all-pairs path takes each pair's variance from one Gram matrix; these tests hold it to
the pairwise correlated t-test (``correlated_ttest`` on the pair's own differences, the
path ``compare`` takes) wherever that subtraction could lose precision: identical models,
a constant shift, differences tiny against the models' spread, subnormal and huge scales.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import bayescomp as bc
from bayescomp.core.exceptions import ZeroVarianceWarning


def _table(
    vals: np.ndarray, n_train: int = 90, n_test: int = 10, metric: str = "accuracy"
) -> bc.Scores:
    k, n = vals.shape
    return bc.Scores.from_frame(
        pd.DataFrame(
            {
                "model": np.repeat([f"m{i:04d}" for i in range(k)], n),
                "split": np.tile(np.arange(n), k),
                metric: vals.ravel(),
                "n_train": n_train,
                "n_test": n_test,
            }
        )
    )


def _direct(vals: np.ndarray, i: int, j: int, rope: float):
    """Row i as candidate against row j as baseline, on their own differences."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        return bc.correlated_ttest(vals[j], vals[i], rho=0.1, rope=rope)


def _check_against_direct(r: bc.Ranking, vals: np.ndarray, rope: float, pairs) -> None:
    names = [f"m{i:04d}" for i in range(vals.shape[0])]
    for i, j in pairs:
        a, b = names[i], names[j]
        res = _direct(vals, i, j, rope)
        for kind in ("p_better", "p_left", "p_rope", "p_right"):
            assert getattr(r, kind).loc[a, b] == pytest.approx(
                float(getattr(res, kind)), abs=1e-12
            ), (kind, a, b)
        assert r.expected_gain.loc[a, b] == pytest.approx(float(res.mean), abs=1e-14, rel=1e-12)


def test_many_models_agree_with_the_pairwise_test():
    rng = np.random.default_rng(3)
    k, n = 80, 30
    fold = rng.normal(0.85, 0.03, n)  # shared split difficulty
    vals = fold + rng.normal(0, 0.01, (k, 1)) + rng.normal(0, 0.005, (k, n))
    vals[5] = vals[4]  # identical models: point mass at 0
    vals[6] = vals[4] + 0.01  # a constant shift: point mass at 0.01
    vals[7] = vals[4] + rng.normal(0, 1e-9, n)  # differences tiny against the spread
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        r = bc.rank(_table(vals), "accuracy", rope=0.005)
    special = [(4, 5), (5, 4), (4, 6), (6, 4), (7, 4), (4, 7), (5, 6)]
    random_pairs = [tuple(rng.choice(k, 2, replace=False)) for _ in range(60)]
    _check_against_direct(r, vals, 0.005, special + random_pairs)
    # identical models are equivalent, never decided apart
    names = r.models
    assert r.p_rope.loc["m0004", "m0005"] == 1.0
    # mirror identities hold exactly
    off = ~np.eye(k, dtype=bool)
    np.testing.assert_array_equal(r.p_right.to_numpy()[off], r.p_left.to_numpy().T[off])
    total = (r.p_better + r.p_better.T).to_numpy().copy()
    total[
        [names.index("m0004"), names.index("m0005")], [names.index("m0005"), names.index("m0004")]
    ] = 1.0  # point mass at 0: neither
    np.testing.assert_allclose(total[off], 1.0, atol=1e-12)
    assert len(names) == k


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150])
def test_extreme_scales_give_the_same_probabilities(scale):
    rng = np.random.default_rng(1)
    vals = rng.normal(0.8, 0.02, (6, 20))
    ref = bc.rank(_table(vals, metric="score"), "score", rope=0.004, higher_is_better=True)
    r = bc.rank(
        _table(vals * scale, metric="score"), "score", rope=0.004 * scale, higher_is_better=True
    )
    for kind in ("p_better", "p_left", "p_rope", "p_right"):
        np.testing.assert_allclose(
            getattr(r, kind).to_numpy(), getattr(ref, kind).to_numpy(), atol=1e-9
        )


def test_unpaired_models_get_the_compare_error():
    rng = np.random.default_rng(0)
    vals = rng.normal(0.8, 0.02, (4, 10))
    frame = _table(vals).to_frame()
    frame = frame[~((frame["model"] == "m0002") & (frame["split"] == 3))]
    scores = bc.Scores.from_frame(frame)
    with pytest.raises(ValueError) as rank_err:
        bc.rank(scores, "accuracy")
    # the ranking's first model (best mean) is the baseline of the pair that fails
    first = scores.mean("accuracy").iloc[0].idxmax()
    with pytest.raises(ValueError) as compare_err:
        bc.compare(scores, baseline=first, candidate="m0002", metric="accuracy")
    assert "'m0002' covers splits 0–2, 4–9" in str(rank_err.value)
    assert str(rank_err.value) == str(compare_err.value)


def _two_datasets(identical: bool) -> bc.Scores:
    rng = np.random.default_rng(0)
    rows = []
    for ds in ("d1", "d2", "d3"):
        base = rng.normal(0.8, 0.02, 20)
        cand = base if identical else base + rng.normal(0.01, 0.01, 20)
        for model, vals in (("champ", base), ("chall", cand)):
            rows.append(
                pd.DataFrame(
                    {
                        "dataset": ds,
                        "model": model,
                        "split": np.arange(20),
                        "accuracy": vals,
                        "n_train": 90,
                        "n_test": 10,
                    }
                )
            )
    return bc.Scores.from_frame(pd.concat(rows, ignore_index=True))


def test_identical_challenger_across_datasets_is_equivalent():
    """Used to abort with 'zero variance on every dataset' (hierarchical model)."""
    scores = _two_datasets(identical=True)
    with pytest.warns(ZeroVarianceWarning):
        res = bc.compare(scores, baseline="champ", candidate="chall", metric="accuracy", rope=0.01)
    assert res.p_rope == 1.0 and res.decision(0.95).outcome == "equivalent"
    with pytest.warns(ZeroVarianceWarning):
        sel = bc.select(scores, baseline="champ", rope=0.01, metric="accuracy")
    assert sel.champion == "champ"
    assert list(sel.steps["decision"]) == ["equivalent"]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_rank_across_datasets_never_decides_on_a_failed_chain():
    """compare says 'not converged -> inconclusive'; rank used to promote/worse the pair."""
    pytest.importorskip("pymc")
    scores = _two_datasets(identical=False)
    opts = {"draws": 30, "tune": 10, "chains": 2, "refit": False}
    res = bc.compare(
        scores,
        baseline="champ",
        candidate="chall",
        metric="accuracy",
        rope=0.001,
        random_state=0,
        **opts,
    )
    r = bc.rank(scores, "accuracy", rope=0.001, random_state=0, **opts)
    table = r.summary(0.95)
    assert not res.converged
    assert res.decision(0.95).outcome == "inconclusive"
    assert set(table["decision"]) == {"inconclusive"}


def test_rank_on_no_models_is_a_clear_error():
    """An empty model list used to raise numpy's 'zero-size array' from the key check."""
    vals = np.random.default_rng(0).normal(0.8, 0.02, (2, 5))
    with pytest.raises(ValueError, match=r"rank needs at least two models, the table has \[\]"):
        bc.rank(_table(vals), "accuracy", models=[])


@pytest.mark.parametrize("rope", [0.0, 0.004])
def test_strips_and_threads_agree_with_the_pairwise_test_on_every_pair(rope):
    """Rows in strips of 7 (k = 45: an uneven last strip), on several threads: every
    ordered pair, including pairs across strip borders and the exact-path pairs at a
    border, equals the pairwise test; the mirror identities hold exactly."""
    from bayescomp.decision.ranking import _all_pairs

    rng = np.random.default_rng(11)
    k, n = 45, 30
    fold = rng.normal(0.85, 0.03, n)
    vals = fold + rng.normal(0, 0.01, (k, 1)) + rng.normal(0, 0.005, (k, n))
    vals[7] = vals[6]  # identical models on both sides of the first border
    vals[14] = vals[13] + 0.01  # a constant shift across the second border
    vals[44] = vals[0] + rng.normal(0, 1e-9, n)  # tiny differences, first and last strip
    vals[20] = vals[19] + 0.08 + rng.normal(0, 0.005, n)  # far apart: a tail below 1e-20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        mats = _all_pairs(vals, 0.1, rope, block=7 * k)
        ii, jj = np.nonzero(~np.eye(k, dtype=bool))
        res = bc.correlated_ttest(vals[jj], vals[ii], rho=0.1, rope=rope)
    for kind in ("p_better", "p_left", "p_rope", "p_right"):
        np.testing.assert_allclose(
            mats[kind][ii, jj], np.asarray(getattr(res, kind)), rtol=0, atol=1e-12, err_msg=kind
        )
    np.testing.assert_allclose(mats["expected_gain"][ii, jj], res.mean, rtol=1e-12, atol=1e-14)
    assert np.isnan(np.diag(mats["p_better"])).all()
    np.testing.assert_array_equal(mats["p_left"], mats["p_right"].T)
    np.testing.assert_array_equal(mats["p_rope"], mats["p_rope"].T)
    np.testing.assert_array_equal(mats["expected_gain"], -mats["expected_gain"].T)
    assert mats["p_rope"][6, 7] == 1.0 and mats["p_better"][6, 7] == 0.0  # point mass at 0
    # the small tail keeps its relative precision (not 1 - something near 1)
    far = np.asarray(res.p_worse) < 1e-20
    assert far.any()
    np.testing.assert_allclose(
        mats["p_better"][jj, ii][far], np.asarray(res.p_worse)[far], rtol=1e-9
    )


def test_rank_json_at_a_thousand_models_is_bounded(tmp_path, capsys):
    """``rank --json`` at 1,000 models writes each model against the next (999 rows, not
    999,000 pairs, ~300 MB), equal to the library's adjacent summary; ``--all-pairs`` on a
    small table has every ordered pair."""
    import json

    from bayescomp.cli.main import main

    rng = np.random.default_rng(0)
    k, n = 1000, 10
    f = pd.DataFrame(
        {"model": np.repeat([f"m{i:04d}" for i in range(k)], n), "split": np.tile(np.arange(n), k)}
        | {"n_train": 90, "n_test": 10}
        | {"accuracy": (0.8 + 0.0001 * np.arange(k))[:, None].repeat(n, 1).ravel()}
    )
    f["accuracy"] += 0.01 * rng.standard_normal(len(f))
    f.to_csv(tmp_path / "s.csv", index=False)
    assert main(["rank", str(tmp_path / "s.csv"), "--method", "pairwise", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pairs"] == "adjacent" and len(out["rows"]) == k - 1
    ref = bc.rank(bc.Scores.read_csv(tmp_path / "s.csv"), "accuracy").summary(adjacent=True)
    assert [r["model"] for r in out["rows"]] == ref["model"].tolist()
    np.testing.assert_allclose([r["p_better"] for r in out["rows"]], ref["p_better"], rtol=1e-12)
    small = f[f["model"].isin(["m0000", "m0001", "m0002"])]
    small.to_csv(tmp_path / "t.csv", index=False)
    assert main(["rank", str(tmp_path / "t.csv"), "--json", "--all-pairs"]) == 0
    assert len(json.loads(capsys.readouterr().out)["rows"]) == 6
