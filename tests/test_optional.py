"""Optional dependencies: PyMC and h5py only where used, and a clear error naming the extra.

A missing package is simulated in a fresh interpreter by a ``sys.modules`` entry set to
``None``, which makes ``import pymc`` raise ImportError exactly as on a machine without it.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayescomp.core.exceptions import MissingExtraError
from bayescomp.core.optional import require

REPO = Path(__file__).resolve().parents[1]
MESSAGE = "pip install 'bayescomp[mcmc]'"


def _run_without(missing: tuple[str, ...], code: str) -> subprocess.CompletedProcess:
    blocked = "; ".join(f"sys.modules[{m!r}] = None" for m in missing)
    return subprocess.run(
        [sys.executable, "-c", f"import sys; {blocked}\n{code}"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )


def test_require_returns_the_module_when_installed():
    import math

    assert require("math", "mcmc", "anything") is math


def test_require_names_the_extra_and_the_purpose():
    with pytest.raises(ImportError) as info:
        require("bayescomp_no_such_module", "mcmc", "the hierarchical model")
    assert str(info.value) == (
        "the hierarchical model needs bayescomp_no_such_module, which is not installed; "
        "install it with: pip install 'bayescomp[mcmc]'"
    )
    assert info.value.name == "bayescomp_no_such_module"
    assert type(info.value) is MissingExtraError
    assert isinstance(info.value.__cause__, ModuleNotFoundError)


def test_hierarchical_model_without_pymc_names_the_extra():
    proc = _run_without(
        ("pymc", "nutpie"),  # the fast sampler runs without PyMC; without both, nothing can
        """
import numpy as np, bayescomp as bc
rng = np.random.default_rng(0)
diffs = {f"d{i}": rng.normal(0.01, 0.02, 20) for i in range(4)}
for call in (lambda: bc.hierarchical_test(diffs, rho=0.1, rope=0.01, random_state=0),
             lambda: bc.compare(bc.Scores.from_frame(__import__("pandas").DataFrame(
                 {"dataset": np.repeat(["a", "b"], 20), "model": np.tile(np.repeat(["x", "y"], 10), 2),
                  "split": np.tile(np.arange(10), 4), "accuracy": rng.uniform(0.7, 0.9, 40)}),
                 test_fraction=0.1), "x", "y", rope=0.01)):
    try:
        call()
    except ImportError as e:
        print("ImportError:", e)
    else:
        print("no error")
""",
    )
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(("ImportError", "no error"))]
    expected = (
        "ImportError: the hierarchical model needs pymc, which is not installed; "
        f"install it with: {MESSAGE}"
    )
    assert lines == [expected, expected]


def test_cli_across_datasets_without_pymc_is_a_one_line_error(tmp_path):
    rng = np.random.default_rng(0)
    csv = tmp_path / "scores.csv"
    pd.DataFrame(
        {
            "dataset": np.repeat(["a", "b"], 20),
            "model": np.tile(np.repeat(["x", "y"], 10), 2),
            "split": np.tile(np.arange(10), 4),
            "accuracy": rng.uniform(0.7, 0.9, 40),
        }
    ).to_csv(csv, index=False)
    proc = _run_without(
        ("pymc", "nutpie"),  # the fast sampler runs without PyMC; without both, nothing can
        f"""
from bayescomp.cli.main import main
sys.exit(main(["compare", {str(csv)!r}, "--baseline", "x", "--candidate", "y",
               "--metric", "accuracy", "--rope", "0.01", "--test-fraction", "0.1"]))
""",
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        "bayescomp compare: error: the hierarchical model needs pymc, which is not installed; "
        f"install it with: {MESSAGE}"
    )


def test_loading_a_result_without_h5py_names_the_extra(tmp_path):
    path = tmp_path / "result.nc"
    path.write_bytes(b"not read: the check comes first")
    proc = _run_without(
        ("h5py",),
        f"""
import bayescomp as bc
try:
    bc.load({str(path)!r})
except ImportError as e:
    print("ImportError:", e)
""",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        "ImportError: reading a hierarchical result (bayescomp.load) needs h5py, which is not "
        f"installed; install it with: {MESSAGE}"
    )


def test_one_dataset_comparison_and_selection_need_neither_pymc_nor_h5py():
    proc = _run_without(
        ("pymc", "pytensor", "h5py", "nutpie"),
        """
import numpy as np, pandas as pd, bayescomp as bc
rng = np.random.default_rng(0)
frame = pd.DataFrame({"model": np.repeat(["base", "cand"], 30), "split": np.tile(np.arange(30), 2),
                      "accuracy": np.r_[rng.normal(0.80, 0.01, 30), rng.normal(0.85, 0.01, 30)]})
scores = bc.Scores.from_frame(frame, test_fraction=0.1)
res = bc.compare(scores, "base", "cand", rope=0.01)
sel = bc.select(scores, baseline="base", metric="accuracy", rope=0.01)
print(res.decision(0.95).outcome, sel.champion, round(res.hdi()[0], 4) < round(res.hdi()[1], 4))
""",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-3:] == ["promote", "cand", "True"]


def test_mcmc_packages_are_in_the_extra_not_in_the_core_dependencies():
    with (REPO / "pyproject.toml").open("rb") as fh:
        project = tomllib.load(fh)["project"]
    core = {d.split(">")[0].split("<")[0].split("[")[0].strip() for d in project["dependencies"]}
    extras = project["optional-dependencies"]
    mcmc = {d.split(">")[0].strip() for d in extras["mcmc"]}
    assert {"pymc", "h5py", "h5netcdf"} <= mcmc
    assert not core & {"pymc", "h5py", "h5netcdf", "pytensor"}

    # what CI and the README's test command install includes the extra (directly or
    # through another extra of the package)
    def included(extra: str) -> set[str]:
        names = {extra}
        for dep in extras[extra]:
            if dep.startswith("bayescomp["):
                names |= included(dep[len("bayescomp[") : -1])
        return names

    assert "mcmc" in included("test") and "mcmc" in included("docs")
    assert "mcmc" in included("test-mcmc")  # the Python 3.12 stage of .ci/run
