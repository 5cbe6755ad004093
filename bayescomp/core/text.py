"""Names from user data, shown literally wherever they go: a spreadsheet, a plot, a terminal.

A model or dataset name is data, never markup.  Each output has its own way to turn data
into markup, so each has its own escape here (HTML uses :func:`html.escape`):

* **CSV opened in a spreadsheet** — a cell starting with ``=``, ``+``, ``-``, ``@``, a tab or
  a carriage return is run as a formula (OWASP "CSV injection").  :func:`to_spreadsheet`
  prefixes such a cell with a single quote, which spreadsheets show as text;
  :func:`from_spreadsheet` removes it again, so ``read_csv(to_csv(x)) == x``.  A name that
  really starts with a quote followed by one of those characters (or by another quote) gets
  one more quote, so the round trip is exact for every string.
* **matplotlib** — text with two ``$`` is read as mathtext (``$\\frac$`` fails to draw);
  :func:`plot_literal` escapes every ``$``.
* **terminal** — control characters (escape sequences, carriage returns, bells) are shown
  as Python escapes by :func:`terminal_literal`; newlines too, so one name stays on one line.
"""

from __future__ import annotations

from typing import Any

#: first characters that make a spreadsheet evaluate a cell (OWASP CSV injection)
FORMULA_PREFIXES: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")
_QUOTE = "'"


def to_spreadsheet(value: Any) -> Any:
    """A text cell made safe to open in a spreadsheet (numbers pass unchanged).

    Examples
    --------
    >>> to_spreadsheet("=HYPERLINK(1)"), to_spreadsheet("lr"), to_spreadsheet(-0.5)
    ("'=HYPERLINK(1)", 'lr', -0.5)
    >>> from_spreadsheet(to_spreadsheet("'=x")) == "'=x"
    True
    """
    if not isinstance(value, str) or not value:
        return value
    risky = value[0] in FORMULA_PREFIXES
    quoted = value[0] == _QUOTE and value[1:2] in (*FORMULA_PREFIXES, _QUOTE)
    return _QUOTE + value if risky or quoted else value


def from_spreadsheet(value: Any) -> Any:
    """Undo :func:`to_spreadsheet` on a cell read back from a CSV."""
    if (
        isinstance(value, str)
        and value[:1] == _QUOTE
        and value[1:2] in (*FORMULA_PREFIXES, _QUOTE)
        and value[1:2] != ""
    ):
        return value[1:]
    return value


def plot_literal(name: Any) -> str:
    """``name`` as matplotlib text that is drawn literally (every ``$`` escaped).

    Examples
    --------
    >>> plot_literal("$x^$")
    '\\\\$x^\\\\$'
    """
    return str(name).replace("$", r"\$")


def terminal_literal(name: Any) -> str:
    """``name`` for a terminal: control characters shown as escapes, the rest unchanged.

    Examples
    --------
    >>> terminal_literal("a\\nb\\x1b[2J"), terminal_literal("forêt")
    ('a\\\\nb\\\\x1b[2J', 'forêt')
    """
    text = str(name)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
