"""Consistency filtering of documents that are not in gcmem's memory.

Framework adapters (LangChain's ``ConsistencyFilter``, LlamaIndex's ``ConsistencyPostprocessor``)
hand gcmem the documents *another* retriever found. ``DocumentFilter`` turns them into
candidate chunks and runs the configured filter chain on them, exactly as ``Memory.filter``
runs it on gcmem's own candidate set.

Supersession needs a ledger, and the memory's ledger has never seen these documents. The
filter therefore gives each call its own **scratch ledger**: a private in-process Redis server
(the same Lua scripts as production) in which the call's documents are written, oldest first,
by the configured ingest stages under a fresh namespace, so the documents supersede *each
other* by the same deterministic rule the memory uses. The scratch namespace is deleted when
the call returns. Nothing is written to the memory's Redis or index, and two calls never see
each other's documents: a document is only ever dropped because of another document in the
same call.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo

import fakeredis
import numpy as np

from gcmem.embedding import Embedder, load_embedder
from gcmem.facts.earlier import asks_earlier
from gcmem.filters.base import CandidateFilter, IngestStage, QueryContext
from gcmem.filters.registry import build_chain
from gcmem.filters.resources import Resources
from gcmem.memory.candidates import CandidateSet, run_filter_chain
from gcmem.models import (
    Chunk,
    Decision,
    RetrievalResult,
    ScoredChunk,
    chunk_id,
    content_hash,
)
from gcmem.oracle.base import ConflictOracle
from gcmem.settings import Settings, load_settings
from gcmem.storage.mtm import open_index
from gcmem.storage.redis import Keyspace

# Documents come from arbitrary stores; this is the namespace their chunk ids are derived in
# (ids are stable across calls and processes) and the one reported in results.
EXTERNAL_NAMESPACE = "external"


class TimestampError(ValueError):
    """A document's event time is missing or cannot be read."""


def parse_timestamp(value: object, *, naive_tz: tzinfo | None = None) -> datetime:
    """A document's event time from a metadata value, as an aware UTC datetime.

    Accepted: an aware ``datetime``; an ISO-8601 string (``2026-03-14T09:00:00Z``,
    ``2026-03-14T09:00:00+01:00``, ``2026-03-14``); Unix epoch seconds (int/float). Values
    without a zone (naive datetimes, dates, zone-less strings) are read in ``naive_tz``; with
    ``naive_tz=None`` they are an error, because guessing a zone can reorder two facts.
    """
    if isinstance(value, bool):  # bool is an int: never a timestamp
        raise TimestampError(f"{value!r} is not a timestamp")
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise TimestampError(f"{value!r} is not a finite epoch time")
        try:
            return datetime.fromtimestamp(value, tz=UTC)
        except (OverflowError, OSError, ValueError) as exc:
            raise TimestampError(f"epoch seconds {value!r} are out of range") from exc
    if isinstance(value, str):
        text = value.strip()
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError as exc:
            raise TimestampError(f"{value!r} is not an ISO-8601 date or time") from exc
        return _aware(parsed, naive_tz, value)
    if isinstance(value, datetime):
        return _aware(value, naive_tz, value)
    if isinstance(value, date):
        return _aware(datetime(value.year, value.month, value.day), naive_tz, value)
    raise TimestampError(f"{type(value).__name__} {value!r} is not a timestamp")


def _aware(ts: datetime, naive_tz: tzinfo | None, original: object) -> datetime:
    if ts.tzinfo is None or ts.utcoffset() is None:
        if naive_tz is None:
            raise TimestampError(
                f"{original!r} has no time zone; add one or set naive_tz (e.g. UTC)"
            )
        ts = ts.replace(tzinfo=naive_tz)
    return ts.astimezone(UTC)


