"""The supersession stage: ledger writes at ingest, the pre-filter at query time.

Ingest (``IngestStage``): every chunk's assertions (explicit ``Turn.facts`` or the extractor's
triples) go into the bi-temporal ledger. With write-time GC on (``GCMEM_SUPERSESSION_GC``), a
chunk whose every assertion is now closed gets the MTM payload flag ``superseded``, so MTM
search can leave it out before top-k (``GCMEM_SUPERSESSION_EXCLUDE``). Older chunks are
re-checked whenever a newer value closes their version, and every chunk of the batch is
re-checked too (a redelivered chunk's upsert resets its flag; the check sets it again).

Query (``CandidateFilter``): a candidate is dropped when every assertion it makes is
superseded as of the query's time (its version's ``valid_to`` <= ``as_of``). Chunks with no
assertions, or none the ledger knows, pass untouched. The decision names the superseding
version, its chunk and turn, and the value valid at ``as_of``. The kept chunks are the
original chunks: the filter never rewrites text into triples.

Resolution policies decide what "superseded" means per key (``gcmem.storage.ledger.policy``):
an evidence loser or an expired held value is closed like a latest-wins loser and dropped the
same way; accumulate values never close; a value held *pending* (confirm) is neither dropped
nor silently kept: the chunk stays and the result carries a ``Conflict`` naming it and the
incumbent that reads still return.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from gcmem.facts.extract import chunk_facts
from gcmem.filters.base import FilterOutcome, QueryContext
from gcmem.filters.resources import Resources
from gcmem.models import Chunk, Conflict, Decision, ScoredChunk
from gcmem.normalize import display_key, fact_key
from gcmem.storage.ledger import AssertionStatus, FactReader, RecordReport, SupersessionLedger
from gcmem.storage.mtm.index import SUPERSEDED_FLAG, MediumTermIndex

log = logging.getLogger(__name__)

STAGE = "supersession"


class SupersessionStage:
    """Both sides of deterministic supersession, over one ledger."""

    name = STAGE

    def __init__(
        self,
        ledger: SupersessionLedger,
        index: MediumTermIndex | None = None,
        *,
        write_time_gc: bool = True,
        facts: FactReader | None = None,  # default: explicit facts, else the extractor
    ) -> None:
        self.ledger = ledger
        self.index = index
        self.write_time_gc = write_time_gc and index is not None
        self.facts = facts

    # --- ingest ----------------------------------------------------------------------------
    def on_ingest(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        self.record(chunks)

    def record(self, chunks: Sequence[Chunk]) -> RecordReport:
        """Ledger writes (and write-time GC) for a batch; the report says what each did."""
        report = self.ledger.record(chunks, self.facts or chunk_facts)
        if self.write_time_gc:
            recheck: dict[str, set[str]] = defaultdict(set)
            for chunk in chunks:
                recheck[chunk.namespace].add(chunk.id)
            for namespace, closed in report.closed_chunks.items():
                recheck[namespace] |= closed
            for namespace, ids in recheck.items():
                self.mirror_flags(namespace, sorted(ids))
        return report

    def mirror_flags(self, namespace: str, chunk_ids: Sequence[str]) -> list[str]:
        """Set the MTM ``superseded`` flag on those chunks whose assertions are all closed;
        returns their ids. Flags only ever go up: a closed version never reopens."""
        if self.index is None or not chunk_ids:
            return []
        status = self.ledger.chunk_status(namespace, chunk_ids, detail=False)
        flagged = [
            cid
            for cid, assertions in status.items()
            if assertions and all(a.superseded_at(None) and not _may_return(a) for a in assertions)
        ]
        if flagged:
            self.index.set_payload(namespace, flagged, {SUPERSEDED_FLAG: True})
        return flagged

    # --- query -----------------------------------------------------------------------------
    def apply(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> FilterOutcome:
        if not candidates:
            return FilterOutcome([], [])
        by_namespace: dict[str, list[str]] = defaultdict(list)
        for cand in candidates:
            by_namespace[cand.chunk.namespace].append(cand.id)
        status: dict[str, list[AssertionStatus]] = {}
        for namespace, ids in by_namespace.items():
            status.update(self.ledger.chunk_status(namespace, ids, query.as_of))
        now = datetime.now(UTC)
        kept: list[ScoredChunk] = []
        dropped: list[Decision] = []
        held: list[tuple[ScoredChunk, AssertionStatus]] = []
        for cand in candidates:
            assertions = [a for a in status.get(cand.id, []) if a.version is not None]
            if assertions and all(_lost(a, query.as_of, now) for a in assertions):
                dropped.append(_decision(cand, assertions))
                continue
            kept.append(cand)
            held += [(cand, a) for a in assertions if _held(a, now)]
        return FilterOutcome(kept, dropped, _conflicts(held, kept, status))


def _may_return(a: AssertionStatus) -> bool:
    """An evidence claim that is outweighed today takes over once its support is larger: its
    chunks are dropped at query time while it trails, but never flagged (flags only go up)."""
    return a.version is not None and a.version.status == "outweighed"


def _held(a: AssertionStatus, now: datetime) -> bool:
    return a.version is not None and a.version.pending_at(now)


def _lost(a: AssertionStatus, as_of: datetime, now: datetime) -> bool:
    """Superseded as of the query, or a held value past its deadline (the ledger retires it
    on the key's next call; reads do not wait for that)."""
    version = a.version
    if version is not None and version.pending and not version.pending_at(now):
        return True
    return a.superseded_at(as_of)


def _conflicts(
    held: Sequence[tuple[ScoredChunk, AssertionStatus]],
    kept: Sequence[ScoredChunk],
    status: dict[str, list[AssertionStatus]],
) -> list[Conflict]:
    """One conflict per held assertion whose incumbent a kept candidate states: older = that
    candidate (the value reads return), newer = the chunk whose value is held."""
    by_fact: dict[str, ScoredChunk] = {}
    for cand in kept:
        for a in status.get(cand.id, []):
            if a.version is not None and a.version.open:
                by_fact.setdefault(a.version.fact_id, cand)
    out = []
    for cand, a in held:
        version, incumbent = a.version, a.successor
        assert version is not None
        older = by_fact.get(incumbent.fact_id) if incumbent is not None else None
        if older is None or incumbent is None:
            continue  # the incumbent was not retrieved: nothing to set the held value against
        key = display_key(fact_key(version.subject, version.relation))
        until = version.pending_until.isoformat() if version.pending_until else "no deadline"
        sources = ", ".join(x for x in version.sources if x) or "unknown sources"
        out.append(
            Conflict(
                older=older,
                newer=cand,
                stage=STAGE,
                reason=f"policy confirm: {key} = {version.object!r} (from {sources}) is held "
                f"pending confirmation; the ledger's value is still {incumbent.object!r} "
                f"(held until {until})",
                score=None,
            )
        )
    return out


def _describe(a: AssertionStatus) -> dict[str, Any]:
    version = a.version
    assert version is not None
    out: dict[str, Any] = {
        "key": display_key(fact_key(version.subject, version.relation)),
        "subject": version.subject,
        "relation": version.relation,
        "object": version.object,
        "fact_id": version.fact_id,
        "valid_from": version.valid_from.isoformat(),
        "valid_to": version.valid_to.isoformat() if version.valid_to else None,
        # None for a version that lost to a newer one; else how the policy ruled the value out
        "status": version.status,
    }
    for name, row in (("superseded_by", a.successor), ("valid_at_query", a.valid)):
        if row is not None:
            out[name] = {
                "fact_id": row.fact_id,
                "object": row.object,
                "chunk_id": row.chunk_id,
                "turn_id": row.turn_id,
                "valid_from": row.valid_from.isoformat(),
            }
    return out


def _decision(cand: ScoredChunk, assertions: Sequence[AssertionStatus]) -> Decision:
    details = [_describe(a) for a in assertions]
    first = assertions[0]
    version, successor = first.version, first.successor
    assert version is not None
    parts = []
    for d in details:
        new = d.get("superseded_by", {})
        parts.append(f"{d['key']} = {d['object']!r} superseded by {new.get('object')!r}")
    when = version.valid_to.date().isoformat() if version.valid_to else "?"
    reason = "; ".join(parts) + f" (from {when}, turn {successor.turn_id if successor else '?'})"
    return Decision(
        chunk=cand,
        stage=STAGE,
        reason=reason,
        dominated_by=successor.chunk_id if successor else None,
        dominated_by_turn_id=successor.turn_id if successor else None,
        score=None,
        details={"assertions": details},
    )


def build(resources: Resources) -> SupersessionStage:
    return SupersessionStage(
        resources.ledger, resources.index, write_time_gc=resources.settings.supersession_gc
    )
