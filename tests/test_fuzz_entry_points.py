"""Issue 12, every public entry point: hostile arguments get bayescomp's clear error, valid ones
a finite answer (or a documented NaN with a warning), and no call hangs.

Run the big fuzz by hand: ``HYPOTHESIS_PROFILE=slow python -m pytest tests/test_fuzz_entry_points.py``
or every mutation once: ``PYTHONPATH=. python bench/fuzz_table.py``.
"""

from __future__ import annotations

import pytest
from fuzz_entries import OPEN, api_calls, entries, run_entry
from hypothesis import given, settings

N = max(3, settings.default.max_examples // 4)


@pytest.mark.parametrize("name", list(entries()))
def test_entry_point_refuses_clearly_or_answers_finitely(name):
    @settings(max_examples=N)
    @given(call=api_calls((name,)))
    def check(call):
        entry, label, refuse = call
        if (entry, label) in OPEN:
            return
        outcome, detail = run_entry(entry, label, refuse, seconds=30)
        allowed = {True: {"clear error"}, False: {"ok"}, None: {"ok", "clear error"}}[refuse]
        assert outcome in allowed, (entry, label, outcome, detail)

    check()


#: the cases that were open until issue 12's follow-up: each is checked once, deterministically
FORMERLY_OPEN = [
    ("Scores.from_frame", "model_col='nope'"),
    ("Scores.read_csv", "sep=5"),
    *[("Scores.from_wide", f"frame={k}") for k in ("nan", "empty", "not_a_frame")],
    *[("cross_validate_paired", f"X={k}") for k in ("inf", "empty", "short", "strings")],
    *[("cross_validate_paired", f"y={k}") for k in ("nan", "empty", "short", "none", "objects")],
    ("precision_at_k_unlabeled", "test_labels=nan"),
    ("precision_at_k_unlabeled", "test_labels=objects"),
    ("metric_table", "y_true=objects"),
    ("metric_table", "beta=-1.0"),
    ("metric_table", "beta=nan"),
    ("learning_curves", "y=short"),
    ("select_models", "rope=1e+300"),  # a ROPE no metric of [0, 1] can mean: refused
    ("learning_curves", "y=empty"),
    ("RepeatedGroupKFold", "groups=short"),
    ("RepeatedGroupKFold", "groups=nan"),
    ("RepeatedGroupKFold", "n_splits=100"),
    # issue 23's extension: predicted labels that are missing, infinite or of another kind
    # than y_true would count as wrong predictions; an infinite planned difference
    *[
        ("holdout_posterior", f"{arg}={k}")
        for arg in ("baseline", "candidate")
        for k in ("nan", "inf", "strings", "objects")
    ],
    ("plan_test_set", "difference=inf"),
]

#: valid calls of issue 23's extension that must answer with finite numbers
FORMERLY_OPEN_VALID = [
    ("holdout_posterior", "y_true=none"),  # the per-item-scores call
    ("select[predictions table]", "valid"),
    ("select[predictions table]", "rope=0.0"),
]


@pytest.mark.parametrize(("entry", "label"), FORMERLY_OPEN_VALID)
def test_formerly_open_valid_calls_answer_finitely(entry, label):
    outcome, detail = run_entry(entry, label, False, seconds=60)
    assert outcome == "ok", (entry, label, outcome, detail)


@pytest.mark.parametrize(("entry", "label"), FORMERLY_OPEN)
def test_formerly_open_cases_get_a_clear_error(entry, label):
    outcome, detail = run_entry(entry, label, True, seconds=30)
    assert outcome == "clear error", (entry, label, outcome, detail)


#: the audited whole-call variants (and their independent checks), each run once
AUDITED = [
    (name, label, refuse)
    for name, e in entries().items()
    for label, (_, refuse) in e.variants.items()
]


@pytest.mark.parametrize(("entry", "label", "refuse"), AUDITED)
def test_audited_variants(entry, label, refuse):
    outcome, detail = run_entry(entry, label, refuse, seconds=60)
    allowed = {True: {"clear error"}, False: {"ok"}, None: {"ok", "clear error"}}[refuse]
    assert outcome in allowed, (entry, label, outcome, detail)
