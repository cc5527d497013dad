"""The bi-temporal ledger, on the embedded Redis and on the real server (same Lua scripts)."""

from __future__ import annotations

import itertools
import threading
import uuid
from datetime import UTC, datetime, timedelta

import fakeredis
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcmem.facts.extract import chunk_facts
from gcmem.models import Chunk, Fact, content_hash
from gcmem.settings import PolicyRule, Settings
from gcmem.storage.ledger import LedgerRow, SupersessionLedger
from gcmem.storage.ledger.policy import PolicyTable
from gcmem.storage.redis import Keyspace, open_redis

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
NS = "proj"


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


@pytest.fixture
def ledger(redis_settings: Settings) -> SupersessionLedger:
    return SupersessionLedger(
        open_redis(redis_settings.storage), Keyspace(redis_settings.storage.key_prefix)
    )


def put(
    ledger: SupersessionLedger,
    obj: str,
    when: float,
    turn: str,
    *,
    subject: str = "payments service",
    relation: str = "port",
    ns: str = NS,
    chunk: str | None = None,
) -> str:
    fact = Fact(subject=subject, relation=relation, object=obj)
    result = ledger.assert_fact(ns, fact, ts=day(when), turn_id=turn, chunk_id=chunk or f"c-{turn}")
    return result.action


def versions(ledger: SupersessionLedger, ns: str = NS) -> list[tuple[str, float, float | None]]:
    """(object, valid_from day, valid_to day) of every version, in valid-time order."""

    def d(ts: datetime | None) -> float | None:
        return None if ts is None else (ts - T0) / timedelta(days=1)

    return [
        (r.object, d(r.valid_from), d(r.valid_to))  # type: ignore[misc]
        for r in ledger.versions(ns, "payments service", "port")
    ]


def current(ledger: SupersessionLedger, ns: str = NS) -> str | None:
    row = ledger.current(ns, "payments service", "port")
    return row.object if row else None


def test_new_key_opens_a_version(ledger: SupersessionLedger) -> None:
    assert put(ledger, "8000", 0, "t1") == "open"
    row = ledger.current(NS, "The Payments  Service", "PORT")  # normalised lookup
    assert row is not None and row.open
    assert (row.object, row.valid_from, row.valid_to) == ("8000", day(0), None)
    assert (row.chunk_id, row.turn_id, row.provenance) == ("c-t1", "t1", ("t1",))
    assert ledger.stats(NS).open == 1


def test_same_object_reinforces(ledger: SupersessionLedger) -> None:
    put(ledger, "8000", 0, "t1")
    assert put(ledger, "8000", 2, "t2") == "reinforce"
    assert versions(ledger) == [("8000", 0, None)]
    row = ledger.current(NS, "payments service", "port")
    assert row is not None and row.provenance == ("t1", "t2")
    assert ledger.audit(NS, "payments service", "port") == []


def test_different_object_supersedes(ledger: SupersessionLedger) -> None:
    put(ledger, "8000", 0, "t1")
    assert put(ledger, "8080", 3, "t2") == "supersede"
    assert versions(ledger) == [("8000", 0, 3), ("8080", 3, None)]
    old, new = ledger.versions(NS, "payments service", "port")
    assert old.superseded_by == new.fact_id
    assert (old.superseded_by_chunk, old.superseded_by_turn) == ("c-t2", "t2")
    assert current(ledger) == "8080"
    stats = ledger.stats(NS)
    assert (stats.open, stats.versions, stats.assertions) == (1, 2, 2)


def test_loser_recoverable_from_audit_row(ledger: SupersessionLedger) -> None:
    put(ledger, "8000", 0, "t1")
    put(ledger, "8000", 1, "t1b")
    put(ledger, "8080", 3, "t2")
    [audit] = ledger.audit(NS, "payments service", "port")
    assert audit.kind == "audit" and audit.retired_reason == "superseded"
    # the loser as it stood while it was the value: open, with its provenance
    assert (audit.object, audit.valid_from, audit.valid_to) == ("8000", day(0), None)
    assert audit.provenance == ("t1", "t1b") and audit.chunk_id == "c-t1"
    assert (audit.retired_by_chunk, audit.retired_by_turn) == ("c-t2", "t2")
    assert audit.retired_at is not None and audit.retired_at >= audit.recorded_at


