"""The fitted runs of a selection: datasets, their splits, every fit and the store.

Each dataset's design is materialised once (:class:`Dataset`, extra seeded repetitions
appended as blocks); :class:`FittedRuns` fits (model, split) pairs through the one fit
engine (:func:`bayescomp.scores.engine.run_fits`), reuses what memory or the store
(any :class:`~bayescomp.core.protocols.FitStore`) already holds, writes each fit as
soon as it arrives, and serves the champion/challenger walk.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.exceptions import FitError
from bayescomp.scores.engine import FitTask, Progress, run_fits
from bayescomp.scores.model_files import ModelFileWarning, ModelSpec, load_models
from bayescomp.splits.repeats import block_cv
from bayescomp.studies.estimators import estimator_params, tuned_params

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import FitStore
    from bayescomp.scores.table import Scores
    from bayescomp.splits.design import SplitDesign

Key = tuple[str, str, int]  # (dataset, model, split)


@dataclass
class Dataset:
    """One dataset, its design and every split of it (base design = block 0)."""

    name: str
    X: Any
    y: Any
    groups: Any
    cv: Any
    design: SplitDesign
    seed: int | None
    data_hash: str
    splits: list[dict[str, Any]] = field(default_factory=list)  # id -> split record
    time_column: dict[str, bool] = field(default_factory=dict)  # {"time_ordered": True}
    blocks: dict[int, list[int]] = field(default_factory=dict)  # block -> split ids

    def add(self, design: SplitDesign, block: int, seed: int | None, repeat_offset: int) -> None:
        ids = []
        for k, (tr, te) in enumerate(design.splits):
            sid = len(self.splits)
            self.splits.append({"split": sid, "train": tr, "test": te, "block": block,
                                "seed": seed, "repeat": int(design.repeat[k]) + repeat_offset,
                                "fold": int(design.fold[k])})
            ids.append(sid)
        self.blocks[block] = ids


class FittedRuns:
    """Fits on demand, reuses every fit already in memory or in the store.

    It is the :class:`~bayescomp.decision.walk.StepSource` of a fitted selection: the
    walk asks it for the scores of (champion, challenger) on the base design and on
    extra seeded repetitions, which it materialises and fits when first asked.
    """

    def __init__(self, specs: dict[str, ModelSpec], datasets: dict[str, Dataset],
                 scorers: dict[str, dict[str, Any]], store: FitStore | None,
                 run_id: int | None, n_jobs: int | None, progress: Progress, on_error: str):
        self.specs, self.datasets, self.scorers = specs, datasets, scorers
        self.store, self.run_id, self.n_jobs = store, run_id, n_jobs
        self.progress, self.on_error = progress, on_error
        self.cache: dict[Key, dict[str, Any]] = {}
        self.loaded_from_store: set[tuple[str, str]] = set()
        self.stored: dict[Key, dict[str, Any]] = {}
        self.params = {m: estimator_params(s.estimator) for m, s in specs.items()}
        self.fits_performed = 0
        self.fits_loaded = 0
        self.charged: set[Key] = set()

    def add_block(self, block: int) -> None:
        """Materialise extra repetition ``block`` of every dataset's design (the store
        checks it matches what an earlier run used)."""
        from bayescomp.splits.design import materialise_splits

        for ds in self.datasets.values():
            if block in ds.blocks:
                continue
            cv, seed = block_cv(ds.cv, block)
            design = materialise_splits(cv, ds.X, ds.y, ds.groups)
            offset = 1 + max(s["repeat"] for s in ds.splits)
            ds.add(design, block, seed, offset)
            if self.store is not None:
                self.store.check_block(ds.name, block, fingerprint=design.fingerprint(),
                                       seed=seed, splits=[ds.splits[i] for i in ds.blocks[block]])

    def keys(self, models: Iterable[str], blocks: Iterable[int]) -> list[Key]:
        blocks = list(blocks)
        return [(ds.name, m, sid) for ds in self.datasets.values() for m in models
                for b in blocks for sid in ds.blocks[b]]

    def _load(self, keys: list[Key]) -> None:
        """Take the fits of ``keys`` that the store already holds (read once per model).

        A stored fit is used only when it has a score for every scorer this run asks
        of its model (a store written for roc_auc *and* accuracy serves a later run on
        accuracy without refitting); one that lacks a metric is fitted again."""
        if self.store is None:
            return
        for ds, m in dict.fromkeys((k[0], k[1]) for k in keys):
            if (ds, m) not in self.loaded_from_store:
                self.loaded_from_store.add((ds, m))
                for split, res in self.store.load_fits(ds, m).items():
                    self.stored[(ds, m, split)] = dict(res)
        found = [k for k in dict.fromkeys(keys) if k not in self.cache and k in self.stored
                 and set(self.scorers[k[1]]) <= set(self.stored[k]["scores"])]
        if found:
            self.progress.grow(len(found))
        for k in found:
            self.cache[k] = self.stored.pop(k)
            self.fits_loaded += 1
            self.progress.skip(f"{k[1]} split {k[2]} (stored)")

    def ensure(self, keys: list[Key]) -> None:
        """Make sure every (dataset, model, split) in ``keys`` has a result."""
        self._load(keys)
        todo = [k for k in dict.fromkeys(keys) if k not in self.cache]
        run_fits((self._task(k) for k in todo), self._finished, n_jobs=self.n_jobs,
                 progress=self.progress, describe=self._describe, single_thread=True)

    def _task(self, key: Key) -> FitTask:
        """Clone, fit on the outer training rows only, score on the test rows; a search's
        chosen hyperparameters are kept for the audit trail."""
        ds_name, m, sid = key
        ds = self.datasets[ds_name]
        s = ds.splits[sid]
        return FitTask(key, self.specs[m].estimator, ds.X, ds.y, s["train"], s["test"],
                       self.scorers[m], error_score=np.nan, inspect=tuned_params)

    def _describe(self, key: Key) -> str:
        ds_name, m, sid = key
        return f"{m} split {sid}" + (f" [{ds_name}]" if len(self.datasets) > 1 else "")

    def _finished(self, key: Key, res: dict[str, Any]) -> None:
        """A fit arrived: write it to the store, keep it, stop on a failure if asked to."""
        ds_name, m, sid = key
        res["best_params"] = res.pop("info")
        res.pop("predictions", None)
        if self.store is not None:
            text, digest = self.params[m]
            res["fit_id"] = self.store.write_fit(
                run_id=self.run_id, dataset=ds_name, model=m, split=sid,
                seed=self.datasets[ds_name].splits[sid]["seed"], result=res,
                params_hash=digest, params=text)
        self.cache[key] = res
        self.fits_performed += 1
        if res["error"] is not None and self.on_error == "raise":
            raise FitError(f"fit of model {m!r} on split {sid} of dataset {ds_name!r} "
                           f"failed: {res['error']} (use on_error='skip' to go on without "
                           "this model)")

    def errors(self, model: str, keys: list[Key]) -> list[str]:
        return [f"split {k[2]}: {self.cache[k]['error']}" for k in keys
                if k[1] == model and self.cache[k]["error"] is not None]

    def table(self, models: Sequence[str], blocks: Iterable[int], *, complete: bool = True
              ) -> Scores:
        """Scores table of ``models`` on the splits of ``blocks`` (``complete=False``: only
        the fits that exist, e.g. extra repetitions fitted for some models only)."""
        import pandas as pd

        from bayescomp.scores.table import Scores

        rows = []
        for key in self.keys(models, blocks):
            if not complete and key not in self.cache:
                continue
            ds_name, m, sid = key
            ds = self.datasets[ds_name]
            s = ds.splits[sid]
            res = self.cache[key]
            rows.append({"dataset": ds_name, "model": m, "split": sid, "repeat": s["repeat"],
                         "fold": s["fold"], "n_train": len(s["train"]), "n_test": len(s["test"]),
                         "fit_time": res["fit_time"], "score_time": res["score_time"],
                         **res["scores"], **ds.time_column})
        metrics = list(dict.fromkeys(n for m in models for n in self.scorers[m]))
        return Scores(pd.DataFrame(rows), metrics=metrics)

    # ----------------------------------------------------------- the walk's source
    def failure(self, model: str) -> str | None:
        errs = self.errors(model, self.keys([model], [0]))
        return f"its fit failed on {len(errs)} split(s) ({errs[0]})" if errs else None

    def step_scores(self, champion: str, challenger: str, repeats: int) -> Scores | None:
        if repeats:
            self.add_block(repeats)
        blocks = range(repeats + 1)
        use = self.keys([champion, challenger], blocks)
        self.ensure(use)
        if self.errors(challenger, use) + self.errors(champion, use):
            return None
        return self.table([champion, challenger], blocks)

    def charge(self, models: list[str], repeats: int) -> int:
        new = set(self.keys(models, range(repeats + 1))) - self.charged
        self.charged |= new
        return len(new)


def _data_hash(X: Any, y: Any) -> str:
    import joblib

    return joblib.hash((X, y))


def _datasets_from(X: Any, y: Any, groups: Any, dataset: str | None) -> dict[str, tuple]:
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
        raise ValueError("pass the data (X, y) to fit the models, or scores= (a Scores table or a "
                         "CSV path) to select on precomputed scores")
    return {str(dataset or "data"): (X, y, groups)}


def load_specs(models: Any, on_error: str) -> tuple[dict[str, ModelSpec], dict[str, str]]:
    if on_error not in ("skip", "raise"):
        raise ValueError(f"on_error must be 'skip' or 'raise', got {on_error!r}")
    skipped: dict[str, str] = {}
    if isinstance(models, str | Path) or (isinstance(models, Iterable) and not isinstance(
            models, Mapping)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ModelFileWarning)
            specs = load_models(models, on_error=on_error)
        for w in caught:
            if issubclass(w.category, ModelFileWarning):
                msg = str(w.message).removeprefix("skipped model file ")
                skipped[Path(msg.split(":", 1)[0]).stem] = msg
                # stacklevel: the caller of select()
                warnings.warn(str(w.message), ModelFileWarning, stacklevel=5)
            else:  # pragma: no cover - pass other warnings through
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return specs, skipped
    return load_models(models, on_error=on_error), skipped


def prepare_datasets(X: Any, y: Any, groups: Any, dataset: str | None, cv: Any, *,
                     n_splits: int, n_repeats: int, random_state: int) -> dict[str, Dataset]:
    """Every dataset with its design materialised once (default design: :func:`default_cv`)."""
    from sklearn.utils import indexable

    from bayescomp.core.checks import check_samples
    from bayescomp.scores.datasets import check_classes
    from bayescomp.splits.design import materialise_splits
    from bayescomp.splits.repeats import default_cv

    datasets: dict[str, Dataset] = {}
    for name, (Xd, yd, gd) in _datasets_from(X, y, groups, dataset).items():
        check_samples(Xd, yd, gd)
        check_classes(yd, name)
        Xd, yd, gd = indexable(Xd, yd, gd)
        cv_d = cv if cv is not None else default_cv(yd, n_splits=n_splits, n_repeats=n_repeats,
                                                    random_state=random_state)
        design = materialise_splits(cv_d, Xd, yd, gd)
        seed = getattr(cv_d, "random_state", None)
        seed = int(seed) if isinstance(seed, int | np.integer) else None
        ds = Dataset(name, Xd, yd, gd, cv_d, design, seed, _data_hash(Xd, yd),
                     time_column={"time_ordered": True} if design.time_ordered else {})
        ds.add(design, 0, seed, 0)
        datasets[name] = ds
    return datasets


def start_run(store: FitStore, datasets: Mapping[str, Dataset], specs: Mapping[str, ModelSpec],
              settings: Mapping[str, Any], metric: str, scoring: list[str]) -> int:
    """Check the store matches this study (designs, data, models), then open a run."""
    from bayescomp.splits.repeats import cv_text
    from bayescomp.studies.estimators import is_self_tuning

    for ds in datasets.values():
        store.check_design(ds.name, fingerprint=ds.design.fingerprint(),
                           data_hash=ds.data_hash, n_samples=ds.design.n_samples,
                           n_splits=len(ds.design), metric=metric, scoring=scoring,
                           cv=cv_text(ds.cv), seed=ds.seed, splits=ds.splits)
    for m, s in specs.items():
        text, digest = estimator_params(s.estimator)
        store.check_model(m, params_hash=digest, params=text, description=s.description,
                          path=s.path, nested=is_self_tuning(s.estimator))
    return store.start_run({**settings, "models": list(specs)})
