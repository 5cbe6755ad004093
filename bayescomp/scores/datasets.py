"""Built-in scikit-learn datasets, available offline (nothing is downloaded)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from bayescomp.core.protocols import Estimator

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


def task_of(y: Any) -> str:
    """``"classification"`` for class labels, else ``"regression"`` (see
    :func:`bayescomp.splits.design.is_classification_target`: a float target with many
    whole-number values, like the diabetes target, is a regression).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> task_of([0, 1, 1]), task_of([0.5, 1.25, 3.0]), task_of(load_diabetes().target)
    ('classification', 'regression', 'regression')
    """
    from bayescomp.splits.design import is_classification_target

    return "classification" if is_classification_target(y) else "regression"


def check_classes(y: Any, dataset: str = "the data") -> None:
    """Refuse a target with a single value (one class): every model would score the same
    trivial predictor, and many cannot be fitted at all.

    Examples
    --------
    >>> check_classes([1, 1, 1], "iris")
    Traceback (most recent call last):
    ...
    ValueError: the target of iris has a single value (1) on all 3 rows: a classifier needs at least two classes and a regressor a target that varies; check the target column (or the rows you selected)
    """
    import numpy as np
    import pandas as pd

    if y is None:
        return
    values = pd.unique(np.asarray(y, dtype=object).ravel())
    if len(values) == 1:
        raise ValueError(
            f"the target of {dataset} has a single value ({values[0]!r}) on all "
            f"{np.asarray(y).shape[0]} rows: a classifier needs at least two classes and a "
            "regressor a target that varies; check the target column (or the rows you selected)"
        )


def check_task(estimators: Mapping[str, Estimator], task: str, dataset: str = "the data") -> None:
    """Refuse classifiers on a regression dataset and regressors on a classification one.

    Raises a ``ValueError`` naming the models and the task of the dataset, instead of the
    error scikit-learn would raise deep inside the first fit.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression, Ridge
    >>> check_task({"ridge": Ridge()}, "regression", "diabetes")
    >>> check_task({"lr": LogisticRegression()}, "regression", "diabetes")
    Traceback (most recent call last):
    ...
    ValueError: model(s) ['lr'] are classifiers but dataset 'diabetes' is a regression task (a continuous target); use regressors (e.g. a model file with `model = Ridge()`) or a classification dataset (breast_cancer, digits, iris, wine)
    """
    from sklearn.base import is_classifier, is_regressor

    if task == "regression":
        wrong, kind = [m for m, e in estimators.items() if is_classifier(e)], "classifiers"
        fix = (
            "use regressors (e.g. a model file with `model = Ridge()`) or a classification "
            "dataset ("
            + ", ".join(sorted(k for k, v in BUILTIN.items() if v[1] == "classification"))
            + ")"
        )
    else:
        wrong, kind = [m for m, e in estimators.items() if is_regressor(e)], "regressors"
        fix = "use classifiers, or a regression dataset (diabetes)"
    if wrong:
        raise ValueError(
            f"model(s) {wrong} are {kind} but dataset {dataset!r} is a {task} task"
            + (" (a continuous target)" if task == "regression" else "")
            + f"; {fix}"
        )


def default_metric(y: Any, task: str) -> str:
    """The metric ``compare`` and ``select`` decide on when none is named: ``r2`` for
    regression, ``roc_auc`` for two classes, ``accuracy`` for more (every classifier has
    it; a multiclass AUC needs ``predict_proba``).

    Examples
    --------
    >>> default_metric([0, 1, 1], "classification"), default_metric([0, 1, 2], "classification")
    ('roc_auc', 'accuracy')
    """
    import numpy as np

    if task != "classification":
        return "r2"
    return "roc_auc" if len(np.unique(np.asarray(y))) == 2 else "accuracy"


#: cheap standard scorers by task, scored on every fit of ``bayescomp select`` so that a
#: store serves a later run on any of them; a scorer needs the response method named
#: (``"proba"``: predict_proba; ``"ranking"``: decision_function or predict_proba)
STANDARD_SCORERS: dict[str, list[tuple[str, str | None]]] = {
    "binary": [
        ("roc_auc", "ranking"),
        ("accuracy", None),
        ("balanced_accuracy", None),
        ("average_precision", "ranking"),
        ("f1", None),
        ("neg_log_loss", "proba"),
        ("neg_brier_score", "proba"),
    ],
    "multiclass": [
        ("accuracy", None),
        ("balanced_accuracy", None),
        ("f1_macro", None),
        ("roc_auc_ovr", "proba"),
        ("neg_log_loss", "proba"),
    ],
    "regression": [
        ("r2", None),
        ("neg_mean_squared_error", None),
        ("neg_root_mean_squared_error", None),
        ("neg_mean_absolute_error", None),
    ],
}


def standard_scorers(y: Any, task: str, estimators: Mapping[str, Estimator]) -> list[str]:
    """The standard scorers of the task that *every* estimator supports.

    ``task`` is ``"classification"`` (binary or multiclass from ``y``) or
    ``"regression"``.  A scorer needing probabilities is left out when a model has no
    ``predict_proba`` (e.g. ``SVC(probability=False)``), so that no fit fails on a
    metric nobody asked for.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.svm import SVC
    >>> standard_scorers([0, 1, 0, 1], "classification", {"nb": GaussianNB(), "svm": SVC()})
    ['roc_auc', 'accuracy', 'balanced_accuracy', 'average_precision', 'f1']
    """
    import numpy as np

    if task == "regression":
        kind = "regression"
    else:
        kind = "binary" if len(np.unique(np.asarray(y))) == 2 else "multiclass"

    def supported(need: str | None) -> bool:
        if need is None:
            return True
        methods = ("predict_proba",) if need == "proba" else ("decision_function", "predict_proba")
        return all(any(hasattr(e, m) for m in methods) for e in estimators.values())

    return [name for name, need in STANDARD_SCORERS[kind] if supported(need)]
