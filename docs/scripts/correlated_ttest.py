"""
The correlated Bayesian t-test
==============================

The figure and the numbers of :doc:`/correlated_ttest`: logistic regression against naive
Bayes on the breast-cancer data (10 × 10 stratified cross-validation), and the same
logistic regression against a goal accuracy of 0.97.
"""

# %%
# Paired scores on the same splits
# --------------------------------
import matplotlib.pyplot as plt
from _docs import save
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayescomp as bc

X, y = load_breast_cancer(return_X_y=True)
models = {
    "naive_bayes": GaussianNB(),
    "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
}
cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0)
scores = bc.cross_validate_paired(
    models, X, y, cv=cv, scoring=["accuracy", "roc_auc"], dataset="breast_cancer", progress=False
)
print(scores)
print("rho =", scores.rho())

# %%
# The posterior, its decision, and a goal instead of a baseline
# -------------------------------------------------------------
res = bc.compare(scores, baseline="naive_bayes", candidate="logreg", metric="accuracy", rope=0.01)
print(res)
print(res.decision(0.95))
print(res.summary().T)

goal = bc.compare(scores, baseline=0.97, candidate="logreg", metric="accuracy", rope=0.005)
print(goal)
print(goal.decision(0.95))

# %%
# The frequentist corrected t-test, for comparison
# ------------------------------------------------
nb = bc.nadeau_bengio_ttest(
    *scores.paired("naive_bayes", "logreg", "accuracy")[["baseline", "candidate"]].to_numpy().T,
    rho=scores.rho(),
    alternative="greater",
)
print(f"Nadeau-Bengio t = {nb.statistic:.3f}, one-sided p = {nb.pvalue:.2e}")

# %%
# The figure
# ----------
fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
res.plot(ax=axes[0])
goal.plot(ax=axes[1])
axes[0].set_title("logreg vs naive Bayes\n" + axes[0].get_title(), fontsize=9)
axes[1].set_title("logreg vs the goal accuracy 0.97\n" + axes[1].get_title(), fontsize=9)
save(fig, "correlated_ttest.png")
