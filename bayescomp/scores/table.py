"""``Scores``: the tidy per-split table every comparison starts from.

One row per (dataset, model, split) with the split sizes (so the correlation
between folds is known) and one column per metric.  Scores from any source —
:func:`bayescomp.cross_validate_paired`, another tool, a paper's table — are
loaded with :meth:`Scores.from_frame` or :meth:`Scores.read_csv`.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bayescomp.core.checks import check_fraction
from bayescomp.core.orientation import canonical_metric, check_metric_range, resolve_direction
from bayescomp.scores.cells import (
    check_filled,
    check_numeric_cells,
    check_row_counts,
    check_unique_keys,
    paired_rows,
    warn_row_order,
)
from bayescomp.scores.csvio import read_frame, unique_columns, write_frame
from bayescomp.scores.importers import (
    DEFAULT_DATASET,
    cross_validate_parts,
    openml_parts,
    wide_parts,
)
from bayescomp.scores.per_row import checked_rows, rows_path
from bayescomp.scores.slices import checked_slices
from bayescomp.splits.design import rho_from_sizes

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.splits.design import SplitDesign

KEY = ("dataset", "model", "split")
SIZES = ("n_train", "n_test")
#: columns that are bookkeeping, never metrics (block: extra repetition, error: failed fit)
META = frozenset(
    {
        *KEY,
        *SIZES,
        "repeat",
        "fold",
        "fit_time",
        "score_time",
        "seed",
        "time_ordered",
        "block",
        "error",
        "slice",
    }
)


class Scores:
    """Tidy per-split scores of one or several models on one or several datasets.

    Build it with :meth:`from_frame`, :meth:`read_csv` or
    :func:`bayescomp.cross_validate_paired`; the constructor takes an already
    tidy frame and validates it.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model": ["a"] * 3 + ["b"] * 3, "split": [0, 1, 2] * 2,
    ...                    "accuracy": [.80, .82, .81, .84, .85, .83]})
    >>> s = Scores.from_frame(df, test_fraction=0.1)
    >>> s.models, s.metrics, s.rho()
    (['a', 'b'], ['accuracy'], 0.1)
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        *,
        metrics: list[str] | None = None,
        design: SplitDesign | None = None,
        check_ranges: bool = True,
        slice_col: str = "slice",
    ):
        missing = [c for c in (*KEY, *SIZES) if c not in frame.columns]
        if missing:
            raise ValueError(
                f"a scores table needs columns {list(KEY + SIZES)}; missing {missing}. Use "
                "Scores.from_frame, which fills defaults and accepts test_fraction="
            )
        frame, slice_rows = frame.copy(), None
        if slice_col in frame.columns:  # a row with a slice scores that slice's test rows
            part = frame[slice_col].notna() & (frame[slice_col].astype(str) != "")
            slice_rows = frame[part] if part.any() else None
            frame = frame[~part].drop(columns=slice_col)
        codes = [check_filled(frame, col) for col in ("dataset", "model", "split")]
        for col in ("dataset", "model"):
            if not pd.api.types.is_string_dtype(frame[col]):
                frame[col] = frame[col].astype(str)
        if metrics is None:
            for c in frame.columns:
                if c not in META and not pd.api.types.is_numeric_dtype(frame[c]):
                    check_numeric_cells(frame, c, required=False)
            metrics = [
                c
                for c in frame.columns
                if c not in META and pd.api.types.is_numeric_dtype(frame[c])
            ]
        else:
            metrics = [str(m) for m in metrics]
            absent = [m for m in metrics if m not in frame.columns]
            if absent:
                raise ValueError(
                    f"metric column(s) {absent} not in the table; columns are {list(frame.columns)}"
                )
        for m in metrics:
            frame[m] = check_numeric_cells(frame, m, required=True)
            if check_ranges:  # off only for an explicit numeric error_score sentinel
                check_metric_range(frame[m].to_numpy(dtype=float), m, where=" (a column)")
        if not metrics:
            raise ValueError(
                "the scores table has no numeric metric column (besides dataset, model, split, "
                "n_train, n_test, repeat, fold and timings)"
            )
        for col in SIZES:
            frame[col] = check_row_counts(frame, col)
        # one integer key per (dataset, model, split) from the codes computed above
        key = codes[0].astype(np.int64)
        for c in codes[1:]:
            key = key * (int(c.max()) + 1 if c.size else 1) + c
        dup = pd.Series(pd.Index(key).duplicated(keep=False), index=frame.index)
        if dup.any():
            rows = frame.loc[dup, list(KEY)].drop_duplicates().head(3).to_dict("records")
            raise ValueError(
                f"{int(dup.sum())} rows repeat a (dataset, model, split) key, e.g. {rows}; each "
                "model has one row per split of each dataset"
            )
        self._frame = frame.reset_index(drop=True)
        self._metrics = metrics
        self.slice_col = slice_col
        self.slice_scores = (
            None if slice_rows is None else checked_slices(slice_rows, slice_col, metrics)
        )
        self.design = design
        #: every test row's score in every split (``dataset, model, split, row`` and a column
        #: per metric that has one), kept by :func:`bayescomp.cross_validate_paired`
        self.per_row: pd.DataFrame | None = None
        self.fits_retried = 0  # fits sent again after a lost worker (cross_validate_paired)
        self.attrs: dict[str, Any] = {}  # provenance, e.g. fits_performed/fits_loaded

    # ------------------------------------------------------------ construction
    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        *,
        metrics: list[str] | None = None,
        dataset: str | None = None,
        test_fraction: float | None = None,
        model_col: str = "model",
        split_col: str = "split",
        dataset_col: str = "dataset",
        slice_col: str = "slice",
    ) -> Scores:
        """Load scores from any tidy or long frame.

        Accepted shapes:

        * tidy: one row per (dataset, model, split) and one column per metric;
        * long: columns ``metric`` and ``value`` (or ``score``), pivoted to tidy.

        Missing columns are filled where that is unambiguous: ``dataset``
        (one dataset, named ``dataset``), ``split`` (row order within each model
        and dataset).  Split sizes come from ``n_train``/``n_test`` columns or
        from ``test_fraction`` (e.g. 0.1 for 10-fold CV), which is stored as the
        smallest integer ratio.

        A row with a value in ``slice_col`` scores that slice's test rows of its split (the
        slice guardrail on cross-validation, ``docs/slices.md``); the rows without one score
        the whole split.
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(
                f"Scores.from_frame needs a pandas DataFrame (one row per model and "
                f"split); got {type(df).__name__} — use Scores.read_csv for a file"
            )
        if df.empty:
            raise ValueError("the score table is empty: it needs one row per model and split")
        for given, default in (
            (model_col, "model"),
            (split_col, "split"),
            (dataset_col, "dataset"),
        ):
            if given != default and given not in df.columns:
                raise ValueError(
                    f"column {given!r} (passed for the {default} column) is not in "
                    f"the table; columns are {list(df.columns)[:20]}"
                )
        df = pd.DataFrame(df).rename(
            columns={model_col: "model", split_col: "split", dataset_col: "dataset"}
        )
        unique_columns(df.columns, "the scores table")
        if "model" not in df.columns:
            raise ValueError(
                f"the table needs a model column ({model_col!r}); columns are {list(df.columns)}"
            )
        if "dataset" not in df.columns:
            df.insert(0, "dataset", dataset or DEFAULT_DATASET)
        elif dataset is not None:
            known = list(dict.fromkeys(df["dataset"].astype(str)))
            if str(dataset) not in known:
                raise ValueError(f"unknown dataset {dataset!r}; the table has {known[:10]}")
            df = df[df["dataset"].astype(str) == str(dataset)]
        value_col = next((c for c in ("value", "score") if c in df.columns), None)
        if "metric" in df.columns and value_col is not None:
            if "split" not in df.columns:
                raise ValueError(
                    "a long table (metric and value columns) needs a 'split' column naming the "
                    "split of every score; without it the scores cannot be paired across models"
                )
            index = [c for c in df.columns if c not in ("metric", value_col)]
            check_unique_keys(
                df, [c for c in ("dataset", "model", "split", "metric") if c in df.columns]
            )
            df = df.pivot_table(
                index=index, columns="metric", values=value_col, aggfunc="first", dropna=False
            ).reset_index()
            df.columns.name = None
        if "split" not in df.columns:
            warn_row_order(df)
            df["split"] = df.groupby(["dataset", "model"], sort=False).cumcount()
        if test_fraction is not None:
            tf = check_fraction(test_fraction, "test_fraction")
            frac = Fraction(tf).limit_denominator(10_000)
            df["n_test"] = frac.numerator
            df["n_train"] = frac.denominator - frac.numerator
        elif not set(SIZES) <= set(df.columns):
            raise ValueError(
                "the table has no n_train/n_test columns, so the correlation between splits is "
                "unknown; add them, or pass test_fraction= (n_test / (n_train + n_test), e.g. 0.1 "
                "for 10-fold cross-validation)"
            )
        return cls(df, metrics=metrics, slice_col=slice_col)

    @classmethod
    def from_cross_validate(cls, results_by_model: Any, **kwargs: Any) -> Scores:
        """From scikit-learn ``cross_validate`` outputs, one per model (see
        :func:`bayescomp.scores.importers.cross_validate_parts`)."""
        return cls(**cross_validate_parts(results_by_model, **kwargs))

    @classmethod
    def from_wide(cls, frame: pd.DataFrame, **kwargs: Any) -> Scores:
        """From one column per model (see :func:`bayescomp.scores.importers.wide_parts`)."""
        return cls(**wide_parts(frame, **kwargs))

    @classmethod
    def from_openml(cls, evaluations: pd.DataFrame, **kwargs: Any) -> Scores:
        """From OpenML per-fold evaluations (see :func:`bayescomp.scores.importers.openml_parts`)."""
        return cls(**openml_parts(evaluations, **kwargs))

    @classmethod
    def read_csv(cls, path: str | Path, **kwargs: Any) -> Scores:
        """Read a CSV written by :meth:`to_csv` or by any tool (see :meth:`from_frame`)."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no scores file at {path}")
        frame_kw = {
            k: kwargs.pop(k)
            for k in list(kwargs)
            if k in ("metrics", "dataset", "test_fraction", "slice_col")
            or k in ("model_col", "split_col", "dataset_col")
        }
        # names stay text: "01" is not 1, and a model named "NA" is not a missing value
        names = [frame_kw.get(f"{k}_col", k) for k in ("model", "dataset", "slice")]
        kwargs.setdefault("dtype", dict.fromkeys(names, str))
        if "na_values" not in kwargs and "keep_default_na" not in kwargs:
            kwargs.update(keep_default_na=False, na_values=[""])
        out = cls.from_frame(read_frame(path, **kwargs), **frame_kw)
        if rows_path(path).is_file():  # the per-row scores to_csv wrote beside it
            read = read_frame(rows_path(path), dtype={"dataset": str, "model": str})
            out.per_row = checked_rows(read, out.to_frame())
        return out

    def to_csv(self, path: str | Path, **kwargs: Any) -> None:
        """Write the tidy table exactly (an interchange file: every tool reads the same
        names); :meth:`read_csv` reads it back unchanged, with its per-row scores, written
        beside it (``scores.rows.csv`` for ``scores.csv``).  The spreadsheet-facing exports
        of the report and of ``--out`` are the ones that neutralise formula-like text."""
        frame = pd.concat([self._frame, self.slice_scores])  # the whole splits, then slices
        write_frame(frame, path, spreadsheet=False, index=False, **kwargs)
        if self.per_row is not None:
            write_frame(self.per_row, rows_path(path), spreadsheet=False, index=False)

    @classmethod
    def concat(cls, items: list[Scores]) -> Scores:
        """Stack several tables (e.g. one per dataset) into one."""
        if not items:
            raise ValueError("nothing to concatenate")
        metrics = list(dict.fromkeys(m for s in items for m in s.metrics))
        return cls(pd.concat([s.to_frame() for s in items], ignore_index=True), metrics=metrics)

    # -------------------------------------------------------------- accessors
    def to_frame(self) -> pd.DataFrame:
        """A copy of the tidy table."""
        return self._frame.copy()

    @property
    def models(self) -> list[str]:
        return list(self._names("model"))

    @property
    def datasets(self) -> list[str]:
        return list(self._names("dataset"))

    def _names(self, column: str) -> tuple[str, ...]:
        """Distinct names of ``column`` in order of appearance, computed once (vectorised:
        iterating a million-row text column element by element took seconds)."""
        cache = self.__dict__.setdefault("_name_cache", {})
        if column not in cache:
            cache[column] = tuple(str(v) for v in pd.unique(self._frame[column]))
        return cache[column]

    @property
    def metrics(self) -> list[str]:
        return list(self._metrics)

    def __len__(self) -> int:
        return len(self._frame)

    def _repr_html_(self) -> str:
        """Rich display in Jupyter: the size of the table and each model's mean score."""
        from bayescomp.report.notebook import scores_html

        return scores_html(self)

    def __repr__(self) -> str:
        return (
            f"Scores({len(self.datasets)} dataset(s), {len(self.models)} model(s) "
            f"{self.models[:6]}, metrics {self.metrics}, {len(self._frame)} rows)"
        )

    def _check_metric(self, metric: str | None) -> str:
        if metric is None:
            if len(self._metrics) == 1:
                return self._metrics[0]
            raise ValueError(
                f"the table has several metrics {self._metrics}; choose one with metric="
            )
        if metric not in self._metrics:
            alias = canonical_metric(metric)  # e.g. "auc" for a table's "roc_auc" column
            if alias in self._metrics:
                return alias
            raise ValueError(f"unknown metric {metric!r}; the table has {self._metrics}")
        return metric

    def _check_model(self, model: str) -> None:
        if model not in self._names("model"):
            raise ValueError(f"unknown model {model!r}; the table has {self.models}")

    def _check_dataset(self, dataset: str | None) -> list[str]:
        if dataset is None:
            return self.datasets
        if str(dataset) not in self._names("dataset"):
            raise ValueError(f"unknown dataset {dataset!r}; the table has {self.datasets}")
        return [str(dataset)]

    def rho(self, dataset: str | None = None, model: str | None = None) -> float | pd.Series:
        """Test fraction of the design: mean of ``n_test / (n_train + n_test)``.

        One float for one dataset (or when ``dataset`` is given), else a Series
        indexed by dataset.
        """
        f = self._frame
        if model is not None:
            self._check_model(model)
            f = f[f["model"] == model]
        datasets = self._check_dataset(dataset)
        f = f[f["dataset"].isin(datasets)]
        r = pd.Series(
            {
                ds: rho_from_sizes(g["n_train"], g["n_test"])
                for ds, g in f.groupby("dataset", sort=False)
            },
            name="rho",
        )
        if len(datasets) == 1:
            return float(r.iloc[0])
        return r

    def mean(self, metric: str | None = None) -> pd.DataFrame:
        """Mean score per dataset (rows) and model (columns)."""
        metric = self._check_metric(metric)
        return self._frame.pivot_table(
            index="dataset", columns="model", values=metric, aggfunc="mean", sort=False
        )

    def subset(
        self, *, models: list[str] | None = None, datasets: list[str] | None = None
    ) -> Scores:
        """A sub-table with only the given models and/or datasets."""
        for m in models or ():
            self._check_model(m)
        for d in datasets or ():
            self._check_dataset(d)
        keep = self._frame["model"].isin(self.models if models is None else models)
        keep &= self._frame["dataset"].isin([str(d) for d in datasets or self.datasets])
        return self.rows(keep.to_numpy())

    def rows(self, keep: Any) -> Scores:
        """The rows ``keep`` (a boolean mask) of this checked table, nothing checked again."""
        out = Scores.__new__(Scores)  # its names found afresh (_names)
        out._frame, out._metrics = self._frame[keep].reset_index(drop=True), self._metrics
        out.design, out.fits_retried, out.attrs = None, 0, {}
        out.slice_col, out.slice_scores = self.slice_col, self.slice_scores
        if self.slice_scores is not None:  # the slice rows of the models and datasets kept
            f = self.slice_scores
            out.slice_scores = f[f["model"].isin(out.models) & f["dataset"].isin(out.datasets)]
        out.per_row = self.per_row
        if self.per_row is not None:  # the per-row scores of the models and datasets kept
            f = self.per_row
            out.per_row = f[f["model"].isin(out.models) & f["dataset"].isin(out.datasets)]
        return out

    def paired(
        self, baseline: str, candidate: str, metric: str | None = None, dataset: str | None = None
    ) -> pd.DataFrame:
        """Align two models split by split, checking that they really are paired.

        Returns a frame with columns ``dataset, split, baseline, candidate,
        n_train, n_test``, one row per common split; ``attrs`` holds
        ``baseline_name``, ``candidate_name``, ``metric`` and ``rho``, the test
        fraction of these splits (mean ``n_test / (n_train + n_test)``: the ``rho``
        of the correlated t-test, pooled over datasets when there are several).

        Raises
        ------
        ValueError
            When a split is present for one model and not the other, when the
            split sizes differ between the models, or when a score is NaN/inf.
        """
        metric = self._check_metric(metric)
        self._check_model(baseline)
        self._check_model(candidate)
        if baseline == candidate:
            raise ValueError(f"baseline and candidate are the same model {baseline!r}")
        datasets = self._check_dataset(dataset)
        f = self._frame
        if len(datasets) < len(self.datasets):
            f = f[f["dataset"].isin(datasets)]
        out = []
        for ds in datasets:
            where = f" on dataset {ds!r}" if len(self.datasets) > 1 else ""
            fd = f if len(datasets) == 1 else f[f["dataset"] == ds]
            out.append(paired_rows(fd, ds, baseline, candidate, metric, where))
        result = pd.concat(out, ignore_index=True)
        result.attrs.update(
            baseline_name=baseline,
            candidate_name=candidate,
            metric=metric,
            rho=rho_from_sizes(result["n_train"], result["n_test"]),
        )
        return result

    def plot(
        self,
        baseline: str,
        candidate: str,
        metric: str | None = None,
        dataset: str | None = None,
        ax: Any = None,
        higher_is_better: bool | None = None,
    ) -> Any:
        """Paired per-split scores of two models (one line per split); returns the Axes.

        Splits are coloured by which model was better there; the orientation of the
        metric comes from the registry unless ``higher_is_better`` says it.
        """
        from bayescomp.report.plots import plot_paired_lines

        metric = self._check_metric(metric)
        hib = resolve_direction(metric, higher_is_better)
        return plot_paired_lines(
            self.paired(baseline, candidate, metric, dataset),
            ax=ax,
            metric=metric,
            higher_is_better=hib,
        )
