"""``bayescomp select``: champion/challenger selection from model files or a scores CSV.

Examples::

    bayescomp select models/ --dataset breast_cancer --baseline logistic_regression \\
        --metric roc_auc --rope 0.005 --gamma 0.95 --store runs/selection.sqlite --report reports/
    bayescomp select scores.csv --baseline logreg --metric accuracy --rope 0.01 --json
    bayescomp select models:/fraud@champion models/ --dataset breast_cancer \
        --baseline fraud@champion --rope 0.005 --mlflow-model fraud --fail-unless promote

Exit status: 0 when the selection ran (and the ``--fail-unless`` gate, if any, is met);
1 when the gate is not met (``promote``: the recommendation is not promote; ``keep``: it
is not keep; ``decided``: some step is inconclusive or failed); 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bayescomp.cli import _parents
from bayescomp.cli._backend import fit_options, on_backend
from bayescomp.cli._data import TIMINGS, OwnData, fit_datasets, parse_guardrails
from bayescomp.cli._text import DefaultsHelp, rope_note
from bayescomp.cli.main import UserError
from bayescomp.cli.predictions import (
    add_slice_flags,
    prediction_options,
    quiet_retries,
    read_predictions,
    slice_options,
)
from bayescomp.core.exceptions import FitError
from bayescomp.core.text import terminal_literal


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "select",
        parents=[
            _parents.deciding(),
            _parents.fitting(),
            _parents.mcmc(),
            _parents.output(formats=("table", "json", "markdown")),
            _parents.one_test_set(),
        ],
        help="walk candidate models against the production baseline; promote only what is "
        "better beyond the ROPE",
        description="Champion/challenger selection. SOURCE is a folder of model files, model "
        "files, or one scores CSV (then nothing is fitted).",
        formatter_class=DefaultsHelp,
        usage="%(prog)s [SOURCE ...] (--data PATH --target COL | --dataset NAME | "
        "--predictions CSV)\n" + " " * 24 + "--baseline NAME --rope ROPE [options]",
    )
    p.add_argument(
        "source",
        nargs="*",
        help="models/ folder, model .py files, or a scores .csv (none with --predictions)",
    )
    p.add_argument(
        "--dataset",
        action="append",
        default=None,
        help="built-in dataset to cross-validate on (breast_cancer, wine, iris, "
        "digits, diabetes); repeat for several datasets; with a CSV: the dataset "
        "of the table to use",
    )
    p.add_argument("--baseline", required=True, help="the model in production (first champion)")
    p.add_argument(
        "--metric",
        default=None,
        help="scikit-learn scorer / metric column the decision is made on (default: "
        "roc_auc for two classes, accuracy for more, r2 for regression)",
    )
    p.add_argument("--store", default=None, help="SQLite file keeping every fit (resumable)")
    p.add_argument(
        "--report",
        default=None,
        metavar="DIR",
        help="write report.html, PNGs and selection.json into DIR",
    )
    p.add_argument(
        "--order",
        choices=("given", "name", "mean"),
        default="given",
        help="challenger order: as given (folder: by file name), by name, or by mean "
        "score, best first",
    )
    p.add_argument(
        "--rule",
        choices=("family", "champion_challenger"),
        default="family",
        help="promotion rule: 'family' (default) keeps the false-promotion rate of "
        "the whole selection at 1 - gamma; 'champion_challenger' decides each "
        "step at gamma (the former default)",
    )
    p.add_argument(
        "--max-repeats",
        type=int,
        default=0,
        help="sequential testing: extra seeded repetitions per inconclusive step",
    )
    p.add_argument(
        "--on-error",
        choices=("skip", "raise"),
        default=None,
        help="a broken model file or failing fit: skip that model, or stop. Without it, "
        "such a model is skipped too, but a --fail-unless gate then fails (exit 1): pass "
        "--on-error skip to accept a selection without it",
    )
    p.add_argument("--method", default="auto", help=argparse.SUPPRESS)
    _add_outputs(p)
    _add_mlflow_flags(p)
    add_slice_flags(p)
    _parents.arrange_help(p)
    p.set_defaults(func=run)


def _add_outputs(p: argparse.ArgumentParser) -> None:
    """``select``'s CI gate (``--fail-unless``)."""
    p.add_argument(
        "--fail-unless",
        choices=GATES,
        default=None,
        help="CI gate: exit 1 unless the recommendation is promote / keep, or "
        "(decided) every step reached a decision (none inconclusive or failed)",
    )


