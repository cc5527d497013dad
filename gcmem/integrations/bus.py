"""Agent-side clients of the gcmem pipeline (``gcmem worker`` / ``gcmem serve``).

- ``TurnStreamSink``: publishes turns onto the turn stream (a ``TurnSink``, so a LangChain
  chat history can publish through it instead of ingesting in-process).
- ``BusClient``: async; publishes turns and asks for a filtered context over the bus
  (FastStream request/reply), the way an agent in a fleet does. It is an
  ``AsyncMemoryClient`` like ``Memory`` (``aingest`` / ``aretrieve``, one result type).
- ``SyncBusClient``: its sync twin, a ``MemoryClient`` like ``Memory`` (``ingest`` /
  ``retrieve``): the same async client, driven on a private event loop thread, so code
  without an event loop talks to the fleet with the calls it would make in process.

Both speak the pipeline's public contract: a stream entry is ``{"__data__": <Turn JSON>}`` on
``Topology.stream``; a query is a ``QueryRequest`` on ``Topology.query_requests`` answered by
a ``QueryReply``. Names come from the same ``Settings`` the workers read.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, TypeVar

import redis
import redis.asyncio
from faststream.redis import RedisBroker

from gcmem.models import RetrievalResult, Turn
from gcmem.pipeline.codec import DATA_FIELD
from gcmem.pipeline.query import QueryReply, request_body, unwrap
from gcmem.pipeline.topology import Topology
from gcmem.settings import Settings, load_settings
from gcmem.storage.redis import Keyspace, bus_config_error, connection_kwargs, open_bus_redis

__all__ = ["BusClient", "SyncBusClient", "TurnStreamSink"]

T = TypeVar("T")


def _entry(turn: Turn) -> dict[bytes, bytes]:
    return {DATA_FIELD: turn.model_dump_json().encode()}


def _server_url(settings: Settings, url: str | None) -> str:
    if url is None and (error := bus_config_error(settings.storage)) is not None:
        raise ValueError(error)
    found = url or settings.storage.redis_url
    if found is None:
        raise ValueError(
            "the bus needs a Redis URL: set GCMEM_REDIS_URL (or pass url=, e.g. the embedded "
            "Redis URL `gcmem serve` prints)"
        )
    return found


class TurnStreamSink:
    """Publishes turns to the turn stream (XADD, pipelined). Workers validate and ingest them
    asynchronously; a turn they reject lands in the dead-letter stream with the reason."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        url: str | None = None,
        client: redis.Redis | None = None,
    ) -> None:
        s = settings or load_settings()
        if client is None:
            client = (
                redis.Redis.from_url(url, **connection_kwargs(s.storage))
                if url
                else open_bus_redis(s.storage)
            )
        self.client = client
        self.stream = Topology.from_settings(
            s.pipeline, Keyspace(s.storage.key_prefix), consumer="publisher"
        ).stream

    def publish(self, turns: Sequence[Turn]) -> None:
        self.publish_ids(turns)

    def publish_ids(self, turns: Sequence[Turn]) -> list[str]:
        """Publish and return the stream entry ids, in order."""
        pipe = self.client.pipeline(transaction=False)
        for turn in turns:
            pipe.xadd(self.stream, _entry(turn))  # type: ignore[arg-type]
        return [i.decode() if isinstance(i, bytes) else str(i) for i in pipe.execute()]


