"""Sub-command ``watch``: promote from a growing prediction log, valid however often one looks.

::

    bayescomp watch log.parquet --baseline prod --candidate shadow --metric log_loss \\
        --rope 0.01 --every 500 --store watch.sqlite --fail-unless promote

It looks every ``--every`` new labelled items, prints one line per look and stops at the
first decision (``bayescomp.posterior.sequential``).  With ``--store`` the entries of the
sequence are kept in a small SQLite file after every look, so an hourly job on the grown
log (or a run killed between looks) goes on where it stopped, and a decided comparison is
not decided again.  Exit status: 0, or 1 when ``--fail-unless`` is not met; 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path
from typing import Any

from bayescomp.cli._text import ROPE_HELP, DefaultsHelp, rope_arg


def _line(look: Any) -> str:
    evidence = f"  e-value {look['e promote']:.3g}" if "e promote" in look else ""
    return (
        f"{int(look['items']):>9} items  estimate {look['estimate']:+.4f}  sequence "
        f"[{look['lower']:+.4f}, {look['upper']:+.4f}]{evidence}  tests: {look['decision']}"
    )


class Store:
    """The entries seen so far and the settings they were made with, in SQLite."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute("create table if not exists meta (key text primary key, value text)")
        self.meta = dict(self.db.execute("select key, value from meta").fetchall())

    def entries(self) -> Any:
        import pandas as pd

        if "plan" not in self.meta:
            return None
        return pd.read_sql("select * from entries order by rowid", self.db)

    def check(self, plan: Any, frame: Any) -> Any:
        """The plan to use (the stored one: its slices), after refusing a changed setting or
        a log that shrank or was rewritten."""
        from bayescomp.cli.main import UserError
        from bayescomp.posterior.sequential import Plan

        if "plan" not in self.meta:
            return plan
        stored = {"classes": [], **json.loads(self.meta["plan"])}
        given = json.loads(json.dumps(plan.to_dict()))
        changed = [k for k in given if k != "slices" and given[k] != stored[k]]
        if changed:
            raise UserError(
                f"the store was made with other settings ({', '.join(changed)}); run with the "
                "same settings or give a new --store"
            )
        n = int(self.meta["rows"])
        if len(frame) < n:
            raise UserError(
                f"the log has {len(frame)} rows but had {n} at the last run: a prediction "
                "log only grows; give the whole log, or a new --store"
            )
        if _fingerprint(frame.iloc[:n], plan) != self.meta["fingerprint"]:
            raise UserError(
                f"the first {n} rows of the log differ from the last run's (predictions "
                "changed or rows reordered); give the log as it grew, or a new --store"
            )
        stored["slices"] = tuple(stored["slices"])
        stored["guardrails"] = tuple(map(tuple, stored["guardrails"]))
        stored["classes"] = tuple(stored.get("classes", ()))
        return Plan(**stored)

    def save(self, plan: Any, log: tuple[int, str], new: Any, decision: Any) -> None:
        """Append ``new`` entries and record the log's size and fingerprint (one
        transaction)."""
        with self.db:
            new.assign(cluster=new["cluster"].astype(str)).to_sql(
                "entries", self.db, if_exists="append", index=False
            )
            meta = {
                "plan": json.dumps(plan.to_dict()),
                "rows": str(log[0]),
                "fingerprint": log[1],
                **({"decision": json.dumps(decision)} if decision else {}),
            }
            self.db.executemany("insert or replace into meta values (?, ?)", meta.items())


def _fingerprint(rows: Any, plan: Any) -> str:
    """A hash of the model columns' values in ``rows`` (labels may still arrive)."""
    import joblib
    import pandas as pd

    values = pd.util.hash_pandas_object(rows[[plan.baseline, plan.candidate]], index=True)
    return str(joblib.hash(values.to_numpy()))


def run_watch(args: argparse.Namespace) -> int:
    from bayescomp.cli._data import parse_guardrails
    from bayescomp.posterior.sequential import decide_entries, entries, make_plan
    from bayescomp.scores.csvio import read_log

    frame = read_log(args.file)
    settings = {k: getattr(args, k) for k in ("baseline", "candidate", "metric", "rope", "gamma")}
    columns = {"label": args.label, "cluster": args.cluster, "time": args.time}
    plan = make_plan(
        frame,
        settings
        | columns
        | {"every": args.every, "slice": args.slice, "slice_rope": args.slice_rope}
        | {"guardrails": parse_guardrails(args.guardrail), "classes": tuple(args.classes or ())},
    )
    store = Store(args.store) if args.store else None
    old = None
    if store is not None:
        plan, old = store.check(plan, frame), store.entries()
    if store is not None and "decision" in store.meta:
        print(f"already decided at the last run: {json.loads(store.meta['decision'])['text']}")
        res = decide_entries(old, plan)
    else:
        res = _look(args, plan, frame, store, old, entries, decide_entries)
    if args.json:
        print(json.dumps(res.to_dict(), allow_nan=False))
    if args.comment_file:
        from bayescomp.report.markdown import watch_markdown

        Path(args.comment_file).write_text(watch_markdown(res), encoding="utf-8")
    if args.mlflow_model or args.mlflow_uri:
        from bayescomp.integrations.mlflow_watch import WatchTracker

        tracker = WatchTracker(args.mlflow_model, tracking_uri=args.mlflow_uri, alias=args.alias)
        tracker.log_watch(res, args.mlflow_version)
    if args.report:
        from bayescomp.report.sequential_plots import write_watch_report

        print(f"report written to {write_watch_report(res, args.report)}")
    return int(bool(args.fail_unless) and res.decision != args.fail_unless)


