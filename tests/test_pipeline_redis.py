"""The pipeline against the real Redis server: a live FastStream worker, dead letters for a
corpus of malformed inputs, reclaiming a dead consumer's entries, the query round trips (bus
and HTTP) against the library call, the ledger under two concurrent workers, and the embedded
bus. Engines are real; the embedder is the hashing double (retrieval quality is not the
subject here, the MiniLM run is ``test_pipeline_kill``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import redis.asyncio
from pydantic import SecretStr
from typer.testing import CliRunner

from gcmem import AsyncMemoryClient, MemoryClient, Turn
from gcmem.cli import app as cli_app
from gcmem.integrations.bus import BusClient, SyncBusClient
from gcmem.models import RetrievalResult
from gcmem.pipeline.app import Roles, create_app
from gcmem.pipeline.query import QueryError, QueryReply, request_body
from gcmem.settings import Settings
from gcmem.storage.ledger import SupersessionLedger
from gcmem.storage.redis import Keyspace, open_redis
from tests.pipeline_support import (
    assert_dead_letter_written_once_across_a_crash,
    counted,
    data,
    drained,
    free_port,
    hashing_memory,
    malformed_corpus,
    running,
    serving_http,
    turn,
    wait_until,
)

pytestmark = pytest.mark.redis


@pytest.fixture
async def bus(real_redis_settings: Settings) -> AsyncIterator[redis.asyncio.Redis]:
    client = redis.asyncio.Redis.from_url(str(real_redis_settings.storage.redis_url))
    yield client
    await client.aclose()


def _settings(base: Settings, **changes: Any) -> Settings:
    return base.replace(pipeline_block_ms=50, **changes)


async def test_malformed_corpus_is_dead_lettered_around_valid_turns(
    real_redis_settings: Settings, bus: redis.asyncio.Redis
) -> None:
    s = _settings(real_redis_settings)
    built = create_app(s, roles=Roles(worker=True, query=False), memory_factory=hashing_memory)
    t = built.runtime.topology
    corpus = malformed_corpus()
    published: dict[str, str] = {}
    async with running(built):
        n_valid = 0
        for case in corpus:
            for _ in range(2):  # valid turns before and after every bad entry
                await bus.xadd(t.stream, data(turn(n_valid)))  # type: ignore[arg-type]
                n_valid += 1
            entry_id = await bus.xadd(t.stream, case.fields)  # type: ignore[arg-type]
            published[entry_id.decode()] = case.name
        await bus.xadd(t.stream, data(turn(n_valid)))  # type: ignore[arg-type]
        n_valid += 1
        await wait_until(lambda: drained(bus, t.stream, t.group), timeout=60, what="drained")
        processor, _ = built.runtime.require()
        letters = await processor.dlq.read(count=1000)
        assert built.runtime.memory is not None
        assert built.runtime.memory.index.count("ns-a") == n_valid
    by_source = {letter.source_id: letter for letter in letters}
    assert set(by_source) == set(published), "exactly the bad entries are dead-lettered"
    expected_kind = {c.name: c.kind for c in corpus}
    for source_id, name in published.items():
        letter = by_source[source_id]
        assert letter.kind == expected_kind[name], (name, letter.reason)
        assert letter.reason and letter.attempts == 1
        original = next(c.fields for c in corpus if c.name == name)
        assert {k.encode(): v for k, v in letter.original.items()} == original

    # The CLI lists them (JSON lines) and replays one: a fixed copy would now go through.
    env = {
        "GCMEM_REDIS_URL": str(s.storage.redis_url),
        "GCMEM_KEY_PREFIX": s.storage.key_prefix,
    }
    runner = CliRunner()
    # (in a thread: the CLI runs its own event loop)
    listed = await asyncio.to_thread(
        runner.invoke, cli_app, ["dlq", "list", "--json", "--limit", "1000"], env=env
    )
    assert listed.exit_code == 0, listed.output
    rows = [json.loads(line) for line in listed.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == len(corpus)
    first = rows[0]["id"]
    replayed = await asyncio.to_thread(runner.invoke, cli_app, ["dlq", "replay", first], env=env)
    assert replayed.exit_code == 0 and "replayed 1" in replayed.output
    assert await bus.xlen(t.dead_letters) == len(corpus) - 1


async def test_dead_consumer_entries_are_reclaimed(
    real_redis_settings: Settings, bus: redis.asyncio.Redis
) -> None:
    s = _settings(real_redis_settings, pipeline_claim_idle_ms=300)
    built = create_app(s, roles=Roles(worker=True, query=False), memory_factory=hashing_memory)
    t = built.runtime.topology
    from gcmem.pipeline.app import ensure_group

    await ensure_group(bus, t)
    for i in range(20):
        await bus.xadd(t.stream, data(turn(i)))  # type: ignore[arg-type]
    # A consumer that read entries and died before acknowledging them.
    taken = await bus.xreadgroup(t.group, "died-midway", {t.stream: ">"}, count=20)
    assert len(taken[0][1]) == 20
    async with running(built):
        await wait_until(lambda: drained(bus, t.stream, t.group), timeout=60, what="reclaim")
        processor, _ = built.runtime.require()
        await wait_until(
            lambda: counted(processor.metrics, processed=20), timeout=10, what="the counts"
        )
        snap = await processor.metrics.snapshot()
        assert built.runtime.memory is not None
        assert built.runtime.memory.index.count("ns-a") == 20
    assert snap["reclaimed"] == 20 and snap["processed"] == 20


async def test_dead_letter_survives_a_crash_before_the_ack_exactly_once(
    real_redis_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The idempotent dead-letter write (a Lua script) on the real server."""
    from gcmem.pipeline.ingest import BatchProcessor
    from gcmem.pipeline.metrics import PipelineMetrics
    from gcmem.pipeline.runner import MemoryRunner
    from gcmem.pipeline.topology import Topology
    from gcmem.storage.redis import open_async_redis

    memory = hashing_memory(real_redis_settings, None)
    client = open_async_redis(real_redis_settings.storage)
    topo = Topology.from_settings(
        real_redis_settings.pipeline,
        Keyspace(real_redis_settings.storage.key_prefix),
        consumer="c1",
    )
    processor = BatchProcessor(
        MemoryRunner(memory, exclusive=True), client, topo, PipelineMetrics(client, topo)
    )
    try:
        await assert_dead_letter_written_once_across_a_crash(processor, monkeypatch)
    finally:
        memory.close()
        await client.aclose()