class BusClient:
    """An agent's connection to the pipeline: ``async with BusClient(settings) as bus``."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        url: str | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        self.url = _server_url(self.settings, url)
        self.topology = Topology.from_settings(
            self.settings.pipeline, Keyspace(self.settings.storage.key_prefix), consumer="client"
        )
        self.timeout_s = timeout_s or self.settings.pipeline.query_timeout_s
        extra = connection_kwargs(self.settings.storage) if self.settings.storage.redis_url else {}
        self.broker = RedisBroker(self.url, **extra)
        self.client = redis.asyncio.Redis.from_url(self.url, **extra)

    async def __aenter__(self) -> BusClient:
        await self.broker.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.broker.stop()
        await self.client.aclose()

    async def publish(self, turns: Sequence[Turn]) -> list[str]:
        """Turns onto the stream; returns their entry ids."""
        pipe = self.client.pipeline(transaction=False)
        for turn in turns:
            pipe.xadd(self.topology.stream, _entry(turn))  # type: ignore[arg-type]
        ids = await pipe.execute()
        return [i.decode() if isinstance(i, bytes) else str(i) for i in ids]

    async def query(
        self,
        query: str,
        *,
        namespace: str | None = None,
        k: int | None = None,
        stm: bool = True,
        as_of: datetime | None = None,
        filters: list[str] | None = None,
    ) -> RetrievalResult:
        """A filtered context from whichever server takes the request. ``filters=[]`` asks
        for plain RAG over the same candidates; an error reply raises ``QueryError``."""
        body: dict[str, Any] = request_body(
            query, namespace=namespace, k=k, stm=stm, as_of=as_of, filters=filters
        )
        msg = await self.broker.request(
            body, list=self.topology.query_requests, timeout=self.timeout_s
        )
        return unwrap(QueryReply.model_validate(await msg.decode()))

    # AsyncMemoryClient: the names ``Memory`` uses, so agent code runs on either. Ingest is
    # asynchronous end to end here: turns are durable on the stream when ``aingest`` returns
    # and a worker ingests them (rejects go to the dead letters).
    aingest = publish
    aretrieve = query

    async def lag(self) -> int:
        """Entries of the stream the consumer group has not yet acknowledged or read."""
        try:
            groups = await self.client.xinfo_groups(self.topology.stream)
        except redis.ResponseError:
            return 0
        for group in groups:
            name = group["name"].decode() if isinstance(group["name"], bytes) else group["name"]
            if name == self.topology.group:
                return int(group.get("lag") or 0) + int(group["pending"])
        return 0


class SyncBusClient:
    """The sync twin of ``BusClient``: ``with SyncBusClient(settings) as bus:
    bus.retrieve(...)``. The async client runs on a private event loop in a daemon thread; each
    call blocks until its reply (``QueryError`` on an error reply, ``TimeoutError`` after
    ``timeout_s``). Do not call it from inside a running event loop: use ``BusClient`` there."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        url: str | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="gcmem-bus-client", daemon=True
        )
        self._thread.start()
        # Built on its loop: the broker and the Redis client bind to the loop that made them.
        self._bus: BusClient = self._run(self._make(settings, url, timeout_s))
        self._connected = False

    @staticmethod
    async def _make(
        settings: Settings | None, url: str | None, timeout_s: float | None
    ) -> BusClient:
        return BusClient(settings, url=url, timeout_s=timeout_s)

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    @property
    def topology(self) -> Topology:
        return self._bus.topology

    def connect(self) -> SyncBusClient:
        if not self._connected:
            self._run(self._bus.__aenter__())
            self._connected = True
        return self

    def close(self) -> None:
        """Disconnect and stop the loop thread (idempotent)."""
        if self._loop.is_closed():
            return
        if self._connected:
            self._run(self._bus.__aexit__(None, None, None))
            self._connected = False
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def __enter__(self) -> SyncBusClient:
        return self.connect()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def publish(self, turns: Sequence[Turn]) -> list[str]:
        """Turns onto the stream; returns their entry ids."""
        return self._run(self._bus.publish(turns))

    def query(
        self,
        query: str,
        *,
        namespace: str | None = None,
        k: int | None = None,
        stm: bool = True,
        as_of: datetime | None = None,
        filters: list[str] | None = None,
    ) -> RetrievalResult:
        """``BusClient.query``, blocking."""
        self.connect()
        return self._run(
            self._bus.query(query, namespace=namespace, k=k, stm=stm, as_of=as_of, filters=filters)
        )

    # MemoryClient: the names ``Memory`` uses (see ``BusClient.aingest`` for what ingest means
    # over the bus).
    ingest = publish
    retrieve = query

    def lag(self) -> int:
        return self._run(self._bus.lag())
