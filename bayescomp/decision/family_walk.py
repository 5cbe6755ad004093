"""The ``"family"`` selection rule: every challenger against the baseline, only the winner
can be promoted, and only if its selection-adjusted test says so.

A rule of :mod:`bayescomp.decision.walk` (a pure function of a scores table).  The maths
is in :mod:`bayescomp.decision.family`.  Looks: every step is decided on the blocks the
table holds; while nothing is promoted, some step is undecided and the budget
``max_repeats`` allows, the rule names the baseline and the challengers still in the race
in :attr:`Walk.pending` (the caller fits one more block for them and calls it again), and
``1 - gamma`` is spent across the looks (:func:`bayescomp.decision.family.spent_gammas`).
Racing: a challenger already worse than the baseline beyond the ROPE with probability
``>= gamma`` is left out of ``pending`` — it is not fitted on further repetitions (it
cannot become the winner).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.decision.family import (
    BETA_SHARE,
    JointDifferences,
    WinnerTest,
    joint_differences,
    racing_drop,
    spent_gammas,
    winner_test,
)
from bayescomp.decision.walk import (
    PAIRED_COLUMNS,
    SCORE_COLUMNS,
    STEP_COLUMNS,
    Compare,
    Joint,
    Rule,
    Walk,
    champion_challenger,
    failure,
    step_row,
    step_table,
    usable_blocks,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.scores.table import Scores

#: the columns the family rule adds to the steps table
FAMILY_COLUMNS = ["looks", "p_selective", "corrected_gain"]


@dataclass
class _Step:
    res: Any
    decision: Any
    extra: int
    paired: Any
    tried: bool


@dataclass(frozen=True)
class _Outcome:
    winner: str | None
    promoted: bool
    test: WinnerTest | None
    gamma_used: float
    look: int
    k: int


def _block_splits(frame: pd.DataFrame, n0: int) -> int:
    """Splits one extra block adds: one repetition of the design (all of it when the
    table does not say how many repetitions it holds — a more cautious spending)."""
    base = frame[frame["block"] == 0] if "block" in frame.columns else frame
    if "repeat" in base.columns and base["repeat"].nunique() > 1:
        return max(1, n0 // int(base["repeat"].nunique()))
    return n0


def _paired_joint(names: list[str], state: dict[str, _Step]) -> JointDifferences:
    """The correlated-t joint posterior of ``names``' differences on their paired splits."""
    cols = []
    for c in names:
        pf = state[c].paired.sort_values(["dataset", "split"])
        sign = 1.0 if state[c].res.higher_is_better else -1.0
        cols.append(sign * (pf["candidate"].to_numpy(float) - pf["baseline"].to_numpy(float)))
    return joint_differences(np.column_stack(cols), float(state[names[0]].paired.attrs["rho"]))


def _joint_test(
    names: list[str], state: dict[str, _Step], gamma: float, k: int, joint: Joint | None
) -> WinnerTest:
    """The winner test over ``names`` (on the same splits), ``k`` challengers tried."""
    rope = float(np.ravel(state[names[0]].res.rope)[0])
    posterior = joint(names) if joint is not None else _paired_joint(names, state)
    # challengers left out (racing, failed fits) still count in the projection bound
    return winner_test(posterior, rope, gamma, beta_share=BETA_SHARE * len(names) / k)


def family(
    scores: Scores,
    baseline: str,
    challengers: Sequence[str],
    *,
    metric: str,
    compare: Compare,
    max_repeats: int = 0,
    joint: Joint | None = None,
    racing: bool = True,
) -> Walk:
    """The family rule (module docstring): a :class:`~bayescomp.decision.walk.Rule`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from functools import partial
    >>> from bayescomp.decision.walk import compare_step
    >>> from bayescomp.scores.table import Scores
    >>> rng = np.random.default_rng(0)
    >>> base = 0.8 + 0.01 * rng.standard_normal(20)
    >>> f = pd.DataFrame({"dataset": "d", "model": np.repeat(["a", "b", "c"], 20),
    ...                   "split": np.tile(np.arange(20), 3), "n_train": 90, "n_test": 10,
    ...                   "acc": np.r_[base, base + 0.05 + 0.005 * rng.standard_normal(20),
    ...                               base + 0.005 * rng.standard_normal(20)]})
    >>> cmp = partial(compare_step, metric="acc", rope=0.01, gamma=0.95, hib=True,
    ...               method="auto")
    >>> w = family(Scores(f, metrics=["acc"]), "a", ["b", "c"], metric="acc", compare=cmp)
    >>> w.champion, w.steps["decision"].tolist(), w.pending
    ('b', ['promote', 'equivalent'], ())
    """
    from bayescomp.decision.walk import blocked_scores

    frame = blocked_scores(scores)
    failed = {c: failure(frame, c) for c in challengers}
    live = [c for c in challengers if failed[c] is None]
    state: dict[str, _Step] = {}
    for c in live:
        extra, tried = usable_blocks(frame, baseline, c, max_repeats)
        sc = step_table(scores, baseline, c, extra)
        res, d = compare(sc, baseline, c)
        state[c] = _Step(res, d, extra, sc.paired(baseline, c, metric), tried)
    out, pending = _decide(frame, state, live, max_repeats, racing, baseline, joint)
    return _walk(baseline, challengers, failed, state, out, max_repeats, pending)


