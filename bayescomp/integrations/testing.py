"""Model tests with three outcomes (``docs/testing.md``): each assertion runs a seeded
:func:`bayescomp.compare` and returns the posterior (pass), raises ``AssertionError`` (fail)
or ``InconclusiveComparison`` (which the pytest plugin fails, xfails or skips)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bayescomp.core.exceptions import InconclusiveComparison
from bayescomp.core.margins import Margin, parse_margin

__all__ = ["assert_better", "assert_not_worse", "read_table"]


def read_table(table: Any) -> Any:
    """A ``Scores`` table or DataFrame (scores, or item-level predictions) as is; a path: a
    scores CSV, or a selection's SQLite store (``--store``: its successful fits)."""
    if not isinstance(table, str | Path):
        return table
    from bayescomp.scores.table import Scores
    from bayescomp.studies.store import ResultStore

    path = Path(table)
    if not path.is_file():
        raise FileNotFoundError(f"no scores CSV or store at {path}")
    if path.suffix.lower() not in (".sqlite", ".sqlite3", ".db"):
        return Scores.read_csv(path)
    with ResultStore(path) as store:
        f = store.fits_frame()
    f = f[f["error"].isna()].drop(columns=["fit_id", "run_id", "finished_at", "error"])
    return Scores.from_frame(f)


def describe(res: Any, gamma: float, margin: Margin) -> str:
    """The posterior in three lines: the regions, the interval, the decision (``margin``:
    the ROPE as asked, its half-width the posterior's)."""
    from bayescomp.core.regions import format_probability as fp

    d, (lo, hi) = res.decision(gamma), res.hdi(0.95)
    return (
        f"{res.candidate_name} vs {res.baseline_name} on {res.metric} (ROPE "
        f"{margin.label(res.half_width)}, gamma {gamma:g}):\n  P(better beyond ROPE) = "
        f"{fp(d.p_right, gamma)}, P(ROPE) = {fp(d.p_rope, gamma)}, P(worse beyond ROPE) = "
        f"{fp(d.p_left, gamma)}\n  mean difference {float(res.expected_gain):+.4g}, 95% "
        f"interval [{lo:+.4g}, {hi:+.4g}]\n  decision: {d.outcome}: {d.reason}"
    )


def _check(kind: str, table: Any, names: tuple, rope: Any, gamma: float, **kw: Any) -> Any:
    from bayescomp.posterior.compare import compare

    margin = parse_margin(rope)  # parsed once: compare's door checks it, the failure names it
    res = compare(read_table(table), *names, rope=margin, **{"random_state": 0, **kw})
    d = res.decision(gamma)
    if d.outcome == "promote" or (kind == "assert_not_worse" and d.not_worse):
        return res
    failed = d.outcome == "worse" or (kind == "assert_better" and d.outcome == "equivalent")
    text = f"{kind} failed: {describe(res, gamma, margin)}"
    raise (AssertionError if failed else InconclusiveComparison)(text)


def assert_better(
    table: Any, *, baseline: str, candidate: str, rope: Any, metric: str | None = None,
    gamma: float = 0.95, **compare_options: Any,
) -> Any:  # fmt: skip
    """Pass when ``candidate`` is better beyond the ROPE (``P(better beyond ROPE) >=
    gamma``, the decision *promote*); fail when decided worse or equivalent; else
    inconclusive.  Returns the posterior.

    >>> import numpy as np, pandas as pd, bayescomp as bc
    >>> b = 0.80 + 0.01 * np.sin(np.arange(20))
    >>> f = pd.DataFrame({"model": np.repeat(["lr", "gbm"], 20), "split": np.tile(range(20), 2),
    ...                   "accuracy": np.r_[b, b + 0.03 + 0.002 * np.cos(np.arange(20))]})
    >>> s = bc.Scores.from_frame(f, test_fraction=0.1)
    >>> assert_better(s, baseline="lr", candidate="gbm", rope="1%").decision().outcome
    'promote'
    """
    names = (baseline, candidate)
    return _check("assert_better", table, names, rope, gamma, metric=metric, **compare_options)


def assert_not_worse(
    table: Any, *, baseline: str, candidate: str, rope: Any, metric: str | None = None,
    gamma: float = 0.95, **compare_options: Any,
) -> Any:  # fmt: skip
    """Pass when ``candidate`` is not worse beyond the ROPE (``P(ROPE) + P(better beyond
    ROPE) >= gamma``, non-inferiority); fail when ``P(worse beyond ROPE) >= gamma``; else
    inconclusive.  Returns the posterior."""
    names = (baseline, candidate)
    return _check("assert_not_worse", table, names, rope, gamma, metric=metric, **compare_options)
