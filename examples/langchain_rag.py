"""A LangChain RAG chain over a project memory that keeps changing.

    make example-langchain        (or: .venv/bin/python examples/langchain_rag.py)

Offline: the embedder is the installed MiniLM package, the conflict oracle is the NLI
checkpoint named by GCMEM_NLI_MODEL (the Makefile points it at ../shared/models/nli-minilm-l6),
and the "LLM" is langchain-core's ParrotFakeChatModel, which answers with the prompt it was
given, so what you see is exactly the context a real model would read.

1. A team's chat (LangChain messages with timestamps) is published into gcmem through
   ``GCMemChatMessageHistory``: the port, the fastapi pin and the on-call owner change over
   three weeks, without any "now"/"updated" words, and the old values are the majority.
2. The same chain runs twice: over ``GCMemRetriever(filters=[])`` (plain top-k RAG) and over
   ``GCMemRetriever`` with gcmem's chain (supersession, then the NLI oracle and Φ_T).
3. ``ConsistencyFilter`` cleans a plain LangChain vector store's results (a wiki written before
   the changes) inside a ``ContextualCompressionRetriever``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from _show import Checks, show
from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import ParrotFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

from gcmem import Memory, load_settings
from gcmem.integrations.langchain import (
    CONFLICTS_KEY,
    ConsistencyFilter,
    GCMemChatMessageHistory,
    GCMemEmbeddings,
    GCMemRetriever,
)

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NAMESPACE = "payments-team"

# (day, speaker, text)
CHAT = [
    (0, "human", "The payments service runs on port 8000."),
    (0, "ai", "Noted, I will update the dashboards."),
    (1, "human", "We pin fastapi at 0.95.2 in requirements.txt."),
    (2, "human", "The payments on-call engineer is Priya."),
    (3, "human", "The payments service runs on port 8000."),
    (4, "human", "The project is licensed under Apache-2.0."),
    (5, "human", "We pin fastapi at 0.95.2 in requirements.txt."),
    (12, "human", "The payments service runs on port 8080."),
    (14, "human", "We pin fastapi at 0.110.0 in requirements.txt."),
    (16, "human", "The payments on-call engineer is Marco."),
]

# question -> (stale value, current value)
QUESTIONS = {
    "Which port does the payments service run on?": ("port 8000", "port 8080"),
    "What fastapi version do we pin?": ("0.95.2", "0.110.0"),
    "Who is the payments on-call engineer?": ("Priya", "Marco"),
}

WIKI = [
    (0, "The payments service runs on port 8000 behind the internal load balancer."),
    (0, "The project is licensed under Apache-2.0."),
]


def messages() -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for i, (day, speaker, text) in enumerate(CHAT):
        ts = {"ts": START + timedelta(days=day, minutes=i)}
        cls = HumanMessage if speaker == "human" else AIMessage
        out.append(cls(content=text, additional_kwargs=ts))
    return out


def rag_chain(retriever: BaseRetriever) -> Runnable[str, str]:
    prompt = ChatPromptTemplate.from_messages(
        [("human", "Answer from this context only.\n{context}\n\nQuestion: {question}")]
    )

    def context(docs: list[Document]) -> str:
        return "\n".join(f"- [{d.metadata['ts'][:10]}] {d.page_content}" for d in docs)

    return (
        {"context": retriever | context, "question": RunnablePassthrough()}
        | prompt
        | ParrotFakeChatModel()
        | StrOutputParser()
    )


def main() -> None:
    settings = load_settings(
        ephemeral=True,
        namespace=NAMESPACE,
        ingest=["supersession"],
        stm_size=0,
    )
    checks = Checks()
    with Memory.from_settings(settings) as memory:
        history = GCMemChatMessageHistory(memory, session_id="standup", namespace=NAMESPACE)
        history.add_messages(messages())
        print(f"published {len(history.messages)} chat messages into gcmem ({NAMESPACE})")

        plain = GCMemRetriever(memory=memory, filters=[], k=4)
        gcmem = GCMemRetriever(memory=memory, k=4, include_dropped=True)
        plain_chain, gcmem_chain = rag_chain(plain), rag_chain(gcmem)
        for question, (stale, current) in QUESTIONS.items():
            plain_docs = plain.invoke(question)
            gcmem_docs = gcmem.invoke(question)
            dropped = [
                (d["ts"], d["text"], f"[{d['stage']}] {d['reason']}")
                for doc in gcmem_docs
                for d in doc.metadata["gcmem_dropped"]
            ]
            show(
                question,
                plain=[(d.metadata["ts"], d.page_content) for d in plain_docs],
                gcmem=[(d.metadata["ts"], d.page_content) for d in gcmem_docs],
                dropped=dropped,
                stale=[stale],
            )
            checks.stale_in_plain(question, [d.page_content for d in plain_docs], stale)
            checks.clean(question, [d.page_content for d in gcmem_docs], stale, current)
            answer_plain, answer_gcmem = plain_chain.invoke(question), gcmem_chain.invoke(question)
            checks.stale_in_plain(question, [answer_plain], stale)
            checks.clean(question, [answer_gcmem], stale, current)
        print("\nWhat the (parrot) model was given by the gcmem chain, last question:")
        print("    " + answer_gcmem.replace("\n", "\n    "))

        # Any LangChain retriever: a wiki written before the changes, plus the chat's update.
        store = InMemoryVectorStore(embedding=GCMemEmbeddings(memory.embedder))
        store.add_documents(
            [
                Document(page_content=text, metadata={"ts": START + timedelta(days=day)})
                for day, text in WIKI
            ]
            + [Document(page_content=CHAT[7][2], metadata={"ts": START + timedelta(days=12)})]
        )
        wiki = store.as_retriever(search_kwargs={"k": 3})
        cleaned = ContextualCompressionRetriever(
            base_compressor=ConsistencyFilter(memory=memory), base_retriever=wiki
        )
        question = "Which port does the payments service run on?"
        before, after = wiki.invoke(question), cleaned.invoke(question)
        _, why = ConsistencyFilter(memory=memory).filter_documents(before, question)
        show(
            question,
            plain=[(d.metadata["ts"], d.page_content) for d in before],
            gcmem=[(d.metadata["ts"], d.page_content) for d in after],
            dropped=[(d.metadata["ts"], d.page_content, f"[{x.stage}] {x.reason}") for d, x in why],
            stale=["port 8000"],
            plain_label="wiki vector store",
        )
        checks.stale_in_plain(question, [d.page_content for d in before], "port 8000")
        # the wiki line adds "behind the internal load balancer": a different key for the
        # ledger, a pair for κ, which surfaces it (with the newer statement) below its
        # confident threshold instead of guessing
        noted = [(d.page_content, d.metadata.get(CONFLICTS_KEY)) for d in after]
        for text, notes in noted:
            for n in notes or []:
                print(f"  gcmem's note on {text!r}: {n['reason']} ({n['older_ts'][:10]} vs newer")
                print(f"    {n['newer_ts'][:10]}: both kept, the reader is told)")
        checks.clean_or_noted(question, noted, "port 8000", "port 8080")
        checks.clean_or_noted(question, noted, "port 8000", "Apache-2.0")
    checks.finish()


if __name__ == "__main__":
    main()
