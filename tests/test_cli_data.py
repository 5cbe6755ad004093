"""``select``/``compare --data PATH --target COL …`` from the shell: a user's own table.

Every command runs through ``python -m bayescomp`` in a subprocess, as a user runs it.
Each bad-input case of issue 19 gets one line on stderr naming the column or the file,
and exit status 2.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]

BASELINE = """\
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

model = make_pipeline(
    ColumnTransformer([
        ("num", make_pipeline(SimpleImputer(), StandardScaler()), ["spend", "calls"]),
        ("cat", OneHotEncoder(handle_unknown="ignore"), ["plan"])]),
    LogisticRegression())
"""
DUMMY = """\
from sklearn.dummy import DummyClassifier

model = DummyClassifier(strategy="prior")
"""
PLAIN = """\
from sklearn.linear_model import LogisticRegression

model = LogisticRegression()
"""


def make_table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "customer": rng.integers(0, 40, n),
            "day": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.permutation(n), "D"),
            "plan": rng.choice(["basic", "pro", "team"], n),
            "spend": rng.gamma(2.0, 30.0, n),
            "calls": rng.poisson(1.5, n).astype(float),
        }
    )
    df.loc[rng.random(n) < 0.1, "calls"] = np.nan
    logit = -1 + 0.03 * df["spend"] - 0.6 * df["calls"].fillna(2) + (df["plan"] == "pro")
    df["churned"] = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return df


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("owndata")
    make_table().to_parquet(d / "customers.parquet")
    models = d / "models"
    models.mkdir()
    (models / "logreg.py").write_text(BASELINE)
    (models / "prior.py").write_text(DUMMY)
    return d


def bc(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "bayescomp", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=600,
    )


SELECT_BASE = (
    "select",
    "models/",
    "--baseline",
    "prior",
    "--rope",
    "0.01",
    "--n-repeats",
    "1",
    "--quiet",
)
SELECT = (*SELECT_BASE, "--n-splits", "3")  # a repeated single-valued flag is an error


def test_select_on_own_table_groups_store_and_identity(work):
    r = bc(
        *SELECT,
        "--data",
        "customers.parquet",
        "--target",
        "churned",
        "--groups",
        "customer",
        "--drop",
        "day",
        "--store",
        "runs.sqlite",
        "--json",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["champion"] == "logreg" and out["fits"]["performed"] == 6
    # the same file at another path is recognised: every fit is read back
    other = work / "elsewhere"
    other.mkdir(exist_ok=True)
    shutil.copy(work / "customers.parquet", other / "copy.parquet")
    r = bc(
        *SELECT,
        "--data",
        "elsewhere/copy.parquet",
        "--target",
        "churned",
        "--groups",
        "customer",
        "--drop",
        "day",
        "--store",
        "runs.sqlite",
        "--json",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["fits"]["performed"] == 0
    # another column choice is refused, saying what changed
    r = bc(
        *SELECT,
        "--data",
        "customers.parquet",
        "--target",
        "churned",
        "--groups",
        "customer",
        "--drop",
        "day,calls",
        "--store",
        "runs.sqlite",
        cwd=work,
    )
    assert r.returncode == 2
    assert "drop ['day'] → ['calls', 'day']" in r.stderr and len(r.stderr.splitlines()) == 1
    # a changed file is refused, saying so
    changed = make_table(seed=1)
    changed.to_parquet(other / "copy.parquet")
    r = bc(
        *SELECT,
        "--data",
        "elsewhere/copy.parquet",
        "--target",
        "churned",
        "--groups",
        "customer",
        "--drop",
        "day",
        "--store",
        "runs.sqlite",
        cwd=work,
    )
    assert r.returncode == 2 and "the file's content changed" in r.stderr, r.stderr


def test_groups_never_cross_train_and_test(work):
    """The design of --groups: no customer in both training and test rows, stratified."""
    import argparse

    from bayescomp.cli._data import own_data
    from bayescomp.splits.design import materialise_splits

    args = argparse.Namespace(
        data=str(work / "customers.parquet"),
        target="churned",
        groups="customer",
        drop=["day"],
        time=None,
        gap=0,
        task=None,
        dataset=None,
        n_splits=5,
        n_repeats=2,
        seed=0,
    )
    own = own_data(args)
    assert list(own.X.columns) == ["plan", "spend", "calls"]  # names and dtypes kept
    read = pd.read_parquet(work / "customers.parquet")
    assert own.X.dtypes.equals(read[["plan", "spend", "calls"]].dtypes)
    assert own.default_metric == "roc_auc" and own.sklearn_task == "classification"
    design = materialise_splits(own.cv, own.X, own.y, own.groups)
    assert len(design) == 10
    for tr, te in design.splits:
        assert set(own.groups[tr]).isdisjoint(own.groups[te])


def test_time_design_from_the_shell(work):
    r = bc(
        "compare",
        "models/prior.py",
        "models/logreg.py",
        "--data",
        "customers.parquet",
        "--target",
        "churned",
        "--time",
        "day",
        "--gap",
        "5",
        "--n-splits",
        "6",
        "--drop",
        "customer",
        "--rope",
        "0.01",
        "--json",
        "--quiet",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)[0]
    assert rec["method"] == "time_ordered" and rec["n"] == 6 and -1 < rec["phi"] < 1
    r = bc(
        *SELECT_BASE,
        "--data",
        "customers.parquet",
        "--target",
        "churned",
        "--time",
        "day",
        "--drop",
        "customer",
        "--n-splits",
        "6",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    assert "logreg" in r.stdout


def test_groups_with_time_from_the_shell(work):
    """--groups with --time: expanding windows of whole weeks, the time-ordered posterior
    chosen by itself; a customer id seen over the whole period is refused in one line."""
    t = make_table()
    t["week"] = (t["day"] - t["day"].min()).dt.days // 7
    t.to_parquet(work / "weekly.parquet")
    r = bc(
        "compare",
        "models/prior.py",
        "models/logreg.py",
        "--data",
        "weekly.parquet",
        "--target",
        "churned",
        "--time",
        "day",
        "--groups",
        "week",
        "--gap",
        "1",
        "--n-splits",
        "5",
        "--drop",
        "customer",
        "--rope",
        "0.01",
        "--json",
        "--quiet",
        cwd=work,
    )
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)[0]
    assert rec["method"] == "time_ordered" and rec["n"] == 5 and -1 < rec["phi"] < 1
    r = bc(
        *SELECT,
        "--data",
        "weekly.parquet",
        "--target",
        "churned",
        "--time",
        "day",
        "--groups",
        "customer",
        "--drop",
        "week",
        cwd=work,
    )
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--groups customer with --time day: group" in lines[0]
    assert "has rows on both sides of the start of test window 1" in lines[0]


def _bad(tmp: Path) -> dict[str, tuple[list[str], str, dict]]:
    t = make_table(120)
    t.to_csv(tmp / "ok.csv", index=False)
    t.assign(churned=t["churned"].astype(float).where(t.index != 7)).to_csv(
        tmp / "nan_target.csv", index=False
    )
    t.assign(churned=1).to_parquet(tmp / "one_class.parquet")
    t.assign(customer=3).to_feather(tmp / "one_group.feather")
    t.assign(customer=t["customer"] % 4).to_csv(tmp / "few_groups.csv.gz", index=False)
    (tmp / "table.xlsx").write_bytes(b"not a table")
    base = ["--target", "churned", "--drop", "day"]
    return {
        "missing file": (["--data", "nope.parquet", *base], "no data file at nope.parquet", {}),
        "unknown format": (["--data", "table.xlsx", *base], "unknown format", {}),
        "missing target": (
            ["--data", "ok.csv", "--target", "label"],
            "column 'label' (--target) is not in ok.csv",
            {},
        ),
        "missing group column": (
            ["--data", "ok.csv", *base, "--groups", "patient"],
            "column 'patient' (--groups)",
            {},
        ),
        "target with missing values": (
            ["--data", "nan_target.csv", *base],
            "target column 'churned' has 1 missing",
            {},
        ),
        "target with one class": (
            ["--data", "one_class.parquet", *base],
            "target column 'churned' has one class",
            {},
        ),
        "one group": (
            ["--data", "one_group.feather", *base, "--groups", "customer"],
            "group column 'customer' has one group",
            {},
        ),
        "fewer groups than folds": (
            ["--data", "few_groups.csv.gz", *base, "--groups", "customer", "--n-splits", "5"],
            "has 4 groups, fewer than the 5 folds",
            {},
        ),
        "feature the models cannot handle": (
            ["--data", "ok.csv", *base, "--baseline", "plain", "--on-error", "raise"],
            "feature column 'plan'",
            {},
        ),
        "larger than memory": (
            ["--data", "ok.csv", *base],
            "needs about",
            {"BAYESCOMP_MEMORY_BYTES": "1000"},
        ),
        "target without data": (
            ["--target", "churned", "--dataset", "iris"],
            "--target describe the columns of --data",
            {},
        ),
        "data and dataset": (
            ["--data", "ok.csv", "--target", "churned", "--dataset", "iris"],
            "not both",
            {},
        ),
    }


@pytest.fixture(scope="module")
def bad_dir(tmp_path_factory, work):
    d = tmp_path_factory.mktemp("bad")
    models = d / "models"
    models.mkdir()
    (models / "plain.py").write_text(PLAIN)
    (models / "prior.py").write_text(DUMMY)
    return d


@pytest.mark.parametrize(
    "case",
    [
        "missing file",
        "unknown format",
        "missing target",
        "missing group column",
        "target with missing values",
        "target with one class",
        "one group",
        "fewer groups than folds",
        "feature the models cannot handle",
        "larger than memory",
        "target without data",
        "data and dataset",
    ],
)
def test_bad_input_one_line_exit_2(bad_dir, case):
    args, expected, env = _bad(bad_dir)[case]
    cmd = [
        "select",
        "models/",
        "--rope",
        "0.01",
        *(() if "--n-splits" in args else ("--n-splits", "3")),
        "--n-repeats",
        "1",
        "--quiet",
        *args,
    ]
    if "--baseline" not in args:
        cmd += ["--baseline", "prior"]
    r = bc(*cmd, cwd=bad_dir, env=env)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bayescomp select: error:"), r.stderr
    assert expected in lines[0], lines[0]
