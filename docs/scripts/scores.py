"""
Paired cross-validation scores
==============================

The figure of :doc:`/scores`: logistic regression and a random forest scored on the same
10 × 5 stratified splits of the breast-cancer data, one line per split.
"""

from _docs import save
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayescomp as bc

X, y = load_breast_cancer(return_X_y=True)
scores = bc.cross_validate_paired(
    {
        "logreg": make_pipeline(StandardScaler(), LogisticRegression()),
        "forest": RandomForestClassifier(n_estimators=100, random_state=0),
    },
    X,
    y,
    cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=5, random_state=0),
    scoring="roc_auc",
    n_jobs=2,
    progress=False,
    dataset="breast_cancer",
)
print(scores.to_frame().head())
print("rho =", scores.rho())
ax = scores.plot("logreg", "forest", "roc_auc")
save(ax.figure, "paired_scores.png")
