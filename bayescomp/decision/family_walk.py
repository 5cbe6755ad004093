"""The ``"family"`` selection rule (a :class:`~bayescomp.decision.walk.Rule`): every
challenger against the baseline; the certified ones
(:func:`bayescomp.decision.family.family_test`) that hold every guardrail can be promoted,
and the one with the largest expected gain is.  Looks: while nothing is promoted, some step
is undecided and ``max_repeats`` allows, the rule names the models still in the race in
:attr:`Walk.pending` and spends ``1 - gamma`` across the looks.  Racing leaves a challenger
already worse beyond the ROPE with probability ``>= gamma`` out of ``pending``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.decision.family import (
    FamilyTest,
    JointDifferences,
    family_test,
    racing_drop,
    spent_gammas,
)
from bayescomp.decision.walk import (
    PAIRED_COLUMNS,
    SCORE_COLUMNS,
    STEP_COLUMNS,
    Rule,
    Walk,
    blocked_scores,
    champion_challenger,
    failure,
    step_row,
    step_table,
    usable_blocks,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.decision.steps import Steps
    from bayescomp.scores.table import Scores

#: the columns the family rule adds to the steps table
FAMILY_COLUMNS = ["looks", "p_family", "gain_lower"]


@dataclass
class _Step:
    res: Any
    decision: Any
    extra: int
    paired: Any
    tried: bool


@dataclass(frozen=True)
class _Outcome:
    names: list[str]  # the challengers of the family test at this look
    test: FamilyTest | None
    promoted: str | None
    gamma_used: float
    look: int
    k: int

    def index(self, c: str) -> int | None:
        return self.names.index(c) if c in self.names else None


def _block_splits(frame: pd.DataFrame, n0: int) -> int:
    """Splits one extra block adds: one repetition of the design (all of it when the
    table does not say how many repetitions it holds — a more cautious spending)."""
    base = frame[frame["block"] == 0] if "block" in frame.columns else frame
    if "repeat" in base.columns and base["repeat"].nunique() > 1:
        return max(1, n0 // int(base["repeat"].nunique()))
    return n0


def _family_test(
    names: list[str], state: dict[str, _Step], gamma: float, steps: Steps
) -> tuple[FamilyTest, np.ndarray]:
    """The family test over ``names`` (on the same splits) and their mean differences
    (oriented: positive is better)."""
    # the rule's margin as each challenger's compare resolved it: one half-width, or (a
    # standardized margin) one per challenger, tested exactly on differences / half-width
    halves = np.array([state[c].res.half_width for c in names])
    posterior = steps.joint(names, {c: state[c].paired for c in names})
    means = np.ravel(posterior.mean)
    if np.ptp(halves) == 0:
        return family_test(posterior, float(halves[0]), gamma), means
    w = 1.0 / halves
    unit = JointDifferences(posterior.mean * w, posterior.shape * np.outer(w, w), posterior.df)
    test = family_test(unit, 1.0, gamma)  # its bounds back on the metric's scale
    return dataclasses.replace(test, lower_bound=test.lower_bound * halves), means


def family(
    scores: Scores,
    baseline: str,
    challengers: Sequence[str],
    *,
    metric: str,
    compare: Steps,
    max_repeats: int = 0,
    racing: bool = True,
) -> Walk:
    """The family rule (module docstring): a :class:`~bayescomp.decision.walk.Rule`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from bayescomp.decision.steps import ScoreSteps
    >>> from bayescomp.posterior.request import check_request
    >>> from bayescomp.scores.table import Scores
    >>> rng = np.random.default_rng(0)
    >>> base = 0.8 + 0.01 * rng.standard_normal(20)
    >>> f = pd.DataFrame({"dataset": "d", "model": np.repeat(["a", "b", "c"], 20),
    ...                   "split": np.tile(np.arange(20), 3), "n_train": 90, "n_test": 10,
    ...                   "acc": np.r_[base, base + 0.05 + 0.005 * rng.standard_normal(20),
    ...                               base + 0.005 * rng.standard_normal(20)]})
    >>> steps = ScoreSteps(check_request(metric="acc", rope=0.01, higher_is_better=True))
    >>> w = family(Scores(f, metrics=["acc"]), "a", ["b", "c"], metric="acc", compare=steps)
    >>> w.champion, w.steps["decision"].tolist(), w.pending
    ('b', ['promote', 'equivalent'], ())
    """
    frame = blocked_scores(scores)
    failed = {c: failure(frame, c) for c in challengers}
    live = [c for c in challengers if failed[c] is None]
    state: dict[str, _Step] = {}
    for c in live:
        extra, tried = usable_blocks(frame, baseline, c, max_repeats)
        sc = step_table(scores, baseline, c, extra)
        res, d = compare(sc, baseline, c)
        state[c] = _Step(res, d, extra, sc.paired(baseline, c, metric), tried)
    out, pending = _decide(frame, state, live, max_repeats, racing, baseline, compare)
    return _walk(baseline, challengers, failed, state, out, max_repeats, pending)


def _decide(
    frame: pd.DataFrame,
    state: dict[str, _Step],
    live: list[str],
    max_repeats: int,
    racing: bool,
    baseline: str,
    steps: Steps,
) -> tuple[_Outcome, tuple[str, ...]]:
    """The family test at the current look, and the models to fit one more block for.

    Challengers left out by racing are clearly worse than the baseline, so the test would
    not count them anyway (:data:`bayescomp.decision.family.SCREEN`)."""
    if not live:
        return _Outcome([], None, None, 0.95, 0, 0), ()
    look = max(state[c].extra for c in live)
    names = [c for c in live if state[c].extra == look]
    gamma = float(state[names[0]].decision.gamma)
    n0 = int((frame[(frame["model"] == baseline) & (frame["block"] == 0)]).shape[0])
    block = _block_splits(frame, n0)
    rho = float(state[names[0]].paired.attrs["rho"])
    gammas = spent_gammas(gamma, [n0 + j * block for j in range(max_repeats + 1)], rho, k=len(live))
    test, gains = _family_test(names, state, float(gammas[look]), steps)
    # promotable: certified for the family and holding every guardrail (the step's joint
    # decision); the one with the largest expected gain is promoted
    ok = [
        (gains[i], c)
        for i, c in enumerate(names)
        if test.certified[i] and state[c].decision.outcome == "promote"
    ]
    promoted = max(ok)[1] if ok else None
    out = _Outcome(names, test, promoted, float(gammas[look]), look, len(live))
    open_ = [c for c in names if state[c].decision.outcome in ("inconclusive", "promote")]
    if promoted or look >= max_repeats or not open_:
        return out, ()
    going = [
        c
        for c in names
        if not state[c].tried and not (racing and racing_drop(state[c].decision.p_left, gamma))
    ]
    return out, ((baseline, *going) if going else ())


def _reason(c: str, st: _Step, out: _Outcome, max_repeats: int) -> tuple[Any, str]:
    """The step's decision under the family rule, and why."""
    d, t, i = st.decision, out.test, out.index(c)
    note = d.step_note()
    if max_repeats:
        raced = " — not fitted on further repetitions (racing)" if st.extra < out.look else ""
        note += f" [{st.extra + 1} look(s){raced}]"
    certified = t is not None and i is not None and bool(t.certified[i])
    rate = f"{1 - d.gamma:.3g}"
    if c == out.promoted:
        return d, (
            f"{d.reason}; certified better beyond the ROPE for the whole selection of "
            f"{out.k} challenger(s) (false-promotion rate ≤ {rate} for the selection)" + note
        )
    if d.outcome != "promote":
        if certified:  # better beyond the ROPE for the family, but a guardrail fails
            why = (
                "certified better beyond the ROPE for the whole selection on the primary "
                f"metric, but not promotable: {d.reason}"
            )
            return replace(d, reason=why), why + note
        return d, d.reason + note
    if out.promoted is not None:
        why = (
            f"better beyond the ROPE (P = {d.p_right:.3f}), but {out.promoted} has the "
            "larger expected gain"
        )
        return replace(d, outcome="runner-up", reason=why), why + note
    why = (
        f"better beyond the ROPE on its own (P = {d.p_right:.3f}), but not certain enough "
        f"for a selection among {out.k} challenger(s) at the false-promotion rate {rate} — "
        "collect more repetitions"
    )
    return replace(d, outcome="inconclusive", reason=why), why + note


