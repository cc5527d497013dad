"""One batch of stream entries -> durable memory, acknowledged entry by entry.

Per entry, inside one guard: decode and validate, then the turn's digest (a bad entry is
dead-lettered with its reason kind and original bytes, its neighbours go on; an exception
nobody foresaw is an ``internal`` dead letter naming it, never a failed batch); skip turns
already ingested with the same content (idempotent per turn id); then one ``Memory.ingest``
call for the whole batch (embedding is the cost: batch it). Entries are acknowledged only
after their effects are durable. If the batch call fails, a health probe tells an outage
(Redis or the index down: everything stays pending and is retried, nobody is blamed) from a
poison entry: then the batch is bisected to find the entries that fail on their own; those
stay pending for redelivery and are dead-lettered once they have been delivered
``max_attempts`` times.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import redis.asyncio

from gcmem.memory import IngestReport, TurnValidationError
from gcmem.models import Turn
from gcmem.pipeline.codec import Rejection, StreamEntry, decode_entry, printable
from gcmem.pipeline.dlq import DeadLetter, DeadLetterQueue
from gcmem.pipeline.metrics import PipelineMetrics
from gcmem.pipeline.runner import MemoryRunner
from gcmem.pipeline.topology import Topology

log = logging.getLogger(__name__)

DONE = ":done"  # suffix of a turn digest once the turn's effects are durable


@dataclass
class BatchOutcome:
    ingested: int = 0
    duplicates: int = 0
    failed: int = 0  # left pending for redelivery
    chunks: int = 0
    dead_letters: list[DeadLetter] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)


def turn_digest(turn: Turn) -> str:
    return hashlib.sha256(turn.model_dump_json().encode()).hexdigest()[:32]


@dataclass(frozen=True)
class _Item:
    entry: StreamEntry
    turn: Turn
    digest: str


class BatchProcessor:
    def __init__(
        self,
        runner: MemoryRunner,
        client: redis.asyncio.Redis,
        topology: Topology,
        metrics: PipelineMetrics,
    ) -> None:
        self.runner = runner
        self.memory = runner.memory
        self.pipeline = runner.memory.settings.pipeline
        self.client = client
        self.topology = topology
        self.metrics = metrics
        self.dlq = DeadLetterQueue(client, topology.stream, topology.dead_letters)
        # Ids this consumer is working on; the reclaimer's heartbeat keeps them from looking
        # idle to other consumers' XAUTOCLAIM while a slow batch embeds.
        self.in_flight: set[str] = set()
        # This process's own counts (the metrics hash holds the fleet's).
        self.totals: Counter[str] = Counter()

    def _validate(self, data: Mapping[str, Any]) -> Turn:
        try:
            return self.memory.validate([data])[0]
        except TurnValidationError as exc:
            raise exc.error from exc

    async def process(self, entries: Sequence[StreamEntry]) -> BatchOutcome:
        ids = {e.id for e in entries if e.id is not None}
        self.in_flight |= ids
        try:
            return await self._process(entries)
        finally:
            self.in_flight -= ids

    async def _process(self, entries: Sequence[StreamEntry]) -> BatchOutcome:
        t_batch = time.perf_counter()
        outcome = BatchOutcome()
        rejected: list[tuple[StreamEntry, Rejection]] = []
        valid: list[_Item] = []
        for entry in entries:
            prepared = self._prepare(entry)
            if isinstance(prepared, Rejection):
                rejected.append((entry, prepared))
            else:
                valid.append(prepared)
        outcome.timings_ms["decode"] = (time.perf_counter() - t_batch) * 1e3

        fresh, duplicates, conflicts = await self._claim(valid)
        rejected += conflicts
        done, failures, reports, outage = await self._ingest_batch(fresh)
        pending_failures: dict[str, str] = {}
        for item, error in failures:
            if not outage and item.entry.deliveries >= self.pipeline.max_attempts:
                reason = f"failed {item.entry.deliveries} deliveries; last error: {error}"
                rejected.append((item.entry, Rejection("processing", reason)))
            elif item.entry.id is not None:
                pending_failures[item.entry.id] = error
        await self._commit(done, duplicates, pending_failures)
        outcome.dead_letters = await self.dlq.add(
            rejected,
            consumer=self.topology.consumer,
            group=self.topology.group,
            failures_key=self.topology.failures,
        )
        outcome.ingested = len(done)
        outcome.duplicates = len(duplicates)
        outcome.failed = len(failures) - sum(1 for _, r in rejected if r.kind == "processing")
        outcome.chunks = sum(r.chunks for r in reports)
        for report in reports:
            for stage, ms in report.timings_ms.items():
                outcome.timings_ms[stage] = outcome.timings_ms.get(stage, 0.0) + ms
        outcome.timings_ms["batch"] = (time.perf_counter() - t_batch) * 1e3
        for letter in outcome.dead_letters:
            log.warning(
                "dead-lettered %s (%s): %s", letter.source_id, letter.kind, letter.reason[:300]
            )
        await self._record(outcome, len(failures))
        return outcome

    def _prepare(self, entry: StreamEntry) -> _Item | Rejection:
        """Raw fields -> a turn and its digest, or the reason why not. Never raises."""
        try:
            decoded = decode_entry(
                entry,
                max_bytes=self.pipeline.max_message_bytes,
                max_depth=self.pipeline.max_json_depth,
                validate=self._validate,
            )
            if isinstance(decoded, Rejection):
                return decoded
            return _Item(entry, decoded, turn_digest(decoded))
        except Exception as exc:
            return Rejection("internal", f"{type(exc).__name__}: {printable(str(exc), 500)}")

    # --- idempotency per turn id -----------------------------------------------------------
    async def _claim(
        self, items: Sequence[_Item]
    ) -> tuple[list[_Item], list[_Item], list[tuple[StreamEntry, Rejection]]]:
        """Split into (to ingest, already ingested, conflicting).

        Each turn id maps to its content digest in a per-namespace hash: HSETNX claims it
        before ingest, ``digest:done`` marks it durable. Same digest and done -> duplicate
        (ack, nothing to do); same digest, not done -> an earlier attempt died midway: ingest
        again (every write is idempotent); another digest -> a producer reused the turn id for
        different content: dead-letter it rather than overwrite what is stored.
        """
        fresh: list[_Item] = []
        duplicates: list[_Item] = []
        conflicts: list[tuple[StreamEntry, Rejection]] = []
        seen: dict[tuple[str, str], str] = {}
        unique: list[_Item] = []
        for item in items:
            key = (item.turn.namespace, item.turn.id)
            if key in seen:
                if seen[key] == item.digest:
                    duplicates.append(item)
                else:
                    conflicts.append((item.entry, _conflict(item.turn)))
                continue
            seen[key] = item.digest
            unique.append(item)
        if not unique:
            return fresh, duplicates, conflicts
        keys = self.topology.keys
        pipe = self.client.pipeline(transaction=False)
        for item in unique:
            digests = keys.turn_digests(item.turn.namespace)
            pipe.hsetnx(digests, item.turn.id, item.digest)
            pipe.hget(digests, item.turn.id)
        results = await pipe.execute()
        for i, item in enumerate(unique):
            stored = _text(results[2 * i + 1]) or item.digest
            if stored == item.digest + DONE:
                duplicates.append(item)
            elif stored.removesuffix(DONE) == item.digest:
                fresh.append(item)
            else:
                conflicts.append((item.entry, _conflict(item.turn)))
        return fresh, duplicates, conflicts

    # --- ingest ----------------------------------------------------------------------------
    async def _ingest_batch(
        self, items: list[_Item]
    ) -> tuple[list[_Item], list[tuple[_Item, str]], list[IngestReport], bool]:
        """(done, failed with their errors, reports, outage?). On a failed batch the probe
        decides: Redis or the index not answering is an outage (no entry is to blame, none is
        bisected or dead-lettered); otherwise the bisection isolates the failing entries."""
        if not items:
            return [], [], [], False
        turns = [item.turn for item in items]
        try:
            report = await self.runner.run(lambda: self.memory.ingest(turns))
        except Exception as exc:
            error = f"{type(exc).__name__}: {printable(str(exc))}"
            problem = await self._probe()
            if problem is not None:
                log.warning("ingest unavailable (%s); %d entries stay pending", problem, len(items))
                return [], [(item, f"{error} (outage: {problem})") for item in items], [], True
            if len(items) == 1:
                log.warning("ingest of %s failed: %s", items[0].entry.id, error)
                return [], [(items[0], error)], [], False
            done, failed, reports = await self._bisect(items)
            return done, failed, reports, False
        return items, [], [report], False

    async def _bisect(
        self, items: list[_Item]
    ) -> tuple[list[_Item], list[tuple[_Item, str]], list[IngestReport]]:
        mid = len(items) // 2
        a_done, a_failed, a_reports = await self._ingest(items[:mid])
        b_done, b_failed, b_reports = await self._ingest(items[mid:])
        return a_done + b_done, a_failed + b_failed, a_reports + b_reports

    async def _probe(self) -> str | None:
        """None when Redis and the index answer, else what failed."""
        memory = self.memory
        try:
            await self.client.ping()
            await self.runner.run(lambda: (memory.redis.ping(), memory.index.count("default")))
        except Exception as exc:
            return f"{type(exc).__name__}: {printable(str(exc), 300)}"
        return None

    async def _ingest(
        self, items: list[_Item]
    ) -> tuple[list[_Item], list[tuple[_Item, str]], list[IngestReport]]:
        if not items:
            return [], [], []
        turns = [item.turn for item in items]
        try:
            report = await self.runner.run(lambda: self.memory.ingest(turns))
        except Exception as exc:
            if len(items) == 1:
                error = f"{type(exc).__name__}: {printable(str(exc))}"
                log.warning("ingest of %s failed: %s", items[0].entry.id, error)
                return [], [(items[0], error)], []
            # Find the entries that fail on their own; the others are ingested.
            return await self._bisect(items)
        return items, [], [report]

    async def _commit(
        self, done: Sequence[_Item], duplicates: Sequence[_Item], failures: Mapping[str, str]
    ) -> None:
        """Mark turns durable, then acknowledge; record failures of entries left pending."""
        pipe = self.client.pipeline(transaction=False)
        keys = self.topology.keys
        for item in done:
            pipe.hset(keys.turn_digests(item.turn.namespace), item.turn.id, item.digest + DONE)
        ack_ids = [i.entry.id for i in (*done, *duplicates) if i.entry.id is not None]
        if ack_ids:
            pipe.xack(self.topology.stream, self.topology.group, *ack_ids)
            pipe.hdel(self.topology.failures, *ack_ids)
        now = datetime.now(UTC).isoformat()
        for entry_id, error in failures.items():
            record = {"error": error, "consumer": self.topology.consumer, "at": now}
            pipe.hset(self.topology.failures, entry_id, json.dumps(record))
        if len(pipe):
            await pipe.execute()

    async def _record(self, outcome: BatchOutcome, attempts_failed: int) -> None:
        dead: dict[str, int] = {}
        for letter in outcome.dead_letters:
            dead[letter.kind] = dead.get(letter.kind, 0) + 1
        counts = {
            "processed": outcome.ingested,
            "duplicates": outcome.duplicates,
            "failed": attempts_failed,
            "batches": 1,
        }
        self.totals.update(counts)
        self.totals.update({f"dead_lettered:{k}": v for k, v in dead.items()})
        await self.metrics.record(
            counts=counts,
            latencies_s={stage: ms / 1e3 for stage, ms in outcome.timings_ms.items()},
            dead_lettered=dead,
        )

    async def last_failure(self, entry_id: str) -> str | None:
        raw = await self.client.hget(self.topology.failures, entry_id)
        if raw is None:
            return None
        return str(json.loads(raw).get("error"))


def _conflict(turn: Turn) -> Rejection:
    return Rejection(
        "conflict",
        f"turn id {turn.id!r} in namespace {turn.namespace!r} was already ingested with "
        "different content; publish changed content under a new turn id",
    )


def _text(value: object) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(cast(Any, value))
