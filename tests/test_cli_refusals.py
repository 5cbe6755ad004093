"""The command line and table input: wrong numbers, silent acceptances, crashes.

CLI cases run ``python -m bayescomp`` in a subprocess, as a user runs it, on tiny tables
built in ``tmp_path``; each bad input must give one line on stderr naming the flag and
what to do (exit status 2), never a traceback or "internal error".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import run_cli

from bayescomp.scores.tabular import read_table

REPO = Path(__file__).resolve().parents[1]
LR = "from sklearn.linear_model import LogisticRegression\n\nmodel = LogisticRegression()\n"
PRIOR = "from sklearn.dummy import DummyClassifier\n\nmodel = DummyClassifier()\n"
FAST = ("--baseline", "lr", "--rope", "0.01", "--n-splits", "3", "--n-repeats", "1", "--quiet")


bc = run_cli


def one_error(proc: subprocess.CompletedProcess, *parts: str) -> str:
    """The run failed with exit 2 and one line on stderr holding every part."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


def table(n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.normal(size=n), "g": np.arange(n) % 6})
    df["y"] = (df["x"] + rng.normal(size=n) > 0).astype(int)
    return df


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "lr.py").write_text(LR)
    (tmp_path / "models" / "prior.py").write_text(PRIOR)
    table().to_csv(tmp_path / "d.csv", index=False)
    return tmp_path


# -- item 3: --time is parsed, never sorted as text -------------------------------------


def test_time_numbers_stored_as_text_sort_as_numbers(tmp_path):
    df = pd.DataFrame(
        {"t": ["10", "2", "1", "30", "3"], "x": [10.0, 2, 1, 30, 3], "y": [0, 1] * 2 + [1]}
    )
    df.to_parquet(tmp_path / "t.parquet")
    X = read_table(tmp_path / "t.parquet", target="y", time="t", n_splits=2).X
    assert X["x"].tolist() == [1.0, 2.0, 3.0, 10.0, 30.0]  # as text: 1, 10, 2, 3, 30


def test_time_day_first_with_its_format(tmp_path):
    t = ["30/08/2024 08:15", "02/09/2024 08:15", "01/08/2024 09:00", "31/07/2024 23:00"]
    df = pd.DataFrame({"t": t, "x": [3.0, 4, 2, 1], "y": [0, 1, 0, 1]})
    df.to_csv(tmp_path / "t.csv", index=False)
    X = read_table(
        tmp_path / "t.csv", target="y", time="t", time_format="%d/%m/%Y %H:%M", n_splits=2
    ).X
    assert X["x"].tolist() == [1.0, 2.0, 3.0, 4.0]
    iso = df.assign(t=["2024-08-30 08:15", "2024-09-02", "2024-08-01T09:00", "2024-07-31"])
    iso.to_csv(tmp_path / "iso.csv", index=False)
    assert read_table(tmp_path / "iso.csv", target="y", time="t", n_splits=2).X["x"].tolist() == [
        1.0,
        2.0,
        3.0,
        4.0,
    ]


def test_time_ambiguous_or_unparseable_text_is_refused(work):
    df = table()
    df["t"] = [f"{i % 28 + 1:02d}/0{i // 28 + 1}/2024 08:15" for i in range(len(df))]
    df.to_csv(work / "dates.csv", index=False)
    proc = bc(
        "select", "models/", "--data", "dates.csv", "--target", "y", "--time", "t", *FAST, cwd=work
    )
    one_error(proc, "'t'", "'01/01/2024 08:15'", "--time-format '%d/%m/%Y %H:%M'")
    df["t"] = [f"day-{i}" for i in range(len(df))]
    df.to_csv(work / "labels.csv", index=False)
    proc = bc(
        "select", "models/", "--data", "labels.csv", "--target", "y", "--time", "t", *FAST, cwd=work
    )
    one_error(proc, "time column 't'", "'day-0'", "neither a number nor a date")


# -- item 9: one column, one role ---------------------------------------------------------


@pytest.mark.parametrize("flag", ["--groups", "--time"])
def test_target_that_is_also_groups_or_time_is_refused(work, flag):
    proc = bc("select", "models/", "--data", "d.csv", "--target", "y", flag, "y", *FAST, cwd=work)
    one_error(proc, f"column 'y' is both --target and {flag}")


