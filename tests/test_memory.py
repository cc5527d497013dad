"""The Memory facade on the embedded defaults and on the real Redis server."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gcmem import AsyncMemoryClient, Memory, MemoryClient, Turn, TurnValidationError
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.integrations.bus import BusClient, SyncBusClient
from gcmem.models import Chunk, chunk_id
from gcmem.settings import Settings
from gcmem.storage.redis import Keyspace, open_redis
from gcmem.storage.stm import RedisShortTermBuffer
from tests.conftest import make_settings
from tests.doubles import HashingEmbedder

T0 = datetime(2026, 2, 1, tzinfo=UTC)


def turns(ns: str, texts: list[str], start: int = 0) -> list[Turn]:
    return [
        Turn(id=f"{ns}-{start + i}", namespace=ns, text=t, ts=T0 + timedelta(hours=start + i))
        for i, t in enumerate(texts)
    ]


def test_reingest_is_a_noop(redis_settings: Settings, hashing_embedder: HashingEmbedder) -> None:
    with Memory(redis_settings, embedder=hashing_embedder) as mem:
        batch = turns("a", ["The service runs on port 8000.", "Alice lives in Paris."])
        first = mem.ingest(batch)
        second = mem.ingest(batch)
        assert (first.chunks, first.stm_added) == (2, 2)
        assert (second.chunks, second.stm_added) == (2, 0)
        assert mem.index.count("a") == 2
        assert len(mem.stm.recent("a")) == 2


def test_namespace_isolation(redis_settings: Settings, hashing_embedder: HashingEmbedder) -> None:
    with Memory(redis_settings, embedder=hashing_embedder) as mem:
        mem.ingest(turns("tenant-a", ["Alice lives in Paris.", "The port is 8000."]))
        mem.ingest(turns("tenant-b", ["Alice lives in Rome.", "The port is 9000."]))
        for ns, other in (("tenant-a", "tenant-b"), ("tenant-b", "tenant-a")):
            result = mem.retrieve("Where does Alice live?", namespace=ns, k=10)
            assert result.kept, "the namespace's own chunks are found"
            assert {c.chunk.namespace for c in result.kept} == {ns}
            assert all(c.turn_id.startswith(ns) for c in result.kept)
            assert not any(c.turn_id.startswith(other) for c in result.kept)
        stm_only = mem.retrieve("anything", namespace="tenant-a", k=1)
        assert {c.chunk.namespace for c in stm_only.kept} == {"tenant-a"}
        b_ids = [chunk_id("tenant-b", "tenant-b-0", 0)]
        assert mem.index.fetch("tenant-a", b_ids) == {}


def test_stm_union_mtm_is_deduplicated(
    redis_settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    settings = redis_settings.replace(stm_size=3)
    with Memory(settings, embedder=hashing_embedder) as mem:
        mem.ingest(turns("ns", [f"fact number {i} about the build" for i in range(8)]))
        result = mem.retrieve("fact number 7 about the build", namespace="ns", k=4)
        ids = [c.id for c in result.kept]
        assert len(ids) == len(set(ids))
        # 4 from MTM, 3 newest from STM; the newest is in both, so it is listed once with both
        # sources and the union has 4 + 3 - overlap members.
        newest = chunk_id("ns", "ns-7", 0)
        both = [c for c in result.kept if c.id == newest]
        assert both and set(both[0].sources) == {"mtm", "stm"}
        stm_ids = {c.id for c in result.kept if "stm" in c.sources}
        assert stm_ids == {chunk_id("ns", f"ns-{i}", 0) for i in (5, 6, 7)}
        mtm_ids = {c.id for c in result.kept if "mtm" in c.sources}
        assert len(mtm_ids) == 4
        assert result.candidates == len(mtm_ids | stm_ids)
        no_stm = mem.retrieve("fact number 7 about the build", namespace="ns", k=4, stm=False)
        assert all(c.sources == ("mtm",) for c in no_stm.kept)


def test_stm_keeps_newest_n_under_concurrent_appends(real_redis_settings: Settings) -> None:
    """16 threads append 50 chunks each (out of time order) to one namespace on the real
    server: exactly the N newest by event time remain, data hash in step with the index."""
    client = open_redis(real_redis_settings.storage)
    keys = Keyspace(real_redis_settings.storage.key_prefix)
    capacity = 10
    chunks = [
        Chunk.from_turn(
            Turn(id=f"t{i}", namespace="hot", text=f"chunk {i}", ts=T0 + timedelta(seconds=i)),
            0,
            f"chunk {i}",
        )
        for i in range(800)
    ]
    shards = [chunks[i::16] for i in range(16)]
    barrier = threading.Barrier(16)

    def writer(shard: list[Chunk]) -> None:
        buf = RedisShortTermBuffer(open_redis(real_redis_settings.storage), keys, capacity)
        barrier.wait()
        for j in range(0, len(shard), 5):
            buf.push(list(reversed(shard[j : j + 5])))

    threads = [threading.Thread(target=writer, args=(s,)) for s in shards]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    buf = RedisShortTermBuffer(client, keys, capacity)
    recent = buf.recent("hot")
    assert [c.turn_id for c in recent] == [f"t{i}" for i in range(799, 789, -1)]
    assert client.zcard(keys.stm_index("hot")) == capacity
    assert client.hlen(keys.stm_data("hot")) == capacity


def test_invalid_turn_names_its_position(
    settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    with Memory(settings, embedder=hashing_embedder) as mem:
        good = {"id": "g", "text": "ok", "ts": T0.isoformat()}
        bad = {"id": "b", "text": "naive", "ts": "2026-01-01T00:00:00"}
        with pytest.raises(TurnValidationError) as info:
            mem.ingest([good, bad])
        assert info.value.position == 1
        assert mem.index.count() == 0, "nothing of a rejected batch is written"


def test_query_validation(settings: Settings, hashing_embedder: HashingEmbedder) -> None:
    with Memory(settings, embedder=hashing_embedder) as mem:
        with pytest.raises(ValueError, match="namespace"):
            mem.retrieve("q", namespace="a:b")
        with pytest.raises(ValueError, match="empty"):
            mem.retrieve("  ")
        empty = mem.retrieve("what is stored?", namespace="nothing-here")
        assert empty.kept == [] and empty.candidates == 0


def test_embedded_memory_persists_between_processes(tmp_path: Path) -> None:
    """The CLI's case: ingest in one Memory, close, query from a fresh one (new engines)."""
    from gcmem.storage.redis import EmbeddedRedis

    settings = make_settings(tmp_path, ephemeral=False)
    emb = HashingEmbedder()
    with Memory(settings, embedder=emb) as mem:
        mem.ingest(turns("p", ["The build uses Python 3.11."]))
    EmbeddedRedis._servers.clear()  # forget the in-process server, as a new process would
    with Memory(settings, embedder=emb) as mem:
        assert [c.turn_id for c in mem.stm.recent("p")] == ["p-0"]
        assert mem.retrieve("python version", namespace="p").texts == [
            "The build uses Python 3.11."
        ]


