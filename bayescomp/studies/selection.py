"""The result of :func:`bayescomp.select`: champion, steps, cost, and how to show them.

:class:`Selection` holds everything a selection decided and why; it writes itself as
JSON (:meth:`Selection.to_dict`) and text, and its plot/report methods draw through
:mod:`bayescomp.report` (imported when called).  :func:`format_steps` is the steps
table as aligned text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescomp.core.checks import check_no_level
from bayescomp.core.jsonable import json_digest, jsonable
from bayescomp.core.margins import Absolute
from bayescomp.core.text import terminal_literal

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from bayescomp.core.margins import Margin
    from bayescomp.posterior.request import Request
    from bayescomp.scores.model_files import ModelSpec
    from bayescomp.scores.table import Scores


@dataclass(frozen=True)
class SelectionSetup:
    """What one selection was asked, checked at its door: the comparison request, the
    baseline, the challengers' ``order``, the repetitions it may add, the rule that walks
    them, and the design it ran on (``cv``, fingerprints, scorers: JSON-ready).

    :meth:`identity` names the selection in the store and in MLflow (a rerun of the same
    selection on the same models finds its runs again); ``data`` is what the command line
    read, shown in the report but no part of the identity.
    """

    request: Request
    baseline: str
    order: str
    max_repeats: int
    rule: str
    design: Mapping[str, Any]
    data: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The setup as one flat record (the selection's ``settings``)."""
        out = {k: getattr(self, k) for k in ("baseline", "order", "max_repeats", "rule")}
        out |= {
            k: getattr(self.request, k)
            for k in ("gamma", "method", "random_state", "metric", "variance")
        }
        out |= {"rope": self.request.margin, **self.design}
        if self.request.guardrails:
            out["guardrails"] = {m: half_width for m, half_width, _ in self.request.guardrails}
        return out if self.data is None else {**out, "data": dict(self.data)}

    def identity(self, models: Mapping[str, str]) -> str:
        """A digest of the setup (``data`` aside) and every model's parameter hash.

        Examples
        --------
        >>> from bayescomp.posterior.request import check_request
        >>> def setup(rope):
        ...     request = check_request(metric="accuracy", rope=rope)
        ...     return SelectionSetup(request, "lr", "given", 0, "family", {})
        >>> a = setup(0.01).identity({"lr": "ab12"})
        >>> a == setup(0.01).identity({"lr": "ab12"}), len(a)
        (True, 64)
        >>> a == setup(0.02).identity({"lr": "ab12"})
        False
        """
        settings = {k: v for k, v in self.to_dict().items() if k != "data"}
        return json_digest({"settings": settings, "models": dict(models)})


