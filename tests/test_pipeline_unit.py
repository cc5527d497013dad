"""Fast unit layer of the pipeline: decoding, the batch processor, reclaim logic, metrics and
auth, and the FastStream app under ``TestRedisBroker`` (no network). Engines are the embedded
ones; the embedder is the hashing double (these tests check logic, not retrieval quality)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from faststream.redis import TestRedisBroker
from pydantic import SecretStr

from gcmem.models import Turn
from gcmem.pipeline.app import PipelineApp, Roles, create_app
from gcmem.pipeline.codec import Rejection, StreamEntry, decode_entry
from gcmem.pipeline.http import HttpAuth
from gcmem.pipeline.ingest import BatchProcessor
from gcmem.pipeline.metrics import PipelineMetrics
from gcmem.pipeline.query import QueryReply, request_body
from gcmem.pipeline.reclaim import Reclaimer
from gcmem.pipeline.runner import MemoryRunner
from gcmem.pipeline.topology import Topology
from gcmem.settings import Settings
from gcmem.storage.redis import Keyspace, open_async_redis
from tests.conftest import make_settings
from tests.pipeline_support import (
    assert_dead_letter_written_once_across_a_crash,
    data,
    hashing_memory,
    malformed_corpus,
    turn,
)


def _validate(raw: dict[str, Any]) -> Turn:
    return Turn.model_validate({"namespace": "default", **raw}, context={"max_text_chars": 32768})


@pytest.mark.parametrize("case", malformed_corpus(), ids=lambda c: c.name)
def test_every_malformed_kind_is_rejected_with_its_reason(case: Any) -> None:
    decoded = decode_entry(StreamEntry("1-0", case.fields), max_bytes=1 << 20, validate=_validate)
    assert isinstance(decoded, Rejection), case.name
    assert decoded.kind == case.kind, (case.name, decoded)
    assert decoded.reason.strip()


def test_corpus_has_at_least_thirty_kinds() -> None:
    corpus = malformed_corpus()
    assert len({c.name for c in corpus}) == len(corpus) >= 30
    assert {"depth", "encoding", "json", "envelope", "schema"} <= {c.kind for c in corpus}


async def test_valid_entry_decodes_raw_and_in_faststream_envelope() -> None:
    from faststream.redis.parser.binary import BinaryMessageFormatV1

    raw = decode_entry(StreamEntry("1-0", data(turn(1))), max_bytes=1 << 20, validate=_validate)
    assert isinstance(raw, Turn) and raw.id == "turn-000001"
    envelope = await BinaryMessageFormatV1.encode(
        message=turn(2), reply_to=None, headers=None, correlation_id="c"
    )
    fields = {b"__data__": envelope}
    wrapped = decode_entry(StreamEntry("1-1", fields), max_bytes=1 << 20, validate=_validate)
    assert isinstance(wrapped, Turn) and wrapped.id == "turn-000002"


# --- the batch processor on the embedded Redis -----------------------------------------------
@pytest.fixture
async def processor(settings: Settings) -> AsyncIterator[BatchProcessor]:
    memory = hashing_memory(settings, None)
    client = open_async_redis(settings.storage)
    topo = Topology.from_settings(
        settings.pipeline, Keyspace(settings.storage.key_prefix), consumer="c1"
    )
    proc = BatchProcessor(
        MemoryRunner(memory, exclusive=True), client, topo, PipelineMetrics(client, topo)
    )
    yield proc
    memory.close()
    await client.aclose()


async def _xadd(proc: BatchProcessor, fields: dict[bytes, bytes]) -> str:
    entry_id = await proc.client.xadd(proc.topology.stream, fields)  # type: ignore[arg-type]
    return entry_id.decode()


async def _read(proc: BatchProcessor, consumer: str, count: int = 100) -> list[StreamEntry]:
    t = proc.topology
    rows = await proc.client.xreadgroup(t.group, consumer, {t.stream: ">"}, count=count)
    return [StreamEntry(i.decode(), f) for _, entries in rows for i, f in entries]


async def test_bad_entry_does_not_stop_its_batch(processor: BatchProcessor) -> None:
    from gcmem.pipeline.app import ensure_group

    await ensure_group(processor.client, processor.topology)
    good = [await _xadd(processor, data(turn(i))) for i in range(5)]
    bad = await _xadd(processor, {b"__data__": b"{nope"})
    outcome = await processor.process(await _read(processor, "c1"))
    assert outcome.ingested == 5 and len(outcome.dead_letters) == 1
    assert outcome.dead_letters[0].source_id == bad and outcome.dead_letters[0].kind == "json"
    assert processor.memory.index.count("ns-a") == 5
    pending = await processor.client.xpending(processor.topology.stream, processor.topology.group)
    assert pending["pending"] == 0, "good and dead-lettered entries are all acknowledged"
    assert good


async def test_redelivery_and_republish_are_idempotent(processor: BatchProcessor) -> None:
    from gcmem.pipeline.app import ensure_group

    await ensure_group(processor.client, processor.topology)
    for _ in range(2):
        await _xadd(processor, data(turn(1)))
    outcome = await processor.process(await _read(processor, "c1"))
    assert (outcome.ingested, outcome.duplicates) == (1, 1)
    # The same entry delivered again (a redelivery after a crash before the ack).
    again = await processor.process([StreamEntry(None, data(turn(1)), deliveries=2)])
    assert again.duplicates == 1 and again.ingested == 0
    assert processor.memory.index.count("ns-a") == 1
    # The same turn id with other content is a producer bug: dead-lettered, not merged.
    changed = turn(1, text="Something else entirely.")
    conflict = await processor.process([StreamEntry(None, data(changed))])
    assert [d.kind for d in conflict.dead_letters] == ["conflict"]


async def test_failing_entry_is_isolated_retried_then_dead_lettered(
    processor: BatchProcessor,
) -> None:
    from gcmem.pipeline.app import ensure_group

    class Boom(Exception):
        pass

    class FailOn:
        name = "fail-on"

        def on_ingest(self, chunks: Any, vectors: Any) -> None:
            if any("poison" in c.text for c in chunks):
                raise Boom("stage rejects poison")

    processor.memory.ingest_stages.append(FailOn())
    await ensure_group(processor.client, processor.topology)
    for i in range(6):
        await _xadd(processor, data(turn(i)))
    poison_id = await _xadd(processor, data(turn(99, text="This one is poison.")))
    outcome = await processor.process(await _read(processor, "c1"))
    assert outcome.ingested == 6 and outcome.failed == 1 and not outcome.dead_letters
    t = processor.topology
    pending = await processor.client.xpending_range(t.stream, t.group, "-", "+", 10)
    assert [p["message_id"].decode() for p in pending] == [poison_id]
    assert "stage rejects poison" in (await processor.last_failure(poison_id) or "")
    # The last allowed delivery fails too: dead-lettered with the error and the attempt count.
    entry = StreamEntry(poison_id, data(turn(99, text="This one is poison.")), deliveries=5)
    final = await processor.process([entry])
    assert [d.kind for d in final.dead_letters] == ["processing"]
    assert final.dead_letters[0].attempts == 5 and "Boom" in final.dead_letters[0].reason
    assert (await processor.client.xpending(t.stream, t.group))["pending"] == 0


async def test_reclaimer_takes_over_a_dead_consumers_entries(
    processor: BatchProcessor, settings: Settings
) -> None:
    from gcmem.pipeline.app import ensure_group

    await ensure_group(processor.client, processor.topology)
    for i in range(4):
        await _xadd(processor, data(turn(i)))
    dead = await _read(processor, "dead-consumer")  # read, never acknowledged
    assert len(dead) == 4
    reclaimer = Reclaimer(processor.client, processor.topology, processor)
    reclaimer.min_idle_ms = 0  # everything idle counts as abandoned
    assert await reclaimer.reclaim_once() == 4
    assert processor.memory.index.count("ns-a") == 4
    t = processor.topology
    assert (await processor.client.xpending(t.stream, t.group))["pending"] == 0
    snap = await processor.metrics.snapshot()
    assert snap["reclaimed"] == 4 and snap["processed"] == 4


async def test_entry_that_never_completes_is_dead_lettered_after_max_attempts(
    processor: BatchProcessor,
) -> None:
    from gcmem.pipeline.app import ensure_group

    await ensure_group(processor.client, processor.topology)
    await _xadd(processor, data(turn(7)))
    await _read(processor, "dead-1")
    reclaimer = Reclaimer(processor.client, processor.topology, processor)
    reclaimer.min_idle_ms = 0
    reclaimer.max_attempts = 1  # delivered twice (read + this claim) > 1: the killer entry
    await reclaimer.reclaim_once()
    letters = await processor.dlq.read()
    assert len(letters) == 1 and letters[0].kind == "processing"
    assert "died" in letters[0].reason and letters[0].attempts == 2
    assert processor.memory.index.count("ns-a") == 0


async def test_dead_letter_replay_restores_the_original_bytes(processor: BatchProcessor) -> None:
    from gcmem.pipeline.app import ensure_group

    await ensure_group(processor.client, processor.topology)
    original = {b"__data__": b"\xff not utf8", b"extra": b"kept"}
    await _xadd(processor, original)
    await processor.process(await _read(processor, "c1"))
    [letter] = await processor.dlq.read()
    assert letter.kind == "encoding" and letter.original["extra"] == b"kept"
    [new_id] = await processor.dlq.replay([letter])
    rows = await processor.client.xrange(processor.topology.stream, new_id, new_id)
    assert rows[0][1] == original
    assert await processor.dlq.length() == 0


async def test_dead_letter_survives_a_crash_before_the_ack_exactly_once(
    processor: BatchProcessor, monkeypatch: pytest.MonkeyPatch
) -> None:
    await assert_dead_letter_written_once_across_a_crash(processor, monkeypatch)


async def test_metrics_render_prometheus_text(processor: BatchProcessor) -> None:
    from gcmem.pipeline.app import ensure_group

    await ensure_group(processor.client, processor.topology)
    await _xadd(processor, data(turn(1)))
    await _xadd(processor, {b"__data__": b"[]"})
    await processor.process(await _read(processor, "c1"))
    text = await processor.metrics.render()
    assert "gcmem_pipeline_processed_total 1" in text
    assert 'gcmem_pipeline_dead_lettered_total{reason="json"} 1' in text
    assert 'gcmem_pipeline_consumer_lag{stream="' in text
    assert 'gcmem_stage_latency_seconds_bucket{stage="embed",le="+Inf"} 1' in text
    assert "gcmem_oracle_verdict_log_hit_rate" in text
    for line in text.splitlines():
        assert line.startswith("#") or len(line.rsplit(" ", 1)) == 2


def test_http_auth_scopes_tokens_to_namespaces(tmp_path: Path) -> None:
    s = make_settings(
        tmp_path,
        http_token=SecretStr("admin"),
        http_namespace_tokens={"team-a": SecretStr("tok-a")},
    )
    auth = HttpAuth(s.http)

    class Req:
        def __init__(self, token: str | None) -> None:
            self.headers = {"authorization": f"Bearer {token}"} if token else {}

    def status(token: str | None, namespaces: list[str] | None) -> int:
        denied = auth.check(Req(token), namespaces)  # type: ignore[arg-type]
        return 200 if denied is None else denied.status_code

    assert status(None, ["team-a"]) == 401
    assert status("tok-a", ["team-a"]) == 200
    assert status("tok-a", ["team-b"]) == 403
    assert status("tok-a", ["team-a", "team-b"]) == 403
    assert status("admin", ["team-b"]) == 200
    assert status("tok-a", None) == 403 and status("admin", None) == 200


# --- the FastStream app under TestRedisBroker ------------------------------------------------
@pytest.fixture
async def test_app(settings: Settings) -> AsyncIterator[PipelineApp]:
    built = create_app(
        settings,
        roles=Roles(worker=True, query=True),
        consumer="unit",
        memory_factory=hashing_memory,
        broker_url="redis://in-memory-test-broker",
    )
    async with TestRedisBroker(built.broker):
        await built.runtime.start()
        yield built
        await built.runtime.stop()


async def test_app_ingests_turns_and_dead_letters_bad_ones(test_app: PipelineApp) -> None:
    stream = test_app.runtime.topology.stream
    for i in range(3):
        await test_app.broker.publish(turn(i), stream=stream)
    await test_app.broker.publish({"id": "x", "text": "no timestamp"}, stream=stream)
    memory = test_app.runtime.memory
    assert memory is not None and memory.index.count("ns-a") == 3
    processor, _ = test_app.runtime.require()
    [letter] = await processor.dlq.read()
    assert letter.kind == "schema" and "ts" in letter.reason


async def test_query_rpc_equals_the_library_call(test_app: PipelineApp) -> None:
    stream = test_app.runtime.topology.stream
    for i in range(10):
        await test_app.broker.publish(turn(i), stream=stream)
    as_of = datetime(2026, 6, 1, tzinfo=UTC)
    body = request_body("Which port does service 3 use?", namespace="ns-a", k=4, as_of=as_of)
    msg = await test_app.broker.request(body, list=test_app.runtime.topology.query_requests)
    reply = QueryReply.model_validate(await msg.decode())
    assert reply.ok and reply.result is not None
    memory = test_app.runtime.memory
    assert memory is not None
    direct = memory.retrieve("Which port does service 3 use?", namespace="ns-a", k=4, as_of=as_of)
    got = reply.result.model_dump(exclude={"timings_ms"})
    assert got == direct.model_dump(exclude={"timings_ms"})
    bad = await test_app.broker.request(
        {"query": "x", "namespace": "bad ns!"}, list=test_app.runtime.topology.query_requests
    )
    bad_reply = QueryReply.model_validate(await bad.decode())
    assert (
        not bad_reply.ok
        and bad_reply.error_kind == "invalid"
        and "namespace" in (bad_reply.error or "")
    )


def _generated_asyncapi(out: Path) -> dict[str, Any]:
    from typer.testing import CliRunner

    from gcmem.cli import app as cli_app

    result = CliRunner().invoke(cli_app, ["asyncapi", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return dict(json.loads((out / "asyncapi.json").read_text()))


def test_asyncapi_document_in_docs_is_current(tmp_path: Path) -> None:
    """docs/asyncapi.{json,yaml} are generated from the app (``gcmem asyncapi``); they must
    not drift."""
    generated = _generated_asyncapi(tmp_path)
    docs = Path(__file__).resolve().parents[1] / "docs"
    committed = json.loads((docs / "asyncapi.json").read_text())
    assert generated == committed, "run `gcmem asyncapi --out docs` to refresh docs/"
    assert (tmp_path / "asyncapi.yaml").read_text() == (docs / "asyncapi.yaml").read_text(), (
        "run `gcmem asyncapi --out docs` to refresh docs/"
    )


def _payload(doc: dict[str, Any], channel: str) -> dict[str, Any]:
    """The resolved payload schema of a channel's (only) message."""
    [message] = doc["channels"][channel]["messages"].values()
    name = message["$ref"].removeprefix("#/components/messages/")
    payload = doc["components"]["messages"][name]["payload"]
    if "$ref" in payload:
        payload = doc["components"]["schemas"][
            payload["$ref"].removeprefix("#/components/schemas/")
        ]
    return dict(payload)


