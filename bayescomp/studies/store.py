"""SQLite result store: every finished fit is kept, so a selection can resume.

The store is one SQLite file in WAL mode, written only by the parent process
(parallel workers return their results, the parent writes each one in its own
transaction as soon as it arrives).  A process killed at any moment (even with
SIGKILL) loses at most the fits that were still running; rerunning the same
command loads every stored fit instead of recomputing it.

A store belongs to one experimental design.  Reopening it with other splits
or other data raises :class:`DesignChangedError` instead of silently mixing
results.  It is not tied to one metric: every fit keeps the scores of every
scorer it was scored with (long format, table ``scores``), so a later run that
decides on another of those metrics reads them instead of refitting; a fit
that lacks a metric the run needs is fitted again (``designs.metric`` and
``designs.scoring`` record what the first run used).  The schema (see ``docs/selection.md``) is plain SQL
that any tool can read::

    meta(key, value)                                   -- schema version, creation time
    designs(dataset, fingerprint, data_hash, n_samples, n_splits, metric,
            scoring, cv, seed, created_at)             -- one row per dataset
    blocks(dataset, block, fingerprint, seed, first_split, n_splits)
                                                       -- block 0 = the design, 1.. = extra repetitions
    splits(dataset, split, block, repeat, fold, n_train, n_test, train_idx, test_idx)
    models(model, params_hash, params, description, path, nested)
    fits(fit_id, run_id, dataset, model, split, seed, fit_time, score_time, error,
         params_hash, params, best_params, versions, host, pid, finished_at)
    scores(fit_id, dataset, model, split, metric, value) -- long format, one row per scorer
    runs(run_id, started_at, finished_at, config, champion, status)
    steps(run_id, step, champion, challenger, p_better, p_left, p_rope, p_right, risk,
          expected_gain, decision, reason, fits, n_splits, extra_repeats)
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescomp.core.exceptions import DesignChangedError
from bayescomp.core.jsonable import jsonable
from bayescomp.scores.estimators import no_effect
from bayescomp.studies.integrity import StoreError, StoreLock, check_usable, fit_checksum

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

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
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT NULL, finished_at TEXT,
    config TEXT NOT NULL, champion TEXT, status TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS steps (
    run_id INTEGER NOT NULL REFERENCES runs(run_id), step INTEGER NOT NULL,
    champion TEXT NOT NULL, challenger TEXT NOT NULL, p_better REAL, p_left REAL, p_rope REAL,
    p_right REAL, risk REAL, expected_gain REAL, decision TEXT NOT NULL, reason TEXT,
    fits INTEGER, n_splits INTEGER, extra_repeats INTEGER, PRIMARY KEY (run_id, step));
"""


def _now() -> str:
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


