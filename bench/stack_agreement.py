"""Do the hierarchical model's probabilities agree between PyMC 5 / ArviZ 0.2x and PyMC 6 / ArviZ 1.x?

Run once in each environment (Python 3.11 with PyMC 5, Python 3.12 with PyMC 6), from the
repository root, and compare the printed JSON lines::

    python bench/stack_agreement.py [--samplers nutpie fast] [--seed 1] > stack_5.json
    python3.12-venv/bin/python bench/stack_agreement.py > stack_6.json
    python bench/stack_agreement.py --compare stack_5.json stack_6.json

Each fit is nbc vs aode on the 54 datasets of the shared baycomp data (rope 0.01,
4 chains x 2000 draws).  ``--compare`` prints the difference of every region probability
with its Monte-Carlo standard error (``sqrt(p (1 - p) / ESS)`` per side, ESS the bulk ESS
of delta0) and flags a difference beyond 4 standard errors.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "bench")]


def fit(sampler: str, seed: int, data: Path) -> dict:
    import arviz
    import pymc
    from hierarchical import load_54

    from bayescomp.posterior.hierarchical import hierarchical_test

    diffs = load_54(data, "nbc", "aode")
    res = hierarchical_test(
        diffs, 0.1, rope=0.01, random_state=seed, chains=4, draws=2000, sampler=sampler
    )
    p = res.probabilities()["baycomp_convention"]
    return {
        "stack": f"pymc {pymc.__version__} / arviz {arviz.__version__}",
        "sampler": sampler,
        "p": [p.p_left, p.p_rope, p.p_right],
        "converged": res.converged,
        "ess": float(res.diagnostics.loc["delta0", "ess_bulk"]),
    }


def compare(a_path: Path, b_path: Path) -> None:
    a = {r["sampler"]: r for r in map(json.loads, a_path.read_text().splitlines())}
    b = {r["sampler"]: r for r in map(json.loads, b_path.read_text().splitlines())}
    for s in sorted(set(a) & set(b)):
        print(f"{s}: {a[s]['stack']}  vs  {b[s]['stack']}")
        for name, pa, pb in zip(("left", "rope", "right"), a[s]["p"], b[s]["p"], strict=True):
            se = math.hypot(
                math.sqrt(pa * (1 - pa) / a[s]["ess"]), math.sqrt(pb * (1 - pb) / b[s]["ess"])
            )
            flag = "" if abs(pa - pb) <= 4 * max(se, 1e-12) else "  <-- beyond 4 MCSE"
            print(f"  P({name:5s}) {pa:.4f} vs {pb:.4f}  diff {pa - pb:+.4f}  MCSE {se:.4f}{flag}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samplers", nargs="+", default=["nutpie", "fast"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--data", type=Path, default=REPO.parent / "shared" / "data" / "baycomp_accuracies.txt"
    )
    ap.add_argument("--compare", nargs=2, type=Path)
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    warnings.simplefilter("ignore")
    for s in args.samplers:
        print(json.dumps(fit(s, args.seed, args.data)), flush=True)


if __name__ == "__main__":
    main()
