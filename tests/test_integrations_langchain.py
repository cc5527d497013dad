"""gcmem inside LangChain: the real langchain-core / langchain-classic classes, the real MiniLM
embedder, the real NLI oracle and the real supersession + Φ_T stages. No framework mocks."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langchain_classic")

from langchain_classic.retrievers import ContextualCompressionRetriever, EnsembleRetriever
from langchain_classic.retrievers.document_compressors import DocumentCompressorPipeline
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_text_splitters import RecursiveCharacterTextSplitter

from gcmem.embedding import Embedder
from gcmem.integrations.langchain import (
    STALE_KEY,
    ConsistencyFilter,
    GCMemChatMessageHistory,
    GCMemEmbeddings,
    GCMemRetriever,
    dropped_records,
    publish_messages,
)
from gcmem.memory import Memory
from gcmem.memory.documents import TimestampError
from gcmem.models import Turn
from tests import integration_scenario as sc

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def memory(
    tmp_path_factory: pytest.TempPathFactory, embedder: Embedder, nli_model_path: str
) -> Iterator[Memory]:
    m = sc.real_memory(tmp_path_factory.mktemp("lc"), embedder, nli_model_path)
    yield m
    m.close()


@pytest.fixture(scope="module")
def store(embedder: Embedder) -> InMemoryVectorStore:
    """A plain LangChain vector store holding the same timeline, ts in metadata."""
    vs = InMemoryVectorStore(embedding=GCMemEmbeddings(embedder))
    vs.add_documents(
        [
            Document(page_content=text, metadata={"ts": ts.isoformat(), "source": "wiki"})
            for text, ts in sc.documents()
        ]
    )
    return vs


def dated(text: str, ts: datetime) -> Document:
    return Document(page_content=text, metadata={"ts": ts})


def texts(docs: list[Document]) -> str:
    return " | ".join(d.page_content for d in docs)


# --- GCMemRetriever ---------------------------------------------------------------------------
def test_retriever_drops_the_stale_value_plain_rag_serves(memory: Memory) -> None:
    plain = GCMemRetriever(memory=memory, filters=[], k=4)
    gcmem = GCMemRetriever(memory=memory, k=4)
    assert isinstance(gcmem, BaseRetriever)

    stale_ctx = texts(plain.invoke(sc.PORT_QUESTION))
    assert sc.STALE_PORT in stale_ctx and sc.CURRENT_PORT in stale_ctx

    docs = gcmem.invoke(sc.PORT_QUESTION)
    assert sc.STALE_PORT not in texts(docs)
    assert sc.CURRENT_PORT in texts(docs)
    top = next(d for d in docs if sc.CURRENT_PORT in d.page_content)
    meta = top.metadata
    assert datetime.fromisoformat(meta["ts"]) == sc.T0 + timedelta(days=12, minutes=5)
    assert meta["namespace"] == sc.NAMESPACE
    assert meta["chunk_id"] == top.id and meta["turn_id"] == "t05"
    assert isinstance(meta["score"], float)
    assert "gcmem_dropped" not in meta


def test_retriever_reports_dropped_chunks_with_reasons(memory: Memory) -> None:
    docs = GCMemRetriever(memory=memory, k=4, include_dropped=True).invoke(sc.PORT_QUESTION)
    current = next(d for d in docs if sc.CURRENT_PORT in d.page_content)
    dropped = current.metadata["gcmem_dropped"]
    assert {d["turn_id"] for d in dropped} == {"t00", "t03"}  # both stale copies, on 8080
    for d in dropped:
        assert sc.STALE_PORT in d["text"]
        assert d["stage"] in sc.CHAIN and d["reason"]
        assert d["dominated_by"] == current.id


async def test_retriever_async_matches_sync(memory: Memory) -> None:
    retriever = GCMemRetriever(memory=memory, k=4)
    sync_docs = retriever.invoke(sc.PORT_QUESTION)
    async_docs = await retriever.ainvoke(sc.PORT_QUESTION)
    assert [d.id for d in async_docs] == [d.id for d in sync_docs]


def test_retriever_per_call_options_and_static_facts(memory: Memory) -> None:
    retriever = GCMemRetriever(memory=memory, k=4)
    docs = retriever.invoke(sc.LICENCE_QUESTION, k=2)
    assert any(sc.LICENCE in d.page_content for d in docs)  # old, contradicted by nothing
    with pytest.raises(TypeError, match="unknown retrieval option"):
        retriever.invoke(sc.LICENCE_QUESTION, top_k=2)
    assert retriever.invoke(sc.PORT_QUESTION, namespace="someone-else") == []


# --- ConsistencyFilter on another retriever's documents --------------------------------------
def test_contextual_compression_over_a_plain_vector_store(
    memory: Memory, store: InMemoryVectorStore
) -> None:
    plain = store.as_retriever(search_kwargs={"k": 4})
    assert sc.STALE_PORT in texts(plain.invoke(sc.PORT_QUESTION))

    wrapped = ContextualCompressionRetriever(
        base_compressor=ConsistencyFilter(memory=memory), base_retriever=plain
    )
    docs = wrapped.invoke(sc.PORT_QUESTION)
    assert sc.STALE_PORT not in texts(docs)
    assert sc.CURRENT_PORT in texts(docs)
    assert all(d.metadata["source"] == "wiki" for d in docs)  # documents come back unchanged


async def test_contextual_compression_async(memory: Memory, store: InMemoryVectorStore) -> None:
    wrapped = ContextualCompressionRetriever(
        base_compressor=ConsistencyFilter(memory=memory),
        base_retriever=store.as_retriever(search_kwargs={"k": 4}),
    )
    docs = await wrapped.ainvoke(sc.PORT_QUESTION)
    assert sc.STALE_PORT not in texts(docs) and sc.CURRENT_PORT in texts(docs)


def test_after_an_ensemble_retriever(memory: Memory, embedder: Embedder) -> None:
    """The stale value lives in the wiki, the current one in chat notes: the ensemble
    serves both; the filter keeps the current one and the wiki's static fact."""
    emb = GCMemEmbeddings(embedder)
    wiki = InMemoryVectorStore(embedding=emb)
    chat = InMemoryVectorStore(embedding=emb)
    old, new = sc.T0, sc.T0 + timedelta(days=30)
    wiki.add_documents(
        [dated("The payments service runs on port 8000.", old), dated(sc.LICENCE_TEXT, old)]
    )
    chat.add_documents(
        [dated("The payments service runs on port 9090.", new), dated("Lunch is at noon.", new)]
    )
    ensemble = EnsembleRetriever(
        retrievers=[wiki.as_retriever(search_kwargs={"k": 2}), chat.as_retriever()],
        weights=[0.5, 0.5],
    )
    question = "What port does the payments service use?"
    assert "port 8000" in texts(ensemble.invoke(question))
    wrapped = ContextualCompressionRetriever(
        base_compressor=ConsistencyFilter(memory=memory), base_retriever=ensemble
    )
    docs = wrapped.invoke(question)
    ctx = texts(docs)
    assert "port 8000" not in ctx and "port 9090" in ctx
    assert sc.LICENCE in ctx  # old but contradicted by nothing


