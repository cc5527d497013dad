"""Write-time GC flags as derived state of the ledger: set with a record, explained, rebuilt.

A chunk is flagged (MTM payload ``superseded``) when every assertion it makes is closed in the
ledger. Beside the flag, ``superseded_record`` says which stage decided, by which newer chunk
and turn (the superseding version of the chunk's first assertion, as a read-time drop names
it), when (the ledger's system time of the closing state) and under which keys. Both are a
pure function of the ledger, so ``rebuild_flags`` can recompute them at any time; nothing is
ever deleted.

Concurrency: ledger writes are atomic per key, but the flag write that follows a ledger write
is not, so two workers can write one chunk's record from two ledger states in either order.
Every flag write is therefore read back against the ledger and rewritten until the two agree:
the last record written for a chunk is always followed by a ledger read that matches it, and
any later ledger change is followed by its own writer's flag write. A closed version never
reopens, so the flag itself only goes up; only its record can move (an out-of-order assertion
that lands between a version and its successor becomes the new successor).
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from gcmem.models import Decision
from gcmem.normalize import display_key, fact_key
from gcmem.storage.ledger import AssertionStatus, RecordReport, SupersessionLedger, key_id
from gcmem.storage.mtm.index import FLAG_RECORD, SUPERSEDED_FLAG, FlagIndex, MediumTermIndex

if TYPE_CHECKING:  # the stage builds on this module; this module only names it in types
    from gcmem.filters.supersession import SupersessionStage

# The supersession stage's name, which every flag record carries (the stage imports it).
STAGE = "supersession"

log = logging.getLogger(__name__)

# Write-and-verify rounds per mirror; each extra round needs another writer to change the same
# chunk's successor in between, so more than two is already rare.
MAX_ROUNDS = 5
# Chunks per ledger status read during a rebuild.
REBUILD_BATCH = 512


# (namespace, chunk ids) -> those of them the stage's rule flags
Decide = Callable[[str, Sequence[str]], list[str]]


def all_closed(assertions: Sequence[AssertionStatus]) -> bool:
    """Every assertion of the chunk is known to the ledger and closed (superseded at any
    time); the stage's rule (``SupersessionStage.flaggable``) refines this."""
    return bool(assertions) and all(a.superseded_at(None) for a in assertions)


def flag_record(assertions: Sequence[AssertionStatus], stage: str = STAGE) -> dict[str, Any]:
    """The flag's record, from a chunk's full ledger status (``chunk_status(detail=True)``):
    named by its first closed assertion (a frame-aligned chunk may also hold restated, open
    ones)."""
    known = [a for a in assertions if a.version is not None]
    if not known:
        return {"stage": stage, "by_chunk": None, "by_turn": None, "decided_at": None, "keys": []}
    closed = [a for a in known if a.superseded_at(None)] or known
    first = closed[0]
    successor = first.successor
    keys = sorted(
        {
            display_key(fact_key(a.version.subject, a.version.relation))
            for a in closed
            if a.version is not None and a.version.subject
        }
    )
    decided = max(a.version.recorded_at for a in closed if a.version is not None)
    return {
        "stage": stage,
        "by_chunk": successor.chunk_id if successor else None,
        "by_turn": successor.turn_id if successor else None,
        "decided_at": decided.isoformat(),
        "keys": keys,
    }


