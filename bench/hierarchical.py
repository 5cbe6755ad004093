"""Benchmark: hierarchical comparison on the 54-dataset baycomp data (nbc vs aode).

Run by hand from the repository root::

    python bench/hierarchical.py [--data ../shared/data/baycomp_accuracies.txt]

Prints wall time with a cold and a warm compiled-model cache, peak memory, the
effective sample size (ESS) of delta0 and ESS per second, for 4 chains with at
least 1000 bulk ESS for delta0.  When ``baycomp`` and ``pystan`` are installed
the same comparison is run with baycomp's ``HierarchicalTest`` (4 chains x
10 000 draws, its default); otherwise that row is skipped.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def load_54(path: Path, baseline: str, candidate: str) -> dict[str, np.ndarray]:
    """All 54 rows of the file (``credit`` twice, as in the published analyses)."""
    blocks: dict[str, list[tuple[str, np.ndarray]]] = {}
    model = None
    for line in path.read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        if len(parts) == 1:
            model = parts[0]
            blocks[model] = []
            continue
        blocks[model].append((parts[0], np.asarray(parts[1:], dtype=float) / 100))
    out = {}
    for k, ((name, b), (_, c)) in enumerate(zip(blocks[baseline], blocks[candidate], strict=True)):
        out[name if name not in out else f"{name}#{k}"] = c - b
    return out


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--data", type=Path, default=REPO.parent / "shared" / "data" / "baycomp_accuracies.txt"
    )
    ap.add_argument("--baseline", default="nbc")
    ap.add_argument("--candidate", default="aode")
    ap.add_argument("--draws", type=int, default=1000)
    args = ap.parse_args()
    if not args.data.exists():
        sys.exit(f"data file not found: {args.data}")
    diffs = load_54(args.data, args.baseline, args.candidate)

    import arviz as az

    from bayescomp.posterior.hierarchical import hierarchical_test, model_cache_info

    rows = []
    warnings.simplefilter("ignore")
    draws = args.draws
    for label in ("cold cache", "warm cache"):
        while True:
            t0 = time.perf_counter()
            res = hierarchical_test(
                diffs,
                0.1,
                rope=0.01,
                random_state=1,
                chains=4,
                draws=draws,
                tune=1000,
                baseline_name=args.baseline,
                candidate_name=args.candidate,
            )
            wall = time.perf_counter() - t0
            ess = float(az.ess(res.idata, var_names=["delta0"])["delta0"])
            if ess >= 1000 or draws >= 16_000:
                break
            draws *= 2
        rows.append((f"bayescomp ({res.sampler}, {label})", wall, ess, peak_mb(), res))
    print(
        f"cache: {model_cache_info()}; parameterisation {res.parameterization}; "
        f"draws/chain {draws}; converged {res.converged} ({res.convergence_problems or 'ok'})"
    )

    try:
        import baycomp  # noqa: F401
        import stan  # noqa: F401
    except ImportError:
        baycomp_row = None
        print("baycomp / pystan not installed: skipping baycomp.HierarchicalTest")
    else:  # pragma: no cover - needs pystan
        from baycomp import HierarchicalTest

        names = list(diffs)
        x = np.zeros((len(names), 100))
        y = np.array([diffs[n] for n in names])
        t0 = time.perf_counter()
        post = HierarchicalTest(x, y, rope=0.01, runs=10, chains=4, nsamples=10_000)
        wall = time.perf_counter() - t0
        baycomp_row = (
            "baycomp.HierarchicalTest (pystan)",
            wall,
            float("nan"),
            peak_mb(),
            post.probs(),
        )

    print()
    print(f"{'run':44s} {'wall s':>8s} {'ESS(delta0)':>12s} {'ESS/s':>8s} {'peak MB':>8s}")
    for name, wall, ess, mem, _ in rows:
        print(f"{name:44s} {wall:8.2f} {ess:12.0f} {ess / wall:8.1f} {mem:8.0f}")
    if baycomp_row is not None:
        name, wall, ess, mem, probs = baycomp_row
        print(f"{name:44s} {wall:8.2f} {'n/a':>12s} {'n/a':>8s} {mem:8.0f}  probs={probs}")
    res = rows[-1][-1]
    print()
    print("probabilities (left = candidate worse, rope, right = candidate better):")
    for kind, p in res.probabilities().items():
        print(f"  {kind:20s} {p.p_left:.4f} {p.p_rope:.4f} {p.p_right:.4f}")


if __name__ == "__main__":
    main()
