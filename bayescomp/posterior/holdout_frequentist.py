"""Frequentist companions of a comparison on one test set, as ``nadeau_bengio_ttest`` is
for cross-validation.

* :func:`mcnemar` — exact, mid-p and chi-squared McNemar tests of paired 0/1 outcomes
  (the exact and chi-squared p-values equal ``statsmodels.stats.contingency_tables.mcnemar``).
* :func:`delong` — the paired DeLong test of two ROC AUCs on the same items (DeLong,
  DeLong & Clarke-Pearson 1988, in the mid-rank form of Sun & Xu 2014); with clusters,
  the structural components are summed within each cluster (Obuchowski 1997,
  "Nonparametric analysis of clustered ROC curve data", Biometrics 53:567–578).
* :func:`cluster_robust_se` — the standard error of a mean paired difference when items
  come in clusters (the sandwich estimator with the small-sample factor ``G / (G - 1)``,
  equal to statsmodels OLS with ``cov_type="cluster"``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats
from scipy.stats import rankdata


@dataclass(frozen=True)
class McNemar:
    """McNemar tests of ``only_baseline`` against ``only_candidate`` discordant pairs."""

    only_baseline: int
    only_candidate: int
    pvalue_exact: float
    pvalue_midp: float
    statistic_chi2: float
    pvalue_chi2: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def mcnemar(only_baseline: int, only_candidate: int, correction: bool = True) -> McNemar:
    """Exact (two-sided binomial), mid-p and chi-squared McNemar tests.

    Examples
    --------
    >>> r = mcnemar(3, 12)
    >>> round(r.pvalue_exact, 4), round(r.pvalue_midp, 4)
    (0.0352, 0.0213)
    """
    b, c = int(only_baseline), int(only_candidate)
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be >= 0; got {b} and {c}")
    n, k = b + c, min(b, c)
    if n == 0:
        return McNemar(b, c, 1.0, 1.0, 0.0, 1.0)
    exact = min(1.0, 2.0 * stats.binom.cdf(k, n, 0.5))
    midp = min(1.0, 2.0 * (stats.binom.cdf(k, n, 0.5) - 0.5 * stats.binom.pmf(k, n, 0.5)))
    chi2 = (abs(b - c) - (1.0 if correction else 0.0)) ** 2 / n
    return McNemar(b, c, float(exact), float(midp), float(chi2), float(stats.chi2.sf(chi2, 1)))


@dataclass(frozen=True)
class DeLong:
    """Paired DeLong test of ``AUC(candidate) − AUC(baseline)``."""

    auc_baseline: float
    auc_candidate: float
    difference: float
    standard_error: float
    statistic: float
    pvalue: float
    low: float
    high: float
    confidence_level: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def _placements(pos: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's structural components: ``V10`` per positive and ``V01`` per negative."""
    n1, n0 = int(pos.sum()), int((~pos).sum())
    r_all = rankdata(score)
    r_pos = rankdata(score[pos])
    r_neg = rankdata(score[~pos])
    v10 = (r_all[pos] - r_pos) / n0
    v01 = 1.0 - (r_all[~pos] - r_neg) / n1
    return v10, v01


def _clustered_variance(
    pos: np.ndarray, e10: np.ndarray, e01: np.ndarray, cluster: np.ndarray
) -> float:
    """Obuchowski's (1997) variance of an AUC (difference) from centred structural
    components ``e10`` (per positive) and ``e01`` (per negative) summed per cluster:
    ``I10/(I10−1) Σ S10²/N1² + I01/(I01−1) Σ S01²/N0² + 2 I/(I−1) Σ S10 S01/(N1 N0)``,
    ``I10``/``I01`` the clusters holding positives/negatives, ``I`` all clusters.  With one
    item per cluster it is DeLong's variance."""
    codes = np.unique(np.asarray(cluster), return_inverse=True)[1]
    g = int(codes.max()) + 1
    n1, n0 = e10.size, e01.size
    s10 = np.bincount(codes[pos], weights=e10, minlength=g)
    s01 = np.bincount(codes[~pos], weights=e01, minlength=g)
    i10 = int(np.unique(codes[pos]).size)
    i01 = int(np.unique(codes[~pos]).size)
    if min(i10, i01) < 2:
        raise ValueError(
            f"a clustered DeLong test needs positives in at least 2 clusters and negatives "
            f"in at least 2; got {i10} and {i01} — use more clusters or drop cluster="
        )
    return float(
        i10 / (i10 - 1) * np.sum(s10**2) / n1**2
        + i01 / (i01 - 1) * np.sum(s01**2) / n0**2
        + 2 * g / (g - 1) * np.sum(s10 * s01) / (n1 * n0)
    )


