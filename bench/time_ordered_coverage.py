"""Coverage of the 95 % interval of the mean difference on time-ordered windows.

The per-window differences ``d_t = mu + e_t`` follow a stationary Gaussian AR(1) with
coefficient ``phi`` (``e_t = phi e_{t-1} + eta_t``), as consecutive test windows of a
rolling-origin design do.  For every ``phi`` and number of windows, the simulation draws
``--reps`` seeded series and counts how often each posterior's equal-tailed 95 % interval
holds the true ``mu`` (the interval holds ``mu`` exactly when ``0.025 <= P(mu_post <=
mu) <= 0.975``, which is what is computed).  Three posteriors:

* ``time_ordered`` — bayescomp's posterior for these designs (the AR(1) model with ``phi``
  integrated out, ``bayescomp.posterior.time_ordered``): must lie in 93–97 %;
* ``ttest_rho`` — the correlated t-test with the Nadeau–Bengio ``rho`` of a
  ``TimeSeriesSplit(n_windows)`` design on 11 windows' worth of rows (what bayescomp used
  before it knew about time order);
* ``dm_hln`` — Diebold–Mariano: the Newey–West (Bartlett) HAC variance with bandwidth
  ``floor(4 (n/100)^(2/9))`` (statsmodels' rule, checked against
  ``statsmodels.stats.sandwich_covariance``), the Harvey–Leybourne–Newbold correction and
  Student-t(n - 1) quantiles.

Run by hand::

    python bench/time_ordered_coverage.py                 # 4000 series per cell
    python bench/time_ordered_coverage.py --reps 1000     # quicker
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PHIS = (0.0, 0.3, 0.6, 0.8)
WINDOWS = (10, 30)


def ar1_series(phi: float, n: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``reps`` stationary AR(1) series of length ``n`` with unit innovation variance."""
    e = np.empty((reps, n))
    e[:, 0] = rng.standard_normal(reps) / np.sqrt(1.0 - phi**2)
    eta = rng.standard_normal((reps, n))
    for t in range(1, n):
        e[:, t] = phi * e[:, t - 1] + eta[:, t]
    return e


def newey_west_variance(d: np.ndarray, lags: int) -> float:
    """Long-run variance of ``d`` with Bartlett weights ``1 - k / (lags + 1)``."""
    x = d - d.mean()
    n = len(x)
    v = x @ x / n
    for k in range(1, lags + 1):
        v += 2.0 * (1.0 - k / (lags + 1)) * (x[k:] @ x[:-k]) / n
    return float(v)


def check_against_statsmodels(rng: np.random.Generator) -> float:
    """Largest relative gap between our HAC variance and statsmodels' (must be ~1e-15)."""
    import statsmodels.api as sm
    from statsmodels.stats.sandwich_covariance import cov_hac

    gap = 0.0
    for n, lags in ((10, 1), (30, 2), (30, 5)):
        d = rng.standard_normal(n)
        fit = sm.OLS(d, np.ones(n)).fit()
        ref = float(cov_hac(fit, nlags=lags, use_correction=False)[0, 0]) * n
        gap = max(gap, abs(newey_west_variance(d, lags) - ref) / ref)
    return gap


def covered(kind: str, d: np.ndarray, mu: float) -> bool:
    n = len(d)
    if kind == "time_ordered":
        from bayescomp.posterior.time_ordered import time_ordered_test

        p = time_ordered_test(np.zeros(n), d).cdf(mu)
        return 0.025 <= p <= 0.975
    if kind == "ttest_rho":
        from bayescomp.posterior.ttest import correlated_ttest

        test = np.full(n, 10.0)
        train = 10.0 * np.arange(1, n + 1)
        rho = float(np.mean(test / (train + test)))
        lo, hi = correlated_ttest(np.zeros(n), d, rho=rho).interval(0.95)
        return lo <= mu <= hi
    lags = int(np.floor(4 * (n / 100) ** (2 / 9)))
    h = lags + 1
    hln = (n + 1 - 2 * h + h * (h - 1) / n) / n
    se = np.sqrt(max(newey_west_variance(d, lags), 0.0) / n / hln)
    return abs(d.mean() - mu) <= stats.t.ppf(0.975, n - 1) * se


def coverage_table(
    reps: int,
    seed: int,
    kinds: tuple[str, ...] = ("time_ordered",),
    phis: tuple[float, ...] = PHIS,
    windows: tuple[int, ...] = WINDOWS,
) -> dict[tuple[str, int, float], float]:
    """Coverage (0–1) of each posterior per (kind, windows, phi); same series for every
    kind (common random numbers)."""
    rng = np.random.default_rng(seed)
    out = {}
    mu = 0.25
    for n in windows:
        for phi in phis:
            series = mu + ar1_series(phi, n, reps, rng)
            for kind in kinds:
                out[(kind, n, phi)] = float(np.mean([covered(kind, d, mu) for d in series]))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=4000, help="simulated series per cell")
    p.add_argument("--seed", type=int, default=2026)
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    print(
        f"HAC variance vs statsmodels cov_hac: largest relative gap "
        f"{check_against_statsmodels(rng):.1e}"
    )
    kinds = ("time_ordered", "ttest_rho", "dm_hln")
    t0 = time.perf_counter()
    cov = coverage_table(args.reps, args.seed, kinds)
    se = 100 * np.sqrt(0.95 * 0.05 / args.reps)
    print(
        f"coverage of the 95 % interval of the mean difference, AR(1) differences, "
        f"{args.reps} seeded series per cell (Monte Carlo s.e. {se:.2f} points)\n"
    )
    print(f"{'windows':>7} {'phi':>4} " + " ".join(f"{k:>13}" for k in kinds))
    ok = True
    for n in WINDOWS:
        for phi in PHIS:
            row = [100 * cov[(k, n, phi)] for k in kinds]
            ok &= 93.0 <= row[0] <= 97.0
            print(f"{n:>7} {phi:>4} " + " ".join(f"{v:>12.1f}%" for v in row))
    print(
        f"\ntime_ordered within 93–97 % everywhere: {'yes' if ok else 'NO'} "
        f"({time.perf_counter() - t0:.0f} s)"
    )


if __name__ == "__main__":
    main()
