"""Bayesian hierarchical comparison of two models across many datasets.

One job per module, imported in this order:

* :mod:`~bayescomp.posterior.hierarchical.model` — the likelihood from sufficient
  statistics, the preparation of the data, the choice of parameterisation and the
  PyMC model with its cache of compiled models;
* :mod:`~bayescomp.posterior.hierarchical.diagnostics` — ArviZ's convergence table
  and the pass/fail rule;
* :mod:`~bayescomp.posterior.hierarchical.result` — :class:`HierarchicalResult`;
* :mod:`~bayescomp.posterior.hierarchical.io` — the result's arrays from the draws (its
  InferenceData is built from them when first read) and :func:`load`;
* :mod:`~bayescomp.posterior.hierarchical.sampling` — sampler choice, seeding, the
  NUTS run, the retries (:func:`retry_schedule`) and :func:`hierarchical_test`.
"""

from typing import Any

from bayescomp.core import exceptions
from bayescomp.core.regions import RegionProbabilities
from bayescomp.posterior.hierarchical.diagnostics import ESS_BULK_MIN, R_HAT_MAX
from bayescomp.posterior.hierarchical.io import load
from bayescomp.posterior.hierarchical.model import hierarchical_loglik, model_cache_info
from bayescomp.posterior.hierarchical.result import HierarchicalResult
from bayescomp.posterior.hierarchical.sampling import hierarchical_test, retry_schedule

__all__ = [
    "ESS_BULK_MIN",
    "R_HAT_MAX",
    "ConvergenceWarning",
    "HierarchicalResult",
    "RegionProbabilities",
    "hierarchical_loglik",
    "hierarchical_test",
    "load",
    "model_cache_info",
    "retry_schedule",
]


def __getattr__(name: str) -> Any:
    if name == "ConvergenceWarning":  # on first use: it subclasses scikit-learn's
        return exceptions.ConvergenceWarning
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
