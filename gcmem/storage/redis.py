"""Redis connections: a real server by URL, or the embedded in-process server.

The embedded server is fakeredis with Lua, so every client call and script gcmem uses runs
unchanged against it. Its keyspace is snapshotted to ``DATA_DIR/redis.snapshot.json`` (DUMP /
RESTORE through the client API) so the CLI keeps memory between invocations.
"""

from __future__ import annotations

import atexit
import base64
import json
import logging
import os
import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeAlias

import fakeredis
import fakeredis.aioredis
import redis
import redis.asyncio
import redis.asyncio.cluster
import redis.cluster

from gcmem.settings import StorageSettings

SNAPSHOT_FILE = "redis.snapshot.json"

# What gcmem's data path talks to: one server (or the embedded one), or a Redis Cluster
# (GCMEM_REDIS_CLUSTER). Both take the same calls gcmem makes; every multi-key script and
# transaction touches the keys of one namespace, which share the namespace's hash tag.
RedisClient: TypeAlias = redis.Redis | redis.cluster.RedisCluster
AsyncRedisClient: TypeAlias = redis.asyncio.Redis | redis.asyncio.cluster.RedisCluster


@dataclass(frozen=True)
class Keyspace:
    """Every Redis key gcmem writes. ``{namespace}`` is a Redis Cluster hash tag, so one
    namespace's keys live on one shard and its multi-key scripts stay legal in a cluster."""

    prefix: str

    def namespace(self, namespace: str) -> str:
        return f"{self.prefix}:{{{namespace}}}"

    def stm_index(self, namespace: str) -> str:
        return f"{self.namespace(namespace)}:stm:idx"

    def stm_data(self, namespace: str) -> str:
        return f"{self.namespace(namespace)}:stm:data"

    # --- conflict oracle ---------------------------------------------------------------
    def verdicts(self, namespace: str, theta: str) -> str:
        """Hash: content-hash pair -> P(contradiction), for one namespace under oracle θ."""
        return f"{self.namespace(namespace)}:verdicts:{theta}"

    # The two deployment-wide oracle keys carry no hash tag: only single-key commands (HINCRBY,
    # HSETNX, HGETALL) touch them, never a script or transaction with a namespace's keys.
    def verdict_stats(self) -> str:
        """Hash of process-independent counters (hits, misses, ...) for /metrics."""
        return f"{self.prefix}:oracle:stats"

    def oracle_identities(self) -> str:
        """Hash: θ digest -> θ as JSON, so a stored verdict can be traced to its model."""
        return f"{self.prefix}:oracle:identities"

    # --- pipeline: deployment-wide bus keys share one hash tag, per-turn keys are
    # per namespace ---------------------------------------------------------------------------
    def pipeline(self) -> str:
        return f"{self.prefix}:{{pipeline}}"

    def turn_stream(self) -> str:
        return f"{self.pipeline()}:turns"

    def dead_letters(self, stream: str) -> str:
        return f"{stream}:dlq"

    def pipeline_failures(self) -> str:
        return f"{self.pipeline()}:failures"

    def pipeline_metrics(self) -> str:
        return f"{self.pipeline()}:metrics"

    def query_requests(self) -> str:
        return f"{self.pipeline()}:query"

    def index_requests(self) -> str:
        return f"{self.pipeline()}:index"

    def turn_digests(self, namespace: str) -> str:
        return f"{self.namespace(namespace)}:turns"

    # --- supersession ledger: per (subject, relation) key id, three keys ------------------
    def ledger(self, namespace: str) -> str:
        return f"{self.namespace(namespace)}:ledger"

    def ledger_assertions(self, namespace: str, key_id: str) -> str:
        """Zset: the key's assertions in (event time, ingest sequence) order."""
        return f"{self.ledger(namespace)}:k:{key_id}:asn"

    def ledger_versions(self, namespace: str, key_id: str) -> str:
        """Zset: the key's versions by valid_from (ties: first assertion's sequence)."""
        return f"{self.ledger(namespace)}:k:{key_id}:ver"

    def ledger_data(self, namespace: str, key_id: str) -> str:
        """Hash: the key's assertions, rows (current and audit) and counters."""
        return f"{self.ledger(namespace)}:k:{key_id}:data"

    def ledger_key_index(self, namespace: str) -> str:
        """Hash: key id -> [subject, relation], every key the namespace's ledger holds."""
        return f"{self.ledger(namespace)}:keys"

    def ledger_stats(self, namespace: str) -> str:
        return f"{self.ledger(namespace)}:stats"

    def ledger_units(self, namespace: str, chunk_id: str) -> str:
        """Hash: a chunk's statement units -> the ledger keys each states, who restated it."""
        return f"{self.ledger(namespace)}:u:{chunk_id}"

    def ledger_pending(self, namespace: str) -> str:
        """Hash: key id -> fact id of the key's pending value (confirm policy)."""
        return f"{self.ledger(namespace)}:pending"

    def ledger_judgements(self, namespace: str) -> str:
        """Hash: judgement key -> verdict of a confirmation judge. Outside the ledger's own
        keys on purpose: a rebuilt ledger replays the same verdicts."""
        return f"{self.namespace(namespace)}:judgements"

    def ledger_chunk(self, namespace: str, chunk_id: str) -> str:
        """Set: "key_id:assertion_id" of every assertion one chunk made."""
        return f"{self.ledger(namespace)}:c:{chunk_id}"

    def dominance_pending(self, namespace: str) -> str:
        """List: JSON [newer chunk id, anchor chunk id] of κ write-time GC paging an ingest
        left unfinished (its per-chunk page budget ran out); the next ingest continues it."""
        return f"{self.namespace(namespace)}:dominance-gc:pending"

    # --- baseline rankers ------------------------------------------------------------------
    def usage(self, namespace: str) -> str:
        """Hash: chunk id -> times the multi-factor ranker served it in a context."""
        return f"{self.namespace(namespace)}:usage"

    def pattern(self) -> str:
        return f"{self.prefix}:*"


