"""One checker per shared argument: validate once at the boundary, then trust.

Each returns the value in the form the statistics use (a float array for ``rope`` and
``rho``, a float for ``gamma`` and ``level``, an integer seed for ``random_state``) or
raises ``ValueError`` saying what was wrong and what to pass instead.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

_NOT_SCORES = {"c": "complex numbers", "M": "dates (datetime64)", "m": "durations (timedelta64)"}


def as_float_array(x: Any, name: str) -> np.ndarray:
    """``x`` as a float array, refusing what is not a score: text, complex numbers (their
    imaginary part would be dropped), dates and durations (read as nanosecond counts)."""
    kind = getattr(x, "dtype", None)
    kind = np.asarray(x).dtype.kind if kind is None else kind.kind
    if kind in _NOT_SCORES:
        raise ValueError(
            f"{name} must be real-valued scores, got {_NOT_SCORES[kind]}; pass the "
            "metric values themselves (floats)"
        )
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric scores; could not convert: {exc}") from None
    return arr


def check_bool(value: Any, name: str, *, optional: bool = False) -> bool | None:
    """A real boolean (``True``/``False``, numpy's too); None passes when ``optional``.

    A string such as ``"False"`` is truthy in Python and would silently reverse a
    comparison, so it is refused.

    Examples
    --------
    >>> check_bool(False, "higher_is_better")
    False
    >>> check_bool("False", "higher_is_better")
    Traceback (most recent call last):
    ...
    TypeError: higher_is_better must be True or False (a boolean); got the str 'False'. A string is always true in Python: pass higher_is_better=False, not "False"
    """
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    hint = (
        f': pass {name}={value.strip().capitalize()}, not "{value}"'
        if isinstance(value, str) and value.strip().lower() in ("true", "false")
        else ""
    )
    raise TypeError(
        f"{name} must be True or False (a boolean); got the "
        f"{type(value).__name__} {value!r}. A string is always true in Python"
        f"{hint}"
        if isinstance(value, str)
        else f"{name} must be True or False (a boolean); got the {type(value).__name__} {value!r}"
    )


def check_n_jobs(n_jobs: Any) -> int | None:
    """joblib's ``n_jobs``: None, a positive count of workers or a negative one (-1: all
    cores, -2: all but one); 0 means nothing and is refused in these words.

    Examples
    --------
    >>> check_n_jobs(-1), check_n_jobs(None)
    (-1, None)
    >>> check_n_jobs(0)
    Traceback (most recent call last):
    ...
    ValueError: n_jobs=0 runs no worker: pass a positive number of parallel jobs (1 runs in this process), -1 for every core, or None for joblib's default
    """
    if n_jobs is None:
        return None
    if (
        isinstance(n_jobs, (bool, np.bool_))
        or not isinstance(n_jobs, (int, np.integer))
        or n_jobs == 0
    ):
        raise ValueError(
            f"n_jobs={n_jobs!r} runs no worker: pass a positive number of "
            "parallel jobs (1 runs in this process), -1 for every core, or None "
            "for joblib's default"
        )
    return int(n_jobs)


def check_rho(rho: Any) -> np.ndarray:
    r = as_float_array(rho, "rho")
    if not np.all(np.isfinite(r)) or np.any(r < 0) or np.any(r >= 1):
        bad = r[~(np.isfinite(r) & (r >= 0) & (r < 1))]
        raise ValueError(
            f"rho must lie in [0, 1) (it is the test fraction n_test / (n_train + n_test) of the "
            f"design, e.g. 0.1 for 10-fold CV); got {bad.ravel()[:5].tolist()}"
        )
    return r


def check_rope(rope: Any) -> np.ndarray:
    r = as_float_array(rope, "rope")
    if not np.all(np.isfinite(r)) or np.any(r < 0):
        raise ValueError(
            f"rope must be a finite half-width >= 0 on the metric's scale (e.g. 0.01); got {rope!r}"
        )
    return r


def check_number(
    value: Any,
    name: str,
    *,
    integer: bool = False,
    min_val: float | None = None,
    max_val: float | None = None,
    include_boundaries: str = "both",
    advice: str = "",
) -> Any:
    """A number-valued argument, its type and bounds checked (booleans and NaN refused), and
    returned as an ``int`` or a ``float`` (no scikit-learn: the MCMC path does not import it).

    Raises :class:`~bayescomp.core.exceptions.InvalidArgumentError` (a ``ValueError`` and a
    ``TypeError``) saying what the argument must be, what it was, and then ``advice``.

    Examples
    --------
    >>> check_number(3, "draws", integer=True, min_val=1)
    3
    >>> check_number(2.0, "test_fraction", min_val=0, max_val=1, include_boundaries="neither")
    Traceback (most recent call last):
    ...
    bayescomp.core.exceptions.InvalidArgumentError: test_fraction must lie in (0, 1); got 2.0
    >>> check_number(1.0, "gamma", min_val=0.5, max_val=1, include_boundaries="left")
    Traceback (most recent call last):
    ...
    bayescomp.core.exceptions.InvalidArgumentError: gamma must lie in [0.5, 1); got 1.0
    """
    from bayescomp.core.exceptions import InvalidArgumentError

    left, right = include_boundaries in ("left", "both"), include_boundaries in ("right", "both")
    kind = numbers.Integral if integer else numbers.Real
    ok = isinstance(value, kind) and not isinstance(value, (bool, np.bool_))
    ok = ok and abs(value) <= np.finfo(float).max  # NaN, infinities, huge ints refused
    ok = ok and (min_val is None or (value >= min_val if left else value > min_val))
    if not (ok and (max_val is None or (value <= max_val if right else value < max_val))):
        need = _requirement(integer, min_val, max_val, include_boundaries)
        raise InvalidArgumentError(
            name, f"{name} must {need}; got {value!r}" + (f". {advice}" if advice else "")
        )
    return int(value) if integer else float(value)


def _requirement(integer: bool, lo: float | None, hi: float | None, closed: str) -> str:
    """``"lie in (0, 1)"``, ``"be an integer >= 1"``, … from the bounds."""
    kind = "an integer" if integer else "a number"
    left, right = closed in ("left", "both"), closed in ("right", "both")
    if lo is not None and hi is not None:
        where = f"{'[' if left else '('}{lo:g}, {hi:g}{']' if right else ')'}"
        return f"be an integer in {where}" if integer else f"lie in {where}"
    if lo is not None:
        return f"be {kind} {'>=' if left else '>'} {lo:g}"
    if hi is not None:
        return f"be {kind} {'<=' if right else '<'} {hi:g}"
    return f"be {kind}"


def check_fraction(value: Any, name: str) -> float:
    """A fraction strictly between 0 and 1 (e.g. ``test_fraction``)."""
    return check_number(value, name, min_val=0, max_val=1, include_boundaries="neither")


def check_gamma(gamma: float) -> float:
    """The decision threshold: a posterior probability in (0.5, 1)."""
    return check_number(
        gamma,
        "gamma",
        min_val=0.5,
        max_val=1,
        include_boundaries="neither",
        advice="Above 0.5 at most one region can reach it; typical values are 0.9, 0.95, 0.99",
    )


def check_level(level: float, name: str = "level") -> float:
    """A credible or confidence level in (0, 1); ``name`` is the argument's name in messages."""
    return check_number(
        level, name, min_val=0, max_val=1, include_boundaries="neither", advice="e.g. 0.95"
    )


