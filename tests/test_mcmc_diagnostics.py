"""The vectorised R-hat / ESS / MCSE table against ArviZ's own ``az.summary`` (either stack).

``diagnostics_summary`` must give the numbers ``az.summary(kind="diagnostics")`` of the
installed ArviZ gives (ArviZ 0.2x here; ArviZ 1.x in the Python 3.12 stage of CI), to
1e-10 relative, on real posterior draws and on AR(1) chains with known autocorrelation,
including ties, a constant parameter, an odd draw count, one chain and a NaN.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

az = pytest.importorskip("arviz")

from bayescomp.core.arviz_compat import diagnostics_summary, from_dict, from_netcdf  # noqa: E402
from bayescomp.core.mcmc_diagnostics import ess  # noqa: E402
from bayescomp.posterior.hierarchical.diagnostics import DIAG_VARS  # noqa: E402

DATA = Path(__file__).parent / "data"
COLUMNS = ["r_hat", "ess_bulk", "ess_tail", "mcse_mean", "mcse_sd"]


def _arviz_table(idata, var_names):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ArviZ's own NaN divisions
        table = az.summary(idata, var_names=list(var_names), kind="diagnostics", round_to="none")
    return table[COLUMNS].astype(float)


def _assert_same(idata, var_names):
    ours = diagnostics_summary(idata, var_names)
    ref = _arviz_table(idata, var_names)
    assert list(ours.columns) == COLUMNS
    assert list(ours.index) == list(ref.index)
    got, want = ours.to_numpy(), ref.to_numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=0, equal_nan=True)


def _ar1(rng, chains, draws, phi):
    phi = np.atleast_1d(np.asarray(phi, dtype=float))
    x = np.zeros((chains, draws, phi.size))
    noise = rng.normal(size=x.shape)
    for t in range(1, draws):
        x[:, t] = phi * x[:, t - 1] + noise[:, t]
    return x


def test_real_posterior_draws_match_arviz_summary():
    idata = from_netcdf(str(DATA / "hierarchical_result_v0_1_0.nc"))
    _assert_same(idata, DIAG_VARS)


@pytest.mark.parametrize(("chains", "draws"), [(4, 1000), (4, 999), (1, 60), (3, 5)])
def test_ar1_chains_match_arviz_summary(chains, draws):
    rng = np.random.default_rng(draws)
    post = {
        "a": _ar1(rng, chains, draws, 0.9)[..., 0],
        "b": _ar1(rng, chains, draws, [0.0, 0.5, 0.97, -0.6]),
        "const": np.full((chains, draws), 2.5),
    }
    post["b"][:, :, 3] = np.round(post["b"][:, :, 3])  # many ties: average ranks
    post["b"][0, 1, 0] = np.nan  # one NaN: that column is NaN throughout
    post["b"][1:, :, 2] += 3.0  # chains stuck apart: R-hat far above 1
    idata = from_dict({"posterior": post}, coords={"k": ["x", "y", "z", "w"]}, dims={"b": ["k"]})
    _assert_same(idata, ["a", "b", "const"])


def test_two_dimensional_variable_labels_match_arviz():
    rng = np.random.default_rng(3)
    idata = from_dict(
        {"posterior": {"w": _ar1(rng, 2, 200, [0.3] * 6).reshape(2, 200, 2, 3)}},
        coords={"r": ["r0", "r1"], "s": [0, 1, 2]},
        dims={"w": ["r", "s"]},
    )
    _assert_same(idata, ["w"])


def test_ess_of_ar1_is_near_its_theoretical_value():
    # an AR(1) chain with coefficient phi has ESS/N -> (1 - phi) / (1 + phi)
    rng = np.random.default_rng(11)
    x = _ar1(rng, 4, 20000, [0.0, 0.5, 0.8])
    rel = ess(x) / x[:, :, 0].size
    np.testing.assert_allclose(rel, [1.0, 1 / 3, 1 / 9], rtol=0.08)
