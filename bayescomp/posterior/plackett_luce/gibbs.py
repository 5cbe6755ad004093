"""The default sampler of the Plackett–Luce model: a data-augmented Gibbs sampler.

The posterior is the PyMC model's (:func:`~bayescomp.posterior.plackett_luce.model.build_model`:
``w ~ Dirichlet(a)``, each dataset's likelihood the sum of ``P(o | w)`` over the strict orders
``o`` consistent with its ties), sampled by the scheme of Caron & Doucet (2012, "Efficient
Bayesian inference for generalized Bradley–Terry models", J. Comput. Graph. Stat. 21(1)):

* unnormalised worths ``lam_i ~ Gamma(a, 1)``, so ``w = lam / sum(lam) ~ Dirichlet(a)``; the
  likelihood is scale-free, so the posterior of ``w`` is the model's;
* given ``lam``: for a tied dataset a strict order drawn from ``P(o | w)`` over its
  candidates (the exact conditional), then one latent ``Z_p ~ Exp(T_p)`` per place, ``T_p =
  lam[o_p] + ... + lam[o_k]`` (strict datasets: the first ``k - 1`` places; tied ones: all
  ``k``, the full exponential race, so every Gamma shape below is fixed by the data);
* given the latents, ``lam_i ~ Gamma(a + c_i, 1 + R_i)`` (``c_i`` places chosen at,
  ``R_i = sum_{d, p <= place_d(i)} Z_dp``), then the scale ``S = sum(lam)``, independent of
  ``w`` a posteriori with law ``Gamma(k a, 1)``, drawn afresh.

The sweeps never form ``lam = S w``: the latents are drawn on the scale of ``w`` (``Z_dp S``,
whose sums are ``r_i = S R_i``) and ``w`` is the normalised ``G_i / (S + r_i)`` (``G_i ~
Gamma(a + c_i, 1)``), the same draw as ``G_i / (1 + R_i)`` normalised.  A scale that
underflows to 0 (``Gamma(k a)`` with ``k a`` near 0: a small ``concentration``) then changes
nothing instead of making every worth ``0 / 0``.

Every random number comes from numpy ``Generator``s, one per chain
(``SeedSequence(seed).spawn(chains)``), drawn in blocks of :data:`BLOCK` sweeps.  The sweeps
themselves use ``+ - * /`` and comparisons only, every sum accumulated sequentially: the numba
kernel (:mod:`~bayescomp.posterior.plackett_luce._gibbs_kernel`, used when numba is installed)
and the numpy engine below give bitwise identical draws, so the draws of a seed never depend
on what is installed.  Datasets are sampled in a canonical order (tied ones by number of
candidate orders, then each by its rank vector), so the order of the table's rows changes
nothing either.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.posterior.plackett_luce.model import Rankings

__all__ = ["BLOCK", "MAX_THIN", "THIN", "kernel", "prepare", "sample_gibbs"]

#: sweeps whose random numbers are drawn in one call per chain and kind
BLOCK = 128
#: sweeps per kept draw (every sweep: the coverage test's band holds unchanged; the bulk
#: ESS per draw is lower than NUTS', the ESS per CPU second 10-50x higher)
THIN = 1
#: the most sweeps per kept draw the chains are run to when the convergence check asks for
#: more (:func:`sample_gibbs`'s ``enough``): 16 times the requested sweeps at most
MAX_THIN = 16


@dataclass(frozen=True)
class Prepared:
    """The sampler's fixed arrays (datasets in canonical order)."""

    k: int
    strict: np.ndarray  # (n_s, k) strict orders, best first
    cand: np.ndarray  # (n_t, m, k) candidate orders of each tied dataset (padded)
    valid: np.ndarray  # (n_t, m) bool
    inner: np.ndarray  # (n_t, P) places inside tie groups (padded with place 0)
    shape_counts: np.ndarray  # (k,) c_i
    counts: np.ndarray  # (n_t,) candidate orders of each tied dataset, ascending


