"""The bag of little bootstraps on a Spark DataFrame, run inside Spark.

:func:`bayescomp.blb_metric` with a Spark DataFrame follows the in-memory algorithm
(``metrics/blb.py``) step by step, with the rows never leaving Spark and only DataFrame
operations (so classic Spark and Spark Connect run the same plans):

1. one aggregation counts the rows (and refuses missing or NaN values);
2. one pass draws the ``s`` subsets (:func:`pick_subsets`): every row gets, for each
   subset, a uniform key hashed from the seed, the subset and the row's id, and a subset
   is the ``b`` rows with the smallest keys (a window's ``row_number``): a uniform draw of
   ``b`` of the ``n`` rows without replacement, as in memory, independently per subset;
3. a ``groupBy(subset).applyInPandas`` brings each subset's ``b`` rows to one Spark task,
   which runs the same per-subset resampling as in memory (multinomial weights of total
   ``n`` over the ``b`` rows);
4. the driver receives per subset its value, two quantiles, an SD and the ``r``
   resampled deviations, and applies the adaptive stopping over subsets in their order.

The chosen rows (``s x b``) are drawn in one pass and cached where Spark caches (not on
Databricks serverless, where each round draws the same rows again); they are resampled in
rounds (one Spark job each) until the averaged interval width settles, so no more subsets
are resampled than in memory.  The centre is the metric on all rows, computed in Spark for
ROC AUC (:mod:`bayescomp.metrics.spark_auc`) and for the confusion-count metrics; for
other metrics it is the mean of the subset values (widened by its standard error, with a
warning) unless ``estimate=`` gives it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from bayescomp.core.metric import count_metrics
from bayescomp.metrics._metric import MetricSpec, check_predictions
from bayescomp.metrics.blb_core import BLBInterval, BLBSettings, bag, subset_size, subset_task
from bayescomp.metrics.spark import confusion_value, count_rows, score_checks, uniform

_RESULT_SCHEMA = (
    "subset long, center double, lo double, hi double, sd double, r long, "
    "dev array<double>, error string"
)
#: standard deviations of margin in the candidate rate of :func:`pick_subsets`
MARGIN = 8.0


def pick_subsets(
    df: Any, label: str, score: str, *, n: int, b: int, n_subsets: int, seed: int
) -> Any:
    """A DataFrame ``(subset, i, y, s)`` of ``n_subsets`` subsets of ``b`` rows each, each a
    uniform draw without replacement (``i``: the row's place in its subset, 1..b).

    Subset ``j`` holds the ``b`` rows with the smallest keys ``uniform(row id, j, seed)``.
    Only rows whose key lies below a rate ``q`` (``MARGIN`` standard deviations above
    ``b / n``) are candidates, so ``n_subsets x q x n`` rows reach the window, not
    ``n_subsets x n``; a subset with fewer than ``b`` candidates (probability below
    1e-12) is refused by :func:`resample_subsets`."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    q = min(1.0, (b + MARGIN * np.sqrt(b) + MARGIN) / n)
    subset = F.explode(F.sequence(F.lit(0), F.lit(int(n_subsets) - 1))).alias("subset")
    rows = df.select(
        df[label].alias("y"), df[score].alias("s"), F.monotonically_increasing_id().alias("rid")
    )
    keyed = rows.select("*", subset).withColumn(
        "u", uniform(F.col("rid"), F.col("subset"), F.lit(int(seed)))
    )
    order = Window.partitionBy("subset").orderBy("u", "rid")
    return (
        keyed.filter(F.col("u") < F.lit(q))
        .withColumn("i", F.row_number().over(order))
        .filter(F.col("i") <= b)
        .select("subset", "i", "y", "s")
    )


def resample_subsets(
    picked: Any,
    spec: MetricSpec,
    subsets: range,
    *,
    n: int,
    b: int,
    seeds: np.ndarray,
    settings: BLBSettings,
) -> list[dict[str, Any]]:
    """Resampling of the ``subsets`` (indices), each in its own Spark task; their results,
    in order."""
    import pandas as pd
    from pyspark.sql import functions as F

    def one(frame: pd.DataFrame) -> pd.DataFrame:
        j = int(frame["subset"].iloc[0])
        frame = frame.sort_values("i")  # the draw's order: the same weights for the same rows
        row: dict[str, Any] = {"subset": j, "error": None}
        try:
            if len(frame) != b:
                raise ValueError(
                    f"{len(frame)} rows were drawn instead of {b} (a chance below 1e-12); "
                    "run again with another random_state"
                )
            t, p = check_predictions(
                frame["y"].to_numpy(),
                frame["s"].to_numpy(),
                spec,
                threshold=settings.threshold,
                pos_label=settings.pos_label,
                name="the score column",
            )
            row |= subset_task(spec, t, p, n, int(seeds[j]), settings)
        except ValueError as exc:  # reported by the driver, with its message intact
            row |= {"center": np.nan, "lo": np.nan, "hi": np.nan, "sd": np.nan, "r": 0}
            row |= {"dev": np.array([]), "error": str(exc)}
        return pd.DataFrame([row])

    chosen = picked.filter(F.col("subset").isin(list(subsets)))
    rows = chosen.groupBy("subset").applyInPandas(one, _RESULT_SCHEMA).collect()
    rows = sorted(rows, key=lambda r: r["subset"])
    if len(rows) != len(subsets):  # a subset without candidates (a chance below 1e-12)
        raise ValueError(f"subsets {list(subsets)} were drawn as {len(rows)}; run again")
    for r in rows:
        if r["error"]:
            raise ValueError(f"subset {r['subset']}: {r['error']}")
    keys = ("center", "lo", "hi", "sd", "r")
    return [{**{k: r[k] for k in keys}, "dev": np.asarray(r["dev"], dtype=float)} for r in rows]


@contextmanager
def _cached(df: Any) -> Iterator[Any]:
    """``df`` persisted for the block where Spark caches; as it is where it does not
    (Databricks serverless refuses ``persist``: each use recomputes the same rows)."""
    from pyspark.errors import PySparkException

    try:
        df = df.persist()
    except PySparkException:
        yield df
        return
    try:
        yield df
    finally:
        df.unpersist()


def _full_value(
    df: Any, spec: MetricSpec, label: str, score: str, settings: BLBSettings
) -> float | None:
    """The metric on all rows, computed in Spark for ROC AUC and the confusion-count
    metrics; None for the others."""
    if spec.fast == "roc_auc":
        from bayescomp.metrics.spark_auc import spark_auc

        pos = settings.pos_label
        score_checks(df, label=label, score=score, repetition=None, pos_label=pos)
        return float(spark_auc(df, label=label, score=score, pos_label=pos)[0])
    if spec.name in count_metrics():
        return confusion_value(
            df,
            spec.name,
            label=label,
            score=score,
            pos_label=settings.pos_label,
            threshold=settings.threshold,
        )
    return None


def spark_blb(
    df: Any,
    y_pred: Any,
    spec: MetricSpec,
    settings: BLBSettings,
    columns: dict[str, str],
    random_state: Any,
) -> BLBInterval:
    """:func:`bayescomp.blb_metric` on a Spark DataFrame (see the module docstring)."""
    if y_pred is not None:
        raise TypeError(
            "with a Spark DataFrame as y_true, pass y_pred_or_score=None and name its "
            "columns with columns={'label': ..., 'score': ...}"
        )
    label, score = columns.get("label", "y_true"), columns.get("score", "y_score")
    n = count_rows(df, label, score)
    b = subset_size(n, settings.exponent)
    rng = np.random.default_rng(random_state)
    seeds = rng.integers(2**63 - 1, size=settings.n_subsets)
    seed = int(rng.integers(2**63 - 1))
    picked = pick_subsets(df, label, score, n=n, b=b, n_subsets=settings.n_subsets, seed=seed)
    with _cached(picked) as picked:  # s x b rows, resampled in rounds until the width settles
        return bag(
            spec,
            settings,
            n=n,
            b=b,
            run=lambda js: resample_subsets(
                picked, spec, js, n=n, b=b, seeds=seeds, settings=settings
            ),
            # a round (one Spark job) holds as many subsets as the stopping rule needs to
            # first decide, all of them when not adaptive
            per_round=(
                max(settings.min_subsets, settings.window + 1)
                if settings.adaptive
                else settings.n_subsets
            ),
            full=lambda: _full_value(df, spec, label, score, settings),
            unavailable=f"is computed in Spark only for roc_auc and {count_metrics()}",
        )
