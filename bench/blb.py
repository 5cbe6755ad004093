"""Benchmark: 95% interval of ROC AUC on 10**7 rows — bag of little bootstraps vs scipy.

Run by hand:  python bench/blb.py [--rows 10000000] [--n-jobs 2]

Prints wall time and peak extra memory (tracemalloc: every numpy allocation made during
the call, beyond the data themselves) for

* ``bc.blb_metric`` on all rows (subset_exponent 0.6 and 0.7; sequential and with ``--n-jobs``
  loky workers, whose memory tracemalloc cannot see), and
* ``scipy.stats.bootstrap`` (percentile, 1000 resamples) on as many rows as it handles in
  the same wall time as BLB, once with scikit-learn's ``roc_auc_score`` as the statistic
  and once through ``bc.bootstrap_metric`` (a vectorised rank statistic).
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bayescomp as bc


def measure(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, wall, peak


def scipy_sklearn(y, s, n_resamples=1000):
    from scipy import stats
    from sklearn.metrics import roc_auc_score

    res = stats.bootstrap(
        (y, s),
        lambda a, b: roc_auc_score(a, b),
        paired=True,
        vectorized=False,
        n_resamples=n_resamples,
        method="percentile",
        rng=np.random.default_rng(0),
    )
    return res.confidence_interval


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n = args.rows
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = rng.normal(size=n) + 0.8 * y
    data_mb = (y.nbytes + s.nbytes) / 1e6
    print(f"data: {n:,} rows, y int8 + score float64 = {data_mb:.0f} MB\n")
    rows = []
    # warm-up on a small slice: imports (scikit-learn, pandas, joblib...) would otherwise be
    # counted in the first measurement's memory
    bc.blb_metric(y[:200_000], s[:200_000], "roc_auc", n_subsets=2, n_resamples=20, random_state=0)
    bc.bootstrap_metric(y[:1000], s[:1000], "roc_auc", method="percentile", n_resamples=100)
    scipy_sklearn(y[:1000], s[:1000], n_resamples=100)

    def add(name, m, wall, peak, ci, extra=""):
        rows.append((name, m, wall, peak / 1e6, ci, extra))
        print(
            f"  {name:<44} rows={m:>11,}  {wall:7.1f} s  peak +{peak / 1e6:7.0f} MB  "
            f"CI [{ci[0]:.5f}, {ci[1]:.5f}] {extra}",
            flush=True,
        )

    blb_time = None
    for gamma in (0.6, 0.7):
        for jobs in (None, args.n_jobs):
            res, wall, peak = measure(
                lambda g=gamma, j=jobs: bc.blb_metric(
                    y, s, "roc_auc", subset_exponent=g, n_jobs=j, random_state=0
                )
            )
            label = f"BLB subset_exponent={gamma} n_jobs={jobs or 1}"
            extra = f"(b={res.b:,}, s={res.n_subsets}, r_total={res.n_resamples})"
            if jobs:
                extra += " [worker memory not traced]"
            add(label, n, wall, peak, (res.low, res.high), extra)
            if gamma == 0.7 and jobs is None:
                blb_time = wall
    budget = blb_time
    print(
        f"\nscipy.stats.bootstrap, 1000 percentile resamples, within the BLB time ({budget:.1f} s):"
    )
    for name, fn in (
        ("scipy.bootstrap + sklearn roc_auc_score", lambda a, b: scipy_sklearn(a, b)),
        (
            "scipy.bootstrap via bc.bootstrap_metric",
            lambda a, b: (lambda r: (r.low, r.high))(
                bc.bootstrap_metric(
                    a, b, "roc_auc", method="percentile", n_resamples=1000, random_state=0
                )
            ),
        ),
    ):
        m, best = 1000, None
        while m <= n:
            ci, wall, peak = measure(lambda m=m, fn=fn: fn(y[:m], s[:m]))
            add(name, m, wall, peak, tuple(ci))
            if wall > budget:
                break
            best = m
            m = int(m * (10 if wall < budget / 8 else 4 if wall < budget / 2 else 2))
        if best and m <= n:  # one more point between the last fit and the overshoot
            mid = int(np.sqrt(best * m))
            if best < mid < m:
                ci, wall, peak = measure(lambda mid=mid, fn=fn: fn(y[:mid], s[:mid]))
                add(name, mid, wall, peak, tuple(ci))
                best = mid if wall <= budget else best
        print(f"  -> largest size within {budget:.1f} s: {best:,} rows\n" if best else "")
    print(
        f"goal: BLB on {n:,} rows under 30 s and peak extra memory under 2 x data "
        f"({2 * data_mb:.0f} MB)"
    )


if __name__ == "__main__":
    main()
