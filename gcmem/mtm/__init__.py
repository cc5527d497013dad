"""Medium-term memory: every chunk, in one Qdrant collection partitioned by namespace."""

from gcmem.mtm.index import Hit, MediumTermIndex, chunk_from_payload, chunk_payload
from gcmem.mtm.qdrant import QdrantIndex, open_index

__all__ = [
    "Hit",
    "MediumTermIndex",
    "QdrantIndex",
    "chunk_from_payload",
    "chunk_payload",
    "open_index",
]
