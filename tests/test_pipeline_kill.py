"""The fault test: 10,000 turns, two worker processes, one SIGKILLed midway, a new one
started. Afterwards every turn is in MTM exactly once, the STM holds the newest N per
namespace, and the ledger equals a single-process run over the same input.

Real parts: the Redis server, worker processes running ``gcmem worker`` with the MiniLM
embedder and the supersession ledger, and one shared MTM. There is no Qdrant server on this
machine and the embedded engine is single-process, so the MTM is hosted the way an embedded
multi-process deployment runs it: this test process plays ``gcmem serve --host-index`` (the
real Qdrant engine, local mode) and the workers run with ``GCMEM_PIPELINE_INDEX=bus``.
``GCMEM_TEST_PIPELINE_TURNS`` scales the run: the default (1,000 turns, under a minute on two
cores) keeps CI short; the full-size run is ``GCMEM_TEST_PIPELINE_TURNS=10000 pytest
tests/test_pipeline_kill.py`` (1-4 minutes, by load). Either way the kill lands mid-stream, inside
a batch the victim holds unacknowledged (frozen with SIGSTOP, checked, then SIGKILLed), and
the test asserts that it did."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio

from gcmem.facts.chunking import chunk_turn
from gcmem.memory import Memory
from gcmem.models import Turn, chunk_id
from gcmem.pipeline.app import Roles, create_app
from gcmem.pipeline.topology import Topology
from gcmem.settings import Settings
from gcmem.storage.ledger import LedgerRow, SupersessionLedger
from gcmem.storage.redis import Keyspace, open_redis
from gcmem.storage.stm import RedisShortTermBuffer
from tests.conftest import cleanup_prefix, make_settings, require_real_redis
from tests.doubles import HashingEmbedder
from tests.pipeline_support import BASE_TS, data, drained, hashing_memory, running, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.model]

N_TURNS = int(os.environ.get("GCMEM_TEST_PIPELINE_TURNS", "1000"))
NAMESPACES = 4
KEYS_PER_NAMESPACE = 200
STM_SIZE = 5
ROOT = Path(__file__).resolve().parents[1]


def corpus(n: int) -> list[dict[str, Any]]:
    """Short turns with explicit facts: per namespace, keys whose port keeps changing, plus a
    hot key in ns-0 that every 10th turn supersedes (concurrently, across both workers)."""
    from datetime import timedelta

    out = []
    for i in range(n):
        ns = f"ns-{i % NAMESPACES}"
        hot = ns == "ns-0" and i % 10 == 0
        subject = "payments service" if hot else f"service {(i // NAMESPACES) % KEYS_PER_NAMESPACE}"
        port = str(8000 + i)
        out.append(
            {
                "id": f"t-{i:06d}",
                "namespace": ns,
                "text": f"The {subject} in {ns} now listens on port {port}.",
                "ts": (BASE_TS + timedelta(seconds=i)).isoformat(),
                "facts": [{"subject": subject, "relation": "port", "object": port}],
            }
        )
    return out


def _projection(rows: list[LedgerRow]) -> list[tuple[Any, ...]]:
    # System-time fields (recorded_at, row numbers) differ between any two runs; the versions
    # themselves must not.
    return [
        (
            r.object,
            r.valid_from,
            r.valid_to,
            r.turn_id,
            r.chunk_id,
            tuple(sorted(r.provenance)),
            r.superseded_by_turn,
        )
        for r in rows
    ]


def _ledger_state(ledger: SupersessionLedger) -> dict[tuple[str, str, str], list[tuple[Any, ...]]]:
    state = {}
    for n in range(NAMESPACES):
        ns = f"ns-{n}"
        for subject, relation in ledger.keys_of(ns):
            state[(ns, subject, relation)] = _projection(ledger.versions(ns, subject, relation))
    return state


@pytest.fixture
def shared_settings(tmp_path: Path) -> Iterator[Settings]:
    s = make_settings(
        tmp_path,
        redis_url=require_real_redis(),
        ingest=["supersession"],
        stm_size=STM_SIZE,
        pipeline_claim_idle_ms=3000,
        pipeline_batch_size=64,
    )
    yield s
    cleanup_prefix(s)


def _start_worker(s: Settings, name: str, log_dir: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "GCMEM_REDIS_URL": str(s.storage.redis_url),
        "GCMEM_KEY_PREFIX": s.storage.key_prefix,
        "GCMEM_DATA_DIR": str(s.storage.data_dir),
        "GCMEM_EPHEMERAL": "true",
        "GCMEM_INGEST": "supersession",
        "GCMEM_FILTERS": "",
        "GCMEM_STM_SIZE": str(STM_SIZE),
        "GCMEM_PIPELINE_INDEX": "bus",
        "GCMEM_PIPELINE_CLAIM_IDLE_MS": str(s.pipeline.claim_idle_ms),
        "GCMEM_PIPELINE_BATCH_SIZE": str(s.pipeline.batch_size),
        "GCMEM_DEVICE": "cpu",
        # Two workers on two cores: one torch thread each.
        "OMP_NUM_THREADS": "1",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    log = (log_dir / f"{name}.log").open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", "gcmem", "worker", "--consumer", name],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


async def test_sigkilled_worker_loses_and_duplicates_nothing(
    shared_settings: Settings, tmp_path: Path
) -> None:
    s = shared_settings
    turns = corpus(N_TURNS)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    host = create_app(
        s, roles=Roles(worker=False, query=False, host_index=True), memory_factory=hashing_memory
    )
    topo = host.runtime.topology
    client = redis.asyncio.Redis.from_url(str(s.storage.redis_url))
    workers: list[subprocess.Popen[bytes]] = []
    try:
        async with running(host):
            from gcmem.pipeline.app import ensure_group

            await ensure_group(client, topo)
            pipe = client.pipeline(transaction=False)
            for t in turns:
                pipe.xadd(topo.stream, data(t))  # type: ignore[arg-type]
            await pipe.execute()
            timings["publish_s"] = time.perf_counter() - t0
            workers = [_start_worker(s, f"worker-{i}", tmp_path) for i in (1, 2)]
            assert host.runtime.memory is not None
            index = host.runtime.memory.index

            async def processed() -> float:
                raw = await client.hget(topo.metrics, "processed")
                return float(raw or 0)

            async def third_done() -> bool:
                for w in workers:
                    assert w.poll() is None, (
                        f"worker exited: {(tmp_path / 'worker-1.log').read_text()[-3000:]}"
                    )
                return await processed() >= N_TURNS * 0.3

            await wait_until(third_done, timeout=900, what="30% processed", every=0.5)
            killed_at, held_at_kill, undelivered_at_kill = await _kill_mid_batch(
                workers[0], "worker-1", client, topo
            )
            timings["kill_at_s"] = time.perf_counter() - t0
            workers.append(_start_worker(s, "worker-3", tmp_path))
            await wait_until(
                lambda: drained(client, topo.stream, topo.group),
                timeout=1800,
                what="all turns processed",
                every=1.0,
            )
            timings["total_s"] = time.perf_counter() - t0
            metrics = {
                k.decode(): float(v) for k, v in (await client.hgetall(topo.metrics)).items()
            }
            expected: dict[str, list[str]] = {}
            for t in turns:
                chunks = chunk_turn(Turn.model_validate(t), s.memory.chunk_max_chars)
                assert len(chunks) == 1
                expected.setdefault(t["namespace"], []).append(chunks[0].id)
            runner = host.runtime.runner
            assert runner is not None

            def stored() -> tuple[int, dict[str, int], set[str]]:
                # Whatever the engine: per-namespace counts, and every expected id fetched back.
                found: set[str] = set()
                for ns, ids in expected.items():
                    for start in range(0, len(ids), 1000):
                        found |= set(index.fetch(ns, ids[start : start + 1000]))
                return index.count(), {ns: index.count(ns) for ns in expected}, found

            count, per_namespace, found = await runner.run(stored)
    finally:
        for w in workers:
            if w.poll() is None:
                w.send_signal(signal.SIGCONT)  # in case it was left frozen
                w.send_signal(signal.SIGTERM)
        for w in workers:
            try:
                w.wait(timeout=60)
            except subprocess.TimeoutExpired:
                w.kill()
        await client.aclose()
        timings["stopped_s"] = time.perf_counter() - t0

    print(
        f"\npipeline kill test: {N_TURNS} turns, killed at {killed_at:.0f} processed with "
        f"{held_at_kill} entries held and {undelivered_at_kill} undelivered: {timings}, {metrics}"
    )
    # The kill landed mid-stream: the victim died holding a batch it had not acknowledged,
    # with turns still to come, and its held entries were reclaimed and redone by the others.
    assert held_at_kill > 0
    assert killed_at < N_TURNS and undelivered_at_kill > 0
    assert metrics.get("reclaimed", 0) >= held_at_kill
    assert metrics.get("dead_lettered:processing", 0) == 0
    assert await _dlq_len(s, topo.dead_letters) == 0

    # MTM: every turn exactly once (counts equal the expected ids, all of which are stored).
    assert count == N_TURNS
    assert per_namespace == {ns: len(ids) for ns, ids in expected.items()}
    assert found == {cid for ids in expected.values() for cid in ids}

    # STM: the newest N chunks per namespace, whatever the delivery order.
    stm = RedisShortTermBuffer(open_redis(s.storage), Keyspace(s.storage.key_prefix), STM_SIZE)
    for n in range(NAMESPACES):
        ns = f"ns-{n}"
        newest = sorted((t for t in turns if t["namespace"] == ns), key=lambda t: t["ts"])
        want = [chunk_id(ns, t["id"], 0) for t in reversed(newest[-STM_SIZE:])]
        assert [c.id for c in stm.recent(ns)] == want

    # Ledger: equal to one process ingesting the same turns in order; one open version per key.
    pipeline_state = _ledger_state(
        SupersessionLedger(open_redis(s.storage), Keyspace(s.storage.key_prefix))
    )
    reference = make_settings(
        tmp_path / "ref", redis_url=s.storage.redis_url, ingest=["supersession"]
    )
    try:
        with Memory(reference, embedder=HashingEmbedder()) as memory:
            for start in range(0, len(turns), 500):
                memory.ingest(turns[start : start + 500])
        reference_state = _ledger_state(
            SupersessionLedger(
                open_redis(reference.storage), Keyspace(reference.storage.key_prefix)
            )
        )
    finally:
        cleanup_prefix(reference)
    print(f"reference run done at {time.perf_counter() - t0:.1f} s")
    assert pipeline_state == reference_state
    hot = pipeline_state[("ns-0", "payments service", "port")]
    assert sum(1 for v in hot if v[2] is None) == 1 and len(hot) == len(
        [t for t in turns if t["facts"][0]["subject"] == "payments service"]
    )
    for versions in pipeline_state.values():
        assert sum(1 for v in versions if v[2] is None) == 1


async def _kill_mid_batch(
    worker: subprocess.Popen[bytes],
    consumer: str,
    client: redis.asyncio.Redis,
    topo: Topology,
) -> tuple[float, int, int]:
    """SIGKILL ``worker`` while it holds unacknowledged entries. It is frozen (SIGSTOP) before
    its pending count is read, so the count cannot change before the kill; if it holds
    nothing at that instant (between an ack and its next read) it resumes and we look again.
    Returns (turns processed fleet-wide, entries it held, entries not yet delivered)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        worker.send_signal(signal.SIGSTOP)
        summary = await client.xpending(topo.stream, topo.group)
        held = 0
        for row in summary.get("consumers") or []:
            name = row["name"]
            if (name.decode() if isinstance(name, bytes) else name) == consumer:
                held = int(row["pending"])
        if held:
            processed = float(await client.hget(topo.metrics, "processed") or 0)
            lag = await _group_lag(client, topo.stream, topo.group)
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            return processed, held, lag
        worker.send_signal(signal.SIGCONT)
        await asyncio.sleep(0.05)
    raise AssertionError(f"{consumer} never held entries to be killed with")


async def _group_lag(client: redis.asyncio.Redis, stream: str, group: str) -> int:
    for g in await client.xinfo_groups(stream):
        name = g["name"].decode() if isinstance(g["name"], bytes) else g["name"]
        if name == group:
            return int(g.get("lag") or 0)
    raise AssertionError(f"no group {group} on {stream}")


async def _dlq_len(s: Settings, key: str) -> int:
    client = redis.asyncio.Redis.from_url(str(s.storage.redis_url))
    try:
        return int(await client.xlen(key))
    finally:
        await client.aclose()


def test_corpus_supersedes_every_key_and_the_hot_key_most() -> None:
    turns = corpus(400)
    subjects = [t["facts"][0]["subject"] for t in turns]
    assert subjects.count("payments service") == 20  # i % 20 == 0: ns-0 and every 10th
    assert len({t["id"] for t in turns}) == 400 and corpus(400) == turns
