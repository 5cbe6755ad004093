"""Regenerate the figures of docs/hierarchical.md (run from the repository root).

    python docs/scripts/hierarchical_plots.py
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from baycomp_data import load_baycomp_accuracies  # noqa: E402

import bayescomp as bc  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "baycomp_accuracies.txt"
OUT = REPO / "docs" / "img"


def main() -> None:
    frame = load_baycomp_accuracies(DATA)
    wide = frame.pivot_table(index=["dataset", "split"], columns="model", values="accuracy")
    d = (wide["aode"] - wide["nbc"]).unstack("split")
    diffs = {name: d.loc[name].to_numpy() for name in d.index}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = bc.hierarchical_test(diffs, rho=0.1, rope=0.01, random_state=1,
                                   baseline_name="nbc", candidate_name="aode",
                                   metric="accuracy")
    print(res)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, draw in (("simplex", res.plot_simplex), ("forest", res.plot_forest),
                       ("posterior", res.plot_posterior)):
        ax = draw()
        ax.figure.savefig(OUT / f"hierarchical_{name}.png", dpi=100)
        plt.close(ax.figure)
    rank = bc.signed_rank_test(diffs, rope=0.01, random_state=0, baseline_name="nbc",
                               candidate_name="aode", metric="accuracy")
    ax = rank.plot_simplex()
    ax.figure.savefig(OUT / "signed_rank_simplex.png", dpi=100)
    plt.close(ax.figure)


if __name__ == "__main__":
    main()
