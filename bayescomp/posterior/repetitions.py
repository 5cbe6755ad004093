"""How many more repetitions of a pilot's k-fold design on the same rows decide the
correlated t-test, and with what probability.

The model, given the data set: repetition ``r``'s mean ``M_r ~ N(μ, v)``, independent over
repetitions; its ``k`` splits about ``M_r`` are exchangeable with
``Σ_j (d_rj − M_r)² ~ σ² χ²(k − 1)``; and ``v = φ σ²/k`` with ``φ ∈ (0, 1]``.  ``φ = 1`` is
every split independent ``N(μ, σ²)``; ``φ < 1`` a negative correlation of one repetition's
splits: a repetition tests every row once, so the rows' persistent differences cancel in
its mean and only the partition noise moves it (on real learners ``φ`` is 0.06–1.1,
``docs/honesty.md``).  Priors flat on ``μ`` and ``log σ``, uniform on ``φ``.  From the
pilot's ``R₀`` repetitions, ``SSB = Σ_r (M_r − M̄)²`` (``R₀ − 1`` df) and
``SSW = Σ_rj (d_rj − M_r)²`` (``R₀ (k − 1)`` df):
``p(φ | pilot) ∝ φ^(−(R₀−1)/2) (SSW + k·SSB/φ)^(−(R₀k−1)/2)`` (sampled on a grid; one
repetition says nothing about ``φ``: its posterior is the prior),
``σ² | φ ~ (SSW + k·SSB/φ) / χ²(R₀k − 1)``, ``μ | φ, σ² ~ N(M̄, v/R₀)``.  The ``m = R − R₀``
new repetitions: their mean ``~ N(μ, v/m)``, their means' sum of squares ``v·χ²(m − 1)``,
their within sum of squares ``σ²·χ²(m (k − 1))``; the final mean and ``s²`` of all ``N``
splits follow exactly, and the package's rule decides on
``t(N − 1, mean, s·sqrt(1/N + ρ/(1 − ρ)))``, whose width has a floor ``s·sqrt(ρ/(1 − ρ))``
that no repetition removes.  The tests check the predicted rates against pilots drawn from
the model, continued and decided by :func:`~bayescomp.posterior.ttest.correlated_ttest`;
``bench/real_learner_calibration.py report --planner`` against real learners.
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
        up, down, eq = (
            float(r[0])
            for r in decisive_rates(
                self.differences, self.folds, self.rho, self.rope, self.gamma, [repetitions]
            )
        )
        return {"promote": up, "worse": down, "equivalent": eq, "decisive": up + down + eq}

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "differences"}

    def advice(self) -> str:
        """What to do when the pilot is inconclusive: how many more repetitions decide with
        what probability, or, when none does, more rows or a wider ROPE."""
        if self.repetitions is None:
            return (
                f"up to {self.max_repetitions} repetitions of these rows decide with "
                f"probability at most {self.decisive_rate:.2f} (bc.plan_repetitions): collect "
                f"more rows (or widen the ROPE beyond {self.rope:g} if a larger difference is "
                f"still negligible to you)"
            )
        return (
            f"run {self.more} more repetition{'s' * (self.more != 1)} of the "
            f"{self.folds}-fold design ({self.more * self.folds} more splits, "
            f"{self.repetitions} repetitions in all): they decide with probability "
            f"{self.decisive_rate:.2f} (bc.plan_repetitions)"
        )

    def __str__(self) -> str:
        return (
            f"{self.advice()}; wanted {self.assurance:g} at gamma={self.gamma:g} (promote "
            f"{self.promote_rate:.3f}, worse {self.worse_rate:.3f}, equivalent "
            f"{self.equivalent_rate:.3f})"
        )


#: seeded draws of the model behind each predicted rate (Monte Carlo error <= 0.008)
_DRAWS = 4000


def decisive_rates(
    d: np.ndarray,
    folds: int,
    rho: float,
    rope: float,
    gamma: float,
    repetitions: Any,
    draws: int = _DRAWS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Predicted probabilities that the correlated t-test on the pilot ``d`` (per-split
    differences, ``folds`` to a repetition, repetition after repetition; other axes a batch
    of pilots) continued on the same rows to each of ``repetitions`` promotes, says worse,
    says equivalent: arrays of shape ``(*batch, len(repetitions))``, averaged over
    ``draws`` seeded draws of the model (the same draws for every pilot and count)."""
    d = np.asarray(d, dtype=float)
    k, n0 = int(folds), d.shape[-1]
    if n0 % k:
        raise ValueError(
            f"the pilot's {n0} splits are not whole repetitions of the {k}-fold design: "
            f"give all {k} splits of every repetition, one repetition after another"
        )
    r0, reps = n0 // k, np.asarray(repetitions, dtype=float)
    if np.any(reps < r0) or np.any(reps % 1):
        raise ValueError(
            f"repetitions must be whole numbers, at least the pilot's {r0}; got {repetitions!r}"
        )
    x = d.reshape(-1, 1, r0, k)  # (pilots, draws, repetitions, folds)
    means = x.mean(axis=-1)
    mbar = means.mean(axis=-1, keepdims=True)
    ssb = ((means - mbar) ** 2).sum(axis=-1, keepdims=True)
    ssw = ((x - means[..., None]) ** 2).sum(axis=(-1, -2))[..., None]
    rng = np.random.default_rng(0)
    cells, new, n = (np.arange(200) + 0.5) / 200, reps - r0, reps * k  # cells: φ's grid
    with np.errstate(divide="ignore", invalid="ignore"):  # a pilot without spread: no answer
        logp = -(r0 - 1) / 2 * np.log(cells) - (n0 - 1) / 2 * np.log(
            ssw[:, 0] + k * ssb[:, 0] / cells
        )
        p = np.nan_to_num(np.exp(logp - logp.max(axis=-1, keepdims=True)), nan=1.0)
        # φ | pilot by inverse cdf, every pilot at once: pilot i's cdf shifted into (i, i + 1]
        shift = np.arange(p.shape[0])[:, None]
        cdf = np.cumsum(p, axis=-1) / p.sum(axis=-1, keepdims=True) + shift
        at = np.searchsorted(cdf.ravel(), (rng.random(draws) + shift).ravel()) % cells.size
        phi = (cells[at.reshape(-1, draws)] + (rng.random(draws) - 0.5) / cells.size)[..., None]
        var = (ssw + k * ssb / phi) / rng.chisquare(n0 - 1, (draws, 1))  # σ² | φ, pilot
        v = phi * var / k  # the variance of a repetition's mean
        # the new repetitions' mean (μ | φ, σ², pilot, and their own noise about it), the
        # sum of squares of their means and within them
        later = (
            mbar
            + np.sqrt(v / r0) * rng.standard_normal((draws, 1))
            + np.sqrt(v / np.maximum(new, 1)) * rng.standard_normal((draws, 1))
        )
        chi_b = 2 * rng.standard_gamma(np.maximum(new - 1, 1) / 2, (draws, new.size)) * (new > 1)
        chi_w = (
            2 * rng.standard_gamma(np.maximum(new * (k - 1), 1) / 2, (draws, new.size)) * (new > 0)
        )
        final = (r0 * mbar + new * later) / reps
        ssb_all = ssb + v * chi_b + r0 * new / reps * (later - mbar) ** 2
        # the final scale: s² of all n splits ((SSW + k·SSB) / (n − 1)) at Nadeau–Bengio's factor
        scale = np.sqrt((ssw + var * chi_w + k * ssb_all) / (n - 1) * (1 / n + rho / (1 - rho)))
        left = special.stdtr(n - 1, (-rope - final) / scale)
        right = special.stdtr(n - 1, (final - rope) / scale)
    up, down = right >= gamma, left >= gamma
    return tuple(  # promote, worse, equivalent
        o.mean(axis=-2).reshape(*d.shape[:-1], reps.size)
        for o in (up, down, ~up & ~down & (1 - left - right >= gamma))
    )


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
    first = -(-d.size // folds)  # the pilot's repetitions (whole: decisive_rates checks)
    grid = np.unique(np.geomspace(first, max(first, max_repetitions), 40).round())
    found = np.array(decisive_rates(d, folds, rho, rope, gamma, grid))
    ok = np.flatnonzero(found.sum(axis=0) >= assurance)
    if ok.size and ok[0] > 0:  # every count between the last grid point short and the first
        grid = np.arange(grid[ok[0] - 1] + 1, grid[ok[0]] + 1)
        found = np.array(decisive_rates(d, folds, rho, rope, gamma, grid))
        ok = np.flatnonzero(found.sum(axis=0) >= assurance)
    i = int(ok[0]) if ok.size else int(np.argmax(found.sum(axis=0)))
    reps = int(grid[i]) if ok.size else None
    return RepetitionPlan(
        reps,
        None if reps is None else reps - first,
        folds,
        int(d.size),
        float(found[:, i].sum()),
        *(float(x) for x in found[:, i]),
        assurance,
        gamma,
        rope,
        rho,
        max_repetitions,
        differences=d,
    )
