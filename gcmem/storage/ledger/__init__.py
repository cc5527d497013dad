"""The bi-temporal supersession ledger, in Redis (the embedded server runs the same scripts).

Per namespace and per normalised (subject, relation) key, the ledger keeps

- **assertions**: every (object, event time, turn id, chunk id) ever stated for the key, in
  (event time, ingest sequence) order. An assertion is identified by its (turn id, chunk id), so
  a redelivered turn is recognised and changes nothing.
- **versions** (fact ids): maximal runs of consecutive assertions with the same object. A
  version is valid from its first assertion's event time until the next version's
  (``valid_from`` / ``valid_to``, event time); its ``provenance`` is the multiset of turn ids
  that asserted it (a turn with two chunks asserting it appears twice); ``superseded_by`` names
  the next version, its first chunk and turn.
- **rows**: the system-time history of every version. A row is ``current`` until the version
  changes; then it is retired into the ``audit`` trail (``retired_at``, the reason, and the
  winner) and a new current row is written, ``recorded_at`` the same instant. Nothing is
  deleted. As-of(valid time T, system time S) reads the rows live at S whose validity covers T.

How a conflict on a key resolves is the key's *policy* (``policy.py``; a rule table in the
settings): ``latest`` is the rule below and the default; ``evidence`` (more support wins),
``confirm`` (a contradicting value is held pending until confirmed) and ``accumulate`` (every
value stays current) are decided in the same script call. A value a policy keeps from winning
is a *claim*: a current row with a ``status`` (``outweighed``, ``pending``, ``late``, ...),
never valid in as-of reads. Every resolution, under every policy, also writes a decision row
(``LedgerDecision``: policy, rule, both values with their provenance, the deciding input).

The latest-wins rule, decided inside one atomic Lua script call (so concurrent writers cannot
lose an update or leave two versions open; one call may carry several keys of one namespace,
which all share the namespace's cluster hash tag):

- new key -> open version;
- the same object as the version the assertion lands in (or right after) -> reinforce: the
  provenance grows, no new version;
- a different object with a newer event time -> the open version is closed (``valid_to`` = the
  new ``valid_from``, ``superseded_by``) and the new one opened; the loser's open row becomes
  an audit row;
- an assertion older than a newer version already recorded (out-of-order delivery) is
  recorded already closed, superseded by that newer version, so a stale value never wins; it
  also gets an audit row (reason ``late``) naming what it lost to. Landing inside an older
  run it splits that run; stating a newer version's value earlier moves its start earlier.
- **equal event times**: the assertion the ledger records later (ingest order: its per-key
  sequence number, assigned inside the script) wins; within one batch that is batch order.
  The loser is kept with an empty validity interval [t, t).

System time is the Redis server clock (``TIME``), made strictly increasing per key, so all
workers share one clock. Versions are a pure function of the set of assertions and, for equal
event times, of ingest order: any arrival order of distinct-time assertions yields the same
versions. Reinforcement grows the current row's provenance in place (it changes no validity,
so it is not a new system-time state).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from importlib.resources import files
from typing import Any, Literal, cast

from gcmem.models import Chunk, Fact
from gcmem.normalize import fact_key, normalize_key, normalize_object
from gcmem.storage.ledger.policy import PolicyTable, Resolution
from gcmem.storage.redis import Keyspace, RedisClient, is_cluster

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Assertions per script call: each call is atomic, and a long script blocks the server.
MAX_ASSERTIONS_PER_CALL = 256


def _script(name: str) -> str:
    """A Lua script shipped beside this module (package data)."""
    return files(__name__).joinpath(name).read_text(encoding="utf-8")


Action = Literal[
    "open",
    "reinforce",
    "supersede",
    "late",
    "split",
    "extend",
    "duplicate",
    # resolution policies (``policy.py``): evidence, confirm
    "outweighed",
    "pending",
    "promote",
]

# One call records the assertions of one or more keys of one namespace; the call is atomic,
# so every key's decision is too. Each assertion carries the policy it resolves under.
# KEYS and ARGV: see write.lua. Data hash fields: a:<aid> assertion JSON, f:<aid> its
# version's fact id, r:<n> row JSON, c:<fact> a copy of the fact's current row (one read on
# the query path), d:<n> decision (audit) rows, counters seq / rows / facts / sys /
# decisions, open (the open fact), pending (the held fact, confirm), tally (evidence),
# o:<object> (accumulate: the value's fact), cl:<object> (evidence: the value's claim).
_COMMON = _script("common.lua")
_WRITE = _COMMON + _script("write.lua")
_CONFIRM = _COMMON + _script("confirm.lua")

# KEYS: 1 key index hash, then (versions zset, data hash) per key id.
# ARGV: 1 valid time (integer microseconds, or "inf"), 2 "full", "previous" or "brief", then
#       per assertion: the key's pair number (1-based), the key id, the assertion id.
# Per assertion: the current row of its version; "full" adds, for versions superseded by the
# valid time, the key's [subject, relation], the row of the superseding version and the row
# of the version valid at the time; "previous" adds to "full" the row of the version this
# one superseded.
_STATUS = _script("status.lua")


def to_micros(ts: datetime) -> int:
    """Integer microseconds since the epoch (exact; a double holds it to the year 2255)."""
    if ts.tzinfo is None:
        raise ValueError("ledger times must be timezone-aware")
    return (ts - EPOCH) // timedelta(microseconds=1)


def from_micros(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=us)


def key_id(subject: str, relation: str) -> str:
    """Stable id of a normalised (subject, relation) key: it names the key's Redis keys."""
    return hashlib.sha256(fact_key(subject, relation).encode("utf-8")).hexdigest()[:20]


