"""``--help`` with the essential flags first, the HTML report's layout
and what it was run on, and the tables of ``compare --predictions`` and ``rank``."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import processes
import pytest

from bayescomp.cli.main import main
from bayescomp.core.regions import format_probability


def run(capsys, *argv: str) -> str:
    code = main(list(argv))
    out = capsys.readouterr().out
    assert code == 0, out
    return out


# -- compare --predictions: the column is the posterior mean, not "mean diff" ----------------


def test_predictions_table_names_the_posterior_mean(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    old = np.where(rng.random(300) < 0.70, y, 1 - y)
    new = np.where(rng.random(300) < 0.78, y, 1 - y)
    pd.DataFrame({"y_true": y, "old": old, "new": new}).to_csv(tmp_path / "p.csv", index=False)
    monkeypatch.chdir(tmp_path)
    args = ["compare", "--predictions", "p.csv", "--baseline", "old", "--metric", "accuracy"]
    args += ["--rope", "0.01"]
    record = json.loads(run(capsys, *args, "--json"))[0]
    text = run(capsys, *args).splitlines()
    head = text[2].split()
    assert head[:4] == ["candidate", "accuracy", "posterior", "mean"] and "diff" not in head
    row = text[4].split()
    assert row[0] == "new" and row[2] == f"{record['mean']:+.4f}" == "+0.0032"
    assert f"{record['estimate']:+.4f}" == "+0.0033"  # not the observed difference


# -- rank: a probability never rounds across gamma beside an undecided pair -------------------


def _rank_scores(path, shift: float) -> None:
    rng = np.random.default_rng(0)
    a = 0.8 + rng.normal(0, 0.01, 20)
    noise = rng.normal(0, 0.01, 20)
    rows = []
    for model, values in (("a", a), ("b", a + noise - noise.mean() + shift)):
        rows += [
            {"dataset": "d", "model": model, "split": i, "n_train": 90, "n_test": 10, "accuracy": v}
            for i, v in enumerate(values)
        ]
    pd.DataFrame(rows).to_csv(path, index=False)


def test_rank_pairwise_table_does_not_round_a_probability_across_gamma(tmp_path, capsys):
    from bayescomp.decision.ranking import rank
    from bayescomp.scores.table import Scores

    path = tmp_path / "s.csv"

    def p_better(shift: float) -> float:
        _rank_scores(path, shift)
        t = rank(Scores.read_csv(path), metric="accuracy", method="pairwise").summary(0.95)
        return float(t[(t.model == "b") & (t.versus == "a")].p_better.iloc[0])

    lo, hi = 0.0, 0.02  # the shift giving P(b better) just under 0.95
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if p_better(mid) < 0.94997 else (lo, mid)
    p = p_better(lo)
    assert 0.9495 <= p < 0.95
    rows = json.loads(run(capsys, "rank", str(path), "--json"))["rows"]
    pair = next(r for r in rows if (r["model"], r["versus"]) == ("b", "a"))
    assert pair["p_better"] == pytest.approx(p) and pair["decision"] == "inconclusive"
    text = run(capsys, "rank", str(path))
    line = next(s for s in text.splitlines() if re.match(r"\s*b\s+\S+\s+a\s", s))
    assert line.split()[3] == format_probability(p, 0.95) == f"{p:.5f}"
    assert "0.950 " not in line


# -- the HTML report at 1280 px: nothing wider than the window, titles inside their figure -----


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    import warnings

    from selection_data import write_selection_scores

    import bayescomp as bc

    folder = tmp_path_factory.mktemp("report")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = bc.select(
            write_selection_scores(folder / "scores.csv", last="svm"),
            baseline="logreg",
            metric="accuracy",
            rope=0.01,
            rule="champion_challenger",
        )
    return sel, sel.report(folder / "out")


def test_every_report_table_scrolls_inside_the_page(report):
    html = report[1].read_text()
    assert html.count("<table>") == html.count('<div class="wide"><table>') == 6
    assert ".bc .wide{max-width:100%;overflow-x:auto}" in html


def _inside(text, figure) -> bool:
    box = text.get_window_extent()
    return box.x0 >= 0 and box.x1 <= figure.bbox.width


@pytest.mark.parametrize("name", ["forest", "gradient_boosting_with_tuned_depth"])
def test_posterior_title_and_hdi_label_fit_and_leave_the_zero_line_free(name):
    import bayescomp as bc

    rng = np.random.default_rng(3)
    a = rng.normal(0.8, 0.02, 30)
    b = a + 0.004 + rng.normal(0, 0.01, 30)  # the 95% HDI [-0.0047, +0.0111] holds 0
    res = bc.correlated_ttest(a, b, rho=0.1, rope=0.01, baseline_name="lr", candidate_name=name)
    ax = res.plot()
    ax.figure.canvas.draw()
    assert _inside(ax.title, ax.figure)
    assert ax.get_title().count("\n") == (1 if name == "forest" else 3)
    (label,) = [t for t in ax.texts if "HDI" in t.get_text()]
    assert label.get_text() == "95% HDI [-0.004747, +0.01105]"
    box, zero = label.get_window_extent(), ax.transData.transform((0, 0))[0]
    assert not box.x0 <= zero <= box.x1  # the dashed zero line does not cross the label
    bar = ax.transData.transform((0, 1.08 * ax.get_ylim()[1] / 1.3))[1]  # y of the bar
    assert box.y0 > bar  # above the HDI bar, not on it


def _browser() -> str | None:
    import shutil

    names = ("chromium", "chromium-browser", "google-chrome", "chromium-headless-shell")
    return next((b for b in map(shutil.which, names) if b), None)


#: appended to a copy of the report (which has no script): its geometry, read by --dump-dom
GEOMETRY = """<script>window.addEventListener('load', () => {
const d = document.documentElement, imgs = [...document.images];
document.body.setAttribute('data-geometry', JSON.stringify({scroll: d.scrollWidth,
 client: d.clientWidth, right: Math.max(...imgs.map(i => i.getBoundingClientRect().right)),
 timeline: imgs[0].width, natural: imgs[0].naturalWidth}));});</script></body>"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 1400, 800])
