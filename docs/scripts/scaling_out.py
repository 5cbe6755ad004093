"""
Scaling out: the same fits on a Dask cluster
============================================

The figure of :doc:`/scaling_out`: the per-split ROC AUC of two models, cross-validated
once with loky (processes on this machine) and once on a local Dask cluster of two
workers (threads of this process, as a gallery script cannot spawn them), plotted against each other.  Every point lies on the diagonal: the splits are
materialised once, so where a fit runs does not change its score.  The right panel shows
when each fit finished on the cluster (results stream back as they finish).
"""

import time

import joblib
import matplotlib.pyplot as plt
import numpy as np
from _docs import save
from distributed import Client, LocalCluster
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bayescomp as bc
from bayescomp.scores.engine import FitTask, run_fits

X, y = load_breast_cancer(return_X_y=True)
models = {
    "naive Bayes": GaussianNB(),
    "logistic regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
}
cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=4, random_state=0)
local = bc.cross_validate_paired(models, X, y, cv=cv, scoring="roc_auc", n_jobs=2, progress=False)
with (
    LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster,
    Client(cluster),
    joblib.parallel_config(backend="dask"),
):
    remote = bc.cross_validate_paired(
        models, X, y, cv=cv, scoring="roc_auc", n_jobs=2, progress=False
    )
    design = remote.design
    arrivals = []
    t0 = time.perf_counter()
    tasks = [
        FitTask(k, models["logistic regression"], X, y, *design.splits[k], {})
        for k in range(len(design))
    ]
    run_fits(tasks, lambda key, res: arrivals.append((key, time.perf_counter() - t0)), n_jobs=2)

fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4.2))
a, b = local.to_frame(), remote.to_frame()
for name, marker in zip(models, "os", strict=True):
    ax.scatter(
        a.loc[a.model == name, "roc_auc"],
        b.loc[b.model == name, "roc_auc"],
        marker=marker,
        label=name,
        alpha=0.7,
    )
lims = [min(a.roc_auc.min(), b.roc_auc.min()) - 0.002, 1.0]
ax.plot(lims, lims, color="grey", lw=1, zorder=0)
ax.set(
    xlabel="ROC AUC per split, loky",
    ylabel="ROC AUC per split, Dask cluster",
    title="identical scores on every backend",
)
ax.legend(loc="lower right")
times = np.array([t for _, t in arrivals])
ax2.step(times, np.arange(1, times.size + 1), where="post")
ax2.set(
    xlabel="seconds since the first fit was sent",
    ylabel="fits back in this process",
    title="results stream back as each fit finishes",
)
fig.tight_layout()
save(fig, "scaling_out.png")
