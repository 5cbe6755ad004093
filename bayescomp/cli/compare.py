"""``bayescomp compare``: one baseline against one or more candidates.

Two ways in::

    bayescomp compare --dataset breast_cancer models/logistic_regression.py models/random_forest.py
    bayescomp compare scores.csv --baseline logreg --candidate forest --metric accuracy --json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bayescomp.cli._backend import add_backend_args, fit_options, on_backend
from bayescomp.cli._io import output_file
from bayescomp.cli._text import ROPE_HELP, rope_note
from bayescomp.cli.main import UserError
from bayescomp.cli.predictions import add_arguments as add_prediction_arguments
from bayescomp.core.regions import format_probability as _fp
from bayescomp.core.rule import OUTCOMES
from bayescomp.core.text import terminal_literal


def register(sub: Any) -> None:
    p = sub.add_parser(
        "compare",
        help="compare a candidate with a baseline (scores CSV, or paired CV on built-in data)",
        description=(
            "Bayesian comparison of a baseline and candidate(s). Give a scores CSV (one row per "
            "dataset/model/split), or --dataset NAME and model files: the first file is the "
            "baseline unless --baseline says otherwise, every other file is a candidate."
        ),
    )
    p.add_argument("inputs", nargs="*", metavar="INPUT",
                   help="a scores CSV, or two or more model files (*.py defining `model = ...`); "
                   "none with --predictions")
    p.add_argument("--dataset", help="built-in dataset for model files (breast_cancer, wine, "
                   "iris, digits, diabetes); with a CSV, the dataset of the table to compare on")
    p.add_argument("--baseline", help="baseline model name, or a number: a performance goal p*")
    p.add_argument("--candidate", action="append",
                   help="candidate model name (repeatable; default: every other model)")
    p.add_argument("--metric", help="metric (scikit-learn scorer name for model files; a column "
                   "of the CSV); default roc_auc for classification, r2 for regression, or the "
                   "CSV's only metric")
    p.add_argument("--rope", type=float, required=True, help=ROPE_HELP)
    p.add_argument("--gamma", type=float, default=0.95, help="posterior probability needed for "
                   "a decision (default 0.95)")
    direction = p.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher_is_better", action="store_true",
                           default=None, help="the metric is a score (default: from its name)")
    direction.add_argument("--lower-is-better", dest="higher_is_better", action="store_false",
                           help="the metric is a loss")
    p.add_argument("--test-fraction", type=float,
                   help="for CSVs without n_train/n_test columns: n_test/(n_train+n_test)")
    p.add_argument("--n-splits", type=int, default=10, help="folds per repetition (default 10)")
    p.add_argument("--n-repeats", type=int, default=10, help="repetitions (default 10)")
    p.add_argument("--seed", type=int, default=0, help="seed of the splits (default 0)")
    p.add_argument("--n-jobs", type=int, default=None, help="parallel fits (joblib)")
    add_backend_args(p)
    p.add_argument("--save-scores", type=output_file("scores.csv"), metavar="CSV", help="write the per-split scores to a CSV")
    p.add_argument("--method", default="auto",
                   choices=("auto", "ttest", "hierarchical", "signed_rank", "sign"),
                   help="ttest on one dataset; hierarchical (default for several datasets), "
                   "signed_rank or sign across datasets")
    p.add_argument("--draws", type=int, default=2000,
                   help="hierarchical model: kept MCMC draws per chain (default 2000)")
    p.add_argument("--chains", type=int, default=4,
                   help="hierarchical model: MCMC chains (default 4)")
    p.add_argument("--plot", type=output_file("plot.png"), metavar="PNG", help="write the posterior plot (one candidate)")
    p.add_argument("--plots", metavar="DIR", help="write every plot of every comparison as PNG "
                   "files into DIR (posterior; across datasets also simplex, forest, trace)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--fail-unless", choices=OUTCOMES, metavar="OUTCOME",
                   help="exit with status 1 unless every decision is OUTCOME (e.g. promote), "
                   "for CI gates")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_prediction_arguments(p)
    p.set_defaults(func=run)


def _scores_from_models(args: argparse.Namespace) -> tuple[Any, str, list[str], str]:
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    from bayescomp.scores.crossval import cross_validate_paired
    from bayescomp.scores.datasets import check_task, load_dataset
    from bayescomp.scores.model_files import load_models

    if not args.dataset:
        raise UserError("model files need --dataset NAME (breast_cancer, wine, iris, digits, "
                        "diabetes); or give a scores CSV instead")
    if len(args.inputs) < 2:
        raise UserError("give at least two model files: a baseline and a candidate")
    X, y, task = load_dataset(args.dataset)
    specs = load_models(args.inputs, on_error="raise")
    check_task({n: s.estimator for n, s in specs.items()}, task, args.dataset)
    names = list(specs)
    baseline = args.baseline or names[0]
    if baseline not in specs:
        raise UserError(f"--baseline {baseline!r} is not one of the model files {names}")
    candidates = args.candidate or [n for n in names if n != baseline]
    for c in candidates:
        if c not in specs:
            raise UserError(f"--candidate {c!r} is not one of the model files {names}")
    metric = args.metric or ("roc_auc" if task == "classification" else "r2")
    if metric == "roc_auc" and task == "classification" and len(set(y)) > 2:
        metric = "roc_auc_ovr"
    splitter = RepeatedStratifiedKFold if task == "classification" else RepeatedKFold
    cv = splitter(n_splits=args.n_splits, n_repeats=args.n_repeats, random_state=args.seed)
    models = {n: specs[n].estimator for n in [baseline, *candidates]}
    with on_backend(args):
        scores = cross_validate_paired(models, X, y, cv=cv, scoring=metric, n_jobs=args.n_jobs,
                                       progress=not args.quiet, dataset=args.dataset,
                                       **fit_options(args))
    return scores, baseline, candidates, metric


def _scores_from_csv(args: argparse.Namespace) -> tuple[Any, Any, list[str], str | None]:
    from bayescomp.scores.table import Scores

    scores = Scores.read_csv(args.inputs[0], test_fraction=args.test_fraction)
    if not args.baseline:
        raise UserError(f"with a scores CSV, name the --baseline (models: {scores.models})")
    baseline: Any = args.baseline
    if baseline not in scores.models:  # not a model: a performance goal p*, if a number
        try:
            baseline = float(args.baseline)
        except ValueError:
            raise UserError(f"--baseline {args.baseline!r} is neither a model of the table "
                            f"{scores.models} nor a number (a performance goal)") from None
    candidates = args.candidate or [m for m in scores.models if m != baseline]
    return scores, baseline, candidates, args.metric


def run(args: argparse.Namespace) -> int:
    from bayescomp.posterior.compare import compare

    if args.predictions:
        if args.inputs:
            raise UserError("--predictions reads one CSV of item-level predictions; give no "
                            "other INPUT")
        from bayescomp.cli.predictions import run_predictions

        return run_predictions(args)
    if not args.inputs:
        raise UserError("give a scores CSV, model files, or --predictions CSV")
    is_csv = len(args.inputs) == 1 and Path(args.inputs[0]).suffix.lower() in (".csv", ".txt")
    if is_csv:
        scores, baseline, candidates, metric = _scores_from_csv(args)
        dataset = args.dataset
    else:
        scores, baseline, candidates, metric = _scores_from_models(args)
        dataset = None
    if not candidates:
        raise UserError("no candidate to compare with the baseline")
    if args.save_scores:
        scores.to_csv(args.save_scores)
    options: dict[str, Any] = {}
    many = dataset is None and len(scores.datasets) > 1
    method = args.method if args.method != "auto" else ("hierarchical" if many else "ttest")
    if method == "hierarchical":
        options = {"draws": args.draws, "chains": args.chains}
    results = [
        compare(scores, baseline, c, metric=metric, rope=args.rope, dataset=dataset,
                higher_is_better=args.higher_is_better, method=method,
                random_state=args.seed if method != "ttest" else None, **options)
        for c in candidates
    ]
    decisions = [r.decision(args.gamma) for r in results]
    if args.plot:
        if len(results) != 1:
            raise UserError("--plot draws one comparison; name one --candidate")
        ax = results[0].plot()
        ax.figure.savefig(args.plot, dpi=110)
    if args.plots:
        written = write_plots(results, Path(args.plots))
        if not args.json:
            print(f"wrote {len(written)} plot(s) to {args.plots}", file=sys.stderr)
    if args.json:
        out = [_json_record(r, d, args.gamma, method)
               for r, d in zip(results, decisions, strict=True)]
        json.dump(out if len(out) > 1 else out[0], sys.stdout, indent=2)
        print()
    elif method == "ttest":
        print(format_table(results, decisions))
    else:
        means = scores.mean(results[0].metric).mean(axis=0)  # per model, over datasets
        print(format_across(results, decisions, method, means.to_dict()))
    if args.fail_unless and any(d.outcome != args.fail_unless for d in decisions):
        return 1
    return 0


def _plain(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


def _json_record(r: Any, d: Any, gamma: float, method: str) -> dict[str, Any]:
    from bayescomp.posterior.ttest import CorrelatedTTestResult

    if isinstance(r, CorrelatedTTestResult):
        row = r.summary(gamma=gamma).iloc[0].to_dict()
        row["method"] = method
    else:
        table = r.summary(gamma=gamma).set_index("quantity")
        row = {"baseline": r.baseline_name, "candidate": r.candidate_name, "metric": r.metric,
               "method": method, "rope": float(r.rope), "n_datasets": r.n_datasets,
               "p_left": r.p_left, "p_rope": r.p_rope, "p_right": r.p_right,
               "p_better": r.p_better,
               "probabilities": {q: {k: _plain(table.loc[q, k]) for k in
                                     ("p_left", "p_rope", "p_right")} for q in table.index}}
        if hasattr(r, "diagnostics_summary"):
            row["diagnostics"] = {k: _plain(v) for k, v in r.diagnostics_summary().items()}
    row.update(decision=d.outcome, reason=d.reason, risk=d.risk, expected_gain=d.expected_gain,
               gamma=d.gamma)
    return {k: _plain(v) for k, v in row.items()}


def write_plots(results: list[Any], folder: Path) -> list[Path]:
    """Every plot of every result as PNG files named ``<candidate>_vs_<baseline>_<kind>.png``."""
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for r in results:
        stem = f"{r.candidate_name}_vs_{r.baseline_name}".replace(" ", "_").replace("/", "_")
        kinds = [k for k in ("plot_posterior", "plot_simplex", "plot_forest", "plot_trace")
                 if hasattr(r, k)] or ["plot"]
        for kind in kinds:
            out = getattr(r, kind)()
            fig = out.ravel()[0].figure if hasattr(out, "ravel") else out.figure
            path = folder / f"{stem}_{kind.removeprefix('plot_') or 'posterior'}.png"
            if kind == "plot":
                path = folder / f"{stem}_posterior.png"
            fig.savefig(path, dpi=110)
            plt.close(fig)
            written.append(path)
    return written


def format_across(results: list[Any], decisions: list[Any], method: str,
                  means: dict[str, float] | None = None) -> str:
    """Table of a comparison across datasets: the three kinds of probability per candidate,
    and (``means``: model -> mean of its per-dataset mean scores) each model's mean score."""
    r0 = results[0]
    head = (f"baseline: {r0.baseline_name}   metric: {r0.metric}   rope: ±{float(r0.rope):g}   "
            f"datasets: {r0.n_datasets}   method: {method}")
    lines = [head, rope_note(r0.rope), ""]
    cols = ["candidate", "probabilities of", "P(left)", "P(rope)", "P(right)"]
    rows = []
    for r in results:
        for kind, p in r.probabilities().items():
            rows.append([r.candidate_name, kind, _fp(p.p_left), _fp(p.p_rope),
                         _fp(p.p_right)])
    widths = [max(len(c), *(len(row[i]) for row in rows)) for i, c in enumerate(cols)]
    line = "  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))
    lines += [line, "-" * len(line)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in rows]
    lines.append("")
    for r, d in zip(results, decisions, strict=True):
        diag = ""
        if hasattr(r, "diagnostics_summary"):
            s = r.diagnostics_summary()
            diag = (f" [max R-hat {s['max_r_hat']:.3f}, min bulk ESS {s['min_ess_bulk']:.0f}, "
                    f"divergences {s['divergences']}]")
        score = ""
        if means:
            score = (f" [mean {r.metric} over datasets: {r.candidate_name} "
                     f"{_score(means.get(r.candidate_name))}, {r.baseline_name} "
                     f"{_score(means.get(r.baseline_name))}]")
        lines.append(f"  {r.candidate_name}: {d.outcome}: {d.reason}{score}{diag}")
    return "\n".join(map(terminal_literal, lines))


