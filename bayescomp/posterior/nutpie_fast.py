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

The sampler's settings and seeding are ``nutpie.sample``'s, run on nutpie's compiled core
alone (:func:`nutpie_lib`: the package's ``__init__`` imports ArviZ, most of a cold
process); the draws are read from its arrow trace (:class:`Draws`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = [
    "NUTPIE_MINOR",
    "CallbackModel",
    "fast_path_available",
    "make_model",
    "nutpie_lib",
    "sample",
]

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


def nutpie_lib() -> Any:
    """nutpie's compiled core, ``nutpie._lib``, loaded alone: ``nutpie/__init__.py`` imports
    ArviZ (and with it matplotlib; 1.5-2 CPU s of a cold process), which sampling does not
    need.  The module is registered under its own name, so a later ``import nutpie`` uses it."""
    import sys
    from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, FileFinder
    from importlib.util import find_spec, module_from_spec

    if "nutpie._lib" in sys.modules:
        return sys.modules["nutpie._lib"]
    folder = find_spec("nutpie").submodule_search_locations[0]  # type: ignore[union-attr]
    spec = FileFinder(folder, (ExtensionFileLoader, EXTENSION_SUFFIXES)).find_spec("nutpie._lib")
    lib = module_from_spec(spec)
    spec.loader.exec_module(lib)  # type: ignore[union-attr]
    return sys.modules.setdefault("nutpie._lib", lib)


@dataclasses.dataclass(frozen=True)
class CallbackModel:
    """A nutpie model on C callbacks: what nutpie's ``CompiledModel`` offers its sampler."""

    dims: dict[str, tuple[str, ...]]
    logp_cfunc: Any
    expand_cfunc: Any
    user_data: np.ndarray
    init_fn: Callable[[int], np.ndarray]
    names: tuple[str, ...]
    var_shapes: tuple[tuple[int, ...], ...]
    ndim: int
    coords: dict[str, Any]
    reparameterized_names: tuple[str, ...] = ()  # nutpie 0.16.9+'s conversion reads it

    @property
    def n_dim(self) -> int:
        return self.ndim

    def _make_model(self, init_mean: Any) -> Any:
        lib = nutpie_lib()
        n_out = int(sum(int(np.prod(s)) for s in self.var_shapes))
        ptr = self.user_data.ctypes.data
        expand_fn = lib.ExpandFunc(self.ndim, n_out, self.expand_cfunc.address, ptr, self)
        logp_fn = lib.LogpFunc(self.logp_cfunc.address, ptr, self)
        dim_sizes = {k: len(v) for k, v in self.coords.items()}
        variables = lib.PyVariable.new_variables(
            list(self.names),
            ["float64"] * len(self.names),
            [list(s) for s in self.var_shapes],
            dim_sizes,
            dict(self.dims),
        )
        return lib.PyMcModel(
            logp_fn,
            expand_fn,
            variables,
            self.ndim,
            dim_sizes,
            dict(self.coords),
            self.init_fn,
            None,
        )

    def _make_sampler(
        self, settings: Any, init_mean: Any, cores: int, progress_type: Any, *rest: Any
    ) -> Any:
        # 0.16.x passes (store) or (callback, rate, store) after progress_type
        return nutpie_lib().PySampler.from_pymc(
            settings, cores, self._make_model(init_mean), progress_type, *rest
        )


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
    return CallbackModel(
        dims=dims,
        logp_cfunc=logp_cfunc,
        expand_cfunc=expand_cfunc,
        user_data=data,
        init_fn=init_fn,
        names=tuple(v[0] for v in variables),
        var_shapes=tuple(tuple(v[1]) for v in variables),
        ndim=int(ndim),
        coords=coords,
    )


def sample(
    model: Any,
    *,
    progressbar: bool,
    draws: int,
    tune: int,
    chains: int,
    cores: int,
    seed: int,
    target_accept: float,
) -> Draws:
    """Seeded draws of ``model`` (a :class:`CallbackModel` or nutpie's compiled PyMC model),
    as ``nutpie.sample(..., return_raw_trace=True)`` draws them: its default settings (diagonal
    mass matrix) with these ones, all chains started at ``np.zeros``.  With ``progressbar``,
    through ``nutpie.sample`` itself (its terminal or notebook display); without, straight on
    :func:`nutpie_lib` (``tests/test_fast_sampling.py`` checks that the draws are the same)."""
    run = {"draws": draws, "tune": tune, "chains": chains, "cores": cores, "seed": seed}
    if progressbar:
        import nutpie

        trace = nutpie.sample(
            model, progress_bar=True, return_raw_trace=True, target_accept=target_accept, **run
        )
        return Draws(trace)
    lib = nutpie_lib()
    settings = lib.PyNutsSettings.Diag(seed)
    settings.num_tune, settings.num_draws, settings.num_chains = tune, draws, chains
    settings.target_accept = target_accept
    # nutpie 0.16.9+ takes a progress callback and its rate (ms) before the store
    signature = lib.PySampler.from_pymc.__text_signature__ or ""
    extra = (None, 100) if "extra_callback" in signature else ()
    none = lib.ProgressType.none()
    sampler = model._make_sampler(
        settings, np.zeros(model.n_dim), cores, none, *extra, lib.PyStorage.arrow()
    )
    try:
        sampler.wait(None)
    except KeyboardInterrupt:  # as nutpie.sample: stop the chains, keep the draws so far
        sampler.abort()
    except BaseException:
        sampler.abort()
        raise
    return Draws(sampler.take_results())


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
