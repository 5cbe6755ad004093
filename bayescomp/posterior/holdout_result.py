"""The posterior of a paired difference on one test set (:class:`HoldoutResult`).

It holds draws of ``mu``, the difference candidate − baseline oriented so that positive is
better, and answers through the :class:`~bayescomp.core.protocols.Posterior` contract like
the correlated t-test: the three ROPE regions, ``p_better``, an HDI, the decision by the one
rule (:func:`bayescomp.core.rule.decide`), ``summary()``, ``to_dict()`` and ``plot()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_level
from bayescomp.core.jsonable import jsonable
from bayescomp.core.orientation import difference_label
from bayescomp.posterior.base import DrawsPosterior

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

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
    rope: float
    method: str
    estimate: float
    baseline_score: float
    candidate_score: float
    n_items: int
    n_rows: int
    baseline_name: str = "baseline"
    candidate_name: str = "candidate"
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
            "decision": self.decision(gamma).outcome,
            "n_items": self.n_items,
            "n_rows": self.n_rows,
            "n_clusters": self.n_clusters,
            "design_effect": self.design_effect,
            "within_item_share": self.within_item_share,
            "draws": int(self.draws.size),
        }
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
        from bayescomp.report.holdout_plots import plot_draws_posterior

        return plot_draws_posterior(self, ax=ax, level=confidence_level)

    def plot_design_effect(self, *, ax: Axes | None = None, confidence_level: float = 0.95) -> Axes:
        """The cluster posterior beside the cluster-blind one: what ignoring clusters hides."""
        from bayescomp.report.holdout_plots import plot_design_effect

        return plot_design_effect(self, ax=ax, level=confidence_level)

    def figures(self) -> dict[str, Figure]:
        """The posterior, and with clusters the design effect, each on a new figure."""
        from bayescomp.report.holdout_plots import holdout_figures

        return holdout_figures(self)
