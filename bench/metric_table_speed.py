"""metric_table on a large test set against the same work done with scikit-learn's own calls.

Issue 23 item 19: ``metric_table`` took 25-32 s on 10,000 rows, one scikit-learn call per
metric and resample (7 x 1,000).  The binary confusion metrics and the regression errors
are now computed from each resample's counts in one numpy pass.  This bench times, in one
interleaved run (each repeat runs both, so the machine's load hits both alike):

* ``bayescomp``: ``metric_table(y_true, y_pred, n_resamples=B)`` (the seven classification
  metrics with their percentile intervals);
* ``sklearn``: the seven scikit-learn metric functions called on each of the same number of
  resamples (what the previous path did), which is the floor of any per-call approach.

Run: ``PYTHONPATH=. python bench/metric_table_speed.py [--rows 10000] [--resamples 1000]``.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def sklearn_loop(yt: np.ndarray, yp: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    from sklearn import metrics as m

    rng = np.random.default_rng(seed)
    out = np.empty((n_resamples, 7))
    for b in range(n_resamples):
        r = rng.integers(0, yt.size, yt.size)
        t, p = yt[r], yp[r]
        out[b] = [
            m.accuracy_score(t, p),
            m.zero_one_loss(t, p),
            m.recall_score(t, p, zero_division=np.nan),
            m.recall_score(t, p, pos_label=0, zero_division=np.nan),
            m.precision_score(t, p, zero_division=np.nan),
            m.f1_score(t, p, zero_division=np.nan),
            m.fbeta_score(t, p, beta=2.0, zero_division=np.nan),
        ]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    import bayescomp as bc

    rng = np.random.default_rng(0)
    yt = rng.integers(0, 2, args.rows)
    yp = np.where(rng.random(args.rows) < 0.85, yt, 1 - yt)
    ours, theirs = [], []
    for rep in range(args.repeats):  # interleaved
        t0 = time.perf_counter()
        table = bc.metric_table(yt, yp, n_resamples=args.resamples, random_state=rep)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        sklearn_loop(yt, yp, args.resamples, rep)
        theirs.append(time.perf_counter() - t0)
    print(table[["estimate", "low", "high"]].round(4).to_string())
    print(f"load average {os.getloadavg()[0]:.1f}; {args.rows} rows, {args.resamples} resamples")
    print(f"metric_table:              median {np.median(ours):.3f} s  {np.round(ours, 3)}")
    print(f"scikit-learn, per resample: median {np.median(theirs):.3f} s  {np.round(theirs, 3)}")
    print(f"ratio scikit-learn / metric_table: {np.median(theirs) / np.median(ours):.1f}x")


if __name__ == "__main__":
    main()
