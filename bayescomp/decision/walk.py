"""The champion/challenger walk: one posterior per challenger, promote only what is better.

:func:`walk` runs the steps of :func:`bayescomp.select` over any :class:`StepSource` —
:class:`TableSource` for a table of precomputed scores, the study's fitted runs (which
fit on demand and add seeded repetitions of the design) otherwise.  Each step compares
the challenger with the current champion through a ``compare`` callable (usually
:func:`compare_step`) and decides with the rule of :func:`bayescomp.decide`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from bayescomp.core.protocols import ScoresProvider

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.core.rule import Decision

ORDERS = ("given", "name", "mean")
STEP_COLUMNS = ["step", "champion", "challenger", "p_better", "p_left", "p_rope", "p_right",
                "risk", "expected_gain", "decision", "reason", "fits", "n_splits",
                "extra_repeats"]
#: the mean score of each model over the step's paired splits (what the posterior saw),
#: shown beside the decision; kept out of STEP_COLUMNS, the columns the store records
SCORE_COLUMNS = ["champion_score", "challenger_score"]
PAIRED_COLUMNS = ["dataset", "split", "champion", "challenger"]

Compare = Callable[[ScoresProvider, str, str], "tuple[Any, Decision]"]


class StepSource(Protocol):
    """Where the walk gets the scores of a step."""

    def failure(self, model: str) -> str | None:
        """Why ``model`` cannot be compared (e.g. its fits failed), or None."""

    def step_scores(self, champion: str, challenger: str, repeats: int
                    ) -> ScoresProvider | None:
        """Scores of both models on the base design plus ``repeats`` extra repetitions
        (computing what is missing); None when a fit of the last repetition failed."""

    def charge(self, models: list[str], repeats: int) -> int:
        """Number of fits of ``models`` on those repetitions not charged to an earlier step
        (they are charged to this one)."""


class TableSource:
    """A table of precomputed scores: nothing to fit, no extra repetition."""

    def __init__(self, table: ScoresProvider):
        self.table = table

    def failure(self, model: str) -> str | None:
        return None

    def step_scores(self, champion: str, challenger: str, repeats: int) -> ScoresProvider:
        return self.table

    def charge(self, models: list[str], repeats: int) -> int:
        return 0


@dataclass(frozen=True)
class Walk:
    """Outcome of :func:`walk`: the steps table, each step's posterior (None for a step
    that could not be compared) and paired scores, and the final champion."""

    steps: pd.DataFrame
    results: list[Any]
    paired: list[pd.DataFrame]
    champion: str


def order_challengers(challengers: list[str], order: str, means: Mapping[str, float],
                      hib: bool) -> list[str]:
    """Challengers as given, by name, or by mean score (best first; ties keep the given
    order, models without a finite mean last).

    Examples
    --------
    >>> order_challengers(["b", "a", "c"], "mean", {"a": 0.7, "b": 0.9, "c": 0.8}, True)
    ['b', 'c', 'a']
    """
    if order == "name":
        return sorted(challengers)
    if order == "mean":
        sign = -1.0 if hib else 1.0
        return sorted(challengers, key=lambda m: sign * means.get(m, np.nan)
                      if np.isfinite(means.get(m, np.nan)) else np.inf)
    return list(challengers)


def compare_step(scores: ScoresProvider, champion: str, challenger: str, *, metric: str,
                 rope: float, gamma: float, hib: bool, method: str,
                 options: dict[str, Any] | None = None) -> tuple[Any, Decision]:
    """Posterior of ``challenger - champion`` (:func:`bayescomp.compare`) and its decision.

    ``options`` are further keyword arguments of :func:`bayescomp.compare`; its key
    ``guardrails`` (``{metric: rope}``) makes the step a joint comparison of ``metric`` and
    those guardrails (``docs/guardrails.md``).
    """
    from bayescomp.posterior.compare import compare

    kwargs: dict[str, Any] = dict(metric=metric, rope=rope, higher_is_better=hib)
    kwargs.update(options or {})
    guardrails = kwargs.pop("guardrails", None)
    if guardrails:  # the joint posterior of the primary metric and its guardrails
        kwargs.update(metric=[metric, *guardrails], rope={metric: rope, **guardrails},
                      higher_is_better={metric: hib})
    if method != "auto":
        kwargs["method"] = method
    res = compare(scores, champion, challenger, **kwargs)
    return res, res.decision(gamma)


def step_row(step: int, champion: str, challenger: str, res: Any, d: Decision | None,
             fits: int, n_splits: int, extra: int, reason: str,
             means: tuple[float, float] = (float("nan"), float("nan"))) -> dict[str, Any]:
    """One row of the steps table (``d`` None: the step could not be compared);
    ``means`` are the mean scores of champion and challenger on the step's splits."""
    p_better = getattr(res, "p_better", None) if res is not None else None
    nan = float("nan")
    fields = d.step_fields() if hasattr(d, "step_fields") else {}  # guardrails, utility
    return fields | {
        "step": step, "champion": champion, "challenger": challenger,
        "champion_score": float(means[0]), "challenger_score": float(means[1]),
        "p_better": float(p_better) if p_better is not None else (1 - d.risk if d else nan),
        "p_left": d.p_left if d else nan, "p_rope": d.p_rope if d else nan,
        "p_right": d.p_right if d else nan, "risk": d.risk if d else nan,
        "expected_gain": d.expected_gain if d else nan,
        "decision": d.outcome if d else "error", "reason": reason, "fits": fits,
        "n_splits": n_splits, "extra_repeats": extra,
    }


