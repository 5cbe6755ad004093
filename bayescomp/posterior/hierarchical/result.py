"""The result of a hierarchical comparison: probabilities, decision, summaries, diagnostics."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescomp.core.arviz_compat import DrawArrays
from bayescomp.core.jsonable import jsonable
from bayescomp.core.optional import require
from bayescomp.core.orientation import difference_label
from bayescomp.core.regions import (
    RegionProbabilities,
    argmax_shares,
    shortest_interval,
    t_region_masses,
)
from bayescomp.posterior.base import DrawsPosterior
from bayescomp.posterior.hierarchical.diagnostics import (
    ESS_BULK_MIN,
    GATED_VARS,
    MCMCChecks,
    diagnostics_table,
    retry_note,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["HierarchicalResult"]

#: the settings a result file stores as attributes of every group
ATTR_KEYS = (
    "rope",
    "baseline_name",
    "candidate_name",
    "metric",
    "parameterization",
    "sampler",
    "refitted",
    "random_state",
    "higher_is_better",
    "ess_min",
)


def attrs_of(settings: dict[str, Any]) -> dict[str, Any]:
    """The InferenceData attributes of a result's ``settings`` (its fields but ``idata``)."""
    attrs: dict[str, Any] = {"bayescomp_result": "HierarchicalResult"}
    # netCDF attributes hold scalars and strings only: the attempt log is stored as JSON
    attrs["attempts"] = json.dumps(list(settings.get("attempts", ())))
    for k in ATTR_KEYS:
        v = settings.get(k)
        if v is None:
            attrs[k] = ""  # netCDF attributes cannot be None
        elif isinstance(v, bool):
            attrs[k] = int(v)
        else:
            attrs[k] = v
    return attrs


class _BuiltOnRead:
    """:attr:`HierarchicalResult.idata`: the InferenceData given, or, given a fit's
    :class:`~bayescomp.core.arviz_compat.DrawArrays`, ArviZ's container of them built when
    first read (the settings as attributes): a fit and its decision read the arrays and never
    import ArviZ."""

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:  # read on the class: the field has no default
            raise AttributeError("idata")
        source = obj.__dict__["_idata"]
        if isinstance(source, DrawArrays):
            source = source.to_idata(
                attrs_of({k: getattr(obj, k) for k in (*ATTR_KEYS, "attempts")})
            )
            obj.__dict__["_idata"] = source
        return source

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__["_idata"] = value
        if isinstance(value, DrawArrays):
            obj.__dict__["_arrays"] = value


