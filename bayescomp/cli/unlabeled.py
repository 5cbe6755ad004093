"""Sub-command ``unlabeled``: precision@k on an unlabeled pool with a known class size.

::

    bayescomp unlabeled --test test.csv --pool pool.csv --score p --label y \\
        --class-size 400:600 --plot recall_at_k.png
"""

from __future__ import annotations

import argparse
from typing import Any

from bayescomp.cli._io import add_output_flags, column, parse_label, read_csv, write_outputs
from bayescomp.cli._text import DefaultsHelp


def _class_size(text: str) -> Any:
    from bayescomp.cli.main import UserError

    try:
        if ":" in text:
            lo, hi = text.split(":")
            return (float(lo), float(hi))
        return float(text)
    except ValueError:
        raise UserError(f"--class-size must be a number or LOW:HIGH; got {text!r}") from None


def run_unlabeled(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    import bayescomp as bc

    test = read_csv(args.test)
    pool = read_csv(args.pool)
    y = column(test, args.label, args.test)
    ts = column(test, args.score, args.test).astype(float)
    ps = column(pool, args.pool_score or args.score, args.pool).astype(float)
    res = bc.precision_at_k_unlabeled(
        ts, y, ps, _class_size(args.class_size), positive_class=parse_label(args.pos_label, y)
    )
    print(res)
    if res.best_threshold_range is not None:
        lo, hi = res.best_threshold_range
        print(f"best-F1 threshold over the class-size interval: {lo:.4g} .. {hi:.4g}")
    t = res.table
    ks = np.unique(np.r_[np.linspace(1, len(t), 11).astype(int), res.best_k])
    with pd.option_context("display.width", 200, "display.max_columns", 12):
        print(t.loc[ks].round(4).to_string())
    write_outputs(args, t, res.plot)
    return 0


def register(subparsers: Any) -> None:
    """Add ``unlabeled`` to the ``bayescomp`` command."""
    u = subparsers.add_parser(
        "unlabeled",
        help="recall@k / precision@k on an unlabeled pool with a known class size",
        description="Precision@k on an unlabeled pool estimated from the labeled test set's "
        "recall and the number of class members in the pool (or bounds on it).",
        formatter_class=DefaultsHelp,
    )
    u.add_argument("--test", required=True, help="CSV of the labeled test set")
    u.add_argument("--pool", required=True, help="CSV of the unlabeled pool")
    u.add_argument("--score", required=True, help="score column (in both files)")
    u.add_argument("--pool-score", help="score column of the pool if named differently")
    u.add_argument("--label", required=True, help="label column of the test file")
    u.add_argument(
        "--class-size", required=True, help="members of the class in the pool: N or LOW:HIGH"
    )
    u.add_argument(
        "--pos-label", help="the class of interest (default 1), as in the other commands"
    )
    add_output_flags(u, "write the table indexed by k to this CSV", "write the recall@k vs k plot")
    u.set_defaults(func=run_unlabeled)