def test_chain_collapses_to_last(ledger: SupersessionLedger) -> None:
    for obj, when, turn in (("A", 0, "1"), ("B", 1, "2"), ("C", 2, "3")):
        put(ledger, obj, when, turn)
    assert versions(ledger) == [("A", 0, 1), ("B", 1, 2), ("C", 2, None)]
    a, b, c = ledger.versions(NS, "payments service", "port")
    assert (a.superseded_by, b.superseded_by, c.superseded_by) == (b.fact_id, c.fact_id, None)
    assert len(ledger.audit(NS, "payments service", "port")) == 2


def test_revert_makes_a_current_again(ledger: SupersessionLedger) -> None:
    put(ledger, "A", 0, "1")
    put(ledger, "B", 1, "2")
    assert put(ledger, "A", 2, "3") == "supersede"
    assert versions(ledger) == [("A", 0, 1), ("B", 1, 2), ("A", 2, None)]
    assert current(ledger) == "A"
    first, _, last = ledger.versions(NS, "payments service", "port")
    assert first.fact_id != last.fact_id  # a new version of the same value


@pytest.mark.parametrize(("old", "new"), [("/api/v1", "/API/v1"), ("Status('Good')", "['GOOD']")])
def test_case_or_punctuation_change_supersedes(
    ledger: SupersessionLedger, old: str, new: str
) -> None:
    put(ledger, old, 0, "1")
    assert put(ledger, new, 1, "2") == "supersede"
    assert current(ledger) == new


def test_whitespace_only_change_reinforces(ledger: SupersessionLedger) -> None:
    put(ledger, "Acme  Corp", 0, "1")
    assert put(ledger, "Acme Corp", 1, "2") == "reinforce"


def test_out_of_order_arrival_cannot_let_stale_win(ledger: SupersessionLedger) -> None:
    put(ledger, "8080", 3, "new")
    assert put(ledger, "8000", 0, "old") == "late"  # arrives after, happened before
    assert current(ledger) == "8080"
    assert versions(ledger) == [("8000", 0, 3), ("8080", 3, None)]
    late = [r for r in ledger.audit(NS, "payments service", "port") if r.retired_reason == "late"]
    assert len(late) == 1 and late[0].object == "8000" and late[0].retired_by_turn == "new"
    # the late claim never was the ledger's view at any system time
    assert late[0].recorded_at == late[0].retired_at


def test_late_value_inside_a_run_splits_it(ledger: SupersessionLedger) -> None:
    put(ledger, "A", 0, "1")
    put(ledger, "A", 4, "2")
    assert put(ledger, "B", 2, "3") == "split"
    assert versions(ledger) == [("A", 0, 2), ("B", 2, 4), ("A", 4, None)]
    a1, _, a2 = ledger.versions(NS, "payments service", "port")
    assert a1.provenance == ("1",) and a2.provenance == ("2",)


def test_earlier_statement_of_next_value_moves_its_start(ledger: SupersessionLedger) -> None:
    put(ledger, "A", 0, "1")
    put(ledger, "B", 4, "2")
    assert put(ledger, "B", 2, "3") == "extend"
    assert versions(ledger) == [("A", 0, 2), ("B", 2, None)]


def test_equal_event_times_tie_break_by_ingest_order(ledger: SupersessionLedger) -> None:
    put(ledger, "A", 1, "1")
    assert put(ledger, "B", 1, "2") == "supersede"
    assert current(ledger) == "B"
    assert versions(ledger) == [("A", 1, 1), ("B", 1, None)]  # the loser's interval is empty
    assert ledger.as_of(NS, "payments service", "port", day(1)).object == "B"  # type: ignore[union-attr]


def test_as_of_valid_time_before_and_after(ledger: SupersessionLedger) -> None:
    put(ledger, "8000", 0, "1")
    put(ledger, "8080", 3, "2")

    def at(n: float) -> str | None:
        row = ledger.as_of(NS, "payments service", "port", day(n))
        return row.object if row else None

    assert (at(-1), at(0), at(2.9), at(3), at(10)) == (None, "8000", "8000", "8080", "8080")


def test_as_of_system_time(ledger: SupersessionLedger) -> None:
    put(ledger, "8000", 0, "1")
    first = ledger.current(NS, "payments service", "port")
    assert first is not None
    put(ledger, "8080", 3, "2")
    second = ledger.current(NS, "payments service", "port")
    assert second is not None and second.recorded_at > first.recorded_at
    # what the ledger said about day 5 before and after it learnt of the change
    before = ledger.as_of(NS, "payments service", "port", day(5), system_time=first.recorded_at)
    after = ledger.as_of(NS, "payments service", "port", day(5), system_time=second.recorded_at)
    assert before is not None and before.object == "8000" and before.kind == "audit"
    assert after is not None and after.object == "8080"
    earliest = first.recorded_at - timedelta(microseconds=1)
    assert ledger.as_of(NS, "payments service", "port", day(5), system_time=earliest) is None


