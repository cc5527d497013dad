"""Stream entry -> ``Turn``, or a precise reason why not.

The contract on the bus: a stream entry whose ``__data__`` field holds one ``Turn`` as JSON,
either raw (``XADD stream * __data__ '{...}'``) or wrapped in one of FastStream's envelopes
(the binary one ``broker.publish(turn, stream=...)`` writes, or the older JSON one,
``{"data": "<turn JSON>", "headers": {...}}``). Every check runs per entry, and every
exception an entry can cause becomes a ``Rejection`` here, so one bad entry never takes its
batch down with it.

JSON is read strictly (``strict_json``, shared with the HTTP body reader): RFC 8259 only
(no NaN/Infinity, no numbers that overflow a double), bounded nesting, and strings that are
Unicode text (a ``\\ud800`` escape decodes to a lone surrogate no encoder can write back).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from gcmem.models import TURN_SCHEMA_VERSION, Turn

DATA_FIELD = b"__data__"
# FastStream's binary envelope starts with this (faststream.redis.parser.binary).
BINARY_MAGIC = b"\x89BIN\x0d\x0a\x1a\x0a"
DEFAULT_MAX_DEPTH = 32

RejectionKind = Literal[
    "envelope",  # no __data__ field, or a corrupt FastStream envelope
    "size",  # payload over the configured maximum
    "encoding",  # not UTF-8, or a string holding a lone surrogate
    "json",  # not strict JSON (NaN, Infinity, overflowing numbers), or not a JSON object
    "depth",  # nested deeper than the configured maximum
    "schema-version",  # a Turn schema this worker does not know
    "schema",  # fields missing, wrong types, bad values (text, timestamp, namespace, ...)
    "conflict",  # turn id already ingested with different content
    "processing",  # ingest kept failing for max_attempts deliveries
    "internal",  # an unexpected error while reading this entry (the reason names it)
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
        value = self.fields.get(DATA_FIELD, b"")
        return value if isinstance(value, bytes) else str(value).encode("utf-8", "replace")


Validator = Callable[[Mapping[str, Any]], Turn]


class JsonRejected(ValueError):
    """A body that is not strict JSON; ``kind`` is the rejection kind."""

    def __init__(self, kind: RejectionKind, reason: str) -> None:
        super().__init__(reason)
        self.kind: RejectionKind = kind
        self.reason = reason


def describe_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:8]:
        loc = ".".join(str(p) for p in err["loc"]) or "turn"
        parts.append(f"{loc}: {printable(str(err['msg']))}")
    more = len(exc.errors()) - 8
    if more > 0:
        parts.append(f"... and {more} more")
    return "; ".join(parts)


def printable(text: str, limit: int = 2000) -> str:
    """``text`` safe to serialise anywhere: lone surrogates escaped, bounded length."""
    return text[:limit].encode("utf-8", "backslashreplace").decode("utf-8")


def _refuse_constant(name: str) -> Any:
    raise JsonRejected("json", f"{name} is not JSON: non-finite numbers are refused")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonRejected("json", f"number {text[:40]} overflows a double (non-finite)")
    return value


def strict_json(raw: bytes | str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """Parse RFC 8259 JSON with bounded nesting and Unicode-only strings, or raise
    ``JsonRejected`` with the kind and a precise reason. Never raises anything else."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes | bytearray) else raw
    except UnicodeDecodeError as exc:
        raise JsonRejected(
            "encoding", f"payload is not UTF-8: {exc.reason} at byte {exc.start}"
        ) from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except JsonRejected:
        raise
    except json.JSONDecodeError as exc:
        raise JsonRejected("json", f"payload is not JSON: {exc.msg} at char {exc.pos}") from None
    except RecursionError:
        raise JsonRejected(
            "depth", f"payload nests deeper than the parser allows (limit {max_depth})"
        ) from None
    except ValueError as exc:  # e.g. an integer over Python's 4300-digit conversion limit
        reason = f"payload is not usable JSON: {printable(str(exc), 200)}"
        raise JsonRejected("json", reason) from None
    except Exception as exc:  # belt and braces: nothing a body holds may escape as a crash
        raise JsonRejected("json", f"payload is not JSON: {type(exc).__name__}") from None
    _check_tree(data, max_depth)
    return data


def _check_tree(data: Any, max_depth: int) -> None:
    """Depth and lone surrogates, iteratively (no recursion on hostile input)."""
    stack: list[tuple[Any, int, str]] = [(data, 1, "$")]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, str):
            _check_text(node, path)
            continue
        if not isinstance(node, dict | list):
            continue
        if depth > max_depth:
            raise JsonRejected(
                "depth", f"payload nests deeper than {max_depth} levels (at {path[:200]})"
            )
        if isinstance(node, dict):
            for key, value in node.items():
                _check_text(key, f"{path} key")
                stack.append((value, depth + 1, f"{path}.{printable(key, 64)}"))
        else:
            for i, value in enumerate(node):
                stack.append((value, depth + 1, f"{path}[{i}]"))


