"""A table of item-level predictions: column ``y_true``, one column per model, and optional
``cluster`` and ``item``/``sample`` columns — the input of ``compare`` on one test set.

:func:`compare_predictions` reads two model columns of such a table and hands them to
:func:`~bayescomp.posterior.holdout.holdout_posterior`; :func:`prediction_models` lists the
model columns (every column that is not ``y_true``, the cluster, item or sample column).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bayescomp.posterior.holdout import HoldoutResult, holdout_posterior

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.posterior.slices import SliceGuarded

#: column names read as the true labels of a predictions table
Y_TRUE = "y_true"


def is_predictions(frame: Any, y_true: str | None = Y_TRUE) -> bool:
    """Whether ``frame`` is a predictions table: a DataFrame with its ``y_true`` column
    (unless ``y_true`` is None: per-item scores) and no ``model`` column (a scores table
    has one)."""
    import pandas as pd

    return (
        isinstance(frame, pd.DataFrame)
        and (y_true is None or y_true in frame.columns)
        and "model" not in frame.columns
    )


def _column(frame: pd.DataFrame, name: str | None, what: str) -> Any:
    if name is None:
        return None
    if name not in frame.columns:
        raise ValueError(
            f"{what} column {name!r} is not in the predictions table (columns: "
            f"{[str(c) for c in frame.columns][:12]}); name an existing column"
        )
    return frame[name].to_numpy()


def prediction_models(
    frame: pd.DataFrame,
    *,
    y_true: str | None = Y_TRUE,
    cluster: str | None = None,
    item: str | None = None,
    sample: str | None = None,
    models: list[str] | None = None,
    drop: list[str] | None = None,
) -> list[str]:
    """The model columns of a predictions table, in table order (or ``models``' order):
    every column but the label, cluster, item and sample columns and those in ``drop``.

    A text column cannot hold the predictions of numeric labels (or per-item scores):
    it is refused by name, so an id column is never read as a model.
    """
    import pandas as pd

    dup = frame.columns[frame.columns.duplicated()]
    if len(dup):
        raise ValueError(f"the predictions table has two columns named {str(dup[0])!r}; rename one")
    roles = {v: f"the {k} column {v!r}" for k, v in (("sample", sample), ("item", item)) if v}
    roles |= {cluster: f"the cluster column {cluster!r}"} if cluster else {}
    roles |= {y_true: "y_true (the true labels)"} if y_true else {}
    for c in [*(drop or ()), *(models or ())]:
        if c not in frame.columns:
            raise ValueError(
                f"column {c!r} is not in the predictions table (columns: "
                f"{[str(c) for c in frame.columns][:12]}); name an existing column"
            )
        if c in roles:
            raise ValueError(f"{roles[c]} cannot be dropped or read as a model")
    names = models if models is not None else [c for c in frame.columns if c not in roles]
    names = [str(c) for c in names if models is not None or c not in (drop or ())]
    numeric = y_true is None or pd.api.types.is_numeric_dtype(frame[y_true])
    for c in names:
        if numeric and not pd.api.types.is_numeric_dtype(frame[c]):
            raise ValueError(
                f"column {c!r} is text: it cannot be a model's predictions; name the model "
                "columns with models= or leave it out with drop="
            )
    return list(names)


def _item_ids(frame: pd.DataFrame, item: str | None, sample: str | None) -> Any:
    """Item id per row; with ``sample`` each (item, sample) pair must occur once."""
    if sample is None:
        return _column(frame, item, "item")
    _column(frame, sample, "sample")
    if item is None:
        raise ValueError(
            f"sample={sample!r} numbers repeated samples of an item, but no item "
            "column says which rows belong to one item; pass item=COLUMN too"
        )
    ids = _column(frame, item, "item")
    dup = frame.duplicated([item, sample])
    if dup.any():
        first = frame.loc[dup, [item, sample]].iloc[0].tolist()
        raise ValueError(
            f"(item, sample) {first} occurs more than once; each sample of an item must be one row"
        )
    return ids


def row_columns(table: pd.DataFrame, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` of a method on predictions with the ``cluster``/``item`` column names read
    from ``table`` (one value per row); a ``sample`` column is checked and dropped."""
    out = dict(options)
    sample = out.pop("sample", None)
    item = out.get("item")
    if sample is not None:
        _item_ids(table, item if isinstance(item, str) else None, sample)
    for key in ("cluster", "item"):
        if isinstance(out.get(key), str):
            out[key] = _column(table, out[key], key)
    return out


def compare_predictions(
    predictions: pd.DataFrame,
    baseline: str,
    candidate: str,
    *,
    metric: str | None = "accuracy",
    rope: float = 0.0,
    y_true: str | None = Y_TRUE,
    cluster: str | None = None,
    item: str | None = None,
    sample: str | None = None,
    higher_is_better: bool | None = None,
    threshold: float | None = None,
    draws: int = 4000,
    random_state: Any = None,
    slices: str | None = None,
    slice_rope: float | None = None,
    slice_gamma: float = 0.5,
) -> HoldoutResult | SliceGuarded:
    """Posterior of ``candidate`` − ``baseline`` from a table of item-level predictions.

    Parameters
    ----------
    predictions : DataFrame
        One row per item (or per sample of an item): column ``y_true``, one column of
        predictions per model, optional cluster / item / sample columns.
    baseline, candidate : str
        Model columns.
    y_true : str or None, default "y_true"
        Label column; ``None`` when the model columns already hold per-item scores.
    cluster, item, sample : str, optional
        Column names: the cluster of each row; the item a repeated sample belongs to; the
        sample number within the item (checked for duplicates).
    metric, rope, higher_is_better, threshold, draws, random_state
        As in :func:`~bayescomp.posterior.holdout.holdout_posterior`.
    slices, slice_rope, slice_gamma : optional
        A slice column (region, segment, ...), the largest loss on one slice to accept and
        the required P(no slice worse beyond it): the result is then a
        :class:`~bayescomp.posterior.slices.SliceGuarded` (``docs/slices.md``).

    Returns
    -------
    HoldoutResult

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"y_true": [1, 0, 1, 1, 0, 1, 0, 0] * 25,
    ...                   "old": [1, 0, 0, 1, 1, 1, 0, 1] * 25,
    ...                   "new": [1, 0, 1, 1, 0, 1, 0, 1] * 25})
    >>> res = compare_predictions(t, "old", "new", metric="accuracy", rope=0.02, random_state=0)
    >>> res.decision().outcome, res.counts["only_candidate"]
    ('promote', 50)
    """
    import pandas as pd

    if not isinstance(predictions, pd.DataFrame):
        raise ValueError(
            f"predictions must be a pandas DataFrame; got {type(predictions).__name__}"
        )
    roles = {y_true, cluster, item, sample, slices}
    models = [str(c) for c in predictions.columns if c not in roles]
    for name, what in ((baseline, "baseline"), (candidate, "candidate")):
        if str(name) not in models:
            raise ValueError(
                f"{what} {name!r} is not a model column of the predictions table; "
                f"model columns: {models}"
            )
    if str(baseline) == str(candidate):
        raise ValueError(f"baseline and candidate are the same column {baseline!r}")
    prediction_models(  # the two columns' kinds
        predictions, y_true=y_true, cluster=cluster, item=item, models=[baseline, candidate]
    )
    if slices is not None and slice_rope is None:
        raise ValueError("slices= needs slice_rope=, the largest loss on one slice to accept")
    labels = _column(predictions, slices, "slices") if slices is not None else None
    overall = holdout_posterior(
        _column(predictions, y_true, "y_true"),
        predictions[baseline].to_numpy(),
        predictions[candidate].to_numpy(),
        metric=metric,
        rope=rope,
        cluster=_column(predictions, cluster, "cluster"),
        item=_item_ids(predictions, item, sample),
        higher_is_better=higher_is_better,
        threshold=threshold,
        draws=draws,
        baseline_name=str(baseline),
        candidate_name=str(candidate),
        random_state=random_state,
    )
    if labels is None:
        return overall
    from bayescomp.posterior.slices import guard_slices, item_differences

    options = {"higher_is_better": higher_is_better, "threshold": threshold}
    y = _column(predictions, y_true, "y_true")
    d = item_differences(metric, y, predictions[baseline], predictions[candidate], options)
    options = {"slice_rope": slice_rope, "slice_gamma": slice_gamma, "random_state": random_state}
    return guard_slices(
        overall, d, labels, options | {"cluster": _column(predictions, cluster, "cluster")}
    )