@dataclass(frozen=True, eq=False)
class Selection:
    """Outcome of :func:`bayescomp.select`: the champion, every step and what it cost.

    Attributes
    ----------
    champion : str
        The model to run in production (the baseline when nothing beat it).
    setup : SelectionSetup
        What the selection was asked (the request, the baseline, the rule, the design).
    baseline, metric, rope, gamma : str, str, Margin, float
        The model in production before the selection, the metric decided on, the margin of
        practical equivalence and the probability a decision needs (read from ``setup``).
    settings : dict
        The setup as one flat record (:meth:`SelectionSetup.to_dict`).
    steps : DataFrame
        One row per challenger: ``step, champion, challenger, champion_score,
        challenger_score, p_better, p_left, p_rope, p_right, risk, expected_gain,
        decision, reason, fits, n_splits, extra_repeats`` (``*_score`` = the mean
        score of each model on the step's paired splits, the raw metric, not the
        difference; ``fits`` = fits this step needed, the champion's reused
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
    fits_retried : int
        Fits sent again because their worker died (``retries=`` of :func:`bayescomp.select`).
    fit_warnings : list of dict
        The warnings the fits computed by this call raised, counted per model (and dataset):
        ``{"model", "dataset", "warning", "message", "count"}``, most frequent first
        (e.g. ``ConvergenceWarning`` 20 times from ``lr``).
    """

    champion: str
    setup: SelectionSetup
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
    store: str | None = None
    base_scores: Scores | None = None
    fits_retried: int = 0
    fit_warnings: list[dict[str, Any]] = field(default_factory=list)
    _specs: dict[str, ModelSpec] = field(default_factory=dict, repr=False)
    _data: dict[str, tuple[Any, Any]] = field(default_factory=dict, repr=False)

    @property
    def baseline(self) -> str:
        return self.setup.baseline

    @property
    def metric(self) -> str:
        return str(self.setup.request.metric)

    @property
    def rope(self) -> Margin:
        return self.setup.request.margin

    @property
    def gamma(self) -> float:
        return self.setup.request.gamma

    @property
    def settings(self) -> dict[str, Any]:
        return self.setup.to_dict()

    def with_data(self, data: Mapping[str, str | list[str] | None]) -> Selection:
        """The same selection, saying what data it read (the command line's files)."""
        return replace(self, setup=replace(self.setup, data=dict(data)))

    # ------------------------------------------------------------------ output
    def summary(self, *, confidence_level: float | None = None) -> pd.DataFrame:
        """The steps table (a copy), with each model's mean score beside the decision."""
        check_no_level(confidence_level, "the steps table of a selection")
        return self.steps.copy()

    def to_dict(self, include_scores: bool = True) -> dict[str, Any]:
        """Machine-readable record: settings, steps, recommendation, paired scores."""
        steps = []
        for i, row in enumerate(self.steps.to_dict("records")):
            rec = {k: jsonable(v) for k, v in row.items()}
            rec["method"], rec["diagnostics"] = step_method(self.results[i])
            if "slice_blocked" in rec and self.results[i] is not None:  # the slices too
                rec["slice_guardrail"] = self.results[i].to_dict().get("slice_guardrail")
            if include_scores:
                rec["paired_scores"] = [
                    {k: jsonable(v) for k, v in r.items()}
                    for r in self.paired[i].to_dict("records")
                ]
            steps.append(rec)
        return {
            "champion": self.champion,
            "baseline": self.baseline,
            "metric": self.metric,
            "rope": jsonable(self.rope),
            "gamma": self.gamma,
            "recommendation": {k: jsonable(v) for k, v in self.recommendation.items()},
            "steps": steps,
            "timeline": self.timeline(),
            "candidates": [
                {k: jsonable(v) for k, v in r.items()} for r in self.candidates.to_dict("records")
            ],
            "skipped": self.skipped,
            "fits": {
                "performed": self.fits_performed,
                "loaded_from_store": self.fits_loaded,
                "total": self.fits_total,
                "retried": self.fits_retried,
            },
            "fit_warnings": [{k: jsonable(v) for k, v in w.items()} for w in self.fit_warnings],
            "settings": {k: jsonable(v) for k, v in self.settings.items()},
            "store": self.store,
        }

    def timeline(self) -> list[dict[str, Any]]:
        """Who was champion when: ``[{"champion", "from_step", "to_step", "why"}]``."""
        out = [
            {
                "champion": self.baseline,
                "from_step": 0,
                "to_step": None,
                "why": "baseline (model in production)",
            }
        ]
        for row in self.steps.to_dict("records"):
            if row["decision"] == "promote":
                out[-1]["to_step"] = int(row["step"])
                out.append(
                    {
                        "champion": row["challenger"],
                        "from_step": int(row["step"]),
                        "to_step": None,
                        "why": row["reason"],
                    }
                )
        return out

    def __str__(self) -> str:
        lines = [
            f"champion/challenger selection on {self.metric} (ROPE {self.rope.label()}, "
            f"gamma {self.gamma:g}, rule {self.recommendation.get('rule', 'champion_challenger')})",
            "",
        ]
        lines.append(format_steps(self.steps, self.gamma))
        lines += [
            "",
            "recommendation: " + self.recommendation["text"],
            f"fits: {self.fits_total} needed, {self.fits_performed} computed now, "
            f"{self.fits_loaded} read from the store",
        ]
        if self.skipped:
            lines.append("skipped: " + "; ".join(f"{k}: {v}" for k, v in self.skipped.items()))
        if self.fit_warnings:
            lines.append("fit warnings: " + format_warnings(self.fit_warnings))
        return "\n".join(lines)

    # ------------------------------------------------------------------- plots

    def _repr_html_(self) -> str:
        """Rich display in Jupyter: key numbers, decision and reason, a small plot."""
        from bayescomp.report.notebook import selection_html

        return selection_html(self)

    def plot(self, *, ax: Any = None) -> Any:
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

        res = self._result(step)
        row = self.steps.iloc[step - 1]
        return plot_paired_scores(
            self.paired[step - 1],
            row["champion"],
            row["challenger"],
            self.metric,
            self.rope,
            ax=ax,
            higher_is_better=bool(res.higher_is_better),
        )

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
            raise ValueError(
                "this selection ran on precomputed scores: there is no estimator or "
                "data to refit; fit the champion yourself"
            )
        if dataset is None:
            if len(self._data) > 1:
                raise ValueError(
                    f"the selection covers datasets {list(self._data)}; pass "
                    "dataset= to choose the data to refit on"
                )
            dataset = next(iter(self._data))
        if dataset not in self._data:
            raise ValueError(f"unknown dataset {dataset!r}; the selection has {list(self._data)}")
        X, y = self._data[dataset]
        est = clone(self._specs[self.champion].estimator)
        return est.fit(X, y) if y is not None else est.fit(X)


