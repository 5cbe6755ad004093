"""The Plackett–Luce likelihood of per-dataset rankings, ties included, and its PyMC model.

The model of Calvo, Ceberio and Lozano (2018) with a ``Dirichlet(alpha)`` prior on the
worths; a tied group's likelihood is the exact marginal over its strict orders, and a
dataset on which every model ties is left out (named in the result).  The model, written
out: ``docs/many_models.md``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from bayescomp.core.checks import check_number
from bayescomp.core.optional import require
from bayescomp.posterior.hierarchical.model import cached_model

__all__ = ["MAX_ORDERINGS", "Rankings", "plackett_luce_loglik", "rankings_from_scores"]

#: largest number of strict orderings one tied dataset may expand to (7! = 5040)
MAX_ORDERINGS = 5040


@dataclass(frozen=True)
class Rankings:
    """The per-dataset rankings a Plackett–Luce model is fitted to.

    Attributes
    ----------
    models : tuple of str
        Model names; ``orderings`` hold indices into it.
    datasets : tuple of str
        The informative datasets (every dataset but the all-tied ones).
    orderings : ndarray of int, shape (n_orderings, k)
        Strict rankings, best first; a dataset with ties owns several rows.
    index, valid : ndarray, shape (n_datasets, max_orderings)
        Row ``d`` lists the orderings of dataset ``d`` (``valid`` marks the padding).
    ranks : DataFrame
        Observed rank of every model on every dataset (1 = best, ties get the
        average rank), all datasets included.
    all_tied : tuple of str
        Datasets on which every model scored the same (likelihood 1, left out).
    """

    models: tuple[str, ...]
    datasets: tuple[str, ...]
    orderings: np.ndarray
    index: np.ndarray
    valid: np.ndarray
    ranks: Any
    all_tied: tuple[str, ...]

    @property
    def k(self) -> int:
        return len(self.models)

    @property
    def tied(self) -> tuple[str, ...]:
        """Informative datasets with at least one tie."""
        counts = self.valid.sum(axis=1)
        return tuple(d for d, c in zip(self.datasets, counts, strict=True) if c > 1)

    def data(self) -> dict[str, np.ndarray]:
        """The ``pm.Data`` values of :func:`build_model`."""
        return {"orderings": self.orderings, "index": self.index, "valid": self.valid}


def _tie_groups(values: np.ndarray, tol: float) -> list[list[int]]:
    """Indices grouped by tie, best (largest) first; a gap <= ``tol`` chains a tie."""
    order = np.argsort(-values, kind="stable")
    groups = [[int(order[0])]]
    for prev, cur in itertools.pairwise(order):
        if values[prev] - values[cur] <= tol:
            groups[-1].append(int(cur))
        else:
            groups.append([int(cur)])
    return groups


def _expand(groups: list[list[int]], dataset: str) -> list[tuple[int, ...]]:
    """Every strict ordering consistent with the tie groups (their product of permutations)."""
    count = math.prod(math.factorial(len(g)) for g in groups)
    if count > MAX_ORDERINGS:
        sizes = sorted((len(g) for g in groups if len(g) > 1), reverse=True)
        raise ValueError(
            f"dataset {dataset!r} has ties among {sizes} models, i.e. {count} orderings "
            f"consistent with it (at most {MAX_ORDERINGS} are summed exactly); pass a smaller "
            "tie_tol, or drop that dataset"
        )
    return [
        tuple(itertools.chain.from_iterable(p))
        for p in itertools.product(*(itertools.permutations(g) for g in groups))
    ]


def rankings_from_scores(scores: Any, *, tie_tol: float = 1e-12) -> Rankings:
    """Per-dataset rankings from a table of per-dataset scores (higher is better).

    Parameters
    ----------
    scores : DataFrame
        One row per dataset (the index names it), one column per model, each cell
        the model's (oriented) score on that dataset, e.g. the mean over its splits.
    tie_tol : float, default 1e-12
        Scores within ``tie_tol`` of each other are tied (ties chain: a, b and c are
        tied when a - b and b - c are both within ``tie_tol``).

    Examples
    --------
    >>> import pandas as pd
    >>> r = rankings_from_scores(pd.DataFrame({"a": [.9, .8, .5], "b": [.8, .8, .5],
    ...                                        "c": [.7, .9, .5]}, index=["x", "y", "z"]))
    >>> r.orderings.tolist(), r.all_tied
    ([[0, 1, 2], [2, 0, 1], [2, 1, 0]], ('z',))
    >>> r.ranks.loc["y"].tolist()
    [2.5, 2.5, 1.0]
    """
    import pandas as pd

    if not isinstance(scores, pd.DataFrame):
        raise ValueError("scores must be a DataFrame: one row per dataset, one column per model")
    if scores.shape[1] < 2 or scores.shape[0] < 2:
        raise ValueError(
            f"a ranking across datasets needs at least 2 models and 2 datasets; got "
            f"{scores.shape[1]} model(s) and {scores.shape[0]} dataset(s)"
        )
    if not scores.columns.is_unique or not scores.index.is_unique:
        raise ValueError("model and dataset names must be unique")
    values = scores.to_numpy(dtype=float)
    if not np.all(np.isfinite(values)):
        bad = scores.index[~np.isfinite(values).all(axis=1)].tolist()
        raise ValueError(
            f"scores are missing (NaN) or infinite on dataset(s) {bad[:5]}; every model needs "
            "a score on every dataset — drop those datasets or the models that lack them"
        )
    check_number(tie_tol, "tie_tol", min_val=0)
    names = [str(d) for d in scores.index]
    datasets, blocks, all_tied = [], [], []
    ranks = np.empty_like(values)
    for name, row, rank in zip(names, values, ranks, strict=True):
        groups = _tie_groups(row, tie_tol)
        first = 1
        for g in groups:  # a tie group shares the average of the places it fills
            rank[g] = first + (len(g) - 1) / 2
            first += len(g)
        if len(groups) == 1:
            all_tied.append(name)
            continue
        datasets.append(name)
        blocks.append(_expand(groups, name))
    if len(datasets) < 1:
        raise ValueError("every model scores the same on every dataset: there is nothing to rank")
    counts = np.array([len(b) for b in blocks])
    orderings = np.array(list(itertools.chain.from_iterable(blocks)), dtype=np.int64)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    width = int(counts.max())
    index = starts[:, None] + np.arange(width)[None, :]
    valid = np.arange(width)[None, :] < counts[:, None]
    ranks = pd.DataFrame(
        ranks,
        index=pd.Index(names, name="dataset"),
        columns=pd.Index([str(c) for c in scores.columns], name="model"),
    )
    return Rankings(
        models=tuple(str(c) for c in scores.columns),
        datasets=tuple(datasets),
        orderings=orderings,
        index=np.where(valid, index, 0),
        valid=valid,
        ranks=ranks,
        all_tied=tuple(all_tied),
    )


# ----------------------------------------------------------------- likelihood
def _ordering_loglik(worth: Any, orderings: Any, xp: Any = np) -> Any:
    """``log P(o | w)`` of every strict ordering (rows of ``orderings``); the last place's
    factor is 1 (not ``w / w``: finite where that worth underflows to 0)."""
    w = worth[orderings]
    tails = xp.cumsum(w[:, ::-1], axis=1)[:, ::-1]
    return (xp.log(w[:, :-1]) - xp.log(tails[:, :-1])).sum(axis=1)


def plackett_luce_loglik(worth: Any, rankings: Rankings) -> np.ndarray:
    """Log-likelihood of each informative dataset's ranking (the tie marginal where tied).

    Parameters
    ----------
    worth : array_like, shape (k,)
        Positive worths (they need not sum to 1: the likelihood is scale-free, and is
        computed with the largest worth scaled to 1).
    rankings : Rankings
        From :func:`rankings_from_scores`.

    Returns
    -------
    ndarray, shape (n_datasets,)

    Examples
    --------
    >>> import pandas as pd
    >>> r = rankings_from_scores(pd.DataFrame({"a": [3.0], "b": [2.0], "c": [1.0],
    ...                                        }).T.assign(y=[1.0, 1.0, 2.0]).T)
    >>> w = np.array([0.5, 0.3, 0.2])
    >>> ll = plackett_luce_loglik(w, r)
    >>> bool(np.isclose(ll[0], np.log(0.5 / 1.0 * 0.3 / 0.5)))   # a > b > c
    True
    >>> p_tie = 0.2 * (0.5 / 0.8 + 0.3 / 0.8)                      # c first, then a and b in any order
    >>> bool(np.isclose(ll[1], np.log(p_tie)))
    True
    """
    from scipy.special import logsumexp

    w = np.asarray(worth, dtype=float)
    ll = _ordering_loglik(w / w.max(), rankings.orderings)  # scale-free: no overflow
    padded = np.where(rankings.valid, ll[rankings.index], -np.inf)
    return logsumexp(padded, axis=1)


# ---------------------------------------------------------------- PyMC model
def build_model(k: int) -> Any:
    """The PyMC model for ``k`` models; the rankings are ``pm.Data`` swapped in per fit.

    Only ``k`` is fixed: the number of datasets and of tied orders may change from one
    fit to the next (the arrays below are placeholders with the right dtypes).
    """
    pm = require("pymc", "mcmc", "the Plackett-Luce ranking")
    import pytensor.tensor as pt

    with pm.Model(coords={"model": np.arange(k)}) as model:
        # (order, position): strict rankings, best first, as indices into the models
        orderings = pm.Data("orderings", np.arange(k)[None, :])
        # (dataset, tie order): the rows of `orderings` each dataset sums over
        index = pm.Data("index", np.zeros((1, 1), dtype=np.int64))
        valid = pm.Data("valid", np.ones((1, 1), dtype=bool))
        concentration = pm.Data("concentration", np.ones(k), dims="model")
        worth = pm.Dirichlet("worth", a=concentration, dims="model")
        ll = _ordering_loglik(worth, orderings, xp=pt)
        # a dataset's likelihood sums over the strict orders consistent with its ties
        # (a single order where nothing ties)
        ll = pt.logsumexp(pt.switch(valid, ll[index], -np.inf), axis=1)
        pm.Potential("loglik", ll.sum())
    return model


def get_model(rankings: Rankings, backend: str) -> tuple[Any, Any]:
    """The cached ``(model, compiled)`` pair for ``rankings.k`` models and ``backend``.

    Compiling (numba for nutpie) takes tens of seconds; every later fit with the same
    number of models reuses it, whatever the number of datasets or ties.
    """
    return cached_model(("plackett_luce", rankings.k), partial(build_model, rankings.k), backend)