def _check_text(text: str, path: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = ord(text[exc.start])
        raise JsonRejected(
            "encoding",
            f"string at {path[:200]} holds a lone surrogate U+{bad:04X} (not Unicode text)",
        ) from None


def parse_envelope(raw: bytes) -> tuple[bytes | str, dict[str, str]]:
    """The body and headers of a payload: FastStream's binary envelope, its JSON envelope,
    or a raw body (no headers). Raises ``JsonRejected`` for a corrupt envelope."""
    if raw.startswith(BINARY_MAGIC):
        return _binary_envelope(raw)
    stripped = raw.lstrip()
    if not stripped.startswith(b"{") or b'"data"' not in raw:
        return raw, {}
    try:
        outer = strict_json(raw)
    except JsonRejected:
        return raw, {}  # the body itself is reported by the caller's parse
    if not (isinstance(outer, dict) and "data" in outer and set(outer) <= {"data", "headers"}):
        return raw, {}
    body, headers = outer["data"], outer.get("headers", {})
    if not isinstance(body, str):
        raise JsonRejected(
            "envelope", f"envelope data must be a JSON string, got {_json_type(body)}"
        )
    if not isinstance(headers, dict):
        raise JsonRejected(
            "envelope", f"envelope headers must be a JSON object, got {_json_type(headers)}"
        )
    return body, {str(k): str(v) for k, v in headers.items()}


def _binary_envelope(raw: bytes) -> tuple[bytes, dict[str, str]]:
    try:
        offset = len(BINARY_MAGIC)
        (version,) = struct.unpack_from(">H", raw, offset)
        if version != 1:
            raise JsonRejected("envelope", f"FastStream binary envelope version {version}")
        headers_start, data_start = struct.unpack_from(">II", raw, offset + 2)
        if not headers_start <= data_start <= len(raw):
            raise ValueError("offsets out of range")
        (count,) = struct.unpack_from(">H", raw, headers_start)
        pos = headers_start + 2
        headers: dict[str, str] = {}
        for _ in range(count):
            parts = []
            for _ in range(2):
                (length,) = struct.unpack_from(">H", raw, pos)
                end = pos + 2 + length
                if end > data_start:
                    raise ValueError("header runs into the body")
                parts.append(raw[pos + 2 : end].decode("utf-8"))
                pos = end
            headers[parts[0]] = parts[1]
        return raw[data_start:], headers
    except JsonRejected:
        raise
    except Exception as exc:
        raise JsonRejected(
            "envelope", f"corrupt FastStream binary envelope: {type(exc).__name__}: {exc}"
        ) from None


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def decode_entry(
    entry: StreamEntry,
    *,
    max_bytes: int,
    validate: Validator,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Turn | Rejection:
    """Never raises: an unexpected error becomes an ``internal`` rejection naming it."""
    try:
        return _decode(entry, max_bytes, validate, max_depth)
    except Exception as exc:
        return Rejection("internal", f"{type(exc).__name__}: {printable(str(exc), 500)}")


def _decode(
    entry: StreamEntry, max_bytes: int, validate: Validator, max_depth: int
) -> Turn | Rejection:
    if DATA_FIELD not in entry.fields:
        names = ", ".join(sorted(_field_name(k) for k in entry.fields)) or "none"
        return Rejection("envelope", f"entry has no __data__ field (fields: {names[:500]})")
    raw = entry.payload
    if len(raw) > max_bytes:
        return Rejection("size", f"payload is {len(raw)} bytes; the limit is {max_bytes}")
    try:
        body, _headers = parse_envelope(raw)
        data = strict_json(body, max_depth=max_depth)
    except JsonRejected as exc:
        return Rejection(exc.kind, exc.reason)
    if not isinstance(data, dict):
        return Rejection("json", f"payload is a JSON {_json_type(data)}, not an object")
    version = data.get("schema_version", TURN_SCHEMA_VERSION)
    if version != TURN_SCHEMA_VERSION or isinstance(version, bool):
        return Rejection(
            "schema-version",
            f"unknown schema_version {printable(repr(version), 80)}; "
            f"this worker reads {TURN_SCHEMA_VERSION}",
        )
    try:
        return validate(data)
    except ValidationError as exc:
        return Rejection("schema", describe_validation_error(exc))


def _field_name(key: object) -> str:
    return key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)


def correlation_headers(raw: bytes) -> dict[str, str]:
    """Headers of a payload for tracing (correlation id); never raises."""
    try:
        return parse_envelope(raw)[1]
    except Exception:
        return {}
