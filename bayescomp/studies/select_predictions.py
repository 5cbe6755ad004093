"""Selection over several models' predictions on one test set: the inputs of the one walk.

:func:`bayescomp.select` on a predictions table (``y_true`` and one column per model)
walks the same rules as on a scores table (:func:`bayescomp.studies.select.walk_selection`):
the items play the role of splits, each step is the one-test-set posterior of
:func:`bayescomp.compare` on two model columns (clusters and repeated samples honoured),
and the family rule reads the joint posterior of the challengers' differences on the same
items (:func:`joint_item_differences`):

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

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.decision.family import JointDifferences, joint_differences
from bayescomp.posterior import holdout_draws as hd
from bayescomp.posterior.compare import compare as compare_posterior
from bayescomp.posterior.holdout_data import ITEMWISE, Items, item_scores, prepare, resolve
from bayescomp.posterior.predictions import pop_slicing, prediction_models, with_positive_class

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: the keyword arguments of compare on a predictions table that name its columns
COLUMNS = ("y_true", "cluster", "item", "sample")
#: the other keyword arguments of compare a predictions table takes
_OPTIONS = (
    "threshold",
    "draws",
    "random_state",
    "pos_label",
    "slices",
    "slice_rope",
    "slice_gamma",
)


def _item_scores(
    predictions: pd.DataFrame,
    models: list[str],
    metric: str,
    columns: dict[str, Any],
    threshold: float | None,
) -> pd.DataFrame:
    """Per-item score of every model (per-item predictions for a whole-set metric), tidy."""
    import pandas as pd

    y = None if columns["y_true"] is None else predictions[columns["y_true"]].to_numpy()
    item = (
        np.arange(len(predictions))
        if columns["item"] is None
        else pd.factorize(predictions[columns["item"]], sort=True)[0]
    )
    frames = []
    for m in models:
        values = predictions[m].to_numpy()
        per_row = (
            item_scores(metric, y, values, threshold)
            if y is not None and metric in ITEMWISE
            else np.asarray(values, dtype=float)
        )
        per_item = pd.Series(per_row).groupby(item).mean()
        frames.append(
            pd.DataFrame(
                {
                    "dataset": "holdout",
                    "model": m,
                    "split": per_item.index.to_numpy(),
                    # one item per "split": independent, rho = 1 / n_items
                    "n_train": per_item.size - 1,
                    "n_test": 1,
                    metric: per_item.to_numpy(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


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


def _models(
    predictions: pd.DataFrame, models: Any, baseline: str, columns: dict[str, Any], drop: Any
) -> list[str]:
    names = prediction_models(
        predictions, models=None if models is None else list(models), drop=drop, **columns
    )
    if baseline not in names or len(names) < 2:
        raise ValueError(f"a selection needs {baseline!r} and a challenger; models: {names}")
    return names


def _steps(
    predictions: pd.DataFrame,
    baseline: str,
    columns: dict[str, Any],
    how: dict[str, Any],
    resolved: tuple[str, bool],
    streams: tuple[Any, dict[str, Any], Any],
    decide: dict[str, Any],
) -> tuple[Any, Any]:
    """Each step's compare on two model columns (one seeded stream per posterior, each
    pair computed once) and the family rule's joint posterior on the same items."""
    name, hib = resolved
    root, seeds, joint_seed = streams
    metric, higher_is_better = how["metric"], how["higher_is_better"]
    threshold, draws = how["threshold"], how["draws"]
    gamma = decide["gamma"]

    done: dict[tuple[str, str], tuple[Any, Any]] = {}

    def compare(_table: Any, champion: str, challenger: str) -> tuple[Any, Any]:
        """The posterior of a step, once per pair (the table is the predictions')."""
        if (champion, challenger) in done:
            return done[champion, challenger]
        seed = seeds[challenger] if champion == baseline else root.spawn(1)[0]
        res = compare_posterior(
            predictions,
            champion,
            challenger,
            metric=metric,
            rope=decide["rope"],
            higher_is_better=higher_is_better,
            threshold=threshold,
            draws=draws,
            random_state=np.random.default_rng(seed),
            **columns,
            **how["slicing"],  # the slice guardrail (docs/slices.md)
        )
        done[champion, challenger] = res, res.decision(gamma)
        return done[champion, challenger]

    def joint(challengers: list[str]) -> JointDifferences:
        rows = {k: None if v is None else predictions[v].to_numpy() for k, v in columns.items()}
        return joint_item_differences(
            rows["y_true"],
            predictions[baseline].to_numpy(),
            [predictions[c].to_numpy() for c in challengers],
            metric=name,
            higher_is_better=hib,
            item=rows["item"],
            cluster=rows["cluster"],
            threshold=threshold,
            draws=draws,
            random_state=np.random.default_rng(joint_seed),
        )

    return compare, joint


