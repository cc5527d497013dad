"""MediumTermIndex on qdrant-client: a Qdrant server or cluster by URL, or local mode in process.

Multitenancy follows Qdrant's pattern: one collection, a keyword ``namespace`` payload index
marked ``is_tenant`` (the server co-locates each tenant's points), and a namespace filter on
every read.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from qdrant_client import QdrantClient, models

from gcmem.models import Chunk
from gcmem.storage.mtm.index import (
    DOMINATED_FLAG,
    DOMINATED_RECORD,
    FLAG_RECORD,
    SUPERSEDED_FLAG,
    Hit,
    chunk_from_payload,
    chunk_payload,
    settled_top_k,
)

log = logging.getLogger(__name__)

# A chunk the ledger flagged as superseded (write-time GC).
_FLAGGED = models.FieldCondition(key=SUPERSEDED_FLAG, match=models.MatchValue(value=True))


def _namespace_filter(
    namespace: str, exclude_flagged: bool = False, exclude_dominated: str | None = None
) -> models.Filter:
    must: list[models.Condition] = [
        models.FieldCondition(key="namespace", match=models.MatchValue(value=namespace))
    ]
    must_not: list[models.Condition] = []
    if exclude_flagged:
        must_not.append(_FLAGGED)
    if exclude_dominated is not None:
        must_not.append(
            models.FieldCondition(
                key=DOMINATED_FLAG, match=models.MatchValue(value=exclude_dominated)
            )
        )
    return models.Filter(must=must, must_not=must_not or None)


class QdrantIndex:
    def __init__(self, client: QdrantClient, collection: str) -> None:
        self.client = client
        self.collection = collection
        self._ready = False

    def ensure(self, dim: int) -> None:
        if self._ready:
            return
        if not self.client.collection_exists(self.collection):
            self.client.create_collection(
                self.collection,
                vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE),
                # Tenant-local HNSW graphs instead of one global graph (Qdrant's multitenancy
                # recipe): m=0 globally, payload_m per namespace.
                hnsw_config=models.HnswConfigDiff(m=0, payload_m=16),
            )
            self.client.create_payload_index(
                self.collection,
                "namespace",
                models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
            )
            self.client.create_payload_index(
                self.collection, "ts", models.PayloadSchemaType.DATETIME
            )
            self.client.create_payload_index(
                self.collection, "turn_id", models.PayloadSchemaType.KEYWORD
            )
            self.client.create_payload_index(
                self.collection, SUPERSEDED_FLAG, models.PayloadSchemaType.BOOL
            )
            self.client.create_payload_index(
                self.collection, DOMINATED_FLAG, models.PayloadSchemaType.KEYWORD
            )
        else:
            info = self.client.get_collection(self.collection)
            params = info.config.params.vectors
            size = params.size if isinstance(params, models.VectorParams) else None
            if size is not None and size != dim:
                raise ValueError(
                    f"collection {self.collection!r} holds {size}-d vectors but the embedder "
                    f"makes {dim}-d ones: use another GCMEM_QDRANT_COLLECTION"
                )
        self._ready = True

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        if not chunks:
            return
        self.ensure(int(vectors.shape[1]))
        points = [
            models.PointStruct(id=c.id, vector=v.tolist(), payload=chunk_payload(c))
            for c, v in zip(chunks, vectors, strict=True)
        ]
        self.client.upsert(self.collection, points=points, wait=True)

    def search(
        self,
        namespace: str,
        queries: np.ndarray,
        k: int,
        *,
        exclude_flagged: bool = False,
        exclude_dominated: str | None = None,
    ) -> list[list[Hit]]:
        if not self._exists():
            return [[] for _ in range(len(queries))]
        flt = _namespace_filter(namespace, exclude_flagged, exclude_dominated)

        def fetch(limit: int) -> list[list[Hit]]:
            requests = [
                models.QueryRequest(
                    query=q.tolist(),
                    filter=flt,
                    limit=limit,
                    with_payload=True,
                    with_vector=True,
                )
                for q in queries
            ]
            responses = self.client.query_batch_points(self.collection, requests=requests)
            return [[self._hit(p) for p in resp.points] for resp in responses]

        return settled_top_k(fetch, k)

    def fetch(self, namespace: str, ids: Sequence[str]) -> dict[str, Hit]:
        if not ids or not self._exists():
            return {}
        records = self.client.retrieve(
            self.collection, ids=list(ids), with_payload=True, with_vectors=True
        )
        hits = {}
        for rec in records:
            if rec.payload is None or rec.payload.get("namespace") != namespace:
                continue
            hit = self._hit(rec)
            hits[hit.chunk.id] = hit
        return hits

    def set_payload(self, namespace: str, ids: Sequence[str], payload: Mapping[str, Any]) -> None:
        if not ids:
            return
        self.client.set_payload(
            self.collection,
            payload=dict(payload),
            points=models.FilterSelector(
                filter=models.Filter(
                    must=[
                        models.HasIdCondition(has_id=list(ids)),
                        models.FieldCondition(
                            key="namespace", match=models.MatchValue(value=namespace)
                        ),
                    ]
                )
            ),
            wait=True,
        )

    def count(self, namespace: str | None = None) -> int:
        if not self._exists():
            return 0
        flt = _namespace_filter(namespace) if namespace is not None else None
        return self.client.count(self.collection, count_filter=flt, exact=True).count

    # --- write-time GC flags (FlagIndex) ---------------------------------------------------
    def flag_records(self, namespace: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        return self._records(namespace, ids, SUPERSEDED_FLAG, FLAG_RECORD)

    def _records(
        self, namespace: str, ids: Sequence[str], flag: str, record: str
    ) -> dict[str, dict[str, Any]]:
        """The ``record`` payload of each of these chunks whose ``flag`` is set."""
        if not ids or not self._exists():
            return {}
        points = self.client.retrieve(
            self.collection, ids=list(ids), with_payload=True, with_vectors=False
        )
        out: dict[str, dict[str, Any]] = {}
        for point in points:
            payload = point.payload or {}
            if payload.get("namespace") == namespace and payload.get(flag):
                out[str(point.id)] = dict(payload.get(record) or {})
        return out

    def flagged(self, namespace: str | None = None) -> list[tuple[str, str]]:
        if not self._exists():
            return []
        must: list[models.Condition] = [_FLAGGED]
        if namespace is not None:
            must.append(
                models.FieldCondition(key="namespace", match=models.MatchValue(value=namespace))
            )
        out: list[tuple[str, str]] = []
        offset: Any = None
        while True:
            records, offset = self.client.scroll(
                self.collection,
                scroll_filter=models.Filter(must=must),
                limit=1024,
                offset=offset,
                with_payload=["namespace"],
                with_vectors=False,
            )
            out += [(str((r.payload or {}).get("namespace")), str(r.id)) for r in records]
            if offset is None or not records:
                return out

    def count_flagged(self, namespace: str) -> int:
        if not self._exists():
            return 0
        flt = models.Filter(
            must=[
                models.FieldCondition(key="namespace", match=models.MatchValue(value=namespace)),
                _FLAGGED,
            ]
        )
        return self.client.count(self.collection, count_filter=flt, exact=True).count

    def dominated_records(self, namespace: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        return self._records(namespace, ids, DOMINATED_FLAG, DOMINATED_RECORD)

    def dominated(self, namespace: str) -> list[str]:
        return self._scroll_ids(namespace, dominated_only=True)

    def chunk_ids(self, namespace: str) -> list[str]:
        return self._scroll_ids(namespace, dominated_only=False)

    def _scroll_ids(self, namespace: str, *, dominated_only: bool) -> list[str]:
        if not self._exists():
            return []
        flt = models.Filter(
            must=[models.FieldCondition(key="namespace", match=models.MatchValue(value=namespace))]
        )
        out: list[str] = []
        offset: Any = None
        while True:
            records, offset = self.client.scroll(
                self.collection,
                scroll_filter=flt,
                limit=1024,
                offset=offset,
                with_payload=[DOMINATED_FLAG],
                with_vectors=False,
            )
            out += [
                str(r.id)
                for r in records
                if not dominated_only or (r.payload or {}).get(DOMINATED_FLAG)
            ]
            if offset is None or not records:
                return out

    def count_dominated(self, namespace: str, identity: str, *, unflagged: bool = False) -> int:
        if not self._exists():
            return 0
        flt = models.Filter(
            must=[
                models.FieldCondition(key="namespace", match=models.MatchValue(value=namespace)),
                models.FieldCondition(key=DOMINATED_FLAG, match=models.MatchValue(value=identity)),
            ],
            must_not=[_FLAGGED] if unflagged else None,
        )
        return self.client.count(self.collection, count_filter=flt, exact=True).count

    def close(self) -> None:
        self.client.close()

    def _exists(self) -> bool:
        return self._ready or self.client.collection_exists(self.collection)

    @staticmethod
    def _hit(point: models.ScoredPoint | models.Record) -> Hit:
        vector = point.vector
        arr = np.asarray(vector, dtype=np.float32) if isinstance(vector, list) else None
        score = float(getattr(point, "score", 0.0) or 0.0)
        return Hit(chunk_from_payload(str(point.id), point.payload or {}), score, arr)
