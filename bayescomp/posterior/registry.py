"""The registry of ``compare`` methods: each declares the input it needs.

A method is a function registered under a name with :func:`register`.  It receives either

* ``input="scores"``: a :class:`Paired` — per dataset, the oriented per-split differences
  of two models and the test fraction ``rho`` (built from a :class:`~bayescomp.Scores`
  table); or
* ``input="predictions"``: a :class:`PairedPredictions` — one test set, the true labels
  and both models' predictions item by item (built from a table with a ``y_true``
  column and one column per model),

plus the method's own options, and returns a
:class:`~bayescomp.core.protocols.Posterior`.  :func:`methods` lists every method:
the built-in ones of :mod:`bayescomp.posterior.compare`, one per module of
:mod:`bayescomp.posterior.methods`, and those of installed packages that declare a module
under the entry-point group ``bayescomp.methods`` (importing a module registers it).  The list is read when first asked for, never
frozen at import, so ``bayescomp compare --method`` offers whatever is registered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal

#: the entry-point group through which an installed package adds methods
ENTRY_POINT_GROUP = "bayescomp.methods"

#: the column of a predictions table that holds the true labels
TRUTH_COLUMN = "y_true"

Input = Literal["scores", "predictions"]


@dataclasses.dataclass(frozen=True)
class Paired:
    """What a method on score tables receives.

    Attributes
    ----------
    differences : dict of str to ndarray
        Per dataset, the paired differences ``candidate - baseline`` oriented so that
        positive means the candidate is better.
    rho : dict of str to float
        Per dataset, the test fraction of the splits.
    rope : float or array_like
    random_state : int, Generator or None
    names : dict
        ``baseline_name``, ``candidate_name`` and ``metric``, for labels.
    """

    differences: dict[str, Any]
    rho: dict[str, float]
    rope: Any
    random_state: Any
    names: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class PairedPredictions:
    """What a method on paired predictions receives: one test set, every item predicted
    by both models.

    Attributes
    ----------
    y_true, baseline, candidate : ndarray, shape (n_items,)
        The true labels and each model's prediction of every item (no missing values).
    rope : float
    random_state : int, Generator or None
    names : dict
        ``baseline_name``, ``candidate_name`` and ``metric`` (resolved: its canonical name).
    higher_is_better : bool
        The metric's direction, resolved.
    """

    y_true: Any
    baseline: Any
    candidate: Any
    rope: Any
    random_state: Any
    names: dict[str, Any]
    higher_is_better: bool | None = None


@dataclasses.dataclass(frozen=True)
class Method:
    """A registered comparison: its function, the input it takes, whether it pools several
    datasets, and one line saying what it is (shown by ``bayescomp compare --help``)."""

    fit: Callable[..., Any]
    across_datasets: bool
    input: Input = "scores"
    description: str = ""


#: method name -> Method; prefer :func:`methods`, which also loads installed plugins
REGISTRY: dict[str, Method] = {}
_loaded: list[bool] = []


def register(
    name: str, *, across_datasets: bool = False, input: Input = "scores", description: str = ""
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: make ``fit(data, **options) -> Posterior`` available as
    ``compare(method=name)``; ``data`` is a :class:`Paired` or, with
    ``input="predictions"``, a :class:`PairedPredictions`."""
    if input not in ("scores", "predictions"):
        raise ValueError(f"input must be 'scores' or 'predictions', got {input!r}")

    def add(fit: Callable[..., Any]) -> Callable[..., Any]:
        if name == "auto" or (name in REGISTRY and REGISTRY[name].fit is not fit):
            raise ValueError(
                f"a compare method named {name!r} is already registered; choose another name"
            )
        REGISTRY[name] = Method(fit, across_datasets, input, description)
        return fit

    return add


def methods() -> dict[str, Method]:
    """Every registered method by name: the built-in ones, then the plugins' (loaded once)."""
    if not _loaded:
        _loaded.append(True)
        _load_builtin_modules()
        _load_plugins()
    return dict(REGISTRY)


def _load_builtin_modules() -> None:
    """Import every module of :mod:`bayescomp.posterior.methods` (each registers itself)."""
    import importlib
    import pkgutil

    import bayescomp.posterior.methods as package

    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")


def _load_plugins() -> None:
    import importlib.metadata
    import warnings

    from bayescomp.core.exceptions import BayescompWarning

    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            entry.load()
        except Exception as exc:  # a broken plugin must not break the built-in methods
            warnings.warn(
                f"the compare method plugin {entry.name!r} ({entry.value}) could "
                f"not be loaded: {exc}",
                BayescompWarning,
                stacklevel=3,
            )


def lookup(name: str) -> Method:
    """The method registered as ``name``, or a ``ValueError`` listing the choices."""
    known = methods()
    if name not in known:
        raise ValueError(f"unknown method {name!r}; choose one of {('auto', *known)}")
    return known[name]
