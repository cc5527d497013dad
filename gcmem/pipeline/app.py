"""The FastStream application: one ``RedisBroker``, and per process the roles it plays.

- worker: a consumer-group member of the turn stream (batched XREADGROUP through FastStream,
  manual acknowledgement after durable effects) plus the reclaimer (XAUTOCLAIM, heartbeat);
- query: answers ``QueryRequest`` on the bus (FastStream request/reply over a Redis list);
- host-index: answers index requests with the embedded engine (``index_bus``);
- http: ``POST /v1/turns``, ``POST /v1/query``, ``GET /healthz``, ``GET /metrics`` (``http``).

``gcmem worker`` and ``gcmem serve`` build it with ``create_app``; ``faststream run
gcmem.pipeline.app:app`` gets a worker+query app from the environment's settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import redis.asyncio
from faststream import AckPolicy, ExceptionMiddleware, FastStream
from faststream.asgi import AsgiFastStream
from faststream.message import StreamMessage
from faststream.redis import ListSub, PubSub, RedisBroker, RedisRouter, StreamSub
from faststream.redis.annotations import RedisBatchStreamMessage
from faststream.specification import AsyncAPI
from pydantic import ValidationError
from redis.exceptions import ResponseError

from gcmem import __version__
from gcmem.memory import Memory
from gcmem.models import TURN_SCHEMA_VERSION, Turn
from gcmem.pipeline.codec import (
    DATA_FIELD,
    StreamEntry,
    correlation_headers,
    describe_validation_error,
    printable,
)
from gcmem.pipeline.dlq import DeadLetter
from gcmem.pipeline.embedded import EmbeddedBus
from gcmem.pipeline.index_bus import BusIndex, IndexHost
from gcmem.pipeline.ingest import BatchProcessor
from gcmem.pipeline.metrics import PipelineMetrics
from gcmem.pipeline.query import QueryReply, QueryRequest, QueryService
from gcmem.pipeline.reclaim import Reclaimer
from gcmem.pipeline.runner import MemoryRunner
from gcmem.pipeline.spec import declare_payload
from gcmem.pipeline.supervisor import Supervisor
from gcmem.pipeline.topology import Topology
from gcmem.settings import Settings, load_settings
from gcmem.storage.mtm.index import MediumTermIndex
from gcmem.storage.redis import (
    Keyspace,
    bus_config_error,
    connection_kwargs,
    open_async_bus_redis,
    save_embedded_if_dirty,
)

log = logging.getLogger(__name__)

# Bus query requests one process takes off the list at once; the work itself is bounded by
# the query pool (GCMEM_QUERY_WORKERS + GCMEM_QUERY_QUEUE, see ``runner``).
QUERY_CONCURRENCY = 4
# The query reply's channel in the AsyncAPI document: the requester's reply_to header.
REPLY_CHANNEL = "{reply_to}"

MemoryFactory = Callable[[Settings, MediumTermIndex | None], Memory]


class PipelineConfigError(ValueError):
    """The requested roles cannot run with these settings; the message says what to change."""


@dataclass(frozen=True)
class Roles:
    worker: bool = True
    query: bool = True
    host_index: bool = False
    http: bool = False

    def names(self) -> list[str]:
        return [name for name, on in vars(self).items() if on]


def _default_memory(settings: Settings, index: MediumTermIndex | None) -> Memory:
    return Memory.from_settings(settings, index=index)


@dataclass
class PipelineRuntime:
    """The parts one process runs, built when the app starts (loading models takes a while,
    and nothing should connect at import time)."""

    settings: Settings
    topology: Topology
    broker: RedisBroker
    roles: Roles
    memory_factory: MemoryFactory = _default_memory
    client: redis.asyncio.Redis | None = None
    memory: Memory | None = None
    runner: MemoryRunner | None = None
    metrics: PipelineMetrics | None = None
    processor: BatchProcessor | None = None
    reclaimer: Reclaimer | None = None
    queries: QueryService | None = None
    index_host: IndexHost | None = None
    embedded_bus: EmbeddedBus | None = None
    supervisor: Supervisor | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def start(self) -> None:
        s = self.settings
        self.client = open_async_bus_redis(s.storage)
        if self.roles.worker:
            await ensure_group(self.client, self.topology)
        index: MediumTermIndex | None = None
        if s.pipeline.index == "bus":
            index = BusIndex(
                self.broker,
                asyncio.get_running_loop(),
                self.topology.index_requests,
                timeout_s=s.pipeline.query_timeout_s,
            )
        self.memory = await asyncio.to_thread(self.memory_factory, s, index)
        self.runner = MemoryRunner.for_memory(self.memory)
        self.metrics = PipelineMetrics(self.client, self.topology)
        self.processor = BatchProcessor(self.runner, self.client, self.topology, self.metrics)
        self.queries = QueryService(self.runner, self.metrics)
        if self.roles.host_index:
            self.index_host = IndexHost(self.runner, self.memory.index)
        if self.roles.worker:
            self.reclaimer = Reclaimer(self.client, self.topology, self.processor)
        log.info(
            "gcmem pipeline: roles=%s stream=%s group=%s consumer=%s",
            ",".join(self.roles.names()),
            self.topology.stream,
            self.topology.group,
            self.topology.consumer,
        )

    async def after_start(self) -> None:
        self.supervisor = Supervisor(self.metrics, self._stop)
        if self.reclaimer is not None:
            self.supervisor.spawn("reclaimer", self.reclaimer.run)
            self.supervisor.spawn("heartbeat", self.reclaimer.heartbeat_loop)
        s = self.settings
        if (
            s.storage.embedded_redis
            and not s.storage.ephemeral
            and s.storage.embedded_snapshot_interval_s > 0
        ):
            self.supervisor.spawn("snapshot", self._snapshot_loop)
        if self.client is not None:
            # Who is serving, for operators (and for benchmarks waiting until it is ready).
            member = {
                "roles": self.roles.names(),
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "started_at": datetime.now(UTC).isoformat(),
            }
            await self.client.hset(
                self.topology.members, self.topology.consumer, json.dumps(member)
            )
        self.ready.set()

    async def _snapshot_loop(self, stop: asyncio.Event) -> None:
        """Persist the embedded keyspace when it changed (the process's own snapshots; a
        failure, e.g. a full disk, is restarted and reported like any task's)."""
        interval = self.settings.storage.embedded_snapshot_interval_s
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=interval)
            await asyncio.to_thread(save_embedded_if_dirty, self.settings.storage)

    def task_report(self) -> dict[str, dict[str, Any]]:
        return self.supervisor.report() if self.supervisor is not None else {}

    async def stop(self) -> None:
        """Within ``shutdown_timeout_s``: background tasks end, the member record goes, the
        memory is closed. Each step is bounded: a Redis that does not answer, or a query
        thread still scoring, does not keep the process from exiting."""
        self._stop.set()
        budget = self.settings.pipeline.shutdown_timeout_s
        loop = asyncio.get_running_loop()
        end = loop.time() + budget

        def left() -> float:
            return max(end - loop.time(), 0.1)

        if self.supervisor is not None:
            await self.supervisor.join(timeout=min(left(), budget / 2))
        if self.client is not None:
            try:
                await asyncio.wait_for(
                    self.client.hdel(self.topology.members, self.topology.consumer), left()
                )
            except Exception as exc:
                log.warning("could not remove the member record: %r", exc)
        if self.runner is not None:
            self.runner.close()
        if self.memory is not None:
            try:
                await asyncio.wait_for(asyncio.to_thread(self.memory.close), left())
            except TimeoutError:
                log.warning("memory did not close within the shutdown timeout (%.0f s)", budget)
        if self.client is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.aclose(), left())

    def require(self) -> tuple[BatchProcessor, QueryService]:
        if self.processor is None or self.queries is None:
            raise RuntimeError("the pipeline has not started")
        return self.processor, self.queries


