"""Sub-commands ``interval``, ``curves`` and ``unlabeled``: metric uncertainty on CSV files.

::

    bayescomp interval preds.csv --y-true y --pred score --metric roc_auc --plot auc.png
    bayescomp interval preds.csv --y-true y --pred old --candidate new --metric roc_auc
    bayescomp interval big.csv --y-true y --pred score --blb --n-jobs 2
    bayescomp curves oof.csv --y-true y --score p --repetition rep --plot pr.png --kind pr
    bayescomp unlabeled --test test.csv --pool pool.csv --score p --label y \\
        --class-size 400:600 --plot recall_at_k.png
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np


def _read(path: str) -> Any:
    import pandas as pd

    from bayescomp.cli.main import UserError

    p = Path(path)
    if not p.is_file():
        raise UserError(f"no such CSV file: {path}")
    try:
        frame = pd.read_csv(p)
    except Exception as exc:  # pandas raises many types for malformed files
        raise UserError(f"could not read {path} as CSV: {exc}") from None
    if frame.empty:
        raise UserError(f"{path} has no rows")
    return frame


def _column(frame: Any, name: str, path: str) -> np.ndarray:
    from bayescomp.cli.main import UserError

    if name not in frame.columns:
        raise UserError(f"column {name!r} not in {path}; columns are {list(frame.columns)}")
    col = frame[name]
    if col.isna().any():
        raise UserError(f"column {name!r} of {path} has {int(col.isna().sum())} empty value(s)")
    return col.to_numpy()


def _label(value: str | None, like: np.ndarray) -> Any:
    """Parse ``--pos-label`` to the dtype of the label column."""
    if value is None:
        return 1
    if like.dtype.kind in "iub":
        try:
            return int(value)
        except ValueError:
            return value
    if like.dtype.kind == "f":
        return float(value)
    return value


def _save(ax: Any, path: str | None) -> None:
    if not path:
        return
    fig = ax.figure if hasattr(ax, "figure") else np.ravel(ax)[0].figure
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"plot written to {path}")


def _thresholds(text: str) -> np.ndarray:
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


def _class_size(text: str) -> Any:
    from bayescomp.cli.main import UserError

    try:
        if ":" in text:
            lo, hi = text.split(":")
            return (float(lo), float(hi))
        return float(text)
    except ValueError:
        raise UserError(f"--class-size must be a number or LOW:HIGH; got {text!r}") from None


# ------------------------------------------------------------------ interval
def run_interval(args: argparse.Namespace) -> int:
    import pandas as pd

    import bayescomp as bc

    frame = _read(args.file)
    y = _column(frame, args.y_true, args.file)
    pred = _column(frame, args.pred, args.file)
    pos = _label(args.pos_label, y)
    if args.threshold is not None:
        from bayescomp.metrics._metric import check_pos_label

        check_pos_label(y, pos, flag="--pos-label", single_class_ok=True)
    if args.candidate:
        if args.blb:
            raise ValueError("--blb with --candidate is not supported; use the paired bootstrap")
        cand = _column(frame, args.candidate, args.file)
        res = bc.paired_bootstrap_metric(
            y, pred, cand, args.metric, method=args.method, n_resamples=args.n_resamples,
            confidence_level=args.level, stratify=args.stratify, threshold=args.threshold,
            pos_label=pos, baseline_name=args.pred, candidate_name=args.candidate,
            random_state=args.seed,
        )
        table = res.summary()
        print(res)
    elif args.blb:
        res = bc.blb_metric(
            y, pred, args.metric, gamma=args.gamma, confidence_level=args.level,
            threshold=args.threshold, pos_label=pos, n_jobs=args.n_jobs, random_state=args.seed,
        )
        table = res.summary()
        print(res)
    else:
        res = bc.bootstrap_metric(
            y, pred, args.metric, method=args.method, n_resamples=args.n_resamples,
            confidence_level=args.level, stratify=args.stratify, threshold=args.threshold,
            pos_label=pos, random_state=args.seed,
        )
        table = res.summary()
        print(res)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(table.to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False)
        print(f"table written to {args.out}")
    if args.plot:
        _save(res.plot(), args.plot)
    return 0


# -------------------------------------------------------------------- curves
def run_curves(args: argparse.Namespace) -> int:
    import bayescomp as bc

    frame = _read(args.file)
    y = _column(frame, args.y_true, args.file)
    s = _column(frame, args.score, args.file)
    rep = _column(frame, args.repetition, args.file)
    import pandas as pd

    preds = pd.DataFrame({"repetition": rep, "y_true": y, "y_score": s})
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    needed = {"pr": ("precision", "recall"), "roc": ("recall", "fpr")}.get(args.kind, (args.kind,))
    metrics += [m for m in needed if m not in metrics]
    from bayescomp.metrics._metric import check_pos_label

    pos = _label(args.pos_label, y)
    check_pos_label(y, pos, flag="--pos-label")
    cur = bc.threshold_curves(
        predictions=preds, thresholds=_thresholds(args.thresholds) if args.thresholds else None,
        metrics=metrics, pos_label=pos,
    )
    summary = cur.summary()
    summary.columns = [f"{m}_{st}" for m, st in summary.columns]
    every = max(1, len(cur.thresholds) // 10)
    with pd.option_context("display.width", 200, "display.max_columns", 12):
        cols = [c for c in summary.columns if c.endswith(("_mean", "_std", "_n_defined"))]
        print(f"{cur.n_repetitions} repetitions; every {every}th threshold shown")
        print(summary[cols].iloc[::every].round(4).to_string())
    if args.out:
        summary.to_csv(args.out)
        print(f"table written to {args.out}")
    if args.plot:
        _save(cur.plot(kind=args.kind, band=args.band), args.plot)
    return 0


# ----------------------------------------------------------------- unlabeled
def run_unlabeled(args: argparse.Namespace) -> int:
    import pandas as pd

    import bayescomp as bc

    test = _read(args.test)
    pool = _read(args.pool)
    y = _column(test, args.label, args.test)
    ts = _column(test, args.score, args.test).astype(float)
    ps = _column(pool, args.pool_score or args.score, args.pool).astype(float)
    res = bc.precision_at_k_unlabeled(ts, y, ps, _class_size(args.class_size),
                                      positive_class=_label(args.positive_class, y))
    print(res)
    if res.best_threshold_range is not None:
        lo, hi = res.best_threshold_range
        print(f"best-F1 threshold over the class-size interval: {lo:.4g} .. {hi:.4g}")
    t = res.table
    ks = np.unique(np.r_[np.linspace(1, len(t), 11).astype(int), res.best_k])
    with pd.option_context("display.width", 200, "display.max_columns", 12):
        print(t.loc[ks].round(4).to_string())
    if args.out:
        t.to_csv(args.out)
        print(f"table written to {args.out}")
    if args.plot:
        _save(res.plot(), args.plot)
    return 0


def register(subparsers: Any) -> None:
    """Add ``interval``, ``curves`` and ``unlabeled`` to the ``bayescomp`` command."""
    p = subparsers.add_parser(
        "interval", help="bootstrap / BLB confidence interval of a metric from a CSV of predictions",
        description="Confidence interval of a metric on one test set (scipy bootstrap, or the "
        "bag of little bootstraps with --blb); with --candidate, the paired difference.",
    )
    p.add_argument("file", help="CSV with one row per test row")
    p.add_argument("--y-true", required=True, help="column of true labels/targets")
    p.add_argument("--pred", required=True,
                   help="column of predictions or scores (the baseline with --candidate)")
    p.add_argument("--candidate", help="second prediction column: paired bootstrap of the "
                   "difference candidate - pred")
    p.add_argument("--metric", default="roc_auc", help="scikit-learn metric name (default roc_auc)")
    p.add_argument("--method", default="bca", choices=("bca", "percentile", "basic"))
    p.add_argument("--n-resamples", type=int, default=2000)
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--stratify", action="store_true", help="resample within each class")
    p.add_argument("--threshold", type=float, help="turn scores into labels at this cut-off")
    p.add_argument("--pos-label", help="positive class (default 1)")
    p.add_argument("--blb", action="store_true", help="bag of little bootstraps (large files)")
    p.add_argument("--gamma", type=float, default=0.7, help="BLB subset size n**gamma")
    p.add_argument("--n-jobs", type=int, help="BLB subsets in parallel")
    p.add_argument("--seed", type=int, help="random seed")
    p.add_argument("--out", help="write the summary table to this CSV")
    p.add_argument("--plot", metavar="FILE.png", help="write the resampling histogram")
    p.set_defaults(func=run_interval)

    c = subparsers.add_parser(
        "curves", help="precision/recall/ROC at fixed thresholds across repetitions, with bands",
        description="Threshold curves from stored out-of-sample predictions (one repetition "
        "id per row): every repetition is evaluated at the same thresholds.",
    )
    c.add_argument("file", help="CSV of predictions: repetition id, true label, score")
    c.add_argument("--y-true", required=True)
    c.add_argument("--score", required=True, help="column of positive-class scores")
    c.add_argument("--repetition", required=True, help="column identifying the repetition")
    c.add_argument("--thresholds", help="START:STOP:NUM or a comma list (default 0:1:101)")
    c.add_argument("--metrics", default="precision,recall,fpr",
                   help="comma list of precision, recall, fpr, specificity, f1, accuracy")
    c.add_argument("--pos-label", help="positive class (default 1)")
    c.add_argument("--kind", default="pr", help="plot: pr, roc, or a metric name vs threshold")
    c.add_argument("--band", default="std", choices=("std", "quantile"))
    c.add_argument("--out", help="write the per-threshold summary to this CSV")
    c.add_argument("--plot", metavar="FILE.png", help="write the curve with its band")
    c.set_defaults(func=run_curves)

    u = subparsers.add_parser(
        "unlabeled", help="recall@k / precision@k on an unlabeled pool with a known class size",
        description="Precision@k on an unlabeled pool estimated from the labeled test set's "
        "recall and the number of class members in the pool (or bounds on it).",
    )
    u.add_argument("--test", required=True, help="CSV of the labeled test set")
    u.add_argument("--pool", required=True, help="CSV of the unlabeled pool")
    u.add_argument("--score", required=True, help="score column (in both files)")
    u.add_argument("--pool-score", help="score column of the pool if named differently")
    u.add_argument("--label", required=True, help="label column of the test file")
    u.add_argument("--class-size", required=True,
                   help="members of the class in the pool: N or LOW:HIGH")
    u.add_argument("--positive-class", help="the class of interest (default 1)")
    u.add_argument("--out", help="write the table indexed by k to this CSV")
    u.add_argument("--plot", metavar="FILE.png", help="write the recall@k vs k plot")
    u.set_defaults(func=run_unlabeled)
