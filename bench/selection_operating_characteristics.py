"""Operating characteristics of the promotion rules of ``select``: family-wise false
promotion *and* power, with and without sequential looks (issue 30).

A seeded simulation of a selection among ``k`` challengers under the correlated t-test's
own model: 10 x 10 cross-validation (n = 100 splits, rho = 0.1), each model's per-split
score has sd 0.02 around its true value, equicorrelated across splits with rho (the
training sets overlap); ROPE 0.01, gamma 0.95.  Two ways the scores can be related:

``shared``
    one table per run: every model is scored on the same splits, each split has a
    difficulty shared by every model, and every challenger is compared with the same
    baseline scores (the challengers' differences are correlated, about 0.5);
``independent``
    every challenger is compared with its own, independent copy of the baseline.

Rules: ``family`` (the default of ``select``: :func:`bayescomp.decision.family.family_test`,
the union of the winner's conditional test, Dunnett's max-t band and the runner-up test
over the plausible challengers, calibrated on the least-favourable configuration),
``selective`` and ``simultaneous`` (its first two parts alone, each at the whole
``1 - gamma``: the previous default and a Dunnett band), ``champion_challenger`` (each
step at gamma) and ``bonferroni``.  Looks: up to ``L`` looks = the base design plus up to
``L - 1`` extra repetitions (10 splits each) while a step is undecided; ``1 - gamma`` is
spent across looks (:func:`bayescomp.decision.family.spent_gammas`).

A run is a *false promotion* when a model that is not better than the baseline by more
than the ROPE is promoted; *power* is the share of runs that promote a model that is.
Scenarios (true gains in ROPE widths): A every challenger at the ROPE edge (1); B one at
3 among nine at 0; B' one at 3 among nine at -2; C three at 3; D 2.6 / 3.0 / 4.0;
E one at 3 alone; D4 one at 4 alone; N1 three at the edge among seven at -2 and N2 two
at the edge and one at 2 (null configurations other than A: the rate must hold there too).
``--curve`` prints the trade-off between B and C over the shares of the family test.

At least as many challengers as splits (issue 41): one repetition of 10-fold CV (n = 10
splits, ``--many-repeats``) with k = n and k = 5 n challengers, one look; the good
challengers are ``MANY_GAIN`` ROPE widths better (one alone is promoted in about 70 % of the
runs at n = 10): A every challenger at the edge, N1 three at the edge among the others at
-2, B one good among nulls at 0, B' one good among others at -2, C three good among nulls
at 0 (C >= B: more good challengers must not lower the power).  ``--only-many`` prints
this table alone.

Finished cells are kept in ``--checkpoint`` (a JSON file tied to this code): an
interrupted run resumes.  Run by hand (about an hour on one idle core)::

    python bench/selection_operating_characteristics.py
    python bench/selection_operating_characteristics.py --runs 500 --looks 1 --curve
    python bench/selection_operating_characteristics.py --only-many --many-runs 200
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import special

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bayescomp.decision.family import (  # noqa: E402
    LFC_DRAWS,
    SHARES,
    _least_favourable,
    family_test,
    joint_differences,
    spent_gammas,
)

RHO, SD, DIFFICULTY_SD, ROPE, GAMMA = 0.1, 0.02, 0.03, 0.01, 0.95
FOLDS, REPEATS = 10, 10
#: true gains of the challengers in ROPE widths
SCENARIOS = {
    "B": [3.0] + [0.0] * 9,
    "B'": [3.0] + [-2.0] * 9,
    "C": [3.0] * 3,
    "D": [2.6, 3.0, 4.0],
    "E": [3.0],
    "D4": [4.0],
    "N1": [1.0] * 3 + [-2.0] * 7,
    "N2": [1.0, 1.0, 2.0],
}
#: k >= n (issue 41): repetitions of 10-fold CV (n = 10 splits), the challengers per split
#: (k = n and k = 5 n) and the good challengers' gain in ROPE widths there
MANY_REPEATS, MANY_KS, MANY_GAIN = 1, (1, 5), 4.0


def many_scenarios(k, gain=MANY_GAIN):
    """The scenarios of ``k`` challengers of the k >= n table (module docstring)."""
    return {
        "A": [1.0] * k,
        "N1": [1.0] * 3 + [-2.0] * (k - 3),
        "B": [gain] + [0.0] * (k - 1),
        "B'": [gain] + [-2.0] * (k - 1),
        "C": [gain] * 3 + [0.0] * (k - 3),
    }


#: the scenarios run with several looks (power and monotonicity)
LOOK_SCENARIOS = ("B", "C", "D", "E", "D4")
#: shares of ``1 - gamma`` of the single-test rules and of the trade-off curve
DESIGNS = {
    "family": SHARES,
    "selective": (1.0, 0.0, 0.0),
    "simultaneous": (0.0, 1.0, 0.0),
}
CURVE = [
    (1.0, 0.0, 0.0),
    (0.7, 0.15, 0.15),
    (0.5, 0.25, 0.25),
    (0.5, 0.5, 0.0),
    (0.3, 0.35, 0.35),
    (0.0, 1.0, 0.0),
]


def simulate(rng, runs, gains, n, mode, sd=SD, rho=RHO):
    """Per-split scores ``(runs, k + 1, n)`` (model 0 the baseline) and, for ``independent``,
    each challenger's own copy of the baseline ``(runs, k, n)``."""
    k = len(gains)
    mu = np.r_[0.0, gains][None, :, None]

    def noise(models):
        z = rng.standard_normal((runs, models, 1))  # the shared part of a model's splits
        u = rng.standard_normal((runs, models, n))
        return sd * (np.sqrt(rho) * z + np.sqrt(1 - rho) * u)

    scores = mu + noise(k + 1)
    if mode == "shared":
        return scores + DIFFICULTY_SD * rng.standard_normal((runs, 1, n)), None
    return scores, noise(k)