def assertion_id(turn_id: str, chunk_id: str) -> str:
    """An assertion is identified by where it was stated: redelivery finds the same id."""
    return hashlib.sha256(f"{turn_id}\x1f{chunk_id}".encode()).hexdigest()[:24]


@dataclass(frozen=True)
class LedgerRow:
    """One row of the ledger: a version of a fact as the ledger held it over a system-time
    interval. ``kind="current"`` rows are the present state (one per version); ``audit`` rows
    are earlier states and lost claims, with why and to what they were retired."""

    row: int
    fact_id: str
    kind: Literal["current", "audit"]
    subject: str
    relation: str
    object: str
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    retired_at: datetime | None
    superseded_by: str | None
    superseded_by_chunk: str | None
    superseded_by_turn: str | None
    chunk_id: str
    turn_id: str
    provenance: tuple[str, ...]
    retired_reason: str | None = None
    retired_by: str | None = None
    retired_by_chunk: str | None = None
    retired_by_turn: str | None = None
    # The source of each provenance entry ("" = unknown), aligned with ``provenance``.
    sources: tuple[str, ...] = ()
    # None: a version. Otherwise a value the policy has not (or not yet) let win:
    # "pending" (confirm: held, its deadline ``pending_until``), "outweighed" (evidence),
    # "late" (older than what it contradicts), "expired", "displaced", "rejected".
    status: str | None = None
    pending_until: datetime | None = None

    @property
    def open(self) -> bool:
        """Current and still valid: the key's present value (a pending value is not)."""
        return self.kind == "current" and self.valid_to is None and self.status is None

    @property
    def pending(self) -> bool:
        return self.kind == "current" and self.status == "pending"

    def pending_at(self, now: datetime) -> bool:
        """Held and not past its deadline at ``now``."""
        return self.pending and (self.pending_until is None or now < self.pending_until)

    def valid_at(self, ts: datetime) -> bool:
        if self.status is not None:
            return False  # a held or losing claim was never the key's value
        return self.valid_from <= ts and (self.valid_to is None or ts < self.valid_to)

    def live_at(self, system_time: datetime) -> bool:
        return self.recorded_at <= system_time and (
            self.retired_at is None or system_time < self.retired_at
        )

    def superseded_at(self, ts: datetime) -> bool:
        return self.valid_to is not None and self.valid_to <= ts

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            out[name] = value.isoformat() if isinstance(value, datetime) else value
        out["provenance"] = list(self.provenance)
        out["sources"] = list(self.sources)
        return out

    @classmethod
    def parse(cls, raw: str | bytes, subject: str, relation: str) -> LedgerRow:
        d = json.loads(raw)

        def opt(name: str) -> str | None:
            value = d.get(name, "")
            return str(value) if value not in ("", None) else None

        def when(name: str) -> datetime | None:
            value = opt(name)
            return from_micros(int(value)) if value is not None else None

        prov = d.get("prov") or []
        srcs = d.get("srcs") or []
        return cls(
            row=int(d["row"]),
            fact_id=str(d["fact"]),
            kind="audit" if d["kind"] == "audit" else "current",
            subject=subject,
            relation=relation,
            object=str(d["object"]),
            valid_from=from_micros(int(d["vf"])),
            valid_to=when("vt"),
            recorded_at=from_micros(int(d["rec"])),
            retired_at=when("ret"),
            superseded_by=opt("sb"),
            superseded_by_chunk=opt("sb_chunk"),
            superseded_by_turn=opt("sb_turn"),
            chunk_id=str(d["chunk"]),
            turn_id=str(d["turn"]),
            # Lua's cjson encodes an empty table as an object; provenance is never empty.
            provenance=tuple(str(t) for t in (prov if isinstance(prov, list) else [])),
            retired_reason=opt("reason"),
            retired_by=opt("by"),
            retired_by_chunk=opt("by_chunk"),
            retired_by_turn=opt("by_turn"),
            sources=tuple(str(x) for x in (srcs if isinstance(srcs, list) else [])),
            status=opt("st"),
            pending_until=when("exp"),
        )


