"""Benchmark: cold and warm MCMC, the fast path (numba density on nutpie) against nutpie on PyMC.

Run by hand from the repository root::

    python bench/fast_mcmc.py [--reps 3] [--data ../shared/data/baycomp_accuracies.txt]
                              [--only hierarchical|plackett_luce]

Every measurement runs in a fresh Python process (``python -c ...``), so "cold" is
what a user meets: the process start, ``import bayescomp``, the first fit (compiling
or loading the compiled code) and then a second, warm fit in the same process.  The
two paths are interleaved (current, new, current, new, ...) and each figure is the
median of ``--reps`` runs; on a shared, loaded machine the absolute seconds are noisy,
the ratios less so.  Each figure is also given in CPU seconds (every thread of the
process, the children's for the whole process): that is what a loaded machine does not
inflate much, and, for work that does not wait on I/O, it bounds the wall time of the same
run on an idle machine from above (two cores or more only make the wall time shorter).
The fast path's disk cache is warm (as for a user's every run but
the first); ``--cold-disk`` points it at an empty folder for every run instead.

``--vs PATH`` compares the fast path of another source tree instead (e.g. the previous
revision: ``git worktree add /tmp/prev HEAD~3``), interleaved the same way: "before" runs
PATH's code, "after" this tree's, each with its own disk cache, warmed by one uncounted run.

Problems (4 chains x 1000 draws after 1000 tuning steps, seeded):

* hierarchical: nbc vs aode on the 54 datasets of the shared baycomp data;
* Plackett–Luce: 5 models x 53 datasets of the same data, and 20 models x 100 synthetic
  datasets (warm fit only for the latter, in the same process); its own path is the default
  ``auto`` (the Gibbs sampler), timed against nutpie on the PyMC model.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIGURES = (
    "first_fit",
    "warm_fit",
    "process_cold",
    "first_fit_cpu",
    "warm_fit_cpu",
    "process_cold_cpu",
)

_CHILD = r"""
import json, sys, time, warnings
t_start = time.perf_counter()
sys.path[:0] = [{repo!r}, {repo!r} + "/bench", {repo!r} + "/tests"]
warnings.simplefilter("ignore")
import numpy as np
kind, sampler, data = {kind!r}, {sampler!r}, {data!r}
out = {{}}
if kind == "hierarchical":
    from hierarchical import load_54
    from bayescomp.posterior.hierarchical import hierarchical_test
    diffs = load_54(__import__("pathlib").Path(data), "nbc", "aode")
    def fit(seed):
        return hierarchical_test(diffs, 0.1, rope=0.01, random_state=seed, chains=4,
                                 draws=1000, tune=1000, sampler=sampler)
else:
    import bayescomp as bc
    from plackett_luce import synthetic
    if kind == "pl5":
        from baycomp_data import load_baycomp_accuracies
        scores = bc.Scores.from_frame(load_baycomp_accuracies(__import__("pathlib").Path(data)))
    else:
        scores = bc.Scores.from_frame(synthetic())
    def fit(seed):
        return bc.rank(scores, "accuracy", method="plackett_luce", random_state=seed,
                       chains=4, draws=1000, tune=1000, sampler=sampler)
t0, c0 = time.perf_counter(), time.process_time()
res = fit(1)
out["first_fit"], out["first_fit_cpu"] = time.perf_counter() - t0, time.process_time() - c0
t0, c0 = time.perf_counter(), time.process_time()
res2 = fit(2)
out["warm_fit"], out["warm_fit_cpu"] = time.perf_counter() - t0, time.process_time() - c0
out["converged"] = bool(res.converged and res2.converged)
out["divergences"] = int(res.divergences)
out["sampler"] = res.sampler
if kind == "hierarchical":
    out["ess_delta0"] = float(res.diagnostics.loc["delta0", "ess_bulk"])
    out["p"] = [res.p_left, res.p_rope, res.p_right]
    out["attempts"] = len(res.attempts)
