"""A table of item-level predictions: column ``y_true``, one column per model, and optional
``cluster`` and ``item``/``sample`` columns — the input of ``compare`` on one test set.

:func:`predictions_request` is ``compare``'s door for such a table and
:func:`compare_predictions` its path below the door: two model columns, checked once, to the
method (``holdout``) and the slice guardrail; :func:`prediction_models`
lists the model columns (every column that is not ``y_true``, the cluster, item or sample).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bayescomp.posterior.request import check_request
from bayescomp.scores.csvio import unique_columns

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.posterior.request import Request


#: column names read as the true labels of a predictions table
Y_TRUE = "y_true"
#: the keyword arguments of compare on a predictions table that name its columns
COLUMNS = ("y_true", "cluster", "item", "sample")


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

    unique_columns(frame.columns, "the predictions table")
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


def with_positive_class(
    table: pd.DataFrame, y_true: str | None, models: list[str], metric: Any, options: dict
) -> pd.DataFrame:
    """``table`` with ``options``' ``pos_label`` (popped) applied to its ``y_true`` and
    ``models`` columns once (:func:`~bayescomp.posterior.holdout_data.positive_class`),
    so that every posterior, slice and joint draw on it reads the same 0/1 coding."""
    from bayescomp.posterior.holdout_data import positive_class

    pos_label = options.pop("pos_label", None)
    if pos_label is None or y_true is None:
        return table
    columns = [y_true, *models]
    coded = positive_class(
        metric or "accuracy",
        pos_label,
        *(table[c].to_numpy() for c in columns),
        threshold=options.get("threshold"),
    )
    return table.assign(**dict(zip(columns, coded, strict=True)))


def predictions_request(
    table: Any,
    *,
    metric: Any,
    rope: Any,
    higher_is_better: bool | None = None,
    models: list[str] | None = None,
    y_true: str | None = Y_TRUE,
    **request: Any,
) -> Request:
    """The door of a predictions table (:func:`bayescomp.compare`, :func:`bayescomp.select`):
    the metric resolved with the labels (``accuracy`` when omitted with ``y_true``; a
    ``neg_*`` name refused on positive values of ``models``), then the request checked once
    (:func:`~bayescomp.posterior.request.check_request`: the margin, γ, the slice guardrail);
    the table's columns (``y_true``, ``cluster``, ``item``, ``sample``) and the method's own
    options ride in :attr:`Request.options`."""
    import pandas as pd

    from bayescomp.posterior.holdout_data import resolve

    if not isinstance(table, pd.DataFrame):
        raise ValueError(
            f"this method compares paired predictions: pass a DataFrame with a {Y_TRUE!r} "
            f"column and one column of predictions per model, not a {type(table).__name__}"
        )
    metric = metric if metric is not None else ("accuracy" if y_true is not None else None)
    values = [table[m].to_numpy() for m in models or () if m in table.columns]
    name, hib = resolve(metric, y_true, higher_is_better, values)
    return check_request(metric=name, rope=rope, higher_is_better=hib, y_true=y_true, **request)


def compare_predictions(
    table: pd.DataFrame, baseline: Any, candidate: Any, request: Request
) -> Any:
    """:func:`bayescomp.compare` on a predictions table below the door: two model columns,
    checked, to the request's method (``holdout`` by default), under the slice guardrail."""
    from bayescomp.posterior.registry import PairedPredictions, lookup

    options = dict(request.options)
    y_true = options.pop("y_true", Y_TRUE)
    slices = None if request.slices is None else request.slices.column
    names = {k: options.get(k) for k in ("cluster", "item", "sample")}
    roles = {y_true, slices, *(v for v in names.values() if isinstance(v, str))}
    models = [str(c) for c in table.columns if c not in roles]
    for name, what in ((baseline, "baseline"), (candidate, "candidate")):
        if str(name) not in models:
            absent = str(name) not in map(str, table.columns)
            raise ValueError(
                f"{what} {name!r} is not a model column of the predictions table"
                + (f" (it has no column {[str(name)]})" if absent else "")
                + f"; model columns: {models}"
            )
    if str(baseline) == str(candidate):
        raise ValueError(f"baseline and candidate are the same column {baseline!r}")
    cols = {k: v for k, v in names.items() if k != "sample" and isinstance(v, str)}
    prediction_models(table, y_true=y_true, models=[str(baseline), str(candidate)], **cols)
    used = [c for c in (y_true, str(baseline), str(candidate)) if c is not None]
    missing = {str(c): int(n) for c, n in table[used].isna().sum().items() if n}
    if missing:
        raise ValueError(
            "missing values in "
            + ", ".join(f"column {c!r} ({n} rows)" for c, n in missing.items())
            + "; drop those items for every model so that the predictions stay paired"
        )
    pair = [str(baseline), str(candidate)]
    table = with_positive_class(table, y_true, pair, request.metric, options)
    y = _column(table, y_true, "y_true")
    labels = {"baseline_name": pair[0], "candidate_name": pair[1], "metric": request.metric}
    data = PairedPredictions(
        y,
        table[pair[0]].to_numpy(),
        table[pair[1]].to_numpy(),
        request.margin,
        request.random_state,
        labels,
        request.higher_is_better,
    )
    columns = row_columns(table, options)  # cluster and item as one value per row
    overall = lookup(request.method).fit(data, **columns)
    if slices is None:
        return overall
    from bayescomp.posterior.slices import guard_slices, item_differences

    d = item_differences(
        request.metric,
        y,
        data.baseline,
        data.candidate,
        higher_is_better=request.higher_is_better,
        threshold=options.get("threshold"),
    )
    labels, cluster = _column(table, slices, "slices"), columns.get("cluster")
    return guard_slices(overall, d, labels, request.slices, cluster, request.random_state)