def _t_probs(d, rho, rope):
    """``P(mu < -rope), P(mu > rope)`` of the correlated t-test along the last axis."""
    n = d.shape[-1]
    mean, sd = d.mean(-1), d.std(-1, ddof=1)
    scale = sd * np.sqrt(1 / n + rho / (1 - rho))
    return special.stdtr(n - 1, (-rope - mean) / scale), special.stdtr(n - 1, (mean - rope) / scale)


def per_step(scores, own_base, looks, gamma, rope=ROPE, rho=RHO):
    """The champion/challenger walk, each step at ``gamma``: the champion index per run."""
    runs, k1, _ = scores.shape
    champion = np.zeros(runs, dtype=int)
    for i in range(1, k1):
        champ = np.take_along_axis(scores, champion[:, None, None], 1)[:, 0]
        if own_base is not None:
            champ = np.where((champion == 0)[:, None], own_base[:, i - 1], champ)
        d = scores[:, i] - champ
        decided = np.zeros(runs, dtype=bool)
        promote = np.zeros(runs, dtype=bool)
        for n in looks:
            left, right = _t_probs(d[:, :n], rho, rope)
            promote |= ~decided & (right >= gamma)
            decided |= (right >= gamma) | (left >= gamma) | (1 - left - right >= gamma)
        champion = np.where(promote, i, champion)
    return champion


def bonferroni(scores, own_base, looks, gamma, rope=ROPE, rho=RHO):
    k = scores.shape[1] - 1
    return per_step(scores, own_base, looks, 1 - (1 - gamma) / k, rope, rho)


