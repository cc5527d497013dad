"""Framework-free pieces both adapters use: gcmem results -> metadata, framework documents ->
``ExternalDocument``, chat messages -> turns. The framework modules only translate types."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gcmem.memory.documents import (
    DocumentFilter,
    DocumentFilterResult,
    ExternalDocument,
    TimestampError,
    parse_timestamp,
)
from gcmem.models import Decision, RetrievalResult, ScoredChunk, Turn

if TYPE_CHECKING:
    from gcmem.memory import Memory

MissingTimestamp = Literal["raise", "keep"]

# Keys gcmem writes into a retrieved document's metadata. ``ts`` is ISO-8601 with its zone, so
# a ConsistencyFilter/Postprocessor downstream reads it back with its default ``ts_key``.
TS_KEY = "ts"
DROPPED_KEY = "gcmem_dropped"
# On a kept chunk that is one side of a surfaced conflict (e.g. a value held pending
# confirmation against the incumbent): the conflicts, both sides named. Absent otherwise.
CONFLICTS_KEY = "gcmem_conflicts"
# On a kept chunk with statements a newer chunk superseded: those statements (the text the
# adapters return has them excised; a mention of a replaced value stays). Absent otherwise.
STALE_KEY = "gcmem_stale_statements"
# On a chunk kept although the chain decided against it (the question asks for an earlier
# value: ``RetrievalResult.superseded``): that decision's record. Absent otherwise.
SUPERSEDED_KEY = "gcmem_superseded"


def document_filter_for(given: DocumentFilter | None, memory: Memory | None) -> DocumentFilter:
    """The filter an adapter runs: the one it was given, else its memory's (same settings,
    Redis and oracle), else one built from the ``GCMEM_*`` settings."""
    if given is not None:
        return given
    return memory.document_filter() if memory is not None else DocumentFilter()


def chunk_metadata(sc: ScoredChunk) -> dict[str, Any]:
    """Metadata for a retrieved chunk: the turn's own metadata, then gcmem's keys (which win
    on a name clash, so ``ts`` is always the event time gcmem filtered with). A chunk with
    superseded statements (excised from the text the adapters return) lists them under
    ``STALE_KEY``."""
    c = sc.chunk
    meta: dict[str, Any] = dict(c.metadata)
    meta.update(
        {
            TS_KEY: c.ts.isoformat(),
            "namespace": c.namespace,
            "chunk_id": c.id,
            "turn_id": c.turn_id,
            "chunk_index": c.index,
            "session_id": c.session_id,
            "role": c.role,
            "score": sc.score,
            "sources": list(sc.sources),
        }
    )
    if sc.stale_sentences:
        meta[STALE_KEY] = stale_records(sc)
    return meta


def stale_records(sc: ScoredChunk) -> list[dict[str, Any]]:
    """A kept chunk's superseded statements (the originals of what its text shows excised),
    as plain JSON-able values."""
    return [
        {
            "text": s.text,
            "key": s.key,
            "value": s.value,
            "current_value": s.current_value,
            "superseded_by": s.superseded_by,
            "superseded_by_turn_id": s.superseded_by_turn_id,
            "since": s.since.isoformat() if s.since else None,
            "stage": s.stage,
            "evidence": s.evidence,  # "statement": excised from the text; "mention": kept
        }
        for s in sc.stale_sentences
    ]


def decision_record(decision: Decision) -> dict[str, Any]:
    """A dropped chunk with its reason, as plain JSON-able values."""
    c = decision.chunk.chunk
    return {
        "chunk_id": c.id,
        "turn_id": c.turn_id,
        "text": c.text,
        TS_KEY: c.ts.isoformat(),
        "stage": decision.stage,
        "reason": decision.reason,
        "score": decision.score,
        "dominated_by": decision.dominated_by,
        "dominated_by_turn_id": decision.dominated_by_turn_id,
    }


def attribute_drops(result: RetrievalResult) -> dict[str, list[dict[str, Any]]]:
    """Kept chunk id -> the drops it accounts for.

    A drop is attributed to the chunk that dominated it, following chains (A dropped by B,
    B dropped by C: A and B go to C). Drops that end at no kept chunk (a stage that names no
    dominating chunk, or one whose superseding chunk was not retrieved) go to the top-ranked
    kept chunk, so nothing is lost from the record while anything is kept.
    """
    kept_ids = [sc.chunk.id for sc in result.kept]
    kept = set(kept_ids)
    by_dropped = {d.chunk.id: d for d in result.dropped}
    out: dict[str, list[dict[str, Any]]] = {cid: [] for cid in kept_ids}
    for decision in result.dropped:
        target = decision.dominated_by
        seen = {decision.chunk.id}
        while target is not None and target not in kept and target not in seen:
            seen.add(target)
            nxt = by_dropped.get(target)
            target = nxt.dominated_by if nxt is not None else None
        if target is None or target not in kept:
            if not kept_ids:
                continue
            target = kept_ids[0]
        out[target].append(decision_record(decision))
    return out


def attribute_conflicts(result: RetrievalResult) -> dict[str, list[dict[str, Any]]]:
    """Kept chunk id -> the conflicts it is a side of (only chunks that have one)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for conflict in result.conflicts:
        older, newer = conflict.older.chunk, conflict.newer.chunk
        record = {
            "older_chunk_id": older.id,
            "older_turn_id": older.turn_id,
            f"older_{TS_KEY}": older.ts.isoformat(),
            "newer_chunk_id": newer.id,
            "newer_turn_id": newer.turn_id,
            f"newer_{TS_KEY}": newer.ts.isoformat(),
            "stage": conflict.stage,
            "reason": conflict.reason,
            "score": conflict.score,
        }
        for cid in dict.fromkeys((older.id, newer.id)):
            out.setdefault(cid, []).append(record)
    return out


