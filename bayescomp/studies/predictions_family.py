"""The ``"family"`` rule over several models' predictions on one test set.

Many challengers scored on the same holdout against one baseline: each challenger's own
posterior against the baseline is calibrated, but the *selection* promotes one of them
far more often than ``1 - gamma`` when none is better beyond the ROPE.  This module gives
the predictions the many-challenger treatment of :mod:`bayescomp.decision.family` (the
same functions, not a copy): only the winner can be promoted, and only when the
hybrid selective test of Andrews, Kitagawa & McCloskey (2024) says it is still better
beyond the ROPE *given that it was picked as the best*; its gain is reported
winner's-curse-corrected.

What is test-set specific is the joint posterior of the ``k`` differences
(:func:`joint_item_differences`):

* per-item scores (0/1 correctness, losses, grades): the mean per-item differences with
  their sample covariance over ``n`` items, Student t with ``n - 1`` degrees of freedom;
  with clusters the cluster-robust (sandwich) covariance with the factor ``G / (G - 1)``
  and ``G - 1`` degrees of freedom — the same small-sample treatment as the posterior of
  a single comparison (:func:`bayescomp.posterior.holdout_draws.student_scale`);
* whole-set metrics (ROC AUC, F1, precision, recall): the covariance of joint Bayesian
  bootstrap draws, every challenger's metric computed under the *same* weights.

``python bench/test_set_selection.py`` measures the false-promotion rate and the power.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from bayescomp.decision.family import (
    JointDifferences,
    WinnerTest,
    joint_differences,
    winner_test,
)
from bayescomp.posterior import holdout_draws as hd
from bayescomp.posterior.holdout_data import Items, prepare

#: weights generated per chunk (draws x units) for the joint metric draws
_CHUNK = 4_000_000


def _clustered(d: np.ndarray, cluster: np.ndarray) -> JointDifferences:
    """The column means of ``d`` (n, k) with their cluster-robust covariance, G − 1 df."""
    n = d.shape[0]
    x = d - d.mean(axis=0)
    g = int(cluster.max()) + 1
    sums = np.stack([np.bincount(cluster, weights=x[:, j], minlength=g) for j in range(d.shape[1])])
    return JointDifferences(d.mean(axis=0), g / (g - 1) * (sums @ sums.T) / n**2, g - 1)


def _metric_joint(
    items: list[Items], sign: float, draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, int]:
    """Point differences and the covariance of joint Bayesian bootstrap draws."""
    first = items[0]
    pos = np.asarray(first.y_true, dtype=bool)
    f = hd.weighted_metric(first.metric)
    units = first.n_items if first.cluster is None else int(first.n_clusters or 0)
    step = max(1, _CHUNK // max(first.n_items, 1))
    out = []
    for start in range(0, draws, step):
        g = rng.standard_exponential((min(step, draws - start), units))
        w = g if first.cluster is None else g[:, first.cluster]
        base = f(pos, first.baseline, w)
        out.append(np.column_stack([f(pos, it.candidate, w) - base for it in items]))
    joint = sign * np.concatenate(out)
    if not np.all(np.isfinite(joint)):
        raise ValueError(
            f"{first.metric} is undefined under some resampling weights; use a larger "
            "test set or an item-wise metric"
        )
    ones = np.ones((1, first.n_items))
    mean = sign * np.array(
        [f(pos, it.candidate, ones)[0] - f(pos, first.baseline, ones)[0] for it in items]
    )
    return mean, np.atleast_2d(np.cov(joint, rowvar=False)), units - 1


def joint_item_differences(
    y_true: Any,
    baseline: Any,
    challengers: list[Any],
    *,
    metric: str,
    higher_is_better: bool,
    item: Any = None,
    cluster: Any = None,
    threshold: float | None = None,
    draws: int = 4000,
    random_state: Any = None,
) -> JointDifferences:
    """The joint posterior of ``k`` challengers' differences from the baseline on the same
    items, oriented so that positive is better (module docstring).

    Parameters
    ----------
    y_true : array_like or None
        True labels (``None`` when the columns hold per-item scores).
    baseline : array_like
        The baseline's predictions (or per-item scores), one per row.
    challengers : list of array_like
        Each challenger's predictions on the same rows.
    metric : str
        A resolved metric name (:func:`bayescomp.posterior.holdout_data.resolve`).
    higher_is_better : bool
    item, cluster, threshold
        As in :func:`~bayescomp.posterior.holdout.holdout_posterior`.
    draws : int
        Joint Bayesian bootstrap draws (whole-set metrics only).
    random_state : int, Generator or None

    Returns
    -------
    JointDifferences

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> base = (rng.random(500) < 0.8).astype(float)
    >>> others = [np.where(rng.random(500) < 0.1, 1 - base, base) for _ in range(3)]
    >>> j = joint_item_differences(None, base, others, metric="accuracy",
    ...                            higher_is_better=True)
    >>> j.mean.shape, j.shape.shape, j.df
    ((3,), (3, 3), 499)
    """
    items = [
        prepare(y_true, baseline, c, metric=metric, item=item, cluster=cluster, threshold=threshold)
        for c in challengers
    ]
    sign = 1.0 if higher_is_better else -1.0
    if items[0].kind == "metric":
        mean, shape, df = _metric_joint(items, sign, draws, np.random.default_rng(random_state))
        return JointDifferences(mean, shape, df)
    d = sign * np.column_stack([it.candidate - it.baseline for it in items])
    if items[0].cluster is None:  # independent items: the correlated t with rho = 0
        return joint_differences(d, 0.0)
    return _clustered(d, items[0].cluster)


def family_decisions(
    names: list[str],
    results: list[Any],
    joint: JointDifferences,
    rope: float,
    gamma: float,
) -> tuple[str, WinnerTest, list[tuple[Any, str]]]:
    """The champion after the winner test, the test, and each step's decision and reason.

    ``results`` are the challengers' own posteriors against the baseline (``names``
    order).  A challenger promoted on its own but not the winner, or the winner not
    passing the selective test, is *inconclusive* under the family rule.
    """
    test = winner_test(joint, rope, gamma)
    k = len(names)
    winner = names[int(test.winner)]
    own = {n: r.decision(gamma) for n, r in zip(names, results, strict=True)}
    promoted = bool(test.promote) and own[winner].outcome == "promote"
    p_sel, alpha = float(test.p_selective), 1.0 - gamma
    steps = []
    for n in names:
        d = own[n]
        if n == winner and promoted:
            steps.append(
                (
                    d,
                    f"{d.reason}; the best of {k} challenger(s) on these items, and still "
                    f"better beyond the ROPE given that it was selected (selective p = "
                    f"{p_sel:.3f} ≤ {alpha:.3g}); winner's-curse-corrected gain "
                    f"{float(test.corrected_gain):+.4g}",
                )
            )
            continue
        if d.outcome != "promote":
            steps.append((d, d.reason))
            continue
        why = f"better beyond the ROPE on its own (P = {d.p_right:.3f}), but "
        why += (
            f"not once its selection as the best of {k} challenger(s) is accounted for "
            f"(selective p = {p_sel:.3f} > {alpha:.3g}) — more items (or clusters) "
            "would settle it"
            if n == winner
            else f"not the best of {k} challenger(s) ({winner} is)"
        )
        steps.append((replace(d, outcome="inconclusive", reason=why), why))
    return (winner if promoted else ""), test, steps
