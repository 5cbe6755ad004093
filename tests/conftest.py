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
    """Skips without Java or PySpark; starts the one JVM of the run (every later session of
    this process reuses PySpark's gateway) under a watchdog that kills it, and what it
    started, when pytest dies (tests/processes.py: it exits on its own only once its stdin
    closes, which a forked child can hold open); stops the session at the end of the run."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java (a JRE); not installed here")
    pytest.importorskip("pyspark")
    joblibspark = pytest.importorskip("joblibspark")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers: this venv's python
    joblibspark.register_spark()
    from processes import descendants, guard
    from pyspark import SparkContext

    _spark_builder().getOrCreate()
    jvm = SparkContext._gateway.proc.pid
    guard({jvm, *descendants(jvm)})
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


#: The heaviest tests of real clusters and servers, killed-and-resumed runs and multi-look operating
#: characteristics: each one is the only check of what it checks, so CI runs every one of
#: them in a stage of its own right after the default suite (.ci/run, ``-m ci``), and the
#: default suite (the README's ``python -m pytest``) stays within its ten minutes.
CI_STAGE = {
    "tests/test_backends.py::test_killed_run_resumes_from_the_store[spark]",
    "tests/test_backends.py::test_killed_run_resumes_from_the_store[ray]",
    "tests/test_family.py::test_sequential_looks_keep_the_family_wise_rate[10]",
    "tests/test_family.py::test_family_wise_false_promotion_at_the_edge_with_ten_challengers[independent]",
    "tests/test_family.py::test_select_family_refuses_a_per_step_promotion_it_cannot_trust",
    "tests/test_mlflow.py::test_registry_champion_to_gated_promotion",
    "tests/test_store.py::test_sigkill_then_resume_equals_uninterrupted_run",
    "tests/test_worker_loss.py::test_all_workers_killed_stops_then_resumes",
    "tests/test_spark_metrics.py::test_threshold_curves_on_a_spark_dataframe_equal_in_memory",
    "tests/test_spark_connect.py::test_blb_metric_on_spark_connect_equals_numpy_within_monte_carlo_error",
    "tests/test_spark_connect.py::test_bootstrap_metric_on_spark_connect_equals_classic_spark",
    "tests/test_spark_connect.py::test_connect_server_dies_when_its_test_process_is_sigkilled",
    "tests/test_mlflow_compare.py::test_evaluator_round_trip_gates_with_validate_evaluation_results",
    "tests/test_mlflow_compare.py::test_compare_runs_on_real_genai_runs",
    "tests/test_processes.py::test_mlflow_server_dies_with_a_killed_pytest",
    "tests/test_docs_examples.py::test_docs_page_examples_run[mlflow.md]",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.split("@")[0] in CI_STAGE:
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.ci)