def _add_mlflow_flags(p: argparse.ArgumentParser) -> None:
    """``--mlflow-model``, ``--mlflow-uri`` and ``--alias``, in their own group of --help."""
    g = p.add_argument_group(
        "MLflow (pip install 'bayescomp[mlflow]'); a SOURCE may also be "
        "models:/NAME/VERSION or models:/NAME@alias"
    )
    g.add_argument(
        "--mlflow-model",
        default=None,
        metavar="NAME",
        help="log every step as an MLflow run and move NAME's alias on promote",
    )
    g.add_argument(
        "--mlflow-uri",
        default=None,
        metavar="URI",
        help="MLflow tracking/registry URI (default: MLflow's, e.g. MLFLOW_TRACKING_URI)",
    )
    g.add_argument("--alias", default="champion", help="registry alias that follows the champion")


GATES = ("promote", "keep", "decided")


def skipped_models(sel: Any) -> dict[str, str]:
    """The models a selection went on without: model files that did not load, and
    challengers whose fits failed (an ``error`` step), each with why."""
    if sel.steps.empty:
        return dict(sel.skipped)
    failed = sel.steps[sel.steps["decision"] == "error"]
    return {**sel.skipped, **dict(zip(failed["challenger"], failed["reason"], strict=True))}


def gate_met(sel: Any, gate: str | None, accept_skipped: bool = True) -> bool:
    """Whether the ``--fail-unless`` gate holds for a selection (None: no gate); a skipped
    model fails it unless ``accept_skipped`` (``--on-error skip`` given)."""
    if gate is None:
        return True
    if not accept_skipped and skipped_models(sel):
        return False
    if gate == "decided":
        return not sel.steps["decision"].isin(["inconclusive", "error"]).any()
    return sel.recommendation["action"] == gate


def _check_task(source: Any, data: list[OwnData], own: bool) -> None:
    """Classifiers on a regression dataset (or the reverse): one clear line before any fit."""
    import warnings

    from bayescomp.scores.datasets import check_task
    from bayescomp.scores.model_files import load_models

    try:
        with warnings.catch_warnings():  # broken files are reported once, by select
            warnings.simplefilter("ignore")
            specs = load_models(source, on_error="skip")
    except Exception:  # select reports loading errors itself
        return
    for d in data:
        check_task(
            {m: s.estimator for m, s in specs.items()},
            d.sklearn_task,
            "--data" if own else d.name,
        )


def _models_arg(sources: list[str], args: argparse.Namespace) -> Any:
    """Model files/folders as given, or (with ``models:/`` URIs among them) one dict of
    registry models and model files."""
    registry = [s for s in sources if s.startswith("models:/")]
    files = [Path(s) for s in sources if not s.startswith("models:/")]
    if not registry:
        return files[0] if len(files) == 1 else files
    from bayescomp.integrations.mlflow import registry_models
    from bayescomp.scores.model_files import load_models

    specs = dict(registry_models(registry, tracking_uri=args.mlflow_uri))
    if files:
        specs.update(
            load_models(files[0] if len(files) == 1 else files, on_error=args.on_error or "skip")
        )
    return specs


def _tracker(args: argparse.Namespace) -> Any:
    if args.mlflow_model is None:
        if args.mlflow_uri is not None:
            raise UserError(
                "--mlflow-uri needs --mlflow-model NAME (the registered model "
                "whose alias follows the champion)"
            )
        return None
    from bayescomp.integrations.mlflow import MlflowTracker

    return MlflowTracker(args.mlflow_model, tracking_uri=args.mlflow_uri, alias=args.alias)


