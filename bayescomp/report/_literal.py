"""Every text a plot draws is literal: user names are never read as mathtext.

matplotlib reads text between two ``$`` as mathtext, so a model named ``$x^$`` or
``$\\frac$`` made drawing fail and ``$a$`` was typeset.  Names come from user data, so
every public plot function is wrapped in :func:`literal_text`, which turns mathtext off
on every text of the figure it drew (titles, labels, legends, tick labels).  No label of
bayescomp's own uses mathtext.  ``tests/test_hostile_names.py`` checks that every public
``plot_*`` function of :mod:`bayescomp.report` carries the wrapper.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

F = TypeVar("F", bound=Callable[..., Any])


def _figures(result: Any) -> list[Any]:
    if hasattr(result, "findobj") and hasattr(result, "savefig"):
        return [result]
    if hasattr(result, "figure"):
        return [result.figure]
    figs = []
    for item in np.ravel(np.asarray(result, dtype=object)) if result is not None else ():
        figs.extend(f for f in _figures(item) if f not in figs)
    return figs


def make_literal(result: Any) -> Any:
    """Turn mathtext off on every text of the figure(s) of ``result``; return ``result``."""
    from matplotlib.text import Text

    for fig in _figures(result):
        for text in fig.findobj(Text):
            text.set_parse_math(False)
    return result


def literal_text(func: F) -> F:
    """Decorator of a plot function: the figure it returns draws every text literally."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return make_literal(func(*args, **kwargs))

    wrapper.__literal_text__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
