"""The stage interfaces every filter and ingest-side component implements."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

import numpy as np

from gcmem.models import Chunk, Conflict, Decision, ScoredChunk

# When the caller needs the answer (``time.monotonic()``); stages with open-ended work (κ)
# stop starting new work past it and report what they left undone. Set by whoever runs the
# query with a deadline (the pipeline's query pool); unset = no limit (library calls).
_WORK_DEADLINE: ContextVar[float | None] = ContextVar("gcmem_work_deadline", default=None)


@contextlib.contextmanager
def work_deadline(seconds: float | None) -> Iterator[None]:
    """Within the block, ``past_deadline()`` turns true ``seconds`` from now."""
    token = _WORK_DEADLINE.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _WORK_DEADLINE.reset(token)


def past_deadline(ahead_s: float = 0.0) -> bool:
    """The deadline has passed, or will have ``ahead_s`` from now (work that long would end
    after it)."""
    deadline = _WORK_DEADLINE.get()
    return deadline is not None and time.monotonic() + ahead_s >= deadline


def has_deadline() -> bool:
    return _WORK_DEADLINE.get() is not None


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
    # The question asks for an earlier value (``gcmem.facts.earlier``): the chain runs as ever,
    # but what it decides against stays in the context with its record
    # (``RetrievalResult.superseded``).
    earlier: bool = False


@dataclass(frozen=True)
class FilterOutcome:
    """A stage's survivors (input order), its drops, and the pairs it saw disagree but could
    not decide (both chunks stay; the result surfaces them)."""

    kept: list[ScoredChunk]
    dropped: list[Decision]
    conflicts: list[Conflict] = field(default_factory=list)

    def __iter__(self) -> Iterator[list[ScoredChunk] | list[Decision]]:
        # ``kept, dropped = stage.apply(...)``: the two lists most callers want.
        yield self.kept
        yield self.dropped


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
