"""No input or request may stop the system: the hostile producer's entries among valid turns
on the real Redis server, supervised background tasks, outages versus poison, the HTTP edge
(4xx, never 500), deadlines, a full query pool, and health that answers while queries run.
Engines are real; the embedder is the hashing double (retrieval quality is not the subject)."""

from __future__ import annotations

import asyncio
import itertools
import json
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio

from gcmem.pipeline.app import Roles, create_app, ensure_group
from gcmem.pipeline.codec import StreamEntry
from gcmem.pipeline.ingest import DONE, BatchProcessor
from gcmem.pipeline.metrics import PipelineMetrics
from gcmem.pipeline.reclaim import Reclaimer
from gcmem.pipeline.runner import MemoryRunner
from gcmem.pipeline.supervisor import Supervisor
from gcmem.pipeline.topology import Topology
from gcmem.settings import Settings
from gcmem.storage.redis import Keyspace, open_async_redis
from tests.pipeline_support import (
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

ISSUE_CASES = {
    "nested-100000-levels": "depth",
    "lone-surrogate-text": "encoding",
    "nan-in-metadata": "json",
    "integer-ts": "schema",
    "envelope-headers-list": "envelope",
}


@pytest.fixture
async def bus(real_redis_settings: Settings) -> AsyncIterator[redis.asyncio.Redis]:
    client = redis.asyncio.Redis.from_url(str(real_redis_settings.storage.redis_url))
    yield client
    await client.aclose()


def _settings(base: Settings, **changes: Any) -> Settings:
    return base.replace(pipeline_block_ms=50, **changes)


@pytest.mark.redis
async def test_issue_cases_among_valid_turns_each_valid_turn_ingested_exactly_once(
    real_redis_settings: Settings, bus: redis.asyncio.Redis
) -> None:
    """Batches of 8 mixing valid turns with each of the issue's entries: every bad one is
    dead-lettered with its reason at its first delivery, every valid one ingested once, no
    entry retried, the reclaimer alive throughout."""
    s = _settings(real_redis_settings, pipeline_batch_size=8)
    built = create_app(s, roles=Roles(worker=True, query=False), memory_factory=hashing_memory)
    t = built.runtime.topology
    cases = {c.name: c for c in malformed_corpus() if c.name in ISSUE_CASES}
    assert set(cases) == set(ISSUE_CASES)
    bad_ids: dict[str, str] = {}
    n_valid = 0
    async with running(built):
        for _round in range(3):  # each case three times, in different batch positions
            for name, case in cases.items():
                for _ in range(1 + _round):
                    await bus.xadd(t.stream, data(turn(n_valid)))  # type: ignore[arg-type]
                    n_valid += 1
                entry_id = await bus.xadd(t.stream, case.fields)  # type: ignore[arg-type]
                bad_ids[entry_id.decode()] = name
        # The same valid turns published again (a producer retry): duplicates, not re-ingested.
        for i in range(5):
            await bus.xadd(t.stream, data(turn(i)))  # type: ignore[arg-type]
        await wait_until(lambda: drained(bus, t.stream, t.group), timeout=60, what="drained")
        processor, _ = built.runtime.require()
        await wait_until(
            lambda: counted(processor.metrics, processed=n_valid, duplicates=5),
            timeout=10,
            what="the counts",
        )
        letters = await processor.dlq.read(count=1000)
        snap = await processor.metrics.snapshot()
        tasks = built.runtime.task_report()
        assert built.runtime.memory is not None
        assert built.runtime.memory.index.count("ns-a") == n_valid
    assert {x.source_id: x.kind for x in letters} == {
        i: ISSUE_CASES[name] for i, name in bad_ids.items()
    }
    assert all(x.attempts == 1 and x.reason for x in letters)
    for letter in letters:
        assert {k.encode(): v for k, v in letter.original.items()} == cases[
            bad_ids[str(letter.source_id)]
        ].fields, "the original bytes ride with the dead letter"
    assert snap["processed"] == n_valid and snap["duplicates"] == 5
    assert snap.get("failed", 0) == 0, "no entry needed a retry"
    digests = await bus.hgetall(t.keys.turn_digests("ns-a"))
    assert len(digests) == n_valid and all(v.endswith(DONE.encode()) for v in digests.values())
    assert tasks["reclaimer"]["status"] == "running" and tasks["reclaimer"]["restarts"] == 0


async def test_supervisor_restarts_a_failing_loop_with_backoff() -> None:
    stop = asyncio.Event()
    sup = Supervisor(None, stop, initial_backoff_s=0.05, max_backoff_s=0.2)
    calls: list[float] = []

    async def flaky(stop_event: asyncio.Event) -> None:
        calls.append(time.monotonic())
        if len(calls) <= 3:
            raise KeyError(f"failure {len(calls)}")
        await stop_event.wait()

    async def quits(stop_event: asyncio.Event) -> None:
        return None  # returning while the process runs is a failure too

    sup.spawn("flaky", flaky)
    sup.spawn("quits", quits)
    await asyncio.sleep(0.01)
    assert sup.report()["flaky"]["status"] == "restarting" and not sup.ready and sup.alive
    await wait_until(lambda: _async(len(calls) == 4), timeout=5, what="restarts", every=0.01)
    report = sup.report()
    assert report["flaky"]["status"] == "running" and report["flaky"]["restarts"] == 3
    assert "KeyError" in str(report["flaky"]["last_error"])
    gaps = [b - a for a, b in itertools.pairwise(calls)]
    assert gaps[1] > gaps[0] * 1.5, "the backoff grows"
    assert report["quits"]["restarts"] >= 1 and "returned" in str(report["quits"]["last_error"])
    stop.set()
    await sup.join(timeout=2)
    assert {v["status"] for v in sup.report().values()} == {"stopped"}


async def _async(value: bool) -> bool:
    return value


@pytest.mark.redis
async def test_reclaimer_dying_is_restarted_counted_and_reported(
    real_redis_settings: Settings, bus: redis.asyncio.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reclaim loop raises something that is not a Redis error (it used to die silently):
    restarted, counted in the metrics, visible on /healthz and /readyz, and it then takes
    over a dead consumer's entries as before."""
    s = _settings(real_redis_settings, pipeline_claim_idle_ms=300)
    built = create_app(
        s, roles=Roles(worker=True, query=True, http=True), memory_factory=hashing_memory
    )
    t = built.runtime.topology
    await ensure_group(bus, t)
    for i in range(6):
        await bus.xadd(t.stream, data(turn(i)))  # type: ignore[arg-type]
    assert len((await bus.xreadgroup(t.group, "died", {t.stream: ">"}, count=10))[0][1]) == 6

    failures = {"left": 2}
    original = Reclaimer.reclaim_once

    async def flaky(self: Reclaimer) -> int:
        if failures["left"]:
            failures["left"] -= 1
            raise RuntimeError("reclaim broke")
        return await original(self)

    monkeypatch.setattr(Reclaimer, "reclaim_once", flaky)
    seen: set[int] = set()
    async with serving_http(built, free_port()) as base, httpx.AsyncClient(base_url=base) as http:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready = await http.get("/readyz")
            seen.add(ready.status_code)
            body = ready.json()
            if body["tasks"]["reclaimer"]["restarts"] == 2 and ready.status_code == 200:
                break
            await asyncio.sleep(0.05)
        assert seen == {200, 503}, "not ready while the reclaimer restarts, ready after"
        assert "reclaimer" in str(body) and body["tasks"]["reclaimer"]["status"] == "running"
        health = (await http.get("/healthz")).json()
        assert health["status"] == "ok" and health["tasks"]["reclaimer"]["restarts"] == 2
        assert "reclaim broke" in str(health["tasks"]["reclaimer"]["last_error"])
        await wait_until(lambda: drained(bus, t.stream, t.group), timeout=30, what="reclaim")
        metrics = await built.runtime.require()[0].metrics.render()
    assert 'gcmem_pipeline_task_restarts_total{task="reclaimer"} 2' in metrics
    assert built.runtime.memory is not None


async def test_an_outage_leaves_the_batch_pending_and_blames_no_entry(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index down for every entry at its last allowed delivery: an outage, not poison.
    Nothing is dead-lettered; once the index is back the same entries go through."""
    memory = hashing_memory(settings, None)
    client = open_async_redis(settings.storage)
    topo = Topology.from_settings(
        settings.pipeline, Keyspace(settings.storage.key_prefix), consumer="c1"
    )
    processor = BatchProcessor(
        MemoryRunner(memory, exclusive=True), client, topo, PipelineMetrics(client, topo)
    )
    try:
        await ensure_group(client, topo)
        for i in range(4):
            await client.xadd(topo.stream, data(turn(i)))  # type: ignore[arg-type]
        rows = await client.xreadgroup(topo.group, "c1", {topo.stream: ">"}, count=10)
        last = settings.pipeline.max_attempts
        entries = [StreamEntry(i.decode(), f, last) for _, b in rows for i, f in b]

        def down(*args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("index unreachable")

        with monkeypatch.context() as patch:
            patch.setattr(memory.index, "upsert", down)
            patch.setattr(memory.index, "count", down)
            outcome = await processor.process(entries)
        assert outcome.dead_letters == [] and outcome.failed == 4 and outcome.ingested == 0
        assert (await client.xpending(topo.stream, topo.group))["pending"] == 4
        assert "outage" in (await processor.last_failure(str(entries[0].id)) or "")
        again = await processor.process(entries)
        assert again.ingested == 4 and not again.dead_letters
        assert memory.index.count("ns-a") == 4
    finally:
        memory.close()
        await client.aclose()


# --- the HTTP edge -----------------------------------------------------------------------------
def _raw(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**base, **changes}


@pytest.mark.redis
async def test_hostile_http_bodies_get_4xx_never_500(
    real_redis_settings: Settings, bus: redis.asyncio.Redis
) -> None:
    s = _settings(real_redis_settings, http_max_body_bytes=64 * 1024, max_k=20)
    built = create_app(
        s, roles=Roles(worker=True, query=True, http=True), memory_factory=hashing_memory
    )
    t = built.runtime.topology
    good = json.dumps(turn(1)).encode()
    query = b'{"query": "port of service 1", "namespace": "ns-a"'
    cases: list[tuple[str, str, bytes, int, str]] = [
        ("oversized", "/v1/turns", b'{"text": "' + b"x" * 70_000 + b'"}', 413, "limit"),
        ("deep-30000", "/v1/turns", b"[" * 30_000 + b"]" * 30_000, 400, "deeper"),
        (
            "deep-in-query",
            "/v1/query",
            query + b', "x": ' + b"[" * 50 + b"]" * 50 + b"}",
            400,
            "deeper",
        ),
        ("nan", "/v1/turns", good[:-1] + b', "metadata": {"x": NaN}}', 400, "NaN"),
        ("infinity", "/v1/query", query + b', "k": Infinity}', 400, "Infinity"),
        ("surrogate-turn", "/v1/turns", good.replace(b"Service", b"\\ud800"), 400, "surrogate"),
        ("surrogate-query", "/v1/query", b'{"query": "a \\udc80 b"}', 400, "surrogate"),
        ("not-utf8", "/v1/turns", b'{"text": "\xff\xfe"}', 400, "UTF-8"),
        ("not-json", "/v1/query", b"{nope", 400, "not JSON"),
        ("integer-ts", "/v1/turns", json.dumps(_raw(turn(2), ts=12345)).encode(), 422, "ISO 8601"),
        ("not-an-object", "/v1/turns", b"[1, 2]", 422, "not a JSON object"),
        ("empty-list", "/v1/turns", b"[]", 422, "1 to"),
        ("k-above-max", "/v1/query", query + b', "k": 21}', 422, "GCMEM_MAX_K"),
        ("k-over-schema", "/v1/query", query + b', "k": 100000}', 422, "k"),
        ("bad-namespace", "/v1/query", b'{"query": "x", "namespace": "../etc"}', 422, "namespace"),
        ("naive-as-of", "/v1/query", query + b', "as_of": "2026-01-01T00:00:00"}', 422, "as_of"),
    ]
    async with serving_http(built, free_port()) as base, httpx.AsyncClient(base_url=base) as http:
        for name, path, body, status, needle in cases:
            response = await http.post(path, content=body)
            assert response.status_code == status, (name, response.text[:300])
            assert needle in response.json()["error"] + str(response.json()), name

        # Oversized without a Content-Length (chunked): cut off while reading, still 413.
        async def chunks() -> AsyncIterator[bytes]:
            for _ in range(10):
                yield b"x" * 10_000

        chunked = await http.post("/v1/turns", content=chunks())
        assert chunked.status_code == 413
        # k at the maximum is fine; the server is healthy and nothing bad was published.
        ok = await http.post("/v1/query", content=query + b', "k": 20}')
        assert ok.status_code == 200, ok.text
        assert (await http.get("/healthz")).status_code == 200
        assert (await http.post("/v1/turns", content=good)).status_code == 202
        await wait_until(lambda: drained(bus, t.stream, t.group), timeout=30, what="ingest")
        assert await bus.xlen(t.dead_letters) == 0
        assert await bus.xlen(t.stream) == 1


@pytest.mark.redis
async def test_slow_queries_get_504_a_full_pool_503_and_health_stays_fast(
    real_redis_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Queries that outlive their deadline are answered 504 at the deadline; beyond the
    pool's slots requests are refused at once; /healthz answers in well under a second
    throughout (it never waits behind the engine)."""
    s = _settings(real_redis_settings, query_deadline_s=1.0, query_workers=1, query_queue=1)
    built = create_app(
        s, roles=Roles(worker=False, query=True, http=True), memory_factory=hashing_memory
    )
    async with (
        serving_http(built, free_port()) as base,
        httpx.AsyncClient(base_url=base, timeout=30) as http,
    ):
        memory = built.runtime.memory
        assert memory is not None
        real_retrieve = memory.retrieve

        def slow_retrieve(*args: Any, **kwargs: Any) -> Any:
            time.sleep(2.5)  # stands for a query heavier than its deadline
            return real_retrieve(*args, **kwargs)

        monkeypatch.setattr(memory, "retrieve", slow_retrieve)
        body = {"query": "anything", "namespace": "ns-a", "k": 5}
        health_latencies: list[float] = []

        async def probe() -> None:
            for _ in range(30):
                t0 = time.perf_counter()
                assert (await http.get("/healthz")).status_code == 200
                health_latencies.append(time.perf_counter() - t0)
                await asyncio.sleep(0.05)

        async def ask(delay: float) -> tuple[int, float, dict[str, Any]]:
            await asyncio.sleep(delay)
            t0 = time.perf_counter()
            r = await http.post("/v1/query", json=body)
            return r.status_code, time.perf_counter() - t0, r.json()

        results = await asyncio.gather(ask(0), ask(0.1), ask(0.2), probe())
        answers = sorted(results[:3], key=lambda r: r[0])
        statuses = [a[0] for a in answers]
        assert statuses == [503, 504, 504], answers
        busy, late = answers[0], answers[1:]
        assert busy[1] < 0.5 and busy[2]["kind"] == "busy"
        for _status, seconds, payload in late:
            assert 0.9 < seconds < 2.0, seconds  # at the deadline, not when the thread ends
            assert payload["kind"] == "timeout" and "GCMEM_QUERY_DEADLINE_S" in payload["error"]
        # /healthz never waits behind the engine: a probe blocked by the 2.5 s query would
        # take seconds; the bound leaves room for a busy machine's scheduling (a 2-core CI
        # box once took 0.87 s for one probe), the median stays that of an idle endpoint
        assert max(health_latencies) < 1.5, max(health_latencies)
        assert statistics.median(health_latencies) < 0.1, health_latencies
        health = (await http.get("/healthz")).json()
        assert "queries_in_flight" in health
        # After the abandoned threads end, the pool takes queries again.
        monkeypatch.setattr(memory, "retrieve", real_retrieve)
        await wait_until(
            lambda: _async(
                built.runtime.runner is not None and not built.runtime.runner.queries_in_flight
            ),
            timeout=10,
            what="the pool to drain",
        )
        assert (await http.post("/v1/query", json=body)).status_code == 200
        metrics = await built.runtime.require()[1].metrics.render()
    assert "gcmem_pipeline_query_timeouts_total 2" in metrics
    assert "gcmem_pipeline_query_rejected_busy_total 1" in metrics


async def test_snapshot_task_survives_a_failing_save(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded Redis snapshot (a disk that fills up) fails: the task restarts with
    backoff and keeps snapshotting once the disk is back."""
    import gcmem.pipeline.app as app_module

    s = settings.replace(ephemeral=False, embedded_snapshot_interval_s=0.05)
    calls = {"n": 0}

    def flaky_save(settings: Settings) -> bool:
        calls["n"] += 1
        if calls["n"] <= 2:
            raise OSError(28, "No space left on device")
        return False

    monkeypatch.setattr(app_module, "save_embedded_if_dirty", flaky_save)
    built = create_app(s, roles=Roles(worker=False, query=True), memory_factory=hashing_memory)
    async with running(built):
        await wait_until(lambda: _async(calls["n"] >= 4), timeout=20, what="snapshots again")
        report = built.runtime.task_report()["snapshot"]
    assert report["restarts"] == 2 and "No space left" in str(report["last_error"])


@pytest.mark.redis
async def test_a_heavy_kappa_query_answers_within_its_deadline_with_what_it_decided(
    real_redis_settings: Settings,
) -> None:
    """κ over a slow device for a max-k query: instead of a 504 (or a thread that scores for
    minutes), the answer comes before the deadline, says how many pairs it did not judge,
    and the server's next query is not stuck behind the first."""
    import numpy as np

    from gcmem.filters.registry import build_filters
    from tests.doubles import ScriptedOracle

    class SlowOracle(ScriptedOracle):
        def score(self, pairs: Any) -> np.ndarray:
            time.sleep(0.25)
            return super().score(pairs)

    def memory_with_slow_kappa(settings: Settings, index: Any) -> Any:
        memory = hashing_memory(settings, index)
        memory.resources.given_oracle = SlowOracle()
        memory.filters = build_filters(["dominance"], memory.resources)
        return memory

    s = _settings(real_redis_settings, query_deadline_s=2.0, stm_size=0, max_k=60)
    built = create_app(
        s, roles=Roles(worker=False, query=True, http=True), memory_factory=memory_with_slow_kappa
    )
    async with (
        serving_http(built, free_port()) as base,
        httpx.AsyncClient(base_url=base, timeout=30) as http,
    ):
        memory = built.runtime.memory
        assert memory is not None
        memory.ingest(
            [
                turn(i, text=f"Alice enjoyed concert number {i} in the old hall a lot.")
                for i in range(60)
            ]
        )
        body = {"query": "did Alice enjoy the concert", "namespace": "ns-a", "k": 60}
        t0 = time.perf_counter()
        r = await http.post("/v1/query", json=body)
        seconds = time.perf_counter() - t0
        assert r.status_code == 200, r.text
        assert seconds < 2.0, seconds
        report = r.json()["budgets"]["dominance"]
        assert report["past_deadline"] > 0 and report["judged"] > 0, report
        light = await http.post("/v1/query", json={**body, "k": 1})
        assert light.status_code == 200
