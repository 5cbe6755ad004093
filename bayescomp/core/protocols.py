"""The protocols the stages talk through (structural: nothing needs to inherit):
:class:`Result` and :class:`Posterior` (the result contract), :class:`ScoresProvider`,
:class:`SelectionTracker` and :class:`FitStore`.  What each means, and what
``p_left``/``p_rope``/``p_right`` are per result type: ``docs/architecture.md``
("The result contract") and ``docs/hierarchical.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, cast, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from bayescomp.core.regions import RegionProbabilities
    from bayescomp.core.rule import Decision


class Estimator(Protocol):
    """A scikit-learn estimator as the fitter takes one: ``fit`` and ``get_params`` (cloned
    for every fit; ``check_estimators`` refuses anything else in one line)."""

    def fit(self, X: Any, y: Any = None, **kwargs: Any) -> Any: ...

    def get_params(self, deep: bool = True) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Split:
    """One ``(train, test)`` split as the fitter and the store keep it: its number, its block
    (0 the design; an extra repetition block of a sequential selection from 1 on) and that
    block's seed, its repeat and fold, and the row indices of each side."""

    split: int
    block: int
    seed: int | None
    repeat: int
    fold: int
    train: Any
    test: Any


@dataclass(frozen=True)
class OutOfFold:
    """A fit's out-of-fold predictions on its test rows, of one ``kind`` (a name that
    changes whenever the predictions would, e.g. the scores of a positive class)."""

    kind: str
    y_true: Any
    y_score: Any


@dataclass(frozen=True)
class Fit:
    """One finished fit: its scores (``{scorer: value}``, the ``error_score`` of a failed
    one), its times, why it failed (None when it did not), what ``inspect`` read off the
    fitted estimator (the hyperparameters a search chose), its out-of-fold predictions
    when kept, and the warnings it raised as ``(category, message, count)``."""

    scores: Mapping[str, float]
    fit_time: float = 0.0
    score_time: float = 0.0
    error: str | None = None
    best_params: Any = None
    predictions: OutOfFold | None = None
    warnings: tuple[tuple[type, str, int], ...] = ()


class Card:
    """A result's notebook card (:func:`bayescomp.report.notebook.result_html`): its title
    (``card_title``, else the class's name), its summary and its plot, after the result's
    own line in words when ``card_says``."""

    card_title: ClassVar[str | None] = None
    card_says: ClassVar[bool] = False

    def _repr_html_(self) -> str:
        """Rich display in Jupyter: the card."""
        from bayescomp.report.notebook import result_html

        result = cast("Result", self)  # a Card is mixed into a Result
        return result_html(result, self.card_title, str(self) if self.card_says else None)


@runtime_checkable
class Result(Protocol):
    """What every result of bayescomp answers, with these exact signatures.

    Every result type satisfies it (``tests/test_contract.py`` checks each one): the CLI,
    the report and the notebook read results only through it.
    """

    def summary(self, *, confidence_level: float | None = None) -> pd.DataFrame:
        """The result as a table; intervals in it have probability ``confidence_level``
        (``None``: the result's own level, 0.95 for a posterior)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record (numbers as Python floats, NaN as None)."""

    def plot(self, *, ax: Axes | None = None) -> Any:
        """The result's main figure, drawn on ``ax`` (or a new figure); returns the axes."""

    def _repr_html_(self) -> str:
        """Rich display in Jupyter."""


@runtime_checkable
class Posterior(Result, Protocol):
    """A posterior of ``mu``, the difference candidate − baseline oriented so that > 0 is better."""

    @property
    def baseline_name(self) -> str: ...

    @property
    def candidate_name(self) -> str: ...

    @property
    def metric(self) -> str | None: ...

    @property
    def higher_is_better(self) -> bool: ...

    @property
    def rope(self) -> Any: ...

    @property
    def half_width(self) -> float:
        """The ROPE's half-width the posterior decided on (its margin resolved)."""
        ...

    @property
    def p_left(self) -> Any: ...

    @property
    def p_rope(self) -> Any: ...

    @property
    def p_right(self) -> Any: ...

    @property
    def p_better(self) -> Any:
        """``P(mu > 0)``: the candidate is better at all."""

    @property
    def p_worse(self) -> Any:
        """``P(mu < 0)``: the risk that the candidate is worse."""

    @property
    def expected_gain(self) -> Any: ...

    def hdi(self, confidence_level: float = 0.95) -> tuple[Any, Any]:
        """Highest-density interval of ``mu`` with probability ``confidence_level``."""

    def probabilities(self) -> dict[str, RegionProbabilities]:
        """Every kind of (left, rope, right) probability the result reports, by name; the
        first is the one :meth:`decision` reads by default."""

    def diagnostics_summary(self) -> dict[str, Any]:
        """Convergence figures of a sampled posterior (empty for a closed form)."""

    def decision(self, gamma: float = 0.95) -> Decision: ...

    def figures(self) -> dict[str, Figure]:
        """Every plot of the result, by kind (the one :meth:`plot` draws first), each on a
        new figure."""


