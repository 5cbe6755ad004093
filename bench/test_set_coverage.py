"""Do the 95% intervals of a difference on one test set cover the truth 95% of the time?

Seeded simulation of :func:`bayescomp.posterior.holdout.holdout_posterior`.  Per setting,
``--reps`` test sets are drawn from a known population and the share whose 95% credible
interval (equal-tailed) contains the true difference is printed with its binomial
standard error:

* **binary**: paired 0/1 correctness with cell probabilities both right 0.70, only the
  baseline 0.06, only the candidate 0.10, both wrong 0.14 (true difference +0.04); the
  Dirichlet–multinomial posterior; 50, 500 and 5,000 items.
* **losses**: per-item losses of two models, ``baseline ~ Gamma(2, 0.5)``,
  ``candidate = baseline · U(0.7, 1.2)`` (skewed, correlated; true difference of the mean
  loss 0.05); the Bayesian bootstrap of the mean paired difference.
* **clusters**: per-item differences ``0.05 + u_c + e_i`` with ``Var u = 0.3``,
  ``Var e = 0.7`` (intra-cluster correlation 0.3), 10 items per cluster, for 500 and
  5,000 items: the cluster Bayesian bootstrap (``cluster=``) and, beside it, the
  cluster-blind posterior of the same data (items resampled one by one).
* **clusters, binary**: 0/1 correctness with a per-cluster difficulty and a per-cluster
  edge of the candidate (both logit-normal), 10 items per cluster: an evaluation set of
  questions grouped by passage.

The goal is 93–97% for every setting with the right model, and the cluster-blind rows
show how far ignoring the clusters falls (Miller 2024 reports about 75% on evals).

Run from the repository root::

    python bench/test_set_coverage.py [--reps 1000] [--seed 0] [--draws 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CELLS = np.array([0.70, 0.06, 0.10, 0.14])  # both, only baseline, only candidate, neither
TRUE_BINARY = CELLS[2] - CELLS[1]
TRUE_LOSS = 0.05
ICC, CLUSTER_SIZE, TRUE_CLUSTER = 0.3, 10, 0.05


def binary_set(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, None]:
    cell = rng.choice(4, size=n, p=CELLS)
    return np.isin(cell, (0, 1)).astype(float), np.isin(cell, (0, 2)).astype(float), None


def loss_set(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, None]:
    base = rng.gamma(2.0, 0.5, n)
    cand = base * rng.uniform(0.7, 1.2, n)
    # E[cand] = 0.95 E[base] = 0.95; the mean loss is 0.05 lower: oriented difference +0.05
    return base, cand, None


def cluster_set(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = n // CLUSTER_SIZE
    cluster = np.repeat(np.arange(g), CLUSTER_SIZE)
    d = (
        TRUE_CLUSTER
        + np.sqrt(ICC) * rng.standard_normal(g)[cluster]
        + np.sqrt(1 - ICC) * rng.standard_normal(n)
    )
    return np.zeros(n), d, cluster


def cluster_binary_set(
    rng: np.random.Generator, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = n // CLUSTER_SIZE
    cluster = np.repeat(np.arange(g), CLUSTER_SIZE)
    difficulty = 1.5 * rng.standard_normal(g)[cluster]
    effect = (0.3 + rng.standard_normal(g))[cluster]  # the candidate's edge varies by passage
    p_base = 1 / (1 + np.exp(-(0.8 + difficulty)))
    p_cand = 1 / (1 + np.exp(-(0.8 + difficulty + effect)))
    u = rng.random(n)  # shared uniform: the two models agree on most items
    return (u < p_base).astype(float), (u < p_cand).astype(float), cluster


def _true_cluster_binary(rng: np.random.Generator) -> float:
    z = 1.5 * rng.standard_normal(4_000_000)
    e = 0.3 + rng.standard_normal(4_000_000)
    return float(np.mean(1 / (1 + np.exp(-(0.8 + z + e))) - 1 / (1 + np.exp(-(0.8 + z)))))


def coverage(
    make,
    truth: float,
    n: int,
    reps: int,
    seed: int,
    draws: int,
    metric: str | None,
    blind: bool = False,
) -> tuple[float, float]:
    """Share of ``reps`` seeded test sets whose 95% interval covers ``truth`` (cluster-aware,
    and the cluster-blind share when ``blind``)."""
    import warnings

    from bayescomp.core.exceptions import ZeroVarianceWarning
    from bayescomp.posterior.holdout import holdout_posterior

    warnings.simplefilter("ignore", ZeroVarianceWarning)  # a tiny set where both agree
    rng = np.random.default_rng(seed)
    hits, hits_blind = 0, 0
    for _ in range(reps):
        b, c, cluster = make(rng, n)
        res = holdout_posterior(
            None,
            b,
            c,
            metric=metric,
            higher_is_better=True if metric is None else None,
            cluster=cluster,
            draws=draws,
            random_state=rng,
        )
        lo, hi = res.interval(0.95)
        hits += lo <= truth <= hi
        if blind:
            lo, hi = np.quantile(res.blind_draws, [0.025, 0.975])
            hits_blind += lo <= truth <= hi
    return hits / reps, hits_blind / reps


def settings(seed: int) -> list[tuple[str, object, float, int, str | None, bool]]:
    rng = np.random.default_rng(seed + 10_000)
    truth_cb = _true_cluster_binary(rng)
    out = [
        (f"binary, {n} items", binary_set, TRUE_BINARY, n, "accuracy", False)
        for n in (50, 500, 5000)
    ]
    out += [(f"losses, {n} items", loss_set, TRUE_LOSS, n, "mse", False) for n in (50, 500, 5000)]
    out += [
        (f"clusters ICC {ICC}, {n} items", cluster_set, TRUE_CLUSTER, n, None, True)
        for n in (500, 5000)
    ]
    out += [
        (f"clusters binary, {n} items", cluster_binary_set, truth_cb, n, "accuracy", True)
        for n in (500, 5000)
    ]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--draws", type=int, default=1000)
    args = parser.parse_args(argv)
    se = np.sqrt(0.95 * 0.05 / args.reps)
    print(
        f"95% interval coverage, {args.reps} seeded test sets per row (binomial SE "
        f"{100 * se:.1f} points), {args.draws} posterior draws"
    )
    print(f"{'setting':34s} {'coverage':>9s} {'cluster-blind':>14s} {'seconds':>8s}")
    for k, (name, make, truth, n, metric, blind) in enumerate(settings(args.seed)):
        start = time.perf_counter()
        cov, cov_blind = coverage(
            make, truth, n, args.reps, args.seed + k, args.draws, metric, blind
        )
        blind_text = f"{100 * cov_blind:13.1f}%" if blind else f"{'':14s}"
        print(
            f"{name:34s} {100 * cov:8.1f}% {blind_text} {time.perf_counter() - start:8.1f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
