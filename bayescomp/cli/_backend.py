"""Where a command's fits run: ``--backend``, ``--scheduler``, ``--retries`` and
``--worker-timeout``, shared by ``select`` and ``compare`` (one helper, one wording)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bayescomp.cli.main import UserError
from bayescomp.core.exceptions import WorkersLostError
from bayescomp.scores.backends import BACKENDS, use_backend


def add_backend_args(parser: argparse.ArgumentParser) -> None:
    """Add the flags choosing the joblib backend the fits run on."""
    g = parser.add_argument_group(
        "where the fits run (docs: scaling out); Dask, Ray and Spark need "
        "pip install 'bayescomp[dask]' / 'bayescomp[ray]' / 'bayescomp[spark]'"
    )
    g.add_argument(
        "--backend",
        choices=BACKENDS,
        default="loky",
        help="joblib backend: loky (this machine), or a Dask, Ray or Spark cluster "
        "(a local one unless --scheduler is given)",
    )
    g.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="an existing cluster: Dask scheduler (tcp://host:8786), Ray "
        "(ray://host:10001) or Spark master (spark://host:7077)",
    )
    g.add_argument(
        "--retries", type=int, default=2, help="times a fit lost with its worker is sent again"
    )
    g.add_argument(
        "--worker-timeout",
        type=float,
        default=180.0,
        metavar="SECONDS",
        help="stop when a Dask or Ray cluster has no live worker for this long "
        "(finished fits are kept in --store; rerun to resume)",
    )


def fit_options(args: argparse.Namespace) -> dict[str, Any]:
    """``retries``/``worker_timeout`` keyword arguments from the parsed flags."""
    if args.retries < 0:
        raise UserError(f"--retries must be >= 0, got {args.retries}")
    if not args.worker_timeout > 0:
        raise UserError(
            f"--worker-timeout must be a positive number of seconds, got {args.worker_timeout}"
        )
    return {"retries": args.retries, "worker_timeout": args.worker_timeout}


@contextmanager
def on_backend(args: argparse.Namespace) -> Iterator[None]:
    """Run the block's fits on ``--backend``; lost workers become one user-facing error."""
    with use_backend(args.backend, args.scheduler):
        try:
            yield
        except WorkersLostError as exc:
            store = getattr(args, "store", None)
            how = (
                f" Rerun the same command (with --store {store}) to resume."
                if store
                else " Pass --store FILE to keep finished fits across such failures."
            )
            raise UserError(f"{exc}.{how}") from exc
