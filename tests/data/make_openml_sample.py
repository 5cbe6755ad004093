"""Write the small OpenML-layout sample the importer tests read (run by hand, offline).

``openml_per_fold_evaluations.csv`` has the columns of ``openml.evaluations.
list_evaluations(function, per_fold=True, output_format="dataframe")`` and
``openml_task_splits.csv`` the columns of a task's ``datasplits`` table (plus
``task_id``, two tasks in one file).  Nothing is downloaded: the two "tasks" are
scikit-learn's built-in iris and wine data with seeded stratified splits, the scores are
real per-fold scores of three scikit-learn models on them; the task, run, flow and
setup ids are made up.

    python tests/data/make_openml_sample.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).parent
FLOWS = {
    "sklearn.naive_bayes.GaussianNB": (9001, 90011),
    "sklearn.linear_model.LogisticRegression": (9002, 90021),
    "sklearn.tree.DecisionTreeClassifier": (9003, 90031),
}


def _model(name: str):
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return {
        "sklearn.naive_bayes.GaussianNB": GaussianNB(),
        "sklearn.linear_model.LogisticRegression": make_pipeline(
            StandardScaler(), LogisticRegression(max_iter=2000)
        ),
        "sklearn.tree.DecisionTreeClassifier": DecisionTreeClassifier(random_state=0),
    }[name]


def main() -> None:
    from sklearn.datasets import load_iris, load_wine
    from sklearn.metrics import accuracy_score, roc_auc_score
    from sklearn.model_selection import RepeatedStratifiedKFold

    tasks = {
        1059: ("iris", load_iris(return_X_y=True), 10, 1, 61),
        1187: ("wine", load_wine(return_X_y=True), 5, 2, 187),
    }
    split_rows, eval_rows, run_id = [], [], 5_000_000
    for task_id, (data_name, (X, y), k, repeats, data_id) in tasks.items():
        cv = RepeatedStratifiedKFold(n_splits=k, n_repeats=repeats, random_state=task_id)
        splits = list(cv.split(X, y))
        for s, (train, test) in enumerate(splits):
            rep, fold = divmod(s, k)
            split_rows += [
                {"task_id": task_id, "type": t, "rowid": int(i), "repeat": rep, "fold": fold}
                for t, idx in (("TRAIN", train), ("TEST", test))
                for i in idx
            ]
        for flow, (flow_id, setup_id) in FLOWS.items():
            acc = np.zeros((repeats, k))
            auc = np.zeros((repeats, k))
            for s, (train, test) in enumerate(splits):
                est = _model(flow).fit(X[train], y[train])
                acc.flat[s] = accuracy_score(y[test], est.predict(X[test]))
                auc.flat[s] = roc_auc_score(
                    y[test], est.predict_proba(X[test]), multi_class="ovr", average="weighted"
                )
            run_id += 1
            for function, vals in (("predictive_accuracy", acc), ("area_under_roc_curve", auc)):
                eval_rows.append(
                    {
                        "run_id": run_id,
                        "task_id": task_id,
                        "setup_id": setup_id,
                        "flow_id": flow_id,
                        "flow_name": flow,
                        "data_id": data_id,
                        "data_name": data_name,
                        "function": function,
                        "upload_time": "2024-01-01 00:00:00",
                        "uploader": 1,
                        "uploader_name": "bayescomp tests",
                        "value": round(float(vals.mean()), 6),
                        "values": json.dumps(np.round(vals, 6).tolist()),
                        "array_data": None,
                    }
                )
    pd.DataFrame(eval_rows).to_csv(HERE / "openml_per_fold_evaluations.csv", index=False)
    pd.DataFrame(split_rows).to_csv(HERE / "openml_task_splits.csv", index=False)


if __name__ == "__main__":
    main()