def _walk(
    baseline: str,
    challengers: Sequence[str],
    failed: dict[str, str | None],
    state: dict[str, _Step],
    out: _Outcome,
    max_repeats: int,
    pending: tuple[str, ...],
) -> Walk:
    import pandas as pd

    rows, results, paired = [], [], []
    for i, c in enumerate(challengers, start=1):
        if c not in state:
            row = step_row(
                i, baseline, c, None, None, 0, 0, 0, f"{c} was not compared: {failed[c]}"
            )
            row["looks"] = 0
            rows.append(row)
            results.append(None)
            paired.append(pd.DataFrame(columns=PAIRED_COLUMNS))
            continue
        st = state[c]
        d, why = _reason(c, st, out, max_repeats)
        pf = st.paired
        row = step_row(i, baseline, c, st.res, d, 0, len(pf), st.extra, why, pf)
        row["looks"] = st.extra + 1
        j = out.index(c)
        if out.test is not None and j is not None:
            row["p_family"] = float(out.test.p_family[j])
            row["gain_lower"] = float(out.test.lower_bound[j])
        rows.append(row)
        results.append(st.res)
        paired.append(
            pf.rename(columns={"baseline": "champion", "candidate": "challenger"})[PAIRED_COLUMNS]
        )
    columns = STEP_COLUMNS[:3] + SCORE_COLUMNS + STEP_COLUMNS[3:] + FAMILY_COLUMNS
    extras = list(dict.fromkeys(k for r in rows for k in r if k not in columns))
    return Walk(
        pd.DataFrame(rows, columns=columns + extras),
        results,
        paired,
        out.promoted or baseline,
        pending,
        0 if pending else None,
    )


