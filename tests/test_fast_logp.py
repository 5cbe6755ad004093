"""The fast samplers' hand-written log densities equal the PyMC models', value and gradient.

The PyMC models are the definition; the numba kernels handed to nutpie
(``bayescomp/posterior/*/_kernels.py``) must give the same log density and gradient in
PyMC's unconstrained space (same transforms and Jacobians) to 1e-8 relative, at random
points and at the boundaries of the uniform priors, for both parameterisations, several
dataset counts, varying ``n_i`` and ``rho_i``.  A change to either model without the other
fails here.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pymc")
pytest.importorskip("numba")
pytest.importorskip("platformdirs")

from bayescomp.posterior.hierarchical import fast as hfast
from bayescomp.posterior.hierarchical.model import _build_model, prepare_datasets

RTOL = 1e-8
_ORDER = ("delta0", "std0", "gamma_alpha", "gamma_beta", "nu_minus_one")


def _pymc_functions(model, names):
    """PyMC's compiled logp and dlogp, the latter in the kernels' coordinate order."""
    from pytensor.compile.mode import Mode

    # the Python linker: no C compilation (and no wait on PyTensor's shared compile lock)
    mode = Mode(linker="py", optimizer="fast_run")
    rvs = [model[n] for n in names]
    values = [model.rvs_to_values[rv] for rv in rvs]
    logp = model.compile_logp(jacobian=True, mode=mode)
    dlogp = model.compile_dlogp(vars=rvs, jacobian=True, mode=mode)
    return logp, dlogp, [v.name for v in values]


def _split(x, names, sizes):
    out, at = {}, 0
    for name, size in zip(names, sizes, strict=True):
        out[name] = x[at] if size == 0 else x[at : at + size]
        at += max(size, 1)
    return out


def _close(a, b, scale):
    """Equal to 1e-8 relative (components far below the gradient's scale: to 1e-8 of it)."""
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=RTOL * scale)


def _hier_data(q, seed):
    rng = np.random.default_rng(seed)
    diffs = {
        f"d{i}": rng.normal(
            rng.normal(0.01, 0.02), rng.uniform(0.005, 0.05), int(rng.integers(2, 40))
        )
        for i in range(q)
    }
    rho = {f"d{i}": float(r) for i, r in enumerate(rng.uniform(0.0, 0.6, q))}
    return prepare_datasets(diffs, rho, 1000.0)


@pytest.mark.parametrize("parameterization", ["centered", "noncentered"])
@pytest.mark.parametrize("q", [2, 7, 30])
def test_hierarchical_logp_and_gradient_equal_pymc(parameterization, q):
    import pymc as pm

    prep = _hier_data(q, seed=q)
    data = prep.standardised()
    model = _build_model(q, parameterization)
    with model:
        pm.set_data(data)
    v = "delta_z" if parameterization == "noncentered" else "delta"
    logp, dlogp, names = _pymc_functions(model, [*_ORDER, v, "sigma"])
    kern = hfast.kernels()
    packed = hfast.pack_data(data, parameterization)
    rng = np.random.default_rng(100 + q)
    n = hfast.unconstrained_size(q)
    points = [rng.normal(0.0, 2.0, n) for _ in range(20)]
    for edge in (-30.0, 30.0):  # the uniform priors' boundaries: y -> +-inf
        x = rng.normal(0.0, 1.0, n)
        x[[0, 1, 2, 3]] = edge
        x[5 + q :] = np.clip(edge, -12.0, 30.0)  # sigma -> 0 makes the density -inf (as PyMC)
        points.append(x)
    for x in points:
        point = _split(x, names, [0, 0, 0, 0, 0, q, q])
        grad = np.zeros(n)
        value = kern.logp_grad(x, packed, grad)
        expected = float(logp(point))
        assert np.isfinite(value)
        assert value == pytest.approx(expected, rel=RTOL)
        ref = dlogp(point)
        _close(grad, ref, np.abs(ref).max())
