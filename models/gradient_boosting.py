"""Histogram gradient boosting with early stopping off (deterministic)."""

from sklearn.ensemble import HistGradientBoostingClassifier

model = HistGradientBoostingClassifier(
    max_iter=100, learning_rate=0.1, early_stopping=False, random_state=0
)
