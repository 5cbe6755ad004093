"""Text shared by sub-commands: the one ROPE rule and how the output explains it.

``compare`` and ``select`` follow one rule: ``--rope`` is required.  The region of
practical equivalence decides what "better" means, and no default suits every metric
(±0.01 AUC is small, ±0.01 R² on a noisy target may be large), so the user states it —
``--rope 0`` when every difference matters — and the output says what the choice means.
"""

from __future__ import annotations

import argparse
import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.margins import Margin

ROPE_HELP = (
    "required: half-width of the region of practical equivalence on the metric's "
    "scale, the smallest difference that matters (e.g. 0.01 for AUC); differences "
    "within ±ROPE count as equivalent. --rope 0 makes every difference matter; 1%% "
    "is relative, 0.1sd standardized"
)


def rope_arg(text: str) -> Any:
    """``--rope``: a half-width, ``1%`` (relative) or ``0.1sd`` (standardized)."""
    from bayescomp.core.margins import parse_margin

    try:
        return parse_margin(text)  # checked by the library's door (check_request)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def rope_note(margin: Margin) -> str:
    """One line saying what the chosen ROPE means for the decisions.

    Examples
    --------
    >>> from bayescomp.core.margins import Absolute
    >>> rope_note(Absolute(0.01))[:40]
    'ROPE ±0.01 (--rope): differences within '
    """
    from bayescomp.core.margins import Absolute, Relative

    label = margin.label()
    if not isinstance(margin, Absolute):  # a margin resolved per comparison
        on = "ratio to the baseline" if isinstance(margin, Relative) else "difference"
        return f"ROPE {label} (--rope): a {on} within it counts as practically equivalent."
    if margin == 0:
        return (
            "ROPE ±0 (--rope 0): no difference is too small to matter, so 'equivalent' "
            "is impossible and any difference the posterior is sure of decides."
        )
    return (
        f"ROPE {label} (--rope): differences within {label} count as practically "
        "equivalent; 'promote' needs the candidate better by more than that."
    )


#: dests of a parsed command that are not flags (positional inputs, the dispatch)
NOT_FLAGS: frozenset[str] = frozenset({"command", "func", "inputs", "source", "file", "scores"})


def flag_of(dest: str) -> str:
    """The flag of an argument's ``dest``, by argparse's own rule (``--test-fraction`` gives
    ``test_fraction``; ``flag_of`` goes back).  Every flag of bayescomp follows it."""
    return "--" + dest.replace("_", "-")


def error_text(exc: BaseException, args: argparse.Namespace) -> str:
    """A library error in the command's words.

    An :class:`~bayescomp.core.exceptions.InvalidArgumentError` carries the argument's name:
    when the command has that flag, the message names the flag (``--test-fraction must lie
    in (0, 1)``).  Any other message keeps its wording, with the keyword arguments it
    mentions that are flags of this command written as flags (:func:`in_flags`).
    """
    from bayescomp.core.exceptions import InvalidArgumentError

    flags = {d: flag_of(d) for d in vars(args) if d not in NOT_FLAGS}
    if not getattr(args, "predictions", True):  # no predictions read: y_true is sklearn's
        flags = {d: f for d, f in flags.items() if d not in ("y_true", "pred")}
    if isinstance(exc, InvalidArgumentError) and exc.argument in flags:
        return exc.named(flags[exc.argument])
    msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
    return in_flags(str(msg), flags)


def in_flags(message: str, flags: dict[str, str]) -> str:
    """Say a free-text library error in the command's words: ``metric=`` becomes
    ``--metric``, ``threshold=0.5`` ``--threshold 0.5``, ``y_pred_or_score`` the ``--pred``
    column, for every keyword in ``flags`` (``{dest: flag}``; others are left as they are).

    Examples
    --------
    >>> flags = {"test_fraction": "--test-fraction", "metric": "--metric"}
    >>> in_flags("pass test_fraction= (e.g. 0.1); choose one with metric=", flags)
    'pass --test-fraction (e.g. 0.1); choose one with --metric'
    >>> in_flags("threshold=0.5 is outside the scores", flags)
    'threshold=0.5 is outside the scores'
    >>> in_flags("test_fraction must lie in (0, 1), got 2.0", flags)
    '--test-fraction must lie in (0, 1), got 2.0'
    >>> in_flags("name it with metric= (CLI: --metric)", flags)
    'name it with --metric'
    """
    import re

    for arg, dest in (("y_pred_or_score", "pred"), ("y_true", "y_true")):  # data arguments
        if dest in flags:
            # not a quoted name: "column 'y_true' is not in p.csv" names the column
            message = re.sub(
                rf"(?<![\w.'\"-]){arg}(?![\w=\"]|'(?!s\b))", f"the {flags[dest]} column", message
            )
    if "higher_is_better" in flags:
        message = re.sub(
            r"(?<![\w-])higher_is_better=(True or False|True|False)?",
            "--higher-is-better or --lower-is-better",
            message,
        )

    def swap(m: re.Match) -> str:
        name, value = m.group(1), m.group(2)
        if name not in flags:
            return m.group(0)
        return flags[name] + (f" {value}" if value else "")

    message = re.sub(r" \(CLI: --[a-z-]+\)", "", message)  # the command says its own flags
    message = re.sub(r"(?<![\w.-])([a-z][a-z0-9_]*)=([^\s,;)]*)", swap, message)
    # "test_fraction must lie in (0, 1)": an argument named as the subject of a sentence
    return re.sub(
        r"(?<![\w.-])([a-z][a-z0-9_]*_[a-z0-9_]+|metric|threshold|rope|gamma)"
        r"(?= must | is not | should )",
        lambda m: flags.get(m.group(1), m.group(1)),
        message,
    )


