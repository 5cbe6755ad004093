"""SQLite result store: every finished fit is kept, so a selection can resume.

One SQLite file in WAL mode, written only by the parent process, one transaction per fit;
a store belongs to one design (other splits or data raise :class:`DesignChangedError`) but
not to one metric (every scorer's score is kept).  How it resumes and what it holds:
``docs/selection.md``; its tables: :mod:`bayescomp.studies.store_schema`.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescomp.core.exceptions import DesignChangedError
from bayescomp.core.jsonable import jsonable
from bayescomp.core.protocols import Fit, OutOfFold, Split
from bayescomp.scores.estimators import no_effect
from bayescomp.studies.integrity import (
    StoreError,
    StoreLock,
    fit_checksum,
    predictions_checksum,
)
from bayescomp.studies.store_schema import (
    Transaction,
    connect,
    package_versions,
    utc_now,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


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
        memory = str(path) == ":memory:"  # a MemoryStore: no folder, no lock file
        if not memory:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._con = connect(self.path)
        self._lock = StoreLock(None if memory else self.path)
        self._versions = json.dumps(package_versions(), sort_keys=True)
        self.run_id: int | None = None  # the run a tracker opened, written on each fit
        self._host = socket.gethostname()

    # ---------------------------------------------------------------- plumbing
    def transaction(self) -> Transaction:
        """``with store.transaction() as con:`` runs statements in one ``BEGIN IMMEDIATE``
        transaction (rolled back on error); the tracker writes its tables through it."""
        return Transaction(self._con)

    def close(self) -> None:
        """Close the file; a run still ``running`` (stopped by Ctrl-C or an error) is
        marked ``interrupted``."""
        if self.run_id is not None:
            with contextlib.suppress(sqlite3.Error), self.transaction() as con:
                con.execute(
                    "UPDATE runs SET status='interrupted' WHERE run_id=? AND status='running'",
                    (self.run_id,),
                )
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
        splits: Iterable[Split],
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
        with self.transaction():
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
                    utc_now(),
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
        splits: Iterable[Split],
    ) -> None:
        rows = [
            (
                dataset,
                s.split,
                block,
                s.repeat,
                s.fold,
                len(s.train),
                len(s.test),
                json.dumps([int(i) for i in s.train]),
                json.dumps([int(i) for i in s.test]),
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
        splits: Iterable[Split],
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
        with self.transaction():
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
                    with self.transaction():
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
        with self.transaction():
            self._con.execute(
                "INSERT INTO models VALUES (?,?,?,?,?,?)",
                (model, params_hash, params, description, path, int(nested)),
            )

    # -------------------------------------------------------------------- fits
    def load_fits(self, dataset: str, model: str) -> dict[int, Fit]:
        """Successful stored fits of one model on one dataset, keyed by split."""
        rows = self._con.execute(
            "SELECT fit_id, split, fit_time, score_time, best_params, params_hash, checksum "
            "FROM fits WHERE dataset=? AND model=? AND error IS NULL",
            (dataset, model),
        ).fetchall()
        stored = {int(split): (fit_id, ph, cs) for fit_id, split, _, _, _, ph, cs in rows}
        scores: dict[int, dict[str, float]] = {split: {} for split in stored}
        for fit_id, split, metric, value in self._con.execute(
            "SELECT s.fit_id, s.split, s.metric, s.value FROM scores s JOIN fits f "
            "USING (fit_id) WHERE s.dataset=? AND s.model=? AND f.error IS NULL",
            (dataset, model),
        ):
            if not isinstance(value, int | float | None):  # SQLite keeps text in a REAL column
                why = f"has the {metric} score {str(value)[:40]!r}, not a number: it was"
                raise self._tampered("fit", model, split, dataset, why, fit_id)
            scores[int(split)][metric] = float("nan") if value is None else float(value)
        for split, (fit_id, ph, cs) in stored.items():
            if cs is not None and cs != fit_checksum(
                dataset, model, split, ph, None, scores[split]
            ):
                why = "does not match its checksum: its scores were"
                raise self._tampered("fit", model, split, dataset, why, fit_id)
        kept = self._load_predictions(dataset, model)
        return {
            int(split): Fit(
                scores[int(split)],
                ft,
                st,
                best_params=json.loads(bp) if bp else None,
                predictions=kept.get(int(split)),
            )
            for _, split, ft, st, bp, _, _ in rows
        }

    def _tampered(
        self, what: str, model: str, split: int, dataset: str, why: str, fit_id: int
    ) -> StoreError:
        """A stored fit changed outside bayescomp: named, and how to have it refitted."""
        return StoreError(
            f"the stored {what} of model {model!r} on split {split} of dataset {dataset!r} in "
            f"{self.path} {why} changed outside bayescomp. Delete that fit (DELETE FROM fits "
            f"WHERE fit_id={fit_id}) to have it refitted, or move the store aside"
        )

    def _load_predictions(self, dataset: str, model: str) -> dict[int, OutOfFold]:
        """The stored out-of-fold predictions of a model's fits, by split, each checked."""
        import numpy as np

        rows = self._con.execute(
            "SELECT f.split, p.fit_id, p.kind, p.y_true, p.y_score, p.checksum FROM predictions "
            "p JOIN fits f USING (fit_id) WHERE f.dataset=? AND f.model=? AND f.error IS NULL",
            (dataset, model),
        )
        out = {}
        for split, fit_id, kind, y_true, y_score, cs in rows:
            if cs != predictions_checksum(dataset, model, split, kind, y_true, y_score):
                why = "do not match their checksum: they were"
                raise self._tampered("predictions", model, split, dataset, why, fit_id)
            y = np.asarray(json.loads(y_score), dtype=float)
            out[int(split)] = OutOfFold(kind, np.asarray(json.loads(y_true)), y)
        return out

    def _write_predictions(
        self, fit_id: int, dataset: str, model: str, split: int, predictions: OutOfFold
    ) -> None:
        y_true = json.dumps(jsonable(predictions.y_true))
        y_score = json.dumps(jsonable(predictions.y_score))
        kind = str(predictions.kind)
        self._con.execute(
            "INSERT INTO predictions VALUES (?,?,?,?,?)",
            (
                fit_id,
                kind,
                y_true,
                y_score,
                predictions_checksum(dataset, model, split, kind, y_true, y_score),
            ),
        )

    def write_fit(
        self,
        *,
        dataset: str,
        model: str,
        split: int,
        seed: int | None,
        result: Fit,
        params_hash: str,
        params: str,
        run_id: int | None = None,
    ) -> int:
        """Write one finished fit (and its scores) in its own transaction; return its id.

        A failed fit (``result.error`` set) is recorded too, and replaced when
        a later run fits it again.  ``run_id`` defaults to the run a
        :class:`SqliteTracker` on this store opened (None without one).
        """
        run_id = self.run_id if run_id is None else run_id
        best = result.best_params
        with self.transaction():
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
                    float(result.fit_time),
                    float(result.score_time),
                    result.error,
                    params_hash,
                    params,
                    json.dumps(best, default=repr) if best is not None else None,
                    self._versions,
                    self._host,
                    os.getpid(),
                    utc_now(),
                    fit_checksum(dataset, model, split, params_hash, result.error, result.scores),
                ),
            )
            fit_id = int(cur.lastrowid)
            self._con.executemany(
                "INSERT INTO scores VALUES (?,?,?,?,?,?)",
                [
                    (fit_id, dataset, model, int(split), m, None if v != v else float(v))
                    for m, v in result.scores.items()
                ],
            )
            if result.predictions is not None:
                self._write_predictions(fit_id, dataset, model, int(split), result.predictions)
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