def delong(
    positive: np.ndarray,
    baseline: np.ndarray,
    candidate: np.ndarray,
    confidence_level: float = 0.95,
    cluster: np.ndarray | None = None,
) -> DeLong:
    """Paired DeLong test of two ROC AUCs on the same items.

    ``positive`` is the boolean mask of the positive class; ``baseline`` and ``candidate``
    the two models' scores.  The interval is ``difference ± z · SE``.  With ``cluster``
    (one label per item) the standard error is Obuchowski's (1997) clustered one: the
    structural components of the items of a cluster are summed before their variance,
    so items of one cluster are not counted as independent evidence; with one item per
    cluster it equals the classic DeLong standard error.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 0, 1, 1, 0, 1, 0, 1], dtype=bool)
    >>> r = delong(y, np.array([.1, .4, .35, .8, .2, .3, .6, .7]),
    ...            np.array([.2, .3, .6, .9, .1, .5, .4, .8]))
    >>> round(r.auc_baseline, 4), round(r.auc_candidate, 4)
    (0.75, 1.0)
    """
    pos = np.asarray(positive, dtype=bool)
    n1, n0 = int(pos.sum()), int((~pos).sum())
    if n1 < 2 or n0 < 2:
        raise ValueError(
            f"the DeLong test needs at least 2 items of each class; got {n1} "
            f"positives and {n0} negatives"
        )
    v10b, v01b = _placements(pos, np.asarray(baseline, dtype=float))
    v10c, v01c = _placements(pos, np.asarray(candidate, dtype=float))
    auc_b, auc_c = float(v10b.mean()), float(v10c.mean())
    diff = auc_c - auc_b
    if cluster is None:
        s10 = np.cov(np.vstack([v10b, v10c]))
        s01 = np.cov(np.vstack([v01b, v01c]))
        var = (s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / n1 + (
            s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]
        ) / n0
    else:
        if len(cluster) != pos.size:
            raise ValueError(
                f"cluster has {len(cluster)} labels for {pos.size} items; give one per item"
            )
        var = _clustered_variance(pos, v10c - v10b - diff, v01c - v01b - diff, cluster)
    se = float(np.sqrt(max(var, 0.0)))
    z = diff / se if se > 0 else (0.0 if diff == 0 else np.copysign(np.inf, diff))
    q = stats.norm.ppf(0.5 + confidence_level / 2)
    return DeLong(
        auc_b,
        auc_c,
        diff,
        se,
        float(z),
        float(2 * stats.norm.sf(abs(z))),
        float(diff - q * se),
        float(diff + q * se),
        confidence_level,
    )


def cluster_robust_se(d: np.ndarray, cluster: np.ndarray | None = None) -> float:
    """Standard error of ``mean(d)``: cluster-robust when ``cluster`` is given.

    With ``G`` clusters, ``SE² = G / (G − 1) · Σ_g (Σ_{i∈g} (d_i − d̄))² / N²`` — the
    sandwich estimator of an intercept-only regression with statsmodels' small-sample
    factor; without clusters the usual ``s / √N``.

    Examples
    --------
    >>> round(cluster_robust_se(np.array([1., 2., 3., 4.]), np.array([0, 0, 1, 1])), 4)
    1.0
    """
    d = np.asarray(d, dtype=float)
    n = d.size
    if cluster is None:
        return float(np.std(d, ddof=1) / np.sqrt(n))
    codes = np.unique(np.asarray(cluster), return_inverse=True)[1]
    g = int(codes.max()) + 1
    if g < 2:
        raise ValueError("a cluster-robust standard error needs at least 2 clusters")
    sums = np.bincount(codes, weights=d - d.mean(), minlength=g)
    return float(np.sqrt(g / (g - 1) * np.sum(sums**2)) / n)