def test_report_is_no_wider_than_the_window(report, tmp_path, width):
    import html

    binary = _browser()
    if binary is None:
        pytest.skip("no chromium binary found")
    page = tmp_path / "geometry.html"
    page.write_text(report[1].read_text().replace("</body>", GEOMETRY))
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    cmd += [f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000"]
    cmd += [f"--window-size={width},900", "--dump-dom", page.resolve().as_uri()]
    proc = processes.run(cmd, timeout=120)  # the browser and its helpers die with this test
    found = re.search(r'data-geometry="([^"]+)"', proc.stdout)
    assert found, proc.stderr[-2000:]
    geometry = json.loads(html.unescape(found.group(1)))
    assert geometry["scroll"] == geometry["client"] <= width  # no horizontal scroll bar
    assert geometry["right"] <= geometry["client"]  # every image inside the window
    assert geometry["natural"] == 1100  # the timeline is shown whole, or scaled to fit:
    assert geometry["timeline"] == (1100 if width > 1200 else geometry["client"] - 64)


# -- the report and selection.json say what the selection ran on -------------------------------

LR = "from sklearn.linear_model import LogisticRegression\n\nmodel = LogisticRegression()\n"
PRIOR = "from sklearn.dummy import DummyClassifier\n\nmodel = DummyClassifier()\n"
FAST = ["--baseline", "lr", "--rope", "0.01", "--n-splits", "3", "--n-repeats", "1", "--quiet"]


def test_report_and_json_name_the_data_file_and_its_columns(tmp_path, monkeypatch, capsys):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "lr.py").write_text(LR)
    (tmp_path / "models" / "prior.py").write_text(PRIOR)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=90), "day": np.arange(90), "id": np.arange(90)})
    frame["y"] = (frame["x"] + rng.normal(size=90) > 0).astype(int)
    frame.to_csv(tmp_path / "t.csv", index=False)
    monkeypatch.chdir(tmp_path)
    args = ["select", "models", "--data", "t.csv", "--target", "y", "--time", "day"]
    out = json.loads(run(capsys, *args, "--drop", "id", *FAST, "--report", "r", "--json"))
    want = {"path": "t.csv", "target": "y", "groups": None, "time": "day", "drop": ["id"]}
    assert out["settings"]["data"] == want
    assert json.loads((tmp_path / "r" / "selection.json").read_text())["settings"]["data"] == want
    html = (tmp_path / "r" / "report.html").read_text()
    assert "· data t.csv; target y; time day; drop id ·" in html
    out = json.loads(run(capsys, "select", "models", "--dataset", "iris", *FAST, "--json"))
    assert out["settings"]["data"] == {"dataset": "iris"}


# -- --help: the essential flags first; a default shown only where it means something ---------

ESSENTIAL = {
    "select": [
        "source",
        "--data",
        "--dataset",
        "--target",
        "--baseline",
        "--metric",
        "--rope",
        "--gamma",
        "--fail-unless",
        "--store",
        "--report",
    ],
    "compare": [
        "INPUT",
        "--data",
        "--dataset",
        "--target",
        "--baseline",
        "--candidate",
        "--metric",
        "--rope",
        "--gamma",
        "--fail-unless",
    ],
}


