"""The one place that knows which ArviZ is installed: 0.2x (InferenceData) or 1.x (DataTree).

ArviZ 0.2x (with PyMC 5) stores draws in an ``arviz.InferenceData``; ArviZ 1.x (with
PyMC 6, Python >= 3.12) stores them in an ``xarray.DataTree``.  Both expose the groups
as attributes (``idata.posterior["delta0"]``, ``idata.sample_stats``,
``idata.constant_data``), so the rest of the package reads either the same way; the few
calls whose names or signatures differ (building from arrays, listing groups,
the diagnostics table, netCDF files) go through the functions below.  Nothing here
imports ArviZ until it is called (``import bayescomp`` stays fast).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np

__all__ = [
    "DrawArrays",
    "arviz_major",
    "diagnostics_summary",
    "from_dict",
    "from_netcdf",
    "group_names",
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
    data: dict[str, Any] = {g: dict(v) for g, v in groups.items()}  # keyword groups (0.2x)
    clean = {k: ("" if v is None else v) for k, v in (attrs or {}).items()}
    if arviz_major() >= 1:
        idata = az.from_dict(data, coords=coords, dims=dims)
        idata.attrs.update(clean)
    else:
        idata = az.from_dict(**data, coords=coords, dims=dims, attrs=clean)
    for g in data:
        getattr(idata, g).attrs.update(clean)
    return idata


@dataclass(frozen=True)
class DrawArrays:
    """The arrays of an InferenceData as numpy, without ArviZ: what a fit hands on and what its
    decision and diagnostics read; :meth:`to_idata` builds ArviZ's container when one is asked for.

    ``groups`` maps group -> variable -> array (``posterior`` and ``sample_stats`` arrays start
    with ``(chain, draw)``), ``dims`` each variable's dimensions after those, ``coords`` each
    dimension's labels, as :func:`from_dict` takes them.

    Examples
    --------
    >>> import numpy as np
    >>> idata = from_dict({"posterior": {"mu": np.zeros((2, 5, 3))}}, coords={"k": ["a", "b", "c"]},
    ...                   dims={"mu": ["k"]})
    >>> draws = DrawArrays.of(idata)
    >>> draws.dims["mu"], draws.coords["k"], draws.groups["posterior"]["mu"].shape
    (['k'], ['a', 'b', 'c'], (2, 5, 3))
    >>> draws.to_idata({}).posterior["mu"].dims
    ('chain', 'draw', 'k')
    """

    groups: Mapping[str, Mapping[str, np.ndarray]]
    coords: Mapping[str, list[Any]]
    dims: Mapping[str, list[str]]

    @classmethod
    def of(cls, idata: Any) -> DrawArrays:
        """The arrays, dimensions and coordinates of an InferenceData (or DataTree)."""
        groups = {g: getattr(idata, g) for g in group_names(idata)}
        return cls(
            {
                g: {str(v): np.asarray(ds[v].values) for v in ds.data_vars}
                for g, ds in groups.items()
            },
            {  # read through the variables, as on either ArviZ's groups
                str(d): ds[v][d].values.tolist()
                for ds in groups.values()
                for v in ds.data_vars
                for d in ds[v].dims
                if d not in ("chain", "draw")
            },
            {
                str(v): [str(d) for d in ds[v].dims if d not in ("chain", "draw")]
                for ds in groups.values()
                for v in ds.data_vars
            },
        )

    def to_idata(self, attrs: Mapping[str, Any]) -> Any:
        """ArviZ's container of these arrays (:func:`from_dict`), ``attrs`` on every group."""
        return from_dict(self.groups, coords=self.coords, dims=self.dims, attrs=attrs)


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


def diagnostics_summary(idata: Any, var_names: Sequence[str]) -> Any:
    """ArviZ's diagnostics table (R-hat, ESS, MCSE), unrounded, one row per scalar.

    The same numbers as ``az.summary(idata, var_names, kind="diagnostics")`` of the
    installed ArviZ, computed for all scalars at once by
    :func:`bayescomp.core.mcmc_diagnostics.diagnostics_arrays` (ArviZ's own ``rhat``,
    ``ess`` and ``mcse`` take 1.9-3.6x its CPU time on the package's fits:
    ``bench/diagnostics_speed.py``).  ``idata``: an InferenceData, or its
    :class:`DrawArrays` (then ArviZ is not imported).  Columns ``r_hat, ess_bulk, ess_tail,
    mcse_mean, mcse_sd``; rows labelled ``delta0`` or ``delta[<coord>]`` (and
    ``w[a, b]`` for a 2-D variable) under either ArviZ.
    """
    import pandas as pd

    from bayescomp.core.mcmc_diagnostics import diagnostics_arrays

    draws = idata if isinstance(idata, DrawArrays) else DrawArrays.of(idata)
    blocks, labels = [], []
    for name in var_names:
        values = np.asarray(draws.groups["posterior"][name], dtype=float)
        chains, n_draws = values.shape[:2]
        blocks.append(values.reshape(chains, n_draws, -1))
        extra = draws.dims.get(name, [])
        if not extra:
            labels.append(str(name))
            continue
        grids = np.meshgrid(*[np.asarray(draws.coords[d]) for d in extra], indexing="ij")
        for cell in zip(*[g.ravel() for g in grids], strict=True):
            labels.append(f"{name}[{', '.join(str(v) for v in cell)}]")
    stats = diagnostics_arrays(
        np.concatenate(blocks, axis=2),
        tail_probs=_tail_probs(),
        fold_after_split=arviz_major() >= 1,
    )
    return pd.DataFrame(stats, index=pd.Index(labels))


def _tail_probs() -> tuple[float, float]:
    """The quantiles of ``az.summary``'s tail ESS: (0.05, 0.95) in ArviZ 0.2x; in 1.x
    ``sorted((p, 1 - p))`` for its ``rcParams["stats.ci_prob"]`` (0.89 by default)."""
    if arviz_major() < 1:
        return (0.05, 0.95)
    import sys

    # its default unless arviz_base is loaded (a fit and its decision do not import it)
    base = sys.modules.get("arviz_base")
    p = float(base.rcParams["stats.ci_prob"]) if base is not None else 0.89
    low, high = sorted((p, 1 - p))
    return (low, high)