def family_note(
    rec: dict[str, Any], steps: pd.DataFrame, rule: str, gamma: float
) -> dict[str, Any]:
    """The recommendation with the rule that decided it and, under the family rule, the
    family-wise rate it carries, the runners-up and the promoted model's simultaneous
    lower bound of its gain (in the text where it is above the ROPE)."""
    rec = dict(rec, rule=rule)
    if "p_family" not in steps.columns or steps["p_family"].isna().all():
        if rule != "family":
            rec["text"] += (
                f" — decided by rule {rule!r} (each step at its own gamma; the "
                "selection's false-promotion rate grows with the number of "
                "challengers)"
            )
        return rec
    k = int((steps["decision"] != "error").sum())
    up = steps.loc[steps["decision"] == "runner-up", "challenger"].tolist()
    rec.update(family_size=k, runners_up=up, false_promotion_rate=round(1 - gamma, 10))
    rate = f"false-promotion rate ≤ {1 - gamma:.3g} for the whole selection"
    if rec["action"] == "promote":
        rec["text"] += (
            f" — decided by rule 'family' ({rate}): certified better beyond the ROPE among "
            f"{k} challenger(s)" + (f"; also better beyond the ROPE: {', '.join(up)}" if up else "")
        )
        row = steps.loc[steps["challenger"] == rec["champion"]].iloc[0]
        gains = steps.set_index("challenger")["expected_gain"]
        tied = [c for c in up if abs(gains[c] - row["expected_gain"]) <= rec["rope"]]
        if tied:  # a winner among practically equal challengers is said to be one
            rec["practically_tied"] = tied
            rec["text"] += (
                f"; practically tied with {', '.join(tied)} (expected gains within the ROPE "
                f"of each other): either serves, {rec['champion']} has the larger expected gain"
            )
        rec["gain_lower"] = float(row["gain_lower"])
        if rec["gain_lower"] > rec["rope"]:
            rec["text"] += (
                f"; its gain is at least {rec['gain_lower']:+.4g} with probability ≥ "
                f"{gamma:g} for every challenger at once (a bound its selection cannot inflate)"
            )
        return rec
    held = steps[(steps["decision"] == "inconclusive") & (steps["p_right"] >= gamma)]
    if not held.empty:  # better beyond the ROPE on its own, not for the selection
        from bayescomp.posterior.slices import blocked_keep

        r = held.sort_values("p_right").iloc[-1]
        rec["text"] = blocked_keep(rec["baseline"], r) or (
            f"keep {rec['baseline']}: {r['challenger']} is better beyond the ROPE on its "
            f"own (P = {float(r['p_right']):.3f}, expected gain "
            f"{float(r['expected_gain']):+.4g}) but not with the certainty a selection "
            f"among {k} challenger(s) needs — collect more repetitions"
        )
    rec["text"] += f" — decided by rule 'family' ({rate}, {k} challenger(s))"
    return rec


#: the selection rules by name (``select(..., rule=)`` also takes a callable): ``"family"``
#: (the default) keeps the false-promotion rate of the whole selection, and
#: ``"champion_challenger"`` decides each step at its own ``gamma``
RULES: dict[str, Rule] = {"family": family, "champion_challenger": champion_challenger}


def resolve_rule(rule: Any, n_datasets: int = 1, variance: str = "split") -> tuple[Rule, str]:
    """The rule to call and the name a selection records for it.

    ``"family"`` needs the scores of one dataset: with several (the hierarchical model) the
    selection is decided by ``"champion_challenger"`` with a :class:`FamilyRuleWarning`.
    Its joint posterior has the split variance only: another ``variance`` is refused.

    Examples
    --------
    >>> resolve_rule("family")[1]
    'family'
    """
    import warnings

    from bayescomp.core.exceptions import FamilyRuleWarning

    if callable(rule):
        return rule, getattr(rule, "__name__", type(rule).__name__)
    if not isinstance(rule, str) or rule not in RULES:
        raise ValueError(
            f"rule must be one of {list(RULES)} or a callable ('family' keeps the "
            "false-promotion rate of the whole selection, 'champion_challenger' "
            f"only each step's); got {rule!r}"
        )
    if rule == "family" and variance != "split":
        raise ValueError(
            f"variance={variance!r} decides the steps of rule='champion_challenger'; the "
            "family rule's joint posterior of the challengers has the split variance only"
        )
    if rule == "family" and n_datasets > 1:
        warnings.warn(
            f"rule='family' needs the scores of one dataset; these cover "
            f"{n_datasets}: each step is decided on its own "
            "(rule='champion_challenger'), so the false-promotion rate holds per "
            "step, not for the selection — select on one dataset (dataset=) for "
            "the family-wise guarantee, or pass rule='champion_challenger' to "
            "silence this",
            FamilyRuleWarning,
            stacklevel=4,
        )
        rule = "champion_challenger"
    return RULES[rule], rule
