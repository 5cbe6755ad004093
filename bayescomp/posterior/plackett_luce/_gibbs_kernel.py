"""numba kernel of the Plackett–Luce Gibbs sampler: the sweeps of one block of random numbers.

Imported only through :func:`bayescomp.posterior.jit_cache.cached_build`.  The numpy engine
of :mod:`~bayescomp.posterior.plackett_luce.gibbs` is the definition; this kernel does the
same arithmetic in the same order (only ``+ - * /`` and comparisons, every sum accumulated
sequentially), so the two give bitwise identical draws (``tests/test_plackett_luce_gibbs.py``).
"""

from __future__ import annotations

import numba
import numpy as np

# explicit signatures: compiled (and written to the disk cache) when the module is imported,
# inside jit_cache.cached_build, before its manifest is written
_F2, _F3, _F4 = "float64[:, ::1]", "float64[:, :, ::1]", "float64[:, :, :, ::1]"
_I1, _I2, _I3 = "int64[::1]", "int64[:, ::1]", "int64[:, :, ::1]"


@numba.njit(
    f"void(float64[::1], {_F4}, int64, int64, {_I2}, float64[::1])", cache=True, error_model="numpy"
)
def _strict(lam, exp_s, c, b, strict, rate):
    """``rate_i += sum_d sum_{p <= place_d(i)} Z_dp`` over the strict datasets, in order."""
    k = lam.size
    tails = np.empty(k)
    for d in range(strict.shape[0]):
        tail = 0.0
        for p in range(k - 1, -1, -1):
            tail += lam[strict[d, p]]
            tails[p] = tail
        acc = 0.0
        for p in range(k - 1):  # the last place's factor is 1: no latent there
            acc += exp_s[c, b, d, p] / tails[p]
            rate[strict[d, p]] += acc
        rate[strict[d, k - 1]] += acc


@numba.njit(
    f"void(float64[::1], {_F4}, {_F3}, int64, int64, {_I3}, {_I2}, {_I1}, float64[::1])",
    cache=True,
    error_model="numpy",
)
def _tied(lam, exp_t, unif, c, b, cand, inner, counts, r_t):
    """Each tied dataset: an order drawn from ``P(o | w)`` over its candidates, then the
    arrival times of the exponential race; ``r_t_i += arrival time of model i``."""
    k = lam.size
    m, n_in = cand.shape[1], inner.shape[1]
    tcand = np.empty((m, k))
    cum = np.empty(m)
    t0 = np.empty(n_in)
    for t in range(cand.shape[0]):
        nv = counts[t]
        for j in range(nv):
            tail = 0.0
            for p in range(k - 1, -1, -1):
                tail += lam[cand[t, j, p]]
                tcand[j, p] = tail
        for e in range(n_in):
            t0[e] = tcand[0, inner[t, e]]
        tot = 0.0
        for j in range(nv):  # weight of candidate j relative to candidate 0
            ratio = 1.0
            for e in range(n_in):
                ratio *= t0[e] / tcand[j, inner[t, e]]
            tot += ratio
            cum[j] = tot
        target = unif[c, b, t] * cum[nv - 1]
        pick = 0
        for j in range(nv):
            if cum[j] < target:
                pick += 1
        acc = 0.0
        for p in range(k):
            acc += exp_t[c, b, t, p] / tcand[pick, p]
            r_t[cand[t, pick, p]] += acc


@numba.njit(
    f"{_F2}({_F2}, {_F4}, {_F4}, {_F3}, {_F3}, {_F2}, {_I2}, {_I3}, boolean[:, ::1], {_I2}, "
    f"{_I1}, {_F3})",
    cache=True,
    error_model="numpy",
)
def sweeps(w, exp_s, exp_t, unif, gam, scale, strict, cand, valid, inner, counts, out):
    """The sweeps of one block (``exp_s.shape[1]`` of them) of every chain; ``out[c, b]`` is
    chain ``c``'s worths after sweep ``b``; ``w`` (the chains' current worths) is updated
    in place and returned.  ``valid`` is unused (``counts`` says it)."""
    n_chains, n_sweeps = exp_s.shape[0], exp_s.shape[1]
    k = w.shape[1]
    lam = np.empty(k)
    rate = np.empty(k)
    r_t = np.empty(k)
    for c in range(n_chains):
        for b in range(n_sweeps):
            for i in range(k):
                lam[i] = w[c, i]  # on the scale of w: S enters the rate below
                rate[i] = 0.0
                r_t[i] = 0.0
            _strict(lam, exp_s, c, b, strict, rate)
            for i in range(k):
                rate[i] = scale[c, b] + rate[i]  # a fresh scale S ~ Gamma(k a, 1)
            if cand.shape[0]:
                _tied(lam, exp_t, unif, c, b, cand, inner, counts, r_t)
                for i in range(k):
                    rate[i] = rate[i] + r_t[i]
            tot = 0.0
            for i in range(k):
                lam[i] = gam[c, b, i] / rate[i]
                tot += lam[i]
            for i in range(k):
                w[c, i] = lam[i] / tot
                out[c, b, i] = w[c, i]
    return w
