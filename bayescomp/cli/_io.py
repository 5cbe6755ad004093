"""Shared helpers of the CSV-reading sub-commands: read, pick a column, parse, save a plot.

Every error is a :class:`bayescomp.cli.main.UserError`, printed as one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescomp.cli.main import UserError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np


def read_csv(path: str) -> Any:
    """Read ``path`` as a non-empty CSV file into a DataFrame."""
    from bayescomp.scores.csvio import read_frame

    p = Path(path)
    if not p.is_file():
        raise UserError(f"no such CSV file: {path}")
    try:
        frame = read_frame(p, spreadsheet=True)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if frame.empty:
        raise UserError(f"{path} has no rows")
    return frame


def column(frame: Any, name: str, path: str) -> np.ndarray:
    """Column ``name`` of ``frame`` (read from ``path``) as an array, with no empty value."""
    if name not in frame.columns:
        raise UserError(f"column {name!r} not in {path}; columns are {list(frame.columns)}")
    col = frame[name]
    if col.isna().any():
        raise UserError(f"column {name!r} of {path} has {int(col.isna().sum())} empty value(s)")
    return col.to_numpy()


def output_file(example: str) -> Any:
    """argparse ``type=`` of a flag that names one output file (``--plot``, ``--out``,
    ``--save-scores``): an existing directory is refused, naming a file ``example`` inside
    it, instead of writing e.g. ``DIR.png`` beside it."""
    import argparse

    def check(value: str) -> str:
        if Path(value).is_dir():
            raise argparse.ArgumentTypeError(
                f"{value!r} is a directory; give a file name inside it (e.g. "
                f"{str(Path(value) / example)!r})"
            )
        return value

    return check


def parse_label(value: str | None, like: np.ndarray) -> Any:
    """Parse ``--pos-label`` to the dtype of the label column."""
    if value is None:
        return 1
    if like.dtype.kind in "iub":
        try:
            return int(value)
        except ValueError:
            return value
    if like.dtype.kind == "f":
        return float(value)
    return value


def write_outputs(args: Any, table: Any, draw: Any, **csv_kwargs: Any) -> None:
    """The files a metrics command writes on request: ``--out`` (the table, as CSV) and
    ``--plot`` (``draw()``'s figure, drawn only when asked for)."""
    from bayescomp.scores.csvio import write_frame  # spreadsheet formula prefixes neutralised

    if args.out:
        write_frame(table, args.out, **csv_kwargs)
        print(f"table written to {args.out}")
    if args.plot:
        save_plot(draw(), args.plot)


def save_plot(ax: Any, path: str) -> None:
    """Write the figure of ``ax`` (an axes or an array of axes) to ``path``."""
    from bayescomp.report.templating import figure_of

    fig = figure_of(ax)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"plot written to {path}")


def write_plots(results: list[Any], folder: Path) -> list[Path]:
    """Every plot of every result as PNG files named ``<candidate>_vs_<baseline>_<kind>.png``."""
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for r in results:
        stem = f"{r.candidate_name}_vs_{r.baseline_name}".replace(" ", "_").replace("/", "_")
        for kind, fig in r.figures().items():
            path = folder / f"{stem}_{kind}.png"
            fig.savefig(path, dpi=110)
            plt.close(fig)
            written.append(path)
    return written


def emit(
    args: Any,
    decisions: list[Any],
    records: Any,
    text: Any,
    results: list[Any] | None = None,
    figure: Any = None,
) -> int:
    """How a comparison sub-command ends: with ``results``, ``--plot`` (``figure(result)``,
    by default the result's first figure) and ``--plots``; then ``records()`` as JSON
    (``--json``) or ``text()``; returns 1 when a decision is not ``--fail-unless``."""
    import json
    import sys

    from bayescomp.core.jsonable import jsonable

    if results is not None and args.plot:
        if len(results) != 1:
            raise UserError("--plot draws one comparison; name one --candidate")
        first = figure or (lambda r: next(iter(r.figures().values())))
        first(results[0]).savefig(args.plot, dpi=110)
    if results is not None and args.plots:
        written = write_plots(results, Path(args.plots))
        if not args.json:
            print(f"wrote {len(written)} plot(s) to {args.plots}", file=sys.stderr)
    markdown = getattr(args, "format", None) == "markdown"
    if (getattr(args, "comment_file", None) or markdown) and (
        results is None or getattr(args, "guardrail", None)
    ):
        raise UserError("--format markdown and --comment-file show comparisons, not --guardrail")
    if results is not None and (getattr(args, "comment_file", None) or markdown):
        from bayescomp.report.markdown import comparison_markdown

        rows = [(r, d.outcome, d.reason) for r, d in zip(results, decisions, strict=True)]
        md = comparison_markdown(rows, args.rope, args.gamma)
        if args.comment_file:
            Path(args.comment_file).write_text(md, encoding="utf-8")
        text = (lambda: md) if markdown else text
    if args.json:
        out = jsonable(records())
        json.dump(out, sys.stdout, indent=2)  # one shape: a record per candidate
        print()
    else:
        print(text())
    return int(bool(args.fail_unless) and any(d.outcome != args.fail_unless for d in decisions))


def add_output_flags(p: Any, out: str, plot: str) -> None:
    """``--out`` (a CSV; ``out`` is its help) and ``--plot`` (a PNG; ``plot``)."""
    p.add_argument("--out", type=output_file("table.csv"), help=out)
    p.add_argument("--plot", type=output_file("plot.png"), metavar="FILE.png", help=plot)


def json_record(r: Any, d: Any) -> dict[str, Any]:
    """The result's record (:meth:`to_dict`) with the decision at the chosen gamma."""
    from bayescomp.core.jsonable import jsonable

    row = r.to_dict()
    row.update(
        decision=d.outcome,
        reason=d.reason,
        risk=d.risk,
        expected_gain=d.expected_gain,
        gamma=d.gamma,
    )
    return jsonable(row)