class ResultStore:
    """SQLite store of finished fits, split designs and selection decisions.

    Parameters
    ----------
    path : str or Path
        The SQLite file; created (with its folder) when absent.

    Examples
    --------
    >>> import tempfile, os
    >>> with ResultStore(os.path.join(tempfile.mkdtemp(), "s.sqlite")) as st:
    ...     st.count_fits()
    0
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._con = sqlite3.connect(str(self.path), timeout=60, isolation_level=None)
            self._con.execute("PRAGMA journal_mode=WAL")
        except sqlite3.DatabaseError as exc:
            raise ValueError(
                f"{self.path} is not a usable SQLite store ({exc}); pass a new --store path"
            ) from None
        check_usable(self._con, self.path)
        self._lock = StoreLock(self.path)
        self._con.execute("PRAGMA synchronous=NORMAL")
        self._con.execute("PRAGMA foreign_keys=ON")
        self._con.executescript(_SCHEMA)
        if "checksum" not in {r[1] for r in self._con.execute("PRAGMA table_info(fits)")}:
            # stores written before checksums: their fits load unverified, new ones are
            # written with one (the schema stays readable by those versions)
            self._con.execute("ALTER TABLE fits ADD COLUMN checksum TEXT")
        row = self._con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:
            with self._tx():
                self._con.execute(
                    "INSERT INTO meta VALUES ('schema_version', ?), ('created_at', ?)",
                    (str(SCHEMA_VERSION), _now()),
                )
        elif int(row[0]) != SCHEMA_VERSION:
            raise DesignChangedError(
                f"{self.path} uses store schema {row[0]}, this bayescomp writes schema "
                f"{SCHEMA_VERSION}; use a new store file"
            )
        self._versions = json.dumps(package_versions(), sort_keys=True)
        self.run_id: int | None = None  # the run a SqliteTracker opened, written on each fit
        self._host = socket.gethostname()

    # ---------------------------------------------------------------- plumbing
    def _tx(self) -> _Transaction:
        return _Transaction(self._con)

    def close(self) -> None:
        self._lock.release()
        self._con.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultStore({str(self.path)!r}, {self.count_fits()} fits)"

    # ----------------------------------------------------------------- designs
    def check_design(
        self,
        dataset: str,
        *,
        fingerprint: str,
        data_hash: str,
        n_samples: int,
        n_splits: int,
        metric: str,
        scoring: list[str],
        cv: str,
        seed: int | None,
        splits: Iterable[Mapping[str, Any]],
    ) -> bool:
        """Record the design of ``dataset``, or check it equals the stored one.

        Returns True when the design was already stored.  Raises
        :class:`DesignChangedError` naming what changed (splits or data).  ``metric``
        and ``scoring`` are recorded by the first run; a later run may decide on
        another metric (its fits are scored per metric, see :meth:`load_fits`).
        """
        self._lock.acquire()  # a run that fits owns the store until it closes it
        row = self._con.execute(
            "SELECT fingerprint, data_hash, metric, scoring, cv, n_splits FROM designs "
            "WHERE dataset=?",
            (dataset,),
        ).fetchone()
        scoring_json = json.dumps(list(scoring))
        if row is not None:
            fp, dh, _metric, _scoring, cv_old, ns = row
            where = f"the store {self.path} was written"
            if dh != data_hash:
                from bayescomp.scores.tabular import explain_data_change

                what = explain_data_change(dh, data_hash) or (
                    f"{where} for data with hash {dh[:12]}…, this run has {data_hash[:12]}…"
                )
                raise DesignChangedError(
                    f"the data of dataset {dataset!r} changed: {what}. Results on other data "
                    "must not be mixed; use a new --store file"
                )
            if fp != fingerprint:
                raise DesignChangedError(
                    f"other splits for dataset {dataset!r}: {where} for the design {cv_old} "
                    f"({ns} splits, fingerprint {fp[:12]}…), this run uses {cv} ({n_splits} "
                    f"splits, fingerprint {fingerprint[:12]}…). Use the same --n-splits/"
                    "--n-repeats/--seed (or cv=), or a new --store file"
                )
            return True
        with self._tx():
            self._con.execute(
                "INSERT INTO designs VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    dataset,
                    fingerprint,
                    data_hash,
                    int(n_samples),
                    int(n_splits),
                    metric,
                    scoring_json,
                    cv,
                    seed,
                    _now(),
                ),
            )
            self._insert_block(dataset, 0, fingerprint, seed, splits)
        return False

    def _insert_block(
        self,
        dataset: str,
        block: int,
        fingerprint: str,
        seed: int | None,
        splits: Iterable[Mapping[str, Any]],
    ) -> None:
        rows = [
            (
                dataset,
                int(s["split"]),
                block,
                int(s["repeat"]),
                int(s["fold"]),
                len(s["train"]),
                len(s["test"]),
                json.dumps([int(i) for i in s["train"]]),
                json.dumps([int(i) for i in s["test"]]),
            )
            for s in splits
        ]
        self._con.execute(
            "INSERT INTO blocks VALUES (?,?,?,?,?,?)",
            (dataset, block, fingerprint, seed, rows[0][1], len(rows)),
        )
        self._con.executemany("INSERT INTO splits VALUES (?,?,?,?,?,?,?,?,?)", rows)

    def check_block(
        self,
        dataset: str,
        block: int,
        *,
        fingerprint: str,
        seed: int | None,
        splits: Iterable[Mapping[str, Any]],
    ) -> None:
        """Record an extra repetition block (sequential testing) or check it is unchanged."""
        row = self._con.execute(
            "SELECT fingerprint FROM blocks WHERE dataset=? AND block=?", (dataset, block)
        ).fetchone()
        if row is not None:
            if row[0] != fingerprint:
                raise DesignChangedError(
                    f"extra repetition {block} of dataset {dataset!r} has other splits than the "
                    f"one in {self.path}; the design or its seed changed — use a new store file"
                )
            return
        with self._tx():
            self._insert_block(dataset, block, fingerprint, seed, splits)

    # ------------------------------------------------------------------ models
    def check_model(
        self,
        model: str,
        *,
        params_hash: str,
        params: str,
        description: str = "",
        path: str | None = None,
        nested: bool = False,
    ) -> None:
        """Record a model's parameters, or refuse when its stored fits used other ones."""
        row = self._con.execute(
            "SELECT params_hash, params FROM models WHERE model=?", (model,)
        ).fetchone()
        if row is not None:
            if row[0] != params_hash:
                old, new = json.loads(row[1]), json.loads(params)
                diff = sorted(
                    k for k in set(old) | set(new) if old.get(k) != new.get(k) and not no_effect(k)
                )
                if not diff:  # only n_jobs/verbose differ (or a store of an earlier version)
                    with self._tx():
                        self._con.execute(
                            "UPDATE models SET params_hash=?, params=? WHERE model=?",
                            (params_hash, params, model),
                        )
                    return
                raise DesignChangedError(
                    f"model {model!r} changed since its fits were stored in {self.path} "
                    f"(parameters {diff[:5]} differ); rename the model or use a new store file"
                )
            return
        with self._tx():
            self._con.execute(
                "INSERT INTO models VALUES (?,?,?,?,?,?)",
                (model, params_hash, params, description, path, int(nested)),
            )

    # -------------------------------------------------------------------- fits
    def load_fits(self, dataset: str, model: str) -> dict[int, dict[str, Any]]:
        """Successful stored fits of one model on one dataset, keyed by split."""
        out: dict[int, dict[str, Any]] = {}
        rows = self._con.execute(
            "SELECT fit_id, split, fit_time, score_time, best_params, params_hash, checksum "
            "FROM fits WHERE dataset=? AND model=? AND error IS NULL",
            (dataset, model),
        ).fetchall()
        sums = {}
        for fit_id, split, ft, st, bp, ph, cs in rows:
            out[int(split)] = {
                "fit_id": fit_id,
                "scores": {},
                "fit_time": ft,
                "score_time": st,
                "error": None,
                "best_params": json.loads(bp) if bp else None,
            }
            sums[int(split)] = (ph, cs)
        for _, _, split, metric, value in self._con.execute(
            "SELECT s.fit_id, s.model, s.split, s.metric, s.value FROM scores s JOIN fits f "
            "USING (fit_id) WHERE s.dataset=? AND s.model=? AND f.error IS NULL",
            (dataset, model),
        ):
            out[int(split)]["scores"][metric] = float("nan") if value is None else float(value)
        for split, (ph, cs) in sums.items():
            if cs is not None and cs != fit_checksum(
                dataset, model, split, ph, None, out[split]["scores"]
            ):
                raise StoreError(
                    f"the stored fit of model {model!r} on split {split} of dataset "
                    f"{dataset!r} in {self.path} does not match its checksum: its scores were "
                    "changed outside bayescomp. Delete that fit (DELETE FROM fits WHERE "
                    f"fit_id={out[split]['fit_id']}) to have it refitted, or move the store "
                    "aside"
                )
        return out

    def write_fit(
        self,
        *,
        dataset: str,
        model: str,
        split: int,
        seed: int | None,
        result: Mapping[str, Any],
        params_hash: str,
        params: str,
        run_id: int | None = None,
    ) -> int:
        """Write one finished fit (and its scores) in its own transaction; return its id.

        A failed fit (``result["error"]`` set) is recorded too, and replaced when
        a later run fits it again.  ``run_id`` defaults to the run a
        :class:`SqliteTracker` on this store opened (None without one).
        """
        run_id = self.run_id if run_id is None else run_id
        best = result.get("best_params")
        with self._tx():
            self._con.execute(
                "DELETE FROM fits WHERE dataset=? AND model=? AND split=?",
                (dataset, model, int(split)),
            )
            cur = self._con.execute(
                "INSERT INTO fits (run_id, dataset, model, split, seed, fit_time, score_time, "
                "error, params_hash, params, best_params, versions, host, pid, finished_at, "
                "checksum) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    run_id,
                    dataset,
                    model,
                    int(split),
                    seed,
                    float(result["fit_time"]),
                    float(result["score_time"]),
                    result.get("error"),
                    params_hash,
                    params,
                    json.dumps(best, default=repr) if best is not None else None,
                    self._versions,
                    self._host,
                    os.getpid(),
                    _now(),
                    fit_checksum(
                        dataset, model, split, params_hash, result.get("error"), result["scores"]
                    ),
                ),
            )
            fit_id = int(cur.lastrowid)
            self._con.executemany(
                "INSERT INTO scores VALUES (?,?,?,?,?,?)",
                [
                    (fit_id, dataset, model, int(split), m, None if v != v else float(v))
                    for m, v in result["scores"].items()
                ],
            )
        return fit_id

    def count_fits(self, *, successful: bool = True) -> int:
        q = "SELECT COUNT(*) FROM fits" + (" WHERE error IS NULL" if successful else "")
        return int(self._con.execute(q).fetchone()[0])

    # ----------------------------------------------------------------- reading
    def fits_frame(self) -> pd.DataFrame:
        """All fits with their scores, one column per metric (tidy, like :class:`Scores`)."""
        import pandas as pd

        fits = pd.read_sql_query(
            "SELECT f.fit_id, f.run_id, f.dataset, f.model, f.split, s.repeat, s.fold, "
            "s.n_train, s.n_test, f.seed, f.fit_time, f.score_time, f.error, f.finished_at "
            "FROM fits f JOIN splits s USING (dataset, split) ORDER BY f.fit_id",
            self._con,
        )
        sc = pd.read_sql_query("SELECT fit_id, metric, value FROM scores", self._con)
        if sc.empty:
            return fits
        wide = sc.pivot(index="fit_id", columns="metric", values="value").reset_index()
        wide.columns.name = None
        return fits.merge(wide, on="fit_id", how="left")

    def query(self, sql: str, params: tuple = ()) -> pd.DataFrame:
        """Run a read-only SQL query on the store and return a DataFrame.

        The query runs on its own read-only connection (``mode=ro`` and
        ``PRAGMA query_only``), so a statement that writes (``DELETE``, ``UPDATE``,
        ``DROP`` …) is refused and leaves the store unchanged.

        Raises
        ------
        ValueError
            When the statement would write, or is not valid SQL for this store.
        """
        import pandas as pd

        uri = Path(self.path).resolve().as_uri() + "?mode=ro"
        con = sqlite3.connect(uri, uri=True, timeout=60)
        try:
            con.execute("PRAGMA query_only=ON")
            return pd.read_sql_query(sql, con, params=params)
        except (sqlite3.Error, pd.errors.DatabaseError, TypeError) as exc:
            raise ValueError(
                f"query refused: {exc}. ResultStore.query is read-only: use SELECT statements "
                "(e.g. SELECT * FROM steps); the store is changed only by the selection itself"
            ) from None
        finally:
            con.close()


