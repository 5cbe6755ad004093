"""Fits saved by racing under ``select(rule="family", max_repeats=...)``, and the check that
the decisions are those of the full design.

Racing: after each look, a challenger already worse than the baseline beyond the ROPE
with probability >= gamma is not fitted on the further repetitions.  Each scenario runs
``select_models`` twice on one store (racing first, then every challenger on every look —
``rule=partial(family, racing=False)`` —, which reads the racing run's fits back) and
compares the fits each needed and the decisions.

Scenarios:

``readme``  the README's main job (shipped models, breast_cancer, roc_auc, ROPE 0.005,
            10 x 10 CV) with ``--max-repeats 5``;
``half``    breast_cancer, accuracy, ROPE 0.005, a 10-fold design with one repetition
            and up to 9 more; ten challengers: five logistic regressions that differ only
            in their regularisation (practically equivalent to the baseline, undecided on
            few splits) and five clearly worse models.

Run by hand::

    python bench/racing.py                 # both scenarios (a few minutes on one core)
    python bench/racing.py --scenario half
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def half_models() -> dict:
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    def lr(c: float):
        return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000))

    first = FunctionTransformer(lambda X: X[:, :2])
    models = {"baseline": lr(1.0)}
    models.update({f"lr_C{c:g}": lr(c) for c in (0.5, 0.7, 1.5, 2.0, 3.0)})
    models.update(
        {
            "prior": DummyClassifier(strategy="prior"),
            "stump": DecisionTreeClassifier(max_depth=1, random_state=0),
            "nb_two_features": make_pipeline(first, GaussianNB()),
            "knn1_unscaled": KNeighborsClassifier(n_neighbors=1),
            "stratified_guess": DummyClassifier(strategy="stratified", random_state=0),
        }
    )
    return models


def run(scenario: str) -> dict:
    import bayescomp as bc
    from bayescomp.decision.family_walk import family
    from bayescomp.scores.datasets import load_dataset

    X, y, _ = load_dataset("breast_cancer")
    if scenario == "readme":
        models, kw = (
            REPO / "models",
            dict(
                baseline="logistic_regression",
                scoring="roc_auc",
                rope=0.005,
                n_splits=10,
                n_repeats=10,
                max_repeats=5,
            ),
        )
    else:
        models, kw = (
            half_models(),
            dict(
                baseline="baseline",
                scoring="accuracy",
                rope=0.005,
                n_splits=10,
                n_repeats=1,
                max_repeats=9,
            ),
        )
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "racing.sqlite"
        fast = bc.select_models(models, X, y, store=store, progress=False, **kw)
        full = bc.select_models(
            models, X, y, store=store, progress=False, rule=partial(family, racing=False), **kw
        )
    same = (
        fast.champion == full.champion
        and fast.recommendation["action"] == full.recommendation["action"]
    )
    return {
        "scenario": scenario,
        "racing": fast.fits_total,
        "full": full.fits_total,
        "champion": fast.champion,
        "same": same,
        "fast": fast,
        "full_sel": full,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", nargs="+", default=["readme", "half"], choices=["readme", "half"])
    args = p.parse_args()
    rows = [run(s) for s in args.scenario]
    print(
        f"{'scenario':<10}{'fits full':>10}{'fits racing':>13}{'saved':>8}  champion "
        "(same decision as the full design?)"
    )
    for r in rows:
        saved = 1 - r["racing"] / r["full"]
        print(
            f"{r['scenario']:<10}{r['full']:>10d}{r['racing']:>13d}{100 * saved:>7.0f}%  "
            f"{r['champion']} ({'yes' if r['same'] else 'NO'})"
        )
    for r in rows:
        print(f"\n{r['scenario']}: steps with racing")
        print(r["fast"].steps[["challenger", "decision", "looks", "fits"]].to_string(index=False))
        print(f"{r['scenario']}: steps of the full design")
        print(
            r["full_sel"].steps[["challenger", "decision", "looks", "fits"]].to_string(index=False)
        )


if __name__ == "__main__":
    main()
