"""Coverage of ``compare_runs``' interval against MLflow's row bootstrap, on clustered rows.

Seeded simulation of two GenAI evaluation runs of the same rows, without a server: what
:func:`bayescomp.integrations.mlflow.compare_runs` does with the paired scorer values of
each row is :func:`bayescomp.holdout_posterior` with ``metric=None`` and ``cluster=`` (the
calls below are the same), and what ``mlflow.genai.compare_evaluations`` (MLflow 3.18) does
is a BCa bootstrap of the mean paired difference over rows, ignoring any clusters
(``scipy.stats.bootstrap``, 10,000 resamples, as MLflow's ``_bootstrap_mean_ci``).

Each run: 100 clusters (passages) of 10 rows; a judge's grade per row, the baseline's
``b = 3 + a_c + n_i`` and the candidate's ``b + 0.05 + u_c + e_i`` with
``Var u = 0.3``, ``Var e = 0.7``: the paired differences have intra-cluster correlation 0.3
(design effect 1 + 9 · 0.3 = 3.7).  The share of runs whose 95 % interval holds the true
difference 0.05 is printed with its binomial standard error.

Run from the repository root::

    python bench/mlflow_compare_runs.py [--reps 1000] [--seed 0] [--draws 2000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TRUE_DIFF, CLUSTERS, PER, ICC = 0.05, 100, 10, 0.3


def runs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One pair of evaluation runs: baseline values, candidate values, cluster of each row."""
    cluster = np.repeat(np.arange(CLUSTERS), PER)
    n = CLUSTERS * PER
    base = 3 + rng.normal(0, 0.5, CLUSTERS)[cluster] + rng.normal(0, 0.5, n)
    u = rng.normal(0, np.sqrt(ICC), CLUSTERS)[cluster]
    return base, base + TRUE_DIFF + u + rng.normal(0, np.sqrt(1 - ICC), n), cluster


def posterior_interval(b: np.ndarray, c: np.ndarray, cluster: np.ndarray, draws: int, seed: int):
    """compare_runs' interval of one scorer (its holdout_posterior call)."""
    from bayescomp.posterior.holdout import holdout_posterior

    res = holdout_posterior(
        None, b, c, metric=None, higher_is_better=True, rope=0.01, cluster=cluster,
        draws=draws, random_state=seed,
    )  # fmt: skip
    return res.interval(0.95)


def row_bootstrap_interval(b: np.ndarray, c: np.ndarray, seed: int, n_resamples: int = 10_000):
    """MLflow's interval: the BCa bootstrap of the mean paired difference over rows."""
    from scipy import stats

    ci = stats.bootstrap(
        (c - b,), np.mean, method="BCa", confidence_level=0.95, n_resamples=n_resamples,
        rng=np.random.default_rng(seed),
    ).confidence_interval  # fmt: skip
    return ci.low, ci.high


def coverage(reps: int, seed: int, draws: int, n_resamples: int = 10_000) -> tuple[float, float]:
    """(compare_runs' coverage, the row bootstrap's coverage) over ``reps`` seeded runs."""
    hit_post = hit_boot = 0
    for r in range(reps):
        b, c, cluster = runs(np.random.default_rng([seed, r]))
        lo, hi = posterior_interval(b, c, cluster, draws, r)
        hit_post += lo <= TRUE_DIFF <= hi
        lo, hi = row_bootstrap_interval(b, c, r, n_resamples)
        hit_boot += lo <= TRUE_DIFF <= hi
    return hit_post / reps, hit_boot / reps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--draws", type=int, default=2000)
    args = ap.parse_args()
    t0 = time.perf_counter()
    post, boot = coverage(args.reps, args.seed, args.draws)
    se = lambda p: 100 * np.sqrt(p * (1 - p) / args.reps)  # noqa: E731
    print(
        f"{CLUSTERS} clusters x {PER} rows, ICC {ICC}, {args.reps} runs, seed {args.seed} "
        f"({time.perf_counter() - t0:.0f} s)"
    )
    print(f"compare_runs (cluster=), 95% interval covers  {100 * post:.1f} % (se {se(post):.1f})")
    print(f"row BCa bootstrap (MLflow), 95% covers        {100 * boot:.1f} % (se {se(boot):.1f})")


if __name__ == "__main__":
    main()
