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
from typing import Any, NoReturn

# modules of bayescomp.cli that define sub-commands, in --help order
COMMANDS: tuple[str, ...] = (
    "compare",
    "select",
    "rank",
    "interval",
    "curves",
    "unlabeled",
    "watch",
)

#: one example per command, shown by ``bayescomp --help``
EXAMPLES = """\
examples (one per command; each has its own --help):
  bayescomp compare models/logistic_regression.py models/random_forest.py --dataset breast_cancer --rope 0.005
  bayescomp select models/ --data my.parquet --target y --groups id --baseline logistic_regression --rope 0.005 --fail-unless promote
  bayescomp rank scores.csv --metric accuracy --method plackett_luce --latex ranks.tex --plot ranks.png
  bayescomp interval preds.csv --y-true y --pred score --metric roc_auc
  bayescomp curves oof.csv --y-true y --score p --repetition rep --kind pr --plot pr.png
  bayescomp unlabeled --test test.csv --pool pool.csv --score p --label y --class-size 400:600
  bayescomp watch log.parquet --baseline prod --candidate shadow --metric log_loss --rope 0.01 --every 500 --store watch.sqlite
"""


class UserError(Exception):
    """An error to report as one line, without a traceback."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error on one line (pointing to ``--help``) instead of three,
    and no abbreviated flags (``--dat`` is an error, not ``--data``: a CI script stays
    right when a flag is added)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        self._refuse_repeats(sys.argv[1:] if args is None else list(args))
        return super().parse_known_args(args, namespace)

    def _refuse_repeats(self, argv: list[str]) -> None:
        """A single-valued flag given twice is an error, not "the last one wins" (a second
        ``--dataset`` or ``--metric`` would otherwise be dropped silently)."""
        seen: Counter = Counter()
        for token in argv:
            if token == "--":
                break
            action = self._option_string_actions.get(token.split("=", 1)[0])
            if type(action) is argparse._StoreAction and action.nargs is None:
                seen[action] += 1
        for action, n in seen.items():
            if n > 1:
                flag = "/".join(action.option_strings)
                self.error(f"{flag} was given {n} times but takes one value; give it once")

    def error(self, message: str) -> NoReturn:
        if "expected one argument" in message:  # e.g. --baseline -2 (a name starting with -)
            message += "; a value starting with '-' is written with '=', e.g. --baseline=-2"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from bayescomp import __version__

    parser = _Parser(
        prog="bayescomp",
        description="Bayesian model comparison: is the candidate really better than the baseline?",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"bayescomp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"bayescomp.cli.{name}").register(sub)
    return parser


def format_warnings(counts: Counter, command: str) -> list[str]:
    """One entry per distinct warning: its category name, how often, and the message."""
    from bayescomp.scores.model_files import ModelFileWarning

    lines = []
    for (category, message), n in counts.items():
        times = f" ({n} times)" if n > 1 else ""
        if issubclass(category, ModelFileWarning):
            lines.append(f"warning{times}: {one_line(message)}")
        else:
            lines.append(f"bayescomp {command}: {category.__name__}{times}: {one_line(message)}")
    return lines


@contextlib.contextmanager
def _quiet_samplers(quiet: bool) -> Iterator[None]:
    """Silence the MCMC stack's log lines ("Sampling 2 chains ...") while the command runs
    (``--quiet``): every log record below ERROR, whichever logger (PyMC, PyTensor, nutpie,
    NumPyro, JAX) writes it.

    ``logging.disable``, not the loggers' levels: PyMC sets its own logger to INFO when it
    is imported, which happens during the command; the disable holds whatever the
    libraries do.
    """
    if not quiet:
        yield
        return
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)


def one_line(message: object) -> str:
    """A message on one line: user data (a name with a newline) cannot split it."""
    from bayescomp.core.text import terminal_literal

    return terminal_literal(str(message))


def model_failure(exc: BaseException) -> str | None:
    """The fit engine's description of a candidate model's own failure (the mark it puts
    on the exception, or on one that caused this one), None for any other error."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        mark = cur.__dict__.get("bayescomp_model_failure")
        if mark:
            return str(mark)
        cur = cur.__cause__ or cur.__context__
    return None


