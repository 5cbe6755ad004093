"""Shared fixtures. Real benchmark data lives in ../shared/data (never copied into the repo)."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("BAYESCOMP_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Folder of the shared benchmark data; tests using it skip cleanly where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared benchmark data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
