"""The uncertainty band: pairs whose (calibrated) score falls in [low, high) go to a second
oracle (the LLM judge, when configured) instead of being guessed; the rest keep the first
oracle's score. θ names both oracles and the band, so routed verdicts are logged apart.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gcmem.oracle.base import (
    ConflictOracle,
    OracleIdentity,
    Pair,
    decide,
    is_query_conditioned,
    score_for,
)


class BandOracle:
    def __init__(
        self, primary: ConflictOracle, secondary: ConflictOracle, *, low: float, high: float
    ) -> None:
        if not 0.0 <= low < high <= 1.0:
            raise ValueError(f"the uncertainty band needs 0 <= low < high <= 1, got {low}, {high}")
        self.primary = primary
        self.secondary = secondary
        self.low = low
        self.high = high
        self.threshold = primary.threshold
        self.routed = 0  # pairs sent to the second oracle over this object's life
        self._identity = OracleIdentity(
            "band",
            {
                "primary": primary.identity.canonical(),
                "secondary": secondary.identity.canonical(),
                "band": [low, high],
                # The second oracle decides routed pairs with its own threshold; its verdict
                # is stored as a score on the primary's scale (1.0 or 0.0).
                "secondary_threshold": secondary.threshold,
            },
        )

    @property
    def identity(self) -> OracleIdentity:
        return self._identity

    @property
    def symmetric(self) -> bool:
        return self.primary.symmetric and self.secondary.symmetric

    def uncertain(self, scores: np.ndarray) -> np.ndarray:
        return (scores >= self.low) & (scores < self.high)

    @property
    def query_conditioned(self) -> bool:
        return is_query_conditioned(self.primary)

    def score(self, pairs: Sequence[Pair]) -> np.ndarray:
        return self._route(pairs, None)

    def score_with_question(self, pairs: Sequence[Pair], question: str) -> np.ndarray:
        return self._route(pairs, question)

    def _route(self, pairs: Sequence[Pair], question: str | None) -> np.ndarray:
        scores = score_for(self.primary, pairs, question).copy()
        idx = np.flatnonzero(self.uncertain(scores))
        if len(idx):
            second = score_for(self.secondary, [pairs[int(i)] for i in idx], question)
            verdicts = np.asarray(self.secondary.decide(second), dtype=bool)
            # Routed pairs are decided by the second oracle: 1.0 contradicts, 0.0 does not,
            # whatever the first oracle's threshold is.
            scores[idx] = np.where(verdicts, 1.0, 0.0)
            self.routed += len(idx)
        return scores

    def decide(self, scores: np.ndarray | float) -> np.ndarray:
        return decide(scores, self.threshold)
