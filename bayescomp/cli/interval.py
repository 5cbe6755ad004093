"""Sub-command ``interval``: confidence interval of a metric from a CSV of predictions.

::

    bayescomp interval preds.csv --y-true y --pred score --metric roc_auc --plot auc.png
    bayescomp interval preds.csv --y-true y --pred old --candidate new --metric roc_auc
    bayescomp interval big.csv --y-true y --pred score --blb --n-jobs 2
"""

from __future__ import annotations

import argparse
from typing import Any

from bayescomp.cli._io import add_output_flags, column, parse_label, read_csv, write_outputs
from bayescomp.cli._text import DefaultsHelp


def run_interval(args: argparse.Namespace) -> int:
    import pandas as pd

    import bayescomp as bc

    frame = read_csv(args.file)
    y = column(frame, args.y_true, args.file)
    pred = pd.Series(column(frame, args.pred, args.file), name=args.pred)  # named in errors
    pos = parse_label(args.pos_label, y)
    if args.threshold is not None:
        from bayescomp.metrics import check_pos_label

        check_pos_label(y, pos, flag="--pos-label", single_class_ok=True)
    if args.candidate:
        if args.blb:
            raise ValueError("--blb with --candidate is not supported; drop --blb")
        cand = pd.Series(column(frame, args.candidate, args.file), name=args.candidate)
        if args.pos_label is not None:  # label metrics then score "pos against the rest"
            y = pd.Series(y == pos, name=args.y_true).astype(int)
        res = bc.holdout_posterior(
            y,
            pred,
            cand,
            metric=args.metric,
            threshold=args.threshold,
            baseline_name=args.pred,
            candidate_name=args.candidate,
            random_state=args.seed,
        )
    elif args.blb:
        res = bc.blb_metric(
            y,
            pred,
            args.metric,
            subset_exponent=args.subset_exponent,
            confidence_level=args.confidence_level,
            threshold=args.threshold,
            pos_label=pos,
            n_jobs=args.n_jobs,
            random_state=args.seed,
        )
    else:
        res = bc.bootstrap_metric(
            y,
            pred,
            args.metric,
            method=args.method,
            n_resamples=args.n_resamples,
            confidence_level=args.confidence_level,
            stratify=args.stratify,
            threshold=args.threshold,
            pos_label=pos,
            random_state=args.seed,
        )
    table = res.summary()
    print(res)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(table.to_string(index=False))
    write_outputs(args, table, res.plot, index=False)
    return 0


def register(subparsers: Any) -> None:
    """Add ``interval`` to the ``bayescomp`` command."""
    p = subparsers.add_parser(
        "interval",
        help="bootstrap / BLB confidence interval of a metric from a CSV of predictions",
        description="Confidence interval of a metric on one test set (scipy bootstrap, or the "
        "bag of little bootstraps with --blb); with --candidate, the paired difference.",
        formatter_class=DefaultsHelp,
    )
    p.add_argument("file", help="CSV with one row per test row")
    p.add_argument("--y-true", required=True, help="column of true labels/targets")
    p.add_argument(
        "--pred",
        required=True,
        help="column of predictions or scores (the baseline with --candidate)",
    )
    p.add_argument(
        "--candidate",
        help="second prediction column: the posterior of candidate - pred on these rows "
        "(bc.holdout_posterior; the same as compare --predictions)",
    )
    p.add_argument("--metric", default="roc_auc", help="scikit-learn metric name (default roc_auc)")
    p.add_argument("--method", default="bca", choices=("bca", "percentile", "basic"))
    p.add_argument("--n-resamples", type=int, default=2000)
    p.add_argument(
        "--confidence-level", type=float, default=0.95, help="confidence level (default 0.95)"
    )
    p.add_argument("--stratify", action="store_true", help="resample within each class")
    p.add_argument("--threshold", type=float, help="turn scores into labels at this cut-off")
    p.add_argument("--pos-label", help="positive class (default 1)")
    p.add_argument("--blb", action="store_true", help="bag of little bootstraps (large files)")
    p.add_argument(
        "--subset-exponent",
        type=float,
        default=0.7,
        help="BLB subset size n**subset_exponent (default 0.7)",
    )
    p.add_argument("--n-jobs", type=int, help="BLB subsets in parallel")
    p.add_argument("--seed", type=int, help="random seed")
    add_output_flags(p, "write the summary table to this CSV", "write the resampling histogram")
    p.set_defaults(func=run_interval)