def run(args: argparse.Namespace) -> int:
    from bayescomp.scores.model_files import ModelFileError
    from bayescomp.studies.fitted import select_models

    if args.predictions:  # one test set
        with quiet_retries(args):
            sel = _select_predictions(args)
        sel = sel.with_data({"predictions": args.predictions})
        report = sel.report(args.report) if args.report else None
        _print(sel, args, True, report)
        return 0 if gate_met(sel, args.fail_unless, args.on_error == "skip") else 1
    if not args.source:
        raise UserError("give a models/ folder, model files, a scores CSV, or --predictions CSV")
    sources = list(args.source)
    csv_mode = len(sources) == 1 and Path(sources[0]).suffix.lower() == ".csv"
    common = dict(
        baseline=args.baseline,
        rope=args.rope,
        gamma=args.gamma,
        order=args.order,
        rule=args.rule,
        higher_is_better=args.higher_is_better,
    )
    mcmc = {k: v for k, v in (("draws", args.draws), ("chains", args.chains)) if v is not None}
    if mcmc and (len(args.dataset or ()) == 1 or (not csv_mode and not args.dataset)):
        raise UserError(
            "--draws/--chains set the hierarchical model across several datasets; "
            "with one dataset the correlated t-test needs no sampling"
        )

    guardrails = parse_guardrails(args.guardrail, fitted=not csv_mode)
    common["compare_options"] = {
        "method": args.method,
        "random_state": args.seed,
        **mcmc,
        **({"guardrails": guardrails} if guardrails else {}),
        **slice_options(args, csv_mode),  # the slice guardrail (docs/slices.md)
        **({"variance": args.variance} if args.variance else {}),
    }
    try:
        common["tracker"] = _tracker(args)
        if csv_mode:
            sel = _select_scores(Path(sources[0]), args, common)
        else:
            sel = _select_fitted(
                select_models,
                sources,
                args,
                {**common, "on_error": args.on_error or "skip", "progress": not args.quiet},
            )
    except (ModelFileError, FitError) as exc:
        raise UserError(str(exc)) from None
    except Exception as exc:
        if args.mlflow_model or any(s.startswith("models:/") for s in sources):
            from bayescomp.integrations.mlflow_hints import configuration_hint

            hint = configuration_hint(exc, args.mlflow_uri)
            if hint:
                raise UserError(hint) from None
        if isinstance(exc, ImportError):
            raise UserError(str(exc)) from None
        raise
    sel = sel.with_data(data_setting(args, sources[0] if csv_mode else None))
    report = sel.report(args.report) if args.report else None
    _print(sel, args, csv_mode, report)
    return 0 if gate_met(sel, args.fail_unless, args.on_error == "skip") else 1


def _select_scores(path: Path, args: argparse.Namespace, common: dict[str, Any]) -> Any:
    """``select scores.csv``: the walk over a table of precomputed scores."""
    from bayescomp.studies.select import select

    if args.data:
        raise UserError(
            "--data fits the models on your table; with a scores CSV "
            "nothing is fitted: give model files instead"
        )
    if args.dataset and len(args.dataset) > 1:
        raise UserError("with a scores CSV give at most one --dataset")
    if args.store:
        raise UserError("--store keeps fits; with a scores CSV nothing is fitted")
    if args.max_repeats:
        raise UserError(
            "--max-repeats adds repetitions by fitting; with a scores CSV nothing is fitted"
        )
    dataset = args.dataset[0] if args.dataset else None
    return select(path, metric=args.metric, dataset=dataset, **common)


def data_setting(args: argparse.Namespace, scores: str | None) -> dict[str, Any]:
    """What the selection ran on, for its report and selection.json: the table of --data
    and its columns, the built-in --dataset(s), or the scores CSV."""
    if args.data:
        return {
            "path": args.data,
            **{k: getattr(args, k) for k in ("target", "groups", "time", "drop")},
        }
    names = args.dataset or []
    return {
        **({"scores": scores} if scores else {}),
        **({"dataset": names[0] if len(names) == 1 else names} if names else {}),
    }


def _select_predictions(args: argparse.Namespace) -> Any:
    """``select --predictions``: a selection over the model columns of one test set
    (``--rule``: family-wise by default)."""
    from bayescomp.studies.select import select

    slice_options(args)  # a slice flag without its column: said before the CSV is read
    if args.source:
        raise UserError("--predictions reads one CSV of item-level predictions; give no SOURCE")
    table, columns, models = read_predictions(args)
    return select(
        table,
        baseline=args.baseline,
        rope=args.rope,
        gamma=args.gamma,
        metric=args.metric,
        models=models,
        higher_is_better=args.higher_is_better,
        order=args.order,
        rule=args.rule,
        compare_options=prediction_options(args, table, columns),
    )


