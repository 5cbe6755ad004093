"""Rich display in Jupyter: execute a real notebook (nbclient + ipykernel) and read its HTML."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

SETUP = """
import numpy as np, pandas as pd
import bayescomp as bc
from bayescomp.splits.repeats import default_cv
rng = np.random.default_rng(0)
a = rng.normal(0.80, 0.02, 20)
b = a + 0.012 + rng.normal(0, 0.01, 20)
f = pd.DataFrame({"model": np.repeat(["prod", "<script>alert(1)</script>"], 20),
                  "split": np.tile(range(20), 2), "acc": np.r_[a, b], "n_train": 90,
                  "n_test": 10})
scores = bc.Scores.from_frame(f, metrics=["acc"])
"""
CELLS = [
    SETUP,
    "sel = bc.select(scores, baseline='prod', metric='acc', rope=0.002,"
    " higher_is_better=True)\nsel",
    "bc.correlated_ttest(a, b, rho=0.1, rope=0.005)",
    "bc.bootstrap_metric(rng.integers(0, 2, 200), rng.random(200), metric='roc_auc',"
    " n_resamples=200, random_state=0)",
    "from sklearn.datasets import load_iris\nfrom sklearn.naive_bayes import GaussianNB\n"
    "from sklearn.tree import DecisionTreeClassifier\nX, y = load_iris(return_X_y=True)\n"
    "from bayescomp.splits.repeats import default_cv\n"
    "kw = dict(baseline='nb', scoring='accuracy', rope=0.01, cv=default_cv(y, n_splits=3, n_repeats=2))\n"
    "m = {'nb': GaussianNB(), 'tree': DecisionTreeClassifier(random_state=0)}\n"
    "_ = bc.select_models(m, X, y, progress=True, **kw)",
    "_ = bc.select_models(m, X, y, progress=False, **kw)",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    client = nbclient.NotebookClient(
        nb,
        timeout=240,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path_factory.mktemp("nb"))}},
    )
    client.execute()
    return nb


def _html(cell):
    return "".join(
        o["data"]["text/html"]
        for o in cell.outputs
        if o.get("output_type") == "execute_result" and "text/html" in o["data"]
    )


def test_selection_displays_escaped_html(executed):
    html = _html(executed.cells[1])
    assert "Recommendation: promote &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script" not in html  # a name from user data never becomes markup
    assert html.count('class="d-promote"') == 1
    assert re.search(r'<img alt="decision timeline" width="640" src="data:image/png;base64,', html)


def test_ttest_card_numbers_match_scipy(executed):
    html = _html(executed.cells[2])
    rng = np.random.default_rng(0)
    a = rng.normal(0.80, 0.02, 20)
    d = (a + 0.012 + rng.normal(0, 0.01, 20)) - a
    post = stats.t(19, loc=d.mean(), scale=np.sqrt(d.var(ddof=1) * (1 / 20 + 0.1 / 0.9)))
    assert f'<td>p_rope</td><td class="num">{post.cdf(0.005) - post.cdf(-0.005):.3f}</td>' in html
    assert f'<td>p_right</td><td class="num">{post.sf(0.005):.3f}</td>' in html
    assert 'decision: <span class="d-promote">promote</span> — ' in html
    assert "data:image/png;base64," in html


def test_metric_interval_card(executed):
    html = _html(executed.cells[3])
    assert "<h3>MetricInterval</h3>" in html and "95% CI [" in html and "(bca, n=200)" in html


def test_progress_bar_shows_in_the_kernel_and_not_when_disabled(executed):
    def bar_outputs(cell):
        return [
            o
            for o in cell.outputs
            if (
                o.get("output_type") == "stream"
                and o.get("name") == "stderr"
                and "fit" in o["text"]
            )
            or "application/vnd.jupyter.widget-view+json" in o.get("data", {})
        ]

    shown = bar_outputs(executed.cells[4])
    assert shown, executed.cells[4].outputs
    try:
        import ipywidgets  # noqa: F401  - tqdm's widget bar
    except ImportError:  # the text bar on stderr, over the 12 fits
        text = "".join(o.get("text", "") for o in shown)
        assert "select" in text and "/12" in text
    else:
        assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in shown)
    assert bar_outputs(executed.cells[5]) == []


NO_WIDGETS = [
    # a kernel without ipywidgets (as after `pip install bayescomp` alone): importing it fails
    "import sys\nsys.modules['ipywidgets'] = None\nimport warnings\n"
    "warnings.simplefilter('always')\nimport bayescomp as bc",
    CELLS[4],
    "import tqdm.notebook\nprint('IProgress', tqdm.notebook.IProgress)",
]


@pytest.fixture(scope="module")
def without_widgets(tmp_path_factory):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in NO_WIDGETS]
    client = nbclient.NotebookClient(
        nb,
        timeout=240,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path_factory.mktemp("nb"))}},
    )
    client.execute()
    return nb


def test_text_progress_bar_without_ipywidgets_and_no_warning(without_widgets):
    cells = without_widgets.cells
    assert "IProgress None" in "".join(o.get("text", "") for o in cells[2].outputs)
    outputs = cells[1].outputs
    stderr = "".join(o["text"] for o in outputs if o.get("name") == "stderr")
    # the text bar went over the 12 fits (2 models x 3 folds x 2 repeats), on stderr
    assert re.search(r"select: 100%\S* 12/12 \[", stderr), stderr
    assert "Warning" not in stderr and "IProgress not found" not in stderr
    assert not any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)


def test_scores_table_displays_its_means():
    namespace: dict = {}
    exec(SETUP, namespace)  # the notebook's own setup cell, run here
    html = namespace["scores"]._repr_html_()
    rng = np.random.default_rng(0)
    a = rng.normal(0.80, 0.02, 20)
    b = a + 0.012 + rng.normal(0, 0.01, 20)
    assert "<h3>Scores</h3>" in html and "1 dataset(s) × 2 model(s), 40 rows" in html
    assert f'<td class="num">{a.mean():.4f}</td>' in html  # independent: numpy's mean
    assert f'<td class="num">{b.mean():.4f}</td>' in html
    assert "&lt;script&gt;" in html and "<script" not in html
