"""A user's own table (CSV, Parquet, Feather): read, validate and fingerprint it.

:func:`read_table` reads the file with pandas + pyarrow, checks the column choice
(target, groups, time, dropped columns) and returns the features as a **DataFrame with
the file's column names and dtypes** — so a model file may be a ``Pipeline`` with a
``ColumnTransformer`` on named columns.  Every problem is a ``ValueError`` naming the
file or the column and saying what to do.  The table's identity — the SHA-256 of the
file's bytes plus the column choice, never its path — becomes the store's data hash
(:func:`data_identity`), so the same file elsewhere is recognised and a changed file or
column choice is refused, saying which (:func:`explain_data_change`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: file name endings -> reader
FORMATS = {
    ".csv": "csv",
    ".csv.gz": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".feather": "feather",
    ".arrow": "feather",
}
TASKS = ("binary", "multiclass", "regression")
#: prefix of a data hash that is a file identity (JSON after it)
IDENTITY_PREFIX = "table:"


@dataclass(frozen=True)
class Table:
    """A user's table, ready for the cross-validation.

    Attributes
    ----------
    X : DataFrame
        The features, with the file's column names and dtypes (rows in time order with
        ``time=``).
    y : ndarray
        The target.
    groups : ndarray or None
        The group of each row (``groups=``).
    task : {"binary", "multiclass", "regression"}
    identity : str
        The data hash for the store: file content hash plus the column choice.
    name : str
        The dataset name in the store and the report (``"data"``).
    """

    X: Any
    y: Any
    groups: Any
    task: str
    identity: str
    name: str


def data_format(path: Path) -> str:
    """The reader for a file name, or a ``ValueError`` listing the known endings."""
    name = path.name.lower()
    for end in sorted(FORMATS, key=len, reverse=True):
        if name.endswith(end):
            return FORMATS[end]
    raise ValueError(
        f"unknown format of data file {path}: use one of "
        f"{', '.join(FORMATS)} (CSV, Parquet or Feather)"
    )


def in_memory_size(path: Path, fmt: str) -> int:
    """Bytes the table needs in memory, from the file's metadata (nothing is read):
    Parquet row groups' uncompressed sizes, a gzip file's trailer, else the file size."""
    size = path.stat().st_size
    if fmt == "parquet":
        import pyarrow.parquet as pq

        meta = pq.ParquetFile(path).metadata
        return max(size, sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)))
    if path.name.lower().endswith(".gz") and size >= 4:
        with path.open("rb") as fh:  # ISIZE: the uncompressed size modulo 2**32
            fh.seek(-4, os.SEEK_END)
            return max(size, int.from_bytes(fh.read(4), "little"))
    return size


def available_memory() -> int:
    """Bytes of memory available now (``BAYESCOMP_MEMORY_BYTES`` overrides it)."""
    if os.environ.get("BAYESCOMP_MEMORY_BYTES"):
        return int(os.environ["BAYESCOMP_MEMORY_BYTES"])
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 1 << 62


def file_digest(path: Path) -> str:
    """SHA-256 of the file's bytes."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def data_identity(digest: str, choice: dict[str, Any]) -> str:
    """The store's data hash of a table: its content hash and the column choice."""
    return IDENTITY_PREFIX + json.dumps({"file_sha256": digest, **choice}, sort_keys=True)


def data_hash(X: Any, y: Any) -> str:
    """The data's identity for a store: a table read by :func:`read_table` carries its own
    (content hash plus column choice, whatever the file's path); else a hash of X and y."""
    identity = X.attrs.get("data_identity") if hasattr(X, "attrs") else None
    if isinstance(identity, str):
        return identity
    import joblib

    return joblib.hash((X, y))


