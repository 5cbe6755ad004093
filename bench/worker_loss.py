"""Benchmark: fits recomputed per killed worker on a local Dask cluster (issue 25).

Run by hand:  python bench/worker_loss.py [--kills 10] [--repeats 10] [--delay 0.5]

A selection with a store (3 models x 3 folds x ``--repeats``, each fit sleeping
``--delay`` s) runs in its own process on a 2-worker Dask ``LocalCluster`` (nannies restart
killed workers) while this script SIGKILLs a random worker ``--kills`` times at seeded
random points.  Every fit appends a line to a log as it starts, so the fits started minus
the fits needed is the work the kills cost.  Prints, against an uninterrupted run on the
same cluster: wall time, fits started, fits recomputed per kill, fits the engine retried
(``Selection.fits_retried``), store rows, and whether the answer is identical.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "tests" / "fit_driver.py"


def fits(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store, timeout=5) as con:
            return con.execute("SELECT COUNT(*) FROM fits").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def run(address: str, folder: Path, args: argparse.Namespace, client, kills: int) -> dict:
    store, out, starts = folder / "s.sqlite", folder / "out.json", folder / "starts.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            str(DRIVER),
            str(out),
            "--backend",
            "dask",
            "--scheduler",
            address,
            "--store",
            str(store),
            "--delay",
            str(args.delay),
            "--n-repeats",
            str(args.repeats),
            "--log",
            str(starts),
        ],
        env=env,
        start_new_session=True,
    )
    rng = random.Random(args.seed)
    done = 0
    total = 9 * args.repeats
    while done < kills and proc.poll() is None:
        if fits(store) < (done + 1) * total // (kills + 2):  # spread over the run
            time.sleep(0.05)
            continue
        client.wait_for_workers(1, timeout=120)
        pids = list(client.run(os.getpid, on_error="ignore").values())
        time.sleep(rng.uniform(0, args.delay))
        os.kill(rng.choice(pids), signal.SIGKILL)
        done += 1
    rc = proc.wait(timeout=3600)
    res = json.loads(out.read_text())
    started = len(starts.read_text().splitlines()) if starts.exists() else 0
    return {
        "rc": rc,
        "seconds": time.perf_counter() - t0,
        "kills": done,
        "started": started,
        "store_rows": fits(store),
        **res,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kills", type=int, default=10)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--delay", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    import distributed

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=None
        )
        client = distributed.Client(cluster)
    client.wait_for_workers(2, timeout=120)
    rows = {}
    for label, kills in (("uninterrupted", 0), (f"{args.kills} kills", args.kills)):
        with tempfile.TemporaryDirectory() as tmp:
            rows[label] = run(cluster.scheduler_address, Path(tmp), args, client, kills)
    client.close()
    cluster.close(timeout=30)
    need = 9 * args.repeats
    print(
        f"{need} fits (3 models x 3 folds x {args.repeats} repeats, {args.delay} s each), "
        "2 Dask workers under nannies"
    )
    print(
        f"{'run':>14} {'kills':>5} {'seconds':>8} {'started':>8} {'recomputed/kill':>15} "
        f"{'retried':>7} {'store rows':>10} same answer"
    )
    ref = rows["uninterrupted"]
    for label, r in rows.items():
        per_kill = (r["started"] - need) / r["kills"] if r["kills"] else 0.0
        same = all(r[k] == ref[k] for k in ("champion", "decisions", "scores"))
        print(
            f"{label:>14} {r['kills']:>5} {r['seconds']:>8.1f} {r['started']:>8} "
            f"{per_kill:>15.2f} {r['fits_retried']:>7} {r['store_rows']:>10} {same}"
        )


if __name__ == "__main__":
    main()