def family(scores, own_base, looks, gamma, rope=ROPE, rho=RHO, shares=SHARES):
    """The family test at each look, ``1 - gamma`` spent across looks; more looks while
    nothing is promoted and some challenger is neither worse nor equivalent (as the
    library's rule)."""
    runs, k1, _ = scores.shape
    base = scores[:, :1] if own_base is None else own_base
    diffs = np.swapaxes(scores[:, 1:] - base, 1, 2)  # (runs, n, k)
    gammas = spent_gammas(gamma, looks, rho, k=k1 - 1)
    champion = np.zeros(runs, dtype=int)
    open_ = np.arange(runs)
    for n, g in zip(looks, gammas, strict=True):
        d = diffs[open_, :n]
        f = family_test(joint_differences(d, rho), rope, g, shares=shares)
        champion[open_] = f.promoted + 1
        left, right = _t_probs(np.swapaxes(d, 1, 2), rho, rope)
        going = ((left < gamma) & (1 - left - right < gamma)).any(-1)
        open_ = open_[~f.promote & going]
        if open_.size == 0:
            break
    return champion


def oracle_dunnett(scores, own_base, looks, gamma, rope=ROPE, rho=RHO):
    """Dunnett's max-t test with the challengers' *true* correlation (0.5 with shared baseline
    scores, 0 with independent copies), one look: a challenger is certified when its t against
    the ROPE edge exceeds the gamma-quantile of the maximum over the least-favourable draws
    (each statistic with its own scale estimate, as in the data); the certified one with the
    largest mean is promoted.  A reference that a rule estimating the correlation from the
    splits cannot beat at the edge rate it keeps."""
    k, n = scores.shape[1] - 1, looks[0]
    base = scores[:, :1] if own_base is None else own_base
    joint = joint_differences(np.swapaxes(scores[:, 1:] - base, 1, 2)[:, :n], rho)
    t = (joint.mean - rope) / joint.scale
    corr = np.eye(k) if own_base is not None else 0.5 * (np.ones((k, k)) + np.eye(k))
    crit = np.quantile(_least_favourable(corr, np.ones(k, bool), n - 1, LFC_DRAWS).max(-1), gamma)
    gain = np.where(t > crit, joint.mean, -np.inf)
    return np.where((t > crit).any(-1), gain.argmax(-1) + 1, 0)


def rule_for(name):
    if name == "champion_challenger":
        return per_step
    if name == "bonferroni":
        return bonferroni
    if name == "oracle_dunnett":
        return oracle_dunnett
    shares = DESIGNS[name] if name in DESIGNS else tuple(json.loads(name))

    def run(scores, own_base, looks, gamma):
        return family(scores, own_base, looks, gamma, shares=shares)

    return run


def cell(rule, gains, n_looks, mode, runs, seed, repeats=REPEATS):
    """(false promotion, power) of one setting, in chunks of 250 runs; ``repeats``
    repetitions of 10-fold CV at the first look."""
    gains = np.asarray(gains, dtype=float) * ROPE
    right = np.r_[False, gains > ROPE * (1 + 1e-9)]  # models whose promotion is right
    looks = [FOLDS * (repeats + j) for j in range(n_looks)]
    rng = np.random.default_rng(seed)
    false = hit = 0
    for start in range(0, runs, 250):
        m = min(250, runs - start)
        scores, own = simulate(rng, m, gains, looks[-1], mode)
        champion = rule_for(rule)(scores, own, looks, GAMMA)
        false += int(((champion > 0) & ~right[champion]).sum())
        hit += int(right[champion].sum())
    return false / runs, hit / runs


def np_equivalent(gains, corr=0.5):
    """The gain (in ROPE widths) of the single challenger whose correlated t-test has the
    power of the most powerful level-(1 - gamma) test of 'every challenger at the ROPE edge'
    against ``gains`` (Neyman–Pearson, normal approximation, challengers' estimates
    correlated ``corr`` as with shared baseline scores): no rule that keeps the edge rate
    promotes more often in that configuration than that one challenger would alone."""
    delta = np.asarray(gains, dtype=float) - 1.0  # distance from the edge, in ROPE widths
    cov = np.full((delta.size,) * 2, corr) + (1 - corr) * np.eye(delta.size)
    return 1.0 + float(np.sqrt(delta @ np.linalg.solve(cov, delta)))


