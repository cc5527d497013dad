"""The dead-letter stream: entries that failed validation or kept failing processing.

Each dead letter keeps everything needed to understand and replay it: the reason (a kind and
a message), the attempt count, the consumer, and the original entry's fields byte for byte
(``orig:<name>``). ``gcmem dlq list|replay|drop`` manage it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

import redis.asyncio
from pydantic import AwareDatetime, BaseModel, Field

from gcmem.pipeline.codec import DATA_FIELD, Rejection, RejectionKind, StreamEntry

META_FIELD = b"__data__"  # the dead letter's metadata, JSON (readable by any FastStream app)
ORIGINAL_PREFIX = b"orig:"


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
    original: dict[str, bytes] = Field(default_factory=dict, exclude=True)

    @property
    def payload(self) -> bytes:
        return self.original.get(DATA_FIELD.decode(), b"")


def _peek_ids(payload: bytes) -> tuple[str | None, str | None]:
    """Best-effort turn id / namespace of a rejected payload, for the listing only."""
    import json

    from faststream.redis.parser.binary import BinaryMessageFormatV1

    try:
        body, _ = BinaryMessageFormatV1.parse(payload)
        data = json.loads(body)
    except Exception:
        return None, None
    if not isinstance(data, dict):
        return None, None
    tid, ns = data.get("id"), data.get("namespace")
    return (
        tid[:256] if isinstance(tid, str) else None,
        ns[:256] if isinstance(ns, str) else None,
    )


class DeadLetterQueue:
    def __init__(self, client: redis.asyncio.Redis, stream: str, dead_letters: str) -> None:
        self.client = client
        self.stream = stream
        self.key = dead_letters

    def record(self, entry: StreamEntry, rejection: Rejection, consumer: str) -> DeadLetter:
        turn_id, namespace = _peek_ids(entry.payload)
        return DeadLetter(
            source_stream=self.stream,
            source_id=entry.id,
            kind=rejection.kind,
            reason=rejection.reason,
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
        """Append dead letters, then XACK their source entries: the dead letter is durable
        before the source entry leaves the pending list (a crash in between dead-letters
        twice; it never loses one)."""
        if not items:
            return []
        letters = [self.record(entry, rej, consumer) for entry, rej in items]
        pipe = self.client.pipeline(transaction=False)
        for (entry, _), letter in zip(items, letters, strict=True):
            fields: dict[bytes, bytes] = {META_FIELD: letter.model_dump_json().encode()}
            for name, value in entry.fields.items():
                fields[ORIGINAL_PREFIX + name] = value
            pipe.xadd(self.key, cast(Any, fields))
        ids = [e.id for e, _ in items if e.id is not None]
        if ids:
            pipe.xack(self.stream, group, *ids)
            if failures_key:
                pipe.hdel(failures_key, *ids)
        results = await pipe.execute()
        for letter, dlq_id in zip(letters, results[: len(letters)], strict=True):
            letter.id = _s(dlq_id)
        return letters

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
            new_id, _ = await pipe.execute()
            new_ids.append(_s(new_id))
        return new_ids

    async def drop(self, ids: Sequence[str]) -> int:
        return int(await self.client.xdel(self.key, *ids)) if ids else 0


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
