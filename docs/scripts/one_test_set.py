"""
One test set: questions grouped by passage
==========================================

The figures of :doc:`/one_test_set`: two systems on 400 questions, 8 per passage.  The
posterior of the difference in accuracy with its ROPE, and the cluster posterior beside the
cluster-blind one (the design effect).
"""

# %%
# The evaluation table
# --------------------
import numpy as np
import pandas as pd
from _docs import save

import bayescomp as bc

rng = np.random.default_rng(7)
passages, per = 50, 8
passage = np.repeat(np.arange(passages), per)
hard = 1.2 * rng.standard_normal(passages)[passage]
edge = (0.35 + 0.8 * rng.standard_normal(passages))[passage]
u = rng.random(passages * per)
evals = pd.DataFrame(
    {
        "passage": [f"passage-{p:02d}" for p in passage],
        "y_true": 1,
        "old": (u < 1 / (1 + np.exp(-(0.6 - hard)))).astype(int),
        "new": (u < 1 / (1 + np.exp(-(0.6 - hard + edge)))).astype(int),
    }
)

# %%
# The posterior with the ROPE, and the design effect
# --------------------------------------------------
res = bc.holdout_posterior(
    evals["y_true"],
    evals["old"],
    evals["new"],
    metric="accuracy",
    rope=0.01,
    cluster=evals["passage"],
    baseline_name="old",
    candidate_name="new",
    random_state=0,
)
print(res)
print(res.decision(0.95))
figures = res.figures()
save(figures["posterior"], "one_test_set_posterior.png")
save(figures["design_effect"], "one_test_set_design_effect.png")
