"""Stream entry -> ``Turn``, or a precise reason why not.

The contract on the bus: a stream entry whose ``__data__`` field holds one ``Turn`` as JSON,
either raw (``XADD stream * __data__ '{...}'``) or wrapped in FastStream's envelope (what
``broker.publish(turn, stream=...)`` writes). Every check runs per entry, so one bad entry
never takes its batch down with it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from faststream.redis.parser.binary import BinaryMessageFormatV1
from pydantic import ValidationError

from gcmem.models import TURN_SCHEMA_VERSION, Turn

DATA_FIELD = b"__data__"

RejectionKind = Literal[
    "envelope",  # no __data__ field
    "size",  # payload over the configured maximum
    "encoding",  # not UTF-8
    "json",  # not JSON, or not a JSON object
    "schema-version",  # a Turn schema this worker does not know
    "schema",  # fields missing, wrong types, bad values (text, timestamp, namespace, ...)
    "conflict",  # turn id already ingested with different content
    "processing",  # ingest kept failing for max_attempts deliveries
]


@dataclass(frozen=True)
class Rejection:
    kind: RejectionKind
    reason: str


@dataclass(frozen=True)
class StreamEntry:
    """One stream entry as read: id (None in FastStream's in-memory test broker), raw fields,
    and how many times the group has delivered it (XPENDING's times_delivered)."""

    id: str | None
    fields: Mapping[bytes, bytes]
    deliveries: int = 1

    @property
    def payload(self) -> bytes:
        return self.fields.get(DATA_FIELD, b"")


Validator = Callable[[Mapping[str, Any]], Turn]


def describe_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:8]:
        loc = ".".join(str(p) for p in err["loc"]) or "turn"
        parts.append(f"{loc}: {err['msg']}")
    more = len(exc.errors()) - 8
    if more > 0:
        parts.append(f"... and {more} more")
    return "; ".join(parts)


def decode_entry(entry: StreamEntry, *, max_bytes: int, validate: Validator) -> Turn | Rejection:
    if DATA_FIELD not in entry.fields:
        names = ", ".join(sorted(k.decode("utf-8", "replace") for k in entry.fields)) or "none"
        return Rejection("envelope", f"entry has no __data__ field (fields: {names})")
    raw = entry.payload
    if len(raw) > max_bytes:
        return Rejection("size", f"payload is {len(raw)} bytes; the limit is {max_bytes}")
    body, _headers = BinaryMessageFormatV1.parse(raw)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Rejection("encoding", f"payload is not UTF-8: {exc.reason} at byte {exc.start}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return Rejection("json", f"payload is not JSON: {exc.msg} at char {exc.pos}")
    if not isinstance(data, dict):
        return Rejection("json", f"payload is a JSON {type(data).__name__}, not an object")
    version = data.get("schema_version", TURN_SCHEMA_VERSION)
    if version != TURN_SCHEMA_VERSION or isinstance(version, bool):
        return Rejection(
            "schema-version",
            f"unknown schema_version {version!r}; this worker reads {TURN_SCHEMA_VERSION}",
        )
    try:
        return validate(data)
    except ValidationError as exc:
        return Rejection("schema", describe_validation_error(exc))
