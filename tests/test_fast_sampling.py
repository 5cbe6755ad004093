"""The fast samplers end to end: nutpie on the hand-written densities, the disk cache, no PyMC.

``bayescomp/posterior/nutpie_fast.py`` builds nutpie models from C callbacks through
nutpie's private constructors (pinned to nutpie 0.16.x in pyproject.toml).  These tests
sample through that path; an upgrade of nutpie that changes those constructors fails
here, loudly, instead of silently falling back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("nutpie")
pytest.importorskip("numba")
pytest.importorskip("platformdirs")

REPO = Path(__file__).resolve().parents[1]


def test_nutpie_version_is_the_pinned_one_and_the_fast_path_is_used():
    from bayescomp.posterior.hierarchical.sampling import resolve_sampler
    from bayescomp.posterior.nutpie_fast import NUTPIE_MINOR, fast_path_available, nutpie_minor

    assert nutpie_minor() in NUTPIE_MINOR, (
        f"nutpie {nutpie_minor()} is installed but the fast path was written against "
        f"{NUTPIE_MINOR}: check nutpie_fast.CallbackModel and sample against nutpie's compile_pymc.py, "
        "then widen NUTPIE_MINOR and the pin in pyproject.toml"
    )
    assert fast_path_available()
    assert resolve_sampler("auto") == "fast" and resolve_sampler("fast") == "fast"
    assert resolve_sampler("nutpie") == "nutpie" and resolve_sampler("pymc") == "pymc"


@pytest.fixture(scope="module")
def diffs():
    rng = np.random.default_rng(4)
    return {f"d{i}": rng.normal(0.01 + 0.01 * (i % 3), 0.02, 10 + i) for i in range(8)}


@pytest.fixture(scope="module")
def fast_fit(diffs):
    from bayescomp.posterior.hierarchical import hierarchical_test

    return hierarchical_test(
        diffs, 0.1, rope=0.01, random_state=5, chains=2, draws=600, tune=600, sampler="fast"
    )


@pytest.mark.slow  # ~100 s: .ci/run runs it on the PyMC 6 stack
@pytest.mark.stack
def test_fast_fit_is_seeded_and_agrees_with_nutpie_on_pymc(diffs, fast_fit):
    from bayescomp.posterior.hierarchical import hierarchical_test

    res = fast_fit
    assert res.sampler == "fast" and res.converged, res.convergence_problems
    again = hierarchical_test(
        diffs, 0.1, rope=0.01, random_state=5, chains=2, draws=600, tune=600, sampler="fast"
    )
    assert np.array_equal(
        again.idata.posterior["delta0"].values, res.idata.posterior["delta0"].values
    )
    ref = hierarchical_test(
        diffs, 0.1, rope=0.01, random_state=6, chains=2, draws=600, tune=600, sampler="nutpie"
    )
    assert ref.sampler == "nutpie"
    # same posterior: delta0's mean within 4 Monte-Carlo standard errors of the difference
    a, b = res._delta0, ref._delta0
    se = np.hypot(
        res.diagnostics.loc["delta0", "mcse_mean"], ref.diagnostics.loc["delta0", "mcse_mean"]
    )
    assert abs(a.mean() - b.mean()) < 4 * se
    for p, q in zip(
        res.probabilities()["next_dataset"], ref.probabilities()["next_dataset"], strict=True
    ):
        assert abs(p - q) < 0.08  # region probabilities: ~0.5 / sqrt(ESS) each, ESS >= 400


def test_result_layout_is_unchanged(fast_fit):
    post = fast_fit.idata.posterior
    assert set(post.data_vars) == {
        "delta0",
        "std0",
        "nu",
        "gamma_alpha",
        "gamma_beta",
        "delta",
        "sigma",
    }
    assert post["delta"].dims == ("chain", "draw", "dataset")
    kept = next(a for a in fast_fit.attempts if a["converged"])  # retries may double draws
    assert post.sizes["chain"] == 2 and post.sizes["draw"] == kept["draws"]
    assert fast_fit.attempts[0]["draws"] == 600
    assert fast_fit.idata.posterior.attrs["sampler"] == "fast"


_CHILD = """
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
from bayescomp.posterior.hierarchical import hierarchical_test
rng = np.random.default_rng(4)
d = {f"d{i}": rng.normal(0.01, 0.02, 12) for i in range(5)}
res = hierarchical_test(d, 0.1, random_state=1, chains=2, draws=300, tune=300, refit=False)
decided = [res.decision(0.95).outcome, res.converged, res.diagnostics.shape, res.next_dataset.p_rope]
heavy = sorted(m for m in ("arviz", "xarray", "matplotlib") if m in sys.modules)
post = res.idata.posterior  # built now, from the same draws
print(json.dumps({"pymc": "pymc" in sys.modules, "pytensor": "pytensor" in sys.modules,
                  "sampler": res.sampler, "d0": float(res._delta0.sum()), "heavy": heavy,
                  "idata_d0": float(post["delta0"].values.sum()),
                  "attrs": {k: post.attrs[k] for k in ("sampler", "refitted", "rope")},
                  "attempt_draws": json.loads(post.attrs["attempts"])[0]["draws"],
                  "names": [str(x) for x in post["dataset"].values]}))
