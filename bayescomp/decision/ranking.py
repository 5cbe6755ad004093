"""``rank``: every model against every other, from the same posterior as ``compare``.

For ``k`` models on one dataset the ``k (k - 1)`` ordered comparisons are one
vectorised call of the correlated t-test (:func:`bayescomp.correlated_ttest`);
entry ``[row, column]`` of every matrix is the comparison with the *row* model
as candidate and the *column* model as baseline, exactly what
``compare(scores, baseline=column, candidate=row)`` returns.  Several datasets
go pair by pair through :func:`bayescomp.compare`, so they use whatever
multi-dataset posterior ``compare`` provides.

``method="plackett_luce"`` answers the joint question instead ("which model is best,
and with what probability?") with one MCMC fit for all ``k`` models: a Bayesian
Plackett–Luce model of the per-dataset rankings
(:func:`bayescomp.posterior.plackett_luce.plackett_luce`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.checks import check_no_level
from bayescomp.core.jsonable import jsonable
from bayescomp.core.margins import Absolute
from bayescomp.core.protocols import Card
from bayescomp.core.rule import decide_many
from bayescomp.posterior import compare as comparison  # module: compare() looked up on use
from bayescomp.posterior.compare import as_scores
from bayescomp.posterior.ttest import correlated_ttest
from bayescomp.scores.cells import split_ranges
from bayescomp.splits.design import rho_from_sizes

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from bayescomp.posterior.plackett_luce import PlackettLuceResult
    from bayescomp.scores.table import Scores

KINDS = ("p_better", "p_left", "p_rope", "p_right", "expected_gain")
METHODS = ("pairwise", "plackett_luce")


@dataclass(frozen=True)
class Ranking(Card):
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
    #: across datasets: the posterior of each unordered pair (candidate, baseline), whose own
    #: ``decision`` (MCMC convergence, the rank tests' decision convention) decides the pair
    pairs: dict[tuple[str, str], Any] | None = field(default=None, repr=False, compare=False)

    @property
    def models(self) -> list[str]:
        return list(self.p_better.index)

    def summary(
        self,
        gamma: float = 0.95,
        *,
        confidence_level: float | None = None,
        adjacent: bool = False,
    ) -> pd.DataFrame:
        """Long table: one row per ordered pair with probabilities and the decision (with
        ``adjacent=True`` only each model against the next one in the ranking: ``k - 1``
        rows instead of ``k (k - 1)``, the short answer for thousands of models)."""
        import pandas as pd

        check_no_level(confidence_level, "a pairwise ranking")
        names = np.asarray(self.models, dtype=object)
        k = len(names)
        if adjacent:
            ii = np.arange(k - 1)
            jj = ii + 1
        else:  # row-major over (model, versus), the diagonal left out
            ii, jj = np.divmod(np.arange(k * k), k)
            ii, jj = ii[ii != jj], jj[ii != jj]
        frame = pd.DataFrame(
            {
                "model": names[ii],
                "versus": names[jj],
                **{kind: getattr(self, kind).to_numpy()[ii, jj] for kind in KINDS},
            }
        )
        frame["decision"] = decide_many(frame["p_left"], frame["p_rope"], frame["p_right"], gamma)
        if self.pairs:
            # across datasets each pair is decided by its own posterior, so a pair whose MCMC
            # did not converge is never decided; the reverse pair mirrors the outcome
            mirror = {"promote": "worse", "worse": "promote"}
            outcome = {}
            for (a, b), res in self.pairs.items():
                out = res.decision(gamma).outcome
                outcome[a, b], outcome[b, a] = out, mirror.get(out, out)
            frame["decision"] = [
                outcome[a, b] for a, b in zip(frame["model"], frame["versus"], strict=True)
            ]
        return frame

    def to_dict(self) -> dict[str, Any]:
        """The metric, the ROPE, each model's mean and every ordered pair, JSON-ready."""
        return jsonable(
            {
                "metric": self.metric,
                "rope": self.rope,
                "mean": self.mean.to_dict(),
                "pairs": self.summary().to_dict("records"),
            }
        )

    def plot(self, kind: str = "p_better", *, ax: Axes | None = None) -> Axes:
        """Heatmap of one matrix (``p_better``, ``p_right``, ``p_rope``, ``p_left``)."""
        from bayescomp.report.selection_plots import plot_ranking

        if kind not in KINDS[:4]:
            raise ValueError(f"kind must be one of {KINDS[:4]}, got {kind!r}")
        titles = {
            "p_better": f"P(row better than column) in {self.metric}",
            "p_right": f"P(row better than column by more than {self.rope:g})",
            "p_rope": f"P(|row − column| ≤ {self.rope:g})",
            "p_left": f"P(row worse than column by more than {self.rope:g})",
        }
        return plot_ranking(getattr(self, kind), titles[kind], ax=ax)


