"""``bayescomp compare --mlflow-runs CAND BASE``: two ``mlflow.genai.evaluate`` runs scorer by
scorer (:func:`bayescomp.integrations.mlflow.compare_runs`, on ``MLFLOW_TRACKING_URI``).  The
flag's action points the command at :func:`run`, so ``compare`` needs no branch of its own;
``--scorers`` gives each scorer its direction and half-width, as ``compare_runs``' dicts."""

from __future__ import annotations

import argparse
import re
from typing import Any


class _Runs(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.func = run


def scorer(text: str) -> tuple[str, bool, float | None]:
    """``NAME:higher|lower[:ROPE]`` as (name, higher is better, half-width or None)."""
    found = re.fullmatch(r"(.+?):(higher|lower)(?::(.+))?", text)
    if found is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not NAME:higher or NAME:lower, then optionally :ROPE (length:lower:5)"
        )
    name, way, rope = found.groups()
    return name, way == "higher", None if rope is None else float(rope)  # argparse: no number


def parent() -> argparse.ArgumentParser:
    """``--mlflow-runs CAND BASE`` and ``--scorers`` (with ``--rope``, ``--gamma``,
    ``--cluster`` of compare)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument(
        "--mlflow-runs",
        nargs=2,
        action=_Runs,
        metavar=("CAND", "BASE"),
        help="two mlflow.genai.evaluate run IDs: every scorer on the paired rows, decided "
        "together; --cluster names a key of the rows' inputs",
    )
    p.add_argument(
        "--scorers",
        nargs="+",
        type=scorer,
        metavar="NAME:higher|lower[:ROPE]",
        help="with --mlflow-runs: the scorers to compare, each with its direction and its "
        "half-width on its own scale (default: every scorer, higher is better, --rope; a "
        "scorer not pass/fail must be named); ROPE on all of them or on none (then --rope)",
    )
    return p


def run(args: argparse.Namespace) -> int:
    from bayescomp.cli._io import emit
    from bayescomp.cli.main import UserError
    from bayescomp.integrations.mlflow import compare_runs

    if args.inputs or args.predictions:
        raise UserError("--mlflow-runs reads two MLflow runs; give no INPUT or --predictions")
    if args.higher_is_better is not None:
        raise UserError(
            "--higher-is-better/--lower-is-better set one metric's direction; with --mlflow-runs "
            "give each scorer's: --scorers NAME:higher|lower[:ROPE] ..."
        )
    specs = args.scorers or []
    ropes = {name: rope for name, _, rope in specs if rope is not None}
    if ropes and len(ropes) < len(specs):
        raise UserError(
            "give every --scorers entry its half-width (NAME:lower:ROPE) or none (then --rope "
            "is each one's)"
        )
    res = compare_runs(
        *args.mlflow_runs,
        scorers={name: up for name, up, _ in specs} or None,
        rope=ropes or args.rope,
        cluster=args.cluster,
        gamma=args.gamma,
    )
    text = f"{res.summary().to_string(index=False)}\n\nall scorers: {res.outcome} (each scorer "
    text += f"decided at gamma {res.scorer_gamma:.4g}, Bonferroni)"
    return emit(args, [res], lambda: [res.to_dict()], lambda: text)
