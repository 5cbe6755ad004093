"""Two ``mlflow.genai.evaluate`` runs compared scorer by scorer: :func:`compare_runs`.

Rows pair as in MLflow 3.18's ``compare_evaluations``: on the traces' evaluation request ID,
then on a hash of the inputs; a key two rows of one run share pairs nothing.  Feedbacks of one
name on a trace are averaged.  Each scorer gets :func:`bayescomp.holdout_posterior` (with
``cluster=``) and all are decided together at the Bonferroni-split ``gamma`` (docs/mlflow.md)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bayescomp.core.checks import check_gamma
from bayescomp.core.margins import Absolute, as_margin
from bayescomp.core.rule import joint_outcome, split_gamma

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from bayescomp.posterior.holdout import HoldoutResult


@dataclass(frozen=True)
class EvalRow:
    """One row of an evaluation run: its trace, pairing keys, inputs and scorer values."""

    trace_id: str
    request_id: str | None
    inputs_hash: str | None
    inputs: Any
    values: Mapping[str, float]  # the mean of each scorer's feedbacks on the trace


def feedback_value(value: Any) -> float | None:
    """A feedback as a number, as MLflow aggregates it: bool/int/float, ``"yes"``/``"no"``."""
    if isinstance(value, bool | int | float):
        return float(value)
    return {"yes": 1.0, "no": 0.0}.get(value.lower()) if isinstance(value, str) else None


def experiments(run_ids: Sequence[str]) -> list[str]:
    """The experiment of each run; run IDs the tracking server does not know are refused
    together, by name (MLflow's own exception before)."""
    import mlflow
    from mlflow.exceptions import MlflowException

    found, unknown = [], []
    for run_id in run_ids:
        try:
            found.append(mlflow.MlflowClient().get_run(run_id).info.experiment_id)
        except MlflowException as exc:
            if exc.error_code not in ("RESOURCE_DOES_NOT_EXIST", "INVALID_PARAMETER_VALUE"):
                raise
            unknown.append(run_id)
    if unknown:
        raise ValueError(
            f"no run {' or '.join(map(repr, unknown))} on the tracking server "
            f"{mlflow.get_tracking_uri()}: pass the run IDs of two mlflow.genai.evaluate runs "
            "(the Run ID on each run's page)"
        )
    return found


def load_rows(run_id: str, experiment: str) -> list[EvalRow]:
    """The rows of an evaluation run: its traces, with the valid feedbacks of this run."""
    import mlflow
    from mlflow.entities.assessment import Feedback

    rows = []
    for trace in mlflow.search_traces(locations=[experiment], run_id=run_id, return_type="list"):
        values: dict[str, list[float]] = {}
        for a in trace.info.assessments:
            ok = isinstance(a, Feedback) and a.valid is not False and a.error is None
            if ok and a.run_id in (None, run_id) and (v := feedback_value(a.value)) is not None:
                values.setdefault(a.name, []).append(v)
        inputs = next((s.inputs for s in trace.data.spans if s.parent_id is None), None)
        text = json.dumps(inputs, sort_keys=True, default=str).encode()
        digest = None if inputs is None else hashlib.sha256(text).hexdigest()
        means = {k: sum(v) / len(v) for k, v in values.items()}
        request = trace.info.tags.get("mlflow.eval.requestId")
        rows.append(EvalRow(trace.info.trace_id, request, digest, inputs, means))
    return rows


def pair_rows(
    baseline: Sequence[EvalRow], candidate: Sequence[EvalRow]
) -> tuple[list[tuple[EvalRow, EvalRow, str]], list[EvalRow], list[EvalRow]]:
    """``(pairs, unpaired_baseline, unpaired_candidate)``; a pair: ``(baseline row, candidate
    row, "request_id" or "inputs_hash")``, in the candidate's order per key."""
    pairs: list[tuple[EvalRow, EvalRow, str]] = []
    base, cand = list(baseline), list(candidate)
    for key in ("request_id", "inputs_hash"):
        by_b, by_c = _unique(base, key), _unique(cand, key)
        found = [(by_b[k], row, key) for k, row in by_c.items() if k in by_b]
        done = {id(r) for b, c, _ in found for r in (b, c)}
        pairs += found
        base = [r for r in base if id(r) not in done]
        cand = [r for r in cand if id(r) not in done]
    return pairs, base, cand


def _unique(rows: list[EvalRow], key: str) -> dict[str, EvalRow]:
    counts = Counter(getattr(r, key) for r in rows)
    return {getattr(r, key): r for r in rows if getattr(r, key) and counts[getattr(r, key)] == 1}


@dataclass
class RunComparison:
    """Every scorer's posterior of candidate − baseline on the paired rows, and the
    family-wise decision (each scorer decided at ``scorer_gamma``, ``1 − (1 − gamma)/k``)."""

    candidate_run_id: str
    baseline_run_id: str
    results: dict[str, HoldoutResult]
    gamma: float
    pairs: pd.DataFrame  # baseline_trace_id, candidate_trace_id, paired_on, cluster
    unpaired_baseline: list[str]
    unpaired_candidate: list[str]

    @property
    def scorer_gamma(self) -> float:
        return split_gamma(self.gamma, len(self.results))

    @property
    def outcome(self) -> str:
        """The scorers' joint outcome (:func:`bayescomp.core.rule.joint_outcome`), each
        decided at ``scorer_gamma``: all the claims hold together with probability at least
        ``gamma``."""
        return joint_outcome(r.decision(self.scorer_gamma).outcome for r in self.results.values())

    def summary(self) -> pd.DataFrame:
        """One row per scorer: the means, their observed difference ``diff``, the posterior
        mean of the difference and its 95 % interval, all candidate − baseline on the scorer's
        scale (as MLflow's ``compare_evaluations`` names them); the three probabilities and
        the decision follow the scorer's direction (``higher_is_better``)."""
        import pandas as pd

        rows = []
        for name, r in self.results.items():
            sign = 1.0 if r.higher_is_better else -1.0  # the posterior's gain -> the difference
            low, high = sorted(sign * v for v in r.interval(0.95))
            rows.append(
                dict(
                    scorer=name,
                    n_paired=r.n_rows,
                    n_clusters=r.n_clusters,
                    baseline_mean=r.baseline_score,
                    candidate_mean=r.candidate_score,
                    diff=r.candidate_score - r.baseline_score,  # as compare_evaluations
                    posterior_mean=sign * r.expected_gain,
                    ci_low=low,
                    ci_high=high,
                    higher_is_better=r.higher_is_better,
                    rope=r.rope,
                    p_worse_beyond_rope=r.p_left,
                    p_rope=r.p_rope,
                    p_better_beyond_rope=r.p_right,
                    decision=r.decision(self.scorer_gamma).outcome,
                    design_effect=r.design_effect,
                )
            )
        return pd.DataFrame(rows)

    def log(self) -> None:
        """Log to the candidate run under ``compare/<baseline run[:8]>/<scorer>/<stat>``, the
        decision as the tag ``compare/<run8>/decision``, and ``compare/<run8>.json``."""
        import time

        import mlflow
        from mlflow.entities import Metric, RunTag

        head, now, record = (
            f"compare/{self.baseline_run_id[:8]}",
            int(time.time() * 1000),
            self.to_dict(),
        )
        metrics = [
            Metric(f"{head}/{row['scorer']}/{k}", float(v), now, 0)
            for row in record["scorers"]
            for k, v in row.items()
            if k not in ("scorer", "decision", "rope") and v is not None
        ]
        client, run = mlflow.MlflowClient(), self.candidate_run_id
        client.log_batch(run, metrics=metrics, tags=[RunTag(f"{head}/decision", self.outcome)])
        client.log_dict(run, {"baseline_run_id": self.baseline_run_id, **record}, f"{head}.json")

    def to_dict(self) -> dict[str, Any]:
        from bayescomp.core.jsonable import jsonable

        return jsonable(
            dict(
                decision=self.outcome,
                gamma=self.gamma,
                scorer_gamma=self.scorer_gamma,
                scorers=self.summary().to_dict("records"),
                n_paired=len(self.pairs),
                unpaired_baseline=self.unpaired_baseline,
                unpaired_candidate=self.unpaired_candidate,
            )
        )


def _clusters(rows: list[EvalRow], cluster: str | Callable[[Any], Any] | None) -> list[Any]:
    if cluster is None or callable(cluster):
        return [cluster(r.inputs) if cluster else None for r in rows]
    try:
        return [r.inputs[cluster] for r in rows]
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(
            f"cluster={cluster!r} is not a key of the inputs of every row (missing: {exc!r}); "
            "name an input key, or pass a function of the inputs"
        ) from exc


def compare_runs(
    candidate_run_id: str,
    baseline_run_id: str,
    *,
    scorers: Sequence[str] | Mapping[str, bool] | None = None,
    rope: float | Mapping[str, float],
    cluster: str | Callable[[Any], Any] | None = None,
    gamma: float = 0.95,
    log_results: bool = False,
) -> RunComparison:
    """Bayesian comparison of two ``mlflow.genai.evaluate`` runs, scorer by scorer.

    Parameters
    ----------
    candidate_run_id, baseline_run_id : str
        Two evaluation runs of the same rows (the current tracking URI's server).
    scorers : list of names, or dict of name -> higher_is_better, optional
        Default: every scorer with feedback in both runs, higher is better.  A scorer with
        values outside [0, 1] (a grade, a length, a latency) is refused unless this dict
        gives its direction.
    rope : float, or dict of scorer -> float
        Half-width of the region of practical equivalence, on each scorer's scale: one
        float serves pass/fail scorers (or a single scorer), a dict gives each its own.
    cluster : str or callable, optional
        A key of the rows' inputs (``"passage"``), or a function of the inputs: whole
        clusters are resampled.
    gamma : float
        Family-wise decision level: each of ``k`` scorers is decided at ``1 − (1 − gamma)/k``.
    log_results : bool
        Log the result to the candidate run (:meth:`RunComparison.log`).

    Returns
    -------
    RunComparison, with 95 % intervals from 4,000 draws seeded 0 (the same runs, the same answer).
    """
    import warnings

    import numpy as np
    import pandas as pd

    from bayescomp.posterior.holdout import holdout_posterior

    if candidate_run_id == baseline_run_id:
        raise ValueError("candidate_run_id and baseline_run_id are one run; compare two runs")
    check_gamma(gamma)
    ids = (baseline_run_id, candidate_run_id)
    pairs, un_b, un_c = pair_rows(*map(load_rows, ids, experiments(ids)))
    if un_b or un_c:
        why = "no match in the other run, or a request ID or inputs two rows of one run share"
        msg = f"{len(un_b)} baseline and {len(un_c)} candidate row(s) could not be paired ({why})"
        warnings.warn(f"{msg}: left out (RunComparison.unpaired_baseline/_candidate)", stacklevel=2)
    common = sorted(set.intersection(*({k for p in pairs for k in p[j].values} for j in (0, 1))))
    named = common if scorers is None else [scorers] if isinstance(scorers, str) else scorers
    direction = dict(named) if isinstance(named, Mapping) else dict.fromkeys(named, True)
    missing = sorted(set(direction) - set(common))
    if missing or not direction:
        raise ValueError(
            f"scorer(s) {missing} have no feedback on paired rows of both runs; the scorers "
            f"the runs share: {common} ({len(pairs)} paired rows)"
        )
    ropes = rope if isinstance(rope, Mapping) else dict.fromkeys(direction, rope)
    if set(direction) - set(ropes):
        raise ValueError(f"rope names no half-width for {sorted(set(direction) - set(ropes))}")
    cl = _clusters([c for _, c, _ in pairs], cluster)
    results = {}
    for name, up in direction.items():
        keep = [i for i, (b, c, _) in enumerate(pairs) if name in b.values and name in c.values]
        b, c = (np.array([pairs[i][j].values[name] for i in keep]) for j in (0, 1))
        lo, hi = min(b.min(), c.min()), max(b.max(), c.max())
        # pass/fail (and yes/no) scorers share one scale where higher is better; any other
        # needs its own direction, and its own half-width beside other scorers
        if (lo < 0 or hi > 1) and not (
            isinstance(scorers, Mapping) and (isinstance(rope, Mapping) or len(direction) == 1)
        ):
            raise ValueError(
                f"scorer {name!r} has values from {lo:g} to {hi:g}, not pass/fail: give it its "
                f"direction and its own half-width (Python: {{{name!r}: False}} in scorers and "
                f"{{{name!r}: HALF_WIDTH}} in rope; command line: {name}:lower:HALF_WIDTH in "
                "--scorers; lower or higher: which is better)"
            )
        results[name] = holdout_posterior(
            None,
            b,
            c,
            metric=None,
            higher_is_better=up,
            rope=as_margin(ropes[name], takes=(Absolute,), where="compare_runs"),
            cluster=None if cluster is None else [cl[i] for i in keep],
            baseline_name=baseline_run_id,
            candidate_name=candidate_run_id,
            random_state=0,
        )
    table = pd.DataFrame(
        [(b.trace_id, c.trace_id, on, k) for (b, c, on), k in zip(pairs, cl, strict=True)],
        columns=["baseline_trace_id", "candidate_trace_id", "paired_on", "cluster"],
    )
    un = [[r.trace_id for r in rows] for rows in (un_b, un_c)]
    out = RunComparison(candidate_run_id, baseline_run_id, results, gamma, table, *un)
    if log_results:
        out.log()
    return out
