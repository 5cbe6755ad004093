"""Entry point of the ``bayescomp`` command.

Each sub-command lives in its own module of this package exposing
``register(subparsers)``; the module is imported only when the command line is
parsed, so ``bayescomp --help`` stays fast.  Errors that are the user's (bad
arguments, bad files, bad data) print one clear line and exit with status 2.

Warnings raised while a command runs are *collected*, not shown as they come:
after the command each distinct warning is printed once, with its own category
name and how many times it was raised.  Nothing is re-emitted while the
collection is active, so a warning raised on every fit costs one counter, not
one line (or one list entry) per fit.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import sys
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence

# modules of bayescomp.cli that define sub-commands, in --help order
COMMANDS: tuple[str, ...] = ("compare", "select", "interval", "curves", "unlabeled")

# loggers of the MCMC stack that print progress lines ("Sampling 2 chains ...")
SAMPLER_LOGGERS: tuple[str, ...] = ("pymc", "pytensor", "nutpie", "numpyro", "jax")


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


@contextlib.contextmanager
def collected_warnings() -> Iterator[Counter]:
    """Count the warnings raised inside the block instead of showing them.

    Yields a ``Counter`` keyed by ``(category, message)``.  Every warning is counted
    (``simplefilter("always")``) but stored once, so memory is bounded by the number of
    *distinct* warnings whatever the number of fits.
    """
    counts: Counter = Counter()

    def count(message, category, filename, lineno, file=None, line=None):
        counts[(category, str(message))] += 1

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = count
        yield counts


def format_warnings(counts: Counter, command: str) -> list[str]:
    """One entry per distinct warning: its category name, how often, and the message."""
    from bayescomp.scores.model_files import ModelFileWarning

    lines = []
    for (category, message), n in counts.items():
        times = f" ({n} times)" if n > 1 else ""
        if issubclass(category, ModelFileWarning):
            lines.append(f"warning{times}: {message}")
        else:
            lines.append(f"bayescomp {command}: {category.__name__}{times}: {message}")
    return lines


@contextlib.contextmanager
def _quiet_samplers(quiet: bool) -> Iterator[None]:
    """Silence the MCMC stack's log lines while the command runs (``--quiet``)."""
    if not quiet:
        yield
        return
    loggers = [logging.getLogger(name) for name in SAMPLER_LOGGERS]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    counts: Counter = Counter()
    try:
        with collected_warnings() as counts, _quiet_samplers(getattr(args, "quiet", False)):
            return int(args.func(args) or 0)
    except (UserError, ValueError, FileNotFoundError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"bayescomp {args.command}: error: {msg}", file=sys.stderr)
        return 2
    except ImportError as exc:
        from bayescomp.core.exceptions import MissingExtraError

        if not isinstance(exc, MissingExtraError):
            raise
        print(f"bayescomp {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (``bayescomp ... --json | head``): stop quietly, as cat does;
        # point stdout at /dev/null so the interpreter's final flush cannot fail again
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:  # pragma: no cover
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        with contextlib.suppress(BrokenPipeError, OSError):
            for line in format_warnings(counts, args.command):
                print(line, file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
