"""Write-time GC end to end: flags with records, ``explain`` like a read-time drop, exclusion
before top-k (and not for ``as_of`` or plain RAG), restatements, ``gc rebuild`` through the
CLI, two concurrent workers on the real Redis server with one shared index, and the HTTP route.

The hashing embedder (a test double) stands in for MiniLM: which chunks are flagged depends only
on the ledger."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import numpy as np
import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from gcmem.cli import app as cli_app
from gcmem.filters.writegc import all_closed, flag_record, ledger_chunks
from gcmem.memory import Memory
from gcmem.models import Chunk, Fact, Turn, chunk_id
from gcmem.pipeline.app import Roles, create_app
from gcmem.settings import Settings
from gcmem.storage.mtm import open_index
from gcmem.storage.mtm.index import (
    FLAG_RECORD,
    SUPERSEDED_FLAG,
    FlagIndex,
    Hit,
    MediumTermIndex,
)
from tests.doubles import HashingEmbedder
from tests.pipeline_support import (
    drained,
    free_port,
    hashing_memory,
    ingest_concurrently,
    serving_http,
    wait_until,
)

T0 = datetime(2026, 2, 2, 9, 0, tzinfo=UTC)
NS = "proj"
QUESTION = "Which port does the payments service run on?"


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def turn(tid: str, text: str, when: float, ns: str = NS, **extra: object) -> Turn:
    return Turn(id=tid, namespace=ns, text=text, ts=day(when), **extra)  # type: ignore[arg-type]


TIMELINE = [
    turn("t1", "The payments service runs on port 8000.", 0),
    turn("t2", "The payments service runs on port 8080.", 3),
    turn("t3", "The project is licensed under Apache-2.0.", 1),
]


def cid(tid: str, ns: str = NS) -> str:
    return chunk_id(ns, tid, 0)


@pytest.fixture
def memory(redis_settings: Settings, hashing_embedder: HashingEmbedder) -> Iterator[Memory]:
    s = redis_settings.replace(filters=["supersession"], stm_size=0)
    with Memory(s, embedder=hashing_embedder) as m:
        yield m


def flags(memory: Memory, ns: str = NS) -> dict[str, dict[str, object]]:
    index = memory.index
    assert isinstance(index, FlagIndex)
    return index.flag_records(ns, [c for _, c in index.flagged(ns)])


def test_exclusion_is_on_by_default() -> None:
    assert Settings().supersession.exclude is True


def test_flag_records_who_why_when_and_explain_matches_the_read_time_drop(
    memory: Memory,
) -> None:
    memory.ingest(TIMELINE)
    assert flags(memory) == {
        cid("t1"): {
            "stage": "supersession",
            "by_chunk": cid("t2"),
            "by_turn": "t2",
            "decided_at": flags(memory)[cid("t1")]["decided_at"],
            "keys": ["payments service / port"],
        }
    }
    decided = datetime.fromisoformat(str(flags(memory)[cid("t1")]["decided_at"]))
    assert abs((decided - datetime.now(UTC)).total_seconds()) < 120  # the ledger's clock

    # the read-time drop of the same chunk, from the unexcluded candidate set
    cands = memory.candidates(QUESTION, namespace=NS, k=10, exclude_flagged=False)
    [drop] = memory.filter(cands).dropped
    explained = memory.explain(cid("t1"), namespace=NS)
    assert explained is not None
    same = ("stage", "reason", "dominated_by", "dominated_by_turn_id", "score")
    assert {f: getattr(explained, f) for f in same} == {f: getattr(drop, f) for f in same}
    assert explained.details["assertions"] == drop.details["assertions"]
    assert explained.dropped_chunk == drop.dropped_chunk
    assert explained.details["write_time"] == {
        "flagged": True,
        "record": flags(memory)[cid("t1")],
    }
    # the current value and a static fact are not superseded; an unknown id is an error
    assert memory.explain(cid("t2"), namespace=NS) is None
    assert memory.explain(cid("t3"), namespace=NS) is None
    with pytest.raises(KeyError):
        memory.explain(cid("t1", "other"), namespace="other")

    # queries about the present: the flagged chunk never competed for top-k
    present = memory.retrieve(QUESTION, namespace=NS, k=10)
    assert {c.chunk.turn_id for c in present.kept} == {"t2", "t3"}
    assert present.dropped == [] and present.excluded_at_write == 1


def test_as_of_and_plain_rag_ignore_flags(memory: Memory) -> None:
    memory.ingest(TIMELINE)
    before = memory.retrieve(QUESTION, namespace=NS, k=10, as_of=day(2))
    assert {c.chunk.turn_id for c in before.kept} == {"t1", "t2", "t3"}
    assert before.excluded_at_write == 0 and before.dropped == []
    after = memory.retrieve(QUESTION, namespace=NS, k=10, as_of=day(3))
    assert [d.chunk.chunk.turn_id for d in after.dropped] == ["t1"]  # read-time, not excluded
    rag = memory.retrieve(QUESTION, namespace=NS, k=10, filters=[])
    assert {c.chunk.turn_id for c in rag.kept} == {"t1", "t2", "t3"}
    assert rag.excluded_at_write == 0


def test_a_change_after_100_restatements_flags_all_100(memory: Memory) -> None:
    restated = [
        turn(f"r{i:03d}", "The payments service runs on port 8000.", i / 10) for i in range(100)
    ]
    for start in range(0, 100, 25):
        memory.ingest(restated[start : start + 25])
    assert flags(memory) == {}
    memory.ingest([turn("change", "The payments service runs on port 8080.", 20)])
    flagged = flags(memory)
    assert set(flagged) == {cid(t.id) for t in restated}
    assert {r["by_turn"] for r in flagged.values()} == {"change"}
    index = memory.index
    assert isinstance(index, FlagIndex) and index.count_flagged(NS) == 100
    present = memory.retrieve(QUESTION, namespace=NS, k=10)
    assert [c.chunk.turn_id for c in present.kept] == ["change"]
    assert present.excluded_at_write == 100
    # nothing is deleted
    assert memory.index.count(NS) == 101


def test_gc_rebuild_and_why_through_the_cli(
    real_redis_settings: Settings,
    hashing_embedder: HashingEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = real_redis_settings.replace(filters=["supersession"], stm_size=0, ephemeral=False)
    chain = [
        turn("a", "The API base path for the project is /api/v1.", 0),
        turn("b", "The API base path for the project is /api/v2.", 1),
        turn("c", "The API base path for the project is /api/v3.", 2),
        turn("x", "The payments service runs on port 8000.", 0, ns="other"),
        turn("y", "The payments service runs on port 9000.", 1, ns="other"),
    ]
    with Memory(s, embedder=hashing_embedder) as memory:
        memory.ingest(chain)
        expected = {ns: flags(memory, ns) for ns in (NS, "other")}
    assert set(expected[NS]) == {cid("a"), cid("b")}
    assert set(expected["other"]) == {cid("x", "other")}

    # damage the derived state: flags lost, and one flag the ledger does not back
    index = open_index(s.storage)
    index.set_payload(NS, [cid("a"), cid("b")], {SUPERSEDED_FLAG: False, FLAG_RECORD: None})
    index.set_payload(NS, [cid("c")], {SUPERSEDED_FLAG: True, FLAG_RECORD: {"stage": "bogus"}})
    index.set_payload("other", [cid("x", "other")], {SUPERSEDED_FLAG: False})
    index.close()

    monkeypatch.setenv("GCMEM_DATA_DIR", str(s.storage.data_dir))
    monkeypatch.setenv("GCMEM_KEY_PREFIX", s.storage.key_prefix)
    monkeypatch.setenv("GCMEM_REDIS_URL", str(s.storage.redis_url))
    runner = CliRunner()
    one = runner.invoke(cli_app, ["gc", "rebuild", "--namespace", NS])
    assert one.exit_code == 0, one.output
    assert json.loads(one.output) == {"namespace": NS, "chunks": 3, "flagged": 2, "cleared": 1}
    everything = runner.invoke(cli_app, ["gc", "rebuild"])
    assert everything.exit_code == 0, everything.output
    reports = [json.loads(line) for line in everything.output.splitlines()]
    assert reports == [
        {"namespace": "other", "chunks": 2, "flagged": 1, "cleared": 0},
        {"namespace": NS, "chunks": 3, "flagged": 2, "cleared": 0},
    ]

    index = open_index(s.storage)
    assert isinstance(index, FlagIndex)
    for ns in (NS, "other"):
        rebuilt = index.flag_records(ns, [c for _, c in index.flagged(ns)])
        strip = {c: {k: v for k, v in r.items() if k != "decided_at"} for c, r in rebuilt.items()}
        want = {
            c: {k: v for k, v in r.items() if k != "decided_at"} for c, r in expected[ns].items()
        }
        assert strip == want
    assert index.count(NS) == 3 and index.count("other") == 2  # nothing deleted
    index.close()

    why = runner.invoke(cli_app, ["why", cid("a"), "--namespace", NS, "--json"])
    assert why.exit_code == 0, why.output
    decision = json.loads(why.output)
    assert decision["stage"] == "supersession" and decision["dominated_by_turn_id"] == "b"
    assert decision["details"]["write_time"]["flagged"] is True
    assert decision["details"]["assertions"][0]["valid_at_query"]["object"] == "/api/v3"
    text = runner.invoke(cli_app, ["why", cid("b"), "--namespace", NS])
    assert text.exit_code == 0 and "superseded" in text.output and "flagged" in text.output
    assert runner.invoke(cli_app, ["why", cid("c"), "--namespace", NS]).exit_code == 1


def _worker_turns(ns: str, seed: int) -> list[Turn]:
    """Per key, a history of values at distinct times (restatements and changes), in a random
    arrival order, so writers race on closes, late arrivals and successor moves."""
    rng = random.Random(seed)
    turns = []
    for key in range(4):
        times = rng.sample(range(10_000), 50)
        for n, t in enumerate(times):
            value = str(8000 + rng.randrange(4))
            turns.append(
                Turn(
                    id=f"k{key}-{n:03d}",
                    namespace=ns,
                    text=f"Service {key} runs on port {value}.",
                    ts=T0 + timedelta(minutes=t),
                    facts=[Fact(subject=f"service {key}", relation="port", object=value)],
                )
            )
    rng.shuffle(turns)
    return turns


def _state(memory: Memory, ns: str) -> dict[str, dict[str, object]]:
    """Per turn id of a flagged chunk, its flag record without the decision time."""
    return {
        tid: {k: v for k, v in record.items() if k != "decided_at"}
        for tid, record in _records_by_turn(memory, ns).items()
    }


def _records_by_turn(memory: Memory, ns: str) -> dict[str, dict[str, object]]:
    index = memory.index
    assert isinstance(index, FlagIndex)
    records = index.flag_records(ns, [c for _, c in index.flagged(ns)])
    by_turn = {c.id: c.turn_id for c in _chunks(memory, ns, list(records))}
    out = {}
    for c, r in records.items():
        r = dict(r)
        if r.get("by_chunk"):
            r["by_chunk"] = next(iter(_chunks(memory, ns, [str(r["by_chunk"])]))).turn_id
        out[by_turn[c]] = r
    return out


def _chunks(memory: Memory, ns: str, ids: list[str]) -> list[Chunk]:
    return [h.chunk for h in memory.index.fetch(ns, ids).values()]


def test_two_workers_never_leave_a_dominated_chunk_unflagged_or_a_stale_record(
    real_redis_settings: Settings,
) -> None:
    s = real_redis_settings.replace(filters=["supersession"], stm_size=0)
    shared = open_index(s.storage)
    workers = [Memory(s, embedder=HashingEmbedder(), index=shared) for _ in range(2)]
    assert workers[0].redis is not workers[1].redis
    ns = "race"
    turns = _worker_turns(ns, seed=7)
    ingest_concurrently(workers, turns)

    ledger = workers[0].resources.ledger
    ids = ledger_chunks(ledger, ns)
    assert len(ids) == len(turns)
    status = ledger.chunk_status(ns, ids, None)
    closed = {c for c in ids if all_closed(status[c])}
    index = shared
    assert isinstance(index, FlagIndex)
    records = index.flag_records(ns, ids)
    # dominated <=> flagged, and every record is the one the final ledger gives
    assert set(records) == closed and len(closed) > 100
    assert all(records[c] == flag_record(status[c]) for c in closed)
    for c in closed:
        [a] = status[c]
        assert a.version is not None and a.successor is not None
        assert a.successor.valid_from > a.version.valid_from  # by a newer value, never a loser
        assert a.successor.object != a.version.object

    # and the same history ingested by one worker, in event-time order, ends the same way
    sequential = Memory(s, embedder=HashingEmbedder(), index=shared)
    ordered = sorted(
        (t.model_copy(update={"namespace": "calm"}) for t in turns), key=lambda t: t.ts
    )
    for start in range(0, len(ordered), 16):
        sequential.ingest(ordered[start : start + 16])
    assert _state(workers[0], ns) == _state(sequential, "calm")
    shared.close()


async def test_why_over_http(real_redis_settings: Settings) -> None:
    s = real_redis_settings.replace(
        pipeline_block_ms=50,
        filters=["supersession"],
        http_token=SecretStr("admin-token"),
        http_namespace_tokens={"ns-a": SecretStr("token-a")},
    )
    built = create_app(
        s, roles=Roles(worker=True, query=True, http=True), memory_factory=hashing_memory
    )
    t = built.runtime.topology
    timeline = [
        turn("h1", "The payments service runs on port 8000.", 0, ns="ns-a"),
        turn("h2", "The payments service runs on port 8080.", 1, ns="ns-a"),
    ]
    async with serving_http(built, free_port()) as base, httpx.AsyncClient(base_url=base) as http:
        a = {"Authorization": "Bearer token-a"}
        body = [x.model_dump(mode="json") for x in timeline]
        assert (await http.post("/v1/turns", json=body, headers=a)).status_code == 202
        bus = built.runtime.client
        assert bus is not None
        await wait_until(lambda: drained(bus, t.stream, t.group), timeout=60, what="ingest")
        memory = built.runtime.memory
        assert memory is not None
        old = cid("h1", "ns-a")
        got = await http.get("/v1/why", params={"chunk_id": old, "namespace": "ns-a"}, headers=a)
        assert got.status_code == 200, got.text
        payload = got.json()
        assert payload["superseded"] is True and payload["chunk_id"] == old
        decision = memory.explain(old, namespace="ns-a")
        assert decision is not None
        assert payload["decision"] == decision.model_dump(mode="json")
        assert payload["decision"]["dominated_by_turn_id"] == "h2"

        current = cid("h2", "ns-a")
        now = await http.get(
            "/v1/why", params={"chunk_id": current, "namespace": "ns-a"}, headers=a
        )
        assert now.status_code == 200 and now.json()["superseded"] is False
        missing = await http.get(
            "/v1/why", params={"chunk_id": cid("zz", "ns-a"), "namespace": "ns-a"}, headers=a
        )
        assert missing.status_code == 404
        params = {"chunk_id": old, "namespace": "ns-b"}
        assert (await http.get("/v1/why", params=params, headers=a)).status_code == 403
        assert (await http.get("/v1/why", params={"chunk_id": old})).status_code == 401
        assert (await http.get("/v1/why", headers=a)).status_code == 422


class _InterleavingIndex:
    """The shared index as one worker sees it, with another worker's whole ingest run between
    this worker's ledger read and its first flag write (the race a real pair of workers hits
    only by chance)."""

    def __init__(self, inner: MediumTermIndex, between: Callable[[], None]) -> None:
        self.inner = inner
        self.between: Callable[[], None] | None = between

    def set_payload(self, namespace: str, ids: Sequence[str], payload: Mapping[str, Any]) -> None:
        if self.between is not None and payload.get(SUPERSEDED_FLAG):
            between, self.between = self.between, None
            between()
        self.inner.set_payload(namespace, ids, payload)

    def ensure(self, dim: int) -> None:
        self.inner.ensure(dim)

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        self.inner.upsert(chunks, vectors)

    def search(
        self, namespace: str, queries: np.ndarray, k: int, *, exclude_flagged: bool = False
    ) -> list[list[Hit]]:
        return self.inner.search(namespace, queries, k, exclude_flagged=exclude_flagged)

    def fetch(self, namespace: str, ids: Sequence[str]) -> dict[str, Hit]:
        return self.inner.fetch(namespace, ids)

    def count(self, namespace: str | None = None) -> int:
        return self.inner.count(namespace)

    def flag_records(self, namespace: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        assert isinstance(self.inner, FlagIndex)
        return self.inner.flag_records(namespace, ids)

    def flagged(self, namespace: str | None = None) -> list[tuple[str, str]]:
        assert isinstance(self.inner, FlagIndex)
        return self.inner.flagged(namespace)

    def count_flagged(self, namespace: str) -> int:
        assert isinstance(self.inner, FlagIndex)
        return self.inner.count_flagged(namespace)

    def close(self) -> None:
        self.inner.close()


def test_a_flag_record_written_from_a_stale_read_is_rewritten(
    real_redis_settings: Settings,
) -> None:
    s = real_redis_settings.replace(filters=["supersession"], stm_size=0)
    shared = open_index(s.storage)
    other = Memory(s, embedder=HashingEmbedder(), index=shared)
    late = turn("z", "The payments service runs on port 9000.", 1)
    racing = _InterleavingIndex(shared, lambda: other.ingest([late]))
    worker = Memory(s, embedder=HashingEmbedder(), index=racing)
    worker.ingest([TIMELINE[0]])  # 8000 at day 0
    # 8080 at day 3 closes 8000; between the worker's ledger read (successor: 8080) and its
    # flag write, the other worker records 9000 at day 1, which becomes 8000's successor
    worker.ingest([TIMELINE[1]])
    assert racing.between is None
    assert {t: r["by_chunk"] for t, r in _state(worker, NS).items()} == {"t1": "z", "z": "t2"}
    explained = worker.explain(cid("t1"), namespace=NS)
    assert explained is not None and explained.dominated_by_turn_id == "z"
    assert explained.details["write_time"]["record"]["by_turn"] == "z"
    shared.close()


def test_frame_aligned_flags_are_explained_and_rebuilt(
    redis_settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    """A change no grammar keys (alignment only): flagged with a record, explained, and kept
    by a rebuild, which follows the stage's rule (unit maps included)."""
    s = redis_settings.replace(filters=["supersession"], stm_size=0, supersession_grammar=False)
    with Memory(s, embedder=hashing_embedder) as memory:
        memory.ingest([turn("d1", "The local dev server listens on port 3000.", 0)])
        memory.ingest([turn("d2", "The local dev server listens on port 5173.", 2)])
        [(old, record)] = flags(memory).items()
        assert old == cid("d1") and record["by_turn"] == "d2"
        explained = memory.explain(old, namespace=NS)
        assert explained is not None and explained.dominated_by_turn_id == "d2"
        assert explained.details["write_time"]["flagged"] is True
        assert memory.explain(cid("d2"), namespace=NS) is None
        [report] = memory.rebuild_flags(NS)
        assert (report.flagged, report.cleared) == (1, 0)
        assert set(flags(memory)) == {old}
        present = memory.retrieve("dev server port", namespace=NS, k=10)
        assert [c.chunk.turn_id for c in present.kept] == ["d2"]
        assert present.excluded_at_write == 1
