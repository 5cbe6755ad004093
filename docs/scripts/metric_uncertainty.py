"""
Honest uncertainty for evaluation metrics
=========================================

The figures and numbers of :doc:`/metric_uncertainty`: bootstrap intervals, threshold
curves on 50 against 569 rows, precision@k on an unlabeled pool, learning curves with
credible bands, and the classic metric table.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from _docs import save as _save
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, ShuffleSplit
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayescomp as bc
from bayescomp.report.metric_plots import plot_metric_table

pd.set_option("display.width", 160)


def save(fig, name):
    fig.tight_layout()
    _save(fig, name)


# %%
# Bootstrap and paired bootstrap
# ------------------------------
rng = np.random.default_rng(0)
y = rng.integers(0, 2, 300)
old, new = y + rng.normal(0, 2.0, 300), y + rng.normal(0, 1.2, 300)
ci = bc.bootstrap_metric(y, new, "roc_auc", random_state=0)
pair = bc.holdout_posterior(
    y, old, new, metric="roc_auc", random_state=0, baseline_name="old", candidate_name="new"
)
print(ci)
print(pair)
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ci.plot(ax=axes[0])
pair.plot(ax=axes[1])
save(fig, "metric_interval.png")

# %%
# Seed 000: 50 vs 569 rows of the breast-cancer data
# --------------------------------------------------
data = load_breast_cancer()
features, target = data.data, data.target
legacy = np.random.RandomState(12)  # the blog post's np.random.seed(12) sampling, exactly
cols = legacy.choice(features.shape[1], 3)
small = legacy.choice(np.arange(len(features)), 50)
cv = ShuffleSplit(n_splits=20, test_size=0.33, random_state=0)
rf = RandomForestClassifier(n_estimators=100, random_state=0)
curves = {
    "50 rows": bc.threshold_curves(rf, features[small][:, cols], target[small], cv=cv, n_jobs=2),
    "569 rows": bc.threshold_curves(rf, features[:, cols], target, cv=cv, n_jobs=2),
}
fig, axes = plt.subplots(1, 2, figsize=(11, 5), sharey=True)
for ax, (name, cur) in zip(axes, curves.items(), strict=True):
    cur.plot("pr", ax=ax, label=f"{name}: mean of 20 partitions")
    ax.set_title(f"{name}, 3 features, 20 random partitions (±1 SD)", fontsize=10)
save(fig, "threshold_curves_50_vs_569.png")
rows = []
for name, cur in curves.items():
    p, r = cur.summary("precision"), cur.summary("recall")
    for t in (0.5, 0.8, 0.9, 0.95, 0.98):
        rows.append(
            {
                "data": name,
                "threshold": t,
                "precision_mean": p.loc[t, "mean"],
                "precision_std": p.loc[t, "std"],
                "precision_min": p.loc[t, "min"],
                "precision_n_defined": p.loc[t, "n_defined"],
                "recall_mean": r.loc[t, "mean"],
                "recall_std": r.loc[t, "std"],
            }
        )
table = pd.DataFrame(rows)
print(table.round(3).to_string(index=False))
ratio = (
    curves["50 rows"].summary("recall")["std"] / curves["569 rows"].summary("recall")["std"]
).loc[0.1:0.9]
print("recall SD ratio 50/569 over thresholds 0.1-0.9: median", round(ratio.median(), 2))

# %%
# Seed 001: precision@k on an unlabeled pool
# ------------------------------------------
rng = np.random.default_rng(1)
n_pool_pos, n_pool_neg = 2000, 18000
test_scores = np.r_[rng.beta(5, 2, 1000), rng.beta(2, 5, 1000)]
test_labels = np.r_[np.ones(1000, int), np.zeros(1000, int)]
pool_labels = np.r_[np.ones(n_pool_pos, int), np.zeros(n_pool_neg, int)]
pool_scores = np.r_[rng.beta(5, 2, n_pool_pos), rng.beta(2, 5, n_pool_neg)]
res = bc.precision_at_k_unlabeled(test_scores, test_labels, pool_scores, class_size=(1500, 2500))
print(res, res.best_threshold_range)
pred = test_scores >= 0.5
print("test-set precision at 0.5:", round(test_labels[pred].mean(), 3))
k05 = int(np.sum(pool_scores >= 0.5))
print(
    "pool k at 0.5:",
    k05,
    res.table.loc[
        k05, ["recall_at_k", "precision_at_k", "precision_at_k_lower", "precision_at_k_upper"]
    ]
    .round(3)
    .to_dict(),
)
print("true pool precision at 0.5:", round(pool_labels[pool_scores >= 0.5].mean(), 3))
fig, ax = plt.subplots(figsize=(6.4, 4.4))
res.plot(ax=ax)
save(fig, "recall_at_k.png")

# %%
# Learning curves
# ---------------
X, y = load_breast_cancer(return_X_y=True)
lc = bc.learning_curves(
    {"naive_bayes": GaussianNB(), "logreg": make_pipeline(StandardScaler(), LogisticRegression())},
    X,
    y,
    scoring="accuracy",
    baseline="naive_bayes",
    cv=RepeatedStratifiedKFold(n_splits=5, n_repeats=4, random_state=0),
    schedule="geometric",
    n_sizes=6,
    random_state=0,
)
s = lc.summary()
print(
    s[s.kind == "difference"][["train_size", "rho", "mean", "low", "high", "p_better"]]
    .round(3)
    .to_string(index=False)
)
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
lc.plot(ax=axes[0])
lc.plot_difference(ax=axes[1])
save(fig, "learning_curves.png")

# %%
# Classic metric table
# --------------------
tp, fn, fp, tn = 90, 210, 140, 9560
yt = np.r_[np.ones(tp + fn, int), np.zeros(fp + tn, int)]
yp = np.r_[np.ones(tp, int), np.zeros(fn, int), np.ones(fp, int), np.zeros(tn, int)]
mt = bc.metric_table(yt, yp, n_resamples=1000, random_state=0)
print(mt.round(4).to_string())
fig, ax = plt.subplots(figsize=(6.4, 4.2))
plot_metric_table(mt, ax=ax)
save(fig, "metric_table.png")
