"""The medium-term index interface, shared by every vector engine gcmem runs on."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from gcmem.models import Chunk

# Payload flag set by write-time GC when every assertion of a chunk is superseded; searches can
# exclude flagged chunks before top-k. The chunk itself is never deleted.
SUPERSEDED_FLAG = "superseded"
# Beside the flag, who set it and why (stage, the newer chunk and turn, decision time, keys), so a
# flag explains itself; derived state like the flag, rebuilt from the ledger.
FLAG_RECORD = "superseded_record"
# Set by write-time GC from κ (a newer neighbour contradicts the chunk under Φ_T's dropping
# rule): the value is the identity of the decision (oracle θ, thresholds, rule), so a search
# honours only flags of the identity it runs under; the record says who, how and when.
DOMINATED_FLAG = "dominated"
DOMINATED_RECORD = "dominated_record"


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    score: float
    vector: np.ndarray | None = None


# Engines return exact score ties (identical vectors: a text restated word for word) in the
# order they find them, which differs from run to run. A search fetches this many more than k
# and more again while a tie runs past what it fetched (``settled_top_k``), then cuts in a fixed
# order, so R_k and every neighbour list are reproducible.
TIE_MARGIN = 4


def settled_top_k(fetch: Callable[[int], list[list[Hit]]], k: int) -> list[list[Hit]]:
    """Per query, the ``k`` best hits of ``fetch(limit)`` (an engine's search at that limit),
    exact ties by chunk id: the limit grows until no tie with a kept hit runs past it."""
    limit = k + TIE_MARGIN
    while True:
        results = fetch(limit)  # best first
        if not any(len(h) == limit and h[-1].score >= h[k - 1].score for h in results if k):
            return [sorted(h, key=lambda x: (-x.score, x.chunk.id))[:k] for h in results]
        limit *= 2


@runtime_checkable
class MediumTermIndex(Protocol):
    def ensure(self, dim: int) -> None:
        """Create the collection and its payload indexes if they do not exist."""
        ...

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        """Idempotent: chunk ids are deterministic, so a re-ingested chunk overwrites itself."""
        ...

    def search(
        self,
        namespace: str,
        queries: np.ndarray,
        k: int,
        *,
        exclude_flagged: bool = False,
        exclude_dominated: str | None = None,
    ) -> list[list[Hit]]:
        """Top-k per query vector within one namespace, with the stored vectors, best first
        and exact ties in a fixed order (``settled_top_k``);
        ``exclude_flagged`` leaves out ledger-flagged chunks, ``exclude_dominated`` chunks
        κ-flagged under that decision identity (flags of other identities do not count)."""
        ...

    def fetch(self, namespace: str, ids: Sequence[str]) -> dict[str, Hit]:
        """Chunks and vectors by id (score 0); ids of other namespaces are not returned."""
        ...

    def set_payload(
        self, namespace: str, ids: Sequence[str], payload: Mapping[str, Any]
    ) -> None: ...

    def count(self, namespace: str | None = None) -> int: ...

    def close(self) -> None: ...


@runtime_checkable
class FlagIndex(Protocol):
    """Reads of write-time GC flags (the engines gcmem ships implement it; a remote index over
    the bus need not, and then flags cannot be listed or explained from it)."""

    def flag_records(self, namespace: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The flag record of each of these chunks that is flagged (others are left out)."""
        ...

    def flagged(self, namespace: str | None = None) -> list[tuple[str, str]]:
        """(namespace, chunk id) of every flagged chunk, of one namespace or all."""
        ...

    def count_flagged(self, namespace: str) -> int: ...


@runtime_checkable
class DominatedIndex(Protocol):
    """Reads of κ flags (``DOMINATED_FLAG``; the engines gcmem ships implement it)."""

    def dominated_records(self, namespace: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The κ flag record of each of these chunks that has one (any identity)."""
        ...

    def dominated(self, namespace: str) -> list[str]:
        """Ids of every chunk of the namespace that carries a κ flag (any identity)."""
        ...

    def count_dominated(self, namespace: str, identity: str, *, unflagged: bool = False) -> int:
        """Chunks κ-flagged under ``identity``; with ``unflagged``, only those the ledger has
        not flagged too (so the two exclusions' counts add up without counting twice)."""
        ...

    def chunk_ids(self, namespace: str) -> list[str]:
        """Every chunk id of the namespace (a rebuild pages from each)."""
        ...


FLAG_FIELDS = (SUPERSEDED_FLAG, FLAG_RECORD, DOMINATED_FLAG, DOMINATED_RECORD)


def chunk_payload(chunk: Chunk) -> dict[str, Any]:
    payload = chunk.model_dump(mode="json", exclude={"id"})
    payload[SUPERSEDED_FLAG] = False
    return payload


def chunk_from_payload(point_id: str, payload: Mapping[str, Any]) -> Chunk:
    data = {k: v for k, v in payload.items() if k not in FLAG_FIELDS}
    return Chunk.model_validate({"id": str(point_id), **data})