async def test_query_over_bus_and_http_equal_the_library_call(
    real_redis_settings: Settings, bus: redis.asyncio.Redis
) -> None:
    s = _settings(
        real_redis_settings,
        http_token=SecretStr("admin-token"),
        http_namespace_tokens={"ns-a": SecretStr("token-a")},
    )
    built = create_app(
        s, roles=Roles(worker=True, query=True, http=True), memory_factory=hashing_memory
    )
    t = built.runtime.topology
    port = free_port()
    as_of = datetime(2026, 6, 1, tzinfo=UTC)
    question = "Which port does service 4 listen on?"
    async with serving_http(built, port) as base, httpx.AsyncClient(base_url=base) as http:
        a = {"Authorization": "Bearer token-a"}
        turns = [turn(i) for i in range(40)]
        posted = await http.post("/v1/turns", json=turns, headers=a)
        assert posted.status_code == 202 and posted.json()["accepted"] == 40
        # Writing another namespace with ns-a's token is refused, and nothing is published.
        other = await http.post("/v1/turns", json=turn(1, namespace="ns-b"), headers=a)
        assert other.status_code == 403
        bad = await http.post("/v1/turns", json=[turn(50), {"id": "x"}], headers=a)
        assert bad.status_code == 422 and bad.json()["problems"][0]["index"] == 1
        assert (await http.post("/v1/turns", json=turn(2))).status_code == 401
        await wait_until(lambda: drained(bus, t.stream, t.group), timeout=60, what="ingest")
        memory = built.runtime.memory
        assert memory is not None and memory.index.count("ns-a") == 40

        body = request_body(question, namespace="ns-a", k=5, as_of=as_of)
        library = memory.retrieve(question, namespace="ns-a", k=5, as_of=as_of)
        over_http = await http.post("/v1/query", json=body, headers=a)
        assert over_http.status_code == 200, over_http.text
        msg = await built.broker.request(body, list=t.query_requests, timeout=30)
        reply = QueryReply.model_validate(await msg.decode())
        assert reply.ok and reply.result is not None
        expected = library.model_dump(mode="json", exclude={"timings_ms"})
        from_http = RetrievalResult.model_validate(over_http.json())
        assert from_http.model_dump(mode="json", exclude={"timings_ms"}) == expected
        assert reply.result.model_dump(mode="json", exclude={"timings_ms"}) == expected
        assert library.kept, "the query found something to compare"

        # Isolation: ns-a's token cannot read ns-b; ns-b holds nothing from ns-a.
        body_b = request_body(question, namespace="ns-b", k=5, as_of=as_of)
        assert (await http.post("/v1/query", json=body_b, headers=a)).status_code == 403
        admin = {"Authorization": "Bearer admin-token"}
        empty = await http.post("/v1/query", json=body_b, headers=admin)
        assert empty.status_code == 200 and empty.json()["kept"] == []
        invalid = await http.post("/v1/query", json={"query": ""}, headers=admin)
        assert invalid.status_code == 422

        health = await http.get("/healthz")
        assert health.status_code == 200 and health.json()["redis"] == "ok"
        assert (await http.get("/metrics", headers=a)).status_code == 403
        metrics = await http.get("/metrics", headers=admin)
        assert metrics.status_code == 200
        assert "gcmem_pipeline_processed_total 40" in metrics.text
        assert 'gcmem_pipeline_consumer_lag{stream="' in metrics.text
        assert 'gcmem_stage_latency_seconds_count{stage="query"} 3' in metrics.text

        # The agent-side client answers with the same result as the library call.
        async with BusClient(s) as client:
            via_client = await client.aretrieve(question, namespace="ns-a", k=5, as_of=as_of)
        assert via_client.model_dump(mode="json", exclude={"timings_ms"}) == expected


