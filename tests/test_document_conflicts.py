"""The document adapters (LangChain ``ConsistencyFilter``, LlamaIndex
``ConsistencyPostprocessor``) carry a surfaced conflict on both kept documents, as the
retrievers do, without editing the caller's documents."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from gcmem.memory import Memory
from gcmem.settings import Settings
from tests.doubles import HashingEmbedder, ScriptedOracle

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
OLD = "The payments service runs on port 8000 behind the internal load balancer."
NEW = "The payments service runs on port 8080."
OTHER = "The project is licensed under Apache-2.0."
QUESTION = "Which port does the payments service run on?"


@pytest.fixture
def memory(redis_settings: Settings) -> Iterator[Memory]:
    # κ scores the pair 0.7: below its 0.9 threshold, above the 0.5 surfacing one
    oracle = ScriptedOracle(threshold=0.9)
    oracle.contradict(OLD, NEW, 0.7)
    s = redis_settings.replace(filters=["dominance"], dominance_confirm_threshold=None)
    with Memory(s, embedder=HashingEmbedder(), oracle=oracle) as m:
        yield m


def test_langchain_consistency_filter_notes_both_sides(memory: Memory) -> None:
    from langchain_core.documents import Document

    from gcmem.integrations.langchain import CONFLICTS_KEY, ConsistencyFilter

    docs = [
        Document(page_content=OLD, metadata={"ts": T0}),
        Document(page_content=OTHER, metadata={"ts": T0}),
        Document(page_content=NEW, metadata={"ts": T0 + timedelta(days=12)}),
    ]
    kept, dropped = ConsistencyFilter(memory=memory).filter_documents(docs, QUESTION)
    assert dropped == [] and [d.page_content for d in kept] == [OLD, OTHER, NEW]
    notes = {d.page_content: d.metadata.get(CONFLICTS_KEY) for d in kept}
    assert notes[OTHER] is None
    for side in (OLD, NEW):
        [record] = notes[side]
        assert record["stage"] == "dominance" and record["score"] == pytest.approx(0.7)
        assert record["older_ts"] == T0.isoformat()
    assert all(CONFLICTS_KEY not in d.metadata for d in docs)  # the caller's are untouched


def test_llamaindex_postprocessor_notes_both_sides(memory: Memory) -> None:
    from llama_index.core.schema import NodeWithScore, TextNode

    from gcmem.integrations.llamaindex import CONFLICTS_KEY, ConsistencyPostprocessor

    nodes = [
        NodeWithScore(node=TextNode(text=OLD, metadata={"ts": T0.isoformat()}), score=0.9),
        NodeWithScore(
            node=TextNode(text=NEW, metadata={"ts": (T0 + timedelta(days=12)).isoformat()}),
            score=0.8,
        ),
    ]
    kept, dropped = ConsistencyPostprocessor(memory=memory).filter_nodes(nodes, QUESTION)
    assert dropped == [] and len(kept) == 2
    for n in kept:
        [record] = n.node.metadata[CONFLICTS_KEY]
        assert record["newer_ts"] == (T0 + timedelta(days=12)).isoformat()
    assert kept[0].score == 0.9
    assert all(CONFLICTS_KEY not in n.node.metadata for n in nodes)
