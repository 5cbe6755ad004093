"""Small loader for ../shared/data/baycomp_accuracies.txt, for tests and docs only.

Format: a line holding only a classifier name, then one line per dataset holding
the dataset name and its 100 accuracies (10 runs x 10 folds, percent).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def load_baycomp_accuracies(path: str | Path, *, scale: float = 0.01) -> pd.DataFrame:
    """Return a tidy scores frame (dataset, model, split, repeat, fold, n_train, n_test, accuracy).

    The duplicated ``credit`` dataset is kept once. Split sizes are not in the file; the
    design is 10-fold CV, so ``n_test / (n_train + n_test) = 0.1`` is encoded as 9 : 1.
    """
    rows = []
    model = None
    seen: set[tuple[str, str]] = set()
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        if len(parts) == 1:
            model = parts[0]
            continue
        dataset, values = parts[0], np.asarray(parts[1:], dtype=float)
        if (model, dataset) in seen:
            continue
        seen.add((model, dataset))
        for split, v in enumerate(values):
            rows.append((dataset, model, split, split // 10, split % 10, 9, 1, v * scale))
    return pd.DataFrame(
        rows,
        columns=["dataset", "model", "split", "repeat", "fold", "n_train", "n_test", "accuracy"],
    )
