"""Operating characteristics of ``bc.watch`` (``docs/live_promotion.md``).

Seeded simulations of the paired per-item differences (candidate minus baseline, oriented
so that positive is better) of two models on a prediction log of up to 10^5 items:

* each item's difference is ``delta`` with probability ``w`` (a fixed gain of the
  candidate), else a *symmetric* draw ``S``: the difference of two models' per-item scores
  with its sign flipped at random, so ``E[S] = 0`` and the mean is exactly ``w * delta``.
  ``S`` comes from two models' predictions: 0/1 hits with 20 % disagreement (accuracy),
  Brier and clipped log loss of the probabilities ``sigmoid(+-1 + N(0, 1))`` (brier,
  log_loss), squared errors of ``N(0, 1)`` residuals (mse, the asymptotic sequence);
* clustered (``icc``): clusters of 20 items share the sign of ``S`` with probability
  ``rho``, chosen so that the intra-cluster correlation of the differences is 0.1; the
  sequence then runs over the clusters' means (one entry per cluster).

Cells: ``edge`` (mean exactly the margin: a promotion is false) for every metric, with
independent and clustered items, the looks after every item, every 100 and every 1,000
items, beside *naive* looks at the fixed-sample normal posterior of one test set (promote
when ``P(mu > margin) >= gamma`` at a look); ``power`` (mean 1.5, 2 and 3 x the margin):
the share promoted by 10^5 items, the median and mean items to the first decision, beside
the fixed-sample n for 80 % power of the one-sided test at ``gamma``. The decisions are
``decision_codes``: the betting e-processes at +-margin for bounded scores, the asymptotic
sequence for mse. ``--timing``: items per CPU second of the sequences' and the e-processes'
updates (and of ``bc.watch`` on a 10^6-row log).

Finished chunks are kept in ``--checkpoint`` (JSON tied to this code): a run resumes.
Run (about 10 minutes on one core)::

    flock /tmp/heavy.lock python bench/sequential_operating_characteristics.py --runs 2000 --power-runs 2000
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bayescomp.posterior.sequential import (  # noqa: E402
    BOUNDS,
    LOG_CLIP,
    asymptotic_cs,
    decision_codes,
    empirical_bernstein_cs,
    look_positions,
)

GAMMA, N, CLUSTER, ICC, CHUNK = 0.95, 100_000, 20, 0.1, 25
SCHEDULES = (1, 100, 1000)
#: metric -> (margin, delta: the fixed gain of a ``w`` item, bound of the sequence or None)
METRICS = {
    "accuracy": (0.01, 1.0, BOUNDS["hit"]),
    "brier": (0.01, 0.2, BOUNDS["squared_probability"]),
    "log_loss": (0.01, 1.0, BOUNDS["log"]),
    "mse": (0.02, 1.0, None),
}


def pool(metric, rng, n=400_000):
    """``|S|``: the absolute per-item score differences of two models."""
    if metric == "accuracy":
        return (rng.random(n) < 0.2).astype(float)
    if metric == "mse":
        return np.abs(rng.normal(size=n) ** 2 - rng.normal(size=n) ** 2)
    y = rng.integers(0, 2, n)
    p = [1 / (1 + np.exp(-((2 * y - 1) + rng.normal(size=n)))) for _ in range(2)]
    p = [np.clip(q, LOG_CLIP, 1 - LOG_CLIP) for q in p]
    if metric == "brier":
        loss = [(q - y) ** 2 for q in p]
    else:
        loss = [-np.log(np.where(y == 1, q, 1 - q)) for q in p]
    return np.abs(loss[0] - loss[1])


def rho_for_icc(s, w, delta):
    """The share of items whose sign follows their cluster's, for an ICC of ``ICC``."""
    mean = w * delta
    var = (1 - w) * np.mean(s**2) + w * delta**2 - mean**2
    return math.sqrt(ICC * var / ((1 - w) ** 2 * np.mean(s) ** 2))