# One script call, so the snapshot is atomic: no write lands between two keys' DUMPs.
_DUMP_ALL = """
local out = {}
for _, k in ipairs(redis.call('KEYS', '*')) do
  out[#out + 1] = k
  out[#out + 1] = redis.call('PTTL', k)
  out[#out + 1] = redis.call('DUMP', k)
end
return out
"""


class EmbeddedRedis:
    """One in-process Redis-compatible server per data directory, persisted by snapshot.

    Writers call ``mark_dirty()``; a daemon thread snapshots a dirty keyspace every
    ``interval`` seconds and once more at exit, so a crash loses at most one interval.
    """

    _lock = threading.Lock()
    _servers: ClassVar[dict[str, EmbeddedRedis]] = {}

    def __init__(self, snapshot: Path | None, interval: float = 2.0) -> None:
        self.server = fakeredis.FakeServer()
        self.snapshot = snapshot
        self._client = fakeredis.FakeRedis(server=self.server)
        self._dirty = threading.Event()
        self._save_lock = threading.Lock()
        if snapshot is not None and snapshot.exists():
            self._restore(snapshot)
        if snapshot is not None and interval > 0:
            threading.Thread(
                target=self._autosave, args=(interval,), name="gcmem-redis-snapshot", daemon=True
            ).start()

    @classmethod
    def for_storage(cls, storage: StorageSettings) -> EmbeddedRedis:
        key = str(storage.data_dir.resolve())
        with cls._lock:
            inst = cls._servers.get(key)
            if inst is None:
                snapshot = None if storage.ephemeral else storage.data_dir / SNAPSHOT_FILE
                inst = cls(snapshot, storage.embedded_snapshot_interval_s)
                cls._servers[key] = inst
                if snapshot is not None:
                    atexit.register(inst.save)
            return inst

    def client(self) -> redis.Redis:
        return fakeredis.FakeRedis(server=self.server)

    def async_client(self) -> redis.asyncio.Redis:
        return fakeredis.aioredis.FakeRedis(server=self.server)

    def mark_dirty(self) -> None:
        self._dirty.set()

    def _autosave(self, interval: float) -> None:
        failures = 0
        while True:
            time.sleep(interval * min(2**failures, 32))
            try:
                self.save_if_dirty()
                failures = 0
            except Exception as exc:  # a full disk must not end snapshots for good
                failures += 1
                self._dirty.set()
                logging.getLogger(__name__).error("embedded Redis snapshot failed: %r", exc)

    def save_if_dirty(self) -> bool:
        if not self._dirty.is_set():
            return False
        try:
            self.save()
        except BaseException:
            self._dirty.set()  # still unsaved
            raise
        return True

    def save(self) -> None:
        if self.snapshot is None:
            return
        with self._save_lock:
            self._dirty.clear()
            flat = self._client.eval(_DUMP_ALL, 0)
            records = [
                {
                    "k": base64.b64encode(flat[i]).decode(),
                    "ttl": max(int(flat[i + 1]), 0),
                    "v": base64.b64encode(flat[i + 2]).decode(),
                }
                for i in range(0, len(flat), 3)
            ]
            self.snapshot.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.snapshot.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps(records))
            os.replace(tmp, self.snapshot)

    def _restore(self, snapshot: Path) -> None:
        for rec in json.loads(snapshot.read_text()):
            self._client.restore(
                base64.b64decode(rec["k"]), rec["ttl"], base64.b64decode(rec["v"]), replace=True
            )


