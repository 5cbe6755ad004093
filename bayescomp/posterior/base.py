"""The one base of every posterior of a difference: the members they all answer alike.

A posterior here is of ``mu``, candidate − baseline oriented so that positive is better.
A subclass writes only what is its own: ``_tails`` (``P(mu < -rope)``, ``P(mu > rope)``),
``p_better``/``p_worse``, ``expected_gain``, ``hdi``, its own summary columns
(``_columns``) and its ``plot``.  Region probabilities, the decision, the summary
table, the JSON, the repr, the notebook card and the figures are written here, once.
:class:`DrawsPosterior` adds what every posterior known by its draws shares.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from bayescomp.core.checks import check_level
from bayescomp.core.jsonable import jsonable
from bayescomp.core.orientation import difference_label
from bayescomp.core.regions import RegionProbabilities, shortest_interval
from bayescomp.core.rule import Decision, decide
from bayescomp.posterior.differences import as_output

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@dataclass(frozen=True, eq=False, kw_only=True)
class Compared:
    """What every posterior of a difference is about (keyword-only fields): the ROPE's
    half-width (an array for a batch or several metrics) and the two models' names."""

    rope: Any
    baseline_name: str = "baseline"
    candidate_name: str = "candidate"
    #: the slice guardrail's posterior (``slices=``, ``docs/slices.md``), None without one
    slices: Any = field(default=None, repr=False, compare=False)


