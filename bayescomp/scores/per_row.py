"""Per-row out-of-fold scores of paired cross-validation: for each metric that is a mean of
per-row scores (accuracy, error rate, log loss, Brier, squared and absolute error), every
test row's score in every split, kept with each fit by the one fitter (as its
:class:`~bayescomp.core.protocols.OutOfFold` predictions, so stored and resumed with it)
and gathered into ``Scores.per_row``: what the per-row variance of the correlated t-test
reads (``compare(..., variance="rows")``, ``docs/per_row_variance.md``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.item_scores import item_scores
from bayescomp.core.metric import METRICS, Metric, metric_record

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.core.protocols import Fit, Split

#: per-row scores kept at most (models × repetitions × rows × metrics): a larger design
#: keeps none, and says so
MAX_ROW_SCORES = 5_000_000


def row_metrics(scorers: Mapping[str, Callable], y: Any) -> dict[str, tuple[Metric, float]]:
    """The scorers whose value is the mean of per-row scores, ``{key: (metric, sign)}``:
    a metric of the record with a per-row form (the sign -1 for scikit-learn's negated
    losses, ``neg_log_loss``); a probability metric only on a binary target."""
    from sklearn.utils.multiclass import type_of_target

    target = None if y is None else type_of_target(y)
    if target not in ("binary", "multiclass", "continuous"):  # one score a row: 1-d targets
        return {}
    out = {}
    for key in scorers:
        record, sign = metric_record(key), 1.0
        if record is None and key.startswith("neg_"):
            record = next((m for m in METRICS.values() if m.scorer == key), None)
            sign = -1.0
        if record is not None and record.item and (target == "binary" or record.needs != "scores"):
            out[key] = (record, sign)
    return out


def row_predictions(
    scorers: Mapping[str, Callable], y: Any, test_rows: int
) -> tuple[tuple[str, Callable] | None, list[str]]:
    """The out-of-fold predictions a fit keeps as its per-row scores (``fit_paired``'s
    ``predict``) and the metrics they score; none when no scorer has per-row scores or when
    the design's ``test_rows`` (over every split and model) would hold more than
    :data:`MAX_ROW_SCORES`."""
    metrics = row_metrics(scorers, y)
    if metrics and test_rows * len(metrics) > MAX_ROW_SCORES:
        warnings.warn(
            f"per-row scores not kept: this design would hold more than {MAX_ROW_SCORES:,} "
            "(compare uses the split variance)",
            UserWarning,
            stacklevel=4,
        )
        metrics = {}
    if not metrics:
        return None, []
    return ("rows:" + ",".join(metrics), partial(row_scores, metrics)), list(metrics)


def row_scores(
    metrics: Mapping[str, tuple[Metric, float]], est: Any, X_test: Any, y_test: Any
) -> tuple[np.ndarray, np.ndarray]:
    """A fitted estimator's per-row scores on its test rows, one column per metric (each
    kind of prediction computed once)."""
    y = np.asarray(y_test)
    made: dict[str, np.ndarray] = {}
    columns = []
    for record, sign in metrics.values():
        if record.needs == "scores":  # the positive class's probability, y as 0/1
            if "scores" not in made:
                made["scores"] = np.asarray(est.predict_proba(X_test))[:, 1]
            truth, pred = (y == est.classes_[1]).astype(int), made["scores"]
        else:
            if "labels" not in made:
                made["labels"] = np.asarray(est.predict(X_test))
            truth, pred = y, made["labels"]
        columns.append(sign * item_scores(record.name, truth, pred))
    return y, np.column_stack(columns)


def per_row_frame(
    tasks: list[tuple[str, int]],
    results: list[Fit],
    splits: list[Split],
    dataset: str,
    metrics: list[str],
) -> pd.DataFrame | None:
    """Every fit's per-row scores as a table (``dataset, model, split, row`` and one column
    per metric), the rows numbered as in ``X``; None when a fit kept none."""
    import pandas as pd

    kept = [(t, r) for t, r in zip(tasks, results, strict=True) if r.error is None]
    kind = "rows:" + ",".join(metrics)  # a fit read from a store may hold other predictions
    if not kept or any(r.predictions is None or r.predictions.kind != kind for _, r in kept):
        return None
    parts = [
        pd.DataFrame(
            {
                "dataset": dataset,
                "model": name,
                "split": k,
                "row": splits[k].test,
                **dict(zip(metrics, np.asarray(res.predictions.y_score).T, strict=True)),
            }
        )
        for (name, k), res in kept
        if res.predictions is not None
    ]
    return pd.concat(parts, ignore_index=True)


def checked_rows(rows: pd.DataFrame | None, table: pd.DataFrame) -> pd.DataFrame | None:
    """The per-row scores of ``rows`` that belong to the scores ``table``: each metric
    column whose split means are the table's scores of that split (a custom scorer under a
    metric's name, sample weights, a file of another run fail it: dropped with a warning);
    None when no metric is left."""
    if rows is None:
        return None
    key = ["dataset", "model", "split"]
    if not set(key) | {"row"} <= set(rows.columns):
        return None
    means = rows.groupby(key).mean(numeric_only=True)
    scores = table.astype({"dataset": str, "model": str}).set_index(key)
    good = []
    for m in [c for c in means.columns if c != "row" and c in scores.columns]:
        own = scores[m].reindex(means.index).to_numpy(dtype=float)  # NaN: not in the table
        if np.allclose(means[m].to_numpy(dtype=float), own, rtol=1e-9, atol=1e-12):
            good.append(m)
        else:
            warnings.warn(
                f"the per-row scores of {m!r} do not average to the table's scores of their "
                "splits: no per-row variance for it",
                UserWarning,
                stacklevel=4,
            )
    return rows[[*key, "row", *good]] if good else None


def rows_path(path: str | Path) -> Path:
    """Where ``Scores.to_csv`` writes a table's per-row scores: ``scores.rows.csv`` beside
    ``scores.csv``."""
    p = Path(path)
    return p.with_name(f"{p.stem}.rows{p.suffix}")
