"""The frequentist corrected resampled t-test (Nadeau & Bengio 2003).

The classical twin of the Bayesian correlated t-test: the same corrected variance
``s^2 (1/n + rho/(1-rho))`` of the mean paired difference, read as a t statistic and a
p-value instead of a posterior.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from scipy import stats

from bayescomp.core.checks import check_level, check_rho
from bayescomp.core.jsonable import jsonable
from bayescomp.core.protocols import Card
from bayescomp.posterior.differences import as_output, corrected_scale, paired_differences

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["NadeauBengioResult", "nadeau_bengio_ttest"]


@dataclass(frozen=True)
class NadeauBengioResult(Card):
    """Frequentist corrected resampled t-test (Nadeau & Bengio 2003)."""

    card_title = "Nadeau–Bengio corrected t-test"

    statistic: Any
    pvalue: Any
    df: int
    mean: Any
    standard_error: Any
    alternative: str

    def summary(self, *, confidence_level: float | None = None) -> pd.DataFrame:
        """One row per comparison: mean difference, standard error, t, df, p-value and the
        confidence interval (``confidence_level``, default 0.95)."""
        import pandas as pd

        level = 0.95 if confidence_level is None else confidence_level
        low, high = self.confidence_interval(level)
        cols = {
            "mean": self.mean,
            "standard_error": self.standard_error,
            "statistic": self.statistic,
            "df": self.df,
            "pvalue": self.pvalue,
            "ci_low": low,
            "ci_high": high,
            "confidence_level": level,
        }
        shape = np.shape(self.mean)
        frame = pd.DataFrame(
            {k: np.broadcast_to(np.asarray(v, dtype=float), shape).ravel() for k, v in cols.items()}
        )
        frame["alternative"] = self.alternative
        return frame

    def to_dict(self) -> dict[str, Any]:
        """The summary's row (``{"comparisons": [...]}`` for a batch), JSON-ready."""
        rows = self.summary().to_dict("records")
        return jsonable(rows[0] if np.ndim(self.mean) == 0 else {"comparisons": rows})

    def plot(self, *, ax: Axes | None = None) -> Axes:
        """The t sampling distribution of the mean difference, its interval and zero."""
        from bayescomp.report.plots import plot_frequentist

        if np.ndim(self.mean) > 0:
            raise ValueError("plot() draws a single comparison; run the test on one")
        return plot_frequentist(self, ax=ax)

    def confidence_interval(self, confidence_level: float = 0.95) -> tuple[Any, Any]:
        level = check_level(confidence_level)
        if self.alternative == "two-sided":
            q = stats.t.ppf(0.5 + level / 2, self.df)
            return as_output(self.mean - q * self.standard_error), as_output(
                self.mean + q * self.standard_error
            )
        q = stats.t.ppf(level, self.df)
        if self.alternative == "greater":
            return as_output(self.mean - q * self.standard_error), np.inf
        return -np.inf, as_output(self.mean + q * self.standard_error)


def nadeau_bengio_ttest(
    baseline: Any,
    candidate: Any,
    *,
    rho: Any,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    axis: int = -1,
) -> NadeauBengioResult:
    """Corrected resampled paired t-test for ``candidate - baseline``.

    The variance of the mean difference is inflated from ``s^2/n`` to
    ``s^2 (1/n + rho/(1-rho))`` (``rho/(1-rho) = n_test/n_train``).
    ``alternative="greater"`` tests whether the candidate is better; its p-value
    is ``P(T >= t)``, signed — not ``P(T >= |t|)``, which is wrong when the
    candidate is worse.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> b = rng.normal(0.8, 0.02, 50); c = b + rng.normal(-0.01, 0.01, 50)
    >>> nadeau_bengio_ttest(b, c, rho=0.1, alternative="greater").pvalue > 0.5
    True
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(
            f"alternative must be 'two-sided', 'greater' or 'less'; got {alternative!r}"
        )
    d = paired_differences(baseline, candidate, axis=axis)
    r = check_rho(rho)
    n = d.shape[-1]
    mean, _, se = corrected_scale(d, r)
    if np.any(se == 0):
        raise ValueError(
            "the paired differences have zero variance, so the t statistic is undefined; "
            "the models give identical differences on every split"
        )
    t = mean / se
    df = n - 1
    if alternative == "two-sided":
        p = 2 * stats.t.sf(np.abs(t), df)
    elif alternative == "greater":
        p = stats.t.sf(t, df)
    else:
        p = stats.t.cdf(t, df)
    return NadeauBengioResult(
        statistic=as_output(t),
        pvalue=as_output(p),
        df=df,
        mean=as_output(mean),
        standard_error=as_output(se),
        alternative=alternative,
    )
