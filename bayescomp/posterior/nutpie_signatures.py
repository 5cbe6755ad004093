"""The C signatures nutpie calls a model's compiled callbacks with (of the
hierarchical model's numba kernels, ``hierarchical/_kernels.py``).

``logp(dim, x, grad, logp_out, user_data) -> status`` and
``expand(dim, n_expanded, x, expanded, user_data) -> status``.
"""

from __future__ import annotations

from numba import types

LOGP_SIG = types.int64(
    types.uint64,
    types.CPointer(types.double),
    types.CPointer(types.double),
    types.CPointer(types.double),
    types.voidptr,
)
EXPAND_SIG = types.int64(
    types.uint64,
    types.uint64,
    types.CPointer(types.double),
    types.CPointer(types.double),
    types.voidptr,
)
