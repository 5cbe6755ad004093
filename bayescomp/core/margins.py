"""The margin: every ROPE is one of :class:`Absolute` (``0.01``, on the metric's scale),
:class:`Relative` (``"1%"``: the posterior of the mean oriented log ratio, ROPE
``±log(1 + r)``) or :class:`Standardized` (``"0.1sd"``: ``e`` sds of the paired
differences, Cohen's d_z, estimated).  :func:`as_margin` parses and checks one at each door;
a comparison resolves it once into the half-width its posterior receives
(:meth:`Margin.half_width`), and it prints itself (:meth:`Margin.label`) in every output.
On one test set (a predictions table) a relative margin is ``r`` times the baseline's
metric there, on the metric's scale (``reference``), and a standardized one ``e`` sds of
the per-item differences.
``docs/selection.md`` ("Margins").
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

#: what the refusal of an implausible margin says to do
_FORCE = "pass force=True to the margin (Absolute(2, force=True)) or --force-rope if you mean it"


class Margin:
    """A region of practical equivalence before it meets the data.

    ``half_width(differences, reference)`` is the half-width the posterior receives,
    ``label(hw)`` the ROPE as every output prints it, ``force`` lets an implausible margin
    through.
    """

    kind: ClassVar[str]
    force: bool

    def half_width(self, differences: Any = None, reference: float | None = None) -> float:
        raise NotImplementedError

    def label(self, half_width: float | None = None, reference: float | None = None) -> str:
        """``±0.01``; ``±1 % (relative; ±0.00995 on the log ratio)``; with the ``reference``
        a relative margin was resolved against, ``±1 % (relative; ±0.008 on the metric's
        scale)``."""
        if half_width is None or isinstance(self, Absolute):
            return f"±{self}"
        log = isinstance(self, Relative) and reference is None
        on = "the log ratio" if log else "the metric's scale"
        return f"±{str(self)[:-1]}; ±{half_width:.3g} on {on})"

    def _implausible(self, bounds: tuple[float, float] | None) -> str | None:
        raise NotImplementedError

    def forced(self) -> Margin:
        """The same margin, let through the plausibility check (``--force-rope``)."""
        if isinstance(self, Absolute):
            return Absolute(float(self), force=True)
        return dataclasses.replace(self, force=True)  # type: ignore[type-var]


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
        raise ValueError(f"{what} needs a finite number >= 0; got {v!r}")
    if not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{what} needs a finite number >= 0; got {v!r}")
    return float(v)


class Absolute(float, Margin):
    """``±r`` on the metric's scale; a float, so it is the half-width itself.

    >>> Absolute(0.01) + 0, Absolute(0.01).label(), f"{Absolute(0.005):g}"
    (0.01, '±0.01', '0.005')
    """

    kind = "absolute"

    def __new__(cls, r: Any, force: bool = False) -> Absolute:
        obj = super().__new__(cls, _number(r, "rope (a half-width on the metric's scale)"))
        obj.force = bool(force)
        return obj

    def half_width(self, differences: Any = None, reference: float | None = None) -> float:
        return float(self)

    def __repr__(self) -> str:
        return f"Absolute({float(self)!r})"

    def __str__(self) -> str:
        return f"{float(self):g}"

    def _implausible(self, bounds: tuple[float, float] | None) -> str | None:
        if bounds is None or not all(map(math.isfinite, bounds)):
            return None
        half_range = (bounds[1] - bounds[0]) / 2
        if float(self) <= half_range:
            return None
        return (
            f"ROPE ±{self:g} is wider than half the metric's range {list(bounds)}, so every "
            f"candidate would count as equivalent; give the smallest difference that matters "
            f"(e.g. 0.01)"
        )


@dataclass(frozen=True)
class Relative(Margin):
    """``Relative(0.01)``: "1 % better" (ROPE ``±log(1.01)`` on the log ratio; on one
    test set ``±0.01 × |the baseline's metric|`` on the metric's scale, ``reference``).

    >>> f"±{Relative(0.01)}", round(Relative(0.01).half_width(), 6)
    ('±1 % (relative)', 0.00995)
    >>> Relative(0.01).half_width(reference=0.8)
    0.008
    """

    r: float
    force: bool = field(default=False, compare=False, repr=False)
    kind: ClassVar[str] = "relative"

    def __post_init__(self) -> None:
        _number(self.r, "Relative(r) (0.01 = 1 %)")

    def half_width(self, differences: Any = None, reference: float | None = None) -> float:
        return math.log1p(self.r) if reference is None else self.r * abs(reference)

    def __format__(self, spec: str = "") -> str:  # "±{rope:g}" in a message names the margin
        return f"{100 * self.r:g} % (relative)"

    __str__ = __format__

    def _implausible(self, bounds: tuple[float, float] | None) -> str | None:
        if self.r < 1:
            return None
        return (
            f"a relative ROPE of {100 * self.r:g} % counts a candidate {1 + self.r:g}× better "
            "(or worse) as equivalent; a relative margin is a small fraction such as '1%'"
        )

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
class Standardized(Margin):
    """``e`` sds of the paired differences (pooled within datasets, ``ddof=1``)."""

    e: float
    force: bool = field(default=False, compare=False, repr=False)
    kind: ClassVar[str] = "standardized"

    def __post_init__(self) -> None:
        _number(self.e, "Standardized(e) (sds)")

    def half_width(self, differences: Any = None, reference: float | None = None) -> float:
        values = differences.values() if isinstance(differences, dict) else [differences]
        var = [np.var(d, ddof=1) for d in values if d is not None and np.size(d) > 1]
        if not var or not float(np.mean(var)) > 0:
            raise ValueError(
                "a standardized margin needs paired differences that vary (2 splits or items or "
                "more, not all equal); give the ROPE on the metric's scale instead"
            )
        return self.e * math.sqrt(float(np.mean(var)))

    def __format__(self, spec: str = "") -> str:
        return f"{self.e:g} sd of the paired differences (estimated)"

    __str__ = __format__

    def _implausible(self, bounds: tuple[float, float] | None) -> str | None:
        if self.e <= 2:
            return None
        return (
            f"a standardized ROPE of {self.e:g} sd counts differences of {self.e:g} standard "
            "deviations (a very large effect) as equivalent; use e.g. '0.1sd'"
        )


def parse_margin(rope: Any) -> Margin:
    """A ROPE as its margin, parsed (``"1%"``, ``"0.1sd"``, ``0.01``) but not yet checked."""
    if isinstance(rope, Margin):
        return rope
    if isinstance(rope, bool):
        raise ValueError(
            f"rope={rope!r} is not a margin: give a half-width on the metric's scale (0.01), "
            "a relative margin ('1%') or a standardized one ('0.1sd')"
        )
    if not isinstance(rope, str):
        return Absolute(np.ravel(rope)[0] if np.ndim(rope) == 1 and np.size(rope) == 1 else rope)
    m = re.fullmatch(r"\s*((?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(%|sd)?\s*", rope, re.I)
    if m is None:
        raise ValueError(
            f"rope must be a half-width (0.01), a relative margin ('1%') or a standardized "
            f"one ('0.1sd'); got {rope!r}"
        )
    value, kind = float(m.group(1)), m.group(2)
    if kind is None:
        return Absolute(value)
    return Relative(value / 100) if kind == "%" else Standardized(value)


#: what a door takes for a margin: a half-width, ``"1%"``/``"0.1sd"``, or a :class:`Margin`
MarginLike = float | str | Margin


def as_margin(
    rope: MarginLike,
    *,
    metric: str | None = None,
    takes: Sequence[type[Margin]] = (Absolute, Relative, Standardized),
    where: str = "here",
) -> Any:
    """The one parse and check of a ROPE: a :class:`Margin` (an :class:`Absolute` is a float).

    A margin that cannot be meant is refused with what to do — a boolean, a relative one
    of 100 % or more, a standardized one over 2 sd, an absolute one wider than half the
    ``metric``'s range (its record's bounds; a table refuses scores outside them) —
    unless the margin has ``force=True``.  A door that takes only some kinds names them
    (``takes``, ``where``: why there).

    Examples
    --------
    >>> as_margin("2 %"), as_margin(" 0.3sd"), as_margin(0.01)
    (Relative(r=0.02), Standardized(e=0.3), Absolute(0.01))
    >>> as_margin(2, metric="roc_auc")
    Traceback (most recent call last):
    ...
    ValueError: ROPE ±2 is wider than half the metric's range [0.0, 1.0], so every candidate would count as equivalent; give the smallest difference that matters (e.g. 0.01); or pass force=True to the margin (Absolute(2, force=True)) or --force-rope if you mean it
    >>> float(as_margin(Absolute(2, force=True), metric="roc_auc"))
    2.0
    """
    from bayescomp.core.metric import metric_record

    margin = parse_margin(rope)
    if not isinstance(margin, tuple(takes)):
        names = " or ".join(f"{k.kind} ({_EXAMPLES[k.kind]})" for k in takes)
        raise ValueError(
            f"{where} takes a ROPE that is {names}, not the {margin.kind} margin {margin!s}"
        )
    if margin.force:
        return margin
    record = metric_record(metric) if isinstance(metric, str) else None
    bounds = record.bounds if record is not None else None
    why = margin._implausible(bounds)
    if why is not None:
        raise ValueError(f"{why}; or {_FORCE}")
    return margin


_EXAMPLES = {"absolute": "rope=0.01", "relative": "'1%'", "standardized": "'0.1sd'"}
