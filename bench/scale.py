"""Many models and many splits: ``rank`` on one dataset, ``Scores.from_frame`` + ``compare``,
and ``bayescomp rank`` from a CSV end to end.

Each case runs in a fresh process, once with this checkout's ``bayescomp`` and once with a
previous revision's (exported with ``git archive``), interleaved A B A B so that a drift in
the machine's speed hits both; the figure is the time of the call itself (imports excluded,
data built before the clock starts) and the process's peak resident memory.

    python bench/scale.py                   # against the revision before the scale work
    python bench/scale.py --previous HEAD~3 --repeats 5
    python bench/scale.py --huge            # also k = 10,000 models (new path only)
    python bench/scale.py --cases rank:10000 --previous main --previous-max-k 10000 --repeats 1
    python bench/scale.py --cases cli:100,cli:1000,cli:10000,paired:10000 --previous 22851b0

``cli:k`` writes a seeded CSV of k models x 10 splits on one dataset (before the clock) and
times ``python -m bayescomp rank CSV`` as a subprocess (wall, and the child's CPU seconds:
imports included, bytecode cached in the bench's own temporary folder after a warm-up run);
``paired:k`` times ``Scores.read_csv`` of that CSV and one ``paired`` call.

Under load, wall time depends on the share of the cores the process gets; the CPU time
(user + system, all threads) is printed beside it.

Cases (goals from the issue):
  rank, one dataset, k models x 100 splits:   k = 300, 1,000 (< 2 s), 10,000 (< 60 s)
  from_frame + compare, 2 models x 10^6 splits (< 5 s)
  bayescomp rank CSV -> ranking, k models x 10 splits: k = 1,000 (< 5 s), 10,000 (< 60 s)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
PREVIOUS = "3c7ac9f"  # main before the scale work (issue 24 items 10 and 11)

CHILD = r"""
import json, resource, sys, time
import numpy as np, pandas as pd
import scipy.stats, sklearn  # imported before the clock, as in a warm session
import bayescomp as bc

case, size = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
if case == "rank":
    k, n = size, 100
    fold = rng.normal(0.85, 0.03, n)
    vals = fold + rng.normal(0, 0.01, (k, 1)) + rng.normal(0, 0.005, (k, n))
    frame = pd.DataFrame({"model": np.repeat([f"m{i:05d}" for i in range(k)], n),
                          "split": np.tile(np.arange(n), k), "accuracy": vals.ravel(),
                          "n_train": 90, "n_test": 10})
    scores = bc.Scores.from_frame(frame)
    cpu0, t = time.process_time(), time.perf_counter()
    r = bc.rank(scores, "accuracy", rope=0.005)
    secs = time.perf_counter() - t
    check = float(np.nansum(r.p_right.to_numpy()))
