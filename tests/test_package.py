"""Package-level contracts: a light import, every public name resolvable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import bayescomp

REPO = Path(__file__).resolve().parents[1]
HEAVY = (
    "pymc",
    "pytensor",
    "arviz",
    "nutpie",
    "numpyro",
    "jax",
    "dask",
    "sklearn",
    "pandas",
    "matplotlib",
)


def _modules_after(code: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", f"import sys; {code}; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    return set(proc.stdout.split())


def test_import_is_light():
    loaded = _modules_after("import bayescomp")
    assert not [m for m in HEAVY if m in loaded]


def test_single_dataset_comparison_never_imports_pymc():
    loaded = _modules_after(
        "import numpy as np, bayescomp as bc; "
        "bc.correlated_ttest(np.arange(5.0), np.arange(5.0) + [1, 2, 1, 2, 1], rho=0.1)"
    )
    assert "pymc" not in loaded and "pytensor" not in loaded


@pytest.mark.parametrize("name", sorted(bayescomp._EXPORTS))
def test_every_public_name_resolves(name):
    assert getattr(bayescomp, name) is not None
    assert name in dir(bayescomp)


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        bayescomp.nope  # noqa: B018


def test_version_comes_from_the_package_metadata():
    from importlib import metadata

    assert bayescomp.__version__ == metadata.version("bayescomp")


def test_version_of_an_uninstalled_checkout_is_read_from_pyproject():
    import tomllib

    with (REPO / "pyproject.toml").open("rb") as fh:
        expected = tomllib.load(fh)["project"]["version"]
    assert bayescomp._source_version() == expected


def test_cli_version_flag(capsys):
    from bayescomp.cli import main as cli

    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"bayescomp {bayescomp.__version__}"


def test_version_falls_back_to_pyproject_when_not_installed(monkeypatch):
    from importlib import metadata

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert bayescomp._version() == bayescomp._source_version()
