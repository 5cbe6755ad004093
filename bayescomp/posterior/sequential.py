"""An anytime-valid comparison of two models on a growing prediction log (``bc.watch``).

The paired differences (candidate minus baseline, positive is better) arrive one by one; the
tests and the sequence hold at every item at once, so each claim errs with probability at
most ``1 - gamma_k`` (a share: :func:`~bayescomp.core.rule.split_gamma`) however one looks.

* Bounded scores (accuracy, Brier, log loss clipped to ``[1e-3, 1 - 1e-3]``), exact in finite
  samples (Waudby-Smith & Ramdas 2024): betting e-processes decide **promote** (the e-value
  against ``mean <= +margin`` reaches ``1 / (1 - gamma_k)``), **worse** (against ``mean >=
  -margin``), **equivalent** (against both ``mean >= +margin`` and ``mean <= -margin``); the
  empirical-Bernstein sequence, two-sided at ``2 (1 - gamma_k)``, is shown.
* Unbounded ones (squared / absolute error): the asymptotic normal-mixture sequence (Waudby-
  Smith et al. 2021, asymptotic: ``bench/`` measures it) is shown and decides from 100 on.

A guard (a slice, a guardrail metric) holds when its sequence is above ``-its margin``, is
worse when below; :func:`~bayescomp.core.rule.joint_outcome` combines (``docs/live_promotion.md``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from bayescomp.core.checks import check_gamma
from bayescomp.core.exceptions import BayescompWarning
from bayescomp.core.item_scores import item_scores
from bayescomp.core.jsonable import jsonable
from bayescomp.core.margins import Absolute, MarginLike, as_margin
from bayescomp.core.orientation import canonical_metric, higher_is_better
from bayescomp.core.rule import joint_outcome, split_gamma
from bayescomp.posterior.holdout_data import item_kind
from bayescomp.scores.csvio import read_log

#: probabilities are clipped to [LOG_CLIP, 1 - LOG_CLIP] for the log loss: per-item loss
#: in [0, log(1 / LOG_CLIP)]
LOG_CLIP = 1e-3
#: half-range B of the paired difference (in [-B, B]) of each bounded per-item score kind
BOUNDS = {"hit": 1.0, "miss": 1.0, "squared_probability": 1.0, "log": math.log(1 / LOG_CLIP)}
#: a look's outcome, by code (:func:`decision_codes`)
SEQUENTIAL_OUTCOMES = ("continue", "promote", "worse", "equivalent")


def empirical_bernstein_cs(x: Any, alpha: float, bound: float, c: float = 0.5) -> tuple:
    """The predictable plug-in empirical-Bernstein confidence sequence (Waudby-Smith &
    Ramdas 2024, Theorem 2 and eq. (13)) for the mean of ``x`` in ``[-bound, bound]``, along
    the last axis: ``(estimate, lower, upper)`` after each entry, jointly valid at level
    ``1 - alpha`` over all entries."""
    y = (np.asarray(x, dtype=float) + bound) / (2 * bound)  # to [0, 1]
    t = np.arange(1, y.shape[-1] + 1, dtype=float)
    csum = np.cumsum(y, axis=-1)
    mu_hat = (0.5 + csum) / (t + 1)
    sig2 = (0.25 + np.cumsum((y - mu_hat) ** 2, axis=-1)) / (t + 1)
    shift = [(0, 0)] * (y.ndim - 1) + [(1, 0)]
    mu_prev = np.pad(mu_hat[..., :-1], shift, constant_values=0.5)
    sig2_prev = np.pad(sig2[..., :-1], shift, constant_values=0.25)
    log_term = math.log(2 / alpha)
    lam = np.minimum(np.sqrt(2 * log_term / (sig2_prev * t * np.log1p(t))), c)
    psi = (-np.log1p(-lam) - lam) / 4
    total = np.cumsum(lam, axis=-1)
    center = np.cumsum(lam * y, axis=-1) / total
    width = (log_term + np.cumsum(4 * (y - mu_prev) ** 2 * psi, axis=-1)) / total
    return tuple(v * 2 * bound - bound for v in (csum / t, center - width, center + width))


def asymptotic_cs(x: Any, alpha: float, t_star: int = 1000, t_min: int = 100) -> tuple:
    """The two-sided asymptotic normal-mixture confidence sequence (Waudby-Smith et al.
    2021, Theorem 2.2) for the mean of ``x`` along the last axis, tightest near ``t_star``
    entries; ``(-inf, inf)`` before ``t_min`` entries."""
    x = np.asarray(x, dtype=float)
    t = np.arange(1, x.shape[-1] + 1, dtype=float)
    mean = np.cumsum(x, axis=-1) / t
    var = np.maximum(np.cumsum(x * x, axis=-1) / t - mean**2, 0) * t / np.maximum(t - 1, 1)
    log_a = -2 * math.log(alpha)
    r2 = (log_a + math.log(log_a + 1)) / t_star
    width = np.sqrt(var * 2 * (t * r2 + 1) / (t**2 * r2) * np.log(np.sqrt(t * r2 + 1) / alpha))
    early = t < t_min
    return mean, np.where(early, -np.inf, mean - width), np.where(early, np.inf, mean + width)


def betting_log_wealth(x: Any, null: float, bound: float, c: float = 0.5) -> np.ndarray:
    """The running maximum of the log-wealth ``sum log(1 + lambda_i s (x_i - null))`` of
    the betting e-processes (Waudby-Smith & Ramdas 2024, aGRAPA) against ``mean <= null``
    (``s = +1``) and ``mean >= null`` (``s = -1``), stacked first, for ``x`` in ``[-bound,
    bound]`` along the last axis; ``lambda_i = clip(m / v, 0, c / (bound + s null))`` with
    ``m, v`` the mean and second moment of the earlier ``s (x - null)`` (prior 0, bound²)."""
    t = np.arange(x.shape[-1], dtype=float)  # items before each
    s1, s2 = np.cumsum(x, axis=-1) - x, np.cumsum(x * x, axis=-1) - x * x  # before each
    side = np.array([1.0, -1.0]).reshape((2,) + (1,) * x.ndim)
    second = bound**2 + s2 - 2 * null * s1 + t * null**2  # t + 1 times the second moment
    lam = np.clip(side * (s1 - t * null) / second, 0, c / (bound + side * null))
    return np.maximum.accumulate(np.cumsum(np.log1p(lam * side * (x - null)), axis=-1), axis=-1)


def decision_codes(x: Any, alpha: float, bound: float | None, margin: float) -> np.ndarray:
    """The code (in :data:`SEQUENTIAL_OUTCOMES`) after each entry, by one-sided tests at
    ``alpha / 2``: betting e-processes, the asymptotic sequence when ``bound`` is None."""
    if bound is None:
        _, lo, hi = asymptotic_cs(x, alpha)
        claims = [lo > margin, hi < -margin, (lo > -margin) & (hi < margin)]
    else:
        # each: (rejects mean <= null, rejects mean >= null) at null +margin, -margin
        at_hi, at_lo = (
            betting_log_wealth(x, m, bound) >= math.log(2 / alpha) for m in (margin, -margin)
        )
        claims = [at_hi[0], at_lo[1], at_hi[1] & at_lo[0]]
    return np.select(claims, [1, 2, 3], 0)


def look_positions(items: Any, every: int) -> np.ndarray:
    """The entries after which a look is taken: the first at which the cumulative item
    count (``items`` per entry) reaches each multiple of ``every``."""
    cum = np.cumsum(np.asarray(items, dtype=np.int64))
    return np.unique(np.searchsorted(cum, np.arange(every, cum[-1:].sum() + 1, every)))


@dataclass(frozen=True)
class Plan:
    """What one watched comparison is: the columns, the metric and its margins."""

    baseline: str
    candidate: str
    metric: str
    margin: float
    gamma: float = 0.95
    every: int = 1
    label: str = "y_true"
    cluster: str | None = None
    time: str | None = None
    slice: str | None = None
    slice_margin: float | None = None
    #: the slice values guarded (fixed at the first look: each takes a share of the budget)
    slices: tuple = ()
    guardrails: tuple[tuple[str, float], ...] = ()
    #: the labels there are (empty: any): a label, or a predicted one, outside them is refused
    classes: tuple = ()

    @property
    def guards(self) -> list[tuple[str, float]]:
        """Each guard's column of :func:`entries` and its margin."""
        out = [(f"guardrail {m}", g) for m, g in self.guardrails]
        sm = self.margin if self.slice_margin is None else self.slice_margin
        return out + [(f"slice {s}", sm) for s in self.slices]

    @property
    def gamma_each(self) -> float:
        return split_gamma(self.gamma, 1 + len(self.guards))

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}


