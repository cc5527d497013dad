"""The conflict oracle κ: pairs of statements -> probability that they contradict each other.

Every oracle has an identity θ: everything that determines its scores (model and weights,
input template, label map, direction policy). Verdicts are logged under θ, so two processes
with the same θ share verdicts and a changed model never reuses stale ones. The decision
threshold is *not* part of θ: the log stores scores, and a threshold change re-decides from
them without recomputing anything.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

# "forward": one pass, premise = the older statement, hypothesis = the newer one.
# "max": both orders, the larger probability (NLI is asymmetric: a value flip often scores
# high in one direction only).
# "both": both orders, the smaller probability: the pair contradicts whichever statement is
# the premise, which parallel keys and elaborations rarely do (the no-harm rule's default).
Direction = Literal["forward", "max", "both"]
DIRECTIONS: tuple[Direction, ...] = ("forward", "max", "both")

Pair = tuple[str, str]


class OracleError(RuntimeError):
    """The oracle cannot produce scores (bad model config, unreachable judge, bad answer)."""


@dataclass(frozen=True)
class OracleIdentity:
    """θ: the oracle's kind and the parameters that determine its scores."""

    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def canonical(self) -> str:
        return json.dumps({"kind": self.kind, **self.params}, sort_keys=True, default=str)

    @property
    def digest(self) -> str:
        # 128 bits of SHA-256: a Redis key part, collision-free for any realistic set of θs.
        return hashlib.sha256(self.canonical().encode()).hexdigest()[:32]


@runtime_checkable
class ConflictOracle(Protocol):
    """κ over batches of (older, newer) statement pairs.

    ``score`` returns P(contradiction) per pair with the direction policy applied; when
    ``symmetric`` is true the score does not depend on the pair's order (the verdict log then
    keys the unordered pair). ``decide`` compares scores with ``threshold``.
    """

    threshold: float

    @property
    def identity(self) -> OracleIdentity: ...

    @property
    def symmetric(self) -> bool: ...

    def score(self, pairs: Sequence[Pair]) -> np.ndarray: ...

    def decide(self, scores: np.ndarray | float) -> np.ndarray: ...


@runtime_checkable
class Redirectable(Protocol):
    """A model oracle that can score the same pairs under another direction policy."""

    threshold: float

    def with_direction(self, direction: Direction) -> ConflictOracle: ...


def decide(scores: np.ndarray | float, threshold: float) -> np.ndarray:
    """κ = 1 where the contradiction probability reaches the threshold."""
    return np.asarray(scores, dtype=np.float64) >= threshold


def check_threshold(threshold: float) -> float:
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"oracle threshold must be within [0, 1], got {threshold}")
    return float(threshold)


def check_direction(direction: str) -> Direction:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    return direction


def apply_direction(
    score_directed: Callable[[Sequence[Pair]], np.ndarray],
    pairs: Sequence[Pair],
    direction: Direction,
) -> np.ndarray:
    """Scores under a direction policy from a function scoring (premise, hypothesis) pairs.

    Both orders of every pair go to ``score_directed`` in one call, so a batched backend
    still sees a single batch.
    """
    if not pairs:
        return np.zeros(0, dtype=np.float64)
    if direction == "forward":
        return np.asarray(score_directed(pairs), dtype=np.float64)
    both = list(pairs) + [(b, a) for a, b in pairs]
    scores = np.asarray(score_directed(both), dtype=np.float64)
    n = len(pairs)
    if direction == "both":
        return np.minimum(scores[:n], scores[n:])
    return np.maximum(scores[:n], scores[n:])


def is_query_conditioned(oracle: object) -> bool:
    """Whether ``oracle`` judges pairs relative to a question (``score_with_question``)."""
    return bool(getattr(oracle, "query_conditioned", False))


class WrappedOracle:
    """Plumbing shared by oracles that wrap one other oracle (gate, calibration): θ is set by
    the subclass; symmetry and query conditioning are the inner oracle's."""

    inner: ConflictOracle
    _identity: OracleIdentity

    @property
    def identity(self) -> OracleIdentity:
        return self._identity

    @property
    def symmetric(self) -> bool:
        return self.inner.symmetric

    @property
    def query_conditioned(self) -> bool:
        return is_query_conditioned(self.inner)


def score_for(oracle: ConflictOracle, pairs: Sequence[Pair], question: str | None) -> np.ndarray:
    """κ for ``pairs``, relative to ``question`` when the oracle is query-conditioned."""
    if question and is_query_conditioned(oracle):
        return np.asarray(oracle.score_with_question(pairs, question), dtype=np.float64)  # type: ignore[attr-defined]
    return np.asarray(oracle.score(pairs), dtype=np.float64)
