"""Operating characteristics of the promotion rules of ``select``: family-wise false
promotion and power, with and without sequential looks.

A seeded simulation of a selection among ``k`` challengers under the correlated t-test's
own model: 10 x 10 cross-validation (n = 100 splits, rho = 0.1), each model's per-split
score has sd 0.02 around its true value, equicorrelated across splits with rho (the
training sets overlap); ROPE 0.01, gamma 0.95.  Two ways the scores can be related:

``shared``
    one table per run: every model is scored on the same splits, each split has a
    difficulty shared by every model (the same fold is hard for every model), and every
    challenger is compared with the same baseline scores;
``independent``
    every challenger is compared with its own, independent copy of the baseline (the
    steps' posteriors are independent).

Rules: ``champion_challenger`` (the former default walk: promote when
P(challenger - champion > rope) >= gamma), ``bonferroni`` (the same walk with gamma
adjusted to 1 - (1 - gamma) / k) and ``family`` (the default: the winner's hybrid
selective test, :mod:`bayescomp.decision.family`).
Looks: up to ``L`` looks = the base design plus up to ``L - 1`` extra repetitions (10
splits each) while a step is undecided; ``family`` spends ``1 - gamma`` across looks.

A run is a *false promotion* when any model that is not better than the baseline by more
than the ROPE is promoted at any point; *power* is the share of runs whose final champion
is the truly better challenger.

Finished cells are kept in ``--checkpoint`` (a JSON file in the current folder, tied to
this code): an interrupted run resumes where it stopped.

Run by hand (about an hour on one idle core; ``--runs 1000`` for a quick look)::

    python bench/selection_operating_characteristics.py
    python bench/selection_operating_characteristics.py --runs 1000 --ks 10 --looks 1
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import special

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bayescomp.decision.family import (  # noqa: E402
    joint_differences,
    spent_gammas,
    winner_test,
)

RHO, SD, DIFFICULTY_SD, ROPE, GAMMA = 0.1, 0.02, 0.03, 0.01, 0.95
FOLDS, REPEATS = 10, 10


def simulate(
    rng: np.random.Generator,
    runs: int,
    gains: np.ndarray,
    n: int,
    mode: str,
    sd: float = SD,
    rho: float = RHO,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-split scores ``(runs, k + 1, n)`` (model 0 the baseline) and, for ``independent``,
    each challenger's own copy of the baseline ``(runs, k, n)``."""
    k = len(gains)
    mu = np.r_[0.0, gains][None, :, None]

    def noise(models: int) -> np.ndarray:
        z = rng.standard_normal((runs, models, 1))  # the shared part of a model's splits
        u = rng.standard_normal((runs, models, n))
        return sd * (np.sqrt(rho) * z + np.sqrt(1 - rho) * u)

    scores = mu + noise(k + 1)
    if mode == "shared":
        scores = scores + DIFFICULTY_SD * rng.standard_normal((runs, 1, n))
        return scores, None
    return scores, noise(k)


def _against(
    scores: np.ndarray, own_base: np.ndarray | None, champion: np.ndarray, i: int
) -> np.ndarray:
    """Per-split differences challenger ``i`` minus each run's champion, ``(runs, n)``."""
    champ = np.take_along_axis(scores, champion[:, None, None], 1)[:, 0]
    if own_base is not None:
        champ = np.where((champion == 0)[:, None], own_base[:, i - 1], champ)
    return scores[:, i] - champ


def _t_probs(d: np.ndarray, rho: float, rope: float) -> tuple[np.ndarray, np.ndarray]:
    """``P(mu < -rope), P(mu > rope)`` of the correlated t-test along the last axis."""
    n = d.shape[-1]
    mean, sd = d.mean(-1), d.std(-1, ddof=1)
    scale = sd * np.sqrt(1 / n + rho / (1 - rho))
    return special.stdtr(n - 1, (-rope - mean) / scale), special.stdtr(n - 1, (mean - rope) / scale)