def draw(rng, s, runs, gain, metric, clustered):
    """``runs`` x entries of differences with mean ``gain`` x the margin, and items/entry."""
    margin, delta, _ = METRICS[metric]
    w = gain * margin / delta
    size = s[rng.integers(0, s.size, (runs, N))]
    sign = rng.choice([-1.0, 1.0], (runs, N))
    if clustered:
        eta = rng.choice([-1.0, 1.0], (runs, N // CLUSTER)).repeat(CLUSTER, axis=1)
        sign = np.where(rng.random((runs, N)) < rho_for_icc(s, w, delta), eta, sign)
    x = np.where(rng.random((runs, N)) < w, delta, sign * size)
    if not clustered:
        return x, 1
    return x.reshape(runs, N // CLUSTER, CLUSTER).mean(axis=2), CLUSTER


def first_decision(codes):
    """Per row of look codes (runs x looks): the first non-``continue`` code and its look
    index (-1 and code 0 where none)."""
    codes = np.atleast_2d(codes)
    decided = codes > 0
    at = np.where(decided.any(axis=-1), decided.argmax(axis=-1), -1)
    return np.where(at >= 0, codes[np.arange(codes.shape[0]), at], 0), at


def naive_promotes(x, at, margin):
    """Whether the fixed-sample normal posterior promotes at one of the looks ``at``."""
    t = at + 1
    mean = np.cumsum(x, axis=1)[:, at] / t
    var = np.maximum(np.cumsum(x * x, axis=1)[:, at] / t - mean**2, 0) * t / np.maximum(t - 1, 1)
    return (mean - stats.norm.ppf(GAMMA) * np.sqrt(var / t) > margin).any(axis=1)


def edge_chunk(metric, clustered, runs, seed):
    rng = np.random.default_rng(seed)
    margin, _, bound = METRICS[metric]
    x, per = draw(rng, pool(metric, rng), runs, 1.0, metric, clustered)
    codes = decision_codes(x, 2 * (1 - GAMMA), bound, margin)
    out = {}
    for every in SCHEDULES:
        at = look_positions(np.full(x.shape[1], per), every)
        code, _ = first_decision(codes[:, at])
        out[f"seq {every}"] = int(np.sum(code == 1))
        out[f"naive {every}"] = int(naive_promotes(x, at, margin).sum())
    return out


def power_chunk(metric, gain, runs, seed):
    rng = np.random.default_rng(seed)
    margin, _, bound = METRICS[metric]
    s = pool(metric, rng)
    x, _ = draw(rng, s, runs, gain, metric, False)
    code, at = first_decision(decision_codes(x, 2 * (1 - GAMMA), bound, margin))
    return {
        "promoted": int(np.sum(code == 1)),
        "items": np.where(code == 1, at + 1, np.inf).tolist(),
        "decided_items": np.where(code > 0, at + 1, N).tolist(),
        "sd": float(x.std()),
    }


class Checkpoint:
    """Finished chunks, kept in a JSON file tied to this module's code."""

    def __init__(self, path):
        self.path = Path(path)
        self.key = hashlib.sha256(inspect.getsource(sys.modules[__name__]).encode()).hexdigest()
        saved = json.loads(self.path.read_text()) if self.path.exists() else {}
        self.chunks = saved.get("chunks", {}) if saved.get("code") == self.key else {}

    def run(self, name, fn, *args, runs, seed):
        results = []
        for c, start in enumerate(range(0, runs, CHUNK)):
            key = json.dumps([name, seed + c, min(CHUNK, runs - start)])
            if key not in self.chunks:
                self.chunks[key] = fn(*args, min(CHUNK, runs - start), seed + c)
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text(json.dumps({"code": self.key, "chunks": self.chunks}))
                tmp.replace(self.path)
            results.append(self.chunks[key])
        return results


def se_line(k, runs):
    p = k / runs
    return f"{p:.4f} ± {math.sqrt(p * (1 - p) / runs):.4f}"


def edge_table(ck, runs, seed):
    print(f"\nfalse promotion at the edge (mean = margin), gamma {GAMMA}, {runs} runs, {N} items")
    print("| metric | items | looks every | sequential | naive fixed-sample looks |")
    print("|---|---|---|---|---|")
    for m in METRICS:
        for clustered in (False, True):
            t0 = time.process_time()
            res = ck.run(["edge", m, clustered], edge_chunk, m, clustered, runs=runs, seed=seed)
            design = f"clusters of {CLUSTER}, ICC {ICC}" if clustered else "independent"
            for every in SCHEDULES:
                seq = sum(r[f"seq {every}"] for r in res)
                naive = sum(r[f"naive {every}"] for r in res)
                print(
                    f"| {m} | {design} | {every} | {se_line(seq, runs)} | {se_line(naive, runs)} |"
                )
            print(f"<!-- cell {m} {design}: {time.process_time() - t0:.0f} CPU s -->", flush=True)


def power_table(ck, runs, seed):
    print(f"\npower and items to a decision (looks after every item), {runs} runs, {N} items")
    print(
        "| metric | gain / margin | promoted | median items to promote | mean items to a "
        "decision | fixed-sample n (80 %) | median / fixed n |"
    )
    print("|---|---|---|---|---|---|---|")
    z = stats.norm.ppf(GAMMA) + stats.norm.ppf(0.8)
    for m in METRICS:
        margin = METRICS[m][0]
        for gain in (1.5, 2.0, 3.0):
            res = ck.run(["power", m, gain], power_chunk, m, gain, runs=runs, seed=seed)
            items = np.concatenate([r["items"] for r in res])
            decided = np.concatenate([r["decided_items"] for r in res])
            sd = float(np.mean([r["sd"] for r in res]))
            fixed = (z * sd / ((gain - 1) * margin)) ** 2
            med = float(np.median(items))
            print(
                f"| {m} | {gain:g} | {se_line(sum(r['promoted'] for r in res), runs)} | "
                f"{med:.0f} | {decided.mean():.0f} | {fixed:.0f} | {med / fixed:.2f} |",
                flush=True,
            )


def timing():
    import pandas as pd

    import bayescomp as bc

    x = np.random.default_rng(0).choice([-1.0, 0.0, 1.0], 10**7, p=[0.1, 0.8, 0.1])
    t0 = time.process_time()
    empirical_bernstein_cs(x, 0.1, 1.0)
    cpu = time.process_time() - t0
    print(f"\nupdate of the empirical-Bernstein sequence: {x.size / cpu:.3g} items per CPU second")
    t0 = time.process_time()
    decision_codes(x, 0.1, 1.0, 0.01)
    cpu = time.process_time() - t0
    print(f"the four betting e-processes at ±margin: {x.size / cpu:.3g} items per CPU second")
    t0 = time.process_time()
    asymptotic_cs(x, 0.1)
    cpu = time.process_time() - t0
    print(f"update of the asymptotic sequence: {x.size / cpu:.3g} items per CPU second")
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 10**6)
    log = pd.DataFrame({"y": y, "a": np.where(rng.random(y.size) < 0.8, y, 1 - y)})
    log["b"] = log["a"]
    t0 = time.process_time()
    bc.watch(log, baseline="a", candidate="b", metric="accuracy", rope=0.01, label="y", every=1000)
    cpu = time.process_time() - t0
    print(
        f"bc.watch on a 10^6-row log (read, score, sequence, looks): {y.size / cpu:.3g} rows per CPU second"
    )


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=2000)
    p.add_argument("--power-runs", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--checkpoint", default="sequential_operating_characteristics.json")
    p.add_argument("--timing", action="store_true", help="only the throughput")
    args = p.parse_args()
    if not args.timing:
        ck = Checkpoint(args.checkpoint)
        edge_table(ck, args.runs, args.seed)
        power_table(ck, args.power_runs, args.seed + 10**6)
    timing()


if __name__ == "__main__":
    main()
