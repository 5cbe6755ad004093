"""Sphinx configuration: the user guide (docs/*.md), the API reference, the gallery.

Build (CI runs exactly this)::

    sphinx-build -W --keep-going -b html docs docs/_build/html

* A guide page is a markdown file in ``docs/`` listed in the ``toctree`` of ``index.md``.
* A figure is drawn by a script in ``docs/scripts/``: the build runs every script there
  (sphinx-gallery), each writes its figures to ``docs/img/`` (ignored by git) through
  ``docs/scripts/_docs.py``, and the pages show ``img/NAME.png``.
* The API reference lists every public name of ``bayescomp.__all__``; it is written at build
  time to ``docs/api/index.rst`` (ignored by git), so a new export appears without editing.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
sys.path.insert(0, str(REPO))  # document the checkout's bayescomp

import bayescomp  # noqa: E402

project = "bayescomp"
author = "the bayescomp developers"
copyright = "the bayescomp developers"
release = bayescomp.__version__  # one source: the package metadata (pyproject.toml)
version = release

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "img",
    "scripts",
    "gallery/*.ipynb",
    "**/*.md5",
    "**/*.py",
    "**/*.zip",
]
templates_path = ["_templates"]

# ---------------------------------------------------------------- markdown (the guide)
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# ---------------------------------------------------------------- API reference
autosummary_generate = True
autodoc_typehints = "none"  # numpydoc's Parameters section already gives the types
numpydoc_show_class_members = False  # the class template lists members with autodoc
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# where each stage of the flow lives, in the order of docs/architecture.md
_STAGES = {
    "splits": "Splits",
    "scores": "Scores",
    "metrics": "Metric uncertainty",
    "posterior": "Posteriors of a difference",
    "core": "Decisions, regions and errors",
    "decision": "Decisions over several comparisons",
    "studies": "Studies: selection, learning curves, the store",
}


def _api_page() -> str:
    """The API index: every name in ``bayescomp.__all__``, grouped by the stage defining it."""
    groups: dict[str, list[str]] = {stage: [] for stage in _STAGES}
    for name in bayescomp.__all__:
        if name == "__version__":
            continue
        stage = bayescomp._EXPORTS[name].split(".")[1]
        groups.setdefault(stage, []).append(name)
    lines = [
        "API reference",
        "=============",
        "",
        "Every public name of ``bayescomp`` (``import bayescomp as bc``), grouped by the "
        "stage of the flow that defines it (see :doc:`/architecture`).",
        "",
        ".. currentmodule:: bayescomp",
        "",
    ]
    for stage, names in groups.items():
        if not names:
            continue
        title = _STAGES.get(stage, stage)
        lines += [
            title,
            "-" * len(title),
            "",
            ".. autosummary::",
            "   :toctree: generated",
            "   :nosignatures:",
            "",
        ]
        lines += [f"   {name}" for name in sorted(names, key=str.lower)]
        lines.append("")
    return "\n".join(lines)


def _write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


_write_if_changed(DOCS / "api" / "index.rst", _api_page())

# ---------------------------------------------------------------- gallery (every figure)
IMG = DOCS / "img"
(IMG / "site").mkdir(parents=True, exist_ok=True)  # pages published beside the guide
sphinx_gallery_conf = {
    "examples_dirs": "scripts",
    "gallery_dirs": "gallery",
    "filename_pattern": r".*",  # run every script: each one draws figures of the guide
    "ignore_pattern": r"^(__init__|_.*)\.py$",  # _docs.py is a helper, not an example
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "show_memory": False,
    "show_signature": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "parallel": True,  # as many scripts at once as `sphinx-build -j N` gives (.ci/run: -j 2)
    # the figures the pages show live in docs/img/ (ignored by git): run every script again
    # when they are missing, although sphinx-gallery saw the script unchanged
    "run_stale_examples": not any(IMG.glob("*.png")),
}

# ---------------------------------------------------------------- HTML
html_theme = "pydata_sphinx_theme"
html_title = f"bayescomp {release}"
html_extra_path = ["img/site"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