def test_inside_a_document_compressor_pipeline(memory: Memory) -> None:
    """Split long documents into sentences (metadata, and so ts, is copied), then filter:
    the stale sentence goes, the static one from the same document stays."""
    runbook = Document(
        page_content="The payments service runs on port 8000.\n\n"
        "The project is licensed under Apache-2.0.",
        metadata={"ts": sc.T0.isoformat()},
    )
    update = Document(
        page_content="The payments service runs on port 8080.",
        metadata={"ts": (sc.T0 + timedelta(days=12)).isoformat()},
    )
    pipeline = DocumentCompressorPipeline(
        transformers=[
            RecursiveCharacterTextSplitter(chunk_size=60, chunk_overlap=0),
            ConsistencyFilter(memory=memory),
        ]
    )
    docs = pipeline.compress_documents([runbook, update], sc.PORT_QUESTION)
    ctx = texts(list(docs))
    assert sc.STALE_PORT not in ctx and sc.CURRENT_PORT in ctx and sc.LICENCE in ctx


def test_document_filter_shares_the_memorys_model_not_its_store(memory: Memory) -> None:
    scratch = memory.document_filter()
    assert scratch.resources.oracle is memory.resources.oracle
    assert scratch.resources.verdict_log is not memory.resources.verdict_log
    assert scratch.redis is not memory.redis
    assert [f.name for f in scratch.filters] == sc.CHAIN


def test_filter_documents_explains_each_drop(memory: Memory) -> None:
    docs = [
        Document(page_content="We pin fastapi at 0.95.2.", metadata={"ts": "2026-03-01"}),
        Document(page_content="We pin fastapi at 0.110.0.", metadata={"ts": "2026-03-20"}),
    ]
    flt = ConsistencyFilter(memory=memory, naive_timezone="UTC")
    kept, dropped = flt.filter_documents(docs, "What fastapi version do we pin?")
    assert kept == [docs[1]]
    [(doc, decision)] = dropped
    assert doc is docs[0] and decision.stage in sc.CHAIN and decision.reason
    [record] = dropped_records(dropped)
    assert record["text"] == docs[0].page_content and record["stage"] == decision.stage


def test_missing_or_bad_timestamps_are_clear_errors(memory: Memory) -> None:
    flt = ConsistencyFilter(memory=memory)
    good = Document(page_content="The payments service runs on port 8080.", metadata={"ts": 1.0})
    with pytest.raises(TimestampError, match=r"document #1 \(id 'x'\) has no event time"):
        flt.compress_documents([good, Document(id="x", page_content="a", metadata={})], "q")
    with pytest.raises(TimestampError, match=r"metadata\['ts'\] is unreadable"):
        flt.compress_documents([Document(page_content="a", metadata={"ts": "last week"})], "q")
    with pytest.raises(TimestampError, match="no time zone"):
        flt.compress_documents([Document(page_content="a", metadata={"ts": "2026-03-01"})], "q")
    other_key = ConsistencyFilter(memory=memory, ts_key="created_at")
    with pytest.raises(TimestampError, match=r"metadata\['created_at'\]"):
        other_key.compress_documents([good], "q")
    with pytest.raises(ValueError, match="unknown time zone"):
        ConsistencyFilter(memory=memory, naive_timezone="Mars/Olympus")