"""


def _child(cache: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO), "BAYESCOMP_CACHE_DIR": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_fresh_process_needs_no_pymc_nor_arviz_and_damaged_cache_is_rebuilt(tmp_path):
    first = _child(tmp_path)
    assert first["sampler"] == "fast" and not first["pymc"] and not first["pytensor"]
    # the fit, its decision and diagnostics read numpy arrays: ArviZ (xarray, matplotlib) is
    # imported only when the InferenceData is read, and then holds the same draws and settings
    assert first["heavy"] == []
    assert first["idata_d0"] == first["d0"] and first["names"] == [f"d{i}" for i in range(5)]
    attrs = first["attrs"]
    assert attrs["sampler"] == "fast" and attrs["refitted"] == 0 and attrs["rope"] == 0.0
    assert first["attempt_draws"] == 300
    jit = next((tmp_path / "jit").iterdir())
    files = [p for p in jit.rglob("*.nbc")]
    assert files and (jit / "manifest.json").exists()
    # a damaged cache file (garbage, as after a crash mid-write) is never trusted
    files[0].write_bytes(b"\x00garbage")
    second = _child(tmp_path)
    assert second == first  # same seed, same draws, from freshly compiled code
    manifest = json.loads((jit / "manifest.json").read_text())
    assert all((jit / name).exists() for name in manifest)
    assert (jit / str(files[0].relative_to(jit))).read_bytes() != b"\x00garbage"


def test_draws_read_from_the_arrow_trace_equal_nutpies_own_conversion():
    """nutpie_fast.Draws reads the kept draws without ArviZ; nutpie's converter, on the same
    seeded run, is the reference (tuning draws dropped, shapes, values, divergences)."""
    import nutpie

    from bayescomp.posterior import nutpie_fast
    from bayescomp.posterior.hierarchical import fast
    from bayescomp.posterior.hierarchical.model import prepare_datasets

    rng = np.random.default_rng(0)
    prep = prepare_datasets({f"d{i}": rng.normal(0.01, 0.02, 10) for i in range(3)}, 0.1, 1e3)
    k, q = fast.kernels(), prep.q
    variables = fast._variables(q, "noncentered")
    model = nutpie_fast.make_model(
        k.logp_cfunc,
        k.expand_cfunc,
        fast.pack_data(prep.standardised(), "noncentered"),
        fast.unconstrained_size(q),
        fast._initial_point(q),
        variables,
        {v: ("dataset",) for v, shape in variables if shape},
        {"dataset": [str(i) for i in range(q)]},
    )
    run = dict(draws=70, tune=40, chains=3, cores=1, seed=3, target_accept=0.6)
    ours = nutpie_fast.sample(model, progressbar=False, **run)
    ref = nutpie.sample(model, progress_bar=False, **run)
    assert sorted(ours.posterior) == sorted(ref.posterior.data_vars)
    for name in ours.posterior:
        np.testing.assert_array_equal(ours.posterior[name].values, ref.posterior[name].values)
    assert ours.posterior["delta"].values.shape == (3, 70, q)
    div = ours.sample_stats["diverging"].values
    np.testing.assert_array_equal(div, ref.sample_stats["diverging"].values)
    assert div.dtype == bool and div.shape == (3, 70)
