"""Benchmark: the bag of little bootstraps on a Spark DataFrame of 10^7 rows (issue 22).

Run by hand (niced on a shared machine):

    nice -n 10 python bench/spark_blb.py [--rows 10000000] [--repeats 2] [--data DIR]

Writes ``--rows`` labelled scores (seeded, continuous scores) to Parquet once, then runs,
interleaved ``--repeats`` times, each in a fresh process:

* **spark**: ``blb_metric(df, None, "roc_auc", columns=...)`` on the Parquet files read by
  Spark ``local[2]`` (``spark.driver.memory``: ``--driver-memory``, 1g); the rows stay in Spark;
* **memory**: the same rows read into NumPy, ``blb_metric(y, p, "roc_auc", n_jobs=2)``.

Both use the same settings and seed.  Reported per run: the ``blb_metric`` wall time,
the driver's Python peak RSS (``ru_maxrss`` of that process), for Spark the driver JVM's
peak RSS (``VmHWM``) and its peak heap (sum of the heap pools' peak usage, JMX), and the
interval.  The Spark/memory time ratio is taken within each interleaved pair.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SETTINGS = dict(n_subsets=20, n_resamples=100, subset_exponent=0.7)


def write_data(folder: Path, rows: int, files: int = 8) -> None:
    """Seeded labels (30% positive) and logistic scores, in ``files`` Parquet files."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    per = -(-rows // files)
    for k in range(files):
        m = min(per, rows - k * per)
        y = (rng.random(m) < 0.3).astype(np.int8)
        p = 1 / (1 + np.exp(-(1.2 * y + rng.normal(-0.5, 1.0, m))))
        pq.write_table(pa.table({"label": y, "p": p}), folder / f"part-{k}.parquet")
    (folder / "_ROWS").write_text(str(rows))


def peak_python_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_spark(data: Path, seed: int, driver_memory: str = "1g") -> dict:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import bayescomp as bc

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    sdf = spark.read.parquet(str(data))
    t0 = time.perf_counter()
    ci = bc.blb_metric(
        sdf, None, "roc_auc", random_state=seed, columns={"label": "label", "score": "p"},
        **SETTINGS,
    )  # fmt: skip
    seconds = time.perf_counter() - t0
    jvm = spark.sparkContext._jvm
    heap = sum(
        pool.getPeakUsage().getUsed()
        for pool in jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
        if str(pool.getType()) == "Heap memory"
    )
    jvm_pid = spark.sparkContext._gateway.proc.pid
    status = Path(f"/proc/{jvm_pid}/status").read_text()
    hwm = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM"))
    partitions = sdf.rdd.getNumPartitions()
    spark.stop()
    return {
        "seconds": seconds,
        "python_peak_mb": peak_python_mb(),
        "jvm_peak_rss_mb": hwm / 1024,
        "jvm_peak_heap_mb": heap / 2**20,
        "partitions": partitions,
        **interval(ci),
    }


def child_memory(data: Path, seed: int) -> dict:
    import pyarrow.parquet as pq

    import bayescomp as bc

    table = pq.read_table(data)
    y = table.column("label").to_numpy()
    p = table.column("p").to_numpy()
    del table
    t0 = time.perf_counter()
    ci = bc.blb_metric(y, p, "roc_auc", random_state=seed, n_jobs=2, **SETTINGS)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "python_peak_mb": peak_python_mb(), **interval(ci)}


def interval(ci) -> dict:
    return {
        "estimate": ci.estimate,
        "low": ci.low,
        "high": ci.high,
        "n": ci.n,
        "b": ci.b,
        "n_subsets": ci.n_subsets,
    }


def run_child(mode: str, data: Path, seed: int, driver_memory: str) -> dict:
    cmd = [sys.executable, __file__, "--child", mode, "--data", str(data), "--seed", str(seed)]
    out = subprocess.run(
        [*cmd, "--driver-memory", driver_memory],
        capture_output=True,
        text=True,
        check=False,
        timeout=3600,
    )
    if out.returncode:
        raise SystemExit(f"{mode} run failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--data", type=Path, default=None, help="Parquet folder (kept)")
    ap.add_argument("--child", choices=("spark", "memory"), default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--driver-memory", default="1g", help="spark.driver.memory (JVM heap)")
    args = ap.parse_args()
    if args.child:
        if args.child == "spark":
            print(json.dumps(child_spark(args.data, args.seed, args.driver_memory)))
        else:
            print(json.dumps(child_memory(args.data, args.seed)))
        return
    data = args.data or Path(tempfile.gettempdir()) / f"bayescomp-spark-blb-{args.rows}"
    if not (data / "_ROWS").exists():
        write_data(data, args.rows)
    load = os.getloadavg()
    runs = []
    for rep in range(args.repeats):  # interleaved: spark, memory, spark, memory, ...
        pair = {m: run_child(m, data, rep, args.driver_memory) for m in ("spark", "memory")}
        pair["ratio"] = pair["spark"]["seconds"] / pair["memory"]["seconds"]
        runs.append(pair)
        print(json.dumps({"repeat": rep, **pair}), flush=True)
    summary = {
        "rows": args.rows,
        "settings": SETTINGS,
        "load_before": load,
        "load_after": os.getloadavg(),
        "cpus": os.cpu_count(),
        "median_ratio_spark_over_memory": statistics.median(r["ratio"] for r in runs),
        "max_driver_python_peak_mb_spark": max(r["spark"]["python_peak_mb"] for r in runs),
        "max_jvm_peak_heap_mb": max(r["spark"]["jvm_peak_heap_mb"] for r in runs),
        "max_jvm_peak_rss_mb": max(r["spark"]["jvm_peak_rss_mb"] for r in runs),
        "max_python_peak_mb_memory": max(r["memory"]["python_peak_mb"] for r in runs),
    }
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
