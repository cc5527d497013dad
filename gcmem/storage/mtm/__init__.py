"""Medium-term memory: every chunk, in one Qdrant collection partitioned by namespace.

Engines are imported when opened: each pulls a native client that ``import gcmem`` should not.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from gcmem.settings import Settings
from gcmem.storage.mtm.index import Hit, MediumTermIndex, chunk_from_payload, chunk_payload

__all__ = ["Hit", "MediumTermIndex", "chunk_from_payload", "chunk_payload", "open_index"]


def open_index(settings: Settings) -> MediumTermIndex:
    """The configured engine: a Qdrant server by URL, else the embedded engine."""
    if settings.qdrant_url is not None:
        from qdrant_client import QdrantClient

        from gcmem.storage.mtm.qdrant import QdrantIndex

        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        client = QdrantClient(url=settings.qdrant_url, api_key=api_key)
        return QdrantIndex(client, settings.qdrant_collection)
    path = settings.resolved_qdrant_path()
    if settings.embedded_engine == "edge":
        from gcmem.storage.mtm.edge import EdgeIndex

        return EdgeIndex(None if path == ":memory:" else Path(path), settings.qdrant_collection)
    from qdrant_client import QdrantClient

    from gcmem.storage.mtm.qdrant import QdrantIndex

    # Local mode ignores payload indexes and says so on every create; the server honours them.
    warnings.filterwarnings("ignore", message="Payload indexes have no effect in the local Qdrant")
    if path == ":memory:":
        return QdrantIndex(QdrantClient(location=":memory:"), settings.qdrant_collection)
    Path(path).mkdir(parents=True, exist_ok=True)
    return QdrantIndex(QdrantClient(path=path), settings.qdrant_collection)
