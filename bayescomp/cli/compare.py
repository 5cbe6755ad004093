"""``bayescomp compare``: one baseline against one or more candidates: model files on a dataset
(``bayescomp compare --dataset breast_cancer models/a.py models/b.py``), a scores CSV
(``bayescomp compare scores.csv --baseline logreg --metric accuracy --json``), or two MLflow
GenAI evaluation runs (``--mlflow-runs CAND BASE``, :mod:`bayescomp.cli.mlflow_runs`).
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescomp.cli import _parents, mlflow_runs
from bayescomp.cli._backend import fit_options, on_backend
from bayescomp.cli._data import TIMINGS, fit_datasets, parse_guardrails
from bayescomp.cli._io import emit, json_record, output_file, read_csv
from bayescomp.cli._text import (
    INTERVAL_COLUMNS,
    DefaultsHelp,
    LazyChoices,
    aligned,
    comparison_row,
    difference_headers,
    rope_note,
)
from bayescomp.cli.main import UserError
from bayescomp.cli.predictions import add_slice_flags, run_predictions
from bayescomp.core.text import terminal_literal

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import Posterior
    from bayescomp.core.rule import Decision


def register(sub: Any) -> None:
    p = sub.add_parser(
        "compare",
        parents=[
            _parents.deciding(),
            _parents.scores_csv(),
            _parents.fitting(),
            _parents.mcmc(),
            _parents.output(formats=("table", "markdown")),
            _parents.one_test_set(),
            mlflow_runs.parent(),
        ],
        help="compare a candidate with a baseline (scores CSV, or paired CV on built-in data)",
        description=(
            "Bayesian comparison of a baseline and candidate(s). Give a scores CSV (one row per "
            "dataset/model/split), or --dataset NAME and model files: the first file is the "
            "baseline unless --baseline says otherwise, every other file is a candidate."
        ),
        formatter_class=DefaultsHelp,
        usage="%(prog)s [INPUT ...] [--data PATH --target COL | --dataset NAME | --predictions "
        "CSV]\n" + " " * 25 + "--rope ROPE [options]",
    )
    p.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="a scores CSV, or two or more model files (*.py defining `model = ...`); "
        "none with --predictions",
    )
    p.add_argument(
        "--dataset",
        help="built-in dataset for model files (breast_cancer, wine, "
        "iris, digits, diabetes); with a CSV, the dataset of the table to compare on",
    )
    p.add_argument("--baseline", help="baseline model name, or a number: a performance goal p*")
    p.add_argument(
        "--candidate",
        action="append",
        help="candidate model name (repeatable; default: every other model)",
    )
    p.add_argument(
        "--metric",
        help="metric (scikit-learn scorer name for model files; a column "
        "of the CSV); default roc_auc for two classes, accuracy for more, r2 for "
        "regression, or the CSV's only metric",
    )
    p.add_argument(
        "--method",
        default="auto",
        choices=LazyChoices("methods"),
        metavar="METHOD",
        help="a registered comparison method: %(choices)s. Default auto: ttest "
        "on one dataset, hierarchical on several. A method on paired predictions "
        "reads a CSV with a y_true column and one column per model",
    )
    _add_outputs(p)
    add_slice_flags(p)
    _parents.arrange_help(p)
    p.set_defaults(func=run, draws=2000, chains=4)


def _add_outputs(p: argparse.ArgumentParser) -> None:
    """The files ``compare`` writes on request, and its CI gate."""
    p.add_argument(
        "--save-scores",
        type=output_file("scores.csv"),
        metavar="CSV",
        help="write the per-split scores to a CSV",
    )
    p.add_argument(
        "--plot",
        type=output_file("plot.png"),
        metavar="PNG",
        help="write the posterior plot (one candidate)",
    )
    p.add_argument(
        "--plots",
        metavar="DIR",
        help="write every plot of every comparison as PNG "
        "files into DIR (posterior; across datasets also simplex, forest, trace)",
    )
    p.add_argument(
        "--fail-unless",
        choices=LazyChoices("outcomes"),
        metavar="OUTCOME",
        help="exit with status 1 unless every decision is OUTCOME (e.g. promote), for CI gates",
    )


def _scores_from_models(args: argparse.Namespace) -> tuple[Any, str, list[str], str]:
    from bayescomp.scores.crossval import cross_validate_paired
    from bayescomp.scores.datasets import check_task
    from bayescomp.scores.model_files import load_models

    if len(args.inputs) < 2:
        raise UserError("give at least two model files: a baseline and a candidate")
    (data,) = fit_datasets(args, [args.dataset] if args.dataset else [])
    specs = load_models(args.inputs, on_error="raise")
    check_task({n: s.estimator for n, s in specs.items()}, data.sklearn_task, data.name)
    names = list(specs)
    baseline = args.baseline or names[0]
    candidates = args.candidate or [n for n in names if n != baseline]
    for flag, name in [("--baseline", baseline), *(("--candidate", c) for c in candidates)]:
        if name not in specs:
            raise UserError(f"{flag} {name!r} is not one of the model files {names}")
    metric = args.metric or data.default_metric
    models = {n: specs[n].estimator for n in [baseline, *candidates]}
    guarded = [g for g in parse_guardrails(args.guardrail, fitted=True) if g not in TIMINGS]
    scoring = list(dict.fromkeys([metric, *guarded])) if guarded else metric
    with on_backend(args):
        scores = cross_validate_paired(
            models,
            data.X,
            data.y,
            cv=data.cv,
            scoring=scoring,
            n_jobs=args.n_jobs,
            progress=not args.quiet,
            dataset=data.name,
            groups=data.groups,
            **fit_options(args),
        )
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
            raise UserError(
                f"--baseline {args.baseline!r} is neither a model of the table "
                f"{scores.models} nor a number (a performance goal)"
            ) from None
    candidates = args.candidate or [m for m in scores.models if m != baseline]
    return scores, baseline, candidates, args.metric


def _method(args: argparse.Namespace, *, many: bool, timed: bool = False) -> tuple[str, Any]:
    """The method's name (``auto`` resolved; ``timed``: the splits are time-ordered) and its
    registration."""
    from bayescomp.posterior.registry import lookup

    name = (
        args.method
        if args.method != "auto"
        else ("hierarchical" if many else "time_ordered" if timed else "ttest")
    )
    return name, lookup(name)


def _from_predictions(args: argparse.Namespace) -> tuple[Any, Any, list[str], str | None]:
    """A CSV of paired predictions: ``y_true`` and one column of predictions per model."""
    from bayescomp.posterior.registry import TRUTH_COLUMN

    if len(args.inputs) != 1:
        raise UserError(
            f"--method {args.method} compares paired predictions: give one CSV with "
            f"a {TRUTH_COLUMN} column and one column of predictions per model"
        )
    table = read_csv(args.inputs[0])
    models = [str(c) for c in table.columns if c != TRUTH_COLUMN]
    if not args.baseline:
        raise UserError(f"name the --baseline (model columns: {models})")
    candidates = args.candidate or [m for m in models if m != args.baseline]
    return table, args.baseline, candidates, args.metric


def run(args: argparse.Namespace) -> int:
    if args.scorers:
        raise UserError("--scorers names the scorers of --mlflow-runs; give it with that flag")
    if args.predictions or args.slice or args.slice_rope:  # one test set (or a slice flag)
        return run_predictions(args)
    if args.method != "auto" and _method(args, many=False)[1].input == "predictions":
        table, baseline, candidates, metric = _from_predictions(args)
        return _run(
            args,
            table,
            baseline,
            candidates,
            metric,
            dataset=None,
            many=False,
            scope=f"items: {len(table)}",
        )
    if not args.inputs:
        raise UserError("give a scores CSV, model files, or --predictions CSV")
    is_csv = len(args.inputs) == 1 and Path(args.inputs[0]).suffix.lower() in (".csv", ".txt")
    if is_csv and args.data:
        raise UserError(
            "--data fits the models on your table; with a scores CSV nothing is "
            "fitted: give model files instead"
        )
    if is_csv:
        scores, baseline, candidates, metric = _scores_from_csv(args)
        dataset = args.dataset
    else:
        scores, baseline, candidates, metric = _scores_from_models(args)
        dataset = None
    if args.save_scores:
        scores.to_csv(args.save_scores)
    n_datasets = len(scores.datasets) if dataset is None else 1
    return _run(
        args,
        scores,
        baseline,
        candidates,
        metric,
        dataset=dataset,
        many=n_datasets > 1,
        scope=f"datasets: {n_datasets}",
    )


def _run(
    args: argparse.Namespace,
    data: Any,
    baseline: Any,
    candidates: list[str],
    metric: str | None,
    *,
    dataset: str | None,
    many: bool,
    scope: str,
) -> int:
    """Compare every candidate with the baseline by the chosen method, and print it."""
    from bayescomp.posterior.compare import compare, is_time_ordered_scores

    if not candidates:
        raise UserError("no candidate to compare with the baseline")
    from bayescomp.scores.table import Scores

    timed = isinstance(data, Scores) and is_time_ordered_scores(
        data, data.datasets if dataset is None else [dataset]
    )
    method, spec = _method(args, many=many, timed=timed)
    options: dict[str, Any] = {}
    if method == "hierarchical":
        options = {"draws": args.draws, "chains": args.chains}
    if args.guardrail:  # the joint posterior of the metric and its guardrails (seeded draws)
        method, options = "multivariate", {"guardrails": parse_guardrails(args.guardrail)}
    if args.variance:
        options["variance"] = args.variance
    warnings.filterwarnings("ignore", "hierarchical fit, attempt")  # the table says each retry
    results = [
        compare(
            data,
            baseline,
            c,
            metric=metric,
            rope=args.rope,
            dataset=dataset,
            higher_is_better=args.higher_is_better,
            method=method,
            random_state=args.seed if method != "ttest" else None,
            **options,
        )
        for c in candidates
    ]
    decisions = [r.decision(args.gamma) for r in results]

    def text() -> str:
        if method == "multivariate":
            return format_guarded(results, decisions, args.rope)
        if method in ("ttest", "time_ordered"):
            return format_table(results, decisions, args.rope)
        means = None  # per model, its mean over datasets of the per-dataset mean scores
        if spec.input == "scores":
            means = data.mean(results[0].metric).mean(axis=0).to_dict()
        return format_across(results, decisions, method, means, scope=scope, rope=args.rope)

    records = [json_record(r, d) for r, d in zip(results, decisions, strict=True)]
    return emit(args, decisions, lambda: records, text, results)


def format_guarded(results: list[Any], decisions: list[Decision], margin: Any) -> str:
    """``--guardrail``: per candidate P(better beyond the ROPE), ``p_joint`` (that and every
    guardrail held) and the decision, then the reasons."""
    from bayescomp.core.margins import Absolute
    from bayescomp.core.regions import format_probability

    r0, fp = results[0], format_probability
    guards = zip(r0.metrics[1:], r0.rope[1:], strict=True)
    g = ", ".join(f"{m} {Absolute(h).label()}" for m, h in guards)
    head = f"baseline: {r0.baseline_name}   metric: {r0.metric}   rope: {margin.label()}"
    table = [
        [r.candidate_name, fp(r.p_right), fp(r.p_joint), d.outcome]
        for r, d in zip(results, decisions, strict=True)
    ]
    lines = [
        f"{head}   guardrails: {g}",
        "",
        *aligned(table, ["candidate", "P(right)", "p_joint", "decision"]),
        "",
        "p_joint: P(candidate better beyond the ROPE on the metric and every guardrail held); "
        "promote needs p_joint >= gamma",
        "",
        *(f"  {r.candidate_name}: {d.reason}" for r, d in zip(results, decisions, strict=True)),
    ]
    return "\n".join(map(terminal_literal, lines))


def format_across(
    results: list[Posterior],
    decisions: list[Decision],
    method: str,
    means: dict[str, float] | None = None,
    *,
    scope: str = "",
    rope: Any = None,
) -> str:
    """Table of a comparison by any method but the t-test: every kind of probability per
    candidate, then each decision with its reason, the models' mean scores (``means``)
    and the sampler's diagnostics."""
    from bayescomp.core.margins import Absolute
    from bayescomp.core.regions import format_probability

    r0 = results[0]
    head = (
        f"baseline: {r0.baseline_name}   metric: {r0.metric}   rope: "
        f"{', '.join(sorted({Absolute(r.half_width).label() for r in results}))}   "
        f"{scope}   method: {method}"
    )
    rows = [
        [
            r.candidate_name,
            kind,
            format_probability(p.p_left),
            format_probability(p.p_rope),
            format_probability(p.p_right),
        ]
        for r in results
        for kind, p in r.probabilities().items()
    ]
    lines = [
        head,
        rope_note(r0.rope if rope is None else rope),
        "",
        *aligned(rows, ["candidate", "probabilities of", "P(left)", "P(rope)", "P(right)"]),
        "",
    ]
    for r, d in zip(results, decisions, strict=True):
        score = ""
        if means:
            score = (
                f" [mean {r.metric} over datasets: {r.candidate_name} "
                f"{_score(means.get(r.candidate_name))}, {r.baseline_name} "
                f"{_score(means.get(r.baseline_name))}]"
            )
        lines.append(f"  {r.candidate_name}: {d.outcome}: {d.reason}{score}")
        lines += _diagnostics(r.diagnostics_summary())
    return "\n".join(map(terminal_literal, lines))


