"""Chaos: the Redis server is killed (SIGKILL) and restarted while turns stream in. The worker
waits the outage out and reconnects; afterwards every turn is in memory exactly once,
nothing is dead-lettered, nothing is left pending.

The test runs its own throw-away ``redis-server`` (AOF with fsync on every write, on a free
port, in a temporary directory), never the shared one the other tests use."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
import redis
import redis.asyncio

from gcmem.memory import Memory
from gcmem.models import Chunk
from gcmem.pipeline.app import Roles, create_app
from gcmem.pipeline.ingest import DONE
from gcmem.settings import Settings
from gcmem.storage.mtm.index import MediumTermIndex
from tests.conftest import make_settings
from tests.pipeline_support import data, drained, free_port, hashing_memory, running, turn

pytestmark = [pytest.mark.redis, pytest.mark.slow]

TURNS = 600
# Longer than redis-py's own reconnect retries, so the pipeline's recovery is what is tested.
OUTAGE_S = 8.0
RETRIES = {"publish": 0}


class _EmbeddingCost:
    """Stands for the embedder's time per batch, so the kill lands inside batches."""

    name = "embedding-cost"

    def on_ingest(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        time.sleep(0.15)


def _slow_memory(settings: Settings, index: MediumTermIndex | None) -> Memory:
    memory = hashing_memory(settings, index)
    memory.ingest_stages.append(_EmbeddingCost())
    return memory


class ThrowawayRedis:
    def __init__(self, directory: Path, port: int) -> None:
        self.dir = directory
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed")
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir)]
        args += ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
        log = (self.dir / "redis.log").open("ab")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                if redis.Redis.from_url(self.url, socket_connect_timeout=0.2).ping():
                    return
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("throw-away redis-server did not start")
            time.sleep(0.05)

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[ThrowawayRedis]:
    server = ThrowawayRedis(tmp_path / "redis", free_port())
    server.dir.mkdir()
    server.start()
    yield server
    server.stop()


async def _publish(client: redis.asyncio.Redis, stream: str, i: int) -> None:
    """XADD, retried across the outage (a retry may duplicate the entry: the turn id's
    digest makes the second one a duplicate, which is what 'nothing duplicated' checks)."""
    while True:
        try:
            await client.xadd(stream, data(turn(i)))  # type: ignore[arg-type]
            return
        except (redis.ConnectionError, redis.TimeoutError, ConnectionError):
            RETRIES["publish"] += 1
            await asyncio.sleep(0.1)


async def test_redis_restart_mid_stream_loses_and_duplicates_nothing(
    own_redis: ThrowawayRedis, tmp_path: Path
) -> None:
    s = make_settings(
        tmp_path,
        redis_url=own_redis.url,
        pipeline_block_ms=50,
        pipeline_batch_size=16,
        pipeline_claim_idle_ms=1000,
    )
    built = create_app(s, roles=Roles(worker=True, query=False), memory_factory=_slow_memory)
    t = built.runtime.topology
    client = redis.asyncio.Redis.from_url(own_redis.url, socket_timeout=2)
    try:
        async with running(built):
            # Turns keep coming while the server dies: batches are caught mid-ingest.
            publisher = asyncio.create_task(_publish_all(client, t.stream))
            await asyncio.sleep(1.0)
            own_redis.kill()
            outage_started = time.monotonic()
            await asyncio.sleep(OUTAGE_S)
            await asyncio.to_thread(own_redis.start)
            outage_s = time.monotonic() - outage_started
            await publisher
            deadline = time.monotonic() + 120
            while not await _safe_drained(client, t.stream, t.group):
                if time.monotonic() > deadline:
                    raise AssertionError("not drained within 120 s after the restart")
                await asyncio.sleep(0.2)
            memory = built.runtime.memory
            assert memory is not None
            count = memory.index.count("ns-a")
            tasks = built.runtime.task_report()
        digests = await client.hgetall(t.keys.turn_digests("ns-a"))
        dead = await client.xlen(t.dead_letters)
        entries = await client.xlen(t.stream)
    finally:
        await client.aclose()
    assert outage_s >= OUTAGE_S and RETRIES["publish"] > 0, "the outage hit the stream"
    assert count == TURNS, f"{count} of {TURNS} turns in memory"
    assert len(digests) == TURNS and all(v.endswith(DONE.encode()) for v in digests.values())
    assert dead == 0, "an outage is nobody's fault: no dead letters"
    assert entries >= TURNS  # retried XADDs may have added duplicates, ingested once
    assert all(v["status"] == "stopped" for v in tasks.values()) or all(
        v["status"] == "running" for v in tasks.values()
    ), tasks


async def _publish_all(client: redis.asyncio.Redis, stream: str) -> None:
    for i in range(TURNS):
        await _publish(client, stream, i)
        if i % 10 == 0:
            await asyncio.sleep(0.03)


async def _safe_drained(client: redis.asyncio.Redis, stream: str, group: str) -> bool:
    try:
        return await drained(client, stream, group)
    except (redis.ConnectionError, redis.TimeoutError):
        return False
