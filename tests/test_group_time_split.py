"""``GroupTimeSeriesSplit``: expanding windows of whole groups in time order (issue 19,
``--groups`` with ``--time``).

The splits are checked against an independent construction — scikit-learn's
``TimeSeriesSplit`` over the groups' first appearances (``pd.unique``), mapped back to rows
with ``np.isin`` on the labels — and against the two properties the design promises:
no group in both training and test (``GroupKFold``'s guarantee) and every training row
before every test row (so the time-ordered posterior is chosen).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import TimeSeriesSplit

from bayescomp.splits.design import is_time_ordered, materialise_splits
from bayescomp.splits.group import GroupTimeSeriesSplit, RepeatedGroupKFold


def weekly_rows(n_weeks: int, seed: int) -> np.ndarray:
    """Rows in time order, labelled by week; labels whose text order is not time order."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_weeks)
    names = np.array([f"w{k}" for k in rng.permutation(n_weeks) * 7 + 3])
    return np.repeat(names, sizes)


def expected_splits(labels: np.ndarray, n_splits: int, gap: int) -> list[tuple]:
    order = pd.unique(pd.Series(labels))  # groups by first appearance: their time order
    out = []
    for tr, te in TimeSeriesSplit(n_splits=n_splits, gap=gap).split(order):
        out.append(
            (np.flatnonzero(np.isin(labels, order[tr])), np.flatnonzero(np.isin(labels, order[te])))
        )
    return out


@pytest.mark.parametrize(("n_weeks", "n_splits", "gap", "seed"), [(12, 3, 0, 0), (40, 6, 2, 1)])
def test_splits_match_timeseriessplit_over_groups(n_weeks, n_splits, gap, seed):
    labels = weekly_rows(n_weeks, seed)
    got = list(GroupTimeSeriesSplit(n_splits=n_splits, gap=gap).split(labels, groups=labels))
    want = expected_splits(labels, n_splits, gap)
    assert len(got) == len(want) == n_splits
    for (tr, te), (tr_e, te_e) in zip(got, want, strict=True):
        np.testing.assert_array_equal(tr, tr_e)
        np.testing.assert_array_equal(te, te_e)
        assert set(labels[tr]).isdisjoint(labels[te])  # no group on both sides
        assert tr.max() < te.min()  # training rows all before test rows
        # `gap` whole groups between the training window and the test window
        assert len(set(labels[tr.max() + 1 : te.min()])) == gap
    assert is_time_ordered(got)
    design = materialise_splits(
        GroupTimeSeriesSplit(n_splits=n_splits, gap=gap), np.zeros((len(labels), 1)), None, labels
    )
    assert design.time_ordered and len(design) == n_splits


def test_a_group_on_both_sides_of_a_window_start_is_refused():
    labels = weekly_rows(12, 0).astype(object)
    labels[-1] = labels[0]  # the first week's label again at the very end
    with pytest.raises(ValueError, match=r"group 'w\d+' has rows on both sides of the start"):
        list(GroupTimeSeriesSplit(n_splits=3).split(labels, groups=labels))


def test_too_few_groups_and_bad_arguments_are_refused():
    labels = np.repeat(np.arange(4), 3)
    with pytest.raises(
        ValueError, match=r"4 groups are too few for 3 .* use n_splits \(--n-splits\) 2 or fewer"
    ):
        list(GroupTimeSeriesSplit(n_splits=3, gap=1).split(labels, groups=labels))
    with pytest.raises(ValueError, match="use a smaller gap"):
        list(GroupTimeSeriesSplit(n_splits=2, gap=2).split(labels, groups=labels))
    with pytest.raises(ValueError, match="needs groups="):
        list(GroupTimeSeriesSplit(n_splits=2).split(labels))
    with pytest.raises(ValueError, match="gap must be an integer >= 0"):
        GroupTimeSeriesSplit(gap=-1)


def test_read_table_keeps_groups_whole_at_equal_times(tmp_path):
    """Rows of equal time are ordered by their group's start: week 'b' starts at t=3 where
    week 'a' ends, and its t=3 row comes first in the file — it still follows week 'a'."""
    from bayescomp.scores.tabular import read_table

    frame = pd.DataFrame(
        {
            "t": [3, 1, 3, 2, 4, 5, 6, 7, 8, 9],
            "g": ["b", "a", "a", "a", "b", "b", "c", "d", "e", "f"],
            "x": np.arange(10.0),
            "y": [0, 1, 0, 1, 0, 1, 0, 1, 0, 1],
        }
    )
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = read_table(tmp_path / "t.csv", target="y", groups="g", time="t", n_splits=3)
    assert table.groups.tolist() == ["a", "a", "a", "b", "b", "b", "c", "d", "e", "f"]
    assert table.X["x"].tolist() == [1.0, 3.0, 2.0, 0.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    splits = list(GroupTimeSeriesSplit(n_splits=3).split(table.X, table.y, table.groups))
    # 6 weeks, 3 windows: TimeSeriesSplit's one-group test windows are weeks d, e, f
    assert [te.tolist() for _, te in splits] == [[7], [8], [9]]
    assert [tr.tolist() for tr, _ in splits] == [list(range(k)) for k in (7, 8, 9)]
    with pytest.raises(ValueError, match=r"6 groups, too few for 6 time-ordered .* --n-splits 5"):
        read_table(tmp_path / "t.csv", target="y", groups="g", time="t", n_splits=6)


@pytest.mark.parametrize("bad", [{"n_splits": 2.5}, {"n_splits": True}, {"n_repeats": "3"}])
def test_repeated_group_kfold_refuses_a_bad_count_in_one_line(bad):
    """Counts are whole numbers checked by ``core.checks`` (a bool is not a count)."""
    with pytest.raises(ValueError, match=f"^{next(iter(bad))} must be an integer"):
        RepeatedGroupKFold(**bad)
