"""100 000 correlated t-tests: one vectorised call vs Python loops.

Compares ``bayescomp.correlated_ttest`` on a ``(100_000, n_splits)`` array with

* the floor: the same formula as plain vectorised numpy + ``scipy.stats.t`` without any
  input check or result object (bayescomp's goal: within 1.1x of it);

* a Python loop that applies scipy to the published formula, one comparison
  at a time (what a user would write by hand);
* a loop over ``baycomp.two_on_single`` (when baycomp is installed).

The loops are timed on ``--loop`` comparisons (default 10 000) and
extrapolated linearly to the full count unless ``--full`` is given; every
method's probabilities are checked to agree on the comparisons they share.

Run: ``python bench/closed_form.py [--n 100000] [--splits 100] [--loop 10000] [--full]
[--repeat 5]``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bayescomp import correlated_ttest


def scipy_loop(b, c, rho, rope):
    out = np.empty((len(b), 3))
    for i in range(len(b)):
        d = c[i] - b[i]
        n = d.size
        scale = np.sqrt(np.var(d, ddof=1) * (1 / n + rho / (1 - rho)))
        p_left = stats.t.cdf(-rope, n - 1, loc=d.mean(), scale=scale)
        p_right = stats.t.sf(rope, n - 1, loc=d.mean(), scale=scale)
        out[i] = p_left, 1 - p_left - p_right, p_right
    return out


def baycomp_loop(b, c, runs, rope):
    from baycomp import two_on_single

    out = np.empty((len(b), 3))
    for i in range(len(b)):
        out[i] = two_on_single(b[i], c[i], rope=rope, runs=runs)
    return out


def floor(b, c, rho, rope):
    """The same formula as plain vectorised numpy + scipy, no checks: the floor to reach."""
    d = c - b
    n = d.shape[-1]
    scale = np.sqrt(d.var(axis=-1, ddof=1) * (1 / n + rho / (1 - rho)))
    mean = d.mean(axis=-1)
    p_left = stats.t.cdf(-rope, n - 1, loc=mean, scale=scale)
    p_right = stats.t.sf(rope, n - 1, loc=mean, scale=scale)
    return np.c_[p_left, 1 - p_left - p_right, p_right]


def timed(fn, *args, repeat: int = 1):
    """Best wall time of ``repeat`` runs (the machine may be shared) and the output."""
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="number of comparisons")
    ap.add_argument("--splits", type=int, default=100, help="splits per comparison (10x10 CV)")
    ap.add_argument("--loop", type=int, default=10_000, help="comparisons timed in the loops")
    ap.add_argument("--full", action="store_true", help="run the loops on all comparisons")
    ap.add_argument(
        "--repeat", type=int, default=5, help="vectorised runs timed (the best is kept)"
    )
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n, k = args.n, args.splits
    rho, rope, runs = 0.1, 0.01, k // 10
    b = rng.normal(0.80, 0.03, (n, k))
    c = b + rng.normal(rng.normal(0.0, 0.01, (n, 1)), 0.015, (n, k))
    m = n if args.full else min(args.loop, n)

    correlated_ttest(b[:10], c[:10], rho=rho, rope=rope)  # warm-up (imports)
    floor(b[:10], c[:10], rho, rope)

    def ours():  # probabilities are computed lazily: count them
        res = correlated_ttest(b, c, rho=rho, rope=rope)
        return np.c_[res.p_left, res.p_rope, res.p_right]

    t_floor, ref_floor = timed(floor, b, c, rho, rope, repeat=args.repeat)
    t_vec, probs = timed(ours, repeat=args.repeat)
    assert np.allclose(ref_floor, probs, atol=1e-12), "floor disagrees"

    rows = [
        ("plain numpy + scipy.stats.t (floor)", n, t_floor, t_floor),
        ("bayescomp vectorised (one call)", n, t_vec, t_vec),
    ]
    t_loop, ref = timed(scipy_loop, b[:m], c[:m], rho, rope)
    assert np.allclose(ref, probs[:m], atol=1e-10), "scipy loop disagrees"
    rows.append(("Python loop over scipy", m, t_loop, t_loop * n / m))
    try:
        import baycomp  # noqa: F401
    except ImportError:
        print("baycomp not installed: its row is skipped (pip install baycomp)\n")
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_bay, ref_b = timed(baycomp_loop, b[:m], c[:m], runs, rope)
        assert np.allclose(ref_b, probs[:m], atol=1e-10), "baycomp disagrees"
        rows.append(("Python loop over baycomp.two_on_single", m, t_bay, t_bay * n / m))

    print(
        f"{n:,} comparisons of {k} paired splits (rho={rho}, rope={rope}); "
        "probabilities agree to 1e-10\n"
    )
    print(
        f"{'method':<42} {'timed on':>9} {'seconds':>9} {f'est. s for {n:,}':>17} "
        f"{'us/comp.':>9} {'x bayescomp':>11} {'x floor':>8}"
    )
    for name, count, secs, total in rows:
        print(
            f"{name:<42} {count:>9,} {secs:>9.3f} {total:>17.2f} {1e6 * total / n:>9.2f} "
            f"{total / t_vec:>11.2f} {total / t_floor:>8.2f}"
        )
    print(
        f"\nbayescomp / floor = {t_vec / t_floor:.2f} (goal <= 1.1); "
        f"loop over baycomp / bayescomp = {rows[-1][3] / t_vec:.0f} (goal >= 80)"
    )


if __name__ == "__main__":
    main()
