"""The bag of little bootstraps on a Spark DataFrame, run inside Spark.

:func:`bayescomp.blb_metric` with a Spark DataFrame follows the in-memory algorithm
(``metrics/blb.py``) step by step, with the rows never leaving Spark:

1. one aggregation pass counts the rows of every partition (and refuses missing or NaN
   values);
2. the driver draws, for each of the ``s`` subsets, how many of its ``b`` rows come from
   each partition (a multivariate hypergeometric draw over the partition sizes: together
   with a uniform choice inside each partition this is exactly a uniform draw of ``b`` of
   the ``n`` rows without replacement, as in memory);
3. one ``mapInPandas`` pass picks those rows in every partition; a ``groupBy(subset)``
   brings each subset's ``b`` rows to one Spark task, which runs the same per-subset
   resampling as in memory (multinomial weights of total ``n`` over the ``b`` rows);
4. the driver receives per subset its value, two quantiles, an SD and the ``r``
   resampled deviations, and applies the adaptive stopping over subsets in their order.

The chosen rows (``s x b``) are picked in one pass and cached; they are resampled in
rounds (one Spark job each, as many subsets as Spark runs at once) until the averaged
interval width settles, so no more subsets are resampled than in memory.  The centre is
the metric on all rows, computed in Spark for ROC AUC
(:mod:`bayescomp.metrics.spark_auc`) and for the confusion-count metrics; for other
metrics it is the mean of the subset values (widened by its standard error, with a
warning) unless ``estimate=`` gives it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescomp.core.metric import count_metrics
from bayescomp.core.orientation import check_metric_value
from bayescomp.metrics._metric import MetricSpec, check_predictions
from bayescomp.metrics.blb_core import (
    BLBInterval,
    assemble,
    extend_history,
    settled,
    subset_size,
    subset_task,
)
from bayescomp.metrics.spark import check_columns, confusion_value

_RESULT_SCHEMA = (
    "subset long, center double, lo double, hi double, sd double, r long, "
    "dev array<double>, error string"
)


def partition_sizes(df: Any, label: str, score: str) -> dict[int, int]:
    """Rows per Spark partition, in one pass that also refuses missing or NaN values (and a
    missing column or an empty DataFrame).

    The rows are counted by the same plan that :func:`pick_subsets` runs
    (``select(label, score).mapInPandas``), so both passes see the same partitions."""
    import pandas as pd
    from pyspark import TaskContext

    check_columns(df, {"label": label, "score": score})

    def count(batches: Any) -> Any:
        n = bad = 0
        for batch in batches:
            n += len(batch)
            bad += int((batch["y"].isna() | batch["s"].isna()).sum())
        yield pd.DataFrame({"pid": [TaskContext.get().partitionId()], "n": [n], "bad": [bad]})

    rows = _rows(df, label, score).mapInPandas(count, "pid long, n long, bad long").collect()
    n_bad = sum(int(r["bad"]) for r in rows)
    if sum(int(r["n"]) for r in rows) == 0:
        raise ValueError("the Spark DataFrame has no rows")
    if n_bad:
        raise ValueError(
            f"{n_bad} rows have a missing or NaN {label!r} or {score!r}; drop or fix "
            "them first (e.g. df.dropna(subset=[...]))"
        )
    return {int(r["pid"]): int(r["n"]) for r in rows if r["n"]}


def _rows(df: Any, label: str, score: str) -> Any:
    return df.select(df[label].alias("y"), df[score].alias("s"))


def pick_subsets(
    df: Any, label: str, score: str, sizes: dict[int, int], alloc: np.ndarray, seed: int
) -> Any:
    """A DataFrame ``(subset, y, s)`` of the chosen rows: subset ``j`` takes
    ``alloc[j, pid]`` rows of partition ``pid``, chosen uniformly without replacement."""
    import pandas as pd
    from pyspark import TaskContext
    from pyspark.sql.types import LongType, StructField, StructType

    pids = sorted(sizes)

    def pick(batches: Any) -> Any:
        pid = TaskContext.get().partitionId()
        size = sizes.get(pid, 0)
        rng = np.random.default_rng([seed, pid])
        col = pids.index(pid) if pid in sizes else None
        chosen = [
            rng.choice(size, int(alloc[j, col]), replace=False) if col is not None else []
            for j in range(alloc.shape[0])
        ]
        where = np.concatenate([np.asarray(c, dtype=np.int64) for c in chosen])
        which = np.concatenate([np.full(len(c), j, dtype=np.int64) for j, c in enumerate(chosen)])
        order = np.argsort(where, kind="stable")
        where, which = where[order], which[order]
        seen = 0
        for batch in batches:
            lo, hi = np.searchsorted(where, [seen, seen + len(batch)])
            if hi > lo:
                rows = batch.iloc[where[lo:hi] - seen]
                yield pd.DataFrame(
                    {"subset": which[lo:hi], "y": rows["y"].to_numpy(), "s": rows["s"].to_numpy()}
                )
            seen += len(batch)
        if seen != size:
            raise RuntimeError(
                f"Spark partition {pid} held {seen} rows while counting found {size}: the "
                "DataFrame is not deterministic between passes; df.cache() or checkpoint() "
                "it first"
            )

    schema = StructType(
        [
            StructField("subset", LongType()),
            StructField("y", df.schema[label].dataType),
            StructField("s", df.schema[score].dataType),
        ]
    )
    return _rows(df, label, score).mapInPandas(pick, schema)


def resample_subsets(
    picked: Any,
    spec: MetricSpec,
    subsets: range,
    *,
    n: int,
    n_resamples: int,
    seeds: np.ndarray,
    alpha: float,
    adaptive: bool,
    tol: float,
    threshold: float | None,
    pos_label: Any,
) -> list[dict[str, Any]]:
    """Resampling of the ``subsets`` (indices), each in its own Spark task; their results,
    in order."""
    import pandas as pd
    from pyspark.sql import functions as F

    def one(frame: pd.DataFrame) -> pd.DataFrame:
        j = int(frame["subset"].iloc[0])
        row: dict[str, Any] = {"subset": j, "error": None}
        try:
            t, p = check_predictions(
                frame["y"].to_numpy(),
                frame["s"].to_numpy(),
                spec,
                threshold=threshold,
                pos_label=pos_label,
                name="the score column",
            )
            row |= subset_task(spec, t, p, n, n_resamples, int(seeds[j]), alpha, adaptive, tol)
        except ValueError as exc:  # reported by the driver, with its message intact
            row |= {"center": np.nan, "lo": np.nan, "hi": np.nan, "sd": np.nan, "r": 0}
            row |= {"dev": np.array([]), "error": str(exc)}
        return pd.DataFrame([row])

    chosen = picked.filter(F.col("subset").isin(list(subsets)))
    rows = chosen.groupBy("subset").applyInPandas(one, _RESULT_SCHEMA).collect()
    rows = sorted(rows, key=lambda r: r["subset"])
    for r in rows:
        if r["error"]:
            raise ValueError(f"subset {r['subset']}: {r['error']}")
    keys = ("center", "lo", "hi", "sd", "r")
    return [{**{k: r[k] for k in keys}, "dev": np.asarray(r["dev"], dtype=float)} for r in rows]


def _parallelism(df: Any) -> int:
    """Subsets per round: Spark's default parallelism (2 when it cannot be read)."""
    try:
        return max(1, int(df.sparkSession.sparkContext.defaultParallelism))
    except Exception:  # Spark Connect has no SparkContext
        return 2


