"""One install, one fast answer: ``bayescomp[mcmc]`` carries the fast sampler, the default
sampler's draws do not depend on what else is installed, and the command line names the
sampler that ran and every retry.

A package that is "not installed" is blocked in a fresh interpreter by a ``sys.modules``
entry set to ``None`` (``import jax`` then raises ImportError as on a machine without it).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("nutpie")
pytest.importorskip("numba")

REPO = Path(__file__).resolve().parents[1]


def _extras() -> dict[str, list[str]]:
    with (REPO / "pyproject.toml").open("rb") as fh:
        return tomllib.load(fh)["project"]["optional-dependencies"]


def test_the_mcmc_extra_carries_the_fast_path_with_nutpie_pinned():
    from bayescomp.posterior.nutpie_fast import NUTPIE_MINOR

    extras = _extras()
    mcmc = {d.split(">")[0].split("<")[0].strip(): d for d in extras["mcmc"]}
    assert {"pymc", "nutpie", "numba", "platformdirs", "h5py", "h5netcdf"} <= mcmc.keys()
    # the pin is the minor version the private constructors were written against
    ((major, minor),) = NUTPIE_MINOR
    assert mcmc["nutpie"] == f"nutpie>={major}.{minor},<{major}.{minor + 1}"
    assert "nutpie" not in extras  # one extra for MCMC, the one the README names
    assert "bayescomp[mcmc]" in extras["test-mcmc"] and "bayescomp[mcmc]" in extras["numpyro"]
    readme = (REPO / "README.md").read_text()
    assert "bayescomp[mcmc]" in readme and "bayescomp[nutpie]" not in readme


_FIT = """
import json, warnings
import numpy as np
from bayescomp.posterior.hierarchical import hierarchical_test
from bayescomp.posterior.hierarchical.sampling import resolve_sampler
warnings.simplefilter("ignore")
rng = np.random.default_rng(3)
diffs = {f"d{i}": rng.normal(0.02 * (i % 4), 0.01, 20) for i in range(8)}
res = hierarchical_test(diffs, 0.1, rope=0.01, random_state=11, chains=4, draws=500, tune=500)
d0 = res.idata.posterior["delta0"].values
print("RESULT" + json.dumps({"auto": resolve_sampler("auto"), "sampler": res.sampler,
      "p": [res.p_left, res.p_rope, res.p_right], "sum": float(d0.sum()),
      "first": d0[:, :3].tolist(), "pymc": sys.modules.get("pymc") is not None,
      "sklearn": "sklearn" in sys.modules, "converged": res.converged}))
