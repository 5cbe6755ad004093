"""One checker per shared argument: validate once at the boundary, then trust.

Each returns the value in the form the statistics use (a float array for ``rope`` and
``rho``, a float for ``gamma`` and ``level``, an integer seed for ``random_state``) or
raises ``ValueError`` saying what was wrong and what to pass instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def as_float_array(x: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric scores; could not convert: {exc}") from None
    return arr


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


def check_scalar_rope(rope: Any) -> float:
    """:func:`check_rope` for a single half-width (the across-datasets tests, the ranking)."""
    r = check_rope(rope)
    if r.size != 1:
        raise ValueError(f"rope must be a single half-width here, got shape {r.shape}")
    return float(r.reshape(()))


def check_gamma(gamma: float) -> float:
    gamma = float(gamma)
    if not 0.5 < gamma < 1.0:
        raise ValueError(
            f"gamma must lie in (0.5, 1) so that at most one region can reach it; got {gamma}. "
            "Typical values are 0.9, 0.95 or 0.99."
        )
    return gamma


def check_level(level: float, name: str = "level") -> float:
    """A credible or confidence level in (0, 1); ``name`` is the argument's name in messages."""
    value = float(level)
    if not 0 < value < 1:
        raise ValueError(f"{name} must lie in (0, 1), e.g. 0.95; got {level}")
    return value


def rng_from(random_state: Any) -> np.random.Generator:
    """A numpy Generator from ``random_state`` (None, a non-negative int or a Generator)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    bad = isinstance(random_state, bool) or not (
        random_state is None or isinstance(random_state, (int, np.integer, np.random.SeedSequence)))
    if bad or (isinstance(random_state, (int, np.integer)) and random_state < 0):
        raise ValueError(f"random_state must be None, a non-negative integer or a numpy "
                         f"Generator (e.g. random_state=0); got {random_state!r}")
    return np.random.default_rng(random_state)


def seed_from(random_state: Any) -> int:
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer; got {random_state}")
        return int(random_state) % (2**32)
    return int(rng_from(random_state).integers(2**31 - 1))
