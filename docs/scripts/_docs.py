"""What the figure scripts share: where figures go, and how long the heavy runs are.

A script imports it as ``from _docs import IMG, save, mcmc_draws``.  That works both when
the docs build runs the script (sphinx-gallery runs it from ``docs/scripts/`` with that
folder on ``sys.path``) and when it is run by hand (``python docs/scripts/NAME.py``: Python
puts the script's folder first on ``sys.path``).  Its name starts with ``_``, so the gallery
does not run it as an example.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

REPO = Path(__file__).resolve().parents[2]
IMG = REPO / "docs" / "img"  # built figures: written here, ignored by git, read by the pages

if str(REPO) not in sys.path:  # the checkout's bayescomp, also when run by hand
    sys.path.insert(0, str(REPO))


def save(fig, name: str, dpi: int = 100) -> Path:
    """Write ``fig`` to ``docs/img/NAME`` (the figure stays open for the gallery)."""
    IMG.mkdir(parents=True, exist_ok=True)
    path = IMG / name
    fig.savefig(path, dpi=dpi)
    print("wrote", path.relative_to(REPO))
    return path


def mcmc_draws(full: int) -> int:
    """Draws per chain: ``full``, or ``$BAYESCOMP_DOCS_DRAWS`` when set (CI keeps it small)."""
    value = os.environ.get("BAYESCOMP_DOCS_DRAWS")
    if value is None:
        return full
    if not value.isdigit() or int(value) < 100:
        raise ValueError(f"BAYESCOMP_DOCS_DRAWS must be an integer >= 100; got {value!r}")
    return int(value)
