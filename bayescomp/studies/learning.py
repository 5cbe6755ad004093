"""Learning curves with credible intervals from the correlated t posterior.

Every model is fitted on the *same* subsample of each outer training set at every training
size (so the scores are paired), and each size is read with the correlated t-test at the
real test fraction of its subsampled design (``docs/metric_uncertainty.md``).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from bayescomp.core.checks import check_level, check_samples
from bayescomp.core.jsonable import jsonable
from bayescomp.core.margins import Absolute, as_margin
from bayescomp.core.orientation import clip_to_range
from bayescomp.core.protocols import Card

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from bayescomp.core.protocols import Estimator, FitStore
    from bayescomp.posterior.ttest import CorrelatedTTestResult


@dataclass(frozen=True)
class LearningCurves(Card):
    """Per-split scores of several models at a schedule of training sizes.

    Attributes
    ----------
    scores : DataFrame
        Tidy table (one row per model, size and split) with ``train_size``
        (the scheduled size), ``n_train``, ``n_test`` and the metric column.
    metric : str
    models : tuple of str
    baseline : str or None
    train_sizes : ndarray of int
    schedule : str
    confidence_level : float
        Default credible level.
    rope : float
    """

    scores: pd.DataFrame = field(repr=False)
    metric: str
    models: tuple[str, ...]
    baseline: str | None
    train_sizes: np.ndarray
    schedule: str
    confidence_level: float = 0.95
    rope: float = 0.0

    def _rows(self, model: str, size: int) -> pd.DataFrame:
        f = self.scores
        g = f[(f["model"] == model) & (f["train_size"] == size)].sort_values("split")
        if g.empty:
            raise ValueError(
                f"no scores for model {model!r} at training size {size}; sizes are "
                f"{self.train_sizes.tolist()}, models {list(self.models)}"
            )
        return g

    def rho(self, size: int) -> float:
        """Test fraction ``n_test / (n_train + n_test)`` of the design at ``size``."""
        g = self._rows(self.models[0], size)
        return float((g["n_test"] / (g["n_train"] + g["n_test"])).mean())

    def posterior(
        self, model: str, size: int, *, versus: str | None = None
    ) -> CorrelatedTTestResult:
        """Correlated t posterior of the mean score of ``model`` at ``size`` (or, with
        ``versus=baseline``, of ``model - versus``)."""
        from bayescomp.posterior.ttest import correlated_ttest

        c = self._rows(model, size)[self.metric].to_numpy(dtype=float)
        if versus is None:
            base: Any = np.zeros_like(c)
            rope = 0.0
        else:
            base = self._rows(versus, size)[self.metric].to_numpy(dtype=float)
            rope = self.rope
        return correlated_ttest(
            base,
            c,
            rho=self.rho(size),
            rope=rope,
            baseline_name=versus or "0",
            candidate_name=model,
            metric=self.metric,
        )

    def summary(self, confidence_level: float | None = None) -> pd.DataFrame:
        """One row per (model, size) and per (candidate − baseline, size).

        Columns: ``kind`` ("model" or "difference"), ``model``, ``train_size``,
        ``n_train``, ``n_test``, ``rho``, ``n_splits``, ``mean``, ``sd``,
        ``low``, ``high`` (equal-tailed credible interval), ``confidence_level``, and for
        differences ``p_better`` = P(candidate − baseline > 0) and the ROPE
        regions ``p_left`` = P(difference < −rope), ``p_rope``, ``p_right`` =
        P(difference > rope), as in :func:`bayescomp.correlated_ttest`.  On
        model rows these four are NaN.

        Bounded metrics get bounded intervals: the correlated t posterior is
        symmetric and unbounded, so near a bound (an accuracy of 0.99) its
        interval can reach impossible values (1.02).  ``low``/``high`` are
        clipped to the metric's range (:func:`bayescomp.core.orientation.metric_bounds`:
        [0, 1] for accuracy, AUC, F1, ...; a difference of two such scores to
        [−1, 1]); clipping removes only impossible values, and the column
        ``clipped`` says where it happened.
        """
        import pandas as pd

        from bayescomp.posterior.ttest import ZeroVarianceWarning

        level = self.confidence_level if confidence_level is None else float(confidence_level)
        regions = ("p_better", "p_left", "p_rope", "p_right")
        rows = []
        for size in self.train_sizes:
            size = int(size)
            for model in self.models:
                g = self._rows(model, size)
                base = dict(
                    model=model,
                    train_size=size,
                    n_train=float(g["n_train"].mean()),
                    n_test=float(g["n_test"].mean()),
                    rho=self.rho(size),
                    n_splits=len(g),
                    confidence_level=level,
                )
                pairs = [("model", None)]
                if self.baseline is not None and model != self.baseline:
                    pairs.append(("difference", self.baseline))
                for kind, versus in pairs:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", ZeroVarianceWarning)
                        post = self.posterior(model, size, versus=versus)
                    # the t interval before clipping, then clipped to the metric's range
                    raw = dataclasses.replace(post, metric=None).interval(level)
                    lo, hi, clipped = clip_to_range(*raw, self.metric, difference=bool(versus))
                    probs = {k: getattr(post, k) if versus else np.nan for k in regions}
                    rows.append(
                        {**base, "kind": kind, "mean": post.mean, "sd": post.sd}
                        | {"low": lo, "high": hi, "clipped": clipped, **probs}
                    )
        cols = [
            "kind",
            "model",
            "train_size",
            "n_train",
            "n_test",
            "rho",
            "n_splits",
            "mean",
            "sd",
            "low",
            "high",
            "clipped",
            "confidence_level",
            "p_better",
            "p_left",
            "p_rope",
            "p_right",
        ]
        return pd.DataFrame(rows)[cols]

    def to_dict(self) -> dict[str, Any]:
        """The metric, models, sizes and every row of the summary, JSON-ready."""
        return jsonable(
            {
                "metric": self.metric,
                "models": list(self.models),
                "baseline": self.baseline,
                "train_sizes": self.train_sizes,
                "rows": self.summary().to_dict("records"),
            }
        )

    def plot(self, *, ax: Axes | None = None, confidence_level: float | None = None) -> Axes:
        """Mean score per training size with credible bands, one line per model."""
        from bayescomp.report.metric_plots import plot_learning_curves

        return plot_learning_curves(self, ax=ax, confidence_level=confidence_level)

    def plot_difference(self, ax: Axes | None = None) -> Axes:
        """Candidate − baseline per size with its band, annotated with P(better)."""
        from bayescomp.report.metric_plots import plot_learning_difference

        return plot_learning_difference(self, ax=ax)


def _schedule(
    train_sizes: Any, schedule: str, n_sizes: int, max_train: int, min_train: int
) -> np.ndarray:
    if schedule not in ("geometric", "arithmetic"):
        raise ValueError(f"schedule must be 'geometric' or 'arithmetic'; got {schedule!r}")
    if train_sizes is None:
        if int(n_sizes) < 2:
            raise ValueError(f"n_sizes must be at least 2; got {n_sizes}")
        lo = max(min_train, int(np.ceil(0.1 * max_train)))
        if schedule == "geometric":
            sizes = np.geomspace(lo, max_train, int(n_sizes))
        else:
            sizes = np.linspace(lo, max_train, int(n_sizes))
    else:
        sizes = np.asarray(train_sizes, dtype=float).ravel()
        if sizes.size == 0 or not np.all(np.isfinite(sizes)) or np.any(sizes <= 0):
            raise ValueError("train_sizes must be positive numbers (fractions in (0, 1] or counts)")
        if np.all(sizes <= 1):
            sizes = sizes * max_train
    sizes = np.unique(np.round(sizes).astype(int))
    if sizes.max() > max_train:
        raise ValueError(
            f"training size {sizes.max()} exceeds the {max_train} rows of the outer training "
            "folds; use smaller sizes or fractions"
        )
    if sizes.min() < min_train:
        raise ValueError(
            f"training size {sizes.min()} is below the minimum of {min_train} rows (at least "
            "two rows per class for a classifier)"
        )
    return sizes


def learning_curves(
    models: Mapping[str, Estimator],
    X: Any,
    y: Any,
    *,
    scoring: str = "accuracy",
    baseline: str | None = None,
    cv: Any = None,
    train_sizes: Sequence[float] | None = None,
    schedule: Literal["geometric", "arithmetic"] = "geometric",
    n_sizes: int = 6,
    groups: Any = None,
    confidence_level: float = 0.95,
    rope: float = 0.0,
    n_jobs: int | None = None,
    random_state: Any = None,
    progress: bool = False,
    cache: FitStore | None = None,
) -> LearningCurves:
    """Learning curves of one or several models with correlated-t credible intervals.

    Parameters
    ----------
    models : dict of str -> estimator
        Unfitted scikit-learn estimators; all are fitted on the same subsamples.
    X, y : array_like
    scoring : str, default "accuracy"
        One scikit-learn scorer name (higher is better, e.g. ``"roc_auc"``,
        ``"neg_log_loss"``).
    baseline : str, optional
        Name of the model the others are compared with at each size.
    cv : splitter, optional
        Outer repeated cross-validation fixing the test folds; default
        ``RepeatedStratifiedKFold(n_splits=5, n_repeats=4)`` for classifiers
        (``RepeatedKFold`` otherwise).
    train_sizes : sequence, optional
        Training sizes: fractions in (0, 1] of the outer training folds, or
        row counts.  Default: ``n_sizes`` sizes from 10% to 100% spaced by
        ``schedule``.
    schedule : {"geometric", "arithmetic"}, default "geometric"
    n_sizes : int, default 6
    groups : array_like, optional
        Passed to the outer splitter.
    confidence_level : float, default 0.95
        Credible level of the bands.
    rope : float, default 0
        Region of practical equivalence for the differences.
    n_jobs, random_state, progress
        Parallel fits; seed of the subsampling (and of the default ``cv``).
    cache : FitStore, optional
        Where every fit is kept (e.g. :class:`bayescomp.ResultStore`): a rerun with the
        same ``random_state`` reads the stored fits instead of refitting (each training
        size is its own design in the cache, named ``train_size=<n>``).

    Returns
    -------
    LearningCurves

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.model_selection import RepeatedStratifiedKFold
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    >>> lc = learning_curves({"nb": GaussianNB(),
    ...                       "lr": make_pipeline(StandardScaler(), LogisticRegression())},
    ...                      X, y, baseline="nb", cv=cv, train_sizes=[0.1, 1.0], random_state=0)
    >>> s = lc.summary()
    >>> s[["kind", "model", "train_size"]].head(3).values.tolist()
    [['model', 'nb', 46], ['model', 'lr', 46], ['difference', 'lr', 46]]
    >>> bool(s["rho"].iloc[0] > s["rho"].iloc[-1])   # smaller training set, larger rho
    True
    """
    from sklearn.base import is_classifier
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold, train_test_split
    from sklearn.utils import indexable

    from bayescomp.scores.crossval import check_models, cross_validate_paired
    from bayescomp.splits.design import materialise_splits

    models = check_models(models)
    if baseline is not None and baseline not in models:
        raise ValueError(f"baseline {baseline!r} is not among the models {list(models)}")
    if not isinstance(scoring, str):
        raise ValueError(
            "scoring must be one scikit-learn scorer name (e.g. 'accuracy', 'roc_auc')"
        )
    check_level(confidence_level, "confidence_level")
    rope = as_margin(rope, metric=scoring, takes=(Absolute,), where="learning_curves")
    if y is None:
        raise ValueError("learning curves need a target y: pass one target per row of X")
    check_samples(X, y, groups)
    X, y, groups = indexable(X, y, groups)
    y_arr = np.asarray(y)
    classifier = all(is_classifier(m) for m in models.values())
    rng = np.random.default_rng(random_state)
    if cv is None:
        seed = int(rng.integers(2**31 - 1))
        cv = (
            RepeatedStratifiedKFold(n_splits=5, n_repeats=4, random_state=seed)
            if classifier
            else RepeatedKFold(n_splits=5, n_repeats=4, random_state=seed)
        )
    outer = materialise_splits(cv, X, y, groups, classifier=classifier)
    max_train = int(min(len(tr) for tr, _ in outer.splits))
    n_classes = np.unique(y_arr).size if classifier else 1
    min_train = 2 * n_classes if classifier else 3
    sizes = _schedule(train_sizes, schedule, n_sizes, max_train, min_train)

    frames = []
    for size in sizes:
        splits = []
        for train, test in outer.splits:
            train = np.asarray(train)
            if size >= len(train):
                sub = train
            elif classifier and len(train) - size >= n_classes:
                sub, _ = train_test_split(
                    train,
                    train_size=int(size),
                    stratify=y_arr[train],
                    random_state=int(rng.integers(2**31 - 1)),
                )
            else:  # too few rows left out to stratify the remainder: plain subsample
                sub = rng.choice(train, size=int(size), replace=False)
            splits.append((np.sort(sub), np.asarray(test)))
        sc = cross_validate_paired(
            models,
            X,
            y,
            cv=splits,
            scoring=scoring,
            n_jobs=n_jobs,
            progress=progress,
            cache=cache,
            dataset=f"train_size={int(size)}",
        )
        f = sc.to_frame().assign(dataset="data")  # the sizes are columns of one dataset
        f["train_size"] = int(size)
        frames.append(f)
    import pandas as pd

    table = pd.concat(frames, ignore_index=True)
    return LearningCurves(
        scores=table,
        metric=scoring,
        models=tuple(models),
        baseline=baseline,
        train_sizes=sizes,
        schedule=schedule,
        confidence_level=float(confidence_level),
        rope=float(rope),
    )
