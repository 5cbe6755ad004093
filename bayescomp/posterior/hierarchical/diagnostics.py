"""Convergence diagnostics of a hierarchical fit: ArviZ's table and the pass/fail rule."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from bayescomp.core.arviz_compat import DrawArrays, diagnostics_summary

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "ESS_BULK_FLOOR",
    "ESS_BULK_MIN",
    "GATED_VARS",
    "R_HAT_MAX",
    "MCMCChecks",
    "check_convergence",
    "diagnostics_table",
    "ess_required",
    "retry_note",
]

#: convergence thresholds used by :attr:`HierarchicalResult.converged`
R_HAT_MAX = 1.01
ESS_BULK_MIN = 400
#: the smallest bulk ESS ever accepted (Vehtari et al. 2021: about 100 for reliable R-hat)
ESS_BULK_FLOOR = 100


def ess_required(chains: int, draws: int) -> int:
    """Worst-case bulk ESS a fit of ``chains x draws`` kept draws must reach.

    :data:`ESS_BULK_MIN` (400), lowered for small requests to a tenth of the requested
    draws ``chains * draws``, but never below :data:`ESS_BULK_FLOOR` (100).  The
    default fits (4 x 1000 or more) keep 400; ``draws=500, chains=2`` needs 100 — its
    probabilities then carry a Monte-Carlo error of up to 0.05 (``0.5 / sqrt(100)``).

    Examples
    --------
    >>> ess_required(4, 2000), ess_required(4, 1000), ess_required(2, 500), ess_required(1, 100)
    (400, 400, 100, 100)
    >>> ess_required(2, 1500)
    300
    """
    return int(min(ESS_BULK_MIN, max(ESS_BULK_FLOOR, 0.1 * int(chains) * int(draws))))


def retry_note(done: Any, nxt: Any) -> str:
    """Why an attempt was retried, and with what: ``done`` and ``nxt`` are attempt records
    (:attr:`HierarchicalResult.attempts`; ``nxt`` needs only the settings).

    Examples
    --------
    >>> done = {"max_r_hat": 1.0304, "divergences": 0, "min_ess_bulk": 180.2, "draws": 1000}
    >>> nxt = {"parameterization": "centered", "target_accept": 0.99, "tune": 2000,
    ...        "draws": 2000}
    >>> retry_note(done, nxt)
    'R-hat 1.030, 0 divergent transitions, worst bulk ESS 180 after 1,000 draws: retrying with the centered parameterisation, target_accept 0.99, 2,000 tuning steps and 2,000 draws'
    """
    return (
        f"R-hat {done['max_r_hat']:.3f}, {done['divergences']} divergent transitions, worst "
        f"bulk ESS {done['min_ess_bulk']:.0f} after {done['draws']:,} draws: retrying with the "
        f"{nxt['parameterization']} parameterisation, target_accept {nxt['target_accept']:g}, "
        f"{nxt['tune']:,} tuning steps and {nxt['draws']:,} draws"
    )


#: the parameters of the full diagnostics table (all sampled quantities)
DIAG_VARS = ("delta0", "std0", "nu", "gamma_alpha", "gamma_beta", "delta", "sigma")
#: the parameters whose R-hat and bulk ESS decide a hierarchical fit's convergence: those its
#: probabilities read (``delta0``: p_left, p_rope, p_right and the decision; ``std0`` and
#: ``nu`` with it: the next-dataset probabilities and baycomp's convention)
GATED_VARS = ("delta0", "std0", "nu")

_COLUMNS = ["r_hat", "ess_bulk", "ess_tail", "mcse_mean", "mcse_sd"]


def diagnostics_table(idata: Any, var_names: Any = DIAG_VARS) -> pd.DataFrame:
    """R-hat, bulk and tail ESS and Monte Carlo standard errors, one row per parameter.

    ``idata``: an InferenceData or its :class:`~bayescomp.core.arviz_compat.DrawArrays`;
    ``var_names`` are the variables checked (the hierarchical model's by default; the
    Plackett–Luce ranking passes its own).

    Rows are labelled ``delta0`` or ``delta[<dataset>]`` as ArviZ labels them; the
    index is named ``parameter``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescomp.core.arviz_compat import from_dict
    >>> rng = np.random.default_rng(0)
    >>> post = {v: rng.normal(size=(2, 100)) for v in DIAG_VARS[:5]}
    >>> post |= {v: rng.normal(size=(2, 100, 2)) for v in DIAG_VARS[5:]}
    >>> idata = from_dict({"posterior": post}, coords={"dataset": ["a", "b"]},
    ...                   dims={"delta": ["dataset"], "sigma": ["dataset"]})
    >>> table = diagnostics_table(idata)
    >>> list(table.index[-2:]), list(table.columns[:3])
    (['sigma[a]', 'sigma[b]'], ['r_hat', 'ess_bulk', 'ess_tail'])
    """
    table = diagnostics_summary(idata, var_names)
    table = table[_COLUMNS].astype(float)
    table.index.name = "parameter"
    return table


def check_convergence(
    diag: pd.DataFrame, divergences: int, ess_min: int = ESS_BULK_MIN
) -> tuple[bool, str]:
    """``(converged, problems)``: R-hat <= 1.01, bulk ESS >= ``ess_min`` and no divergences.

    Examples
    --------
    >>> import pandas as pd
    >>> diag = pd.DataFrame({"r_hat": [1.0, 1.02], "ess_bulk": [900.0, 350.0]},
    ...                     index=["delta0", "std0"])
    >>> check_convergence(diag, 0)
    (False, 'R-hat 1.020 > 1.01 (worst: std0); bulk ESS 350 < 400 (worst: std0)')
    """
    problems = []
    worst_r = float(diag["r_hat"].max())
    if not worst_r <= R_HAT_MAX:
        par = diag["r_hat"].idxmax()
        problems.append(f"R-hat {worst_r:.3f} > {R_HAT_MAX} (worst: {par})")
    worst_ess = float(diag["ess_bulk"].min())
    if not worst_ess >= ess_min:
        par = diag["ess_bulk"].idxmin()
        problems.append(f"bulk ESS {worst_ess:.0f} < {ess_min} (worst: {par})")
    if divergences > 0:
        problems.append(f"{divergences} divergent transition(s)")
    return (not problems), "; ".join(problems)


class MCMCChecks:
    """What a result sampled by MCMC (``idata`` and its ``diagnostics`` table) says of its
    convergence: the hierarchical and the Plackett–Luce results share it."""

    idata: Any
    diagnostics: pd.DataFrame
    ess_min: int = ESS_BULK_MIN
    #: the variables whose R-hat and bulk ESS decide convergence; ``None``: every row of
    #: :attr:`diagnostics`
    gated_vars: ClassVar[tuple[str, ...] | None] = None

    @cached_property
    def _arrays(self) -> DrawArrays:
        """The draws as numpy arrays: what the checks read."""
        return DrawArrays.of(self.idata)

    @property
    def divergences(self) -> int:
        return int(self._arrays.groups["sample_stats"]["diverging"].sum())

    @cached_property
    def convergence_diagnostics(self) -> pd.DataFrame:
        """The rows of :attr:`diagnostics` that the convergence check reads: those of
        :attr:`gated_vars`, computed alone (the same numbers as in the whole table, which is
        not computed until asked for), or the whole table."""
        gated = self.gated_vars
        return self.diagnostics if gated is None else diagnostics_table(self._arrays, gated)

    @cached_property
    def _convergence(self) -> tuple[bool, str]:
        return check_convergence(self.convergence_diagnostics, self.divergences, int(self.ess_min))

    @property
    def converged(self) -> bool:
        """R-hat <= 1.01 and bulk ESS >= :attr:`ess_min` (400 unless set) for every parameter
        of :attr:`gated_vars` (every parameter when ``None``), and no divergent transition."""
        return self._convergence[0]

    @property
    def convergence_problems(self) -> str:
        """Which checks failed (empty when converged)."""
        return self._convergence[1]
