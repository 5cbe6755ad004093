"""Bayesian sign and signed-rank tests on per-dataset mean differences (Benavoli, Corani,
Mangili, Zaffalon & Ruggeri 2014; ``docs/many_models.md``), every draw at once.

Probabilities follow baycomp: ``p_left, p_rope, p_right`` is the share of draws in which
each region is the most probable for a new dataset; :attr:`RankTestResult.next_dataset`
holds the posterior means.  At ``rope=0`` the sign test drops the draws in which the tie
wins and rescales (inconclusive below :data:`MIN_KEPT_DRAWS` kept draws); the signed-rank
test counts a zero sum one half each way.  A value within :data:`TIE_TOLERANCE` of an edge
is on it, and swapping the models mirrors every draw exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_level, check_number, rng_from
from bayescomp.core.jsonable import jsonable
from bayescomp.core.margins import Absolute, as_margin
from bayescomp.core.orientation import difference_label
from bayescomp.core.regions import RegionProbabilities, argmax_shares, shortest_interval
from bayescomp.core.rule import Decision, decide
from bayescomp.posterior.base import PosteriorBase
from bayescomp.posterior.differences import per_dataset_means

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

__all__ = ["MIN_KEPT_DRAWS", "RankTestResult", "sign_test", "signed_rank_test"]

#: at rope 0, the fewest draws with a winner other than the tie a decision is made on
MIN_KEPT_DRAWS = 1000
#: closeness to a region's edge, relative to max(|z|, rope), that counts as on it
TIE_TOLERANCE = 1e-8

_PLACES = ("rope", "left", "right")


def _common(
    differences: Any,
    rope: float,
    prior_strength: float,
    prior_place: str,
    draws: int,
    **labels: Any,
) -> dict[str, Any]:
    """Check the options; the fields of the result that both rank tests fill alike."""
    rope_f = float(as_margin(rope, takes=(Absolute,), where="the rank tests"))
    positive = {"min_val": 0, "include_boundaries": "neither", "advice": "1 is the usual choice"}
    check_number(prior_strength, "prior_strength", **positive)
    if prior_place not in _PLACES:
        raise ValueError(f"prior_place must be one of {_PLACES}; got {prior_place!r}")
    check_number(draws, "draws", integer=True, min_val=1)
    z, names = per_dataset_means(differences)
    return {
        "rope": rope_f,
        "differences": z,
        "prior_strength": float(prior_strength),
        "prior_place": prior_place,
        "dataset_names": names,
        **labels,
    }


@dataclass(frozen=True, eq=False)
class RankTestResult(PosteriorBase):
    """Posterior of the Bayesian sign or signed-rank test.

    Attributes
    ----------
    sample : ndarray, shape (draws, 3)
        Posterior draws of ``theta = (theta_left, theta_rope, theta_right)``.
    test : {"sign", "signed_rank"}
    rope : float
    differences : ndarray
        The per-dataset mean differences used.
    prior_strength : float
    prior_place : {"rope", "left", "right"}
    """

    sample: np.ndarray = field(repr=False)
    test: str
    differences: np.ndarray = field(repr=False)
    prior_strength: float = 1.0
    prior_place: str = "rope"
    metric: str | None = None
    dataset_names: tuple[str, ...] | None = None
    gain_sample: np.ndarray | None = field(default=None, repr=False)
    #: orientation of the metric (labels only: the differences are already oriented)
    higher_is_better: bool = True
    #: the sign test's Dirichlet parameters (left, rope, right); None for the signed-rank test
    alpha: np.ndarray | None = field(default=None, repr=False)
    baseline_score: Any = None
    candidate_score: Any = None

    @property
    def n_datasets(self) -> int:
        return len(self.differences)

    @property
    def _drops_ties(self) -> bool:
        return self.rope == 0.0

    @property
    def kept_draws(self) -> int:
        """Draws behind :attr:`baycomp_convention`: all of them, except at rope 0 those in
        which the tie (``theta_rope``) is the largest, which baycomp drops."""
        if not self._drops_ties:
            return len(self.sample)
        return int(np.sum(np.argmax(self.sample, axis=1) != 1))

    @property
    def baycomp_convention(self) -> RegionProbabilities:
        """Share of draws in which each region has the largest ``theta`` (baycomp's numbers).

        At ``rope=0`` the draws won by the tie are dropped and the two others rescaled, as
        ``baycomp``'s ``probs()`` does (one half each, with the decision ``inconclusive``,
        when no draw is left: nothing favours either side).
        """
        m = argmax_shares(self.sample)
        if self._drops_ties:
            kept = m[0] + m[2]
            m = np.array([m[0], 0.0, m[2]]) / kept if kept > 0 else np.array([0.5, 0.0, 0.5])
        return RegionProbabilities.of(m, "baycomp_convention")

    @property
    def next_dataset(self) -> RegionProbabilities:
        """Posterior mean of ``theta``: predictive probabilities of the regions for a new
        dataset (exact for the sign test: ``alpha / sum(alpha)``; the mean of the draws for
        the signed-rank test).  At rope 0 the sign test's middle cell is the probability
        of an exact tie."""
        if self.alpha is not None:
            return RegionProbabilities.of(self.alpha / self.alpha.sum(), "next_dataset")
        return RegionProbabilities.of(self.sample.mean(axis=0), "next_dataset")

    @property
    def next_dataset_given_no_tie(self) -> RegionProbabilities:
        """Posterior mean of ``theta_left / (theta_left + theta_right)`` and of
        ``theta_right / (...)``: the probabilities for a new dataset *given that it is not a
        tie* (``p_rope = 0``; one half each when every draw is a tie).  At rope 0 the decision
        ``on="next_dataset"`` reads these, so a zero ROPE never decides "equivalent"."""
        lr = self.sample[:, [0, 2]]
        tot = lr.sum(axis=1, keepdims=True)
        ok = tot[:, 0] > 0
        if not ok.any():
            return RegionProbabilities.of([0.5, 0.0, 0.5], "next_dataset_given_no_tie")
        left, right = (lr[ok] / tot[ok]).mean(axis=0)
        return RegionProbabilities.of([left, 0.0, right], "next_dataset_given_no_tie")

    @property
    def _tails(self) -> tuple[float, float]:
        """The shares of draws in which 'worse' and 'better beyond the rope' are the most
        probable region (baycomp's numbers)."""
        p = self.baycomp_convention
        return p.p_left, p.p_right

    @property
    def p_rope(self) -> float:
        """The share of draws in which the rope is the most probable region."""
        return self.baycomp_convention.p_rope

    @property
    def p_better(self) -> float:
        """``P(theta_right > theta_left)`` (a tie one half): the candidate wins more often."""
        t = self.sample
        return float(np.mean((t[:, 2] > t[:, 0]) + 0.5 * (t[:, 0] == t[:, 2])))

    @property
    def p_worse(self) -> float:
        """``P(theta_left > theta_right)`` (ties one half): ``1 - p_better``."""
        t = self.sample
        return float(np.mean((t[:, 0] > t[:, 2]) + 0.5 * (t[:, 0] == t[:, 2])))

    @property
    def expected_gain(self) -> float:
        """Posterior mean of the Dirichlet-process mean difference (pseudo-observation at 0)."""
        if self.gain_sample is None:
            return float(np.mean(self.differences))
        return float(np.mean(self.gain_sample))

    def hdi(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """Highest-density interval of the Dirichlet-process mean difference (the posterior
        behind :attr:`expected_gain`); a point when the draws were not kept."""
        level = check_level(confidence_level, "confidence_level")
        if self.gain_sample is None:
            return self.expected_gain, self.expected_gain
        return shortest_interval(self.gain_sample, level)

    def probabilities(self) -> dict[str, RegionProbabilities]:
        return {"baycomp_convention": self.baycomp_convention, "next_dataset": self.next_dataset}

    def decision(self, gamma: float = 0.95, on: str = "baycomp_convention") -> Decision:
        """Promotion rule on the baycomp-convention probabilities (or ``on="next_dataset"``;
        at rope 0 that reads :attr:`next_dataset_given_no_tie`).

        The rule reads ``p_right >= gamma`` as "in at least ``gamma`` of the posterior
        draws, *better beyond the ROPE* is the most probable region for a new dataset".
        At ``rope=0`` it is ``inconclusive`` when fewer than :data:`MIN_KEPT_DRAWS`
        draws have a winner other than the tie.
        """
        probs = self.probabilities()
        if on not in probs:
            raise ValueError(f"on must be one of {sorted(probs)}; got {on!r}")
        if self._drops_ties and on == "next_dataset":  # "better or worse" only, as baycomp
            probs[on] = self.next_dataset_given_no_tie
        n, kept = len(self.sample), self.kept_draws
        all_ties = self._drops_ties and not np.any(self.differences)
        trusted = kept >= min(MIN_KEPT_DRAWS, n) and not all_ties
        reason = "" if trusted else "; to ask whether the models are equivalent, give a rope > 0"
        if not trusted:  # identical models at rope 0: the data say neither better nor worse
            reason = (
                f"all {self.n_datasets} per-dataset differences are exactly 0 (a tie everywhere)"
                if all_ties
                else f"at rope 0 the tie is the most probable region in {n - kept} of {n} draws "
                f"and only {kept} are left to compare worse with better"
            ) + reason
        return decide(
            *probs[on].as_tuple(),
            gamma=gamma,
            expected_gain=self.expected_gain,
            risk=self.p_worse,
            rope=float(self.rope),
            baseline=self.baseline_name,
            candidate=self.candidate_name,
            trusted=trusted,
            untrusted_reason=reason,
        )

    def summary(
        self, gamma: float = 0.95, *, confidence_level: float | None = None
    ) -> pd.DataFrame:
        """One row per kind of probability, with the HDI (``confidence_level``, default
        0.95) of the mean difference and the decision at ``gamma``."""
        level = 0.95 if confidence_level is None else confidence_level
        lo, hi = self.hdi(level)
        pct = f"{100 * level:g}"
        extra = {
            "p_better": self.p_better,
            "expected_gain": self.expected_gain,
            f"hdi_{pct}_low": lo,
            f"hdi_{pct}_high": hi,
            "rope": float(self.rope),
            "n_datasets": self.n_datasets,
            "prior_strength": self.prior_strength,
            "prior_place": self.prior_place,
        }
        return self._kind_rows(gamma, {"test": self.test}, extra)

    def to_dict(self) -> dict[str, Any]:
        """The headline probabilities and every kind of probability."""
        head = self._headline(self.test, rope=float(self.rope), n_datasets=self.n_datasets)
        return jsonable(head | {"probabilities": self._every_kind()})

    def plot_simplex(self, ax: Axes | None = None) -> Axes:
        """Posterior draws of ``theta`` in the probability triangle."""
        from bayescomp.report.hierarchical_plots import plot_simplex

        name = "sign test" if self.test == "sign" else "signed-rank test"
        return plot_simplex(
            self.sample,
            baseline=self.baseline_name,
            candidate=self.candidate_name,
            probabilities=self.baycomp_convention,
            ax=ax,
            title=f"Bayesian {name}",
        )

    def plot(self, *, ax: Axes | None = None) -> Axes:
        """The posterior of ``theta`` in the probability triangle (:meth:`plot_simplex`)."""
        return self.plot_simplex(ax=ax)

    def figures(self) -> dict[str, Figure]:
        """The simplex plot (the posterior of this test), on a new figure."""
        return {"simplex": self.plot_simplex().figure}

    def __repr__(self) -> str:
        return (
            f"RankTestResult({self.test}: {difference_label(self, sep=' - ')} over "
            f"{self.n_datasets} datasets, rope={self.rope:g}; p_left={self.p_left:.3f}, "
            f"p_rope={self.p_rope:.3f}, p_right={self.p_right:.3f})"
        )


def sign_test(
    differences: Mapping[str, ArrayLike] | ArrayLike,
    *,
    rope: float = 0.0,
    prior_strength: float = 1.0,
    prior_place: str = "rope",
    draws: int = 50_000,
    random_state: Any = None,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
    metric: str | None = None,
) -> RankTestResult:
    """Bayesian sign test on per-dataset mean differences.

    Parameters
    ----------
    differences : mapping of str to array_like, or 1-D array_like
        Either dataset -> paired differences (averaged per dataset) or the
        per-dataset mean differences ``candidate - baseline`` themselves.
    rope : float, default 0
        Half-width of the region of practical equivalence.
    prior_strength : float, default 1
        Weight of the prior pseudo-observation.
    prior_place : {"rope", "left", "right"}, default "rope"
        Region that receives the pseudo-observation.
    draws : int, default 50 000
        Number of posterior draws.
    random_state : int, Generator or None
        Seed for the draws.

    Returns
    -------
    RankTestResult

    Examples
    --------
    >>> import numpy as np
    >>> z = np.array([-5, -3, -2, 0, 4, 70, 70, 70]) / 100
    >>> res = sign_test(z, rope=0.01, random_state=0)
    >>> # counts (left, rope, right) = (3, 1, 4) plus the prior on the rope: Dirichlet(3, 2, 4)
    >>> [round(p, 3) for p in res.next_dataset]
    [0.333, 0.222, 0.444]
    """
    common = _common(
        differences,
        rope,
        prior_strength,
        prior_place,
        draws,
        baseline_name=baseline_name,
        candidate_name=candidate_name,
        metric=metric,
    )
    rope_f, z = common["rope"], common["differences"]
    tol = TIE_TOLERANCE * max(float(np.max(np.abs(z))), rope_f)
    counts = np.array([np.sum(z < -rope_f - tol), 0, np.sum(z > rope_f + tol)], dtype=float)
    counts[1] = len(z) - counts[0] - counts[2]
    alpha = counts.copy()
    alpha[{"left": 0, "rope": 1, "right": 2}[prior_place]] += prior_strength
    rng = rng_from(random_state)
    sample = _mirrored_dirichlet(alpha, int(draws), rng)
    # Dirichlet-process mean of the difference: sum_i w_i z_i with the pseudo-observation at 0
    w = rng.dirichlet(np.concatenate([[prior_strength], np.ones(len(z))]), int(draws))
    gain = w[:, 1:] @ z
    return RankTestResult(sample=sample, test="sign", gain_sample=gain, alpha=alpha, **common)


def _mirrored_dirichlet(alpha: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` draws of ``Dirichlet(alpha)`` (columns left, rope, right) that mirror exactly.

    The gamma variates are drawn by role (the smaller and the larger side parameter), not
    by column, so swapping ``alpha``'s left and right swaps the draws' columns bit for bit.
    With equal side parameters the draws come in mirrored pairs (the distribution is then
    symmetric), so the left and right shares are equal; an odd last draw is split evenly.
    A region with parameter 0 has ``theta = 0`` exactly.
    """

    def gamma(shape: float, size: int) -> np.ndarray:
        return rng.standard_gamma(shape, size) if shape > 0 else np.zeros(size)

    g = np.zeros((n, 3))
    g[:, 1] = gamma(alpha[1], n)
    if alpha[0] == alpha[2]:
        half = (n + 1) // 2
        g1, g2 = gamma(alpha[0], half), gamma(alpha[2], half)
        g[:half, 0], g[:half, 2] = g1, g2
        g[half:, 0], g[half:, 2] = g2[: n - half], g1[: n - half]
        g[half:, 1] = g[: n - half, 1]
        if n % 2:
            g[half - 1, 0] = g[half - 1, 2] = 0.5 * (g1[-1] + g2[-1])
    else:
        small, large = gamma(min(alpha[0], alpha[2]), n), gamma(max(alpha[0], alpha[2]), n)
        g[:, 0], g[:, 2] = (small, large) if alpha[0] < alpha[2] else (large, small)
    total = g[:, 1] + (g[:, 0] + g[:, 2])
    return g / total[:, None]


def _heaviside(x: np.ndarray, tol: float) -> np.ndarray:
    """``H(x)`` with ``H = 1/2`` within ``tol`` of 0 (float residue is a tie)."""
    return (x > tol).astype(float) + 0.5 * (np.abs(x) <= tol)


def signed_rank_test(
    differences: Mapping[str, ArrayLike] | ArrayLike,
    *,
    rope: float = 0.0,
    prior_strength: float = 0.5,
    prior_place: str = "rope",
    draws: int = 50_000,
    random_state: Any = None,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
    metric: str | None = None,
    chunk_size: int = 10_000,
) -> RankTestResult:
    """Bayesian signed-rank test on per-dataset mean differences.

    Parameters are those of :func:`sign_test`; the pseudo-observation sits at
    ``0`` (``prior_place="rope"``, baycomp's default with weight 0.5) or at
    ``-inf`` / ``+inf``.  ``chunk_size`` bounds the memory used per block of
    draws.

    Returns
    -------
    RankTestResult

    Examples
    --------
    >>> import numpy as np
    >>> z = np.array([0.02, 0.03, 0.015, 0.04, -0.005, 0.025, 0.03, 0.01])
    >>> res = signed_rank_test(z, rope=0.01, random_state=0, draws=5000)
    >>> res.p_right > 0.8
    True
    """
    common = _common(
        differences,
        rope,
        prior_strength,
        prior_place,
        draws,
        baseline_name=baseline_name,
        candidate_name=candidate_name,
        metric=metric,
    )
    rope_f, z = common["rope"], common["differences"]
    z0 = {"rope": 0.0, "left": -np.inf, "right": np.inf}[prior_place]
    zz = np.concatenate([[z0], z])
    with np.errstate(invalid="ignore"):
        sums = zz[:, None] + zz[None, :]
    tol = 2 * TIE_TOLERANCE * max(float(np.max(np.abs(z))), rope_f)
    a_right = _heaviside(sums - 2 * rope_f, tol)
    a_left = _heaviside(-sums - 2 * rope_f, tol)
    alpha = np.concatenate([[prior_strength], np.ones(len(z))])
    rng = rng_from(random_state)
    n_samples = int(draws)
    check_number(chunk_size, "chunk_size", integer=True, min_val=1, advice="e.g. 10000")
    sample = np.empty((n_samples, 3))
    gain = np.empty(n_samples)
    z_gain = np.where(np.isfinite(zz), zz, 0.0)
    for start in range(0, n_samples, int(chunk_size)):
        stop = min(start + int(chunk_size), n_samples)
        w = rng.dirichlet(alpha, stop - start)
        sample[start:stop, 2] = np.einsum("si,ij,sj->s", w, a_right, w, optimize=True)
        sample[start:stop, 0] = np.einsum("si,ij,sj->s", w, a_left, w, optimize=True)
        gain[start:stop] = w @ z_gain
    if rope_f == 0.0:  # H(x) + H(-x) = 1: no tie mass; normalise both sides the same way
        both = sample[:, 0] + sample[:, 2]  # (as baycomp's left = 1 - right, but symmetric)
        sample[:, 0] /= both
        sample[:, 2] /= both
        sample[:, 1] = 0.0
    else:  # 1 - (left + right): the same float whichever side is which
        sample[:, 1] = np.clip(1.0 - (sample[:, 0] + sample[:, 2]), 0.0, 1.0)
    return RankTestResult(sample=sample, test="signed_rank", gain_sample=gain, **common)