class MemoryStore(ResultStore):
    """The fit cache in memory (SQLite ``:memory:``): resumes within a process.

    :func:`bayescomp.select_models` uses one when no ``store=`` is given, so that each fit
    is computed once even when sequential testing asks for more repetitions.

    Examples
    --------
    >>> from bayescomp.core.protocols import Fit
    >>> st = MemoryStore()
    >>> st.write_fit(dataset="d", model="m", split=0, seed=0, params_hash="h", params="{}",
    ...              result=Fit({"acc": 0.9}, fit_time=0.1))
    1
    >>> st.load_fits("d", "m")[0].scores
    {'acc': 0.9}
    """

    def __init__(self) -> None:
        super().__init__(":memory:")


def baseline_age(path: Any, model: str) -> str | None:
    """How old ``model``'s newest stored fit in the store at ``path`` is, e.g. ``"3 d 4 h"``
    (None without a store or a fit of it)."""
    from datetime import UTC, datetime

    if not path or not Path(path).is_file():
        return None
    sql = "SELECT MAX(finished_at) AS t FROM fits WHERE model = ? AND error IS NULL"
    with ResultStore(path) as st:
        t = st.query(sql, (model,))["t"].iloc[0]
    if t is None:
        return None
    age = datetime.now(UTC) - datetime.fromisoformat(t.replace("Z", "+00:00"))
    return f"{age.days} d {age.seconds // 3600} h"
