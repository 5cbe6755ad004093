"""The smallest complete fit cache: a :class:`~bayescomp.core.protocols.FitStore` in a dict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bayescomp.core.exceptions import DesignChangedError


class MemoryStore:
    """A :class:`~bayescomp.core.protocols.FitStore` in a dict: resumes within a process.

    :func:`bayescomp.select_models` uses one when no ``store=`` is given, so that each fit
    is computed once even when sequential testing asks for more repetitions; it is also
    the smallest complete backend (``docs/selection.md``).

    Examples
    --------
    >>> st = MemoryStore()
    >>> st.write_fit(dataset="d", model="m", split=0, seed=0, params_hash="h", params="{}",
    ...              result={"scores": {"acc": 0.9}, "fit_time": 0.1, "score_time": 0.0,
    ...                      "error": None, "best_params": None})
    >>> st.load_fits("d", "m")[0]["scores"]
    {'acc': 0.9}
    """

    def __init__(self) -> None:
        self.designs: dict[tuple[str, int], str] = {}
        self.models: dict[str, str] = {}
        self.fits: dict[tuple[str, str, int], dict[str, Any]] = {}

    def _check(self, key: tuple[str, int], fingerprint: str) -> bool:
        known = key in self.designs
        if self.designs.setdefault(key, fingerprint) != fingerprint:
            raise DesignChangedError(
                f"other splits or data for dataset {key[0]!r} (block "
                f"{key[1]}) than this store holds; use a new store"
            )
        return known

    def check_design(
        self,
        dataset: str,
        *,
        fingerprint: str,
        data_hash: str,
        n_samples: int,
        n_splits: int,
        metric: str,
        scoring: list[str],
        cv: str,
        seed: int | None,
        splits: Sequence[Mapping[str, Any]],
    ) -> bool:
        return self._check((dataset, 0), f"{fingerprint}/{data_hash}")

    def check_block(
        self,
        dataset: str,
        block: int,
        *,
        fingerprint: str,
        seed: int | None,
        splits: Sequence[Mapping[str, Any]],
    ) -> None:
        self._check((dataset, block), fingerprint)

    def check_model(
        self,
        model: str,
        *,
        params_hash: str,
        params: str,
        description: str = "",
        path: str | None = None,
        nested: bool = False,
    ) -> None:
        if self.models.setdefault(model, params_hash) != params_hash:
            raise DesignChangedError(
                f"model {model!r} changed since its fits were stored; "
                "rename the model or use a new store"
            )

    def load_fits(self, dataset: str, model: str) -> dict[int, dict[str, Any]]:
        return {
            k: dict(r)
            for (d, m, k), r in self.fits.items()
            if d == dataset and m == model and r["error"] is None
        }

    def write_fit(
        self,
        *,
        dataset: str,
        model: str,
        split: int,
        seed: int | None,
        result: Mapping[str, Any],
        params_hash: str,
        params: str,
    ) -> None:
        self.fits[(dataset, model, int(split))] = {
            k: result.get(k)
            for k in ("scores", "fit_time", "score_time", "error", "best_params", "predictions")
        }
