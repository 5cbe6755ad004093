"""What ``--data table.parquet`` adds to a selection, against arrays already in memory.

The issue's goal: reading and preparing a 10^6-row x 50-column Parquet file adds < 10 % to
a run with one cheap model, compared with the same run on arrays already in memory.

A ``--rows`` x ``--cols`` table of floats with a binary target is written once to Parquet
and, as the same numbers, to ``.npy``.  Each repetition runs the same selection (a
prior-only baseline against Gaussian naive Bayes, the cheap model, on the same repeated
stratified k-fold) in two **fresh processes**:

* ``arrays``: the child loads X and y from ``.npy`` *before* the measured region (the
  arrays are then "already in memory"); the region is ``bc.select`` on them.
* ``parquet``: the region is what ``bayescomp select --data`` does — read, validate and
  fingerprint the file (:func:`bayescomp.scores.tabular.read_table`: pandas + pyarrow,
  SHA-256 of the file, importing pyarrow included) — then ``bc.select`` on the DataFrame
  it returns.

Both children import bayescomp, numpy, pandas and scikit-learn before the region.  The
measure is the child's **CPU time** over the region (``getrusage(RUSAGE_SELF)`` user +
system, all threads), which a loaded machine inflates far less than wall time; wall time
is reported beside it.  The pairs are interleaved (the order alternates every pair, so a
drift in load hits both sides alike) and the script renices itself (``--nice``).  The
verdict is on the paired ratios parquet / arrays: their median and a bootstrap 95 %
interval of that median (``scipy.stats.bootstrap``, percentile method), and their mean
with its Student-t interval.  The goal holds when the bootstrap interval's upper end is
below 1.10.  Beside it, the CPU of ``read_table`` alone as a share of the pair's
in-memory run: the parquet side fits on a DataFrame, whose column-major block makes
Gaussian naive Bayes' per-column means cheaper than on the row-major array, which can
make the whole parquet run the cheaper one; the read share is the overhead without that.  Run by hand::

    python bench/parquet_overhead.py                     # 10^6 x 50, 5 x 2 folds, 6 pairs
    python bench/parquet_overhead.py --rows 200000 --pairs 6
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
#: one BLAS/OpenMP thread in both children: the same work, no spinning helper threads
THREADS = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def make_files(folder: Path, rows: int, cols: int, seed: int = 0) -> Path:
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((rows, cols))
    y = (X[:, 0] + rng.standard_normal(rows) > 0).astype(int)
    pd.DataFrame(X, columns=[f"x{i}" for i in range(cols)]).assign(y=y).to_parquet(
        folder / "table.parquet"
    )
    np.save(folder / "X.npy", X)
    np.save(folder / "y.npy", y)
    return folder / "table.parquet"


def run_select(X, y, n_splits: int, n_repeats: int) -> str:
    from sklearn.dummy import DummyClassifier
    from sklearn.model_selection import RepeatedStratifiedKFold
    from sklearn.naive_bayes import GaussianNB

    import bayescomp as bc

    cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=0)
    sel = bc.select_models(
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


def _cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def child(kind: str, folder: Path, n_splits: int, n_repeats: int) -> None:
    """One run in this (fresh) process; prints its CPU and wall seconds as JSON."""
    import pandas  # noqa: F401  (imported by both sides before the region)
    import sklearn.naive_bayes  # noqa: F401

    import bayescomp  # noqa: F401

    if kind == "arrays":
        X, y = np.load(folder / "X.npy"), np.load(folder / "y.npy")
    cpu0, wall0 = _cpu(), time.perf_counter()
    if kind == "parquet":
        from bayescomp.scores.tabular import read_table

        table = read_table(folder / "table.parquet", target="y", n_splits=n_splits)
        X, y = table.X, table.y
    cpu_read = _cpu() - cpu0
    champion = run_select(X, y, n_splits, n_repeats)
    cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
    out = {"kind": kind, "cpu": cpu, "wall": wall, "cpu_read": cpu_read, "champion": champion}
    print(json.dumps(out))


def one(kind: str, folder: Path, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, __file__, "--child", kind, "--folder", str(folder)]
    cmd += ["--n-splits", str(args.n_splits), "--n-repeats", str(args.n_repeats)]
    env = {**os.environ, **THREADS, "PYTHONPATH": str(REPO)}
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    if r.returncode:
        raise SystemExit(f"the {kind} child failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def summary(ratios: np.ndarray, seed: int = 0) -> tuple[float, float, float]:
    """Median of the paired ratios and the bootstrap 95 % percentile interval of it."""
    from scipy.stats import bootstrap

    res = bootstrap(
        (ratios,), np.median, confidence_level=0.95, method="percentile", random_state=seed
    )
    ci = res.confidence_interval
    return float(np.median(ratios)), float(ci.low), float(ci.high)


def mean_interval(ratios: np.ndarray) -> tuple[float, float, float]:
    """Mean of the paired ratios and its Student-t 95 % interval."""
    from scipy import stats

    ci = stats.ttest_1samp(ratios, 1.0).confidence_interval(0.95)
    return float(ratios.mean()), float(ci.low), float(ci.high)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--cols", type=int, default=50)
    p.add_argument("--n-splits", type=int, default=5)
    p.add_argument("--n-repeats", type=int, default=2)
    p.add_argument("--pairs", type=int, default=6, help="interleaved repetitions")
    p.add_argument("--nice", type=int, default=10, help="renice this run (and its children)")
    p.add_argument("--child", choices=("arrays", "parquet"), help=argparse.SUPPRESS)
    p.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child, args.folder, args.n_splits, args.n_repeats)
        return
    os.nice(args.nice)
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = make_files(folder, args.rows, args.cols)
        print(
            f"{args.rows} x {args.cols} Parquet file: {path.stat().st_size / 2**20:.0f} MiB; "
            f"{args.n_splits} x {args.n_repeats} folds, prior vs GaussianNB; "
            f"{args.pairs} interleaved pairs of fresh processes, nice {args.nice}"
        )
        runs: dict[str, list[dict]] = {"arrays": [], "parquet": []}
        for i in range(args.pairs):
            order = ("arrays", "parquet") if i % 2 == 0 else ("parquet", "arrays")
            for kind in order:
                runs[kind].append(one(kind, folder, args))
            a, q = runs["arrays"][-1], runs["parquet"][-1]
            print(
                f"  pair {i + 1:2d}: CPU arrays {a['cpu']:6.2f} s, parquet {q['cpu']:6.2f} s "
                f"(ratio {q['cpu'] / a['cpu']:.3f}); wall {a['wall']:6.2f} / {q['wall']:6.2f} s",
                flush=True,
            )
    load1 = os.getloadavg()
    print(f"load average (1 min) at start {load0[0]:.1f}, at end {load1[0]:.1f}; 2 cores")
    print(
        "| measure | arrays median | parquet median | median paired ratio (bootstrap 95 % CI)"
        " | mean paired ratio (t 95 % CI) |"
    )
    print("|---|---|---|---|---|")
    a_cpu = np.array([r["cpu"] for r in runs["arrays"]])
    for measure in ("cpu", "wall"):
        a = np.array([r[measure] for r in runs["arrays"]])
        q = np.array([r[measure] for r in runs["parquet"]])
        med, lo, hi = summary(q / a)
        mean, mlo, mhi = mean_interval(q / a)
        print(
            f"| {measure} time | {np.median(a):.2f} s | {np.median(q):.2f} s | {med:.3f} "
            f"({lo:.3f} – {hi:.3f}) | {mean:.3f} ({mlo:.3f} – {mhi:.3f}) |"
        )
    # reading + validating + hashing alone, against the whole in-memory run of its pair:
    # the overhead without the (favourable) column layout the DataFrame gives the fits
    read = np.array([r["cpu_read"] for r in runs["parquet"]])
    rmed, rlo, rhi = summary(1 + read / a_cpu)
    print(
        f"| read_table CPU alone | – | {np.median(read):.2f} s | {rmed:.3f} ({rlo:.3f} – "
        f"{rhi:.3f}) | {mean_interval(1 + read / a_cpu)[0]:.3f} |"
    )
    med, lo, hi = summary(np.array([r["cpu"] for r in runs["parquet"]]) / a_cpu)
    state = "MET" if hi < 1.10 else ("MISSED" if lo >= 1.10 else "UNDECIDED (more --pairs)")
    print(
        f"goal < +10 % CPU: median {100 * (med - 1):+.1f} % "
        f"(95 % CI {100 * (lo - 1):+.1f} … {100 * (hi - 1):+.1f} %): {state}"
    )


if __name__ == "__main__":
    main()
