"""Questions that ask for an earlier value: which shapes read as one, and what the memory and
the adapters keep for them (the superseded chunk, with its record; excised statements shown
with a note). The hashing embedder stands in for MiniLM: what is decided depends on the ledger."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from langchain_core.documents import Document

from gcmem.facts.earlier import asks_earlier
from gcmem.filters.base import FilterOutcome, QueryContext
from gcmem.integrations.langchain import SUPERSEDED_KEY, ConsistencyFilter, GCMemRetriever
from gcmem.memory import Memory
from gcmem.memory.candidates import CandidateSet, run_filter_chain
from gcmem.memory.documents import DocumentFilter
from gcmem.models import Chunk, Decision, ScoredChunk, StaleSentence, Turn
from gcmem.settings import Settings
from tests.conftest import make_settings
from tests.doubles import HashingEmbedder

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NS = "team"


def day(n: int) -> datetime:
    return T0 + timedelta(days=n)


@pytest.mark.parametrize(
    "question",
    [
        "Who did support@ forward to first?",
        "Which region did we launch in first?",
        "Which tag was put on SUP-2291 first?",
        "Which mirror went into the CI runners' sources.list first?",
        "Which tenant got the route-optimizer beta first?",
        "Which port did the API use previously?",
        "What was the previous owner's name?",
        "What was our old address?",
        "Which tomato did I plant first in the greenhouse bed?",
        "Where is Rhiannon originally from?",
        "Which label marks that it used to work in the February release?",
        "Where did Bea work before?",
        "What was the retention period before the change?",
    ],
)
def test_questions_about_an_earlier_value(question: str) -> None:
    assert asks_earlier(question)


@pytest.mark.parametrize(
    "question",
    [
        "Who does support@ forward to?",
        "What do I do first when the pager fires?",
        "What does the on-call engineer check first?",
        "Which bastion host is used to restart the queue?",
        "Which Slack channel should be used to page the DBA?",
        "How many approvals does a pull request need before merge?",
        "What do I read before bed?",
        "When does Yara first check email in the morning?",
        "Where does book club meet on the first Monday?",
        "What's the first-response SLA for P1 tickets?",
        "Is Jun certified in first aid?",
        # an ordinal or a descriptor of a thing, an instrument, a question with its own time
        "Who was the first non-military president of Myanmar?",
        "Who was first to assume the persona of Black Tiger?",
        "What was the first country to host the festival in Apr 1966?",
        "Which bank was originally established under the name Interbanka?",
        "Which association was joined by former politician Meg Whitman?",
        "Who was the original host of the game show?",
        "Which tool did Rahul use to build the dining table?",
    ],
)
def test_questions_about_the_present(question: str) -> None:
    assert not asks_earlier(question)


def _memory(settings: Settings, **overrides: object) -> Memory:
    """The chain's supersession stage on the given stores (embedded, and a Redis server)."""
    memory = Memory(
        settings.replace(filters=["supersession"], stm_size=0, **overrides),
        embedder=HashingEmbedder(),
    )
    memory.ingest(
        [
            Turn(id="t1", namespace=NS, text="support@ forwards to Hiro.", ts=day(0)),
            Turn(id="t2", namespace=NS, text="The helpdesk trial ends on the 30th.", ts=day(3)),
            Turn(id="t3", namespace=NS, text="support@ forwards to Bea.", ts=day(28)),
        ]
    )
    return memory


def _turns(chunks: list[ScoredChunk]) -> list[str]:
    return sorted(c.chunk.turn_id for c in chunks)


def test_the_present_question_drops_the_superseded_chunk(redis_settings: Settings) -> None:
    memory = _memory(redis_settings)
    result = memory.retrieve("Who does support@ forward to?", namespace=NS)
    assert "t1" not in _turns(result.kept)
    assert result.superseded == []
    memory.close()


