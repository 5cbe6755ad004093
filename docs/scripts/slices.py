"""
Slices: no region worse
=======================

The figure of :doc:`/slices`: a candidate better overall by about 0.02 in accuracy, but worse
by 0.05 on one of eight regions; the slice guardrail (the hierarchical model with the regions
as its groups) blocks the promotion and names the region.
"""

# %%
# Item-level predictions on eight regions
# ---------------------------------------
import numpy as np
import pandas as pd
from _docs import save

import bayescomp as bc

rng = np.random.default_rng(0)
regions = {
    "north": 3000,
    "south": 2000,
    "east": 1500,
    "west": 1000,
    "centre": 800,
    "coast": 600,
    "hills": 400,
    "lakes": 200,
}
parts = []
for region, n in regions.items():
    gain = -0.05 if region == "south" else 0.04  # the candidate's true accuracy gain
    y = rng.integers(0, 2, n)
    u = rng.random(n)
    only_new = u < (0.12 + gain) / 2  # 12 % of the items: exactly one model right
    only_old = ~only_new & (u < 0.12)
    both = rng.random(n) < 0.8  # the other items: both right or both wrong
    old_right = np.where(only_new, False, np.where(only_old, True, both))
    new_right = np.where(only_new, True, np.where(only_old, False, both))
    parts.append(
        pd.DataFrame(
            {
                "y_true": y,
                "old": np.where(old_right, y, 1 - y),
                "new": np.where(new_right, y, 1 - y),
                "region": region,
            }
        )
    )
preds = pd.concat(parts, ignore_index=True)


# %%
# The slice guardrail and its forest plot
# ---------------------------------------
res = bc.compare(
    preds,
    "old",
    "new",
    metric="accuracy",
    rope=0.01,
    slices="region",
    slice_rope=0.02,
    random_state=0,
)
print(res.overall.decision().outcome)  # 'promote'
d = res.decision()
print(d.outcome)  # 'inconclusive'
print(d.slice_blocked)  # 'south'
print(res.slices.per_slice.round(3).to_string(index=False))
print(d.reason)

save(res.plot_slices().figure, "slices.png")
