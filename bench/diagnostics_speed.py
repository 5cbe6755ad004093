"""Benchmark: the hand-vectorised R-hat / ESS / MCSE against ArviZ's own calls, same draws.

Run by hand from the repository root (under either ArviZ: 0.2x on Python 3.11, 1.x on 3.12)::

    python bench/diagnostics_speed.py [--data ../shared/data/baycomp_accuracies.txt]
                                      [--reps 7] [--store /tmp/bc_diag_draws]

The package's own fits, 4 chains x 1000 draws after 1000 tuning steps:

* the hierarchical model of ``bc.compare(..., method="hierarchical")``, nbc against aode on
  the shared baycomp data (53 distinct datasets: 113 scalars; skipped when the file is absent);
* the Plackett–Luce fit of 20 models x 100 synthetic datasets (``bench/plackett_luce.py``'s
  table: 20 scalars).

``--store`` keeps each fit's draws as a netCDF file (written on the first run, read on the
next), so both ArviZ stacks are timed on the very same draws.  Only the diagnostics are
timed: ``diagnostics_summary`` (:mod:`bayescomp.core.mcmc_diagnostics`) against
``az.rhat``, ``az.ess(method="bulk")``, ``az.ess(method="tail")``, ``az.mcse(method="mean")``
and ``az.mcse(method="sd")`` on the InferenceData / DataTree, interleaved A/B for
``--reps`` repetitions; CPU seconds (``time.process_time``) and wall seconds, medians.
The largest relative difference of each column between the two is printed.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "bench")]

MCMC = dict(chains=4, draws=1000, tune=1000, random_state=0)
COLUMNS = ["r_hat", "ess_bulk", "ess_tail", "mcse_mean", "mcse_sd"]


def fits(data: Path, store: Path | None) -> list[tuple[str, object, tuple[str, ...]]]:
    """``(label, idata, var_names)`` of each fit: read from ``store`` or sampled (and saved)."""
    from plackett_luce import synthetic

    import bayescomp as bc
    from bayescomp.core.arviz_compat import from_netcdf
    from bayescomp.posterior.hierarchical.diagnostics import DIAG_VARS

    def hierarchical():
        from baycomp_data import load_baycomp_accuracies

        scores = bc.Scores.from_frame(load_baycomp_accuracies(data))
        res = bc.compare(scores, "nbc", "aode", metric="accuracy", method="hierarchical", **MCMC)
        return res.idata

    def plackett_luce():
        scores = bc.Scores.from_frame(synthetic())
        return bc.rank(scores, "accuracy", method="plackett_luce", **MCMC).idata

    todo = [("plackett_luce 20 x 100", plackett_luce, ("worth",))]
    if data.exists():
        todo.insert(0, ("hierarchical nbc/aode", hierarchical, DIAG_VARS))
    else:
        print(f"shared data not found at {data}: the hierarchical fit is skipped")
    out = []
    for label, fit, var_names in todo:
        path = None if store is None else store / f"{label.split()[0]}.nc"
        if path is not None and path.exists():
            idata = from_netcdf(str(path))
        else:
            idata = fit()
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                idata.to_netcdf(str(path))
        out.append((label, idata, tuple(var_names)))
    return out


def hand(idata, var_names) -> np.ndarray:
    """The five columns by the package's vectorised numpy copy: ``(k, 5)``."""
    from bayescomp.core.arviz_compat import diagnostics_summary

    return diagnostics_summary(idata, var_names)[COLUMNS].to_numpy()


def by_arviz(idata, var_names) -> np.ndarray:
    """The five columns by ArviZ's public functions, rows in ``diagnostics_summary``'s order."""
    import arviz as az

    from bayescomp.core.arviz_compat import _tail_probs, arviz_major

    names = list(var_names)
    tail = {"prob": _tail_probs()} if arviz_major() >= 1 else {}  # 0.2x: (0.05, 0.95)
    parts = [
        az.rhat(idata, var_names=names),
        az.ess(idata, var_names=names, method="bulk"),
        az.ess(idata, var_names=names, method="tail", **tail),
        az.mcse(idata, var_names=names, method="mean"),
        _mcse_sd(az, idata, names),
    ]
    if arviz_major() >= 1:  # a DataTree in, a DataTree out
        parts = [p["posterior"].to_dataset() if "posterior" in p.children else p for p in parts]
    cols = [np.concatenate([np.asarray(p[v].values, float).ravel() for v in names]) for p in parts]
    return np.column_stack(cols)


def _mcse_sd(az, idata, names):
    """``az.mcse(method="sd")``.  ArviZ 0.23 with numba installed and numpy >= 2.4 raises
    ``TypeError: only 0-dimensional arrays can be converted to Python scalars`` there
    (``float()`` of a length-1 array in ``_mcse_sd``): that call runs with numba off."""
    try:
        return az.mcse(idata, var_names=names, method="sd")
    except TypeError:
        az.Numba.disable_numba()
        try:
            return az.mcse(idata, var_names=names, method="sd")
        finally:
            az.Numba.enable_numba()


def rel_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Largest relative difference of each column (NaN where both are NaN counts as equal)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.abs(a - b) / np.maximum(np.abs(b), 1e-300)
    d[np.isnan(a) & np.isnan(b)] = 0.0
    return np.nanmax(np.where(np.isnan(a) != np.isnan(b), np.inf, d), axis=0)


def timed(fn, *args) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    fn(*args)
    return time.process_time() - c0, time.perf_counter() - w0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--data", type=Path, default=REPO.parent / "shared" / "data" / "baycomp_accuracies.txt"
    )
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--store", type=Path, default=None, help="keep / reuse the fits' draws here")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import os

    import arviz as az

    print(
        f"ArviZ {az.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}; "
        f"load average {os.getloadavg()[0]:.1f}; {args.reps} interleaved reps, medians"
    )
    ratios = []
    for label, idata, var_names in fits(args.data, args.store):
        a, b = hand(idata, var_names), by_arviz(idata, var_names)  # warm both (imports)
        t_hand, t_az = [], []
        for _ in range(args.reps):
            t_hand.append(timed(hand, idata, var_names))
            t_az.append(timed(by_arviz, idata, var_names))
        ch, wh = np.median(t_hand, axis=0)
        ca, wa = np.median(t_az, axis=0)
        diff = rel_diff(a, b)
        print(
            f"\n{label}: {a.shape[0]} scalars, {idata.posterior.sizes['draw']} draws x "
            f"{idata.posterior.sizes['chain']} chains"
        )
        print(f"  hand copy (numpy) CPU {ch * 1e3:8.1f} ms  wall {wh * 1e3:8.1f} ms")
        print(f"  ArviZ calls       CPU {ca * 1e3:8.1f} ms  wall {wa * 1e3:8.1f} ms")
        print(f"  ratio ArviZ / hand copy: CPU {ca / ch:5.1f}x  wall {wa / wh:5.1f}x")
        print(
            "  largest relative difference: "
            + ", ".join(f"{c} {d:.1e}" for c, d in zip(COLUMNS, diff, strict=True))
        )
        ratios.append(ca / ch)
    keep = min(ratios) > 1.5  # issue 39: ArviZ within ~1.5x would replace the hand copy
    print(
        f"\ndecision: {'keep the hand copy' if keep else 'use ArviZ'} "
        f"(ArviZ takes {min(ratios):.1f}-{max(ratios):.1f}x its CPU time; the rule: "
        "ArviZ within 1.5x replaces bayescomp/core/mcmc_diagnostics.py)"
    )


if __name__ == "__main__":
    main()
