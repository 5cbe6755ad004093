"""``--data PATH --target COL [--groups COL] [--drop COL…] [--time COL --gap N] [--task T]``:
the flags of ``select`` and ``compare`` that fit the models on the user's own table.

:func:`add_data_flags` adds them to a sub-command; :func:`own_data` reads the table
(:func:`bayescomp.scores.tabular.read_table`) and builds its design: grouped (and
stratified where the classes allow) repeated k-fold with ``--groups``, an expanding
window with ``--time`` (``TimeSeriesSplit`` with ``--gap``), else repeated (stratified)
k-fold.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from bayescomp.cli.main import UserError

TASKS = ("binary", "multiclass", "regression")
DATA_GROUP = "your own data (CSV, .csv.gz, Parquet or Feather)"
_DATA_ONLY = ("target", "groups", "time", "time_format", "task", "pos_label")


def add_data_flags(p: argparse.ArgumentParser) -> None:
    """The data flags, in their own group of ``--help``."""
    g = p.add_argument_group(DATA_GROUP)
    g.add_argument(
        "--data",
        metavar="PATH",
        help="fit the models on this table instead of a built-in --dataset",
    )
    g.add_argument("--target", metavar="COL", help="the column to predict (with --data)")
    g.add_argument(
        "--groups",
        metavar="COL",
        help="group ids (e.g. customer): no group is in both training and test",
    )
    g.add_argument(
        "--drop",
        metavar="COL,COL",
        type=lambda text: [c for c in text.split(",") if c],
        action="extend",
        default=[],
        help="columns that are not features (ids, leaks), comma-separated; repeatable",
    )
    g.add_argument(
        "--time",
        metavar="COL",
        help="time-ordered design: sort by COL and test on --n-splits expanding "
        "windows (TimeSeriesSplit; with --groups, windows of whole groups that follow "
        "each other in time, e.g. weeks); COL is not a feature",
    )
    g.add_argument(
        "--time-format",
        metavar="FMT",
        help="strptime format of a --time column of text dates that are not ISO 8601 "
        "(e.g. '%%d/%%m/%%Y %%H:%%M'); numbers and ISO dates need none",
    )
    g.add_argument(
        "--gap",
        type=int,
        default=0,
        help="with --time: rows (with --groups: whole groups) left out between each "
        "training window and its test window",
    )
    g.add_argument("--task", choices=TASKS, help="override the task inferred from the target")
    g.add_argument(
        "--pos-label",
        metavar="LABEL",
        help="the positive class of a binary target with text labels (e.g. yes)",
    )


@dataclass(frozen=True)
class OwnData:
    """A data set model files are fitted on (the user's table, or a built-in one) and its
    design, as ``select``/``compare`` need them."""

    X: Any
    y: Any
    groups: Any
    cv: Any
    name: str
    sklearn_task: str  # classification / regression (bayescomp.scores.datasets)

    @property
    def default_metric(self) -> str:
        from bayescomp.scores.datasets import default_metric

        return default_metric(self.y, self.sklearn_task)


def fit_datasets(args: argparse.Namespace, names: list[str]) -> list[OwnData]:
    """What model files are fitted on: the table of ``--data``, or each built-in dataset of
    ``names`` on the repeated k-fold design of ``--n-splits/--n-repeats/--seed``."""
    from bayescomp.scores.datasets import load_dataset
    from bayescomp.splits.repeats import default_cv

    own = own_data(args)
    if own is not None:
        return [own]
    if not names:
        raise UserError(
            "model files need --dataset NAME (breast_cancer, wine, iris, digits, diabetes) "
            "or --data PATH --target COL (your table); or give a scores CSV instead"
        )
    design = dict(n_splits=args.n_splits, n_repeats=args.n_repeats, random_state=args.seed)
    out = []
    for name in dict.fromkeys(names):
        X, y, task = load_dataset(name)
        out.append(OwnData(X, y, None, default_cv(y, **design), name, task))
    return out


def own_data(args: argparse.Namespace) -> OwnData | None:
    """The table of ``--data`` with its design, or None without ``--data``."""
    if getattr(args, "data", None) is None:
        given = (
            [f"--{k}" for k in _DATA_ONLY if getattr(args, k, None)]
            + (["--drop"] if getattr(args, "drop", None) else [])
            + (["--gap"] if getattr(args, "gap", 0) else [])
        )
        if given:
            raise UserError(
                f"{', '.join(given)} describe the columns of --data PATH; pass --data with them"
            )
        return None
    if getattr(args, "dataset", None):
        raise UserError(
            "give --data PATH (your table) or --dataset NAME (a built-in one), not both"
        )
    if not args.target:
        raise UserError(f"--data {args.data} needs --target COL: the column to predict")
    if args.gap and not args.time:
        raise UserError("--gap is the gap of a time-ordered design; pass --time COL with it")
    if getattr(args, "time_format", None) and not args.time:
        raise UserError("--time-format is the format of the --time column; pass --time COL")
    if args.gap < 0:
        raise UserError(f"--gap must be >= 0, got {args.gap}")
    from bayescomp.scores.tabular import read_table

    table = read_table(
        args.data,
        target=args.target,
        groups=args.groups,
        drop=args.drop,
        time=args.time,
        task=args.task,
        n_splits=args.n_splits,
        time_format=getattr(args, "time_format", None),
        pos_label=getattr(args, "pos_label", None),
    )
    cv = _design(table, args)
    _check_folds(cv, table, args)
    return OwnData(
        table.X,
        table.y,
        table.groups,
        cv,
        table.name,
        "regression" if table.task == "regression" else "classification",
    )


def _check_folds(cv: Any, table: Any, args: argparse.Namespace) -> None:
    """Say now what the design cannot do, before any fit blames a model: a group on both
    sides of a time window's start, or a fold whose training (or, for ranking metrics, test)
    rows hold one class of the target."""
    import numpy as np

    design = " with ".join(
        f"--{k} {getattr(args, k)}" for k in ("groups", "time") if getattr(args, k)
    )
    ranking = (getattr(args, "metric", None) or "roc_auc").startswith(
        ("roc_auc", "average_precision", "neg_log")
    )
    try:
        for i, (train, test) in enumerate(cv.split(table.X, table.y, table.groups)):
            for rows, part in ((train, "training"), (test, "test") if ranking else ((), "")):
                if table.task != "regression" and len(rows) and len(np.unique(table.y[rows])) < 2:
                    raise UserError(
                        f"split {i}: its {part} rows hold one class of the target "
                        f"{args.target!r}: the split design ({design or 'k-fold'}, --n-splits "
                        f"{args.n_splits}) cannot score it; use fewer folds (--n-splits) or "
                        "other groups"
                    )
    except ValueError as exc:  # scikit-learn's splitter: said for this design and table
        what = design or f"{args.n_splits}-fold cross-validation of {len(table.y)} rows"
        raise UserError(f"{what}: {exc}") from None


def _design(table: Any, args: argparse.Namespace) -> Any:
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold, TimeSeriesSplit

    from bayescomp.splits.group import GroupTimeSeriesSplit, RepeatedGroupKFold

    classes = table.task != "regression"
    if args.time:
        if getattr(args, "max_repeats", 0):
            raise UserError(
                "--max-repeats adds shuffled repetitions; a time-ordered design "
                "(--time) has one order: drop --max-repeats"
            )
        if args.groups:
            return GroupTimeSeriesSplit(n_splits=args.n_splits, gap=args.gap)
        return TimeSeriesSplit(n_splits=args.n_splits, gap=args.gap)
    if args.groups:
        return RepeatedGroupKFold(
            n_splits=args.n_splits,
            n_repeats=args.n_repeats,
            random_state=args.seed,
            stratify=classes,
        )
    cls = RepeatedStratifiedKFold if classes else RepeatedKFold
    return cls(n_splits=args.n_splits, n_repeats=args.n_repeats, random_state=args.seed)


def add_guardrail_flag(p: argparse.ArgumentParser) -> None:
    """``--guardrail METRIC:ROPE`` (repeatable) of ``select`` and ``compare``."""
    p.add_argument(
        "--guardrail",
        action="append",
        default=[],
        metavar="METRIC:ROPE",
        help="a metric the candidate must not be worse on beyond ROPE (e.g. "
        "neg_log_loss:0.01 or fit_time:0.5); repeatable. Promotion then needs "
        "P(better beyond --rope and every guardrail held) >= gamma: the "
        "joint probability p_joint",
    )


def parse_guardrails(values: list[str], *, fitted: bool = False) -> dict[str, Any]:
    """``["neg_log_loss:0.01", …]`` -> ``{"neg_log_loss": Absolute(0.01), …}``, each ROPE
    parsed by ``--rope``'s parser (checked at the library's door), or a one-line error;
    ``fitted``: each metric must be a scikit-learn scorer name (or a fit/score time)."""
    from bayescomp.cli._text import rope_arg

    out: dict[str, Any] = {}
    for text in values:
        metric, _, rope = text.partition(":")
        if metric in out:
            raise UserError(f"--guardrail {metric!r} is given twice; give each metric once")
        try:
            if not metric:
                raise argparse.ArgumentTypeError("no metric")
            out[metric] = rope_arg(rope)
        except argparse.ArgumentTypeError:
            raise UserError(
                f"--guardrail {text!r}: METRIC:ROPE expected, with a finite ROPE >= 0, e.g. "
                "--guardrail neg_log_loss:0.01"
            ) from None
        if fitted and metric not in TIMINGS:
            from bayescomp.scores.crossval import resolve_scorers

            try:
                resolve_scorers(metric)
            except ValueError as exc:
                why = str(exc).split(" or a callable")[0]
                raise UserError(f"--guardrail {text!r}: {why}, or fit_time / score_time") from None
    return out


TIMINGS = ("fit_time", "score_time")
