"""ROC AUC of a Spark DataFrame, exactly and with per-row weights, in Spark aggregations.

The AUC is the Mann–Whitney statistic with half credit for ties::

    AUC = sum over positives i, negatives j of w_i w_j ([s_i > s_j] + [s_i = s_j] / 2)
          / (sum of positive weights * sum of negative weights)

:func:`weighted_auc` forms it with DataFrame operations only (so classic Spark and Spark
Connect run the same plan).  The scores are cut into ``RANGES`` ranges at approximate
quantiles (equal scores share a range); a ``groupBy(k, range, score)`` sums the positive
and negative weight of each distinct score (ties are one group), a running sum over a
window ordered by score within each range gives the negative weight strictly below each
group, and a ``groupBy(k, range)`` returns three integer sums per weight column ``k`` and
range: ``3 x RANGES x columns`` numbers reach the driver, never the rows, and the driver
adds the pairs across ranges.  Weight column 0 is all ones (the full-data AUC); columns ``1..n_resamples`` are
Poisson(1) weights, one per bootstrap resample (:func:`spark_auc`).  :func:`spark_bootstrap`
is :func:`bayescomp.bootstrap_metric` on a Spark DataFrame: this AUC, or the Poisson
bootstrap of the confusion counts (:func:`~bayescomp.metrics.spark.poisson_bootstrap`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bayescomp.metrics.spark import poisson_bootstrap, score_checks, uniform

#: P(K <= k) for K ~ Poisson(1), k = 0..17: a uniform draw lying above k of them is a draw
#: of k (beyond 17 the tail is below a 53-bit uniform's resolution)
POISSON_CDF = np.cumsum([math.exp(-1) / math.factorial(k) for k in range(18)])
#: score ranges (cut at approximate quantiles) whose running sums run in parallel
RANGES = 32


def weighted_auc(rows: Any) -> np.ndarray:
    """AUC per weight column from a DataFrame ``(k, b, s, p, w)``: column ``k``, score ``s``
    in score range ``b`` (ranges numbered in ascending order of score), ``p`` 1 for a
    positive and 0 for a negative, integer weight ``w``.  Element ``k`` of the result is
    column ``k``'s AUC (NaN where a column lacks a class).

    The running sums run per ``(k, b)`` in parallel; the driver adds each range's positive
    weight times the negative weight of the ranges below it."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    groups = rows.groupBy("k", "b", "s").agg(
        F.sum(F.col("w") * F.col("p")).alias("pw"),
        F.sum(F.col("w") * (1 - F.col("p"))).alias("nw"),
    )
    running = Window.partitionBy("k", "b").orderBy("s").rowsBetween(Window.unboundedPreceding, -1)
    below = F.coalesce(F.sum("nw").over(running), F.lit(0))  # negative weight below s
    totals = (
        groups.withColumn("below", below)
        .groupBy("k", "b")
        .agg(
            F.sum("pw").alias("pos"),
            F.sum("nw").alias("neg"),
            F.sum(F.col("pw") * (2 * F.col("below") + F.col("nw"))).alias("num2"),
        )
        .collect()
    )
    if not totals:
        raise ValueError("the Spark DataFrame has no rows")
    k, b = (np.array([r[c] for r in totals], dtype=np.int64) for c in ("k", "b"))
    pos, neg, num2 = (np.zeros((k.max() + 1, b.max() + 1), dtype=np.int64) for _ in range(3))
    for r, i, j in zip(totals, k, b, strict=True):
        pos[i, j], neg[i, j], num2[i, j] = r["pos"], r["neg"], r["num2"]
    num2 = num2 + 2 * pos * (np.cumsum(neg, axis=1) - neg)  # negatives of lower ranges
    with np.errstate(invalid="ignore", divide="ignore"):
        return num2.sum(axis=1) / (2.0 * pos.sum(axis=1).astype(float) * neg.sum(axis=1))


