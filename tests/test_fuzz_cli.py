"""Issue 12, the command line: whatever the input, ``bayescomp`` ends, with exit 0 or exactly
one line on stderr, never a traceback.  In-process runs (``main(argv)``) for speed, with a
time limit; a few subprocess runs with a timeout check the real entry point.

Run the big fuzz by hand: ``HYPOTHESIS_PROFILE=slow python -m pytest tests/test_fuzz_cli.py``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from fuzz_cases import (
    CORRUPTIONS,
    FILE_CASES,
    Case,
    cases,
    cli_argv,
    csv_bytes,
    run_cli,
    run_file_case,
    table,
)
from hypothesis import given
from hypothesis import strategies as st

# flags of the CSV commands and values to try on them (valid, invalid, hostile)
FLAG_VALUES = st.sampled_from(
    [
        "0.01",
        "-1",
        "nan",
        "inf",
        "1e308",
        "0",
        "abc",
        "",
        "$x^$",
        "<script>",
        "=1+1",
        "0.5",
        "1",
        "2",
        "-0",
        "1e-300",
    ]
)
FLAGS = st.sampled_from(
    [
        "--rope",
        "--gamma",
        "--metric",
        "--baseline",
        "--candidate",
        "--dataset",
        "--test-fraction",
        "--order",
        "--max-repeats",
        "--fail-unless",
        "--y-true",
        "--score",
        "--repetition",
        "--thresholds",
        "--pos-label",
        "--k",
        "--bogus",
    ]
)


@given(case=cases(), command=st.sampled_from(["select", "compare"]))
def test_generated_csv_files_end_with_a_result_or_one_clear_line(case, command, tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "scores.csv"
    path.write_bytes(csv_bytes(case, table(case)))
    outcome, _, err = run_cli(
        cli_argv(case, path, command, ["--quiet"]), case.must_refuse, names=case.models
    )
    assert outcome == ("clear error" if CORRUPTIONS[case.corruption] else "ok"), (case, err)


@given(
    command=st.sampled_from(["select", "compare", "interval", "curves", "unlabeled"]),
    pairs=st.lists(st.tuples(FLAGS, FLAG_VALUES), max_size=5),
)
def test_generated_argument_vectors_end_with_a_result_or_one_clear_line(
    command, pairs, tmp_path_factory
):
    folder = tmp_path_factory.mktemp("argv")
    case = Case(
        models=["base", "cand"],
        n=8,
        scale=1.0,
        corruption="none",
        encoding="utf-8",
        sep=",",
        seed=0,
    )
    scores = folder / "scores.csv"
    scores.write_bytes(csv_bytes(case, table(case)))
    argv = [command, str(scores)] + [x for pair in pairs for x in pair]
    outcome, _, err = run_cli(argv, must_refuse=False, names=case.models)
    assert outcome in ("ok", "clear error"), (argv, outcome, err)
    if outcome == "clear error":
        assert "Traceback" not in err and len(err.splitlines()) == 1


def test_save_scores_writes_names_exactly(tmp_path):
    """--save-scores is the interchange CSV: names are written exactly, formula-like ones
    too (issue 17: formula protection is for the spreadsheet-facing exports only)."""
    case = Case(
        models=["base", "=cmd|'/C calc'!A0", "+1+1", "-2", "@SUM(1)", "\tx"],
        n=6,
        scale=1.0,
        corruption="none",
        encoding="utf-8",
        sep=",",
        seed=3,
    )
    src, saved = tmp_path / "in.csv", tmp_path / "saved.csv"
    src.write_bytes(csv_bytes(case, table(case)))
    outcome, _, err = run_cli(
        [
            "compare",
            str(src),
            "--baseline",
            "base",
            "--metric",
            "score",
            "--rope",
            "0.01",
            "--save-scores",
            str(saved),
        ],
        False,
    )
    assert outcome == "ok", err
    import bayescomp as bc

    read = bc.Scores.read_csv(src).models  # the names exactly as the input file holds them
    cells = pd.read_csv(saved, dtype=str, keep_default_na=False)["model"]
    assert sorted(set(cells)) == sorted(read)
    assert bc.Scores.read_csv(saved).models == read


def test_curves_explain_their_nan_columns(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    pd.DataFrame(
        {
            "rep": np.repeat(range(4), n // 4),
            "y": rng.integers(0, 2, n),
            "s": rng.uniform(0, 0.8, n),
        }
    ).to_csv(tmp_path / "p.csv", index=False)
    outcome, out, _ = run_cli(
        ["curves", str(tmp_path / "p.csv"), "--y-true", "y", "--score", "s", "--repetition", "rep"],
        False,
    )
    assert outcome == "ok" and " NaN " in out  # NaN is printed, not silently ...
    notes = [ln for ln in out.splitlines() if ln.startswith("NaN: ")]
    # ... and explained: no score reaches 0.8, so precision is undefined from 0.8 to 1
    assert notes == [
        "NaN: precision at threshold(s) 0.8–1 is undefined in every repetition: "
        "no score reaches the threshold, so nothing is predicted positive "
        "(TP + FP = 0); precision_n_defined counts the repetitions where it is "
        "defined"
    ]


@pytest.mark.parametrize("corruption", ["latin1", "ragged_row", "duplicate_row", "none"])
def test_subprocess_entry_point_ends_with_one_line(tmp_path, corruption):
    case = Case(
        models=["base", "$x^$", "new\nline"],
        n=10,
        scale=1.0,
        corruption=corruption,
        encoding="utf-8",
        sep=";",
        seed=1,
    )
    path = tmp_path / "s.csv"
    path.write_bytes(csv_bytes(case, table(case)))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bayescomp",
            "select",
            str(path),
            "--baseline",
            "base",
            "--metric",
            "score",
            "--rope",
            "0.01",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in proc.stderr
    if case.must_refuse:
        assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    else:
        assert proc.returncode == 0 and "recommendation:" in proc.stdout, proc.stderr
        assert "new\\nline" in proc.stdout  # one name, one line


def test_usage_errors_are_one_line(capsys):
    from bayescomp.cli.main import main

    with pytest.raises(SystemExit) as exc:
        main(["select", "x.csv"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.splitlines() == [
        "bayescomp select: error: the following arguments are required: "
        "--rope, --baseline (see bayescomp select --help)"
    ]
    with pytest.raises(SystemExit):
        main(["select", "x.csv", "--baseline", "-lr", "--rope", "0.01"])
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "bayescomp select: error: argument --baseline: expected one "
        "argument; a value starting with '-' is written with '=', e.g. "
        "--baseline=-2 (see bayescomp select --help)"
    ]


@pytest.mark.parametrize("name", list(FILE_CASES))
def test_audited_command_lines_refuse_clearly_or_answer_correctly(name, tmp_path):
    outcome, detail = run_file_case(name, tmp_path)
    assert outcome == ("clear error" if FILE_CASES[name][1] else "ok"), (name, detail)
