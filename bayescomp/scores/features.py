"""Name the feature column a model's own error is about (text given to a numeric model).

scikit-learn's numeric-only estimators fail on a text column with ``could not convert
string to float: 'red'``, which names neither the column nor what to do.
:func:`name_text_column` adds both when the quoted value belongs to exactly one text
column of ``X``.
"""

from __future__ import annotations

import re
from typing import Any

#: what the hint says to do; the command line reads the same words
ENCODE_OR_DROP = (
    "encode it inside the model (e.g. a ColumnTransformer with OneHotEncoder) or drop it "
    "(on the command line: --drop {column})"
)


def _is_text(s: Any) -> bool:
    return s.dtype.kind in "OSUb" or str(s.dtype) in ("category", "string", "str")


def text_columns(X: Any) -> list[str]:
    """The names of the text (object, string, category) columns of a DataFrame ``X``.

    Examples
    --------
    >>> import pandas as pd
    >>> text_columns(pd.DataFrame({"a": [1.0], "plan": ["gold"]})), text_columns([[1.0]])
    (['plan'], [])
    """
    if not hasattr(X, "columns") or not hasattr(X, "dtypes"):
        return []
    return [str(c) for c in X.columns if _is_text(X[c])]


def name_text_column(message: str, X: Any) -> str:
    """``message`` (a model's own error) with the text feature column it is about, when the
    error quotes a value found in exactly one text column of ``X``; else unchanged.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [31.0, 40.0], "plan": ["gold", "basic"]})
    >>> print(name_text_column("ValueError: could not convert string to float: 'gold'", X))
    ValueError: could not convert string to float: 'gold' (feature column 'plan' holds text this model cannot take: encode it inside the model (e.g. a ColumnTransformer with OneHotEncoder) or drop it (on the command line: --drop plan))
    """
    if "(feature column " in message:
        return message
    cols = text_columns(X)
    if not cols:
        return message
    for value in dict.fromkeys(re.findall(r"'([^']{1,80})'", message)):
        found = [c for c in cols if (X[c].astype(str) == value).any()]
        if len(found) == 1:
            todo = ENCODE_OR_DROP.format(column=found[0])
            return (
                f"{message} (feature column {found[0]!r} holds text this model cannot take: {todo})"
            )
        if found:
            break
    return message
