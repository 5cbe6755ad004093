"""The result of a Plackett–Luce ranking: P(best), expected ranks, P(i beats j), diagnostics
(each from the posterior draws of the worths; ``docs/many_models.md``).  No claim is made on
a fit that failed the convergence checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from bayescomp.core.checks import check_gamma, check_level
from bayescomp.core.jsonable import jsonable
from bayescomp.core.protocols import Card
from bayescomp.posterior.hierarchical.diagnostics import MCMCChecks, diagnostics_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["Best", "PlackettLuceResult"]

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


class Best(NamedTuple):
    """The answer to "which model is best?": a model name or ``None``, and why."""

    model: str | None
    p_best: float
    reason: str


#: elements of the ``(draws, k, k)`` blocks the pairwise quantities are computed in (32 MB):
#: the whole ``(chains, draws, k, k)`` array is never formed (30 GB at k = 1,000)
CHUNK = 1 << 22


def _chunks(rows: np.ndarray) -> list[slice]:
    """Slices of ``rows`` (``(n, k)``) whose ``(rows, k, k)`` blocks hold at most CHUNK."""
    step = max(1, CHUNK // rows.shape[1] ** 2)
    return [slice(s, s + step) for s in range(0, len(rows), step)]


def expected_rank(worth: np.ndarray) -> np.ndarray:
    """Expected rank (1 = best) of each model on a new dataset, for every row of worths
    (``1 + sum_{j != i} w_j / (w_i + w_j)``; a worth that underflowed to 0 ranks behind
    every positive one).

    Examples
    --------
    >>> expected_rank(np.array([[0.5, 0.3, 0.2]])).round(3).tolist()
    [[1.661, 2.025, 2.314]]
    >>> round(1 + 0.3 / 0.8 + 0.2 / 0.7, 3)   # model 0: 1 + P(1 ahead) + P(2 ahead)
    1.661
    """
    w = np.asarray(worth, dtype=float)
    rows = w.reshape(-1, w.shape[-1])
    out = np.empty_like(rows)
    diag = np.arange(rows.shape[1])
    for s in _chunks(rows):
        c = rows[s]
        with np.errstate(invalid="ignore"):  # 0 / 0 on the diagonal of a 0 worth
            ahead = c[:, None, :] / (c[:, :, None] + c[:, None, :])  # [i, j]: P(j before i)
        ahead[:, diag, diag] = 0.0
        out[s] = 1.0 + ahead.sum(axis=-1)
    return out.reshape(w.shape)


def _latex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


@dataclass(frozen=True, eq=False)
class PlackettLuceResult(MCMCChecks, Card):
    """Posterior of a Bayesian Plackett–Luce model of per-dataset rankings.

    Attributes
    ----------
    idata : arviz.InferenceData
        ``posterior``: ``worth`` and ``expected_rank`` (dims ``chain, draw, model``);
        ``sample_stats``: ``diverging``; ``constant_data``: the observed ``rank`` of
        every model on every dataset.  Every ArviZ tool works on it.
    metric : str or None
        The metric the rankings come from (labels only).
    sampler : str
        Backend that produced the draws.
    all_tied : tuple of str
        Datasets on which every model tied (no information; left out of the fit).
    tied : tuple of str
        Datasets with a partial tie (their likelihood sums over the tied orders).
    """

    card_title = "Plackett–Luce ranking"

    idata: Any = field(repr=False)
    metric: str | None = None
    sampler: str = "pymc"
    random_state: int | None = None
    concentration: float = 1.0
    all_tied: tuple[str, ...] = ()
    tied: tuple[str, ...] = ()

    # ---------------------------------------------------------------- draws
    @property
    def models(self) -> list[str]:
        """Model names in the order of the input table."""
        return [str(m) for m in self.idata.posterior.coords["model"].values]

    @cached_property
    def worth_draws(self) -> np.ndarray:
        """Posterior draws of the worths, shape ``(chains * draws, k)``."""
        w = self.idata.posterior["worth"].values
        return w.reshape(-1, w.shape[-1])

    @cached_property
    def rank_draws(self) -> np.ndarray:
        """Posterior draws of the expected rank on a new dataset, ``(chains * draws, k)``."""
        r = self.idata.posterior["expected_rank"].values
        return r.reshape(-1, r.shape[-1])

    def _series(self, values: Any, name: str) -> pd.Series:
        import pandas as pd

        return pd.Series(
            np.asarray(values, dtype=float), index=pd.Index(self.models, name="model"), name=name
        )

    # ------------------------------------------------------------ answers
    @cached_property
    def p_best(self) -> pd.Series:
        """``P(w_i is the largest worth)``: the posterior probability that each model is best."""
        w = self.worth_draws
        return self._series(np.bincount(w.argmax(axis=1), minlength=w.shape[1]) / len(w), "p_best")

    @cached_property
    def p_first(self) -> pd.Series:
        """``E[w_i]``: the probability that each model ranks first on a new dataset."""
        return self._series(self.worth_draws.mean(axis=0), "p_first")

    @cached_property
    def p_beats(self) -> pd.DataFrame:
        """``P(w_row > w_column)`` for every pair (diagonal NaN)."""
        import pandas as pd

        w = self.worth_draws
        wins = np.zeros((w.shape[1], w.shape[1]))
        for s in _chunks(w):
            wins += (w[s, :, None] > w[s, None, :]).sum(axis=0)
        p = wins / len(w)
        np.fill_diagonal(p, np.nan)
        return pd.DataFrame(
            p,
            index=pd.Index(self.models, name="model"),
            columns=pd.Index(self.models, name="versus"),
        )

    @cached_property
    def mean_ranks(self) -> pd.Series:
        """The observed mean rank of each model over every dataset (ties averaged)."""
        obs = self.idata.constant_data["rank"].values
        return self._series(obs.mean(axis=0), "mean_rank")

    def expected_ranks(self, confidence_level: float = 0.95) -> pd.DataFrame:
        """Posterior mean and equal-tailed ``confidence_level`` interval of each model's
        expected rank."""
        import pandas as pd

        level = check_level(confidence_level, "confidence_level")
        r = self.rank_draws
        lo, hi = np.quantile(r, [(1 - level) / 2, (1 + level) / 2], axis=0)
        return pd.DataFrame(
            {"expected_rank": r.mean(axis=0), "rank_low": lo, "rank_high": hi},
            index=pd.Index(self.models, name="model"),
        )

    def summary(self, confidence_level: float | None = None) -> pd.DataFrame:
        """One row per model, best (lowest expected rank) first.

        Columns: ``worth`` (posterior mean) with ``worth_low``/``worth_high``,
        ``p_best``, ``p_first``, ``expected_rank`` with ``rank_low``/``rank_high``
        (equal-tailed ``confidence_level`` intervals, default 0.95) and the observed
        ``mean_rank``.
        """
        import pandas as pd

        level = check_level(
            0.95 if confidence_level is None else confidence_level, "confidence_level"
        )
        w = self.worth_draws
        lo, hi = np.quantile(w, [(1 - level) / 2, (1 + level) / 2], axis=0)
        worth = pd.DataFrame(
            {"worth": w.mean(axis=0), "worth_low": lo, "worth_high": hi},
            index=pd.Index(self.models, name="model"),
        )
        table = pd.concat(
            [worth, self.p_best, self.p_first, self.expected_ranks(level), self.mean_ranks], axis=1
        )
        return table.sort_values("expected_rank", kind="stable")

    @property
    def order(self) -> list[str]:
        """Models sorted by posterior mean expected rank, best first."""
        models = self.models
        return [models[i] for i in self.rank_draws.mean(axis=0).argsort(kind="stable")]

    # ------------------------------------------------------- diagnostics
    @cached_property
    def diagnostics(self) -> pd.DataFrame:
        """R-hat, bulk/tail ESS and MCSE of every worth (``attrs['divergences']`` too)."""
        table = diagnostics_table(self.idata, var_names=("worth",))
        table.attrs["divergences"] = self.divergences
        return table

    # ------------------------------------------------------------ claims
    def best(self, gamma: float = 0.95) -> Best:
        """The model with ``P(best) >= gamma``, or ``None`` with the reason.

        Examples
        --------
        >>> Best("a", 0.97, "P(a is best) = 0.970 >= 0.95")
        Best(model='a', p_best=0.97, reason='P(a is best) = 0.970 >= 0.95')
        """
        gamma = check_gamma(gamma)
        top = str(self.p_best.idxmax())
        p = float(self.p_best.max())
        if not self.converged:
            return Best(
                None,
                p,
                f"the MCMC fit did not converge ({self.convergence_problems}); "
                "no model is named — increase draws/tune",
            )
        if p >= gamma:
            return Best(top, p, f"P({top} is best) = {p:.3f} >= {gamma:g}")
        return Best(
            None,
            p,
            f"no model is best with probability >= {gamma:g} (largest: "
            f"P({top} is best) = {p:.3f}); more datasets would tell",
        )

    def uncertain_groups(self, gamma: float = 0.95) -> list[tuple[str, ...]]:
        """Maximal runs of models (in :attr:`order`) no pair of which is resolved.

        A pair is resolved when ``P(i beats j) >= gamma`` one way or the other.  These
        are the bars of the rank diagram.  On a non-converged fit nothing is resolved,
        so every model is in one group.
        """
        gamma = check_gamma(gamma)
        order = self.order
        p = self.p_beats.loc[order, order].to_numpy()
        resolved = np.nan_to_num(np.maximum(p, p.T)) >= gamma
        if not self.converged:
            resolved[:] = False
        groups: list[tuple[int, int]] = []
        for i in range(len(order)):
            j = i
            while j + 1 < len(order) and not resolved[i : j + 2, i : j + 2].any():
                j += 1
            if j > i and not any(a <= i and j <= b for a, b in groups):
                groups.append((i, j))
        return [tuple(order[a : b + 1]) for a, b in groups]

    # ------------------------------------------------------------ export
    def to_latex(
        self,
        confidence_level: float = 0.95,
        digits: int = 2,
        *,
        caption: str | None = None,
        label: str | None = None,
    ) -> str:
        """A booktabs LaTeX table of the ranking, best first (needs ``\\usepackage{booktabs}``).

        Columns: model, P(best), expected rank with its credible interval, observed
        mean rank.  With ``caption`` or ``label`` the tabular is wrapped in a ``table``.
        A fit that failed the convergence checks gets a LaTeX comment saying so.
        """
        s = self.summary(confidence_level)
        pct = f"{100 * confidence_level:g}\\%"
        warn = (
            [f"% NOT CONVERGED ({self.convergence_problems}): do not report these numbers"]
            if not self.converged
            else []
        )
        lines = [
            *warn,
            r"\begin{tabular}{lrrr}",
            r"\toprule",
            f"model & $P(\\text{{best}})$ & expected rank [{pct} CI] & mean rank \\\\",
            r"\midrule",
        ]
        f = f"{{:.{int(digits)}f}}"
        for model, row in s.iterrows():
            lines.append(
                f"{_latex(model)} & {f.format(row.p_best)} & "
                f"{f.format(row.expected_rank)} [{f.format(row.rank_low)}, "
                f"{f.format(row.rank_high)}] & {f.format(row.mean_rank)} \\\\"
            )
        lines += [r"\bottomrule", r"\end{tabular}"]
        if caption is not None or label is not None:
            inner = [r"\begin{table}", r"\centering"]
            if caption is not None:
                inner.append(f"\\caption{{{_latex(caption)}}}")
            if label is not None:
                inner.append(f"\\label{{{label}}}")
            lines = [*inner, *lines, r"\end{table}"]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        head = (
            f"Plackett–Luce ranking of {len(self.models)} models on "
            f"{self.idata.constant_data.sizes['dataset']} datasets"
            + (f" ({self.metric})" if self.metric else "")
        )
        status = "converged" if self.converged else f"NOT converged: {self.convergence_problems}"
        return f"{head}; {status}\n{self.summary().round(3).to_string()}"

    # ------------------------------------------------------------- plots
    def to_dict(self) -> dict[str, Any]:
        """The summary's rows (best first), the order and the convergence, JSON-ready."""
        return jsonable(
            {
                "metric": self.metric,
                "sampler": self.sampler,
                "order": self.order,
                "models": self.summary().reset_index().to_dict("records"),
                "converged": self.converged,
                "convergence_problems": self.convergence_problems,
            }
        )

    def plot(self, gamma: float = 0.95, *, ax: Axes | None = None) -> Axes:
        """The rank diagram (see :meth:`plot_ranks`)."""
        return self.plot_ranks(gamma=gamma, ax=ax)

    def plot_ranks(
        self, gamma: float = 0.95, confidence_level: float = 0.95, ax: Axes | None = None
    ) -> Axes:
        """Bayesian critical-difference diagram: expected ranks, intervals, uncertain bars."""
        from bayescomp.report.ranking_plots import plot_rank_diagram

        return plot_rank_diagram(
            self.expected_ranks(confidence_level),
            self.uncertain_groups(gamma),
            confidence_level=confidence_level,
            gamma=gamma,
            ax=ax,
        )

    def plot_p_best(self, ax: Axes | None = None) -> Axes:
        """Bar chart of ``P(model is best)``, with ``E[w]`` (wins a new dataset) beside it."""
        from bayescomp.report.ranking_plots import plot_p_best

        return plot_p_best(self.p_best, self.p_first, ax=ax)

    def plot_control(self, control: str, gamma: float = 0.95, ax: Axes | None = None) -> Axes:
        """``P(model beats control)`` for every other model, with ``gamma`` marked."""
        from bayescomp.report.ranking_plots import plot_control

        if control not in self.models:
            raise ValueError(f"control {control!r} is not one of the models {self.models}")
        return plot_control(self.p_beats[control].drop(control), control, gamma=gamma, ax=ax)