def paired_differences(frame: Any, plan: Plan, metric: str) -> np.ndarray:
    """Per-row ``candidate - baseline`` of ``metric``'s per-item score (its canonical name,
    the plan's), oriented so that positive is better (log loss on probabilities clipped to :data:`LOG_CLIP`)."""
    kind = item_kind(metric)
    y = frame[plan.label].to_numpy()
    scores = []
    for col in (plan.candidate, plan.baseline):
        pred = frame[col].to_numpy()
        if kind == "log":
            pred = np.clip(np.asarray(pred, dtype=float), LOG_CLIP, 1 - LOG_CLIP)
        scores.append(item_scores(metric, y, pred))
    diff = scores[0] - scores[1]
    return diff if higher_is_better(metric) else -diff


def _checked_rows(frame: Any, plan: Plan) -> Any:
    """The labelled rows of ``frame``, after the one-line checks of the log."""
    import pandas as pd

    optional = [c for c in (plan.cluster, plan.time, plan.slice) if c is not None]
    missing = [
        c for c in [plan.label, plan.baseline, plan.candidate, *optional] if c not in frame.columns
    ]
    if missing:
        raise ValueError(
            f"the log has no column {', '.join(map(repr, missing))}; its columns are "
            f"{list(map(str, frame.columns))[:12]}: name the columns with label=, baseline=, "
            "candidate=, cluster=, slice=, time="
        )
    if plan.time is not None:
        t = frame[plan.time]
        t = pd.to_datetime(t) if t.dtype == object else t
        back = np.flatnonzero(np.diff(t.to_numpy()) < 0)
        if back.size:
            raise ValueError(
                f"the time column {plan.time!r} goes back at row {int(back[0]) + 1} "
                f"({t.iloc[back[0] + 1]} after {t.iloc[back[0]]}): the log must be in "
                "arrival order; sort it by time first"
            )
    rows = frame[frame[plan.label].notna()]
    kinds = 3 if item_kind(plan.metric) in ("hit", "miss") else 1  # predicted labels too
    for col in [plan.label, plan.baseline, plan.candidate][:kinds] if plan.classes else ():
        known = pd.Index(plan.classes)  # a numeric label column: 1.0 is class "1"
        known = pd.to_numeric(known, errors="coerce") if rows[col].dtype.kind in "iuf" else known
        bad = sorted(map(str, rows.loc[~rows[col].isin(known), col].unique()))
        if bad:
            raise ValueError(
                f"column {col!r} holds {bad[:5]}, outside the classes {list(plan.classes)}: fix "
                "the log, or name every class with classes="
            )
    return rows