@dataclass(frozen=True)
class ExternalDocument:
    """One document from another retriever, reduced to what the filters need.

    ``ts=None`` means the document has no event time: it passes through untouched (it can
    neither be dropped nor drop anything). ``id`` is the framework's document id when it has
    one; otherwise the id is derived from the text and time.
    """

    text: str
    ts: datetime | None
    score: float = 0.0
    id: str | None = None

    def key(self) -> str:
        """Stable turn id: the caller's id, else a digest of the content and event time."""
        if self.id:
            return f"doc:{self.id}"
        when = self.ts.isoformat() if self.ts is not None else "-"
        digest = hashlib.sha256(f"{content_hash(self.text)}|{when}".encode()).hexdigest()
        return f"doc:{digest[:20]}"


@dataclass(frozen=True)
class DocumentFilterResult:
    """The chain's outcome mapped back onto the caller's document positions."""

    result: RetrievalResult
    # Input position -> chunk id (None: passed through, no event time).
    chunk_ids: list[str | None]

    def kept_positions(self) -> list[int]:
        """Positions of the surviving documents, in input order."""
        dropped = {d.chunk.id for d in self.result.dropped}
        return [i for i, cid in enumerate(self.chunk_ids) if cid is None or cid not in dropped]

    def decision(self, position: int) -> Decision | None:
        """Why the document at ``position`` was dropped (None if it was kept)."""
        cid = self.chunk_ids[position]
        return next((d for d in self.result.dropped if d.chunk.id == cid), None)

    def dropped_positions(self) -> list[tuple[int, Decision]]:
        out = []
        for i in range(len(self.chunk_ids)):
            decision = self.decision(i)
            if decision is not None:
                out.append((i, decision))
        return out


StageSpec = str | CandidateFilter