def _records(
    ledger: SupersessionLedger, namespace: str, chunk_ids: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """The record of each of these (flaggable) chunks."""
    if not chunk_ids:
        return {}
    status = ledger.chunk_status(namespace, chunk_ids, None, detail=True)
    return {cid: flag_record(a) for cid, a in status.items()}


def _write(index: MediumTermIndex, namespace: str, records: Mapping[str, dict[str, Any]]) -> int:
    """Write the records not already in place; returns how many. One payload write per
    distinct record: the restatements a new value closes share one."""
    held = index.flag_records(namespace, list(records)) if isinstance(index, FlagIndex) else {}
    groups: dict[str, list[str]] = defaultdict(list)
    for cid, record in records.items():
        if held.get(cid) != record:
            groups[json.dumps(record, sort_keys=True)].append(cid)
    for raw, ids in groups.items():
        index.set_payload(namespace, ids, {SUPERSEDED_FLAG: True, FLAG_RECORD: json.loads(raw)})
    return sum(len(ids) for ids in groups.values())


def mirror_flags(
    ledger: SupersessionLedger,
    index: MediumTermIndex,
    namespace: str,
    chunk_ids: Sequence[str],
    decide: Decide | None = None,
    refresh: Collection[str] | None = None,
) -> list[str]:
    """Flag, with their records, those of these chunks ``decide`` picks (default: all
    assertions closed; the stage passes its own rule); returns their ids.

    A chunk already flagged keeps its record unless it is in ``refresh`` (default: all): a
    record only moves when an out-of-order write gives its version a new successor, and that
    write's own mirror refreshes its key's chunks. So the common re-check of already flagged
    neighbours costs one brief ledger read and one index read, no full read."""
    ids = list(dict.fromkeys(chunk_ids))
    if not ids:
        return []
    decide = decide or _closed_decider(ledger)
    pending = decide(namespace, ids)
    flagged: set[str] = set(pending)
    if refresh is not None and isinstance(index, FlagIndex):
        held = index.flag_records(namespace, pending)
        pending = [cid for cid in pending if cid not in held or cid in refresh]
    records = _records(ledger, namespace, pending)
    for _ in range(MAX_ROUNDS):
        if not records or not _write(index, namespace, records):
            break
        again = _records(ledger, namespace, list(records))
        records = {cid: rec for cid, rec in again.items() if records.get(cid) != rec}
    else:
        if records:
            log.warning(
                "write-time GC: %d flag records of namespace %r still moving after %d rounds",
                len(records),
                namespace,
                MAX_ROUNDS,
            )
    return [cid for cid in ids if cid in flagged]


# Write actions that can move an already closed version's successor (or end): an assertion
# landing before a newer version, inside a run, or extending the next version earlier.
MOVING_ACTIONS = frozenset({"late", "split", "extend"})


def key_chunks(ledger: SupersessionLedger, namespace: str, kid: str) -> set[str]:
    """Every chunk that asserted this key (its assertions' records)."""
    data = ledger.keys.ledger_data(namespace, kid)
    return {
        str(json.loads(raw)["chunk"])
        for _field, raw in ledger.client.hscan_iter(data, match="a:*", count=1000)
    }


def moved_chunks(ledger: SupersessionLedger, report: RecordReport) -> dict[str, set[str]]:
    """Per namespace, the chunks of every key an out-of-order write touched: their versions'
    successors may have moved, so their flag records are re-derived (rare: in-order ingest
    never moves one)."""
    keys = {
        (r.namespace, key_id(r.subject, r.relation))
        for r in report.results
        if r.action in MOVING_ACTIONS
    }
    out: dict[str, set[str]] = defaultdict(set)
    for namespace, kid in keys:
        out[namespace] |= key_chunks(ledger, namespace, kid)
    return out


def _closed_decider(ledger: SupersessionLedger) -> Decide:
    def decide(namespace: str, ids: Sequence[str]) -> list[str]:
        status = ledger.chunk_status(namespace, ids, detail=False)
        return [cid for cid in ids if all_closed(status[cid])]

    return decide


# --- explain -------------------------------------------------------------------------------
def explain(
    stage: SupersessionStage, index: MediumTermIndex, namespace: str, chunk_id: str
) -> Decision | None:
    """The decision record of a chunk the stage's rule drops for the present, as a read-time
    drop gives it, with the flag state beside it (``details["write_time"]``); ``None`` if
    nothing supersedes it. Raises ``KeyError`` for a chunk the index does not hold there."""
    hit = index.fetch(namespace, [chunk_id]).get(chunk_id)
    if hit is None:
        raise KeyError(f"no chunk {chunk_id!r} in namespace {namespace!r}")
    records = index.flag_records(namespace, [chunk_id]) if isinstance(index, FlagIndex) else {}
    decision = stage.explain(hit.chunk)
    if decision is None:
        return None
    write_time: dict[str, Any] = {
        "flagged": chunk_id in records if isinstance(index, FlagIndex) else None,
        "record": records.get(chunk_id),
    }
    return decision.model_copy(update={"details": {**decision.details, "write_time": write_time}})


# --- rebuild -------------------------------------------------------------------------------
@dataclass(frozen=True)
class RebuildReport:
    namespace: str
    chunks: int  # chunks the ledger holds assertions of
    flagged: int  # flags set (or rewritten) from the ledger
    cleared: int  # flags that no longer held, cleared


def ledger_chunks(ledger: SupersessionLedger, namespace: str) -> list[str]:
    """Every chunk that asserted something in the namespace's ledger (from each key's
    assertions, so the scan stays inside the namespace)."""
    chunks: set[str] = set()
    for subject, relation in ledger.keys_of(namespace):
        chunks |= key_chunks(ledger, namespace, key_id(subject, relation))
    return sorted(chunks)


def _glob_escape(text: str) -> str:
    return "".join("\\" + ch if ch in "*?[]\\" else ch for ch in text)


def ledger_namespaces(ledger: SupersessionLedger) -> list[str]:
    """Every namespace with a ledger under this key prefix."""
    before, after = ledger.keys.ledger_key_index("\x00").split("\x00")
    pattern = _glob_escape(before) + "*" + _glob_escape(after)
    found: set[str] = set()
    for raw in ledger.client.scan_iter(match=pattern, count=1000):
        key = raw.decode() if isinstance(raw, bytes) else str(raw)
        found.add(key[len(before) : len(key) - len(after)])
    return sorted(found)


def rebuild_flags(
    ledger: SupersessionLedger,
    index: MediumTermIndex,
    namespace: str,
    decide: Decide | None = None,
) -> RebuildReport:
    """Recompute every flag of a namespace from the ledger: flag (with records) the chunks
    whose assertions are all closed, clear flags the ledger no longer backs. Nothing is
    deleted. Safe beside live ingest: a flag about to be cleared is re-checked first, and
    re-set if a concurrent write closed its chunk meanwhile."""
    if not isinstance(index, FlagIndex):
        raise TypeError(f"{type(index).__name__} cannot list its flags; rebuild on the index host")
    decide = decide or _closed_decider(ledger)
    ids = ledger_chunks(ledger, namespace)
    flagged: set[str] = set()
    for start in range(0, len(ids), REBUILD_BATCH):
        batch = ids[start : start + REBUILD_BATCH]
        flagged |= set(mirror_flags(ledger, index, namespace, batch, decide))
    stale = [cid for _, cid in index.flagged(namespace) if cid not in flagged]
    cleared = 0
    for start in range(0, len(stale), REBUILD_BATCH):
        batch = stale[start : start + REBUILD_BATCH]
        keep = set(decide(namespace, batch))
        clear = [cid for cid in batch if cid not in keep]
        index.set_payload(namespace, clear, {SUPERSEDED_FLAG: False, FLAG_RECORD: None})
        cleared += len(clear)
        # closed after all (a concurrent write): flag it with its record; then re-check the
        # cleared ones, in case a write closed them between the check and the clear
        mirror_flags(ledger, index, namespace, [cid for cid in batch if cid in keep], decide)
        cleared -= len(mirror_flags(ledger, index, namespace, clear, decide))
    return RebuildReport(namespace, len(ids), len(flagged), cleared)


def rebuild_all(
    ledger: SupersessionLedger,
    index: MediumTermIndex,
    namespaces: Iterable[str] | None = None,
    decide: Decide | None = None,
) -> list[RebuildReport]:
    """``rebuild_flags`` for these namespaces; default: every namespace with a ledger or a
    flagged chunk."""
    if namespaces is None:
        found = set(ledger_namespaces(ledger))
        if isinstance(index, FlagIndex):
            found |= {ns for ns, _ in index.flagged()}
        namespaces = sorted(found)
    return [rebuild_flags(ledger, index, ns, decide) for ns in cast(Iterable[str], namespaces)]