async def test_two_workers_superseding_one_key_leave_one_open_assertion(
    real_redis_settings: Settings, bus: redis.asyncio.Redis
) -> None:
    s = _settings(real_redis_settings, ingest=["supersession"], pipeline_batch_size=8)
    # Two consumers of one group, each with its own Memory; the ledger is in Redis, where the
    # per-key script keeps concurrent writers consistent. Both ingest concurrently (threads).
    apps = [
        create_app(
            s,
            roles=Roles(worker=True, query=False),
            consumer=f"w{i}",
            memory_factory=hashing_memory,
        )
        for i in range(2)
    ]
    t = apps[0].runtime.topology
    n = 200
    async with running(apps[0]), running(apps[1]):
        for i in range(n):
            fact = {"subject": "payments service", "relation": "port", "object": str(9000 + i)}
            text = f"payments now on {9000 + i}"
            await bus.xadd(t.stream, data(turn(i, text=text, facts=[fact])))  # type: ignore[arg-type]
        await wait_until(lambda: drained(bus, t.stream, t.group), timeout=120, what="ingest")

        def processed() -> list[int]:
            return [a.runtime.require()[0].totals["processed"] for a in apps]

        async def counted() -> bool:
            # a batch is acknowledged before its worker adds it to its totals
            return sum(processed()) == n

        await wait_until(counted, timeout=30, what="the last batch's count")
        per_worker = processed()
    assert sum(per_worker) == n and min(per_worker) > 0, per_worker
    ledger = SupersessionLedger(open_redis(s.storage), Keyspace(s.storage.key_prefix))
    versions = ledger.versions("ns-a", "payments service", "port")
    open_rows = [v for v in versions if v.open]
    assert len(open_rows) == 1 and open_rows[0].object == str(9000 + n - 1)
    assert len(versions) == n
    consumers = await bus.xinfo_consumers(t.stream, t.group)
    assert sum(1 for c in consumers if c["pending"] == 0) == 2


