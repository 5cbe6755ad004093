"""How often does the default hierarchical fit end non-converged, and what do retries cost?

Simulates ``--problems`` comparisons (default 200) from the hierarchical model itself,
seeded, and fits each with :func:`bayescomp.hierarchical_test` at its defaults
(4 chains x 2000 draws, retries on).  Per problem the truth is drawn as the model
says (baycomp's priors, on a standardised scale)::

    nu - 1 ~ Gamma(alpha, rate=beta), alpha ~ U(1, 2), beta ~ U(0.01, 0.1)
    delta0 ~ U(-1, 1) * 0.03,  std0 ~ U(0, 1) * 0.02
    delta_i ~ Student-t(nu, delta0, std0),  sigma_i ~ U(0.005, 0.04)
    d_i ~ MVN(delta_i 1, sigma_i^2 [(1 - rho) I + rho 1 1^T]),  rho = 0.1, n = 100

and the script prints the share of fits that ended non-converged (the goal is 0),
the share that needed a retry, what each retry was, the wall time with and without
the retries, and how often the 95% HDI of delta0 covered the truth.

Run by hand from the repository root::

    python bench/hierarchical_calibration.py [--problems 200] [--datasets 30] [--seed 0]
        [--draws 2000] [--tune 1000] [--chains 4]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def simulate(rng: np.random.Generator, q: int, n: int = 100, rho: float = 0.1):
    """One problem drawn from the hierarchical model: (differences, delta0)."""
    alpha, beta = rng.uniform(1, 2), rng.uniform(0.01, 0.1)
    nu = 1.0 + rng.gamma(alpha, 1.0 / beta)
    delta0 = 0.03 * rng.uniform(-1, 1)
    std0 = 0.02 * rng.uniform(0, 1)
    delta = delta0 + std0 * rng.standard_t(nu, size=q)
    sigma = rng.uniform(0.005, 0.04, size=q)
    diffs = {}
    for i in range(q):
        common = rng.normal()
        diffs[f"ds{i:02d}"] = delta[i] + sigma[i] * (
            np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.normal(size=n)
        )
    return diffs, delta0


def run(problems: int, datasets: int, seed: int, **fit) -> dict:
    """Fit every problem; returns the per-problem records and the totals."""
    from bayescomp.posterior.hierarchical import hierarchical_test

    rng = np.random.default_rng(seed)
    records = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(problems):
            diffs, delta0 = simulate(rng, datasets)
            t0 = time.perf_counter()
            res = hierarchical_test(diffs, 0.1, rope=0.01, random_state=seed + k, **fit)
            wall = time.perf_counter() - t0
            lo, hi = res.hdi(0.95)
            records.append(
                {
                    "converged": res.converged,
                    "attempts": res.attempts,
                    "wall": wall,
                    "first_seconds": res.attempts[0]["seconds"],
                    "covered": lo <= delta0 <= hi,
                    "problems": res.convergence_problems,
                }
            )
            print(
                f"problem {k}: converged={res.converged} attempts="
                f"{[(a['parameterization'], a['target_accept'], a['divergences']) for a in res.attempts]}"
                f" {wall:.1f}s",
                file=sys.stderr,
                flush=True,
            )
    return {"records": records}


def report(out: dict) -> None:
    recs = out["records"]
    n = len(recs)
    failed = [r for r in recs if not r["converged"]]
    retried = [r for r in recs if len(r["attempts"]) > 1]
    wall = sum(r["wall"] for r in recs)
    first = sum(r["first_seconds"] for r in recs)
    first_fail = Counter()
    for r in retried:
        a = r["attempts"][0]
        first_fail["divergences" if a["divergences"] else "ESS/R-hat"] += 1
    winners = Counter(
        next(
            ((a["parameterization"], a["target_accept"]) for a in r["attempts"] if a["converged"]),
            "none",
        )
        for r in retried
    )
    print(f"{n} problems simulated from the hierarchical model")
    print(f"  non-converged after retries : {len(failed)} ({len(failed) / n:.1%})   goal: 0")
    print(
        f"  needed a retry              : {len(retried)} ({len(retried) / n:.1%}); "
        f"first attempt failed on {dict(first_fail)}"
    )
    print(f"  converging attempt of those : {dict(winners)}")
    print(
        f"  wall time                   : {wall:.1f} s in all, {wall / n:.2f} s per problem; "
        f"first attempts alone {first:.1f} s (retries cost {wall - first:.1f} s, "
        f"{(wall - first) / max(wall, 1e-9):.1%})"
    )
    print(f"  95% HDI of delta0 covers the truth: {np.mean([r['covered'] for r in recs]):.1%}")
    for r in failed:
        print(f"    still failing: {r['problems']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", type=int, default=200)
    ap.add_argument("--datasets", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chains", type=int, default=4)
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--tune", type=int, default=1000)
    args = ap.parse_args()
    out = run(
        args.problems,
        args.datasets,
        args.seed,
        chains=args.chains,
        draws=args.draws,
        tune=args.tune,
    )
    report(out)


if __name__ == "__main__":
    main()