def _rounds(
    run: Any, n_subsets: int, adaptive: bool, stopping: tuple[float, int, int], per_round: int
) -> tuple[list[dict[str, Any]], list[float], bool]:
    """Resample subsets in rounds (one Spark job each) until ``n_subsets`` or, when
    ``adaptive``, until the width has settled; the rule is applied one subset at a time, in
    order, as in memory.  Returns the results, the width history and whether it converged."""
    tol, window, min_subsets = stopping
    first = min(n_subsets, max(min_subsets, window + 1, per_round)) if adaptive else n_subsets
    results: list[dict[str, Any]] = []
    history: list[float] = []
    while len(results) < n_subsets:
        k = first if not results else min(per_round, n_subsets - len(results))
        for r in run(range(len(results), len(results) + k)):
            results.append(r)
            extend_history(results, history)
            if adaptive and settled(history, tol=tol, window=window, min_subsets=min_subsets):
                return results, history, True
    return results, history, not adaptive


def spark_center(
    estimate: Any,
    df: Any,
    spec: MetricSpec,
    *,
    label: str,
    score: str,
    threshold: float | None,
    pos_label: Any,
) -> tuple[float | None, str]:
    """The interval's centre and its source, as ``blb._center`` but computed in Spark."""
    if isinstance(estimate, int | float | np.number) and not isinstance(estimate, bool):
        return check_metric_value(estimate, spec.name, "estimate"), "given"
    est = None
    if estimate != "subsets":
        if spec.fast == "roc_auc":
            from bayescomp.metrics.spark import score_checks
            from bayescomp.metrics.spark_auc import spark_auc

            score_checks(df, label=label, score=score, repetition=None, pos_label=pos_label)
            est = float(spark_auc(df, label=label, score=score, pos_label=pos_label)[0])
        elif spec.name in count_metrics():
            est = confusion_value(
                df, spec.name, label=label, score=score, pos_label=pos_label, threshold=threshold
            )
    if est is None and estimate == "full":
        raise ValueError(
            f"the full-data value of {spec.name!r} is computed in Spark only for roc_auc and "
            f"{count_metrics()}; pass estimate='subsets' or your own value"
        )
    if est is not None and not np.isfinite(est):
        raise ValueError(f"metric {spec.name!r} is undefined on the full data")
    return est, "full" if est is not None else "subsets"


