"""Taking over the pending entries of dead consumers, and keeping our own from looking dead.

FastStream's stream subscriber can XAUTOCLAIM (``StreamSub(min_idle_time=...)``), but then it
reads *only* by XAUTOCLAIM (never new entries), one entry per call (no batch), and without the
delivery count (no attempt limit); its XREADGROUP CLAIM mode needs Redis 8.4. So reclaiming is
done here on redis-py: batched XAUTOCLAIM, delivery counts from XPENDING, and the same
``BatchProcessor`` as new entries. A heartbeat (XCLAIM ... JUSTID, which resets idle time
without counting a delivery) keeps a slow batch from being stolen while its worker lives.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any, cast

import redis.asyncio
from redis.exceptions import ResponseError

from gcmem.pipeline.codec import Rejection, StreamEntry
from gcmem.pipeline.ingest import BatchProcessor
from gcmem.pipeline.topology import Topology

log = logging.getLogger(__name__)


def _s(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class Reclaimer:
    def __init__(
        self,
        client: redis.asyncio.Redis,
        topology: Topology,
        processor: BatchProcessor,
    ) -> None:
        self.client = client
        self.topology = topology
        self.processor = processor
        pipeline = processor.pipeline
        self.min_idle_ms = pipeline.claim_idle_ms
        self.batch_size = pipeline.batch_size
        self.max_attempts = pipeline.max_attempts
        self.poll_s = pipeline.block_ms / 1e3

    async def reclaim_once(self) -> int:
        """Claim and process every entry idle for at least ``min_idle_ms``; returns how many."""
        t = self.topology
        start = "0-0"
        total = 0
        while True:
            reply = await self.client.xautoclaim(
                t.stream,
                t.group,
                t.consumer,
                min_idle_time=self.min_idle_ms,
                start_id=start,
                count=self.batch_size,
            )
            next_id, claimed = reply[0], reply[1]
            deleted = reply[2] if len(reply) > 2 else []
            if deleted:
                # Trimmed away before anyone processed them: nothing left to process or keep.
                await self.client.xack(t.stream, t.group, *deleted)
                log.error(
                    "%d pending entries were deleted from %s unprocessed", len(deleted), t.stream
                )
            live = [(entry_id, fields) for entry_id, fields in claimed if fields is not None]
            if live:
                total += len(live)
                await self._process_claimed(live)
            start = _s(next_id)
            if start == "0-0":
                return total

    async def _process_claimed(self, claimed: Sequence[tuple[Any, Mapping[bytes, bytes]]]) -> None:
        t = self.topology
        ids = [_s(entry_id) for entry_id, _ in claimed]
        counts = await self._delivery_counts(ids)
        entries = [
            StreamEntry(entry_id, fields, counts.get(entry_id, 1))
            for entry_id, (_, fields) in zip(ids, claimed, strict=True)
        ]
        await self.processor.metrics.record(counts={"reclaimed": len(entries)})
        exhausted = [e for e in entries if e.deliveries > self.max_attempts]
        if exhausted:
            # Delivered max_attempts times and never finished: most likely it kills the worker
            # that processes it (out of memory, a crash in native code). Stop the cycle.
            letters = []
            for entry in exhausted:
                last = await self._last_failure(entry.id)
                reason = f"delivered {entry.deliveries} times without completing; " + (
                    f"last error: {last}"
                    if last
                    else "no error was recorded (the worker processing it died)"
                )
                letters.append((entry, Rejection("processing", reason)))
            dead = await self.processor.dlq.add(
                letters, consumer=t.consumer, group=t.group, failures_key=t.failures
            )
            await self.processor.metrics.record(dead_lettered={"processing": len(dead)})
        rest = [e for e in entries if e.deliveries <= self.max_attempts]
        if rest:
            await self.processor.process(rest)

    async def _delivery_counts(self, ids: Sequence[str]) -> dict[str, int]:
        t = self.topology
        pipe = self.client.pipeline(transaction=False)
        for entry_id in ids:
            pipe.xpending_range(t.stream, t.group, min=entry_id, max=entry_id, count=1)
        out: dict[str, int] = {}
        for rows in await pipe.execute():
            for row in rows:
                out[_s(row["message_id"])] = int(row["times_delivered"])
        return out

    async def _last_failure(self, entry_id: str | None) -> str | None:
        if entry_id is None:
            return None
        raw = await self.client.hget(self.topology.failures, entry_id)
        return str(json.loads(raw).get("error")) if raw else None

    async def heartbeat(self) -> None:
        """Reset the idle time of the entries this consumer is processing right now."""
        ids = sorted(self.processor.in_flight)
        if ids:
            t = self.topology
            await self.client.xclaim(
                t.stream,
                t.group,
                t.consumer,
                min_idle_time=0,
                message_ids=cast(Any, ids),
                justid=True,
            )

    async def forget_dead_consumers(self) -> int:
        """Remove consumers that hold nothing and have been silent for 10 claim periods."""
        t = self.topology
        try:
            consumers = await self.client.xinfo_consumers(t.stream, t.group)
        except ResponseError:
            return 0
        removed = 0
        for info in consumers:
            row = {_s(k): v for k, v in cast(dict[Any, Any], info).items()}
            name = _s(row["name"])
            if name == t.consumer or int(row.get("pending") or 0):
                continue
            if int(row.get("idle") or 0) > 10 * self.min_idle_ms:
                await self.client.xgroup_delconsumer(t.stream, t.group, name)
                removed += 1
        return removed

    async def run(self, stop: asyncio.Event) -> None:
        """The reclaim loop until ``stop`` is set. A Redis outage is waited out here; any
        other exception ends the loop, for the supervisor to restart (``supervisor``)."""
        cycles = 0
        while not stop.is_set():
            try:
                claimed = await self.reclaim_once()
                cycles += 1
                if cycles % 100 == 0:
                    await self.forget_dead_consumers()
            except ResponseError as exc:
                if "NOGROUP" not in str(exc):
                    raise
                # The stream or group is gone (a Redis server restarted empty, a FLUSHDB):
                # recreate it at the start so nothing published since is skipped.
                from gcmem.pipeline.app import ensure_group

                await ensure_group(self.client, self.topology)
                claimed = 0
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
                log.warning("reclaim: Redis unavailable (%s); retrying", exc)
                claimed = 0
            if not claimed:
                # Nothing idle enough: look again well within one idle period.
                wait = min(self.poll_s * 5, self.min_idle_ms / 4e3)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=wait)

    async def heartbeat_loop(self, stop: asyncio.Event) -> None:
        period = self.min_idle_ms / 3e3
        while not stop.is_set():
            try:
                await self.heartbeat()
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
                # A missed beat only risks a duplicate (idempotent) retry.
                log.warning("heartbeat: Redis unavailable (%s)", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=period)
