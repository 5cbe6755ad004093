"""The InferenceData layout of a result: built from the sampler's draws, read back by :func:`load`.

Every group carries the settings of the comparison as attributes, so that a
file written by :meth:`HierarchicalResult.to_netcdf` restores the whole result.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from bayescomp.core.arviz_compat import DrawArrays, from_netcdf, group_names
from bayescomp.core.optional import require
from bayescomp.posterior.hierarchical.diagnostics import ESS_BULK_MIN
from bayescomp.posterior.hierarchical.result import HierarchicalResult

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.posterior.hierarchical.model import Prepared

__all__ = ["load"]


def _to_result_arrays(raw: Any, prep: Prepared) -> DrawArrays:
    """Posterior on the metric's scale, named dataset coords and the data attached."""
    post = raw.posterior
    s = prep.scale
    posterior = {
        "delta0": post["delta0"].values * s,
        "std0": post["std0"].values * s,
        "nu": post["nu"].values,
        "gamma_alpha": post["gamma_alpha"].values,
        "gamma_beta": post["gamma_beta"].values,
        "delta": post["delta"].values * s,
        "sigma": post["sigma"].values * s,
    }
    const = {
        "n": prep.n.astype(int),
        "observed_mean": prep.mean,
        "ss": prep.ss,
        "rho": prep.rho,
        "zero_variance": prep.zero_variance.astype(int),
    }
    groups = {
        "posterior": posterior,
        "sample_stats": {"diverging": raw.sample_stats["diverging"].values.astype(bool)},
        "constant_data": const,
    }
    dims = {v: ["dataset"] for v in ("delta", "sigma", *const)}
    return DrawArrays(groups, coords={"dataset": list(prep.names)}, dims=dims)


def from_draws(raw: Any, prep: Prepared, **settings: Any) -> HierarchicalResult:
    """The result of one fit: its draws on the metric's scale with every setting attached.

    ``settings`` are the fields of :class:`HierarchicalResult` other than ``idata``; its
    InferenceData is built when first read.
    """
    return HierarchicalResult(idata=_to_result_arrays(raw, prep), **settings)


def relabel(res: HierarchicalResult, **settings: Any) -> HierarchicalResult:
    """``res`` with ``settings`` changed, in the result and in its draws' attributes (its
    InferenceData is built from the draws when read): the draws and the diagnostics computed
    so far are kept, not rebuilt."""
    new = dataclasses.replace(res, idata=res._arrays, **settings)
    kept = ("diagnostics", "convergence_diagnostics")  # the tables computed so far
    new.__dict__.update({k: v for k, v in res.__dict__.items() if k in kept})
    return new


#: a result file's arrays may be this many times larger than the file (zlib compression)
MAX_EXPANSION = 64
#: ... plus this many bytes whatever the file size
EXPANSION_SLACK = 64 * 2**20


def _check_declared_size(idata: Any, path: str) -> None:
    """Refuse a file whose arrays declare far more memory than the file could hold.

    netCDF declares each array's shape in its header, so a few kB can announce 16 GB
    (unwritten chunks cost nothing on disk).  Reading it would try to allocate all of it.
    """
    import os

    declared = sum(
        int(var.nbytes)
        for group in group_names(idata)
        for var in getattr(idata, group).variables.values()
    )
    size = os.path.getsize(path)
    if declared > MAX_EXPANSION * size + EXPANSION_SLACK:
        raise ValueError(
            f"{path} declares {declared / 2**30:.3g} GiB of arrays but the file is only "
            f"{size / 2**10:.3g} kB: it is damaged or was not written by "
            "HierarchicalResult.to_netcdf; nothing was read. Write the result again with "
            "to_netcdf"
        )


def load(path: Any) -> HierarchicalResult:
    """Restore a :class:`HierarchicalResult` written by :meth:`HierarchicalResult.to_netcdf`.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "missing.nc")
    >>> try:
    ...     load(path)
    ... except FileNotFoundError as e:
    ...     print("not found")
    not found
    """
    import os

    path = str(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path}")
    if os.path.isdir(path):
        raise IsADirectoryError(
            f"{path} is a folder; pass the .nc file that HierarchicalResult.to_netcdf wrote"
        )
    require("h5py", "mcmc", "reading a hierarchical result (bayescomp.load)")
    try:
        idata = from_netcdf(path)  # lazy: nothing is read until .load()
    except (OSError, ValueError) as exc:  # h5py/netCDF: "file signature not found", ...
        raise ValueError(
            f"{path} is not a netCDF file written by HierarchicalResult.to_netcdf "
            f"({type(exc).__name__}); pass such a file, or write the result "
            "again with to_netcdf"
        ) from None
    _check_declared_size(idata, path)
    if "posterior" not in group_names(idata):
        raise ValueError(f"{path} holds no posterior group; it was not written by to_netcdf")
    attrs = dict(idata.posterior.attrs)
    if attrs.get("bayescomp_result") != "HierarchicalResult":
        raise ValueError(
            f"{path} was not written by HierarchicalResult.to_netcdf (missing bayescomp attrs)"
        )
    idata.posterior.load()
    idata.sample_stats.load()
    idata.constant_data.load()

    def opt(key: str) -> Any:
        v = attrs.get(key, "")
        return None if v == "" else v

    rs = opt("random_state")
    return HierarchicalResult(
        idata=idata,
        rope=float(attrs["rope"]),
        baseline_name=str(attrs["baseline_name"]),
        candidate_name=str(attrs["candidate_name"]),
        metric=opt("metric"),
        parameterization=str(attrs["parameterization"]),
        sampler=str(attrs["sampler"]),
        refitted=bool(int(attrs["refitted"])),
        random_state=None if rs is None else int(rs),
        attempts=tuple(json.loads(attrs.get("attempts", "[]"))),
        higher_is_better=bool(
            int(opt("higher_is_better") if opt("higher_is_better") is not None else 1)
        ),
        # files written before the ESS rule scaled with the draws: the fixed 400
        ess_min=int(opt("ess_min") if opt("ess_min") is not None else ESS_BULK_MIN),
    )
