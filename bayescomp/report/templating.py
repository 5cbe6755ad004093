"""The one jinja2 template set (autoescaped) behind the HTML report and the notebook displays.

Templates live in ``bayescomp/report/templates/`` (package data): ``report.html.j2`` (the
selection report), ``card.html.j2`` and ``selection_card.html.j2`` (``_repr_html_`` of the
results), the shared macros ``_macros.html.j2`` and ``style.css``.  Autoescaping is on, so
every name that comes from user data (models, metrics, datasets, reasons) is escaped.
"""

from __future__ import annotations

import base64
import io
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any


def figure_of(drawn: Any) -> Any:
    """The figure of what a plot method returned: an Axes, a Figure or an array of Axes."""
    import numpy as np

    return np.ravel(np.asarray(drawn, dtype=object))[0].figure


def num(v: Any, spec: str = ".3f") -> Any:
    """Format a number for a table cell (``—`` for missing or NaN); other values unchanged.

    Examples
    --------
    >>> num(0.12345), num(float("nan")), num(None), num("lr"), num(3)
    ('0.123', '—', '—', 'lr', 3)
    """
    if v is None:
        return "—"
    if isinstance(v, float):
        return "—" if v != v else format(v, spec)
    return v


@cache
def environment() -> Any:
    """The jinja2 environment over the package's templates (autoescape on)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("bayescomp.report", "templates"),
        autoescape=True,
        trim_blocks=False,
        lstrip_blocks=False,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = num
    return env


@cache
def css() -> str:
    return resources.files("bayescomp.report").joinpath("templates/style.css").read_text()


def render(name: str, **context: Any) -> str:
    """Render template ``name`` with ``context`` (the shared style sheet as ``css``)."""
    return environment().get_template(name).render(css=css(), **context)


def png_b64(fig: Any, path: Path | None = None, dpi: int = 100) -> str:
    """A figure as base64 PNG (also written to ``path`` when given); the figure is closed."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    plt.close(fig)
    data = buf.getvalue()
    if path is not None:
        path.write_bytes(data)
    return base64.b64encode(data).decode("ascii")
