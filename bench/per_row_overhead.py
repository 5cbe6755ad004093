"""What keeping per-row out-of-fold scores costs ``cross_validate_paired``.

``per_row=True`` (the default) predicts each fit's test rows once more (labels, and the
positive class's probabilities for log loss and Brier) to score every row: the ratio
``time(per_row=True) / time(per_row=False)`` on the same splits, CPU and wall seconds, each
the median of ``--repeats`` interleaved pairs.  Two workloads: the README's selection
(breast cancer, the six model files of ``models/``, 10 × 10 stratified CV, the binary task's
standard scorers that every model has, as ``select_models`` scores them), where prediction is a small part of each fit; and two kNN classifiers on 5,000 rows
(accuracy), where prediction is most of it.

Run: ``python bench/per_row_overhead.py [--repeats 5]``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.neighbors import KNeighborsClassifier

from bayescomp import cross_validate_paired
from bayescomp.scores.datasets import standard_scorers
from bayescomp.scores.model_files import load_models

REPO = Path(__file__).resolve().parents[1]


def workloads() -> dict[str, tuple]:
    X, y = load_breast_cancer(return_X_y=True)
    specs = load_models(REPO / "models", on_error="raise")
    models = {n: s.estimator for n, s in specs.items()}
    readme = (models, X, y, standard_scorers(y, "classification", models))
    Xk, yk = make_classification(5000, n_features=10, n_informative=4, random_state=0)
    knn = ({"k15": KNeighborsClassifier(15), "k17": KNeighborsClassifier(17)}, Xk, yk, "accuracy")
    return {"README selection": readme, "kNN pair, 5,000 rows": knn}


def one(models, X, y, scoring, per_row: bool) -> tuple[float, float]:
    cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0)
    cpu, wall = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cross_validate_paired(models, X, y, cv=cv, scoring=scoring, progress=False, per_row=per_row)
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for name, work in workloads().items():
        one(*work, per_row=True)  # warm-up
        ratios = []
        for _ in range(args.repeats):  # interleaved: on, off, on, off, ...
            on, off = one(*work, per_row=True), one(*work, per_row=False)
            ratios.append((on[0] / off[0], on[1] / off[1], off[0], off[1]))
        r = np.median(np.array(ratios), axis=0)
        print(
            f"{name}: per_row=True / per_row=False = {r[0]:.3f} CPU, {r[1]:.3f} wall "
            f"(median of {args.repeats} pairs; per_row=False takes {r[2]:.2f} CPU s, "
            f"{r[3]:.2f} wall s)"
        )


if __name__ == "__main__":
    main()
