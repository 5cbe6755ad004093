"""
Comparing across many datasets
==============================

The figures of :doc:`/hierarchical`: AODE against naive Bayes (nbc) on the 54 datasets
published with baycomp (10 × 10 cross-validation accuracies), read from
``../shared/data/baycomp_accuracies.txt`` next to the repository.  Where that file is
absent (a plain clone), the script says so and draws the same plots for differences
simulated from the hierarchical model's own assumptions instead.
"""

# %%
# Per-dataset differences
# -----------------------
import sys
import warnings

import numpy as np
from _docs import REPO, mcmc_draws, save

import bayescomp as bc

DATA = REPO.parent / "shared" / "data" / "baycomp_accuracies.txt"
if DATA.exists():
    sys.path.insert(0, str(REPO / "tests"))
    from baycomp_data import load_baycomp_accuracies

    frame = load_baycomp_accuracies(DATA)
    wide = frame.pivot_table(index=["dataset", "split"], columns="model", values="accuracy")
    d = (wide["aode"] - wide["nbc"]).unstack("split")
    diffs = {name: d.loc[name].to_numpy() for name in d.index}
    print(f"{len(diffs)} datasets from {DATA.name}")
else:
    rng = np.random.default_rng(0)
    means = rng.standard_t(4, 30) * 0.01 + 0.01  # per-dataset true differences around δ0
    diffs = {f"sim{i:02d}": m + rng.normal(0, 0.02, 100) for i, m in enumerate(means)}
    print(f"{DATA} not found: {len(diffs)} simulated datasets instead")

# %%
# The hierarchical model
# ----------------------
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    res = bc.hierarchical_test(
        diffs,
        rho=0.1,
        rope=0.01,
        random_state=1,
        draws=mcmc_draws(2000),
        baseline_name="nbc",
        candidate_name="aode",
        metric="accuracy",
    )
print(res)

for name, draw in (
    ("simplex", res.plot_simplex),
    ("forest", res.plot_forest),
    ("posterior", res.plot),
):
    ax = draw()
    save(ax.figure, f"hierarchical_{name}.png")

# %%
# The Bayesian signed-rank test
# -----------------------------
rank = bc.signed_rank_test(
    diffs, rope=0.01, random_state=0, baseline_name="nbc", candidate_name="aode", metric="accuracy"
)
print(rank)
ax = rank.plot_simplex()
save(ax.figure, "signed_rank_simplex.png")