def test_nothing_is_ever_deleted(ledger: SupersessionLedger) -> None:
    for i, (obj, when) in enumerate([("A", 0), ("B", 1), ("A", 2), ("C", 0.5), ("B", 1.5)]):
        put(ledger, obj, when, str(i))
    rows = ledger.rows(NS, "payments service", "port")
    assert [r.row for r in rows] == list(range(1, len(rows) + 1))  # row numbers have no holes
    stats = ledger.stats(NS)
    assert stats.rows == len(rows) and stats.audit_rows == sum(r.kind == "audit" for r in rows)
    assert stats.assertions == 5


def test_redelivery_is_idempotent(ledger: SupersessionLedger) -> None:
    put(ledger, "8000", 0, "1")
    put(ledger, "8080", 3, "2")
    before = ledger.rows(NS, "payments service", "port")
    assert put(ledger, "8000", 0, "1") == "duplicate"
    assert put(ledger, "8080", 3, "2") == "duplicate"
    # a producer bug that resends a turn id with another value changes nothing either
    assert put(ledger, "9999", 5, "2") == "duplicate"
    assert ledger.rows(NS, "payments service", "port") == before
    assert ledger.stats(NS).duplicates == 3


def test_namespaces_are_isolated(ledger: SupersessionLedger) -> None:
    put(ledger, "8000", 0, "1", ns="tenant-a")
    put(ledger, "9000", 1, "1", ns="tenant-b")  # same turn id, other namespace: not a duplicate
    assert current(ledger, "tenant-a") == "8000"
    assert current(ledger, "tenant-b") == "9000"
    assert ledger.audit("tenant-a", "payments service", "port") == []
    assert ledger.keys_of("tenant-c") == []


def test_record_batches_with_chunk_status(ledger: SupersessionLedger) -> None:
    def chunk(turn: str, text: str, when: float) -> Chunk:
        return Chunk(
            id=f"chunk-{turn}",
            namespace=NS,
            turn_id=turn,
            index=0,
            text=text,
            ts=day(when),
            content_hash=content_hash(text),
        )

    batch = [
        chunk("1", "The payments service runs on port 8000. The project uses Python 3.11.", 0),
        chunk("2", "The payments service runs on port 8080.", 3),
        chunk("3", "Hello, nothing to record here.", 4),
    ]
    report = ledger.record(batch, chunk_facts)
    assert sorted(r.action for r in report.results) == ["open", "open", "supersede"]
    assert report.chunks_without_facts == 1
    assert report.closed_chunks[NS] == {"chunk-1"}
    status = ledger.chunk_status(NS, ["chunk-1", "chunk-2", "chunk-3"], day(10))
    assert status["chunk-3"] == []
    by_key = {a.version.relation: a for a in status["chunk-1"] if a.version}
    assert by_key["port"].superseded_at(day(10)) and not by_key["uses python"].superseded_at(None)
    assert by_key["port"].successor is not None and by_key["port"].successor.chunk_id == "chunk-2"
    assert not by_key["port"].superseded_at(day(1))
    assert [a.superseded_at(day(10)) for a in status["chunk-2"]] == [False]


def test_chunk_status_names_the_version_each_one_replaced(ledger: SupersessionLedger) -> None:
    """``previous=True``: a version carries the one it closed in valid time (a value stated
    out of order, between two others, closes the earlier and is closed by the later); the
    first version and an accumulating key's values carry none."""
    put(ledger, "8000", 0, "t1")
    put(ledger, "8080", 3, "t2")
    put(ledger, "9090", 6, "t3")
    assert put(ledger, "7000", 1, "t0") == "late"  # held from day 1 until 8080, recorded last
    rule = PolicyRule.model_validate({"relation": "speaks", "policy": "accumulate"})
    many = SupersessionLedger(ledger.client, ledger.keys, policies=PolicyTable(rules=(rule,)))
    for obj, when, turn in (("Python", 0, "t4"), ("Go", 2, "t5")):
        many.assert_fact(
            NS,
            Fact(subject="payments team", relation="speaks", object=obj),
            ts=day(when),
            turn_id=turn,
            chunk_id=f"c-{turn}",
        )
    ids = ["c-t1", "c-t2", "c-t3", "c-t0", "c-t5"]
    status = ledger.chunk_status(NS, ids, None, previous=True)
    before = {
        cid: [a.predecessor.object if a.predecessor else None for a in found]
        for cid, found in status.items()
    }
    assert before == {
        "c-t1": [None],
        "c-t2": ["7000"],
        "c-t3": ["8080"],
        "c-t0": ["8000"],
        "c-t5": [None],
    }
    third = status["c-t3"][0]
    assert third.predecessor is not None and third.predecessor.superseded_by_chunk == "c-t3"
    # the other modes read no predecessor
    assert all(a.predecessor is None for f in ledger.chunk_status(NS, ids).values() for a in f)


