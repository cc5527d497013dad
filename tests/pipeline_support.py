"""Shared pieces of the pipeline tests: turns, the malformed-input corpus, waiting helpers,
concurrent ingest."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from gcmem.memory import Memory
from gcmem.models import Turn
from gcmem.pipeline.codec import BINARY_MAGIC
from gcmem.settings import Settings
from gcmem.storage.mtm.index import MediumTermIndex
from tests.doubles import HashingEmbedder

BASE_TS = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def turn(i: int, namespace: str = "ns-a", **extra: Any) -> dict[str, Any]:
    return {
        "id": f"turn-{i:06d}",
        "namespace": namespace,
        "text": f"Service {i % 37} of team {namespace} listens on port {8000 + i}.",
        "ts": (BASE_TS + timedelta(seconds=i)).isoformat(),
        **extra,
    }


def data(obj: Any) -> dict[bytes, bytes]:
    return {b"__data__": json.dumps(obj).encode()}


@dataclass(frozen=True)
class Malformed:
    name: str
    fields: dict[bytes, bytes]
    kind: str  # the RejectionKind it must be dead-lettered with


def _with(**changes: Any) -> dict[bytes, bytes]:
    t = turn(900_000)
    t.update(changes)
    return data({k: v for k, v in t.items() if v is not _DROP})


_DROP = object()


def malformed_corpus() -> list[Malformed]:
    """At least 30 kinds of bad input, each with the rejection kind it must produce."""
    huge = "x" * (10 * 1024 * 1024)
    too_long_text = "word " * 9000  # 45k chars: under the byte limit, over max_text_chars
    return [
        Malformed("invalid-json", {b"__data__": b'{"id": "a", "text": '}, "json"),
        Malformed("not-utf8", {b"__data__": b"\xff\xfe\xfa garbage"}, "encoding"),
        Malformed("empty-payload", {b"__data__": b""}, "json"),
        Malformed("json-array", data([1, 2, 3]), "json"),
        Malformed("json-string", data("just a string"), "json"),
        Malformed("json-null", data(None), "json"),
        Malformed("no-data-field", {b"text": b"hello", b"id": b"x"}, "envelope"),
        Malformed("missing-id", _with(id=_DROP), "schema"),
        Malformed("missing-text", _with(text=_DROP), "schema"),
        Malformed("missing-ts", _with(ts=_DROP), "schema"),
        Malformed("text-wrong-type", _with(text=12345), "schema"),
        Malformed("id-wrong-type", _with(id=["a", "b"]), "schema"),
        Malformed("metadata-wrong-type", _with(metadata=["not", "a", "dict"]), "schema"),
        Malformed("metadata-nested", _with(metadata={"k": {"deep": 1}}), "schema"),
        Malformed(
            "too-many-metadata-keys", _with(metadata={f"k{i}": i for i in range(65)}), "schema"
        ),
        Malformed("empty-text", _with(text=""), "schema"),
        Malformed("blank-text", _with(text="   \n\t "), "schema"),
        Malformed("text-over-max-chars", _with(text=too_long_text), "schema"),
        Malformed("ten-megabyte-text", _with(text=huge), "size"),
        Malformed("naive-timestamp", _with(ts="2026-01-05T09:00:00"), "schema"),
        Malformed("year-9999", _with(ts="9999-12-31T23:59:59+00:00"), "schema"),
        Malformed("before-1970", _with(ts="1900-01-01T00:00:00+00:00"), "schema"),
        Malformed("unparseable-timestamp", _with(ts="yesterday at noon"), "schema"),
        Malformed("control-chars-in-text", _with(text="hello\x00world\x07"), "schema"),
        Malformed("control-chars-in-id", _with(id="id\x1b[31m"), "schema"),
        Malformed("blank-id", _with(id="   "), "schema"),
        Malformed("unknown-schema-version", _with(schema_version=2), "schema-version"),
        Malformed("schema-version-string", _with(schema_version="1"), "schema-version"),
        Malformed("schema-version-bool", _with(schema_version=True), "schema-version"),
        Malformed("injection-namespace", _with(namespace="ns}:*\r\nFLUSHALL"), "schema"),
        Malformed("path-namespace", _with(namespace="../../etc/passwd"), "schema"),
        Malformed("unknown-field", _with(priority="high"), "schema"),
        Malformed("unknown-role", _with(role="admin"), "schema"),
        Malformed("bad-facts", _with(facts=[{"subject": "", "relation": "r"}]), "schema"),
        # What a hostile producer found (each once blocked its whole batch, or was misread).
        Malformed("nested-100000-levels", {b"__data__": b"[" * 100_000 + b"]" * 100_000}, "depth"),
        Malformed(
            "nested-in-a-turn",
            _raw(_turn_text()[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}"),
            "depth",
        ),
        Malformed("nested-40-in-metadata", _with(metadata={"k": _nest(40)}), "depth"),
        Malformed("lone-surrogate-text", _with(text="valid start \ud800 end"), "encoding"),
        Malformed("lone-surrogate-id", _with(id="id-\udfff"), "encoding"),
        Malformed("lone-surrogate-metadata-key", _with(metadata={"\udc80": 1}), "encoding"),
        Malformed("nan-in-metadata", _raw(_turn_text()[:-1] + ', "metadata": {"x": NaN}}'), "json"),
        Malformed(
            "infinity-in-metadata",
            _raw(_turn_text()[:-1] + ', "metadata": {"x": -Infinity}}'),
            "json",
        ),
        Malformed(
            "overflowing-float", _raw(_turn_text()[:-1] + ', "metadata": {"x": 1e999}}'), "json"
        ),
        Malformed(
            "5000-digit-integer",
            _raw(_turn_text()[:-1] + ', "metadata": {"x": ' + "9" * 5000 + "}}"),
            "json",
        ),
        Malformed("integer-ts", _with(ts=12345), "schema"),
        Malformed("float-ts", _with(ts=1767603600.5), "schema"),
        Malformed(
            "envelope-headers-list", data({"data": _turn_text(), "headers": [1, 2]}), "envelope"
        ),
        Malformed(
            "envelope-headers-string", data({"data": _turn_text(), "headers": "h"}), "envelope"
        ),
        Malformed("envelope-data-object", data({"data": turn(900_001)}), "envelope"),
        Malformed(
            "binary-envelope-truncated",
            {b"__data__": BINARY_MAGIC + b"\x00\x01\x00\x00"},
            "envelope",
        ),
        Malformed(
            "binary-envelope-bad-offsets",
            {b"__data__": BINARY_MAGIC + b"\x00\x01" + b"\xff" * 8},
            "envelope",
        ),
    ]


def _turn_text() -> str:
    return json.dumps(turn(900_000))


def _raw(text: str) -> dict[bytes, bytes]:
    return {b"__data__": text.encode()}


def _nest(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def hashing_memory(settings: Settings, index: MediumTermIndex | None) -> Memory:
    """Memory factory for pipeline tests of logic: the real engines, a model-free embedder."""
    return Memory(settings, embedder=HashingEmbedder(), index=index)


async def wait_until(
    check: Callable[[], Awaitable[bool]], *, timeout: float, what: str, every: float = 0.2
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await check():
            return
        await asyncio.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


async def drained(client: Any, stream: str, group: str) -> bool:
    """Every entry of the stream delivered to the group and acknowledged."""
    try:
        groups = await client.xinfo_groups(stream)
    except Exception:
        return False
    for g in groups:
        name = g["name"].decode() if isinstance(g["name"], bytes) else g["name"]
        if name == group:
            return g.get("lag") == 0 and g["pending"] == 0
    return False


async def counted(metrics: Any, **at_least: int) -> bool:
    """The pipeline counters reached ``at_least`` (they are recorded just after the ack, so a
    drained stream can be seen a moment before its counts)."""
    snap = await metrics.snapshot()
    return all(snap.get(name, 0) >= value for name, value in at_least.items())


@asynccontextmanager
async def running(built: Any, *, timeout: float = 120) -> AsyncIterator[Any]:
    """Run a FastStream pipeline app in this event loop until the block ends."""
    task = asyncio.create_task(built.app.run())
    ready = asyncio.create_task(built.runtime.ready.wait())
    done, _ = await asyncio.wait(
        {task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
    )
    if ready not in done:
        ready.cancel()
        if task in done:
            task.result()  # startup failed: raise its error
        raise AssertionError("pipeline app did not start")
    try:
        yield built
    finally:
        built.app.exit()
        await asyncio.wait_for(task, timeout=60)


@asynccontextmanager
async def serving_http(built: Any, port: int, *, timeout: float = 120) -> AsyncIterator[str]:
    """Run an ASGI pipeline app under uvicorn on 127.0.0.1:port."""
    import uvicorn

    config = uvicorn.Config(
        built.app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    deadline = time.monotonic() + timeout
    while not (server.started and built.runtime.ready.is_set()):
        if task.done():
            task.result()
        if time.monotonic() > deadline:
            raise AssertionError("HTTP server did not start")
        await asyncio.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, timeout=60)


def ingest_concurrently(workers: Sequence[Memory], turns: Sequence[Turn]) -> None:
    """Worker n ingests turns n, n + len(workers), ... in random batches of 1-3 (seeded by n),
    all workers at once on their own threads; raises the first error any of them hit."""
    errors: list[BaseException] = []

    def work(memory: Memory, mine: Sequence[Turn], seed: int) -> None:
        rng = random.Random(seed)
        try:
            i = 0
            while i < len(mine):
                step = rng.randint(1, 3)
                memory.ingest(list(mine[i : i + step]))
                i += step
        except BaseException as exc:  # re-raised on the test's thread
            errors.append(exc)

    n = len(workers)
    threads = [threading.Thread(target=work, args=(workers[w], turns[w::n], w)) for w in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class SimulatedCrash(BaseException):
    """Stands for the worker dying (a BaseException, so nothing on the way catches it)."""


async def assert_dead_letter_written_once_across_a_crash(processor: Any, monkeypatch: Any) -> None:
    """A worker dead-letters a bad entry and dies before acknowledging it; another consumer
    reclaims the entry and rejects it again: exactly one dead letter, nothing left pending.
    ``processor`` is a ``BatchProcessor`` (consumer c1) on a fresh key prefix."""
    from gcmem.pipeline.app import ensure_group
    from gcmem.pipeline.codec import StreamEntry
    from gcmem.pipeline.dlq import DeadLetterQueue
    from gcmem.pipeline.ingest import BatchProcessor
    from gcmem.pipeline.reclaim import Reclaimer

    client, t = processor.client, processor.topology
    await ensure_group(client, t)
    good = await client.xadd(t.stream, data(turn(1)))
    bad = (await client.xadd(t.stream, {b"__data__": b"{not json"})).decode()
    rows = await client.xreadgroup(t.group, t.consumer, {t.stream: ">"}, count=10)
    entries = [StreamEntry(i.decode(), f) for _, batch in rows for i, f in batch]
    assert len(entries) == 2

    async def die_before_ack(self: DeadLetterQueue, *args: Any, **kwargs: Any) -> None:
        raise SimulatedCrash

    with monkeypatch.context() as patch:
        patch.setattr(DeadLetterQueue, "ack", die_before_ack)
        try:
            await processor.process(entries)
        except SimulatedCrash:
            pass
        else:
            raise AssertionError("the dead-letter path did not reach the ack")
    assert await processor.dlq.length() == 1, "the dead letter was written before the crash"
    pending = await client.xpending_range(t.stream, t.group, "-", "+", 10)
    assert [p["message_id"].decode() for p in pending] == [bad], "the good turn was acked"

    # Another consumer takes over the dead one's pending entry and processes it again.
    survivor_topology = type(t)(t.keys, t.stream, t.group, "c2")
    survivor = BatchProcessor(processor.runner, client, survivor_topology, processor.metrics)
    reclaimer = Reclaimer(client, survivor_topology, survivor)
    reclaimer.min_idle_ms = 0
    assert await reclaimer.reclaim_once() == 1
    letters = await survivor.dlq.read(count=10)
    assert len(letters) == 1 and letters[0].source_id == bad and letters[0].kind == "json"
    assert letters[0].consumer == "c1", "the first (crashed) write is the one kept"
    assert (await client.xpending(t.stream, t.group))["pending"] == 0
    # The metrics count it once: the second pass found it written and only acknowledged.
    assert (await processor.metrics.snapshot()).get("dead_lettered:json") == 1

    # Processing the same entry yet again (a late duplicate delivery) writes and counts
    # nothing new; a replayed dead letter is a new source entry, dead-lettered afresh.
    again = await survivor.process([StreamEntry(bad, {b"__data__": b"{not json"}, 3)])
    assert again.dead_letters == [] and await survivor.dlq.length() == 1
    [new_id] = await survivor.dlq.replay(letters)
    assert await survivor.dlq.length() == 0
    assert not await client.hexists(survivor.dlq.index_key, bad), "replay forgets the source"
    fresh = await survivor.process([StreamEntry(new_id, {b"__data__": b"{not json"})])
    assert [d.source_id for d in fresh.dead_letters] == [new_id]
    assert await survivor.dlq.drop([str(fresh.dead_letters[0].id)]) == 1
    assert await client.hlen(survivor.dlq.index_key) == 0, "drop forgets the source"
    assert good
