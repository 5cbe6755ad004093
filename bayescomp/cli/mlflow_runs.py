"""``bayescomp compare --mlflow-runs CAND BASE``: two ``mlflow.genai.evaluate`` runs scorer by
scorer (:func:`bayescomp.integrations.mlflow.compare_runs`, on ``MLFLOW_TRACKING_URI``).  The
flag's action points the command at :func:`run`, so ``compare`` needs no branch of its own."""

from __future__ import annotations

import argparse
from typing import Any


class _Runs(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.func = run


def parent() -> argparse.ArgumentParser:
    """``--mlflow-runs CAND BASE`` (with ``--rope``, ``--gamma``, ``--cluster`` of compare)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument(
        "--mlflow-runs",
        nargs=2,
        action=_Runs,
        metavar=("CAND", "BASE"),
        help="two mlflow.genai.evaluate run IDs: every scorer on the paired rows, decided "
        "together; --cluster names a key of the rows' inputs",
    )
    return p


def run(args: argparse.Namespace) -> int:
    from bayescomp.cli._io import emit
    from bayescomp.cli.main import UserError
    from bayescomp.integrations.mlflow import compare_runs

    if args.inputs or args.predictions:
        raise UserError("--mlflow-runs reads two MLflow runs; give no INPUT or --predictions")
    res = compare_runs(*args.mlflow_runs, rope=args.rope, cluster=args.cluster, gamma=args.gamma)
    text = f"{res.summary().to_string(index=False)}\n\nall scorers: {res.outcome} (each scorer "
    text += f"decided at gamma {res.scorer_gamma:.4g}, Bonferroni)"
    return emit(args, [res], lambda: [res.to_dict()], lambda: text)
