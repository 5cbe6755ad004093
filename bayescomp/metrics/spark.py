"""Metric computations that run inside Spark: only small aggregates reach the driver.

A Databricks user's predictions live in a Spark DataFrame.  Here the per-threshold
confusion counts of :func:`bayescomp.threshold_curves` are computed by Spark (one
aggregation pass: two sums per threshold and repetition), so the driver receives
``repetitions x thresholds x 2`` numbers, never the rows.  ``pyspark`` is imported only
when a Spark DataFrame is passed (``pip install 'bayescomp[spark]'``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescomp.core.metric import count_metrics, metric_record


def is_spark_frame(obj: Any) -> bool:
    """True for a Spark (classic or Connect) DataFrame, without importing pyspark."""
    return type(obj).__module__.startswith("pyspark.sql") and type(obj).__name__ == "DataFrame"


@dataclass(frozen=True)
class Counts:
    """Confusion counts of one repetition at every threshold (``score >= threshold``)."""

    tp: np.ndarray
    fp: np.ndarray
    n_pos: int
    n_neg: int


def check_columns(df: Any, columns: dict[str, str | None]) -> None:
    """Refuse a missing column, naming the columns there are and how to name them."""
    have = list(df.columns)
    for role, name in columns.items():
        if name is not None and name not in have:
            raise ValueError(
                f"the Spark DataFrame has no {role} column {name!r}; its columns "
                f"are {have} (name them with columns={{'label': ..., 'score': ...}})"
            )


def count_rows(df: Any, label: str, score: str) -> int:
    """Rows of ``df``, in one pass that also refuses missing or NaN values (and a missing
    column or an empty DataFrame)."""
    from pyspark.sql import functions as F

    check_columns(df, {"label": label, "score": score})

    def missing(name: str) -> Any:
        floating = df.schema[name].dataType.typeName() in ("double", "float")
        return F.col(name).isNull() | (F.isnan(name) if floating else F.lit(False))

    row = _checked_rows(
        df, missing(label) | missing(score), f"a missing or NaN {label!r} or {score!r}"
    )
    return int(row["n"])


def _checked_rows(df: Any, bad: Any, what: str, *more: Any) -> Any:
    """One aggregation of ``df``: its rows ``n``, the rows where ``bad`` holds and the
    aggregates ``more``; an empty DataFrame or a bad row (``what`` it has) is refused."""
    from pyspark.sql import functions as F

    row = df.agg(
        F.count(F.lit(1)).alias("n"), F.sum(bad.cast("long")).alias("bad"), *more
    ).collect()[0]
    if row["n"] == 0:
        raise ValueError("the Spark DataFrame has no rows")
    if row["bad"]:
        raise ValueError(
            f"{row['bad']} rows have {what}; drop or fix them first (e.g. df.dropna(subset=[...]))"
        )
    return row


def score_checks(
    df: Any, *, label: str, score: str, repetition: str | None, pos_label: Any
) -> tuple[bool, int]:
    """Check the columns in Spark; return (all scores in [0, 1], number of rows).

    Refuses missing or non-finite scores, missing labels, more than two classes and a
    ``pos_label`` that is not one of the labels — each with what to do."""
    from pyspark.sql import functions as F

    check_columns(df, {"label": label, "score": score, "repetition": repetition})
    s = F.col(score).cast("double")
    row = _checked_rows(
        df,
        F.col(score).isNull() | F.isnan(s) | (F.abs(s) == float("inf")),
        f"a missing, NaN or infinite {score!r}",
        F.sum(F.col(label).isNull().cast("long")).alias("no_label"),
        F.min(s).alias("lo"),
        F.max(s).alias("hi"),
    )
    if row["no_label"]:
        raise ValueError(f"{row['no_label']} rows have no {label!r}; drop them first")
    labels = [r[0] for r in df.select(label).distinct().limit(3).collect()]
    if len(labels) > 2:
        raise ValueError(f"threshold curves need two classes; {label!r} has more (e.g. {labels})")
    if pos_label not in labels:
        raise ValueError(
            f"pos_label={pos_label!r} is not one of the labels {sorted(labels)} "
            f"of {label!r}; pass pos_label= with the positive class"
        )
    return bool(row["lo"] >= 0 and row["hi"] <= 1), int(row["n"])


def threshold_counts(
    df: Any,
    thresholds: np.ndarray,
    *,
    label: str,
    score: str,
    repetition: str | None,
    pos_label: Any,
) -> list[Counts]:
    """Confusion counts per repetition (in its sorted order) at every threshold, in Spark.

    One ``groupBy(repetition).agg(...)`` pass with two conditional sums per threshold:
    exact integer counts, equal to counting the same rows in memory."""
    from pyspark.sql import functions as F

    pos = F.col(label) == F.lit(pos_label)
    s = F.col(score).cast("double")
    aggs = [F.sum(pos.cast("long")).alias("n_pos"), F.count(F.lit(1)).alias("n")]
    for i, t in enumerate(thresholds):
        above = s >= F.lit(float(t))
        aggs += [
            F.sum((pos & above).cast("long")).alias(f"tp{i}"),
            F.sum((~pos & above).cast("long")).alias(f"fp{i}"),
        ]
    grouped = df.groupBy(repetition) if repetition is not None else df.groupBy()
    rows = grouped.agg(*aggs).collect()
    if repetition is not None:
        rows = sorted(rows, key=lambda r: r[repetition])
    out = []
    for r in rows:
        k = len(thresholds)
        tp = np.array([r[f"tp{i}"] or 0 for i in range(k)], dtype=float)
        fp = np.array([r[f"fp{i}"] or 0 for i in range(k)], dtype=float)
        n_pos = int(r["n_pos"] or 0)
        out.append(Counts(tp, fp, n_pos, int(r["n"]) - n_pos))
    return out


def uniform(*cols: Any) -> Any:
    """A uniform in [0, 1) from a 64-bit hash of ``cols`` (53 bits): a seeded draw that any
    Spark (classic or Connect) computes the same way for the same inputs."""
    from pyspark.sql import functions as F

    return F.xxhash64(*cols).bitwiseAND(F.lit(2**53 - 1)) / F.lit(float(2**53))


def confusion_counts(
    df: Any, *, label: str, score: str, pos_label: Any, threshold: float | None
) -> dict[str, int]:
    """``tp, fp, fn, tn``, ``ok`` (equal labels, any number of classes) and ``n`` of all rows,
    summed in Spark.  ``score`` holds scores (turned into labels by ``threshold``) or
    predicted labels."""
    from pyspark.sql import functions as F

    pos = F.col(label) == F.lit(pos_label)
    if threshold is not None:
        said = F.col(score).cast("double") >= F.lit(float(threshold))
        correct = pos == said
    else:
        said = F.col(score) == F.lit(pos_label)
        correct = F.col(label) == F.col(score)
    cells = {"tp": pos & said, "fp": ~pos & said, "fn": pos & ~said, "tn": ~pos & ~said}
    row = df.agg(
        *(F.sum(c.cast("long")).alias(k) for k, c in cells.items()),
        F.sum(correct.cast("long")).alias("ok"),
        F.count(F.lit(1)).alias("n"),
    ).collect()[0]
    return {k: int(row[k] or 0) for k in (*cells, "ok", "n")}


def confusion_value(
    df: Any, name: str, *, label: str, score: str, pos_label: Any, threshold: float | None
) -> float | None:
    """A metric of the confusion counts on all rows, from exact counts summed in Spark.

    Accuracy and error rate count equal labels (any number of classes); the others need
    two classes and return None otherwise (the caller falls back)."""
    record = metric_record(name)
    multiclass = record.item in ("hit", "miss")  # accuracy, error rate: equal labels
    if not multiclass and len(df.select(label).distinct().limit(3).collect()) > 2:
        return None
    c = confusion_counts(df, label=label, score=score, pos_label=pos_label, threshold=threshold)
    if multiclass:  # as (tp + tn) / n and (fp + fn) / n with tp = ok, fp = n - ok
        return float(record.from_counts(c["ok"], c["n"] - c["ok"], 0, 0))
    return float(record.from_counts(c["tp"], c["fp"], c["fn"], c["tn"]))


def poisson_bootstrap(
    df: Any,
    metric: str,
    *,
    label: str,
    score: str,
    pos_label: Any,
    threshold: float | None,
    n_resamples: int,
    seed: int,
) -> tuple[float, np.ndarray, int]:
    """Poisson bootstrap of a confusion-count metric: the counts summed in Spark.

    Every row gets an independent Poisson(1) weight in every resample (the standard
    distributed bootstrap).  The metric needs only the weighted ``tp, fp, fn, tn``, and a
    sum of ``m`` independent Poisson(1) weights is Poisson(``m``), independently for the
    four disjoint cells: so the driver draws each resample's cells as Poisson(count) from
    the four exact counts, the same distribution as drawing every row's weight, and the
    same numbers for a given ``seed`` however the rows are partitioned.  Returns the
    full-data value, the resampled values and the number of rows."""
    if metric not in count_metrics():
        raise ValueError(
            f"on a Spark DataFrame bootstrap_metric computes roc_auc and {count_metrics()} "
            f"in Spark (from weighted counts); got {metric!r}. For another metric use "
            "bc.blb_metric (any metric, in Spark) or the in-memory functions on its rows"
        )
    count_rows(df, label, score)
    c = confusion_counts(df, label=label, score=score, pos_label=pos_label, threshold=threshold)
    full = np.array([c[k] for k in ("tp", "fp", "fn", "tn")], dtype=float)
    draws = np.random.default_rng(seed).poisson(full, size=(int(n_resamples), 4))
    values = metric_record(metric).from_counts(*np.vstack([full, draws]).T)
    return float(values[0]), values[1:], c["n"]
