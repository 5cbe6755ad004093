"""What a candidate model is, for the audit trail and for nested cross-validation.

:func:`estimator_params` fingerprints an estimator's deep parameters (the store refuses
a changed model under the same name); :func:`is_self_tuning` tells a search (or any
estimator that tunes itself inside ``fit``) apart, since it is evaluated by nested
cross-validation: cloned and fitted on the outer training fold only, its inner
cross-validation never sees the outer test fold.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import numpy as np


def _param_text(value: Any) -> str:
    if callable(value) and hasattr(value, "__qualname__") and not hasattr(value, "get_params"):
        return f"<callable {value.__qualname__}>"
    if hasattr(value, "get_params"):
        return type(value).__name__
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


def estimator_params(estimator: Any) -> tuple[str, str]:
    """``(params_json, sha256)`` of an estimator's deep parameters, stable across processes."""
    import hashlib

    params = {"__class__": f"{type(estimator).__module__}.{type(estimator).__qualname__}"}
    params.update({k: _param_text(v) for k, v in estimator.get_params(deep=True).items()})
    text = json.dumps(params, sort_keys=True)
    return text, hashlib.sha256(text.encode()).hexdigest()


def _sub_estimators(est: Any) -> list[Any]:
    out = [est]
    try:
        params = est.get_params(deep=True)
    except Exception:  # pragma: no cover - not an estimator
        return out
    out += [v for v in params.values() if hasattr(v, "fit") and hasattr(v, "get_params")]
    return out


def is_self_tuning(estimator: Any) -> bool:
    """Whether ``estimator`` (or a step of it) tunes hyperparameters inside ``fit``.

    True for ``GridSearchCV``/``RandomizedSearchCV``/``Halving*SearchCV``, any
    estimator with a ``param_grid``/``param_distributions``, and scikit-learn's
    ``*CV`` estimators (``LogisticRegressionCV``, ``RidgeCV``, ...).

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn.linear_model import LogisticRegression
    >>> is_self_tuning(GridSearchCV(LogisticRegression(), {"C": [0.1, 1]})), is_self_tuning(
    ...     LogisticRegression())
    (True, False)
    """
    for o in _sub_estimators(estimator):
        try:
            names = set(o.get_params(deep=False))
        except Exception:  # pragma: no cover
            continue
        if names & {"param_grid", "param_distributions"}:
            return True
        if type(o).__name__.endswith("CV") and "cv" in names:
            return True
        if hasattr(type(o), "best_estimator_") or hasattr(type(o), "best_params_"):
            return True
    return False


def check_inner_cv(name: str, estimator: Any) -> None:
    for o in _sub_estimators(estimator):
        try:
            cv = o.get_params(deep=False).get("cv", None)
        except Exception:  # pragma: no cover
            continue
        if cv is None or isinstance(cv, int | np.integer) or hasattr(cv, "split"):
            continue
        raise ValueError(
            f"model {name!r} tunes itself with a fixed list of (train, test) index pairs as its "
            "inner cv; those indices refer to the full data, but in nested cross-validation the "
            "search is fitted on each outer training fold only. Use an int or a splitter object "
            "(e.g. cv=5 or StratifiedKFold(5)) as the inner cv"
        )


def tuned_params(est: Any) -> dict[str, Any] | None:
    for o in [est, *[s for _, s in getattr(est, "steps", [])]]:
        bp = getattr(o, "best_params_", None)
        if isinstance(bp, Mapping):
            return {str(k): (v if isinstance(v, int | float | str | bool | type(None))
                             else _param_text(v)) for k, v in bp.items()}
    return None
