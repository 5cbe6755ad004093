"""Slice guardrails (``docs/slices.md``): is the candidate worse on any slice of the data?

The slices of one dataset (region, segment, language) are the groups of the hierarchical
model (Corani et al. 2017): each slice's mean difference is partially pooled towards the
others, so thirty slices are not thirty chances of a false alarm and a 20-row slice borrows
strength from the rest.  :func:`slice_test` fits it with the slice ROPE as the model's ROPE;
:func:`guard_slices` makes it the one-test-set posterior's guard (its ``slices``), whose
:meth:`SliceResult.gate` blocks a promotion unless
``P(no slice worse beyond the slice ROPE) >= slice_gamma``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.exceptions import BayescompWarning
from bayescomp.core.jsonable import jsonable
from bayescomp.core.margins import Absolute
from bayescomp.core.rule import Decision, gate
from bayescomp.posterior.hierarchical import HierarchicalResult, hierarchical_test
from bayescomp.posterior.request import SLICE_GAMMA, SliceGuard

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

    from bayescomp.scores.table import Scores

__all__ = ["SliceResult", "slice_differences", "slice_scores", "slice_test"]

#: default required P(no slice worse beyond the slice ROPE); see docs/slices.md for the bench
MAX_SLICES, MIN_MEDIAN_ROWS = 200, 5


def slice_differences(
    differences: Any, labels: Any, cluster: Any = None
) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """Per-slice units of paired differences and each slice's number of rows.

    ``differences`` holds one oriented difference per row (an item, or a split's score), and
    ``labels`` each row's slice; with ``cluster`` the units are the per-cluster mean
    differences within each slice.  NaN labels, more than 200 slices or a median slice of
    fewer than 5 rows are errors; a one-unit slice is left out with a warning.

    Examples
    --------
    >>> d, rows = slice_differences([1, 0, -1, 0, 1, 1, 0, 0, 0, 1], ["a"] * 5 + ["b"] * 5)
    >>> {k: v.tolist() for k, v in d.items()}, rows
    ({'a': [1.0, 0.0, -1.0, 0.0, 1.0], 'b': [1.0, 0.0, 0.0, 0.0, 1.0]}, {'a': 5, 'b': 5})
    """
    import pandas as pd

    d = np.asarray(differences, dtype=float)
    lab = pd.Series(np.asarray(labels, dtype=object))
    if lab.size != d.size:
        raise ValueError(f"{lab.size} slice labels for {d.size} rows; give one label per row")
    if lab.isna().any():
        raise ValueError(
            f"the slice column has {int(lab.isna().sum())} missing value(s) out of {lab.size} "
            "rows; fill them (e.g. 'unknown') or drop those rows for every model"
        )
    lab = lab.astype(str)
    rows = lab.value_counts(sort=False)
    if len(rows) > MAX_SLICES or (len(rows) > 1 and rows.median() < MIN_MEDIAN_ROWS):
        raise ValueError(
            f"a slice column of {len(rows)} slices of ~{rows.median():g} row(s) each looks like "
            "an id; pass a coarser column (at most 200 slices, a median slice of 5 rows or more)"
        )
    units = pd.DataFrame({"d": d, "s": lab.to_numpy()})
    if cluster is not None:
        units["c"] = np.asarray(cluster, dtype=object)
        units = units.groupby(["s", "c"], sort=False)["d"].mean().reset_index()
    groups = {str(s): g["d"].to_numpy() for s, g in units.groupby("s", sort=True)}
    small = [s for s, g in groups.items() if g.size < 2]
    if small:
        warnings.warn(
            f"slice(s) {small} have one unit only: too small to judge, left out of the "
            "slice guardrail",
            BayescompWarning,
            stacklevel=2,
        )
    return {s: g for s, g in groups.items() if s not in small}, {
        s: int(rows[s]) for s in groups if s not in small
    }


@dataclass(frozen=True, eq=False, repr=False)
class SliceResult(HierarchicalResult):
    """The hierarchical posterior with slices as its groups and the slice ROPE as its ROPE.

    ``per_slice`` gives each slice's rows, shrunk difference, 95 % HDI and
    ``p_worse`` = P(difference < −slice ROPE); :attr:`p_no_slice_worse` is the share of
    joint draws in which no slice is worse beyond the slice ROPE.
    """

    rows: tuple[int, ...] = ()
    left_out: tuple[str, ...] = ()
    #: P(no slice worse beyond the slice ROPE) a promotion needs
    slice_gamma: float = SLICE_GAMMA

    @cached_property
    def _slice_draws(self) -> np.ndarray:
        post = self.idata.posterior["delta"]
        return post.values.reshape(-1, post.sizes["dataset"])

    @property
    def p_no_slice_worse(self) -> float:
        """P(every slice's difference >= −slice ROPE), from the joint draws."""
        return float((self._slice_draws >= -float(self.rope)).all(axis=1).mean())

    @cached_property
    def per_slice(self) -> pd.DataFrame:
        """One row per slice: rows, mean, 95 % HDI and P(worse beyond the slice ROPE)."""
        f = self.per_dataset.rename(columns={"dataset": "slice", "p_left": "p_worse"})
        f.insert(1, "rows", list(self.rows) if self.rows else f["n"].tolist())
        return f[["slice", "rows", "observed_mean", "mean", "hdi_95_low", "hdi_95_high", "p_worse"]]

    @property
    def worst_slice(self) -> str | None:
        """The slice most likely worse beyond the slice ROPE; None when no slice is worse
        in any draw."""
        f = self.per_slice
        return None if not f["p_worse"].max() > 0 else str(f.loc[f["p_worse"].idxmax(), "slice"])

    def to_dict(self) -> dict[str, Any]:
        return jsonable(
            super().to_dict()
            | {
                "slice_rope": float(self.rope),
                "p_no_slice_worse": self.p_no_slice_worse,
                "worst_slice": self.worst_slice,
                "left_out": list(self.left_out),
                "slices": self.per_slice.to_dict(orient="records"),
            }
        )

    def plot(self, *, ax: Axes | None = None) -> Axes:
        """Forest plot of the slices: size, shrunk difference and 95 % HDI, flagged slices."""
        from bayescomp.report.hierarchical_plots import plot_slices

        return plot_slices(self, ax=ax, slice_gamma=self.slice_gamma)

    def gate(self, base: Decision) -> Decision:
        """``base`` under the slice guardrail (:func:`~bayescomp.core.rule.gate`): a
        promotion needs ``P(no slice worse beyond the slice ROPE) >= slice_gamma`` and a
        converged slice posterior."""
        p, worst = self.p_no_slice_worse, self.worst_slice
        held = self.converged and p >= self.slice_gamma
        if not self.converged:
            why = (
                f"the slices' posterior did not converge ({self.convergence_problems}): no "
                "slice can be vouched for"
            )
        else:
            pw = (
                0.0
                if worst is None
                else float(self.per_slice.set_index("slice").loc[worst, "p_worse"])
            )
            why = (
                f"blocked by slice {worst!r}: P(no slice worse beyond "
                f"{Absolute(self.rope).label()}) = {p:.3f} < {self.slice_gamma:g} "
                f"(P({worst!r} worse) = {pw:.3f})"
            )
        blocked = (
            "" if held or base.outcome != "promote" else worst if self.converged else NOT_CONVERGED
        )
        return gate(base, held, why, p_no_slice_worse=p, slice_blocked=blocked or "")


def slice_test(
    differences: Mapping[str, ArrayLike],
    rho: float | dict[str, float],
    *,
    slice_rope: float,
    rows: dict[str, int] | None = None,
    left_out: tuple[str, ...] = (),
    random_state: Any = None,
    slice_gamma: float = SLICE_GAMMA,
    **options: Any,
) -> SliceResult:
    """Partially pooled per-slice differences: :func:`hierarchical_test` with slices as groups.

    ``differences`` maps each slice to its units (per-split differences of the slice's
    metric for CV scores, with ``rho`` the test fraction; per-item or per-cluster
    differences on one test set, ``rho=0``); ``rows`` is each slice's number of rows.
    ``options`` go to :func:`hierarchical_test` (``chains``, ``draws``, ``tune``, names).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> d = {f"s{i}": rng.normal(0.02, 0.05, 50) for i in range(6)}
    >>> res = slice_test(d, 0.0, slice_rope=0.02, random_state=0)  # doctest: +SKIP
    >>> res.p_no_slice_worse > 0.5  # doctest: +SKIP
    True
    """
    options = {"draws": 1000, **options}
    res = hierarchical_test(differences, rho, rope=slice_rope, random_state=random_state, **options)
    base = {f.name: getattr(res, f.name) for f in fields(res)}
    sizes = tuple(int(rows[s]) for s in res.dataset_names) if rows else ()
    return SliceResult(**base, rows=sizes, left_out=tuple(left_out), slice_gamma=slice_gamma)


#: ``slice_blocked`` of a decision whose slices' posterior did not converge
NOT_CONVERGED = "(not converged)"


def blocked_keep(baseline: str, step: Any) -> str | None:
    """The recommendation when the slice guardrail blocked ``step`` (a row of the steps
    table): keep ``baseline``, name the slice and what settles it; None when none blocked."""
    worst, c = step.get("slice_blocked"), step["challenger"]
    if not (isinstance(worst, str) and worst):
        return None
    todo = (
        "the slices' posterior did not converge, so no slice can be vouched for (fewer, "
        "larger slices help)"
        if worst == NOT_CONVERGED
        else f"slice {worst!r} is likely worse beyond the slice ROPE — score more items of "
        f"slice {worst!r} to settle it, or improve {c} there"
    )
    return (
        f"keep {baseline}: {c} is better beyond the ROPE overall (P = "
        f"{float(step['p_right']):.3f}, expected gain {float(step['expected_gain']):+.4g}) "
        f"but blocked by the slice guardrail: {todo}"
    )


def worse_text(worst: str | None) -> str:
    """The slice most likely worse, or that none is worse in any draw."""
    return "no slice worse in any draw" if worst is None else f"most likely worse {worst!r}"


def _itemwise(metric: str | None, y: Any, higher_is_better: bool | None) -> tuple[str, bool]:
    """The canonical name and direction of an item-wise metric; a metric that is not a mean
    of items (roc_auc, f1) has no per-slice scores: an error says which metrics work."""
    from bayescomp.core.item_scores import ITEMWISE
    from bayescomp.posterior.holdout_data import resolve

    name, higher = resolve(metric, y, higher_is_better, None)
    if y is not None and name not in ITEMWISE:
        raise ValueError(
            f"slices need a metric that is a mean of per-item scores ({sorted(ITEMWISE)}); "
            f"{metric!r} is not: compare slices on one of those"
        )
    return name, higher


def item_differences(
    metric: str | None,
    y: Any,
    baseline: Any,
    candidate: Any,
    *,
    higher_is_better: bool | None = None,
    threshold: float | None = None,
) -> np.ndarray:
    """Oriented per-row differences ``candidate - baseline`` of an item-wise metric
    (``threshold`` turns scores into labels; without ``y`` the model columns are per-item
    scores already)."""
    from bayescomp.core.item_scores import item_scores

    name, higher = _itemwise(metric, y, higher_is_better)
    if y is None:
        d = np.asarray(candidate, dtype=float) - np.asarray(baseline, dtype=float)
    else:
        y = np.asarray(y)
        d = item_scores(name, y, candidate, threshold) - item_scores(name, y, baseline, threshold)
    return d if higher else -d


def slice_scores(table: pd.DataFrame, metric: str = "accuracy") -> Scores:
    """The scores table of cross-validation's per-row predictions (the table of
    :func:`bayescomp.scores.slices.cross_validate_slices`): each split's item-wise ``metric``
    on its whole test set, and on each slice's test rows (its ``slice`` rows), for
    :func:`bayescomp.compare` and :func:`bayescomp.select` with ``slices="slice"``."""
    import pandas as pd

    from bayescomp.core.item_scores import item_scores
    from bayescomp.scores.table import Scores

    y = table["y_true"].to_numpy()
    name, _ = _itemwise(metric, y, None)
    t = table.assign(score=item_scores(name, y, table["y_pred"].to_numpy()))
    whole = t.groupby(["model", "split"]).agg(
        score=("score", "mean"), n_test=("row", "size"), n_train=("n_train", "first")
    )
    per = t.groupby(["model", "split", "slice"])[["score"]].mean()
    frame = pd.concat([whole.reset_index(), per.reset_index()], ignore_index=True)
    return Scores(frame.rename(columns={"score": name}).assign(dataset="data"))


def guard_slices(
    overall: Any,
    differences: Any,
    labels: Any,
    guard: SliceGuard,
    cluster: Any,
    seed: Any,
    rho: float = 0.0,
) -> Any:
    """``overall`` under the slice guardrail ``guard``: the oriented ``differences`` grouped
    by ``labels`` (one test set's items, units ``cluster``'s, ``rho`` 0; or the per-split
    differences of cross-validation, ``rho`` its test fraction), its slices' posterior its
    guard (:meth:`SliceResult.gate`)."""
    groups, rows = slice_differences(differences, labels, cluster)
    small = tuple(sorted(set(map(str, np.unique(np.asarray(labels).astype(str)))) - set(groups)))
    names = {"baseline_name": overall.baseline_name, "candidate_name": overall.candidate_name}
    res = slice_test(
        groups,
        rho,
        slice_rope=float(guard.margin),
        rows=rows,
        left_out=small,
        random_state=seed,
        slice_gamma=guard.gamma,
        metric=overall.metric,
        **names,
    )
    try:
        return replace(overall, slices=res)
    except TypeError:  # a method's posterior without slices
        raise ValueError(
            "the slice guardrail (slices=) guards the one-test-set posterior and the "
            "correlated t-test, not this method's"
        ) from None