out["pymc_imported"] = "pymc" in sys.modules
out["in_process"] = time.perf_counter() - t_start
print("RESULT" + json.dumps(out))
"""


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_child(kind: str, sampler: str, data: str, env: dict, repo: Path = REPO) -> dict:
    code = _CHILD.format(repo=str(repo), kind=kind, sampler=sampler, data=data)
    t0, c0 = time.perf_counter(), _children_cpu()
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
        check=False,
    )
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")]
    if proc.returncode or not line:
        raise RuntimeError(f"{kind}/{sampler} failed:\n{proc.stderr[-3000:]}")
    out = json.loads(line[-1][len("RESULT") :])
    # the whole process without its warm second fit: start, imports, first fit, exit
    out["process_cold"] = wall - out["warm_fit"]
    out["process_cold_cpu"] = cpu - out["warm_fit_cpu"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument(
        "--data", default=str(REPO.parent / "shared" / "data" / "baycomp_accuracies.txt")
    )
    ap.add_argument("--only", choices=["hierarchical", "plackett_luce"])
    ap.add_argument("--cold-disk", action="store_true")
    ap.add_argument("--json", type=Path, help="write every run's figures here")
    ap.add_argument("--vs", type=Path, help="another source tree: its fast path against this one's")
    args = ap.parse_args()
    if not Path(args.data).exists():
        sys.exit(f"data file not found: {args.data}")
    kinds = {"hierarchical": ["hierarchical"], "plackett_luce": ["pl5", "pl20"]}
    todo = [k for g, ks in kinds.items() if args.only in (None, g) for k in ks]
    # (label, sampler, source tree, disk cache): nutpie on PyMC first, then the model's own
    # path (the Plackett–Luce ranking's is its Gibbs sampler, "auto")
    own = {"hierarchical": "fast", "pl5": "auto", "pl20": "auto"}
    paths = {k: [("nutpie", "nutpie", REPO, None), (own[k], own[k], REPO, None)] for k in todo}
    if args.vs:
        caches = [tempfile.mkdtemp(prefix="bayescomp-bench-") for _ in range(2)]
        paths = {
            k: [("before", own[k], args.vs, caches[0]), ("after", own[k], REPO, caches[1])]
            for k in todo
        }
        for kind in todo:  # compile each tree's code into its own cache: not counted
            for _, sampler, repo, cache in paths[kind]:
                env = {**os.environ, "PYTHONPATH": str(repo), "BAYESCOMP_CACHE_DIR": cache}
                run_child(kind, sampler, args.data, env, repo)
    runs: dict[tuple[str, str], list[dict]] = {}
    for rep in range(args.reps):
        for kind in todo:
            for label, sampler, repo, cache in paths[kind]:  # interleaved
                e = {**os.environ, "PYTHONPATH": str(repo)}
                if cache or args.cold_disk:
                    e["BAYESCOMP_CACHE_DIR"] = cache or tempfile.mkdtemp(prefix="bayescomp-bench-")
                r = run_child(kind, sampler, args.data, e, repo)
                runs.setdefault((kind, label), []).append(r)
                print(
                    f"rep {rep} {kind:12s} {label:6s} first {r['first_fit']:6.2f} s  "
                    f"warm {r['warm_fit']:6.2f} s  process {r['process_cold']:6.2f} s  "
                    f"converged {r['converged']}",
                    flush=True,
                )
    print(f"\nmedians of {args.reps} (interleaved; shared machine: compare the ratios)")
    print(
        f"{'problem':13s} {'path':7s} {'first fit':>10s} {'warm fit':>9s} {'process':>8s}"
        f" | CPU s: {'first fit':>9s} {'warm fit':>9s} {'process':>8s}"
    )
    med = {}
    for (kind, sampler), rs in runs.items():
        m = {f: statistics.median(r[f] for r in rs) for f in FIGURES}
        med[kind, sampler] = m
        print(
            f"{kind:13s} {sampler:7s} {m['first_fit']:10.2f} {m['warm_fit']:9.2f} "
            f"{m['process_cold']:8.2f} |        {m['first_fit_cpu']:9.2f} "
            f"{m['warm_fit_cpu']:9.2f} {m['process_cold_cpu']:8.2f}"
        )
    for kind in todo:
        (first, _, _, _), *others = paths[kind]
        a = med[kind, first]
        for label, *_ in others:
            b = med[kind, label]
            print(
                f"{kind:13s} {label} vs {first}: first fit x{a['first_fit'] / b['first_fit']:.1f}, "
                f"warm x{a['warm_fit'] / b['warm_fit']:.1f} (CPU "
                f"x{a['warm_fit_cpu'] / b['warm_fit_cpu']:.1f}), "
                f"process x{a['process_cold'] / b['process_cold']:.1f}"
            )
    if args.json:
        args.json.write_text(json.dumps({f"{k}/{s}": v for (k, s), v in runs.items()}, indent=1))


if __name__ == "__main__":
    main()
