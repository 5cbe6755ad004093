"""Regenerate docs/img/guardrails.png and the numbers of docs/guardrails.md
(python docs/scripts/guardrails.py)."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pandas as pd
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
    {"nb": GaussianNB(),
     "logreg": make_pipeline(StandardScaler(), LogisticRegression(C=10, max_iter=5000))},
    X, y, cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=3, random_state=0),
    scoring=["roc_auc", "neg_log_loss"], progress=False)
res = bc.compare(scores, "nb", "logreg", metric=["roc_auc", "neg_log_loss", "fit_time"],
                 rope={"roc_auc": 0.002, "neg_log_loss": 0.02, "fit_time": 0.5},
                 gains={"roc_auc": 2000.0, "fit_time": 10.0}, switching_cost=2.0)
print(res.summary()[["metric", "difference", "mean", "rope", "p_left", "p_rope", "p_right"]]
      .round(4).to_string(index=False))
print("p_joint", round(res.p_joint, 3), "±", round(res.p_joint_se, 4))
d = res.decision(0.95)
print(d)
print(d.utility)
axes = res.plot()
out = Path(__file__).resolve().parents[1] / "img" / "guardrails.png"
axes[0].figure.savefig(out, dpi=100)
print("wrote", out)
