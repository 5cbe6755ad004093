"""How many items (or clusters) a test set needs to decide a difference: ``plan_test_set``.

The posterior of the mean paired difference on ``n`` items is close to normal with standard
deviation ``sd · sqrt(deff / n)`` (``sd`` the per-item standard deviation of the
difference, ``deff`` the cluster design effect).  The rule promotes when
``P(mu > rope) >= gamma``, i.e. when the observed difference exceeds
``rope + z_gamma · sd · sqrt(deff / n)``.  If the true difference is ``X`` that happens with
probability ``Φ((X − rope) · sqrt(n / deff) / sd − z_gamma)``; the plan is the smallest ``n``
that makes it at least ``power``, with Student quantiles on ``units − 1`` degrees of freedom
in place of the normal ones (units: items, or clusters), since the posterior learns the sd
from the test set itself; and never fewer than 2 units, the fewest a posterior of a
difference can use.  A negative difference (the candidate worse) is planned on its size.  The tests check the plan against simulated test sets
decided by :func:`~bayescomp.posterior.holdout.holdout_posterior`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass
from typing import Any

from scipy import stats

from bayescomp.core.checks import check_gamma, check_scalar_rope


@dataclass(frozen=True)
class SampleSizePlan:
    """The test-set size that decides ``difference`` beyond ``rope`` with probability ``power``.

    Attributes
    ----------
    n_items : int
        Items needed.
    n_clusters : int or None
        Clusters needed (``n_items / items_per_cluster`` rounded up), when clustered.
    difference, rope, gamma, power : float
    sd : float
        Per-item standard deviation of the paired difference used.
    design_effect : float
        Variance inflation of the clusters (1 without clusters).
    items_per_cluster : float
    """

    n_items: int
    n_clusters: int | None
    difference: float
    rope: float
    gamma: float
    power: float
    sd: float
    design_effect: float
    items_per_cluster: float

    def power_at(self, n_items: float) -> float:
        """Probability of a ``promote`` decision with ``n_items`` items if the difference is
        :attr:`difference`."""
        z = stats.norm.ppf(self.gamma)
        shift = (abs(self.difference) - self.rope) * math.sqrt(n_items / self.design_effect)
        shift /= self.sd
        return float(stats.norm.cdf(shift - z))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        where = (
            f" in {self.n_clusters} clusters of {self.items_per_cluster:g}"
            if self.n_clusters is not None
            else ""
        )
        return (
            f"{self.n_items} items{where} decide a difference of {self.difference:+g} "
            f"beyond a ROPE of ±{self.rope:g} at gamma={self.gamma:g} with probability "
            f"{self.power:g} (per-item sd {self.sd:.4g}, design effect "
            f"{self.design_effect:.3g})"
        )


def _per_item_sd(
    difference: float, sd: float | None, discordant: float | None, pilot: Any
) -> tuple[float, float | None, float | None]:
    """The per-item sd, and from a pilot its design effect and cluster size."""
    given = [x is not None for x in (sd, discordant, pilot)]
    if sum(given) != 1:
        raise ValueError(
            "give exactly one of sd= (per-item sd of the difference), discordant= "
            "(share of items only one model gets right) or pilot= (a result of "
            "holdout_posterior on a pilot test set)"
        )
    if pilot is not None:
        deff = pilot.design_effect if pilot.design_effect is not None else 1.0
        per_item = pilot.sd * math.sqrt(pilot.n_items / deff)
        size = None if pilot.n_clusters is None else pilot.n_items / pilot.n_clusters
        return float(per_item), (deff if pilot.n_clusters is not None else None), size
    if discordant is not None:
        if not 0 < discordant <= 1 or abs(difference) > discordant:
            raise ValueError(
                f"discordant must be in (0, 1] and at least |difference|; got "
                f"discordant={discordant!r}, difference={difference!r}"
            )
        return math.sqrt(discordant - difference**2), None, None
    if not (math.isfinite(sd) and sd > 0):
        raise ValueError(f"sd must be a positive number; got {sd!r}")
    return float(sd), None, None


#: the largest plan made: beyond it a difference is too small to be decided by testing
MAX_UNITS = 1e15


def _units(effect: float, sd: float, deff: float, gamma: float, power: float, size: float) -> int:
    """The fewest units (items, or clusters of ``size``) whose decision reaches ``power``:
    ``effect · sqrt(n / deff) / sd >= t_gamma + t_power`` on ``units − 1`` df, at least 2."""

    def enough(units: int) -> bool:
        z = stats.t.ppf(gamma, units - 1) + stats.t.ppf(power, units - 1)
        return effect * math.sqrt(units * size / deff) / sd >= z

    z = stats.norm.ppf(gamma) + stats.norm.ppf(power)
    ratio = float(z) * float(sd) / float(effect)  # Python floats: inf, never OverflowError
    normal = float(deff) * ratio * ratio / float(size)  # the normal answer
    if not normal <= MAX_UNITS:
        raise ValueError(
            f"the size of difference beyond the rope ({effect:g}) is too small next to the "
            f"per-item sd ({sd:g}) to plan for: it needs more than {MAX_UNITS:.0e} items"
        )
    units = max(2, math.ceil(normal))
    while not enough(units):
        units += 1
    return units


def plan_test_set(
    difference: float,
    *,
    rope: float = 0.0,
    gamma: float = 0.95,
    power: float = 0.8,
    sd: float | None = None,
    discordant: float | None = None,
    pilot: Any = None,
    items_per_cluster: float | None = None,
    icc: float = 0.0,
    design_effect: float | None = None,
) -> SampleSizePlan:
    """Items (or clusters) needed to decide a true ``difference`` beyond ``rope``.

    Parameters
    ----------
    difference : float
        The true difference (oriented: positive means the candidate is better) the test set
        should detect; must exceed ``rope``.
    rope : float, default 0
    gamma : float, default 0.95
        The decision threshold the comparison will use.
    power : float, default 0.8
        Wanted probability of the ``promote`` decision when the difference is ``difference``.
    sd : float, optional
        Per-item standard deviation of the paired difference (losses, scores).
    discordant : float, optional
        Binary scores: the share of items exactly one model gets right; then
        ``sd² = discordant − difference²``.
    pilot : HoldoutResult, optional
        A comparison on a pilot test set: its per-item sd, and with clusters its design
        effect and cluster size.
    items_per_cluster : float, optional
        Items per cluster of the planned test set.
    icc : float, default 0
        Intra-cluster correlation of the per-item differences; the design effect is
        ``1 + (items_per_cluster − 1) · icc`` unless given.
    design_effect : float, optional

    Returns
    -------
    SampleSizePlan

    Examples
    --------
    >>> plan = plan_test_set(0.03, rope=0.01, discordant=0.15)
    >>> plan.n_items
    2307
    >>> plan_test_set(0.03, rope=0.01, discordant=0.15, items_per_cluster=10, icc=0.3).n_clusters
    855
    """
    gamma = check_gamma(gamma)
    rope = check_scalar_rope(rope)
    if not 0 < power < 1:
        raise ValueError(f"power must be in (0, 1); got {power!r}")
    real = isinstance(difference, numbers.Real) and not isinstance(difference, bool)
    if not (real and math.isfinite(difference)):
        raise ValueError(f"difference must be a finite number; got {difference!r}")
    if not abs(difference) > rope:
        raise ValueError(
            f"the size of difference must exceed the rope to be decided beyond it; got "
            f"difference={difference!r}, rope={rope!r}"
        )
    per_item, pilot_deff, pilot_size = _per_item_sd(float(difference), sd, discordant, pilot)
    size = items_per_cluster if items_per_cluster is not None else pilot_size
    if size is not None and not size >= 1:
        raise ValueError(f"items_per_cluster must be >= 1; got {size!r}")
    if not 0 <= icc <= 1:
        raise ValueError(f"icc must be in [0, 1]; got {icc!r}")
    if design_effect is None:
        design_effect = (
            pilot_deff
            if pilot_deff is not None and items_per_cluster is None
            else 1.0 + ((size or 1.0) - 1.0) * icc
        )
    if not design_effect > 0:
        raise ValueError(f"design_effect must be positive; got {design_effect!r}")
    units = _units(abs(difference) - rope, per_item, design_effect, gamma, power, size or 1.0)
    n_clusters = None if size is None else units
    n = units if size is None else math.ceil(units * size)
    return SampleSizePlan(
        n,
        n_clusters,
        float(difference),
        rope,
        gamma,
        float(power),
        per_item,
        float(design_effect),
        float(size or 1.0),
    )