# -- item 14: empty tables ------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_zero_row_data_is_one_line(work, suffix):
    empty = table().head(0)
    path = work / f"empty{suffix}"
    empty.to_csv(path, index=False) if suffix == ".csv" else empty.to_parquet(path)
    proc = bc("select", "models/", "--data", path.name, "--target", "y", *FAST, cwd=work)
    one_error(proc, f"empty{suffix} has a header but no rows")


# -- item 20: messages ----------------------------------------------------------------------


def test_missing_y_true_column_is_named_as_itself(tmp_path):
    pd.DataFrame({"a": [1, 0, 1], "b": [0, 0, 1], "label": [1, 0, 1]}).to_csv(
        tmp_path / "p.csv", index=False
    )
    proc = bc("compare", "--predictions", "p.csv", "--rope", "0.01", cwd=tmp_path)
    line = one_error(proc, "--y-true column 'y_true' is not in p.csv")
    assert "the --y-true column'" not in line


@pytest.mark.parametrize(
    "guard, words",
    [
        ("fit_time:inf", "--guardrail 'fit_time:inf': METRIC:ROPE expected"),
        ("fit_time:0.1:0.2", "--guardrail 'fit_time:0.1:0.2': METRIC:ROPE expected"),
        ("nope:0.1", "--guardrail 'nope:0.1': unknown scoring 'nope'"),
    ],
)
def test_guardrail_errors_name_the_guardrail(work, guard, words):
    proc = bc("select", "models/", "--dataset", "iris", "--guardrail", guard, *FAST, cwd=work)
    line = one_error(proc, words)
    assert "--rope" not in line and "callable" not in line


# -- item 21: what spreadsheets write, and flags that do what they say ---------------------


