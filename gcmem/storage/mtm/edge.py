"""MediumTermIndex on Qdrant Edge: Qdrant's own engine (segments, payload indexes, HNSW, WAL)
running inside this process, with no server.

One shard per collection, under ``<path>/edge/<collection>/``; every update goes through the
shard's write-ahead log, so a process that dies without ``close()`` loses nothing on reopen.
``path=None`` keeps the shard in a private temporary directory (Edge has no RAM-only mode) with
the WAL off, deleted at ``close()``.

Tenancy follows the same pattern as ``QdrantIndex``: a ``namespace`` keyword index marked
``is_tenant`` and a namespace filter on every read. Reads are exact: new points land in a plain
(brute-force) segment, and a namespace-filtered query scores only that namespace's points,
found through the payload index. ``optimize()`` builds per-namespace HNSW graphs for large
namespaces; it blocks every other call on the shard while it runs, so it is an explicit
maintenance step, never run on the ingest path (docs/benchmarks.md measures it).
"""

from __future__ import annotations

import json
import tempfile
import threading
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe

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


class EdgeIndexError(RuntimeError):
    """The Edge shard could not be opened or used; the message says what to do."""


class EdgeIndex:
    def __init__(self, path: Path | None, collection: str, *, hnsw_ef: int | None = None) -> None:
        self.collection = collection
        self.hnsw_ef = hnsw_ef
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="gcmem-edge-")
            self.dir = Path(self._tmp.name) / collection
        else:
            self.dir = Path(path) / "edge" / collection
        self.persistent = path is not None
        # Guards shard creation and close; the shard itself is safe to share between threads.
        self._lock = threading.Lock()
        self._closed = False
        self._shard: qe.EdgeShard | None = None
        self._dim: int | None = None
        if (self.dir / "segments").is_dir():
            self._shard = self._load()

    # --- lifecycle -------------------------------------------------------------------------
    def _load(self) -> qe.EdgeShard:
        try:
            shard = qe.EdgeShard.load(str(self.dir))
        except Exception as exc:  # the bindings raise a bare Exception with the engine's text
            raise EdgeIndexError(
                f"cannot open the Qdrant Edge shard at {self.dir}: {exc} (is another process "
                "using this GCMEM_DATA_DIR? An Edge shard has one writer at a time)"
            ) from exc
        self._dim = self._stored_dim()
        return shard

    def _stored_dim(self) -> int | None:
        config = self.dir / "edge_config.json"
        try:
            vectors = json.loads(config.read_text())["vectors"]
            return int(vectors[""]["size"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def ensure(self, dim: int) -> None:
        with self._lock:
            self._check_open()
            if self._shard is not None:
                if self._dim is not None and self._dim != dim:
                    raise ValueError(
                        f"collection {self.collection!r} holds {self._dim}-d vectors but the "
                        f"embedder makes {dim}-d ones: use another GCMEM_QDRANT_COLLECTION"
                    )
                return
            self._shard = self._create(dim)
            self._dim = dim

    def _create(self, dim: int) -> qe.EdgeShard:
        self.dir.mkdir(parents=True, exist_ok=True)
        config = qe.EdgeConfig(
            vectors=qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine),
            # Tenant-local graphs instead of one global graph (Qdrant's multitenancy recipe):
            # m=0 globally, payload_m per namespace; only namespaces above full_scan_threshold
            # (KB of vectors, ~6,600 MiniLM vectors) get a graph, and only at optimize().
            hnsw_config=qe.HnswIndexConfig(
                m=0, ef_construct=100, full_scan_threshold=10_000, payload_m=16
            ),
            # The WAL is what makes an update durable before the next flush; an ephemeral
            # shard is deleted at close, so it has nothing to recover.
            wal_enabled=self.persistent,
        )
        try:
            shard = qe.EdgeShard.create(str(self.dir), config)
        except Exception as exc:  # e.g. another process created it first
            raise EdgeIndexError(
                f"cannot create the Qdrant Edge shard at {self.dir}: {exc}"
            ) from exc
        op = qe.UpdateOperation.create_field_index
        shard.update(op("namespace", qe.KeywordIndexParams(is_tenant=True)))
        # Only the tenant key gets HNSW sub-graphs; graphs per timestamp or per flag value
        # would multiply indexing work for filters that never drive a vector search.
        shard.update(op("ts", qe.DatetimeIndexParams(enable_hnsw=False)))
        shard.update(op("turn_id", qe.KeywordIndexParams(enable_hnsw=False)))
        shard.update(op(SUPERSEDED_FLAG, qe.BoolIndexParams(enable_hnsw=False)))
        shard.update(op(DOMINATED_FLAG, qe.KeywordIndexParams(enable_hnsw=False)))
        return shard

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._shard is not None:
                self._shard.close()
                self._shard = None
            if self._tmp is not None:
                self._tmp.cleanup()
                self._tmp = None

    def optimize(self) -> bool:
        """Build HNSW graphs for namespaces past the full-scan threshold (blocking; every other
        call on this shard waits). Returns whether anything was rebuilt."""
        shard = self._reader()
        return False if shard is None else bool(shard.optimize())

    def flush(self) -> None:
        shard = self._reader()
        if shard is not None:
            shard.flush()

    def _check_open(self) -> None:
        if self._closed:
            raise EdgeIndexError(f"the Edge index at {self.dir} is closed")

    def _reader(self) -> qe.EdgeShard | None:
        self._check_open()
        return self._shard

    # --- writes ----------------------------------------------------------------------------
    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        if not chunks:
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(chunks):
            raise ValueError(
                f"upsert needs one vector per chunk: got {len(chunks)} chunks and vectors of "
                f"shape {vectors.shape}"
            )
        if not np.isfinite(vectors).all():
            raise ValueError("upsert got a vector with NaN or infinite values")
        self.ensure(int(vectors.shape[1]))
        points = [
            qe.Point(c.id, v.tolist(), chunk_payload(c))
            for c, v in zip(chunks, vectors, strict=True)
        ]
        self._writer().update(qe.UpdateOperation.upsert_points(points))

    def set_payload(self, namespace: str, ids: Sequence[str], payload: Mapping[str, Any]) -> None:
        shard = self._reader()
        valid = _valid_ids(ids)
        if shard is None or not valid:
            return
        flt = qe.Filter(must=[qe.HasIdCondition(set(valid)), _namespace_is(namespace)])
        shard.update(qe.UpdateOperation.set_payload_by_filter(flt, dict(payload)))

    def _writer(self) -> qe.EdgeShard:
        shard = self._reader()
        if shard is None:  # ensure() creates the shard before any write
            raise EdgeIndexError(f"the Edge index at {self.dir} has no shard")
        return shard

    # --- reads -----------------------------------------------------------------------------
    def search(
        self,
        namespace: str,
        queries: np.ndarray,
        k: int,
        *,
        exclude_flagged: bool = False,
        exclude_dominated: str | None = None,
    ) -> list[list[Hit]]:
        shard = self._reader()
        if shard is None or len(queries) == 0:
            return [[] for _ in range(len(queries))]
        queries = np.asarray(queries, dtype=np.float32)
        if self._dim is not None and queries.shape[-1] != self._dim:
            raise ValueError(
                f"query vectors are {queries.shape[-1]}-d but collection {self.collection!r} "
                f"holds {self._dim}-d vectors"
            )
        flt = _namespace_filter(namespace, exclude_flagged, exclude_dominated)
        params = qe.SearchParams(hnsw_ef=self.hnsw_ef) if self.hnsw_ef else None

        def fetch(limit: int) -> list[list[Hit]]:
            requests = [
                qe.QueryRequest(
                    limit=limit,
                    query=qe.Query.Nearest(q.tolist()),
                    filter=flt,
                    params=params,
                    with_vector=True,
                    with_payload=True,
                )
                for q in queries
            ]
            if len(requests) == 1:
                results = [shard.query(requests[0])]
            else:
                # One planned batch: the variants share one pass over the segments.
                results = shard.query_batch(qe.QueryBatchRequest(requests))
            return [[_hit(p) for p in points] for points in results]

        return settled_top_k(fetch, k)

    def fetch(self, namespace: str, ids: Sequence[str]) -> dict[str, Hit]:
        shard = self._reader()
        valid = _valid_ids(ids)
        if shard is None or not valid:
            return {}
        hits: dict[str, Hit] = {}
        for record in shard.retrieve(valid, True, True):
            if record.payload is None or record.payload.get("namespace") != namespace:
                continue
            hit = _hit(record)
            hits[hit.chunk.id] = hit
        return hits

    def count(self, namespace: str | None = None) -> int:
        shard = self._reader()
        if shard is None:
            return 0
        flt = _namespace_filter(namespace) if namespace is not None else None
        return int(shard.count(qe.CountRequest(exact=True, filter=flt)))

    # --- write-time GC flags (FlagIndex) ---------------------------------------------------
    def flag_records(self, namespace: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        return self._records(namespace, ids, SUPERSEDED_FLAG, FLAG_RECORD)

    def _records(
        self, namespace: str, ids: Sequence[str], flag: str, record: str
    ) -> dict[str, dict[str, Any]]:
        """The ``record`` payload of each of these chunks whose ``flag`` is set."""
        shard = self._reader()
        valid = _valid_ids(ids)
        if shard is None or not valid:
            return {}
        out: dict[str, dict[str, Any]] = {}
        for point in shard.retrieve(valid, True, False):
            payload = point.payload or {}
            if payload.get("namespace") == namespace and payload.get(flag):
                out[str(point.id)] = dict(payload.get(record) or {})
        return out

    def flagged(self, namespace: str | None = None) -> list[tuple[str, str]]:
        shard = self._reader()
        if shard is None:
            return []
        must: list[Any] = [_flag_is_set()]
        if namespace is not None:
            must.append(_namespace_is(namespace))
        out: list[tuple[str, str]] = []
        offset: Any = None
        while True:
            request = qe.ScrollRequest(
                offset=offset,
                limit=1024,
                filter=qe.Filter(must=must),
                with_payload=qe.PayloadSelector.Include(["namespace"]),
                with_vector=False,
            )
            records, offset = shard.scroll(request)
            out += [(str((r.payload or {}).get("namespace")), str(r.id)) for r in records]
            if offset is None or not records:
                return out

    def count_flagged(self, namespace: str) -> int:
        shard = self._reader()
        if shard is None:
            return 0
        flt = qe.Filter(must=[_namespace_is(namespace), _flag_is_set()])
        return int(shard.count(qe.CountRequest(exact=True, filter=flt)))

    def dominated_records(self, namespace: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        return self._records(namespace, ids, DOMINATED_FLAG, DOMINATED_RECORD)

    def dominated(self, namespace: str) -> list[str]:
        return self._scroll_ids(namespace, dominated_only=True)

    def chunk_ids(self, namespace: str) -> list[str]:
        return self._scroll_ids(namespace, dominated_only=False)

    def _scroll_ids(self, namespace: str, *, dominated_only: bool) -> list[str]:
        shard = self._reader()
        if shard is None:
            return []
        out: list[str] = []
        offset: Any = None
        while True:
            request = qe.ScrollRequest(
                offset=offset,
                limit=1024,
                filter=qe.Filter(must=[_namespace_is(namespace)]),
                with_payload=qe.PayloadSelector.Include([DOMINATED_FLAG]),
                with_vector=False,
            )
            records, offset = shard.scroll(request)
            out += [
                str(r.id)
                for r in records
                if not dominated_only or (r.payload or {}).get(DOMINATED_FLAG)
            ]
            if offset is None or not records:
                return out

    def count_dominated(self, namespace: str, identity: str, *, unflagged: bool = False) -> int:
        shard = self._reader()
        if shard is None:
            return 0
        flt = qe.Filter(
            must=[_namespace_is(namespace), _dominated_is(identity)],
            must_not=[_flag_is_set()] if unflagged else [],
        )
        return int(shard.count(qe.CountRequest(exact=True, filter=flt)))


def _flag_is_set() -> qe.FieldCondition:
    # numpy's bool: see _namespace_filter
    return qe.FieldCondition(key=SUPERSEDED_FLAG, match=qe.MatchValue(np.True_))  # type: ignore[arg-type]


def _namespace_is(namespace: str) -> qe.FieldCondition:
    return qe.FieldCondition(key="namespace", match=qe.MatchValue(namespace))


def _dominated_is(identity: str) -> qe.FieldCondition:
    return qe.FieldCondition(key=DOMINATED_FLAG, match=qe.MatchValue(identity))


def _namespace_filter(
    namespace: str, exclude_flagged: bool = False, exclude_dominated: str | None = None
) -> qe.Filter:
    must_not: list[Any] = []
    if exclude_flagged:
        # qdrant-edge-py 0.9 turns a Python bool into the integer 1 in MatchValue (bool is an
        # int subclass), which matches no boolean payload; numpy's bool is not an int, so it
        # arrives as a real boolean. tests/test_mtm.py guards this.
        must_not.append(_flag_is_set())
    if exclude_dominated is not None:
        must_not.append(_dominated_is(exclude_dominated))
    return qe.Filter(must=[_namespace_is(namespace)], must_not=must_not or None)


def _valid_ids(ids: Sequence[str]) -> list[int | uuid.UUID | str]:
    """Point ids are UUIDs; anything else cannot be stored, so it cannot be found either."""
    out: list[int | uuid.UUID | str] = []
    for raw in dict.fromkeys(ids):
        try:
            out.append(str(uuid.UUID(str(raw))))
        except ValueError:
            continue
    return out


def _hit(point: qe.ScoredPoint | qe.Record) -> Hit:
    vector = point.vector
    arr = np.asarray(vector, dtype=np.float32) if isinstance(vector, list) else None
    score = float(getattr(point, "score", 0.0) or 0.0)
    return Hit(chunk_from_payload(str(point.id), point.payload or {}), score, arr)