@dataclass(frozen=True, eq=False)
class HierarchicalResult(DrawsPosterior, MCMCChecks):
    """Posterior of the hierarchical model, on the metric's own scale.

    ``p_left``, ``p_rope``, ``p_right`` (and :meth:`decision`) refer to the
    mean difference across datasets ``delta0``; :attr:`next_dataset` gives the
    posterior predictive probabilities for a new dataset and
    :attr:`baycomp_convention` the share of draws in which each region is the
    most probable (the number published with baycomp).

    Attributes
    ----------
    idata : arviz.InferenceData
        Posterior draws (``delta0``, ``std0``, ``nu``, ``delta``, ``sigma``,
        ``gamma_alpha``, ``gamma_beta``) with coords named by dataset, the
        divergences in ``sample_stats`` and the per-dataset data in
        ``constant_data``; a fit's is built when first read (ArviZ is imported then).
    rope : float
        Half-width of the region of practical equivalence (metric units).
    parameterization : {"centered", "noncentered"}
        Parameterisation of the reported fit.
    sampler : str
        Backend that produced the draws: ``"fast"`` (nutpie on the hand-written log
        density), ``"nutpie"`` (nutpie on the PyMC model), ``"pymc"`` or ``"numpyro"``.
    refitted : bool
        Whether the first fit failed the checks and retries were run.
    attempts : tuple of dict
        One record per fit that was run, in order (see
        :func:`~bayescomp.posterior.hierarchical.sampling.retry_schedule`):
        ``parameterization``, ``target_accept``, ``tune``, ``draws``, ``divergences``,
        ``min_ess_bulk``, ``max_r_hat``, ``converged`` and ``seconds``.  The reported
        fit is the first converged attempt, else the best one.
    ess_min : int
        The worst-case bulk ESS a fit must reach to count as converged:
        :func:`~bayescomp.posterior.hierarchical.diagnostics.ess_required` of the
        requested chains and draws (400 for the default sizes).
    """

    idata: Any = _BuiltOnRead()
    metric: str | None = None
    parameterization: str = "centered"
    sampler: str = "pymc"
    refitted: bool = False
    random_state: int | None = None
    attempts: tuple[dict[str, Any], ...] = ()
    #: orientation of the metric (labels only: the differences are already oriented)
    higher_is_better: bool = True
    ess_min: int = ESS_BULK_MIN
    baseline_score: Any = None
    candidate_score: Any = None
    gated_vars = GATED_VARS

    # ---------------------------------------------------------------- draws
    @cached_property
    def _delta0(self) -> np.ndarray:
        return self._arrays.groups["posterior"]["delta0"].ravel()

    @cached_property
    def _next_sample(self) -> np.ndarray:
        post = self._arrays.groups["posterior"]
        return t_region_masses(
            float(self.rope), post["nu"].ravel(), self._delta0, post["std0"].ravel()
        )

    @property
    def dataset_names(self) -> tuple[str, ...]:
        return tuple(str(x) for x in self._arrays.coords["dataset"])

    @property
    def n_datasets(self) -> int:
        return len(self.dataset_names)

    @property
    def sample(self) -> np.ndarray:
        """Per-draw next-dataset region probabilities, shape ``(draws, 3)`` (left, rope, right).

        These are the points of :meth:`plot_simplex`, as in baycomp.
        """
        return self._next_sample

    # -------------------------------------------------------- probabilities
    @property
    def _draws(self) -> np.ndarray:
        """Draws of ``delta0``, the mean difference across datasets."""
        return self._delta0

    @property
    def delta0(self) -> RegionProbabilities:
        """The region probabilities of ``delta0`` (same as ``p_left, p_rope, p_right``)."""
        return RegionProbabilities(self.p_left, self.p_rope, self.p_right, "delta0")

    @property
    def next_dataset(self) -> RegionProbabilities:
        """Posterior predictive for a new dataset: mean over draws of the Student-t mass."""
        m = self._next_sample.mean(axis=0)
        return RegionProbabilities.of(m, "next_dataset")

    @property
    def baycomp_convention(self) -> RegionProbabilities:
        """Share of draws in which each region holds the largest next-dataset mass.

        This is what baycomp's ``HierarchicalTest.probs`` returns and what most
        published comparisons report; it is *not* a probability of the region
        itself.
        """
        m = argmax_shares(self._next_sample)
        return RegionProbabilities.of(m, "baycomp_convention")

    def probabilities(self) -> dict[str, RegionProbabilities]:
        """All three kinds, keyed by kind."""
        return {
            "delta0": self.delta0,
            "next_dataset": self.next_dataset,
            "baycomp_convention": self.baycomp_convention,
        }

    # ---------------------------------------------------------- diagnostics
    @cached_property
    def diagnostics(self) -> pd.DataFrame:
        """R-hat, bulk and tail ESS and MCSE for every sampled quantity (one row per parameter).

        The numbers of :func:`arviz.summary` (``kind="diagnostics"``), computed for all
        parameters at once (:mod:`bayescomp.core.mcmc_diagnostics`) when first asked for: the
        convergence check reads only the rows of ``delta0``, ``std0`` and ``nu``
        (:attr:`convergence_diagnostics`).  The total number of divergent transitions is in
        :attr:`divergences` and in ``diagnostics.attrs["divergences"]``.
        """
        diag = diagnostics_table(self._arrays)
        diag.attrs["divergences"] = self.divergences
        return diag

    def mcse(self) -> dict[str, float]:
        """Monte-Carlo standard error of each probability (``p_left``, ``p_rope``,
        ``p_right``, ``p_better``): the MCSE of the mean of its indicator over the chains
        (ArviZ's ``mcse(method="mean")``, autocorrelation included).  Two fits that differ
        only in the seed or the dataset order differ by about this much.
        """
        import arviz as az

        d = self.idata.posterior["delta0"].values.reshape(-1, self.idata.posterior.sizes["draw"])
        rope = float(self.rope)
        indicators = {
            "p_left": d < -rope,
            "p_rope": np.abs(d) <= rope,
            "p_right": d > rope,
            "p_better": d > 0,
        }
        return {
            k: float(np.ravel(az.mcse(v.astype(float), method="mean"))[0])
            for k, v in indicators.items()
        }

    def diagnostics_summary(self) -> dict[str, Any]:
        """Worst-case diagnostics of the quantities the convergence check reads
        (:attr:`convergence_diagnostics`) in one dict, with the Monte-Carlo standard errors
        of the probabilities under ``"mcse"``."""
        d = self.convergence_diagnostics
        return {
            "mcse": self.mcse(),
            "max_r_hat": float(d["r_hat"].max()),
            "min_ess_bulk": float(d["ess_bulk"].min()),
            "min_ess_tail": float(d["ess_tail"].min()),
            "divergences": self.divergences,
            "converged": self.converged,
            "problems": self.convergence_problems,
            "parameterization": self.parameterization,
            "sampler": self.sampler,
            "refitted": self.refitted,
            "attempts": len(self.attempts),
            "retries": max(len(self.attempts) - 1, 0),
            "attempt_settings": [
                (a["parameterization"], a["target_accept"], a["tune"], a.get("draws"))
                for a in self.attempts
            ],
            "attempt_seconds": [float(a["seconds"]) for a in self.attempts],
            "retry_notes": [
                retry_note(a, b) for a, b in zip(self.attempts[:-1], self.attempts[1:], strict=True)
            ],
            "sampling_seconds": float(sum(a["seconds"] for a in self.attempts)),
        }

    # ----------------------------------------------------------- per dataset
    @cached_property
    def per_dataset(self) -> pd.DataFrame:
        """Shrunk per-dataset differences ``delta_i`` with HDI and region probabilities."""
        import pandas as pd

        post = self.idata.posterior["delta"]
        draws = post.values.reshape(-1, post.sizes["dataset"])
        hdi = np.array([shortest_interval(column, 0.95) for column in draws.T])
        const = self.idata.constant_data
        r = self.rope
        return pd.DataFrame(
            {
                "dataset": list(self.dataset_names),
                "n": const["n"].values.astype(int),
                "rho": const["rho"].values,
                "observed_mean": const["observed_mean"].values,
                "zero_variance": const["zero_variance"].values.astype(bool),
                "mean": draws.mean(axis=0),
                "sd": draws.std(axis=0, ddof=1),
                "hdi_95_low": hdi[:, 0],
                "hdi_95_high": hdi[:, 1],
                "p_better": (draws > 0).mean(axis=0),
                "p_left": (draws < -r).mean(axis=0),
                "p_rope": ((draws >= -r) & (draws <= r)).mean(axis=0),
                "p_right": (draws > r).mean(axis=0),
            }
        )

    # --------------------------------------------------------------- decision
    def _trust(self, kind: str) -> tuple[bool, str]:
        """Decisions are ``inconclusive`` whenever the chains did not converge."""
        if self.converged:
            return True, ""
        tried = f" after {len(self.attempts)} attempts" if len(self.attempts) > 1 else ""
        return False, (
            f"the MCMC chains have not converged{tried} ({self.convergence_problems}); run "
            "longer (more draws/tune) or raise target_accept"
        )

    # ---------------------------------------------------------------- summary
    def summary(
        self, gamma: float = 0.95, *, confidence_level: float | None = None
    ) -> pd.DataFrame:
        """One row per kind of probability, with ``delta0``'s moments, its HDI
        (``confidence_level``, default 0.95) and the decision at ``gamma``."""
        level = 0.95 if confidence_level is None else confidence_level
        lo, hi = self.hdi(level)
        pct = f"{100 * level:g}"
        sd = float(np.std(self._delta0, ddof=1))
        extra = {
            "delta0_mean": self.expected_gain,
            "delta0_sd": sd,
            f"hdi_{pct}_low": lo,
            f"hdi_{pct}_high": hi,
            "rope": float(self.rope),
            "n_datasets": self.n_datasets,
            "converged": self.converged,
            "attempts": len(self.attempts),
        }
        return self._kind_rows(gamma, {}, extra)

    def __repr__(self) -> str:
        label = difference_label(self, sep=" - ")
        return (
            f"HierarchicalResult({label} over "
            f"{self.n_datasets} datasets: delta0={self.expected_gain:+.4g}, rope={self.rope:g}; "
            f"p_left={self.p_left:.3f}, p_rope={self.p_rope:.3f}, p_right={self.p_right:.3f}; "
            f"converged={self.converged})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HierarchicalResult):
            return NotImplemented
        same_meta = (
            self.rope == other.rope
            and self.baseline_name == other.baseline_name
            and self.candidate_name == other.candidate_name
            and self.metric == other.metric
            and self.parameterization == other.parameterization
            and self.sampler == other.sampler
            and self.refitted == other.refitted
            and self.dataset_names == other.dataset_names
        )
        if not same_meta:
            return False
        mine, theirs = self._arrays.groups, other._arrays.groups
        return all(
            np.array_equal(values, theirs[g][v])
            for g in ("posterior", "constant_data")
            for v, values in mine[g].items()
        )

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ plots

    def to_dict(self) -> dict[str, Any]:
        """The headline probabilities, every kind of probability and the diagnostics."""
        head = self._headline("hierarchical", rope=float(self.rope), n_datasets=self.n_datasets)
        kinds = {"probabilities": self._every_kind(), "diagnostics": self.diagnostics_summary()}
        return jsonable(head | kinds)

    def plot_simplex(self, ax: Axes | None = None) -> Axes:
        """Next-dataset (left, rope, right) probabilities of every draw in a triangle."""
        from bayescomp.report.hierarchical_plots import plot_simplex

        return plot_simplex(
            self.sample,
            baseline=self.baseline_name,
            candidate=self.candidate_name,
            probabilities=self.baycomp_convention,
            ax=ax,
        )

    def plot_forest(self, ax: Axes | None = None) -> Axes:
        """Shrunk per-dataset ``delta_i`` (95% HDI) with the ROPE band and ``delta0``."""
        from bayescomp.report.hierarchical_plots import plot_forest

        return plot_forest(self, ax=ax)

    def plot(self, *, ax: Axes | None = None, confidence_level: float = 0.95) -> Axes:
        """Posterior density of ``delta0`` with the ROPE band, the HDI and the three
        probabilities."""
        from bayescomp.report.plots import plot_posterior

        head = f"δ0, the mean difference across {self.n_datasets} datasets"
        return plot_posterior(self, ax=ax, confidence_level=confidence_level, head=head)

    def figures(self) -> dict[str, Figure]:
        """The posterior of ``delta0``, the simplex, the forest and the trace plots."""
        return {
            "posterior": self.plot().figure,
            "simplex": self.plot_simplex().figure,
            "forest": self.plot_forest().figure,
            "trace": np.ravel(self.plot_trace())[0].figure,
        }

    def plot_trace(self) -> np.ndarray:
        """Trace and rank plots of the hyper-parameters (array of Axes)."""
        from bayescomp.report.hierarchical_plots import plot_trace

        return plot_trace(self)

    # --------------------------------------------------------------------- io
    def to_netcdf(self, path: Any) -> str:
        """Write the posterior, the data and the settings to a netCDF file.

        Restore it with :func:`bayescomp.load`.
        """
        require("h5py", "mcmc", "writing a hierarchical result (to_netcdf)")
        idata = self.idata.copy()
        idata.posterior.attrs["higher_is_better"] = int(self.higher_is_better)
        return idata.to_netcdf(str(path))
