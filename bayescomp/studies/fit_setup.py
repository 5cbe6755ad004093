"""What :func:`bayescomp.select_models` settles before the first fit: the datasets and their
designs, the models (loaded or skipped), the scorers and the decision metric, and the store
(the fit cache) with its trackers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.scores.model_files import ModelSpec, load_specs

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.core.protocols import FitStore, SelectionTracker


@dataclass(frozen=True)
class Data:
    """One dataset of a fitted selection and its design (a splitter or index pairs)."""

    X: Any
    y: Any
    groups: Any
    cv: Any


def open_store(store: Any, tracker: SelectionTracker | None) -> tuple[FitStore, list[Any], Any]:
    """The fit cache, the trackers and what closes them: a path opens a SQLite store whose
    runs a :class:`SqliteTracker` records; a FitStore object is used as is; none: a
    :class:`MemoryStore` (each fit once, also across extra repetitions)."""
    from bayescomp.studies.store import MemoryStore, ResultStore
    from bayescomp.studies.tracker import SqliteTracker

    trackers = [tracker] if tracker is not None else []
    if store is None:
        return MemoryStore(), trackers, lambda: None
    if isinstance(store, str | Path):
        st = ResultStore(store)
        return st, [SqliteTracker(st), *trackers], st.close
    return store, trackers, lambda: None


def params_hash(spec: ModelSpec) -> str:
    from bayescomp.scores.estimators import estimator_params

    return estimator_params(spec.estimator)[1]


def prepare(
    specs: Mapping[str, ModelSpec],
    X: Any,
    y: Any,
    groups: Any,
    dataset: str | None,
    cv: Any,
) -> dict[str, Data]:
    """Every dataset with its design (default, or an int ``cv`` folds: :func:`default_cv`),
    after the checks that come before any fit (a search's inner cv, classifiers on a
    regression target)."""
    from sklearn.utils import indexable

    from bayescomp.core.checks import check_samples
    from bayescomp.scores.datasets import check_classes, check_task, task_of
    from bayescomp.scores.estimators import check_inner_cv
    from bayescomp.splits.repeats import default_cv

    for m, s in specs.items():
        check_inner_cv(m, s.estimator)
    out = {}
    for name, (Xd, yd, gd) in datasets_from(X, y, groups, dataset).items():
        check_samples(Xd, yd, gd)
        check_classes(yd, name)
        if yd is not None and task_of(yd) == "regression":  # classifiers on it: say so first
            check_task({m: s.estimator for m, s in specs.items()}, "regression", name)
        Xd, yd, gd = indexable(Xd, yd, gd)
        default = cv is None or (isinstance(cv, int | np.integer) and not isinstance(cv, bool))
        cv_d = default_cv(yd, n_splits=10 if cv is None else int(cv)) if default else cv
        out[name] = Data(Xd, yd, gd, cv_d)
    return out


def design_settings(data: Mapping[str, Data]) -> dict[str, Any]:
    """How each dataset's design is named and fingerprinted in the selection's record."""
    from bayescomp.scores.tabular import data_hash
    from bayescomp.splits.design import materialise_splits
    from bayescomp.splits.repeats import cv_text

    return {
        "cv": {n: cv_text(d.cv) for n, d in data.items()},
        "design_fingerprint": {
            n: materialise_splits(d.cv, d.X, d.y, d.groups).fingerprint() for n, d in data.items()
        },
        "data_hash": {n: data_hash(d.X, d.y) for n, d in data.items()},
    }


def fitted_metric(
    specs: Mapping[str, ModelSpec], scoring: Any, metric: str | None
) -> tuple[list[str], str]:
    """The scorers' names, and the decision metric among them."""
    from bayescomp.core.orientation import canonical_metric
    from bayescomp.scores.crossval import resolve_scorers

    if scoring is None:
        raise ValueError("pass scoring= (e.g. 'roc_auc'): the metric the decision is made on")
    scorers = {m: resolve_scorers(scoring, s.estimator) for m, s in specs.items()}
    names = list(next(iter(scorers.values())))
    if metric is not None:
        metric = canonical_metric(metric)
    if metric is None:
        if len(names) > 1:
            raise ValueError(
                f"scoring has several scorers {names}; choose the decision metric with metric="
            )
        metric = names[0]
    if metric not in names:
        raise ValueError(f"metric {metric!r} is not among the scorers {names}")
    return names, metric


