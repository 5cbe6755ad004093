"""bayescomp: Bayesian model comparison with honest uncertainty.

The package is organised along the flow of a comparison::

    splits -> scores -> posterior -> decision -> report

``import bayescomp`` is cheap: every public name is resolved lazily on first
use (PEP 562), so neither pandas, scikit-learn nor PyMC are imported until a
function that needs them is called.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any


def _version() -> str:
    """The installed distribution's version: ``pyproject.toml`` is its one source."""
    from importlib import metadata

    try:
        return metadata.version("bayescomp")
    except metadata.PackageNotFoundError:  # a source checkout, not installed
        return _source_version()


def _source_version() -> str:
    """The version in ``pyproject.toml`` of a source checkout that is not installed."""
    import tomllib

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    try:
        with pyproject.open("rb") as fh:
            return str(tomllib.load(fh)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "0+unknown"


# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # splits
    "GroupTimeSeriesSplit": "bayescomp.splits.group",
    "RepeatedGroupKFold": "bayescomp.splits.group",
    "materialise_splits": "bayescomp.splits.design",
    # scores
    "Scores": "bayescomp.scores.table",
    "cross_validate_paired": "bayescomp.scores.crossval",
    "bootstrap_metric": "bayescomp.metrics.bootstrap",
    "MetricInterval": "bayescomp.metrics.interval",
    "blb_metric": "bayescomp.metrics.blb",
    "threshold_curves": "bayescomp.metrics.curves",
    "precision_at_k_unlabeled": "bayescomp.metrics.unlabeled",
    "learning_curves": "bayescomp.studies.learning",
    "metric_table": "bayescomp.metrics.metric_table",
    # posterior
    "correlated_ttest": "bayescomp.posterior.ttest",
    "CorrelatedTTestResult": "bayescomp.posterior.ttest",
    "nadeau_bengio_ttest": "bayescomp.posterior.frequentist",
    "time_ordered_test": "bayescomp.posterior.time_ordered",
    "TimeOrderedResult": "bayescomp.posterior.time_ordered",
    "compare": "bayescomp.posterior.compare",
    "multivariate_ttest": "bayescomp.posterior.multivariate",
    "MultiMetricResult": "bayescomp.posterior.multivariate",
    "hierarchical_test": "bayescomp.posterior.hierarchical",
    "HierarchicalResult": "bayescomp.posterior.hierarchical",
    "load": "bayescomp.posterior.hierarchical",
    "sign_test": "bayescomp.posterior.ranktests",
    "signed_rank_test": "bayescomp.posterior.ranktests",
    "RankTestResult": "bayescomp.posterior.ranktests",
    "plackett_luce": "bayescomp.posterior.plackett_luce",
    "holdout_posterior": "bayescomp.posterior.holdout",
    "HoldoutResult": "bayescomp.posterior.holdout",
    "plan_test_set": "bayescomp.posterior.plan",
    "plan_repetitions": "bayescomp.posterior.plan",
    "PlackettLuceResult": "bayescomp.posterior.plackett_luce",
    "watch": "bayescomp.posterior.sequential",
    # decision
    "Decision": "bayescomp.core.rule",
    "decide": "bayescomp.core.rule",
    "select": "bayescomp.studies.select",
    "select_models": "bayescomp.studies.fitted",
    "Selection": "bayescomp.studies.selection",
    "rank": "bayescomp.decision.ranking",
    "Ranking": "bayescomp.decision.ranking",
    "ResultStore": "bayescomp.studies.store",
    "MemoryStore": "bayescomp.studies.store",
    "DesignChangedError": "bayescomp.core.exceptions",
    "InvalidArgumentError": "bayescomp.core.exceptions",
    # every warning (one base class, BayescompWarning) and error
    "BayescompWarning": "bayescomp.core.exceptions",
    "ConvergenceWarning": "bayescomp.core.exceptions",
    "FitFailedWarning": "bayescomp.core.exceptions",
    "ZeroVarianceWarning": "bayescomp.core.exceptions",
    "HeavyTailWarning": "bayescomp.core.exceptions",
    "FewClustersWarning": "bayescomp.core.exceptions",
    "RowOrderPairingWarning": "bayescomp.core.exceptions",
    "TimeOrderedDesignWarning": "bayescomp.core.exceptions",
    "ModelFileWarning": "bayescomp.core.exceptions",
    "DegenerateBootstrapWarning": "bayescomp.core.exceptions",
    "BLBCenterWarning": "bayescomp.core.exceptions",
    "PrecisionAboveOneWarning": "bayescomp.core.exceptions",
    "FamilyRuleWarning": "bayescomp.core.exceptions",
    "ModelFileError": "bayescomp.core.exceptions",
    "FitError": "bayescomp.core.exceptions",
    "MissingExtraError": "bayescomp.core.exceptions",
    "WorkersLostError": "bayescomp.core.exceptions",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    if name == "__version__":  # resolved on first use: importlib.metadata is not free
        globals()[name] = version = _version()
        return version
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'bayescomp' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
