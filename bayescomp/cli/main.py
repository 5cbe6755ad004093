"""Entry point of the ``bayescomp`` command.

Each sub-command lives in its own module of this package exposing
``register(subparsers)``; the module is imported only when the command line is
parsed, so ``bayescomp --help`` stays fast.  Errors that are the user's (bad
arguments, bad files, bad data) print one clear line and exit with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# modules of bayescomp.cli that define sub-commands, in --help order
COMMANDS: tuple[str, ...] = ("compare", "select", "metrics")


class UserError(Exception):
    """An error to report as one line, without a traceback."""


def build_parser() -> argparse.ArgumentParser:
    from bayescomp import __version__

    parser = argparse.ArgumentParser(
        prog="bayescomp",
        description="Bayesian model comparison: is the candidate really better than the baseline?",
    )
    parser.add_argument("--version", action="version", version=f"bayescomp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"bayescomp.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    parser = build_parser()
    args = parser.parse_args(argv)
    previous = warnings.formatwarning
    warnings.formatwarning = lambda message, category, *a, **k: (
        f"bayescomp: warning: {message}\n"
    )
    try:
        return int(args.func(args) or 0)
    except (UserError, ValueError, FileNotFoundError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"bayescomp {args.command}: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = previous


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
