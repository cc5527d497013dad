"""LlamaIndex adapters (``pip install 'gcmem[llamaindex]'``).

- ``GCMemRetriever``: a LlamaIndex retriever over a gcmem ``Memory`` with its filter chain.
- ``ConsistencyPostprocessor``: the filter chain as a node postprocessor for any retriever or
  query engine: the contradiction-aware replacement for the recency postprocessors, which
  drop older nodes only when they are *similar* (and so drop valid old facts and keep
  contradicted ones).
- ``GCMemEmbedding``: gcmem's embedder (the offline MiniLM) as a LlamaIndex embedding model,
  so a ``VectorStoreIndex`` runs with no download.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import Field, PrivateAttr, field_validator
from llama_index.core.callbacks import CallbackManager
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode

from gcmem.embedding import Embedder
from gcmem.filters.base import CandidateFilter
from gcmem.integrations._shared import (
    CONFLICTS_KEY,
    DROPPED_KEY,
    STALE_KEY,
    SUPERSEDED_KEY,
    TS_KEY,
    KeptDocument,
    MissingTimestamp,
    attribute_drops,
    chunk_metadata,
    document_filter_for,
    kept_documents,
    kept_notes,
    timezone_named,
    to_external,
)
from gcmem.memory import Memory
from gcmem.memory.documents import DocumentFilter, ExternalDocument
from gcmem.models import Decision, RetrievalResult

__all__ = ["ConsistencyPostprocessor", "GCMemEmbedding", "GCMemRetriever"]

# Bookkeeping keys kept out of what the LLM and the embedder see; only the event time is
# shown to the LLM (it helps a reader order what it is told).
_HIDDEN_FROM_LLM = [
    "namespace",
    "chunk_id",
    "turn_id",
    "chunk_index",
    "session_id",
    "role",
    "score",
    "sources",
    DROPPED_KEY,
    CONFLICTS_KEY,
    STALE_KEY,  # the superseded statements' text, excised from what the LLM reads
    SUPERSEDED_KEY,
]


class GCMemRetriever(BaseRetriever):
    """Retrieves a filtered context from a gcmem ``Memory`` as ``NodeWithScore``s.

    Node id = chunk id; node metadata as in the LangChain retriever (``ts``, ``namespace``,
    ``chunk_id``, ``turn_id``, ``score``, ...; with ``include_dropped=True`` also
    ``gcmem_dropped``: the chunks excised because of this one, with reasons). ``filters=[]``
    is plain RAG over the same candidates.
    """

    def __init__(
        self,
        memory: Memory,
        *,
        namespace: str | None = None,
        k: int | None = None,
        stm: bool = True,
        filters: list[CandidateFilter] | None = None,
        include_dropped: bool = False,
        as_of: datetime | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        if k is not None and k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        self.memory = memory
        self.namespace = namespace
        self.k = k
        self.stm = stm
        self.filters = filters
        self.include_dropped = include_dropped
        self.as_of = as_of
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def retrieve_result(self, query: str) -> RetrievalResult:
        """The full gcmem result (kept, dropped with reasons, timings) for ``query``."""
        return self.memory.retrieve(
            query,
            namespace=self.namespace,
            k=self.k,
            stm=self.stm,
            as_of=self.as_of,
            filters=self.filters,
        )

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._nodes(self.retrieve_result(query_bundle.query_str))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        result = await asyncio.to_thread(self.retrieve_result, query_bundle.query_str)
        return self._nodes(result)

    def _nodes(self, result: RetrievalResult) -> list[NodeWithScore]:
        drops = attribute_drops(result) if self.include_dropped else {}
        notes = kept_notes(result)
        nodes = []
        for sc in result.kept:
            meta = chunk_metadata(sc)
            if self.include_dropped:
                meta[DROPPED_KEY] = drops.get(sc.chunk.id, [])
            meta.update(notes.get(sc.chunk.id, {}))
            node = TextNode(
                id_=sc.chunk.id,
                text=sc.visible_text,
                metadata=meta,
                excluded_llm_metadata_keys=[k for k in meta if k in _HIDDEN_FROM_LLM],
                excluded_embed_metadata_keys=list(meta),
            )
            nodes.append(NodeWithScore(node=node, score=sc.score))
        return nodes


class ConsistencyPostprocessor(BaseNodePostprocessor):
    """Drops nodes that newer nodes in the same set supersede or contradict.

    Each node's event time is read from ``node.metadata[ts_key]`` (an aware datetime, an
    ISO-8601 string, or epoch seconds; zone-less values need ``naive_timezone``); a missing or
    unreadable time is an error naming the node, unless ``missing_ts="keep"``. Survivors keep
    their order, scores and nodes. The chain is a ``Memory``'s (``memory=``), an explicit
    ``DocumentFilter`` (``document_filter=``), or one built from the ``GCMEM_*`` settings.
    The query is the query bundle's string (or ``default_query`` when none is passed).
    """

    memory: Memory | None = Field(default=None, exclude=True)
    document_filter: DocumentFilter | None = Field(default=None, exclude=True)
    ts_key: str = TS_KEY
    naive_timezone: str | None = None
    missing_ts: MissingTimestamp = "raise"
    default_query: str | None = None

    _filter: DocumentFilter | None = PrivateAttr(default=None)

    @field_validator("naive_timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        timezone_named(value)
        return value

    @classmethod
    def class_name(cls) -> str:
        return "GCMemConsistencyPostprocessor"

    def chain(self) -> DocumentFilter:
        if self._filter is None:
            self._filter = document_filter_for(self.document_filter, self.memory)
        return self._filter

    def filter_nodes(
        self, nodes: list[NodeWithScore], query: str, *, as_of: datetime | None = None
    ) -> tuple[list[NodeWithScore], list[tuple[NodeWithScore, Decision]]]:
        """Survivors (input order) and the dropped nodes with gcmem's decision for each."""
        if not nodes:
            return [], []
        outcome = self.chain().filter(query, self._external(nodes), as_of=as_of)
        # a node that is one side of a surfaced conflict carries it, one with superseded
        # statements comes back with them excised and listed (a copy: the caller's nodes are
        # not edited)
        kept = [_annotated(nodes[k.position], k) for k in kept_documents(outcome)]
        dropped = [(nodes[i], d) for i, d in outcome.dropped_positions()]
        return kept, dropped

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        query = query_bundle.query_str if query_bundle is not None else self.default_query
        if not query:
            raise ValueError(
                "ConsistencyPostprocessor needs the query (pass query_bundle/query_str, or "
                "set default_query)"
            )
        kept, _ = self.filter_nodes(nodes, query)
        return kept

    def _external(self, nodes: list[NodeWithScore]) -> list[ExternalDocument]:
        tz = timezone_named(self.naive_timezone)
        return [
            to_external(
                i,
                text=n.node.get_content(metadata_mode=MetadataMode.NONE),
                metadata=n.node.metadata,
                doc_id=n.node.node_id,
                score=n.score,
                ts_key=self.ts_key,
                naive_tz=tz,
                missing=self.missing_ts,
            )
            for i, n in enumerate(nodes)
        ]


def _annotated(node: NodeWithScore, kept: KeptDocument) -> NodeWithScore:
    if not kept.notes:
        return node
    update: dict[str, Any] = {"metadata": {**node.node.metadata, **kept.notes}}
    if kept.text is not None:
        update["text"] = kept.text
    inner = node.node.model_copy(update=update)
    if kept.text is not None and STALE_KEY not in inner.excluded_llm_metadata_keys:
        inner.excluded_llm_metadata_keys = [*inner.excluded_llm_metadata_keys, STALE_KEY]
    return NodeWithScore(node=inner, score=node.score)


class GCMemEmbedding(BaseEmbedding):
    """gcmem's embedder as a LlamaIndex embedding model (no download, no API key)."""

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder, **kwargs: Any) -> None:
        super().__init__(model_name=embedder.name, **kwargs)
        self._embedder = embedder

    @classmethod
    def class_name(cls) -> str:
        return "GCMemEmbedding"

    def _get_query_embedding(self, query: str) -> list[float]:
        return [float(x) for x in self._embedder.embed([query])[0]]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return await asyncio.to_thread(self._get_query_embedding, query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return [float(x) for x in self._embedder.embed([text])[0]]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [v.tolist() for v in self._embedder.embed(texts)]