def prepare(rankings: Rankings) -> Prepared:
    """The arrays the sweeps read, from ``rankings`` (:func:`~.model.rankings_from_scores`)."""
    k = rankings.k
    ranks = rankings.ranks.loc[list(rankings.datasets)].to_numpy(dtype=float)
    n_orders = rankings.valid.sum(axis=1)
    strict_rows, tied = [], []
    for d in np.lexsort(ranks.T[::-1]):  # by the rank of model 0, then of model 1, ...
        rows = rankings.orderings[rankings.index[d, : n_orders[d]]]
        if n_orders[d] == 1:
            strict_rows.append(rows)
        else:  # the places inside a tie group: the same rank as the place before
            r = np.sort(ranks[d])
            tied.append((rows, np.flatnonzero(np.r_[False, r[1:] == r[:-1]])))
    tied.sort(key=lambda x: len(x[0]))  # stable: runs of equal size for the numpy engine
    strict = np.concatenate(strict_rows) if strict_rows else np.zeros((0, k), dtype=np.int64)
    m = max((len(rows) for rows, _ in tied), default=1)
    n_in = max((len(p) for _, p in tied), default=1)
    cand = np.zeros((len(tied), m, k), dtype=np.int64)
    valid = np.zeros((len(tied), m), dtype=bool)
    inner = np.zeros((len(tied), n_in), dtype=np.int64)
    for t, (rows, places) in enumerate(tied):
        cand[t, : len(rows)], cand[t, len(rows) :] = rows, rows[0]
        valid[t, : len(rows)] = True
        inner[t, : len(places)] = places
    c = np.zeros(k)
    np.add.at(c, strict[:, : k - 1].ravel(), 1.0)
    c += len(tied)
    counts = valid.sum(axis=1).astype(np.int64)
    return Prepared(k, strict.astype(np.int64), cand, valid, inner, c, counts)


def _initial_worths(k: int, rng: np.random.Generator) -> np.ndarray:
    """PyMC's start: the simplex centre plus a ``U(-1, 1)`` jitter in the unconstrained space."""
    x = rng.uniform(-1.0, 1.0, k - 1)
    z = np.r_[x, -x.sum()]
    w = np.exp(z - z.max())
    return w / w.sum()


def _draw_block(rngs: list, prep: Prepared, a: float) -> tuple[np.ndarray, ...]:
    """The random numbers of the next :data:`BLOCK` sweeps of every chain (fixed call order)."""
    k, n_s, n_t = prep.k, prep.strict.shape[0], prep.cand.shape[0]
    shape = a + prep.shape_counts
    parts = [
        (
            rng.standard_exponential((BLOCK, n_s, k - 1)),
            rng.standard_exponential((BLOCK, n_t, k)),
            rng.random((BLOCK, n_t)),
            rng.standard_gamma(shape, size=(BLOCK, k)),
            rng.standard_gamma(k * a, size=BLOCK),
        )
        for rng in rngs
    ]
    return tuple(np.ascontiguousarray(np.stack(x)) for x in zip(*parts, strict=True))


def _tied_numpy(lam, exp_t, unif, cand, inner, counts) -> np.ndarray:
    """Each tied dataset's arrival times, per model, shape ``(chains, n_t, k)`` (the numpy
    engine; :func:`~._gibbs_kernel._tied` does the same)."""
    n_c, n_t, k = lam.shape[0], cand.shape[0], lam.shape[1]
    rows = np.arange(n_c)[:, None]
    out = np.empty((n_c, n_t, k))
    edges = np.flatnonzero(np.diff(counts)) + 1
    for t0, t1 in zip(np.r_[0, edges], np.r_[edges, n_t], strict=True):  # equal sizes m
        cb, tb = cand[t0:t1, : counts[t0]], np.arange(t1 - t0)[None, :]
        tc = np.cumsum(lam[:, cb][..., ::-1], axis=-1)[..., ::-1]  # (C, nb, m, k) tails
        idx = np.broadcast_to(inner[None, t0:t1, None, :], tc.shape[:3] + inner.shape[1:])
        ti = np.take_along_axis(tc, idx, axis=-1)
        cum = np.cumsum(np.cumprod(ti[:, :, :1, :] / ti, axis=-1)[..., -1], axis=-1)
        pick = (cum < unif[:, t0:t1, None] * cum[..., -1:]).sum(axis=-1)  # (C, nb)
        arrive = np.cumsum(exp_t[:, t0:t1] / tc[rows, tb, pick], axis=-1)
        place = np.argsort(cand[t0 + tb, pick], axis=-1)  # place of model i
        out[:, t0:t1] = np.take_along_axis(arrive, place, axis=-1)
    return out