def entries(frame: Any, plan: Plan, skip_clusters: Iterable = ()) -> Any:
    """The sequence's entries from the labelled rows of ``frame`` (rows without a label
    are left for later), in arrival order: one per row, or one per cluster (its mean, in
    the order of its first labelled row; clusters in ``skip_clusters`` already entered).
    Columns: ``row`` (the first row, by ``frame``'s index), ``items``, ``diff``, one per
    guard (NaN for an entry outside a slice) and ``cluster``."""
    import pandas as pd

    rows = _checked_rows(frame, plan)
    if plan.cluster is not None:
        rows = rows[~rows[plan.cluster].astype(str).isin(set(map(str, skip_clusters)))]
        if plan.slice is not None and (rows.groupby(plan.cluster)[plan.slice].nunique() > 1).any():
            raise ValueError(
                f"a cluster spans several slices of {plan.slice!r}: a cluster is one entry of "
                "the sequence, so it must lie in one slice"
            )
    table = pd.DataFrame({"row": rows.index, "items": 1, "diff": 0.0})
    table["diff"] = paired_differences(rows, plan, plan.metric) if len(rows) else []
    for name, _ in plan.guards:
        kind, value = name.split(" ", 1)
        if kind == "guardrail":
            table[name] = paired_differences(rows, plan, value) if len(rows) else []
        else:
            inside = rows[plan.slice].astype(str).to_numpy() == value
            table[name] = np.where(inside, table["diff"], np.nan)
    new = set(rows[plan.slice].astype(str)) - set(plan.slices) if plan.slices else set()
    if new:
        raise ValueError(
            f"slice value(s) {sorted(new)[:5]} of {plan.slice!r} were not in the log at the "
            "first look, so they have no share of the error budget: start a new --store"
        )
    if plan.cluster is None:
        table["cluster"] = None
        return table
    return _by_cluster(table, rows[plan.cluster].to_numpy(), plan)


