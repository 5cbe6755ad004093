"""Convergence diagnostics of a hierarchical fit: ArviZ's table and the pass/fail rule."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["ESS_BULK_MIN", "R_HAT_MAX", "check_convergence", "diagnostics_table"]

#: convergence thresholds used by :attr:`HierarchicalResult.converged`
R_HAT_MAX = 1.01
ESS_BULK_MIN = 400

#: parameters whose diagnostics decide convergence (all sampled quantities)
DIAG_VARS = ("delta0", "std0", "nu", "gamma_alpha", "gamma_beta", "delta", "sigma")

_COLUMNS = ["r_hat", "ess_bulk", "ess_tail", "mcse_mean", "mcse_sd"]


def diagnostics_table(idata: Any, var_names: Any = DIAG_VARS) -> pd.DataFrame:
    """R-hat, bulk and tail ESS and Monte Carlo standard errors, one row per parameter.

    ``var_names`` are the variables checked (the hierarchical model's by default; the
    Plackett–Luce ranking passes its own).

    Rows are labelled ``delta0`` or ``delta[<dataset>]`` as ArviZ labels them; the
    index is named ``parameter``.

    Examples
    --------
    >>> import arviz as az, numpy as np
    >>> rng = np.random.default_rng(0)
    >>> post = {v: rng.normal(size=(2, 100)) for v in DIAG_VARS[:5]}
    >>> post |= {v: rng.normal(size=(2, 100, 2)) for v in DIAG_VARS[5:]}
    >>> idata = az.from_dict(posterior=post, coords={"dataset": ["a", "b"]},
    ...                      dims={"delta": ["dataset"], "sigma": ["dataset"]})
    >>> table = diagnostics_table(idata)
    >>> list(table.index[-2:]), list(table.columns[:3])
    (['sigma[a]', 'sigma[b]'], ['r_hat', 'ess_bulk', 'ess_tail'])
    """
    import arviz as az

    table = az.summary(idata, var_names=list(var_names), kind="diagnostics", round_to="none")
    table = table[_COLUMNS].astype(float)
    table.index.name = "parameter"
    return table


def check_convergence(diag: pd.DataFrame, divergences: int) -> tuple[bool, str]:
    """``(converged, problems)``: R-hat <= 1.01, bulk ESS >= 400 and no divergences.

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
    if not worst_ess >= ESS_BULK_MIN:
        par = diag["ess_bulk"].idxmin()
        problems.append(f"bulk ESS {worst_ess:.0f} < {ESS_BULK_MIN} (worst: {par})")
    if divergences > 0:
        problems.append(f"{divergences} divergent transition(s)")
    return (not problems), "; ".join(problems)