def explain_data_change(stored: str, new: str) -> str | None:
    """What differs between two table identities (None when either is not one)."""
    if not (stored.startswith(IDENTITY_PREFIX) and new.startswith(IDENTITY_PREFIX)):
        return None
    old_d = json.loads(stored[len(IDENTITY_PREFIX) :])
    new_d = json.loads(new[len(IDENTITY_PREFIX) :])
    parts = []
    if old_d.get("file_sha256") != new_d.get("file_sha256"):
        parts.append(
            "the file's content changed (SHA-256 "
            f"{str(old_d.get('file_sha256'))[:12]}… → "
            f"{str(new_d.get('file_sha256'))[:12]}…)"
        )
    for key in sorted(set(old_d) | set(new_d) - {"file_sha256"}):
        if key != "file_sha256" and old_d.get(key) != new_d.get(key):
            parts.append(f"{key} {old_d.get(key)!r} → {new_d.get(key)!r}")
    return "; ".join(parts) or None


def _read(path: Path, fmt: str) -> Any:
    import pandas as pd

    try:
        if fmt == "parquet":
            # memory-mapped, and (pandas >= 3) one block per column with each Arrow buffer
            # freed as it is converted: half the memory traffic of a consolidating copy
            kw: dict[str, Any] = {"memory_map": True}
            if int(pd.__version__.split(".")[0]) >= 3:
                kw["to_pandas_kwargs"] = {"split_blocks": True, "self_destruct": True}
            return pd.read_parquet(path, engine="pyarrow", **kw)
        if fmt == "feather":
            return pd.read_feather(path)
        from bayescomp.scores.csvio import read_frame

        return read_frame(path)  # its encoding and separator (`,` `;` tab `|`) found
    except (OSError, ValueError, ImportError) as exc:
        raise ValueError(f"cannot read {path} as {fmt}: {exc}") from None
    except Exception as exc:  # pyarrow's own errors (ArrowInvalid is a ValueError; others)
        raise ValueError(f"cannot read {path} as {fmt}: {type(exc).__name__}: {exc}") from None


def _column(frame: Any, col: str, flag: str, path: Path) -> Any:
    if col not in frame.columns:
        cols = [str(c) for c in frame.columns]
        more = ", …" if len(cols) > 20 else ""
        raise ValueError(
            f"column {col!r} ({flag}) is not in {path.name}; its columns are "
            f"{', '.join(cols[:20])}{more}"
        )
    return frame[col]


def _task(y: Any, task: str | None, target: str) -> str:
    import pandas as pd

    from bayescomp.scores.datasets import task_of

    arr = np.asarray(y)
    # distinct labels as text (1 and "1" are one class); numbers are counted as they are
    n_classes = int(pd.Series(arr).nunique()) if arr.dtype.kind in "biuf" else None
    if n_classes is None:
        n_classes = len(np.unique(arr.astype(str)))
    if task is None:
        task = (
            "regression"
            if task_of(y) == "regression"
            else ("binary" if n_classes == 2 else "multiclass")
        )
    elif task not in TASKS:
        raise ValueError(f"--task must be one of {', '.join(TASKS)}, got {task!r}")
    if task != "regression" and n_classes < 2:
        value = np.asarray(y)[0]
        raise ValueError(
            f"the target column {target!r} has one class ({value!r}): a "
            "classifier needs at least two; check --target or the file's rows"
        )
    if task == "binary" and n_classes != 2:
        raise ValueError(
            f"--task binary, but the target column {target!r} has {n_classes} "
            "classes; use --task multiclass"
        )
    if task == "regression" and not np.issubdtype(np.asarray(y).dtype, np.number):
        raise ValueError(
            f"--task regression needs a numeric target; column {target!r} "
            f"holds {np.asarray(y).dtype} values"
        )
    return task


