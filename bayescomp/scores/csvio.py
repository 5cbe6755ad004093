"""Reading and writing CSV files at the edge: encodings, separators, spreadsheet safety.

Reading (:func:`read_frame`) accepts what spreadsheets and other tools write: UTF-8 with
or without a byte-order mark, UTF-16 with one, and ``,``, ``;``, tab or ``|`` as the
separator (sniffed by pandas, ``sep=None, engine="python"``, which respects quotes: a ``;``
file whose quoted header names contain commas is read right).  Any other encoding is refused with a message
saying how to re-save the file, instead of decoding the names wrongly.

Writing (:func:`write_frame`) makes text cells safe to open in a spreadsheet: a cell
starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading single
quote (see :mod:`bayescomp.core.text`); :func:`read_frame` with ``spreadsheet=True``
removes it, so names survive the round trip unchanged.
"""

from __future__ import annotations

import codecs
import csv
import gzip
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bayescomp.core.text import from_spreadsheet, to_spreadsheet

#: separators recognised in the header line, in order of preference
SEPARATORS: tuple[str, ...] = (",", ";", "\t", "|")
_HEAD_BYTES = 65536


def _encoding(path: Path, head: bytes) -> str:
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path} is not UTF-8 text (byte 0x{head[exc.start]:02x} at position {exc.start}); "
            "re-save it as UTF-8 ('CSV UTF-8' in a spreadsheet), or pass encoding= to read_csv"
        ) from None
    return "utf-8"


def _separator(head_text: str) -> dict[str, Any]:
    """pandas' separator sniffing (quote-aware), unless the header has no separator at all:
    a one-column file is read with ``","`` (the sniffer would split on a letter)."""
    header = head_text.lstrip("\ufeff").splitlines()[0] if head_text.strip() else ""
    if any(s in header for s in SEPARATORS):
        return {"sep": None, "engine": "python"}
    return {"sep": ","}


def read_frame(path: str | Path, *, spreadsheet: bool = False, **kwargs: Any) -> Any:
    """Read a CSV into a DataFrame, finding its encoding and separator.

    ``kwargs`` go to :func:`pandas.read_csv` (an explicit ``sep=``/``encoding=`` wins).
    With ``spreadsheet=True`` the quote :func:`write_frame` adds before formula-like text
    is removed again.  Raises ``FileNotFoundError`` or ``ValueError`` with what to do.
    """
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such CSV file: {path}")
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rb") as fh:
        head = fh.read(_HEAD_BYTES)
    if not head.strip():
        raise ValueError(
            f"{path} is empty; a CSV with a header line and at least one row is needed"
        )
    for key in ("sep", "delimiter"):
        if kwargs.get(key) is not None and not (isinstance(kwargs[key], str) and kwargs[key]):
            raise TypeError(
                f"{key} must be a non-empty string such as ',' or ';' (or left out "
                f"to detect it from the header line); got {kwargs[key]!r}"
            )
    encoding = kwargs.pop("encoding", None) or _encoding(path, head)
    if "sep" not in kwargs and "delimiter" not in kwargs:
        kwargs.update(_separator(head.decode(encoding, errors="replace")))
    try:
        frame = pd.read_csv(path, encoding=encoding, **kwargs)
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError, csv.Error) as exc:
        raise ValueError(
            f"could not read {path} as CSV ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else exc!r}); check the "
            "separator and that every row has the header's number of fields"
        ) from None
    if kwargs.get("header", "infer") == "infer" and "names" not in kwargs:
        sep = {k: kwargs[k] for k in ("sep", "delimiter", "engine") if k in kwargs}
        header = pd.read_csv(path, encoding=encoding, header=None, nrows=1, dtype=str, **sep)
        # pandas reads a repeated name as ``name.1``: the names as written are checked
        unique_columns(header.iloc[0].astype(str).tolist() if len(header) else [], path.name)
    if spreadsheet:
        frame.columns = [from_spreadsheet(c) for c in frame.columns]
        for col in _text_columns(frame):
            frame[col] = frame[col].map(from_spreadsheet)
    return frame


def unique_columns(names: Any, where: str) -> None:
    """Refuse a table with two columns of one name (a CSV's header, a DataFrame's columns):
    pandas would read the second as a copy, or select both where one is meant."""
    twice = sorted(str(c) for c, n in Counter(names).items() if n > 1)
    if twice:
        raise ValueError(f"{where} has two columns named {twice[0]!r}; rename one")


def _is_text(values: Any) -> bool:
    import pandas as pd

    return pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)


def _text_columns(frame: Any) -> list[Any]:
    return [c for c in frame.columns if _is_text(frame[c])]


def spreadsheet_safe(frame: Any) -> Any:
    """A copy of ``frame`` whose text cells, column names and index are spreadsheet-safe."""
    import pandas as pd

    out = frame.copy()
    for col in _text_columns(out):
        out[col] = out[col].astype(object).map(to_spreadsheet)
    out.columns = (
        pd.Index([to_spreadsheet(c) for c in out.columns])
        if not isinstance(out.columns, pd.MultiIndex)
        else out.columns
    )
    if _is_text(out.index) and not isinstance(out.index, pd.MultiIndex):
        out.index = pd.Index([to_spreadsheet(i) for i in out.index], name=out.index.name)
    return out


def write_frame(
    frame: Any, path: str | Path | None, *, spreadsheet: bool = True, **kwargs: Any
) -> str | None:
    """Write ``frame`` with :func:`pandas.DataFrame.to_csv`; with ``spreadsheet=True`` (a
    file meant to be opened in a spreadsheet) formula-like text is neutralised, with
    ``spreadsheet=False`` (an interchange file) every cell is written exactly.

    A text cell holding a carriage return is quoted (pandas quotes only its own line
    terminator, and readers split lines at a bare ``\r``).  ``path=None`` returns the text.
    """
    safe = spreadsheet_safe(frame) if spreadsheet else frame
    cells = [*map(str, safe.columns), *(str(v) for c in _text_columns(safe) for v in safe[c])]
    if "quoting" not in kwargs and any("\r" in v for v in cells):
        kwargs["quoting"] = csv.QUOTE_NONNUMERIC
    return safe.to_csv(path, **kwargs)


def read_log(log: Any) -> Any:
    """A log as one DataFrame with a fresh row index: a CSV or Parquet path, a DataFrame,
    or an iterable of DataFrame batches (concatenated in arrival order)."""
    import pandas as pd

    if isinstance(log, pd.DataFrame):
        return log.reset_index(drop=True)
    if isinstance(log, str) or hasattr(log, "__fspath__"):
        name = str(log).lower()
        frame = pd.read_parquet(log) if name.endswith((".parquet", ".pq")) else read_frame(log)
        return frame.reset_index(drop=True)
    batches = list(log) if isinstance(log, Iterable) else []
    if not batches or not all(isinstance(b, pd.DataFrame) for b in batches):
        raise ValueError(
            "log must be a CSV or Parquet path, a DataFrame or an iterable of DataFrame "
            f"batches; got {type(log).__name__}"
        )
    return pd.concat(batches, ignore_index=True)
