"""numba kernels of the Plackett–Luce model: log density and gradient in PyMC's unconstrained space.

Imported only through :func:`bayescomp.posterior.jit_cache.cached_build`.  The same
density as :func:`~bayescomp.posterior.plackett_luce.model.build_model` (checked against
it in ``tests/test_fast_logp.py``):

* ``worth ~ Dirichlet(a)`` under PyMC's ``simplex`` transform: ``y`` in ``R^(k-1)``,
  ``z = [y, -sum(y)]``, ``worth = softmax(z)``, log-Jacobian
  ``log k + k S - k logsumexp([y + S, 0])`` with ``S = sum(y)``;
* each dataset's log-likelihood is the log-sum-exp, over the strict orderings consistent
  with its (possibly tied) ranking, of ``sum_p log w[o_p] - log(w[o_p] + ... + w[o_k])``
  (the exact tie marginal, unchanged).

The data vector is ``[length, k, n_orderings, n_datasets, width, a(k), orderings
(n_orderings * k), index (n_datasets * width), valid (n_datasets * width)]``.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from bayescomp.posterior.nutpie_signatures import EXPAND_SIG, LOGP_SIG

HEADER = 5


@numba.njit(cache=True)
def worths(x, w):
    """``w = softmax([x, -sum(x)])`` (PyMC's simplex backward); returns ``sum(x)``."""
    k = x.size + 1
    s = 0.0
    for i in range(k - 1):
        s += x[i]
    zmax = -s
    for i in range(k - 1):
        zmax = max(zmax, x[i])
    tot = 0.0
    for i in range(k):
        w[i] = math.exp((x[i] if i < k - 1 else -s) - zmax)
        tot += w[i]
    for i in range(k):
        w[i] /= tot
    return s


@numba.njit(cache=True)
def ordering_loglik(w, data, row, k, gz, scale, tails):
    """log P(o | w) of ordering ``row``; adds ``scale * d/dz`` of it to ``gz`` when scale != 0.

    ``tails`` (length k) receives ``T_p = w[o_p] + ... + w[o_k]``, summed from the back
    as PyMC does (no cancellation when the last worths are tiny).
    """
    base = HEADER + k + row * k
    tail = 0.0
    lp = 0.0
    for p in range(k - 1, -1, -1):
        j = int(data[base + p])
        tail += w[j]
        tails[p] = tail
        lp += math.log(w[j]) - math.log(tail)
    if scale != 0.0:
        cum = 0.0
        for p in range(k):  # d/dlog w[o_r] = 1 - w[o_r] * sum_{p <= r} 1 / T_p
            j = int(data[base + p])
            cum += 1.0 / tails[p]
            gz[j] += scale * (1.0 - w[j] * cum)
    return lp


@numba.njit(cache=True)
def logp_grad(x, data, grad):
    """Log density at the unconstrained point ``x``; its gradient is written into ``grad``."""
    k, n_ord, n_ds, width = int(data[1]), int(data[2]), int(data[3]), int(data[4])
    conc = data[HEADER : HEADER + k]
    idx0 = HEADER + k + n_ord * k
    val0 = idx0 + n_ds * width
    w = np.empty(k)
    gz = np.zeros(k)
    tails = np.empty(k)
    s = worths(x, w)
    # Dirichlet(a) log density and the simplex log-Jacobian, as PyMC writes them
    a_tot = 0.0
    lp = 0.0
    for j in range(k):
        a_tot += conc[j]
        lp += (conc[j] - 1.0) * math.log(w[j]) - math.lgamma(conc[j])
        gz[j] += conc[j]
    lp += math.lgamma(a_tot)
    umax = 0.0
    for i in range(k - 1):
        umax = max(umax, x[i] + s)
    lse = 0.0
    for i in range(k - 1):
        lse += math.exp(x[i] + s - umax)
    lse = umax + math.log(lse + math.exp(-umax))
    lp += math.log(k) + k * s - k * lse
    for j in range(k):
        gz[j] -= a_tot * w[j]
    # likelihood: per dataset, log-sum-exp over its orderings
    for d in range(n_ds):
        m = -np.inf
        for c in range(width):
            if data[val0 + d * width + c] > 0.5:
                m = max(
                    m, ordering_loglik(w, data, int(data[idx0 + d * width + c]), k, gz, 0.0, tails)
                )
        tot = 0.0
        for c in range(width):
            if data[val0 + d * width + c] > 0.5:
                tot += math.exp(
                    ordering_loglik(w, data, int(data[idx0 + d * width + c]), k, gz, 0.0, tails) - m
                )
        ll = m + math.log(tot)
        lp += ll
        for c in range(width):
            if data[val0 + d * width + c] > 0.5:
                row = int(data[idx0 + d * width + c])
                weight = math.exp(ordering_loglik(w, data, row, k, gz, 0.0, tails) - ll)
                ordering_loglik(w, data, row, k, gz, weight, tails)
    for i in range(k - 1):
        grad[i] = gz[i] - gz[k - 1]
    return lp


@numba.njit(cache=True)
def expand(x, out):
    worths(x, out)
    return 0


@numba.cfunc(LOGP_SIG, cache=True)
def logp_cfunc(dim, x_, out_, logp_, data_):  # pragma: no cover - run by nutpie
    size = int(numba.carray(data_, (1,), np.float64)[0])
    data = numba.carray(data_, (size,), np.float64)
    if dim != int(data[1]) - 1:
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


@numba.cfunc(EXPAND_SIG, cache=True)
def expand_cfunc(dim, n_out, x_, out_, data_):  # pragma: no cover - run by nutpie
    x = numba.carray(x_, (dim,))
    out = numba.carray(out_, (n_out,))
    return expand(x, out)
