"""A flag that names one output file refuses an existing directory (it used to exit 0 and
write ``DIR.png`` beside the directory)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import run_cli

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=cwd)


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    pd.DataFrame({"y": y, "p": np.clip(y * 0.3 + rng.random(200) * 0.7, 0, 1)}).to_csv(
        tmp_path / "preds.csv", index=False
    )
    n = 20
    pd.DataFrame(
        {
            "model": np.repeat(["a", "b"], n),
            "split": np.tile(np.arange(n), 2),
            "accuracy": rng.normal(0.8, 0.02, 2 * n),
            "n_train": 90,
            "n_test": 10,
        }
    ).to_csv(tmp_path / "scores.csv", index=False)
    (tmp_path / "out").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        [
            "compare",
            "scores.csv",
            "--baseline",
            "a",
            "--candidate",
            "b",
            "--rope",
            "0.01",
            "--plot",
            "out",
        ],
        [
            "compare",
            "scores.csv",
            "--baseline",
            "a",
            "--candidate",
            "b",
            "--rope",
            "0.01",
            "--save-scores",
            "out",
        ],
        ["interval", "preds.csv", "--y-true", "y", "--pred", "p", "--plot", "out"],
        ["interval", "preds.csv", "--y-true", "y", "--pred", "p", "--out", "out"],
        ["curves", "preds.csv", "--y-true", "y", "--score", "p", "--plot", "out"],
    ],
)
def test_a_directory_is_not_an_output_file(files, args):
    res = _run(args, files)
    flag = args[-2]
    assert res.returncode == 2, res.stderr
    assert f"argument {flag}: 'out' is a directory; give a file name inside it" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in files.iterdir()) == ["out", "preds.csv", "scores.csv"]
    assert not any((files / "out").iterdir())


def test_a_file_name_still_works(files):
    res = _run(
        [
            "compare",
            "scores.csv",
            "--baseline",
            "a",
            "--candidate",
            "b",
            "--rope",
            "0.01",
            "--plot",
            "out/post.png",
        ],
        files,
    )
    assert res.returncode == 0, res.stderr
    assert (files / "out" / "post.png").stat().st_size > 1000
