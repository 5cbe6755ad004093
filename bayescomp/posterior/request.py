"""The comparison request: what a comparison is asked — the metric and its direction, the
margin, γ, the guards (guardrail metrics, the slice guardrail), the method with its options
and the seed — checked once, at the door.

:func:`check_request` is the one constructor (as scikit-learn's ``check_scoring`` turns a
scoring name into a scorer once): :func:`bayescomp.compare`, :func:`bayescomp.select` and
:func:`bayescomp.select_models` call it, and everything below them takes the frozen
:class:`Request` and trusts it — no layer parses or checks the margin or resolves the metric
again (``tests/test_request.py`` counts the calls).  A selection's request is its identity
in the store (:class:`~bayescomp.studies.selection.SelectionSetup`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from bayescomp.core.checks import check_gamma, check_number
from bayescomp.core.margins import (
    Absolute,
    Margin,
    MarginLike,
    Relative,
    Standardized,
    as_margin,
)
from bayescomp.core.orientation import resolve_direction

#: default probability that no slice is worse a promotion needs (``docs/slices.md``)
SLICE_GAMMA = 0.5
#: the correlated t-test's variances (``docs/per_row_variance.md``)
VARIANCES = ("split", "rows", "gated")


@dataclass(frozen=True)
class SliceGuard:
    """The slice guardrail (``docs/slices.md``): no slice of ``column`` may be worse beyond
    ``margin`` (> 0), decided at ``gamma``."""

    column: str
    margin: Absolute
    gamma: float = SLICE_GAMMA


@dataclass(frozen=True)
class Request:
    """One comparison's question, checked (module docstring).

    ``metric`` is the table's name for it and ``higher_is_better`` its direction (None
    only where the table decides it: a predictions table's metric is resolved with its
    labels); ``guardrails`` are ``(metric, half-width, higher_is_better)``; ``variance`` the
    correlated t-test's (one of :data:`VARIANCES`); ``options`` the method's own keyword
    arguments (``draws``, ``prior``, a predictions table's columns).
    """

    metric: str | None
    higher_is_better: bool | None
    margin: Margin
    gamma: float = 0.95
    guardrails: tuple[tuple[str, float, bool], ...] = ()
    slices: SliceGuard | None = None
    method: str = "auto"
    random_state: Any = None
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    variance: str = "split"


def _guardrails(
    guardrails: Mapping[str, MarginLike] | None, directions: Mapping[str, bool]
) -> tuple[tuple[str, float, bool], ...]:
    out = []
    for m, rope in dict(guardrails or {}).items():
        margin = as_margin(rope, metric=m, takes=(Absolute,), where="a guardrail")
        try:
            hib = resolve_direction(m, directions.get(m))
        except ValueError:
            raise ValueError(
                f"unknown metric {m!r}: bayescomp cannot tell whether higher is better; pass "
                f"higher_is_better={{{m!r}: True or False}}"
            ) from None
        out.append((str(m), float(margin), hib))
    return tuple(out)


def slice_guard(slices: Any, slice_rope: Any, slice_gamma: Any = None) -> SliceGuard | None:
    """The slice guardrail's options checked once: a column name, an absolute margin above
    0 and the probability in (0, 1) a promotion needs (:data:`SLICE_GAMMA` when None)."""
    if slices is None:
        if slice_rope is not None:
            raise ValueError("slice_rope= goes with slices=, the column of the slices")
        return None
    if not isinstance(slices, str):
        raise ValueError(
            f"slices= names one column of the predictions table (a string such as 'region'); "
            f"got {type(slices).__name__} {slices!r}"
        )
    if slice_rope is None:
        raise ValueError("slices= needs slice_rope=, the largest loss on one slice to accept")
    try:
        margin = as_margin(slice_rope, takes=(Absolute,), where="slice_rope")
    except ValueError as exc:
        raise ValueError(f"slice_rope={slice_rope!r}: {exc}") from None
    if not float(margin) > 0:
        raise ValueError(
            "slice_rope must be > 0 (a slice is worse when its difference is below minus "
            "it): pass the largest loss on one slice you would accept, e.g. slice_rope=0.02"
        )
    if slice_gamma is None:
        return SliceGuard(slices, margin)
    check_number(slice_gamma, "slice_gamma", min_val=0, max_val=1, include_boundaries="neither")
    return SliceGuard(slices, margin, float(slice_gamma))


def check_request(
    *,
    metric: str | None,
    rope: Any,
    gamma: float = 0.95,
    higher_is_better: bool | Mapping[str, bool] | None = None,
    guardrails: Mapping[str, MarginLike] | None = None,
    slices: str | None = None,
    slice_rope: Any = None,
    slice_gamma: float | None = None,
    method: str = "auto",
    random_state: Any = None,
    variance: str = "split",
    takes: Sequence[type[Margin]] = (Absolute, Relative, Standardized),
    where: str = "here",
    **options: Any,
) -> Request:
    """The one check of a comparison's request (module docstring).

    ``metric`` is the table's resolved name for the metric (a scores table resolves it with
    :meth:`Scores._check_metric`); with ``higher_is_better`` None its direction is looked up
    (a metric bayescomp does not know needs it).  ``rope`` is parsed and checked against the
    metric's range once (:func:`~bayescomp.core.margins.as_margin`); ``takes`` narrows the
    kinds of margin the door accepts.

    Examples
    --------
    >>> r = check_request(metric="accuracy", rope="1%", guardrails={"fit_time": 0.5})
    >>> r.margin, r.higher_is_better, r.guardrails
    (Relative(r=0.01), True, (('fit_time', 0.5, False),))
    >>> r.margin.label()
    '±1 % (relative)'
    """
    directions = dict(higher_is_better) if isinstance(higher_is_better, Mapping) else {}
    hib = directions.get(metric) if isinstance(higher_is_better, Mapping) else higher_is_better
    margin = as_margin(rope, metric=metric, takes=takes, where=where)  # said first
    if variance not in VARIANCES:
        raise ValueError(f"variance must be one of {VARIANCES}, got {variance!r}")
    return Request(
        metric=metric,
        higher_is_better=None if metric is None and hib is None else resolve_direction(metric, hib),
        margin=margin,
        gamma=check_gamma(gamma),
        guardrails=_guardrails(guardrails, directions),
        slices=slice_guard(slices, slice_rope, slice_gamma),
        method=method,
        random_state=random_state,
        options=MappingProxyType(dict(options)),
        variance=variance,
    )


__all__ = ["Request", "SliceGuard", "check_request", "slice_guard"]