def _server_kwargs(storage: StorageSettings) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if storage.redis_username:
        kwargs["username"] = storage.redis_username
    if storage.redis_password is not None:
        kwargs["password"] = storage.redis_password.get_secret_value()
    if storage.redis_url and storage.redis_url.startswith("rediss://"):
        if storage.redis_tls_ca_file:
            kwargs["ssl_ca_certs"] = str(storage.redis_tls_ca_file)
        if storage.redis_tls_cert_file:
            kwargs["ssl_certfile"] = str(storage.redis_tls_cert_file)
        if storage.redis_tls_key_file:
            kwargs["ssl_keyfile"] = str(storage.redis_tls_key_file)
        kwargs["ssl_cert_reqs"] = ssl.CERT_REQUIRED
    return kwargs


def connection_kwargs(storage: StorageSettings) -> dict[str, Any]:
    """Credentials and TLS options for a Redis server client (FastStream's broker too)."""
    return _server_kwargs(storage)


def open_redis(storage: StorageSettings) -> RedisClient:
    """A sync client: the configured server or cluster, or the embedded one for this data
    directory."""
    if storage.redis_url is None:
        return EmbeddedRedis.for_storage(storage).client()
    if storage.redis_cluster:
        return redis.cluster.RedisCluster.from_url(storage.redis_url, **_server_kwargs(storage))
    return redis.Redis.from_url(storage.redis_url, **_server_kwargs(storage))


def open_async_redis(storage: StorageSettings) -> AsyncRedisClient:
    if storage.redis_url is None:
        return EmbeddedRedis.for_storage(storage).async_client()
    if storage.redis_cluster:
        return redis.asyncio.cluster.RedisCluster.from_url(
            storage.redis_url, **_server_kwargs(storage)
        )
    return redis.asyncio.Redis.from_url(storage.redis_url, **_server_kwargs(storage))


def is_cluster(client: RedisClient | AsyncRedisClient) -> bool:
    """A Redis Cluster client: it routes each command by key slot, so a pipeline is not one
    round trip to one server and a script must be loaded on the node that runs it."""
    return isinstance(client, redis.cluster.RedisCluster | redis.asyncio.cluster.RedisCluster)


def bus_config_error(storage: StorageSettings) -> str | None:
    """Why the FastStream bus cannot run on these settings, or None.

    The bus (turn stream, consumer group, dead letters, queries over request/reply) is built
    on FastStream's ``RedisBroker``, which talks to one Redis endpoint; gcmem does not wire in
    a cluster broker. With GCMEM_REDIS_CLUSTER the data path runs on the cluster, the bus
    does not."""
    if not storage.redis_cluster:
        return None
    return (
        "GCMEM_REDIS_CLUSTER=true: the pipeline bus (gcmem worker / serve / publish / dlq, "
        "BusClient, TurnStreamSink) runs on FastStream's RedisBroker, which needs one "
        "non-cluster Redis endpoint, and gcmem does not support Redis Cluster for it. Use the "
        "Memory API against the cluster, or run the pipeline against a standalone Redis "
        "(GCMEM_REDIS_CLUSTER unset; gcmem's data then lives on that server too)."
    )


class BusConfigError(ValueError):
    """The bus was asked to run on a Redis it cannot use (a cluster)."""


def _require_bus(storage: StorageSettings) -> None:
    error = bus_config_error(storage)
    if error is not None:
        raise BusConfigError(error)


def open_bus_redis(storage: StorageSettings) -> redis.Redis:
    """The bus's sync client (turn stream, consumer group, dead letters): one server or the
    embedded one, never a cluster (``BusConfigError``)."""
    _require_bus(storage)
    if storage.redis_url is None:
        return EmbeddedRedis.for_storage(storage).client()
    return redis.Redis.from_url(storage.redis_url, **_server_kwargs(storage))


def open_async_bus_redis(storage: StorageSettings) -> redis.asyncio.Redis:
    """The bus's async client (see ``open_bus_redis``)."""
    _require_bus(storage)
    if storage.redis_url is None:
        return EmbeddedRedis.for_storage(storage).async_client()
    return redis.asyncio.Redis.from_url(storage.redis_url, **_server_kwargs(storage))


def mark_embedded_dirty(storage: StorageSettings) -> None:
    """Tell the embedded server's snapshot thread there is something new to persist."""
    if storage.redis_url is None:
        EmbeddedRedis.for_storage(storage).mark_dirty()


def save_embedded_if_dirty(storage: StorageSettings) -> bool:
    """Persist the embedded keyspace if it changed since the last snapshot."""
    if storage.redis_url is None:
        return EmbeddedRedis.for_storage(storage).save_if_dirty()
    return False


def save_embedded(storage: StorageSettings) -> None:
    """Persist the embedded keyspace now (no-op with a Redis server)."""
    if storage.redis_url is None:
        EmbeddedRedis.for_storage(storage).save()
