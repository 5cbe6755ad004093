"""Regenerate docs/img/correlated_ttest.png and the numbers quoted in docs/correlated_ttest.md.

Run from the repository root: ``python docs/scripts/correlated_ttest.py``
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    sys.path.insert(0, str(ROOT))
    import matplotlib

    matplotlib.use("Agg")

    import matplotlib.pyplot as plt
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import RepeatedStratifiedKFold
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    import bayescomp as bc

    X, y = load_breast_cancer(return_X_y=True)
    models = {
        "naive_bayes": GaussianNB(),
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
    }
    cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0)
    scores = bc.cross_validate_paired(models, X, y, cv=cv, scoring=["accuracy", "roc_auc"],
                                      dataset="breast_cancer", progress=False)
    print(scores)
    print("rho =", scores.rho())

    res = bc.compare(scores, baseline="naive_bayes", candidate="logreg", metric="accuracy",
                     rope=0.01)
    print(res)
    print(res.decision(0.95))
    print(res.summary().T)

    goal = bc.compare(scores, baseline=0.97, candidate="logreg", metric="accuracy", rope=0.005)
    print(goal)
    print(goal.decision(0.95))

    nb = bc.nadeau_bengio_ttest(*scores.paired("naive_bayes", "logreg", "accuracy")
                                [["baseline", "candidate"]].to_numpy().T,
                                rho=scores.rho(), alternative="greater")
    print(f"Nadeau-Bengio t = {nb.statistic:.3f}, one-sided p = {nb.pvalue:.2e}")

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
    res.plot(ax=axes[0])
    goal.plot(ax=axes[1])
    axes[0].set_title("logreg vs naive Bayes\n" + axes[0].get_title(), fontsize=9)
    axes[1].set_title("logreg vs the goal accuracy 0.97\n" + axes[1].get_title(), fontsize=9)
    out = ROOT / "docs" / "img" / "correlated_ttest.png"
    fig.savefig(out, dpi=100)
    print("wrote", out.relative_to(ROOT))


if __name__ == "__main__":
    main()
