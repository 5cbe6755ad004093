"""The SQLite result store's tables, and how a store file is opened (and migrated).

The schema is plain SQL that any tool can read (``docs/selection.md``).  Migrations keep
older stores readable in place, without a new schema version: the ``checksum`` column of
``fits`` and the ``predictions`` table are added to a store written before them.
"""

from __future__ import annotations

import re
import sqlite3
import time
from pathlib import Path
from typing import Any

from bayescomp.core.exceptions import DesignChangedError
from bayescomp.studies.integrity import check_usable

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS designs (
    dataset TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, data_hash TEXT NOT NULL,
    n_samples INTEGER NOT NULL, n_splits INTEGER NOT NULL, metric TEXT NOT NULL,
    scoring TEXT NOT NULL, cv TEXT NOT NULL, seed INTEGER, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (
    dataset TEXT NOT NULL, block INTEGER NOT NULL, fingerprint TEXT NOT NULL, seed INTEGER,
    first_split INTEGER NOT NULL, n_splits INTEGER NOT NULL, PRIMARY KEY (dataset, block));
CREATE TABLE IF NOT EXISTS splits (
    dataset TEXT NOT NULL, split INTEGER NOT NULL, block INTEGER NOT NULL,
    repeat INTEGER NOT NULL, fold INTEGER NOT NULL, n_train INTEGER NOT NULL,
    n_test INTEGER NOT NULL, train_idx TEXT NOT NULL, test_idx TEXT NOT NULL,
    PRIMARY KEY (dataset, split));
CREATE TABLE IF NOT EXISTS models (
    model TEXT PRIMARY KEY, params_hash TEXT NOT NULL, params TEXT NOT NULL,
    description TEXT, path TEXT, nested INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS fits (
    fit_id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER, dataset TEXT NOT NULL,
    model TEXT NOT NULL, split INTEGER NOT NULL, seed INTEGER, fit_time REAL, score_time REAL,
    error TEXT, params_hash TEXT NOT NULL, params TEXT NOT NULL, best_params TEXT,
    versions TEXT NOT NULL, host TEXT, pid INTEGER, finished_at TEXT NOT NULL,
    UNIQUE (dataset, model, split));
CREATE TABLE IF NOT EXISTS scores (
    fit_id INTEGER NOT NULL REFERENCES fits(fit_id) ON DELETE CASCADE,
    dataset TEXT NOT NULL, model TEXT NOT NULL, split INTEGER NOT NULL,
    metric TEXT NOT NULL, value REAL, PRIMARY KEY (dataset, model, split, metric));
CREATE TABLE IF NOT EXISTS predictions (
    fit_id INTEGER PRIMARY KEY REFERENCES fits(fit_id) ON DELETE CASCADE,
    kind TEXT NOT NULL, y_true TEXT NOT NULL, y_score TEXT NOT NULL, checksum TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT NULL, finished_at TEXT,
    config TEXT NOT NULL, champion TEXT, status TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS steps (
    run_id INTEGER NOT NULL REFERENCES runs(run_id), step INTEGER NOT NULL,
    champion TEXT NOT NULL, challenger TEXT NOT NULL, p_better REAL, p_left REAL, p_rope REAL,
    p_right REAL, risk REAL, expected_gain REAL, decision TEXT NOT NULL, reason TEXT,
    fits INTEGER, n_splits INTEGER, extra_repeats INTEGER, PRIMARY KEY (run_id, step));
"""


def utc_now() -> str:
    """The time now (UTC) as the store writes it, e.g. 2026-01-31T12:00:00Z."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def package_versions() -> dict[str, str]:
    """Versions of Python and of the libraries that determine a fit's result."""
    import platform

    out = {"python": platform.python_version()}
    for mod in ("bayescomp", "numpy", "scipy", "sklearn", "pandas", "joblib"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:  # pragma: no cover - a missing optional package
            continue
    return out


def connect(path: Path) -> sqlite3.Connection:
    """Open (or create) the store at ``path``: WAL mode, foreign keys, every table, the
    migrations of older stores; a damaged, read-only or other-schema file is refused."""
    try:
        con = sqlite3.connect(str(path), timeout=60, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
    except sqlite3.DatabaseError as exc:
        raise ValueError(
            f"{path} is not a usable SQLite store ({exc}); pass a new --store path"
        ) from None
    # every table but predictions, which the migration below adds to older stores
    check_usable(con, path, [t for t in re.findall(r"EXISTS (\w+)", _SCHEMA) if t != "predictions"])
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("PRAGMA foreign_keys=ON")
    con.executescript(_SCHEMA)
    if "checksum" not in {r[1] for r in con.execute("PRAGMA table_info(fits)")}:
        # stores written before checksums: their fits load unverified, new ones are
        # written with one (the schema stays readable by those versions)
        con.execute("ALTER TABLE fits ADD COLUMN checksum TEXT")
    row = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None:
        with Transaction(con):
            con.execute(
                "INSERT INTO meta VALUES ('schema_version', ?), ('created_at', ?)",
                (str(SCHEMA_VERSION), utc_now()),
            )
    elif int(row[0]) != SCHEMA_VERSION:
        raise DesignChangedError(
            f"{path} uses store schema {row[0]}, this bayescomp writes schema "
            f"{SCHEMA_VERSION}; use a new store file"
        )
    return con


class Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on error)."""

    def __init__(self, con: sqlite3.Connection):
        self._con = con

    def __enter__(self) -> sqlite3.Connection:
        self._con.execute("BEGIN IMMEDIATE")
        return self._con

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        self._con.execute("ROLLBACK" if exc_type is not None else "COMMIT")
