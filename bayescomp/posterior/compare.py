"""``compare``: from a scores table (or paired predictions) to the right posterior, through
the methods registered in :mod:`bayescomp.posterior.registry` (built in:
:mod:`bayescomp.posterior.methods`; ``docs/architecture.md``, "A new test statistic").
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescomp.core.exceptions import TimeOrderedDesignWarning
from bayescomp.core.margins import Absolute, MarginLike, Relative
from bayescomp.core.protocols import Posterior
from bayescomp.posterior.differences import differences_by_dataset, row_scale
from bayescomp.posterior.predictions import (
    compare_predictions,
    is_predictions,
    predictions_request,
)
from bayescomp.posterior.registry import (
    REGISTRY,
    TRUTH_COLUMN,
    Method,
    Paired,
    PairedPredictions,
    lookup,
    register,
)
from bayescomp.posterior.request import Request, check_request
from bayescomp.posterior.time_ordered import TimeOrderedResult
from bayescomp.posterior.ttest import CorrelatedTTestResult
from bayescomp.scores.table import Scores

__all__ = ["REGISTRY", "Method", "Paired", "PairedPredictions", "compare", "register"]


def as_scores(scores: Any, slices: str | None = None) -> Scores:
    """A scores table (a ``Scores``, or a frame read with ``slices`` its slice column)."""
    if isinstance(scores, Scores):
        return scores
    import pandas as pd

    if isinstance(scores, pd.DataFrame):
        return Scores.from_frame(scores, slice_col=slices or "slice")
    raise ValueError(
        f"scores must be a bayescomp.Scores or a pandas DataFrame, got {type(scores).__name__}"
    )


def compare(
    scores: Scores | Any,
    baseline: str | float,
    candidate: str,
    *,
    metric: str | list[str] | None = None,
    rope: float | dict[str, float] = 0.0,
    dataset: str | None = None,
    higher_is_better: bool | dict[str, bool] | None = None,
    method: str = "auto",
    random_state: Any = None,
    **options: Any,
) -> Posterior:
    """Posterior of how much better ``candidate`` is than ``baseline``.

    Parameters
    ----------
    scores : Scores or DataFrame
        Per-split scores (see :class:`bayescomp.Scores`); for a method on paired
        predictions, a DataFrame with a ``y_true`` column and one column of predictions
        per model (one row per test item).
    baseline : str or float
        The model to replace, or a performance goal ``p*`` (a number): then the
        question is whether ``candidate`` reaches ``p*`` in production.
    candidate : str
        The challenger.
    metric : str or list of str, optional
        Metric column; may be omitted when the table has one.  A list compares several
        metrics jointly (``method="multivariate"``): the first is the primary metric, the
        others are guardrails, and the result is a
        :class:`~bayescomp.posterior.multivariate.MultiMetricResult` (see
        ``docs/guardrails.md``); timing columns (``fit_time``, ``score_time``) may be named.
    rope : float, str, Absolute, Relative, Standardized or dict, default 0
        The region of practical equivalence (:func:`bayescomp.core.margins.as_margin`): a
        half-width on the metric's scale (``0.01``); on a scores table with one metric also
        ``"1%"`` (mean log ratio, ROPE ``±log(1.01)``) or ``"0.1sd"``; with several metrics
        a dict ``{metric: half-width}`` (missing metrics get 0).  A margin that cannot be
        meant (wider than half the metric's range, ≥ 100 %, > 2 sd) is refused unless it
        has ``force=True`` (``Absolute(2, force=True)``).
    dataset : str, optional
        Restrict to one dataset of a multi-dataset table.
    higher_is_better : bool, optional
        Orientation of the metric; looked up in the metric registry when omitted
        (every scikit-learn scorer name, plus common metric names).  Differences
        are ``candidate - baseline``, negated for lower-is-better metrics, so
        ``p_right`` is always "candidate better".
    method : str, default "auto"
        Any registered method (:func:`bayescomp.posterior.registry.methods`); built in:
        ``"ttest"`` (the Bayesian correlated t-test on one dataset), ``"time_ordered"``
        (an AR(1) model of a time-ordered design's per-window differences),
        ``"hierarchical"`` (Corani et al. 2017, across datasets), ``"signed_rank"`` /
        ``"sign"`` (on the per-dataset mean differences).  ``"auto"`` is ``"ttest"``
        for one dataset and ``"hierarchical"`` for several, and ``"time_ordered"`` on
        one dataset whose splits are time-ordered (``TimeSeriesSplit``; an equicorrelated
        method asked for there warns).  A method registered with ``input="predictions"``
        reads ``scores`` as a predictions table.
    random_state : int, Generator or None
        Seed of the MCMC sampler or of the Dirichlet draws (ignored by the
        closed-form t-test).
    **options
        Passed to :func:`bayescomp.hierarchical_test` (``chains``, ``draws``,
        ``tune``, ``sampler``, ``parameterization``, ...) or to
        :func:`bayescomp.sign_test` / :func:`bayescomp.signed_rank_test`
        (``prior_strength``, ``prior_place``, ``draws``), or to
        :func:`~bayescomp.posterior.multivariate.multivariate_ttest` (``prior``,
        ``draws``, ``gains``, ``switching_cost``), or to a registered method.  On a
        predictions table (``y_true`` and a column of predictions per model; ``y_true=None``
        for per-item scores): ``cluster``, ``item``, ``sample`` (column names), ``threshold``,
        ``draws``, ``prior``; ``slices`` (a column), ``slice_rope`` and ``slice_gamma`` add
        the slice guardrail (``docs/slices.md``).

    Returns
    -------
    Posterior
        A :class:`CorrelatedTTestResult`, :class:`HierarchicalResult` or
        :class:`RankTestResult`; all satisfy :class:`bayescomp.core.protocols.Posterior`
        (``p_left``, ``p_rope``, ``p_right``, ``p_better``, ``hdi()``, ``summary()``,
        ``plot()`` and ``decision(gamma)``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model": ["lr"] * 10 + ["rf"] * 10, "split": list(range(10)) * 2,
    ...     "accuracy": [.80, .82, .81, .79, .83, .80, .81, .82, .80, .81,
    ...                  .84, .85, .83, .82, .86, .84, .83, .85, .84, .85]})
    >>> res = compare(Scores.from_frame(df, test_fraction=0.1), "lr", "rf", rope=0.01)
    >>> res.decision().outcome
    'promote'
    """
    spec = None if method == "auto" else lookup(method)
    if spec is None and is_predictions(scores, options.get("y_true", TRUTH_COLUMN)):
        spec = lookup("holdout")  # y_true and a column per model: one test set
    if spec is not None and spec.input == "predictions":
        request = predictions_request(
            scores,
            metric=metric,
            rope=rope,
            higher_is_better=higher_is_better,  # type: ignore[arg-type]
            models=[str(baseline), str(candidate)],
            method="holdout" if method == "auto" else method,
            random_state=random_state,
            **options,
        )
        return compare_predictions(scores, baseline, candidate, request)
    scores, request = scores_request(
        as_scores(scores, options.get("slices")),
        metric=metric,
        rope=rope,
        higher_is_better=higher_is_better,
        method=method,
        random_state=random_state,
        **options,
    )
    return compare_scores(scores, baseline, candidate, request, dataset=dataset)


def scores_request(
    scores: Scores,
    *,
    metric: str | list[str] | None,
    rope: Any,
    higher_is_better: bool | dict[str, bool] | None = None,
    method: str = "auto",
    guardrails: Mapping[str, MarginLike] | None = None,
    **request: Any,
) -> tuple[Scores, Request]:
    """The door of a scores table: the table with the timing columns asked for, and the
    request checked once (:func:`~bayescomp.posterior.request.check_request`) with the
    metric resolved against the table.  Several metrics (``metric=[primary, *guardrails]``,
    ``rope={metric: half-width}``) are one request with guardrails."""
    from bayescomp.posterior.metric_differences import joint_ropes, with_timings

    joint = not isinstance(metric, str | None)
    metrics: list[Any] = [str(m) for m in (metric or [])] if joint else [metric]
    if joint and (not metrics or len(set(metrics)) != len(metrics)):
        raise ValueError(f"metric must name one or more distinct metrics, got {metric!r}")
    if (joint or guardrails) and method not in ("auto", "multivariate"):
        raise ValueError(
            f"several metrics are compared jointly by method='multivariate' (the "
            f"correlated t on the difference vector), not {method!r}"
        )
    if isinstance(higher_is_better, dict) and not (joint or method == "multivariate"):
        raise ValueError(
            "higher_is_better={metric: bool} is for several metrics (metric=[...]); "
            "for one metric pass True or False"
        )
    guardrails = dict(guardrails or {})
    scores = with_timings(scores, [m for m in (*metrics, *guardrails) if m is not None])
    names = [scores._check_metric(m) for m in metrics]
    ropes = joint_ropes(metrics, rope) if joint else [rope]
    guards = dict(zip(names[1:], ropes[1:], strict=True))
    guards |= {scores._check_metric(m): r for m, r in guardrails.items()}
    directions = higher_is_better if isinstance(higher_is_better, dict) else {}
    if not isinstance(higher_is_better, dict) and higher_is_better is not None:
        directions = {names[0]: higher_is_better}
    several = joint or bool(guards) or method == "multivariate"
    door: dict[str, Any] = {"takes": (Absolute,), "where": "several metrics"} if several else {}
    return scores, check_request(
        metric=names[0],
        rope=ropes[0],
        higher_is_better=directions,
        guardrails=guards,
        method="multivariate" if several else method,
        **door,
        **request,
    )


def compare_scores(
    scores: Scores,
    baseline: str | float,
    candidate: str,
    request: Request,
    *,
    dataset: str | None = None,
) -> Posterior:
    """:func:`compare` below the door: the posterior the checked ``request`` asks for on a
    scores table (its metric a column of ``scores``), under its slice guardrail when it asks
    for one (the per-split differences on each slice's rows, ``docs/slices.md``); nothing
    is checked again."""
    if request.slices is None:
        return _compare_scores(scores, baseline, candidate, request, dataset)
    from bayescomp.posterior.slices import guard_slices
    from bayescomp.scores.slices import paired_slices

    datasets = scores._check_dataset(dataset)
    if len(datasets) > 1 or not isinstance(baseline, str):
        raise ValueError(
            "the slice guardrail of a scores table guards one dataset's comparison of two "
            "models: pass dataset=NAME and a baseline model"
        )
    overall = _compare_scores(scores, baseline, candidate, request, dataset)
    d, labels = paired_slices(
        scores, baseline, candidate, str(request.metric), datasets[0], request.slices.column
    )
    d = d if request.higher_is_better else -d
    rho = float(scores.rho(datasets[0]))
    return guard_slices(overall, d, labels, request.slices, None, request.random_state, rho)


def _compare_scores(
    scores: Scores,
    baseline: str | float,
    candidate: str,
    request: Request,
    dataset: str | None,
) -> Posterior:
    from bayescomp.posterior.metric_differences import with_timings

    scores = with_timings(scores, [str(request.metric), *(m for m, _, _ in request.guardrails)])
    if request.method == "multivariate" or request.guardrails:
        return _compare_metrics(scores, baseline, candidate, request, dataset)
    metric, higher_is_better = request.metric, bool(request.higher_is_better)
    sign = 1.0 if higher_is_better else -1.0
    datasets = scores._check_dataset(dataset)
    method = _time_order_method(scores, datasets, request.method)
    goal = isinstance(baseline, numbers.Real) and not isinstance(baseline, bool)
    if goal and str(baseline) in scores.models:
        raise ValueError(
            f"baseline={baseline!r} is a number, read as a performance goal, but the table also "
            f"has a model named {str(baseline)!r}; pass baseline={str(baseline)!r} (a string) to "
            "compare with that model"
        )
    spec = lookup(method)
    if spec.input != "scores":
        raise ValueError(f"method={method!r} compares paired predictions, not a scores table")
    assert metric is not None  # a scores table's request has its metric
    differences, rho, rope = _differences(
        scores, (baseline, candidate), metric, datasets, sign, goal, method, request.margin
    )
    names = {
        "baseline_name": f"goal {float(baseline):g}" if goal else str(baseline),
        "candidate_name": candidate,
        "metric": metric,
    }
    options = dict(request.options)
    res = spec.fit(Paired(differences, rho, rope, request.random_state, names), **options)
    if request.variance != "split":
        if method != "ttest" or isinstance(request.margin, Relative):
            raise ValueError(
                f"variance={request.variance!r} is the correlated t-test's on one dataset "
                f"with an absolute margin, not method={method!r} or a relative margin"
            )
        assert isinstance(res, CorrelatedTTestResult)
        scale, used = row_scale(
            scores, (baseline, candidate), metric, datasets[0], res.scale, request.variance
        )
        res = dataclasses.replace(res, scale=scale, variance=used)
    if isinstance(
        res, CorrelatedTTestResult | TimeOrderedResult
    ):  # the mean score of each model, for the reader
        f = scores.to_frame()
        f = f[f["dataset"].isin(datasets)]
        res = dataclasses.replace(
            res,
            candidate_score=float(f.loc[f["model"] == candidate, metric].mean()),
            baseline_score=float(baseline)
            if goal
            else float(f.loc[f["model"] == str(baseline), metric].mean()),
        )
    return res if higher_is_better else dataclasses.replace(res, higher_is_better=False)


def _differences(
    scores: Scores,
    names: tuple[Any, str],
    metric: str,
    datasets: list[str],
    sign: float,
    goal: bool,
    method: str,
    rope: Any,
) -> tuple[dict[str, np.ndarray], dict[str, float], float]:
    """The oriented differences ``method`` takes, their test fractions, and the ROPE: the one
    place a margin becomes a half-width (a relative one on the log scores)."""
    baseline, candidate = names
    if isinstance(rope, Relative):  # the posterior of the mean log ratio
        models = [candidate] if goal else [str(baseline), candidate]
        scores = _log_scores(scores, metric, models, float(baseline) if goal else 1.0)
        baseline = float(np.log(baseline)) if goal else baseline
    if lookup(method).across_datasets and len(datasets) < 2:
        raise ValueError(
            f"method={method!r} compares across datasets and needs at least 2; the scores "
            f"cover {datasets}. On one dataset use the correlated t-test (method='ttest')"
        )
    if not lookup(method).across_datasets and len(datasets) > 1:
        raise ValueError(
            f"the scores cover {len(datasets)} datasets {datasets[:5]}; the correlated "
            "t-test compares on one dataset — pass dataset=NAME, or method='hierarchical' "
            "(or 'signed_rank'/'sign') to compare across datasets"
        )
    differences, rho = differences_by_dataset(
        scores, baseline, candidate, metric, datasets, sign, goal
    )
    return differences, rho, rope.half_width(differences)


def _log_scores(scores: Scores, metric: str, models: list[str], goal: Any) -> Scores:
    """The ``models``' scores on the log scale (all and a goal > 0), for a relative margin."""
    import copy

    f, rows = scores._frame.copy(), scores._frame["model"].isin(models).to_numpy()
    values = np.r_[f.loc[rows, metric].to_numpy(dtype=float), goal]
    if not np.all(np.isfinite(values)):
        bad = f.loc[rows].groupby("model")[metric].agg(lambda v: int((~np.isfinite(v)).sum()))
        named = ", ".join(f"{m!r} ({n} scores)" for m, n in bad[bad > 0].items()) or "the goal"
        raise ValueError(
            f"NaN or infinite {metric!r} values in {named}; fix or drop them "
            "(a relative margin compares the log ratios of finite scores)"
        )
    if not np.all(values > 0):
        raise ValueError(
            f"a relative margin compares log ratios, so the {metric!r} scores (and a goal) must "
            f"be > 0; got {np.nanmin(values):g}: use a margin on the metric's scale (rope=0.01)"
        )
    f.loc[rows, metric] = np.log(values[:-1])  # other models' rows (and names) unchanged
    out = copy.copy(scores)
    out._frame = f
    return out


def is_time_ordered_scores(scores: Scores, datasets: list[str]) -> bool:
    """Whether the scores of ``datasets`` come from a time-ordered design (``time_ordered``)."""
    f = scores._frame
    if "time_ordered" not in f.columns:
        return False
    flags = f.loc[f["dataset"].isin(datasets), "time_ordered"]
    return bool(flags.astype(str).str.lower().isin(["true", "1", "1.0"]).any())


def _time_order_method(scores: Scores, datasets: list[str], method: str) -> str:
    """``auto`` on a time-ordered design is ``time_ordered``; an equicorrelated one warns."""
    import warnings

    timed = is_time_ordered_scores(scores, datasets)
    if method == "auto":
        if timed and len(datasets) == 1:
            return "time_ordered"
        method = "ttest" if len(datasets) == 1 else "hierarchical"
    if timed and method not in ("time_ordered", "signed_rank", "sign"):
        warnings.warn(
            f"the splits are time-ordered (every training row precedes every test row), but "
            f"method={method!r} treats them as equicorrelated with rho from the split sizes, "
            "which misstates the uncertainty of serially correlated windows; use "
            "method='time_ordered' (one dataset) or compare each dataset on its own",
            TimeOrderedDesignWarning,
            stacklevel=3,
        )
    return method


def _compare_metrics(
    scores: Scores, baseline: Any, candidate: str, request: Request, dataset: str | None
) -> Posterior:
    """Several metrics at once: the oriented difference matrix to the multivariate method."""
    from bayescomp.posterior.metric_differences import difference_matrix

    if isinstance(baseline, numbers.Real) and not isinstance(baseline, bool):
        raise ValueError(
            "a performance goal (a number as baseline) is defined for one metric; "
            "compare several metrics against a baseline model"
        )
    datasets = scores._check_dataset(dataset)
    if len(datasets) > 1:
        raise ValueError(
            f"several metrics are compared on one dataset; the scores cover "
            f"{datasets[:5]} — pass dataset=NAME"
        )
    _time_order_method(scores, datasets, "multivariate")  # says so on a time-ordered design
    metrics = [str(request.metric), *(m for m, _, _ in request.guardrails)]
    directions = [bool(request.higher_is_better), *(h for _, _, h in request.guardrails)]
    ropes = [request.margin.half_width(), *(r for _, r, _ in request.guardrails)]
    d, rho = difference_matrix(scores, str(baseline), candidate, metrics, datasets[0], directions)
    names = {
        "baseline_name": str(baseline),
        "candidate_name": candidate,
        "metric": metrics,
        "directions": directions,
    }
    paired = Paired({datasets[0]: d}, {datasets[0]: rho}, ropes, request.random_state, names)
    res = lookup("multivariate").fit(paired, **dict(request.options))
    f = scores.to_frame()
    f = f[f["dataset"] == datasets[0]]
    means = {
        who: tuple(float(f.loc[f["model"] == who, m].mean()) for m in metrics)
        for who in (str(baseline), candidate)
    }
    return dataclasses.replace(
        res, baseline_scores=means[str(baseline)], candidate_scores=means[candidate]
    )
