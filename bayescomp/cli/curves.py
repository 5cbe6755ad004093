"""Sub-command ``curves``: precision/recall/ROC at fixed thresholds across repetitions.

::

    bayescomp curves oof.csv --y-true y --score p --repetition rep --plot pr.png --kind pr
"""

from __future__ import annotations

import argparse
from typing import Any

from bayescomp.cli._io import add_output_flags, column, parse_label, read_csv, write_outputs
from bayescomp.cli._text import DefaultsHelp
from bayescomp.core.metric import metric_record


def _thresholds(text: str) -> Any:
    import numpy as np

    from bayescomp.cli.main import UserError

    try:
        if ":" in text:
            a, b, n = text.split(":")
            return np.linspace(float(a), float(b), int(n))
        return np.array([float(t) for t in text.split(",")])
    except ValueError:
        raise UserError(
            f"--thresholds must be START:STOP:NUM (e.g. 0:1:101) or a comma list; got {text!r}"
        ) from None


def run_curves(args: argparse.Namespace) -> int:
    import bayescomp as bc

    frame = read_csv(args.file)
    y = column(frame, args.y_true, args.file)
    s = column(frame, args.score, args.file)
    rep = column(frame, args.repetition, args.file)
    import pandas as pd

    preds = pd.DataFrame({"repetition": rep, "y_true": y, "y_score": s})
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    needed = {"pr": ("precision", "recall"), "roc": ("recall", "fpr")}.get(args.kind, (args.kind,))
    metrics += [m for m in needed if m not in metrics]
    from bayescomp.metrics import check_pos_label

    pos = parse_label(args.pos_label, y)
    check_pos_label(y, pos, flag="--pos-label")
    cur = bc.threshold_curves(
        predictions=preds,
        thresholds=_thresholds(args.thresholds) if args.thresholds else None,
        metrics=metrics,
        pos_label=pos,
    )
    summary = cur.summary()
    summary.columns = [f"{m}_{st}" for m, st in summary.columns]
    every = max(1, len(cur.thresholds) // 10)
    with pd.option_context("display.width", 200, "display.max_columns", 12):
        cols = [c for c in summary.columns if c.endswith(("_mean", "_std", "_n_defined"))]
        print(f"{cur.n_repetitions} repetitions; every {every}th threshold shown")
        shown = summary[cols].iloc[::every]
        print(shown.round(4).to_string())
    for line in _undefined_notes(shown):
        print(line)
    write_outputs(args, summary, lambda: cur.plot(kind=args.kind, band=args.band))
    return 0


def _undefined_notes(shown: Any) -> list[str]:
    """One line per metric shown as NaN: at which thresholds, and why it is undefined there."""
    notes = []
    for col in [c for c in shown.columns if c.endswith("_mean")]:
        nan = shown[col].isna()
        if nan.any():
            metric = col[: -len("_mean")]
            at = shown.index[nan.to_numpy()]
            record = metric_record(metric)
            why = (record and record.undefined) or "it is undefined in every repetition there"
            notes.append(
                f"NaN: {metric} at threshold(s) {at.min():g}–{at.max():g} is undefined "
                f"in every repetition: {why}; {metric}_n_defined counts the "
                "repetitions where it is defined"
            )
    return notes


def register(subparsers: Any) -> None:
    """Add ``curves`` to the ``bayescomp`` command."""
    c = subparsers.add_parser(
        "curves",
        help="precision/recall/ROC at fixed thresholds across repetitions, with bands",
        description="Threshold curves from stored out-of-sample predictions (one repetition "
        "id per row): every repetition is evaluated at the same thresholds.",
        formatter_class=DefaultsHelp,
    )
    c.add_argument("file", help="CSV of predictions: repetition id, true label, score")
    c.add_argument("--y-true", required=True)
    c.add_argument("--score", required=True, help="column of positive-class scores")
    c.add_argument("--repetition", required=True, help="column identifying the repetition")
    c.add_argument("--thresholds", help="START:STOP:NUM or a comma list (default 0:1:101)")
    c.add_argument(
        "--metrics",
        default="precision,recall,fpr",
        help="comma list of precision, recall, fpr, specificity, f1, accuracy",
    )
    c.add_argument("--pos-label", help="positive class (default 1)")
    c.add_argument("--kind", default="pr", help="plot: pr, roc, or a metric name vs threshold")
    c.add_argument("--band", default="std", choices=("std", "quantile"))
    add_output_flags(
        c, "write the per-threshold summary to this CSV", "write the curve with its band"
    )
    c.set_defaults(func=run_curves)