class MemoryStore:
    """A :class:`~bayescomp.core.protocols.FitStore` in a dict: resumes within a process.

    :func:`bayescomp.select_models` uses one when no ``store=`` is given, so that each fit
    is computed once even when sequential testing asks for more repetitions; it is also
    the smallest complete backend (``docs/selection.md``).

    Examples
    --------
    >>> st = MemoryStore()
    >>> st.write_fit(dataset="d", model="m", split=0, seed=0, params_hash="h", params="{}",
    ...              result={"scores": {"acc": 0.9}, "fit_time": 0.1, "score_time": 0.0,
    ...                      "error": None, "best_params": None})
    >>> st.load_fits("d", "m")[0]["scores"]
    {'acc': 0.9}
    """

    def __init__(self) -> None:
        self.designs: dict[tuple[str, int], str] = {}
        self.models: dict[str, str] = {}
        self.fits: dict[tuple[str, str, int], dict[str, Any]] = {}

    def _check(self, key: tuple[str, int], fingerprint: str) -> bool:
        known = key in self.designs
        if self.designs.setdefault(key, fingerprint) != fingerprint:
            raise DesignChangedError(
                f"other splits or data for dataset {key[0]!r} (block "
                f"{key[1]}) than this store holds; use a new store"
            )
        return known

    def check_design(
        self,
        dataset: str,
        *,
        fingerprint: str,
        data_hash: str,
        n_samples: int,
        n_splits: int,
        metric: str,
        scoring: list[str],
        cv: str,
        seed: int | None,
        splits: Sequence[Mapping[str, Any]],
    ) -> bool:
        return self._check((dataset, 0), f"{fingerprint}/{data_hash}")

    def check_block(
        self,
        dataset: str,
        block: int,
        *,
        fingerprint: str,
        seed: int | None,
        splits: Sequence[Mapping[str, Any]],
    ) -> None:
        self._check((dataset, block), fingerprint)

    def check_model(
        self,
        model: str,
        *,
        params_hash: str,
        params: str,
        description: str = "",
        path: str | None = None,
        nested: bool = False,
    ) -> None:
        if self.models.setdefault(model, params_hash) != params_hash:
            raise DesignChangedError(
                f"model {model!r} changed since its fits were stored; "
                "rename the model or use a new store"
            )

    def load_fits(self, dataset: str, model: str) -> dict[int, dict[str, Any]]:
        return {
            k: dict(r)
            for (d, m, k), r in self.fits.items()
            if d == dataset and m == model and r["error"] is None
        }

    def write_fit(
        self,
        *,
        dataset: str,
        model: str,
        split: int,
        seed: int | None,
        result: Mapping[str, Any],
        params_hash: str,
        params: str,
    ) -> None:
        self.fits[(dataset, model, int(split))] = {
            k: result.get(k) for k in ("scores", "fit_time", "score_time", "error", "best_params")
        }


