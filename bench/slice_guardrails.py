"""Operating characteristics of the slice guardrail (issue 32, ``docs/slices.md``).

A seeded simulation of item-level predictions of a baseline and a candidate on 30 slices
whose sizes are log-uniform in 20–5,000 rows.  In each slice the baseline is right with
a slice-specific accuracy (uniform in 0.7–0.9); a share of the items (uniform in 0.08–0.16
per slice) are *discordant* (exactly one model right), split so that the candidate's
accuracy is the baseline's plus the slice's true difference.  The true differences are
drawn N(0.02, 0.01) (the candidate better overall by twice the overall ROPE 0.01, with a
realistic spread across slices, so the pooling is honest); slice ROPE 0.02.

Cells (``test``: one test set, :func:`bayescomp.compare_predictions` with
``slices=``; ``cv``: the same items scored over 2 x 5-fold splits, the per-split
per-slice accuracy differences given to :func:`bayescomp.posterior.slices.slice_test`
with rho = 0.2, the overall decision from the correlated t-test of the per-split
differences):

``null``
    no slice degraded: a *false alarm* is a promotion blocked by a slice
    (P(no slice worse beyond the slice ROPE) < slice_gamma);
``degraded``
    one slice of >= 500 rows has true difference -0.04 (2x the slice ROPE): *detected*
    when the promotion is blocked *and* that slice is the one named.

Both cells also report the coverage of the per-slice 95 % HDIs of the true slice
differences, by slice-size band.  ``--timing`` measures one comparison of 100 slices and
10^6 rows on one test set (warm; CPU and wall).

Finished chunks of runs are kept in ``--checkpoint`` (a JSON file tied to this code): an
interrupted run resumes.  Run by hand (about 40 minutes on one core)::

    nice -n 10 python bench/slice_guardrails.py --runs 1000
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bayescomp import correlated_ttest  # noqa: E402
from bayescomp.posterior.predictions import compare_predictions  # noqa: E402
from bayescomp.posterior.slices import slice_test  # noqa: E402

K, ROPE, SLICE_ROPE, MU, TAU = 30, 0.01, 0.02, 0.02, 0.01
GAMMAS = (0.5, 0.8, 0.95)  # slice_gamma values tallied (the default is 0.5)
BANDS = ((20, 100), (100, 500), (500, 5001))
CHUNK = 50


def simulate(rng, degraded, k=K, lo=20, hi=5000):
    """Slice sizes, true differences, and per-row (label, baseline pred, candidate pred, slice)."""
    sizes = np.exp(rng.uniform(np.log(lo), np.log(hi), k)).astype(int)
    delta = rng.normal(MU, TAU, k)
    bad = None
    if degraded:
        big = np.flatnonzero(sizes >= 500)
        bad = int(rng.choice(big)) if big.size else 0
        sizes[bad] = max(sizes[bad], 500)
        delta[bad] = -2 * SLICE_ROPE
    acc = rng.uniform(0.7, 0.9, k)
    disc = rng.uniform(0.08, 0.16, k)
    s = np.repeat(np.arange(k), sizes)
    u, v = rng.random(s.size), rng.random(s.size)
    both = v < (acc[s] - disc[s] / 2) / (1 - disc[s])  # agreeing items: right with this prob
    only_c = u < (disc[s] + delta[s]) / 2
    only_b = ~only_c & (u < disc[s])
    cb = np.where(only_c, False, np.where(only_b, True, both))
    cc = np.where(only_c, True, np.where(only_b, False, both))
    y = rng.integers(0, 2, s.size)
    return sizes, delta, bad, (y, np.where(cb, y, 1 - y), np.where(cc, y, 1 - y), s)


def _table(rows):
    import pandas as pd

    y, b, c, s = rows
    names = np.array([f"s{i:02d}" for i in range(s.max() + 1)], dtype=object)
    return pd.DataFrame({"y_true": y, "a": b, "b": c, "slice": names[s]})


def _test_fit(t, seed):
    res = compare_predictions(
        t, "a", "b", rope=ROPE, slices="slice", slice_rope=SLICE_ROPE, random_state=seed
    )
    return res.decision(0.95).outcome == "promote", res.slices


def _cv_fit(rows, seed, rng, folds=5, repeats=2):
    y, b, c, s = rows
    d = (c == y).astype(float) - (b == y).astype(float)
    per_slice = {i: [] for i in range(K)}
    overall = []
    for _ in range(repeats):
        fold = rng.permutation(np.arange(d.size) % folds)
        for f in range(folds):
            test = fold == f
            overall.append(d[test].mean())
            for i in range(K):
                m = test & (s == i)
                if m.any():
                    per_slice[i].append(d[m].mean())
    rho = 1 / folds
    zero = np.zeros(len(overall))
    promote = (
        correlated_ttest(zero, np.asarray(overall), rho=rho, rope=ROPE).decision(0.95).outcome
        == "promote"
    )
    diffs = {f"s{i:02d}": np.asarray(v) for i, v in per_slice.items()}
    return promote, slice_test(diffs, rho, slice_rope=SLICE_ROPE, random_state=seed)


def cell(kind, degraded, runs, seed):
    """Counts over ``runs``: promoted overall, blocked per gamma, blocked-and-named per gamma,
    and per size band [covered, slices]."""
    out = {"runs": 0, "promoted": 0, "blocked": [0] * len(GAMMAS), "named": [0] * len(GAMMAS)}
    out["coverage"] = [[0, 0] for _ in BANDS]
    out["unconverged"] = 0
    for r in range(runs):
        rng = np.random.default_rng([seed, r])
        sizes, delta, bad, rows = simulate(rng, degraded)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            promote, sl = _test_fit(_table(rows), r) if kind == "test" else _cv_fit(rows, r, rng)
        f = sl.per_slice
        order = [int(n[1:]) for n in f["slice"]]
        joint = sl.p_no_slice_worse
        named = bad is not None and sl.worst_slice == f"s{bad:02d}"
        out["runs"] += 1
        out["promoted"] += int(promote)
        out["unconverged"] += int(not sl.converged)
        for j, g in enumerate(GAMMAS):
            out["blocked"][j] += int(joint < g)
            out["named"][j] += int(joint < g and named)
        covered = (f["hdi_95_low"].to_numpy() <= delta[order]) & (
            delta[order] <= f["hdi_95_high"].to_numpy()
        )
        for j, (lo, hi) in enumerate(BANDS):
            m = (sizes[order] >= lo) & (sizes[order] < hi)
            out["coverage"][j][0] += int(covered[m].sum())
            out["coverage"][j][1] += int(m.sum())
    return out


def real_cell(kind, degraded, runs, seed, corrupt=8, share=0.4):
    """The real-learner cell: digits (the slice is the true digit, ~90 test rows a slice),
    a logistic regression (baseline) against an RBF SVM (candidate) on 50/50 stratified
    splits; ``degraded``: the candidate is trained with ``share`` of digit ``corrupt``'s
    training labels relabelled 1 (a systematic labelling error).  Truth: the mean per-slice accuracy
    difference over the runs' holdouts (each run's holdout is half the data)."""
    import pandas as pd
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedShuffleSplit
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    X, y = load_digits(return_X_y=True)
    out = {"runs": 0, "promoted": 0, "blocked": [0] * len(GAMMAS), "named": [0] * len(GAMMAS)}
    out["per_slice"] = [0.0] * 10
    for r in range(runs):
        rng = np.random.default_rng([seed, r])
        split = StratifiedShuffleSplit(1, test_size=0.5, random_state=int(rng.integers(2**31)))
        tr, te = next(split.split(X, y))
        y_c = y[tr].copy()
        if degraded:
            hit = np.flatnonzero(y_c == corrupt)
            hit = hit[rng.random(hit.size) < share]
            y_c[hit] = 1
        base = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=3000))
        cand = SVC(gamma=0.001)
        pb = base.fit(X[tr], y[tr]).predict(X[te])
        pc = cand.fit(X[tr], y_c).predict(X[te])
        t = pd.DataFrame({"y_true": y[te], "a": pb, "b": pc, "slice": y[te].astype(str)})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = compare_predictions(
                t, "a", "b", rope=ROPE, slices="slice", slice_rope=SLICE_ROPE, random_state=r
            )
        joint = res.slices.p_no_slice_worse
        out["runs"] += 1
        out["promoted"] += int(res.overall.decision(0.95).outcome == "promote")
        for j, g in enumerate(GAMMAS):
            out["blocked"][j] += int(joint < g)
            out["named"][j] += int(joint < g and res.slices.worst_slice == str(corrupt))
        d = (pc == y[te]).astype(float) - (pb == y[te]).astype(float)
        for k in range(10):
            out["per_slice"][k] += float(d[y[te] == k].mean()) / runs
    return out


def _fingerprint():
    parts = [inspect.getsource(fn) for fn in (simulate, _table, _test_fit, _cv_fit, cell)]
    return hashlib.sha256("".join(parts).encode()).hexdigest()[:16]


class Checkpoint:
    """Finished chunks of runs in a JSON file, written after every chunk: a run resumes."""

    def __init__(self, path, done_only=False):
        self.done_only = done_only
        self.path = Path(path) if path else None
        self.key = _fingerprint()
        self.chunks = {}
        if self.path and self.path.exists():
            saved = json.loads(self.path.read_text())
            if saved.get("code") == self.key:
                self.chunks = saved["chunks"]

    def cell(self, kind, degraded, runs, seed, fn=cell):
        total = None
        for c in range(0, runs, CHUNK):
            name = json.dumps([kind, degraded, seed + c])
            if name not in self.chunks and self.done_only:
                continue
            if name not in self.chunks:
                self.chunks[name] = fn(kind, degraded, min(CHUNK, runs - c), seed + c)
                if self.path:
                    tmp = self.path.with_suffix(".tmp")
                    tmp.write_text(json.dumps({"code": self.key, "chunks": self.chunks}))
                    tmp.replace(self.path)
            total = _add(total, self.chunks[name])
        return total


def _add(a, b):
    if a is None:
        return json.loads(json.dumps(b))
    for k, v in b.items():
        if isinstance(v, int):
            a[k] += v
        elif k == "per_slice":
            a[k] = [x + y for x, y in zip(a[k], v, strict=True)]  # means of chunks: summed
        elif k == "coverage":
            a[k] = [[x[0] + y[0], x[1] + y[1]] for x, y in zip(a[k], v, strict=True)]
        else:
            a[k] = [x + y for x, y in zip(a[k], v, strict=True)]
    return a


def timing(n_slices=100, n_rows=1_000_000, seed=0):
    """CPU and wall seconds of one warm comparison of 100 slices and 10^6 rows."""
    each = n_rows // n_slices
    _, _, _, rows = simulate(np.random.default_rng(seed), False, k=n_slices, lo=each, hi=each)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = _table(rows)
        _test_fit(t, 0)  # warm: the compiled sampler loaded
        c0, w0 = time.process_time(), time.perf_counter()
        _test_fit(t, 1)
    return rows[0].size, time.process_time() - c0, time.perf_counter() - w0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=2032)
    p.add_argument("--kinds", nargs="+", default=["test", "cv"], choices=["test", "cv"])
    p.add_argument("--timing", action="store_true", help="also time 100 slices x 10^6 rows")
    p.add_argument("--real-runs", type=int, default=0, help="runs of the real-learner cell")
    p.add_argument("--checkpoint", default="slice_guardrails.json")
    p.add_argument("--done-only", action="store_true", help="print the finished chunks only")
    args = p.parse_args()
    ck = Checkpoint(args.checkpoint, args.done_only)
    t0 = time.perf_counter()
    print(
        f"{K} slices of 20–5,000 rows (log-uniform), true slice differences N({MU}, {TAU}); "
        f"ROPE {ROPE}, slice ROPE {SLICE_ROPE}, gamma 0.95; {args.runs} runs per cell\n"
    )
    g = " | ".join(f"slice_gamma {x:g}" for x in GAMMAS)
    print(f"| cell | runs | promoted overall | {g} |")
    print("|---|---|---|" + "---|" * len(GAMMAS))
    cov = []
    for kind in args.kinds:
        for degraded in (False, True):
            c = ck.cell(kind, degraded, args.runs, args.seed + 1000 * degraded + 7 * len(kind))
            if c is None:
                continue
            n = c["runs"]
            what = "detected (blocked, named)" if degraded else "false alarm (blocked)"
            vals = c["named"] if degraded else c["blocked"]
            row = " | ".join(f"{100 * v / n:.1f} %" for v in vals)
            cell_name = f"{kind}, {'one slice degraded' if degraded else 'no slice degraded'}"
            print(f"| {cell_name}: {what} | {n} | {100 * c['promoted'] / n:.1f} % | {row} |")
            cov.append((cell_name, c))
    print("\nfalse alarm: target ≤ 5 %; detected: target ≥ 80 %.\n")
    bands = " | ".join(f"{lo}–{hi - 1 if hi > 5000 else hi} rows" for lo, hi in BANDS)
    print(f"| per-slice 95 % HDI coverage | {bands} | unconverged fits |")
    print("|---|" + "---|" * (len(BANDS) + 1))
    for name, c in cov:
        row = " | ".join(f"{100 * a / b:.1f} % (of {b})" for a, b in c["coverage"])
        print(f"| {name} | {row} | {c['unconverged']} |")
    print("\ntarget: 93–97 % in every band\n")
    if args.real_runs:
        print("| real learners (digits, slice = digit) | runs | promoted overall | " + g + " |")
        print("|---|---|---|" + "---|" * len(GAMMAS))
        for degraded in (False, True):
            c = ck.cell("real", degraded, args.real_runs, args.seed + 5 + degraded, real_cell)
            if c is None:
                continue
            n, chunks = c["runs"], -(-c["runs"] // CHUNK)
            vals = c["named"] if degraded else c["blocked"]
            what = "digit 8 corrupted: detected" if degraded else "clean: false alarm"
            row = " | ".join(f"{100 * v / n:.1f} %" for v in vals)
            print(f"| {what} | {n} | {100 * c['promoted'] / n:.1f} % | {row} |")
            truth = ", ".join(f"{k}: {v / chunks:+.3f}" for k, v in enumerate(c["per_slice"]))
            print(f"\ntruth (mean holdout difference per digit): {truth}\n")
    if args.timing:
        n, cpu, wall = timing()
        print(f"100 slices, {n:,} rows, one test set (warm): {cpu:.2f} s CPU, {wall:.2f} s wall\n")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
