"""Built-in scikit-learn datasets, available offline (nothing is downloaded)."""

from __future__ import annotations

from typing import Any

BUILTIN = {
    "breast_cancer": ("load_breast_cancer", "classification"),
    "wine": ("load_wine", "classification"),
    "iris": ("load_iris", "classification"),
    "digits": ("load_digits", "classification"),
    "diabetes": ("load_diabetes", "regression"),
}


def load_dataset(name: str) -> tuple[Any, Any, str]:
    """Return ``(X, y, task)`` of a built-in dataset (``task``: classification/regression).

    Examples
    --------
    >>> X, y, task = load_dataset("iris")
    >>> X.shape, task
    ((150, 4), 'classification')
    """
    try:
        loader, task = BUILTIN[name]
    except KeyError:
        raise ValueError(
            f"unknown built-in dataset {name!r}; choose one of {sorted(BUILTIN)} or pass a "
            "scores CSV"
        ) from None
    import sklearn.datasets

    X, y = getattr(sklearn.datasets, loader)(return_X_y=True)
    return X, y, task
