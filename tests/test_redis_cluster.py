"""gcmem's Redis data path on a real Redis Cluster (three local masters, no replicas).

The session fixture starts three ``redis-server --cluster-enabled yes`` processes in a temporary
directory, joins them with ``redis-cli --cluster create`` and waits for ``cluster_state:ok``.
Everything below runs through ``redis.cluster.RedisCluster`` (``GCMEM_REDIS_CLUSTER=true``):
the STM script, the ledger's write and status scripts, the verdict log's MULTI/EXEC, the usage
counters. Namespaces are chosen so their hash tags land on different masters.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
import redis
import redis.cluster

from gcmem import Memory, Turn
from gcmem.facts.extract import chunk_facts
from gcmem.filters.baselines import UsageCounter
from gcmem.filters.registry import build_chain, build_filters
from gcmem.integrations.bus import BusClient, TurnStreamSink
from gcmem.models import Chunk, Fact, content_hash
from gcmem.oracle.verdicts import VerdictLog
from gcmem.pipeline.app import PipelineConfigError, create_app
from gcmem.settings import Settings, SettingsError, load_settings
from gcmem.storage.ledger import SupersessionLedger
from gcmem.storage.redis import Keyspace, is_cluster, open_async_redis, open_redis
from tests.conftest import make_settings
from tests.doubles import HashingEmbedder, ScriptedOracle

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NODES = 3


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def _free_port() -> int:
    """A port that is free, with its cluster bus port (port + 10000) free too."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port + 10000 > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


def _unavailable(msg: str) -> None:
    if os.environ.get("GCMEM_TEST_ALLOW_NO_REDIS") == "1":
        pytest.skip(msg)
    pytest.fail(msg)


