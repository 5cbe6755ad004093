"""Result files written by earlier versions still load, under either ArviZ (0.2x or 1.x).

``tests/data/hierarchical_result_v0_1_0.nc`` was written by ``HierarchicalResult.to_netcdf``
of bayescomp 0.1.0 (PyMC 5, ArviZ 0.23) from a small seeded fit of four simulated datasets
(``sampler="pymc"``, 2 chains x 150 draws: deliberately not converged, so the file also
carries a four-attempt retry log).  The numbers below were printed by that version.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("h5py")

FIXTURE = Path(__file__).parent / "data" / "hierarchical_result_v0_1_0.nc"


@pytest.fixture(scope="module")
def old():
    from bayescomp.posterior.hierarchical import load

    return load(FIXTURE)


def test_file_of_version_0_1_0_loads_with_its_numbers(old):
    assert old.p_left == pytest.approx(146 / 600, abs=1e-12)
    assert old.p_rope == pytest.approx(362 / 600, abs=1e-12)
    assert old.p_right == pytest.approx(92 / 600, abs=1e-12)
    assert float(old._delta0.mean()) == pytest.approx(-0.0022378138704590668, rel=1e-12)
    assert (old.sampler, old.parameterization, old.metric) == ("pymc", "noncentered", "accuracy")
    assert (old.baseline_name, old.candidate_name, old.rope) == ("nbc", "aode", 0.01)
    assert old.random_state == 3 and old.refitted and old.higher_is_better
    assert len(old.attempts) == 4 and not old.converged
    assert [a["parameterization"] for a in old.attempts] == [
        "centered",
        "centered",
        "noncentered",
        "noncentered",
    ]
    assert old.dataset_names == ("ds0", "ds1", "ds2", "ds3")


def test_old_file_supports_every_view_and_round_trips(old, tmp_path):
    from bayescomp.posterior.hierarchical import load

    table = old.per_dataset
    assert list(table["dataset"]) == ["ds0", "ds1", "ds2", "ds3"]
    assert list(table["n"]) == [10, 12, 14, 16]
    # the stored observed means are the data's (seeded simulation of the fixture script)
    rng = np.random.default_rng(7)
    diffs = [rng.normal(0.01 * (i - 1), 0.02, 10 + 2 * i) for i in range(4)]
    np.testing.assert_allclose(
        old.idata.constant_data["observed_mean"].values, [d.mean() for d in diffs], rtol=1e-12
    )
    assert {"r_hat", "ess_bulk"} <= set(old.diagnostics.columns)
    lo, hi = old.hdi(0.95)
    assert lo < float(old._delta0.mean()) < hi
    path = tmp_path / "again.nc"
    old.to_netcdf(path)
    assert load(path) == old
