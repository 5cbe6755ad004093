"""Speed of the one-test-set posterior on large test sets, against the paths it replaces.

Interleaved in one run (``--repeats`` rounds, median of each):

* 10⁶ items, binary correctness: ``holdout_posterior(metric="accuracy")`` (the
  Dirichlet–multinomial posterior: counting plus draws) against one pass of
  ``numpy.mean`` over the items (the floor: reading the data once).
* 10⁶ items, per-item losses: ``holdout_posterior(metric="mse")`` (the blocked Bayesian
  bootstrap) against the exact Bayesian bootstrap with 100 draws (timed, then scaled to
  the same draws).
* ROC AUC, 2,000 Bayesian bootstrap draws on ``--auc-items`` items against
  ``scipy.stats.bootstrap`` (paired percentile bootstrap of the AUC difference with
  ``sklearn.metrics.roc_auc_score``, 2,000 resamples) on the same data: the usual path.

Run from the repository root::

    python bench/test_set_speed.py [--repeats 3] [--auc-items 10000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _time(f) -> float:
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def cases(auc_items: int) -> dict[str, object]:
    from scipy import stats
    from sklearn.metrics import roc_auc_score

    from bayescomp.posterior import holdout_draws as hd
    from bayescomp.posterior.holdout import holdout_posterior

    rng = np.random.default_rng(0)
    n = 1_000_000
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.80, y, 1 - y)
    b = np.where(rng.random(n) < 0.81, y, 1 - y)
    la, lb = rng.gamma(2.0, 0.5, n), rng.gamma(2.0, 0.5, n) * 0.99
    ya = rng.integers(0, 2, auc_items)
    sa, sb = ya + rng.normal(0, 1.2, auc_items), ya + rng.normal(0, 1.0, auc_items)
    d = lb - la

    def auc_difference(i: np.ndarray) -> float:
        return roc_auc_score(ya[i], sb[i]) - roc_auc_score(ya[i], sa[i])

    def scipy_paired() -> None:
        stats.bootstrap(
            (np.arange(auc_items),),
            auc_difference,
            vectorized=False,
            n_resamples=2000,
            method="percentile",
            rng=np.random.default_rng(0),
        )

    def exact_100() -> None:
        for g in hd._weight_chunks(n, 100, np.random.default_rng(1)):
            (g @ d) / g.sum(axis=1)

    return {
        "binary 1e6, posterior (4000 draws)": lambda: holdout_posterior(y, a, b, random_state=0),
        "binary 1e6, one np.mean pass": lambda: np.mean(a == y),
        "losses 1e6, posterior (blocked, 4000 draws)": lambda: holdout_posterior(
            None, la, lb, metric="mse", random_state=0
        ),
        "losses 1e6, exact bootstrap, 100 draws": exact_100,
        f"AUC {auc_items} items, Bayesian bootstrap 2000 draws": lambda: holdout_posterior(
            ya, sa, sb, metric="roc_auc", draws=2000, random_state=0
        ),
        f"AUC {auc_items} items, scipy.stats.bootstrap 2000": scipy_paired,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--auc-items", type=int, default=10_000)
    args = parser.parse_args(argv)
    todo = cases(args.auc_items)
    times: dict[str, list[float]] = {k: [] for k in todo}
    for _ in range(args.repeats):  # interleaved: every case once per round
        for name, f in todo.items():
            times[name].append(_time(f))
    med = {k: float(np.median(v)) for k, v in times.items()}
    for name, t in med.items():
        print(f"{name:58s} {t:8.3f} s")
    keys = list(med)
    print(
        f"losses: blocked 4000 draws / exact 4000 draws (scaled from 100): "
        f"{med[keys[2]] / (40 * med[keys[3]]):.3f}"
    )
    print(f"AUC: Bayesian bootstrap / scipy.stats.bootstrap: {med[keys[4]] / med[keys[5]]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
