"""``Memory``: the library facade. Ingest turns, retrieve a filtered context.

It wires the stages together and owns nothing else: embedding (``embedding``), the short-term
buffer (``stm``), the index (``mtm``), candidate gathering (``candidates``) and the filter
stages (``filters``) each live behind their own interface.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

import numpy as np
from pydantic import TypeAdapter, ValidationError

from gcmem.embedding import Embedder, load_embedder
from gcmem.facts.chunking import chunk_turn
from gcmem.facts.earlier import asks_earlier
from gcmem.filters import writegc
from gcmem.filters.base import CandidateFilter, IngestStage
from gcmem.filters.dominance_gc import DominanceGC, DominanceRebuild, explain_flag
from gcmem.filters.dominance_gc import build as build_dominance_gc
from gcmem.filters.registry import build_chain, with_ingest_sides
from gcmem.filters.resources import Resources
from gcmem.filters.supersession import SupersessionStage
from gcmem.filters.supersession import build as build_supersession
from gcmem.filters.writegc import RebuildReport
from gcmem.memory.candidates import (
    CandidateSet,
    KeywordExpander,
    QueryExpander,
    gather_candidates,
    run_filter_chain,
)
from gcmem.memory.documents import DocumentFilter, DocumentFilterResult, ExternalDocument
from gcmem.models import Chunk, Decision, Namespace, RetrievalResult, Turn
from gcmem.oracle.base import ConflictOracle
from gcmem.settings import Settings, load_settings
from gcmem.storage.ledger import ConfirmResult, PendingConflict
from gcmem.storage.mtm import open_index
from gcmem.storage.mtm.index import MediumTermIndex
from gcmem.storage.redis import (
    Keyspace,
    RedisClient,
    mark_embedded_dirty,
    open_redis,
    save_embedded,
)
from gcmem.storage.stm import RedisShortTermBuffer, ShortTermBuffer

_NAMESPACE: TypeAdapter[str] = TypeAdapter(Namespace)


class TurnValidationError(ValueError):
    """A turn failed validation; ``position`` is its index in the ingested batch."""

    def __init__(self, position: int, error: ValidationError) -> None:
        self.position = position
        self.error = error
        super().__init__(f"turn #{position} is invalid: {error}")


@dataclass(frozen=True)
class IngestReport:
    turns: int
    chunks: int
    stm_added: int
    timings_ms: Mapping[str, float]


class Memory:
    """Agent memory with consistency filtering.

    ``Memory()`` reads every setting from the environment (``GCMEM_*``) and builds the
    configured chain; ``Memory.from_settings(settings)`` says the same explicitly. Any
    component can be passed in instead: ``oracle=`` is the κ every stage uses (built from
    settings on first use otherwise), ``filters=[]`` is plain RAG.
    """

    @classmethod
    def from_settings(
        cls,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        index: MediumTermIndex | None = None,
        oracle: ConflictOracle | None = None,
    ) -> Memory:
        """The default chain, each part opened from its section of ``settings`` (default:
        the environment): Redis and the index from ``storage``, the embedder from ``models``,
        the filter and ingest stages named in ``memory``, κ from ``oracle`` when a stage first
        needs it. ``embedder``, ``index`` and ``oracle`` replace the part they name (a
        process that already holds one)."""
        return cls(
            settings if settings is not None else load_settings(),
            embedder=embedder,
            index=index,
            oracle=oracle,
        )

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        index: MediumTermIndex | None = None,
        redis_client: RedisClient | None = None,
        stm: ShortTermBuffer | None = None,
        oracle: ConflictOracle | None = None,
        filters: Sequence[CandidateFilter] | None = None,
        ingest_stages: Sequence[IngestStage] | None = None,
        expander: QueryExpander | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        s = self.settings
        self.keys = Keyspace(s.storage.key_prefix)
        self.redis = redis_client if redis_client is not None else open_redis(s.storage)
        self.embedder = embedder or load_embedder(
            s.models.embedder,
            device=s.models.device,
            batch_size=s.models.embed_batch_size,
            max_length=s.models.embed_max_length,
        )
        self.index = index if index is not None else open_index(s.storage)
        self.stm = stm or RedisShortTermBuffer(self.redis, self.keys, s.storage.stm_size)
        self.expander = expander or KeywordExpander()
        self._document_filter: DocumentFilter | None = None
        self.resources = Resources(
            s, self.redis, self.keys, self.index, self.embedder, given_oracle=oracle
        )
        built_filters, built_ingest = build_chain(
            s.memory.filters if filters is None else [],
            s.memory.ingest if ingest_stages is None else [],
            self.resources,
        )
        self.filters: list[CandidateFilter] = built_filters if filters is None else list(filters)
        # Stages passed in are used exactly; built ones get every filter's ingest side too.
        self.ingest_stages: list[IngestStage] = (
            with_ingest_sides(self.filters, built_ingest)
            if ingest_stages is None
            else list(ingest_stages)
        )

    # --- ingest ----------------------------------------------------------------------------
    def validate(self, turns: Iterable[Turn | Mapping[str, Any]]) -> list[Turn]:
        out: list[Turn] = []
        ctx = {"max_text_chars": self.settings.memory.max_text_chars}
        for pos, turn in enumerate(turns):
            if isinstance(turn, Turn):
                out.append(turn)
                continue
            data = dict(turn)
            data.setdefault("namespace", self.settings.memory.namespace)
            try:
                out.append(Turn.model_validate(data, context=ctx))
            except ValidationError as exc:
                raise TurnValidationError(pos, exc) from exc
        return out

    def ingest(self, turns: Iterable[Turn | Mapping[str, Any]]) -> IngestReport:
        """Validate, chunk, embed (batched), then MTM upsert, STM push and ingest stages.

        Idempotent per turn id: chunk ids are deterministic and every write is keyed by them.
        """
        timings: dict[str, float] = {}
        valid = self.validate(turns)
        chunks: list[Chunk] = [
            c for t in valid for c in chunk_turn(t, self.settings.memory.chunk_max_chars)
        ]
        if not chunks:
            return IngestReport(len(valid), 0, 0, timings)
        t0 = time.perf_counter()
        vectors = self.embedder.embed([c.text for c in chunks])
        timings["embed"] = (time.perf_counter() - t0) * 1e3
        t0 = time.perf_counter()
        self.index.upsert(chunks, vectors)
        timings["mtm"] = (time.perf_counter() - t0) * 1e3
        t0 = time.perf_counter()
        added = self.stm.push(chunks)
        timings["stm"] = (time.perf_counter() - t0) * 1e3
        for stage in self.ingest_stages:
            t0 = time.perf_counter()
            stage.on_ingest(chunks, vectors)
            timings[stage.name] = (time.perf_counter() - t0) * 1e3
        mark_embedded_dirty(self.settings.storage)
        return IngestReport(len(valid), len(chunks), added, timings)

    # --- retrieve --------------------------------------------------------------------------
    def candidates(
        self,
        query: str,
        *,
        namespace: str | None = None,
        k: int | None = None,
        stm: bool = True,
        as_of: datetime | None = None,
        exclude_flagged: bool | None = None,
    ) -> CandidateSet:
        """The unfiltered candidate set R_k (MTM top-k per variant, fused, ∪ STM).

        ``exclude_flagged``: leave chunks write-time GC flagged as superseded out of the MTM
        search; default: ``settings.supersession.exclude`` for queries about the present (the
        flag says "superseded by now", which is wrong for an ``as_of`` in the past)."""
        if not query.strip():
            raise ValueError("query is empty")
        earlier = self.settings.memory.earlier_questions and asks_earlier(query)
        if exclude_flagged is None:
            exclude_flagged = self.settings.supersession.exclude and as_of is None and not earlier
        # κ flags count only under the identity this memory decides with (its κ stage's)
        kappa = self.dominance_gc
        exclude_dominated = kappa.identity if exclude_flagged and kappa is not None else None
        ns = self.validate_namespace(namespace or self.settings.memory.namespace)
        return gather_candidates(
            query,
            namespace=ns,
            k=k or self.settings.memory.top_k,
            as_of=_aware(as_of),
            embedder=self.embedder,
            index=self.index,
            stm=self.stm if stm else None,
            expander=self.expander,
            exclude_flagged=exclude_flagged,
            exclude_dominated=exclude_dominated,
            earlier=earlier,
        )

    def filter(
        self, candidates: CandidateSet, filters: Sequence[CandidateFilter] | None = None
    ) -> RetrievalResult:
        """Run filter stages, in order, over a candidate set."""
        return run_filter_chain(candidates, self.filters if filters is None else list(filters))

    def retrieve(
        self,
        query: str,
        *,
        namespace: str | None = None,
        k: int | None = None,
        stm: bool = True,
        as_of: datetime | None = None,
        filters: Sequence[CandidateFilter] | None = None,
    ) -> RetrievalResult:
        t0 = time.perf_counter()
        # filters=[] asks for plain RAG: the index as stored, write-time flags included
        plain = filters is not None and not filters
        cands = self.candidates(
            query,
            namespace=namespace,
            k=k,
            stm=stm,
            as_of=as_of,
            exclude_flagged=False if plain else None,
        )
        result = self.filter(cands, filters)
        result.timings_ms["total"] = (time.perf_counter() - t0) * 1e3
        return result

    # --- write-time GC: explain and rebuild flags ------------------------------------------
    def explain(self, chunk_id: str, *, namespace: str | None = None) -> Decision | None:
        """The decision record of a chunk the ledger supersedes (what write-time GC flags and
        a read-time drop reports), with the flag and its record in ``details["write_time"]``;
        ``None`` when nothing supersedes it. ``KeyError`` if the namespace has no such chunk."""
        ns = self.validate_namespace(namespace or self.settings.memory.namespace)
        decision = writegc.explain(self._supersession(), self.index, ns, chunk_id)
        if decision is not None:
            return decision
        kappa = self.dominance_gc
        return explain_flag(self.index, ns, chunk_id, kappa.identity if kappa else None)

    def rebuild_flags(self, namespace: str | None = None) -> list[RebuildReport]:
        """Recompute the write-time GC flags of one namespace (default: every namespace) from
        the ledger; nothing is deleted. κ flags: ``rebuild_dominance_flags``."""
        ledger, decide = self.resources.ledger, self._supersession().flaggable
        if namespace is None:
            return writegc.rebuild_all(ledger, self.index, decide=decide)
        ns = self.validate_namespace(namespace)
        return [writegc.rebuild_flags(ledger, self.index, ns, decide)]

    def rebuild_dominance_flags(self, namespace: str | None = None) -> DominanceRebuild:
        """Re-decide the κ flags of a namespace under this memory's current oracle, threshold
        and rule (flags of another identity are ignored until then), and continue any queued
        paging. Uses the configured dominance-gc stage, or one built from settings."""
        ns = self.validate_namespace(namespace or self.settings.memory.namespace)
        stage = self.dominance_gc or build_dominance_gc(self.resources)
        return stage.rebuild(ns)

    @property
    def dominance_gc(self) -> DominanceGC | None:
        """This memory's κ write-time GC ingest stage, if it has one."""
        for stage in self.ingest_stages:
            if isinstance(stage, DominanceGC):
                return stage
        return None

    def _supersession(self) -> SupersessionStage:
        """This memory's supersession stage (its rule decides flags), else one from settings."""
        for stage in [*self.filters, *self.ingest_stages]:
            if isinstance(stage, SupersessionStage):
                return stage
        return build_supersession(self.resources)

    # --- async twins (the work is CPU and blocking I/O: run it off the event loop) ----------
    async def aingest(self, turns: Iterable[Turn | Mapping[str, Any]]) -> IngestReport:
        return await asyncio.to_thread(self.ingest, list(turns))

    async def aretrieve(
        self,
        query: str,
        *,
        namespace: str | None = None,
        k: int | None = None,
        stm: bool = True,
        as_of: datetime | None = None,
        filters: Sequence[CandidateFilter] | None = None,
    ) -> RetrievalResult:
        return await asyncio.to_thread(
            self.retrieve, query, namespace=namespace, k=k, stm=stm, as_of=as_of, filters=filters
        )

    # --- documents from other retrievers (framework adapters) -----------------------------
    def document_filter(self) -> DocumentFilter:
        """This memory's filter chain for documents gcmem did not retrieve itself (see
        ``gcmem.memory.documents``: a per-call scratch ledger, nothing written here). Stages are
        rebuilt by name against it; the embedder and a loaded oracle are reused. Built once."""
        if self._document_filter is None:
            try:
                self._document_filter = DocumentFilter(
                    self.settings,
                    embedder=self.embedder,
                    filters=[f.name for f in self.filters],
                    ingest=[s.name for s in self.ingest_stages],
                    oracle=self.resources.oracle if self.resources.oracle_loaded else None,
                )
            except ValueError as exc:
                raise ValueError(
                    f"{exc}; documents are filtered by stages rebuilt by name against a scratch "
                    "ledger: for stages built by hand, pass a DocumentFilter with them instead"
                ) from exc
        return self._document_filter

    def filter_documents(
        self,
        query: str,
        documents: Sequence[ExternalDocument],
        *,
        as_of: datetime | None = None,
    ) -> DocumentFilterResult:
        """Run the filter chain over another retriever's documents (each needs a time)."""
        return self.document_filter().filter(query, documents, as_of=as_of)

    async def afilter_documents(
        self,
        query: str,
        documents: Sequence[ExternalDocument],
        *,
        as_of: datetime | None = None,
    ) -> DocumentFilterResult:
        return await asyncio.to_thread(self.filter_documents, query, list(documents), as_of=as_of)

    # --- resolution policies ---------------------------------------------------------------
    def confirm(
        self,
        subject: str,
        relation: str,
        object: str | None = None,
        *,
        namespace: str | None = None,
        by: str = "api",
        reject: bool = False,
    ) -> ConfirmResult:
        """Promote (``reject=True``: retire) the value held pending on a confirm-policy key.
        ``object`` guards against confirming a value that was displaced meanwhile. The
        incumbent's chunks get their write-time ``superseded`` flag like any closed version."""
        ns = self.validate_namespace(namespace or self.settings.memory.namespace)
        result = self.resources.ledger.confirm(ns, subject, relation, object, by=by, reject=reject)
        if result.closed_chunks:
            for stage in self.filters:
                if isinstance(stage, SupersessionStage):
                    stage.mirror_flags(ns, list(result.closed_chunks))
                    break
        return result

    def pending(self, namespace: str | None = None) -> list[PendingConflict]:
        """Values held pending confirmation, with the incumbents reads still return."""
        ns = self.validate_namespace(namespace or self.settings.memory.namespace)
        return self.resources.ledger.pending(ns)

    # --- misc ------------------------------------------------------------------------------
    @staticmethod
    def validate_namespace(namespace: str) -> str:
        try:
            return _NAMESPACE.validate_python(namespace)
        except ValidationError as exc:
            raise ValueError(f"invalid namespace {namespace!r}: {exc.errors()[0]['msg']}") from exc

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(texts)

    def close(self) -> None:
        save_embedded(self.settings.storage)
        self.index.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _aware(ts: datetime | None) -> datetime:
    if ts is None:
        return datetime.now(UTC)
    if ts.tzinfo is None:
        raise ValueError("as_of must be timezone-aware")
    return ts
