"""Where the README's main job spends its time: fits, posterior, plots, report, store.

Runs, in this process and under :mod:`cProfile`, the command of the README::

    bayescomp select models/ --dataset breast_cancer --baseline logistic_regression \
        --metric roc_auc --rope 0.005 --gamma 0.95 --store STORE --report DIR

in a fresh temporary directory (so every fit is computed), then prints the wall time and
its split: the self time of every profiled function is attributed to the part of the job
its source file belongs to (scikit-learn and the model code = fits; bayescomp.posterior,
decision and scipy.stats = posterior; matplotlib = plots; bayescomp.report and jinja2 =
report; sqlite3 and bayescomp.studies.store = store; imports; everything else = other;
builtins and the standard library count for their callers' parts), and the ten
functions with the largest self time.

Run by hand from the repository root::

    python bench/main_job.py [--n-repeats 10] [--n-jobs 1]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import redirect_stdout
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PARTS = (  # first match wins
    ("imports", ("<frozen importlib", "importlib/")),
    ("store", ("sqlite3", "bayescomp/studies/store")),
    ("plots", ("matplotlib", "bayescomp/report/plots", "bayescomp/report/selection_plots", "PIL/")),
    ("report", ("bayescomp/report", "jinja2", "markupsafe", "base64")),
    (
        "posterior",
        (
            "bayescomp/posterior",
            "bayescomp/decision",
            "bayescomp/core",
            "scipy/stats",
            "scipy/special",
        ),
    ),
    (
        "fits (scikit-learn, joblib)",
        (
            "sklearn",
            "joblib",
            "threadpoolctl",
            "/models/",
            "bayescomp/scores",
            "bayescomp/splits",
            "scipy/",
            "numpy",
        ),
    ),
)


def part_of(filename: str) -> str | None:
    """The part a source file belongs to; None for builtins and the standard library."""
    for part, keys in PARTS:
        if any(k in filename for k in keys):
            return part
    if filename == "~" or ("/lib/python3" in filename and "site-packages" not in filename):
        return None
    return "other (bayescomp.studies, pandas, ...)"


def attribute(stats: pstats.Stats) -> dict[str, float]:
    """Self time per part; builtins and stdlib go to their callers' parts, pro rata."""
    raw = stats.stats  # (file, line, func) -> (cc, nc, tottime, cumtime, callers)
    memo: dict = {}

    def parts(key, depth=0) -> dict[str, float]:
        """Shares of the parts this function's time belongs to (sum 1)."""
        if key in memo:
            return memo[key]
        own = part_of(key[0])
        if own is not None or depth > 6 or not raw.get(key, (0, 0, 0, 0, {}))[4]:
            memo[key] = {own or "other (bayescomp.studies, pandas, ...)": 1.0}
            return memo[key]
        callers = raw[key][4]
        weights = {c: v[3] for c, v in callers.items()}  # time of this function per caller
        tot = sum(weights.values()) or 1.0
        out: dict[str, float] = defaultdict(float)
        for c, w in weights.items():
            for part, share in parts(c, depth + 1).items():
                out[part] += share * w / tot
        memo[key] = dict(out)
        return memo[key]

    split: dict[str, float] = defaultdict(float)
    for key, (_, _, tottime, _, _) in raw.items():
        for part, share in parts(key).items():
            split[part] += share * tottime
    return split


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-repeats", type=int, default=10)
    ap.add_argument("--n-jobs", type=int, default=1)
    args = ap.parse_args()
    os.environ.setdefault("MPLBACKEND", "Agg")
    from bayescomp.cli.main import main as cli

    tmp = Path(tempfile.mkdtemp(prefix="bayescomp-main-job-"))
    argv = [
        "select",
        str(REPO / "models"),
        "--dataset",
        "breast_cancer",
        "--baseline",
        "logistic_regression",
        "--metric",
        "roc_auc",
        "--rope",
        "0.005",
        "--gamma",
        "0.95",
        "--store",
        str(tmp / "selection.sqlite"),
        "--report",
        str(tmp / "reports"),
        "--n-repeats",
        str(args.n_repeats),
        "--n-jobs",
        str(args.n_jobs),
        "--quiet",
    ]
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        prof.enable()
        code = cli(argv)
        prof.disable()
    wall = time.perf_counter() - t0
    stats = pstats.Stats(prof)
    split = attribute(stats)
    rows = [(v[2], f"{Path(f).name}:{line}({func})") for (f, line, func), v in stats.stats.items()]
    total = sum(split.values())
    print(
        f"main job (exit {code}): {wall:.1f} s wall, {args.n_repeats} x 10-fold CV, "
        f"6 models, n_jobs={args.n_jobs}; profiled self time {total:.1f} s"
    )
    print(f"\n{'part':<44} {'seconds':>8} {'share':>7}")
    for part, secs in sorted(split.items(), key=lambda kv: -kv[1]):
        print(f"{part:<44} {secs:>8.2f} {secs / total:>7.1%}")
    print("\nlargest self times:")
    for secs, name in sorted(rows, reverse=True)[:10]:
        print(f"  {secs:7.2f} s  {name}")
    print(f"\noutputs in {tmp}")


if __name__ == "__main__":
    main()
