"""gcmem inside LlamaIndex: the real llama-index-core classes (VectorStoreIndex, query engine,
MockLLM as the generator, which echoes the prompt it was given), the real MiniLM embedder, the
real NLI oracle and the real supersession + Φ_T stages. No framework mocks."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode

from gcmem.embedding import Embedder
from gcmem.integrations._shared import STALE_KEY
from gcmem.integrations.llamaindex import (
    ConsistencyPostprocessor,
    GCMemEmbedding,
    GCMemRetriever,
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
    m = sc.real_memory(tmp_path_factory.mktemp("li"), embedder, nli_model_path)
    yield m
    m.close()


@pytest.fixture(scope="module")
def index(embedder: Embedder) -> VectorStoreIndex:
    """A plain LlamaIndex vector index over the same timeline (in-memory store, MiniLM)."""
    docs = [Document(text=text, metadata={"ts": ts.isoformat()}) for text, ts in sc.documents()]
    return VectorStoreIndex.from_documents(docs, embed_model=GCMemEmbedding(embedder))


def texts(nodes: list[NodeWithScore]) -> str:
    return " | ".join(n.node.get_content() for n in nodes)


def test_retriever_drops_the_stale_value_plain_rag_serves(memory: Memory) -> None:
    plain = GCMemRetriever(memory, filters=[], k=4).retrieve(sc.PORT_QUESTION)
    assert sc.STALE_PORT in texts(plain) and sc.CURRENT_PORT in texts(plain)

    nodes = GCMemRetriever(memory, k=4, include_dropped=True).retrieve(sc.PORT_QUESTION)
    assert sc.STALE_PORT not in texts(nodes) and sc.CURRENT_PORT in texts(nodes)
    current = next(n for n in nodes if sc.CURRENT_PORT in n.node.get_content())
    meta = current.node.metadata
    assert current.node.node_id == meta["chunk_id"] and meta["turn_id"] == "t05"
    assert meta["namespace"] == sc.NAMESPACE and current.score == pytest.approx(meta["score"])
    assert {d["turn_id"] for d in meta["gcmem_dropped"]} == {"t00", "t03"}
    # the LLM sees the text and its time, never the stale chunks carried in the metadata
    shown = current.node.get_content(metadata_mode="llm")  # type: ignore[arg-type]
    assert sc.STALE_PORT not in shown and "ts:" in shown


async def test_retriever_async_matches_sync(memory: Memory) -> None:
    retriever = GCMemRetriever(memory, k=4)
    sync_nodes = retriever.retrieve(sc.PORT_QUESTION)
    async_nodes = await retriever.aretrieve(sc.PORT_QUESTION)
    assert [n.node.node_id for n in async_nodes] == [n.node.node_id for n in sync_nodes]


def test_query_engine_over_gcmem_retriever(memory: Memory) -> None:
    engine = RetrieverQueryEngine.from_args(GCMemRetriever(memory, k=4), llm=MockLLM())
    response = engine.query(sc.PORT_QUESTION)
    assert sc.STALE_PORT not in str(response)  # MockLLM answers with its prompt
    assert sc.CURRENT_PORT in str(response)


def test_postprocessor_in_a_plain_query_engine(memory: Memory, index: VectorStoreIndex) -> None:
    plain = index.as_query_engine(llm=MockLLM(), similarity_top_k=4)
    stale = plain.query(sc.PORT_QUESTION)
    assert sc.STALE_PORT in str(stale)

    engine = index.as_query_engine(
        llm=MockLLM(),
        similarity_top_k=4,
        node_postprocessors=[ConsistencyPostprocessor(memory=memory)],
    )
    response = engine.query(sc.PORT_QUESTION)
    assert sc.STALE_PORT not in str(response) and sc.CURRENT_PORT in str(response)
    assert sc.STALE_PORT not in texts(response.source_nodes)


async def test_postprocessor_async(memory: Memory, index: VectorStoreIndex) -> None:
    nodes = await index.as_retriever(similarity_top_k=4).aretrieve(sc.PORT_QUESTION)
    post = ConsistencyPostprocessor(memory=memory)
    kept = await post.apostprocess_nodes(nodes, query_str=sc.PORT_QUESTION)
    assert sc.STALE_PORT in texts(nodes) and sc.STALE_PORT not in texts(kept)


def test_postprocessor_keeps_old_facts_nothing_contradicts(memory: Memory) -> None:
    """Unlike a recency cut-off, the old licence stays: nothing newer contradicts it."""
    old, new = sc.T0, sc.T0 + timedelta(days=12)
    nodes = [
        NodeWithScore(node=TextNode(text=sc.LICENCE_TEXT, metadata={"ts": old.timestamp()})),
        NodeWithScore(node=TextNode(text=sc.TIMELINE[0][1], metadata={"ts": old.timestamp()})),
        NodeWithScore(node=TextNode(text=sc.TIMELINE[5][1], metadata={"ts": new.timestamp()})),
    ]
    post = ConsistencyPostprocessor(memory=memory)
    kept, dropped = post.filter_nodes(nodes, sc.PORT_QUESTION)
    assert kept == [nodes[0], nodes[2]]
    [(node, decision)] = dropped
    assert node is nodes[1] and decision.stage in sc.CHAIN


def test_postprocessor_errors_are_clear(memory: Memory) -> None:
    post = ConsistencyPostprocessor(memory=memory)
    undated = [NodeWithScore(node=TextNode(id_="n1", text="a"), score=1.0)]
    with pytest.raises(TimestampError, match=r"document #0 \(id 'n1'\) has no event time"):
        post.postprocess_nodes(undated, query_str="q")
    with pytest.raises(ValueError, match="needs the query"):
        post.postprocess_nodes(undated)
    keep = ConsistencyPostprocessor(memory=memory, missing_ts="keep")
    assert keep.postprocess_nodes(undated, query_bundle=QueryBundle("q")) == undated


def test_embedding_matches_gcmem(embedder: Embedder) -> None:
    emb = GCMemEmbedding(embedder)
    vec = emb.get_text_embedding(sc.LICENCE_TEXT)
    assert vec == pytest.approx(embedder.embed([sc.LICENCE_TEXT])[0].tolist(), abs=1e-6)
    assert len(emb.get_query_embedding("q")) == embedder.dim


def test_superseded_statements_are_excised_from_retrieved_and_postprocessed_nodes(
    memory: Memory,
) -> None:
    old_text = "We pin fastapi at 0.95.2. The API runs behind nginx."
    new_text = "We pin fastapi at 0.110.0."
    question = "What fastapi version do we pin?"
    old, new = sc.T0, sc.T0 + timedelta(days=19)
    ns = "li-excise"
    memory.ingest(
        [
            Turn(id="p1", namespace=ns, text=old_text, ts=old),
            Turn(id="p2", namespace=ns, text=new_text, ts=new),
        ]
    )
    nodes = GCMemRetriever(memory, namespace=ns).retrieve(question)
    assert "0.95.2" not in texts(nodes) and "behind nginx" in texts(nodes)
    older = next(n for n in nodes if n.node.metadata["turn_id"] == "p1")
    assert STALE_KEY in older.node.excluded_llm_metadata_keys  # the old value stays hidden

    given = [
        NodeWithScore(node=TextNode(text=old_text, metadata={"ts": old.timestamp()})),
        NodeWithScore(node=TextNode(text=new_text, metadata={"ts": new.timestamp()})),
    ]
    kept, dropped = ConsistencyPostprocessor(memory=memory).filter_nodes(given, question)
    assert dropped == [] and kept[1] is given[1]
    assert "0.95.2" not in kept[0].node.get_content(metadata_mode=MetadataMode.LLM)
    assert "behind nginx" in kept[0].node.get_content()
    assert kept[0].node.metadata[STALE_KEY][0]["value"] == "0.95.2"
    assert given[0].node.get_content() == old_text  # the caller's node is not edited
