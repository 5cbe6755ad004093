"""
Live promotion: a confidence sequence over a prediction log
===========================================================

The figure of :doc:`/live_promotion`: a shadow candidate whose log loss is lower than the
production model's, watched every 500 labelled items; the betting test against "mean <=
margin" promotes it and the watch stops at that look (the sequence shown is widened to the
margin until then).
"""

# %%
# A prediction log in arrival order
# ---------------------------------
import numpy as np
import pandas as pd
from _docs import save

import bayescomp as bc

rng = np.random.default_rng(7)
n = 40_000
y = rng.integers(0, 2, n)
signal = 2 * y - 1
log = pd.DataFrame(
    {
        "y_true": y,
        "prod": 1 / (1 + np.exp(-(0.8 * signal + rng.normal(size=n)))),
        "shadow": 1 / (1 + np.exp(-(0.9 * signal + rng.normal(size=n)))),
    }
)

# %%
# Watch it, and draw the sequence
# -------------------------------
res = bc.watch(log, baseline="prod", candidate="shadow", metric="log_loss", rope=0.01, every=500)
print(res)
ax = res.plot()
save(ax.figure, "live_promotion.png")
