"""``mlflow.models.evaluate(..., evaluators="bayescomp")``: an MLflow evaluator plugin (entry
point ``mlflow.model_evaluator``) that scores the candidate and a registered baseline on the same
rows and logs :func:`bayescomp.holdout_posterior`'s ``bayescomp/p_better_beyond_rope`` (the gate
of ``mlflow.validate_evaluation_results``), ``p_rope``, ``p_worse_beyond_rope``, ``ci_low``,
``ci_high``, ``expected_gain``, the tag ``bayescomp.decision`` and the posterior plot
(``docs/mlflow.md``).  It imports MLflow: only MLflow's plugin registry (or a user) imports it."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from mlflow.entities import Metric, RunTag
from mlflow.models.evaluation import EvaluationResult, ModelEvaluator

from bayescomp.core.checks import check_gamma
from bayescomp.core.margins import Absolute, as_margin
from bayescomp.core.metric import METRICS, metric_record

REQUIRED, OPTIONAL = ("baseline", "rope", "metric"), ("gamma", "draws", "random_state")
#: what each model type predicts, as the metric table names it
TASKS = {"classifier": ("labels", "scores"), "regressor": ("values",)}


def _metrics_of(kind: str) -> list[str]:
    return [m.name for m in METRICS.values() if m.needs in TASKS[kind] and (m.item or m.weighted)]


def read_config(model_type: str, config: Mapping[str, Any] | None) -> dict[str, Any]:
    """``evaluator_config`` checked: its keys, the metric for the model type, rope, gamma."""
    if model_type not in TASKS:
        raise ValueError(f"bayescomp compares a 'classifier' or a 'regressor', not {model_type!r}")
    cfg = dict(config or {})
    missing = [k for k in REQUIRED if cfg.get(k) is None]
    unknown = sorted(set(cfg) - {*REQUIRED, *OPTIONAL})
    if missing or unknown:
        raise ValueError(
            f"evaluator_config lacks {missing} or has unknown keys {unknown}; write "
            'evaluator_config={"baseline": "models:/NAME@champion", "rope": 0.01, "metric": '
            f'"{_metrics_of(model_type)[0]}"}} (optional keys: {", ".join(OPTIONAL)})'
        )
    rec, known = metric_record(cfg["metric"]), _metrics_of(model_type)
    if rec is None or rec.name not in known:
        other = next((t for t in TASKS if rec is not None and rec.name in _metrics_of(t)), None)
        what = f"a {other}'s metric" if other else "not a metric the evaluator knows"
        raise ValueError(f"metric {cfg['metric']!r} is {what}; a {model_type} takes one of {known}")
    gamma = check_gamma(cfg.get("gamma", 0.95))
    return {
        **cfg,
        "metric": rec.name,
        "rope": as_margin(cfg["rope"], metric=rec.name, takes=(Absolute,), where="the evaluator"),
        "gamma": gamma,
    }


def load_baseline(uri: str) -> Any:
    """The baseline model of ``evaluator_config["baseline"]``; a URI that names no model is
    an error saying what the registry holds (a ``models:/`` URI) or what went wrong."""
    import mlflow
    import mlflow.pyfunc

    try:
        return mlflow.pyfunc.load_model(uri)
    except Exception as exc:
        if str(uri).startswith("models:/"):
            from bayescomp.integrations.mlflow_hints import not_found

            name = str(uri)[len("models:/") :].split("@")[0].split("/")[0]
            raise ValueError(not_found(mlflow.MlflowClient(), uri, name, None, exc)) from None
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise ValueError(
            f"the baseline {uri!r} could not be loaded ({type(exc).__name__}: {first}); give "
            "a models:/NAME@ALIAS, models:/NAME/VERSION or runs:/RUN_ID/PATH URI of a logged model"
        ) from None


def predict(model: Any, X: Any, needs: str | None, who: str) -> np.ndarray:
    """``model.predict``, or for a score metric class 1's ``predict_proba`` of the model's own
    flavour (``get_raw_model()``: the estimator of an ``mlflow.sklearn`` model); a model that
    cannot predict on the dataset's features is an error naming it."""
    try:
        if needs != "scores":
            return np.asarray(model.predict(X)).ravel()
        proba = model.get_raw_model().predict_proba
    except Exception as exc:
        if needs == "scores" and isinstance(exc, AttributeError):
            raise ValueError(
                f"the metric needs class probabilities, but the {who} model gives no "
                f"predict_proba ({type(exc).__name__}: {exc}); log it with a flavour whose "
                "model has predict_proba (mlflow.sklearn), or compare on a label metric"
            ) from None
        raise _cannot_predict(who, X, exc) from None
    try:
        p = np.asarray(proba(X))
    except Exception as exc:
        raise _cannot_predict(who, X, exc) from None
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(f"the {who} model's predict_proba gives {p.shape}: two classes only")
    return p[:, 1]


