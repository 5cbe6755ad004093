"""Cell-level checks and alignment of a scores table (used by :class:`~bayescomp.scores.table.Scores`).

Vectorised: a table of a million splits is checked in a few passes over its columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def model_rows(frame: pd.DataFrame, model: str, metric: str) -> dict[str, np.ndarray] | None:
    """One model's split, sizes and score columns as arrays sorted by split (None if absent)."""
    rows = frame[frame["model"] == model]
    if rows.empty:
        return None
    split = rows["split"].to_numpy()
    order = np.argsort(split, kind="stable")
    score = pd.to_numeric(rows[metric], errors="coerce").to_numpy(dtype=float)
    return {
        "split": split[order],
        "n_train": rows["n_train"].to_numpy()[order],
        "n_test": rows["n_test"].to_numpy()[order],
        "score": score[order],
    }


def split_ranges(values: list[int]) -> str:
    """Compact '0–9, 12' description of a sorted list of ints."""
    if not values:
        return "none"
    out, start, prev = [], values[0], values[0]
    for v in values[1:]:
        if v == prev + 1:
            prev = v
            continue
        out.append(f"{start}–{prev}" if prev != start else f"{start}")
        start = prev = v
    out.append(f"{start}–{prev}" if prev != start else f"{start}")
    text = ", ".join(out[:6])
    return text + (", …" if len(out) > 6 else "")


def check_filled(frame: pd.DataFrame, col: str) -> np.ndarray:
    """Every row names its dataset, model and split (no empty cell); returns the column's
    integer codes (``pd.factorize``), which the duplicate-key check reuses.  Blank text is
    looked for among the distinct values only: stripping every cell of a million-row column
    took seconds."""
    codes, uniques = pd.factorize(frame[col], use_na_sentinel=True)
    if pd.api.types.is_numeric_dtype(uniques.dtype):
        blank = np.zeros(len(uniques), dtype=bool)
    else:
        blank = np.asarray(pd.Series(uniques, dtype=object).astype(str).str.strip() == "")
    if not (codes < 0).any() and not blank.any():
        return codes
    empty = (codes < 0) | (blank[np.maximum(codes, 0)] if len(blank) else False)
    if empty.any():
        rows = [int(i) for i in np.flatnonzero(np.asarray(empty))[:5]]
        raise ValueError(
            f"column {col!r} is empty on {int(empty.sum())} row(s) (rows {rows}); "
            f"give every row its {col}"
        )


def check_numeric_cells(frame: pd.DataFrame, col: str, *, required: bool) -> pd.Series:
    """Column ``col`` as numbers; text cells that are not numbers are refused, not NaN'd.

    With ``required=False`` (columns that may be notes, not metrics) a column with no number
    at all passes unchanged; one that mixes numbers and text is refused all the same.
    """
    values = frame[col]
    if pd.api.types.is_bool_dtype(values):
        return values.astype(float)
    parsed = pd.to_numeric(values, errors="coerce")
    bad = parsed.isna() & values.notna()
    if not bad.any() or (not required and parsed.notna().sum() == 0):
        return parsed if required else values
    rows = (
        frame.loc[bad, ["dataset", "model", "split"]]
        .assign(value=values[bad])
        .head(3)
        .to_dict("records")
    )
    raise ValueError(
        f"metric column {col!r} has {int(bad.sum())} cell(s) that are not numbers, e.g. {rows}; "
        "fix or remove them (leave a failed fit's cell empty and drop its split for every model;"
        " with ';' as the separator, pass decimal=',' to read_csv if commas are decimal marks)"
    )


def check_unique_keys(df: pd.DataFrame, key: list[str]) -> None:
    """Refuse rows that repeat a ``key`` (a long table's (dataset, model, split, metric))."""
    dup = df.duplicated(key, keep=False)
    if dup.any():
        rows = df.loc[dup, key].drop_duplicates().head(3).to_dict("records")
        raise ValueError(
            f"{int(dup.sum())} rows repeat a ({', '.join(key)}) key, e.g. {rows}; each model has "
            "one value per metric and split of each dataset: remove the repeated rows"
        )


def warn_row_order(df: pd.DataFrame) -> None:
    """No ``split`` column: pairing by row order is said, not done silently."""
    import warnings

    from bayescomp.core.exceptions import RowOrderPairingWarning

    if df.groupby(["dataset", "model"], sort=False).size().max() > 1:
        warnings.warn(
            "the table has no 'split' column: splits are numbered by row order within each "
            "model, so the k-th row of every model is paired with the k-th row of the others "
            "(reordering rows changes the result); add a 'split' column to pair explicitly",
            RowOrderPairingWarning,
            stacklevel=3,
        )