def test_semicolon_and_utf16_data_are_read(work):
    df = table()
    df.to_csv(work / "semi.csv", index=False, sep=";")
    df.to_csv(work / "u16.csv", index=False, encoding="utf-16")
    for name in ("semi.csv", "u16.csv"):
        frame = read_table(work / name, target="y", n_splits=3).X
        pd.testing.assert_frame_equal(frame, df[["x", "g"]])
    (work / "latin.csv").write_bytes("x;café\n1;0\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"is not UTF-8 text.*re-save it as UTF-8"):
        read_table(work / "latin.csv", target="café", n_splits=3)


def test_text_binary_target_needs_pos_label(work):
    df = table().assign(y=lambda d: d["y"].map({1: "yes", 0: "no"}))
    df.to_csv(work / "yn.csv", index=False)
    proc = bc("select", "models/", "--data", "yn.csv", "--target", "y", *FAST, cwd=work)
    one_error(proc, "'no' and 'yes'", "--pos-label yes")
    t = read_table(work / "yn.csv", target="y", pos_label="yes", n_splits=3)
    assert t.y.tolist() == table()["y"].tolist()


def test_drop_takes_a_comma_list_and_leaves_the_models_positional(work):
    df = table().assign(id=range(60), leak=lambda d: d["y"])
    df.to_csv(work / "drop.csv", index=False)
    proc = bc(
        "select",
        "--data",
        "drop.csv",
        "--target",
        "y",
        "--drop",
        "id,leak",
        "models/",
        "--json",
        *FAST,
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"champion": "lr"' in proc.stdout  # the leak is not a feature: no perfect model


def test_abbreviated_flags_are_refused(work):
    proc = bc("select", "models/", "--dat", "d.csv", "--target", "y", *FAST, cwd=work)
    one_error(proc, "unrecognized arguments: --dat")


def test_one_class_fold_blames_the_split_design(work):
    df = table().assign(g=np.repeat(np.arange(6), 10))
    df["y"] = (df["g"] == 0).astype(int)
    df.to_csv(work / "oneclass.csv", index=False)
    proc = bc(
        "select",
        "models/",
        "--data",
        "oneclass.csv",
        "--target",
        "y",
        "--groups",
        "g",
        *FAST,
        cwd=work,
    )
    line = one_error(proc, "one class of the target 'y'", "split design", "fewer folds")
    assert "model file" not in line


# -- item 8: the select steps table never rounds across gamma ------------------------------


def test_steps_table_keeps_a_probability_below_gamma_below_it():
    from bayescomp.studies.selection import format_steps

    steps = pd.DataFrame(
        [
            dict(
                step=1,
                champion="lr",
                challenger="rf",
                champion_score=0.8,
                challenger_score=0.82,
                p_better=0.94996,
                p_left=0.00004,
                p_rope=0.05,
                p_right=0.94996,
                risk=0.05004,
                expected_gain=0.02,
                decision="inconclusive",
                reason="not sure",
            )
        ]
    )
    row = format_steps(steps, 0.95).splitlines()[1].split()
    # 0.05004 prints as 0.050: both are at or above the cut 1 - gamma = 0.05
    assert row[5:10] == ["0.94996", "0.000", "0.050", "0.94996", "0.050"]


# -- items 13 and 19: rank ------------------------------------------------------------------


def scores_csv(path: Path) -> None:
    rng = np.random.default_rng(0)
    rows = [
        dict(dataset=d, model=m, split=s, n_train=80, n_test=20, accuracy=mu + rng.normal(0, 0.02))
        for d in "abc"
        for m, mu in (("lr", 0.8), ("rf", 0.82), ("nb", 0.7))
        for s in range(5)
    ]
    pd.DataFrame(rows).to_csv(path, index=False)


def test_rank_without_the_mcmc_extra_ranks_and_a_nuts_sampler_is_one_line(tmp_path):
    """The default Plackett-Luce sampler (Gibbs) needs neither PyMC nor nutpie; asking for
    NUTS on the PyMC model without them is one line naming the extra."""
    scores_csv(tmp_path / "s.csv")
    block = "import sys; sys.modules['pymc'] = None; sys.modules['nutpie'] = None\n"
    code = block + (
        "from bayescomp.cli.main import main\n"
        "raise SystemExit(main(['rank', 's.csv', '--metric', 'accuracy']))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = dict(cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    proc = subprocess.run([sys.executable, "-c", code], **run)
    assert proc.returncode == 0 and "ranking of" in proc.stdout and "gibbs" in proc.stdout, (
        proc.stderr
    )
    code = block + (
        "import bayescomp as bc\n"
        "s = bc.Scores.read_csv('s.csv')\n"
        "bc.rank(s, 'accuracy', method='plackett_luce', sampler='nutpie')"
    )
    proc = subprocess.run([sys.executable, "-c", code], **run)
    assert proc.returncode == 1 and "pip install 'bayescomp[mcmc]'" in proc.stderr, proc.stderr


def test_rank_prints_its_table_one_row_a_line(tmp_path):
    scores_csv(tmp_path / "s.csv")
    proc = bc("rank", "s.csv", "--dataset", "a", "--metric", "accuracy", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "\\n" not in proc.stdout
    assert lines[2].split() == [
        "model",
        "mean",
        "versus",
        "p_better",
        "p_left",
        "p_rope",
        "p_right",
        "expected_gain",
        "decision",
    ]
    assert len(lines) == 3 + 6  # title, blank, header, 3 models x 2 rivals


def test_fit_warnings_name_their_model_once(tmp_path):
    (tmp_path / "lr.py").write_text(
        "from sklearn.linear_model import LogisticRegression\n\n"
        "model = LogisticRegression(max_iter=1)\n"
    )
    (tmp_path / "prior.py").write_text(PRIOR)
    proc = bc(
        "compare",
        "lr.py",
        "prior.py",
        "--dataset",
        "breast_cancer",
        "--rope",
        "0.01",
        "--n-splits",
        "3",
        "--n-repeats",
        "2",
        "--quiet",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stderr.splitlines() if "ConvergenceWarning" in x]
    assert line.startswith(
        "bayescomp compare: ConvergenceWarning (6 times): model 'lr': lbfgs failed to converge"
    )
    assert line.count("model '") == 1


# -- item 14: a scores CSV whose key column is empty on every row --------------------------


@pytest.mark.parametrize("command", ["rank", "select"])
def test_scores_csv_with_an_empty_key_column(tmp_path, command):
    scores_csv(tmp_path / "s.csv")
    pd.read_csv(tmp_path / "s.csv").assign(model=np.nan).to_csv(tmp_path / "s.csv", index=False)
    extra = ["--baseline", "lr", "--rope", "0.01", "--dataset", "a"] if command == "select" else []
    proc = bc(command, "s.csv", "--metric", "accuracy", *extra, cwd=tmp_path)
    one_error(proc, "column 'model' is empty on 45 row(s) (rows [0, 1, 2, 3, 4]); give every row")


# -- item 11: the gate sees skipped models -----------------------------------------------


def test_gate_fails_on_skipped_models_unless_on_error_skip(work):
    (work / "models" / "broken.py").write_text("model = (\n")
    args = ("select", "models/", "--dataset", "breast_cancer", "--fail-unless", "keep", *FAST)
    proc = bc(*args, cwd=work)
    assert proc.returncode == 1, proc.stderr
    assert "skipped broken: models/broken.py: failed to import (SyntaxError" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == (
        "gate --fail-unless keep: FAILED (exit status 1): model(s) skipped (broken); fix them, "
        "or pass --on-error skip to accept a selection without them"
    )
    proc = bc(*args, "--on-error", "skip", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "gate --fail-unless keep: passed"


# -- item 16: MLflow configuration errors say what to install or set ------------------------


def test_mlflow_file_store_says_what_to_set(work):
    pytest.importorskip("mlflow")
    uri = (work / "mlruns").as_uri()
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_ALLOW_FILE_STORE"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bayescomp",
            "select",
            "models/",
            "--dataset",
            "breast_cancer",
            "--mlflow-model",
            "m",
            "--mlflow-uri",
            uri,
            *FAST,
        ],
        cwd=work,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    one_error(
        proc, f"the MLflow tracking URI {uri} is a file store", "MLFLOW_ALLOW_FILE_STORE=true"
    )


def test_mlflow_database_uri_with_mlflow_skinny_says_what_to_install():
    from bayescomp.integrations.mlflow_hints import configuration_hint

    try:  # what mlflow-skinny raises on a sqlite:// store: its SQLAlchemy is missing
        import bayescomp_test_no_such_module.sqlalchemy  # noqa: F401
    except ModuleNotFoundError as exc:
        exc.name = "sqlalchemy"
        missing = exc
    assert configuration_hint(missing, "sqlite:///mlflow.db") == (
        "the MLflow tracking URI sqlite:///mlflow.db needs sqlalchemy, which mlflow-skinny "
        "does not install: pip install mlflow (the full package), or use an http(s):// "
        "tracking server"
    )


# -- item 17: Ctrl-C during select --n-jobs 2 ------------------------------------------------

SLOW = """\
import time

from sklearn.linear_model import LogisticRegression


class Slow(LogisticRegression):
    def fit(self, X, y):
        time.sleep(0.5)
        return super().fit(X, y)


model = Slow(max_iter=500)
"""


@pytest.mark.slow  # about 20 s (the dataset, the loky workers, two fits before the signal)
def test_ctrl_c_exits_130_in_one_line_and_marks_the_run_interrupted(tmp_path):
    import signal
    import sqlite3
    import time

    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "lr.py").write_text(SLOW)
    (tmp_path / "models" / "prior.py").write_text(PRIOR)
    args = ["select", "models/", "--dataset", "breast_cancer", "--baseline", "lr", "--rope",
            "0.01", "--n-splits", "5", "--n-repeats", "4", "--n-jobs", "2", "--store",
            "s.sqlite", "--quiet"]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "bayescomp", *args], cwd=tmp_path, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        # as a terminal's foreground job: a process that inherits an ignored SIGINT (an
        # xdist worker's child, a job started with & by a script) never sees the Ctrl-C
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    store, deadline, fits = tmp_path / "s.sqlite", time.monotonic() + 240, 0
    while fits < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        try:
            with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as con:
                fits = con.execute("SELECT COUNT(*) FROM fits").fetchone()[0]
        except sqlite3.Error:
            fits = 0
    assert fits >= 2 and proc.poll() is None
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 130
    assert err.strip() == (
        "bayescomp select: interrupted (a --store keeps the fits already made: run the "
        "command again to resume)"
    )
    with sqlite3.connect(store) as con:
        assert con.execute("SELECT status FROM runs").fetchall() == [("interrupted",)]
    assert not (tmp_path / "s.sqlite.lock").exists()


# -- item 23: no lock file left after a clean exit ------------------------------------------


def test_no_lock_file_after_a_clean_run(work):
    proc = bc("select", "models/", "--dataset", "iris", "--store", "s.sqlite", *FAST, cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert (work / "s.sqlite").is_file() and not (work / "s.sqlite.lock").exists()


# -- item 23: --help shows defaults only where they mean something ---------------------------


def test_select_help_shows_no_none_defaults(tmp_path):
    proc = bc("select", "--help", cwd=tmp_path)
    assert proc.returncode == 0
    assert "default: None" not in proc.stdout and "default None" not in proc.stdout
    assert "(default: given)" in proc.stdout  # a meaningful default is still shown


def test_a_selection_without_a_challenger_is_refused_in_one_line(tmp_path):
    """A scores table holding only the baseline (before: "keep base: no challenger was
    better"), and a models folder whose only challenger fails to import (the import error)."""
    import bayescomp as bc

    f = pd.DataFrame({"model": "lr", "split": range(10), "accuracy": np.linspace(0.8, 0.82, 10)})
    with pytest.raises(ValueError, match="no challenger"):
        bc.select(bc.Scores.from_frame(f, test_fraction=0.1), baseline="lr", rope=0.01)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "base.py").write_text(
        "from sklearn.linear_model import LogisticRegression\nmodel = LogisticRegression()\n"
    )
    (tmp_path / "models" / "broken.py").write_text("import not_a_module_here\nmodel = None\n")
    proc = run_cli(
        "select",
        "models",
        "--dataset",
        "breast_cancer",
        "--baseline",
        "base",
        "--rope",
        "0.01",
        "--on-error",
        "skip",
        cwd=tmp_path,
    )
    err = one_error(proc, "no challenger")
    assert "not_a_module_here" in err
    f.assign(n_train=90, n_test=10).to_csv(tmp_path / "s.csv", index=False)
    one_error(
        run_cli("select", "s.csv", "--baseline", "lr", "--rope", "0.01", cwd=tmp_path),
        "only the baseline 'lr'",
        "no challenger",
    )


def test_data_with_two_columns_of_one_name_is_refused_naming_it(tmp_path):
    """``a,a,c,y``: pandas would rename the second ``a`` to ``a.1`` and fit on it silently."""
    (tmp_path / "d.csv").write_text(
        "a,a,c,y\n" + "".join(f"{i},{i % 3},{i % 5},{i % 2}\n" for i in range(40))
    )
    with pytest.raises(ValueError, match="two columns named 'a'"):
        read_table(tmp_path / "d.csv", target="y")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--n-splits", "50"], "50-fold cross-validation of 60 rows: --n-splits 50 cannot be"),
        (["--n-splits", "1"], "argument --n-splits: needs a whole number >= 2"),
        (["--n-repeats", "0"], "argument --n-repeats: needs a whole number >= 1"),
    ],
)
def test_design_errors_name_the_flag_and_the_design(tmp_path, flags, message):
    """No empty prefix (before: "error: : Cannot have number of splits ...") and no bare
    scikit-learn sentence without the flag (before: "Number of repetitions must be ...")."""
    table().to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "lr.py").write_text(
        "from sklearn.linear_model import LogisticRegression\nmodel = LogisticRegression()\n"
    )
    (tmp_path / "nb.py").write_text(
        "from sklearn.naive_bayes import GaussianNB\nmodel = GaussianNB()\n"
    )
    proc = run_cli(
        "select",
        "lr.py",
        "nb.py",
        "--data",
        "d.csv",
        "--target",
        "y",
        "--baseline",
        "lr",
        "--rope",
        "0.01",
        *flags,
        cwd=tmp_path,
    )
    err = one_error(proc, message)
    assert ": :" not in err


