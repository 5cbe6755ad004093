"""A compare method on paired predictions, registered from outside the package.

It is the fixture of ``tests/test_contract.py``: installed through the entry-point group
``bayescomp.methods``, it must appear in ``bayescomp compare --method`` without any change
to the command line.  The statistics are small and exact enough to check: each test item
falls in one of three cells (only the baseline right, both or neither right, only the
candidate right); with a flat Dirichlet prior the cell probabilities have the posterior
``Dirichlet(n_b + 1, n_tie + 1, n_c + 1)``, and ``mu = theta_c - theta_b`` is the
difference in accuracy.  At rope 0, ``P(mu > 0) = P(Beta(n_c + 1, n_b + 1) > 1/2)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bayescomp.core.jsonable import jsonable
from bayescomp.core.regions import RegionProbabilities
from bayescomp.core.rule import Decision, decide
from bayescomp.posterior.registry import PairedPredictions, register


@dataclass(frozen=True)
class DiscordantResult:
    draws: np.ndarray
    rope: float
    baseline_name: str
    candidate_name: str
    metric: str | None = "accuracy"
    higher_is_better: bool = True

    @property
    def half_width(self) -> float:
        return self.rope

    @property
    def p_left(self) -> float:
        return float(np.mean(self.draws < -self.rope))

    @property
    def p_rope(self) -> float:
        return float(np.mean(np.abs(self.draws) <= self.rope))

    @property
    def p_right(self) -> float:
        return float(np.mean(self.draws > self.rope))

    @property
    def p_better(self) -> float:
        return float(np.mean(self.draws > 0))

    @property
    def p_worse(self) -> float:
        return float(np.mean(self.draws < 0))

    @property
    def expected_gain(self) -> float:
        return float(self.draws.mean())

    def hdi(self, confidence_level: float = 0.95) -> tuple[float, float]:
        lo, hi = np.quantile(self.draws, [(1 - confidence_level) / 2, (1 + confidence_level) / 2])
        return float(lo), float(hi)

    def probabilities(self) -> dict[str, RegionProbabilities]:
        return {"mu": RegionProbabilities(self.p_left, self.p_rope, self.p_right, "mu")}

    def diagnostics_summary(self) -> dict[str, Any]:
        return {}

    def decision(self, gamma: float = 0.95) -> Decision:
        return decide(
            self.p_left,
            self.p_rope,
            self.p_right,
            gamma=gamma,
            expected_gain=self.expected_gain,
            risk=self.p_worse,
            rope=self.rope,
            baseline=self.baseline_name,
            candidate=self.candidate_name,
        )

    def summary(self, *, confidence_level: float | None = None) -> pd.DataFrame:
        lo, hi = self.hdi(confidence_level or 0.95)
        return pd.DataFrame(
            [
                {
                    "baseline": self.baseline_name,
                    "candidate": self.candidate_name,
                    "mean": self.expected_gain,
                    "low": lo,
                    "high": hi,
                    "p_left": self.p_left,
                    "p_rope": self.p_rope,
                    "p_right": self.p_right,
                }
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        return jsonable({**self.summary().iloc[0].to_dict(), "method": "discordant"})

    def plot(self, *, ax: Any = None) -> Any:
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        ax.hist(self.draws, bins=50)
        return ax

    def figures(self) -> dict[str, Any]:
        return {"posterior": self.plot().figure}

    def _repr_html_(self) -> str:
        return f"<p>{self.decision().outcome}</p>"


@register(
    "discordant",
    input="predictions",
    description="test fixture: Dirichlet posterior of an accuracy difference",
)
def fit(data: PairedPredictions, draws: int = 20_000) -> DiscordantResult:
    b = data.baseline == data.y_true
    c = data.candidate == data.y_true
    counts = np.array([np.sum(b & ~c), np.sum(b == c), np.sum(c & ~b)], dtype=float)
    theta = np.random.default_rng(data.random_state).dirichlet(counts + 1, draws)
    return DiscordantResult(
        theta[:, 2] - theta[:, 0],
        float(data.rope),
        data.names["baseline_name"],
        data.names["candidate_name"],
    )
