"""
Your own data
=============

The figure of :doc:`/own_data`: the churn table of that page (numbers, a categorical
column, missing values, a customer id, a date) written to Parquet, read back as
``bayescomp select --data`` reads it (:func:`bayescomp.scores.tabular.read_table`), and the
production model challenged by one that also encodes the plan, on grouped repeated
k-fold (no customer on both sides of a split).
"""

# %%
# The table, in Parquet
# ---------------------
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from _docs import save
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import bayescomp as bc
from bayescomp.scores.tabular import read_table
from bayescomp.splits.group import RepeatedGroupKFold

rng = np.random.default_rng(0)
n = 1200
customers = pd.DataFrame(
    {"customer_id": np.arange(150), "plan": rng.choice(["basic", "pro", "team"], 150)}
)
table = customers.sample(n, replace=True, random_state=0).reset_index(drop=True)
table["signup_date"] = pd.Timestamp("2023-01-01") + pd.to_timedelta(
    rng.integers(0, 700, n), unit="D"
)
table["monthly_spend"] = np.round(rng.gamma(2.0, 30.0, n), 2)
table["support_calls"] = rng.poisson(1.5, n).astype(float)
table.loc[rng.random(n) < 0.1, "support_calls"] = np.nan
logit = (
    -1.0
    + 0.02 * table["monthly_spend"]
    - 0.6 * table["support_calls"].fillna(2)
    + 2.0 * (table["plan"] == "basic")
)
table["churned"] = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
path = Path(tempfile.mkdtemp()) / "customers.parquet"
table.to_parquet(path)
data = read_table(path, target="churned", groups="customer_id", drop=["signup_date"])
print(data.task, list(data.X.columns), data.X.dtypes.astype(str).tolist())

# %%
# The selection
# -------------
numeric = make_pipeline(SimpleImputer(strategy="median"), StandardScaler())
models = {
    "production": make_pipeline(
        ColumnTransformer([("num", numeric, ["monthly_spend", "support_calls"])]),
        LogisticRegression(),
    ),
    "with_plan": make_pipeline(
        ColumnTransformer(
            [
                ("num", numeric, ["monthly_spend", "support_calls"]),
                ("cat", OneHotEncoder(handle_unknown="ignore"), ["plan"]),
            ]
        ),
        LogisticRegression(),
    ),
}
sel = bc.select_models(
    models,
    data.X,
    data.y,
    groups=data.groups,
    baseline="production",
    metric="roc_auc",
    rope=0.01,
    progress=False,
    cv=RepeatedGroupKFold(n_splits=10, n_repeats=3, random_state=0, stratify=True),
)
print(sel.recommendation["text"])
ax = sel.plot_step(1)
save(ax.figure, "own_data_selection.png")
