"""Compare two models on one test set from their item-level predictions.

The unit is the item (a row of a holdout, a question of an evaluation set).  Items may
come in clusters (several questions on one passage, several rows per customer) and may be
scored several times (repeated generations); see :func:`holdout_posterior`.  Binary
correctness uses the exact Dirichlet–multinomial model of the four paired outcomes, any
per-item score or loss the Bayesian bootstrap of the mean paired difference, and ROC AUC,
F1, precision or recall a Bayesian bootstrap of the metric difference; with clusters,
whole clusters are resampled and the design effect is reported.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_level, check_number, rng_from
from bayescomp.core.exceptions import FewClustersWarning, ZeroVarianceWarning
from bayescomp.core.jsonable import jsonable
from bayescomp.core.margins import Margin, Standardized, as_margin
from bayescomp.core.orientation import difference_label
from bayescomp.core.regions import shortest_interval
from bayescomp.posterior import holdout_draws as hd
from bayescomp.posterior.base import DrawsPosterior
from bayescomp.posterior.holdout_data import Items, positive_class, prepare, resolve

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


__all__ = ["HoldoutResult", "holdout_posterior"]

#: what each ``method`` means, for the summary and the reader
METHODS = {
    "dirichlet_multinomial": "Dirichlet–multinomial posterior of the four paired outcomes",
    "bayesian_bootstrap": "Bayesian bootstrap over items",
    "cluster_bayesian_bootstrap": "Bayesian bootstrap over clusters",
}


@dataclass(frozen=True, eq=False)
class HoldoutResult(DrawsPosterior):
    """Posterior of ``mu`` (candidate − baseline, oriented so positive is better) on one test set.

    Attributes
    ----------
    draws : ndarray
        Posterior draws of ``mu``.
    rope : float
        Half-width of the region of practical equivalence, on the metric's scale.
    method : str
        ``"dirichlet_multinomial"``, ``"bayesian_bootstrap"`` or
        ``"cluster_bayesian_bootstrap"`` (see :data:`METHODS`).
    estimate : float
        The oriented difference on the test set as it is.
    baseline_score, candidate_score : float
        Each model's metric on the test set (the raw metric, not oriented).
    n_items, n_rows : int
        Items, and rows before averaging repeated samples within items.
    n_clusters : int or None
    design_effect : float or None
        With clusters: (width of the 95% interval of ``mu`` / width of a cluster-blind
        one, items resampled one by one)², the variance inflation the interval shows — the
        clusters' own (Kish's) and, with few clusters, the Student scaling on top.  Its
        square root is how much wider the interval is for honouring the clusters.
    blind_draws : ndarray or None
        The cluster-blind draws the design effect compares with.
    within_item_share : float or None
        With repeated samples per item: the share of the variance of the per-row
        differences that lies within items.
    counts : dict or None
        Binary scores: items ``both`` right, ``only_baseline``, ``only_candidate``, ``neither``.
    frequentist : dict
        The frequentist companions: ``mcnemar``, ``delong`` and/or ``standard_error``
        (with clusters: the cluster-robust standard error and Obuchowski's clustered
        DeLong; McNemar counts items as independent).
    """

    draws: np.ndarray = field(repr=False)
    method: str
    estimate: float
    baseline_score: float
    candidate_score: float
    n_items: int
    n_rows: int
    metric: str | None = None
    higher_is_better: bool = True
    n_clusters: int | None = None
    design_effect: float | None = None
    blind_draws: np.ndarray | None = field(default=None, repr=False)
    within_item_share: float | None = None
    counts: dict[str, int] | None = None
    frequentist: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def _draws(self) -> np.ndarray:
        return self.draws

    @property
    def interval_widening(self) -> float | None:
        """``sqrt(design_effect)``: how much wider the clusters make the 95% interval."""
        return None if self.design_effect is None else float(np.sqrt(self.design_effect))

    # ---------------------------------------------------------------- intervals
    def interval(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """Equal-tailed credible interval of ``mu``."""
        level = check_level(confidence_level, "confidence_level")
        lo, hi = np.quantile(self.draws, [0.5 - level / 2, 0.5 + level / 2])
        return float(lo), float(hi)

    def diagnostics_summary(self) -> dict[str, Any]:
        """The draws are independent (no chain to converge): their number and the Monte
        Carlo standard error of each region probability."""
        n = int(self.draws.size)
        out: dict[str, Any] = {"draws": n}
        for name in ("p_left", "p_rope", "p_right"):
            p = getattr(self, name)
            out[f"mcse_{name}"] = float(np.sqrt(p * (1 - p) / n))
        return out

    def _advice(self, gamma: float) -> str:
        """What to collect when undecided: items, or clusters when the items are clustered."""
        if self.n_clusters is not None:
            return (
                f"score more clusters than these {self.n_clusters} (more items in the same "
                "clusters help little; bc.plan_test_set says how many)"
            )
        return f"score more items than these {self.n_items} (bc.plan_test_set says how many)"

    # ------------------------------------------------------------------ summary
    def to_dict(self, *, confidence_level: float = 0.95, gamma: float = 0.95) -> dict[str, Any]:
        """Every number of the result as plain Python values (JSON-ready; NaN as None)."""
        level = confidence_level
        low, high = self.hdi(level)
        pct = f"{100 * level:g}"
        d = self.decision(gamma)
        out: dict[str, Any] = {
            "baseline": self.baseline_name,
            "candidate": self.candidate_name,
            "metric": self.metric,
            "higher_is_better": self.higher_is_better,
            "method": self.method,
            "baseline_score": self.baseline_score,
            "candidate_score": self.candidate_score,
            "difference": difference_label(self, " - "),
            "estimate": self.estimate,
            "mean": self.expected_gain,
            "sd": self.sd,
            f"hdi_{pct}_low": low,
            f"hdi_{pct}_high": high,
            "rope": self.rope,
            "p_left": self.p_left,
            "p_rope": self.p_rope,
            "p_right": self.p_right,
            "p_better": self.p_better,
            "decision": d.outcome,
            "n_items": self.n_items,
            "n_rows": self.n_rows,
            "n_clusters": self.n_clusters,
            "design_effect": self.design_effect,
            "within_item_share": self.within_item_share,
            "draws": int(self.draws.size),
        }
        out |= self._slice_record(d)
        if self.counts is not None:
            out.update(self.counts)
        for name, comp in self.frequentist.items():
            values = comp.to_dict() if hasattr(comp, "to_dict") else {"value": comp}
            out.update({f"{name}_{k}": v for k, v in values.items()})
        return jsonable(out)

    def summary(
        self, *, confidence_level: float | None = None, gamma: float = 0.95
    ) -> pd.DataFrame:
        """One row: scores, posterior mean and HDI, region probabilities, decision, design."""
        import pandas as pd

        level = 0.95 if confidence_level is None else confidence_level
        return pd.DataFrame([self.to_dict(confidence_level=level, gamma=gamma)])

    def __repr__(self) -> str:
        design = (
            ""
            if self.design_effect is None
            else f", {self.n_clusters} clusters, design effect {self.design_effect:.2f}"
        )
        return (
            f"HoldoutResult({difference_label(self, ' - ')} on {self.metric}: "
            f"mean={self.expected_gain:+.4g}, sd={self.sd:.4g}, n_items={self.n_items}"
            f"{design}, rope={self.rope:g}; p_left={self.p_left:.3f}, "
            f"p_rope={self.p_rope:.3f}, p_right={self.p_right:.3f})"
        )

    # --------------------------------------------------------------------- plot
    def plot(self, *, ax: Axes | None = None, confidence_level: float = 0.95) -> Axes:
        """Posterior density of ``mu`` with the ROPE band and the three probabilities."""
        from bayescomp.report.plots import plot_posterior

        clusters = f" in {self.n_clusters} clusters" if self.n_clusters else ""
        head = f"one test set of {self.n_items} items{clusters}"
        return plot_posterior(self, ax=ax, confidence_level=confidence_level, head=head)

    def plot_design_effect(self, *, ax: Axes | None = None, confidence_level: float = 0.95) -> Axes:
        """The cluster posterior beside the cluster-blind one: what ignoring clusters hides."""
        from bayescomp.report.holdout_plots import plot_design_effect

        return plot_design_effect(self, ax=ax, level=confidence_level)

    def figures(self) -> dict[str, Figure]:
        """The posterior, and with clusters the design effect, each on a new figure."""
        from bayescomp.report.holdout_plots import holdout_figures

        return holdout_figures(self)


def _check_draws(draws: Any) -> int:
    return check_number(draws, "draws", integer=True, min_val=100, advice="4000 is the default")


#: fewer clusters than this: the cluster bootstrap's interval is warned about
FEW_CLUSTERS = 10


def _design_effect(mu: np.ndarray, blind: np.ndarray, n_clusters: int) -> float:
    """(width of the clustered 95% interval / width of the cluster-blind one)²: how much the
    clusters, and having few of them, widen the interval the decision reads."""
    width = np.diff(shortest_interval(mu, 0.95))[0]
    blind_width = np.diff(shortest_interval(blind, 0.95))[0]
    design = float((width / blind_width) ** 2) if blind_width > 0 else float("nan")
    if n_clusters < FEW_CLUSTERS:
        warnings.warn(
            f"only {n_clusters} clusters: the cluster bootstrap learns the spread from "
            f"{n_clusters} units, so its interval is {np.sqrt(design):.2f}x as wide as a "
            f"cluster-blind one (design effect {design:.2f}) and itself uncertain; "
            f"{FEW_CLUSTERS} or more clusters give a steadier answer",
            FewClustersWarning,
            stacklevel=3,
        )
    return design


def _scores(items: Items) -> tuple[float, float]:
    if items.kind != "metric":
        return float(items.baseline.mean()), float(items.candidate.mean())
    pos = np.asarray(items.y_true, dtype=bool)
    return (
        hd.metric_value(items.metric, pos, items.baseline),
        hd.metric_value(items.metric, pos, items.candidate),
    )


def _half_width(margin: Margin, items: Items, baseline_score: float) -> float:
    """The margin on the metric's scale: a relative one of the baseline's metric on this
    test set, a standardized one in sds of the per-item differences."""
    if isinstance(margin, Standardized) and items.kind == "metric":
        raise ValueError(
            f"a standardized margin counts sds of the per-item differences, and "
            f"{items.metric} is not a mean of items: give the ROPE on the metric's scale "
            "(rope=0.01) or relative to the baseline ('1%')"
        )
    return margin.half_width(items.candidate - items.baseline, reference=baseline_score)


def holdout_posterior(
    y_true: Any,
    baseline: Any,
    candidate: Any,
    *,
    metric: str | None = "accuracy",
    rope: float = 0.0,
    cluster: Any = None,
    item: Any = None,
    higher_is_better: bool | None = None,
    threshold: float | None = None,
    draws: int = 4000,
    prior: float = 1.0,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
    random_state: Any = None,
    pos_label: Any = None,
) -> HoldoutResult:
    """Posterior of how much better ``candidate`` is than ``baseline`` on one test set.

    Parameters
    ----------
    y_true : array_like of shape (n_rows,) or None
        True labels or targets.  ``None`` when ``baseline`` and ``candidate`` already hold
        per-item scores (a judge's grade, pass/fail of a test, a loss per item).
    baseline, candidate : array_like of shape (n_rows,)
        The two models' predictions on the same rows: labels for ``accuracy``/``error_rate``
        (and for ``f1``/``precision``/``recall``), probabilities of class 1 for ``log_loss``
        and ``brier``, numbers for ``mse``/``mae``, scores for ``roc_auc``.
    metric : str, default "accuracy"
        A mean of per-item scores — ``accuracy``, ``error_rate``, ``log_loss``, ``brier``,
        ``mse``, ``mae`` — or a metric of the whole set: ``roc_auc``, ``f1``, ``precision``,
        ``recall``.  Without ``y_true``: the name of the per-item score (it sets the
        direction; ``None`` means higher is better).
    rope : float, str or a margin, default 0
        Half-width of the region of practical equivalence, on the metric's scale; ``"1%"``
        is 1 % of the baseline's metric on this test set, ``"0.1sd"`` 0.1 standard
        deviations of the per-item differences (:mod:`bayescomp.core.margins`).
    cluster : array_like, optional
        Cluster of each row (passage, customer, prompt).  Whole clusters are resampled (the
        cluster Bayesian bootstrap) and the result reports the design effect.
    item : array_like, optional
        Item of each row, when an item has several rows (repeated samples): per-item
        scores, or for the whole-set metrics the predictions, are averaged within the item.
    higher_is_better : bool, optional
        Direction of the metric; looked up when omitted.
    threshold : float, optional
        Turns probabilities or scores into labels (``score >= threshold`` is 1) for the
        label metrics (``accuracy``, ``error_rate``, ``f1``, ``precision``, ``recall``);
        without it, probabilities given to a label metric are refused.
    draws : int, default 4000
        Posterior draws.
    prior : float, default 1
        Dirichlet prior count of each of the four paired outcomes (binary scores only).
    baseline_name, candidate_name : str
    random_state : int, Generator or None
    pos_label : optional
        The positive class of text (or other non-0/1) labels, for a metric of a binary task
        (``roc_auc``, ``log_loss``, ``brier``, ``f1``, ...): ``y_true`` (and the predicted
        labels of ``f1``, ``precision``, ``recall``) are read as ``== pos_label``.

    Returns
    -------
    HoldoutResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 2000)
    >>> a = np.where(rng.random(2000) < 0.80, y, 1 - y)
    >>> b = np.where(rng.random(2000) < 0.86, y, 1 - y)
    >>> res = holdout_posterior(y, a, b, metric="accuracy", rope=0.01, random_state=0)
    >>> res.method, res.decision().outcome
    ('dirichlet_multinomial', 'promote')
    """
    name, direction = resolve(metric, y_true, higher_is_better, (baseline, candidate))
    margin = as_margin(rope, metric=name)
    if pos_label is not None:
        y_true, baseline, candidate = positive_class(
            name, pos_label, y_true, baseline, candidate, threshold=threshold
        )
    return items_posterior(
        y_true,
        baseline,
        candidate,
        (name, direction, margin),
        cluster=cluster,
        item=item,
        threshold=threshold,
        draws=draws,
        prior=prior,
        names=(str(baseline_name), str(candidate_name)),
        random_state=random_state,
    )


def items_posterior(
    y_true: Any,
    baseline: Any,
    candidate: Any,
    asked: tuple[str, bool, Margin],
    *,
    cluster: Any = None,
    item: Any = None,
    threshold: float | None = None,
    draws: int = 4000,
    prior: float = 1.0,
    names: tuple[str, str] = ("baseline", "candidate"),
    random_state: Any = None,
) -> HoldoutResult:
    """:func:`holdout_posterior` below its door: ``asked`` is the metric, its direction and
    the margin, resolved and checked (by it, or by ``compare``'s request)."""
    name, direction, margin = asked
    draws = _check_draws(draws)
    check_number(prior, "prior", min_val=0, advice="a count; 1 is uniform")
    items = prepare(
        y_true, baseline, candidate, metric=name, item=item, cluster=cluster, threshold=threshold
    )
    if items.cluster is not None and items.n_clusters < 2:
        raise ValueError(
            "cluster= puts every item in one cluster; a cluster bootstrap needs at "
            "least 2 clusters (drop cluster= or check the column)"
        )
    rng = rng_from(random_state)
    sign = 1.0 if direction else -1.0
    if items.kind == "metric":
        mu, blind, method, extras = hd.metric_draws(items, sign, draws, rng)
    else:
        mu, blind, method, extras = hd.mean_draws(items, sign, draws, rng, prior)
    score_b, score_c = _scores(items)
    rope = _half_width(margin, items, score_b)
    if np.ptp(mu) == 0:
        warnings.warn(
            f"every posterior draw of the difference is {float(mu[0]):g}: the two "
            "models agree on every item (or the metric cannot move), so these data "
            "show no uncertainty; the decision rests on a point mass",
            ZeroVarianceWarning,
            stacklevel=2,
        )
    design = None if blind is None else _design_effect(mu, blind, int(items.n_clusters or 0))
    return HoldoutResult(
        draws=mu,
        rope=rope,
        method=method,
        estimate=sign * (score_c - score_b),
        baseline_score=score_b,
        candidate_score=score_c,
        n_items=items.n_items,
        n_rows=items.n_rows,
        baseline_name=names[0],
        candidate_name=names[1],
        metric=name,
        higher_is_better=direction,
        n_clusters=items.n_clusters,
        design_effect=design,
        blind_draws=blind,
        within_item_share=items.within_item_share,
        counts=extras.get("counts"),
        frequentist=extras["frequentist"],
    )