@pytest.mark.parametrize("command", ["select", "compare"])
def test_a_binary_auc_on_three_classes_is_refused_before_any_fit(work, command):
    """``--metric roc_auc`` on iris (three classes): one line naming the multiclass AUCs,
    the same from both commands (compare used to switch to roc_auc_ovr unasked, select
    failed every fit with scikit-learn's own message)."""
    models = [str(work / "models" / "lr.py"), str(work / "models" / "prior.py")]
    proc = bc(command, *models, "--dataset", "iris", "--metric", "roc_auc", *FAST, cwd=work)
    one_error(proc, "roc_auc compares two classes", "roc_auc_ovr", "roc_auc_ovo")


def test_cross_validate_paired_refuses_a_binary_auc_on_three_classes():
    from sklearn.datasets import load_iris
    from sklearn.dummy import DummyClassifier
    from sklearn.model_selection import KFold

    from bayescomp.scores.crossval import cross_validate_paired

    X, y = load_iris(return_X_y=True)
    models = {"a": DummyClassifier(), "b": DummyClassifier(strategy="uniform")}
    with pytest.raises(ValueError, match="roc_auc_ovr"):
        cross_validate_paired(models, X, y, cv=KFold(3), scoring="roc_auc", progress=False)
    kept = cross_validate_paired(models, X, y, cv=KFold(3), scoring="roc_auc_ovr", progress=False)
    assert kept.metrics == ["roc_auc_ovr"]
