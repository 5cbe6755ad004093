"""The one place that knows which ArviZ is installed: 0.2x (InferenceData) or 1.x (DataTree).

ArviZ 0.2x (with PyMC 5) stores draws in an ``arviz.InferenceData``; ArviZ 1.x (with
PyMC 6, Python >= 3.12) stores them in an ``xarray.DataTree``.  Both expose the groups
as attributes (``idata.posterior["delta0"]``, ``idata.sample_stats``,
``idata.constant_data``), so the rest of the package reads either the same way; the few
calls whose names or signatures differ (building from arrays, listing groups, HDIs,
the diagnostics table, netCDF files) go through the functions below.  Nothing here
imports ArviZ until it is called (``import bayescomp`` stays fast).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np

__all__ = [
    "arviz_major",
    "diagnostics_summary",
    "from_dict",
    "from_netcdf",
    "group_names",
    "hdi",
    "hdi_per_coordinate",
]


@functools.cache
def arviz_major() -> int:
    """Major version of the installed ArviZ (0 or 1), read without importing it.

    Examples
    --------
    >>> arviz_major() in (0, 1)
    True
    """
    try:
        return int(version("arviz").split(".")[0])
    except PackageNotFoundError:  # pragma: no cover - arviz is a core dependency
        return 0


def from_dict(
    groups: Mapping[str, Mapping[str, Any]],
    *,
    coords: Mapping[str, Sequence[Any]] | None = None,
    dims: Mapping[str, Sequence[str]] | None = None,
    attrs: Mapping[str, Any] | None = None,
) -> Any:
    """Draws as ArviZ's container, with ``attrs`` on every group.

    Parameters
    ----------
    groups : mapping
        Group name (``"posterior"``, ``"sample_stats"``, ``"constant_data"``) -> variable
        name -> array; the arrays of ``posterior`` and ``sample_stats`` start with the
        ``(chain, draw)`` dimensions.
    coords, dims : mapping, optional
        Coordinates by dimension name and the dimensions of each variable after
        ``(chain, draw)``, as in ``arviz.from_dict``.
    attrs : mapping, optional
        Attributes set on every group (``None`` values are stored as ``""``: netCDF
        attributes hold no ``None``).

    Returns
    -------
    arviz.InferenceData (ArviZ 0.2x) or xarray.DataTree (ArviZ 1.x)

    Examples
    --------
    >>> import numpy as np
    >>> idata = from_dict({"posterior": {"mu": np.zeros((2, 5, 3))}},
    ...                   coords={"k": ["a", "b", "c"]}, dims={"mu": ["k"]}, attrs={"m": "x"})
    >>> idata.posterior["mu"].dims, idata.posterior.attrs["m"]
    (('chain', 'draw', 'k'), 'x')
    """
    import arviz as az

    coords = dict(coords or {})
    dims = {k: list(v) for k, v in (dims or {}).items()}
    data = {g: dict(v) for g, v in groups.items()}
    clean = {k: ("" if v is None else v) for k, v in (attrs or {}).items()}
    if arviz_major() >= 1:
        idata = az.from_dict(data, coords=coords, dims=dims)
        idata.attrs.update(clean)
    else:
        idata = az.from_dict(**data, coords=coords, dims=dims, attrs=clean)
    for g in data:
        getattr(idata, g).attrs.update(clean)
    return idata


def group_names(idata: Any) -> list[str]:
    """Names of the groups of an InferenceData or DataTree, e.g. ``["posterior", ...]``.

    Examples
    --------
    >>> import numpy as np
    >>> group_names(from_dict({"posterior": {"mu": np.zeros((1, 3))}}))
    ['posterior']
    """
    if arviz_major() >= 1 or not hasattr(idata, "_groups"):
        return [str(k) for k in idata.children]
    return list(idata.groups())


def from_netcdf(path: str) -> Any:
    """Open a netCDF file written by ``to_netcdf`` of either ArviZ (lazy: nothing is read yet).

    A file written by ArviZ 0.2x opens under ArviZ 1.x as a DataTree and vice versa:
    both are netCDF4 files with one group per ArviZ group.
    """
    import arviz as az

    return az.from_netcdf(path)


def hdi(values: Any, prob: float) -> tuple[float, float]:
    """Highest-density interval ``(low, high)`` of a 1-D sample.

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = hdi(np.random.default_rng(0).normal(size=20000), 0.95)
    >>> bool(abs(lo + 1.96) < 0.1 and abs(hi - 1.96) < 0.1)
    True
    """
    import arviz as az

    x = np.asarray(values, dtype=float).ravel()
    if arviz_major() >= 1:
        lo, hi = az.hdi(x, prob=float(prob))
    else:
        lo, hi = az.hdi(x, hdi_prob=float(prob))
    return float(lo), float(hi)


def hdi_per_coordinate(draws: Any, prob: float) -> np.ndarray:
    """HDI of a ``(chain, draw, k)`` DataArray for each of its ``k`` entries: shape ``(k, 2)``."""
    import arviz as az

    name = draws.name
    if arviz_major() >= 1:
        out = az.hdi(draws.to_dataset(name=name), prob=float(prob))[name]
    else:
        out = az.hdi(draws.to_dataset(name=name), hdi_prob=float(prob))[name]
    return np.asarray(out.values, dtype=float)


def diagnostics_summary(idata: Any, var_names: Sequence[str]) -> Any:
    """ArviZ's diagnostics table (R-hat, ESS, MCSE), unrounded, one row per scalar.

    Rows are labelled ``delta0`` or ``delta[<coord>]`` under either ArviZ.
    """
    import arviz as az

    return az.summary(idata, var_names=list(var_names), kind="diagnostics", round_to="none")
