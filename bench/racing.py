"""Fits and time saved by racing under ``select(rule="family", max_repeats=...)``, and the
check that the decisions are those of the full design.

Racing: after each look, a challenger already worse than the baseline beyond the ROPE
with probability >= gamma is not fitted on the further repetitions.  Each scenario runs
``select_models`` with racing and with every challenger fitted on every look
(``rule=partial(family, racing=False)``), each in its own fresh store, interleaved
(racing, full, full, racing, ...: who goes first alternates) so that both see the same
machine load; it reports the ratio of fits and the median ratios of wall and CPU times
(CPU time is the steadier of the two on a loaded machine), and whether the champion, the
action and every step's decision agree.

Scenarios (breast cancer data, one CPU, ``n_jobs=1``):

``readme``      the README's main job (the shipped models, roc_auc, ROPE 0.005,
                10 x 10 CV) with ``max_repeats=5``;
``readme_seq``  the same models and metric with the same budget of ten repetitions, run
                sequentially: one repetition of 10-fold CV and up to nine more
                (``n_repeats=1, max_repeats=9``);
``half``        accuracy, ROPE 0.005, ``n_repeats=1, max_repeats=9``; ten challengers:
                five logistic regressions that differ only in their regularisation
                (practically equivalent to the baseline, undecided on few splits) and
                five clearly worse models.

Run by hand (several minutes on one core; the full design is fitted ``--rounds`` times)::

    python bench/racing.py
    python bench/racing.py --scenario half --rounds 3
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.model_selection import RepeatedStratifiedKFold

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


SCENARIOS = {
    "readme": dict(
        baseline="logistic_regression",
        scoring="roc_auc",
        rope=0.005,
        cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0),
        max_repeats=5,
    ),
    "readme_seq": dict(
        baseline="logistic_regression",
        scoring="roc_auc",
        rope=0.005,
        cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=1, random_state=0),
        max_repeats=9,
    ),
    "half": dict(
        baseline="baseline",
        scoring="accuracy",
        rope=0.005,
        cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=1, random_state=0),
        max_repeats=9,
    ),
}


def _one(
    models: object, X: object, y: object, racing: bool, kw: dict
) -> tuple[object, float, float]:
    """One selection in a fresh store: ``(selection, wall seconds, CPU seconds)`` (the CPU
    time of this process, fits included: ``n_jobs=1`` fits in this process)."""
    import bayescomp as bc
    from bayescomp.decision.family_walk import family

    rule = "family" if racing else partial(family, racing=False)
    with tempfile.TemporaryDirectory() as tmp:
        t0, c0 = time.perf_counter(), time.process_time()
        sel = bc.select_models(
            models, X, y, store=Path(tmp) / "r.sqlite", progress=False, n_jobs=1, rule=rule, **kw
        )
        return sel, time.perf_counter() - t0, time.process_time() - c0


def run(scenario: str, rounds: int) -> dict:
    from bayescomp.scores.datasets import load_dataset

    X, y, _ = load_dataset("breast_cancer")
    models = half_models() if scenario == "half" else REPO / "models"
    kw = SCENARIOS[scenario]
    times: dict[bool, list[float]] = {True: [], False: []}
    cpu: dict[bool, list[float]] = {True: [], False: []}
    sels: dict[bool, object] = {}
    for i in range(rounds):
        for racing in (True, False) if i % 2 == 0 else (False, True):  # alternate who leads
            sels[racing], sec, cpu_sec = _one(models, X, y, racing, kw)
            times[racing].append(sec)
            cpu[racing].append(cpu_sec)
    fast, full = sels[True], sels[False]
    same = (
        fast.champion == full.champion
        and fast.recommendation["action"] == full.recommendation["action"]
        and fast.steps["decision"].tolist() == full.steps["decision"].tolist()
    )
    ratios = [a / b for a, b in zip(times[True], times[False], strict=True)]
    cpu_ratios = [a / b for a, b in zip(cpu[True], cpu[False], strict=True)]
    return {
        "scenario": scenario,
        "racing": fast.fits_total,
        "full": full.fits_total,
        "time_ratio": float(np.median(ratios)),
        "ratios": ratios,
        "cpu_ratio": float(np.median(cpu_ratios)),
        "cpu_ratios": cpu_ratios,
        "seconds": (float(np.median(times[True])), float(np.median(times[False]))),
        "champion": fast.champion,
        "same": same,
        "fast": fast,
        "full_sel": full,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", nargs="+", default=list(SCENARIOS), choices=list(SCENARIOS))
    p.add_argument("--rounds", type=int, default=2, help="interleaved pairs of runs")
    args = p.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}; {args.rounds} interleaved round(s)")
    rows = [run(s, args.rounds) for s in args.scenario]
    print(
        f"{'scenario':<12}{'fits full':>10}{'fits racing':>13}{'fits ratio':>12}"
        f"{'time ratio':>12}{'CPU ratio':>11}  seconds racing/full  champion (same "
        "decisions as the full design?)"
    )
    for r in rows:
        print(
            f"{r['scenario']:<12}{r['full']:>10d}{r['racing']:>13d}"
            f"{r['racing'] / r['full']:>12.2f}{r['time_ratio']:>12.2f}{r['cpu_ratio']:>11.2f}"
            f"  {r['seconds'][0]:.0f}/{r['seconds'][1]:.0f}"
            f"  {r['champion']} ({'yes' if r['same'] else 'NO'})"
        )
        print(
            f"{'':<12}wall time ratio of each round: " + ", ".join(f"{x:.2f}" for x in r["ratios"])
        )
        print(
            f"{'':<12}CPU time ratio of each round: "
            + ", ".join(f"{x:.2f}" for x in r["cpu_ratios"])
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    for r in rows:
        cols = ["challenger", "decision", "looks", "fits"]
        print(f"\n{r['scenario']}: steps with racing")
        print(r["fast"].steps[cols].to_string(index=False))
        print(f"{r['scenario']}: steps of the full design")
        print(r["full_sel"].steps[cols].to_string(index=False))


if __name__ == "__main__":
    main()
