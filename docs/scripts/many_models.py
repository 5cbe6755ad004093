"""Regenerate the figures of docs/many_models.md (run from the repository root).

    python docs/scripts/many_models.py

Uses the shared 54-dataset baycomp data (../shared/data/baycomp_accuracies.txt) when it
is there, else a built-in synthetic example of 6 models on 40 datasets.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import bayescomp as bc  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "baycomp_accuracies.txt"
OUT = REPO / "docs" / "img"


def synthetic_scores(seed: int = 0) -> tuple[pd.DataFrame, str]:
    """6 models on 40 datasets, 10 splits each; model effects shrink from m0 to m5."""
    rng = np.random.default_rng(seed)
    effect = np.array([0.02, 0.015, 0.012, 0.0, -0.005, -0.02])
    rows = []
    for d in range(40):
        level = rng.uniform(0.6, 0.9)
        for m, e in enumerate(effect):
            vals = level + e + rng.normal(0, 0.02) + rng.normal(0, 0.02, 10)
            rows += [(f"d{d:02d}", f"m{m}", s, 9, 1, v) for s, v in enumerate(vals)]
    frame = pd.DataFrame(rows, columns=["dataset", "model", "split", "n_train", "n_test",
                                        "accuracy"])
    return frame, "m3"


def main() -> None:
    if DATA.exists():
        from baycomp_data import load_baycomp_accuracies

        frame, control = load_baycomp_accuracies(DATA), "nbc"
        print(f"data: {DATA}")
    else:
        frame, control = synthetic_scores()
        print("data: built-in synthetic example (shared data not found)")
    scores = bc.Scores.from_frame(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = bc.rank(scores, "accuracy", method="plackett_luce", random_state=0)
    print(res)
    print(res.best(0.95))
    print(res.to_latex(caption="Plackett-Luce ranking", label="tab:ranking"))
    OUT.mkdir(parents=True, exist_ok=True)
    for name, ax in (("ranks", res.plot_ranks(gamma=0.95)), ("p_best", res.plot_p_best()),
                     ("control", res.plot_control(control, gamma=0.95))):
        ax.figure.savefig(OUT / f"many_models_{name}.png", dpi=100)
        plt.close(ax.figure)


if __name__ == "__main__":
    main()
