"""Joint Bayesian ranking of many models across many datasets (Plackett–Luce).

One job per module, imported in this order:

* :mod:`~bayescomp.posterior.plackett_luce.model` — per-dataset rankings from scores
  (ties expanded into the strict orders consistent with them), the likelihood and the
  PyMC model (coords, dims, ``pm.Data``) with its cache of compiled models;
* :mod:`~bayescomp.posterior.plackett_luce.result` — :class:`PlackettLuceResult`:
  P(best), expected ranks, P(i beats j), diagnostics, LaTeX export, plot methods;
* :mod:`~bayescomp.posterior.plackett_luce.sampling` — the seeded NUTS fit and
  :func:`plackett_luce`.
"""

from bayescomp.posterior.plackett_luce.model import (
    Rankings,
    plackett_luce_loglik,
    rankings_from_scores,
)
from bayescomp.posterior.plackett_luce.result import Best, PlackettLuceResult, expected_rank
from bayescomp.posterior.plackett_luce.sampling import plackett_luce

__all__ = [
    "Best",
    "PlackettLuceResult",
    "Rankings",
    "expected_rank",
    "plackett_luce",
    "plackett_luce_loglik",
    "rankings_from_scores",
]
