"""The SQLite run tracker: each selection's runs and steps, in its result store's file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bayescomp.core.jsonable import jsonable
from bayescomp.studies.store import ResultStore
from bayescomp.studies.store_schema import utc_now

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


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
        with self.store.transaction() as con:
            con.execute("UPDATE runs SET status='interrupted' WHERE status='running'")
            cur = con.execute(
                "INSERT INTO runs (started_at, config, status) VALUES (?,?,'running')",
                (utc_now(), json.dumps(dict(settings), default=repr, sort_keys=True)),
            )
        self.store.run_id = int(cur.lastrowid)

    def on_step(self, step: pd.Series, result: Any, paired: pd.DataFrame) -> None:
        from bayescomp.decision.walk import STEP_COLUMNS

        with self.store.transaction() as con:
            con.execute(
                f"INSERT OR REPLACE INTO steps VALUES ({','.join('?' * 15)})",
                (self.store.run_id, *(jsonable(step[c]) for c in STEP_COLUMNS)),
            )

    def on_finish(self, selection: Any) -> None:
        with self.store.transaction() as con:
            con.execute(
                "UPDATE runs SET finished_at=?, champion=?, status='finished' WHERE run_id=?",
                (utc_now(), selection.champion, self.store.run_id),
            )
