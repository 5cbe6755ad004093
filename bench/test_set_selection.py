"""Operating characteristics of ``select`` over several models' predictions on one test set.

Seeded simulation of :func:`bayescomp.studies.select_predictions.select_predictions` with
``k`` challengers scored on the same items as one baseline, under the two rules:

* ``family`` (default): only the best challenger can be promoted, and only if it is still
  better beyond the ROPE given that it was selected (the many-challenger rule of
  :mod:`bayescomp.decision.family`);
* ``champion_challenger``: each step at its own ``gamma``.

Per-item 0/1 correctness: the baseline is right with probability 0.8; a challenger with
true difference ``Δ`` disagrees with it on ``P(only baseline right) = 0.06`` and
``P(only challenger right) = 0.06 + Δ`` of the items, independently of the other
challengers given the baseline (so the challengers are correlated through it).
ROPE 0.02, γ = 0.95, 1,000 items.

* **edge**: every challenger exactly at the ROPE edge (``Δ = 0.02``): every promotion is
  a false promotion; the family rule should keep it at most ``1 − γ`` = 5 % for every
  ``k``.
* **power**: one challenger at ``Δ = 0.06`` (3 × ROPE), the others at ``Δ = 0``: the share
  of runs promoting it.
* **clusters**: the edge scenario in 100 clusters of 10 items whose disagreement rates
  vary by cluster (``cluster=``).

Run from the repository root::

    python bench/test_set_selection.py [--reps 1000] [--seed 0] [--ks 1 5 10]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import bayescomp as bc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROPE, GAMMA, N_ITEMS, ONLY_BASE, CLUSTER_SIZE = 0.02, 0.95, 1000, 0.06, 10


def table(rng: np.random.Generator, deltas: list[float], clusters: bool = False):
    """A predictions table of per-item 0/1 scores: ``base`` and ``c0 .. c{k-1}``."""
    import pandas as pd

    n = N_ITEMS
    cluster = np.repeat(np.arange(n // CLUSTER_SIZE), CLUSTER_SIZE)
    base = rng.random(n) < 0.8
    out = {"base": base.astype(int)}
    for j, delta in enumerate(deltas):
        gain = ONLY_BASE + delta
        if clusters:  # the challenger's edge varies by cluster, its mean stays delta
            gain = gain + 0.06 * rng.uniform(-1, 1, n // CLUSTER_SIZE)[cluster]
        flip = np.where(base, rng.random(n) < ONLY_BASE / 0.8, rng.random(n) < gain / 0.2)
        out[f"c{j}"] = (base ^ flip).astype(int)
    frame = pd.DataFrame(out)
    if clusters:
        frame["cluster"] = cluster
    return frame


def run(
    deltas: list[float], reps: int, seed: int, clusters: bool = False, draws: int = 1000
) -> dict[str, dict[str, float]]:
    """Per rule: the share of runs promoting any challenger and the share promoting ``c0``."""
    from bayescomp.core.exceptions import ZeroVarianceWarning

    rng = np.random.default_rng(seed)
    counts = {r: {"any": 0, "c0": 0} for r in ("family", "champion_challenger")}
    for i in range(reps):
        frame = table(rng, deltas, clusters)
        for rule in counts:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ZeroVarianceWarning)
                sel = bc.select(
                    frame,
                    baseline="base",
                    rope=ROPE,
                    gamma=GAMMA,
                    metric="accuracy",
                    rule=rule,
                    compare_options={
                        "cluster": "cluster" if clusters else None,
                        "draws": draws,
                        "y_true": None,
                        "random_state": seed * 100_003 + i,
                    },
                )
            counts[rule]["any"] += sel.champion != "base"
            counts[rule]["c0"] += sel.champion == "c0"
    return {r: {k: v / reps for k, v in c.items()} for r, c in counts.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 5, 10])
    args = parser.parse_args(argv)
    se = 100 * np.sqrt(0.05 * 0.95 / args.reps)
    print(
        f"select over predictions: {args.reps} seeded runs per row, {N_ITEMS} items, "
        f"ROPE {ROPE}, gamma {GAMMA} (binomial SE at 5 %: {se:.1f} points)"
    )
    print(f"{'scenario':38s} {'family':>8s} {'champion_challenger':>20s} {'seconds':>8s}")
    cells = []
    for k in args.ks:
        cells.append((f"false promotion, edge, k={k}", [ROPE] * k, False, "any"))
    for k in args.ks:
        if k > 1:
            cells.append(
                (f"power, 3xROPE among nulls, k={k}", [3 * ROPE] + [0.0] * (k - 1), False, "c0")
            )
    cells.append(("false promotion, edge, clusters, k=5", [ROPE] * 5, True, "any"))
    for j, (name, deltas, clusters, key) in enumerate(cells):
        start = time.perf_counter()
        out = run(deltas, args.reps, args.seed + j, clusters)
        print(
            f"{name:38s} {100 * out['family'][key]:7.1f}% "
            f"{100 * out['champion_challenger'][key]:19.1f}% "
            f"{time.perf_counter() - start:8.1f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
