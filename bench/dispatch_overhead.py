"""Benchmark: bayescomp's dispatcher against a plain ``joblib.Parallel`` on the same fits.

Run by hand from the repository root (needs ``bayescomp[dask,ray]``)::

    python bench/dispatch_overhead.py [--fits 40] [--reps 5] [--engines dask ray]

The same ``--fits`` logistic-regression fits (breast cancer, 5-fold splits repeated), on
a local Dask cluster and on a local Ray, 2 workers each, sent two ways: through
``bayescomp.scores.dispatch.dispatch`` (futures on Dask, batches on Ray; results handed
to a callback in the calling thread) and through ``joblib.Parallel`` on the same joblib
backend (``return_as="generator_unordered"`` on Dask, a list on Ray).  Interleaved A/B for
``--reps`` repetitions; medians of the driver's CPU seconds and of wall seconds, and the
ratio dispatcher / joblib.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


@dataclass(frozen=True)
class Task:
    key: int
    train: np.ndarray
    test: np.ndarray


def fit(task: Task, single_thread: bool) -> tuple[int, float]:
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    model.fit(X[task.train], y[task.train])
    return task.key, float(model.score(X[task.test], y[task.test]))


def tasks(n: int) -> list[Task]:
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import RepeatedKFold

    X, _ = load_breast_cancer(return_X_y=True)
    cv = RepeatedKFold(n_splits=5, n_repeats=-(-n // 5), random_state=0)
    return [Task(k, tr, te) for k, (tr, te) in zip(range(n), cv.split(X), strict=False)]


def by_dispatcher(todo: list[Task]) -> dict[int, float]:
    from bayescomp.scores.dispatch import dispatch

    out: dict[int, float] = {}
    dispatch(
        todo,
        fit,
        out.__setitem__,  # (key, score): the run's return, split by the dispatcher
        n_jobs=2,
        single_thread=True,
        retries=2,
        worker_timeout=180,
    )
    return out


def by_joblib(todo: list[Task], stream: bool) -> dict[int, float]:
    import joblib

    kind = "generator_unordered" if stream else "list"
    par = joblib.Parallel(n_jobs=2, batch_size=1, return_as=kind)
    return dict(par(joblib.delayed(fit)(t, True) for t in todo))


def timed(fn, *args) -> tuple[float, float, dict]:
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn(*args)
    return time.process_time() - c0, time.perf_counter() - w0, out


def bench(engine: str, todo: list[Task], reps: int) -> None:
    import joblib

    from bayescomp.scores.backends import use_backend

    with use_backend(engine, n_workers=2):
        stream = engine == "dask"
        ref = by_joblib(todo, stream)  # warm the workers (imports, data)
        a, b = [], []
        for _ in range(reps):
            *ta, got_a = timed(by_dispatcher, todo)
            *tb, got_b = timed(by_joblib, todo, stream)
            assert got_a == got_b == ref, "the two paths gave different scores"
            a.append(ta)
            b.append(tb)
    (ca, wa), (cb, wb) = np.median(a, axis=0), np.median(b, axis=0)
    print(f"\n{engine}: {len(todo)} fits, 2 workers, joblib {joblib.__version__}")
    print(f"  dispatcher      driver CPU {ca:6.2f} s  wall {wa:6.2f} s")
    print(f"  joblib.Parallel driver CPU {cb:6.2f} s  wall {wb:6.2f} s")
    print(f"  ratio dispatcher / joblib: CPU {ca / cb:5.2f}x  wall {wa / wb:5.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fits", type=int, default=40)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--engines", nargs="+", default=["dask", "ray"])
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import os

    print(f"load average {os.getloadavg()[0]:.1f}; {args.reps} interleaved reps, medians")
    todo = tasks(args.fits)
    for engine in args.engines:
        try:
            bench(engine, todo, args.reps)
        except ImportError as exc:
            print(f"\n{engine}: skipped ({exc})")


if __name__ == "__main__":
    main()