async def test_async_twins(settings: Settings, hashing_embedder: HashingEmbedder) -> None:
    with Memory(settings, embedder=hashing_embedder) as mem:
        report = await mem.aingest(turns("x", ["Alice works at Acme.", "Bob works at Initech."]))
        assert report.chunks == 2
        results = await asyncio.gather(
            mem.aretrieve("Where does Alice work?", namespace="x", k=1),
            mem.aretrieve("Where does Bob work?", namespace="x", k=1),
        )
        assert all(r.kept for r in results)


@pytest.mark.model
def test_real_embedder_ranks_the_relevant_fact_first(
    settings: Settings, embedder: TransformerEmbedder
) -> None:
    vec = embedder.embed(["hello world"])
    assert vec.shape == (1, 384)
    assert abs(float((vec**2).sum()) - 1.0) < 1e-5
    with Memory(settings.replace(stm_size=0), embedder=embedder) as mem:
        mem.ingest(
            turns(
                "r",
                [
                    "The payments service runs on port 8080.",
                    "Sam's favourite food is ramen.",
                    "The project is licensed under Apache-2.0.",
                ],
            )
        )
        result = mem.retrieve("Which port does the payments service listen on?", namespace="r", k=3)
        assert result.kept[0].chunk.text == "The payments service runs on port 8080."
        assert result.variants[0] == "Which port does the payments service listen on?"
        assert set(result.timings_ms) >= {"expand", "embed", "search", "stm", "total"}