def predictions_walk(
    predictions: pd.DataFrame,
    models: Any,
    metric: str | None,
    higher_is_better: bool | None,
    settings: dict[str, Any],
    decide: dict[str, Any],
) -> dict[str, Any]:
    """What :func:`~bayescomp.studies.select.walk_selection` needs to walk a predictions
    table: the per-item scores (items as splits), each step's compare on two model
    columns, and the family rule's joint posterior on the same items."""
    from bayescomp.decision.walk import challenger_order
    from bayescomp.scores.table import Scores
    from bayescomp.studies.selection import listed_candidates

    options = dict(decide["options"])
    columns = {"y_true": "y_true", "cluster": None, "item": None, "sample": None}
    columns |= {k: options.pop(k) for k in COLUMNS if k in options}
    slicing = pop_slicing(options)
    drop = [slicing["slices"]] if slicing.get("slices") else None
    names = _models(predictions, models, settings["baseline"], columns, drop)
    baseline = settings["baseline"]
    y = columns["y_true"]
    metric = metric if metric is not None else ("accuracy" if y is not None else None)
    predictions = with_positive_class(predictions, y, names, metric, options)
    name, hib = resolve(metric, predictions[y] if y else None, higher_is_better)
    threshold, draws = options.pop("threshold", None), options.pop("draws", 4000)
    root = np.random.SeedSequence(options.pop("random_state", 0))
    if options:
        raise TypeError(
            f"compare_options {sorted(options)} do not apply to a predictions table (it takes "
            f"{sorted([*COLUMNS, *_OPTIONS])})"
        )
    seeds = {m: root.spawn(1)[0] for m in names if m != baseline}  # one stream a posterior
    joint_seed = root.spawn(1)[0]
    compare, joint = _steps(
        predictions,
        baseline,
        columns,
        dict(
            metric=metric,
            higher_is_better=higher_is_better,
            threshold=threshold,
            draws=draws,
            slicing=slicing,
        ),
        (name, hib),
        (root, seeds, joint_seed),
        decide,
    )
    first = {m: compare(None, baseline, m)[0] for m in names if m != baseline}
    means = {baseline: next(iter(first.values())).baseline_score}
    means |= {m: r.candidate_score for m, r in first.items()}
    # a whole-set metric (AUC, F1) has no per-item score: the table holds the predictions
    column = name if y is None or name in ITEMWISE else f"{name}_prediction"
    frame = _item_scores(predictions, names, name, columns, threshold)
    scores = Scores.from_frame(frame.rename(columns={name: column}), metrics=[column])
    settings.update(
        metric=name,
        cv="one test set (item-level predictions)",
        cluster=columns["cluster"],
        item=columns["item"],
    )
    return dict(
        table=scores,
        names=names,
        challengers=challenger_order(names, settings, means, hib),
        metric=name,
        column=column,
        compare=compare,
        joint=joint,
        candidates=listed_candidates(names, means, "predictions"),
    )