#: a comparison table's columns after the candidate, its score and the mean difference
INTERVAL_COLUMNS = ["95% HDI", "P(left)", "P(rope)", "P(right)", "P(better)", "decision"]


def comparison_row(
    r: Any,
    d: Any,
    score: str,
    mean: float,
    hdi: tuple[float, float],
    gamma: float | None = None,
    rope: str | bool = False,
) -> list[str]:
    """One candidate's cells: its name, ``score``, the mean difference, the HDI, the four
    probabilities (printed so as not to contradict ``gamma``), its ``rope`` when the
    candidates' differ, and the decision."""
    from bayescomp.core.regions import format_probability

    probs = (r.p_left, r.p_rope, r.p_right, r.p_better)
    return [
        r.candidate_name,
        score,
        f"{mean:+.4f}",
        f"[{hdi[0]:+.4f}, {hdi[1]:+.4f}]",
        *(format_probability(p, gamma) for p in probs),
        *([rope] if rope else []),
        d.outcome,
    ]


def difference_headers(margin: Margin, higher_is_better: bool) -> tuple[str, str, str]:
    """The headers of a scores table's mean and interval, and the sentence saying what they
    are: the log ratio under a relative margin (the posterior's scale), else the difference.

    >>> from bayescomp.core.margins import Relative
    >>> difference_headers(Relative(0.01), True)[:2]
    ('mean log ratio', '95% HDI (log ratio)')
    """
    from bayescomp.core.margins import Relative

    a, b = ("candidate", "baseline") if higher_is_better else ("baseline", "candidate")
    low = "" if higher_is_better else " (lower is better)"
    if isinstance(margin, Relative):
        return "mean log ratio", "95% HDI (log ratio)", f"Log ratios are log({a} / {b}){low}."
    return "mean diff", INTERVAL_COLUMNS[0], f"Differences are {a} − {b}{low}."


def aligned(rows: list[list[str]], columns: list[str], gap: str = " ") -> list[str]:
    """A text table as lines: the header, a rule, then the rows, every column left-aligned
    and separated by ``gap`` (a cell stays one element, even with a newline in a name, so
    that :func:`~bayescomp.core.text.terminal_literal` keeps its row on one line).

    >>> aligned([["lr", "0.9"]], ["model", "score"])
    ['model score', '-----------', 'lr    0.9  ']
    """
    widths = [max(len(c), *(len(row[i]) for row in rows)) for i, c in enumerate(columns)]
    head = gap.join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    body = [gap.join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in rows]
    return [head, "-" * len(head), *body]


class DefaultsHelp(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` with a flag's default where it means something: not for a required
    flag, a switch (``--lower-is-better``), a default of None, False or [] (computed or
    absent), nor one the help text already states."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default  # by identity: a default of 0 means something, False not
        if action.required or action.nargs == 0 or default is None or default is False:
            return text
        if default == [] or "default" in text:
            return text
        return super()._get_help_string(action)

    def _expand_help(self, action: argparse.Action) -> str:
        if "%(choices)" not in (action.help or ""):  # LazyChoices are read where shown only
            action = copy.copy(action)
            action.choices = None
        return super()._expand_help(action)


class LazyChoices:
    """A flag's choices, read when argparse first needs them (so ``bayescomp --help`` imports
    no library): ``"methods"``, ``auto`` and every method of the compare registry;
    ``"outcomes"``, the decision outcomes."""

    def __init__(self, of: str) -> None:
        self.of = of

    def __iter__(self) -> Any:
        if self.of == "outcomes":
            from bayescomp.core.rule import OUTCOMES

            return iter(OUTCOMES)
        from bayescomp.posterior.registry import methods

        return iter(("auto", *methods()))

    def __contains__(self, name: object) -> bool:
        return name in list(self)
