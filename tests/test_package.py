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


@pytest.mark.parametrize("command", ["", *__import__("bayescomp.cli.main").cli.main.COMMANDS])
def test_help_imports_no_scientific_library(command):
    """``bayescomp --help`` and each sub-command's answer at once: no numpy, nothing heavier."""
    argv = [command, "--help"] if command else ["--help"]
    code = (
        "import sys\nfrom bayescomp.cli.main import main\ntry:\n"
        f"    main({argv!r})\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n"
        "print('MODULES', ' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert "usage: bayescomp" in proc.stdout
    loaded = set(proc.stdout.rsplit("MODULES", 1)[1].split())
    assert "bayescomp" in loaded
    assert not loaded & {*HEAVY, "numpy", "scipy", "numba", "joblib", "pyarrow"}


def test_the_warnings_that_mean_scikit_learns_subclass_them_once_loaded():
    """Defined on first use (so the CLI's --help needs no scikit-learn), one class each."""
    loaded = _modules_after(
        "from bayescomp.core import exceptions as ex; ex.MissingExtraError; ex.BayescompWarning"
    )
    assert "sklearn" not in loaded
    from sklearn import exceptions as sk

    from bayescomp.core import exceptions as ex

    for name in ("ConvergenceWarning", "FitFailedWarning"):
        cls = getattr(ex, name)
        assert issubclass(cls, getattr(sk, name)) and issubclass(cls, ex.BayescompWarning)
        assert cls is getattr(bayescomp, name) is getattr(ex, name)
        assert f"{cls.__module__}.{cls.__qualname__}" == f"bayescomp.core.exceptions.{name}"
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        ex.Nope  # noqa: B018
