"""Score tables shared by several test files."""

from __future__ import annotations

from pathlib import Path


def write_selection_scores(path: Path, last: str = "svm", n: int = 20) -> Path:
    """A scores CSV whose selection from ``logreg`` steps forest (promote), knn (worse)
    and ``last`` (inconclusive): the table the report and CI-gate tests share."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    base = rng.normal(0.9, 0.02, n)
    rows = {
        "logreg": base,
        "forest": base + 0.02 + rng.normal(0, 0.004, n),
        "knn": base + 0.02 + rng.normal(0, 0.004, n) - 0.03,
        last: base + 0.02 + rng.normal(0, 0.03, n),
    }
    df = pd.DataFrame(
        {
            "model": np.repeat(list(rows), n),
            "split": np.tile(range(n), 4),
            "accuracy": np.concatenate(list(rows.values())),
            "n_train": 90,
            "n_test": 10,
        }
    )
    df.to_csv(path, index=False)
    return path