def test_undated_documents_can_pass_through(memory: Memory) -> None:
    flt = ConsistencyFilter(memory=memory, missing_ts="keep")
    undated = Document(page_content="The payments service runs on port 7000.")
    dated = Document(page_content="The payments service runs on port 8080.", metadata={"ts": 5.0})
    assert flt.compress_documents([undated, dated], sc.PORT_QUESTION) == [undated, dated]
    assert flt.compress_documents([], sc.PORT_QUESTION) == []


# --- chat history -> gcmem --------------------------------------------------------------------
def test_chat_history_is_published_as_turns(memory: Memory) -> None:
    ns = "chat-lc"
    history = GCMemChatMessageHistory(memory, session_id="conv-1", namespace=ns)
    t = datetime(2026, 4, 1, 9, tzinfo=UTC)
    history.add_messages(
        [
            HumanMessage("The deploy target is eu-west-1.", additional_kwargs={"ts": t}),
            AIMessage("Noted.", additional_kwargs={"ts": t + timedelta(seconds=5)}),
        ]
    )
    history.add_messages(
        [
            HumanMessage(
                "The deploy target is us-east-2.", additional_kwargs={"ts": t.replace(day=9)}
            )
        ]
    )
    assert [m.text for m in history.messages][-1] == "The deploy target is us-east-2."

    question = "What is the deploy target?"
    plain = GCMemRetriever(memory=memory, namespace=ns, filters=[], k=3).invoke(question)
    assert "eu-west-1" in texts(plain)
    docs = GCMemRetriever(memory=memory, namespace=ns, k=3).invoke(question)
    assert "eu-west-1" not in texts(docs) and "us-east-2" in texts(docs)
    assert {d.metadata["session_id"] for d in docs} == {"conv-1"}


def test_publishing_is_idempotent_and_keeps_order_without_times(memory: Memory) -> None:
    ns = "chat-lc-2"
    msgs = [HumanMessage("Alpha."), AIMessage(""), HumanMessage("Beta.")]
    base = datetime(2026, 4, 2, tzinfo=UTC)
    first = publish_messages(memory, msgs, namespace=ns, session_id="s", base_ts=base)
    again = publish_messages(memory, msgs, namespace=ns, session_id="s", base_ts=base)
    assert [t.id for t in first] == ["s:0", "s:2"]  # the empty AI message is skipped
    assert first == again
    assert first[0].ts < first[1].ts
    assert first[1].role == "user"
    assert memory.index.count(ns) == 2


def test_a_rejected_message_is_neither_stored_nor_published(memory: Memory) -> None:
    history = GCMemChatMessageHistory(memory, session_id="s", namespace="chat-lc-3")
    bad = HumanMessage("x", additional_kwargs={"ts": "not a time"})
    with pytest.raises(TimestampError):
        history.add_messages([bad])
    assert history.messages == [] and memory.index.count("chat-lc-3") == 0


# --- superseded statements inside a kept document ---------------------------------------------
PIN_OLD = "We pin fastapi at 0.95.2. The API runs behind nginx."
PIN_NEW = "We pin fastapi at 0.110.0."
PIN_QUESTION = "What fastapi version do we pin?"


def test_filter_documents_excises_a_superseded_statement_and_keeps_the_rest(
    memory: Memory,
) -> None:
    docs = [
        Document(page_content=PIN_OLD, metadata={"ts": "2026-03-01", "source": "wiki"}),
        Document(page_content=PIN_NEW, metadata={"ts": "2026-03-20"}),
    ]
    kept, dropped = ConsistencyFilter(memory=memory, naive_timezone="UTC").filter_documents(
        docs, PIN_QUESTION
    )
    assert dropped == [] and kept[1] is docs[1]
    assert kept[0].page_content == (
        "[superseded on 2026-03-20; current value: 0.110.0] The API runs behind nginx."
    )
    [stale] = kept[0].metadata[STALE_KEY]
    assert stale["text"] == "We pin fastapi at 0.95.2." and stale["current_value"] == "0.110.0"
    assert kept[0].metadata["source"] == "wiki"
    assert docs[0].page_content == PIN_OLD and STALE_KEY not in docs[0].metadata  # not edited


def test_retriever_returns_kept_chunks_with_superseded_statements_excised(memory: Memory) -> None:
    ns = "lc-excise"
    memory.ingest(
        [
            Turn(id="p1", namespace=ns, text=PIN_OLD, ts=sc.T0),
            Turn(id="p2", namespace=ns, text=PIN_NEW, ts=sc.T0 + timedelta(days=19)),
        ]
    )
    docs = GCMemRetriever(memory=memory, namespace=ns).invoke(PIN_QUESTION)
    assert "0.95.2" not in texts(docs) and "behind nginx" in texts(docs)
    older = next(d for d in docs if d.metadata["turn_id"] == "p1")
    assert [s["text"] for s in older.metadata[STALE_KEY]] == ["We pin fastapi at 0.95.2."]
