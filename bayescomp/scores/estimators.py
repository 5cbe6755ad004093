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
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np

#: parameters that cannot change a fit's scores: a change of them keeps the stored fits
NO_EFFECT = frozenset({"n_jobs", "verbose", "verbosity", "pre_dispatch"})


def no_effect(param: str) -> bool:
    """Whether a (deep) parameter name, e.g. ``"forest__n_jobs"``, cannot change scores."""
    return param.rsplit("__", 1)[-1] in NO_EFFECT


def _library(obj: Any) -> bool:
    """Code of an installed package or the standard library (its version is recorded
    with each fit), as opposed to the user's own code (a model file, a notebook)."""
    import sysconfig

    name = getattr(obj, "__module__", None) or ""
    if name == "__main__":
        return False  # a script, `python -c` or a notebook
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    if module is None or path is None:
        return module is not None  # built-in modules
    roots = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return any(str(path).startswith(r) for r in roots) or "site-packages" in str(path)


def _code_digest(code: Any, h: Any) -> None:
    h.update(code.co_code)
    h.update(repr((code.co_names, code.co_varnames)).encode())
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            _code_digest(const, h)
        else:
            h.update(repr(const).encode())


def code_identity(obj: Any) -> str:
    """`` code=<digest>`` of the user's own function or class (its bytecode and constants,
    so an edited body changes it and a comment does not); empty for library code."""
    import functools
    import hashlib

    if isinstance(obj, functools.partial):
        return code_identity(obj.func)
    if _library(obj):
        return ""
    h = hashlib.sha256()
    if hasattr(obj, "__code__"):
        _code_digest(obj.__code__, h)
    elif isinstance(obj, type):
        for cls in obj.__mro__:
            if _library(cls):
                continue
            for name, member in sorted(vars(cls).items()):
                func = getattr(member, "__func__", member)
                if hasattr(func, "__code__"):
                    h.update(name.encode())
                    _code_digest(func.__code__, h)
    else:
        return ""
    return f" code={h.hexdigest()[:16]}"


def _param_text(value: Any) -> str:
    if callable(value) and hasattr(value, "__qualname__") and not hasattr(value, "get_params"):
        return f"<callable {value.__qualname__}{code_identity(value)}>"
    if hasattr(value, "get_params"):
        return type(value).__name__ + code_identity(type(value))
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))
    # e.g. a pipeline's steps: the repr of the estimators in it, less n_jobs/verbose
    text = re.sub(rf"\b(?:{'|'.join(sorted(NO_EFFECT))})=[^,()]*(?:, )?", "", text)
    return text.replace(", )", ")") + code_identity(value)


def estimator_params(estimator: Any) -> tuple[str, str]:
    """``(params_json, sha256)`` of what determines an estimator's predictions, stable
    across processes: its class and deep parameters, and the code of the user's own
    classes and functions in it (an edited function body changes the identity, so stored
    fits are never reused for it); parameters that cannot change scores (``n_jobs``,
    ``verbose``) are left out."""
    import hashlib

    cls = type(estimator)
    # the user's own class by its name and code (a model file's module name is not stable)
    params = {
        "__class__": f"{cls.__module__}.{cls.__qualname__}"
        if _library(cls)
        else f"{cls.__qualname__}{code_identity(cls)}"
    }
    params.update(
        {k: _param_text(v) for k, v in estimator.get_params(deep=True).items() if not no_effect(k)}
    )
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
            return {
                str(k): (
                    v if isinstance(v, int | float | str | bool | type(None)) else _param_text(v)
                )
                for k, v in bp.items()
            }
    return None
