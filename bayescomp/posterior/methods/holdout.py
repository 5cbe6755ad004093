"""``compare(method="holdout")``: two models' item-level predictions on one test set
(:func:`~bayescomp.posterior.holdout.holdout_posterior`; docs "One test set").

``compare`` picks it on its own (``method="auto"``) for a DataFrame with a ``y_true``
column and no ``model`` column.  Options: ``cluster=`` and ``item=`` (column names of the
table, or one value per row), ``sample=`` (a column numbering repeated samples, checked),
``threshold=``, ``draws=``, ``prior=``, ``higher_is_better=``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bayescomp.posterior.registry import PairedPredictions, register

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import Posterior


@register(
    "holdout",
    input="predictions",
    description="one test set: item-level paired predictions (Dirichlet–multinomial, "
    "Bayesian bootstrap; clusters, repeated samples)",
)
def _holdout(data: PairedPredictions, **options: Any) -> Posterior:
    from bayescomp.posterior.holdout import items_posterior

    takes = {"cluster", "item", "threshold", "draws", "prior"}
    if set(options) - takes:
        raise ValueError(
            f"method='holdout' takes the options cluster, item, sample, threshold, draws, "
            f"prior, higher_is_better and pos_label; not {sorted(set(options) - takes)}"
        )
    names = (data.names["baseline_name"], data.names["candidate_name"])
    asked = (data.names["metric"], bool(data.higher_is_better), data.rope)
    return items_posterior(
        data.y_true,
        data.baseline,
        data.candidate,
        asked,
        names=names,
        random_state=data.random_state,
        **options,
    )
