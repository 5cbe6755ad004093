"""
Several metrics at once: guardrails
===================================

The figure and the numbers of :doc:`/guardrails`: naive Bayes against a logistic regression
on the breast-cancer data (10 × 3 stratified splits), compared on ROC AUC with the log loss
and the fit time as guardrails, plus the cost-aware decision.
"""

# %%
# Paired scores on three metrics
# ------------------------------
import pandas as pd
from _docs import save
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayescomp as bc

pd.set_option("display.width", 120)
X, y = load_breast_cancer(return_X_y=True)
scores = bc.cross_validate_paired(
    {
        "nb": GaussianNB(),
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(C=10, max_iter=5000)),
    },
    X,
    y,
    cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=3, random_state=0),
    scoring=["roc_auc", "neg_log_loss", "accuracy"],
    progress=False,
)

# %%
# The joint posterior and the decision
# ------------------------------------
res = bc.compare(
    scores,
    "nb",
    "logreg",
    metric=["roc_auc", "neg_log_loss", "accuracy"],
    rope={"roc_auc": 0.002, "neg_log_loss": 0.02, "accuracy": 0.01},
    gains={"roc_auc": 2000.0, "accuracy": 100.0},
    switching_cost=2.0,
)
print(
    res.summary()[["metric", "difference", "mean", "rope", "p_left", "p_rope", "p_right"]]
    .round(4)
    .to_string(index=False)
)
print("p_joint", round(res.p_joint, 3), "±", round(res.p_joint_se, 4))
d = res.decision(0.95)
print(d)
print(d.utility)

# %%
# The primary difference against each guardrail
# ----------------------------------------------
axes = res.plot()
save(axes[0].figure, "guardrails.png")
