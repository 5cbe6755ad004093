"""The pytest plugin (``pytest11``; imported by every pytest run, so it imports only
pytest): an ``InconclusiveComparison`` of :mod:`bayescomp.integrations.testing` fails
(default), xfails or skips by ``--bayescomp-inconclusive`` or
``@pytest.mark.bayescomp(inconclusive=...)`` (the marker wins).  No shared state (xdist-safe).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

MODES = ("fail", "xfail", "skip")


def pytest_addoption(parser: Any) -> None:
    help_ = "an inconclusive assert_better/assert_not_worse: fail (default), xfail or skip"
    parser.getgroup("bayescomp").addoption("--bayescomp-inconclusive", choices=MODES, help=help_)


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "bayescomp(inconclusive='fail'|'xfail'|'skip'): its end")


def _runtest_call(item: Any) -> Any:
    try:
        return (yield)
    except AssertionError as exc:
        from bayescomp.core.exceptions import InconclusiveComparison

        marker = item.get_closest_marker("bayescomp")
        mode = marker.kwargs.get("inconclusive") if marker else None
        mode = mode or item.config.getoption("bayescomp_inconclusive") or "fail"
        if mode not in MODES:
            raise pytest.UsageError(f"bayescomp(inconclusive=) must be one of {MODES}") from None
        if isinstance(exc, InconclusiveComparison) and mode != "fail":
            (pytest.skip if mode == "skip" else pytest.xfail)(f"inconclusive: {exc}")
        raise


# pluggy < 1.2 (pytest 7) has no new-style wrapper: there an inconclusive assertion fails
with contextlib.suppress(TypeError):
    pytest_runtest_call = pytest.hookimpl(wrapper=True)(_runtest_call)