def time_values(t: Any, col: str, time_format: str | None = None) -> Any:
    """The time column as numbers or datetimes, never sorted as text: numbers (also written
    as text) stay numbers, ISO 8601 text (``2024-08-30 08:15``) becomes datetimes, other text
    needs ``time_format`` (``"%d/%m/%Y %H:%M"``); a ``ValueError`` names the column and a value."""
    import pandas as pd

    if time_format is None and (
        pd.api.types.is_numeric_dtype(t) or pd.api.types.is_datetime64_any_dtype(t)
    ):
        return t
    text = t.astype(str).str.strip()
    example = text.iloc[0]
    if time_format is not None:
        try:
            return pd.to_datetime(text, format=time_format)
        except (ValueError, TypeError):
            raise ValueError(
                f"the time column {col!r} does not match --time-format {time_format!r} "
                f"(its first value is {example!r}); give the format its values are written in"
            ) from None
    numbers = pd.to_numeric(text, errors="coerce")
    if numbers.notna().all():
        return numbers
    try:
        return pd.to_datetime(text, format="ISO8601")
    except (ValueError, TypeError):
        pass
    for dayfirst in (True, False):
        try:
            pd.to_datetime(text, format="mixed", dayfirst=dayfirst)
        except (ValueError, TypeError):
            continue
        raise ValueError(
            f"the time column {col!r} holds dates like {example!r}, which are not ISO 8601: "
            "day-first or month-first is ambiguous; pass their format, e.g. "
            "--time-format '%d/%m/%Y %H:%M' (or write them as YYYY-MM-DD)"
        )
    raise ValueError(
        f"the time column {col!r} holds text that is neither a number nor a date "
        f"(e.g. {example!r}); write it as numbers or ISO dates (YYYY-MM-DD), or pass "
        "--time-format"
    )


def _time_order(frame: Any, t: Any, groups: str | None) -> np.ndarray:
    """Row order by time; with groups, rows of equal time by their group's first time, so
    groups that follow each other in time stay contiguous."""
    if groups is None or groups not in frame.columns:
        return np.argsort(t.to_numpy(), kind="stable")
    import pandas as pd

    start = t.groupby(frame[groups], dropna=False).transform("min")
    keys = pd.DataFrame({"t": t.to_numpy(), "start": start.to_numpy()})
    return keys.sort_values(["t", "start"], kind="stable").index.to_numpy()


def _distinct_roles(target: str, groups: str | None, time: str | None, drop: Any) -> None:
    """One column, one role: a target that is also the groups or the time would be scored
    0 by every model (refused), and so would groups that are the time."""
    roles = [("--target", target), ("--groups", groups), ("--time", time)]
    roles += [("--drop", c) for c in drop]
    for i, (flag, col) in enumerate(roles):
        for other, col2 in roles[i + 1 :]:
            if col is not None and col == col2 and flag != other:
                raise ValueError(
                    f"column {col!r} is both {flag} and {other}; give each role its own column"
                )


def _positive(y: Any, task: str, target: str, pos_label: str | None) -> Any:
    """A binary target coded 1 (``pos_label``) / 0; text labels need ``pos_label``."""
    labels = sorted(map(str, y.unique()))
    if pos_label is None:
        if task == "binary" and y.dtype.kind not in "biuf":
            raise ValueError(
                f"the target column {target!r} has the labels {labels[0]!r} and "
                f"{labels[1]!r}; say which is the positive class with --pos-label, e.g. "
                f"--pos-label {labels[1]}"
            )
        return y
    if task != "binary":
        raise ValueError(f"--pos-label is for a binary target; {target!r} is {task}")
    if pos_label not in labels:
        raise ValueError(
            f"--pos-label {pos_label!r} is not a label of the target column {target!r}; "
            f"its labels are {', '.join(labels)}"
        )
    return (y.astype(str) == pos_label).astype(int)


def _groups(frame: Any, col: str, path: Path, n_splits: int, timed: bool) -> np.ndarray:
    g = _column(frame, col, "--groups", path)
    if g.isna().any():
        raise ValueError(
            f"the group column {col!r} has {int(g.isna().sum())} missing "
            "value(s); give every row its group (or drop those rows)"
        )
    n_groups = int(g.nunique())
    if n_groups < 2:
        raise ValueError(
            f"the group column {col!r} has one group ({g.iloc[0]!r}): grouped "
            "cross-validation needs at least two; check --groups"
        )
    if n_groups < n_splits + timed:
        need = (
            f"too few for {n_splits} time-ordered test windows after a first training window"
            if timed
            else f"fewer than the {n_splits} folds"
        )
        raise ValueError(
            f"the group column {col!r} has {n_groups} groups, {need}: use --n-splits "
            f"{n_groups - timed} or fewer"
        )
    return g.to_numpy()


