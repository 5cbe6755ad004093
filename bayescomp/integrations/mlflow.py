"""MLflow bridge (``pip install "bayescomp[mlflow]"``; ``docs/mlflow.md``): :class:`MlflowTracker`
(a :class:`~bayescomp.core.protocols.SelectionTracker`: each selection step an MLflow run, a
rerun logs nothing twice, the registry alias moved only on promote), :func:`alias_history`,
:func:`registry_models` (``models:/`` URIs as candidates), :class:`BayesianThreshold` with
:func:`validate` (the posterior ``mlflow.validate_evaluation_results``), and from
``mlflow_runs``, :func:`compare_runs` and its :class:`RunComparison` (two GenAI evaluations)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescomp.core import checks, margins
from bayescomp.core.rule import split_gamma
from bayescomp.integrations.mlflow_hints import not_found
from bayescomp.integrations.mlflow_runs import RunComparison, compare_runs  # noqa: F401

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.core.rule import Decision
    from bayescomp.scores.model_files import ModelSpec

__all__ = ["BayesianThreshold", "MlflowTracker", "alias_history", "registry_models", "validate"]

TAG = "bayescomp."
_MAX_PARAM = 6000  # MLflow's limit on a param value


def _client(tracking_uri: str | None) -> Any:
    try:
        from mlflow.tracking import MlflowClient
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the MLflow bridge needs MLflow: pip install 'bayescomp[mlflow]'"
        ) from exc
    return MlflowClient(tracking_uri=tracking_uri, registry_uri=tracking_uri)


@contextlib.contextmanager
def _tracking(uri: str | None) -> Iterator[None]:
    """Point MLflow's global URIs at ``uri`` for the loaders that read them, then restore."""
    import mlflow

    if uri is None:
        yield
        return
    old_t, old_r = mlflow.get_tracking_uri(), os.environ.get("MLFLOW_REGISTRY_URI")
    mlflow.set_tracking_uri(uri)
    mlflow.set_registry_uri(uri)
    try:
        yield
    finally:
        mlflow.set_tracking_uri(old_t)
        os.environ.pop("MLFLOW_REGISTRY_URI", None)
        mlflow.set_registry_uri(old_r)  # None: it follows the tracking URI again, not pinned


def _text(v: Any) -> str:
    s = v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=repr)
    return s if len(s) <= _MAX_PARAM else s[: _MAX_PARAM - 1] + "…"


