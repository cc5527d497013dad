"""A LlamaIndex query engine whose context is cleaned by gcmem's ConsistencyPostprocessor.

    make example-llamaindex        (or: .venv/bin/python examples/llamaindex_query_engine.py)

Offline: the index embeds with gcmem's MiniLM (``GCMemEmbedding``: no download, no API key),
the generator is llama-index-core's ``MockLLM``, which answers with the prompt it was given
(so the printed answer *is* the context a real model would read), and the conflict oracle is
the NLI checkpoint named by GCMEM_NLI_MODEL.

A team's decision log lives in a plain ``VectorStoreIndex``; decisions are revised without
"now"/"updated" words. The same query engine runs without and with the postprocessor, which
drops a node when a newer node in the same result supersedes or contradicts it, and keeps old
nodes that nothing contradicts (a recency cut-off would drop those too). Then the same
questions go through gcmem's own memory with ``GCMemRetriever``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from _show import Checks, show
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine

from gcmem import Memory, Turn, load_settings
from gcmem.integrations.llamaindex import (
    ConsistencyPostprocessor,
    GCMemEmbedding,
    GCMemRetriever,
)

START = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)

# (day, decision)
DECISIONS = [
    (0, "The primary database is PostgreSQL 14."),
    (0, "Backups are stored in the eu-central-1 bucket."),
    (1, "The team uses Grafana for dashboards."),
    (2, "The API rate limit is 100 requests per minute."),
    (3, "The primary database is PostgreSQL 14."),
    (6, "The API rate limit is 100 requests per minute."),
    (20, "The primary database is PostgreSQL 16."),
    (25, "The API rate limit is 500 requests per minute."),
]

# question -> (stale value, current value)
QUESTIONS = {
    "Which PostgreSQL version is the primary database?": ("PostgreSQL 14", "PostgreSQL 16"),
    "What is the API rate limit?": ("100 requests", "500 requests"),
}


def main() -> None:
    settings = load_settings(
        ephemeral=True,
        namespace="infra",
        ingest=["supersession"],
        stm_size=0,
    )
    checks = Checks()
    with Memory.from_settings(settings) as memory:
        docs = [
            Document(
                text=text, metadata={"ts": (START + timedelta(days=day, minutes=i)).isoformat()}
            )
            for i, (day, text) in enumerate(DECISIONS)
        ]
        index = VectorStoreIndex.from_documents(docs, embed_model=GCMemEmbedding(memory.embedder))
        plain = index.as_query_engine(llm=MockLLM(), similarity_top_k=4)
        postprocessor = ConsistencyPostprocessor(memory=memory)
        cleaned = index.as_query_engine(
            llm=MockLLM(), similarity_top_k=4, node_postprocessors=[postprocessor]
        )
        print(f"indexed {len(docs)} decisions in a LlamaIndex VectorStoreIndex")
        for question, (stale, current) in QUESTIONS.items():
            before, after = plain.query(question), cleaned.query(question)
            nodes = index.as_retriever(similarity_top_k=4).retrieve(question)
            _, why = postprocessor.filter_nodes(nodes, question)
            show(
                question,
                plain=[(n.node.metadata["ts"], n.node.get_content()) for n in before.source_nodes],
                gcmem=[(n.node.metadata["ts"], n.node.get_content()) for n in after.source_nodes],
                dropped=[
                    (n.node.metadata["ts"], n.node.get_content(), f"[{d.stage}] {d.reason}")
                    for n, d in why
                ],
                stale=[stale],
                plain_label="plain query engine",
            )
            checks.stale_in_plain(question, [str(before)], stale)
            checks.clean(question, [str(after)], stale, current)
        print("\nThe prompt MockLLM received from the cleaned engine, last question:")
        print("    " + str(after).strip().replace("\n", "\n    "))

        # The same log as gcmem memory, read through GCMemRetriever in a LlamaIndex engine.
        memory.ingest(
            [
                Turn(
                    id=f"adr-{i}",
                    namespace="infra",
                    text=text,
                    ts=START + timedelta(days=d, minutes=i),
                )
                for i, (d, text) in enumerate(DECISIONS)
            ]
        )
        engine = RetrieverQueryEngine.from_args(GCMemRetriever(memory, k=4), llm=MockLLM())
        plain_memory = GCMemRetriever(memory, k=4, filters=[])
        for question, (stale, current) in QUESTIONS.items():
            answer = engine.query(question)
            stale_nodes = plain_memory.retrieve(question)
            show(
                question,
                plain=[(n.node.metadata["ts"], n.node.get_content()) for n in stale_nodes],
                gcmem=[(n.node.metadata["ts"], n.node.get_content()) for n in answer.source_nodes],
                stale=[stale],
                plain_label="gcmem memory without filters",
            )
            checks.stale_in_plain(question, [n.node.get_content() for n in stale_nodes], stale)
            checks.clean(question, [str(answer)], stale, current)
    checks.finish()


if __name__ == "__main__":
    main()
