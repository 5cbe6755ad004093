"""ROC AUC of a Spark DataFrame, exactly and with per-row weights, computed in Spark.

The AUC is the Mann–Whitney statistic with half credit for ties::

    AUC = sum over positives i, negatives j of w_i w_j ([s_i > s_j] + [s_i = s_j] / 2)
          / (sum of positive weights * sum of negative weights)

It needs every positive compared with every negative, so the rows are range-partitioned
and sorted by score in Spark (``repartitionByRange``: equal scores land in one partition).
Each partition then streams its sorted rows once (:class:`WeightedAUC`) and returns three
vectors per weight column: its positive weight, its negative weight and its own numerator.
The driver orders the partitions by score and adds to each numerator the partition's
positive weight times the negative weight of every lower partition: ``3 x columns`` numbers
per partition reach the driver, never the rows.

Column 0 of the weights is all ones (the full-data AUC); further columns are Poisson(1)
weights, one per bootstrap resample (:func:`spark_auc`).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np


class WeightedAUC:
    """Streaming weighted-AUC numerator over scores given in ascending order, in chunks.

    Rows of equal score form one group; a group may span chunks (it is kept pending until
    a larger score arrives), so the result does not depend on where the chunks are cut.
    Checked against ``sklearn.metrics.roc_auc_score(..., sample_weight=...)`` in the tests.
    """

    def __init__(self, columns: int) -> None:
        self.neg = np.zeros(columns)  # negative weight of the finished groups
        self.pos = np.zeros(columns)
        self.num = np.zeros(columns)
        self._pending: tuple[float, np.ndarray, np.ndarray] | None = None

    def _finish(self, pw: np.ndarray, nw: np.ndarray) -> None:
        """Close groups ``pw, nw`` (shape (groups, columns)), in ascending score order."""
        below = self.neg + np.cumsum(nw, axis=0) - nw  # negatives strictly below each group
        self.num += np.sum(pw * (below + 0.5 * nw), axis=0)
        self.neg += nw.sum(axis=0)
        self.pos += pw.sum(axis=0)

    def add(self, score: np.ndarray, positive: np.ndarray, weights: np.ndarray) -> None:
        """Add a chunk: ``score`` ascending (and not below earlier chunks), ``weights`` of
        shape (rows, columns)."""
        if score.size == 0:
            return
        if self._pending is not None and score[0] < self._pending[0]:
            raise ValueError("WeightedAUC needs the scores in ascending order")
        starts = np.flatnonzero(np.r_[True, score[1:] != score[:-1]])
        pw = np.add.reduceat(weights * positive[:, None], starts, axis=0)
        nw = np.add.reduceat(weights * ~positive[:, None], starts, axis=0)
        if self._pending is not None:
            s0, p0, n0 = self._pending
            if score[0] == s0:
                pw[0] += p0
                nw[0] += n0
            else:
                self._finish(p0[None, :], n0[None, :])
        self._finish(pw[:-1], nw[:-1])
        self._pending = (float(score[-1]), pw[-1], nw[-1])

    def close(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positive weight, negative weight, numerator) of everything added."""
        if self._pending is not None:
            self._finish(self._pending[1][None, :], self._pending[2][None, :])
            self._pending = None
        return self.pos, self.neg, self.num


def combine(parts: list[tuple[float, float, np.ndarray, np.ndarray, np.ndarray]]) -> np.ndarray:
    """AUC per weight column from per-partition ``(min score, max score, pos, neg, num)``.

    Partitions must cover disjoint score ranges (a range partitioning); this is checked."""
    parts = sorted(parts, key=lambda p: p[0])
    for a, b in itertools.pairwise(parts):
        if not a[1] < b[0]:
            raise RuntimeError(
                "the score ranges of two Spark partitions overlap after repartitionByRange; "
                "this should not happen — please report it with your Spark version"
            )
    pos = np.sum([p[2] for p in parts], axis=0)
    neg_before = np.cumsum([np.zeros_like(pos)] + [p[3] for p in parts[:-1]], axis=0)
    num = np.sum([p[4] + p[2] * nb for p, nb in zip(parts, neg_before, strict=True)], axis=0)
    neg = np.sum([p[3] for p in parts], axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / (pos * neg)


def spark_auc(
    df: Any, *, label: str, score: str, pos_label: Any, n_resamples: int = 0, seed: int = 0
) -> np.ndarray:
    """ROC AUC of a Spark DataFrame (element 0) and of ``n_resamples`` Poisson-bootstrap
    resamples (elements 1..), computed in Spark; NaN where a resample lacks a class.

    Poisson weights come from a generator seeded by ``seed`` and the partition's position
    in the sorted data, so a run is reproducible for the same data and Spark settings."""
    import pandas as pd
    from pyspark import TaskContext
    from pyspark.sql import functions as F

    cols = 1 + int(n_resamples)
    sorted_rows = (
        df.select(
            (F.col(label) == F.lit(pos_label)).cast("int").alias("p"),
            (F.col(score).cast("double") + F.lit(0.0)).alias("s"),  # -0.0 -> 0.0
        )
        .repartitionByRange("s")
        .sortWithinPartitions("s", "p")
    )

    def per_partition(batches: Any) -> Any:
        acc = WeightedAUC(cols)
        rng = np.random.default_rng([seed, TaskContext.get().partitionId()])
        lo = hi = None
        for batch in batches:
            s = batch["s"].to_numpy(dtype=float)
            if s.size == 0:
                continue
            w = np.ones((s.size, cols))
            w[:, 1:] = rng.poisson(1.0, (s.size, cols - 1))
            acc.add(s, batch["p"].to_numpy() == 1, w)
            lo = s[0] if lo is None else lo
            hi = s[-1]
        if lo is not None:
            pos, neg, num = acc.close()
            yield pd.DataFrame({"lo": [lo], "hi": [hi], "pos": [pos], "neg": [neg], "num": [num]})

    schema = "lo double, hi double, pos array<double>, neg array<double>, num array<double>"
    rows = sorted_rows.mapInPandas(per_partition, schema).collect()
    parts = [
        (r["lo"], r["hi"], np.asarray(r["pos"]), np.asarray(r["neg"]), np.asarray(r["num"]))
        for r in rows
    ]
    if not parts:
        raise ValueError("the Spark DataFrame has no rows")
    return combine(parts)
