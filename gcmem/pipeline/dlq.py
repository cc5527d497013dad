"""The dead-letter stream: entries that failed validation or kept failing processing.

Each dead letter keeps everything needed to understand and replay it: the reason (a kind and
a message), the attempt count, the consumer, and the original entry's fields byte for byte
(``orig:<name>``). ``gcmem dlq list|replay|drop`` manage it.

Writes are idempotent per source entry: a hash next to the stream maps each source entry id to
its dead letter, checked and written in one Lua script with the XADD. A worker that dies after
writing a dead letter but before acknowledging the source entry leaves the entry pending; the
consumer that reclaims it rejects it again and finds the dead letter already there, so it only
acknowledges (exactly one dead letter per source entry, never none).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

import redis.asyncio
from pydantic import AwareDatetime, BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from gcmem.pipeline.codec import (
    DATA_FIELD,
    Rejection,
    RejectionKind,
    StreamEntry,
    parse_envelope,
    printable,
    strict_json,
)

META_FIELD = b"__data__"  # the dead letter's metadata, JSON (readable by any FastStream app)
ORIGINAL_PREFIX = b"orig:"

# KEYS: the dead-letter stream, its index (hash: source entry id -> dead-letter id).
# ARGV: the source entry id, then the dead letter's fields as name, value, ...
# Returns {dead-letter id, 1 if written now or 0 if it was already there}. An index entry
# whose dead letter is gone (dropped or replayed by hand with XDEL) does not count.
_WRITE_ONCE = """
local known = redis.call('HGET', KEYS[2], ARGV[1])
if known and #redis.call('XRANGE', KEYS[1], known, known) > 0 then
  return {known, 0}
