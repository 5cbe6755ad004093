"""The interval of one metric on one test set (:class:`MetricInterval`): what the bootstrap,
the bag of little bootstraps and the Spark paths return alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_own_level
from bayescomp.core.jsonable import jsonable
from bayescomp.core.orientation import clip_to_range
from bayescomp.core.protocols import Card

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes


@dataclass(frozen=True)
class MetricInterval(Card):
    """A confidence interval for one metric on one test set.

    Attributes
    ----------
    metric : str
        Metric name.
    estimate : float
        The metric on the test set as given.
    low, high : float
        Bounds of the interval with coverage ``confidence_level``, clipped to the
        range the metric can take (a basic interval can pass it: accuracy 1.005).
    standard_error : float
        Standard deviation of the bootstrap (or BLB) distribution.
    distribution : ndarray
        Metric values of the resamples (for BLB: of all resamples of all subsets).
    confidence_level : float
    method : str
        ``"bca"``, ``"percentile"``, ``"basic"`` or ``"blb"``.
    n : int
        Number of test rows.
    n_resamples : int
    """

    card_says = True

    metric: str
    estimate: float
    low: float
    high: float
    standard_error: float
    distribution: np.ndarray = field(repr=False, compare=False)
    confidence_level: float = 0.95
    method: str = "bca"
    n: int = 0
    n_resamples: int = 0
    higher_is_better: bool | None = None

    def __post_init__(self) -> None:
        # a basic interval (2 * estimate - quantile) can pass the metric's range: clip it
        low, high, _ = clip_to_range(self.low, self.high, self.metric)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    @property
    def width(self) -> float:
        """``high - low``."""
        return float(self.high - self.low)

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies inside ``[low, high]``."""
        return bool(self.low <= value <= self.high)

    def summary(self, *, confidence_level: float | None = None) -> pd.DataFrame:
        """One row: metric, estimate, bounds, standard error, method, sizes.

        The interval was computed at :attr:`confidence_level`; asking for another level
        raises (compute the interval again with that level).
        """
        import pandas as pd

        check_own_level(confidence_level, self.confidence_level, "interval")
        return pd.DataFrame(
            [
                {
                    "metric": self.metric,
                    "estimate": self.estimate,
                    "low": self.low,
                    "high": self.high,
                    "standard_error": self.standard_error,
                    "confidence_level": self.confidence_level,
                    "method": self.method,
                    "n": self.n,
                    "n_resamples": self.n_resamples,
                }
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        """The summary's row, JSON-ready."""
        return jsonable(self.summary().iloc[0].to_dict())

    def plot(self, *, ax: Axes | None = None) -> Axes:
        """Histogram of the resampled metric with the estimate and the interval marked."""
        from bayescomp.report.metric_plots import plot_metric_interval

        return plot_metric_interval(self, ax=ax)

    def __str__(self) -> str:
        return (
            f"{self.metric} = {self.estimate:.4g}, {100 * self.confidence_level:g}% CI "
            f"[{self.low:.4g}, {self.high:.4g}] ({self.method}, n={self.n})"
        )
