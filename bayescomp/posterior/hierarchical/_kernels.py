"""numba kernels of the hierarchical model: log density and gradient in PyMC's unconstrained space.

Imported only through :func:`bayescomp.posterior.jit_cache.cached_build` (which points
numba's ``cache=True`` at the user's cache directory), never at package import.  The
model, its transforms and their Jacobians are exactly those of the PyMC model in
:mod:`~bayescomp.posterior.hierarchical.model` (``tests/test_fast_logp.py`` checks the
two against each other at random points):

* ``delta0, std0, gamma_alpha, gamma_beta, sigma_i`` ~ Uniform: PyMC's interval
  transform ``x = s(y) b + (1 - s(y)) a`` (``s`` the logistic function), whose
  Uniform density plus log-Jacobian is ``-y - 2 softplus(-y)``;
* ``nu - 1`` ~ Gamma(alpha, rate=beta): the log transform ``x = exp(y)`` (log-Jacobian ``y``);
* ``delta_i`` (centred) or ``delta_z`` (non-centred) ~ Student-t: no transform;
* the likelihood is :func:`~bayescomp.posterior.hierarchical.model.hierarchical_loglik`.

The unconstrained vector is ``[delta0, std0, gamma_alpha, gamma_beta, nu_minus_one,
v_1..v_q, sigma_1..sigma_q]`` (``v`` = ``delta`` or ``delta_z``).  The data vector is
``[length, q, noncentered, delta_hi, std0_hi, sigma_hi, c, n(q), mean(q), ss(q), rho(q)]``,
where ``c`` is the likelihood's part that depends on the data alone (``fast.data_constant``).

Every kernel divides as numpy does (``error_model="numpy"``): where a parameter's transform
underflows to 0 (``std0``, ``nu - 1`` or a ``sigma_i`` at ``y`` near -800) the density is
not finite and :func:`logp_cfunc` says so to nutpie; numba's default would raise
``ZeroDivisionError``, which a C callback cannot raise, and report a log density of 0 as a
success.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import types

HEADER = 7


@numba.njit(cache=True, error_model="numpy")
def softplus(x):
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


@numba.njit(cache=True, error_model="numpy")
def digamma(x):
    """psi(x) for x > 0: recurrence to x >= 6, then the asymptotic series (error < 1e-14)."""
    acc = 0.0
    while x < 6.0:
        acc -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    tail = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))))
    return acc + math.log(x) - 0.5 / x - tail


@numba.njit(cache=True, error_model="numpy")
def interval(y, a, b):
    """Value, d value / dy, Uniform logp + log-Jacobian and its derivative, as PyMC."""
    s = 1.0 / (1.0 + math.exp(-y))
    x = s * b + (1.0 - s) * a
    return x, (b - a) * s * (1.0 - s), -y - 2.0 * softplus(-y), 1.0 - 2.0 * s


@numba.njit(cache=True, error_model="numpy")
def t_constants(nu):
    """The terms of the Student-t log density, and of its derivative in nu, that depend on nu
    only: computed once per gradient, not once per dataset."""
    lp = math.lgamma((nu + 1.0) / 2.0) - math.lgamma(nu / 2.0) - 0.5 * math.log(nu * math.pi)
    dnu = 0.5 * digamma((nu + 1.0) / 2.0) - 0.5 * digamma(nu / 2.0) - 0.5 / nu
    return lp, dnu


@numba.njit(cache=True, error_model="numpy")
def student_t(x, nu, mu, s, log_s, const):
    """Student-t log density and its derivatives in x, mu, s and nu (``log_s``: log(s);
    ``const``: the :func:`t_constants` of ``nu``)."""
    t = (x - mu) / s
    r = nu + t * t
    l1p = math.log1p(t * t / nu)
    lp = const[0] - log_s - (nu + 1.0) / 2.0 * l1p
    dx = -(nu + 1.0) * t / (s * r)
    ds = -1.0 / s + (nu + 1.0) * t * t / (s * r)
    dnu = const[1] - 0.5 * l1p + (nu + 1.0) * t * t / (2.0 * nu * r)
    return lp, dx, -dx, ds, dnu


@numba.njit(cache=True, error_model="numpy")
def logp_grad(x, data, grad):
    """Log density at the unconstrained point ``x``; its gradient is written into ``grad``."""
    q = int(data[1])
    noncentered = data[2] > 0.5
    n, mean = data[HEADER : HEADER + q], data[HEADER + q : HEADER + 2 * q]
    ss, rho = data[HEADER + 2 * q : HEADER + 3 * q], data[HEADER + 3 * q : HEADER + 4 * q]
    d0, dd0, lp_a, g_y0 = interval(x[0], -data[3], data[3])
    s0, ds0, lp_b, g_y1 = interval(x[1], 0.0, data[4])
    a, da, lp_c, g_y2 = interval(x[2], 1.0, 2.0)
    b, db, lp_d, g_y3 = interval(x[3], 0.01, 0.1)
    m = math.exp(x[4])
    nu = m + 1.0
    lp = lp_a + lp_b + lp_c + lp_d
    # nu - 1 ~ Gamma(a, rate=b), log transform
    lp += a * math.log(b) - math.lgamma(a) + (a - 1.0) * math.log(m) - b * m + x[4]
    g_a = math.log(b) - digamma(a) + math.log(m)
    g_b = a / b - m
    g_m = (a - 1.0) / m - b
    g_nu, g_d0, g_s0 = 0.0, 0.0, 0.0
    # once per gradient, not once per dataset: the Student-t terms of nu, log(std0), log of
    # sigma's upper bound, and the likelihood's terms of the data alone
    const = t_constants(nu)
    log_s0, log_hi = math.log(s0), math.log(data[5])
    lp += data[6]
    for i in range(q):
        v = x[5 + i]
        if noncentered:
            lt, gx, _, _, gn = student_t(v, nu, 0.0, 1.0, 0.0, const)
            delta = d0 + s0 * v
        else:
            lt, gx, gmu, gs, gn = student_t(v, nu, d0, s0, log_s0, const)
            g_d0 += gmu
            g_s0 += gs
            delta = v
        lp += lt
        g_nu += gn
        # sigma_i = s(y) hi: log(sigma_i) = log(hi) - softplus(-y); s(y) and softplus(-y)
        # from one exponential, exp(-|y|)
        y = x[5 + q + i]
        e = math.exp(-abs(y))
        sp = max(-y, 0.0) + math.log1p(e)
        sl = 1.0 / (1.0 + e) if y >= 0.0 else e / (1.0 + e)
        sig = sl * data[5]
        lp += -y - 2.0 * sp
        var_a = sig * sig * (1.0 - rho[i])
        var_b = sig * sig * (1.0 + (n[i] - 1.0) * rho[i])
        resid = mean[i] - delta
        quad = ss[i] / var_a + n[i] * resid * resid / var_b
        lp += -n[i] * (log_hi - sp) - 0.5 * quad
        g_delta = n[i] * resid / var_b
        if noncentered:
            grad[5 + i] = gx + g_delta * s0
            g_d0 += g_delta
            g_s0 += g_delta * v
        else:
            grad[5 + i] = gx + g_delta
        grad[5 + q + i] = (quad - n[i]) * (1.0 - sl) + 1.0 - 2.0 * sl  # d sigma/dy = sigma (1-s)
    grad[0] = g_d0 * dd0 + g_y0
    grad[1] = g_s0 * ds0 + g_y1
    grad[2] = g_a * da + g_y2
    grad[3] = g_b * db + g_y3
    grad[4] = (g_m + g_nu) * m + 1.0
    return lp


@numba.njit(cache=True, error_model="numpy")
def expand(x, data, out):
    """Constrained draws: delta0, std0, gamma_alpha, gamma_beta, nu_minus_one, nu, delta,
    sigma (and delta_z when non-centred)."""
    q = int(data[1])
    d0 = interval(x[0], -data[3], data[3])[0]
    s0 = interval(x[1], 0.0, data[4])[0]
    out[0] = d0
    out[1] = s0
    out[2] = interval(x[2], 1.0, 2.0)[0]
    out[3] = interval(x[3], 0.01, 0.1)[0]
    out[4] = math.exp(x[4])
    out[5] = out[4] + 1.0
    for i in range(q):
        v = x[5 + i]
        out[6 + i] = d0 + s0 * v if data[2] > 0.5 else v
        out[6 + q + i] = interval(x[5 + q + i], 0.0, data[5])[0]
        if data[2] > 0.5:
            out[6 + 2 * q + i] = v
    return 0


#: the C signatures nutpie calls the callbacks with: ``logp(dim, x, grad, logp_out,
#: user_data) -> status`` and ``expand(dim, n_expanded, x, expanded, user_data) -> status``
LOGP_SIG = types.int64(
    types.uint64,
    types.CPointer(types.double),
    types.CPointer(types.double),
    types.CPointer(types.double),
    types.voidptr,
)
EXPAND_SIG = types.int64(
    types.uint64,
    types.uint64,
    types.CPointer(types.double),
    types.CPointer(types.double),
    types.voidptr,
)


@numba.cfunc(LOGP_SIG, cache=True, error_model="numpy")
def logp_cfunc(dim, x_, out_, logp_, data_):  # pragma: no cover - run by nutpie
    size = int(numba.carray(data_, (1,), np.float64)[0])
    data = numba.carray(data_, (size,), np.float64)
    if dim != 5 + 2 * int(data[1]):
        return -1
    x = numba.carray(x_, (dim,))
    out = numba.carray(out_, (dim,))
    lp = logp_grad(x, data, out)
    logp_[0] = lp
    for i in range(dim):
        if not np.isfinite(out[i]):
            return 3
    if not np.isfinite(lp):
        return 4
    return 0


@numba.cfunc(EXPAND_SIG, cache=True, error_model="numpy")
def expand_cfunc(dim, n_out, x_, out_, data_):  # pragma: no cover - run by nutpie
    size = int(numba.carray(data_, (1,), np.float64)[0])
    data = numba.carray(data_, (size,), np.float64)
    x = numba.carray(x_, (dim,))
    out = numba.carray(out_, (n_out,))
    return expand(x, data, out)
