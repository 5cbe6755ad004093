"""Champion/challenger selection: promote a candidate only when it is really better.

:func:`select` walks a list of candidate models against the current champion
(initially the production *baseline*).  Each step is one posterior of
``challenger - champion`` from :func:`bayescomp.compare` on the same fixed
splits, decided with the rule of :func:`bayescomp.decide`: the challenger
becomes champion only when ``P(difference > rope) >= gamma``.

Cost: the splits are materialised once per dataset, every model is fitted once
on them and the champion's per-split scores are reused at every step, so
choosing among ``k`` candidates costs ``k + 1`` cross-validations.  Every fit is
written to an optional SQLite store (:class:`~bayescomp.studies.store.ResultStore`)
as soon as it finishes; rerunning resumes without refitting.

Self-tuning candidates (``GridSearchCV``, ``RandomizedSearchCV``, ``*CV``
estimators, any estimator that tunes itself inside ``fit``) are evaluated by
nested cross-validation: the search is cloned and fitted on the outer training
fold only, so its inner cross-validation never sees the outer test fold.  The
hyperparameters it picks in each outer fold are recorded for the audit trail but
never used to decide what goes to production: the production model is the
winning *procedure* refitted on all the data (:meth:`Selection.refit_champion`).
"""

from __future__ import annotations

import copy
import json
import re
import sys
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.exceptions import FitError
from bayescomp.scores.crossval import fit_and_score, replay_warnings
from bayescomp.scores.model_files import ModelFileWarning, ModelSpec, load_models

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from bayescomp.scores.table import Scores
    from bayescomp.splits.design import SplitDesign
    from bayescomp.studies.store import ResultStore

ORDERS = ("given", "name", "mean")
STEP_COLUMNS = ["step", "champion", "challenger", "p_better", "p_left", "p_rope", "p_right",
                "risk", "expected_gain", "decision", "reason", "fits", "n_splits",
                "extra_repeats"]



# --------------------------------------------------------------------------- models
def _param_text(value: Any) -> str:
    if callable(value) and hasattr(value, "__qualname__") and not hasattr(value, "get_params"):
        return f"<callable {value.__qualname__}>"
    if hasattr(value, "get_params"):
        return type(value).__name__
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


def estimator_params(estimator: Any) -> tuple[str, str]:
    """``(params_json, sha256)`` of an estimator's deep parameters, stable across processes."""
    import hashlib

    params = {"__class__": f"{type(estimator).__module__}.{type(estimator).__qualname__}"}
    params.update({k: _param_text(v) for k, v in estimator.get_params(deep=True).items()})
    text = json.dumps(params, sort_keys=True)
    return text, hashlib.sha256(text.encode()).hexdigest()


def _sub_estimators(est: Any) -> list[Any]:
    out = [est]
    try:
        params = est.get_params(deep=True)
    except Exception:  # pragma: no cover - not an estimator
        return out
    out += [v for v in params.values() if hasattr(v, "fit") and hasattr(v, "get_params")]
    return out


def is_self_tuning(estimator: Any) -> bool:
    """Whether ``estimator`` (or a step of it) tunes hyperparameters inside ``fit``.

    True for ``GridSearchCV``/``RandomizedSearchCV``/``Halving*SearchCV``, any
    estimator with a ``param_grid``/``param_distributions``, and scikit-learn's
    ``*CV`` estimators (``LogisticRegressionCV``, ``RidgeCV``, ...).

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn.linear_model import LogisticRegression
    >>> is_self_tuning(GridSearchCV(LogisticRegression(), {"C": [0.1, 1]})), is_self_tuning(
    ...     LogisticRegression())
    (True, False)
    """
    for o in _sub_estimators(estimator):
        try:
            names = set(o.get_params(deep=False))
        except Exception:  # pragma: no cover
            continue
        if names & {"param_grid", "param_distributions"}:
            return True
        if type(o).__name__.endswith("CV") and "cv" in names:
            return True
        if hasattr(type(o), "best_estimator_") or hasattr(type(o), "best_params_"):
            return True
    return False


def _check_inner_cv(name: str, estimator: Any) -> None:
    for o in _sub_estimators(estimator):
        try:
            cv = o.get_params(deep=False).get("cv", None)
        except Exception:  # pragma: no cover
            continue
        if cv is None or isinstance(cv, int | np.integer) or hasattr(cv, "split"):
            continue
        raise ValueError(
            f"model {name!r} tunes itself with a fixed list of (train, test) index pairs as its "
            "inner cv; those indices refer to the full data, but in nested cross-validation the "
            "search is fitted on each outer training fold only. Use an int or a splitter object "
            "(e.g. cv=5 or StratifiedKFold(5)) as the inner cv"
        )


def _tuned_params(est: Any) -> dict[str, Any] | None:
    for o in [est, *[s for _, s in getattr(est, "steps", [])]]:
        bp = getattr(o, "best_params_", None)
        if isinstance(bp, Mapping):
            return {str(k): (v if isinstance(v, int | float | str | bool | type(None))
                             else _param_text(v)) for k, v in bp.items()}
    return None


