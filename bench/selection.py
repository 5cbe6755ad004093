"""Fits and wall time of ``select`` vs one independent paired comparison per step.

``select`` fits every model once on the fixed splits and reuses the champion's
per-split scores at every step: k + 1 cross-validations for k challengers.  The
naive approach runs a fresh paired cross-validation of (champion, challenger)
for each step: 2k cross-validations.  Both follow the same champion path and
must reach the same decisions (same splits, deterministic models).

Run by hand::

    python bench/selection.py                      # shipped models, breast_cancer
    python bench/selection.py --n-repeats 3 --baseline random_forest
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def naive(specs, X, y, cv, baseline, order, metric, rope, gamma):
    """One independent paired cross-validation of (champion, challenger) per step."""
    from threadpoolctl import threadpool_limits

    import bayescomp as bc

    champion, fits, decisions = baseline, 0, []
    for challenger in order:
        models = {champion: specs[champion].estimator, challenger: specs[challenger].estimator}
        with threadpool_limits(limits=1):  # same native-thread policy as select
            scores = bc.cross_validate_paired(models, X, y, cv=cv, scoring=metric, progress=False)
        fits += len(scores)
        d = bc.compare(scores, champion, challenger, metric=metric, rope=rope).decision(gamma)
        decisions.append(d.outcome)
        if d.outcome == "promote":
            champion = challenger
    return champion, fits, decisions


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="breast_cancer")
    p.add_argument("--baseline", nargs="+", default=["logistic_regression", "random_forest"])
    p.add_argument("--metric", default="roc_auc")
    p.add_argument("--rope", type=float, default=0.005)
    p.add_argument("--n-splits", type=int, default=10)
    p.add_argument("--n-repeats", type=int, default=2)
    args = p.parse_args()

    import bayescomp as bc
    from bayescomp.scores.datasets import load_dataset
    from bayescomp.scores.model_files import load_models
    from bayescomp.splits.repeats import default_cv

    X, y, _ = load_dataset(args.dataset)
    specs = load_models(REPO / "models")
    cv = default_cv(y, n_splits=args.n_splits, n_repeats=args.n_repeats, random_state=0)
    rows = []
    for baseline in args.baseline:
        t0 = time.perf_counter()
        sel = bc.select_models(
            specs,
            X,
            y,
            baseline=baseline,
            cv=cv,
            scoring=args.metric,
            rope=args.rope,
            progress=False,
        )
        t_sel = time.perf_counter() - t0
        order = sel.steps["challenger"].tolist()
        t0 = time.perf_counter()
        champ, fits, decisions = naive(
            specs, X, y, cv, baseline, order, args.metric, args.rope, 0.95
        )
        t_naive = time.perf_counter() - t0
        same = champ == sel.champion and decisions == sel.steps["decision"].tolist()
        rows.append((baseline, sel.fits_total, t_sel, fits, t_naive, sel.champion, same))

    k = len(specs) - 1
    print(
        f"\n{args.dataset}, {len(specs)} shipped models (k = {k} challengers), "
        f"{args.n_splits}x{args.n_repeats} CV, metric {args.metric}, ROPE ±{args.rope:g}, "
        "n_jobs=1\n"
    )
    head = (
        f"{'baseline':<22}{'select fits':>12}{'select s':>10}{'naive fits':>12}"
        f"{'naive s':>10}{'fits ratio':>11}{'time ratio':>11}  champion (same decisions?)"
    )
    print(head)
    print("-" * len(head))
    for b, f1, t1, f2, t2, champ, same in rows:
        print(
            f"{b:<22}{f1:>12d}{t1:>10.1f}{f2:>12d}{t2:>10.1f}{f2 / f1:>11.2f}{t2 / t1:>11.2f}"
            f"  {champ} ({'yes' if same else 'NO'})"
        )


if __name__ == "__main__":
    main()
