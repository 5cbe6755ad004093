"""Cell-level checks and alignment of a scores table (used by :class:`~bayescomp.scores.table.Scores`).

Vectorised: a table of a million splits is checked in a few passes over its columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayescomp.splits.design import MAX_ROWS


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


def paired_rows(
    frame: pd.DataFrame, dataset: str, baseline: str, candidate: str, metric: str, where: str
) -> pd.DataFrame:
    """The two models' scores on one dataset (``frame``) aligned split by split, checking that
    they really are paired: the same splits, of the same sizes, finite scores (``where``
    names the dataset in the errors)."""
    bd, cd = model_rows(frame, baseline, metric), model_rows(frame, candidate, metric)
    if bd is None or cd is None:
        who = baseline if bd is None else candidate
        raise ValueError(
            f"model {who!r} has no scores{where}; score both models on it "
            "or pass dataset= to compare elsewhere"
        )
    # rows sorted by split (splits are unique per model, checked at construction)
    if bd["split"].shape != cd["split"].shape or not np.array_equal(bd["split"], cd["split"]):
        bs, cs = set(bd["split"].tolist()), set(cd["split"].tolist())
        raise ValueError(
            f"unpaired splits{where}: {candidate!r} covers splits "
            f"{split_ranges(sorted(cs))} but {baseline!r} covers {split_ranges(sorted(bs))}; "
            "compare on the same splits (pass the same cv object to both, or drop the "
            "extra splits for both models)"
        )
    size_bad = (bd["n_train"] != cd["n_train"]) | (bd["n_test"] != cd["n_test"])
    if size_bad.any():
        i = int(np.flatnonzero(size_bad)[0])
        raise ValueError(
            f"split {bd['split'][i]}{where} has different sizes for the two models "
            f"({baseline!r}: {bd['n_train'][i]:g}/{bd['n_test'][i]:g} train/test, "
            f"{candidate!r}: {cd['n_train'][i]:g}/{cd['n_test'][i]:g}); they were not "
            "evaluated on the same splits"
        )
    for rows, who in ((bd, baseline), (cd, candidate)):
        bad = ~np.isfinite(rows["score"])
        if bad.any():
            sp = rows["split"][bad].tolist()
            raise ValueError(
                f"{metric!r} of {who!r}{where} is NaN/inf on split(s) "
                f"{split_ranges(sorted(sp))} (a failed fit?); fix the model or drop those "
                "splits for both models"
            )
    return pd.DataFrame(
        {
            "dataset": dataset,
            "split": bd["split"],
            "baseline": bd["score"],
            "candidate": cd["score"],
            "n_train": bd["n_train"],
            "n_test": bd["n_test"],
        }
    )


def check_row_counts(frame: pd.DataFrame, col: str) -> pd.Series:
    """Column ``col`` (``n_train`` or ``n_test``) as numbers of rows: positive whole numbers
    up to 2**53 on every row, or an error naming the first bad rows."""
    vals = pd.to_numeric(frame[col], errors="coerce")
    bad_rows = (
        vals.isna()
        | (vals <= 0)
        | ~np.isfinite(vals.fillna(0))
        | (vals.fillna(1) % 1 != 0)
        | (vals.fillna(0) > MAX_ROWS)
    )
    if bad_rows.any():
        bad = frame.loc[bad_rows, ["dataset", "model", "split", col]].head(3).to_dict("records")
        raise ValueError(
            f"{col} must be a positive whole number of rows (at most "
            f"2**53) on every row; bad rows: {bad}"
        )
    return vals


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