@runtime_checkable
class ScoresProvider(Protocol):
    """Per-split scores of several models, paired on identical splits."""

    @property
    def models(self) -> list[str]: ...

    @property
    def datasets(self) -> list[str]: ...

    @property
    def metrics(self) -> list[str]: ...

    def paired(
        self, baseline: str, candidate: str, metric: str | None = None, dataset: str | None = None
    ) -> pd.DataFrame:
        """Columns ``dataset, split, baseline, candidate, n_train, n_test`` on the shared
        splits; ``attrs["rho"]`` is their test fraction (the ``rho`` of the t-test)."""

    def rho(self, dataset: str | None = None, model: str | None = None) -> Any: ...


@runtime_checkable
class FitStore(Protocol):
    """The fit engine's cache: every finished fit of a study, so that a rerun resumes.

    :func:`bayescomp.cross_validate_paired` (``cache=``) is the only code that talks to
    it, in this order: ``check_design`` for each dataset and ``check_model`` for each
    model before any fit (raise :class:`~bayescomp.core.exceptions.DesignChangedError`
    to refuse a changed design, data or model), ``check_block`` before the splits of an
    extra seeded repetition are fitted, ``load_fits`` to read what is already done and
    ``write_fit`` as soon as each fit finishes (in the process that called).  A split
    record is ``{"split", "block", "repeat", "fold", "train", "test", "seed"}``; a fit is
    a :class:`Fit`, with its :class:`OutOfFold` predictions when it kept them (e.g.
    :func:`bayescomp.threshold_curves`): ``load_fits`` returns them with the fit (its
    warnings are not kept).  :class:`~bayescomp.studies.store.ResultStore`
    (SQLite) is the package's backend; a dict-backed one is a page of code
    (``docs/selection.md``).
    """

    def check_design(
        self,
        dataset: str,
        *,
        fingerprint: str,
        data_hash: str,
        n_samples: int,
        n_splits: int,
        metric: str,
        scoring: list[str],
        cv: str,
        seed: int | None,
        splits: Sequence[Split],
    ) -> bool:
        """Record the base design of ``dataset`` (True when it was already recorded)."""

    def check_block(
        self,
        dataset: str,
        block: int,
        *,
        fingerprint: str,
        seed: int | None,
        splits: Sequence[Split],
    ) -> None:
        """Record (or check against the stored one) extra repetition ``block`` >= 1."""

    def check_model(
        self,
        model: str,
        *,
        params_hash: str,
        params: str,
        description: str = "",
        path: str | None = None,
        nested: bool = False,
    ) -> None:
        """Record a model's parameters (refuse when its stored fits used other ones)."""

    def load_fits(self, dataset: str, model: str) -> Mapping[int, Fit]:
        """The successful stored fits of ``model`` on ``dataset``, keyed by split id."""

    def write_fit(
        self,
        *,
        dataset: str,
        model: str,
        split: int,
        seed: int | None,
        result: Fit,
        params_hash: str,
        params: str,
    ) -> Any:
        """Keep one finished fit (a failed one too; a later fit of it replaces it)."""


@runtime_checkable
class SelectionTracker(Protocol):
    """Receives a selection as it happens (an experiment tracker, a registry bridge).

    :func:`bayescomp.select` calls ``on_start`` once before the first step, ``on_step``
    as soon as each step is decided (so a killed run has already reported the steps
    before it), and ``on_finish`` with the finished ``Selection``.  ``identity`` is the
    same for every rerun of the same selection (settings, models, data and design),
    so a tracker can recognise a resumed run and not record it twice.
    :class:`bayescomp.integrations.mlflow.MlflowTracker` implements it.
    """

    def on_start(self, identity: str, settings: Mapping[str, Any]) -> None: ...

    def on_step(self, step: pd.Series, result: Any, paired: pd.DataFrame) -> None:
        """``step`` is the step's row of ``Selection.steps``; ``result`` its posterior
        (None when the step could not be compared); ``paired`` its per-split scores."""

    def on_finish(self, selection: Any) -> None: ...