def _by_cluster(table: Any, cluster: np.ndarray, plan: Plan) -> Any:
    """One entry per cluster: the mean of its rows, at its first row."""
    table["cluster"] = cluster
    agg = {c: "mean" for c in table.columns if c not in ("row", "items", "cluster")}
    out = table.groupby("cluster", sort=False).agg({"row": "first", "items": "sum", **agg})
    return out.reset_index()[table.columns]


def decide_entries(table: Any, plan: Plan) -> SequentialResult:
    """The looks at ``table``'s entries (every ``plan.every`` items), up to the first
    decision: the primary sequence and each guard's, combined by ``joint_outcome``."""
    import pandas as pd

    alpha = 2 * (1 - plan.gamma_each)
    bound, x = BOUNDS.get(item_kind(plan.metric)), table["diff"].to_numpy()
    at = look_positions(table["items"].to_numpy(), plan.every)
    looks = pd.DataFrame({"items": np.cumsum(table["items"].to_numpy())[at]})
    looks["estimate"], looks["lower"], looks["upper"] = _sequence_at(x, at, alpha, bound)
    if bound is not None:  # the evidence of the promote claim; the sequence is shown
        looks["e promote"] = np.exp(betting_log_wealth(x, plan.margin, bound)[0][at])
    codes = decision_codes(x, alpha, bound, plan.margin)[at]
    # shown above +margin only once promoted, below -margin once worse (wider stays valid)
    looks["lower"] = np.where(codes == 1, looks["lower"], np.minimum(looks["lower"], plan.margin))
    looks["upper"] = np.where(codes == 2, looks["upper"], np.maximum(looks["upper"], -plan.margin))
    states = [np.array(SEQUENTIAL_OUTCOMES, dtype=object)[codes].tolist()]
    for name, margin in plan.guards:
        kind = item_kind(name.split(" ", 1)[1] if name.startswith("guardrail") else plan.metric)
        _, lower, upper = _sequence_at(table[name].to_numpy(), at, alpha, BOUNDS.get(kind))
        looks[f"{name} lower"], looks[f"{name} upper"] = lower, upper
        known = np.select([upper < -margin, lower > -margin], ["worse", "equivalent"], "")
        states.append(np.where(known == "", "inconclusive", known))
    looks["decision"] = [
        joint_outcome(["inconclusive" if s == "continue" else s for s in look]).replace(
            "inconclusive", "continue"
        )
        for look in zip(*states, strict=True)
    ]
    decided = np.flatnonzero(looks["decision"].to_numpy() != "continue")
    if decided.size:
        looks = looks.iloc[: decided[0] + 1]
    if not len(looks):
        warnings.warn(
            f"no look yet: {int(table['items'].sum())} labelled items, fewer than every="
            f"{plan.every}; the decision is continue, with no estimate",
            BayescompWarning,
            stacklevel=3,
        )
    last = (
        looks.iloc[-1]
        if len(looks)
        else pd.Series(
            {"decision": "continue", "estimate": math.nan, "lower": -math.inf, "upper": math.inf}
        )
    )
    return SequentialResult(
        decision=str(last["decision"]),
        decided_at=int(last["items"]) if decided.size else None,
        looks=looks.reset_index(drop=True),
        estimate=float(last["estimate"]),
        lower=float(last["lower"]),
        upper=float(last["upper"]),
        n_items=int(table["items"].sum()),
        plan=plan,
        method="asymptotic normal mixture"
        if bound is None
        else "betting tests decide; empirical Bernstein",
    )


