"""
Near-equal models: the per-row variance
=======================================

The figure and the numbers of :doc:`/per_row_variance`: two k-nearest-neighbour
classifiers (k = 15 and 17) on 1,000 rows, 10 × 10 stratified cross-validation, compared on
accuracy with a ROPE of ±0.005 under the split variance and the per-row variance (gated).
"""

# %%
# Paired scores with every row's out-of-fold score
# ------------------------------------------------
import matplotlib.pyplot as plt
from _docs import save
from sklearn.datasets import make_classification
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.neighbors import KNeighborsClassifier

import bayescomp as bc

X, y = make_classification(
    n_samples=1000, n_features=10, n_informative=4, class_sep=1.2, flip_y=0.02, random_state=0
)
scores = bc.cross_validate_paired(
    {"k15": KNeighborsClassifier(15), "k17": KNeighborsClassifier(17)},
    X,
    y,
    cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0),
    scoring="accuracy",
    progress=False,
)
print(scores.per_row.head())

# %%
# The two posteriors
# ------------------
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharex=True)
for ax, variance in zip(axes, ["split", "gated"], strict=True):
    res = bc.compare(scores, "k15", "k17", rope=0.005, variance=variance)
    print(variance, res.variance, round(res.sd, 4), res.decision())
    res.plot(ax=ax)
    ax.set_title(f"variance={variance!r}: {res.decision().outcome}")
fig.tight_layout()
save(fig, "per_row_variance.png")
