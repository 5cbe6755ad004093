"""How many more repetitions of a pilot's k-fold design on the same rows,
under the correlated t-test's own model: given the data set, the ``n0`` pilot differences
and the new ones are independent ``N(m, σ²)`` around the data set's level ``m``; the
posterior after ``N`` splits is ``t(N − 1, mean, s·sqrt(1/N + ρ/(1 − ρ)))``, whose width
has a floor ``s·sqrt(ρ/(1 − ρ))`` that no repetition removes.  From the pilot (flat priors
on ``m`` and ``log σ``) the final mean is ``N(pilot mean, σ²(1/n0 − 1/N))`` given ``σ``,
and ``s²`` is about ``((n0 − 1)s0² + (N − n0)σ²)/(N − 1)``; the probability that the final
posterior promotes, says worse or says equivalent at ``gamma`` is then a normal tail,
averaged over the posterior of ``σ²`` (``(n0 − 1)s0²/χ²``) by quadrature.  The tests
check the predicted rate against simulated pilots continued and decided by
:func:`~bayescomp.posterior.ttest.correlated_ttest`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import special


@dataclass(frozen=True)
class RepetitionPlan:
    """The repetitions of a k-fold design that decide with probability ``assurance``.

    Attributes
    ----------
    repetitions : int or None
        Total repetitions (the pilot's included) of the ``folds``-fold design; None when
        even ``max_repetitions`` do not reach ``assurance`` (then more rows are needed).
    more : int or None
        Repetitions to add to the pilot's.
    folds : int
        Splits per repetition (the pilot's).
    pilot_splits : int
    decisive_rate : float
        Predicted probability of a decision (promote, worse or equivalent) at
        ``repetitions`` (at ``max_repetitions`` when unreachable).
    promote_rate, worse_rate, equivalent_rate : float
        Its three parts.
    assurance, gamma, rope, rho : float
    max_repetitions : int
    """

    repetitions: int | None
    more: int | None
    folds: int
    pilot_splits: int
    decisive_rate: float
    promote_rate: float
    worse_rate: float
    equivalent_rate: float
    assurance: float
    gamma: float
    rope: float
    rho: float
    max_repetitions: int
    differences: np.ndarray = field(repr=False, compare=False, default=None)

    def rates_at(self, repetitions: int) -> dict[str, float]:
        """Predicted promote / worse / equivalent / decisive rates at ``repetitions``."""
        total = int(repetitions) * self.folds
        if total < self.differences.size:
            raise ValueError(
                f"repetitions={repetitions!r} is fewer splits ({total}) than the pilot's "
                f"{self.differences.size}"
            )
        up, down, eq = (
            float(r[0])
            for r in decisive_rates(self.differences, self.rho, self.rope, self.gamma, [total])
        )
        return {"promote": up, "worse": down, "equivalent": eq, "decisive": up + down + eq}

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "differences"}

    def advice(self) -> str:
        """The sentence an inconclusive decision ends with."""
        if self.repetitions is None:
            return (
                f"more repetitions would decide with probability at most "
                f"{self.decisive_rate:.2f} (bc.plan_repetitions): collect more rows"
            )
        return (
            f"about {self.more} more repetition{'s' * (self.more != 1)} "
            f"({self.more * self.folds} more splits) would "
            f"decide with probability {self.decisive_rate:.2f} (bc.plan_repetitions)"
        )

    def __str__(self) -> str:
        if self.repetitions is None:
            return (
                f"no number of repetitions up to {self.max_repetitions} of the {self.folds}-fold "
                f"design decides with probability {self.assurance:g} (at most "
                f"{self.decisive_rate:.3f}): the rows, not the repetitions, limit the answer"
            )
        return (
            f"{self.repetitions} repetitions of the {self.folds}-fold design ({self.more} more "
            f"than the pilot) decide at gamma={self.gamma:g} with probability "
            f"{self.decisive_rate:.3f} (promote {self.promote_rate:.3f}, worse "
            f"{self.worse_rate:.3f}, equivalent {self.equivalent_rate:.3f})"
        )


#: seeded draws of the model behind each predicted rate (Monte Carlo error <= 0.008)
_DRAWS = 4000


def decisive_rates(
    d: np.ndarray, rho: float, rope: float, gamma: float, totals: Any, draws: int = _DRAWS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predicted probabilities that the correlated t-test on the pilot ``d`` (splits last;
    other axes a batch of pilots) continued to each of ``totals`` splits promotes, says
    worse, says equivalent: arrays of shape ``(*batch, len(totals))``, averaged over
    ``draws`` seeded draws of the model's sufficient statistics (σ², the data set's level,
    the new splits' mean and sum of squares), the same draws for every total."""
    d = np.asarray(d, dtype=float)
    n0, total = d.shape[-1], np.asarray(totals, dtype=float)
    mean, ss = d.mean(axis=-1)[..., None, None], (n0 - 1) * d.var(axis=-1, ddof=1)
    m = total - n0  # new splits
    rng = np.random.default_rng(0)
    z = rng.standard_normal((2, draws, 1))
    var = ss[..., None, None] / rng.chisquare(n0 - 1, (draws, 1))  # σ² | pilot
    level = mean + np.sqrt(var / n0) * z[0]  # the data set's level | pilot, σ²
    chi = 2 * rng.standard_gamma(np.maximum(m - 1, 1) / 2, (draws, m.size)) * (m > 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        new = np.where(m > 0, level + np.sqrt(var / np.maximum(m, 1)) * z[1], mean)
        final = (n0 * mean + m * new) / total
        s2 = (ss[..., None, None] + var * chi + n0 * m / total * (new - mean) ** 2) / (total - 1)
        scale = np.sqrt(s2 * (1 / total + rho / (1 - rho)))
        left = special.stdtr(total - 1, (-rope - final) / scale)
        right = special.stdtr(total - 1, (final - rope) / scale)
    up, down = right >= gamma, left >= gamma
    eq = ~up & ~down & (1 - left - right >= gamma)
    return tuple(x.mean(axis=-2) for x in (up, down, eq))


def plan_differences(
    d: np.ndarray,
    rho: float,
    folds: int,
    rope: float,
    gamma: float,
    assurance: float = 0.8,
    max_repetitions: int = 100,
) -> RepetitionPlan:
    """The plan for the pilot differences ``d`` (checked by the caller): the fewest
    repetitions whose decisive rate reaches ``assurance``."""
    if not np.ptp(d) > 0:
        raise ValueError("the pilot differences are all equal: no variance to plan with")
    first = -(-d.size // folds)  # the fewest repetitions holding the pilot
    last = max(first, max_repetitions)
    grid = np.unique(np.geomspace(first, last, 40).round().astype(int))

    def rates(reps: np.ndarray) -> np.ndarray:
        return np.array(decisive_rates(d, rho, rope, gamma, reps * folds))

    found = rates(grid)
    ok = np.flatnonzero(found.sum(axis=0) >= assurance)
    if ok.size and ok[0] > 0:  # the first repetition count between two grid points
        between = np.arange(grid[ok[0] - 1] + 1, grid[ok[0]] + 1)
        grid, found = between, rates(between)
        ok = np.flatnonzero(found.sum(axis=0) >= assurance)
    i = int(ok[0]) if ok.size else int(np.argmax(found.sum(axis=0)))
    reps = int(grid[i]) if ok.size else None
    up, down, eq = found[:, i]
    more = None if reps is None else reps - d.size // folds
    rates_ = (float(up + down + eq), float(up), float(down), float(eq))
    settings = (assurance, gamma, rope, rho, max_repetitions)
    return RepetitionPlan(reps, more, folds, int(d.size), *rates_, *settings, differences=d)