def _decide_step(source: StepSource, champion: str, challenger: str, compare: Compare,
                 max_repeats: int) -> tuple[ScoresProvider, Any, Decision, int]:
    """Compare, adding repetitions while inconclusive and the budget allows; a failed
    fit on an extra repetition decides on the repetitions before it."""
    extra = 0
    while True:
        sc = source.step_scores(champion, challenger, extra)
        if sc is None:
            extra = max(extra - 1, 0)
            sc = source.step_scores(champion, challenger, extra)
            res, d = compare(sc, champion, challenger)
            return sc, res, d, extra
        res, d = compare(sc, champion, challenger)
        if d.outcome != "inconclusive" or extra >= max_repeats:
            return sc, res, d, extra
        extra += 1


def _guard_note(d: Decision) -> str:
    """The guardrails' outcome (and the cost-aware decision), for a guarded step's reason."""
    note = f" [guardrails: {d.guardrails}]" if getattr(d, "guardrails", "") else ""
    utility = getattr(d, "utility", None)
    return note + (f" [cost-aware: {utility}]" if utility is not None else "")


def _repeat_note(d: Decision, extra: int, max_repeats: int, n_splits: int) -> str:
    if not max_repeats:
        return ""
    if extra:
        note = f" — after {extra} extra repetition(s) of the design ({n_splits} paired splits)"
    else:
        note = " — decided on the base design, no extra repetition needed"
    if d.outcome == "inconclusive" and extra >= max_repeats:
        note += f"; the budget of {max_repeats} extra repetition(s) is spent"
    return note