def _sequence_at(x: np.ndarray, at: np.ndarray, alpha: float, bound: float | None) -> tuple:
    """The confidence sequence of the entries of ``x`` that are not NaN at each look:
    ``(estimate, lower, upper)``, ``(nan, -inf, inf)`` before the first; empirical Bernstein
    on ``[-bound, bound]``, the asymptotic one when ``bound`` is None."""
    inside = ~np.isnan(x)
    seq = (
        asymptotic_cs(x[inside], alpha)
        if bound is None
        else empirical_bernstein_cs(x[inside], alpha, bound)
    )
    seen = np.cumsum(inside)[at]
    return tuple(
        np.r_[first, s][seen] for first, s in zip((np.nan, -np.inf, np.inf), seq, strict=True)
    )


@dataclass(frozen=True)
class SequentialResult:
    """The looks at a growing prediction log, up to the first decision.

    Attributes
    ----------
    decision : {"promote", "worse", "equivalent", "continue"}
    decided_at : int or None
        The item count at the decision (None while it is ``continue``).
    looks : DataFrame
        One row per look: ``items``, ``estimate``, ``lower``, ``upper`` (the confidence
        sequence of the mean oriented difference), for bounded scores ``e promote`` (the
        e-value against ``mean <= +margin``: promote when it reaches ``1 / (1 - gamma_k)``),
        each guard's bounds, ``decision``.
    estimate, lower, upper : float
        At the last look.
    n_items : int
        The labelled items read (also those after the decision).
    """

    decision: str
    decided_at: int | None
    looks: Any = field(repr=False)
    estimate: float
    lower: float
    upper: float
    n_items: int
    plan: Plan
    method: str

    @property
    def margin(self) -> float:
        return self.plan.margin

    def __str__(self) -> str:
        p = self.plan
        at = f" at {self.decided_at} items" if self.decided_at is not None else ""
        return (
            f"{self.decision}{at}: {p.candidate} - {p.baseline} ({p.metric}) "
            f"{self.estimate:+.4g}, {100 * p.gamma:g}% confidence sequence "
            f"[{self.lower:+.4g}, {self.upper:+.4g}], margin {Absolute(p.margin).label()}, {self.method}"
        )

    def to_dict(self) -> dict[str, Any]:
        return jsonable(  # a number that is not finite (no look yet, an open bound) is None
            {
                "decision": self.decision,
                "decided_at": self.decided_at,
                "estimate": self.estimate,
                "lower": self.lower,
                "upper": self.upper,
                "margin": self.margin,
                "n_items": self.n_items,
                "method": self.method,
                "plan": self.plan.to_dict(),
                "looks": self.looks.to_dict(orient="records"),
            }
        )

    def plot(self, ax: Any = None) -> Any:
        """The sequence over items with the margin band and the decision point."""
        from bayescomp.report.sequential_plots import plot_sequence

        return plot_sequence(self, ax=ax)