def spark_blb(
    df: Any,
    spec: MetricSpec,
    *,
    columns: dict[str, str],
    exponent: float,
    n_subsets: int,
    n_resamples: int,
    confidence_level: float,
    method: str,
    adaptive: bool,
    stopping: tuple[float, int, int],
    estimate: Any,
    threshold: float | None,
    pos_label: Any,
    random_state: Any,
) -> BLBInterval:
    """:func:`bayescomp.blb_metric` on a Spark DataFrame (see the module docstring).

    ``stopping`` is ``(tol, window, min_subsets)``."""
    label, score = columns.get("label", "y_true"), columns.get("score", "y_score")
    sizes = partition_sizes(df, label, score)
    n = sum(sizes.values())
    b = subset_size(n, exponent, stacklevel=3)
    rng = np.random.default_rng(random_state)
    counts = np.array([sizes[p] for p in sorted(sizes)], dtype=np.int64)
    alloc = np.stack([rng.multivariate_hypergeometric(counts, b) for _ in range(n_subsets)])
    seeds = rng.integers(2**63 - 1, size=n_subsets)
    picked = pick_subsets(df, label, score, sizes, alloc, int(rng.integers(2**63 - 1)))
    alpha = 1 - float(confidence_level)
    tol = stopping[0]
    picked = picked.persist()  # s x b rows, resampled in rounds until the width settles
    try:
        results, history, converged = _rounds(
            lambda js: resample_subsets(
                picked,
                spec,
                js,
                n=n,
                n_resamples=n_resamples,
                seeds=seeds,
                alpha=alpha,
                adaptive=adaptive,
                tol=tol,
                threshold=threshold,
                pos_label=pos_label,
            ),
            n_subsets,
            adaptive,
            stopping,
            _parallelism(df),
        )
    finally:
        picked.unpersist()
    center = spark_center(
        estimate, df, spec, label=label, score=score, threshold=threshold, pos_label=pos_label
    )
    return assemble(
        spec,
        results,
        history,
        center,
        converged,
        alpha=alpha,
        confidence_level=float(confidence_level),
        method=method,
        n=n,
        exponent=exponent,
        b=b,
    )