def _decide(
    frame: pd.DataFrame,
    state: dict[str, _Step],
    live: list[str],
    max_repeats: int,
    racing: bool,
    baseline: str,
    joint: Joint | None,
) -> tuple[_Outcome, tuple[str, ...]]:
    """The winner test at the current look, and the models to fit one more block for."""
    if not live:
        return _Outcome(None, False, None, 0.95, 0, 0), ()
    look = max(state[c].extra for c in live)
    names = [c for c in live if state[c].extra == look]
    gamma = float(state[names[0]].decision.gamma)
    n0 = int((frame[(frame["model"] == baseline) & (frame["block"] == 0)]).shape[0])
    block = _block_splits(frame, n0)
    rho = float(state[names[0]].paired.attrs["rho"])
    gammas = spent_gammas(gamma, [n0 + j * block for j in range(max_repeats + 1)], rho, k=len(live))
    test = _joint_test(names, state, float(gammas[look]), len(live), joint)
    winner = names[int(test.winner)]
    promoted = bool(test.promote) and state[winner].decision.outcome == "promote"
    out = _Outcome(winner, promoted, test, float(gammas[look]), look, len(live))
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
    d, t = st.decision, out.test
    note = d.step_note()
    if max_repeats:
        raced = " — not fitted on further repetitions (racing)" if st.extra < out.look else ""
        note += f" [{st.extra + 1} look(s){raced}]"
    if c == out.winner and out.promoted:
        return d, (
            f"{d.reason}; the best of {out.k} challenger(s), and still better beyond "
            f"the ROPE given that it was selected (selective p = "
            f"{float(t.p_selective):.3f} ≤ {1 - out.gamma_used:.3g}); "
            f"winner's-curse-corrected gain {float(t.corrected_gain):+.4g}" + note
        )
    if d.outcome != "promote":
        return d, d.reason + note
    why = f"better beyond the ROPE on its own (P = {d.p_right:.3f}), but "
    if c == out.winner:
        why += (
            f"not once its selection as the best of {out.k} challenger(s) is accounted "
            f"for (selective p = {float(t.p_selective):.3f} > {1 - out.gamma_used:.3g})"
        )
    else:
        why += f"not the best of {out.k} challenger(s) ({out.winner} is)"
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
        if c == out.winner and out.test is not None:
            row["p_selective"] = float(out.test.p_selective)
            row["corrected_gain"] = float(out.test.corrected_gain)
        rows.append(row)
        results.append(st.res)
        paired.append(
            pf.rename(columns={"baseline": "champion", "candidate": "challenger"})[PAIRED_COLUMNS]
        )
    columns = STEP_COLUMNS[:3] + SCORE_COLUMNS + STEP_COLUMNS[3:] + FAMILY_COLUMNS
    extras = list(dict.fromkeys(k for r in rows for k in r if k not in columns))
    champion = out.winner if out.promoted and out.winner is not None else baseline
    return Walk(
        pd.DataFrame(rows, columns=columns + extras),
        results,
        paired,
        champion,
        pending,
        0 if pending else None,
    )


def family_note(
    rec: dict[str, Any], steps: pd.DataFrame, rule: str, gamma: float
) -> dict[str, Any]:
    """The recommendation with the rule that decided it; under the family rule also the
    winner's selective p-value and, for a promotion, its winner's-curse-corrected gain."""
    rec = dict(rec, rule=rule)
    if "p_selective" not in steps.columns or steps["p_selective"].isna().all():
        if rule != "family":
            rec["text"] += (
                f" — decided by rule {rule!r} (each step at its own gamma; the "
                "selection's false-promotion rate grows with the number of "
                "challengers)"
            )
        return rec
    w = steps.loc[steps["p_selective"].notna()].iloc[0]
    k = int((steps["decision"] != "error").sum())
    p_sel, gain = float(w["p_selective"]), float(w["corrected_gain"])
    rec.update(
        p_selective=p_sel,
        family_winner=w["challenger"],
        family_size=k,
        corrected_gain=gain if rec["action"] == "promote" else None,
    )
    if rec["action"] == "promote":
        rec["text"] += (
            f" — decided by rule 'family': the best of {k} challenger(s), still "
            f"better beyond the ROPE given that it was selected (selective p = "
            f"{p_sel:.3f}); winner's-curse-corrected gain {gain:+.4g} (its mean "
            f"difference {float(w['expected_gain']):+.4g})"
        )
    elif float(w["p_right"]) < gamma:
        rec["text"] += (
            f" — decided by rule 'family' (the best of {k} challenger(s), "
            f"{w['challenger']}, selective p = {p_sel:.3f})"
        )
    else:
        rec["text"] = (
            f"keep {rec['baseline']}: the best of {k} challenger(s), "
            f"{w['challenger']} (mean difference {float(w['expected_gain']):+.4g},"
            f" P(better beyond the ROPE) = {float(w['p_right']):.3f} on its own), "
            "is not better beyond the ROPE once its selection as the best is "
            f"accounted for (selective p = {p_sel:.3f}) — decided by rule 'family'"
        )
    return rec


#: the selection rules by name (``select(..., rule=)`` also takes a callable): ``"family"``
#: (the default) keeps the false-promotion rate of the whole selection, and
#: ``"champion_challenger"`` decides each step at its own ``gamma``
RULES: dict[str, Rule] = {"family": family, "champion_challenger": champion_challenger}


def resolve_rule(rule: Any, n_datasets: int = 1) -> tuple[Rule, str]:
    """The rule to call and the name a selection records for it.

    ``"family"`` needs the scores of one dataset: with several (the hierarchical model) the
    selection is decided by ``"champion_challenger"`` with a :class:`FamilyRuleWarning`.

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
