"""What keeps a result store honest: usable before use, one run at a time, rows checked.

* :func:`check_usable` — a store file that is damaged (``PRAGMA quick_check``) or not
  writable is refused before any fit, in one sentence that says what to do.
* :class:`StoreLock` — a run that fits takes an exclusive lock on ``<store>.lock``
  (``fcntl.flock``); a second run on the same store waits for it, says so, and then reads
  the first run's fits instead of computing them again.
* :func:`fit_checksum` — every stored fit carries a SHA-256 of what it says (dataset,
  model, split, parameters, scores, error); a row whose scores were changed outside
  bayescomp no longer matches and is refused, named.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from bayescomp.core.jsonable import json_digest


class StoreError(ValueError):
    """The result store cannot be used as it is; the message says what to do."""


def _move_aside(path: Path) -> str:
    return (
        f"move it aside (mv {path} {path}.bad) to start a new one, or pass --store "
        "with another path"
    )


def check_usable(con: sqlite3.Connection, path: Path, tables: list[str]) -> None:
    """Refuse a damaged or read-only store file, or one that lost some of its ``tables``
    (dropped outside bayescomp), before anything is read or written."""
    if path.exists() and not os.access(path, os.W_OK):
        raise StoreError(
            f"the store {path} is read-only: make it writable (chmod u+w {path}) "
            "or pass --store with another path"
        )
    try:
        rows = con.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"the store {path} is damaged ({exc}); {_move_aside(path)}") from None
    if rows != [("ok",)]:
        problem = "; ".join(str(r[0]) for r in rows[:2])
        raise StoreError(f"the store {path} is damaged ({problem}); {_move_aside(path)}")
    have = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if (lost := [t for t in tables if t not in have]) and have & set(tables):  # not a new file
        raise StoreError(
            f"the store {path} has no table {' or '.join(map(repr, lost))} (dropped outside bayescomp): its "
            f"fits cannot be trusted; {_move_aside(path)}"
        )


def fit_checksum(
    dataset: str,
    model: str,
    split: int,
    params_hash: str,
    error: Any,
    scores: Mapping[str, float | None],
) -> str:
    """SHA-256 of a stored fit's content; NaN and missing scores are written as None."""
    values = {m: (None if v is None or v != v else float(v)) for m, v in scores.items()}
    return json_digest([dataset, model, int(split), params_hash, error, sorted(values.items())])


def predictions_checksum(
    dataset: str, model: str, split: int, kind: str, y_true: str, y_score: str
) -> str:
    """SHA-256 of a fit's stored out-of-fold predictions (their JSON text as stored).

    Apart from the fit's own checksum, so that a version that does not know predictions
    still verifies the fits of a store that has them."""
    return json_digest([dataset, model, int(split), kind, y_true, y_score])


class StoreLock:
    """An exclusive ``flock`` on ``<store>.lock``, held by the run that fits.

    Re-entrant within one process (several objects on one store share it), released on
    :meth:`release` or when the process ends, even by SIGKILL (the kernel drops it).
    """

    _held: ClassVar[dict[str, list[Any]]] = {}  # path -> [file, count] of this process

    def __init__(self, path: Path | None):
        self.path = Path(str(path) + ".lock")
        self._mine = path is None  # None: a store in memory, which no other process sees
        self._file = path is not None

    def acquire(self) -> None:
        if self._mine:
            return
        key = str(self.path.resolve())
        held = self._held.get(key)
        if held is not None:
            held[1] += 1
            self._mine = True
            return
        if sys.platform == "win32":  # pragma: no cover - no flock; best effort
            self._mine = True
            return
        import fcntl

        while True:  # the holder removes the file on release: lock the file still there
            f = open(self.path, "a+")  # noqa: SIM115 - held open while the lock is held
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.seek(0)
                who = f.read().strip() or "another process"
                print(
                    f"bayescomp: the store {self.path.with_suffix('')} is in use by {who}; "
                    "waiting for it to finish, then its fits are read instead of refitted",
                    file=sys.stderr,
                    flush=True,
                )
                fcntl.flock(f, fcntl.LOCK_EX)
            if self.path.exists() and os.path.samestat(os.fstat(f.fileno()), self.path.stat()):
                break
            f.close()
        f.seek(0)
        f.truncate()
        f.write(f"pid {os.getpid()}")
        f.flush()
        self._held[key] = [f, 1]
        self._mine = True

    def release(self) -> None:
        if not (self._mine and self._file):
            return
        self._mine = False
        key = str(self.path.resolve())
        held = self._held.get(key)
        if held is None:
            return
        held[1] -= 1
        if held[1] == 0:
            del self._held[key]
            if sys.platform != "win32":  # no .lock file left after a clean exit
                with contextlib.suppress(OSError):
                    self.path.unlink()
            held[0].close()  # closing the file releases the flock