def many_table(ck, args):
    """The k >= n rows: false promotion (A, N1) and power (B, B', C) at k = n and 5 n."""
    rep = args.many_repeats
    n = FOLDS * rep
    ks = [m * n for m in MANY_KS]
    names = list(many_scenarios(3))
    for mode in args.modes:
        print(
            f"## k >= n: {n} splits (10-fold CV × {rep}), scores {mode}, one "
            f"look, good challengers {MANY_GAIN:g} × ROPE — % of runs\n"
        )
        head = [f"{name} k={k}" for k in ks for name in names]
        print("| rule | runs × seeds | " + " | ".join(head) + " |")
        print("|---|---|" + "---|" * len(head))
        for rule in args.many_rules:
            runs = args.many_runs if rule == "family" else args.compare_runs
            seeds = args.seeds if rule == "family" else args.seeds[:1]
            row = []
            for k in ks:
                for j, (name, g) in enumerate(many_scenarios(k).items()):
                    i = 0 if name in ("A", "N1") else 1  # false promotion, else power
                    vals = [
                        ck.cell(rule, g, 1, mode, runs, s + 1000 * (j + 1) + k, rep)[i]
                        for s in seeds
                    ]
                    row.append(" / ".join(f"{100 * v:.1f}" for v in vals))
            print(f"| {rule} | {runs} × {len(seeds)} | " + " | ".join(row) + " |")
        print()


def _fingerprint():
    """What the cells depend on — the simulation's code and the rule's numbers on a fixed
    input — so that a checkpoint of other code is not reused."""
    rng = np.random.default_rng(0)
    d = rng.normal(0.01, 0.02, size=(3, 100, 5))
    f = family_test(joint_differences(d, RHO), ROPE, 0.95)
    parts = [inspect.getsource(fn) for fn in (simulate, _t_probs, per_step, family, cell)]
    parts += [np.array2string(f.p_family, precision=10)]  # what the cells depend on
    parts += [np.array2string(spent_gammas(GAMMA, [100 + 10 * j for j in range(10)], RHO, 3))]
    return hashlib.sha256("".join(parts).encode()).hexdigest()[:16]


