"""How much data decides a difference: items of a test set (``plan_test_set``) and repetitions
of a cross-validation (``plan_repetitions``).

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

``plan_repetitions`` plans more repetitions of a pilot's k-fold design; its model is in
:mod:`bayescomp.posterior.repetitions`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

from bayescomp.core.checks import (
    as_float_array,
    check_gamma,
    check_number,
    check_rho,
)
from bayescomp.core.margins import Absolute, as_margin
from bayescomp.posterior.compare import as_scores, compare_scores, scores_request
from bayescomp.posterior.repetitions import RepetitionPlan, decisive_rates, plan_differences
from bayescomp.posterior.ttest import CorrelatedTTestResult
from bayescomp.scores.table import Scores

__all__ = [
    "RepetitionPlan",
    "SampleSizePlan",
    "decisive_rates",
    "plan_repetitions",
    "plan_test_set",
]


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
            f"beyond a ROPE of {Absolute(self.rope).label()} at gamma={self.gamma:g} with probability "
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
    return check_number(sd, "sd", min_val=0, include_boundaries="neither"), None, None


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
    rope = as_margin(rope, takes=(Absolute,), where="plan_test_set")
    power = check_number(power, "power", min_val=0, max_val=1, include_boundaries="neither")
    difference = check_number(difference, "difference")
    if not abs(difference) > rope:
        raise ValueError(
            f"the size of difference must exceed the rope to be decided beyond it; got "
            f"difference={difference!r}, rope={rope!r}"
        )
    per_item, pilot_deff, pilot_size = _per_item_sd(float(difference), sd, discordant, pilot)
    size = items_per_cluster if items_per_cluster is not None else pilot_size
    if size is not None:
        size = check_number(size, "items_per_cluster", min_val=1)
    icc = check_number(icc, "icc", min_val=0, max_val=1)
    if design_effect is None:
        design_effect = (
            pilot_deff
            if pilot_deff is not None and items_per_cluster is None
            else 1.0 + ((size or 1.0) - 1.0) * icc
        )
    design_effect = check_number(
        design_effect, "design_effect", min_val=0, include_boundaries="neither"
    )
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


def _pilot_differences(
    pilot: Any,
    folds: Any,
    rho: Any,
    rope: Any,
    pair: tuple[Any, Any],
    metric: str | None,
    dataset: str | None,
    higher_is_better: bool | None,
) -> tuple[np.ndarray, float, int, float]:
    """The pilot's oriented differences, rho, splits per repetition and rope (a table
    pilot: ``pair``'s correlated t-test on ``metric``, ``dataset``)."""
    known = checked = None  # the folds of a table pilot's design, its checked margin
    door = {"takes": (Absolute,), "where": "plan_repetitions"}
    if isinstance(pilot, Scores) or hasattr(pilot, "columns"):  # a table (or a DataFrame)
        scores, request = scores_request(
            as_scores(pilot),
            metric=metric,
            rope=rope or 0.0,
            higher_is_better=higher_is_better,
            method="ttest",
            **door,
        )
        checked = request.margin
        pilot = compare_scores(scores, *pair, request, dataset=dataset)
        f = scores.to_frame()
        known = int(f.loc[f["model"] == pair[1], "fold"].nunique()) if "fold" in f else None
    if isinstance(pilot, CorrelatedTTestResult):
        if pilot.is_batch:
            raise ValueError("plan_repetitions plans one comparison; index the batch first")
        if rho is not None:
            raise ValueError(
                f"rho= is for pilot differences; this pilot's rho is its own test fraction "
                f"({float(pilot.rho):.3g}): drop rho="
            )
        d, rho = pilot.differences, float(pilot.rho)
        known = known or (round(1 / rho) if rho > 0 else None)
        if folds is not None and known is not None and folds != known:
            raise ValueError(
                f"folds={folds!r} contradicts the pilot's {known}-fold design (rho = {rho:.3g}): "
                "more repetitions repeat the pilot's design; drop folds="
            )
        folds = known if folds is None else folds
        rope = float(pilot.rope) if rope is None else rope
    else:
        d = as_float_array(pilot, "pilot")
        if d.ndim != 1 or d.size < 3 or not np.all(np.isfinite(d)):
            raise ValueError(
                "pilot differences must be at least 3 finite per-split differences "
                f"(candidate − baseline) in one dimension; got shape {d.shape}"
            )
        if rho is None and folds is None:
            raise ValueError("give rho= (the test fraction) or folds= with pilot differences")
    folds = folds if folds is None else check_number(folds, "folds", integer=True, min_val=2)
    rho = float(check_rho(1 / folds if rho is None else rho))
    if folds is None and 0 < rho < 0.0001:  # 1 / rho would not be a k-fold design
        raise ValueError(f"rho = {rho!r} implies no k-fold design; give folds=")
    folds = round(1 / rho) if folds is None and rho > 0 else folds
    if not rho > 0:
        raise ValueError("rho must be > 0: with rho = 0 the splits are not a k-fold design")
    if checked is None:  # a table pilot's margin was checked at its door
        checked = as_margin(0.0 if rope is None else rope, **door)
    return d, rho, int(folds), checked


