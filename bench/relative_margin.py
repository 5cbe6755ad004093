"""A relative margin decides as the log-ratio TOST of statsmodels does.

On simulated tables of independent splits (``n_test = 1`` of ``2**52`` rows: rho is
2e-16, so the correlated t-test is the plain paired t), ``bc.compare(..., rope=Relative(r))``
is compared with ``statsmodels.stats.weightstats.ttost_paired(..., transform=np.log)`` on
the equivalence region ``(1/(1+r), 1+r)`` of the ratio candidate/baseline, at
``alpha = 1 - gamma``:

* promote  <=> the one-sided test of ``log ratio <= log(1+r)`` rejects at alpha;
* worse    <=> the one-sided test of ``log ratio >= -log(1+r)`` rejects at alpha;
* TOST rejects at alpha/2  =>  equivalent  =>  TOST rejects at alpha
  (``P(in ROPE) >= gamma`` lies between the two: the TOST needs each tail below its alpha,
  the posterior their sum).

Half the tables are of a lower-is-better metric (the roles in the TOST swap).

    python bench/relative_margin.py            # 1,000 tables
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd


def one_table(rng: np.random.Generator) -> tuple[pd.DataFrame, bool]:
    """A table of two models on 8-40 independent splits, positive scores, a true log ratio
    spread across every region of the ROPE ±log(1.01)."""
    n = int(rng.integers(8, 41))
    hib = bool(rng.random() < 0.5)
    base = 0.8 * np.exp(0.02 * rng.standard_normal(n))
    delta = rng.uniform(-0.03, 0.03)
    cand = base * np.exp(delta + rng.uniform(0.002, 0.02) * rng.standard_normal(n))
    frame = pd.DataFrame(
        {
            "dataset": "d",
            "model": np.repeat(["base", "cand"], n),
            "split": np.tile(np.arange(n), 2),
            "score": np.r_[base, cand],
            "n_train": 2**52,
            "n_test": 1,
        }
    )
    return frame, hib


def agreement(n_tables: int, r: float = 0.01, gamma: float = 0.95, seed: int = 0) -> dict:
    """Counts of each decision and of every disagreement with the TOST."""
    from statsmodels.stats.weightstats import ttost_paired

    import bayescomp as bc
    from bayescomp.core.margins import Relative

    rng = np.random.default_rng(seed)
    alpha = 1 - gamma
    out = {"tables": n_tables, "promote": 0, "worse": 0, "equivalent": 0, "inconclusive": 0}
    out |= {"promote_mismatch": 0, "worse_mismatch": 0, "equivalent_outside": 0}
    for _ in range(n_tables):
        frame, hib = one_table(rng)
        scores = bc.Scores(frame, metrics=["score"])
        res = bc.compare(scores, "base", "cand", rope=Relative(r), higher_is_better=hib)
        outcome = res.decision(gamma).outcome
        out[outcome] += 1
        c, b = (
            frame["score"].to_numpy()[len(frame) // 2 :],
            frame["score"].to_numpy()[: len(frame) // 2],
        )
        x1, x2 = (c, b) if hib else (b, c)  # oriented: x1 / x2 > 1 is "candidate better"
        p_tost, (_, p_low_h0, _), (_, p_up_h0, _) = ttost_paired(
            x1, x2, 1 / (1 + r), 1 + r, transform=np.log
        )
        # the complements test the other side of each margin: H0 ratio <= 1+r (promote),
        # H0 ratio >= 1/(1+r) (worse)
        p_up, p_low = 1 - p_up_h0, 1 - p_low_h0
        out["promote_mismatch"] += int((outcome == "promote") != (p_up < alpha))
        out["worse_mismatch"] += int((outcome == "worse") != (p_low < alpha))
        strict, loose = p_tost < alpha / 2, p_tost < alpha
        out["equivalent_outside"] += (strict and outcome != "equivalent") or (
            outcome == "equivalent" and not loose
        )
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    t0 = time.perf_counter()
    res = agreement(n)
    print(res)
    print(f"{n} tables in {time.perf_counter() - t0:.1f} s")