def _select_fitted(
    select: Any, sources: list[str], args: argparse.Namespace, common: dict[str, Any]
) -> Any:
    data = fit_datasets(args, args.dataset or [])
    first = data[0]
    metric = args.metric or first.default_metric
    files = [s for s in sources if not s.startswith("models:/")]
    if files:
        _check_task(files[0] if len(files) == 1 else files, data, args.data is not None)
    # scoring=None: every fit is scored on the decision metric and the task's standard
    # metrics, so a later run with another --metric reads them from --store
    guarded = [g for g in common["compare_options"].get("guardrails", ()) if g not in TIMINGS]
    try:
        with on_backend(args):
            return select(
                _models_arg(sources, args),
                {d.name: (d.X, d.y) for d in data} if len(data) > 1 else first.X,
                None if len(data) > 1 else first.y,
                metric=metric,
                scoring=list(dict.fromkeys([metric, *guarded])) if guarded else None,
                dataset=None if len(data) > 1 else first.name,
                store=args.store,
                max_repeats=args.max_repeats,
                n_jobs=args.n_jobs,
                **fit_options(args),
                groups=first.groups,
                cv=first.cv,
                **common,
            )
    except FitError as exc:  # a feature column the models cannot handle: name it
        from bayescomp.scores.features import name_text_column

        own = args.data is not None
        raise UserError(name_text_column(str(exc), first.X) if own else str(exc)) from None


def _print(sel: Any, args: argparse.Namespace, csv_mode: bool, report: Any) -> None:
    from bayescomp.report.markdown import selection_markdown
    from bayescomp.studies.select import format_steps
    from bayescomp.studies.store import baseline_age

    fmt = "json" if args.json else args.format
    age = baseline_age(args.store, sel.baseline)  # of the baseline's fits, in the comment
    if args.comment_file:
        Path(args.comment_file).write_text(selection_markdown(sel, age), encoding="utf-8")
    skipped = skipped_models(sel)
    gate = (
        None
        if args.fail_unless is None
        else {
            "condition": args.fail_unless,
            "met": gate_met(sel, args.fail_unless, args.on_error == "skip"),
            **({"skipped": sorted(skipped)} if skipped else {}),
        }
    )
    if fmt == "json":
        out = sel.to_dict(include_scores=False)
        out["report"] = str(report) if report else None
        out["gate"] = gate
        print(json.dumps(out, indent=2, allow_nan=False))
        return
    if fmt == "markdown":
        print(selection_markdown(sel, age))
        if gate is not None:
            print(
                f"CI gate `--fail-unless {gate['condition']}`: "
                f"**{'passed' if gate['met'] else 'FAILED'}**"
            )
        return

    print(
        f"champion/challenger selection on {terminal_literal(sel.metric)} (ROPE "
        f"{sel.rope.label()}, γ = {sel.gamma:g}, rule {sel.recommendation.get('rule', '?')}), "
        f"baseline {terminal_literal(sel.baseline)}\n"
    )
    print(format_steps(sel.steps, sel.gamma))
    print("\n" + rope_note(sel.rope))
    for name, why in sel.skipped.items():  # failed fits are steps of the table already
        print(f"skipped {terminal_literal(name)}: {terminal_literal(why)}")
    print(f"\nrecommendation: {terminal_literal(sel.recommendation['text'])}")
    if not csv_mode:
        print(
            f"fits: {sel.fits_total} needed, {sel.fits_performed} computed now, "
            f"{sel.fits_loaded} read from the store"
            + (f" {sel.store}" if sel.store else "")
            + (f", {sel.fits_retried} sent again after a lost worker" if sel.fits_retried else "")
        )
    if report:
        print(f"report: {report}")
    if gate is not None:
        why = (
            f": model(s) skipped ({', '.join(map(terminal_literal, sorted(skipped)))}); fix "
            "them, or pass --on-error skip to accept a selection without them"
            if skipped and args.on_error != "skip"
            else ""
        )
        print(
            f"gate --fail-unless {gate['condition']}: "
            f"{'passed' if gate['met'] else 'FAILED (exit status 1)'}{why}"
        )
