"""
Champion/challenger selection
=============================

The figures of :doc:`/selection`: naive Bayes as the model in production, challenged by
logistic regression, an RBF SVM and kNN on the breast-cancer data (10 × 3 stratified
splits, up to 2 extra repetitions); the decision timeline, one step's posterior, the
pairwise ranking, and the HTML report itself.
"""

# %%
# The selection
# -------------
import shutil

import matplotlib.pyplot as plt
from _docs import IMG, REPO, save

import bayescomp as bc
from bayescomp.scores.datasets import load_dataset
from bayescomp.splits.repeats import default_cv

X, y, _ = load_dataset("breast_cancer")
files = [
    REPO / "models" / f"{m}.py" for m in ("logistic_regression", "naive_bayes", "svm_rbf", "knn")
]
sel = bc.select_models(
    files,
    X,
    y,
    baseline="naive_bayes",
    scoring="accuracy",
    rope=0.01,
    max_repeats=2,
    progress=False,
    dataset="breast_cancer",
    cv=default_cv(y, n_splits=10, n_repeats=3),
)
print(sel)

# %%
# Timeline, one step and the ranking
# ----------------------------------
axes = sel.plot()
save(axes[0].figure, "selection_timeline.png", dpi=90)
ax = sel.plot_step(1)
save(ax.figure, "selection_step.png", dpi=90)
r = bc.rank(sel.base_scores, "accuracy", rope=0.01)
print(r)
ax = r.plot()
save(ax.figure, "selection_rank.png", dpi=90)
plt.close("all")

# %%
# The report
# ----------
# The docs publish the report itself (``selection_report/report.html`` at the root of the
# built site), written by the same call as ``bayescomp select --report DIR``.
out = IMG / "site" / "selection_report"  # docs/img/site/ is copied to the site's root
shutil.rmtree(out, ignore_errors=True)
html = sel.report(out)
print("wrote", html.relative_to(REPO))