end
local unpack = table.unpack or unpack
local id = redis.call('XADD', KEYS[1], '*', unpack(ARGV, 2))
redis.call('HSET', KEYS[2], ARGV[1], id)
return {id, 1}
"""


class DeadLetter(BaseModel):
    """Why an entry was dead-lettered. The original fields ride next to this record."""

    id: str | None = Field(default=None, description="Dead-letter stream entry id.")
    source_stream: str
    source_id: str | None = Field(description="The entry's id in the turn stream.")
    kind: RejectionKind
    reason: str
    attempts: int = Field(ge=0, description="Deliveries before it was dead-lettered.")
    consumer: str
    failed_at: AwareDatetime
    turn_id: str | None = None
    namespace: str | None = None
    payload_bytes: int = 0
    # Not part of the JSON record: the original fields are stored as ``orig:<name>`` fields
    # of the same dead-letter entry, byte for byte.
    original: SkipJsonSchema[dict[str, bytes]] = Field(default_factory=dict, exclude=True)

    @property
    def payload(self) -> bytes:
        return self.original.get(DATA_FIELD.decode(), b"")


def _peek_ids(payload: bytes) -> tuple[str | None, str | None]:
    """Best-effort turn id / namespace of a rejected payload, for the listing only."""
    try:
        body, _ = parse_envelope(payload)
        data = strict_json(body)
    except Exception:  # whatever was wrong with it is the dead letter's reason
        return None, None
    if not isinstance(data, dict):
        return None, None
    tid, ns = data.get("id"), data.get("namespace")
    return (
        printable(tid, 256) if isinstance(tid, str) else None,
        printable(ns, 256) if isinstance(ns, str) else None,
    )


class DeadLetterQueue:
    def __init__(self, client: redis.asyncio.Redis, stream: str, dead_letters: str) -> None:
        self.client = client
        self.stream = stream
        self.key = dead_letters
        self.index_key = _same_slot(dead_letters, ":sources")
        self._write_once = client.register_script(_WRITE_ONCE)

    def record(self, entry: StreamEntry, rejection: Rejection, consumer: str) -> DeadLetter:
        turn_id, namespace = _peek_ids(entry.payload)
        return DeadLetter(
            source_stream=self.stream,
            source_id=entry.id,
            kind=rejection.kind,
            reason=printable(rejection.reason, 4000),
            attempts=entry.deliveries,
            consumer=consumer,
            failed_at=datetime.now(UTC),
            turn_id=turn_id,
            namespace=namespace,
            payload_bytes=len(entry.payload),
        )

    async def add(
        self,
        items: Sequence[tuple[StreamEntry, Rejection]],
        *,
        consumer: str,
        group: str,
        failures_key: str | None = None,
    ) -> list[DeadLetter]:
        """Dead-letter entries, then XACK them: the dead letter is durable before the source
        entry leaves the pending list, and writing it again after a crash in between finds
        the first one (``write``). Returns the dead letters this call completed (written now,
        or found written by a consumer that died before its ack, and acknowledged now), so
        each dead-lettered entry is counted once."""
        if not items:
            return []
        written = await self.write(items, consumer=consumer)
        acked = await self.ack([e.id for e, _ in items if e.id is not None], group, failures_key)
        return [
            letter
            for (entry, _), (letter, new) in zip(items, written, strict=True)
            if new or entry.id is None or entry.id in acked
        ]

    async def write(
        self, items: Sequence[tuple[StreamEntry, Rejection]], *, consumer: str
    ) -> list[tuple[DeadLetter, bool]]:
        """Append one dead letter per source entry, at most once per source entry id: each
        letter with True if this call wrote it, False if it was already there (its ``id`` is
        the existing one). Entries without an id (FastStream's in-memory test broker) cannot
        be recognised again and are always appended."""
        out: list[tuple[DeadLetter, bool]] = []
        for entry, rejection in items:
            letter = self.record(entry, rejection, consumer)
            fields: dict[bytes, bytes] = {META_FIELD: letter.model_dump_json().encode()}
            for name, value in entry.fields.items():
                fields[ORIGINAL_PREFIX + name] = value
            if entry.id is None:
                letter.id = _s(await self.client.xadd(self.key, cast(Any, fields)))
                out.append((letter, True))
                continue
            flat = [v for pair in fields.items() for v in pair]
            dlq_id, new = await self._write_once(
                keys=[self.key, self.index_key], args=[entry.id, *flat]
            )
            letter.id = _s(dlq_id)
            out.append((letter, bool(new)))
        return out

    async def ack(
        self, ids: Sequence[str], group: str, failures_key: str | None = None
    ) -> set[str]:
        """Acknowledge dead-lettered source entries (and forget their recorded failures).
        Returns the ids that were still pending (acknowledged by this call)."""
        if not ids:
            return set()
        pipe = self.client.pipeline(transaction=False)
        for entry_id in ids:
            pipe.xack(self.stream, group, entry_id)
        if failures_key:
            pipe.hdel(failures_key, *ids)
        results = await pipe.execute()
        return {entry_id for entry_id, n in zip(ids, results, strict=False) if int(n)}

    async def length(self) -> int:
        return int(await self.client.xlen(self.key))

    async def read(self, count: int = 50, start: str = "-") -> list[DeadLetter]:
        """Up to ``count`` dead letters from ``start`` ('-' = the oldest; '(id' = after id)."""
        rows = await self.client.xrange(self.key, min=start, max="+", count=count)
        return [_parse(entry_id, fields) for entry_id, fields in _rows(rows)]

    async def get(self, ids: Iterable[str]) -> list[DeadLetter]:
        out: list[DeadLetter] = []
        for dlq_id in ids:
            rows = await self.client.xrange(self.key, min=dlq_id, max=dlq_id, count=1)
            out.extend(_parse(entry_id, fields) for entry_id, fields in _rows(rows))
        return out

    async def replay(self, letters: Sequence[DeadLetter]) -> list[str]:
        """Publish each dead letter's original entry again (a new entry, first delivery) and
        remove it from the dead-letter stream. Returns the new stream ids."""
        new_ids: list[str] = []
        for letter in letters:
            if letter.id is None:
                continue
            fields = {k.encode(): v for k, v in letter.original.items()}
            pipe = self.client.pipeline(transaction=False)
            pipe.xadd(letter.source_stream, cast(Any, fields))
            pipe.xdel(self.key, letter.id)
            if letter.source_id is not None:
                pipe.hdel(self.index_key, letter.source_id)
            new_id = (await pipe.execute())[0]
            new_ids.append(_s(new_id))
        return new_ids

    async def drop(self, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        sources = [x.source_id for x in await self.get(ids) if x.source_id is not None]
        pipe = self.client.pipeline(transaction=False)
        pipe.xdel(self.key, *ids)
        if sources:
            pipe.hdel(self.index_key, *sources)
        return int((await pipe.execute())[0])


def _same_slot(key: str, suffix: str) -> str:
    """``key + suffix`` in the same Redis Cluster slot as ``key`` (the script touches both):
    ``key``'s own hash tag if it has one, else all of ``key`` as the tag."""
    start = key.find("{")
    if start != -1 and key.find("}", start + 1) > start + 1:
        return key + suffix
    return "{" + key + "}" + suffix


def _rows(reply: object) -> list[tuple[bytes, Mapping[bytes, bytes]]]:
    return cast(list[tuple[bytes, Mapping[bytes, bytes]]], reply or [])


def _s(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _parse(entry_id: bytes | str, fields: Mapping[bytes, bytes]) -> DeadLetter:
    meta = fields.get(META_FIELD, b"{}")
    letter = DeadLetter.model_validate_json(meta)
    letter.id = _s(entry_id)
    letter.original = {
        k[len(ORIGINAL_PREFIX) :].decode("utf-8", "replace"): v
        for k, v in fields.items()
        if k.startswith(ORIGINAL_PREFIX)
    }
    return letter
