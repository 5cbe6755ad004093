"""Random forest, 100 trees, sqrt features per split."""

from sklearn.ensemble import RandomForestClassifier

model = RandomForestClassifier(n_estimators=100, max_features="sqrt", n_jobs=1, random_state=0)
