"""Optional dependencies: import one, or say which extra installs it.

PyMC (and h5py for the netCDF files of hierarchical results) are not needed to compare
models on one dataset, select, or put intervals on a metric, so they live in the ``mcmc``
extra: ``pip install 'bayescomp[mcmc]'``.  Every import of an optional package goes
through :func:`require`, so a missing one fails with the same clear message.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from bayescomp.core.exceptions import MissingExtraError

__all__ = ["require"]


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise an ImportError naming the extra that installs it.

    Parameters
    ----------
    module : str
        The module to import, e.g. ``"pymc"``.
    extra : str
        The bayescomp extra that installs it, e.g. ``"mcmc"``.
    purpose : str
        What needs it, for the message (e.g. ``"the hierarchical model"``).

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    MissingExtraError
        (an ImportError) when ``module`` cannot be imported; the message says what needs
        it and the ``pip install`` command that installs it.

    Examples
    --------
    >>> require("math", "mcmc", "a doctest").sqrt(4.0)
    2.0
    >>> require("not_a_module_anywhere", "mcmc", "the hierarchical model")
    Traceback (most recent call last):
    ...
    bayescomp.core.exceptions.MissingExtraError: the hierarchical model needs not_a_module_anywhere, which is not installed; install it with: pip install 'bayescomp[mcmc]'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"{purpose} needs {module}, which is not installed; install it with: "
            f"pip install 'bayescomp[{extra}]'",
            name=module,
        ) from exc