class DocumentFilter:
    """The configured filter chain over arbitrary documents, with a per-call scratch ledger.

    ``filters`` and ``ingest`` name registered stages (default: ``settings.memory.filters`` and
    ``settings.memory.ingest``); stages are built here, bound to the private scratch store, so none
    of them touches the memory's Redis. Stage *objects* may be passed too (a custom stage, a
    test oracle); they must then keep per-namespace state themselves. A filter stage that
    also has an ingest side (the supersession stage keeps its ledger this way) gets the
    documents at ingest as well.

    ``embedder`` and ``oracle`` are reused as given (``Memory.document_filter`` passes its
    own), so no model is loaded twice; the stores are always the private scratch ones.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        filters: Sequence[StageSpec] | None = None,
        ingest: Sequence[str | IngestStage] | None = None,
        oracle: ConflictOracle | None = None,
        namespace: str = EXTERNAL_NAMESPACE,
    ) -> None:
        base = settings or load_settings()
        # The scratch store is private and in memory whatever the memory is configured with.
        self.settings = base.replace(
            ephemeral=True, redis_url=None, redis_cluster=False, qdrant_url=None
        )
        self.namespace = namespace
        self.embedder: Embedder = embedder or load_embedder(
            self.settings.models.embedder,
            device=self.settings.models.device,
            batch_size=self.settings.models.embed_batch_size,
            max_length=self.settings.models.embed_max_length,
        )
        self.keys = Keyspace(self.settings.storage.key_prefix)
        self.redis = fakeredis.FakeRedis(server=fakeredis.FakeServer())
        index = open_index(self.settings.replace(embedded_engine="local").storage)
        index.ensure(self.embedder.dim)  # stages may read or flag it; it stays empty
        self.resources = Resources(
            self.settings, self.redis, self.keys, index, self.embedder, given_oracle=oracle
        )
        self.filters, self.ingest_stages = build_chain(
            self.settings.memory.filters if filters is None else filters,
            self.settings.memory.ingest if ingest is None else ingest,
            self.resources,
        )

    # --- filtering -------------------------------------------------------------------------
    def filter(
        self,
        query: str,
        documents: Sequence[ExternalDocument],
        *,
        as_of: datetime | None = None,
    ) -> DocumentFilterResult:
        """Run the chain over ``documents``; the result maps decisions back to positions."""
        if not query.strip():
            raise ValueError("query is empty")
        when = _as_of(as_of)
        t_start = time.perf_counter()
        scratch = f"x{uuid.uuid4().hex}"
        # One chunk per distinct document (same id or same text and time = same document).
        positions: list[str | None] = []
        chunks: dict[str, Chunk] = {}
        scores: dict[str, float] = {}
        for doc in documents:
            if doc.ts is None:
                positions.append(None)
                continue
            turn_id = doc.key()
            cid = chunk_id(self.namespace, turn_id, 0)
            positions.append(cid)
            scores[cid] = max(scores.get(cid, -math.inf), float(doc.score))
            if cid not in chunks:
                chunks[cid] = Chunk(
                    id=cid,
                    namespace=scratch,
                    turn_id=turn_id,
                    index=0,
                    text=doc.text,
                    ts=doc.ts,
                    role="observation",
                    content_hash=content_hash(doc.text),
                )
        timings: dict[str, float] = {}
        try:
            result = self._run(query, scratch, list(chunks.values()), scores, when, timings)
        finally:
            self._forget(scratch)
        result.timings_ms["total"] = (time.perf_counter() - t_start) * 1e3
        return DocumentFilterResult(self._relabel(result), positions)

    async def afilter(
        self,
        query: str,
        documents: Sequence[ExternalDocument],
        *,
        as_of: datetime | None = None,
    ) -> DocumentFilterResult:
        return await asyncio.to_thread(self.filter, query, list(documents), as_of=as_of)

    def _run(
        self,
        query: str,
        scratch: str,
        chunks: list[Chunk],
        scores: Mapping[str, float],
        as_of: datetime,
        timings: dict[str, float],
    ) -> RetrievalResult:
        t0 = time.perf_counter()
        vectors = self.embedder.embed([c.text for c in chunks] + [query])
        timings["embed"] = (time.perf_counter() - t0) * 1e3
        by_id = {c.id: vectors[i] for i, c in enumerate(chunks)}
        if chunks:
            # Oldest first (ties by id), so the scratch ledger sees a deterministic order
            # whatever order the retriever returned the documents in.
            ordered = sorted(chunks, key=lambda c: (c.ts, c.id))
            matrix = np.stack([by_id[c.id] for c in ordered])
            for stage in self.ingest_stages:
                t0 = time.perf_counter()
                stage.on_ingest(ordered, matrix)
                timings[f"ingest:{stage.name}"] = (time.perf_counter() - t0) * 1e3
        candidates = CandidateSet(
            context=QueryContext(
                query=query,
                namespace=scratch,
                as_of=as_of,
                query_vector=vectors[-1],
                vectors=by_id,
                earlier=self.settings.memory.earlier_questions and asks_earlier(query),
            ),
            candidates=[
                ScoredChunk(chunk=c, score=scores[c.id], sources=("input",)) for c in chunks
            ],
            variants=[query],
            k=len(chunks),
            timings_ms=timings,
        )
        return run_filter_chain(candidates, self.filters)

    def _forget(self, scratch: str) -> None:
        """Drop the call's scratch namespace (ledger rows and anything else stages wrote)."""
        keys = list(self.redis.scan_iter(match=f"{self.keys.namespace(scratch)}*", count=1000))
        if keys:
            self.redis.delete(*keys)

    def _relabel(self, result: RetrievalResult) -> RetrievalResult:
        """Report chunks under the documents' namespace, not the scratch one."""

        def fix(sc: ScoredChunk) -> ScoredChunk:
            chunk = sc.chunk.model_copy(update={"namespace": self.namespace})
            return sc.model_copy(update={"chunk": chunk})

        return result.model_copy(
            update={
                "namespace": self.namespace,
                "kept": [fix(c) for c in result.kept],
                "dropped": [d.model_copy(update={"chunk": fix(d.chunk)}) for d in result.dropped],
            }
        )

    def close(self) -> None:
        self.resources.index.close()


def _as_of(ts: datetime | None) -> datetime:
    if ts is None:
        return datetime.now(UTC)
    if ts.tzinfo is None:
        raise ValueError("as_of must be timezone-aware")
    return ts