@pytest.fixture(scope="session")
def redis_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A three-master Redis Cluster on 127.0.0.1, for the whole session; torn down after."""
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if server is None or cli is None:
        _unavailable("redis-server / redis-cli not found: the Redis Cluster tests need them")
    assert server is not None and cli is not None
    workdir = tmp_path_factory.mktemp("redis-cluster")
    ports: list[int] = []
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(NODES):
            port = _free_port()
            while port in ports:
                port = _free_port()
            ports.append(port)
            node_dir = workdir / str(port)
            node_dir.mkdir()
            procs.append(
                subprocess.Popen(
                    [
                        server,
                        "--port",
                        str(port),
                        "--bind",
                        "127.0.0.1",
                        "--dir",
                        str(node_dir),
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        f"nodes-{port}.conf",
                        "--cluster-node-timeout",
                        "5000",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--daemonize",
                        "no",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        for port in ports:
            _wait(lambda p=port: redis.Redis(port=p, socket_connect_timeout=0.2).ping(), 10)
        subprocess.run(
            [
                cli,
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        for port in ports:
            _wait(lambda p=port: _cluster_ok(p), 20)
        yield f"redis://127.0.0.1:{ports[0]}/0"
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _cluster_ok(port: int) -> bool:
    info = redis.Redis(port=port, socket_connect_timeout=0.5).execute_command("CLUSTER INFO")
    if isinstance(info, dict):
        return bool(info.get("cluster_state") == "ok")
    text = info.decode() if isinstance(info, bytes) else str(info)
    return "cluster_state:ok" in text


def _wait(ready: object, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if ready():  # type: ignore[operator]
                return
        except redis.RedisError as exc:
            last = exc
        time.sleep(0.05)
    raise RuntimeError(f"the Redis Cluster did not come up in {timeout_s}s ({last!r})")


@pytest.fixture
def cluster_settings(redis_cluster_url: str, tmp_path: Path) -> Settings:
    return make_settings(tmp_path, redis_url=redis_cluster_url, redis_cluster=True)


def node_of(client: redis.cluster.RedisCluster, key: str) -> str:
    node = client.get_node_from_key(key)
    assert node is not None
    return str(node.name)


def spread_namespaces(client: redis.cluster.RedisCluster, keys: Keyspace, n: int) -> list[str]:
    """``n`` namespaces whose keys live on ``n`` different masters."""
    found: dict[str, str] = {}
    for i in range(1000):
        ns = f"tenant-{i}"
        found.setdefault(node_of(client, keys.ledger_key_index(ns)), ns)
        if len(found) == n:
            return list(found.values())
    raise AssertionError("namespaces did not spread over the masters")


def cluster_client(settings: Settings) -> redis.cluster.RedisCluster:
    client = open_redis(settings.storage)
    assert isinstance(client, redis.cluster.RedisCluster)
    return client


# --- configuration (no cluster needed) --------------------------------------------------------
def test_cluster_setting_needs_a_server_url(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="GCMEM_REDIS_CLUSTER"):
        load_settings(data_dir=tmp_path, redis_cluster=True)
    with pytest.raises(SettingsError, match="only database 0"):
        load_settings(data_dir=tmp_path, redis_url="redis://h:7000/3", redis_cluster=True)
    ok = load_settings(data_dir=tmp_path, redis_url="redis://h:7000", redis_cluster=True)
    assert ok.storage.redis_cluster


def test_the_bus_refuses_a_cluster_with_a_clear_error(tmp_path: Path) -> None:
    s = make_settings(tmp_path, redis_url="redis://127.0.0.1:1/0", redis_cluster=True)
    with pytest.raises(PipelineConfigError, match="non-cluster Redis endpoint"):
        create_app(s)
    with pytest.raises(ValueError, match="non-cluster Redis endpoint"):
        BusClient(s)
    with pytest.raises(ValueError, match="non-cluster Redis endpoint"):
        TurnStreamSink(s)


# --- the data path on a real cluster ------------------------------------------------------------
@pytest.mark.redis_cluster
def test_clients_are_cluster_clients(cluster_settings: Settings) -> None:
    client = cluster_client(cluster_settings)
    assert is_cluster(client) and is_cluster(open_async_redis(cluster_settings.storage))
    assert len(client.get_primaries()) == NODES
    assert client.ping()


PAYMENTS_OLD = "The payments service runs on port 8000."
PAYMENTS_NEW = "The payments service runs on port 8080."
WINDED = "Sam complained about feeling winded after one flight of stairs."
JOGGED = "Sam jogged three miles before breakfast."


@pytest.mark.redis_cluster
def test_memory_supersession_and_dominance_through_the_cluster(
    cluster_settings: Settings,
) -> None:
    """Two namespaces on different masters, ingested in one batch: the ledger supersedes the
    old port, κ (scripted; its verdicts go through the real verdict log) + Φ_T drop the older
    contradicted statement, the STM serves the newest."""
    # the scripted κ contradicts a pair the anchoring rule would only surface ("winded" /
    # "jogged" share no attribute word): this test is about the cluster data path
    s = cluster_settings.replace(stm_size=2, dominance_anchor=False)
    keys = Keyspace(s.storage.key_prefix)
    client = cluster_client(s)
    namespaces = spread_namespaces(client, keys, 2)
    oracle = ScriptedOracle()
    oracle.contradict(WINDED, JOGGED, 0.9)
    with Memory(s, embedder=HashingEmbedder(), filters=[], ingest_stages=[]) as mem:
        assert mem.redis is not None and is_cluster(mem.redis)
        mem.resources.given_oracle = oracle
        mem.filters = build_filters(["supersession", "dominance"], mem.resources)
        mem.ingest_stages = build_chain([], ["supersession"], mem.resources)[1]
        timeline = [(PAYMENTS_OLD, 0), (WINDED, 1), (PAYMENTS_NEW, 3), (JOGGED, 4)]
        batch = [
            Turn(id=f"{ns}-{i}", namespace=ns, text=text, ts=day(d))
            for ns in namespaces
            for i, (text, d) in enumerate(timeline)
        ]
        report = mem.ingest(batch)
        assert report.chunks == 8
        for ns in namespaces:
            result = mem.retrieve("payments service port and Sam's fitness", namespace=ns, k=10)
            assert {c.chunk.namespace for c in result.kept} == {ns}
            assert set(result.texts) == {PAYMENTS_NEW, JOGGED}
            stages = {d.chunk.chunk.text: d.stage for d in result.dropped}
            assert stages.get(WINDED) == "dominance"
            assert PAYMENTS_OLD not in result.texts
            assert [c.text for c in mem.stm.recent(ns)] == [JOGGED, PAYMENTS_NEW]
            ledger = SupersessionLedger(client, keys)
            current = ledger.current(ns, "payments service", "port")
            assert current is not None and current.object == "8080"
            assert mem.resources.verdict_log.size(ns) >= 1
        # Each namespace's keys sit on its own master.
        nodes = {node_of(client, keys.stm_index(ns)) for ns in namespaces}
        assert len(nodes) == 2


@pytest.mark.redis_cluster
def test_stm_keeps_newest_n_under_concurrent_appends(cluster_settings: Settings) -> None:
    from gcmem.storage.stm import RedisShortTermBuffer

    keys = Keyspace(cluster_settings.storage.key_prefix)
    capacity, writers = 10, 8
    chunks = [
        Chunk.from_turn(
            Turn(id=f"t{i}", namespace="hot", text=f"chunk {i}", ts=T0 + timedelta(seconds=i)),
            0,
            f"chunk {i}",
        )
        for i in range(320)
    ]
    barrier = threading.Barrier(writers)

    def writer(shard: list[Chunk]) -> None:
        buf = RedisShortTermBuffer(open_redis(cluster_settings.storage), keys, capacity)
        barrier.wait()
        for j in range(0, len(shard), 5):
            buf.push(list(reversed(shard[j : j + 5])))

    threads = [threading.Thread(target=writer, args=(chunks[i::writers],)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    client = cluster_client(cluster_settings)
    recent = RedisShortTermBuffer(client, keys, capacity).recent("hot")
    assert [c.turn_id for c in recent] == [f"t{i}" for i in range(319, 309, -1)]
    assert client.zcard(keys.stm_index("hot")) == capacity
    assert client.hlen(keys.stm_data("hot")) == capacity


def _chunk(ns: str, turn: str, text: str, when: float) -> Chunk:
    return Chunk(
        id=f"chunk-{turn}",
        namespace=ns,
        turn_id=turn,
        index=0,
        text=text,
        ts=day(when),
        content_hash=content_hash(text),
    )


@pytest.mark.redis_cluster
def test_resolution_policies_on_a_cluster(cluster_settings: Settings) -> None:
    """confirm's pending index and the confirmation script live under the namespace's hash
    tag: the write, the call and the reads work on any shard."""
    from gcmem.settings import PolicyRule
    from gcmem.storage.ledger.policy import PolicyTable

    client = cluster_client(cluster_settings)
    keys = Keyspace(cluster_settings.storage.key_prefix)
    table = PolicyTable(
        rules=(
            PolicyRule(relation="port", policy="confirm"),
            PolicyRule(relation="tags", policy="accumulate"),
        )
    )
    ledger = SupersessionLedger(client, keys, policies=table)
    for ns in spread_namespaces(client, keys, 3):
        batch = [
            _chunk(ns, f"{ns}-1", "The payments service runs on port 8000.", 0),
            _chunk(ns, f"{ns}-2", "The payments service runs on port 8080.", 3),
        ]
        report = ledger.record(batch, chunk_facts)
        assert [r.action for r in report.results] == ["open", "pending"]
        assert [p.pending.object for p in ledger.pending(ns)] == ["8080"]
        assert ledger.confirm(ns, "payments service", "port", "8080").outcome == "promoted"
        current = ledger.current(ns, "payments service", "port")
        assert current is not None and current.object == "8080"
        assert [d.outcome for d in ledger.decisions(ns, "payments service", "port")] == [
            "pending",
            "promoted",
        ]


@pytest.mark.redis_cluster
def test_ledger_supersedes_in_namespaces_on_different_slots(cluster_settings: Settings) -> None:
    client = cluster_client(cluster_settings)
    keys = Keyspace(cluster_settings.storage.key_prefix)
    a, b, c = spread_namespaces(client, keys, 3)
    assert len({client.keyslot(keys.ledger_key_index(ns)) for ns in (a, b, c)}) == 3
    ledger = SupersessionLedger(client, keys)
    # One record() call spanning three masters, out of order within each namespace.
    batch = [
        _chunk(ns, f"{ns}-{turn}", f"The payments service runs on port {port}.", when)
        for ns in (a, b, c)
        for turn, port, when in (("2", 8080, 3), ("1", 8000, 0), ("3", 9000, 5))
    ]
    report = ledger.record(batch, chunk_facts)
    assert sorted(r.action for r in report.results) == sorted(["open", "late", "supersede"] * 3)
    for ns in (a, b, c):
        assert report.closed_chunks[ns] == {f"chunk-{ns}-2"}
        versions = ledger.versions(ns, "payments service", "port")
        assert [(v.object, v.valid_to is None) for v in versions] == [
            ("8000", False),
            ("8080", False),
            ("9000", True),
        ]
        status = ledger.chunk_status(ns, [f"chunk-{ns}-1", f"chunk-{ns}-3"], day(10))
        (old,) = status[f"chunk-{ns}-1"]
        assert old.superseded_at(day(10))
        assert old.successor is not None and old.successor.object == "8080"
        assert old.valid is not None and old.valid.object == "9000"
        assert not status[f"chunk-{ns}-3"][0].superseded_at(None)
        assert ledger.stats(ns).assertions == 3 and ledger.stats(ns).open == 1
    # Redelivery is recognised on every shard; a single assertion takes the same script.
    again = ledger.record(batch, chunk_facts)
    assert {r.action for r in again.results} == {"duplicate"}
    fact = Fact(subject="payments service", relation="port", object="9100")
    assert ledger.assert_fact(a, fact, ts=day(7), turn_id="x", chunk_id="cx").action == (
        "supersede"
    )


@pytest.mark.redis_cluster
def test_scripts_are_reloaded_on_a_node_that_lost_them(cluster_settings: Settings) -> None:
    """A restarted or failed-over master has no scripts: the cluster path loads and retries
    instead of failing the write."""
    client = cluster_client(cluster_settings)
    keys = Keyspace(cluster_settings.storage.key_prefix)
    (ns,) = spread_namespaces(client, keys, 1)
    ledger = SupersessionLedger(client, keys)
    ledger.record([_chunk(ns, "r1", "The payments service runs on port 8000.", 0)], chunk_facts)
    client.script_flush()  # every master
    assert client.script_exists(ledger._write.sha) == [False]
    report = ledger.record(
        [_chunk(ns, "r2", "The payments service runs on port 8080.", 1)], chunk_facts
    )
    assert [r.action for r in report.results] == ["supersede"]


@pytest.mark.redis_cluster
def test_verdict_log_insert_if_absent(cluster_settings: Settings) -> None:
    """Two workers with the same θ race on a pair: the first score stored is what both use."""
    client = cluster_client(cluster_settings)
    keys = Keyspace(cluster_settings.storage.key_prefix)
    a, b = spread_namespaces(client, keys, 2)
    first, second = ScriptedOracle(), ScriptedOracle()
    first.contradict(WINDED, JOGGED, 0.9)
    second.contradict(WINDED, JOGGED, 0.2)  # same identity: a nondeterministic rerun
    assert first.identity.digest == second.identity.digest
    older, newer = _chunk(a, "w", WINDED, 1), _chunk(a, "j", JOGGED, 4)
    log_one = VerdictLog(client, keys, first)
    log_two = VerdictLog(cluster_client(cluster_settings), keys, second)
    won = log_one.scores(a, [(older, newer)])
    assert (won.misses, won.raced) == (1, 0) and won.scores.tolist() == [0.9]
    # The second worker has not seen the stored score (as if it read before the write):
    # it computes, loses HSETNX, reads back and uses the winner's score.
    pair = log_two.field(older, newer)
    lost = log_two._store(keys.verdicts(a, log_two.theta), [pair], np.array([0.2]))
    assert lost == (0, {log_two.field(older, newer): 0.9})
    hit = log_two.scores(a, [(newer, older)])  # symmetric: the same field
    assert (hit.hits, hit.misses) == (1, 0) and hit.scores.tolist() == [0.9]
    # Another namespace (another master) is scored on its own.
    other = log_two.scores(b, [(_chunk(b, "w", WINDED, 1), _chunk(b, "j", JOGGED, 4))])
    assert (other.misses, other.scores.tolist()) == (1, [0.2])
    stats = log_one.stats()
    assert stats["misses"] == 2 and stats["hits"] == 1 and stats["stored"] == 2


@pytest.mark.redis_cluster
def test_usage_counters(cluster_settings: Settings) -> None:
    client = cluster_client(cluster_settings)
    keys = Keyspace(cluster_settings.storage.key_prefix)
    a, b = spread_namespaces(client, keys, 2)
    usage = UsageCounter(client, keys)
    usage.record(a, ["x", "y", "x"])
    usage.record(b, ["x"])
    assert usage.counts(a, ["x", "y", "z"]) == [2, 1, 0]
    assert usage.counts(b, ["x", "y"]) == [1, 0]