async def test_embedded_bus_runs_worker_and_queries_in_one_process(settings: Settings) -> None:
    """No Redis server: the embedded Redis is exposed over TCP for FastStream."""
    s = settings.replace(pipeline_block_ms=50)
    built = create_app(s, roles=Roles(worker=True, query=True), memory_factory=hashing_memory)
    assert built.runtime.embedded_bus is not None and built.url.startswith("redis://127.0.0.1:")
    t = built.runtime.topology
    async with running(built):
        client = redis.asyncio.Redis.from_url(built.url)
        for i in range(10):
            await client.xadd(t.stream, data(turn(i)))  # type: ignore[arg-type]
        await client.xadd(t.stream, {b"__data__": b"not json"})  # type: ignore[arg-type]
        await wait_until(lambda: drained(client, t.stream, t.group), timeout=60, what="ingest")
        body = request_body("service 3 port", namespace="ns-a", k=3)
        msg = await built.broker.request(body, list=t.query_requests, timeout=30)
        reply = QueryReply.model_validate(await msg.decode())
        assert reply.ok and reply.result is not None and reply.result.kept
        assert await client.xlen(t.dead_letters) == 1
        await client.aclose()
    assert built.runtime.embedded_bus is not None


def test_worker_without_redis_url_says_what_to_do() -> None:
    result = CliRunner().invoke(cli_app, ["worker"], env={"GCMEM_REDIS_URL": None})
    assert result.exit_code == 2
    assert "serve --with-worker" in result.output


async def test_sync_and_async_clients_in_process_and_over_the_bus_agree(
    real_redis_settings: Settings, bus: redis.asyncio.Redis
) -> None:
    """One client interface, four implementations: ``Memory`` (sync and async) in process,
    ``SyncBusClient`` and ``BusClient`` against a worker on the real Redis server. The same
    turns in, the same ``RetrievalResult`` out."""
    s = _settings(real_redis_settings)
    built = create_app(s, roles=Roles(worker=True, query=True), memory_factory=hashing_memory)
    t = built.runtime.topology
    question = "Which port does service 3 listen on?"
    as_of = datetime(2026, 6, 1, tzinfo=UTC)  # one point in time for every call
    turns = [Turn.model_validate(turn(i)) for i in range(12)]
    async with running(built):
        memory = built.runtime.memory
        assert memory is not None
        sync_bus = SyncBusClient(s)
        async_bus = BusClient(s)
        assert isinstance(memory, MemoryClient) and isinstance(memory, AsyncMemoryClient)
        assert isinstance(sync_bus, MemoryClient) and not isinstance(sync_bus, AsyncMemoryClient)
        assert isinstance(async_bus, AsyncMemoryClient)

        # The sync client blocks: it runs in a thread so this loop keeps serving the worker.
        ids = await asyncio.to_thread(sync_bus.ingest, turns)
        assert len(ids) == len(turns) and all("-" in i for i in ids)
        await wait_until(lambda: drained(bus, t.stream, t.group), timeout=60, what="ingest")
        assert memory.index.count("ns-a") == len(turns)

        library = memory.retrieve(question, namespace="ns-a", k=5, as_of=as_of)
        library_async = await memory.aretrieve(question, namespace="ns-a", k=5, as_of=as_of)
        via_sync = await asyncio.to_thread(
            sync_bus.retrieve, question, namespace="ns-a", k=5, as_of=as_of
        )
        async with async_bus:
            via_async = await async_bus.aretrieve(question, namespace="ns-a", k=5, as_of=as_of)
        expected = library.model_dump(mode="json", exclude={"timings_ms"})
        assert library.kept, "the query found something to compare"
        for other in (library_async, via_sync, via_async):
            assert type(other) is RetrievalResult
            assert other.model_dump(mode="json", exclude={"timings_ms"}) == expected

        # An error reply surfaces the same way on the sync twin.
        too_many = s.memory.max_k + 1
        with pytest.raises(QueryError) as refused:
            await asyncio.to_thread(sync_bus.retrieve, question, namespace="ns-a", k=too_many)
        assert refused.value.kind == "invalid"
        await asyncio.to_thread(sync_bus.close)
        await asyncio.to_thread(sync_bus.close)  # idempotent