def walk(source: StepSource, baseline: str, challengers: list[str], *, metric: str,
         compare: Compare, max_repeats: int = 0,
         on_step: Callable[[dict[str, Any], Any, pd.DataFrame], None] | None = None) -> Walk:
    """Walk ``challengers`` against the champion (first ``baseline``); a challenger becomes
    champion when its step decides *promote*.

    A challenger that ``source.failure`` reports is not compared (its step is *error*).
    With ``max_repeats > 0`` an inconclusive step asks ``source`` for up to that many
    extra repetitions of the design and decides again.  ``on_step(row, result, paired)``
    is called as soon as each step is decided (e.g. a
    :class:`~bayescomp.core.protocols.SelectionTracker`'s ``on_step``).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from functools import partial
    >>> from bayescomp.scores.table import Scores
    >>> rng = np.random.default_rng(0)
    >>> base = 0.8 + 0.01 * rng.standard_normal(20)
    >>> f = pd.DataFrame({"dataset": "d", "model": np.repeat(["a", "b"], 20),
    ...                   "split": np.tile(np.arange(20), 2), "n_train": 90, "n_test": 10,
    ...                   "acc": np.r_[base, base + 0.05 + 0.005 * rng.standard_normal(20)]})
    >>> cmp = partial(compare_step, metric="acc", rope=0.01, gamma=0.95, hib=True,
    ...               method="auto")
    >>> w = walk(TableSource(Scores(f, metrics=["acc"])), "a", ["b"], metric="acc",
    ...          compare=cmp)
    >>> w.champion, w.steps["decision"].tolist()
    ('b', ['promote'])
    """
    import pandas as pd

    champion = baseline
    rows, results, paired = [], [], []
    source.charge([baseline], 0)
    for step, challenger in enumerate(challengers, start=1):
        why = source.failure(challenger)
        if why is not None:
            rows.append(step_row(step, champion, challenger, None, None,
                                 source.charge([challenger], 0), 0, 0,
                                 f"{challenger} was not compared: {why}"))
            results.append(None)
            paired.append(pd.DataFrame(columns=PAIRED_COLUMNS))
            if on_step is not None:
                on_step(rows[-1], None, paired[-1])
            continue
        sc, res, d, extra = _decide_step(source, champion, challenger, compare, max_repeats)
        pf = sc.paired(champion, challenger, metric)
        fits = source.charge([champion, challenger], extra)
        reason = d.reason + _guard_note(d) + _repeat_note(d, extra, max_repeats, len(pf))
        means = (float(pf["baseline"].mean()), float(pf["candidate"].mean()))
        rows.append(step_row(step, champion, challenger, res, d, fits, len(pf), extra, reason,
                             means))
        results.append(res)
        paired.append(pf.rename(columns={"baseline": "champion", "candidate": "challenger"})
                      [PAIRED_COLUMNS])
        if on_step is not None:
            on_step(rows[-1], res, paired[-1])
        if d.outcome == "promote":
            champion = challenger
    columns = STEP_COLUMNS[:3] + SCORE_COLUMNS + STEP_COLUMNS[3:]
    extras = list(dict.fromkeys(k for r in rows for k in r if k not in columns))
    return Walk(pd.DataFrame(rows, columns=columns + extras), results, paired, champion)


def recommend(scores: ScoresProvider, baseline: str, champion: str, steps: pd.DataFrame, *,
              compare: Compare, metric: str, rope: float, gamma: float) -> dict[str, Any]:
    """Final action: keep the baseline, or promote the champion (compared directly with the
    baseline on ``scores``), with a sentence saying why."""
    if champion == baseline:
        open_ = steps[(steps["decision"] == "inconclusive") & (steps["expected_gain"] > 0)]
        text = (f"keep {baseline}: no challenger was better beyond the ROPE (±{rope:g}) with "
                f"probability ≥ {gamma:g}")
        if not open_.empty:
            r = open_.sort_values("expected_gain").iloc[-1]
            text += (f". Closest: {r['challenger']} (inconclusive, expected gain "
                     f"{r['expected_gain']:+.4g}, risk P(worse) = {r['risk']:.3f})")
        return {"action": "keep", "champion": baseline, "baseline": baseline, "text": text,
                "p_better": None, "p_left": None, "p_rope": None, "p_right": None,
                "risk": None, "expected_gain": None}
    res, d = compare(scores, baseline, champion)
    p_better = float(getattr(res, "p_better", 1 - d.risk))
    text = (f"promote {champion} to replace {baseline}: against {baseline} on the base design "
            f"P(better) = {p_better:.3f}, P(better beyond ±{rope:g}) = {d.p_right:.3f}, "
            f"expected gain {d.expected_gain:+.4g} {metric}, risk P(worse) = {d.risk:.3f}")
    extra = d.step_fields() if hasattr(d, "step_fields") else {}
    if "p_joint" in extra:
        text += f", P(that and every guardrail held) = {extra['p_joint']:.3f}"
    return {"action": "promote", "champion": champion, "baseline": baseline, "text": text,
            "p_better": p_better, "p_left": d.p_left, "p_rope": d.p_rope, "p_right": d.p_right,
            "risk": d.risk, "expected_gain": d.expected_gain, "direct_decision": d.outcome,
            **extra}