def check_own_level(requested: float | None, own: float, what: str) -> float:
    """The level of a result computed at one level (``own``): ``requested`` must be None or
    that level, since the result cannot be read at another without computing it again."""
    if requested is None or abs(float(requested) - own) < 1e-12:
        return own
    raise ValueError(
        f"this {what} was computed at confidence_level={own:g}, not "
        f"{requested:g}; compute it again with confidence_level={requested:g}"
    )


def check_no_level(confidence_level: float | None, what: str) -> None:
    """``confidence_level`` of a result whose table has no interval: it must stay None."""
    if confidence_level is not None:
        raise ValueError(f"{what} has no interval at a level; leave confidence_level=None")


def rng_from(random_state: Any) -> np.random.Generator:
    """A numpy Generator from ``random_state`` (None, a non-negative int or a Generator)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    bad = isinstance(random_state, bool) or not (
        random_state is None or isinstance(random_state, (int, np.integer, np.random.SeedSequence))
    )
    if bad or (isinstance(random_state, (int, np.integer)) and random_state < 0):
        raise ValueError(
            f"random_state must be None, a non-negative integer or a numpy "
            f"Generator (e.g. random_state=0); got {random_state!r}"
        )
    return np.random.default_rng(random_state)


def seed_from(random_state: Any) -> int:
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer; got {random_state}")
        return int(random_state) % (2**32)
    return int(rng_from(random_state).integers(2**31 - 1))


def _n_rows(x: Any, name: str) -> int:
    from sklearn.utils.validation import _num_samples

    try:
        return int(_num_samples(x))
    except TypeError:
        raise TypeError(
            f"{name} must be array-like with one entry per sample (an array, a list, "
            f"a pandas Series or DataFrame); got {type(x).__name__}"
        ) from None


def check_no_missing(values: Any, name: str, what: str = "a value") -> None:
    """Refuse None/NaN (and inf) among targets or labels, naming the first rows.

    ``what`` says what each row needs in the message (e.g. ``"a target"``).

    Examples
    --------
    >>> check_no_missing([0, 1, None], "y", "a target")
    Traceback (most recent call last):
    ...
    ValueError: y has 1 missing or non-finite value(s) (None/NaN/inf; first at rows [2]); every row needs a target: drop or fill those rows before passing them
    """
    import pandas as pd

    arr = np.atleast_1d(np.asarray(values))
    if arr.dtype.kind in "fc":
        bad = ~np.isfinite(arr)
    elif arr.dtype.kind == "O":
        bad = np.asarray(pd.isna(arr), dtype=bool) | np.array(
            [isinstance(v, float) and np.isinf(v) for v in arr.ravel()]
        ).reshape(arr.shape)
    else:
        return
    if bad.any():
        rows = np.flatnonzero(bad.reshape(len(arr), -1).any(axis=1) if arr.ndim else bad)
        raise ValueError(
            f"{name} has {rows.size} missing or non-finite value(s) (None/NaN/inf; "
            f"first at rows {rows[:5].tolist()}); every row needs {what}: drop or "
            "fill those rows before passing them"
        )


def check_samples(
    X: Any, y: Any = None, groups: Any = None, *, need_y: bool = False, finite_X: bool = True
) -> None:
    """Features, targets and group labels that can be split and fitted, checked once.

    ``X`` must have at least one row; ``y`` and ``groups`` (when given) one entry per row of
    ``X`` with no None/NaN/inf; ``y`` must be given when ``need_y``; a numeric ``X`` must not
    hold infinities when ``finite_X`` (NaN is left to the estimator: some handle it).
    Raises ``ValueError``/``TypeError`` saying what was wrong and what to pass instead.

    Examples
    --------
    >>> import numpy as np
    >>> check_samples(np.zeros((4, 2)), [0, 1, 0, 1])
    >>> check_samples(np.zeros((4, 2)), [0, 1, 0])
    Traceback (most recent call last):
    ...
    ValueError: y has 3 entries but X has 4 rows: pass one y value per row of X
    """
    if X is None:
        raise ValueError(
            "X is None: pass the features, one row per sample (an array or a DataFrame)"
        )
    n = _n_rows(X, "X")
    if n == 0:
        raise ValueError("X has no rows: pass at least one row per fold of the cross-validation")
    if need_y and y is None:
        raise ValueError(
            "y is None but the models are supervised (classifiers or regressors): "
            "pass the targets, one per row of X"
        )
    for name, values, what in (("y", y, "a target"), ("groups", groups, "a group label")):
        if values is None:
            continue
        m = _n_rows(values, name)
        if m != n:
            raise ValueError(
                f"{name} has {m} entries but X has {n} rows: pass one {name} value per row of X"
            )
        check_no_missing(values, name, what)
    if finite_X and not hasattr(X, "tocsr"):
        try:
            arr = np.asarray(X)
        except (TypeError, ValueError):
            return
        if arr.dtype.kind in "fc" and np.isinf(arr).any():
            rows = np.flatnonzero(np.isinf(arr).reshape(n, -1).any(axis=1))
            raise ValueError(
                f"X holds infinite values in {rows.size} row(s) (first at rows "
                f"{rows[:5].tolist()}); no estimator can fit them: replace or drop "
                "those rows (NaN is allowed where the estimator handles it)"
            )