@dataclass(frozen=True)
class DecisionSide:
    """One value in a resolution, with its provenance as the decision saw it."""

    fact_id: str
    object: str
    valid_from: datetime
    chunk_id: str
    turn_id: str
    turns: tuple[str, ...]
    sources: tuple[str, ...]
    status: str | None

    @classmethod
    def parse(cls, d: Any) -> DecisionSide | None:
        if not isinstance(d, dict):
            return None
        turns, srcs = d.get("turns") or [], d.get("sources") or []
        return cls(
            fact_id=str(d["fact"]),
            object=str(d["object"]),
            valid_from=from_micros(int(d["valid_from"])),
            chunk_id=str(d.get("chunk", "")),
            turn_id=str(d.get("turn", "")),
            turns=tuple(str(t) for t in (turns if isinstance(turns, list) else [])),
            sources=tuple(str(x) for x in (srcs if isinstance(srcs, list) else [])),
            status=str(d["status"]) if d.get("status") else None,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "fact_id": self.fact_id,
            "object": self.object,
            "valid_from": self.valid_from.isoformat(),
            "chunk_id": self.chunk_id,
            "turn_id": self.turn_id,
            "turns": list(self.turns),
            "sources": list(self.sources),
            "status": self.status,
        }


@dataclass(frozen=True)
class LedgerDecision:
    """The audit row of one resolution: under which policy and rule, between which two values
    (``winner`` kept or won, ``loser`` lost or is held), with the input that decided it.

    Outcomes: ``superseded`` (the loser was the value until the winner), ``late`` (the loser
    was older than what it contradicted), ``outweighed`` (evidence: less support), ``pending``
    (confirm: the loser is held), ``promoted`` (a held value won; ``input.by`` says how),
    ``expired`` / ``displaced`` / ``rejected`` (a held value lost), ``coexist`` (accumulate:
    both values stay current)."""

    n: int
    decided_at: datetime
    subject: str
    relation: str
    policy: str
    rule: str
    outcome: str
    winner: DecisionSide | None
    loser: DecisionSide | None
    input: dict[str, Any]

    @classmethod
    def parse(cls, raw: str | bytes, subject: str, relation: str) -> LedgerDecision:
        d = json.loads(raw)
        inp = d.get("input")
        return cls(
            n=int(d["n"]),
            decided_at=from_micros(int(d["at"])),
            subject=subject,
            relation=relation,
            policy=str(d["policy"]),
            rule=str(d.get("rule") or ""),
            outcome=str(d["outcome"]),
            winner=DecisionSide.parse(d.get("winner")),
            loser=DecisionSide.parse(d.get("loser")),
            input=_readable_times(inp) if isinstance(inp, dict) else {},
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "decided_at": self.decided_at.isoformat(),
            "subject": self.subject,
            "relation": self.relation,
            "policy": self.policy,
            "rule": self.rule,
            "outcome": self.outcome,
            "winner": self.winner.to_dict() if self.winner else None,
            "loser": self.loser.to_dict() if self.loser else None,
            "input": self.input,
        }


# Fields of a decision's input that the scripts write as integer microseconds.
_TIME_FIELDS = frozenset({"winner_t", "loser_t", "latest", "deadline", "now"})


