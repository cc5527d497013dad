"""The supersession stage end to end through ``Memory``: ledger at ingest, pre-filter at query
time, write-time GC into the MTM payload, on the embedded Redis and the real server.

The hashing embedder (a test double) stands in for MiniLM here: which chunks the filter drops
depends only on the ledger, and the benchmark smoke test runs the same path on MiniLM."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gcmem.filters.base import CandidateFilter, IngestStage
from gcmem.filters.registry import build
from gcmem.filters.supersession import SupersessionStage
from gcmem.memory import Memory
from gcmem.models import Fact, Turn
from gcmem.settings import Settings, load_settings
from tests.doubles import HashingEmbedder

T0 = datetime(2026, 2, 2, 9, 0, tzinfo=UTC)
NS = "proj"
QUESTION = "Which port does the payments service run on?"


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def turn(tid: str, text: str, when: float, **extra: object) -> Turn:
    return Turn(id=tid, namespace=NS, text=text, ts=day(when), **extra)  # type: ignore[arg-type]


@pytest.fixture
def memory(redis_settings: Settings, hashing_embedder: HashingEmbedder) -> Iterator[Memory]:
    # the read-time pre-filter is the subject here: flagged chunks stay in the search
    s = redis_settings.replace(filters=["supersession"], stm_size=0, supersession_exclude=False)
    with Memory(s, embedder=hashing_embedder) as m:
        yield m


def stage_of(memory: Memory) -> SupersessionStage:
    stage = memory.filters[0]
    assert isinstance(stage, SupersessionStage)
    return stage


TIMELINE = [
    turn("t1", "The payments service runs on port 8000.", 0),
    turn("t2", "The payments service runs on port 8080.", 3),
    turn("t3", "The project is licensed under Apache-2.0.", 1),
    turn("t4", "The payments service had a slow week, nothing else to report.", 2),
    turn("t5", "The payments service runs on port 8000. The project uses Python 3.11.", 1),
]


def by_turn(result: object) -> dict[str, str]:
    kept = {c.chunk.turn_id: "kept" for c in result.kept}  # type: ignore[attr-defined]
    dropped = {d.chunk.chunk.turn_id: "dropped" for d in result.dropped}  # type: ignore[attr-defined]
    return kept | dropped


def test_stage_is_both_sides_and_shared(memory: Memory) -> None:
    stage = stage_of(memory)
    assert isinstance(stage, CandidateFilter) and isinstance(stage, IngestStage)
    # GCMEM_FILTERS alone is enough: the memory runs the filter's ingest side too
    assert any(s is stage for s in memory.ingest_stages)
    # a new stage of the same name shares the memory's one ledger
    assert build("supersession", memory.resources).ledger is stage.ledger


def test_prefilter_drops_superseded_with_reasons(memory: Memory) -> None:
    memory.ingest(TIMELINE)
    result = memory.retrieve(QUESTION, namespace=NS, k=10)
    assert by_turn(result) == {
        "t1": "dropped",  # port 8000, superseded by t2
        "t2": "kept",
        "t3": "kept",  # static: nothing contradicts it
        "t4": "kept",  # no triple: passes untouched
        "t5": "kept",  # one of its two assertions is still current
    }
    [decision] = result.dropped
    t2_chunk = next(c.chunk for c in result.kept if c.chunk.turn_id == "t2")
    assert decision.stage == "supersession"
    assert decision.dominated_by == t2_chunk.id and decision.dominated_by_turn_id == "t2"
    [detail] = decision.details["assertions"]
    assert detail["object"] == "8000"
    assert detail["superseded_by"]["object"] == "8080"
    assert detail["superseded_by"]["chunk_id"] == t2_chunk.id
    assert detail["valid_at_query"]["object"] == "8080"
    assert "8080" in decision.reason
    # the context is the original chunk text, never a reconstructed triple
    assert t2_chunk.text == "The payments service runs on port 8080."


def test_as_of_before_the_change_keeps_the_old_value(memory: Memory) -> None:
    memory.ingest(TIMELINE)
    before = memory.retrieve(QUESTION, namespace=NS, k=10, as_of=day(2))
    assert by_turn(before)["t1"] == "kept" and not before.dropped
    at_change = memory.retrieve(QUESTION, namespace=NS, k=10, as_of=day(3))
    assert by_turn(at_change)["t1"] == "dropped"


def test_chain_drops_every_stale_link(memory: Memory) -> None:
    memory.ingest(
        [
            turn("a", "The API base path for the project is /api/v1.", 0),
            turn("b", "The API base path for the project is /API/v1.", 1),
            turn("c", "The API base path for the project is /api/v2.", 2),
        ]
    )
    result = memory.retrieve("What is the API base path for the project?", namespace=NS, k=10)
    assert by_turn(result) == {"a": "dropped", "b": "dropped", "c": "kept"}
    reasons = {d.chunk.chunk.turn_id: d for d in result.dropped}
    assert reasons["a"].dominated_by_turn_id == "b"  # the immediate successor...
    valid = reasons["a"].details["assertions"][0]["valid_at_query"]
    assert valid["turn_id"] == "c"  # ...and the value valid at query time


def test_a_value_that_holds_again_keeps_its_older_statement(memory: Memory) -> None:
    # a revert: 8000, then 8080, then 8000 again. The first chunk states what holds now.
    memory.ingest(
        [
            turn("a", "The payments service runs on port 8000.", 0),
            turn("b", "The payments service runs on port 8080.", 1),
            turn("c", "The payments service runs on port 8000 again.", 2),
        ]
    )
    assert by_turn(memory.retrieve(QUESTION, namespace=NS, k=10)) == {
        "a": "kept",
        "b": "dropped",
        "c": "kept",
    }
    # while 8080 held, the first chunk was stale
    assert by_turn(memory.retrieve(QUESTION, namespace=NS, k=10, as_of=day(1.5)))["a"] == (
        "dropped"
    )


def test_out_of_order_ingest_and_write_time_gc(memory: Memory) -> None:
    memory.ingest([TIMELINE[1]])  # 8080 first
    memory.ingest([TIMELINE[0], TIMELINE[2]])  # the older 8000 arrives later
    present = memory.candidates(QUESTION, namespace=NS, k=10, stm=False, exclude_flagged=True)
    assert {c.chunk.turn_id for c in present.candidates} == {"t2", "t3"}
    everything = memory.candidates(QUESTION, namespace=NS, k=10, stm=False)
    assert {c.chunk.turn_id for c in everything.candidates} == {"t1", "t2", "t3"}
    # the flag follows newer values onto older chunks
    memory.ingest([turn("t9", "The payments service runs on port 9090.", 5)])
    present = memory.candidates(QUESTION, namespace=NS, k=10, stm=False, exclude_flagged=True)
    assert {c.chunk.turn_id for c in present.candidates} == {"t9", "t3"}


def test_redelivery_is_idempotent_and_keeps_the_flag(memory: Memory) -> None:
    memory.ingest(TIMELINE)
    stats = stage_of(memory).ledger.stats(NS)
    memory.ingest(TIMELINE)  # the same turns again (the MTM upsert resets their payload)
    again = stage_of(memory).ledger.stats(NS)
    assert (again.assertions, again.versions, again.rows) == (
        stats.assertions,
        stats.versions,
        stats.rows,
    )
    assert again.duplicates == stats.assertions
    row = stage_of(memory).ledger.current(NS, "payments service", "port")
    assert row is not None and row.provenance == ("t2",)
    present = memory.candidates(QUESTION, namespace=NS, k=10, stm=False, exclude_flagged=True)
    assert "t1" not in {c.chunk.turn_id for c in present.candidates}


def test_explicit_facts_bypass_extraction(memory: Memory) -> None:
    memory.ingest(
        [
            turn(
                "e1",
                "Payments moved hosts.",
                0,
                facts=[Fact(subject="payments", relation="host", object="a1")],
            ),
            turn(
                "e2",
                "Payments moved hosts again.",
                1,
                facts=[Fact(subject="Payments", relation="HOST", object="b2")],
            ),
        ]
    )
    result = memory.retrieve("Where do payments run?", namespace=NS, k=10)
    assert by_turn(result) == {"e1": "dropped", "e2": "kept"}


def test_exclude_setting_applies_to_present_queries_only(
    redis_settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    s = redis_settings.replace(
        filters=[], ingest=["supersession"], stm_size=0, supersession_exclude=True
    )
    with Memory(s, embedder=hashing_embedder) as memory:
        memory.ingest(TIMELINE[:3])
        present = memory.retrieve(QUESTION, namespace=NS, k=10)  # no filters: index-level only
        assert {c.chunk.turn_id for c in present.kept} == {"t2", "t3"}
        past = memory.retrieve(QUESTION, namespace=NS, k=10, as_of=day(2))
        assert "t1" in {c.chunk.turn_id for c in past.kept}


def test_write_time_gc_can_be_off(
    redis_settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    s = redis_settings.replace(filters=["supersession"], stm_size=0, supersession_gc=False)
    with Memory(s, embedder=hashing_embedder) as memory:
        memory.ingest(TIMELINE[:2])
        present = memory.candidates(QUESTION, namespace=NS, k=10, stm=False, exclude_flagged=True)
        assert {c.chunk.turn_id for c in present.candidates} == {"t1", "t2"}
        assert by_turn(memory.filter(present)) == {"t1": "dropped", "t2": "kept"}


def test_namespaces_do_not_see_each_other(memory: Memory) -> None:
    memory.ingest([TIMELINE[0]])
    memory.ingest([TIMELINE[1].model_copy(update={"namespace": "other"})])
    result = memory.retrieve(QUESTION, namespace=NS, k=10)
    assert by_turn(result) == {"t1": "kept"}


def test_documents_from_other_retrievers(tmp_path: Path, hashing_embedder: HashingEmbedder) -> None:
    """The framework adapters' per-call scratch ledger runs the same stage."""
    from gcmem.memory.documents import DocumentFilter, ExternalDocument

    settings = load_settings(data_dir=tmp_path, ephemeral=True, filters=["supersession"])
    docs = [
        ExternalDocument("The payments service runs on port 8080.", day(3), 0.9, id="new"),
        ExternalDocument("The payments service runs on port 8000.", day(0), 0.8, id="old"),
    ]
    result = DocumentFilter(settings, embedder=hashing_embedder).filter(QUESTION, docs)
    assert result.kept_positions() == [0]
    decision = result.decision(1)
    assert decision is not None and decision.stage == "supersession"