elif case in ("cli", "paired"):
    import os, subprocess
    k, n = size, 10
    vals = rng.normal(0.85, 0.03, n) + rng.normal(0, 0.01, (k, 1)) + rng.normal(0, 0.005, (k, n))
    csv = f"scores_{k}.csv"
    pd.DataFrame({"model": np.repeat([f"m{i:05d}" for i in range(k)], n),
                  "split": np.tile(np.arange(n), k), "accuracy": vals.ravel().round(4),
                  "n_train": 90, "n_test": 10}).to_csv(csv, index=False)
    cpu0, t = time.process_time(), time.perf_counter()
    if case == "cli":
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([sys.executable, "-m", "bayescomp", "rank", csv], env=os.environ,
                             capture_output=True, text=True, check=True).stdout
        secs = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu0 -= (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        check = float(out.split()[2])  # "ranking of k models": the command answered
    else:
        p = bc.Scores.read_csv(csv).paired("m00000", f"m{k - 1:05d}")
        secs = time.perf_counter() - t
        check = float((p["candidate"] - p["baseline"]).sum())
else:
    n = size
    frame = pd.DataFrame({"model": np.repeat(["a", "b"], n), "split": np.tile(np.arange(n), 2),
                          "accuracy": rng.normal(0.8, 0.02, 2 * n), "n_train": 900,
                          "n_test": 100})
    cpu0, t = time.process_time(), time.perf_counter()
    s = bc.Scores.from_frame(frame)
    res = bc.compare(s, baseline="a", candidate="b", metric="accuracy", rope=0.01)
    secs = time.perf_counter() - t
    check = float(res.p_rope)
use = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the CLI's own process
peak, cpu = max(use.ru_maxrss, kids) / 1024, time.process_time() - cpu0
print(json.dumps({"seconds": secs, "cpu": cpu, "peak_mb": peak, "check": check}))
"""


#: the children's bytecode cache and CSVs: a folder of the bench's own (never the checkout)
WORK = tempfile.mkdtemp(prefix="bayescomp-bench-")
PYC = os.path.join(WORK, "pyc")


def _export(rev: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "bayescomp"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _run(tree: Path, case: str, size: int, timeout: float) -> dict | None:
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, case, str(size)],
            cwd=WORK,
            env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "PYTHONPYCACHEPREFIX": PYC},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cases(args: argparse.Namespace) -> list[tuple[str, int]]:
    if args.cases:
        return [(c.split(":")[0], int(c.split(":")[1])) for c in args.cases.split(",")]
    cases = [("rank", 300), ("rank", 1000), ("frame", 1_000_000)]
    return cases + ([("rank", 10_000)] if args.huge else [])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--previous", default=PREVIOUS, help="git revision to compare against")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--huge", action="store_true", help="also rank k = 10,000")
    ap.add_argument(
        "--cases", help="only these cases, e.g. 'rank:10000' or 'rank:1000,frame:1000000'"
    )
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument(
        "--previous-max-k",
        type=int,
        default=1000,
        help="run the previous revision's rank only up to this many models "
        "(k = 1,000 took 3c7ac9f over 15 minutes on a loaded 2-core machine)",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = _export(args.previous, Path(tmp))
        print(
            f"previous = {args.previous}, current = working tree; median of {args.repeats}, "
            "interleaved; wall s (CPU s, all threads)\n"
        )
        print(
            f"{'case':34} {'previous s':>16} {'current s':>16} {'speed-up':>9} "
            f"{'prev MB':>8} {'cur MB':>7}  same answer"
        )
        _run(ROOT, "cli", 10, args.timeout)  # warm-up: bytecode of the stack cached
        for case, size in _cases(args):
            a, b = [], []
            skip_old = case in ("rank", "cli") and size > args.previous_max_k
            for _ in range(args.repeats):
                a.append(None if skip_old else _run(old, case, size, args.timeout))
                b.append(_run(ROOT, case, size, args.timeout))
            _row(case, size, a, b, skip_old)
    shutil.rmtree(WORK, ignore_errors=True)


def _fmt(runs: list[dict | None]) -> str:
    done = [r for r in runs if r]
    if not done:
        return f"{'timed out':>16}"
    wall, cpu = median(r["seconds"] for r in done), median(r["cpu"] for r in done)
    return f"{wall:>8.2f} ({cpu:>5.1f})"


def _row(case: str, size: int, a: list, b: list, skip_old: bool) -> None:
    label = {
        "rank": f"rank, k={size:,} models x 100 splits",
        "cli": f"CLI rank CSV, k={size:,} x 10 splits",
        "paired": f"read_csv+paired, k={size:,} x 10",
    }.get(case, f"from_frame+compare, {size:,} splits")
    sb = [r["seconds"] for r in b if r] or [float("nan")]
    sa = [r["seconds"] for r in a if r] or [float("inf")]
    ref = next((r for r in b if r), None)
    same = bool(ref) and all(
        r and abs(r["check"] - ref["check"]) < 1e-6 * max(1, ref["check"]) for r in a
    )
    pa = median(r["peak_mb"] for r in a if r) if any(a) else float("nan")
    pb = median(r["peak_mb"] for r in b if r) if any(b) else float("nan")
    prev, ratio = _fmt(a), f"{median(sa) / median(sb):>8.1f}x"
    if skip_old:
        prev, ratio, same = f"{'not run':>16}", f"{'':>9}", "—"
    print(f"{label:34} {prev} {_fmt(b)} {ratio} {pa:>8.0f} {pb:>7.0f}  {same}", flush=True)


if __name__ == "__main__":
    main()