def _look(args, plan, frame, store, old, entries, decide_entries) -> Any:
    """The looks of this run, each saved to the store before it is printed."""
    import pandas as pd

    skip = () if old is None or plan.cluster is None else set(old["cluster"])
    rest = frame if old is None or plan.cluster is not None else frame.drop(index=old["row"])
    new = entries(rest, plan, skip_clusters=skip)
    table = new if old is None else pd.concat([old, new], ignore_index=True)
    res = decide_entries(table, plan)
    done = 0 if old is None else len(old)
    n_old = 0 if old is None else int(old["items"].sum())
    positions = (res.looks["items"].to_numpy()[:, None] >= table["items"].cumsum().to_numpy()).sum(
        1
    )
    log = (len(frame), _fingerprint(frame, plan)) if store is not None else (0, "")
    for (_, look), upto in zip(res.looks.iterrows(), positions, strict=True):
        if look["items"] <= n_old:
            continue
        if store is not None:
            final = {"text": str(res)} if look["decision"] != "continue" else None
            store.save(plan, log, table.iloc[done:upto], final)
            done = upto
        if not args.json:
            print(_line(look), flush=True)
    if not args.json:
        print(res)
    return res


def register(subparsers: Any) -> None:
    """Add ``watch`` to the ``bayescomp`` command."""
    from bayescomp.cli._parents import counting, output

    w = subparsers.add_parser(
        "watch",
        parents=[output()],
        help="promote from a growing prediction log: anytime-valid, however often one looks",
        description="Compare a candidate with the baseline on a prediction log in arrival "
        "order (CSV or Parquet: a label column and one column per model), looking every "
        "--every labelled items and stopping at the first decision; a confidence sequence "
        "keeps each false claim below 1 - gamma however often one looks "
        "(docs/live_promotion.md).",
        formatter_class=DefaultsHelp,
    )
    w.add_argument("file", metavar="LOG", help="the prediction log (CSV or Parquet)")
    w.add_argument("--baseline", required=True, metavar="COL", help="the baseline's column")
    w.add_argument("--candidate", required=True, metavar="COL", help="the candidate's column")
    w.add_argument(
        "--metric", required=True, help="accuracy, error_rate, brier, log_loss, mse or mae"
    )
    w.add_argument("--rope", type=rope_arg, required=True, help=ROPE_HELP)
    w.add_argument(
        "--gamma", type=float, default=0.95, help="each claim errs with prob. <= 1 - gamma"
    )
    w.add_argument("--every", type=counting(1), default=1, help="look every N labelled items")
    w.add_argument("--label", default="y_true", metavar="COL", help="the label column")
    w.add_argument(
        "--classes",
        type=lambda text: [c.strip() for c in text.split(",")],
        metavar="A,B,...",
        help="every label there is: a label (or a predicted one) outside them is refused",
    )
    w.add_argument("--cluster", metavar="COL", help="one entry per cluster (its mean)")
    w.add_argument("--time", metavar="COL", help="arrival time column (checked sorted)")
    w.add_argument("--slice", metavar="COL", help="guard every slice of this column")
    w.add_argument("--slice-rope", type=float, metavar="R", help="the slices' margin (--rope)")
    w.add_argument(
        "--guardrail",
        action="append",
        default=[],
        metavar="METRIC:ROPE",
        help="another per-item metric that must be known not worse beyond ROPE before a "
        "promotion (e.g. brier:0.01); its own sequence at its share of 1 - gamma; repeatable",
    )
    w.add_argument("--store", metavar="PATH", help="SQLite file: resume where the last run stopped")
    w.add_argument("--report", metavar="DIR", help="write the HTML report with the sequence plot")
    m = w.add_argument_group("MLflow (pip install 'bayescomp[mlflow]')")
    m.add_argument("--mlflow-uri", metavar="URI", help="log each look as a step of one run")
    m.add_argument("--mlflow-model", metavar="NAME", help="registered model whose alias moves")
    m.add_argument("--mlflow-version", metavar="V", help="the candidate's version in NAME")
    m.add_argument("--alias", default="champion", help="the alias moved on promote")
    w.add_argument(
        "--fail-unless",
        choices=("promote", "worse", "equivalent", "continue"),
        help="exit with status 1 unless the decision is this (e.g. promote), for CI gates",
    )
    w.set_defaults(func=run_watch)
