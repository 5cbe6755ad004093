"""Hand numba C callbacks (log density + gradient, and the draw expansion) to nutpie, no PyTensor.

nutpie samples a PyMC model through two C functions — ``logp(dim, x, grad, logp,
user_data)`` and ``expand(dim, n_out, x, out, user_data)`` — that its PyMC path gets
from PyTensor.  The hierarchical model's fast sampler writes
those two functions by hand (numba ``cfunc`` with ``cache=True``) and hand them to
nutpie here, through the same private constructors its PyMC path uses
(``nutpie._lib.LogpFunc``, ``ExpandFunc``, ``PyVariable``, ``PyMcModel`` and
``PySampler.from_pymc``).  Those are not public API, so nutpie's minor version is
pinned (:data:`NUTPIE_MINOR`, also in ``pyproject.toml``) and
``tests/test_fast_logp.py`` samples through this path: an upgrade that changes them
fails there, loudly.

The sampler's settings, seeding and trace conversion are nutpie's own
(``nutpie.sample``), exactly as on its PyMC path.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = ["NUTPIE_MINOR", "fast_path_available", "make_model", "sample"]

#: the nutpie minor versions whose private constructors :func:`make_model` uses
NUTPIE_MINOR = ((0, 16),)


def nutpie_minor() -> tuple[int, int] | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = version("nutpie").split(".")[:2]
        return int(major), int(minor)
    except (PackageNotFoundError, ValueError):
        return None


def fast_path_available() -> bool:
    """True when nutpie (of a supported minor version), numba and platformdirs are installed.

    ``BAYESCOMP_NUTPIE_UNPINNED=1`` accepts any nutpie version: ``.ci/run``'s canary runs the
    fast-path tests on the newest nutpie with it.

    Examples
    --------
    >>> isinstance(fast_path_available(), bool)
    True
    """
    from importlib.util import find_spec

    if any(find_spec(m) is None for m in ("nutpie", "numba", "platformdirs")):
        return False
    return nutpie_minor() in NUTPIE_MINOR or os.environ.get("BAYESCOMP_NUTPIE_UNPINNED") == "1"


_CLASS: list[type] = []


def _model_class() -> type:
    """A nutpie ``CompiledModel`` built on C callbacks (defined on first use: imports nutpie)."""
    if _CLASS:
        return _CLASS[0]
    from nutpie import _lib
    from nutpie.sample import CompiledModel

    @dataclasses.dataclass(frozen=True)
    class CallbackModel(CompiledModel):
        logp_cfunc: Any
        expand_cfunc: Any
        user_data: np.ndarray
        init_fn: Callable[[int], np.ndarray]
        names: tuple[str, ...]
        var_shapes: tuple[tuple[int, ...], ...]
        ndim: int
        coords_: dict[str, Any]

        @property
        def n_dim(self) -> int:
            return self.ndim

        @property
        def shapes(self) -> dict[str, tuple[int, ...]]:
            return dict(zip(self.names, self.var_shapes, strict=True))

        @property
        def coords(self) -> dict[str, Any]:
            return self.coords_

        def _make_model(self, init_mean: Any) -> Any:
            n_out = int(sum(int(np.prod(s)) for s in self.var_shapes))
            ptr = self.user_data.ctypes.data
            expand_fn = _lib.ExpandFunc(self.ndim, n_out, self.expand_cfunc.address, ptr, self)
            logp_fn = _lib.LogpFunc(self.logp_cfunc.address, ptr, self)
            dim_sizes = {k: len(v) for k, v in self.coords_.items()}
            variables = _lib.PyVariable.new_variables(
                list(self.names),
                ["float64"] * len(self.names),
                [list(s) for s in self.var_shapes],
                dim_sizes,
                dict(self.dims or {}),
            )
            return _lib.PyMcModel(
                logp_fn,
                expand_fn,
                variables,
                self.ndim,
                dim_sizes,
                dict(self.coords_),
                self.init_fn,
                None,
            )

        def _make_sampler(
            self, settings: Any, init_mean: Any, cores: int, progress_type: Any, *rest: Any
        ) -> Any:
            # 0.16.x passes (store) or (callback, rate, store) after progress_type
            return _lib.PySampler.from_pymc(
                settings, cores, self._make_model(init_mean), progress_type, *rest
            )

    _CLASS.append(CallbackModel)
    return CallbackModel


def make_model(
    logp_cfunc: Any,
    expand_cfunc: Any,
    user_data: np.ndarray,
    ndim: int,
    init_fn: Callable[[int], np.ndarray],
    variables: Sequence[tuple[str, tuple[int, ...]]],
    dims: dict[str, tuple[str, ...]],
    coords: dict[str, Any],
) -> Any:
    """A nutpie model sampling the density of ``logp_cfunc`` on ``user_data``.

    ``variables`` lists ``(name, shape)`` in the order ``expand_cfunc`` writes them;
    ``init_fn(seed)`` returns a chain's unconstrained starting point.  ``user_data``
    (float64, C-contiguous) is kept alive by the returned object.
    """
    data = np.ascontiguousarray(user_data, dtype=np.float64)
    return _model_class()(
        dims=dims,
        logp_cfunc=logp_cfunc,
        expand_cfunc=expand_cfunc,
        user_data=data,
        init_fn=init_fn,
        names=tuple(v[0] for v in variables),
        var_shapes=tuple(tuple(v[1]) for v in variables),
        ndim=int(ndim),
        coords_=coords,
    )


def sample(model: Any, *, progressbar: bool, **run: Any) -> Draws:
    """``nutpie.sample`` with the package's usual settings (seeded, no progress bar by default);
    ``run`` holds ``draws``, ``tune``, ``chains``, ``cores``, ``seed`` and ``target_accept``."""
    import nutpie

    trace = nutpie.sample(model, progress_bar=progressbar, return_raw_trace=True, **run)
    return Draws(trace)


class Draws:
    """The kept draws of nutpie's arrow trace as numpy arrays, without ArviZ (whose container
    cost a warm fit a tenth of its time): ``posterior[name].values`` and
    ``sample_stats["diverging"].values``, shaped ``(chain, draw, ...)``, read as on an
    InferenceData.  ``tests/test_fast_sampling.py`` checks them against nutpie's own
    conversion."""

    def __init__(self, trace: Any) -> None:
        import pyarrow as pa

        draws, stats = trace.get_arrow_trace()
        kept = [~pa.array(b.column("tuning")).to_numpy(zero_copy_only=False) for b in stats]

        def stack(batches: Any, names: list[str]) -> dict[str, SimpleNamespace]:
            out = {}
            for name in names:
                chains = []
                for batch, keep in zip(batches, kept, strict=True):
                    col = batch.column(name)
                    shape = (col.field.metadata or {}).get(b"shape", b"").decode()
                    arr = pa.array(col)
                    arr = arr.flatten() if hasattr(arr, "flatten") else arr
                    values = arr.to_numpy(zero_copy_only=False)
                    chains.append(
                        values.reshape(-1, *map(int, filter(None, shape.split(","))))[keep]
                    )
                out[name] = SimpleNamespace(values=np.stack(chains))
            return out

        self.posterior = stack(draws, list(draws[0].column_names))
        self.sample_stats = stack(stats, ["diverging"])