def _diagnostics(s: dict[str, Any]) -> list[str]:
    """The sampler, its worst-case MCMC diagnostics and why each retry ran, a line each."""
    if not {"max_r_hat", "min_ess_bulk", "divergences"} <= s.keys():
        return []
    return [
        f"    sampler {s.get('sampler')}: max R-hat {s['max_r_hat']:.3f}, min bulk ESS "
        f"{s['min_ess_bulk']:.0f}, divergences {s['divergences']}, attempts {s.get('attempts', 1)}",
        *(f"    attempt {k}: {note}" for k, note in enumerate(s.get("retry_notes", []), 1)),
    ]


def format_table(results: list[Posterior], decisions: list[Decision], margin: Any) -> str:
    """The t-test's table, one line per candidate (read from each summary), then the reasons."""
    from bayescomp.core.margins import Absolute
    from bayescomp.report.markdown import used_variances

    rows, s0 = [], results[0].summary().iloc[0]
    half = [Absolute(r.half_width).label() for r in results]
    each = len(set(half)) > 1  # a standardized margin's half-width differs by candidate
    for r, d, h in zip(results, decisions, half, strict=True):
        s = r.summary().iloc[0]
        hdi = (s["hdi_95_low"], s["hdi_95_high"])
        rows.append(
            comparison_row(r, d, _score(s["candidate_score"]), s["mean"], hdi, rope=each and h)
        )
    rope = "per candidate (column rope)" if each else margin.label(s0["rope"])
    head = (
        f"baseline: {s0['baseline']} (mean {s0['metric']}: {_score(s0['baseline_score'])})   "
        f"metric: {s0['metric']}   rope: {rope}   "
        + (f"rho: {s0['rho']:.3g}" if "rho" in s0 else "time-ordered windows (AR(1) posterior)")
        + f"   splits: {s0['n']}"
        + "".join(f"   variance: {v}" for v in used_variances(results))
    )
    mean, hdi, what = difference_headers(margin, results[0].higher_is_better)
    cols = ["candidate", f"mean {s0['metric']}", mean, hdi, *INTERVAL_COLUMNS[1:-1]]
    cols += [*(["rope"] if each else []), "decision"]
    reasons = [f"  {r.candidate_name}: {d.reason}" for r, d in zip(results, decisions, strict=True)]
    legend = (
        f"P(left/rope/right): candidate worse beyond, within, better beyond the ROPE "
        f"{rope}; P(better): candidate better at all. {what}"
    )
    lines = [head, "", *aligned(rows, cols), "", legend, rope_note(margin), "", *reasons]
    return "\n".join(map(terminal_literal, lines))  # a name with a newline stays on its line


def _score(v: Any) -> str:
    return "—" if v is None or v != v else f"{float(v):.4f}"