def per_step(scores, own_base, looks, gamma, rope=ROPE, rho=RHO):
    """Today's walk (and, with an adjusted gamma, the Bonferroni walk): promoted-any-null
    mask is computed by the caller from the promotion history."""
    runs, k1, _ = scores.shape
    champion = np.zeros(runs, dtype=int)
    promoted = np.zeros((runs, k1), dtype=bool)
    for i in range(1, k1):
        d = _against(scores, own_base, champion, i)
        decided = np.zeros(runs, dtype=bool)
        promote = np.zeros(runs, dtype=bool)
        for n in looks:
            left, right = _t_probs(d[:, :n], rho, rope)
            now = ~decided
            promote |= now & (right >= gamma)
            decided |= (right >= gamma) | (left >= gamma) | (1 - left - right >= gamma)
        promoted[:, i] = promote
        champion = np.where(promote, i, champion)
    return champion, promoted


def family(scores, own_base, looks, gamma, rope=ROPE, rho=RHO):
    """The winner's hybrid selective test at each look, ``1 - gamma`` spent across looks
    (:func:`bayescomp.decision.family.spent_gammas`); more looks while no promotion and
    some challenger's step is not decided as worse or equivalent (as the library's rule:
    a step that would promote on its own but was refused for the family goes on too)."""
    runs, k1, _ = scores.shape
    base = scores[:, :1] if own_base is None else own_base
    diffs = np.swapaxes(scores[:, 1:] - base, 1, 2)  # (runs, n, k)
    gammas = spent_gammas(gamma, looks, rho, k=k1 - 1)
    champion = np.zeros(runs, dtype=int)
    open_ = np.arange(runs)  # the runs still looking
    for n, g in zip(looks, gammas, strict=True):
        d = diffs[open_, :n]
        w = winner_test(joint_differences(d, rho), rope, g)
        champion[open_] = np.where(w.promote, w.winner + 1, 0)
        left, right = _t_probs(np.swapaxes(d, 1, 2), rho, rope)
        going = ((left < gamma) & (1 - left - right < gamma)).any(-1)
        open_ = open_[~w.promote & going]
        if open_.size == 0:
            break
    promoted = np.zeros((runs, k1), dtype=bool)
    promoted[np.arange(runs), champion] = champion > 0
    return champion, promoted


def bonferroni(scores, own_base, looks, gamma, rope=ROPE, rho=RHO):
    k = scores.shape[1] - 1
    return per_step(scores, own_base, looks, 1 - (1 - gamma) / k, rope, rho)


RULES = {"champion_challenger": per_step, "bonferroni": bonferroni, "family": family}