def _readable_times(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out[k] = _readable_times(v)
        elif k in _TIME_FIELDS and isinstance(v, str | int) and str(v).isdigit():
            out[k] = from_micros(int(v)).isoformat()
        else:
            out[k] = v
    return out


@dataclass(frozen=True)
class PendingConflict:
    """A held value (confirm policy) and the incumbent that reads still return."""

    namespace: str
    subject: str
    relation: str
    pending: LedgerRow
    incumbent: LedgerRow | None


ConfirmOutcome = Literal["promoted", "rejected", "expired", "mismatch", "none"]


@dataclass(frozen=True)
class ConfirmResult:
    outcome: ConfirmOutcome
    fact_id: str | None
    object: str | None
    closed_chunks: tuple[str, ...] = ()


# A confirmation judge sees a held value and its incumbent and answers "confirm", "reject" or
# "hold" (leave it pending). Its answers are logged by key, so a replay decides the same.
Verdict = Literal["confirm", "reject", "hold"]
ConfirmationJudge = Callable[[PendingConflict], Verdict]


@dataclass(frozen=True)
class WriteResult:
    namespace: str
    subject: str
    relation: str
    object: str
    chunk_id: str
    turn_id: str
    action: Action
    fact_id: str


@dataclass
class RecordReport:
    results: list[WriteResult] = field(default_factory=list)
    # namespace -> chunks whose version closed in this write (write-time GC re-checks them)
    closed_chunks: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    # chunks that asserted nothing the ledger could key
    chunks_without_facts: int = 0
    # (chunk, key) pairs dropped because one chunk gave one key two different objects
    conflicting: int = 0

    def count(self, action: Action) -> int:
        return sum(1 for r in self.results if r.action == action)


@dataclass(frozen=True)
class AssertionStatus:
    """One assertion a chunk made, with its version's present state."""

    key_id: str
    assertion_id: str
    version: LedgerRow | None  # None: the ledger has no record of it
    successor: LedgerRow | None  # the version that superseded it
    valid: LedgerRow | None  # the version valid at the asked time
    # the version it replaced (``chunk_status(previous=True)`` only)
    predecessor: LedgerRow | None = None

    def superseded_at(self, ts: datetime | None) -> bool:
        """Superseded as of ``ts`` (``None``: at any time, i.e. closed at all)."""
        if self.version is None or self.version.valid_to is None:
            return False
        return ts is None or self.version.valid_to <= ts


@dataclass(frozen=True)
class LedgerStats:
    keys: int
    assertions: int
    versions: int
    open: int
    rows: int
    audit_rows: int
    duplicates: int


FactReader = Callable[[Chunk], Sequence[Fact]]


def chunk_assertions(chunk: Chunk, facts: FactReader) -> tuple[list[Fact], int]:
    """A chunk's facts, one per normalised key; a key given two different objects by the same
    chunk is dropped (which one is meant is a guess). Returns (facts, dropped keys)."""
    by_key: dict[tuple[str, str], Fact | None] = {}
    for fact in facts(chunk):
        s, r = normalize_key(fact.subject, fact.relation)
        if not s or not r:
            continue
        norm = Fact(subject=s, relation=r, object=normalize_object(fact.object))
        prev = by_key.get((s, r), norm)
        by_key[(s, r)] = norm if prev is not None and prev.object == norm.object else None
    kept = [f for f in by_key.values() if f is not None]
    return kept, len(by_key) - len(kept)


class SupersessionLedger:
    """Writes and reads the ledger. Thread-safe as far as the Redis client is."""

    def __init__(
        self,
        client: RedisClient,
        keys: Keyspace,
        *,
        policies: PolicyTable | None = None,
        source_field: str = "source",
        judge: ConfirmationJudge | None = None,
        judge_id: str = "judge",
    ) -> None:
        self.client = client
        self.keys = keys
        self.policies = policies or PolicyTable()
        self.source_field = source_field
        self.judge = judge
        self.judge_id = judge_id
        self._write = client.register_script(_WRITE)
        self._status = client.register_script(_STATUS)
        self._confirm = client.register_script(_CONFIRM)

    def policy_of(
        self, namespace: str, subject: str, relation: str, source: str | None = None
    ) -> Resolution:
        """The policy an assertion on this key (from this source) resolves under."""
        s, r = normalize_key(subject, relation)
        return self.policies.resolve(namespace, s, r, source)

    def _source(self, stated: Chunk | _Stated) -> str | None:
        if isinstance(stated, _Stated):
            return stated.source
        value = stated.metadata.get(self.source_field)
        return None if value is None or value == "" else str(value)

    # --- writes ----------------------------------------------------------------------------
    def record(self, chunks: Sequence[Chunk], facts: FactReader) -> RecordReport:
        """Record every chunk's assertions. Per namespace, the assertions go in script calls of
        up to ``MAX_ASSERTIONS_PER_CALL`` (each call atomic, a key never split across calls),
        all pipelined in one round trip. Batch order is ingest order (the tie-break for equal
        event times)."""
        report = RecordReport()
        by_namespace: dict[str, dict[str, list[_Item]]] = defaultdict(lambda: defaultdict(list))
        for chunk in chunks:
            kept, dropped = chunk_assertions(chunk, facts)
            report.conflicting += dropped
            if not kept:
                report.chunks_without_facts += 1
            for fact in kept:
                kid = key_id(fact.subject, fact.relation)
                by_namespace[chunk.namespace][kid].append((fact, chunk))
        calls: list[tuple[str, dict[str, list[_Item]]]] = []
        for namespace, groups in by_namespace.items():
            batch: dict[str, list[_Item]] = {}
            size = 0
            for kid, items in groups.items():
                if batch and size + len(items) > MAX_ASSERTIONS_PER_CALL:
                    calls.append((namespace, batch))
                    batch, size = {}, 0
                batch[kid] = items
                size += len(items)
            if batch:
                calls.append((namespace, batch))
        for namespace, items, raw in self._run_writes(calls):
            self._collect(report, namespace, items, raw)
        self._judge_pending(report)
        return report

    def _run_writes(
        self, calls: Sequence[tuple[str, dict[str, list[_Item]]]]
    ) -> list[tuple[str, list[_Item], Any]]:
        """Run write calls; returns (namespace, assertions in argument order, script reply).

        One server: one call runs as one EVALSHA (a pipeline would first send SCRIPT EXISTS,
        a second round trip), several are pipelined in one round trip. A cluster routes each
        call to the shard of its namespace's hash tag; there the calls run one by one, so a
        node that lacks the script (new, restarted, failed over) gets it loaded and the call
        retried, which a pipelined EVALSHA cannot do without re-running the calls that
        succeeded."""
        if not calls:
            return []
        if is_cluster(self.client) or len(calls) == 1:
            out = []
            for namespace, groups in calls:
                keys, args, items = self._write_args(namespace, groups)
                out.append((namespace, items, self._write(keys=keys, args=args)))
            return out
        pipe = self.client.pipeline(transaction=False)
        queued = []
        for namespace, groups in calls:
            keys, args, items = self._write_args(namespace, groups)
            self._write(keys=keys, args=args, client=pipe)
            queued.append((namespace, items))
        return [
            (namespace, items, raw)
            for (namespace, items), raw in zip(queued, pipe.execute(), strict=True)
        ]

    def assert_fact(
        self,
        namespace: str,
        fact: Fact,
        *,
        ts: datetime,
        turn_id: str,
        chunk_id: str,
        source: str | None = None,
    ) -> WriteResult:
        """Record one assertion (the same script as ``record``)."""
        s, r = normalize_key(fact.subject, fact.relation)
        if not s or not r:
            raise ValueError(f"fact {fact!r} has an empty subject or relation after normalising")
        norm = Fact(subject=s, relation=r, object=normalize_object(fact.object))
        item: _Item = (norm, _Stated(namespace, turn_id, chunk_id, ts, source))
        keys, args, items = self._write_args(namespace, {key_id(s, r): [item]})
        report = RecordReport()
        self._collect(report, namespace, items, self._write(keys=keys, args=args))
        self._judge_pending(report)
        return report.results[0]

    def _write_args(
        self, namespace: str, groups: dict[str, list[_Item]]
    ) -> tuple[list[str], list[str], list[_Item]]:
        """KEYS and ARGV of one write call for these keys (all under the namespace's hash
        tag, so one cluster slot), and its assertions in argument order."""
        keys = [
            self.keys.ledger_key_index(namespace),
            self.keys.ledger_stats(namespace),
            self.keys.ledger_pending(namespace),
        ]
        args: list[str] = [str(len(groups))]
        order: list[_Item] = []
        for kid, items in groups.items():
            first = items[0][0]
            keys += [
                self.keys.ledger_assertions(namespace, kid),
                self.keys.ledger_versions(namespace, kid),
                self.keys.ledger_data(namespace, kid),
            ]
            args += [kid, first.subject, first.relation, str(len(items))]
            for fact, chunk in items:
                keys.append(self.keys.ledger_chunk(namespace, chunk.id))
                source = self._source(chunk)
                how = self.policies.resolve(namespace, fact.subject, fact.relation, source)
                args += [
                    assertion_id(chunk.turn_id, chunk.id),
                    str(to_micros(chunk.ts)),
                    fact.object,
                    chunk.turn_id,
                    chunk.id,
                    how.policy,
                    how.rule,
                    source or "",
                    repr(self.policies.weight(source)),
                    str(round(how.confirm_ttl_s * 1e6)),
                ]
                order.append((fact, chunk))
        return keys, args, order

    @staticmethod
    def _collect(report: RecordReport, namespace: str, items: Sequence[_Item], raw: Any) -> None:
        data = json.loads(raw)
        results = data.get("results") or []
        for (fact, chunk), (_aid, action, fact_id) in zip(
            items, results if isinstance(results, list) else [], strict=True
        ):
            report.results.append(
                WriteResult(
                    namespace,
                    fact.subject,
                    fact.relation,
                    fact.object,
                    chunk.id,
                    chunk.turn_id,
                    cast(Action, action),
                    str(fact_id),
                )
            )
        closed = data.get("closed") or []
        report.closed_chunks[namespace].update(closed if isinstance(closed, list) else [])

    # --- reads -----------------------------------------------------------------------------
    def rows(self, namespace: str, subject: str, relation: str) -> list[LedgerRow]:
        """Every row of one key, current and audit, in the order they were written."""
        s, r = normalize_key(subject, relation)
        data = cast(
            dict[bytes, bytes], self.client.hgetall(self.keys.ledger_data(namespace, key_id(s, r)))
        )
        rows = [LedgerRow.parse(v, s, r) for k, v in data.items() if k.startswith(b"r:")]
        return sorted(rows, key=lambda row: row.row)

    def versions(self, namespace: str, subject: str, relation: str) -> list[LedgerRow]:
        """The key's present versions (current rows) in valid-time order."""
        current = [row for row in self.rows(namespace, subject, relation) if row.kind == "current"]
        return sorted(current, key=lambda row: (row.valid_from, row.valid_to is None, row.row))

    def history(self, namespace: str, subject: str, relation: str) -> list[LedgerRow]:
        """The key's full history: its versions (what the value was, when, and what replaced
        it) followed by the audit trail (earlier states and lost claims)."""
        return self.versions(namespace, subject, relation) + self.audit(
            namespace, subject, relation
        )

    def audit(self, namespace: str, subject: str, relation: str) -> list[LedgerRow]:
        """Retired rows and lost claims, in the order they were retired."""
        rows = [row for row in self.rows(namespace, subject, relation) if row.kind == "audit"]
        return sorted(rows, key=lambda row: (row.retired_at or EPOCH, row.row))

    def current(self, namespace: str, subject: str, relation: str) -> LedgerRow | None:
        """The key's open version (its present value), if any."""
        return next((r for r in self.versions(namespace, subject, relation) if r.open), None)

    def as_of(
        self,
        namespace: str,
        subject: str,
        relation: str,
        valid_time: datetime,
        system_time: datetime | None = None,
    ) -> LedgerRow | None:
        """The version valid at ``valid_time`` as the ledger held it at ``system_time``
        (default: now, i.e. what it holds today)."""
        live = [
            row
            for row in self.rows(namespace, subject, relation)
            if (row.live_at(system_time) if system_time is not None else row.kind == "current")
            and row.valid_at(valid_time)
        ]
        return max(live, key=lambda row: (row.valid_from, row.row), default=None)

    def keys_of(self, namespace: str) -> list[tuple[str, str]]:
        """Every (subject, relation) key the namespace's ledger holds."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.keys.ledger_key_index(namespace)))
        pairs = [json.loads(v) for v in raw.values()]
        return sorted((str(s), str(r)) for s, r in pairs)

    def stats(self, namespace: str) -> LedgerStats:
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.keys.ledger_stats(namespace)))
        values = {k.decode(): int(v) for k, v in raw.items()}
        return LedgerStats(
            keys=values.get("keys", 0),
            assertions=values.get("assertions", 0),
            versions=values.get("versions", 0),
            open=values.get("open", 0),
            rows=values.get("rows", 0),
            audit_rows=values.get("audit_rows", 0),
            duplicates=values.get("duplicates", 0),
        )

    def decisions(
        self,
        namespace: str,
        subject: str,
        relation: str,
        system_time: datetime | None = None,
    ) -> list[LedgerDecision]:
        """The key's resolution audit rows in the order they were decided (up to
        ``system_time``: what the ledger had decided by then)."""
        s, r = normalize_key(subject, relation)
        data = cast(
            dict[bytes, bytes], self.client.hgetall(self.keys.ledger_data(namespace, key_id(s, r)))
        )
        out = [LedgerDecision.parse(v, s, r) for k, v in data.items() if k.startswith(b"d:")]
        if system_time is not None:
            out = [d for d in out if d.decided_at <= system_time]
        return sorted(out, key=lambda d: d.n)

    def pending(self, namespace: str) -> list[PendingConflict]:
        """Every held value of the namespace (confirm policy) with its incumbent; values past
        their deadline are left out (the next call on the key retires them)."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.keys.ledger_pending(namespace)))
        names = cast(dict[bytes, bytes], self.client.hgetall(self.keys.ledger_key_index(namespace)))
        now = datetime.now(UTC)
        out = []
        for kid_raw in sorted(raw):
            name = names.get(kid_raw)
            if name is None:
                continue
            subject, relation = json.loads(name)
            conflict = self._pending_of(namespace, str(subject), str(relation))
            if conflict is not None and conflict.pending.pending_at(now):
                out.append(conflict)
        return out

    def _pending_of(self, namespace: str, subject: str, relation: str) -> PendingConflict | None:
        current = self.versions(namespace, subject, relation)
        held = next((r for r in current if r.pending), None)
        if held is None:
            return None
        incumbent = next((r for r in current if r.open), None)
        return PendingConflict(namespace, held.subject, held.relation, held, incumbent)

    def confirm(
        self,
        namespace: str,
        subject: str,
        relation: str,
        object: str | None = None,
        *,
        by: str = "api",
        reject: bool = False,
    ) -> ConfirmResult:
        """Promote (or with ``reject``, retire) the key's pending value. ``object`` guards a
        race: if given and the held value is another one by now, nothing changes
        (``mismatch``). Atomic, like a write; audited with ``by``."""
        return self._decide_pending(
            namespace, subject, relation, "reject" if reject else "confirm", object, by
        )

    def expire(self, namespace: str) -> list[ConfirmResult]:
        """Retire every held value past its deadline now (writes and confirmations on a key
        also do it, lazily)."""
        names = cast(dict[bytes, bytes], self.client.hgetall(self.keys.ledger_key_index(namespace)))
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.keys.ledger_pending(namespace)))
        out = []
        for kid_raw in sorted(raw):
            if kid_raw in names:
                subject, relation = json.loads(names[kid_raw])
                result = self._decide_pending(namespace, subject, relation, "expire", None, "")
                if result.outcome == "expired":
                    out.append(result)
        return out

    def _decide_pending(
        self,
        namespace: str,
        subject: str,
        relation: str,
        mode: Literal["confirm", "reject", "expire"],
        expected: str | None,
        by: str,
    ) -> ConfirmResult:
        s, r = normalize_key(subject, relation)
        kid = key_id(s, r)
        keys = [
            self.keys.ledger_key_index(namespace),
            self.keys.ledger_stats(namespace),
            self.keys.ledger_pending(namespace),
            self.keys.ledger_assertions(namespace, kid),
            self.keys.ledger_versions(namespace, kid),
            self.keys.ledger_data(namespace, kid),
        ]
        rule = self.policies.resolve(namespace, s, r).rule
        expected_obj = normalize_object(expected) if expected is not None else ""
        raw = self._confirm(keys=keys, args=[kid, mode, expected_obj, by, rule])
        d = json.loads(raw)
        closed = d.get("closed") or []
        return ConfirmResult(
            outcome=cast(ConfirmOutcome, d["result"]),
            fact_id=str(d["fact"]) if d.get("fact") else None,
            object=str(d["object"]) if d.get("object") is not None else None,
            closed_chunks=tuple(str(c) for c in (closed if isinstance(closed, list) else [])),
        )

    # --- the confirmation judge and its keyed log -------------------------------------------
    def judgement_key(self, conflict: PendingConflict) -> str:
        """A verdict is keyed by the judge, the key and both values (not by turns or times):
        the same question gets the same answer, on replay too."""
        incumbent = conflict.incumbent.object if conflict.incumbent else ""
        parts = [self.judge_id, conflict.subject, conflict.relation, incumbent]
        return hashlib.sha256(
            "\x1f".join([*parts, conflict.pending.object]).encode("utf-8")
        ).hexdigest()[:32]

    def judgement(self, conflict: PendingConflict) -> Verdict | None:
        """The logged verdict for this question, else the judge's (logged insert-if-absent,
        so concurrent workers agree on the first one written). None: no judge."""
        log = self.keys.ledger_judgements(conflict.namespace)
        key = self.judgement_key(conflict)
        found = self.client.hget(log, key)
        if found is None:
            if self.judge is None:
                return None
            verdict = self.judge(conflict)
            if verdict not in ("confirm", "reject", "hold"):
                raise ValueError(f"confirmation judge answered {verdict!r}")
            self.client.hsetnx(log, key, verdict)
            found = self.client.hget(log, key)
        text = found.decode() if isinstance(found, bytes) else str(found)
        return cast(Verdict, text)

    def _judge_pending(self, report: RecordReport) -> None:
        if self.judge is None:
            return
        for res in report.results:
            if res.action != "pending":
                continue
            conflict = self._pending_of(res.namespace, res.subject, res.relation)
            if conflict is None or conflict.pending.fact_id != res.fact_id:
                continue
            verdict = self.judgement(conflict)
            if verdict in ("confirm", "reject"):
                done = self._decide_pending(
                    res.namespace,
                    res.subject,
                    res.relation,
                    verdict,
                    conflict.pending.object,
                    f"judge:{self.judge_id}:{self.judgement_key(conflict)}",
                )
                report.closed_chunks[res.namespace].update(done.closed_chunks)

    def chunk_status(
        self,
        namespace: str,
        chunk_ids: Iterable[str],
        valid_time: datetime | None = None,
        *,
        detail: bool = True,
        previous: bool = False,
    ) -> dict[str, list[AssertionStatus]]:
        """Per chunk, its assertions with their versions' present state. Chunks the ledger
        never saw map to []. With ``detail``, an assertion superseded by ``valid_time``
        (default: at any time) also carries its key, the superseding version and the version
        valid at that time; without, rows carry no subject/relation (flag checks need none).
        ``previous`` (implies ``detail``): each version also carries the one it replaced.
        One pipelined read of the chunk sets, then one atomic script over every key involved."""
        ids = list(dict.fromkeys(chunk_ids))
        out: dict[str, list[AssertionStatus]] = {cid: [] for cid in ids}
        if not ids:
            return out
        pipe = self.client.pipeline(transaction=False)
        for cid in ids:
            pipe.smembers(self.keys.ledger_chunk(namespace, cid))
        members: list[set[bytes]] = pipe.execute()
        pairs: list[tuple[str, str, str]] = []  # (chunk id, key id, assertion id)
        for cid, found in zip(ids, members, strict=True):
            for m in sorted(found):
                kid, _, aid = m.decode().partition(":")
                pairs.append((cid, kid, aid))
        if not pairs:
            return out
        kids = list(dict.fromkeys(kid for _, kid, _ in pairs))
        keys = [self.keys.ledger_key_index(namespace)]
        for kid in kids:
            keys += [
                self.keys.ledger_versions(namespace, kid),
                self.keys.ledger_data(namespace, kid),
            ]
        position = {kid: i + 1 for i, kid in enumerate(kids)}
        when = "inf" if valid_time is None else str(to_micros(valid_time))
        mode = "previous" if previous else "full" if detail else "brief"
        args: list[str] = [when, mode]
        for _, kid, aid in pairs:
            args += [str(position[kid]), kid, aid]
        entries = json.loads(self._status(keys=keys, args=args))
        for (cid, kid, aid), entry in zip(pairs, entries, strict=True):
            subject, relation = json.loads(entry["key"]) if entry.get("key") else ("", "")
            row, successor, valid, before = (
                LedgerRow.parse(entry[name], subject, relation) if entry.get(name) else None
                for name in ("row", "next", "valid", "prev")
            )
            out[cid].append(AssertionStatus(kid, aid, row, successor, valid, before))
        return out


@dataclass(frozen=True)
class _Stated:
    """Where a single ``assert_fact`` assertion was stated (the fields ``record`` reads)."""

    namespace: str
    turn_id: str
    id: str
    ts: datetime
    source: str | None = None


_Item = tuple[Fact, Chunk | _Stated]


__all__ = [
    "AssertionStatus",
    "ConfirmResult",
    "ConfirmationJudge",
    "DecisionSide",
    "LedgerDecision",
    "LedgerRow",
    "LedgerStats",
    "PendingConflict",
    "PolicyTable",
    "RecordReport",
    "SupersessionLedger",
    "Verdict",
    "WriteResult",
    "assertion_id",
    "chunk_assertions",
    "from_micros",
    "key_id",
    "to_micros",
]
