"""The flags several sub-commands share, each defined once, as argparse ``parents=``.

Each function returns a new parent parser (``add_help=False``), so a command that sets
another default changes only its own copy; :func:`arrange_help` lays a command's ``--help``
out in :data:`HELP_GROUPS`.  A help text shows its default with ``%(default)s`` (never a
number written twice).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from bayescomp.cli._backend import add_backend_args
from bayescomp.cli._data import DATA_GROUP, add_data_flags, add_guardrail_flag
from bayescomp.cli._io import output_file
from bayescomp.cli._text import ROPE_HELP, rope_arg


def _parent() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(add_help=False)


def fitting() -> argparse.ArgumentParser:
    """``--data``…, ``--n-splits``, ``--n-repeats``, ``--seed``, ``--n-jobs``, ``--backend``…"""
    p = _parent()
    add_data_flags(p)
    g = p.add_argument_group("the cross-validation design")
    g.add_argument(
        "--n-splits",
        type=counting(2),
        default=10,
        help="folds per repetition (default %(default)s)",
    )
    g.add_argument(
        "--n-repeats",
        type=counting(1),
        default=10,
        help="repetitions of the design (default %(default)s)",
    )
    g.add_argument(
        "--seed", type=int, default=0, help="random_state of the splits (default %(default)s)"
    )
    g.add_argument("--n-jobs", type=int, default=None, help="parallel fits (joblib)")
    g.add_argument(
        "--variance",
        choices=("split", "rows", "gated"),
        help="the correlated t-test's variance: of the split differences (split, the default), "
        "or from each row's out-of-fold scores (rows, gated: docs/per_row_variance.md)",
    )
    add_backend_args(p)
    return p


def counting(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least`` (said with the flag)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"needs a whole number >= {least}, got {text!r}")
        return value

    return parse


def deciding() -> argparse.ArgumentParser:
    """``--rope`` (required), ``--gamma``, ``--higher/lower-is-better``, ``--guardrail``."""
    p = _parent()
    p.add_argument("--rope", type=rope_arg, required=True, help=ROPE_HELP)
    p.add_argument(
        "--force-rope",
        action="store_true",
        help="take a --rope that looks like a mistake (wider than half the metric's range, "
        ">= 100%%, > 2sd) as given",
    )
    p.add_argument(
        "--gamma",
        type=float,
        default=0.95,
        help="posterior probability needed for a decision (default %(default)s)",
    )
    direction = p.add_mutually_exclusive_group()
    direction.add_argument(
        "--higher-is-better",
        dest="higher_is_better",
        action="store_true",
        default=None,
        help="the metric is a score (default: from its name; required for unnamed per-item "
        "scores, --y-true none)",
    )
    direction.add_argument(
        "--lower-is-better",
        dest="higher_is_better",
        action="store_false",
        help="the metric is a loss",
    )
    add_guardrail_flag(p)
    return p


def mcmc() -> argparse.ArgumentParser:
    """``--draws`` and ``--chains`` of the MCMC models (across datasets, Plackett-Luce)."""
    p = _parent()
    p.add_argument(
        "--draws",
        type=int,
        default=None,
        help="MCMC models (several datasets, Plackett-Luce): kept draws per chain "
        "(default: the model's own; compare: 2000)",
    )
    p.add_argument(
        "--chains",
        type=int,
        default=None,
        help="MCMC models: chains (default: the model's own; compare: 4)",
    )
    return p


def scores_csv() -> argparse.ArgumentParser:
    """``--test-fraction`` of a scores CSV without split sizes."""
    p = _parent()
    p.add_argument(
        "--test-fraction",
        type=float,
        help="for CSVs without n_train/n_test columns: n_test/(n_train+n_test)",
    )
    return p


def one_test_set() -> argparse.ArgumentParser:
    """``--predictions`` and the columns of a comparison on one test set (shared by
    ``compare`` and ``select``)."""
    p = _parent()
    g = p.add_argument_group("one test set (--predictions)")
    g.add_argument(
        "--predictions",
        metavar="CSV",
        help="item-level predictions on one test set: a y_true column, one column "
        "per model, optional cluster/item/sample columns",
    )
    g.add_argument(
        "--models",
        type=lambda v: [m.strip() for m in v.split(",") if m.strip()],
        metavar="A,B,C",
        help="the model columns, comma-separated (default: every column but y_true, "
        "--cluster, --item, --sample and --drop)",
    )
    g.add_argument(
        "--cluster",
        metavar="COL",
        help="column of the cluster of each item (passage, customer): whole clusters are resampled",
    )
    g.add_argument(
        "--item",
        metavar="COL",
        help="column of the item id, when an item has "
        "several rows (repeated samples): scores are averaged within the item",
    )
    g.add_argument(
        "--sample",
        metavar="COL",
        help="column numbering the repeated samples of "
        "an item (checked: one row per item and sample); needs --item",
    )
    g.add_argument(
        "--y-true",
        default="y_true",
        metavar="COL",
        help="column of the true labels (default %(default)s); 'none' when the model "
        "columns already hold per-item scores",
    )
    g.add_argument(
        "--threshold",
        type=float,
        help="turn probabilities or scores into labels (score >= threshold is 1) for "
        "accuracy/error_rate/f1/precision/recall",
    )
    g.add_argument(
        "--posterior-draws",
        type=int,
        default=4000,
        metavar="N",
        help="posterior draws of the difference (default %(default)s)",
    )
    return p


def output(formats: tuple[str, ...] = ()) -> argparse.ArgumentParser:
    """``--json``, ``--quiet``, ``--comment-file`` and ``--format`` (of ``formats``)."""
    p = _parent()
    if formats:
        help_ = "output on stdout (markdown: the pull-request comment, docs/testing.md)"
        p.add_argument("--format", choices=formats, default="table", help=help_)
    p.add_argument("--json", action="store_true", help="machine-readable output (JSON)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no sampler log lines")
    p.add_argument(
        "--comment-file",
        type=output_file("comment.md"),
        help="also write the decision as a pull-request comment (Markdown, docs/testing.md)",
    )
    return p


#: the groups of ``select --help`` and ``compare --help``, in order, each with the flags
#: (dests) it shows; a group named as one a parent defines takes that group's place
HELP_GROUPS: dict[str, tuple[str, ...]] = {
    "essential": (
        *("help", "source", "inputs", "data", "dataset", "target", "baseline", "candidate"),
        *("metric", "rope", "gamma", "fail_unless", "store", "report"),
    ),
    DATA_GROUP: ("groups", "drop", "time", "time_format", "gap", "task", "pos_label"),
    "the cross-validation design": ("max_repeats", "order"),
    "the decision": (
        *("higher_is_better", "guardrail", "rule", "method", "test_fraction", "on_error"),
    ),
    "output": ("format", "json", "quiet", "comment_file", "save_scores", "plot", "plots"),
    "MCMC (models across datasets)": ("draws", "chains"),
}


def arrange_help(parser: argparse.ArgumentParser) -> None:
    """Show ``parser``'s flags under :data:`HELP_GROUPS`, essential first (only ``--help``
    changes: a flag's group is its place in the help text, nothing else)."""
    titled = {g.title: g for g in parser._action_groups}
    ordered = []
    for title, dests in HELP_GROUPS.items():
        group = titled.get(title) or parser.add_argument_group(title)
        for dest in dests:
            for other in parser._action_groups:
                if other is not group:
                    group._group_actions += [a for a in other._group_actions if a.dest == dest]
                    other._group_actions[:] = [a for a in other._group_actions if a.dest != dest]
        ordered.append(group)
    parser._action_groups[:] = ordered + [g for g in parser._action_groups if g not in ordered]
