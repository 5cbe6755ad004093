"""Logistic regression on standardised features (L2, C=1)."""

from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=5000))
