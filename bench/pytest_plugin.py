"""Time of one ``assert_better`` on stored scores (the pytest plugin's budget: < 50 ms).

Three inputs, interleaved round by round so that load on the machine hits each alike: a
``Scores`` table in memory, a scores CSV (``Scores.to_csv``), and the SQLite store a
selection kept (``select_models(store=)``); 100 splits, five models.  Prints the median and
the 90th percentile of wall and CPU time per assertion.

    python bench/pytest_plugin.py [rounds]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def tables(folder: Path) -> dict:
    """The same comparison three ways: in memory, a CSV, a selection's store."""
    from sklearn.datasets import make_classification
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import RepeatedStratifiedKFold

    import bayescomp as bc

    rng = np.random.default_rng(0)
    base = 0.8 + 0.01 * rng.standard_normal(100)
    models = {m: base + d + 0.005 * rng.standard_normal(100) for m, d in
              (("lr", 0.0), ("gbm", 0.03), ("rf", 0.01), ("svm", -0.02), ("nb", 0.0))}  # fmt: skip
    f = pd.DataFrame(
        {"model": np.repeat(list(models), 100), "split": np.tile(np.arange(100), len(models))}
        | {"accuracy": np.concatenate(list(models.values())), "n_train": 900, "n_test": 100}
    )
    scores = bc.Scores.from_frame(f)
    scores.to_csv(folder / "scores.csv")
    X, y = make_classification(n_samples=300, random_state=0)
    bc.select_models(
        {"dummy": DummyClassifier(), "lr": LogisticRegression(max_iter=300)},
        X,
        y,
        cv=RepeatedStratifiedKFold(n_splits=5, n_repeats=20, random_state=0),
        scoring="accuracy",
        store=folder / "runs.sqlite",
        progress=False,
        baseline="dummy",
        rope=0.01,
    )
    return {
        "Scores in memory": (scores, "lr", "gbm"),
        "scores CSV": (folder / "scores.csv", "lr", "gbm"),
        "SQLite store": (folder / "runs.sqlite", "dummy", "lr"),
    }


def main(rounds: int = 50) -> dict:
    from bayescomp.integrations.testing import assert_better

    with tempfile.TemporaryDirectory() as tmp:
        inputs = tables(Path(tmp))
        for table, base, cand in inputs.values():  # warm: imports, first-call caches
            assert_better(table, baseline=base, candidate=cand, rope=0.01)
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in inputs}
        for _ in range(rounds):
            for name, (table, base, cand) in inputs.items():
                w, c = time.perf_counter(), time.process_time()
                assert_better(table, baseline=base, candidate=cand, rope=0.01)
                times[name].append((time.perf_counter() - w, time.process_time() - c))
    out = {}
    for name, t in times.items():
        a = 1000 * np.array(t)
        out[name] = {
            "wall_ms_median": float(np.median(a[:, 0])),
            "wall_ms_p90": float(np.quantile(a[:, 0], 0.9)),
            "cpu_ms_median": float(np.median(a[:, 1])),
            "cpu_ms_p90": float(np.quantile(a[:, 1], 0.9)),
        }
        print(
            f"{name:18s} wall median {out[name]['wall_ms_median']:6.1f} ms (p90 "
            f"{out[name]['wall_ms_p90']:6.1f})   cpu median {out[name]['cpu_ms_median']:6.1f} ms "
            f"(p90 {out[name]['cpu_ms_p90']:6.1f})"
        )
    return out


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