def plan_repetitions(
    pilot: Any,
    baseline: Any = None,
    candidate: str | None = None,
    *,
    metric: str | None = None,
    dataset: str | None = None,
    rope: float | None = None,
    gamma: float = 0.95,
    assurance: float = 0.8,
    higher_is_better: bool | None = None,
    folds: int | None = None,
    rho: float | None = None,
    max_repetitions: int = 100,
) -> RepetitionPlan:
    """Repetitions of a pilot's k-fold design that give a decision with probability
    ``assurance``.

    More repetitions on the same rows narrow the correlated t-test's posterior only down
    to a floor ``s·sqrt(ρ/(1 − ρ))``; the plan says how many reach a decisive answer
    (promote, worse or equivalent at ``gamma``) with probability ``assurance``, or that
    none up to ``max_repetitions`` does (then the rows limit the answer).  The model (a
    repetition's splits share its mean, whose spread over repetitions the pilot's
    repetitions estimate) and its checks are in :mod:`bayescomp.posterior.repetitions`.
    The pilot is whole repetitions of its design, one after another (a one-repetition
    pilot plans with the model's prior on how much repetition means vary).

    Parameters
    ----------
    pilot : Scores, DataFrame, CorrelatedTTestResult or array_like
        A pilot cross-validation: a scores table (with ``baseline``, ``candidate`` and
        ``metric``, ``dataset``, ``higher_is_better`` as for :func:`~bayescomp.compare`),
        its correlated t-test, or the per-split differences (candidate − baseline,
        positive = better, repetition after repetition) with ``rho=`` or ``folds=``.
    rope : float, optional
        Default: the pilot result's, else 0.
    gamma : float, default 0.95
    assurance : float, default 0.8
        The wanted probability of a decisive answer.
    folds : int, optional
        Splits per repetition; default the table's number of folds, else ``round(1/rho)``.
    rho : float, optional
        Test fraction of the design, for raw differences (default ``1/folds``).
    max_repetitions : int, default 100

    Returns
    -------
    RepetitionPlan

    Examples
    --------
    >>> import numpy as np
    >>> d = np.random.default_rng(2).normal(0.035, 0.03, 10)  # one repetition of 10 folds
    >>> plan = plan_repetitions(d, folds=10, rope=0.01, assurance=0.6)
    >>> plan.more, round(plan.decisive_rate, 2)
    (2, 0.64)
    >>> plan_repetitions(d, folds=10, rope=0.01).repetitions is None  # none reaches 0.8
    True
    """
    gamma = check_gamma(gamma)
    assurance = check_number(
        assurance, "assurance", min_val=0, max_val=1, include_boundaries="neither"
    )
    max_repetitions = check_number(
        max_repetitions, "max_repetitions", integer=True, min_val=1, max_val=100_000
    )
    d, rho, folds, rope = _pilot_differences(
        pilot, folds, rho, rope, (baseline, candidate), metric, dataset, higher_is_better
    )
    return plan_differences(d, rho, folds, rope, gamma, assurance, max_repetitions)
