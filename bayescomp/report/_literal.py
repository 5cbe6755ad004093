"""Every text a plot function draws is literal: user names are never read as mathtext.

matplotlib reads text between two ``$`` as mathtext, so a model named ``$x^$`` or
``$\\frac$`` made drawing fail and ``$a$`` was typeset.  Names come from user data, so
every public plot function is wrapped in :func:`literal_text`, which turns mathtext off on
the texts that function set (titles, labels, legends, tick labels) and on no other: a
``$\\alpha$`` title the user put on another panel of the same figure is still typeset.
No label of bayescomp's own uses mathtext.  ``tests/test_hostile_names.py`` checks that
every public ``plot_*`` function of :mod:`bayescomp.report` carries the wrapper.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np

F = TypeVar("F", bound=Callable[..., Any])


def _texts(figures: Iterable[Any]) -> dict[int, tuple[Any, str]]:
    from matplotlib.text import Text

    return {id(t): (t, t.get_text()) for fig in figures for t in fig.findobj(Text)}


def make_literal(result: Any, before: dict[int, tuple[Any, str]] | None = None) -> Any:
    """Turn mathtext off on the texts of ``result``'s figures that are not in ``before``
    (``id -> (text, its string)`` taken before drawing) or whose string changed."""
    before = before or {}
    figures = {
        id(f): f
        for f in (a.figure for a in np.ravel(np.asarray(result, dtype=object)) if a is not None)
    }
    for key, (text, string) in _texts(figures.values()).items():
        if key not in before or before[key][1] != string:
            text.set_parse_math(False)
    return result


def literal_text(func: F) -> F:
    """Decorator of a plot function: the texts it sets on its figure are drawn literally."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from matplotlib.axes import Axes

        given = [a for a in (*args, kwargs.get("ax")) if isinstance(a, Axes)]
        before = _texts({id(a.figure): a.figure for a in given}.values())
        return make_literal(func(*args, **kwargs), before)

    wrapper.__literal_text__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
