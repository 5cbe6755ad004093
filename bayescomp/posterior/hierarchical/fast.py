"""The fast sampler of the hierarchical model: the hand-written density of
:mod:`~bayescomp.posterior.hierarchical._kernels` (the PyMC model stays the definition),
compiled once into the user's cache (:mod:`bayescomp.posterior.jit_cache`) and sampled by
nutpie (:mod:`bayescomp.posterior.nutpie_fast`) without importing PyMC or PyTensor.  Each
chain starts, as PyMC's, at the prior's support point plus a seeded ``U(-1, 1)`` jitter.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.posterior import nutpie_fast

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.posterior.hierarchical.model import Prepared

__all__ = ["kernels", "pack_data", "sample_fast", "unconstrained_size"]

_NU_M1_START = math.log(1.5 / 0.055)  # support point of Gamma(alpha=1.5, rate=0.055)


def kernels() -> Any:
    """The compiled kernel module (compiled or loaded from the disk cache on first use)."""
    import importlib

    from bayescomp.posterior.jit_cache import cached_build

    return cached_build(
        "hierarchical",
        lambda: importlib.import_module("bayescomp.posterior.hierarchical._kernels"),
    )


def unconstrained_size(q: int) -> int:
    """Length of the unconstrained vector for ``q`` datasets."""
    return 5 + 2 * q


def pack_data(data: dict[str, np.ndarray], parameterization: str) -> np.ndarray:
    """The kernels' data vector from :meth:`Prepared.standardised` and the parameterisation."""
    q = len(data["n"])
    head = [
        0.0,
        float(q),
        1.0 if parameterization == "noncentered" else 0.0,
        float(data["delta_hi"]),
        float(data["std0_hi"]),
        float(data["sigma_hi"]),
        data_constant(data["n"], data["rho"]),
    ]
    vec = np.concatenate([head, data["n"], data["mean"], data["ss"], data["rho"]]).astype(float)
    vec[0] = vec.size
    return np.ascontiguousarray(vec)


def data_constant(n: np.ndarray, rho: np.ndarray) -> float:
    """``sum_i -n_i/2 log(2 pi) - ((n_i - 1) log(1 - rho_i) + log(1 + (n_i - 1) rho_i)) / 2``:
    the likelihood's terms without a parameter, summed once when the data are packed."""
    n, rho = np.asarray(n, dtype=float), np.asarray(rho, dtype=float)
    per = -0.5 * n * math.log(2.0 * math.pi)
    return float(np.sum(per - 0.5 * ((n - 1.0) * np.log1p(-rho) + np.log1p((n - 1.0) * rho))))


def _initial_point(q: int) -> Any:
    def init(seed: int) -> np.ndarray:
        x = np.zeros(unconstrained_size(q))
        x[4] = _NU_M1_START
        return x + np.random.default_rng(int(seed)).uniform(-1.0, 1.0, x.size)

    return init


def _variables(q: int, parameterization: str) -> list[tuple[str, tuple[int, ...]]]:
    out = [(v, ()) for v in ("delta0", "std0", "gamma_alpha", "gamma_beta", "nu_minus_one", "nu")]
    out += [("delta", (q,)), ("sigma", (q,))]
    if parameterization == "noncentered":
        out.append(("delta_z", (q,)))
    return out


def sample_fast(prep: Prepared, parameterization: str, **run: Any) -> Any:
    """Posterior draws (standardised scale), as nutpie returns them on the PyMC path
    (``run``: the settings of :func:`bayescomp.posterior.nutpie_fast.sample`)."""
    k = kernels()
    q = prep.q
    variables = _variables(q, parameterization)
    dims = {v: ("dataset",) for v, shape in variables if shape}
    model = nutpie_fast.make_model(
        k.logp_cfunc,
        k.expand_cfunc,
        pack_data(prep.standardised(), parameterization),
        unconstrained_size(q),
        _initial_point(q),
        variables,
        dims,
        {"dataset": [str(i) for i in range(q)]},
    )
    return nutpie_fast.sample(model, **run)
