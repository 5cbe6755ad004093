"""``bayescomp compare --predictions preds.csv``: two or more models on one test set.

The CSV has a ``y_true`` column, one column of predictions per model and optional cluster,
item and sample columns (``--cluster``, ``--item``, ``--sample``)::

    bayescomp compare --predictions preds.csv --baseline A --candidate B --metric accuracy \\
        --rope 0.01 --cluster passage
"""

from __future__ import annotations

import argparse
import contextlib
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

from bayescomp.cli._io import emit, parse_label, read_csv
from bayescomp.cli._text import INTERVAL_COLUMNS, aligned, comparison_row, rope_arg, rope_note
from bayescomp.cli.main import UserError
from bayescomp.core.text import terminal_literal


def add_slice_flags(p: argparse.ArgumentParser) -> None:
    """``--slice COL --slice-rope R --slice-gamma G``: the slice guardrail (docs/slices.md)."""
    g = p.add_argument_group("slice guardrail (--predictions, or select's scores CSV)")
    g.add_argument("--slice", metavar="COL", help="each item's slice column; needs bayescomp[mcmc]")
    g.add_argument("--slice-rope", type=rope_arg, metavar="R", help="largest loss on one slice")
    g.add_argument(
        "--slice-gamma",
        type=float,
        default=0.5,
        metavar="G",
        help="required P(no slice worse beyond --slice-rope) (default %(default)s)",
    )


def slice_options(args: argparse.Namespace, scores: bool = False) -> dict[str, Any]:
    """``compare_options`` of ``--slice``/``--slice-rope``/``--slice-gamma`` (none without):
    the slice column of a ``--predictions`` CSV, or of a scores CSV (``scores``)."""
    if (args.slice or args.slice_rope) and not ((args.predictions or scores) and args.slice):
        raise UserError(
            "--slice COL --slice-rope R read the slice column of a --predictions CSV (one test "
            "set) or of select's scores CSV; give both with one of them"
        )
    given = {"slices": args.slice, "slice_rope": args.slice_rope, "slice_gamma": args.slice_gamma}
    return given if args.slice else {}


#: how the slice fit's retries begin: ``--quiet`` leaves them out (whether the slices
#: converged in the end is still said, by a warning and in the decision)
_RETRY = "hierarchical fit, attempt"


@contextlib.contextmanager
def quiet_retries(args: argparse.Namespace) -> Iterator[None]:
    """The slice fit's retry warnings: shown, or left out under ``--quiet``."""
    from bayescomp.core.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        if args.quiet:
            warnings.filterwarnings("ignore", message=_RETRY, category=ConvergenceWarning)
        yield


def read_predictions(args: argparse.Namespace) -> tuple[Any, dict[str, Any], list[str]]:
    """The predictions table, the column options, and its model columns."""
    from bayescomp.posterior.predictions import prediction_models

    table = read_csv(args.predictions)  # two columns of one name refused (read_frame)
    y_true = None if str(args.y_true).lower() == "none" else args.y_true
    columns = {"y_true": y_true, "cluster": args.cluster, "item": args.item, "sample": args.sample}
    for what, name in (columns | {"slice": args.slice}).items():
        if name is not None and name not in table.columns:
            raise UserError(
                f"--{what.replace('_', '-')} column {name!r} is not in "
                f"{args.predictions}; columns are {[str(c) for c in table.columns]}"
            )
    others = [str(c) for c in table.columns if c not in [*columns.values(), args.slice]]
    if not args.baseline:
        raise UserError(f"name the --baseline (model columns: {others})")
    if args.baseline not in others:
        raise UserError(
            f"--baseline {args.baseline!r} is not a model column of "
            f"{args.predictions}; model columns: {others}"
        )
    drop = [*(args.drop or ()), *([args.slice] if args.slice else [])]
    models = prediction_models(table, **columns, models=args.models, drop=drop)
    if len(models) < 2:
        raise UserError(
            f"{args.predictions} needs at least two model columns besides "
            f"{[v for v in columns.values() if v]}; it has {models}"
        )
    return table, columns, models


def prediction_options(
    args: argparse.Namespace, table: Any, columns: Mapping[str, str | None]
) -> dict[str, Any]:
    """The options of a comparison on the predictions table, as ``compare --predictions``
    and ``select --predictions`` pass them: its columns, ``--seed``, ``--posterior-draws``,
    the slice guardrail, ``--threshold`` and ``--pos-label`` (parsed to the label column's
    type)."""
    options = dict(columns, random_state=args.seed, draws=args.posterior_draws)
    options |= slice_options(args) | {"threshold": args.threshold}
    if args.pos_label is not None and columns["y_true"] is not None:
        options["pos_label"] = parse_label(args.pos_label, table[columns["y_true"]].to_numpy())
    return options


