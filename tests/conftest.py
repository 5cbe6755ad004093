"""Shared fixtures. Real benchmark data lives in ../shared/data (never copied into the repo)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

# Fuzzing profiles (tests/test_fuzz_*.py): a fast default for every run, and a big one by hand:
#   HYPOTHESIS_PROFILE=slow python -m pytest tests/test_fuzz_api.py tests/test_fuzz_cli.py
settings.register_profile(
    "default",
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "slow",
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REPO = Path(__file__).resolve().parents[1]

# tests/plugins holds a compare-method plugin that tests install on purpose (entry points);
# collecting it for doctests would register it in every test process
collect_ignore = ["plugins"]
SHARED_DATA = Path(os.environ.get("BAYESCOMP_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder of the shared benchmark data; tests using it skip cleanly where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared benchmark data not found at {SHARED_DATA}")
    return SHARED_DATA


def _spark_builder():
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("bayescomp-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
    )


@pytest.fixture(scope="session")
def _spark_available():
    """Skips without Java or PySpark; stops the session at the end of the run."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java (a JRE); not installed here")
    pytest.importorskip("pyspark")
    joblibspark = pytest.importorskip("joblibspark")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers: this venv's python
    joblibspark.register_spark()
    yield
    from pyspark.sql import SparkSession

    if (active := SparkSession.getActiveSession()) is not None:
        active.stop()


@pytest.fixture(scope="module")
def spark_session(_spark_available):
    """One small Spark ``local[2]`` session for the whole test run (tests using it are in the
    ``spark`` xdist group, so one process holds it).  Fetched per module with
    ``getOrCreate``: the running session, or a new one if something (a docs example's
    ``spark.stop()``) stopped it."""
    return _spark_builder().getOrCreate()


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
