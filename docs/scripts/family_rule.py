"""
Many challengers: the family-wise promotion rule
================================================

The figure of :doc:`/family`: family-wise false promotion and power of the two rules of
``select`` against the number of challengers, from the seeded simulation of
``bench/selection_operating_characteristics.py`` (10 × 10 CV, per-split sd 0.02, ROPE 0.01,
γ = 0.95; 1 000 runs per point, a quarter of the bench's: the bars are ± 2 binomial
standard errors).
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

ks = [1, 2, 5, 10, 20]
runs = 1000
curves = {}
for rule in ("champion_challenger", "family"):
    edge = [oc.cell(rule, k, oc.ROPE, 1, "shared", runs, seed=100 + k)[0] for k in ks]
    power = [oc.cell(rule, k, 0.0, 1, "shared", runs, seed=200 + k, power_case=True)[1] for k in ks]
    curves[rule] = (np.array(edge), np.array(power))
    print(
        rule,
        "false promotion at the edge:",
        np.round(100 * curves[rule][0], 1),
        "power:",
        np.round(100 * curves[rule][1], 1),
    )

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
for rule, style in (("champion_challenger", "o--"), ("family", "s-")):
    for ax, p in zip((ax1, ax2), curves[rule], strict=True):  # ± 2 binomial standard errors
        ax.errorbar(
            ks,
            100 * p,
            yerr=200 * np.sqrt(p * (1 - p) / runs),
            fmt=style,
            capsize=3,
            label=f"rule={rule!r}",
        )
ax1.axhline(5, color="grey", lw=0.8)
ax1.set(
    xlabel="number of challengers k",
    ylabel="false promotion (%)",
    title="every challenger at the ROPE edge",
)
ax2.set(
    xlabel="number of challengers k",
    ylabel="power (%)",
    ylim=(0, 100),
    title="one 3×ROPE better, the others no better",
)
for ax in (ax1, ax2):
    ax.set_xscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.legend(loc="best")
save(fig, "family_rule.png")
