"""Margins not on the metric's scale, resolved by :func:`bayescomp.compare` (so by
``select``, ``select_models`` and the CLI): :class:`Relative` (``"1%"``: the posterior of
the mean oriented log ratio, ROPE ``±log(1 + r)``) and :class:`Standardized` (``"0.1sd"``:
``e`` sds of the paired differences, Cohen's d_z, estimated).  ``docs/selection.md``."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np


def _fraction(v: Any, what: str) -> None:
    if isinstance(v, bool) or not isinstance(v, int | float) or not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{what} needs a finite number >= 0; got {v!r}")


@dataclass(frozen=True)
class Relative:
    """``Relative(0.01)``: "1 % better" (ROPE ``±log(1.01)`` on the log ratio).

    >>> f"±{Relative(0.01)}", round(Relative(0.01).half_width({}), 6)
    ('±1 % (relative)', 0.00995)
    """

    r: float

    def __post_init__(self) -> None:
        _fraction(self.r, "Relative(r) (0.01 = 1 %)")

    def half_width(self, differences: Any) -> float:
        return math.log1p(self.r)

    def __format__(self, spec: str = "") -> str:  # "±{rope:g}" in a message names the margin
        return f"{100 * self.r:g} % (relative)"

    __str__ = __format__

    @classmethod
    def from_mlflow(cls, threshold: Any) -> Relative:
        """MLflow's ``MetricThreshold(min_relative_change=r)``, exactly: MLflow 3.17 passes
        ``candidate >= baseline + r|baseline|`` (greater is better) or ``<= baseline -
        r|baseline|``; for positive scores an oriented log ratio ``>= log(1 + r)``, resp.
        ``-log(1 - r) = log(1 + r/(1 - r))``."""
        r, greater = threshold.min_relative_change, threshold.greater_is_better
        if r is None or not isinstance(greater, bool) or not (0 <= r <= 1 and (greater or r < 1)):
            raise ValueError(
                "the MetricThreshold needs min_relative_change in [0, 1] ([0, 1) when lower "
                f"is better) and greater_is_better; got {r!r}, {greater!r}"
            )
        return cls(float(r)) if greater else cls(float(r) / (1 - float(r)))


@dataclass(frozen=True)
class Standardized:
    """``e`` sds of the paired differences (pooled within datasets, ``ddof=1``)."""

    e: float

    def __post_init__(self) -> None:
        _fraction(self.e, "Standardized(e) (sds)")

    def half_width(self, differences: dict[str, np.ndarray]) -> float:
        var = [np.var(d, ddof=1) for d in differences.values() if np.size(d) > 1]
        if not var or not float(np.mean(var)) > 0:
            raise ValueError(
                "a standardized margin needs paired differences that vary (2 splits or more, "
                "not all equal); give the ROPE on the metric's scale instead"
            )
        return self.e * math.sqrt(float(np.mean(var)))

    def __format__(self, spec: str = "") -> str:
        return f"{self.e:g} sd of the paired differences (estimated)"

    __str__ = __format__


def check_margin(rope: Any) -> Any:
    """The text of a margin (``"1%"``, ``"0.1sd"``) as its object; others unchanged."""
    if not isinstance(rope, str):
        return rope
    m = re.fullmatch(r"\s*((?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(%|sd)?\s*", rope, re.I)
    if m is None:
        raise ValueError(
            f"rope must be a half-width (0.01), a relative margin ('1%') or a standardized "
            f"one ('0.1sd'); got {rope!r}"
        )
    value, kind = float(m.group(1)), m.group(2)
    return value if kind is None else Relative(value / 100) if kind == "%" else Standardized(value)


def rope_label(rope: Any, half_width: float) -> str:
    """The ROPE as printed, a margin with its half-width.

    >>> rope_label(0.01, 0.01), rope_label("1%", 0.00995)
    ('±0.01', '±1 % (relative; ±0.00995 on the log ratio)')
    """
    rope = check_margin(rope)
    if not isinstance(rope, Relative | Standardized):
        return f"±{half_width:g}"
    on = "the log ratio" if isinstance(rope, Relative) else "the metric's scale"
    return f"±{str(rope)[:-1]}; ±{half_width:.3g} on {on})"