def _fit_task(key: tuple[str, str, int], estimator: Any, X: Any, y: Any, train: np.ndarray,
              test: np.ndarray, scorers: Mapping[str, Any]) -> tuple[tuple, dict[str, Any]]:
    """Clone, fit on the outer training rows only, score on the test rows (a worker task).

    Native thread pools (OpenMP, BLAS) are limited to one thread during the fit:
    parallelism comes from running several fits at once (``n_jobs``), and
    oversubscribed OpenMP pools make e.g. histogram gradient boosting ten times
    slower on a busy machine.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        res = fit_and_score(estimator, X, y, train, test, scorers, error_score=np.nan,
                            inspect=_tuned_params)
    res["best_params"] = res.pop("info")
    return key, res


# --------------------------------------------------------------------------- designs
def default_cv(y: Any, *, n_splits: int = 10, n_repeats: int = 10, random_state: int = 0) -> Any:
    """``RepeatedStratifiedKFold`` for class labels, ``RepeatedKFold`` otherwise."""
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    from bayescomp.splits.design import _is_classification_target

    if int(n_splits) < 2 or int(n_repeats) < 1:
        raise ValueError(f"need n_splits >= 2 and n_repeats >= 1, got {n_splits} and {n_repeats}")
    cls = RepeatedStratifiedKFold if _is_classification_target(y) else RepeatedKFold
    return cls(n_splits=int(n_splits), n_repeats=int(n_repeats), random_state=int(random_state))


def _block_seed(seed: int, block: int) -> int:
    return int(np.random.SeedSequence([int(seed), int(block)]).generate_state(1)[0])


def _block_cv(cv: Any, block: int) -> tuple[Any, int]:
    """One more seeded repetition of the design: the splitter with ``n_repeats=1`` and a
    seed derived from its own seed and the block number."""
    seed = getattr(cv, "random_state", None)
    if not hasattr(cv, "split") or not isinstance(seed, int | np.integer):
        raise ValueError(
            "max_repeats > 0 adds seeded repetitions of the design, which needs a splitter with "
            f"an integer random_state (got {type(cv).__name__} with random_state={seed!r}); pass "
            "e.g. RepeatedStratifiedKFold(n_splits=10, n_repeats=3, random_state=0)"
        )
    if hasattr(cv, "shuffle") and not cv.shuffle:
        raise ValueError(f"{cv!r} does not shuffle, so every repetition would be identical; use "
                         "shuffle=True or a Repeated*KFold splitter with max_repeats > 0")
    new = copy.deepcopy(cv)
    if hasattr(new, "n_repeats"):
        new.n_repeats = 1
    new_seed = _block_seed(int(seed), block)
    new.random_state = new_seed
    return new, new_seed


def _cv_text(cv: Any) -> str:
    if hasattr(cv, "split"):
        return repr(cv)
    return f"{type(cv).__name__} of index pairs"


@dataclass
class _Dataset:
    name: str
    X: Any
    y: Any
    groups: Any
    cv: Any
    design: SplitDesign
    seed: int | None
    data_hash: str
    splits: list[dict[str, Any]] = field(default_factory=list)  # id -> split record
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


# --------------------------------------------------------------------------- progress
class _Progress:
    def __init__(self, enabled: bool):
        self.bar = None
        if enabled and sys.stderr.isatty():
            from tqdm.auto import tqdm

            # redraw on every finished fit (a fit costs far more than a redraw), so the
            # current model/split is always what the bar shows
            self.bar = tqdm(total=0, desc="select", unit="fit", leave=False, mininterval=0,
                            miniters=1)

    def grow(self, n: int) -> None:
        if self.bar is not None:
            self.bar.total += n
            self.bar.refresh()

    def tick(self, text: str, n: int = 1) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
            self.bar.update(n)
            self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# --------------------------------------------------------------------------- runner
class _Runner:
    """Fits on demand, reuses every fit already in memory or in the store."""

    def __init__(self, specs: dict[str, ModelSpec], datasets: dict[str, _Dataset],
                 scorers: dict[str, dict[str, Any]], store: ResultStore | None,
                 run_id: int | None, n_jobs: int | None, progress: _Progress, on_error: str):
        self.specs, self.datasets, self.scorers = specs, datasets, scorers
        self.store, self.run_id, self.n_jobs = store, run_id, n_jobs
        self.progress, self.on_error = progress, on_error
        self.cache: dict[tuple[str, str, int], dict[str, Any]] = {}
        self.loaded_from_store: set[tuple[str, str]] = set()
        self.stored: dict[tuple[str, str, int], dict[str, Any]] = {}
        self.params = {m: estimator_params(s.estimator) for m, s in specs.items()}
        self.fits_performed = 0
        self.fits_loaded = 0

    def add_block(self, block: int) -> None:
        from bayescomp.splits.design import materialise_splits

        for ds in self.datasets.values():
            if block in ds.blocks:
                continue
            cv, seed = _block_cv(ds.cv, block)
            design = materialise_splits(cv, ds.X, ds.y, ds.groups)
            offset = 1 + max(s["repeat"] for s in ds.splits)
            ds.add(design, block, seed, offset)
            if self.store is not None:
                self.store.check_block(ds.name, block, fingerprint=design.fingerprint(),
                                       seed=seed, splits=[ds.splits[i] for i in ds.blocks[block]])

    def keys(self, models: Iterable[str], blocks: Iterable[int]) -> list[tuple[str, str, int]]:
        blocks = list(blocks)
        return [(ds.name, m, sid) for ds in self.datasets.values() for m in models
                for b in blocks for sid in ds.blocks[b]]

    def _load(self, keys: list[tuple[str, str, int]]) -> None:
        """Take the fits of ``keys`` that the store already holds (read once per model)."""
        if self.store is None:
            return
        for ds, m in dict.fromkeys((k[0], k[1]) for k in keys):
            if (ds, m) not in self.loaded_from_store:
                self.loaded_from_store.add((ds, m))
                for split, res in self.store.load_fits(ds, m).items():
                    self.stored[(ds, m, split)] = res
        found = [k for k in dict.fromkeys(keys) if k not in self.cache and k in self.stored]
        if found:
            self.progress.grow(len(found))
        for k in found:
            self.cache[k] = self.stored.pop(k)
            self.fits_loaded += 1
            self.progress.tick(f"{k[1]} split {k[2]} (stored)")

    def ensure(self, keys: list[tuple[str, str, int]]) -> None:
        """Make sure every (dataset, model, split) in ``keys`` has a result."""
        from joblib import Parallel, delayed

        self._load(keys)
        todo = [k for k in dict.fromkeys(keys) if k not in self.cache]
        if not todo:
            return
        self.progress.grow(len(todo))
        try:
            parallel = Parallel(n_jobs=self.n_jobs, return_as="generator_unordered")
        except ValueError:  # pragma: no cover - joblib < 1.4
            parallel = Parallel(n_jobs=self.n_jobs, return_as="generator")
        tasks = []
        for ds_name, m, sid in todo:
            ds = self.datasets[ds_name]
            s = ds.splits[sid]
            tasks.append(delayed(_fit_task)((ds_name, m, sid), self.specs[m].estimator, ds.X,
                                            ds.y, s["train"], s["test"], self.scorers[m]))
        for key, res in parallel(tasks):
            ds_name, m, sid = key
            replay_warnings(res)
            if self.store is not None:
                text, digest = self.params[m]
                res["fit_id"] = self.store.write_fit(
                    run_id=self.run_id, dataset=ds_name, model=m, split=sid,
                    seed=self.datasets[ds_name].splits[sid]["seed"], result=res,
                    params_hash=digest, params=text)
            self.cache[key] = res
            self.fits_performed += 1
            self.progress.tick(f"{m} split {sid}" + (f" [{ds_name}]" if len(self.datasets) > 1
                                                     else ""))
            if res["error"] is not None and self.on_error == "raise":
                raise FitError(f"fit of model {m!r} on split {sid} of dataset {ds_name!r} "
                               f"failed: {res['error']} (use on_error='skip' to go on without "
                               "this model)")

    def errors(self, model: str, keys: list[tuple[str, str, int]]) -> list[str]:
        return [f"split {k[2]}: {self.cache[k]['error']}" for k in keys
                if k[1] == model and self.cache[k]["error"] is not None]

    def scores(self, models: Sequence[str], blocks: Iterable[int], *, complete: bool = True
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
                         **res["scores"]})
        metrics = list(dict.fromkeys(n for m in models for n in self.scorers[m]))
        return Scores(pd.DataFrame(rows), metrics=metrics)


# --------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class Selection:
    """Outcome of :func:`select`: the champion, every step and what it cost.

    Attributes
    ----------
    champion : str
        The model to run in production (the baseline when nothing beat it).
    baseline : str
        The model in production before the selection.
    steps : DataFrame
        One row per challenger: ``step, champion, challenger, p_better, p_left,
        p_rope, p_right, risk, expected_gain, decision, reason, fits, n_splits,
        extra_repeats`` (``fits`` = fits this step needed, the champion's reused
        scores not counted; ``extra_repeats`` = repetitions added by sequential
        testing).
    recommendation : dict
        Final action (``"promote"`` or ``"keep"``), champion vs. the original
        baseline (probabilities, expected gain, risk) and a sentence.
    scores : Scores
        Every per-split score used (all models, all repetitions).
    base_scores : Scores
        Every model on the base design only (complete and paired: ready for
        :func:`bayescomp.rank`).
    results : list
        The posterior of each step (``None`` for a step whose fits failed).
    paired : list of DataFrame
        Per-split paired scores of each step (``dataset, split, champion, challenger``).
    candidates : DataFrame
        ``model, description, path, nested, mean`` of every loaded model.
    skipped : dict
        Model files that could not be loaded, with the reason.
    fits_performed, fits_loaded : int
        Fits computed by this call and fits read back from the store.
    """

    champion: str
    baseline: str
    metric: str
    rope: float
    gamma: float
    steps: pd.DataFrame
    recommendation: dict[str, Any]
    scores: Scores
    results: list[Any]
    paired: list[pd.DataFrame]
    candidates: pd.DataFrame
    skipped: dict[str, str]
    fits_performed: int
    fits_loaded: int
    fits_total: int
    settings: dict[str, Any]
    store: str | None = None
    base_scores: Scores | None = None
    _specs: dict[str, ModelSpec] = field(default_factory=dict, repr=False)
    _data: dict[str, tuple[Any, Any]] = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ output
    def summary(self) -> pd.DataFrame:
        """The steps table (a copy)."""
        return self.steps.copy()

    def to_dict(self, include_scores: bool = True) -> dict[str, Any]:
        """Machine-readable record: settings, steps, recommendation, paired scores."""
        steps = []
        for i, row in enumerate(self.steps.to_dict("records")):
            rec = {k: _json_value(v) for k, v in row.items()}
            if include_scores:
                rec["paired_scores"] = [{k: _json_value(v) for k, v in r.items()}
                                        for r in self.paired[i].to_dict("records")]
            steps.append(rec)
        return {
            "champion": self.champion, "baseline": self.baseline, "metric": self.metric,
            "rope": self.rope, "gamma": self.gamma,
            "recommendation": {k: _json_value(v) for k, v in self.recommendation.items()},
            "steps": steps,
            "timeline": self.timeline(),
            "candidates": [{k: _json_value(v) for k, v in r.items()}
                           for r in self.candidates.to_dict("records")],
            "skipped": self.skipped,
            "fits": {"performed": self.fits_performed, "loaded_from_store": self.fits_loaded,
                     "total": self.fits_total},
            "settings": {k: _json_value(v) for k, v in self.settings.items()},
            "store": self.store,
        }

    def timeline(self) -> list[dict[str, Any]]:
        """Who was champion when: ``[{"champion", "from_step", "to_step", "why"}]``."""
        out = [{"champion": self.baseline, "from_step": 0, "to_step": None,
                "why": "baseline (model in production)"}]
        for row in self.steps.to_dict("records"):
            if row["decision"] == "promote":
                out[-1]["to_step"] = int(row["step"])
                out.append({"champion": row["challenger"], "from_step": int(row["step"]),
                            "to_step": None, "why": row["reason"]})
        return out

    def __str__(self) -> str:
        lines = [f"champion/challenger selection on {self.metric} (ROPE ±{self.rope:g}, "
                 f"gamma {self.gamma:g})", ""]
        lines.append(format_steps(self.steps))
        lines += ["", "recommendation: " + self.recommendation["text"],
                  f"fits: {self.fits_total} needed, {self.fits_performed} computed now, "
                  f"{self.fits_loaded} read from the store"]
        if self.skipped:
            lines.append("skipped: " + "; ".join(f"{k}: {v}" for k, v in self.skipped.items()))
        return "\n".join(lines)

    # ------------------------------------------------------------------- plots
    def plot(self, ax: Any = None) -> Any:
        """Decision timeline: region probabilities and expected gain of every step.

        Returns the array of two Axes (probabilities, expected gain), or the
        single Axes given as ``ax`` (probabilities only).
        """
        from bayescomp.report.selection_plots import plot_selection

        return plot_selection(self, ax=ax)

    def plot_step(self, step: int, ax: Axes | None = None) -> Axes:
        """Posterior of one step (ROPE band, probabilities annotated)."""
        res = self._result(step)
        return res.plot(ax=ax)

    def plot_scores(self, step: int, ax: Axes | None = None) -> Axes:
        """Per-split paired scores of one step (challenger against champion)."""
        from bayescomp.report.selection_plots import plot_paired_scores

        self._result(step)
        row = self.steps.iloc[step - 1]
        return plot_paired_scores(self.paired[step - 1], row["champion"], row["challenger"],
                                  self.metric, self.rope, ax=ax)

    def _result(self, step: int) -> Any:
        if not 1 <= int(step) <= len(self.steps):
            raise ValueError(f"step must be between 1 and {len(self.steps)}, got {step}")
        res = self.results[int(step) - 1]
        if res is None:
            raise ValueError(f"step {step} has no posterior: {self.steps.iloc[step - 1]['reason']}")
        return res

    def report(self, directory: str | Path) -> Path:
        """Write ``report.html`` (self-contained), the PNGs and ``selection.json``.

        Returns the path of the HTML file.
        """
        from bayescomp.report.html import write_selection_report

        return write_selection_report(self, directory)

    # ------------------------------------------------------------- production
    def refit_champion(self, dataset: str | None = None) -> Any:
        """Fit the champion's *procedure* on all rows of the data (the production model).

        For a self-tuning champion (a search), the search itself is refitted
        on all the data, so its hyperparameters are chosen afresh by its inner
        cross-validation; the values chosen inside the outer folds are not used.

        Raises
        ------
        ValueError
            When the selection ran on precomputed scores (no estimator or data),
            or on several datasets without ``dataset=``.
        """
        from sklearn.base import clone

        if not self._specs or not self._data:
            raise ValueError("this selection ran on precomputed scores: there is no estimator or "
                             "data to refit; fit the champion yourself")
        if dataset is None:
            if len(self._data) > 1:
                raise ValueError(f"the selection covers datasets {list(self._data)}; pass "
                                 "dataset= to choose the data to refit on")
            dataset = next(iter(self._data))
        if dataset not in self._data:
            raise ValueError(f"unknown dataset {dataset!r}; the selection has {list(self._data)}")
        X, y = self._data[dataset]
        est = clone(self._specs[self.champion].estimator)
        return est.fit(X, y) if y is not None else est.fit(X)


def _json_value(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not np.isfinite(v):
        return None
    return v


def format_steps(steps: pd.DataFrame) -> str:
    """The steps table as aligned text for a terminal."""
    if steps.empty:
        return "(no challenger)"
    cols = ["step", "champion", "challenger", "p_better", "p_left", "p_rope", "p_right", "risk",
            "expected_gain", "decision", "fits"]
    f = steps[cols].copy()
    for c in ("p_better", "p_left", "p_rope", "p_right", "risk"):
        f[c] = f[c].map(lambda v: "—" if v != v else f"{v:.3f}")
    f["expected_gain"] = f["expected_gain"].map(lambda v: "—" if v != v else f"{v:+.4f}")
    text = f.to_string(index=False)
    reasons = [f"  step {int(r['step'])}: {r['reason']}" for r in steps.to_dict("records")]
    return text + "\n\nwhy:\n" + "\n".join(reasons)


# --------------------------------------------------------------------------- select
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


def _load_specs(models: Any, on_error: str) -> tuple[dict[str, ModelSpec], dict[str, str]]:
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
                warnings.warn(str(w.message), ModelFileWarning, stacklevel=3)
            else:  # pragma: no cover - pass other warnings through
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return specs, skipped
    return load_models(models, on_error=on_error), skipped


def select(
    models: Any = None,
    X: Any = None,
    y: Any = None,
    *,
    baseline: str,
    scoring: Any = None,
    rope: float,
    gamma: float = 0.95,
    metric: str | None = None,
    cv: Any = None,
    n_splits: int = 10,
    n_repeats: int = 10,
    random_state: int = 0,
    groups: Any = None,
    store: str | Path | None = None,
    order: str = "given",
    max_repeats: int = 0,
    n_jobs: int | None = None,
    progress: bool = True,
    on_error: str = "skip",
    scores: Scores | str | Path | None = None,
    dataset: str | None = None,
    higher_is_better: bool | None = None,
    method: str = "auto",
    compare_options: dict[str, Any] | None = None,
) -> Selection:
    """Champion/challenger selection: promote only what is better beyond the ROPE.

    Starting from ``baseline`` as champion, each challenger (in ``order``) is
    compared with the current champion on the same splits; it becomes champion
    when ``P(challenger - champion > rope) >= gamma`` (the rule of
    :func:`bayescomp.decide`).  Otherwise the champion stays (the step is
    *reject*, *equivalent* or *inconclusive*).

    Parameters
    ----------
    models : folder, list of model files, dict of estimators, or None
        Candidates, including the baseline.  A file that cannot be loaded is
        skipped with a warning (``on_error="skip"``) or fatal (``"raise"``).
        With ``scores=``: ``None`` (every model of the table) or a list of names.
    X, y : array-like, or X a dict ``{dataset: (X, y)}``
        The data the models are cross-validated on (not with ``scores=``).
    baseline : str
        The model in production: the first champion.
    scoring : str, list or dict
        scikit-learn scoring spec for the fits (every scorer is stored);
        with ``scores=`` it names the metric column.
    rope : float
        Half-width of the region of practical equivalence on the metric's scale.
    gamma : float, default 0.95
        Posterior probability needed to decide, in (0.5, 1).
    metric : str, optional
        Decision metric when ``scoring`` names several scorers.
    cv : splitter, int or index pairs, optional
        The design; default ``Repeated(Stratified)KFold(n_splits, n_repeats,
        random_state)``.  It is materialised once per dataset and shared by
        every model.
    store : path, optional
        SQLite file keeping every fit (:class:`~bayescomp.studies.store.ResultStore`);
        rerunning with the same store resumes without refitting, and a changed
        design, metric, data or model is refused.
    order : {"given", "name", "mean"}
        Challenger order: as given, by name, or by mean score (best first).
    max_repeats : int, default 0
        Sequential testing budget per step: while a step is inconclusive, add up
        to this many seeded repetitions of the design (one more pass of the
        splitter with ``n_repeats=1``) to both models and decide again.
    n_jobs : int, optional
        Parallel fits (joblib); results are written by this process as they arrive.
    progress : bool, default True
        One progress bar over all fits (only when stderr is a terminal).
    on_error : {"skip", "raise"}
        Broken model files and failing fits: skip the model (its step is
        ``error``), or stop.  A failing baseline always stops.
    scores : Scores or CSV path, optional
        Precomputed per-split scores: nothing is fitted.
    dataset : str, optional
        Name of the dataset (fitted mode), or the dataset of a multi-dataset
        ``scores`` table to decide on.
    higher_is_better : bool, optional
        Orientation of the metric (looked up when omitted).
    method : str, default "auto"
        Passed to :func:`bayescomp.compare` (which picks the posterior; several
        datasets go to the hierarchical model there).
    compare_options : dict, optional
        Further keyword arguments of :func:`bayescomp.compare` for the
        posterior across datasets (e.g. ``{"draws": 1000, "chains": 4}``); the
        sampler is seeded with ``random_state``.

    Returns
    -------
    Selection

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> models = {"nb": GaussianNB(),
    ...           "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))}
    >>> sel = select(models, X, y, baseline="nb", scoring="accuracy", rope=0.005,
    ...              n_splits=5, n_repeats=2, progress=False)
    >>> sel.champion, sel.steps["decision"].tolist(), sel.fits_total
    ('lr', ['promote'], 20)
    """
    from bayescomp.core.checks import check_gamma
    from bayescomp.core.orientation import higher_is_better as _direction

    gamma = check_gamma(gamma)
    if not np.isfinite(float(rope)) or float(rope) < 0:
        raise ValueError(f"rope must be a finite half-width >= 0 on the metric's scale, got {rope}")
    rope = float(rope)
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    if int(max_repeats) < 0:
        raise ValueError(f"max_repeats must be >= 0, got {max_repeats}")
    max_repeats = int(max_repeats)
    settings = dict(baseline=baseline, rope=rope, gamma=gamma, order=order,
                    max_repeats=max_repeats, method=method, random_state=random_state)
    options = {"random_state": random_state, **(compare_options or {})}

    if scores is not None:
        if X is not None or y is not None:
            raise ValueError("pass either the data (X, y) or scores=, not both")
        if store is not None:
            raise ValueError("store= keeps fits; with precomputed scores nothing is fitted — "
                             "drop store=")
        if max_repeats:
            raise ValueError("max_repeats adds repetitions by fitting; it cannot be used with "
                             "precomputed scores")
        return _select_on_scores(models, scores, baseline=baseline, scoring=scoring,
                                 metric=metric, rope=rope, gamma=gamma, order=order,
                                 dataset=dataset, higher_is_better=higher_is_better,
                                 method=method, settings=settings, options=options)

    from sklearn.utils import indexable

    from bayescomp.scores.crossval import resolve_scorers
    from bayescomp.splits.design import materialise_splits
    from bayescomp.studies.store import ResultStore

    if models is None:
        raise ValueError("pass the candidate models (a folder, model files or a dict)")
    if scoring is None:
        raise ValueError("pass scoring= (e.g. 'roc_auc'): the metric the decision is made on")
    specs, skipped = _load_specs(models, on_error)
    if baseline not in specs:
        why = f" ({skipped[baseline]})" if baseline in skipped else ""
        raise ValueError(f"the baseline {baseline!r} is not among the loaded models "
                         f"{list(specs)}{why}")
    if len(specs) < 2:
        raise ValueError(f"only the baseline {baseline!r} was loaded; there is no challenger")
    scorers = {m: resolve_scorers(scoring, s.estimator) for m, s in specs.items()}
    names = list(next(iter(scorers.values())))
    if metric is None:
        if len(names) > 1:
            raise ValueError(f"scoring has several scorers {names}; choose the decision metric "
                             "with metric=")
        metric = names[0]
    if metric not in names:
        raise ValueError(f"metric {metric!r} is not among the scorers {names}")
    hib = _direction(metric) if higher_is_better is None else bool(higher_is_better)
    for m, s in specs.items():
        _check_inner_cv(m, s.estimator)

    raw = _datasets_from(X, y, groups, dataset)
    datasets: dict[str, _Dataset] = {}
    for name, (Xd, yd, gd) in raw.items():
        Xd, yd, gd = indexable(Xd, yd, gd)
        cv_d = cv if cv is not None else default_cv(yd, n_splits=n_splits, n_repeats=n_repeats,
                                                    random_state=random_state)
        design = materialise_splits(cv_d, Xd, yd, gd)
        seed = getattr(cv_d, "random_state", None)
        seed = int(seed) if isinstance(seed, int | np.integer) else None
        ds = _Dataset(name, Xd, yd, gd, cv_d, design, seed, _data_hash(Xd, yd))
        ds.add(design, 0, seed, 0)
        datasets[name] = ds
    settings.update(cv={n: _cv_text(d.cv) for n, d in datasets.items()}, metric=metric,
                    scoring=names)

    st = ResultStore(store) if store is not None else None
    progress_bar = _Progress(progress)
    try:
        run_id = None
        if st is not None:
            for ds in datasets.values():
                st.check_design(ds.name, fingerprint=ds.design.fingerprint(),
                                data_hash=ds.data_hash, n_samples=ds.design.n_samples,
                                n_splits=len(ds.design), metric=metric, scoring=names,
                                cv=_cv_text(ds.cv), seed=ds.seed, splits=ds.splits)
            for m, s in specs.items():
                text, digest = estimator_params(s.estimator)
                st.check_model(m, params_hash=digest, params=text, description=s.description,
                               path=s.path, nested=is_self_tuning(s.estimator))
            run_id = st.start_run({**settings, "models": list(specs)})
        runner = _Runner(specs, datasets, scorers, st, run_id, n_jobs, progress_bar, on_error)
        # every model on the base design, in one parallel stream: k + 1 cross-validations
        runner.ensure(runner.keys(list(specs), [0]))
        base_errors = runner.errors(baseline, runner.keys([baseline], [0]))
        if base_errors:
            raise FitError(f"the baseline {baseline!r} failed to fit: {base_errors[0]}")
        challengers = [m for m in specs if m != baseline]
        means = _mean_scores(runner, list(specs), metric)
        challengers = _order(challengers, order, means, hib)
        sel = _walk(runner, baseline, challengers, metric=metric, rope=rope, gamma=gamma,
                    max_repeats=max_repeats, hib=hib, method=method, options=options)
        steps, results, paired, champion, final_scores = sel
        cand = _candidates_frame(specs, means, skipped)
        recommendation = _recommend(final_scores, baseline, champion, metric, rope, gamma, hib,
                                    method, steps, options)
        selection = Selection(
            champion=champion, baseline=baseline, metric=metric, rope=rope, gamma=gamma,
            steps=steps, recommendation=recommendation,
            scores=runner.scores(list(specs), sorted({b for d in datasets.values()
                                                       for b in d.blocks}), complete=False),
            results=results, paired=paired, candidates=cand, skipped=skipped,
            fits_performed=runner.fits_performed, fits_loaded=runner.fits_loaded,
            fits_total=len(runner.cache), settings=settings,
            store=str(st.path) if st is not None else None, base_scores=final_scores,
            _specs=specs,
            _data={n: (d.X, d.y) for n, d in datasets.items()},
        )
        if st is not None:
            st.finish_run(run_id, champion, steps)
        return selection
    finally:
        progress_bar.close()
        if st is not None:
            st.close()


def _mean_scores(runner: _Runner, models: list[str], metric: str) -> dict[str, float]:
    f = runner.scores(models, [0]).to_frame()
    return {m: float(f.loc[f["model"] == m, metric].mean()) for m in models}  # NaN-skipping


def _order(challengers: list[str], order: str, means: Mapping[str, float], hib: bool
           ) -> list[str]:
    if order == "name":
        return sorted(challengers)
    if order == "mean":  # best first; ties keep the given order
        sign = -1.0 if hib else 1.0
        return sorted(challengers, key=lambda m: sign * means.get(m, np.nan)
                      if np.isfinite(means.get(m, np.nan)) else np.inf)
    return list(challengers)


def _step_row(step: int, champion: str, challenger: str, res: Any, d: Any, fits: int,
              n_splits: int, extra: int, reason: str) -> dict[str, Any]:
    p_better = getattr(res, "p_better", None) if res is not None else None
    nan = float("nan")
    return {
        "step": step, "champion": champion, "challenger": challenger,
        "p_better": float(p_better) if p_better is not None else (1 - d.risk if d else nan),
        "p_left": d.p_left if d else nan, "p_rope": d.p_rope if d else nan,
        "p_right": d.p_right if d else nan, "risk": d.risk if d else nan,
        "expected_gain": d.expected_gain if d else nan,
        "decision": d.outcome if d else "error", "reason": reason, "fits": fits,
        "n_splits": n_splits, "extra_repeats": extra,
    }


def _decide(scores: Scores, champion: str, challenger: str, *, metric: str, rope: float,
            gamma: float, hib: bool, method: str, dataset: str | None = None,
            options: dict[str, Any] | None = None) -> tuple[Any, Any]:
    from bayescomp.posterior.compare import compare

    kwargs: dict[str, Any] = dict(metric=metric, rope=rope, higher_is_better=hib)
    kwargs.update(options or {})
    if method != "auto":
        kwargs["method"] = method
    if dataset is not None:
        kwargs["dataset"] = dataset
    res = compare(scores, champion, challenger, **kwargs)
    return res, res.decision(gamma)


def _walk(runner: _Runner, baseline: str, challengers: list[str], *, metric: str, rope: float,
          gamma: float, max_repeats: int, hib: bool, method: str,
          options: dict[str, Any] | None = None) -> tuple:
    import pandas as pd

    champion = baseline
    rows, results, paired = [], [], []
    attributed = set(runner.keys([baseline], [0]))
    for step, challenger in enumerate(challengers, start=1):
        keys = runner.keys([challenger], [0])
        errs = runner.errors(challenger, keys)
        if errs:
            new = set(keys) - attributed
            attributed |= new
            rows.append(_step_row(step, champion, challenger, None, None, len(new), 0, 0,
                                  f"{challenger} was not compared: its fit failed on "
                                  f"{len(errs)} split(s) ({errs[0]})"))
            results.append(None)
            paired.append(pd.DataFrame(columns=["dataset", "split", "champion", "challenger"]))
            continue
        extra = 0
        res = d = None
        while True:
            blocks = list(range(extra + 1))
            use = runner.keys([champion, challenger], blocks)
            runner.ensure(use)
            errs = runner.errors(challenger, use) + runner.errors(champion, use)
            if errs:  # a failure on an extra repetition: decide on what was there before
                extra = max(extra - 1, 0)
                blocks = list(range(extra + 1))
                use = runner.keys([champion, challenger], blocks)
                res = d = None
                break
            sc = runner.scores([champion, challenger], blocks)
            res, d = _decide(sc, champion, challenger, metric=metric, rope=rope, gamma=gamma,
                             hib=hib, method=method, options=options)
            if d.outcome != "inconclusive" or extra >= max_repeats:
                break
            extra += 1
            runner.add_block(extra)
        if res is None:  # decided on the blocks before a failed extra repetition
            sc = runner.scores([champion, challenger], blocks)
            res, d = _decide(sc, champion, challenger, metric=metric, rope=rope, gamma=gamma,
                             hib=hib, method=method, options=options)
        new = set(use) - attributed
        attributed |= new
        n_splits = sum(len(ds.blocks[b]) for ds in runner.datasets.values() for b in blocks)
        reason = d.reason
        if max_repeats:
            if extra:
                reason += (f" — after {extra} extra repetition(s) of the design "
                           f"({n_splits} paired splits)")
            else:
                reason += " — decided on the base design, no extra repetition needed"
            if d.outcome == "inconclusive" and extra >= max_repeats:
                reason += f"; the budget of {max_repeats} extra repetition(s) is spent"
        rows.append(_step_row(step, champion, challenger, res, d, len(new), n_splits, extra,
                              reason))
        results.append(res)
        pf = sc.paired(champion, challenger, metric)
        paired.append(pf.rename(columns={"baseline": "champion", "candidate": "challenger"})
                      [["dataset", "split", "champion", "challenger"]])
        if d.outcome == "promote":
            champion = challenger
    steps = pd.DataFrame(rows, columns=STEP_COLUMNS)
    return steps, results, paired, champion, runner.scores(list(runner.specs), [0])


def _candidates_frame(specs: Mapping[str, ModelSpec], means: Mapping[str, float],
                      skipped: Mapping[str, str]) -> pd.DataFrame:
    import pandas as pd

    rows = [{"model": m, "description": s.description, "path": s.path,
             "nested": is_self_tuning(s.estimator) if s.estimator is not None else False,
             "mean": means.get(m, float("nan")), "status": "loaded"}
            for m, s in specs.items()]
    rows += [{"model": m, "description": "", "path": None, "nested": False,
              "mean": float("nan"), "status": f"skipped: {why}"} for m, why in skipped.items()]
    return pd.DataFrame(rows)


def _recommend(scores: Scores, baseline: str, champion: str, metric: str, rope: float,
               gamma: float, hib: bool, method: str, steps: pd.DataFrame,
               options: dict[str, Any] | None = None) -> dict[str, Any]:
    if champion == baseline:
        open_ = steps[(steps["decision"] == "inconclusive") & (steps["expected_gain"] > 0)]
        text = (f"keep {baseline}: no challenger was better beyond the ROPE (±{rope:g}) with "
                f"probability ≥ {gamma:g}")
        if not open_.empty:
            r = open_.sort_values("expected_gain").iloc[-1]
            text += (f". Closest: {r['challenger']} (inconclusive, expected gain "
                     f"{r['expected_gain']:+.4g}, risk P(worse) = {r['risk']:.3f})")
        return {"action": "keep", "champion": baseline, "baseline": baseline, "text": text,
                "p_better": None, "p_left": None, "p_rope": None, "p_right": None,
                "risk": None, "expected_gain": None}
    res, d = _decide(scores, baseline, champion, metric=metric, rope=rope, gamma=gamma, hib=hib,
                     method=method, options=options)
    p_better = float(getattr(res, "p_better", 1 - d.risk))
    text = (f"promote {champion} to replace {baseline}: against {baseline} on the base design "
            f"P(better) = {p_better:.3f}, P(better beyond ±{rope:g}) = {d.p_right:.3f}, "
            f"expected gain {d.expected_gain:+.4g} {metric}, risk P(worse) = {d.risk:.3f}")
    return {"action": "promote", "champion": champion, "baseline": baseline, "text": text,
            "p_better": p_better, "p_left": d.p_left, "p_rope": d.p_rope, "p_right": d.p_right,
            "risk": d.risk, "expected_gain": d.expected_gain, "direct_decision": d.outcome}


def _select_on_scores(models: Any, scores: Any, *, baseline: str, scoring: Any,
                      metric: str | None, rope: float, gamma: float, order: str,
                      dataset: str | None, higher_is_better: bool | None, method: str,
                      settings: dict[str, Any], options: dict[str, Any] | None = None
                      ) -> Selection:
    import pandas as pd

    from bayescomp.core.orientation import higher_is_better as _direction
    from bayescomp.scores.table import Scores

    if isinstance(scores, str | Path):
        scores = Scores.read_csv(scores)
    if not isinstance(scores, Scores):
        raise ValueError(f"scores must be a bayescomp.Scores or a CSV path, got "
                         f"{type(scores).__name__}")
    if metric is None and isinstance(scoring, str):
        metric = scoring
    metric = scores._check_metric(metric)
    hib = _direction(metric) if higher_is_better is None else bool(higher_is_better)
    if models is None:
        names = scores.models
    elif isinstance(models, Mapping) or (isinstance(models, Iterable)
                                         and not isinstance(models, str | Path)):
        names = [str(m) for m in models]
    else:
        raise ValueError("with scores=, models must be None (every model of the table) or a list "
                         "of model names")
    for m in names:
        scores._check_model(m)
    if baseline not in names:
        raise ValueError(f"the baseline {baseline!r} is not among the models {names}")
    if dataset is not None:
        scores = scores.select(datasets=[dataset])
    scores = scores.select(models=names)
    f = scores.to_frame()
    means = {m: float(f.loc[f["model"] == m, metric].mean()) for m in names}
    challengers = _order([m for m in names if m != baseline], order, means, hib)
    champion = baseline
    rows, results, paired = [], [], []
    for step, challenger in enumerate(challengers, start=1):
        res, d = _decide(scores, champion, challenger, metric=metric, rope=rope, gamma=gamma,
                         hib=hib, method=method, options=options)
        pf = scores.paired(champion, challenger, metric)
        rows.append(_step_row(step, champion, challenger, res, d, 0, len(pf), 0, d.reason))
        results.append(res)
        paired.append(pf.rename(columns={"baseline": "champion", "candidate": "challenger"})
                      [["dataset", "split", "champion", "challenger"]])
        if d.outcome == "promote":
            champion = challenger
    steps = pd.DataFrame(rows, columns=STEP_COLUMNS)
    recommendation = _recommend(scores, baseline, champion, metric, rope, gamma, hib, method,
                                steps, options)
    cand = pd.DataFrame({"model": names, "description": "", "path": None, "nested": False,
                         "mean": [means[m] for m in names], "status": "precomputed"})
    settings.update(metric=metric, scoring=[metric], cv="precomputed scores")
    return Selection(champion=champion, baseline=baseline, metric=metric, rope=rope, gamma=gamma,
                     steps=steps, recommendation=recommendation, scores=scores, results=results,
                     paired=paired, candidates=cand, skipped={}, fits_performed=0, fits_loaded=0,
                     fits_total=0, settings=settings, base_scores=scores)