def cell(rule, k, gain, n_looks, mode, runs, seed, power_case=False):
    """(family-wise false promotion, power) of one setting, 4 000 runs in chunks."""
    gains = np.full(k, gain)
    if power_case:  # one challenger 3 x ROPE better, the others no better than the baseline
        gains = np.zeros(k)
        gains[k // 2] = 3 * ROPE
    looks = [FOLDS * (REPEATS + j) for j in range(n_looks)]
    rng = np.random.default_rng(seed)
    false, hit = 0, 0
    for start in range(0, runs, 500):
        m = min(500, runs - start)
        scores, own = simulate(rng, m, gains, looks[-1], mode)
        champion, promoted = RULES[rule](scores, own, looks, GAMMA)
        null = np.r_[False, gains > ROPE]  # models whose promotion is right
        false += int((promoted & ~null[None, :]).any(axis=1).sum())
        hit += int(null[champion].sum())
    return false / runs, hit / runs


def _fingerprint() -> str:
    """What the cells depend on — the simulation's code and the rule's numbers on a fixed
    input — so that a checkpoint of other code is not reused (a docstring edit is fine)."""
    import hashlib
    import inspect

    rng = np.random.default_rng(0)
    d = rng.normal(0.01, 0.02, size=(3, 100, 5))
    w = winner_test(joint_differences(d, RHO), ROPE, 0.95)
    parts = [inspect.getsource(f) for f in (simulate, _against, _t_probs, per_step, family, cell)]
    parts += [np.array2string(v, precision=10) for v in (w.p_selective, w.corrected_gain)]
    parts += [
        np.array2string(
            spent_gammas(GAMMA, [100 + 10 * j for j in range(10)], RHO, k), precision=10
        )
        for k in (1, 10)
    ]
    return hashlib.sha256("".join(parts).encode()).hexdigest()[:16]


class Checkpoint:
    """Finished cells in a JSON file, written after every cell: an interrupted run resumes."""

    def __init__(self, path: str | None) -> None:
        self.path = Path(path) if path else None
        self.key = _fingerprint()
        self.cells: dict[str, list[float]] = {}
        if self.path and self.path.exists():
            saved = json.loads(self.path.read_text())
            if saved.get("code") == self.key:
                self.cells = saved["cells"]

    def cell(self, *args, **kw) -> tuple[float, float]:
        name = json.dumps([args, sorted(kw.items())])
        if name not in self.cells:
            self.cells[name] = list(cell(*args, **kw))
            if self.path:
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text(json.dumps({"code": self.key, "cells": self.cells}))
                tmp.replace(self.path)
        return tuple(self.cells[name])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=4000)
    p.add_argument("--ks", type=int, nargs="+", default=[1, 5, 10, 20])
    p.add_argument("--looks", type=int, nargs="+", default=[1, 10])
    p.add_argument("--modes", nargs="+", default=["shared", "independent"])
    p.add_argument("--rules", nargs="+", default=list(RULES))
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument(
        "--checkpoint",
        default="selection_operating_characteristics.json",
        help="file of finished cells (resumed from; '' for none)",
    )
    args = p.parse_args()
    ck = Checkpoint(args.checkpoint)
    gains = [
        ("0", 0.0),
        ("½ROPE", ROPE / 2),
        ("edge", ROPE),
        ("2×ROPE", 2 * ROPE),
        ("3×ROPE", 3 * ROPE),
    ]
    se = 100 * np.sqrt(0.05 * 0.95 / args.runs)
    print(
        f"10×10 CV (n = 100, rho = {RHO}), per-split sd {SD}, ROPE {ROPE}, gamma {GAMMA}, "
        f"{args.runs} runs per cell (binomial se at 5 %: {se:.2f} points); seed {args.seed}\n"
    )
    t0 = time.perf_counter()
    for mode in args.modes:
        for n_looks in args.looks:
            print(f"## scores {mode}, up to {n_looks} look(s)\n")
            print(
                "| rule | true gain of every challenger | "
                + " | ".join(f"k = {k}" for k in args.ks)
                + " |"
            )
            print("|---|---|" + "---|" * len(args.ks))
            for rule in args.rules:
                for j, (label, g) in enumerate(gains):
                    vals = [
                        ck.cell(rule, k, g, n_looks, mode, args.runs, args.seed + 1000 * k + j)[
                            1 if g > ROPE else 0
                        ]
                        for k in args.ks
                    ]
                    what = "power" if g > ROPE else "false promotion"
                    print(
                        f"| {rule} | {label} ({what}) | "
                        + " | ".join(f"{100 * v:.1f} %" for v in vals)
                        + " |"
                    )
                vals = [
                    ck.cell(
                        rule, k, 0.0, n_looks, mode, args.runs, args.seed + 7 * k, power_case=True
                    )
                    for k in args.ks
                ]
                print(
                    f"| {rule} | one at 3×ROPE, others 0 (power; false promotion) | "
                    + " | ".join(f"{100 * h:.1f} %; {100 * f:.1f} %" for f, h in vals)
                    + " |"
                )
            print()
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
