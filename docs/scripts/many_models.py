"""
Comparing many models across many datasets
===========================================

The figures of :doc:`/many_models`: one Plackett–Luce ranking of the five classifiers of
the 54-dataset baycomp data (``../shared/data/baycomp_accuracies.txt`` next to the
repository).  Where that file is absent (a plain clone), the script says so and ranks a
built-in synthetic example instead: 6 models on 40 datasets, 10 splits each, whose model
effects shrink from m0 to m5.
"""

# %%
# The scores
# ----------
import sys
import warnings

import numpy as np
import pandas as pd
from _docs import REPO, mcmc_draws, save

import bayescomp as bc

DATA = REPO.parent / "shared" / "data" / "baycomp_accuracies.txt"


def synthetic_scores(seed: int = 0) -> tuple[pd.DataFrame, str]:
    """6 models on 40 datasets, 10 splits each; model effects shrink from m0 to m5."""
    rng = np.random.default_rng(seed)
    effect = np.array([0.02, 0.015, 0.012, 0.0, -0.005, -0.02])
    rows = []
    for d in range(40):
        level = rng.uniform(0.6, 0.9)
        for m, e in enumerate(effect):
            vals = level + e + rng.normal(0, 0.02) + rng.normal(0, 0.02, 10)
            rows += [(f"d{d:02d}", f"m{m}", s, 9, 1, v) for s, v in enumerate(vals)]
    frame = pd.DataFrame(
        rows, columns=["dataset", "model", "split", "n_train", "n_test", "accuracy"]
    )
    return frame, "m3"


if DATA.exists():
    sys.path.insert(0, str(REPO / "tests"))
    from baycomp_data import load_baycomp_accuracies

    frame, control = load_baycomp_accuracies(DATA), "nbc"
    print(f"data: {DATA.name}")
else:
    frame, control = synthetic_scores()
    print(f"{DATA} not found: the built-in synthetic example instead")
scores = bc.Scores.from_frame(frame)

# %%
# One joint ranking (one MCMC fit)
# --------------------------------
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    res = bc.rank(
        scores, "accuracy", method="plackett_luce", random_state=0, draws=mcmc_draws(1000)
    )
print(res)
print(res.best(0.95))
print(res.to_latex(caption="Plackett-Luce ranking", label="tab:ranking"))

# %%
# Expected ranks, P(best), the control against all
# ------------------------------------------------
save(res.plot_ranks(gamma=0.95).figure, "many_models_ranks.png")
save(res.plot_p_best().figure, "many_models_p_best.png")
save(res.plot_control(control, gamma=0.95).figure, "many_models_control.png")
