"""The one numpy-to-JSON converter: every ``to_dict()`` and ``--json`` output uses it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars and arrays as Python numbers and lists, mappings and
    sequences converted item by item, and non-finite floats as ``None`` (JSON has no NaN)."""
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    from bayescomp.core.margins import Margin

    return str(value) if isinstance(value, Margin) else value


def json_digest(value: Any) -> str:
    """SHA-256 (hex) of ``value`` written as JSON (keys sorted; what JSON cannot write by
    its ``repr``): the one digest of a record — a selection's identity, a stored fit's
    checksum, an estimator's parameters.

    Examples
    --------
    >>> json_digest({"b": 1, "a": [0.5, None]}) == json_digest({"a": [0.5, None], "b": 1})
    True
    """
    import hashlib
    import json

    text = json.dumps(value, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()
