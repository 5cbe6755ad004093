"""The on-disk cache of the fast samplers' compiled code (numba), in the user's cache directory.

The hand-written log density of the hierarchical model
(:mod:`~bayescomp.posterior.hierarchical.fast`) and the Plackett–Luce Gibbs sweeps
(:mod:`~bayescomp.posterior.plackett_luce._gibbs_kernel`) are compiled by numba with ``cache=True`` into ``<user cache dir>/bayescomp/jit/<key>``
(``platformdirs.user_cache_dir``; ``BAYESCOMP_CACHE_DIR`` overrides it), where ``<key>``
names the bayescomp, numba and Python versions: a new version compiles afresh and never
reads another's files.

After every build a manifest records the SHA-256 of each cache file.  Before the next
process uses the cache the manifest is checked; a missing manifest, a changed or missing
file, or a build that raises on a damaged file wipes the folder and compiles again (a
damaged cache is rebuilt, never trusted).  A lock file serialises processes that build
at the same time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["cache_dir", "cached_build"]

T = TypeVar("T")
_MANIFEST = "manifest.json"
_LOCK = threading.Lock()
_BUILT: dict[str, Any] = {}


def cache_dir() -> Path:
    """The folder holding this version's compiled code (created on first use).

    Examples
    --------
    >>> "jit" in cache_dir().parts
    True
    """
    import numba

    from bayescomp import __version__

    root = os.environ.get("BAYESCOMP_CACHE_DIR")
    if not root:
        import platformdirs

        root = platformdirs.user_cache_dir("bayescomp", appauthor=False)
    py = f"py{sys.version_info.major}{sys.version_info.minor}"
    return Path(root) / "jit" / f"bayescomp-{__version__}-numba-{numba.__version__}-{py}"


def _digest(folder: Path) -> dict[str, str]:
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name not in (_MANIFEST, ".lock"):
            out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _trusted(folder: Path) -> bool:
    """True when the folder's files are exactly those its manifest lists, unchanged."""
    try:
        recorded = json.loads((folder / _MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(recorded, dict) and recorded == _digest(folder)


def _wipe(folder: Path) -> None:
    for path in folder.iterdir():
        if path.name == ".lock":
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


@contextlib.contextmanager
def _file_lock(folder: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no inter-process lock
        yield
        return
    with open(folder / ".lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@contextlib.contextmanager
def _numba_cache_in(folder: Path) -> Iterator[None]:
    """numba's ``cache=True`` writes into ``folder`` for the functions decorated inside."""
    from numba.core import config

    old = config.CACHE_DIR
    config.CACHE_DIR = str(folder)
    try:
        yield
    finally:
        config.CACHE_DIR = old


def cached_build(name: str, build: Callable[[], T]) -> T:
    """Run ``build()`` (which decorates and compiles numba functions) against the disk cache.

    The result is kept for the life of the process under ``name``.  ``build`` is run
    with numba's cache directory set to :func:`cache_dir`; when the cache fails its
    manifest check, or ``build`` raises while reading it, the folder is wiped and
    ``build`` runs again from scratch.
    """
    with _LOCK:
        if name in _BUILT:
            return _BUILT[name]
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        with _file_lock(folder), _numba_cache_in(folder):
            if not _trusted(folder):
                _wipe(folder)
            try:
                result = build()
            except Exception:  # a damaged file numba could not read: start afresh
                _wipe(folder)
                result = build()
            (folder / _MANIFEST).write_text(json.dumps(_digest(folder), indent=0))
        _BUILT[name] = result
        return result