def _help(capsys, command: str) -> list[str]:
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("command", ["select", "compare"])
def test_help_shows_the_essential_flags_first(capsys, command):
    lines = _help(capsys, command)
    flags = [m.group(1) for m in (re.match(r"  (-[-\w]+|\w+)", s) for s in lines) if m]
    essential = ESSENTIAL[command]
    assert flags[: len(essential) + 1] == ["-h", *essential]  # the group "essential", in order
    assert lines.index("essential:") < 10 and len(lines[0]) < 110
    last = max(i for i, s in enumerate(lines) if re.match(rf"  {essential[-1]}\b", s))
    assert last < 36  # every essential flag on the first screen of the help
    titles = [s for s in lines if s and not s.startswith(" ") and s.endswith(":")]
    assert titles[:6] == [
        "essential:",
        "your own data (CSV, .csv.gz, Parquet or Feather):",
        "the cross-validation design:",
        "the decision:",
        "output:",
        "MCMC (models across datasets):",
    ]


@pytest.mark.parametrize(
    "command", ["compare", "select", "rank", "interval", "curves", "unlabeled"]
)
def test_no_command_help_shows_a_meaningless_default(capsys, command):
    text = " ".join(" ".join(_help(capsys, command)).split())
    assert "default: None" not in text and "default: False" not in text
    assert "default: True" not in text and "default: []" not in text
    shown = {"compare": "(default: auto)", "select": "(default: given)", "rank": "(default: 0.0)"}
    if command in shown:  # a default that means something is still said
        assert shown[command] in text


# -- one posterior plot: every posterior of a difference drawn alike ----------------------


def _posterior(kind: str):
    import warnings
    from pathlib import Path

    import bayescomp as bc
    from bayescomp.posterior.time_ordered import time_ordered_test

    rng = np.random.default_rng(5)
    a = rng.normal(0.8, 0.02, 30)
    if kind == "ttest":
        return bc.correlated_ttest(a, a + rng.normal(0.004, 0.01, 30), rho=0.1, rope=0.005)
    if kind == "time_ordered":
        return time_ordered_test(a, a + rng.normal(0.004, 0.01, 30), rope=0.005)
    if kind == "hierarchical":
        return bc.load(Path(__file__).parent / "data" / "hierarchical_result_v0_1_0.nc")
    if kind == "point_mass":  # the same squared errors on every item
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bc.holdout_posterior(None, a, a.copy(), metric="mse", rope=0.01)
    y = rng.integers(0, 2, 400)
    base = np.where(rng.random(400) < 0.8, y, 1 - y)
    cand = np.where(rng.random(400) < 0.83, y, 1 - y)
    return bc.holdout_posterior(y, base, cand, rope=0.01, random_state=0)


@pytest.mark.parametrize("kind", ["ttest", "holdout", "time_ordered", "hierarchical"])
def test_every_posterior_plot_draws_its_density_rope_band_hdi_and_regions(kind):
    res = _posterior(kind)
    ax = res.plot()
    rope = float(res.rope)
    x, dens = (np.asarray(v, dtype=float) for v in ax.get_lines()[0].get_data())
    # the curve is the posterior's density: by the trapezoid rule its mass beyond each ROPE
    # edge is the region probability the result computes its own way (cdf, draws)
    mass = (dens[1:] + dens[:-1]) / 2 * np.diff(x)
    mid = (x[1:] + x[:-1]) / 2
    assert mass.sum() == pytest.approx(1.0, abs=0.02)
    assert mass[mid > rope].sum() == pytest.approx(res.p_right, abs=0.02)
    assert mass[mid < -rope].sum() == pytest.approx(res.p_left, abs=0.02)
    (label,) = [t for t in ax.texts if "HDI" in t.get_text()]
    lo, hi = res.hdi(0.95)
    assert label.get_text() == f"95% HDI [{lo:+.4g}, {hi:+.4g}]"
    (band,) = ax.patches  # the ROPE band
    assert band.get_x() == pytest.approx(-rope) and band.get_width() == pytest.approx(2 * rope)
    assert f"P(inside the ROPE) = {res.p_rope:.3f}" in ax.get_title()
    assert f"ROPE ±{rope:g}" in ax.get_xlabel()


def test_a_point_mass_posterior_is_drawn_as_a_line_with_its_rope():
    res = _posterior("point_mass")
    ax = res.plot()
    (line,) = [ln for ln in ax.get_lines() if "point mass" in str(ln.get_label())]
    assert line.get_xdata()[0] == 0.0 and res.p_rope == 1.0
    lo, hi = ax.get_xlim()
    assert lo < -0.01 and hi > 0.01  # the ROPE is in view