def test_sixteen_concurrent_writers_one_key(redis_settings: Settings) -> None:
    """16 workers, their own connections, one (subject, relation), 16 different objects, all
    released at once: exactly one open version, every loser in an audit row."""
    keys = Keyspace(redis_settings.storage.key_prefix)
    barrier = threading.Barrier(16)
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            client = open_redis(redis_settings.storage)
            if isinstance(client, fakeredis.FakeRedis):
                client = open_redis(redis_settings.storage)  # its own client on the shared server
            ledger = SupersessionLedger(client, keys)
            barrier.wait()
            fact = Fact(subject="payments service", relation="port", object=str(8000 + i))
            # half share one event time (ingest order decides), half have their own
            ts = day(1) if i % 2 else day(1) + timedelta(minutes=i)
            ledger.assert_fact(NS, fact, ts=ts, turn_id=f"w{i}", chunk_id=f"c{i}")
        except BaseException as exc:  # re-raised in the test thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    ledger = SupersessionLedger(open_redis(redis_settings.storage), keys)
    rows = ledger.versions(NS, "payments service", "port")
    assert len(rows) == 16
    assert sum(r.open for r in rows) == 1
    winner = next(r for r in rows if r.open)
    assert winner.object == "8014"  # the latest event time (minute 14) wins
    losers = {r.object for r in rows if not r.open}
    audited = {r.object for r in ledger.audit(NS, "payments service", "port")}
    assert losers == {str(8000 + i) for i in range(16)} - {"8014"}
    assert losers <= audited
    assert ledger.stats(NS).open == 1


def _state(rows: list[LedgerRow]) -> list[tuple[str, datetime, datetime | None, tuple[str, ...]]]:
    return [(r.object, r.valid_from, r.valid_to, tuple(sorted(r.provenance))) for r in rows]


@settings(max_examples=40, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.sampled_from(["A", "B", "C"]), st.integers(0, 10_000)),
        min_size=1,
        max_size=9,
        unique_by=lambda x: x[1],
    ),
    seed=st.randoms(use_true_random=False),
)
def test_any_arrival_order_gives_the_same_ledger(data: list[tuple[str, int]], seed: object) -> None:
    """Distinct event times: the versions are a function of the assertions, not of the order
    they arrived in (embedded server; the scripts are the same on a real one)."""
    server = fakeredis.FakeServer()
    assertions = [(obj, when, f"t{i}") for i, (obj, when) in enumerate(data)]
    shuffled = assertions[:]
    seed.shuffle(shuffled)  # type: ignore[attr-defined]
    results = []
    for order in (sorted(assertions, key=lambda a: a[1]), shuffled):
        ledger = SupersessionLedger(fakeredis.FakeRedis(server=server), Keyspace(uuid.uuid4().hex))
        for obj, when, turn in order:
            put(ledger, obj, when / 100, turn)
        results.append(_state(ledger.versions(NS, "payments service", "port")))
        assert sum(r.open for r in ledger.versions(NS, "payments service", "port")) == 1
    assert results[0] == results[1]
    # versions are maximal runs: neighbours never share an object
    objects = [o for o, *_ in results[0]]
    assert all(a != b for a, b in itertools.pairwise(objects))


def test_keys_share_the_namespace_hash_tag(ledger: SupersessionLedger) -> None:
    """Every ledger key of a namespace carries the namespace's hash tag, so they share one
    cluster slot and the multi-key scripts stay legal on Redis Cluster."""
    put(ledger, "8000", 0, "1")
    names = list(ledger.client.scan_iter(match=f"{ledger.keys.prefix}:*"))
    assert names
    assert {n.split(b"{", 1)[1].split(b"}", 1)[0] for n in names} == {NS.encode()}
