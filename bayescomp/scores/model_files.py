"""Load candidate model definitions: one Python file per scikit-learn estimator.

Each file defines ``model = <unfitted estimator>`` and a module docstring whose
first line describes it.  A folder, a list of files or a dict of estimators are
all accepted; a file that fails to import or defines no valid estimator is
reported by name and either skipped (with a warning) or fatal, as the caller
chooses — nothing else is lost.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bayescomp.core.exceptions import ModelFileError, ModelFileWarning


@dataclass(frozen=True)
class ModelSpec:
    """A named unfitted estimator and where it came from."""

    name: str
    estimator: Any
    description: str = ""
    path: str | None = None


def load_model_file(path: str | Path) -> ModelSpec:
    """Import one model file and return its estimator as a :class:`ModelSpec`.

    The model's name is the file's stem (``models/random_forest.py`` ->
    ``random_forest``).
    """
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    if path.suffix != ".py":
        raise ModelFileError(f"{path}: model files are Python files ending in .py")
    mod_name = f"_bayescomp_model_{path.stem}_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - defensive
        raise ModelFileError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    try:
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
    except SystemExit as exc:  # sys.exit() at import: an error, never the caller's own exit
        raise ModelFileError(
            f"{path}: exits at import (SystemExit: {exc.code}); a model file only defines "
            "`model = <unfitted estimator>`"
        ) from exc
    except Exception as exc:
        raise ModelFileError(f"{path}: failed to import ({type(exc).__name__}: {exc})") from exc
    finally:
        sys.modules.pop(mod_name, None)
    if not hasattr(module, "model"):
        raise ModelFileError(f"{path}: defines no `model = <unfitted estimator>`")
    est = module.model
    if not (hasattr(est, "fit") and hasattr(est, "get_params")):
        raise ModelFileError(
            f"{path}: `model` is a {type(est).__name__}, not a scikit-learn estimator "
            "(needs fit and get_params)"
        )
    doc = (module.__doc__ or "").strip().splitlines()
    return ModelSpec(path.stem, est, doc[0].strip() if doc else "", str(path))


def load_models(
    source: str | Path | Iterable[str | Path] | Mapping[str, Any],
    *,
    on_error: str = "skip",
) -> dict[str, ModelSpec]:
    """Load models from a folder, a list of files, or a dict ``{name: estimator}``.

    Parameters
    ----------
    source : folder, file(s) or dict
        A folder loads every ``*.py`` in it (sorted, ``_``-prefixed files ignored).
    on_error : {"skip", "raise"}
        ``"skip"`` warns (:class:`ModelFileWarning`) and continues without the
        broken file; ``"raise"`` stops with :class:`ModelFileError`.

    Returns
    -------
    dict of str -> ModelSpec, in the given order.
    """
    if on_error not in ("skip", "raise"):
        raise ValueError(f"on_error must be 'skip' or 'raise', got {on_error!r}")
    if isinstance(source, Mapping):
        out = {}
        for name, est in source.items():
            if isinstance(est, ModelSpec):
                out[str(name)] = est
            elif hasattr(est, "fit") and hasattr(est, "get_params"):
                out[str(name)] = ModelSpec(str(name), est, type(est).__name__)
            else:
                raise ModelFileError(f"model {name!r} is not a scikit-learn estimator")
        return out
    paths: list[Path]
    if isinstance(source, str | Path):
        p = Path(source)
        if not p.exists():
            raise ModelFileError(
                f"{p}: path does not exist; pass a folder of model files (*.py, one estimator "
                "each) or the model files themselves — check the spelling"
            )
        if p.is_dir():
            paths = sorted(q for q in p.glob("*.py") if not q.name.startswith("_"))
            if not paths:
                raise ModelFileError(f"{p}: folder holds no model files (*.py)")
        else:
            paths = [p]
    else:
        paths = [Path(s) for s in source]
    out = {}
    why: list[str] = []
    for p in paths:
        try:
            spec = load_model_file(p)
        except ModelFileError as exc:
            if on_error == "raise":
                raise
            warnings.warn(f"skipped model file {exc}", ModelFileWarning, stacklevel=2)
            why.append(str(exc))
            continue
        if spec.name in out:
            raise ModelFileError(
                f"two model files are named {spec.name!r}: {out[spec.name].path} and {p}"
            )
        out[spec.name] = spec
    if not out:
        raise ModelFileError("no model could be loaded: " + "; ".join(why[:5]))
    return out


def load_specs(models: Any, on_error: str) -> tuple[dict[str, ModelSpec], dict[str, str]]:
    """:func:`load_models`, keeping the files that could not be loaded and why (skipped
    with their :class:`ModelFileWarning` raised again for the caller)."""
    if on_error not in ("skip", "raise"):
        raise ValueError(f"on_error must be 'skip' or 'raise', got {on_error!r}")
    skipped: dict[str, str] = {}
    if isinstance(models, str | Path) or (
        isinstance(models, Iterable) and not isinstance(models, Mapping)
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ModelFileWarning)
            specs = load_models(models, on_error=on_error)
        for w in caught:
            if issubclass(w.category, ModelFileWarning):
                msg = str(w.message).removeprefix("skipped model file ")
                skipped[Path(msg.split(":", 1)[0]).stem] = msg
                # stacklevel: the caller of select()
                warnings.warn(str(w.message), ModelFileWarning, stacklevel=5)
            else:  # pragma: no cover - pass other warnings through
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return specs, skipped
    return load_models(models, on_error=on_error), skipped