def read_table(
    path: str | Path,
    *,
    target: str,
    groups: str | None = None,
    drop: Sequence[str] = (),
    time: str | None = None,
    task: str | None = None,
    n_splits: int = 10,
    time_format: str | None = None,
    pos_label: str | None = None,
) -> Table:
    """Read and validate a user's table (CSV, ``.csv.gz``, Parquet or Feather).

    Parameters
    ----------
    path : path
        The file.  Its in-memory size is checked against the available memory first,
        from the file's metadata.
    target : str
        The target column.
    groups : str, optional
        Column of group ids (no group in both training and test); not a feature.
    drop : sequence of str
        Columns that are not features.
    time : str, optional
        Column the rows are sorted by (a time-ordered design); not a feature.
    task : {"binary", "multiclass", "regression"}, optional
        Overrides the task inferred from the target.
    n_splits : int
        Folds of the design (a group column needs at least as many groups).
    time_format : str, optional
        ``strptime`` format of a text time column that is not ISO 8601.
    pos_label : str, optional
        The positive class of a binary target (then coded 1, the other class 0); needed
        for text labels (``yes``/``no``).

    Returns
    -------
    Table
    """
    path = Path(path)
    fmt = data_format(path)
    if not path.is_file():
        raise ValueError(f"no data file at {path} (--data); check the path")
    need, have = in_memory_size(path, fmt), available_memory()
    if need > have:
        raise ValueError(
            f"the table {path.name} needs about {need / 2**30:.2f} GiB in memory "
            f"(from its metadata) but {have / 2**30:.2f} GiB are available; "
            "sample its rows or keep fewer columns before running bayescomp"
        )
    frame = _read(path, fmt)
    if len(frame) == 0:
        raise ValueError(f"{path.name} has a header but no rows (--data); give a table with rows")
    _distinct_roles(target, groups, time, drop)
    y = _column(frame, target, "--target", path)
    if y.isna().any():
        rows = np.flatnonzero(y.isna().to_numpy())[:5].tolist()
        raise ValueError(
            f"the target column {target!r} has {int(y.isna().sum())} missing "
            f"value(s) (rows {rows}); drop or fill those rows"
        )
    for col in drop:
        _column(frame, col, "--drop", path)
    if time is not None:
        t = _column(frame, time, "--time", path)
        if t.isna().any():
            raise ValueError(
                f"the time column {time!r} has {int(t.isna().sum())} missing "
                "value(s); every row needs its time to be ordered"
            )
        t = time_values(t, time, time_format)
        frame = frame.iloc[_time_order(frame, t, groups)].reset_index(drop=True)
        y = frame[target]
    g = _groups(frame, groups, path, n_splits, time is not None) if groups is not None else None
    not_features = {target, *(c for c in (groups, time) if c), *drop}
    features = [c for c in frame.columns if c not in not_features]
    if not features:
        raise ValueError(
            f"{path.name} has no feature column left (all are the target, "
            "groups, time or dropped); check --drop"
        )
    task = _task(y, task, target)
    y = _positive(y, task, target, pos_label)
    choice = {
        "target": target,
        "groups": groups,
        "time": time,
        "drop": sorted(drop),
        "features": [str(c) for c in features],
        "task": task,
        **({"pos_label": pos_label} if pos_label is not None else {}),
    }
    X = frame[features]
    identity = data_identity(file_digest(path), choice)
    X.attrs["data_identity"] = identity  # the store's data hash (see studies.fitted)
    y_arr = y.to_numpy(dtype=float) if task == "regression" else y.to_numpy()
    # one dataset name whatever the file is called: a store then recognises the same
    # content anywhere and refuses other content under the same name
    return Table(X=X, y=y_arr, groups=g, task=task, identity=identity, name="data")