"""


def _fit_without(blocked: tuple[str, ...]) -> dict:
    block = "".join(f"sys.modules[{m!r}] = None\n" for m in blocked)
    proc = subprocess.run(
        [sys.executable, "-c", "import sys\n" + block + _FIT],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT"))
    return json.loads(line[len("RESULT") :])


def test_the_default_sampler_and_seed_give_the_same_draws_whatever_else_is_installed():
    full = _fit_without(())
    # what [mcmc] alone leaves importable: no numpyro or jax; PyMC and PyTensor not needed
    bare = _fit_without(("numpyro", "jax", "jaxlib", "pymc", "pytensor"))
    assert full["auto"] == bare["auto"] == full["sampler"] == bare["sampler"] == "fast"
    assert not full["pymc"] and not bare["pymc"]  # the fast path never imports PyMC
    # nor scikit-learn (only a ConvergenceWarning, which subclasses its own, would)
    assert full["converged"] and not full["sklearn"] and not bare["sklearn"]
    assert full["first"] == bare["first"] and full["sum"] == bare["sum"]
    assert full["p"] == bare["p"]
    # and the probabilities are those of the draws themselves
    d0 = np.asarray(full["first"])
    assert d0.shape == (4, 3) and np.isfinite(d0).all()


def _scores_csv(path: Path) -> None:
    """Three datasets, ten splits: 2 x 100 draws leave too few effective draws, so the
    default fit retries (seen on this seed)."""
    rng = np.random.default_rng(0)
    diffs = {f"d{i}": rng.normal(0.01 * i, 0.02, 10) for i in range(3)}
    rows = [
        {"dataset": ds, "model": m, "split": s, "n_train": 9, "n_test": 1, "accuracy": acc}
        for ds, d in diffs.items()
        for s, x in enumerate(d)
        for m, acc in (("base", 0.8), ("cand", 0.8 + x))
    ]
    pd.DataFrame(rows).to_csv(path, index=False)


def test_cli_names_the_sampler_and_why_each_retry_ran(tmp_path, capsys):
    import bayescomp as bc
    from bayescomp.cli.main import main
    from bayescomp.posterior.hierarchical.sampling import retry_schedule

    _scores_csv(tmp_path / "s.csv")
    argv = ["compare", str(tmp_path / "s.csv"), "--baseline", "base", "--candidate", "cand"]
    argv += ["--metric", "accuracy", "--rope", "0.01", "--draws", "100", "--chains", "2"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    # the same comparison through the library, same seed (the command's default, 0)
    scores = bc.Scores.read_csv(tmp_path / "s.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bc.compare(
            scores, "base", "cand", metric="accuracy", rope=0.01, random_state=0, draws=100,
            chains=2,
        )  # fmt: skip
    tries = res.attempts
    assert len(tries) >= 2, "the seeded problem was chosen to need a retry"
    assert res.sampler == "fast"
    lines = [ln.strip() for ln in out.splitlines()]
    n = len(tries)
    head = next(ln for ln in lines if ln.startswith("sampler "))
    assert head == (
        f"sampler fast: max R-hat {res.diagnostics['r_hat'].max():.3f}, min bulk ESS "
        f"{res.diagnostics['ess_bulk'].min():.0f}, divergences {res.divergences}, attempts {n}"
    )
    # each retry: why (the failed attempt's R-hat, divergences, bulk ESS after its draws)
    # and with what: the next step of the retry schedule
    schedule = retry_schedule(tries[0]["parameterization"], 0.9, 1000)
    for k, (done, step) in enumerate(zip(tries[:-1], schedule[1:n], strict=True), 1):
        param, accept, tune = step
        draws = 200 if any(t["min_ess_bulk"] < res.ess_min for t in tries[:k]) else 100
        assert (tries[k]["parameterization"], tries[k]["tune"], tries[k]["draws"]) == (
            param,
            tune,
            draws,
        )
        assert (
            f"attempt {k}: R-hat {done['max_r_hat']:.3f}, {done['divergences']} divergent "
            + (
                f"transitions, worst bulk ESS {done['min_ess_bulk']:.0f} after {done['draws']:,} "
                f"draws: retrying with the {param} parameterisation, target_accept {accept:g}, "
                f"{tune:,} tuning steps and {draws:,} draws"
            )
            in lines
        )
    # said once, in the table: not again as a warning
    assert "hierarchical fit, attempt" not in err


def test_rank_names_the_sampler(tmp_path, capsys):
    from bayescomp.cli.main import main

    rng = np.random.default_rng(1)
    rows = [
        {"dataset": f"d{d}", "model": m, "split": s, "n_train": 9, "n_test": 1, "accuracy": x}
        for d in range(8)
        for m, mu in (("a", 0.80), ("b", 0.82), ("c", 0.85))
        for s, x in enumerate(rng.normal(mu, 0.01, 5))
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "s.csv", index=False)
    argv = ["rank", str(tmp_path / "s.csv"), "--metric", "accuracy", "--draws", "300"]
    assert main([*argv, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["method"] == "plackett_luce" and record["sampler"] == "gibbs"
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("ranking of 3 models on accuracy (plackett_luce, sampler gibbs, ")


@pytest.mark.parametrize(
    ("blocked", "sampler", "needs"),
    [(("numba",), "fast", "numba"), (("nutpie",), "nutpie", "nutpie"), ((), "numpyro", None)],
)
def test_a_sampler_without_its_package_names_the_extra(blocked, sampler, needs):
    if needs is None:  # numpyro: jax is checked first
        if (
            subprocess.run([sys.executable, "-c", "import jax"], capture_output=True).returncode
            == 0
        ):
            pytest.skip("jax is installed")
        needs = "jax"
    block = "".join(f"sys.modules[{m!r}] = None\n" for m in blocked)
    code = (
        "import sys\n" + block + "from bayescomp.posterior.hierarchical import hierarchical_test\n"
        "try:\n"
        f"    hierarchical_test({{'a': [0.1, 0.3], 'b': [0.1, 0.2]}}, 0.1, sampler={sampler!r})\n"
        "except ImportError as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    extra = "numpyro" if sampler == "numpyro" else "mcmc"
    assert proc.stdout.strip() == (
        f"MissingExtraError sampler={sampler!r} needs {needs}, which is not installed; "
        f"install it with: pip install 'bayescomp[{extra}]'"
    ), proc.stderr
