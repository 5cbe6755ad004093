"""Hostile model names are shown literally and are harmless: in the terminal, the plots, the
HTML report (rendered in headless Chromium: no script runs) and the CSV files."""

from __future__ import annotations

import html
import importlib
import inspect
import re
import shutil
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from fuzz_cases import run_cli
from processes import run

import bayescomp.report

PWN = "document.body.setAttribute('data-pwned','1')"
NAMES = [
    "base",
    "$x^$",
    r"$\frac$",
    f"<script>{PWN}</script>",
    f'<img src=x onerror="{PWN}">',
    "\"dq\" and 'sq'",
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2",
    "@SUM(1)",
    "forêt 森",
    "two\nlines",
]


@pytest.fixture(scope="module")
def hostile_csv(tmp_path_factory):
    rng = np.random.default_rng(4)
    n = 12
    base = rng.normal(0.8, 0.02, n)
    rows = [
        {
            "model": m,
            "split": s,
            "accuracy": base[s] + 0.003 * i + rng.normal(0, 0.01),
            "n_train": 90,
            "n_test": 10,
        }
        for i, m in enumerate(NAMES)
        for s in range(n)
    ]
    path = tmp_path_factory.mktemp("hostile") / "scores.csv"
    import bayescomp as bc

    bc.Scores.from_frame(pd.DataFrame(rows)).to_csv(path)
    return path