class PosteriorBase(Compared):
    """Shared members of every posterior (``core.protocols.Posterior``)."""

    #: ``method`` in :meth:`to_dict`
    method_name: ClassVar[str] = ""
    metric: str | None
    higher_is_better: bool

    #: each model's score (the raw metric), None where the posterior does not know it
    baseline_score: Any
    candidate_score: Any

    # ------------------------------------------------------------ probabilities
    @property
    def p_left(self) -> Any:
        """``P(mu < -rope)``: the candidate is practically worse."""
        return as_output(self._tails[0])

    @property
    def p_right(self) -> Any:
        """``P(mu > rope)``: the candidate is practically better."""
        return as_output(self._tails[1])

    @property
    def p_rope(self) -> Any:
        """``P(-rope <= mu <= rope)``: practically equivalent."""
        left, right = self._tails
        return as_output(np.clip(1.0 - np.asarray(left) - np.asarray(right), 0.0, 1.0))

    def probabilities(self) -> dict[str, RegionProbabilities]:
        """The region probabilities of each kind the posterior reports (the first decides)."""
        return {"mu": RegionProbabilities.of((self.p_left, self.p_rope, self.p_right), "mu")}

    @property
    def half_width(self) -> float:
        """The ROPE's half-width this posterior decided on (its margin, resolved)."""
        return float(self.rope)

    def guards(self) -> dict[str, Any]:
        """What the decision must hold besides this posterior's own rule, by kind (the slice
        guardrail: ``{"slices": SliceResult}``), each with a ``gate(decision)``."""
        return {} if self.slices is None else {"slices": self.slices}

    @property
    def overall(self) -> Any:
        """The same posterior without its slice guardrail."""
        return replace(self, slices=None)

    def plot_slices(self, *, ax: Axes | None = None) -> Axes:
        """The forest plot of the slices (:meth:`SliceResult.plot`)."""
        if self.slices is None:
            raise ValueError("this comparison has no slice guardrail (slices=)")
        return self.slices.plot(ax=ax)

    def _slice_record(self, d: Decision) -> dict[str, Any]:
        """What a ``to_dict`` says of the slice guardrail under decision ``d`` (none without
        one)."""
        if self.slices is None:
            return {}
        return {
            "slice_blocked": d.slice_blocked or None,
            "p_no_slice_worse": d.p_no_slice_worse,
            "slice_gamma": self.slices.slice_gamma,
            "slice_guardrail": self.slices.to_dict(),
        }

    def diagnostics_summary(self) -> dict[str, Any]:
        """Nothing sampled, nothing to diagnose (overridden by sampled posteriors)."""
        return {}

    # ----------------------------------------------------------------- decision
    def _trust(self, kind: str) -> tuple[bool, str]:
        """Whether the posterior can be decided on, and why not."""
        return True, ""

    def _advice(self, gamma: float) -> str:
        """What to collect when undecided at ``gamma``."""
        return "collect more repetitions"

    def decision(self, gamma: float = 0.95, on: str | None = None) -> Decision:
        """Promote / worse / equivalent / inconclusive by the one rule, with the reason.

        ``on`` names the kind of probability read (a key of :meth:`probabilities`; the
        first by default)."""
        probs = self.probabilities()
        on = next(iter(probs)) if on is None else on
        if on not in probs:
            raise ValueError(f"on must be one of {sorted(probs)}; got {on!r}")
        trusted, why = self._trust(on)
        d = decide(
            *probs[on].as_tuple(),
            gamma=gamma,
            expected_gain=float(self.expected_gain),
            risk=float(self.p_worse),
            rope=self.half_width,
            baseline=self.baseline_name,
            candidate=self.candidate_name,
            trusted=trusted,
            untrusted_reason=why,
            advice=self._advice(gamma),
        )
        for guard in self.guards().values():  # each guard's gate (core.rule.gate)
            d = guard.gate(d)
        return d

    # ------------------------------------------------------------------ summary
    def _columns(self, level: float) -> dict[str, Any]:
        """The summary columns of this kind of posterior, between the names and the
        probabilities (its mean, interval and the numbers that define it)."""
        lo, hi = self.hdi(level)
        pct = f"{100 * level:g}"
        return {"mean": self.expected_gain, f"hdi_{pct}_low": lo, f"hdi_{pct}_high": hi}

    def summary(self, confidence_level: float | None = None, gamma: float = 0.95) -> pd.DataFrame:
        """One row per kind of probability: the posterior's own numbers, the interval
        (``confidence_level``, default 0.95), the probabilities and the decision at
        ``gamma``."""
        import pandas as pd

        level = 0.95 if confidence_level is None else confidence_level
        nan = float("nan")
        head = {
            "baseline": self.baseline_name,
            "candidate": self.candidate_name,
            "metric": self.metric,
            "baseline_score": nan if self.baseline_score is None else self.baseline_score,
            "candidate_score": nan if self.candidate_score is None else self.candidate_score,
            "difference": difference_label(self, sep=" - "),
        }
        mid = self._columns(level)
        rows = []
        kinds = self.probabilities()
        for kind, p in kinds.items():
            quantity = {"quantity": kind} if len(kinds) > 1 else {}
            rows.append(
                head
                | quantity
                | mid
                | {
                    "rope": self.half_width,
                    "p_left": p.p_left,
                    "p_rope": p.p_rope,
                    "p_right": p.p_right,
                    "p_better": float(self.p_better),
                    "decision": self.decision(gamma, on=kind).outcome,
                }
            )
        return pd.DataFrame(rows)

    def _kind_rows(self, gamma: float, lead: dict[str, Any], extra: dict[str, Any]) -> pd.DataFrame:
        """A summary of its own: per kind of probability the names, ``lead``, the kind, its
        region probabilities, ``extra`` and the decision at ``gamma``."""
        import pandas as pd

        names = {"baseline": self.baseline_name, "candidate": self.candidate_name}
        return pd.DataFrame(
            [
                names
                | {"metric": self.metric, **lead, "quantity": kind}
                | {"p_left": p.p_left, "p_rope": p.p_rope, "p_right": p.p_right, **extra}
                | {"decision": self.decision(gamma, on=kind).outcome}
                for kind, p in self.probabilities().items()
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        """The summary's first row, ``method`` and, with several kinds of probability,
        every kind; JSON-ready."""
        out = {**self.summary().iloc[0].to_dict(), "method": self.method_name}
        out |= self._slice_record(self.decision(0.95))
        out.pop("quantity", None)
        if len(self.probabilities()) > 1:
            out["probabilities"] = self._every_kind()
        diagnostics = self.diagnostics_summary()
        if diagnostics:
            out["diagnostics"] = diagnostics
        return jsonable(out)

    def _every_kind(self) -> dict[str, dict[str, float]]:
        return {
            k: dict(zip(("p_left", "p_rope", "p_right"), p, strict=True))
            for k, p in self.probabilities().items()
        }

    def _headline(self, method: str, **middle: Any) -> dict[str, Any]:
        """A ``to_dict`` of its own starts here: the names, ``method``, ``middle``, and the
        headline probabilities."""
        return {
            "baseline": self.baseline_name,
            "candidate": self.candidate_name,
            "metric": self.metric,
            "method": method,
            **middle,
            "p_left": self.p_left,
            "p_rope": self.p_rope,
            "p_right": self.p_right,
            "p_better": self.p_better,
        }

    def _repr_extra(self) -> str:
        return ""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({difference_label(self, sep=' - ')}: "
            f"mean={float(self.expected_gain):+.4g}{self._repr_extra()}, "
            f"rope={self.half_width:g}; p_left={float(self.p_left):.3f}, "
            f"p_rope={float(self.p_rope):.3f}, p_right={float(self.p_right):.3f})"
        )

    # --------------------------------------------------------------------- plot
    def _repr_html_(self) -> str:
        """Rich display in Jupyter: key numbers, decision and reason, a small plot, then the
        slices' forest plot when it has them."""
        from bayescomp.report.notebook import posterior_html, slices_html

        return posterior_html(self) + ("" if self.slices is None else slices_html(self))

    def figures(self) -> dict[str, Figure]:
        """The posterior plot, on a new figure."""
        return {"posterior": self.plot().figure}


class DrawsPosterior(PosteriorBase):
    """A posterior known by its draws of ``mu`` (``_draws``)."""

    _draws: np.ndarray

    @cached_property
    def _tails(self) -> tuple[float, float]:
        d, r = self._draws, float(self.rope)
        return float(np.mean(d < -r)), float(np.mean(d > r))

    @property
    def p_better(self) -> float:
        """``P(mu > 0)``: the candidate is better at all."""
        return float(np.mean(self._draws > 0))

    @property
    def p_worse(self) -> float:
        """``P(mu < 0)``: the risk that the candidate is worse."""
        return float(np.mean(self._draws < 0))

    @property
    def expected_gain(self) -> float:
        """Posterior mean of ``mu``."""
        return float(np.mean(self._draws))

    @property
    def sd(self) -> float:
        """Posterior standard deviation of ``mu``."""
        return float(np.std(self._draws, ddof=1))

    def hdi(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """Highest-density interval of ``mu`` (the shortest interval holding the share
        ``confidence_level`` of the draws)."""
        return shortest_interval(self._draws, check_level(confidence_level, "confidence_level"))

    def density(self, x: np.ndarray) -> np.ndarray:
        """The posterior density of ``mu`` at the points ``x``: a Gaussian kernel density
        estimate of the draws (Scott's bandwidth)."""
        from scipy import stats

        if np.ptp(self._draws) == 0:
            raise ValueError("the draws are all equal (a point mass): they have no density")
        return stats.gaussian_kde(self._draws)(x)
