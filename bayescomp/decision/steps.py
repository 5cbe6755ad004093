"""The one step engine of every selection: a step between two models (its posterior and its
decision, computed once per pair and table), the challengers' joint posterior (the family
rule's input) and the request both are asked under.

:class:`Steps` is the protocol a rule (:class:`~bayescomp.decision.walk.Rule`) is given as
``compare``; :class:`ScoreSteps` implements it on a scores table (each step
:func:`~bayescomp.posterior.compare.compare_scores` under the checked request, the joint the
correlated t of the paired splits) and :class:`ItemSteps` on a predictions table (each step
the one-test-set posterior on two model columns, one seeded stream per posterior, the joint
on the same items: :func:`joint_item_differences`).

The joint of a predictions table:

* per-item scores (0/1 correctness, losses, grades): the mean per-item differences with
  their sample covariance over ``n`` items, Student t with ``n - 1`` degrees of freedom;
  with clusters the cluster-robust (sandwich) covariance with the factor ``G / (G - 1)``
  and ``G - 1`` degrees of freedom — the small-sample treatment of a single comparison
  (:func:`bayescomp.posterior.holdout_draws.student_scale`);
* whole-set metrics (ROC AUC, F1, precision, recall): the covariance of joint Bayesian
  bootstrap draws, every challenger's metric computed under the *same* weights.

``python bench/test_set_selection.py`` measures the false-promotion rate and the power.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from bayescomp.core.margins import Relative
from bayescomp.decision.family import JointDifferences, joint_differences
from bayescomp.posterior import holdout_draws as hd
from bayescomp.posterior.holdout_data import Items, prepare
from bayescomp.posterior.predictions import COLUMNS, compare_predictions
from bayescomp.posterior.request import Request

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.core.rule import Decision
    from bayescomp.scores.table import Scores


class Steps(Protocol):
    """What a selection rule asks of the table (module docstring)."""

    request: Request

    def __call__(self, table: Scores, champion: str, challenger: str) -> tuple[Any, Decision]:
        """The posterior of ``challenger - champion`` on ``table`` and its decision."""
        ...

    def joint(self, challengers: list[str], paired: Mapping[str, pd.DataFrame]) -> JointDifferences:
        """The joint posterior of ``challengers``' differences from the baseline
        (``paired``: each challenger's paired scores with the baseline)."""
        ...


@dataclass
class ScoreSteps:
    """:class:`Steps` on a scores table (module docstring)."""

    request: Request
    _seen: dict[tuple[Any, ...], Any] = field(default_factory=dict, repr=False)

    def __call__(self, table: Scores, champion: str, challenger: str) -> tuple[Any, Decision]:
        from bayescomp.posterior.compare import compare_scores

        # once per (pair, table size): a fitted walk walks the same steps after each block
        key = (champion, challenger, tuple(table.models), len(table))
        if key not in self._seen:
            res = compare_scores(table, champion, challenger, self.request)
            self._seen[key] = res, res.decision(self.request.gamma)
        return self._seen[key]

    def joint(self, challengers: list[str], paired: Mapping[str, pd.DataFrame]) -> JointDifferences:
        """The correlated t of the challengers' oriented differences on their paired splits
        (log ratios under a relative margin, as each step compared them)."""
        sign = 1.0 if self.request.higher_is_better else -1.0
        cols = []
        for c in challengers:
            pf = paired[c].sort_values(["dataset", "split"])
            base, cand = pf["baseline"].to_numpy(float), pf["candidate"].to_numpy(float)
            if isinstance(self.request.margin, Relative):
                base, cand = np.log(base), np.log(cand)
            cols.append(sign * (cand - base))
        return joint_differences(np.column_stack(cols), float(paired[challengers[0]].attrs["rho"]))


@dataclass
class ItemSteps:
    """:class:`Steps` on a predictions table (module docstring): the request's options
    name the table's columns (``y_true``, ``cluster``, ``item``) and hold ``threshold`` and
    ``draws``; one seed stream per posterior, spawned from the request's seed in ``models``'
    order, then the joint's."""

    request: Request
    predictions: pd.DataFrame
    baseline: str
    models: list[str]
    _seen: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._root = np.random.SeedSequence(self.request.random_state)
        self._seeds = {m: self._root.spawn(1)[0] for m in self.models if m != self.baseline}
        self._joint_seed = self._root.spawn(1)[0]

    def __call__(self, _table: Any, champion: str, challenger: str) -> tuple[Any, Decision]:
        """The posterior of a step, once per pair (the table is the predictions')."""
        if (champion, challenger) not in self._seen:
            seed = self._seeds[challenger] if champion == self.baseline else self._root.spawn(1)[0]
            request = replace(self.request, random_state=np.random.default_rng(seed))
            res = compare_predictions(self.predictions, champion, challenger, request)
            self._seen[champion, challenger] = res, res.decision(self.request.gamma)
        return self._seen[champion, challenger]

    def joint(self, challengers: list[str], paired: Mapping[str, pd.DataFrame]) -> JointDifferences:
        p, o = self.predictions, self.request.options
        rows = {k: None if o.get(k) is None else p[o[k]].to_numpy() for k in COLUMNS}
        return joint_item_differences(
            rows["y_true"],
            p[self.baseline].to_numpy(),
            [p[c].to_numpy() for c in challengers],
            metric=str(self.request.metric),
            higher_is_better=bool(self.request.higher_is_better),
            item=rows["item"],
            cluster=rows["cluster"],
            threshold=o.get("threshold"),
            draws=o.get("draws", 4000),
            random_state=np.random.default_rng(self._joint_seed),
        )


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
