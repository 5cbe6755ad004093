"""Regenerate docs/img/paired_scores.png (python docs/scripts/scores.py)."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayescomp as bc

X, y = load_breast_cancer(return_X_y=True)
scores = bc.cross_validate_paired(
    {"logreg": make_pipeline(StandardScaler(), LogisticRegression()),
     "forest": RandomForestClassifier(n_estimators=100, random_state=0)},
    X, y, cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=5, random_state=0),
    scoring="roc_auc", n_jobs=2, progress=False, dataset="breast_cancer")
ax = scores.plot("logreg", "forest", "roc_auc")
out = Path(__file__).resolve().parents[1] / "img" / "paired_scores.png"
ax.figure.savefig(out, dpi=100)
print(scores.to_frame().head())
print("wrote", out)