class Checkpoint:
    """Finished cells in a JSON file, written after every cell: an interrupted run resumes."""

    def __init__(self, path):
        self.path = Path(path) if path else None
        self.key = _fingerprint()
        self.cells = {}
        if self.path and self.path.exists():
            saved = json.loads(self.path.read_text())
            if saved.get("code") == self.key:
                self.cells = saved["cells"]

    def cell(self, *args):
        name = json.dumps(args)
        if name not in self.cells:
            self.cells[name] = list(cell(*args))
            if self.path:
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text(json.dumps({"code": self.key, "cells": self.cells}))
                tmp.replace(self.path)
        return tuple(self.cells[name])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=2000)
    p.add_argument("--seeds", type=int, nargs="+", default=[2026, 2027])
    p.add_argument("--ks", type=int, nargs="+", default=[1, 3, 10, 20])
    p.add_argument("--looks", type=int, nargs="+", default=[1, 10])
    p.add_argument("--modes", nargs="+", default=["shared", "independent"])
    p.add_argument(
        "--rules",
        nargs="+",
        default=["family", "selective", "simultaneous", "champion_challenger", "bonferroni"],
    )
    p.add_argument("--looks-runs", type=int, default=300, help="runs per cell with looks")
    p.add_argument(
        "--compare-runs", type=int, default=300, help="runs per cell of the other rules (one seed)"
    )
    p.add_argument(
        "--looks-rules",
        nargs="+",
        default=["family", "champion_challenger"],
        help="the rules run with several looks",
    )
    p.add_argument("--curve", action="store_true", help="the B/C trade-off over the shares")
    p.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=list(SCENARIOS))
    p.add_argument("--checkpoint", default="selection_operating_characteristics.json")
    p.add_argument("--many-repeats", type=int, default=MANY_REPEATS, help="k >= n table: n / 10")
    p.add_argument("--many-runs", type=int, default=1000, help="runs per family cell at k >= n")
    p.add_argument(
        "--many-rules",
        nargs="+",
        default=["family", "oracle_dunnett", "champion_challenger", "bonferroni"],
    )
    p.add_argument("--only-many", action="store_true", help="the k >= n table alone")
    args = p.parse_args()
    ck = Checkpoint(args.checkpoint)
    se = 100 * np.sqrt(0.05 * 0.95 / args.runs)
    t0 = time.perf_counter()
    if args.only_many:
        many_table(ck, args)
        print(f"({time.perf_counter() - t0:.0f} s)")
        return
    print(
        f"10×10 CV (n = 100, rho = {RHO}), per-split sd {SD}, ROPE {ROPE}, gamma {GAMMA}; "
        f"seeds {args.seeds} (an entry per seed: 'a / b'); binomial se at 5 % with "
        f"{args.runs} runs: {se:.2f} points\n"
    )

    def fmt(vals):
        return " / ".join(f"{100 * v:.1f}" for v in vals)

    for mode in args.modes:
        for n_looks in args.looks:
            many = n_looks > 1
            print(f"## scores {mode}, up to {n_looks} look(s) — % of runs\n")
            names = [n for n in args.scenarios if not many or n in LOOK_SCENARIOS]
            head = [f"A k={k}" for k in args.ks] + names
            print("| rule | runs × seeds | " + " | ".join(head) + " |")
            print("|---|---|" + "---|" * len(head))
            for rule in args.looks_rules if many else args.rules:
                runs = args.looks_runs if many else args.runs
                seeds = args.seeds if rule == "family" or many else args.seeds[:1]
                if rule != "family" and not many:
                    runs = args.compare_runs
                row = []
                for k in args.ks:
                    row.append(
                        fmt(
                            [ck.cell(rule, [1.0] * k, n_looks, mode, runs, s + k)[0] for s in seeds]
                        )
                    )
                for j, (name, g) in enumerate(SCENARIOS.items()):
                    if name in names:
                        i = 0 if name.startswith("N") else 1
                        row.append(
                            fmt(
                                [
                                    ck.cell(rule, g, n_looks, mode, runs, s + 100 + j)[i]
                                    for s in seeds
                                ]
                            )
                        )
                print(f"| {rule} | {runs} × {len(seeds)} | " + " | ".join(row) + " |")
            print()
    print("A, N1, N2: false promotion (target ≤ 5 %); B, B', C, D, E, D4: power.")
    print(
        f"Neyman–Pearson: in D no rule that keeps the edge rate (k = 3, shared scores) "
        f"promotes more often than one challenger {np_equivalent(SCENARIOS['D']):.2f}×ROPE "
        "better would alone (D4 is 4.0×ROPE alone)\n"
    )
    many_table(ck, args)
    if args.curve:
        print("## trade-off: shares (selective, max-t, runner-up), shared scores, one look\n")
        print("| shares | A k=10 | B | B' | C | D | E |")
        print("|---|---|---|---|---|---|---|")
        for sh in CURVE:
            name = next((n for n, v in DESIGNS.items() if tuple(v) == sh), json.dumps(list(sh)))
            vals = [
                ck.cell(name, [1.0] * 10, 1, "shared", args.compare_runs, args.seeds[0] + 10)[0]
            ]
            vals += [
                ck.cell(
                    name, SCENARIOS[s], 1, "shared", args.compare_runs, args.seeds[0] + 100 + j
                )[1]
                for j, s in enumerate(SCENARIOS)
                if s in ("B", "B'", "C", "D", "E")
            ]
            print(f"| {sh} | " + " | ".join(f"{100 * v:.1f}" for v in vals) + " |")
        print()
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
