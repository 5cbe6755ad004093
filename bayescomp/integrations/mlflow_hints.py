"""What the MLflow registry holds, said when a ``models:/`` URI names nothing there.

MLflow 3 has no command that lists registered models (``mlflow models`` deploys them), so
the error lists what is there itself: the registered models, or the versions and aliases
of the model named, and how to register a first champion.
"""

from __future__ import annotations

from typing import Any

#: how to register a first champion (docs/mlflow.md, "Register the first champion")
REGISTER_FIRST = (
    "to register a first champion: mlflow.register_model(model_info.model_uri, NAME) then "
    "MlflowClient().set_registered_model_alias(NAME, 'champion', VERSION) (docs: MLflow, "
    "'Register the first champion')"
)


def not_found(client: Any, uri: str, name: str, where: str | None, exc: BaseException) -> str:
    """The message for a ``models:/`` URI that names no model version: what was asked,
    where (``where``: the tracking URI, the current one when None), and what the registry
    holds instead (its models, or this model's versions and aliases), with the URI to write."""
    import mlflow

    where = where or mlflow.get_tracking_uri()
    head = f"{uri}: not found in the registry at {where} ({str(exc).splitlines()[0][:200]})"
    try:
        versions = client.search_model_versions(f"name='{name}'")
    except Exception:  # the registry cannot be searched: say only what was asked
        versions = []
    if versions:
        numbers = sorted({int(v.version) for v in versions})
        aliases = dict(client.get_registered_model(name).aliases or {})
        shown = ", ".join(f"{a} -> {n}" for a, n in sorted(aliases.items())) or "none"
        return (
            f"{head}; model {name!r} has versions {numbers} and aliases: {shown}; write "
            f"models:/{name}/{numbers[-1]}"
            + (f" or models:/{name}@{min(aliases)}" if aliases else "")
        )
    try:
        names = [m.name for m in client.search_registered_models(max_results=20)]
    except Exception:
        names = []
    held = f"the registry holds {names}" if names else "the registry holds no model"
    return (
        f"{head}; there is no registered model {name!r}: {held} "
        f"(MlflowClient().search_registered_models() lists them); {REGISTER_FIRST}"
    )


#: modules the full ``mlflow`` package brings and ``mlflow-skinny`` lacks (database stores)
FULL_MLFLOW_MODULES = ("sqlalchemy", "alembic", "sqlparse")


def configuration_hint(exc: BaseException, uri: str | None) -> str | None:
    """What to install or set when MLflow refuses its configuration (None for any other
    error): a database URI (``sqlite:///…``) with ``mlflow-skinny``, or a ``file:`` store
    without ``MLFLOW_ALLOW_FILE_STORE=true``."""
    where = f"the MLflow tracking URI {uri or '(MLflow default)'}"
    if isinstance(exc, ImportError) and (exc.name or "").split(".")[0] in FULL_MLFLOW_MODULES:
        return (
            f"{where} needs {exc.name}, which mlflow-skinny does not install: "
            "pip install mlflow (the full package), or use an http(s):// tracking server"
        )
    if "MLFLOW_ALLOW_FILE_STORE" in str(exc):
        return (
            f"{where} is a file store, which this MLflow refuses by default: set "
            "MLFLOW_ALLOW_FILE_STORE=true, or use a database (--mlflow-uri sqlite:///mlflow.db)"
        )
    return None
