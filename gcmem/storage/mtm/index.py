"""The medium-term index interface, shared by every vector engine gcmem runs on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from gcmem.models import Chunk

# Payload flag set by write-time GC when every assertion of a chunk is superseded; searches can
# exclude flagged chunks before top-k. The chunk itself is never deleted.
SUPERSEDED_FLAG = "superseded"


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    score: float
    vector: np.ndarray | None = None


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
    ) -> list[list[Hit]]:
        """Top-k per query vector within one namespace, with the stored vectors."""
        ...

    def fetch(self, namespace: str, ids: Sequence[str]) -> dict[str, Hit]:
        """Chunks and vectors by id (score 0); ids of other namespaces are not returned."""
        ...

    def set_payload(
        self, namespace: str, ids: Sequence[str], payload: Mapping[str, Any]
    ) -> None: ...

    def count(self, namespace: str | None = None) -> int: ...

    def close(self) -> None: ...


def chunk_payload(chunk: Chunk) -> dict[str, Any]:
    payload = chunk.model_dump(mode="json", exclude={"id"})
    payload[SUPERSEDED_FLAG] = False
    return payload


def chunk_from_payload(point_id: str, payload: Mapping[str, Any]) -> Chunk:
    data = {k: v for k, v in payload.items() if k != SUPERSEDED_FLAG}
    return Chunk.model_validate({"id": str(point_id), **data})