async def ensure_group(client: redis.asyncio.Redis, topology: Topology) -> None:
    """Create the consumer group at the *start* of the stream. FastStream creates a missing
    group at "$" (only entries published after it), which would skip every turn agents
    published before the first worker ever ran."""
    try:
        await client.xgroup_create(topology.stream, topology.group, id="0", mkstream=True)
    except ResponseError as exc:
        if "BUSYGROUP" not in str(exc):
            raise


async def _raw_batch(msg: Any, original: Callable[[Any], Any]) -> StreamMessage[Any]:
    """Keep FastStream from decoding entry bodies: its batch parser fails the *whole* batch
    on one entry that is not UTF-8 (the batch then never reaches a handler). Entries are
    decoded one by one in ``codec.decode_entry`` instead."""
    parsed = cast(StreamMessage[Any], await original({**msg, "data": []}))
    parsed.raw_message = msg
    if msg["data"]:
        # Like FastStream's parser: the batch carries its first entry's headers (correlation
        # id for tracing). ``correlation_headers`` never raises, whatever the entry holds.
        first = msg["data"][0]
        raw = first.get(DATA_FIELD, b"") if isinstance(first, dict) else b""
        headers = correlation_headers(raw if isinstance(raw, bytes) else b"")
        if headers.get("correlation_id"):
            parsed.correlation_id = headers["correlation_id"]
            parsed.headers = {**parsed.headers, **headers}
    return parsed