def _sweeps_numpy(w, exp_s, exp_t, unif, gam, scale, strict, cand, valid, inner, counts, out):
    """The numpy engine of :func:`~._gibbs_kernel.sweeps` (same arguments, same draws): every
    sum a sequential ``cumsum``, never numpy's pairwise ``sum`` nor BLAS."""
    k, n_s = w.shape[1], strict.shape[0]
    place = np.empty((n_s, k), dtype=np.int64)
    place[np.arange(n_s)[:, None], strict] = np.arange(k)[None, :]
    q, ds = np.minimum(place, k - 2), np.arange(n_s)[:, None]
    for b in range(exp_s.shape[1]):
        tails = np.cumsum(w[:, strict][..., ::-1], axis=-1)[..., ::-1]
        cz = np.cumsum(exp_s[:, b] / tails[..., : k - 1], axis=-1)
        rate = scale[:, b, None] + (np.cumsum(cz[:, ds, q], axis=1)[:, -1] if n_s else 0.0)
        if cand.shape[0]:
            tied = _tied_numpy(w, exp_t[:, b], unif[:, b], cand, inner, counts)
            rate = rate + np.cumsum(tied, axis=1)[:, -1]
        lam = gam[:, b] / rate
        w = lam / np.cumsum(lam, axis=-1)[:, -1:]
        out[:, b] = w
    return w


def kernel() -> Any:
    """The numba kernel (compiled once into the disk cache), or ``None`` without numba."""
    from importlib.util import find_spec

    if any(find_spec(m) is None for m in ("numba", "platformdirs")):
        return None
    import importlib

    from bayescomp.posterior.jit_cache import cached_build

    mod = cached_build(
        "plackett_luce_gibbs",
        lambda: importlib.import_module("bayescomp.posterior.plackett_luce._gibbs_kernel"),
    )
    return mod.sweeps


def sample_gibbs(
    rankings: Rankings,
    concentration: float,
    *,
    seed: int,
    chains: int,
    draws: int,
    tune: int,
    thin: int = THIN,
    engine: str = "auto",
    enough: Callable[[np.ndarray], bool] | None = None,
    **_nuts: Any,
) -> Any:
    """Draws of the worths, read as the NUTS samplers' (``posterior["worth"].values``,
    ``(chains, draws, k)``; ``sample_stats["diverging"].values``, all False; ``thin``, the
    sweeps per kept draw).

    ``tune`` sweeps are discarded (burn-in: nothing is adapted), then every ``thin``-th
    sweep is kept.  ``enough(worth)``, when given, judges the kept draws: while it says no
    and ``thin < MAX_THIN``, the chains run on as long again and every second kept draw is
    dropped (``draws`` per chain still, ``thin`` doubled).  ``engine``: ``"numba"``,
    ``"numpy"`` or ``"auto"`` (numba when installed); the draws are the same.  The NUTS
    settings (``target_accept``, ``cores``, ``progressbar``) are accepted and have no effect.
    """
    prep = prepare(rankings)
    a = float(concentration)
    sweeps = kernel() if engine in ("auto", "numba") else None
    if sweeps is None:
        if engine == "numba":
            raise ImportError("engine='numba' needs numba and platformdirs")
        sweeps = _sweeps_numpy
    seeds = np.random.SeedSequence(int(seed)).spawn(int(chains))
    rngs = [np.random.default_rng(s) for s in seeds]
    state = [np.stack([_initial_worths(prep.k, rng) for rng in rngs])]
    block = np.empty((len(rngs), BLOCK, prep.k))

    def run(skip: int, step: int) -> np.ndarray:
        """``skip`` sweeps, then ``draws`` kept, one every ``step`` sweeps."""
        out = np.empty((len(rngs), draws, prep.k))
        total, done = skip + draws * step, 0
        while done < total:
            n = min(BLOCK, total - done)
            rand = tuple(np.ascontiguousarray(x[:, :n]) for x in _draw_block(rngs, prep, a))
            state[0] = sweeps(
                state[0], *rand, prep.strict, prep.cand, prep.valid, prep.inner, prep.counts, block
            )
            idx = np.arange(done, done + n)
            keep = (idx >= skip) & ((idx - skip) % step == 0)
            out[:, (idx[keep] - skip) // step] = block[:, :n][:, keep]
            done += n
        return out

    out = run(tune, thin)
    while enough is not None and thin < MAX_THIN and not enough(out):
        out = np.concatenate([out, run(0, thin)], axis=1)[:, 1::2]
        thin *= 2
    diverging = np.zeros((len(rngs), draws), dtype=bool)
    return SimpleNamespace(
        posterior={"worth": SimpleNamespace(values=out)},
        sample_stats={"diverging": SimpleNamespace(values=diverging)},
        thin=thin,
    )
