"""What ``--data table.parquet`` adds to a selection, against arrays already in memory.

A ``--rows`` × ``--cols`` table of floats with a binary target is written to Parquet.  Two
runs of the same selection (a prior-only baseline against Gaussian naive Bayes, the cheap
model, on the same repeated stratified k-fold) are timed, interleaved ``--rounds`` times:

* ``arrays``: ``bc.select`` on the numpy arrays already in memory;
* ``parquet``: what ``bayescomp select --data`` does — read, validate and fingerprint the
  file (:func:`bayescomp.scores.tabular.read_table`: pandas + pyarrow, SHA-256 of the
  file), then ``bc.select`` on the DataFrame it returns.

The issue's budget: the Parquet run takes < 10 % longer.  Run by hand::

    python bench/parquet_overhead.py                     # 10^6 x 50, 5 x 2 folds, 3 rounds
    python bench/parquet_overhead.py --rows 200000 --rounds 2
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def make_file(path: Path, rows: int, cols: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((rows, cols))
    y = (X[:, 0] + rng.standard_normal(rows) > 0).astype(int)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(cols)]).assign(y=y)
    frame.to_parquet(path)
    return X, y


def run_select(X, y, n_splits: int, n_repeats: int) -> str:
    from sklearn.dummy import DummyClassifier
    from sklearn.model_selection import RepeatedStratifiedKFold
    from sklearn.naive_bayes import GaussianNB

    import bayescomp as bc

    cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=0)
    sel = bc.select(
        {"prior": DummyClassifier(), "nb": GaussianNB()},
        X,
        y,
        baseline="prior",
        metric="roc_auc",
        rope=0.01,
        cv=cv,
        progress=False,
    )
    return sel.champion


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--cols", type=int, default=50)
    p.add_argument("--n-splits", type=int, default=5)
    p.add_argument("--n-repeats", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    from bayescomp.scores.tabular import read_table

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table.parquet"
        X, y = make_file(path, args.rows, args.cols)
        print(
            f"{args.rows} x {args.cols} Parquet file: {path.stat().st_size / 2**20:.0f} MiB; "
            f"{args.n_splits} x {args.n_repeats} folds, prior vs GaussianNB"
        )
        times: dict[str, list[float]] = {"arrays": [], "parquet": [], "read": []}
        for _ in range(args.rounds):  # interleaved: both runs see the same machine load
            t0 = time.perf_counter()
            run_select(X, y, args.n_splits, args.n_repeats)
            times["arrays"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            table = read_table(path, target="y", n_splits=args.n_splits)
            times["read"].append(time.perf_counter() - t0)
            run_select(table.X, table.y, args.n_splits, args.n_repeats)
            times["parquet"].append(time.perf_counter() - t0)
            del table
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(
        f"median of {args.rounds}: arrays {med['arrays']:.1f} s, parquet {med['parquet']:.1f} s"
        f" (reading + validating + hashing {med['read']:.1f} s)"
    )
    ratio = med["parquet"] / med["arrays"]
    print(
        f"parquet / arrays = {ratio:.3f} ({100 * (ratio - 1):+.1f} %; budget < +10 %): "
        f"{'within' if ratio < 1.10 else 'OVER'} budget"
    )


if __name__ == "__main__":
    main()