def standard_scoring(
    specs: Mapping[str, ModelSpec], datasets: Mapping[str, Data], metric: str | None
) -> list[str]:
    """``scoring=None``: the decision metric, then the task's cheap standard scorers that
    every model supports (scored once per fit, so a store serves later runs on any of
    them)."""
    from bayescomp.core.orientation import canonical_metric
    from bayescomp.scores.datasets import standard_scorers, task_of

    if metric is None:
        raise ValueError(
            "pass metric= (e.g. 'roc_auc'): the metric the decision is made on "
            "(or scoring=, the scorers to fit with)"
        )
    from sklearn.base import is_regressor

    estimators = {m: s.estimator for m, s in specs.items()}
    common: list[str] | None = None
    for d in datasets.values():
        if d.y is None:
            return [canonical_metric(metric)]
        task = task_of(d.y)
        if all(is_regressor(e) for e in estimators.values()):
            task = "regression"  # e.g. counts: whole numbers, but a regression
        found = standard_scorers(d.y, task, estimators)
        common = found if common is None else [n for n in common if n in found]
    metric = canonical_metric(metric)
    return [metric, *(n for n in common or [] if n != metric)]


def fitted_models(
    models: Any, baseline: str, on_error: str
) -> tuple[dict[str, ModelSpec], dict[str, str]]:

    if models is None:
        raise ValueError("pass the candidate models (a folder, model files or a dict)")
    specs, skipped = load_specs(models, on_error)
    if baseline not in specs:
        why = f" ({skipped[baseline]})" if baseline in skipped else ""
        raise ValueError(
            f"the baseline {baseline!r} is not among the loaded models {list(specs)}{why}"
        )
    if len(specs) < 2:
        why = "; ".join(f"{name!r}: {error}" for name, error in skipped.items())
        raise ValueError(
            f"only the baseline {baseline!r} was loaded; there is no challenger"
            + (f" (not loaded: {why})" if why else "")
        )
    return specs, skipped


def candidates_frame(
    specs: Mapping[str, ModelSpec], means: Mapping[str, float], skipped: Mapping[str, str]
) -> pd.DataFrame:
    import pandas as pd

    from bayescomp.scores.estimators import is_self_tuning

    rows = [
        {
            "model": m,
            "description": s.description,
            "path": s.path,
            "nested": is_self_tuning(s.estimator) if s.estimator is not None else False,
            "mean": means.get(m, float("nan")),
            "status": "loaded",
        }
        for m, s in specs.items()
    ]
    rows += [
        {
            "model": m,
            "description": "",
            "path": None,
            "nested": False,
            "mean": float("nan"),
            "status": f"skipped: {why}",
        }
        for m, why in skipped.items()
    ]
    return pd.DataFrame(rows)


def datasets_from(X: Any, y: Any, groups: Any, dataset: str | None) -> dict[str, tuple]:
    if isinstance(X, Mapping):
        if y is not None:
            raise ValueError("with X as a dict {dataset: (X, y)} leave y=None")
        out = {}
        for name, val in X.items():
            if not isinstance(val, tuple | list) or len(val) not in (2, 3):
                raise ValueError(f"dataset {name!r} must be an (X, y) or (X, y, groups) tuple")
            out[str(name)] = (val[0], val[1], val[2] if len(val) == 3 else None)
        if not out:
            raise ValueError("X is an empty dict of datasets")
        return out
    if X is None:
        raise ValueError(
            "pass the data (X, y) to fit the models, or scores= (a Scores table or a "
            "CSV path) to select on precomputed scores"
        )
    if y is None:
        raise ValueError("y is None: pass the target of X (one value per row)")
    return {str(dataset or "data"): (X, y, groups)}