def test_ledger_cli(
    redis_settings: Settings, hashing_embedder: HashingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gcmem ledger`` reads what the stage wrote (same server, same key prefix)."""
    import json

    from typer.testing import CliRunner

    from gcmem.cli import app

    s = redis_settings.replace(filters=["supersession"])
    with Memory(s, embedder=hashing_embedder) as memory:
        memory.ingest(TIMELINE[:2])
    monkeypatch.setenv("GCMEM_DATA_DIR", str(s.storage.data_dir))
    monkeypatch.setenv("GCMEM_KEY_PREFIX", s.storage.key_prefix)
    if s.storage.redis_url:
        monkeypatch.setenv("GCMEM_REDIS_URL", s.storage.redis_url)
    runner = CliRunner()
    keys = runner.invoke(app, ["ledger", "keys", "--namespace", NS, "--json"])
    assert keys.exit_code == 0, keys.output
    assert json.loads(keys.output) == [
        {"subject": "payments service", "relation": "port", "current": "8080"}
    ]
    hist = runner.invoke(
        app, ["ledger", "history", "Payments Service", "port", "--namespace", NS, "--json"]
    )
    rows = json.loads(hist.output)
    assert [(r["kind"], r["object"]) for r in rows] == [
        ("current", "8000"),
        ("current", "8080"),
        ("audit", "8000"),
    ]
    old = runner.invoke(
        app,
        [
            "ledger",
            "as-of",
            "payments service",
            "port",
            "--namespace",
            NS,
            "--json",
            "--valid-time",
            day(1).isoformat(),
        ],
    )
    assert json.loads(old.output)["object"] == "8000"
    none = runner.invoke(
        app, ["ledger", "as-of", "payments service", "port", "--valid-time", "2020-01-01T00:00:00"]
    )
    assert none.exit_code != 0  # no time zone: a clear error
