"""The stage interfaces every filter and ingest-side component implements."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from gcmem.models import Chunk, Decision, ScoredChunk


@dataclass(frozen=True)
class QueryContext:
    """What a filter may know about the query besides the candidates themselves."""

    query: str
    namespace: str
    as_of: datetime
    query_vector: np.ndarray | None = None
    # Candidate chunk id -> its normalised embedding (cosine = dot product).
    vectors: Mapping[str, np.ndarray] = field(default_factory=dict)
    # Stage name -> what a per-query budget left undone (filled in by the stages, copied
    # into ``RetrievalResult.budgets``).
    budgets: dict[str, dict[str, int]] = field(default_factory=dict)


class FilterOutcome(NamedTuple):
    kept: list[ScoredChunk]
    dropped: list[Decision]


@runtime_checkable
class CandidateFilter(Protocol):
    """One query-time stage: candidates in, survivors (same order) and decisions out."""

    name: str

    def apply(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> FilterOutcome: ...


@runtime_checkable
class IngestStage(Protocol):
    """Work done per ingested batch after the chunks are durable in MTM and STM (ledger writes,
    verdict precompute). Must be idempotent per chunk id: redelivery calls it again."""

    name: str

    def on_ingest(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None: ...