def test_an_earlier_value_question_keeps_it_with_its_record(redis_settings: Settings) -> None:
    memory = _memory(redis_settings)
    result = memory.retrieve("Who did support@ forward to first?", namespace=NS)
    assert {"t1", "t3"} <= set(_turns(result.kept))
    assert result.dropped == []
    (decision,) = result.superseded
    assert decision.chunk.chunk.turn_id == "t1"
    assert decision.dominated_by_turn_id == "t3"
    pos = {c.chunk.turn_id: n for n, c in enumerate(result.kept, 1)}
    assert (
        f"Note: [{pos['t1']}] (2026-03-02) was superseded by [{pos['t3']}] (2026-03-30)."
        in result.context()
    )
    # the adapters carry the record on the chunk it is about
    docs = GCMemRetriever(memory=memory, namespace=NS).invoke("Who did support@ forward to first?")
    records = {d.metadata["turn_id"]: d.metadata.get(SUPERSEDED_KEY) for d in docs}
    assert records["t1"]["dominated_by_turn_id"] == "t3"
    assert records["t3"] is None
    memory.close()


def test_the_setting_turns_it_off(redis_settings: Settings) -> None:
    memory = _memory(redis_settings, earlier_questions=False)
    result = memory.retrieve("Who did support@ forward to first?", namespace=NS)
    assert "t1" not in _turns(result.kept)
    assert result.superseded == []
    memory.close()


def test_a_document_filter_keeps_the_earlier_document(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, filters=["supersession"])
    docs = [
        Document(page_content="support@ forwards to Hiro.", metadata={"ts": day(0).isoformat()}),
        Document(page_content="support@ forwards to Bea.", metadata={"ts": day(28).isoformat()}),
    ]
    flt = ConsistencyFilter(document_filter=DocumentFilter(settings, embedder=HashingEmbedder()))
    now = flt.compress_documents(docs, "Who does support@ forward to?")
    assert [d.page_content for d in now] == ["support@ forwards to Bea."]
    first = flt.compress_documents(docs, "Who did support@ forward to first?")
    assert [d.page_content for d in first] == [d.page_content for d in docs]
    assert first[0].metadata[SUPERSEDED_KEY]["stage"] == "supersession"
    assert SUPERSEDED_KEY not in first[1].metadata


def _chunk(tid: str, text: str, n: int) -> ScoredChunk:
    chunk = Chunk(
        id=f"c-{tid}",
        namespace=NS,
        turn_id=tid,
        index=0,
        text=text,
        ts=day(n),
        role="user",
        content_hash=tid,
    )
    return ScoredChunk(chunk=chunk, score=1.0 - n / 100, sources=("mtm",))


class _DropsAndExcises:
    """Drops the first candidate for the last one and excises a statement of the second."""

    name = "test-stage"

    def apply(self, candidates: list[ScoredChunk], query: QueryContext) -> FilterOutcome:
        first, second, *rest = candidates
        stale = StaleSentence(
            index=0, text="Port is 80.", key="api / port", value="80", current_value="8080"
        )
        marked = second.model_copy(update={"stale_sentences": (stale,)})
        decision = Decision(
            chunk=first, stage=self.name, reason="older", dominated_by=candidates[-1].id
        )
        return FilterOutcome([marked, *rest], [decision])


@pytest.mark.parametrize("earlier", [False, True])
def test_the_chain_keeps_drops_in_place_and_shows_excised_statements(earlier: bool) -> None:
    cands = [
        _chunk("a", "We ship on Tuesdays.", 0),
        _chunk("b", "Port is 80. Owner is Ana.", 1),
        _chunk("c", "We ship on Thursdays.", 2),
    ]
    ctx = QueryContext(query="q", namespace=NS, as_of=day(9), earlier=earlier)
    result = run_filter_chain(CandidateSet(ctx, cands, ["q"], 3, {}), [_DropsAndExcises()])
    (b,) = [c for c in result.kept if c.chunk.turn_id == "b"]
    if not earlier:
        assert [c.chunk.turn_id for c in result.kept] == ["b", "c"]
        assert [d.chunk.id for d in result.dropped] == ["c-a"]
        assert b.visible_text != b.chunk.text
        return
    assert [c.chunk.turn_id for c in result.kept] == ["a", "b", "c"]  # candidate order
    assert result.dropped == []
    assert [d.chunk.id for d in result.superseded] == ["c-a"]
    assert b.visible_text == b.chunk.text
    assert "names '80', which was replaced (now '8080')" in result.context()
    assert "Note: [1] (2026-03-02) was superseded by [3] (2026-03-04)." in result.context()