def spark_auc(
    df: Any, *, label: str, score: str, pos_label: Any, n_resamples: int = 0, seed: int = 0
) -> np.ndarray:
    """ROC AUC of a Spark DataFrame (element 0) and of ``n_resamples`` Poisson-bootstrap
    resamples (elements 1..), computed in Spark; NaN where a resample lacks a class.

    Each row's weight in resample ``k`` is a Poisson(1) draw from a hash of ``seed``, ``k``
    and the row's ``monotonically_increasing_id``: reproducible for the same data and
    partitioning."""
    from pyspark.sql import functions as F

    rows = df.select(
        (F.col(label) == F.lit(pos_label)).cast("long").alias("p"),
        (F.col(score).cast("double") + F.lit(0.0)).alias("s"),  # -0.0 -> 0.0
    )
    cuts = rows.agg(F.percentile_approx("s", [i / RANGES for i in range(1, RANGES)])).first()
    rows = rows.withColumn(
        "b",
        sum(((F.col("s") > F.lit(c)).cast("int") for c in sorted(set(cuts[0] or []))), F.lit(0)),
    )
    if not n_resamples:
        return weighted_auc(rows.select(F.lit(0).alias("k"), "b", "s", "p", F.lit(1).alias("w")))
    k = F.explode(F.sequence(F.lit(0), F.lit(int(n_resamples)))).alias("k")
    rows = rows.withColumn("rid", F.monotonically_increasing_id()).select("b", "s", "p", "rid", k)
    u = uniform(F.col("rid"), F.col("k"), F.lit(int(seed)))
    poisson = sum(((u >= F.lit(float(c))).cast("long") for c in POISSON_CDF), F.lit(0))
    w = F.when(F.col("k") == 0, F.lit(1)).otherwise(poisson)
    return weighted_auc(rows.select("k", "b", "s", "p", w.alias("w")))


def spark_bootstrap(
    df: Any,
    spec: Any,
    method: str,
    n_resamples: int,
    confidence_level: float,
    threshold: float | None,
    pos_label: Any,
    random_state: Any,
    columns: dict[str, str],
) -> Any:
    """:func:`bayescomp.bootstrap_metric` on a Spark DataFrame: a Poisson bootstrap run in
    Spark (:func:`~bayescomp.metrics.spark.poisson_bootstrap`; ROC AUC by :func:`spark_auc`),
    as a :class:`~bayescomp.metrics.bootstrap.MetricInterval`."""
    from bayescomp.metrics.interval import MetricInterval

    if method not in ("percentile", "basic"):
        raise ValueError(
            f"method={method!r} needs a jackknife over all rows; the Poisson "
            "bootstrap in Spark forms method='percentile' or 'basic' intervals"
        )
    seed = int(np.random.default_rng(random_state).integers(2**31 - 1))
    label, score = columns.get("label", "y_true"), columns.get("score", "y_score")
    if spec.fast == "roc_auc" and threshold is None:
        n = score_checks(df, label=label, score=score, repetition=None, pos_label=pos_label)[1]
        values = spark_auc(
            df, label=label, score=score, pos_label=pos_label, n_resamples=n_resamples, seed=seed
        )
        est, dist = float(values[0]), values[1:]
        if not np.isfinite(est):
            raise ValueError(f"roc_auc needs both classes in {label!r}; it holds only one")
    else:
        est, dist, n = poisson_bootstrap(
            df,
            spec.name,
            label=label,
            score=score,
            pos_label=pos_label,
            threshold=threshold,
            n_resamples=n_resamples,
            seed=seed,
        )
    if not np.all(np.isfinite(dist)):
        raise ValueError(
            f"metric {spec.name!r} was undefined on some resamples (no "
            "positive, or no predicted positive); use a larger test set"
        )
    alpha = 1 - float(confidence_level)
    q_lo, q_hi = np.quantile(dist, [alpha / 2, 1 - alpha / 2])
    low, high = (q_lo, q_hi) if method == "percentile" else (2 * est - q_hi, 2 * est - q_lo)
    return MetricInterval(  # clipped to the metric's range (a basic interval can pass it)
        metric=spec.name,
        estimate=est,
        low=low,
        high=high,
        standard_error=float(np.std(dist, ddof=1)),
        distribution=dist,
        confidence_level=float(confidence_level),
        method=method,
        n=n,
        n_resamples=int(n_resamples),
        higher_is_better=spec.higher_is_better,
    )