def make_plan(frame: Any, settings: dict[str, Any]) -> Plan:
    """The checked :class:`Plan` of :func:`watch`'s ``settings`` (its keyword arguments);
    the slices guarded are those of ``frame``."""
    columns = dict(settings)
    metric, every = columns.pop("metric"), columns.pop("every", 1)
    item_kind(metric)
    metric = canonical_metric(metric)  # resolved once: every look reads the plan's name
    where = "watch (the margin must be fixed before the first look)"
    margin = float(as_margin(columns.pop("rope"), metric=metric, takes=(Absolute,), where=where))
    guardrails = []
    for name, guard_rope in dict(columns.pop("guardrails", None) or {}).items():
        item_kind(name)
        half = float(as_margin(guard_rope, metric=name, takes=(Absolute,), where=where))
        guardrails.append((canonical_metric(name), half))
    if isinstance(every, bool) or not isinstance(every, int | np.integer) or every < 1:
        raise ValueError(f"every must be a whole number of items >= 1; got {every!r}")
    slice_margin = columns.pop("slice_rope", None)
    if slice_margin is not None:
        slice_margin = float(as_margin(slice_margin, metric=metric, takes=(Absolute,), where=where))
    gamma = check_gamma(columns.pop("gamma", 0.95))
    columns["classes"] = tuple(columns.get("classes") or ())
    plan = Plan(metric=metric, margin=margin, gamma=gamma, every=int(every), **columns)
    plan = replace(plan, slice_margin=slice_margin, guardrails=tuple(guardrails))
    if plan.slice is None:
        return plan
    rows = _checked_rows(frame, plan)
    return replace(plan, slices=tuple(sorted(set(rows[plan.slice].astype(str)))))


def watch(
    log: Any,
    *,
    baseline: str,
    candidate: str,
    metric: str,
    rope: Any,
    gamma: float = 0.95,
    every: int = 1,
    label: str = "y_true",
    cluster: str | None = None,
    time: str | None = None,
    slice: str | None = None,
    slice_rope: Any = None,
    guardrails: Mapping[str, MarginLike] | None = None,
    classes: tuple = (),
) -> SequentialResult:
    """Compare ``candidate`` with ``baseline`` on a prediction log, looking every ``every``
    labelled items and stopping at the first decision; valid however often one looks.

    Parameters
    ----------
    log : path, DataFrame or iterable of DataFrames
        Rows in arrival order: a ``label`` column, one column per model, optional
        ``cluster``, ``time`` (checked sorted) and ``slice`` columns; rows whose label is
        missing are left for later.
    metric : str
        A mean of per-item scores: accuracy, error_rate, brier, log_loss, mse, mae.
    rope : float
        The absolute margin (a relative one would move with the data).
    gamma : float
        Each claim errs with probability at most ``1 - gamma`` (split over the guards).
    slice, slice_rope : str, float
        Guard every slice of this column: promotion waits until each slice is known not
        worse beyond ``slice_rope`` (default ``rope``).
    guardrails : dict
        ``{metric: rope}``: other metrics that must be known not worse beyond their rope.
    classes : sequence
        Every label there is: a label (or, for accuracy and error rate, a prediction) outside
        them is refused, not counted as a miss.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 20000)
    >>> log = pd.DataFrame({"y_true": y, "old": np.where(rng.random(y.size) < 0.8, y, 1 - y),
    ...                     "new": np.where(rng.random(y.size) < 0.9, y, 1 - y)})
    >>> res = watch(log, baseline="old", candidate="new", metric="accuracy", rope=0.02, every=100)
    >>> res.decision, res.decided_at
    ('promote', 100)
    """
    frame = read_log(log)
    settings = dict(locals())
    del settings["log"], settings["frame"]
    plan = make_plan(frame, settings)
    return decide_entries(entries(frame, plan), plan)
