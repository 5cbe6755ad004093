"""The fast sampler of the Plackett–Luce model: the hand-written density of
:mod:`~bayescomp.posterior.plackett_luce._kernels` (the PyMC model stays the definition),
compiled once (:mod:`bayescomp.posterior.jit_cache`) and sampled by nutpie
(:mod:`bayescomp.posterior.nutpie_fast`) without PyMC.  Each chain starts, as PyMC's, at the
centre of the simplex plus a seeded ``U(-1, 1)`` jitter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.posterior.plackett_luce.model import Rankings

__all__ = ["kernels", "pack_data", "sample_fast"]


def kernels() -> Any:
    """The compiled kernel module (compiled or loaded from the disk cache on first use)."""
    import importlib

    from bayescomp.posterior.jit_cache import cached_build

    return cached_build(
        "plackett_luce",
        lambda: importlib.import_module("bayescomp.posterior.plackett_luce._kernels"),
    )


def pack_data(rankings: Rankings, concentration: float) -> np.ndarray:
    """The kernels' data vector: the rankings (ties expanded) and the Dirichlet parameters."""
    k = rankings.k
    n_ord, width = rankings.orderings.shape[0], rankings.index.shape[1]
    head = [0.0, float(k), float(n_ord), float(len(rankings.datasets)), float(width)]
    vec = np.concatenate(
        [
            head,
            np.full(k, float(concentration)),
            rankings.orderings.ravel().astype(float),
            rankings.index.ravel().astype(float),
            rankings.valid.ravel().astype(float),
        ]
    )
    vec[0] = vec.size
    return np.ascontiguousarray(vec, dtype=float)


def _initial_point(k: int) -> Any:
    def init(seed: int) -> np.ndarray:
        return np.random.default_rng(int(seed)).uniform(-1.0, 1.0, k - 1)

    return init


def sample_fast(rankings: Rankings, concentration: float, **run: Any) -> Any:
    """Draws of the worths, as nutpie returns them on the PyMC path (``run``: the settings
    of :func:`bayescomp.posterior.nutpie_fast.sample`)."""
    from bayescomp.posterior import nutpie_fast

    mod = kernels()
    k = rankings.k
    model = nutpie_fast.make_model(
        mod.logp_cfunc,
        mod.expand_cfunc,
        pack_data(rankings, concentration),
        k - 1,
        _initial_point(k),
        [("worth", (k,))],
        {"worth": ("model",)},
        {"model": [str(i) for i in range(k)]},
    )
    return nutpie_fast.sample(model, **run)
