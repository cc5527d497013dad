"""Fuzzing the edge: hypothesis mixes malformed inputs (the named corpus plus generated
families: random bytes, random JSON, lone surrogates, non-finite numbers, numeric and
garbage timestamps, bad envelope headers, deep nesting, corrupt binary envelopes, unknown
fields) with valid turns (raw, in FastStream's binary envelope, in its JSON envelope) and
sends them to a live worker over the real Redis server, and the same bodies (valid turns
under ids of their own) to the HTTP body reader. Every bad entry is dead-lettered once with a
reason, every bad body is a 4xx, every valid turn is ingested exactly once, and worker and
server stay healthy."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
import pytest
import redis.asyncio
from faststream.redis.parser.binary import BinaryMessageFormatV1
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcmem.pipeline.app import Roles, create_app
from gcmem.pipeline.codec import BINARY_MAGIC
from gcmem.pipeline.ingest import DONE
from gcmem.settings import Settings
from tests.pipeline_support import (
    BASE_TS,
    counted,
    drained,
    free_port,
    hashing_memory,
    malformed_corpus,
    serving_http,
    wait_until,
)

pytestmark = [pytest.mark.redis, pytest.mark.slow]

NS = "ns-fuzz"
IDS = itertools.count()
ANY_BAD = {"envelope", "encoding", "json", "depth", "schema", "schema-version", "size"}


@dataclass(frozen=True)
class Entry:
    fields: dict[bytes, bytes]
    family: str
    kinds: frozenset[str] | None = None  # None = a valid turn
    turn_id: str | None = None

    @property
    def body(self) -> bytes | None:
        """What the HTTP body reader gets: the raw turn JSON (no stream envelope)."""
        return self.fields.get(b"__data__")


def _base_turn(text: str = "A fuzzed statement about service 7.") -> dict[str, Any]:
    i = next(IDS)
    return {
        "id": f"fz-{i:07d}",
        "namespace": NS,
        "text": text,
        "ts": (BASE_TS + timedelta(seconds=i)).isoformat(),
    }


def _bad(family: str, payload: bytes, *kinds: str) -> Entry:
    return Entry({b"__data__": payload}, family, frozenset(kinds))


# --- valid turns ---------------------------------------------------------------------------
valid_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")),
    min_size=1,
    max_size=120,
).filter(lambda s: bool(s.strip()))
metadata = st.dictionaries(
    st.text(alphabet="abcdefgh_", min_size=1, max_size=8),
    st.one_of(
        st.text(max_size=20, alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",))),
        st.integers(-(2**63), 2**63 - 1),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.none(),
    ),
    max_size=5,
)


@st.composite
def valid_entries(draw: st.DrawFn) -> Entry:
    turn = _base_turn(draw(valid_text))
    turn["metadata"] = draw(metadata)
    raw = json.dumps(turn).encode()
    wrapping = draw(st.sampled_from(["raw", "binary", "json-envelope"]))
    if wrapping == "binary":
        raw = asyncio.run(
            BinaryMessageFormatV1.encode(
                message=raw, reply_to=None, headers={"h": "v"}, correlation_id="c"
            )
        )
    elif wrapping == "json-envelope":
        raw = json.dumps({"data": raw.decode(), "headers": {"content-type": "application/json"}})
        raw = raw.encode()
    return Entry({b"__data__": raw}, f"valid-{wrapping}", None, turn["id"])


# --- malformed families ---------------------------------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4),
    max_leaves=10,
)


def _with(turn: dict[str, Any], **changes: Any) -> bytes:
    return json.dumps({**turn, **changes}).encode()


@st.composite
def malformed_entries(draw: st.DrawFn) -> Entry:
    corpus = [c for c in malformed_corpus() if c.kind != "size"]  # 10 MB cases: elsewhere
    family = draw(
        st.sampled_from(
            [
                "corpus",
                "random-bytes",
                "random-json-not-object",
                "surrogate-in-text",
                "non-finite-metadata",
                "numeric-ts",
                "garbage-ts",
                "envelope-headers",
                "deep-nesting",
                "binary-garbage",
                "unknown-field",
            ]
        )
    )
    turn = _base_turn()
    if family == "corpus":
        case = draw(st.sampled_from(corpus))
        return Entry(case.fields, f"corpus:{case.name}", frozenset({case.kind}))
    if family == "random-bytes":
        return _bad(family, b"\xff" + draw(st.binary(max_size=200)), "encoding")
    if family == "random-json-not-object":
        value = draw(json_values)
        return _bad(family, json.dumps(value).encode(), "json", "depth", "encoding")
    if family == "surrogate-in-text":
        surrogate = chr(draw(st.integers(0xD800, 0xDFFF)))
        text = draw(valid_text)
        cut = draw(st.integers(0, len(text)))
        return _bad(family, _with(turn, text=text[:cut] + surrogate + text[cut:]), "encoding")
    if family == "non-finite-metadata":
        value = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
        return _bad(family, _with(turn, metadata={"x": value}), "json")
    if family == "numeric-ts":
        ts = draw(st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False)))
        return _bad(family, _with(turn, ts=ts), "schema")
    if family == "garbage-ts":
        return _bad(family, _with(turn, ts=draw(st.text(alphabet="abxyz :", min_size=1))), "schema")
    if family == "envelope-headers":
        headers = draw(st.one_of(st.lists(st.integers(), max_size=3), st.integers(), st.text()))
        body = json.dumps({"data": json.dumps(turn), "headers": headers}).encode()
        return _bad(family, body, "envelope")
    if family == "deep-nesting":
        levels = draw(st.integers(33, 200_000))
        nested = "[" * levels + "]" * levels
        return _bad(
            family, json.dumps(turn)[:-1].encode() + b', "x": ' + nested.encode() + b"}", "depth"
        )
    if family == "binary-garbage":
        return _bad(family, BINARY_MAGIC + draw(st.binary(max_size=64)), *ANY_BAD)
    field = draw(st.text(alphabet="qrstuvw", min_size=1, max_size=10))
    return _bad(family, _with(turn, **{f"z{field}": 1}), "schema")


batches = st.lists(st.one_of(valid_entries(), malformed_entries()), min_size=4, max_size=16)


@pytest.fixture
async def live(real_redis_settings: Settings) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    s = real_redis_settings.replace(pipeline_block_ms=20, pipeline_batch_size=8)
    built = create_app(
        s, roles=Roles(worker=True, query=True, http=True), memory_factory=hashing_memory
    )
    async with serving_http(built, free_port()) as base, httpx.AsyncClient(base_url=base) as http:
        yield built, http


def test_corpus_and_families_cover_thirty_kinds() -> None:
    assert len([c for c in malformed_corpus() if c.kind != "size"]) + 10 >= 30


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_fuzzed_entries_and_bodies_never_stop_the_pipeline(
    live: tuple[Any, httpx.AsyncClient],
) -> None:
    built, http = live
    t = built.runtime.topology
    processor, _ = built.runtime.require()
    client = redis.asyncio.Redis.from_url(str(built.runtime.settings.storage.redis_url))
    published: dict[str, Entry] = {}
    valid_ids: set[str] = set()
    http_statuses: dict[str, set[int]] = {}
    loop = asyncio.get_running_loop()

    async def one_batch(entries: list[Entry]) -> None:
        for entry in entries:
            entry_id = await client.xadd(t.stream, entry.fields)  # type: ignore[arg-type]
            published[entry_id.decode()] = entry
            if entry.kinds is None and entry.turn_id is not None:
                valid_ids.add(entry.turn_id)
            body = entry.body
            if body is not None and entry.kinds is not None:
                r = await http.post("/v1/turns", content=body)
                http_statuses.setdefault(entry.family, set()).add(r.status_code)
                assert r.status_code in (400, 413, 422), (entry.family, r.status_code, r.text)
            elif entry.kinds is None:
                # A valid turn over HTTP too (its own id): published, then ingested once.
                fresh = _base_turn(f"Posted over HTTP next to {entry.family}.")
                r = await http.post("/v1/turns", json=fresh)
                assert r.status_code == 202, r.text
                valid_ids.add(fresh["id"])
        await wait_until(
            lambda: drained(client, t.stream, t.group), timeout=30, what="drained", every=0.02
        )

    @settings(
        max_examples=40,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )
    @given(batches)
    def run(entries: list[Entry]) -> None:
        asyncio.run_coroutine_threadsafe(one_batch(entries), loop).result(timeout=60)

    try:
        await asyncio.to_thread(run)
        letters = {x.source_id: x for x in await processor.dlq.read(count=10_000)}
        digests = await client.hgetall(t.keys.turn_digests(NS))
        await wait_until(
            lambda: counted(processor.metrics, processed=len(valid_ids)),
            timeout=10,
            what="the counts",
        )
        snap = await processor.metrics.snapshot()
        health = await http.get("/healthz")
        ready = await http.get("/readyz")
        # The server still answers queries after all of it.
        answer = await http.post("/v1/query", json={"query": "service 7", "namespace": NS})
    finally:
        await client.aclose()
    bad = {i: e for i, e in published.items() if e.kinds is not None}
    assert bad and valid_ids, "the run mixed both"
    assert set(letters) == set(bad), "exactly the bad entries are dead-lettered, once each"
    for source_id, entry in bad.items():
        letter = letters[source_id]
        assert entry.kinds is not None and letter.kind in entry.kinds, (entry.family, letter)
        assert letter.reason.strip() and letter.attempts == 1
    assert {d.decode() for d in digests} == valid_ids
    assert all(v.endswith(DONE.encode()) for v in digests.values())
    assert snap["processed"] == len(valid_ids) and snap.get("duplicates", 0) == 0
    assert snap.get("failed", 0) == 0
    assert health.status_code == 200 and ready.status_code == 200, (health.text, ready.text)
    assert answer.status_code == 200
    assert {s for v in http_statuses.values() for s in v} <= {400, 413, 422}