def test_asyncapi_documents_every_message_payload(tmp_path: Path) -> None:
    """The turn schema on the bus is a public contract: the subscriber's message is Turn v1,
    and dead letters and query replies are described too (no EmptyPayload anywhere)."""
    from gcmem.models import TURN_SCHEMA_VERSION
    from gcmem.pipeline.dlq import DeadLetter
    from gcmem.pipeline.query import QueryReply, QueryRequest

    doc = _generated_asyncapi(tmp_path)
    assert {"turns", "query", "query:reply", "dead-letters", "turns:publish"} <= set(
        doc["channels"]
    )
    for channel in doc["channels"]:
        payload = _payload(doc, channel)
        assert payload.get("type") == "object" and payload.get("properties"), (channel, payload)
    assert "EmptyPayload" not in json.dumps(doc)

    turn_schema = Turn.model_json_schema(ref_template="#/components/schemas/{model}")
    turn_schema.pop("$defs", None)
    for channel in ("turns", "turns:publish"):  # what workers read = what producers publish
        assert _payload(doc, channel) == turn_schema, channel
    version = _payload(doc, "turns")["properties"]["schema_version"]
    assert version["const"] == TURN_SCHEMA_VERSION == 1
    assert "Fact" in doc["components"]["schemas"]
    assert doc["operations"]["turns"]["action"] == "receive"

    assert _payload(doc, "query")["title"] == QueryRequest.__name__
    reply = _payload(doc, "query:reply")
    assert reply["title"] == QueryReply.__name__ and "result" in reply["properties"]
    assert "RetrievalResult" in doc["components"]["schemas"]
    dead = _payload(doc, "dead-letters")
    assert dead["title"] == DeadLetter.__name__
    assert {"source_id", "kind", "reason", "attempts"} <= set(dead["properties"])
    assert "original" not in dead["properties"], "original fields ride as orig:<name>"


async def test_bus_queries_are_bounded_and_never_go_unanswered(test_app: PipelineApp) -> None:
    requests = test_app.runtime.topology.query_requests
    max_k = test_app.runtime.settings.memory.max_k
    over = await test_app.broker.request({"query": "x", "k": max_k + 1}, list=requests)
    reply = QueryReply.model_validate(await over.decode())
    assert not reply.ok and reply.error_kind == "invalid" and "GCMEM_MAX_K" in (reply.error or "")
    at_max = await test_app.broker.request({"query": "x", "k": max_k}, list=requests)
    assert QueryReply.model_validate(await at_max.decode()).ok
    # A body FastStream itself cannot decode still gets an error reply, not a timeout.
    for raw in (b"[" * 100_000, b'{"query": "\\ud800"}', b"\xff\xfe"):
        msg = await test_app.broker.request(raw, list=requests, timeout=10)
        bad = QueryReply.model_validate(await msg.decode())
        assert not bad.ok and bad.error_kind == "invalid", (raw[:20], bad)
