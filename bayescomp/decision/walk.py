"""The pure selection walk: decide over a table of scores, fit nothing.

A *rule* takes a scores table, the baseline and the challengers and returns a
:class:`Walk` (the steps table, each step's posterior and paired scores, the champion).
:func:`champion_challenger` is the per-step rule (the rules by name:
:data:`bayescomp.decision.family_walk.RULES`): each challenger is
compared with the current champion through the step engine ``compare``
(:class:`~bayescomp.decision.steps.Steps`) and becomes champion when the rule of :func:`bayescomp.decide`
says *promote*.

Sequential repetitions.  A fitted table may hold extra seeded repetitions of the
design (column ``block``: 0 the design, k its k-th repetition; see
:func:`bayescomp.cross_validate_paired`).  A rule decides on what the table holds and
names in :attr:`Walk.pending` the models that need one more block before it can go
on; :func:`bayescomp.select_models` fits that block and calls the rule again (a
short loop), until nothing is pending.  A racing rule drops clear losers simply by
leaving them out of ``pending``.

Writing a rule (the interface a family-wise rule plugs into)::

    def my_rule(scores, baseline, challengers, *, metric, compare, max_repeats) -> Walk: ...

* ``scores`` is a :class:`~bayescomp.scores.table.Scores` table; models may cover
  different numbers of blocks (use :func:`step_table` to compare two models on the
  blocks both have);
* ``compare(table, champion, challenger)`` returns ``(posterior, Decision)`` and
  ``compare.joint(challengers, paired)`` the challengers' joint posterior
  (:class:`~bayescomp.decision.steps.Steps`);
* ``max_repeats`` is the budget of extra blocks per comparison;
* return rows built with :func:`step_row` (``fits`` is filled in by the caller),
  ``pending`` = the models to fit one more block for (empty when final) and
  ``final`` = how many leading steps will not change any more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from bayescomp.core.protocols import ScoresProvider

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.core.rule import Decision
    from bayescomp.decision.steps import Steps
    from bayescomp.scores.table import Scores

ORDERS = ("given", "name", "mean")
STEP_COLUMNS = [
    "step",
    "champion",
    "challenger",
    "p_better",
    "p_left",
    "p_rope",
    "p_right",
    "risk",
    "expected_gain",
    "decision",
    "reason",
    "fits",
    "n_splits",
    "extra_repeats",
]
#: the mean score of each model over the step's paired splits (what the posterior saw),
#: shown beside the decision; kept out of STEP_COLUMNS, the columns the store records
SCORE_COLUMNS = ["champion_score", "challenger_score"]
PAIRED_COLUMNS = ["dataset", "split", "champion", "challenger"]


@dataclass(frozen=True)
class Walk:
    """Outcome of a rule: the steps table, each step's posterior (None for a step that
    could not be compared) and paired scores, and the champion.

    ``pending``: models that need one more block of repetitions before the rule can go
    on (empty: the walk is final); ``final``: how many leading steps are final (all
    when None).
    """

    steps: pd.DataFrame
    results: list[Any]
    paired: list[pd.DataFrame]
    champion: str
    pending: tuple[str, ...] = ()
    final: int | None = None


class Rule(Protocol):
    """A selection rule: a pure function of a scores table (module docstring)."""

    def __call__(
        self,
        scores: Scores,
        baseline: str,
        challengers: Sequence[str],
        *,
        metric: str,
        compare: Steps,
        max_repeats: int,
    ) -> Walk: ...


def order_challengers(
    challengers: list[str], order: str, means: Mapping[str, float], hib: bool
) -> list[str]:
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
        return sorted(
            challengers,
            key=lambda m: (
                sign * means.get(m, np.nan) if np.isfinite(means.get(m, np.nan)) else np.inf
            ),
        )
    return list(challengers)


def step_row(
    step: int,
    champion: str,
    challenger: str,
    res: Any,
    d: Decision | None,
    fits: int,
    n_splits: int,
    extra: int,
    reason: str,
    paired: pd.DataFrame | None = None,
) -> dict[str, Any]:
    """One row of the steps table (``d`` None: the step could not be compared), with the
    scores of champion and challenger the posterior saw (its own, else the means of the
    ``paired`` scores)."""
    nan = float("nan")
    means = (nan, nan)
    if res is not None and res.baseline_score is not None:
        means = (res.baseline_score, res.candidate_score)
    elif paired is not None:
        means = (paired["baseline"].mean(), paired["candidate"].mean())
    fields = d.step_fields() if d is not None else {}  # guardrails, utility
    return fields | {
        "step": step,
        "champion": champion,
        "challenger": challenger,
        "champion_score": float(means[0]),
        "challenger_score": float(means[1]),
        "p_better": float(res.p_better) if res is not None else nan,
        "p_left": d.p_left if d else nan,
        "p_rope": d.p_rope if d else nan,
        "p_right": d.p_right if d else nan,
        "risk": d.risk if d else nan,
        "expected_gain": d.expected_gain if d else nan,
        "rope": res.half_width if res is not None else nan,  # the margin resolved
        "decision": d.outcome if d else "error",
        "reason": reason,
        "fits": fits,
        "n_splits": n_splits,
        "extra_repeats": extra,
    }


def blocked_scores(scores: Scores) -> pd.DataFrame:
    f = scores.to_frame()
    if "block" not in f.columns:
        f["block"] = 0
    return f


def failure(frame: pd.DataFrame, model: str) -> str | None:
    """Why ``model`` cannot be compared: the ``error`` of its failed fits on the design."""
    if "error" not in frame.columns:
        return None
    bad = frame[(frame["model"] == model) & (frame["block"] == 0) & frame["error"].notna()]
    if bad.empty:
        return None
    first = bad.iloc[0]
    return f"its fit failed on {len(bad)} split(s) (split {first['split']}: {first['error']})"


def usable_blocks(frame: pd.DataFrame, a: str, b: str, max_repeats: int) -> tuple[int, bool]:
    """How many extra blocks (at most ``max_repeats``) both models have, complete and
    without a failed fit; and whether the next block was already tried (it failed)."""
    k = 0
    while k < max_repeats:
        nxt = frame[(frame["block"] == k + 1) & frame["model"].isin([a, b])]
        if set(nxt["model"]) != {a, b}:
            return k, False
        if "error" in nxt.columns and nxt["error"].notna().any():
            return k, True
        k += 1
    return k, False


def step_table(scores: Scores, a: str, b: str, blocks: int) -> Scores:
    """The scores of models ``a`` and ``b`` on the design and its first ``blocks`` extra
    blocks (what a step between them compares)."""
    f = blocked_scores(scores)
    return scores.rows((f["model"].isin([a, b]) & (f["block"] <= blocks)).to_numpy())


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


def champion_challenger(
    scores: Scores,
    baseline: str,
    challengers: Sequence[str],
    *,
    metric: str,
    compare: Steps,
    max_repeats: int = 0,
) -> Walk:
    """The champion/challenger rule: walk ``challengers`` against the champion (first
    ``baseline``); a challenger becomes champion when its step decides *promote*.

    A challenger whose fits on the design failed (column ``error``) is not compared (its
    step is *error*).  A step uses the extra blocks both its models have (at most
    ``max_repeats``); an inconclusive step that could use one more is *pending*: the
    walk names its two models in :attr:`Walk.pending` and goes on provisionally.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from bayescomp.decision.steps import ScoreSteps
    >>> from bayescomp.posterior.request import check_request
    >>> from bayescomp.scores.table import Scores
    >>> rng = np.random.default_rng(0)
    >>> base = 0.8 + 0.01 * rng.standard_normal(20)
    >>> f = pd.DataFrame({"dataset": "d", "model": np.repeat(["a", "b"], 20),
    ...                   "split": np.tile(np.arange(20), 2), "n_train": 90, "n_test": 10,
    ...                   "acc": np.r_[base, base + 0.05 + 0.005 * rng.standard_normal(20)]})
    >>> steps = ScoreSteps(check_request(metric="acc", rope=0.01, higher_is_better=True))
    >>> w = champion_challenger(Scores(f, metrics=["acc"]), "a", ["b"], metric="acc",
    ...                         compare=steps)
    >>> w.champion, w.steps["decision"].tolist(), w.pending
    ('b', ['promote'], ())
    """
    import pandas as pd

    frame = blocked_scores(scores)
    champion = baseline
    rows, results, paired = [], [], []
    pending: tuple[str, ...] = ()
    final = None
    for step, challenger in enumerate(challengers, start=1):
        why = failure(frame, challenger)
        if why is not None:
            rows.append(
                step_row(
                    step,
                    champion,
                    challenger,
                    None,
                    None,
                    0,
                    0,
                    0,
                    f"{challenger} was not compared: {why}",
                )
            )
            results.append(None)
            paired.append(pd.DataFrame(columns=PAIRED_COLUMNS))
            continue
        extra, tried = usable_blocks(frame, champion, challenger, max_repeats)
        sc = step_table(scores, champion, challenger, extra)
        res, d = compare(sc, champion, challenger)
        if not pending and d.outcome == "inconclusive" and extra < max_repeats and not tried:
            pending, final = (champion, challenger), step - 1
        pf = sc.paired(champion, challenger, metric)
        reason = d.reason + d.step_note() + _repeat_note(d, extra, max_repeats, len(pf))
        rows.append(step_row(step, champion, challenger, res, d, 0, len(pf), extra, reason, pf))
        results.append(res)
        paired.append(
            pf.rename(columns={"baseline": "champion", "candidate": "challenger"})[PAIRED_COLUMNS]
        )
        if d.outcome == "promote":
            champion = challenger
    columns = STEP_COLUMNS[:3] + SCORE_COLUMNS + STEP_COLUMNS[3:]
    extras = list(dict.fromkeys(k for r in rows for k in r if k not in columns))
    return Walk(
        pd.DataFrame(rows, columns=columns + extras), results, paired, champion, pending, final
    )


def charge_fits(steps: pd.DataFrame, table: Scores, baseline: str) -> pd.DataFrame:
    """``steps`` with the ``fits`` column of a fitted selection: the fits (rows of
    ``table``) each step needed that no earlier step used; the baseline's design is
    charged before the first step."""
    f = table.to_frame()
    block = f["block"] if "block" in f.columns else f["split"] * 0
    keys = list(zip(f["dataset"], f["model"], f["split"], strict=True))
    charged = {k for k, b in zip(keys, block == 0, strict=True) if k[1] == baseline and b}
    fits = []
    for r in steps.to_dict("records"):
        if r["decision"] == "error":
            use = (f["model"] == r["challenger"]) & (block == 0)
        else:
            use = f["model"].isin([r["champion"], r["challenger"]]) & (block <= r["extra_repeats"])
        new = {k for k, u in zip(keys, use, strict=True) if u} - charged
        charged |= new
        fits.append(len(new))
    out = steps.copy()
    out["fits"] = fits
    return out


def recommend(
    scores: ScoresProvider,
    baseline: str,
    champion: str,
    steps: pd.DataFrame,
    *,
    compare: Steps,
    metric: str,
) -> dict[str, Any]:
    """Final action: keep the baseline, or promote the champion (compared directly with the
    baseline on ``scores``), with a sentence saying why."""
    gamma = compare.request.gamma
    if champion == baseline:
        open_ = steps[(steps["decision"] == "inconclusive") & (steps["expected_gain"] > 0)]
        text = (
            f"keep {baseline}: no challenger was better beyond the ROPE "
            f"({compare.request.margin.label()}) with probability ≥ {gamma:g}"
        )
        if not open_.empty:
            from bayescomp.posterior.slices import blocked_keep

            r = open_.sort_values("expected_gain").iloc[-1]
            text = blocked_keep(baseline, r) or (
                f"{text}. Closest: {r['challenger']} (inconclusive, expected gain "
                f"{r['expected_gain']:+.4g}, risk P(worse) = {r['risk']:.3f})"
            )
        return {
            "action": "keep",
            "champion": baseline,
            "baseline": baseline,
            "text": text,
            "p_better": None,
            "p_left": None,
            "p_rope": None,
            "p_right": None,
            "risk": None,
            "expected_gain": None,
        }
    res, d = compare(scores, baseline, champion)
    p_better = float(res.p_better)
    text = (
        f"promote {champion} to replace {baseline}: against {baseline} on the base design "
        f"P(better) = {p_better:.3f}, P(better beyond {compare.request.margin.label()}) = "
        f"{d.p_right:.3f}, "
        f"expected gain {d.expected_gain:+.4g} {metric}, risk P(worse) = {d.risk:.3f}"
    )
    extra = d.step_fields()
    if "p_joint" in extra:
        text += f", P(that and every guardrail held) = {extra['p_joint']:.3f}"
    return {
        "action": "promote",
        "champion": champion,
        "baseline": baseline,
        "text": text,
        "p_better": p_better,
        "p_left": d.p_left,
        "p_rope": d.p_rope,
        "p_right": d.p_right,
        "risk": d.risk,
        "expected_gain": d.expected_gain,
        "rope": res.half_width,  # the half-width decided on (a margin's resolved)
        "direct_decision": d.outcome,
        **extra,
    }
