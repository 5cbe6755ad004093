"""Selection over several models' predictions on one test set: the inputs of the one walk.

:func:`bayescomp.select` on a predictions table (``y_true`` and one column per model)
walks the same rules as on a scores table (:func:`bayescomp.studies.select.walk_selection`):
the items play the role of splits, each step is the one-test-set posterior of
:func:`bayescomp.compare` on two model columns (clusters and repeated samples honoured),
and the family rule reads the joint posterior of the challengers' differences on the same
items: both are :class:`bayescomp.decision.steps.ItemSteps`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.item_scores import ITEMWISE, item_scores
from bayescomp.decision.steps import ItemSteps
from bayescomp.posterior.predictions import (
    COLUMNS,
    prediction_models,
    predictions_request,
    with_positive_class,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: the other keyword arguments of compare a predictions table takes
_OPTIONS = (
    "threshold",
    "draws",
    "random_state",
    "pos_label",
    "slices",
    "slice_rope",
    "slice_gamma",
)


def _item_scores(
    predictions: pd.DataFrame,
    models: list[str],
    metric: str,
    columns: Mapping[str, str | None],
    threshold: float | None,
) -> pd.DataFrame:
    """Per-item score of every model (per-item predictions for a whole-set metric), tidy."""
    import pandas as pd

    y = None if columns["y_true"] is None else predictions[columns["y_true"]].to_numpy()
    item = (
        np.arange(len(predictions))
        if columns["item"] is None
        else pd.factorize(predictions[columns["item"]], sort=True)[0]
    )
    frames = []
    for m in models:
        values = predictions[m].to_numpy()
        per_row = (
            item_scores(metric, y, values, threshold)
            if y is not None and metric in ITEMWISE
            else np.asarray(values, dtype=float)
        )
        per_item = pd.Series(per_row).groupby(item).mean()
        frames.append(
            pd.DataFrame(
                {
                    "dataset": "holdout",
                    "model": m,
                    "split": per_item.index.to_numpy(),
                    # one item per "split": independent, rho = 1 / n_items
                    "n_train": per_item.size - 1,
                    "n_test": 1,
                    metric: per_item.to_numpy(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def predictions_walk(
    predictions: pd.DataFrame,
    models: Any,
    metric: str | None,
    higher_is_better: bool | None,
    baseline: str,
    rope: Any,
    gamma: float,
    compare_options: dict[str, Any],
) -> dict[str, Any]:
    """What :func:`~bayescomp.studies.select.walk_selection` needs to walk a predictions
    table: the per-item scores (items as splits), the request checked once at its door
    (:func:`~bayescomp.posterior.predictions.predictions_request`), and the step engine
    (:class:`~bayescomp.decision.steps.ItemSteps`)."""
    from bayescomp.scores.table import Scores
    from bayescomp.studies.selection import listed_candidates

    options = {"random_state": 0, **compare_options}
    unknown = set(options) - {*COLUMNS, *_OPTIONS}
    if unknown:
        raise TypeError(
            f"compare_options {sorted(unknown)} do not apply to a predictions table (it takes "
            f"{sorted([*COLUMNS, *_OPTIONS])})"
        )
    columns = {"y_true": "y_true", "cluster": None, "item": None, "sample": None}
    columns |= {k: options.pop(k) for k in COLUMNS if k in options}
    drop = [options["slices"]] if options.get("slices") else None
    y = columns["y_true"]
    listed = None if models is None else list(models)
    names = prediction_models(predictions, models=listed, drop=drop, **columns)
    if baseline not in names or len(names) < 2:
        raise ValueError(f"a selection needs {baseline!r} and a challenger; models: {names}")
    given = metric if metric is not None else ("accuracy" if y is not None else None)
    predictions = with_positive_class(predictions, y, names, given, options)
    request = predictions_request(
        predictions,
        metric=metric,
        rope=rope,
        gamma=gamma,
        higher_is_better=higher_is_better,
        models=names,
        method="holdout",
        **{k: v for k, v in columns.items() if v is not None or k == "y_true"},
        **options,
    )
    compare = ItemSteps(request, predictions, baseline, names)
    first = {m: compare(None, baseline, m)[0] for m in names if m != baseline}
    means = {baseline: next(iter(first.values())).baseline_score}
    means |= {m: r.candidate_score for m, r in first.items()}
    # a whole-set metric (AUC, F1) has no per-item score: the table holds the predictions
    name = str(request.metric)
    column = name if y is None or name in ITEMWISE else f"{name}_prediction"
    frame = _item_scores(predictions, names, name, columns, options.get("threshold"))
    scores = Scores.from_frame(frame.rename(columns={name: column}), metrics=[column])
    design = dict(
        cv="one test set (item-level predictions)", cluster=columns["cluster"], item=columns["item"]
    )
    return dict(
        request=request,
        design=design,
        table=scores,
        names=names,
        means=means,
        column=column,
        compare=compare,
        candidates=listed_candidates(names, means, "predictions"),
    )
