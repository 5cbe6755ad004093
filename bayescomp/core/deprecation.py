"""Old argument and attribute names that keep working, with a ``FutureWarning``.

bayescomp spells each argument one way (``docs/architecture.md``, "One spelling per
argument").  When a name changes, the old one is accepted for a deprecation cycle:
:func:`renamed_arguments` maps old keyword names onto new ones, and
:func:`renamed_attribute` keeps an old attribute readable.  Both warn with a
:class:`FutureWarning` (shown to end users by default) that names the new spelling.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def warn_renamed(where: str, old: str, new: str, *, stacklevel: int = 3) -> None:
    """The one ``FutureWarning`` of a renamed argument, attribute or flag."""
    warnings.warn(
        f"{where}: {old!r} is renamed {new!r}; use {new!r} (the old name will be "
        "removed in a future release)",
        FutureWarning,
        stacklevel=stacklevel,
    )


def renamed_arguments(**old_to_new: str) -> Callable[[F], F]:
    """Decorator: accept each old keyword (``level=``) as its new name (``confidence_level=``).

    Passing both names is an error, since they mean the same thing.
    """

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(
                            f"{func.__qualname__}() got both {new}= and its old "
                            f"name {old}=; pass {new}= only"
                        )
                    warn_renamed(f"{func.__qualname__}()", old, new)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        inner.__renamed_arguments__ = dict(old_to_new)  # type: ignore[attr-defined]
        return inner  # type: ignore[return-value]

    return wrap


def renamed_attribute(old: str, new: str) -> property:
    """A read-only property ``old`` that warns and returns ``self.<new>``."""

    def get(self: Any) -> Any:
        warn_renamed(type(self).__name__, old, new)
        return getattr(self, new)

    return property(get, doc=f"Deprecated name of :attr:`{new}`.")