#: positional arguments that name input files or folders (checked before any heavy import)
INPUT_ARGUMENTS: tuple[str, ...] = ("inputs", "file", "source")


def missing_inputs(args: argparse.Namespace) -> list[str]:
    """The input paths on the command line that do not exist."""
    paths: list[str] = []
    for name in INPUT_ARGUMENTS:
        value = getattr(args, name, None)
        paths += [value] if isinstance(value, str) else list(value or [])
    # "-" is standard input; "models:/NAME@alias" a model in the MLflow registry
    return [p for p in paths if p != "-" and not p.startswith("models:/") and not os.path.exists(p)]


def _warning_line(message: Any, category: type, *_: Any, **__: Any) -> str:
    """A warning shown by the command line: one line, no source file or code line."""
    return f"{category.__name__}: {message}\n"


def _stop_workers() -> None:
    """After Ctrl-C: stop joblib's worker processes now, and keep its threads still
    scheduling fits on the stopped pool from printing their tracebacks."""
    logging.getLogger("concurrent.futures").disabled = True  # loky's callback errors
    # joblib's notes on the stopped fits (tasks cancelled, memmapped folders left to delete)
    warnings.simplefilter("ignore")
    loky = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(loky, "_executor", None)
    if executor is not None:
        with contextlib.suppress(Exception):
            executor.shutdown(wait=True, kill_workers=True)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``bayescomp`` command: its exit status (0, 2 for a user error)."""
    shown = warnings.formatwarning
    warnings.formatwarning = _warning_line  # e.g. a renamed flag, warned while parsing
    try:
        return _main(argv)
    finally:
        warnings.formatwarning = shown


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    missing = missing_inputs(args)
    if missing:  # said at once: the statistics stack takes seconds to import
        print(
            f"bayescomp {args.command}: error: no such file or folder: "
            f"{one_line(', '.join(missing))}",
            file=sys.stderr,
        )
        return 2
    from bayescomp.scores.engine import counted_warnings

    counts: Counter = Counter()
    try:
        with counted_warnings() as counts, _quiet_samplers(getattr(args, "quiet", False)):
            try:
                if getattr(args, "force_rope", False) and args.rope is not None:
                    args.rope = args.rope.forced()  # checked by the library's door, as given
                return int(args.func(args) or 0)
            except Exception as exc:
                counts.clear()  # a failed command says one thing (one line): its error
                failure = model_failure(exc)
                if failure is None:
                    raise
                hint = (
                    " (or --on-error skip to go on without it)" if "on_error" in vars(args) else ""
                )
                raise UserError(f"{failure}; fix the model file{hint}") from exc
    except BrokenPipeError:
        # the reader went away (``bayescomp ... --json | head``): stop quietly, as cat does;
        # point stdout at /dev/null so the interpreter's final flush cannot fail again
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (UserError, ValueError, OSError, KeyError) as exc:
        from bayescomp.cli._text import error_text

        print(
            f"bayescomp {args.command}: error: {one_line(error_text(exc, args))}",
            file=sys.stderr,
        )
        return 2
    except ImportError as exc:
        from bayescomp.core.exceptions import MissingExtraError

        if not isinstance(exc, MissingExtraError):
            raise
        print(f"bayescomp {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        counts.clear()  # stopped: one line, not the warnings of the fits so far
        _stop_workers()
        print(
            f"bayescomp {args.command}: interrupted (a --store keeps the fits already made: "
            "run the command again to resume)",
            file=sys.stderr,
        )
        return 130
    except Exception as exc:  # a bug of ours: still one line, and how to get the details
        if os.environ.get("BAYESCOMP_TRACEBACK"):
            raise
        print(
            f"bayescomp {args.command}: internal error: {type(exc).__name__}: "
            f"{one_line(exc)} (set BAYESCOMP_TRACEBACK=1 for the traceback, and please "
            "report it)",
            file=sys.stderr,
        )
        return 3
    finally:
        with contextlib.suppress(BrokenPipeError, OSError):
            for line in format_warnings(counts, args.command):
                print(line, file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