def test_embedded_snapshot_is_taken_in_the_background(tmp_path: Path) -> None:
    """A crash (no close, no atexit) loses at most one snapshot interval of embedded Redis."""
    import time as _time

    from gcmem.storage.redis import SNAPSHOT_FILE, EmbeddedRedis

    settings = make_settings(tmp_path, ephemeral=False, embedded_snapshot_interval_s=0.2)
    mem = Memory(settings, embedder=HashingEmbedder())
    mem.ingest(turns("crash", ["The cache size is 512 MB."]))
    snapshot = settings.storage.data_dir / SNAPSHOT_FILE
    deadline = _time.monotonic() + 10
    while not snapshot.exists() and _time.monotonic() < deadline:
        _time.sleep(0.05)
    assert snapshot.exists()
    restored = EmbeddedRedis(snapshot, interval=0).client()
    stm_keys = [k for k in restored.scan_iter() if b":stm:" in k]
    assert stm_keys, "the STM written by ingest is in the background snapshot"
    mem.index.close()


def test_memory_and_the_bus_client_share_one_client_interface(tmp_path: Path) -> None:
    memory = Memory(make_settings(tmp_path), embedder=HashingEmbedder())
    bus = BusClient(make_settings(tmp_path), url="redis://127.0.0.1:6379/15")
    sync_bus = SyncBusClient(make_settings(tmp_path), url="redis://127.0.0.1:6379/15")
    assert isinstance(memory, MemoryClient) and isinstance(memory, AsyncMemoryClient)
    assert isinstance(bus, AsyncMemoryClient) and not isinstance(bus, MemoryClient)
    assert isinstance(sync_bus, MemoryClient) and not isinstance(sync_bus, AsyncMemoryClient)
    sync_bus.close()
    memory.close()


def test_from_settings_is_the_default_constructor(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, hashing_embedder: HashingEmbedder
) -> None:
    # The same environment, read by Memory() and by Memory.from_settings(): the same settings,
    # the same chain, the same context (the supersession stage drops the old port both times).
    env = {
        "GCMEM_DATA_DIR": str(tmp_path),
        "GCMEM_EPHEMERAL": "1",
        "GCMEM_STM_SIZE": "0",
        "GCMEM_FILTERS": "supersession",
        "GCMEM_KEY_PREFIX": "from-settings",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    history = turns("fs", ["The service runs on port 8000.", "The service runs on port 8080."])
    built: list[tuple[Settings, list[str], list[str], list[str]]] = []
    for make in (
        lambda: Memory(embedder=hashing_embedder),
        lambda: Memory.from_settings(embedder=hashing_embedder),
        lambda: Memory.from_settings(Settings(), embedder=hashing_embedder),
    ):
        with make() as mem:
            mem.ingest(history)
            result = mem.retrieve("Which port does the service run on?", namespace="fs")
            built.append(
                (
                    mem.settings,
                    [f.name for f in mem.filters],
                    [s.name for s in mem.ingest_stages],
                    [c.chunk.text for c in result.kept],
                )
            )
    assert built[0][1] == ["supersession"] and built[0][3] == ["The service runs on port 8080."]
    assert built[1] == built[0] and built[2] == built[0]