@pytest.fixture(scope="module")
def report(hostile_csv, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    outcome, stdout, err = run_cli(
        [
            "select",
            str(hostile_csv),
            "--baseline",
            "base",
            "--metric",
            "accuracy",
            "--rope",
            "0.01",
            "--report",
            str(out),
            "--quiet",
        ],
        False,
        seconds=300,
        names=NAMES,
    )
    assert outcome == "ok", err
    return out / "report.html", stdout


def test_select_terminal_output_shows_every_name_on_its_own_line(report):
    _, stdout = report
    assert "two\\nlines" in stdout and "two\nlines" not in stdout
    for name in NAMES[1:-1]:
        assert name in stdout


def test_compare_table_keeps_a_name_with_a_newline_on_its_row(hostile_csv):
    argv = ["compare", str(hostile_csv), "--baseline", "base", "--metric", "accuracy"]
    argv += ["--candidate", "two\nlines", "--candidate", "-2", "--rope", "0.01"]
    outcome, stdout, err = run_cli(argv, False, names=NAMES)
    assert outcome == "ok", err
    lines = stdout.splitlines()
    rule = next(i for i, line in enumerate(lines) if set(line) == {"-"})
    # the header, its rule, then one row per candidate in the order given, then a blank line
    assert [line.split()[0] for line in lines[rule + 1 : rule + 3]] == ["two\\nlines", "-2"]
    assert lines[rule + 3] == ""


def test_report_html_escapes_every_name(report):
    page = report[0].read_text()
    assert "<script>" not in page and "<img src=x" not in page
    from markupsafe import escape  # jinja2's autoescape: ' is &#39; where html.escape has &#x27;

    for name in NAMES:
        forms = {html.escape(name), str(escape(name))}
        assert any(f in page or f.replace("\n", " ") in page for f in forms), name


def test_compare_plots_draw_names_literally(hostile_csv, tmp_path):
    outcome, _, err = run_cli(
        [
            "compare",
            str(hostile_csv),
            "--baseline",
            "base",
            "--metric",
            "accuracy",
            "--rope",
            "0.01",
            "--plots",
            str(tmp_path),
        ],
        False,
        seconds=300,
        names=NAMES,
    )
    assert outcome == "ok", err
    assert len(list(tmp_path.glob("*.png"))) >= len(NAMES) - 1


def test_plot_text_is_not_mathtext():
    import matplotlib.pyplot as plt

    import bayescomp as bc

    rng = np.random.default_rng(0)
    b = rng.normal(0.8, 0.02, 10)
    res = bc.correlated_ttest(
        b,
        b + 0.01 + rng.normal(0, 0.01, 10),
        rho=0.1,
        rope=0.01,
        baseline_name="$a$",
        candidate_name="$x^$",
    )
    ax = res.plot()
    ax.figure.canvas.draw()  # would raise on '$x^$' as mathtext
    title = ax.get_title()
    assert "$x^$" in title and not ax.title.get_parse_math()
    plt.close(ax.figure)


def test_every_public_plot_function_draws_literal_text():
    """New plot functions must be wrapped too (report/_literal.py)."""
    missing = []
    for info in __import__("pkgutil").iter_modules(bayescomp.report.__path__):
        module = importlib.import_module(f"bayescomp.report.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if (
                name.startswith("plot_")
                and fn.__module__ == module.__name__
                and not getattr(fn, "__literal_text__", False)
            ):
                missing.append(f"{module.__name__}.{name}")
    assert not missing, f"wrap these in @literal_text: {missing}"


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.chunks, self.attrs = [], []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self.attrs.append((tag, dict(attrs)))
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style") and self._skip > 0

    def handle_data(self, data):
        if not self._skip:
            self.chunks.append(data)


@pytest.mark.browser
def test_report_renders_in_chromium_with_no_script_and_names_literal(report, tmp_path):
    binary = (
        shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("google-chrome")
    )
    if binary is None:
        pytest.skip("no chromium binary found")
    path, _ = report
    cmd = [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--virtual-time-budget=3000",
        "--dump-dom",
        path.resolve().as_uri(),
    ]
    proc = run(cmd, timeout=120)  # the browser and its helpers die with this test
    dom = proc.stdout
    assert "<body" in dom, proc.stderr[-2000:]
    parser = _Text()
    parser.feed(dom)
    body = [a for tag, a in parser.attrs if tag == "body"]
    assert body and "data-pwned" not in body[0]  # neither <script> nor onerror ran
    assert not [a for tag, a in parser.attrs if tag == "script"]  # no script element at all
    text = re.sub(r"\s+", " ", "".join(parser.chunks))
    for name in NAMES:  # shown literally (the browser folds a newline into a space)
        assert re.sub(r"\s+", " ", name) in text, name


#: names that are Markdown or GitHub markup: each must stay inert text in a comment
MARKDOWN_NAMES = [
    "base",
    "@octocat <!--",
    "<details>",
    "<!-- bayescomp -->",
    "[x](https://example.com)",
    "![i](https://example.com/i.png)",
    "# heading",
    "*em* __strong__",
    "a `tick` b",
    "p|i|p",
    "two\nlines",
    "#12 and www.example.com",
    "L" * 10_000,
]


def _markdown_inline_kinds(text):
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    kinds = []
    for tok in md.parse(text):
        kinds.append(tok.type)
        kinds += [c.type for c in tok.children or []]
    return kinds, md.parse(text)


@pytest.mark.parametrize("command", ["select", "compare"])
def test_markdown_comment_keeps_every_name_inert(tmp_path, command):
    """The pull-request comment, parsed by markdown-it-py: no element a name could open (HTML,
    link, image, heading, emphasis, code), one table row per model, one marker, no mention."""
    rng = np.random.default_rng(5)
    base = rng.normal(0.8, 0.02, 20)
    rows = [
        {"model": m, "split": s, "accuracy": base[s] + 0.002 * i + rng.normal(0, 0.01)}
        | {"n_train": 90, "n_test": 10}
        for i, m in enumerate(MARKDOWN_NAMES)
        for s in range(20)  # more splits than challengers
    ]
    import bayescomp as bc

    path = tmp_path / "s.csv"
    bc.Scores.from_frame(pd.DataFrame(rows)).to_csv(path)
    out = tmp_path / "c.md"
    argv = [command, str(path), "--baseline", "base", "--metric", "accuracy", "--rope", "0.01"]
    outcome, _, err = run_cli(
        [*argv, "--comment-file", str(out), "--quiet"], False, seconds=300, names=MARKDOWN_NAMES
    )
    assert outcome == "ok", err
    text = out.read_text()
    kinds, tokens = _markdown_inline_kinds(text)
    assert text.count("<!-- bayescomp -->") == 1 and text.startswith("<!-- bayescomp -->")
    for kind in ("link_open", "image", "code_inline", "em_open"):
        assert kind not in kinds, kind
    html_tokens = [t.content.strip() for t in tokens if t.type in ("html_block", "html_inline")]
    ours = {"<!-- bayescomp -->", "<details><summary>why</summary>", "</details>"}
    assert set(html_tokens) <= ours, html_tokens
    headings = [t for t in tokens if t.type == "heading_open"]
    assert len(headings) == 1  # the comment's own title
    table_rows = [t for t in tokens if t.type == "tr_open"]
    assert len(table_rows) == len(MARKDOWN_NAMES)  # the header, a row per challenger
    assert re.search(r"@\w", text) is None and re.search(r"#\d", text) is None
    assert len(text) < 65_536  # GitHub's limit on a comment
