"""``bayescomp watch`` in MLflow: each look a step of one run, the alias moved on promote.

:class:`WatchTracker` is the :class:`~bayescomp.integrations.mlflow.MlflowTracker` of a
watch: one run per watched comparison (found again by its settings, so an hourly job logs
into the same run and no look twice), the looks' ``estimate``, ``lower`` and ``upper`` as
metrics at step = items, and on **promote** the registry alias moved to the candidate's
version, recorded on the run's tags as ``select`` records it (``docs/mlflow.md``).
"""

from __future__ import annotations

import math
import time
from typing import Any

from bayescomp.core.jsonable import json_digest
from bayescomp.integrations.mlflow import TAG, MlflowTracker

#: MLflow's limit on the metrics of one ``log_batch``
_BATCH = 1000


class WatchTracker(MlflowTracker):
    """Log a :class:`~bayescomp.posterior.sequential.SequentialResult` (``model_name``,
    ``tracking_uri``, ``alias``, ``experiment`` as :class:`MlflowTracker`)."""

    def log_watch(self, res: Any, version: str | None = None) -> str:
        """Log the looks not yet logged; on promote move the alias to ``version`` (the
        candidate's registry version). Returns the run id."""
        from mlflow.entities import Metric

        self.identity = json_digest(res.plan.to_dict())[:16]
        exp = self.client.get_experiment_by_name(self.experiment)
        exp_id = exp.experiment_id if exp else self.client.create_experiment(self.experiment)
        found = self.client.search_runs(
            [exp_id],
            filter_string=f"tags.`{TAG}identity` = '{self.identity}' and tags.`{TAG}kind` = 'watch'",
            max_results=1,
        )
        if found:
            self.parent_id = found[0].info.run_id
        else:
            name = f"watch {res.plan.candidate} vs {res.plan.baseline}"
            tags = {f"{TAG}identity": self.identity, f"{TAG}kind": "watch"}
            self.parent_id = self.client.create_run(exp_id, run_name=name, tags=tags).info.run_id
            self._log_params(self.parent_id, res.plan.to_dict())
        logged = {m.step for m in self.client.get_metric_history(self.parent_id, "estimate")}
        now = int(time.time() * 1000)
        metrics = [
            Metric(key, float(look[key]), now, int(look["items"]))
            for _, look in res.looks.iterrows()
            if int(look["items"]) not in logged
            for key in ("estimate", "lower", "upper")
            if math.isfinite(look[key])
        ]
        for i in range(0, len(metrics), _BATCH):
            self.client.log_batch(self.parent_id, metrics=metrics[i : i + _BATCH])
        self.client.set_tag(self.parent_id, f"{TAG}decision", res.decision)
        if res.decision != "continue" and self.model_name is not None:
            self._move_alias(res, version)
        if res.decision != "continue":
            self._terminate(self.parent_id)
        return str(self.parent_id)

    def _move_alias(self, res: Any, version: str | None) -> None:
        tags = self.client.get_run(self.parent_id).data.tags
        if f"{TAG}alias.action" in tags:  # an earlier run of the job already moved or refused
            return
        current = self._current_version()
        if res.decision != "promote" or version is None:
            why = str(res) if version is not None else f"{res}; no --mlflow-version to promote"
            self._record("refused", why, current, current)
        elif current == str(version):
            self._record(
                "unchanged", f"{self.alias} already on version {version}", current, current
            )
        else:
            self.client.set_registered_model_alias(self.model_name, self.alias, str(version))
            self._record("moved", str(res), current, str(version))
