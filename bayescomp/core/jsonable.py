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