def kept_notes(result: RetrievalResult) -> dict[str, dict[str, Any]]:
    """Kept chunk id -> gcmem's notes on it (only chunks that have one): the conflicts it is a
    side of (``CONFLICTS_KEY``) and the decision against a chunk kept for a question about an
    earlier value (``SUPERSEDED_KEY``)."""
    notes: dict[str, dict[str, Any]] = {
        cid: {CONFLICTS_KEY: c} for cid, c in attribute_conflicts(result).items()
    }
    for decision in result.superseded:
        notes.setdefault(decision.chunk.id, {})[SUPERSEDED_KEY] = decision_record(decision)
    return notes


@dataclass(frozen=True)
class KeptDocument:
    """A surviving document of a ``DocumentFilter`` run, as the document adapters return it."""

    position: int  # in the caller's input
    notes: dict[str, Any]  # metadata to add: CONFLICTS_KEY, SUPERSEDED_KEY, STALE_KEY or {}
    text: str | None  # the text with superseded statements excised (None: unchanged)


def kept_documents(outcome: DocumentFilterResult) -> list[KeptDocument]:
    """The surviving documents (input order), each with the conflicts its chunk is a side of
    and the statements in it a newer document superseded (excised from its text)."""
    noted = kept_notes(outcome.result)
    kept = {sc.chunk.id: sc for sc in outcome.result.kept}
    out: list[KeptDocument] = []
    for i in outcome.kept_positions():
        cid = outcome.chunk_ids[i]
        sc = kept.get(cid) if cid is not None else None
        notes: dict[str, Any] = dict(noted.get(cid, {})) if cid is not None else {}
        text = None
        if sc is not None and sc.stale_sentences:
            notes[STALE_KEY] = stale_records(sc)
            if any(s.excised for s in sc.stale_sentences):
                text = sc.visible_text
        out.append(KeptDocument(i, notes, text))
    return out


def timezone_named(name: str | None) -> tzinfo | None:
    """An IANA zone name ("UTC", "Europe/Berlin") -> tzinfo; None stays None."""
    if name is None:
        return None
    if name.upper() == "UTC":
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {name!r}") from exc


def to_external(
    position: int,
    *,
    text: str,
    metadata: Mapping[str, Any],
    doc_id: str | None,
    score: float | None,
    ts_key: str,
    naive_tz: tzinfo | None,
    missing: MissingTimestamp,
) -> ExternalDocument:
    """One framework document -> ``ExternalDocument``, with an error that names the document,
    the metadata key and what was found there."""
    label = f"document #{position}" + (f" (id {doc_id!r})" if doc_id else "")
    if ts_key not in metadata or metadata[ts_key] is None:
        if missing == "keep":
            return ExternalDocument(text=text, ts=None, score=score or 0.0, id=doc_id)
        keys = ", ".join(sorted(map(str, metadata))) or "none"
        raise TimestampError(
            f"{label} has no event time in metadata[{ts_key!r}] (its metadata keys: {keys}); "
            "the consistency filter orders facts by this time: store it with each document, "
            "point ts_key at the key that holds it, or pass missing_ts='keep' to let "
            "undated documents through unfiltered"
        )
    try:
        ts = parse_timestamp(metadata[ts_key], naive_tz=naive_tz)
    except TimestampError as exc:
        raise TimestampError(f"{label}: metadata[{ts_key!r}] is unreadable: {exc}") from exc
    return ExternalDocument(text=text, ts=ts, score=score or 0.0, id=doc_id)


# --- chat history -> turns ---------------------------------------------------------------
@runtime_checkable
class TurnSink(Protocol):
    """Where published turns go: straight into a ``Memory`` or onto the turn stream."""

    def publish(self, turns: Sequence[Turn]) -> None: ...


class MemorySink:
    """Publishes by ingesting in-process (``Memory.ingest``): durable when it returns."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory

    def publish(self, turns: Sequence[Turn]) -> None:
        self.memory.ingest(list(turns))


def message_turn(
    *,
    position: int,
    role: str,
    text: str,
    message_id: str | None,
    ts: datetime,
    namespace: str,
    session_id: str,
    metadata: Mapping[str, Any],
) -> Turn:
    """A chat message as a turn. Ids without a message id are (session, position), so
    republishing the same history is idempotent."""
    return Turn(
        id=message_id or f"{session_id}:{position}",
        namespace=namespace,
        session_id=session_id,
        role=role,
        text=text,
        ts=ts,
        metadata={k: v for k, v in metadata.items() if isinstance(v, str | int | float | bool)},
    )


def fallback_time(base: datetime, position: int) -> datetime:
    """Messages without their own time: the base time plus one microsecond per position, so
    conversation order is kept and no two messages share a time (equal times never dominate
    each other, which would make a later correction powerless)."""
    return base + timedelta(microseconds=position)