def rank(
    scores: Scores | Any,
    metric: str | None = None,
    rope: float = 0.0,
    *,
    models: list[str] | None = None,
    dataset: str | None = None,
    higher_is_better: bool | None = None,
    method: str = "pairwise",
    random_state: Any = None,
    **options: Any,
) -> Ranking | PlackettLuceResult:
    """Matrix of pairwise posterior probabilities between every pair of models.

    With ``method="plackett_luce"``, a joint Bayesian ranking across datasets instead.

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
    method : {"pairwise", "plackett_luce"}, default "pairwise"
        ``"pairwise"``: one posterior per pair, as :func:`bayescomp.compare` (one
        hierarchical MCMC fit per pair across datasets).  ``"plackett_luce"``: one
        Bayesian Plackett–Luce fit of the per-dataset rankings (each model's mean
        score over the splits of a dataset); needs at least two datasets and no ROPE
        (a ranking has no margin).
    random_state : int, Generator or None
        Seed of the MCMC sampler (across datasets).
    **options
        Passed to :func:`bayescomp.compare` (``chains``, ``draws``, ...) or to
        :func:`bayescomp.plackett_luce` (``chains``, ``draws``, ``tie_tol``, ...).

    Returns
    -------
    Ranking or PlackettLuceResult
        A :class:`Ranking`, rows and columns sorted by mean score, best first; or with
        ``method="plackett_luce"`` a :class:`PlackettLuceResult` (``p_best``,
        ``expected_ranks()``, ``p_beats``, ``summary()``, ``idata``, ``to_latex()``,
        plots).

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
    if method == "plackett_luce" and rope != 0:  # said before the table is read
        raise ValueError(
            f"rope={rope} has no meaning for method='plackett_luce': a ranking uses only the "
            "order of the models on each dataset, not by how much they differ; leave rope=0, "
            "or use method='pairwise' for ROPE probabilities"
        )
    scores, request = comparison.scores_request(
        as_scores(scores),
        metric=metric,
        rope=rope,
        higher_is_better=higher_is_better,
        takes=(Absolute,),
        where="rank",
        random_state=random_state,
        **options,
    )
    metric, rope, hib = str(request.metric), float(request.margin), bool(request.higher_is_better)
    sign = 1.0 if hib else -1.0
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if models is not None:
        scores = scores.subset(models=list(models))
    if dataset is not None:
        scores = scores.subset(datasets=[dataset])
    names = scores.models
    if len(names) < 2:
        raise ValueError(f"rank needs at least two models, the table has {names}")
    if method == "plackett_luce":
        return _plackett_luce(scores, metric, rope, hib, random_state, options)
    f = scores.to_frame()
    mean = (sign * f.groupby("model", sort=False)[metric].mean()).reindex(names)
    names = list(mean.sort_values(ascending=False, kind="stable").index)
    k = len(names)
    if len(scores.datasets) == 1:
        if options:
            raise ValueError(
                f"options {sorted(options)} are MCMC settings; on one dataset the "
                "pairwise ranking is closed-form and takes none"
            )
        vals, rho = _aligned(scores, f, names, metric)
        mats = _all_pairs(sign * vals, rho, rope)
        pairs = {}
    else:
        # one posterior per unordered pair (an MCMC fit across datasets); the reverse
        # comparison is its mirror image: left and right swap, the gain changes sign
        mats = {kind: np.full((k, k), np.nan) for kind in KINDS}
        pairs = {}
        for i, a in enumerate(names):
            for j in range(i + 1, k):
                res = comparison.compare_scores(scores, names[j], a, request)
                pairs[a, names[j]] = res
                _write_pair(mats, i, j, res)
    frames = {kind: _matrix(mats[kind], names) for kind in KINDS}
    return Ranking(
        **frames,
        mean=(sign * mean).loc[names].rename(metric),
        metric=metric,
        rope=rope,
        pairs=pairs if len(scores.datasets) > 1 else None,
    )


def _matrix(values: np.ndarray, names: list[str]) -> pd.DataFrame:
    """A k x k matrix with models as rows and columns, wrapped without a copy (k = 10,000:
    800 MB each; pandas 3 copies by default)."""
    import pandas as pd

    index = pd.Index(names, name="model")
    return pd.DataFrame(values, index=index, columns=index.rename("versus"), copy=False)


def _aligned(
    scores: Scores, f: pd.DataFrame, names: list[str], metric: str
) -> tuple[np.ndarray, float]:
    """Scores of every model on the same splits as a (k, n) array, rows in ``names`` order
    and columns in split order, and the design's rho.

    One vectorised pass checks what ``Scores.paired`` checks for one pair (the same splits,
    the same split sizes, finite scores); where it fails, the pair that fails is handed to
    ``paired`` so that the error is exactly the one ``compare`` gives.
    """
    import pandas as pd

    k = len(names)
    code = pd.Categorical(f["model"], categories=names).codes
    split = f["split"].to_numpy()
    counts = np.bincount(code, minlength=k)  # the table holds only these models
    ok = bool(np.all(counts == counts[0]))
    if ok:
        order = np.lexsort((split, code))
        n = int(counts[0])
        cols = {c: f[c].to_numpy()[order].reshape(k, n) for c in ("split", "n_train", "n_test")}
        vals = pd.to_numeric(f[metric], errors="coerce").to_numpy(dtype=float)[order]
        vals = vals.reshape(k, n)
        bad = ~np.isfinite(vals).all(axis=1)
        for c in ("split", "n_train", "n_test"):
            bad |= (cols[c] != cols[c][0]).any(axis=1)
        ok = not bad.any()
    if not ok:  # the first failing pair raises the error paired() gives for it
        for m in names[1:]:
            scores.paired(names[0], m, metric)
        raise ValueError(f"the models' {metric!r} scores are not paired split by split")
    return vals, rho_from_sizes(cols["n_train"][0], cols["n_test"][0])


def _all_pairs(
    vals: np.ndarray, rho: float, rope: float, block: int = 1 << 19
) -> dict[str, np.ndarray]:
    """The correlated t-test of every ordered pair of rows of ``vals`` (oriented scores,
    shape (k, n)); entry [i, j] has row i as candidate and row j as baseline.

    The variance of each pair's differences comes from a Gram product
    (``var(a - b) = var a + var b - 2 cov(a, b)``), so k models cost matrix products
    instead of k^2 passes over the splits; pairs where that subtraction could lose
    precision (a difference small against the models' own spread, a zero or extreme
    variance) go through :func:`correlated_ttest` on their differences, exactly as
    ``compare`` would.  Each unordered pair is computed once and mirrored.  The rows go
    in strips of about ``block`` pairs (bounded memory: the result's own five k x k
    matrices plus a few strips), on a few threads (scipy's ufuncs release the GIL).
    """
    from concurrent.futures import ThreadPoolExecutor

    k, n = vals.shape
    mean = vals.mean(axis=1)
    dev = vals - mean[:, None]
    stats = (mean, dev, np.einsum("ij,ij->i", dev, dev), n - 1)
    factor = np.sqrt(1.0 / n + rho / (1.0 - rho))
    mats = {kind: np.empty((k, k)) for kind in KINDS}
    step = max(1, block // k)
    strips = [(i0, min(k, i0 + step)) for i0 in range(0, k, step)]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = min(4, cores or 1, len(strips))
    with ThreadPoolExecutor(threads) as pool:
        exact = list(pool.map(lambda s: _strip(*s, stats, factor, rope, mats), strips))
    for m in mats.values():
        np.fill_diagonal(m, np.nan)
    ii = np.concatenate([e[0] for e in exact])
    jj = np.concatenate([e[1] for e in exact])
    if ii.size:
        _write_pair(mats, ii, jj, correlated_ttest(vals[jj], vals[ii], rho=rho, rope=rope))
    return mats


def _write_pair(mats: dict[str, np.ndarray], i: Any, j: Any, res: Any) -> None:
    """Write the posterior ``res`` of row ``i`` (candidate) against row ``j`` (baseline) to
    ``[i, j]`` and its mirror image to ``[j, i]``: left and right swap, the gain changes
    sign (``i``, ``j``: one pair, or arrays of pairs)."""
    mirror = (res.p_worse, res.p_right, res.p_rope, res.p_left, -np.asarray(res.expected_gain))
    for kind, back in zip(KINDS, mirror, strict=True):
        mats[kind][i, j] = getattr(res, kind)
        mats[kind][j, i] = back


def _strip(
    i0: int, i1: int, stats: tuple, factor: float, rope: float, mats: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``i0:i1`` against every row from ``i0`` on: written to ``[i, j]`` and mirrored
    to ``[j, i]`` (dense, contiguous strips); returns the pairs ``i < j`` that need the
    exact path.  Strips of different rows write disjoint cells."""
    from scipy import special

    mean, dev, own, df = stats
    b = i1 - i0
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        spread = own[i0:i1, None] + own[None, i0:]
        var = (spread - 2.0 * (dev[i0:i1] @ dev[i0:].T)) / df
        safe = (var >= 1e-3 * spread / df) & (var > 1e-250) & (var < 1e250)
        mu = mean[i0:i1, None] - mean[None, i0:]
        scale = np.sqrt(var) * factor
        t = mu / scale
        # one Student-t tail per pair gives both P(mu > 0) and P(mu < 0): the small one
        # directly (full relative precision), the large one as its complement
        tail = special.stdtr(df, -np.abs(t))
        up = t > 0
        better = np.where(up, 1.0 - tail, tail)
        worse = np.where(up, tail, 1.0 - tail)
        if rope == 0:
            left, right = worse, better
        else:
            left = special.stdtr(df, (-rope - mu) / scale)
            right = special.stdtr(df, (mu - rope) / scale)
        equiv = np.clip(1.0 - left - right, 0.0, 1.0)
    above = np.arange(i0, mean.size)[None, :] > np.arange(i0, i1)[:, None]
    for kind, there, back in (
        ("p_left", left, right),
        ("p_right", right, left),
        ("p_rope", equiv, equiv),
        ("p_better", better, worse),
        ("expected_gain", mu, -mu),
    ):
        m = mats[kind]
        m[i0:i1, i0:] = there
        m[i0:, i0:i1] = back.T
        # the strip's own square: each pair once, from its upper triangle
        m[i0:i1, i0:i1] = np.where(above[:, :b], there[:, :b], back[:, :b].T)
    ii, jj = np.nonzero(above & ~safe)
    return ii + i0, jj + i0


def _plackett_luce(
    scores: Scores, metric: str, rope: float, hib: bool, random_state: Any, options: dict[str, Any]
) -> PlackettLuceResult:
    """One Plackett–Luce fit of each dataset's ranking by mean score over its splits."""
    import pandas as pd

    from bayescomp.posterior.plackett_luce import plackett_luce  # PyMC: imported on use

    if len(scores.datasets) < 2:
        raise ValueError(
            f"method='plackett_luce' ranks models across datasets and needs at least 2; the "
            f"scores cover {scores.datasets}. On one dataset use method='pairwise'"
        )

    f = scores.to_frame()
    vals = f[metric].to_numpy(dtype=float)
    bad = ~np.isfinite(vals)
    if bad.any():  # as compare: a failed fit is refused, never averaged away
        d, m = f["dataset"][bad].iloc[0], f["model"][bad].iloc[0]
        splits = f["split"][bad & (f["dataset"] == d) & (f["model"] == m)].tolist()
        raise ValueError(
            f"{metric!r} of {m!r} on dataset {d!r} is NaN/inf on split(s) "
            f"{split_ranges(sorted(splits))} (a failed fit?); fix the model or drop those splits "
            "for every model"
        )
    # the mean over splits as the sum of each split's share: no overflow near the largest
    # float (a sum of x / n never exceeds max |x|)
    keys = [f["dataset"], f["model"]]
    share = vals / f.groupby(keys, sort=False)[metric].transform("size").to_numpy()
    table = pd.Series(share, index=f.index).groupby(keys, sort=False).sum().unstack()
    missing = [
        (d, m)
        for d in scores.datasets
        for m in scores.models
        if d not in table.index or m not in table.columns or not np.isfinite(table.loc[d, m])
    ]
    if missing:
        raise ValueError(
            f"every model needs finite {metric!r} scores on every dataset for a joint ranking; "
            f"missing (dataset, model): {missing[:5]} — drop those datasets or models "
            "(scores.subset(...))"
        )
    table = table.loc[scores.datasets, scores.models]
    return plackett_luce(
        table, metric=metric, higher_is_better=hib, random_state=random_state, **options
    )
