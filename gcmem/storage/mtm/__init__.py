"""Medium-term memory: every chunk, in one Qdrant collection partitioned by namespace.

Engines are imported when opened: each pulls a native client that ``import gcmem`` should not.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from gcmem.settings import StorageSettings
from gcmem.storage.mtm.index import Hit, MediumTermIndex, chunk_from_payload, chunk_payload

__all__ = ["Hit", "MediumTermIndex", "chunk_from_payload", "chunk_payload", "open_index"]


def open_index(storage: StorageSettings) -> MediumTermIndex:
    """The configured engine: a Qdrant server by URL, else the embedded engine."""
    if storage.qdrant_url is not None:
        from qdrant_client import QdrantClient

        from gcmem.storage.mtm.qdrant import QdrantIndex

        api_key = storage.qdrant_api_key.get_secret_value() if storage.qdrant_api_key else None
        client = QdrantClient(url=storage.qdrant_url, api_key=api_key)
        return QdrantIndex(client, storage.qdrant_collection)
    path = storage.resolved_qdrant_path()
    if storage.embedded_engine == "edge":
        from gcmem.storage.mtm.edge import EdgeIndex

        return EdgeIndex(None if path == ":memory:" else Path(path), storage.qdrant_collection)
    from qdrant_client import QdrantClient

    from gcmem.storage.mtm.qdrant import QdrantIndex

    # Local mode ignores payload indexes and says so on every create; the server honours them.
    warnings.filterwarnings("ignore", message="Payload indexes have no effect in the local Qdrant")
    if path == ":memory:":
        return QdrantIndex(QdrantClient(location=":memory:"), storage.qdrant_collection)
    Path(path).mkdir(parents=True, exist_ok=True)
    return QdrantIndex(QdrantClient(path=path), storage.qdrant_collection)