def compare_all(
    args: argparse.Namespace,
    table: Any,
    columns: Mapping[str, str | None],
    baseline: str,
    candidates: list[str],
) -> list[Any]:
    """One posterior per candidate against ``baseline``."""
    from bayescomp.posterior.compare import compare

    metric = (
        args.metric
        if args.metric is not None
        else ("accuracy" if columns["y_true"] is not None else None)
    )
    options = prediction_options(args, table, columns)
    return [
        compare(
            table,
            baseline,
            c,
            metric=metric,
            rope=args.rope,
            higher_is_better=args.higher_is_better,
            **options,
        )
        for c in candidates
    ]


def run_predictions(args: argparse.Namespace) -> int:
    """``compare --predictions``: print (or write as JSON) one line per candidate."""
    slice_options(args)
    if args.inputs:
        raise UserError(
            "--predictions reads one CSV of item-level predictions; give no other INPUT"
        )
    table, columns, models = read_predictions(args)
    candidates = args.candidate or [m for m in models if m != args.baseline]
    with quiet_retries(args):
        results = compare_all(args, table, columns, args.baseline, candidates)
    decisions = [r.decision(args.gamma) for r in results]
    return emit(
        args,
        decisions,
        lambda: [
            r.to_dict(gamma=args.gamma) | {"reason": d.reason, "gamma": d.gamma}
            for r, d in zip(results, decisions, strict=True)
        ],
        lambda: format_holdout(results, decisions, args.rope),
        results,
        figure=lambda r: r.plot().figure,
    )


def _companions(r: Any) -> str:
    parts = []
    f = r.frequentist
    if "mcnemar" in f:
        m = f["mcnemar"]
        parts.append(
            f"McNemar exact p = {m.pvalue_exact:.3g}, mid-p = {m.pvalue_midp:.3g} "
            f"({m.only_candidate} items only {r.candidate_name} right, "
            f"{m.only_baseline} only {r.baseline_name})"
        )
    if "delong" in f:
        kind = "clustered paired DeLong" if r.n_clusters else "paired DeLong"
        parts.append(
            f"{kind} p = {f['delong'].pvalue:.3g}, 95% CI "
            f"[{f['delong'].low:+.4f}, {f['delong'].high:+.4f}]"
        )
    if "standard_error" in f:
        kind = "cluster-robust SE" if r.n_clusters else "SE"
        parts.append(f"{kind} of the mean difference {f['standard_error']:.4g}")
    return "; ".join(parts)


def format_holdout(results: list[Any], decisions: list[Any], margin: Any) -> str:
    """Fixed-width table of comparisons on one test set, then the design and the reasons
    (``margin``: the ROPE as given, each candidate's half-width in its reason)."""
    from bayescomp.core.margins import Absolute
    from bayescomp.posterior.slices import worse_text

    r0 = results[0]
    same = len({r.half_width for r in results}) == 1
    rope = (
        margin.label(r0.half_width, reference=r0.baseline_score)
        if same
        else f"{margin.label()} (per candidate, in its reason)"
    )
    design = f"   clusters: {r0.n_clusters}" if r0.n_clusters else ""
    if r0.n_rows != r0.n_items:
        design += f"   rows: {r0.n_rows}"
    head = (
        f"baseline: {r0.baseline_name} ({r0.metric}: {r0.baseline_score:.4f})   "
        f"metric: {r0.metric}   rope: {rope}   items: {r0.n_items}{design}"
    )
    cols = ["candidate", r0.metric or "score", "posterior mean", *INTERVAL_COLUMNS]
    rows = [
        comparison_row(r, d, f"{r.candidate_score:.4f}", r.expected_gain, r.hdi(0.95), d.gamma)
        for r, d in zip(results, decisions, strict=True)
    ]
    lines = [head, "", *aligned(rows, cols, gap="  "), "", rope_note(margin), ""]
    for r, d in zip(results, decisions, strict=True):
        lines.append(f"  {r.candidate_name}: {d.reason}")
        extra = []
        if r.design_effect is not None:
            extra.append(
                f"design effect {r.design_effect:.2f} (the clustering makes the interval "
                f"{r.interval_widening:.2f}x as wide as a cluster-blind one)"
            )
        if r.within_item_share is not None:
            extra.append(f"within-item share of the variance {r.within_item_share:.2f}")
        s = r.guards().get("slices")
        if s is not None:
            extra.append(
                f"slices: P(no slice worse beyond {Absolute(s.rope).label()}) = "
                f"{s.p_no_slice_worse:.3f} "
                f"(required {s.slice_gamma:g}); {worse_text(s.worst_slice)}"
            )
        companions = _companions(r)
        if companions:
            extra.append(companions)
        lines += [f"    {e}" for e in extra]
    return "\n".join(map(terminal_literal, lines))
