"""Benchmark: one joint Plackett–Luce fit against today's pairwise ``rank`` across datasets.

Run by hand from the repository root::

    python bench/plackett_luce.py [--data ../shared/data/baycomp_accuracies.txt]
                                  [--pairs 10] [--full]

Two problems:

* 5 models x 54 datasets (53 distinct: `credit` appears twice): the shared baycomp data
  (skipped when the file is absent);
* 20 models x 100 synthetic datasets (10 splits each, 10-fold design).

For each, the wall time of ``rank(method="plackett_luce")`` (one MCMC fit for all
``k`` models, by the default Gibbs sampler; the first fit of a problem and a second, warm
one) and of the
pairwise ``rank`` (``k (k - 1) / 2`` hierarchical MCMC fits).  Both use 4 chains x
1000 draws after 1000 tuning steps.  The pairwise ranking of 20 models is 190 fits:
without ``--full`` only ``--pairs`` of them are timed and the total is extrapolated
(per-fit time x 190, marked as such); the first fit's compilation is included.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

MCMC = dict(chains=4, draws=1000, tune=1000)


def synthetic(k: int = 20, n_datasets: int = 100, n_splits: int = 10, seed: int = 0):
    """Per-split accuracies: a dataset level, a model effect with a dataset interaction.

    Built on the logit scale, so every accuracy lies in (0, 1) (an accuracy above 1 is
    refused by ``Scores``); near a level of 0.75 one logit unit is about 0.19 accuracy.
    """
    rng = np.random.default_rng(seed)
    effect = np.linspace(0.03, -0.03, k)
    rows = []
    for d in range(n_datasets):
        level = rng.uniform(0.6, 0.9)
        inter = rng.normal(0, 0.02, k)
        for m in range(k):
            common = rng.normal(0, 0.01)  # correlated splits (shared training data)
            logit = np.log(level / (1 - level))
            shift = (effect[m] + inter[m] + common + rng.normal(0, 0.02, n_splits)) / 0.19
            vals = 1 / (1 + np.exp(-(logit + shift)))
            rows += [(f"d{d:03d}", f"m{m:02d}", s, 9, 1, v) for s, v in enumerate(vals)]
    return pd.DataFrame(
        rows, columns=["dataset", "model", "split", "n_train", "n_test", "accuracy"]
    )


def time_pl(scores) -> tuple[float, float, object]:
    import bayescomp as bc

    t0 = time.perf_counter()
    res = bc.rank(scores, "accuracy", method="plackett_luce", random_state=0, **MCMC)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = bc.rank(scores, "accuracy", method="plackett_luce", random_state=1, **MCMC)
    return cold, time.perf_counter() - t0, res


def time_pairwise(scores, n_pairs: int | None) -> tuple[float, int, int]:
    """Seconds for ``n_pairs`` hierarchical fits (all when None), fits done, fits needed."""
    import bayescomp as bc

    models = scores.models
    pairs = list(itertools.combinations(models, 2))
    todo = pairs if n_pairs is None else pairs[:n_pairs]
    t0 = time.perf_counter()
    if n_pairs is None:
        bc.rank(scores, "accuracy", random_state=0, **MCMC)
    else:
        for a, b in todo:
            bc.compare(
                scores,
                baseline=b,
                candidate=a,
                metric="accuracy",
                method="hierarchical",
                random_state=0,
                **MCMC,
            )
    return time.perf_counter() - t0, len(todo), len(pairs)


def report(label: str, scores, n_pairs: int | None) -> None:
    cold, warm, res = time_pl(scores)
    secs, done, needed = time_pairwise(scores, n_pairs)
    total = secs if done == needed else secs / done * needed
    how = "measured" if done == needed else f"extrapolated from {done} fits"
    print(f"\n{label}: {len(scores.models)} models x {len(scores.datasets)} datasets")
    print(
        f"  plackett_luce: 1 fit    cold cache {cold:7.1f} s   warm cache {warm:7.1f} s   "
        f"converged={res.converged}"
    )
    print(f"  pairwise rank: {needed} fits  {total:8.1f} s ({how}; {secs / done:.1f} s per fit)")
    print(
        f"  ratio pairwise / plackett_luce: {total / cold:6.1f}x (cold)  "
        f"{total / warm:6.1f}x (warm)"
    )
    print(f"  order: {res.order[:6]}{' ...' if len(res.order) > 6 else ''}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--data", type=Path, default=REPO.parent / "shared" / "data" / "baycomp_accuracies.txt"
    )
    ap.add_argument(
        "--pairs",
        type=int,
        default=10,
        help="pairwise fits timed for 20 models (the rest extrapolated)",
    )
    ap.add_argument("--full", action="store_true", help="run all 190 pairwise fits")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import bayescomp as bc

    if args.data.exists():
        from baycomp_data import load_baycomp_accuracies

        report(
            "shared baycomp data", bc.Scores.from_frame(load_baycomp_accuracies(args.data)), None
        )
    else:
        print(f"shared data not found at {args.data}: the 5 x 54 problem is skipped")
    report("synthetic", bc.Scores.from_frame(synthetic()), None if args.full else args.pairs)


if __name__ == "__main__":
    main()