def _finite(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if f == f and abs(f) != float("inf") else None


# ----------------------------------------------------------------------------- model specs
def _parse_models_uri(uri: str) -> tuple[str, str | None, str | None]:
    """``models:/NAME/VERSION`` -> (NAME, VERSION, None); ``models:/NAME@a`` -> (NAME, None, a)."""
    if not uri.startswith("models:/"):
        raise ValueError(
            f"{uri!r} is not a registry model URI; write models:/NAME/VERSION or models:/NAME@alias"
        )
    rest = uri[len("models:/") :]
    if "@" in rest:
        name, alias = rest.rsplit("@", 1)
        if name and alias:
            return name, None, alias
    elif "/" in rest:
        name, version = rest.rsplit("/", 1)
        if name and version.isdigit():
            return name, version, None
    raise ValueError(
        f"cannot read the registry model URI {uri!r}; write models:/NAME/VERSION "
        "(a version number) or models:/NAME@alias"
    )


def registry_models(
    uris: Iterable[str], *, tracking_uri: str | None = None
) -> dict[str, ModelSpec]:
    """Registry models as candidates of :func:`bayescomp.select`.

    Each ``models:/NAME/VERSION`` or ``models:/NAME@alias`` is resolved to its version and
    loaded with ``mlflow.sklearn.load_model``; :func:`bayescomp.select` clones it and
    refits it on every split, as any estimator.  The candidate is named after the URI
    without its scheme (``NAME@alias`` or ``NAME/VERSION``); its ``path`` is the resolved
    ``models:/NAME/VERSION``, which :class:`MlflowTracker` uses to move the alias to
    that version on promote.

    Returns
    -------
    dict of name -> ModelSpec, ready to merge with other candidates.
    """
    import mlflow.sklearn

    from bayescomp.scores.model_files import ModelSpec

    client = _client(tracking_uri)
    out: dict[str, ModelSpec] = {}
    for uri in uris:
        name, version, alias = _parse_models_uri(uri)
        try:
            mv = (
                client.get_model_version_by_alias(name, alias)
                if alias
                else client.get_model_version(name, version)
            )
        except Exception as exc:
            raise ValueError(not_found(client, uri, name, tracking_uri, exc)) from None
        pinned = f"models:/{name}/{mv.version}"
        with _tracking(tracking_uri):
            est = mlflow.sklearn.load_model(pinned)
        label = f" (alias {alias})" if alias else ""
        out[uri[len("models:/") :]] = ModelSpec(
            name=uri[len("models:/") :],
            estimator=est,
            path=pinned,
            description=f"{pinned}{label}, from run {mv.run_id}",
        )
    return out


# ------------------------------------------------------------------------------- tracker
class MlflowTracker:
    """Log a selection to MLflow and move the registry alias only on *promote*.

    Parameters
    ----------
    model_name : str, optional
        Registered model whose ``alias`` follows the champion.  None: tracking only.
    tracking_uri : str, optional
        MLflow tracking (and registry) URI; default MLflow's own (``MLFLOW_TRACKING_URI``,
        else the local default store).
    alias : str, default "champion"
    experiment : str, default "bayescomp"
        Experiment the runs go to (created when absent).

    Notes
    -----
    On promote, a champion that came from the registry (:func:`registry_models`) gets the
    alias on its own version; any other champion is refitted on all the data
    (:meth:`bayescomp.Selection.refit_champion`), logged to the parent run and
    registered as a new version first.  The outcome is on the parent run's tags
    ``bayescomp.alias.action`` (``moved``, ``refused`` or ``unchanged``),
    ``bayescomp.alias.from_version``, ``bayescomp.alias.to_version`` and
    ``bayescomp.alias.reason``.
    """

    def __init__(
        self,
        model_name: str | None = None,
        *,
        tracking_uri: str | None = None,
        alias: str = "champion",
        experiment: str = "bayescomp",
    ):
        self.model_name, self.tracking_uri = model_name, tracking_uri
        self.alias, self.experiment = alias, experiment
        self.client = _client(tracking_uri)
        self.parent_id: str | None = None
        self.identity: str | None = None
        self.settings: dict[str, Any] = {}
        self.resumed = False
        self._children: dict[int, Any] = {}

    # -- SelectionTracker
    def on_start(self, identity: str, settings: Mapping[str, Any]) -> None:
        """Find the parent run of this selection (a resumed run) or create it."""
        self.identity, self.settings = identity, dict(settings)
        self.resumed = self._open_run("selection", f"select {settings.get('baseline')}")
        if not self.resumed:
            self._log_params(self.parent_id, settings)
            return
        children = self.client.search_runs(
            [self._exp_id], filter_string=f"tags.`mlflow.parentRunId` = '{self.parent_id}'"
        )
        self._children = {
            int(r.data.tags[f"{TAG}step"]): r for r in children if f"{TAG}step" in r.data.tags
        }

    def _open_run(self, kind: str, run_name: str) -> bool:
        """Point ``parent_id`` at the run of this identity and ``kind`` in the experiment
        (both created when absent); True when the run was found (a resumed run)."""
        exp = self.client.get_experiment_by_name(self.experiment)
        self._exp_id = exp.experiment_id if exp else self.client.create_experiment(self.experiment)
        tags = {f"{TAG}identity": self.identity, f"{TAG}kind": kind}
        found = self.client.search_runs(
            [self._exp_id],
            filter_string=" and ".join(f"tags.`{k}` = '{v}'" for k, v in tags.items()),
            max_results=1,
        )
        if found:
            self.parent_id = found[0].info.run_id
            return True
        self.parent_id = self.client.create_run(
            self._exp_id, run_name=run_name, tags=tags
        ).info.run_id
        return False

    def on_step(self, step: pd.Series, result: Any, paired: pd.DataFrame) -> None:
        """One nested run per decided step; a step a resumed run already logged is skipped."""
        n = int(step["step"])
        old = self._children.get(n)
        if old is not None:
            if old.info.status == "FINISHED":
                return
            self.client.delete_run(old.info.run_id)  # half-logged by a killed process
        run = self.client.create_run(
            self._exp_id,
            run_name=f"step {n}: {step['challenger']} vs {step['champion']}",
            tags={
                "mlflow.parentRunId": self.parent_id,
                f"{TAG}identity": self.identity,
                f"{TAG}kind": "step",
                f"{TAG}step": str(n),
                f"{TAG}decision": str(step["decision"]),
                f"{TAG}reason": str(step["reason"]),
                f"{TAG}champion": str(step["champion"]),
                f"{TAG}challenger": str(step["challenger"]),
            },
        )
        rid = run.info.run_id
        self._log_params(rid, self._step_params(step, result))
        self._log_metrics(rid, self._step_metrics(step, result))
        self._step_artifacts(rid, step, result, paired)
        self._terminate(rid)
        self._children[n] = self.client.get_run(rid)

    def on_finish(self, selection: Any) -> None:
        """Recommendation on the parent run, the report as artifacts, then the alias."""
        rec = selection.recommendation
        pid = self.parent_id
        self.client.set_tag(pid, f"{TAG}action", rec["action"])
        self.client.set_tag(pid, f"{TAG}champion", selection.champion)
        self.client.set_tag(pid, f"{TAG}recommendation", _text(rec["text"]))
        if not self.resumed or not self.client.list_artifacts(pid, "report"):
            with tempfile.TemporaryDirectory() as tmp:
                selection.report(tmp)
                self.client.log_artifacts(pid, tmp, "report")
        self.client.set_tag(pid, f"{TAG}rule", str(rec.get("rule", "champion_challenger")))
        self._log_metrics(
            pid,
            {
                k: rec.get(k)
                for k in (
                    "p_better",
                    "p_left",
                    "p_rope",
                    "p_right",
                    "risk",
                    "expected_gain",
                    "gain_lower",
                    "false_promotion_rate",
                )
            },
        )
        if self.model_name is not None:
            self._move_alias(
                rec["action"] == "promote",
                rec["text"],
                lambda: self._champion_version(selection),
                f"promote {selection.champion}, but it is not a registry model and this "
                "selection has no estimator and data to register (it ran on precomputed scores)",
            )
        self._terminate(pid)

    def _terminate(self, run_id: str) -> None:
        """Finish a run; MLflow's printed link goes to stderr, so stdout stays the command's."""
        import sys

        with contextlib.redirect_stdout(sys.stderr):
            self.client.set_terminated(run_id, "FINISHED")

    # -- logging helpers
    def _log_params(self, run_id: str, params: Mapping[str, Any]) -> None:
        from mlflow.entities import Param

        self.client.log_batch(
            run_id, params=[Param(k, _text(v)) for k, v in params.items() if v is not None]
        )

    def _log_metrics(self, run_id: str, metrics: Mapping[str, float | None]) -> None:
        from mlflow.entities import Metric

        now = int(time.time() * 1000)
        ms = [Metric(k, f, now, 0) for k, v in metrics.items() if (f := _finite(v)) is not None]
        self.client.log_batch(run_id, metrics=ms)  # none: MLflow sends nothing

    def _step_params(self, step: pd.Series, result: Any) -> dict[str, Any]:
        s = self.settings
        return {
            "design_fingerprint": s.get("design_fingerprint"),
            "rho": _finite(getattr(result, "rho", None)),
            "rope": s.get("rope"),
            "gamma": s.get("gamma"),
            "metric": s.get("metric"),
            "seed": s.get("random_state"),
            "champion": step["champion"],
            "challenger": step["challenger"],
            "n_splits": step["n_splits"],
            "extra_repeats": step["extra_repeats"],
            "looks": step.get("looks"),
            "method": type(result).__name__ if result is not None else None,
        }

    @staticmethod
    def _step_metrics(step: pd.Series, result: Any) -> dict[str, Any]:
        out = {
            k: step[k] for k in ("p_better", "p_left", "p_rope", "p_right", "risk", "expected_gain")
        }
        if result is not None:
            lo, hi = result.hdi(0.95)
            out.update(posterior_mean=result.expected_gain, hdi95_low=lo, hdi95_high=hi)
        return out

    def _step_artifacts(
        self, run_id: str, step: pd.Series, result: Any, paired: pd.DataFrame
    ) -> None:
        import matplotlib.pyplot as plt

        from bayescomp.report.selection_plots import plot_paired_scores

        self.client.log_text(run_id, paired.to_csv(index=False), "paired_scores.csv")
        if result is None:
            return
        scores = plot_paired_scores(
            paired,
            step["champion"],
            step["challenger"],
            self.settings.get("metric", ""),
            self.settings.get("rope", 0.0),
        )
        for name, ax in (("posterior.png", result.plot()), ("paired_scores.png", scores)):
            self.client.log_figure(run_id, ax.figure, name, save_kwargs={"dpi": 100})
            plt.close(ax.figure)

    # -- the registry alias
    def _current_version(self) -> str | None:
        try:
            return str(self.client.get_model_version_by_alias(self.model_name, self.alias).version)
        except Exception:  # no alias yet (or no such model)
            return None

    def _record(self, action: str, reason: str, from_v: str | None, to_v: str | None) -> None:
        tags = {
            "alias.action": action,
            "alias.reason": reason,
            "alias.model": self.model_name,
            "alias.name": self.alias,
            "alias.from_version": from_v or "",
            "alias.to_version": to_v or "",
            "alias.at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        for k, v in tags.items():
            self.client.set_tag(self.parent_id, TAG + k, _text(v))

    def _move_alias(
        self, promote: bool, reason: str, version: Callable[[], str | None], no_version: str
    ) -> None:
        """On promote, move the alias to ``version()`` (None: refused with ``no_version``);
        else record the refusal with ``reason``.  Once per run: a resumed run's record stands,
        and a move a killed run left half done (``alias.pending_from``) is recorded as moved."""
        tags = self.client.get_run(self.parent_id).data.tags
        if f"{TAG}alias.action" in tags:  # a resumed run already moved or refused
            return
        current = self._current_version()
        target = version() if promote else None
        if target is None:
            self._record("refused", no_version if promote else reason, current, current)
            return
        if current == target:
            pending = tags.get(f"{TAG}alias.pending_from")
            if pending is not None and pending != target:  # moved by a killed run
                self._record("moved", reason, pending, target)
                self.client.delete_tag(self.parent_id, f"{TAG}alias.pending_from")
            else:
                self._record(
                    "unchanged", f"{self.alias} already on version {target}", current, target
                )
            return
        self.client.set_tag(self.parent_id, f"{TAG}alias.pending_from", current or "")
        self.client.set_registered_model_alias(self.model_name, self.alias, target)
        self.client.set_model_version_tag(
            self.model_name, target, f"{TAG}promoted_by_run", self.parent_id
        )
        self._record("moved", reason, current, target)
        self.client.delete_tag(self.parent_id, f"{TAG}alias.pending_from")  # done: no trace

    def _champion_version(self, sel: Any) -> str | None:
        """The registry version of the champion, registering a refitted one if needed."""
        spec = sel._specs.get(sel.champion)
        if spec is not None and str(spec.path or "").startswith(f"models:/{self.model_name}/"):
            return str(spec.path).rsplit("/", 1)[1]
        if not sel._specs:
            return None
        with contextlib.suppress(Exception):
            self.client.create_registered_model(self.model_name)
        for mv in self.client.search_model_versions(f"name='{self.model_name}'"):
            if mv.tags.get(f"{TAG}identity") == self.identity:  # registered before a kill
                return str(mv.version)
        return self._register(sel)

    def _register(self, sel: Any) -> str:
        import mlflow.sklearn
        import sklearn

        est = sel.refit_champion()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "champion_model"
            mlflow.sklearn.save_model(
                est,
                str(path),
                serialization_format="cloudpickle",
                pip_requirements=[f"scikit-learn=={sklearn.__version__}"],
            )
            self.client.log_artifacts(self.parent_id, str(path), "champion_model")
        source = f"{self.client.get_run(self.parent_id).info.artifact_uri}/champion_model"
        mv = self.client.create_model_version(
            self.model_name,
            source,
            run_id=self.parent_id,
            tags={f"{TAG}identity": self.identity, f"{TAG}candidate": sel.champion},
            description=f"bayescomp champion {sel.champion}: {sel.recommendation['text']}",
        )
        return str(mv.version)


def alias_history(
    model_name: str, *, tracking_uri: str | None = None, experiment: str = "bayescomp"
) -> pd.DataFrame:
    """Every alias move and refusal :class:`MlflowTracker` recorded for ``model_name``.

    Columns ``at, action, alias, from_version, to_version, reason, run_id``, oldest first.
    """
    import pandas as pd

    client = _client(tracking_uri)
    exp = client.get_experiment_by_name(experiment)
    cols = ["at", "action", "alias", "from_version", "to_version", "reason", "run_id"]
    if exp is None:
        return pd.DataFrame(columns=cols)
    runs = client.search_runs(
        [exp.experiment_id], filter_string=f"tags.`{TAG}alias.model` = '{model_name}'"
    )
    rows = [
        {
            "at": r.data.tags.get(f"{TAG}alias.at"),
            "action": r.data.tags[f"{TAG}alias.action"],
            "alias": r.data.tags.get(f"{TAG}alias.name"),
            "from_version": r.data.tags.get(f"{TAG}alias.from_version") or None,
            "to_version": r.data.tags.get(f"{TAG}alias.to_version") or None,
            "reason": r.data.tags.get(f"{TAG}alias.reason"),
            "run_id": r.info.run_id,
        }
        for r in runs
    ]
    return pd.DataFrame(rows, columns=cols).sort_values("at", kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------------------- validation
@dataclass(frozen=True)
class BayesianThreshold:
    """Posterior counterpart of ``mlflow.models.MetricThreshold``.

    The candidate passes on ``metric`` when ``P(candidate - baseline > rope) >= gamma``
    (oriented by ``greater_is_better``): better beyond the region of practical
    equivalence, with the posterior probability asked for — instead of a point estimate
    over a fixed threshold.

    Examples
    --------
    >>> BayesianThreshold("accuracy", rope=0.01)
    BayesianThreshold(metric='accuracy', rope=0.01, gamma=0.95, greater_is_better=True)
    """

    metric: str
    rope: float
    gamma: float = 0.95
    greater_is_better: bool = True

    def __post_init__(self) -> None:

        checks.check_gamma(self.gamma)
        margins.as_margin(self.rope, takes=(margins.Absolute,), where="a validation threshold")

    def decide(self, scores: Any, candidate: str, baseline: str, k: int = 1) -> Decision:
        """The decision of the correlated posterior of ``candidate - baseline``, at
        ``split_gamma(gamma, k)`` when it is one of ``k`` thresholds checked together."""
        from bayescomp.posterior.compare import compare

        how = {"metric": self.metric, "rope": self.rope, "higher_is_better": self.greater_is_better}
        return compare(scores, baseline, candidate, **how).decision(split_gamma(self.gamma, k))


def validate(
    scores: Any,
    candidate: str,
    baseline: str,
    thresholds: Mapping[str, BayesianThreshold] | Iterable[BayesianThreshold],
) -> dict[str, Decision]:
    """Check ``candidate`` against ``baseline`` on every threshold, as
    ``mlflow.validate_evaluation_results`` does, but from the posterior: each of the k
    thresholds at ``1 - (1 - gamma) / k`` (:func:`bayescomp.core.rule.split_gamma`), so that
    they all hold together with probability at least ``gamma``.

    Parameters
    ----------
    scores : bayescomp.Scores or CSV path
        Per-split scores of both models on the same splits.
    candidate, baseline : str
    thresholds : dict of metric -> BayesianThreshold, or a list of them

    Returns
    -------
    dict of metric -> Decision, when every threshold passes.

    Raises
    ------
    mlflow.models.evaluation.validation.ModelValidationFailedException
        Naming every failed metric with the posterior's reason.
    """
    from mlflow.models.evaluation.validation import ModelValidationFailedException

    from bayescomp.scores.table import Scores

    if isinstance(scores, str | Path):
        scores = Scores.read_csv(scores)
    items = list(thresholds.values() if isinstance(thresholds, Mapping) else thresholds)
    if not items or len({t.metric for t in items}) < len(items):
        raise ValueError("pass at least one BayesianThreshold, and one threshold per metric")
    out = {t.metric: t.decide(scores, candidate, baseline, len(items)) for t in items}
    failed = [f"{m}: {d.outcome} — {d.reason}" for m, d in out.items() if d.outcome != "promote"]
    if failed:
        raise ModelValidationFailedException(
            f"{candidate} did not pass the Bayesian thresholds against {baseline}:\n"
            + "\n".join(failed)
        )
    return out
