"""Selection report (HTML + PNG + JSON), its rendering in headless Chromium, and the CLI."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess

import pytest
from selection_data import write_selection_scores

import bayescomp as bc
from bayescomp.cli.main import main
from bayescomp.splits.repeats import default_cv


@pytest.fixture(scope="module")
def scores_csv(tmp_path_factory):
    # steps: forest promote, knn worse, svm inconclusive
    return write_selection_scores(tmp_path_factory.mktemp("csv") / "scores.csv", last="svm")


@pytest.fixture(scope="module")
def report_dir(scores_csv, tmp_path_factory):
    sel = bc.select(
        scores_csv, baseline="logreg", rope=0.01, rule="champion_challenger", metric="accuracy"
    )
    out = tmp_path_factory.mktemp("report")
    path = sel.report(out)
    return sel, out, path


def test_report_files_and_json(report_dir):
    sel, out, path = report_dir
    assert sel.steps["decision"].tolist() == ["promote", "worse", "inconclusive"]
    assert path == out / "report.html"
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == [
        "step_01_posterior.png",
        "step_01_scores.png",
        "step_02_posterior.png",
        "step_02_scores.png",
        "step_03_posterior.png",
        "step_03_scores.png",
        "timeline.png",
    ]
    record = json.loads((out / "selection.json").read_text())
    assert record["champion"] == "forest"
    assert [s["decision"] for s in record["steps"]] == ["promote", "worse", "inconclusive"]
    assert [s["champion"] for s in record["steps"]] == ["logreg", "forest", "forest"]
    step2 = record["steps"][1]["paired_scores"]
    frame = sel.scores.to_frame()
    knn = frame[frame["model"] == "knn"].sort_values("split")["accuracy"].to_numpy()
    assert [r["challenger"] for r in step2] == pytest.approx(knn.tolist())
    assert record["recommendation"]["action"] == "promote"
    assert record["recommendation"]["risk"] == pytest.approx(
        bc.compare(sel.scores, "logreg", "forest", metric="accuracy", rope=0.01).p_worse
    )
    assert record["timeline"][1]["champion"] == "forest"


def test_report_html_is_self_contained(report_dir):
    _, out, path = report_dir
    text = path.read_text()
    imgs = re.findall(r'<img [^>]*src="([^"]+)"', text)
    assert len(imgs) == 7 and all(s.startswith("data:image/png;base64,") for s in imgs)
    # the embedded images are the PNG files written next to it
    first = base64.b64decode(imgs[0].split(",", 1)[1])
    assert first == (out / "timeline.png").read_bytes()
    assert "http://" not in text and "https://" not in text and "<script" not in text
    assert "Recommendation: promote forest" in text
    assert text.count("per-split paired scores") == 3


@pytest.mark.browser
def test_report_renders_in_headless_chromium(report_dir, tmp_path):
    binary = (
        shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("google-chrome")
    )
    if binary is None:
        pytest.skip("no chromium binary found")
    _, _, path = report_dir
    shot = tmp_path / "report.png"
    cmd = [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={shot}",
        "--window-size=1200,1600",
        path.resolve().as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert shot.exists(), proc.stderr[-2000:]
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)
    assert img.shape[:2] == (1600, 1200)
    rgb = img[..., :3]
    # not a blank page: text, tables and the embedded plots give many distinct colours,
    # including the green of the promote box and dark text
    assert rgb.std() > 0.05
    assert (rgb.sum(axis=-1) < 0.6).mean() > 0.001  # dark text pixels
    green = (rgb[..., 1] > rgb[..., 0] + 0.15) & (rgb[..., 1] > rgb[..., 2] + 0.05)
    assert green.mean() > 0.0005


def test_cli_on_scores_csv_human_and_json(scores_csv, tmp_path, capsys):
    rc = main(
        [
            "select",
            str(scores_csv),
            "--baseline",
            "logreg",
            "--metric",
            "accuracy",
            "--rope",
            "0.01",
            "--report",
            str(tmp_path / "rep"),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0
    assert "recommendation: promote forest" in out and "step" in out and "why:" in out
    assert (tmp_path / "rep" / "report.html").exists()
    rc = main(
        [
            "select",
            str(scores_csv),
            "--baseline",
            "logreg",
            "--rope",
            "0.01",
            "--json",
            "--order",
            "name",
        ]
    )
    record = json.loads(capsys.readouterr().out)
    assert rc == 0 and [s["challenger"] for s in record["steps"]] == ["forest", "knn", "svm"]
    rc = main(["select", str(scores_csv), "--baseline", "nope", "--rope", "0.01"])
    err = capsys.readouterr().err
    assert rc == 2 and "baseline 'nope'" in err and "Traceback" not in err


def test_cli_fits_models_with_quiet_and_on_error(tmp_path, capsys):
    models = tmp_path / "models"
    models.mkdir()
    (models / "nb.py").write_text(
        '"""NB."""\nfrom sklearn.naive_bayes import GaussianNB\nmodel = GaussianNB()\n'
    )
    (models / "lr.py").write_text(
        '"""LR."""\nfrom sklearn.linear_model import LogisticRegression'
        "\nmodel = LogisticRegression(max_iter=5000)\n"
    )
    (models / "zz_broken.py").write_text("raise ImportError('missing dependency')\n")
    args = [
        "select",
        str(models),
        "--dataset",
        "breast_cancer",
        "--baseline",
        "nb",
        "--rope",
        "0.005",
        "--n-splits",
        "3",
        "--n-repeats",
        "1",
        "--quiet",
    ]
    assert main(args) == 0
    cap = capsys.readouterr()
    assert "warning: skipped model file" in cap.err and "zz_broken.py" in cap.err
    assert "lr" in cap.out and "roc_auc" in cap.out  # default metric for two classes
    assert main([*args, "--on-error", "raise"]) == 2
    err = capsys.readouterr().err
    assert "zz_broken.py" in err and "missing dependency" in err and "Traceback" not in err
    assert main(["select", str(models), "--baseline", "nb", "--rope", "0.01"]) == 2
    assert "--dataset" in capsys.readouterr().err


class _FakeTTY:
    def __init__(self):
        self.parts: list[str] = []

    def write(self, s):
        self.parts.append(s)
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal(monkeypatch, capsys):
    from sklearn.datasets import load_iris
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True)
    models = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
    kw = dict(
        baseline="nb", scoring="accuracy", rope=0.01, cv=default_cv(y, n_splits=3, n_repeats=2)
    )
    bc.select_models(models, X, y, **kw)  # stderr captured by pytest: not a terminal, silent
    assert capsys.readouterr().err == ""
    fake = _FakeTTY()
    monkeypatch.setattr("sys.stderr", fake)
    bc.select_models(models, X, y, progress=False, **kw)
    assert fake.parts == []
    bc.select_models(models, X, y, progress=True, **kw)
    text = "".join(fake.parts)
    assert "select" in text and "/12" in text and " split " in text  # one bar over 12 fits


def test_a_predictions_selection_report_names_items_and_stays_small(tmp_path):
    """6,000 items are "items", not "splits", and the report lists the first 200 (before:
    every one, 1.9 MB); selection.json keeps them all."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 6000
    t = pd.DataFrame({"y_true": rng.integers(0, 2, n)})
    for m, acc in (("a", 0.8), ("b", 0.83)):
        t[m] = np.where(rng.random(n) < acc, t["y_true"], 1 - t["y_true"])
    sel = bc.select(t, baseline="a", rope=0.01)
    sel.report(tmp_path)
    page = (tmp_path / "report.html").read_text()
    assert "per-item paired scores (6000 items; the first 200 here" in page
    assert len(page) < 600_000
    steps = json.loads((tmp_path / "selection.json").read_text())["steps"]
    assert len(steps[0]["paired_scores"]) == n
