"""The one fitter's conversation with its cache (a :class:`~bayescomp.core.protocols.FitStore`):
the splits it records, the checks before any fit, the stored fits it reads, each new fit it
writes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from bayescomp.core.protocols import Split
from bayescomp.scores.engine import Progress
from bayescomp.scores.estimators import estimator_params, is_self_tuning
from bayescomp.splits.design import SplitDesign, materialise_splits

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import Estimator, Fit, FitStore


def split_records(
    cv: Any, design: SplitDesign, X: Any, y: Any, groups: Any, extra_repeats: int
) -> tuple[list[Split], list[str]]:
    """Every split of the design and of its ``extra_repeats`` seeded repetitions (numbered
    on from the design's), and the fingerprint of each block."""
    import numpy as np

    from bayescomp.splits.repeats import block_cv

    seed = getattr(cv, "random_state", None)
    blocks = [(design, int(seed) if isinstance(seed, int | np.integer) else None)]
    for b in range(1, extra_repeats + 1):
        cv_b, seed_b = block_cv(cv, b)
        blocks.append((materialise_splits(cv_b, X, y, groups), seed_b))
    out: list[Split] = []
    offset = 0
    for b, (d, s) in enumerate(blocks):
        for k, (train, test) in enumerate(d.splits):
            out.append(
                Split(len(out), b, s, int(d.repeat[k]) + offset, int(d.fold[k]), train, test)
            )
        offset = 1 + max(r.repeat for r in out)
    return out, [d.fingerprint() for d, _ in blocks]


def check_cache(
    cache: FitStore,
    dataset: str,
    models: Mapping[str, Estimator],
    scorers: Mapping[str, Mapping[str, Callable[..., Any]]],
    data: tuple[Any, Any],
    cv: Any,
    splits: list[Split],
    prints: list[str],
    n_samples: int,
) -> dict[str, tuple[str, str]]:
    """Check that the cache holds this design, data and models (record them when new)
    before any fit; return each model's ``(params, params_hash)``."""
    from bayescomp.scores.tabular import data_hash
    from bayescomp.splits.repeats import cv_text

    names = list(next(iter(scorers.values())))
    base = [s for s in splits if s.block == 0]
    cache.check_design(
        dataset,
        fingerprint=prints[0],
        data_hash=data_hash(*data),
        n_samples=int(n_samples),
        n_splits=len(base),
        metric=names[0],
        scoring=names,
        cv=cv_text(cv),
        seed=base[0].seed,
        splits=base,
    )
    for b in range(1, len(prints)):
        block = [s for s in splits if s.block == b]
        cache.check_block(dataset, b, fingerprint=prints[b], seed=block[0].seed, splits=block)
    params = {name: estimator_params(est) for name, est in models.items()}
    for name, est in models.items():
        cache.check_model(
            name, params_hash=params[name][1], params=params[name][0], nested=is_self_tuning(est)
        )
    return params


def load_cached(
    cache: FitStore,
    dataset: str,
    scorers: Mapping[str, Mapping[str, Callable[..., Any]]],
    n_splits: int,
    results: dict[Any, Fit],
    bar: Progress,
    kind: str | None = None,
) -> int:
    """Take the stored fits that have a score for every scorer this call asks of their model
    (one that lacks a metric, or the predictions of ``kind``, is fitted again); return how
    many."""
    found = {}
    for name in scorers:
        for k, res in cache.load_fits(dataset, name).items():
            has = kind is None or (res.predictions is not None and res.predictions.kind == kind)
            if int(k) < n_splits and has and set(scorers[name]) <= set(res.scores):
                found[(name, int(k))] = res
    bar.grow(len(found))
    for key, res in found.items():
        results[key] = res
        bar.skip(f"{key[0]} split {key[1]} (stored)")
    return len(found)


def recorder(
    results: dict[Any, Fit],
    cache: FitStore | None,
    dataset: str,
    splits: list[Split],
    params: Mapping[str, tuple[str, str]],
) -> Callable[[tuple[str, int], Fit], None]:
    """The callback that takes each finished fit: into ``results``, and at once into
    ``cache`` (with its out-of-fold predictions when it kept them)."""

    def finished(key: tuple[str, int], res: Fit) -> None:
        results[key] = res
        if cache is not None:
            name, k = key
            cache.write_fit(
                dataset=dataset,
                model=name,
                split=k,
                seed=splits[k].seed,
                result=res,
                params_hash=params[name][1],
                params=params[name][0],
            )

    return finished
