"""``rank``: every model against every other, from the same posterior as ``compare``.

For ``k`` models on one dataset the ``k (k - 1)`` ordered comparisons are one
vectorised call of the correlated t-test (:func:`bayescomp.correlated_ttest`);
entry ``[row, column]`` of every matrix is the comparison with the *row* model
as candidate and the *column* model as baseline, exactly what
``compare(scores, baseline=column, candidate=row)`` returns.  Several datasets
go pair by pair through :func:`bayescomp.compare`, so they use whatever
multi-dataset posterior ``compare`` provides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_scalar_rope
from bayescomp.core.orientation import resolve_direction
from bayescomp.core.rule import decide_many
from bayescomp.posterior import compare as comparison  # module: compare() looked up on use
from bayescomp.posterior.compare import _as_scores
from bayescomp.posterior.ttest import correlated_ttest

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from bayescomp.scores.table import Scores

KINDS = ("p_better", "p_left", "p_rope", "p_right", "expected_gain")


@dataclass(frozen=True)
class Ranking:
    """Pairwise posterior probabilities of ``k`` models (rows against columns).

    Attributes
    ----------
    p_better : DataFrame
        ``P(row better than column)`` (``mu > 0``).
    p_left, p_rope, p_right : DataFrame
        ``P(row worse beyond rope)``, ``P(equivalent)``, ``P(row better beyond rope)``.
    expected_gain : DataFrame
        Posterior mean of ``row - column`` (oriented: positive is better).
    mean : Series
        Mean score of each model; rows and columns are sorted by it, best first.
    """

    p_better: pd.DataFrame
    p_left: pd.DataFrame
    p_rope: pd.DataFrame
    p_right: pd.DataFrame
    expected_gain: pd.DataFrame
    mean: pd.Series
    metric: str
    rope: float

    @property
    def models(self) -> list[str]:
        return list(self.p_better.index)

    def summary(self, gamma: float = 0.95) -> pd.DataFrame:
        """Long table: one row per ordered pair with probabilities and the decision."""
        import pandas as pd

        rows = [{"model": a, "versus": b, **{kind: getattr(self, kind).loc[a, b] for kind in
                                              ("p_better", "p_left", "p_rope", "p_right",
                                               "expected_gain")}}
                for a in self.models for b in self.models if a != b]
        frame = pd.DataFrame(rows, columns=["model", "versus", "p_better", "p_left", "p_rope",
                                            "p_right", "expected_gain"])
        frame["decision"] = decide_many(frame["p_left"], frame["p_rope"], frame["p_right"],
                                        gamma)
        return frame


    def _repr_html_(self) -> str:
        """Rich display in Jupyter: key numbers, decision and reason, a small plot."""
        from bayescomp.report.notebook import result_html

        return result_html(self)
    def plot(self, kind: str = "p_better", ax: Axes | None = None) -> Axes:
        """Heatmap of one matrix (``p_better``, ``p_right``, ``p_rope``, ``p_left``)."""
        from bayescomp.report.selection_plots import plot_ranking

        if kind not in KINDS[:4]:
            raise ValueError(f"kind must be one of {KINDS[:4]}, got {kind!r}")
        titles = {"p_better": f"P(row better than column) in {self.metric}",
                  "p_right": f"P(row better than column by more than {self.rope:g})",
                  "p_rope": f"P(|row − column| ≤ {self.rope:g})",
                  "p_left": f"P(row worse than column by more than {self.rope:g})"}
        return plot_ranking(getattr(self, kind), titles[kind], ax=ax)


def rank(
    scores: Scores | Any,
    metric: str | None = None,
    rope: float = 0.0,
    *,
    models: list[str] | None = None,
    dataset: str | None = None,
    higher_is_better: bool | None = None,
) -> Ranking:
    """Matrix of pairwise posterior probabilities between every pair of models.

    Parameters
    ----------
    scores : Scores or DataFrame
        Per-split scores of at least two models on the same splits.
    metric : str, optional
        Metric column (may be omitted when the table has one).
    rope : float, default 0
        Half-width of the region of practical equivalence.
    models : list of str, optional
        Restrict to these models.
    dataset : str, optional
        One dataset of a multi-dataset table.
    higher_is_better : bool, optional
        Orientation (looked up in the metric registry when omitted).

    Returns
    -------
    Ranking
        Rows and columns sorted by mean score, best first.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from bayescomp import Scores
    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(0.8, 0.02, 20)
    >>> df = pd.DataFrame({"model": np.repeat(["a", "b", "c"], 20), "split": np.tile(range(20), 3),
    ...                    "accuracy": np.r_[base, base + rng.normal(.03, .005, 20),
    ...                                         base + rng.normal(0, .005, 20)]})
    >>> r = rank(Scores.from_frame(df, test_fraction=0.1), rope=0.01)
    >>> r.models[0], round(float(r.p_better.loc["b", "a"]), 3)
    ('b', 1.0)
    """
    import pandas as pd

    scores = _as_scores(scores)
    metric = scores._check_metric(metric)
    rope = check_scalar_rope(rope)
    hib = resolve_direction(metric, higher_is_better)
    sign = 1.0 if hib else -1.0
    if models is not None:
        scores = scores.select(models=list(models))
    if dataset is not None:
        scores = scores.select(datasets=[dataset])
    names = scores.models
    if len(names) < 2:
        raise ValueError(f"rank needs at least two models, the table has {names}")
    f = scores.to_frame()
    mean = (sign * f.groupby("model", sort=False)[metric].mean()).reindex(names)
    names = list(mean.sort_values(ascending=False, kind="stable").index)
    k = len(names)
    mats = {kind: np.full((k, k), np.nan) for kind in KINDS}

    if len(scores.datasets) == 1:
        # validate the pairing (same splits, sizes, finite scores) against the first model —
        # equal split sets and sizes are transitive — then one vectorised call
        base = scores.paired(names[0], names[1], metric)
        for m in names[2:]:
            scores.paired(names[0], m, metric)
        splits = base["split"].to_numpy()
        rho = base.attrs["rho"]
        wide = f.pivot(index="model", columns="split", values=metric).loc[names, splits]
        vals = sign * wide.to_numpy(dtype=float)
        ii, jj = np.where(~np.eye(k, dtype=bool))
        res = correlated_ttest(vals[jj], vals[ii], rho=rho, rope=rope)
        for kind in KINDS:
            mats[kind][ii, jj] = np.asarray(getattr(res, kind))
    else:
        # one posterior per unordered pair (an MCMC fit across datasets); the reverse
        # comparison is its mirror image: left and right swap, the gain changes sign
        for i, a in enumerate(names):
            for j in range(i + 1, k):
                res = comparison.compare(scores, baseline=names[j], candidate=a, metric=metric, rope=rope,
                              higher_is_better=hib)
                for kind in KINDS:
                    mats[kind][i, j] = float(getattr(res, kind))
                mats["p_better"][j, i] = float(res.p_worse)
                mats["p_left"][j, i] = float(res.p_right)
                mats["p_rope"][j, i] = float(res.p_rope)
                mats["p_right"][j, i] = float(res.p_left)
                mats["expected_gain"][j, i] = -float(res.expected_gain)
    frames = {kind: pd.DataFrame(mats[kind], index=pd.Index(names, name="model"),
                                 columns=pd.Index(names, name="versus")) for kind in KINDS}
    return Ranking(**frames, mean=(sign * mean).loc[names].rename(metric), metric=metric,
                   rope=rope)
