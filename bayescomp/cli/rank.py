"""``bayescomp rank``: many models across datasets, from a scores CSV.

::

    bayescomp rank scores.csv --metric accuracy --method plackett_luce --latex ranks.tex \\
        --plot ranks.png
    bayescomp rank scores.csv --metric roc_auc --method pairwise --rope 0.005 --json

``plackett_luce`` (the default with several datasets): one Bayesian Plackett–Luce fit of
the per-dataset rankings — P(best), expected ranks and a critical-difference-style diagram
(PyMC: ``pip install 'bayescomp[mcmc]'``).  ``pairwise`` (the default on one dataset): every
model against every other with the posterior of ``compare``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bayescomp.cli import _parents
from bayescomp.cli._text import DefaultsHelp

METHODS = ("plackett_luce", "pairwise")


#: more models than this: every output shows each model against the next one only (every
#: ordered pair is k (k - 1) rows: a million, some 300 MB of JSON, at k = 1,000), unless
#: --all-pairs
MAX_ALL_PAIRS_SHOWN = 30


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "rank",
        parents=[_parents.scores_csv(), _parents.mcmc(), _parents.output()],
        help="rank many models across datasets (Plackett-Luce) or pair by pair",
        description="Rank every model of a scores CSV (one row per dataset, model and split): "
        "a joint Bayesian Plackett-Luce ranking across datasets, or every pair "
        "with the posterior of compare.",
        formatter_class=DefaultsHelp,
    )
    p.add_argument(
        "scores",
        metavar="SCORES.csv",
        help="per-split scores (dataset, model, split, n_train, n_test and one column per metric)",
    )
    p.add_argument("--metric", help="the metric column to rank on (default: the only one)")
    p.add_argument(
        "--method",
        choices=METHODS,
        default=None,
        help="plackett_luce (default with several datasets) or pairwise (default on one dataset)",
    )
    p.add_argument(
        "--rope",
        type=float,
        default=0.0,
        help="pairwise: half-width of the region of practical equivalence",
    )
    p.add_argument(
        "--gamma",
        type=float,
        default=0.95,
        help="posterior probability needed for a decision (default 0.95)",
    )
    p.add_argument("--dataset", help="rank on this dataset of the table only")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampler (default 0)")
    p.add_argument("--latex", metavar="FILE", help="write the ranking as a LaTeX table")
    p.add_argument(
        "--all-pairs",
        action="store_true",
        help=f"pairwise with more than {MAX_ALL_PAIRS_SHOWN} models: every ordered pair in the "
        "text, --json and --latex (default: each model against the next in the ranking)",
    )
    p.add_argument(
        "--plot",
        metavar="PNG",
        help="write the ranking's figure (Plackett-Luce: "
        "the critical-difference-style diagram; pairwise: P(row better) heatmap)",
    )
    p.set_defaults(func=run)


def _table(res: Any, method: str, gamma: float, adjacent: bool = False) -> Any:
    if method == "plackett_luce":
        return res.summary().reset_index()
    table = res.summary(gamma, adjacent=adjacent)
    table.insert(1, "mean", table["model"].map(res.mean))
    return table


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from bayescomp.cli.main import UserError
    from bayescomp.decision.ranking import rank
    from bayescomp.scores.table import Scores

    if args.comment_file:
        raise UserError(
            "--comment-file writes the pull-request comment of a decision (compare, select); "
            "a ranking decides nothing to comment on: drop --comment-file, or use --json or --latex"
        )
    scores = Scores.read_csv(args.scores, test_fraction=args.test_fraction)
    many = args.dataset is None and len(scores.datasets) > 1
    method = args.method or ("plackett_luce" if many else "pairwise")
    options = {k: v for k, v in (("draws", args.draws), ("chains", args.chains)) if v is not None}
    kwargs: dict[str, Any] = dict(metric=args.metric, dataset=args.dataset, method=method)
    res = rank(scores, rope=args.rope, random_state=args.seed, **kwargs, **options)
    short = not args.all_pairs and len(res.models) > MAX_ALL_PAIRS_SHOWN
    table = _table(res, method, args.gamma, adjacent=short and method == "pairwise")
    metric = res.metric or args.metric or "score"
    if args.latex:
        text = (
            res.to_latex(caption=f"Ranking on {metric}")
            if method == "plackett_luce"
            else table.to_latex(index=False, float_format="%.3f")
        )
        with open(args.latex, "w", encoding="utf-8") as fh:
            fh.write(text)
    if args.plot:
        ax = res.plot(args.gamma) if method == "plackett_luce" else res.plot("p_better")
        ax.figure.savefig(args.plot, dpi=110, bbox_inches="tight")
    if args.json:
        out = {
            "method": method,
            "metric": metric,
            **({"sampler": res.sampler} if method == "plackett_luce" else {}),
            **({"pairs": "adjacent" if short else "all"} if method == "pairwise" else {}),
            "rows": json.loads(table.to_json(orient="records", double_precision=15)),
        }
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    from bayescomp.core.text import terminal_literal

    how = method
    if method == "plackett_luce":  # the sampler that ran, and whether its chains converged
        how += f", sampler {res.sampler}, " + (
            "converged" if res.converged else f"NOT converged: {res.convergence_problems}"
        )
    print(f"ranking of {len(res.models)} models on {terminal_literal(metric)} ({how})\n")
    if method == "pairwise":  # a probability never reads as if it crossed gamma by rounding
        from bayescomp.core.regions import format_probability

        for c in ("p_better", "p_left", "p_rope", "p_right"):
            table[c] = table[c].map(lambda v: format_probability(v, args.gamma))
    if short and method == "pairwise":
        print(
            f"each model against the next one in the ranking ({len(table)} of "
            f"{len(res.models) * (len(res.models) - 1)} ordered pairs; --all-pairs for every one)\n"
        )
    with pd.option_context(
        "display.width", 160, "display.max_columns", 20, "display.float_format", "{:.3f}".format
    ):
        for line in table.to_string(index=False).splitlines():
            print(terminal_literal(line))
    for path in (args.latex, args.plot):
        if path:
            print(f"wrote {path}")
    return 0
