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
