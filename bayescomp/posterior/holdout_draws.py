"""Posterior draws of a paired difference on one test set.

* **Binary scores** (both right / only the baseline / only the candidate / both wrong): the
  four cell probabilities have a ``Dirichlet(counts + prior)`` posterior (the conjugate
  Dirichlet–multinomial model); ``Δ = P(only candidate) − P(only baseline)``.
* **Means of per-item scores**: the Bayesian bootstrap (Rubin 1981).  The population is
  the items; its distribution gets ``Dirichlet(1, ..., 1)`` weights, and each draw is the
  weighted mean of the per-item differences.
* **Metrics of the whole set** (ROC AUC, F1, precision, recall): the same weights, and the
  metric of each model computed with them (a weighted AUC, weighted confusion counts).
* **Clusters**: the weights go to clusters instead of items (each item carries its
  cluster's weight): the cluster Bayesian bootstrap.  The mean then is the ratio
  ``Σ w_c S_c / Σ w_c n_c`` of weighted cluster sums and sizes.

**Small samples.**  The Bayesian bootstrap treats the observed spread of the ``k`` items
(or clusters) as known: its draws of a mean have variance ``σ̂² / (k + 1)`` with ``σ̂²``
the population variance of the values, where the sampling variance is estimated by
``s² / k = σ̂² / (k − 1)``, and its tails are normal where the standardized mean follows
a Student t with ``k − 1`` degrees of freedom.  With 50 items (or 50 clusters) its 95 %
interval covers about 92 %.  :func:`student_scale` adds the uncertainty of the spread as the
normal model does (Jeffreys prior: ``σ² ~ (k − 1) s² / χ²_{k−1}``, which makes the mean a
Student t with ``k − 1`` degrees of freedom): each draw's deviation from the observed mean
is multiplied by ``sqrt((k + 1) / χ²_{k−1})``, one chi-squared draw per draw.  The shape of
the bootstrap (its skewness) is kept; the variance becomes ``s² / k · (k − 1) / (k − 3)``,
the Student t's; for large ``k`` the factor tends to 1.  ``python
bench/test_set_coverage.py`` shows the effect.

Large test sets without clusters use the *blocked* Bayesian bootstrap for means: the
sorted differences are cut into ``BLOCKS`` contiguous blocks, the block totals of the
Dirichlet(1, ..., 1) weights are drawn exactly (``Dirichlet(block sizes)``, the aggregation
property) and the weighted mean inside each block, whose spread is tiny because the block
holds neighbouring values, by its exact mean and variance (a normal draw).  The tests
check it against the exact draws.

:func:`mean_draws` and :func:`metric_draws` draw a test set's difference by the kind of its
scores, with the frequentist companions beside (McNemar, the standard error, DeLong).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.exceptions import BayescompWarning
from bayescomp.core.metric import metric_record
from bayescomp.core.weighted_auc import auc_weighted
from bayescomp.posterior.holdout_frequentist import cluster_robust_se, delong, mcnemar

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.posterior.holdout_data import Items

#: above this many items a mean without clusters uses the blocked Bayesian bootstrap
EXACT_MAX_ITEMS = 20_000
BLOCKS = 1_000
#: weights generated per chunk (draws x items), to bound memory
_CHUNK = 4_000_000


def dirichlet_multinomial(
    b: np.ndarray, c: np.ndarray, draws: int, rng: np.random.Generator, prior: float = 1.0
) -> tuple[np.ndarray, dict[str, int]]:
    """Draws of ``P(only c) − P(only b)`` for 0/1 scores, and the four counts."""
    b1, c1 = b.astype(bool), c.astype(bool)
    counts = {
        "both": int(np.sum(b1 & c1)),
        "only_baseline": int(np.sum(b1 & ~c1)),
        "only_candidate": int(np.sum(~b1 & c1)),
        "neither": int(np.sum(~b1 & ~c1)),
    }
    alpha = np.array(
        [counts["only_baseline"], counts["only_candidate"], counts["both"] + counts["neither"]],
        dtype=float,
    )
    alpha += np.array([prior, prior, 2 * prior])  # the two concordant cells merge exactly
    p = rng.dirichlet(alpha, size=draws)
    return p[:, 1] - p[:, 0], counts


def _weight_chunks(n: int, draws: int, rng: np.random.Generator):
    """Dirichlet(1, ..., 1) weights in chunks of rows (unnormalised: Exp(1) draws)."""
    step = max(1, _CHUNK // max(n, 1))
    for start in range(0, draws, step):
        yield rng.standard_exponential((min(step, draws - start), n))


def student_scale(x: np.ndarray, center: float, k: int, rng: np.random.Generator) -> np.ndarray:
    """Bayesian-bootstrap draws ``x`` of a mean over ``k`` units (items or clusters) with the
    uncertainty of the spread added: deviations from ``center`` times
    ``sqrt((k + 1) / χ²_{k−1})`` (module docstring).  Normal draws of variance
    ``σ̂² / (k + 1)`` become exactly ``center + s/√k · t_{k−1}``."""
    if k < 2:
        return x
    factor = np.sqrt((k + 1.0) / rng.chisquare(k - 1, size=x.shape))
    return center + (x - center) * factor


def bayesian_bootstrap_mean(
    d: np.ndarray, draws: int, rng: np.random.Generator, small_sample: bool = True
) -> np.ndarray:
    """Draws of the mean of ``d`` under the Bayesian bootstrap (blocked for large ``d``),
    with the small-sample Student scaling of :func:`student_scale` unless
    ``small_sample=False`` (Rubin's plain bootstrap)."""
    if d.size > EXACT_MAX_ITEMS:
        x = _blocked_mean(d, draws, rng)
    else:
        x = np.concatenate([(g @ d) / g.sum(axis=1) for g in _weight_chunks(d.size, draws, rng)])
    return student_scale(x, float(d.mean()), d.size, rng) if small_sample else x


def _blocked_mean(d: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    s = np.sort(d)
    edges = np.linspace(0, s.size, BLOCKS + 1).astype(np.int64)
    sizes = np.diff(edges).astype(float)
    sums = np.add.reduceat(s, edges[:-1])
    means = sums / sizes
    # population variance within each block; the Dirichlet(1..1)-weighted mean of m values
    # has variance var / (m + 1)
    sq = np.add.reduceat((s - np.repeat(means, np.diff(edges))) ** 2, edges[:-1])
    sd_within = np.sqrt(sq / sizes / (sizes + 1.0))
    totals = rng.gamma(sizes, size=(draws, BLOCKS))
    inner = means + sd_within * rng.standard_normal((draws, BLOCKS))
    return np.einsum("ij,ij->i", totals, inner) / totals.sum(axis=1)


def cluster_bootstrap_mean(
    d: np.ndarray,
    cluster: np.ndarray,
    draws: int,
    rng: np.random.Generator,
    small_sample: bool = True,
) -> np.ndarray:
    """Draws of the mean of ``d`` over items when whole clusters are resampled, with the
    small-sample Student scaling over the ``G`` clusters (``G − 1`` degrees of freedom)
    unless ``small_sample=False``."""
    k = int(cluster.max()) + 1
    sums = np.bincount(cluster, weights=d, minlength=k)
    sizes = np.bincount(cluster, minlength=k).astype(float)
    x = np.concatenate([(g @ sums) / (g @ sizes) for g in _weight_chunks(k, draws, rng)])
    return student_scale(x, float(d.mean()), k, rng) if small_sample else x


def _counts_metric(name: str) -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    record = metric_record(name)

    def metric(pos: np.ndarray, pred: np.ndarray, w: np.ndarray) -> np.ndarray:
        hit = pred.astype(bool)
        tp, fp, fn, tn = (w @ (hit & pos), w @ (hit & ~pos), w @ (~hit & pos), w @ (~hit & ~pos))
        return record.from_counts(tp, fp, fn, tn)

    return metric


def weighted_metric(name: str) -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """``f(positive, prediction, weights (draws, n)) -> metric per row of weights``."""
    if name == "roc_auc":
        return auc_weighted
    return _counts_metric(name)


def bayesian_bootstrap_metric(
    name: str,
    pos: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    draws: int,
    rng: np.random.Generator,
    cluster: np.ndarray | None = None,
) -> np.ndarray:
    """Draws of ``metric(c) − metric(b)`` under (cluster) Dirichlet(1, ..., 1) weights."""
    f = weighted_metric(name)
    k = b.size if cluster is None else int(cluster.max()) + 1
    out = []
    for g in _weight_chunks(k, draws, rng):
        w = g if cluster is None else g[:, cluster]
        out.append(f(pos, c, w) - f(pos, b, w))
    diff = np.concatenate(out)
    diff[np.abs(diff) < 1e-12] = 0.0  # equal metrics up to rounding are equal
    if not np.all(np.isfinite(diff)):
        raise ValueError(
            f"{name} is undefined under some resampling weights (no predicted "
            "positives, or a class without weight); use a larger test set or an "
            "item-wise metric"
        )
    return diff


def metric_value(name: str, pos: np.ndarray, pred: np.ndarray) -> float:
    """The metric on the test set as it is (all weights equal)."""
    return float(weighted_metric(name)(pos, pred, np.ones((1, pred.size)))[0])


def mean_draws(
    items: Items, sign: float, draws: int, rng: np.random.Generator, prior: float
) -> tuple[np.ndarray, np.ndarray | None, str, dict[str, Any]]:
    """Draws (and cluster-blind draws) of the oriented mean difference, its method, extras."""
    d = sign * (items.candidate - items.baseline)
    extras: dict[str, Any] = {}
    frequentist: dict[str, Any] = {"standard_error": cluster_robust_se(d, items.cluster)}
    if items.kind == "binary":
        blind, counts = dirichlet_multinomial(items.baseline, items.candidate, draws, rng, prior)
        blind = sign * blind
        extras["counts"] = counts
        frequentist["mcnemar"] = mcnemar(counts["only_baseline"], counts["only_candidate"])
        method = "dirichlet_multinomial"
    else:
        plain = bayesian_bootstrap_mean(d, draws, rng, small_sample=False)
        blind = student_scale(plain, float(d.mean()), d.size, rng)
        method = "bayesian_bootstrap"
    extras["frequentist"] = frequentist
    if items.cluster is None:
        return blind, None, method, extras
    plain_c = cluster_bootstrap_mean(d, items.cluster, draws, rng, small_sample=False)
    draws_c = student_scale(plain_c, float(d.mean()), int(items.n_clusters or 0), rng)
    return draws_c, blind, "cluster_bayesian_bootstrap", extras


def _delong(pos: np.ndarray, b: np.ndarray, c: np.ndarray, cluster: np.ndarray | None) -> Any:
    """The paired DeLong test; with clusters Obuchowski's clustered one (or, when the
    classes sit in fewer than 2 clusters each, the classic one with a warning)."""
    if cluster is None:
        return delong(pos, b, c)
    try:
        return delong(pos, b, c, cluster=cluster)
    except ValueError as exc:
        warnings.warn(
            f"the DeLong test below ignores the clusters: {exc}",
            BayescompWarning,
            stacklevel=4,
        )
        return delong(pos, b, c)


def metric_draws(
    items: Items, sign: float, draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray | None, str, dict[str, Any]]:
    """Draws (and cluster-blind draws) of the oriented difference of a whole-set metric
    (ROC AUC, F1, ...), its method, and the DeLong test beside an AUC."""
    pos = np.asarray(items.y_true, dtype=bool)
    b, c, name = items.baseline, items.candidate, items.metric
    blind = sign * bayesian_bootstrap_metric(name, pos, b, c, draws, rng)
    extras: dict[str, Any] = {"frequentist": {}}
    if name == "roc_auc" and pos.sum() >= 2 and (~pos).sum() >= 2:
        extras["frequentist"]["delong"] = _delong(pos, b, c, items.cluster)
    if items.cluster is None:
        return blind, None, "bayesian_bootstrap", extras
    clustered = sign * bayesian_bootstrap_metric(name, pos, b, c, draws, rng, items.cluster)
    return clustered, blind, "cluster_bayesian_bootstrap", extras