def format_table(results: list[Any], decisions: list[Any]) -> str:
    """Readable fixed-width table, one line per candidate, then the reasons."""
    r0 = results[0]
    head = (f"baseline: {r0.baseline_name} (mean {r0.metric}: {_score(r0.baseline_score)})   "
            f"metric: {r0.metric}   rope: ±{float(r0.rope):g}   rho: {float(r0.rho):.3g}   "
            f"splits: {r0.n}")
    cols = ["candidate", f"mean {r0.metric}", "mean diff", "95% HDI", "P(left)", "P(rope)",
            "P(right)", "P(better)", "decision"]
    rows = []
    for r, d in zip(results, decisions, strict=True):
        lo, hi = r.hdi(0.95)
        rows.append([r.candidate_name, _score(r.candidate_score), f"{r.mean:+.4f}",
                     f"[{lo:+.4f}, {hi:+.4f}]",
                     _fp(r.p_left), _fp(r.p_rope), _fp(r.p_right),
                     _fp(r.p_better), d.outcome])
    widths = [max(len(c), *(len(row[i]) for row in rows)) for i, c in enumerate(cols)]
    line = "  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))
    body = ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in rows]
    reasons = [f"  {r.candidate_name}: {d.reason}" for r, d in zip(results, decisions,
                                                                   strict=True)]
    legend = (f"P(left/rope/right): candidate worse beyond, within, better beyond the ROPE "
              f"±{float(r0.rope):g}; P(better): candidate better at all. Differences are "
              f"{'candidate − baseline' if r0.higher_is_better else 'baseline − candidate (lower is better)'}.")
    lines = [head, "", line, "-" * len(line), *body, "", legend, rope_note(r0.rope), "",
             *reasons]
    return "\n".join(map(terminal_literal, lines))  # a name with a newline stays on its line


def _score(v: Any) -> str:
    return "—" if v is None or v != v else f"{float(v):.4f}"
