"""Every warning and error class bayescomp raises, in one place.

Every warning subclasses :class:`BayescompWarning` (one filter silences them all), and
those that mean the same thing as scikit-learn's subclass them too, so filters written for
scikit-learn catch bayescomp's as well::

    warnings.filterwarnings("ignore", category=sklearn.exceptions.ConvergenceWarning)

silences both a solver that stopped early and an MCMC fit whose diagnostics failed.
Those two are defined on first use (PEP 562), so importing this module does not import
scikit-learn (``bayescomp --help`` imports it, and must answer at once).
"""

from __future__ import annotations

import threading
from typing import Any

_LOCK = threading.Lock()


# ------------------------------------------------------------------ warnings
class BayescompWarning(UserWarning):
    """The base of every warning bayescomp raises: ``warnings.filterwarnings("ignore",
    category=bayescomp.BayescompWarning)`` silences them all, and only them."""


def _sklearn_subclasses() -> None:
    from sklearn import exceptions as sk

    class ConvergenceWarning(BayescompWarning, sk.ConvergenceWarning):
        """The MCMC chains did not pass the convergence checks (R-hat, bulk ESS, divergences)."""

    class FitFailedWarning(BayescompWarning, sk.FitFailedWarning):
        """A fit raised and ``error_score`` was recorded instead of a score."""

    for cls in (ConvergenceWarning, FitFailedWarning):
        cls.__module__, cls.__qualname__ = __name__, cls.__name__
        globals()[cls.__name__] = cls


def __getattr__(name: str) -> Any:
    if name in ("ConvergenceWarning", "FitFailedWarning"):
        with _LOCK:  # one class each, whichever thread asks first
            if name not in globals():
                _sklearn_subclasses()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ZeroVarianceWarning(BayescompWarning):
    """The paired differences are identical on every split: the posterior is a point mass."""


class HeavyTailWarning(BayescompWarning):
    """Only two paired splits: the posterior is a Cauchy distribution with no mean."""


class FewClustersWarning(BayescompWarning):
    """Fewer than 10 clusters: the cluster bootstrap's interval rests on few units."""


class RowOrderPairingWarning(BayescompWarning):
    """A scores table has no ``split`` column: models were paired by row order."""


class TimeOrderedDesignWarning(BayescompWarning):
    """A posterior that assumes equicorrelated splits was asked for on a time-ordered
    design (every training row before every test row), whose splits are serially
    correlated instead."""


class ModelFileWarning(BayescompWarning):
    """A model file was skipped."""


class DegenerateBootstrapWarning(BayescompWarning):
    """Every resample gave the same metric value: the interval collapses to a point."""


class BLBCenterWarning(BayescompWarning):
    """The full-data estimate was not computed; the interval is centred on the subset mean."""


class PrecisionAboveOneWarning(BayescompWarning):
    """Estimated precision@k above 1: the labeled data do not represent the class."""


class FamilyRuleWarning(BayescompWarning):
    """``rule="family"`` could not be applied (several datasets): decided per step."""


# -------------------------------------------------------------------- errors
class ModelFileError(ValueError):
    """A model file could not be loaded; the message names the file and the cause."""


class FitError(RuntimeError):
    """A fit failed and ``on_error="raise"`` was chosen."""


class InvalidArgumentError(ValueError, TypeError):
    """A number-valued argument of the wrong type or outside its range (see
    :func:`bayescomp.core.checks.check_number`).

    Both a ``ValueError`` and a ``TypeError`` (as numpy's ``AxisError`` is both), so code that
    caught either before still catches it.  ``argument`` is the argument's name, which starts
    the message; :meth:`named` says it in a caller's own words (the command line: its flag).
    """

    def __init__(self, argument: str, message: str):
        super().__init__(message)
        self.argument = argument

    def named(self, spelling: str) -> str:
        """The message with the argument called ``spelling`` (e.g. ``--test-fraction``)."""
        message = str(self.args[0])
        if message.startswith(self.argument):
            return spelling + message[len(self.argument) :]
        return message


class DesignChangedError(ValueError):
    """The store was written for another design (splits, metric, data or model parameters)."""


class MissingExtraError(ImportError):
    """An optional dependency is missing; the message names the extra that installs it."""


class WorkersLostError(RuntimeError):
    """Fits could not finish because their workers died (no live worker within
    ``worker_timeout``, or a fit lost more than ``retries`` times).

    The message says how many fits finished and were kept and how to resume.
    ``finished``/``total`` count the fits; ``results`` holds ``{key: result}`` of the
    fits that finished, where the caller keeps them (a call without a store)."""

    def __init__(
        self, message: str, *, finished: int = 0, total: int = 0, results: dict | None = None
    ):
        super().__init__(message)
        self.finished, self.total = finished, total
        self.results = dict(results or {})


class InconclusiveComparison(AssertionError):
    """``assert_better``/``assert_not_worse`` could not decide (xfail/skip on request)."""
