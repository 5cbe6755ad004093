"""The built-in compare methods on a scores table: the correlated t-test, the time-ordered
posterior, the hierarchical model, the rank tests and the multivariate (guardrails) t."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bayescomp.posterior.registry import Paired, register

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import Posterior

# the methods' own modules are imported on use: ``bayescomp compare --help`` lists the
# methods without importing numpy or scipy


@register("ttest", description="Bayesian correlated t-test on one dataset's splits")
def _ttest(data: Paired, **options: Any) -> Posterior:
    import numpy as np

    from bayescomp.posterior.ttest import correlated_ttest

    if options:
        raise ValueError(f"the correlated t-test takes no options {sorted(options)}")
    ((dataset, d),) = data.differences.items()
    return correlated_ttest(
        np.zeros_like(d), d, rho=data.rho[dataset], rope=data.rope, **data.names
    )


@register(
    "time_ordered",
    description="AR(1) posterior of the per-window differences of a time-ordered design",
)
def _time_ordered(data: Paired, **options: Any) -> Posterior:
    import numpy as np

    from bayescomp.posterior.time_ordered import time_ordered_test

    ((_, d),) = data.differences.items()
    return time_ordered_test(np.zeros_like(d), d, rope=data.rope, **data.names, **options)


@register(
    "hierarchical",
    across_datasets=True,
    description="hierarchical model across datasets (default for several)",
)
def _hierarchical(data: Paired, **options: Any) -> Posterior:
    import numpy as np

    from bayescomp.posterior.ttest import correlated_ttest

    pooled = np.concatenate([np.ravel(d) for d in data.differences.values()])
    if np.ptp(pooled) <= 64 * np.finfo(float).eps * max(1.0, float(np.max(np.abs(pooled)))):
        # the same difference on every split of every dataset (e.g. a challenger identical to
        # the champion): no spread for the hierarchical model to estimate, and none to
        # doubt — the point mass the t-test gives on one dataset (with its warning)
        rho = float(np.mean(list(data.rho.values())))
        return correlated_ttest(
            np.zeros_like(pooled), pooled, rho=rho, rope=data.rope, **data.names
        )
    from bayescomp.posterior.hierarchical import hierarchical_test  # PyMC: imported on use

    return hierarchical_test(
        data.differences,
        data.rho,
        rope=data.rope,
        random_state=data.random_state,
        **data.names,
        **options,
    )


@register(
    "signed_rank",
    across_datasets=True,
    description="Bayesian signed-rank test on per-dataset mean differences",
)
def _signed_rank(data: Paired, **options: Any) -> Posterior:
    from bayescomp.posterior.ranktests import signed_rank_test

    return signed_rank_test(
        data.differences, rope=data.rope, random_state=data.random_state, **data.names, **options
    )


@register(
    "sign", across_datasets=True, description="Bayesian sign test on per-dataset mean differences"
)
def _sign(data: Paired, **options: Any) -> Posterior:
    from bayescomp.posterior.ranktests import sign_test

    return sign_test(
        data.differences, rope=data.rope, random_state=data.random_state, **data.names, **options
    )


@register(
    "multivariate", description="joint correlated t of several metrics (a primary and guardrails)"
)
def _multivariate(data: Paired, **options: Any) -> Posterior:
    from bayescomp.posterior.multivariate import multivariate_ttest

    ((dataset, d),) = data.differences.items()
    names = dict(data.names)
    metrics, directions = names.pop("metric"), names.pop("directions")
    seed = 0 if data.random_state is None else data.random_state  # Monte Carlo: always seeded
    return multivariate_ttest(
        d,
        rho=data.rho[dataset],
        rope=data.rope,
        metrics=metrics,
        directions=directions,
        random_state=seed,
        **names,
        **options,
    )