class BayescompEvaluator(ModelEvaluator):
    """MLflow's ``ModelEvaluator`` for ``evaluators="bayescomp"`` (module docstring)."""

    def can_evaluate(self, *, model_type: str, evaluator_config: Any, **kwargs: Any) -> bool:
        read_config(model_type, evaluator_config)  # a bad config is an error, not a silent skip
        return True

    def evaluate(  # type: ignore[override]  # extra_metrics, custom_artifacts, ... in kwargs
        self,
        *,
        model_type: str,
        dataset: Any,
        run_id: str,
        evaluator_config: Any,
        model: Any = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        import matplotlib.pyplot as plt
        import mlflow.pyfunc
        from mlflow.models.evaluation.artifacts import ImageEvaluationArtifact as Image

        from bayescomp.posterior.holdout import holdout_posterior

        cfg = read_config(model_type, evaluator_config)
        if model is None or not dataset.has_targets:
            raise ValueError(
                "the bayescomp evaluator scores the candidate model and the baseline on the "
                "same labelled rows: pass the model and targets= to mlflow.models.evaluate"
            )
        X, needs = dataset.features_data, metric_record(cfg["metric"]).needs
        if len(X) == 0:
            raise ValueError(
                "the evaluation dataset has no rows; give the labelled rows to compare on"
            )
        res = holdout_posterior(
            np.asarray(dataset.labels_data).ravel(),
            predict(load_baseline(cfg["baseline"]), X, needs, "baseline"),
            predict(model, X, needs, "candidate"),
            metric=cfg["metric"],
            rope=cfg["rope"],
            draws=cfg.get("draws", 4000),
            baseline_name=cfg["baseline"],
            random_state=cfg.get("random_state", 0),
        )
        decision, (low, high) = res.decision(cfg["gamma"]), res.interval(0.95)
        values = dict(p_better_beyond_rope=res.p_right, p_rope=res.p_rope, ci_low=low)
        values.update(p_worse_beyond_rope=res.p_left, ci_high=high, expected_gain=res.expected_gain)
        metrics = {"bayescomp/" + k: float(v) for k, v in values.items()}
        client, fig = mlflow.MlflowClient(), res.plot().figure
        now, tags = int(time.time() * 1000), dict(decision=decision.outcome, reason=decision.reason)
        client.log_batch(
            run_id,
            metrics=[Metric(k, v, now, 0) for k, v in metrics.items()],
            tags=[RunTag(f"bayescomp.{k}", v[:5000]) for k, v in tags.items()],
        )
        client.log_figure(run_id, fig, "bayescomp/posterior.png")
        client.log_dict(run_id, res.to_dict(), "bayescomp/result.json")
        plt.close(fig)
        uri = f"{client.get_run(run_id).info.artifact_uri}/bayescomp/posterior.png"
        return EvaluationResult(metrics, {"bayescomp_posterior": Image(uri)}, run_id=run_id)


def _cannot_predict(who: str, X: Any, exc: BaseException) -> ValueError:
    first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
    cols = list(getattr(X, "columns", []))[:12]
    return ValueError(
        f"the {who} model cannot predict on the evaluation dataset's features {cols} "
        f"({type(exc).__name__}: {first}); give the columns it was trained on"
    )