def _entries(msg: StreamMessage[Any]) -> list[StreamEntry]:
    raw = msg.raw_message
    ids = [i.decode() if isinstance(i, bytes) else str(i) for i in raw.get("message_ids") or []]
    data = raw["data"]
    # FastStream's in-memory test broker has no entry ids.
    return [StreamEntry(ids[i] if i < len(ids) else None, fields) for i, fields in enumerate(data)]


@dataclass
class PipelineApp:
    app: FastStream | AsgiFastStream
    broker: RedisBroker
    runtime: PipelineRuntime
    url: str


def broker_for(settings: Settings, url: str) -> RedisBroker:
    extra = connection_kwargs(settings.storage) if settings.storage.redis_url else {}
    return RedisBroker(
        url,
        description="gcmem: garbage collection for agent memory (turn stream, queries).",
        graceful_timeout=settings.pipeline.shutdown_timeout_s,
        # Per-message "Received/Processed" lines at batch rate are noise in a worker's log.
        log_level=logging.DEBUG,
        **extra,
    )


def create_app(
    settings: Settings | None = None,
    *,
    roles: Roles | None = None,
    consumer: str | None = None,
    memory_factory: MemoryFactory = _default_memory,
    broker_url: str | None = None,
) -> PipelineApp:
    s = settings or load_settings()
    roles = roles or Roles()
    if (bus_error := bus_config_error(s.storage)) is not None:
        raise PipelineConfigError(bus_error)
    if roles.host_index and s.pipeline.index == "bus":
        raise PipelineConfigError("a process cannot host the index and use the bus index")
    if roles.host_index and not s.storage.embedded_qdrant:
        raise PipelineConfigError(
            "--host-index serves the embedded engine; with GCMEM_QDRANT_URL every process "
            "talks to the Qdrant server directly"
        )
    embedded_bus: EmbeddedBus | None = None
    url = broker_url or s.storage.redis_url
    if url is None:
        embedded_bus = EmbeddedBus(s.storage, s.pipeline.embedded_redis_port).start()
        url = embedded_bus.url
    topology = Topology.from_settings(s.pipeline, Keyspace(s.storage.key_prefix), consumer)
    broker = broker_for(s, url)
    runtime = PipelineRuntime(s, topology, broker, roles, memory_factory=memory_factory)
    runtime.embedded_bus = embedded_bus
    _register_handlers(broker, runtime)

    spec = AsyncAPI(
        broker,
        title="gcmem pipeline",
        version=__version__,
        description=(
            "Agents publish turns to a Redis Stream; gcmem workers (one consumer group) keep "
            "each namespace's memory current; queries are answered over request/reply. "
            "Entries that fail validation or processing go to the dead-letter stream."
        ),
    )
    hooks: dict[str, Any] = {
        "on_startup": [runtime.start],
        "after_startup": [runtime.after_start],
        "on_shutdown": [runtime.stop],
        "after_shutdown": [embedded_bus.stop] if embedded_bus is not None else [],
        "specification": spec,
    }
    app: FastStream | AsgiFastStream
    if roles.http:
        from gcmem.pipeline.http import http_routes

        app = AsgiFastStream(broker, asgi_routes=http_routes(runtime), **hooks)
    else:
        app = FastStream(broker, **hooks)
    return PipelineApp(app, broker, runtime, url)


