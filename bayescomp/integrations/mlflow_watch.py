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


class WatchTracker(MlflowTracker):
    """Log a :class:`~bayescomp.posterior.sequential.SequentialResult` (``model_name``,
    ``tracking_uri``, ``alias``, ``experiment`` as :class:`MlflowTracker`)."""

    def log_watch(self, res: Any, version: str | None = None) -> str:
        """Log the looks not yet logged; on promote move the alias to ``version`` (the
        candidate's registry version). Returns the run id."""
        from mlflow.entities import Metric

        self.identity = json_digest(res.plan.to_dict())[:16]
        name = f"watch {res.plan.candidate} vs {res.plan.baseline}"
        if not self._open_run("watch", name):
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
        self.client.log_batch(self.parent_id, metrics=metrics)  # MLflow splits it in batches
        self.client.set_tag(self.parent_id, f"{TAG}decision", res.decision)
        if res.decision != "continue" and self.model_name is not None:
            self._move_alias(
                res.decision == "promote",
                str(res),
                lambda: None if version is None else str(version),
                f"{res}; no --mlflow-version to promote",
            )
        if res.decision != "continue":
            self._terminate(self.parent_id)
        return str(self.parent_id)