def merge_warnings(records: list[Mapping[str, str | int]]) -> list[dict[str, Any]]:
    """Warning counts from several fitting calls (datasets, extra repetitions) added up per
    ``(model, dataset, warning, message)``, most frequent first.

    Examples
    --------
    >>> w = {"model": "lr", "dataset": "d", "warning": "ConvergenceWarning", "message": "m"}
    >>> merge_warnings([{**w, "count": 12}, {**w, "count": 8}])[0]["count"]
    20
    """
    keys = ("model", "dataset", "warning", "message")
    total: dict[tuple[Any, ...], int] = {}
    for r in records:
        k = tuple(r[c] for c in keys)
        total[k] = total.get(k, 0) + int(r["count"])
    merged = [dict(zip(keys, k, strict=True), count=n) for k, n in total.items()]
    return sorted(merged, key=lambda r: -r["count"])


def format_warnings(records: list[Mapping[str, str | int]]) -> str:
    """Per model: ``lr: ConvergenceWarning × 20; svm: FitFailedWarning × 3``."""
    per: dict[tuple[str, str], int] = {}
    for r in records:
        per[(r["model"], r["warning"])] = per.get((r["model"], r["warning"]), 0) + r["count"]
    return "; ".join(f"{terminal_literal(m)}: {w} × {n}" for (m, w), n in per.items())


def step_method(res: Any) -> tuple[str | None, dict[str, Any]]:
    """How one step decided: the method of its posterior (``"ttest"``,
    ``"hierarchical"``, ...) and its diagnostics (R-hat, ESS, divergences, retries and
    seconds of a sampled posterior; empty for a closed form); ``(None, {})`` for a step
    without a posterior."""
    if res is None:
        return None, {}
    return res.to_dict().get("method"), jsonable(res.diagnostics_summary())


def format_steps(steps: pd.DataFrame, gamma: float | None = None) -> str:
    """The steps table as aligned text for a terminal; a probability never reads as if it
    crossed ``gamma`` (or a common threshold) by rounding (``format_probability``)."""
    from bayescomp.core.regions import format_probability

    if steps.empty:
        return "(no challenger)"
    cols = [
        "step",
        "champion",
        "challenger",
        "champion_score",
        "challenger_score",
        "p_better",
        "p_left",
        "p_rope",
        "p_right",
        "p_joint",
        "risk",
        "expected_gain",
        "decision",
        "looks",
        "fits",
    ]
    if "rope" in steps.columns and steps["rope"].dropna().nunique() > 1:  # per challenger
        cols.insert(cols.index("decision"), "rope")  # a standardized margin's half-width
    shown = {  # how a column's values are written (a missing one as "—")
        "champion": terminal_literal,
        "challenger": terminal_literal,
        "champion_score": "{:.4f}".format,
        "challenger_score": "{:.4f}".format,
        "rope": lambda v: Absolute(v).label(),
        "expected_gain": "{:+.4f}".format,
        # p_joint (guardrails): P(better beyond the ROPE and all held)
        **dict.fromkeys(
            ("p_better", "p_left", "p_rope", "p_right", "p_joint", "risk"),
            lambda v: format_probability(v, gamma),
        ),
    }
    f = steps[[c for c in cols if c in steps.columns]].copy()
    for c in f.columns.intersection(list(shown)):
        f[c] = ["—" if v != v else shown[c](v) for v in f[c]]
    text = f.to_string(index=False)
    reasons = [
        f"  step {int(r['step'])}: {terminal_literal(r['reason'])}"
        for r in steps.to_dict("records")
    ]
    return text + "\n\nwhy:\n" + "\n".join(reasons)


def listed_candidates(names: list[str], means: Mapping[str, float], status: str) -> Any:
    """The Selection's candidates table for models that were not fitted here."""
    import pandas as pd

    return pd.DataFrame(
        {
            "model": names,
            "description": "",
            "path": None,
            "nested": False,
            "mean": [means[m] for m in names],
            "status": status,
        }
    )
