"""LangChain adapters (``pip install 'gcmem[langchain]'``).

- ``GCMemRetriever``: a LangChain retriever over a gcmem ``Memory`` with its filter chain.
- ``ConsistencyFilter``: the filter chain on its own, as a document compressor for any
  retriever's documents (``ContextualCompressionRetriever``, ``DocumentCompressorPipeline``,
  after an ``EnsembleRetriever``; those three live in ``langchain-classic``).
- ``GCMemChatMessageHistory`` / ``publish_messages``: a LangChain chat history published
  into gcmem as turns, straight into a ``Memory`` or over the turn stream.
- ``GCMemEmbeddings``: gcmem's embedder as LangChain ``Embeddings`` (offline MiniLM).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
    Callbacks,
)
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import BaseDocumentCompressor, Document
from langchain_core.embeddings import Embeddings
from langchain_core.messages import BaseMessage
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr, field_validator

from gcmem.embedding import Embedder
from gcmem.filters.base import CandidateFilter
from gcmem.integrations._shared import (
    CONFLICTS_KEY,
    DROPPED_KEY,
    STALE_KEY,
    SUPERSEDED_KEY,
    KeptDocument,
    MemorySink,
    MissingTimestamp,
    TurnSink,
    attribute_drops,
    chunk_metadata,
    decision_record,
    document_filter_for,
    fallback_time,
    kept_documents,
    kept_notes,
    message_turn,
    timezone_named,
    to_external,
)
from gcmem.memory import Memory
from gcmem.memory.documents import (
    DocumentFilter,
    DocumentFilterResult,
    ExternalDocument,
    parse_timestamp,
)
from gcmem.models import Decision, RetrievalResult, Turn

__all__ = [
    "CONFLICTS_KEY",
    "STALE_KEY",
    "SUPERSEDED_KEY",
    "ConsistencyFilter",
    "GCMemChatMessageHistory",
    "GCMemEmbeddings",
    "GCMemRetriever",
    "MemorySink",
    "TurnSink",
    "dropped_records",
    "messages_to_turns",
    "publish_messages",
]

_RETRIEVE_OPTIONS = frozenset({"namespace", "k", "stm", "as_of"})


# --- retriever -------------------------------------------------------------------------------
class GCMemRetriever(BaseRetriever):
    """Retrieves a filtered context from a gcmem ``Memory``.

    Each ``Document`` carries ``id`` = chunk id and metadata ``ts`` (ISO-8601), ``namespace``,
    ``chunk_id``, ``turn_id``, ``score``, ``session_id``, ``role``, ``sources`` (plus the
    turn's own metadata). With ``include_dropped=True`` each document's
    ``metadata["gcmem_dropped"]`` lists the chunks excised because of it (chains followed:
    A -> B -> C puts A and B on C), each with its stage and reason; drops no kept chunk
    accounts for go on the top document.

    ``filters=None`` runs the memory's configured chain; ``filters=[]`` is plain RAG over the
    same candidates. ``namespace``, ``k``, ``stm`` and ``as_of`` can also be given per call:
    ``retriever.invoke(query, namespace="team-a")``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory
    namespace: str | None = None
    k: int | None = Field(default=None, ge=1)
    stm: bool = True
    filters: list[CandidateFilter] | None = None
    include_dropped: bool = False

    def retrieve_result(self, query: str, **options: Any) -> RetrievalResult:
        """The full gcmem result (kept, dropped with reasons, timings) for ``query``."""
        return self.memory.retrieve(query, filters=self.filters, **self._options(options))

    async def aretrieve_result(self, query: str, **options: Any) -> RetrievalResult:
        return await self.memory.aretrieve(query, filters=self.filters, **self._options(options))

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return self._documents(self.retrieve_result(query, **kwargs))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return self._documents(await self.aretrieve_result(query, **kwargs))

    def _options(self, overrides: dict[str, Any]) -> dict[str, Any]:
        unknown = set(overrides) - _RETRIEVE_OPTIONS
        if unknown:
            raise TypeError(
                f"unknown retrieval option(s) {sorted(unknown)}; known: {sorted(_RETRIEVE_OPTIONS)}"
            )
        options: dict[str, Any] = {"namespace": self.namespace, "k": self.k, "stm": self.stm}
        options.update(overrides)
        return options

    def _documents(self, result: RetrievalResult) -> list[Document]:
        drops = attribute_drops(result) if self.include_dropped else {}
        notes = kept_notes(result)
        docs = []
        for sc in result.kept:
            meta = chunk_metadata(sc)
            if self.include_dropped:
                meta[DROPPED_KEY] = drops.get(sc.chunk.id, [])
            meta.update(notes.get(sc.chunk.id, {}))
            docs.append(Document(id=sc.chunk.id, page_content=sc.visible_text, metadata=meta))
        return docs


# --- document compressor ---------------------------------------------------------------------
class ConsistencyFilter(BaseDocumentCompressor):
    """Drops documents that newer documents in the same set supersede or contradict.

    Each document's event time is read from ``metadata[ts_key]`` (an aware datetime, an
    ISO-8601 string, or epoch seconds; zone-less values need ``naive_timezone``). A missing or
    unreadable time is an error naming the document, unless ``missing_ts="keep"`` lets undated
    documents through unfiltered. The survivors come back in their input order, unchanged.

    The chain is the one a ``Memory`` is configured with (``ConsistencyFilter(memory=m)``), an
    explicit ``DocumentFilter``, or, with neither, one built from the ``GCMEM_*`` settings.
    Supersession runs on a per-call scratch ledger: documents only supersede each other (see
    ``gcmem.memory.documents``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory | None = None
    document_filter: DocumentFilter | None = None
    ts_key: str = "ts"
    score_key: str | None = "score"
    naive_timezone: str | None = None
    missing_ts: MissingTimestamp = "raise"

    _filter: DocumentFilter | None = PrivateAttr(default=None)

    @field_validator("naive_timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        timezone_named(value)
        return value

    def chain(self) -> DocumentFilter:
        if self._filter is None:
            self._filter = document_filter_for(self.document_filter, self.memory)
        return self._filter

    def filter_documents(
        self, documents: Sequence[Document], query: str, *, as_of: datetime | None = None
    ) -> tuple[list[Document], list[tuple[Document, Decision]]]:
        """Survivors (input order) and the dropped documents with gcmem's decision for each."""
        if not documents:
            return [], []
        outcome = self.chain().filter(query, self._external(documents), as_of=as_of)
        return self._split(documents, outcome)

    async def afilter_documents(
        self, documents: Sequence[Document], query: str, *, as_of: datetime | None = None
    ) -> tuple[list[Document], list[tuple[Document, Decision]]]:
        if not documents:
            return [], []
        outcome = await self.chain().afilter(query, self._external(documents), as_of=as_of)
        return self._split(documents, outcome)

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        return self.filter_documents(documents, query)[0]

    async def acompress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        return (await self.afilter_documents(documents, query))[0]

    def _external(self, documents: Sequence[Document]) -> list[ExternalDocument]:
        tz = timezone_named(self.naive_timezone)
        out = []
        for i, doc in enumerate(documents):
            raw = doc.metadata.get(self.score_key) if self.score_key else None
            score = float(raw) if isinstance(raw, int | float) else None
            out.append(
                to_external(
                    i,
                    text=doc.page_content,
                    metadata=doc.metadata,
                    doc_id=doc.id,
                    score=score,
                    ts_key=self.ts_key,
                    naive_tz=tz,
                    missing=self.missing_ts,
                )
            )
        return out

    @staticmethod
    def _split(
        documents: Sequence[Document], outcome: DocumentFilterResult
    ) -> tuple[list[Document], list[tuple[Document, Decision]]]:
        # a document that is one side of a surfaced conflict carries it, one with superseded
        # statements comes back with them excised and listed (a copy: the caller's documents
        # are not edited)
        kept = [_annotated(documents[k.position], k) for k in kept_documents(outcome)]
        dropped = [(documents[i], d) for i, d in outcome.dropped_positions()]
        return kept, dropped


def _annotated(doc: Document, kept: KeptDocument) -> Document:
    if not kept.notes:
        return doc
    update: dict[str, Any] = {"metadata": {**doc.metadata, **kept.notes}}
    if kept.text is not None:
        update["page_content"] = kept.text
    return doc.model_copy(update=update)


# --- chat history -> gcmem -------------------------------------------------------------------
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def _role(message: BaseMessage) -> str:
    if message.type in _ROLES:
        return _ROLES[message.type]
    if message.type == "function":
        return "tool"
    role = getattr(message, "role", None)  # ChatMessage carries a free-form role
    return role if role in ("user", "assistant", "system", "tool", "observation") else "user"


def _message_time(message: BaseMessage, ts_key: str) -> object:
    for source in (message.additional_kwargs, message.response_metadata):
        if source.get(ts_key) is not None:
            return source[ts_key]
    return None


def messages_to_turns(
    messages: Sequence[BaseMessage],
    *,
    namespace: str,
    session_id: str,
    start: int = 0,
    ts_key: str = "ts",
    base_ts: datetime | None = None,
    naive_timezone: str | None = None,
) -> list[Turn]:
    """LangChain messages -> turns (validated: a bad message raises before anything is sent).

    Time: ``additional_kwargs[ts_key]`` or ``response_metadata[ts_key]`` when the message
    carries one, else ``base_ts`` (default now) plus one microsecond per position. Id: the
    message id, else ``"{session_id}:{position}"`` with positions counted from ``start``.
    Messages without text (a tool-call-only AI message) are skipped but keep their position.
    """
    tz = timezone_named(naive_timezone)
    base = base_ts or datetime.now(UTC)
    turns = []
    for offset, message in enumerate(messages):
        position = start + offset
        text = message.text
        if not text.strip():
            continue
        raw = _message_time(message, ts_key)
        ts = parse_timestamp(raw, naive_tz=tz) if raw is not None else fallback_time(base, position)
        turns.append(
            message_turn(
                position=position,
                role=_role(message),
                text=text,
                message_id=message.id,
                ts=ts,
                namespace=namespace,
                session_id=session_id,
                metadata={"message_type": message.type, "name": message.name or ""},
            )
        )
    return turns


def _sink(target: Memory | TurnSink) -> TurnSink:
    return MemorySink(target) if isinstance(target, Memory) else target


def publish_messages(
    target: Memory | TurnSink,
    messages: Sequence[BaseMessage],
    *,
    namespace: str,
    session_id: str,
    start: int = 0,
    ts_key: str = "ts",
    base_ts: datetime | None = None,
) -> list[Turn]:
    """Publish a chat history into gcmem: ``target`` is a ``Memory`` (ingested now) or any
    ``TurnSink`` (e.g. the turn-stream publisher of ``gcmem.pipeline``). Returns the turns."""
    turns = messages_to_turns(
        messages,
        namespace=namespace,
        session_id=session_id,
        start=start,
        ts_key=ts_key,
        base_ts=base_ts,
    )
    if turns:
        _sink(target).publish(turns)
    return turns


class GCMemChatMessageHistory(BaseChatMessageHistory):
    """A chat history that publishes every added message into gcmem as a turn.

    Messages are kept in ``inner`` (any LangChain history; default: a list in this object)
    for the conversation itself, and published to ``target`` (a ``Memory`` or a
    ``TurnSink``) so gcmem's filtered memory follows the conversation. Drop-in for
    ``RunnableWithMessageHistory``'s ``get_session_history``. Publishing happens before the
    messages are stored, so a rejected message is neither stored nor half-published.
    """

    def __init__(
        self,
        target: Memory | TurnSink,
        *,
        session_id: str,
        namespace: str | None = None,
        inner: BaseChatMessageHistory | None = None,
        ts_key: str = "ts",
    ) -> None:
        super().__init__()
        self.sink = _sink(target)
        self.session_id = session_id
        default_ns = target.settings.memory.namespace if isinstance(target, Memory) else "default"
        self.namespace = namespace or default_ns
        self.inner = inner
        self.ts_key = ts_key
        self._messages: list[BaseMessage] = []

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return list(self.inner.messages) if self.inner is not None else list(self._messages)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        publish_messages(
            self.sink,
            messages,
            namespace=self.namespace,
            session_id=self.session_id,
            start=len(self.messages),
            ts_key=self.ts_key,
        )
        if self.inner is not None:
            self.inner.add_messages(messages)
        else:
            self._messages.extend(messages)

    def clear(self) -> None:
        """Clears the conversation; gcmem's memory keeps the turns (nothing is deleted)."""
        if self.inner is not None:
            self.inner.clear()
        else:
            self._messages.clear()


# --- embeddings ------------------------------------------------------------------------------
class GCMemEmbeddings(Embeddings):
    """gcmem's embedder (the offline MiniLM by default) as LangChain ``Embeddings``, for
    vector stores that should embed exactly like gcmem does."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [v.tolist() for v in self.embedder.embed(texts)]

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.embedder.embed([text])[0]]


def dropped_records(dropped: Sequence[tuple[Document, Decision]]) -> list[dict[str, Any]]:
    """``ConsistencyFilter.filter_documents``' drops as plain records (for logs and UIs)."""
    return [decision_record(d) | {"document_id": doc.id} for doc, d in dropped]
