"""
Many challengers: the family-wise promotion rule
================================================

The figure of :doc:`/family`: family-wise false promotion against the number of challengers,
and power in the scenarios of issue 30, from the seeded simulation of
``bench/selection_operating_characteristics.py`` (10 × 10 CV, per-split sd 0.02, ROPE 0.01,
γ = 0.95, shared scores; 300 runs per point, far fewer than the bench's: the bars are ± 2
binomial standard errors).
"""

# %%
# Operating characteristics against the number of challengers
# -----------------------------------------------------------
import sys

import matplotlib.pyplot as plt
import numpy as np
from _docs import REPO, save

sys.path.insert(0, str(REPO / "bench"))
import selection_operating_characteristics as oc

ks = [1, 3, 10, 20]
runs = 300
edge = {
    rule: np.array([oc.cell(rule, [1.0] * k, 1, "shared", runs, 100 + k)[0] for k in ks])
    for rule in ("champion_challenger", "family")
}
rows = ["B", "B'", "C", "D", "E"]
power = {
    rule: np.array(
        [oc.cell(rule, oc.SCENARIOS[r], 1, "shared", runs, 200 + j)[1] for j, r in enumerate(rows)]
    )
    for rule in ("selective", "simultaneous", "family")
}
for rule, p in {**edge, **power}.items():
    print(rule, np.round(100 * p, 1))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
for rule, style in (("champion_challenger", "o--"), ("family", "s-")):
    p = edge[rule]  # ± 2 binomial standard errors
    ax1.errorbar(
        ks, 100 * p, yerr=200 * np.sqrt(p * (1 - p) / runs), fmt=style, capsize=3, label=rule
    )
ax1.axhline(5, color="grey", lw=0.8)
ax1.set(
    xlabel="number of challengers k",
    ylabel="false promotion (%)",
    title="every challenger at the ROPE edge (A)",
)
ax1.set_xscale("log")
ax1.set_xticks(ks, [str(k) for k in ks])
ax1.legend(loc="best")
x = np.arange(len(rows))
for i, rule in enumerate(power):
    p = power[rule]
    ax2.bar(
        x + (i - 1) * 0.27,
        100 * p,
        0.27,
        yerr=200 * np.sqrt(p * (1 - p) / runs),
        capsize=2,
        label={
            "selective": "winner's test alone (previous)",
            "simultaneous": "max-t band alone",
        }.get(rule, "family (three tests)"),
    )
ax2.set_xticks(
    x,
    [
        "B: 1 good\namong 9 nulls",
        "B': 1 good\namong 9 worse",
        "C: 3 good",
        "D: 2.6/3/4",
        "E: 1 good\nalone",
    ],
)
ax2.set(ylabel="power (%)", ylim=(0, 100), title="promoting a model better beyond the ROPE")
ax2.legend(loc="lower right", fontsize=8)
save(fig, "family_rule.png")