class SqliteTracker:
    """Records each selection in the ``runs`` and ``steps`` tables of a :class:`ResultStore`.

    A :class:`~bayescomp.core.protocols.SelectionTracker` (beside
    :class:`~bayescomp.integrations.mlflow.MlflowTracker`): ``on_start`` opens a run (a run
    left ``running`` by a killed process becomes ``interrupted``) whose id the store writes
    on every fit, ``on_step`` writes each step as soon as it is decided, ``on_finish`` closes
    the run with its champion.  :func:`bayescomp.select_models` adds one for ``store=``.

    Examples
    --------
    >>> import tempfile, os
    >>> st = ResultStore(os.path.join(tempfile.mkdtemp(), "s.sqlite"))
    >>> tr = SqliteTracker(st)
    >>> tr.on_start("abc", {"rope": 0.01})
    >>> st.run_id, st.query("SELECT status FROM runs")["status"].tolist()
    (1, ['running'])
    >>> st.close()
    """

    def __init__(self, store: ResultStore):
        self.store = store

    def on_start(self, identity: str, settings: Mapping[str, Any]) -> None:
        con = self.store._con
        with self.store._tx():
            con.execute("UPDATE runs SET status='interrupted' WHERE status='running'")
            cur = con.execute(
                "INSERT INTO runs (started_at, config, status) VALUES (?,?,'running')",
                (_now(), json.dumps(dict(settings), default=repr, sort_keys=True)),
            )
        self.store.run_id = int(cur.lastrowid)

    def on_step(self, step: Mapping[str, Any], result: Any, paired: pd.DataFrame) -> None:
        from bayescomp.decision.walk import STEP_COLUMNS

        with self.store._tx():
            self.store._con.execute(
                f"INSERT OR REPLACE INTO steps VALUES ({','.join('?' * 15)})",
                (self.store.run_id, *(jsonable(step[c]) for c in STEP_COLUMNS)),
            )

    def on_finish(self, selection: Any) -> None:
        with self.store._tx():
            self.store._con.execute(
                "UPDATE runs SET finished_at=?, champion=?, status='finished' WHERE run_id=?",
                (_now(), selection.champion, self.store.run_id),
            )


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on error)."""

    def __init__(self, con: sqlite3.Connection):
        self._con = con

    def __enter__(self) -> None:
        self._con.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        self._con.execute("ROLLBACK" if exc_type is not None else "COMMIT")
