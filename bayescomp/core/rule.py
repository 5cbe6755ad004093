"""The promotion decision rule shared by every posterior in bayescomp.

Given posterior probabilities of the three regions defined by the region of
practical equivalence (ROPE) ``[-rope, +rope]`` on the difference
``mu = candidate - baseline`` (oriented so that positive is better):

* **promote**     if ``P(mu > rope) >= gamma``
* **worse**       if ``P(mu < -rope) >= gamma``
* **equivalent**  if ``P(|mu| <= rope) >= gamma``
* **inconclusive** otherwise, or whenever the posterior cannot be trusted
  (for example MCMC chains that have not converged).

The decision always carries the expected gain and the risk ``P(mu < 0)``:
a positive expected gain with a large risk of loss is exactly the case a
person must see before promoting a model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

import numpy as np

from bayescomp.core.checks import check_gamma
from bayescomp.core.margins import Absolute
from bayescomp.core.regions import format_probability

Outcome = Literal["promote", "worse", "equivalent", "inconclusive"]
OUTCOMES: tuple[Outcome, ...] = ("promote", "worse", "equivalent", "inconclusive")


@dataclass(frozen=True)
class Decision:
    """Outcome of the decision rule, with the numbers that led to it.

    Attributes
    ----------
    outcome : {"promote", "worse", "equivalent", "inconclusive"}
    reason : str
        One sentence a reviewer can read: which probability crossed ``gamma``
        or why none did.
    gamma : float
        The probability threshold used.
    p_left, p_rope, p_right : float
        Posterior mass below ``-rope``, inside ``[-rope, rope]``, above ``+rope``.
    expected_gain : float
        Posterior expectation of ``mu`` (candidate minus baseline, on the
        metric's own scale, positive means better).
    risk : float
        ``P(mu < 0)``: probability that the candidate is worse at all.
    p_joint, guardrails, utility
        Under guardrail metrics: P(better beyond the ROPE and no guardrail worse beyond
        its own), each guardrail's risk, and the cost-aware decision reported beside
        (:class:`~bayescomp.posterior.multivariate.MultiMetricResult`).
    p_no_slice_worse, slice_blocked
        Under the slice guardrail: P(no slice worse beyond the slice ROPE) and the slice
        that blocked a promotion ("" when none did; :func:`gate`).
    """

    outcome: Outcome
    reason: str
    gamma: float
    p_left: float
    p_rope: float
    p_right: float
    expected_gain: float
    risk: float
    p_joint: float | None = None
    guardrails: str = ""
    utility: Any = None
    p_no_slice_worse: float | None = None
    slice_blocked: str = ""

    def __str__(self) -> str:
        return f"{self.outcome}: {self.reason}"

    @property
    def not_worse(self) -> bool:
        """Non-inferiority: ``P(not worse beyond the ROPE) = p_rope + p_right >= gamma``
        (``assert_not_worse``, a guard that must hold)."""
        return bool(self.p_rope + self.p_right >= self.gamma)

    def to_dict(self) -> dict[str, object]:
        """The outcome and its numbers, and the columns its guards add."""
        core = {k: v for k, v in asdict(self).items() if k in OUTCOME_FIELDS}
        return core | self.step_fields()

    def step_fields(self) -> dict[str, Any]:
        """Extra columns of a selection step: those of the guards that applied."""
        out: dict[str, Any] = {}
        if self.guardrails:
            out.update(p_joint=self.p_joint, guardrails=self.guardrails)
        if self.utility is not None:
            u = self.utility
            out.update(
                expected_utility=u.expected_utility,
                p_utility_positive=u.p_positive,
                utility_decision=u.outcome,
            )
        if self.p_no_slice_worse is not None:
            out.update(p_no_slice_worse=self.p_no_slice_worse, slice_blocked=self.slice_blocked)
        return out

    def step_note(self) -> str:
        """What a selection step's reason adds to :attr:`reason` (guardrails, costs, slices)."""
        note = f" [guardrails: {self.guardrails}]" if self.guardrails else ""
        note += f" [cost-aware: {self.utility}]" if self.utility is not None else ""
        return note + (f" [slice: {self.slice_blocked}]" if self.slice_blocked else "")


#: the fields of every decision (the guards' come after them)
OUTCOME_FIELDS: tuple[str, ...] = (
    "outcome",
    "reason",
    "gamma",
    "p_left",
    "p_rope",
    "p_right",
    "expected_gain",
    "risk",
)


def gate(base: Decision, held: bool, why: str, broken: str = "", **guard: Any) -> Decision:
    """The one rule of a guarded decision: a promotion stands only when its guard holds,
    else it is *inconclusive*, saying why; a guard decided broken (``broken``: why) makes
    the candidate *worse*, whatever the base said; ``guard`` are the guard's fields.

    >>> d = decide(0.0, 0.02, 0.98, expected_gain=0.03, risk=0.0, rope=0.01)
    >>> gate(d, False, "a slice is worse", p_no_slice_worse=0.3).outcome
    'inconclusive'
    >>> gate(d, False, "", broken="the guardrail is worse").outcome
    'worse'
    """
    if broken and base.outcome != "worse":
        return replace(base, outcome="worse", reason=broken, **guard)
    if base.outcome == "promote" and not held:
        return replace(base, outcome="inconclusive", reason=f"{base.reason}, but {why}", **guard)
    return replace(base, **guard)


def split_gamma(gamma: float, k: int) -> float:
    """The level each of ``k`` claims is decided at so that all of them hold together with
    probability at least ``gamma``, whatever their dependence (Bonferroni): several scorers
    of one comparison, several validation thresholds.

    >>> round(split_gamma(0.95, 3), 6)
    0.983333
    """
    return 1 - (1 - float(gamma)) / max(int(k), 1)


def joint_outcome(outcomes: Iterable[str]) -> str:
    """One outcome for several criteria each decided at :func:`split_gamma`: ``worse`` if
    one is worse, ``equivalent`` if all are, ``promote`` if one promotes and the rest promote
    or are equivalent, else ``inconclusive``.

    >>> joint_outcome(["promote", "equivalent"]), joint_outcome(["promote", "inconclusive"])
    ('promote', 'inconclusive')
    """
    out = set(outcomes)
    if "worse" in out or out == {"equivalent"}:
        return "worse" if "worse" in out else "equivalent"
    return "promote" if out and out <= {"promote", "equivalent"} else "inconclusive"


def decide_many(p_left: Any, p_rope: Any, p_right: Any, gamma: float = 0.95) -> np.ndarray:
    """The rule on arrays of region probabilities: an object array of outcome strings.

    ``promote`` where ``p_right >= gamma``, else ``worse`` where ``p_left >= gamma``,
    else ``equivalent`` where ``p_rope >= gamma``, else ``inconclusive``; the
    probabilities broadcast against each other.  :func:`decide` applies the same rule
    to one comparison and words the reason.

    Examples
    --------
    >>> decide_many([0.01, 0.97, 0.2], [0.02, 0.02, 0.3], [0.97, 0.01, 0.5]).tolist()
    ['promote', 'worse', 'inconclusive']
    """
    gamma = check_gamma(gamma)
    left, rope, right = np.broadcast_arrays(
        *(np.asarray(p, dtype=float) for p in (p_left, p_rope, p_right))
    )
    out = np.select(
        [right >= gamma, left >= gamma, rope >= gamma], list(OUTCOMES[:3]), default=OUTCOMES[3]
    )
    return out.astype(object)


def _check_probabilities(
    p_left: Any, p_rope: Any, p_right: Any, gain: Any, risk: Any, trusted: bool
) -> tuple[float, float, float]:
    """The three region probabilities as floats; a trusted posterior's must be a distribution."""
    try:
        probs = (float(p_left), float(p_rope), float(p_right))
        gain, risk = float(gain), float(risk)
    except (TypeError, ValueError):
        raise TypeError(
            f"p_left, p_rope, p_right, expected_gain and risk must be numbers; got "
            f"{(p_left, p_rope, p_right, gain, risk)!r}"
        ) from None
    if not trusted:
        return probs
    arr = np.array([*probs, risk])
    if not (np.all((arr >= 0) & (arr <= 1)) and abs(sum(probs) - 1) < 1e-6 and np.isfinite(gain)):
        raise ValueError(
            f"decide needs probabilities in [0, 1] with p_left + p_rope + p_right = 1, a finite "
            f"expected_gain and risk in [0, 1]; got p=({p_left}, {p_rope}, {p_right}), "
            f"expected_gain={gain}, risk={risk} — pass trusted=False for a posterior that "
            "cannot be trusted"
        )
    return probs


def decide(
    p_left: float,
    p_rope: float,
    p_right: float,
    *,
    gamma: float = 0.95,
    expected_gain: float,
    risk: float,
    rope: float = 0.0,
    baseline: str = "baseline",
    candidate: str = "candidate",
    trusted: bool = True,
    untrusted_reason: str = "",
    advice: str = "collect more repetitions",
) -> Decision:
    """Apply the promotion rule to three region probabilities.

    Parameters
    ----------
    p_left, p_rope, p_right : float
        Posterior probabilities of ``mu < -rope``, ``|mu| <= rope``, ``mu > rope``.
    gamma : float, default 0.95
        Required posterior probability, in (0.5, 1).
    expected_gain, risk : float
        Posterior mean of ``mu`` and ``P(mu < 0)``; carried in the result.
    rope : float
        Half-width of the ROPE, only used to word the reason.
    baseline, candidate : str
        Names used to word the reason.
    trusted : bool, default True
        ``False`` forces ``inconclusive`` (e.g. non-converged MCMC), with
        ``untrusted_reason`` as the reason.
    advice : str, default "collect more repetitions"
        What to collect when no region reaches ``gamma``, worded for the design: more
        repetitions of a cross-validation, more items or clusters of a test set.

    Examples
    --------
    >>> d = decide(0.01, 0.02, 0.97, gamma=0.95, expected_gain=0.03, risk=0.005, rope=0.01)
    >>> d.outcome
    'promote'
    >>> decide(0.2, 0.3, 0.5, expected_gain=0.01, risk=0.3).outcome
    'inconclusive'
    """
    gamma = check_gamma(gamma)
    probs = _check_probabilities(p_left, p_rope, p_right, expected_gain, risk, trusted)
    common: dict[str, Any] = dict(
        gamma=gamma,
        p_left=probs[0],
        p_rope=probs[1],
        p_right=probs[2],
        expected_gain=float(expected_gain),
        risk=float(risk),
    )
    pr = [format_probability(p, gamma) for p in probs]
    risk_text = format_probability(risk, gamma)
    if not trusted:
        reason = untrusted_reason or "the posterior cannot be trusted"
        return Decision("inconclusive", f"no decision: {reason}", **common)
    region = f"beyond the ROPE of {Absolute(rope).label()}" if rope > 0 else "at all"
    outcome = decide_many(*probs, gamma=gamma)[()]
    if outcome == "promote":
        return Decision(
            "promote",
            f"P({candidate} better {region}) = {pr[2]} ≥ {gamma:g}; "
            f"expected gain {expected_gain:+.4g}, risk P(worse) = {risk_text}",
            **common,
        )
    if outcome == "worse":
        return Decision(
            "worse",
            f"P({candidate} worse {region}) = {pr[0]} ≥ {gamma:g}; "
            f"expected gain {expected_gain:+.4g}",
            **common,
        )
    if outcome == "equivalent":
        return Decision(
            "equivalent",
            f"P(|difference| ≤ {rope:g}) = {pr[1]} ≥ {gamma:g}: "
            f"{candidate} and {baseline} are practically equivalent",
            **common,
        )
    best = max(range(3), key=lambda i: probs[i])
    if rope > 0:
        name = ("worse beyond the ROPE", "equivalent", "better beyond the ROPE")[best]
    else:
        name = ("worse", "equivalent", "better")[best]
    return Decision(
        "inconclusive",
        f"no region reaches {gamma:g} (largest: P({name}) = {pr[best]}); "
        f"expected gain {expected_gain:+.4g} with risk P(worse) = {risk_text} — "
        f"{advice} or accept the uncertainty",
        **common,
    )
