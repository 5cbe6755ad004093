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


def _call_logp_cfunc(cfunc, x, packed):
    """``(status, logp)`` of the compiled callback as nutpie calls it (through its C address)."""
    import ctypes

    dbl = ctypes.POINTER(ctypes.c_double)
    proto = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_uint64, dbl, dbl, dbl, ctypes.c_void_p)
    grad, logp = np.zeros(x.size), np.zeros(1)
    args = (np.ascontiguousarray(x), grad, logp)
    status = proto(cfunc.address)(
        x.size, *(a.ctypes.data_as(dbl) for a in args), packed.ctypes.data
    )
    return int(status), float(logp[0])


@pytest.mark.parametrize("parameterization", ["centered", "noncentered"])
@pytest.mark.parametrize("where", ["std0", "nu_minus_one", "sigma"])
def test_hierarchical_logp_reports_an_underflowed_parameter_as_a_failure(parameterization, where):
    """A parameter whose transform underflows to 0 (``y = -800``: ``std0``, ``nu - 1`` or a
    ``sigma_i``) gives PyMC's density no finite value (a division by zero): the callback must
    tell nutpie so (a non-zero status), not report a log density of 0 as a success."""
    import pymc as pm

    q = 3
    prep = _hier_data(q, seed=7)
    data = prep.standardised()
    model = _build_model(q, parameterization)
    with model:
        pm.set_data(data)
    v = "delta_z" if parameterization == "noncentered" else "delta"
    logp, _, names = _pymc_functions(model, [*_ORDER, v, "sigma"])
    packed = hfast.pack_data(data, parameterization)
    x = np.random.default_rng(3).normal(0.0, 0.5, hfast.unconstrained_size(q))
    cfunc = hfast.kernels().logp_cfunc
    assert _call_logp_cfunc(cfunc, x, packed) == (
        0,
        pytest.approx(float(logp(_split(x, names, [0, 0, 0, 0, 0, q, q]))), rel=RTOL),
    )
    x[{"std0": 1, "nu_minus_one": 4, "sigma": 5 + q}[where]] = -800.0
    with np.errstate(all="ignore"):
        reference = float(logp(_split(x, names, [0, 0, 0, 0, 0, q, q])))
    status, value = _call_logp_cfunc(cfunc, x, packed)
    if status == 0:  # a success is the true density (std0 -> 0 only scales delta_z)
        assert np.isfinite(reference) and value == pytest.approx(reference, rel=RTOL)
    else:  # a failed point; PyMC 6 still finds a finite value where nu - 1 underflows
        assert not np.isfinite(reference) or where == "nu_minus_one"