def _register_handlers(broker: RedisBroker, runtime: PipelineRuntime) -> None:
    s, t = runtime.settings, runtime.topology
    if runtime.roles.worker:
        turns = broker.subscriber(
            stream=StreamSub(
                t.stream,
                group=t.group,
                consumer=t.consumer,
                batch=True,
                max_records=s.pipeline.batch_size,
                polling_interval=s.pipeline.block_ms,
            ),
            ack_policy=AckPolicy.MANUAL,
            parser=_raw_batch,
            title="turns",
            description=(
                f"One Turn (schema_version {TURN_SCHEMA_VERSION}) per entry, as JSON in the "
                "__data__ field, raw or in FastStream's envelope. Read in batches by the "
                "consumer group; an entry is acknowledged once its effects are durable or it "
                "is dead-lettered (see dead-letters)."
            ),
        )

        @turns
        async def consume_turns(msg: RedisBatchStreamMessage) -> None:
            processor, _ = runtime.require()
            await processor.process(_entries(msg))

        # The handler takes the raw batch (entries are validated one by one), so FastStream
        # cannot see the payload type in its signature: declare the wire contract.
        declare_payload(turns, Turn)

        # Documents what workers write to the dead-letter stream (written with XADD by
        # ``DeadLetterQueue``, plus the original entry's fields as ``orig:<name>``).
        broker.publisher(
            stream=t.dead_letters,
            title="dead-letters",
            description=(
                "Entries that failed validation or processing: the DeadLetter record as JSON "
                "in __data__, and the original entry's fields byte for byte as orig:<name>. "
                "At most one dead letter per source entry id."
            ),
            schema=DeadLetter,
        )
        # Documents the turn contract for producers.
        broker.publisher(
            stream=t.stream,
            title="turns:publish",
            description="Publish one Turn per entry (JSON, __data__ field).",
            schema=Turn,
        )

    if runtime.roles.query:
        # A request FastStream cannot validate as QueryRequest gets an error reply, not the
        # requester's timeout; the middleware is scoped to the query router.
        errors = ExceptionMiddleware()

        @errors.add_handler(ValidationError, publish=True)
        def invalid_request(exc: ValidationError) -> dict[str, Any]:
            text = describe_validation_error(exc)
            return QueryReply(ok=False, error=text, error_kind="invalid").model_dump(mode="json")

        # A body FastStream could not even decode (too deep, not JSON) still gets a reply.
        @errors.add_handler(Exception, publish=True)
        def failed_request(exc: Exception) -> dict[str, Any]:
            # Decoding errors (too deep, not JSON) are the requester's; anything else ours.
            kind = "invalid" if isinstance(exc, ValueError | RecursionError) else "internal"
            text = f"request failed: {type(exc).__name__}: {printable(str(exc), 300)}"
            return QueryReply(ok=False, error=text, error_kind=kind).model_dump(mode="json")

        router = RedisRouter(middlewares=[errors])

        @router.subscriber(
            list=ListSub(t.query_requests),
            title="query",
            description="Request/reply: a QueryRequest in, a QueryReply (RetrievalResult) out.",
            max_workers=QUERY_CONCURRENCY,
        )
        async def answer_query(body: QueryRequest) -> QueryReply:
            _, queries = runtime.require()
            return await queries.reply(body)

        broker.include_router(router)
        # Documents the reply: FastStream's request/reply publishes it to the channel named in
        # the request's reply_to header (a Pub/Sub channel per request).
        broker.publisher(
            channel=PubSub(REPLY_CHANNEL),
            title="query:reply",
            description=(
                "The reply to a query request, published to the Pub/Sub channel named by the "
                "request's reply_to header: a QueryReply (ok, and the RetrievalResult or the "
                "error and its kind)."
            ),
            schema=QueryReply,
        )

    if runtime.roles.host_index:

        @broker.subscriber(
            list=ListSub(t.index_requests),
            title="index",
            description="Medium-term index operations for workers with GCMEM_PIPELINE_INDEX=bus.",
            include_in_schema=False,
        )
        async def serve_index(body: dict[str, Any]) -> dict[str, Any]:
            if runtime.index_host is None:
                return {"ok": False, "error": "index host is not ready"}
            return await runtime.index_host.handle(body)


def __getattr__(name: str) -> Any:
    # ``faststream run gcmem.pipeline.app:app`` / ``faststream docs gen``: built on access, so
    # importing this module neither reads settings nor starts anything.
    if name == "app":
        return create_app(load_settings()).app
    raise AttributeError(name)
