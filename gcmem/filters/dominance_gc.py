"""Write-time GC from κ: flag, at ingest, the older chunks a new chunk dominates under Φ_T.

When a chunk arrives, κ judges it against its nearest MTM neighbours (the verdict log, the
pairs scheduled as the verdict-precompute stage schedules them) and the dominance stage's own
dropping rule decides (``TemporalDominance.dropping``: in the default the no-harm rule, a
common subject and attribute and contradiction in both directions; surfaced-only and
uncertain pairs never flag). The older chunk of each such pair gets the MTM payload flag
``dominated`` whose value is the digest of the decision's identity (oracle θ, thresholds,
rule), with a record beside it: by which chunk and turn, which stage, the score, θ, the
thresholds and when. Searches for the present leave out the chunks flagged under the identity
they run with; a flag of another identity (the oracle, its threshold or its calibration
changed) counts for nothing until ``rebuild`` re-decides it. Nothing is deleted.

Restatements: a history restated a hundred times has a hundred chunks near each other, more
than one neighbour page holds. So when the new chunk dominates an older one, the stage pages
on through that older chunk's neighbourhood (already flagged chunks excluded by the search
itself), judging each new neighbour against the new chunk, until a page holds no dominated
chunk. Pages per new chunk are bounded (``DOMINANCE_GC_PAGES``); what is left is queued in
Redis and continued by the next ingest into the namespace (``DOMINANCE_GC_RESUME`` entries
each) or by ``drain``.

Concurrency: every chunk is written to the index before any ingest stage searches, so of two
workers ingesting two chunks at once, the later search sees the other chunk; κ scores are
stored insert-if-absent, so both read one number; the decision depends only on the pair and
the two event times, so no worker can flag a chunk another would keep.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

import numpy as np

from gcmem.filters.base import QueryContext
from gcmem.filters.dominance import (
    CONTRADICTION,
    PairVerdict,
    TemporalDominance,
    drop_decision,
)
from gcmem.filters.dominance import build as build_dominance
from gcmem.filters.precompute import neighbour_pairs
from gcmem.filters.resources import Resources
from gcmem.models import Chunk, Decision, ScoredChunk
from gcmem.oracle.base import is_query_conditioned
from gcmem.oracle.pairs import FactReader, classify_pair, ledger_facts, read_facts
from gcmem.storage.mtm.index import (
    DOMINATED_FLAG,
    DOMINATED_RECORD,
    DominatedIndex,
    Hit,
    MediumTermIndex,
)
from gcmem.storage.redis import Keyspace, RedisClient

STAGE = "dominance-gc"


def identity_digest(identity: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:24]


@dataclass(frozen=True)
class DominanceRebuild:
    namespace: str
    checked: int  # κ flags found (any identity)
    kept: int  # re-decided under the current identity and (re)written with it
    cleared: int  # no longer dropped under the current identity: cleared
    flagged: int  # newly flagged while paging from the dominating chunks again


class DominanceGC:
    """The κ side of write-time GC (an ingest stage)."""

    name = STAGE

    def __init__(
        self,
        dominance: TemporalDominance,
        index: MediumTermIndex,
        client: RedisClient,
        keys: Keyspace,
        *,
        page_size: int = 10,
        pages: int = 32,
        resume: int = 8,
        facts: FactReader = ledger_facts,
        cosine_floor: float | None = None,
    ) -> None:
        if page_size < 1 or pages < 1:
            raise ValueError("κ write-time GC needs page_size >= 1 and pages >= 1")
        self.dominance = dominance
        self.log = dominance.log
        self.index = index
        self.client = client
        self.keys = keys
        self.page_size = page_size
        self.pages = pages
        self.resume = resume
        self.facts = facts
        self.cosine_floor = cosine_floor
        self.identity = identity_digest(dominance.drop_identity())
        self.pages_searched = 0  # over this object's life (benchmarks read them)
        self.flags_written = 0

    # --- ingest ----------------------------------------------------------------------------
    def on_ingest(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        if is_query_conditioned(self.log.oracle):
            return  # its verdicts depend on the query, which is unknown at write time
        rows: dict[str, list[int]] = defaultdict(list)
        for i, chunk in enumerate(chunks):
            rows[chunk.namespace].append(i)
        for namespace, idx in rows.items():
            for i in idx:
                self._inherit(namespace, chunks[i], vectors[i])
                self._follow(namespace, chunks[i], vectors[i], [(chunks[i].id, vectors[i])])
            if self.resume:
                self.drain(namespace, self.resume)

    def drain(self, namespace: str, limit: int | None = None) -> int:
        """Continue up to ``limit`` (default: all) queued paging entries of the namespace, each
        with a fresh page budget; returns how many were continued."""
        done = 0
        key = self.keys.dominance_pending(namespace)
        while limit is None or done < limit:
            raw = self.client.lpop(key)
            if raw is None:
                break
            newer_id, anchor_id = json.loads(cast(str | bytes, raw))
            found = self.index.fetch(namespace, [newer_id, anchor_id])
            newer, anchor = found.get(newer_id), found.get(anchor_id)
            done += 1
            if newer is None or anchor is None or newer.vector is None or anchor.vector is None:
                continue
            self._follow(namespace, newer.chunk, newer.vector, [(anchor_id, anchor.vector)])
        return done

    def pending(self, namespace: str) -> int:
        return int(cast(int, self.client.llen(self.keys.dominance_pending(namespace))))

    def _follow(
        self,
        namespace: str,
        newer: Chunk,
        vector: np.ndarray,
        anchors: Sequence[tuple[str, np.ndarray]],
    ) -> int:
        """Page through the neighbourhood of each anchor while its pages hold chunks ``newer``
        dominates (those are flagged, so the search leaves them out of the next page), and
        through the neighbourhood of each distinct dominated text in turn; returns the flags
        written."""
        queue = deque(anchors)
        # one anchor per distinct text: restatements share a neighbourhood
        seen = {newer.content_hash}
        written = pages = 0
        while queue:
            if pages == self.pages:
                # the rest for the background: the next ingest or ``drain`` continues it
                key = self.keys.dominance_pending(namespace)
                self.client.rpush(key, *(json.dumps([newer.id, aid]) for aid, _ in queue))
                break
            _, anchor = queue[0]
            hits = self.index.search(
                namespace,
                anchor[None, :],
                3 * self.page_size + 1,
                exclude_flagged=True,
                exclude_dominated=self.identity,
            )[0]
            pages += 1
            self.pages_searched += 1
            drops = self._judge(namespace, newer, vector, hits)
            written += self._flag(namespace, drops)
            mine = [v.older for v in drops if v.newer.id == newer.id]
            if not mine:
                queue.popleft()  # a page without a dominated chunk: this neighbourhood is done
            # otherwise the same anchor again: what was just flagged is out of its next page
            vectors = {h.chunk.id: h.vector for h in hits}
            for older in mine:
                vec = vectors.get(older.id)
                if older.chunk.content_hash not in seen and vec is not None:
                    seen.add(older.chunk.content_hash)
                    queue.append((older.id, vec))
        return written

    def _inherit(self, namespace: str, chunk: Chunk, vector: np.ndarray) -> int:
        """A chunk that arrives after its replacement (out of order, or a restatement of an
        old state) is judged against what replaced its nearest flagged neighbours: if a
        neighbour was dominated by D, D is the likeliest chunk to dominate this one too, even
        when D itself is not among this chunk's nearest unflagged neighbours."""
        if not isinstance(self.index, DominatedIndex):
            return 0
        hits = self.index.search(namespace, vector[None, :], self.page_size + 1)[0]
        records = self.index.dominated_records(
            namespace, [h.chunk.id for h in hits if h.chunk.id != chunk.id]
        )
        by = sorted(
            {
                str(r["by_chunk"])
                for r in records.values()
                if r.get("identity") == self.identity and r.get("by_chunk")
            }
        )
        if not by:
            return 0
        newer = [h.chunk for h in self.index.fetch(namespace, by).values() if h.chunk.ts > chunk.ts]
        known = read_facts([chunk, *newer], self.facts)
        # scheduled as every κ pair is: keyed, identical and equal-time pairs are not κ's
        pairs = [(chunk, n) for n in newer if classify_pair(chunk, n, known)[0] == "oracle"]
        return self._flag(namespace, self.decide(namespace, pairs))

    def _judge(
        self, namespace: str, newer: Chunk, vector: np.ndarray, hits: Sequence[Hit]
    ) -> list[PairVerdict]:
        """The pairs of ``newer`` with these neighbours under which Φ_T drops the older one."""
        pairs = neighbour_pairs(
            newer,
            hits,
            self.facts,
            m=self.page_size,
            cosine_floor=self.cosine_floor,
            vector=vector,
        )
        if not pairs:
            return []
        return self.decide(namespace, [(old, new) for old, new, _ in pairs])

    def decide(self, namespace: str, pairs: Sequence[tuple[Chunk, Chunk]]) -> list[PairVerdict]:
        """κ for these (older, newer) pairs from the verdict log, and the dominance stage's
        dropping rule over them (the same rule and verdicts as at read time)."""
        if not pairs:
            return []
        lookup = self.log.scores(namespace, list(pairs))
        decisions = self.log.decide(lookup.scores)
        verdicts = [
            PairVerdict(_scored(old), _scored(new), float(score), bool(hit))
            for (old, new), score, hit in zip(pairs, lookup.scores, decisions, strict=True)
        ]
        query = QueryContext(query="", namespace=namespace, as_of=datetime.now(UTC))
        return self.dominance.dropping(verdicts, query)

    def _flag(self, namespace: str, drops: Sequence[PairVerdict]) -> int:
        by_older: dict[str, list[PairVerdict]] = defaultdict(list)
        for v in drops:
            by_older[v.older.id].append(v)
        groups: dict[str, list[str]] = defaultdict(list)
        for older_id, verdicts in by_older.items():
            groups[json.dumps(self.record(verdicts), sort_keys=True)].append(older_id)
        for raw, ids in groups.items():
            self.index.set_payload(
                namespace, ids, {DOMINATED_FLAG: self.identity, DOMINATED_RECORD: json.loads(raw)}
            )
        self.flags_written += len(by_older)
        return len(by_older)

    def record(self, verdicts: Sequence[PairVerdict]) -> dict[str, Any]:
        """The flag record: the strongest newer chunk (ties: the newest, then the id), as a
        read-time drop names it, and what the decision was made under."""
        best = min(verdicts, key=lambda v: (-v.score, -v.newer.chunk.ts.timestamp(), v.newer.id))
        ident = self.dominance.drop_identity()
        return {
            "stage": STAGE,
            "by_chunk": best.newer.id,
            "by_turn": best.newer.turn_id,
            "by_ts": best.newer.chunk.ts.isoformat(),
            "score": round(best.score, 6),
            "measure": self.dominance.measure,
            "oracle": ident["theta"],
            "threshold": ident["threshold"],
            "confirm": ident["confirm"],
            "anchor": ident["anchor"],
            "identity": self.identity,
        }

    # --- explain and rebuild ---------------------------------------------------------------
    def explain(self, namespace: str, chunk_id: str) -> Decision | None:
        return explain_flag(self.index, namespace, chunk_id, self.identity)

    def rebuild(self, namespace: str) -> DominanceRebuild:
        """Recompute the κ flags of the namespace under the current identity: re-decide each
        existing flag's recorded pair (from the verdict log), rewriting the ones Φ_T still
        drops and clearing the others; then page from every chunk, newest first, as if it had
        just arrived, so chunks the new identity drops that the old one kept are flagged too.
        Nothing is deleted."""
        if not isinstance(self.index, DominatedIndex):
            raise TypeError(f"{type(self.index).__name__} cannot list its κ flags")
        ids = self.index.dominated(namespace)
        records = self.index.dominated_records(namespace, ids)
        wanted = set(records) | {str(r["by_chunk"]) for r in records.values() if r.get("by_chunk")}
        hits = self.index.fetch(namespace, sorted(wanted))
        pairs = [
            (hits[cid].chunk, hits[str(rec["by_chunk"])].chunk)
            for cid, rec in records.items()
            if cid in hits and str(rec.get("by_chunk")) in hits
        ]
        drops = self.decide(namespace, pairs)
        kept = {v.older.id for v in drops}
        self._flag(namespace, drops)
        clear = [cid for cid in records if cid not in kept]
        if clear:
            self.index.set_payload(namespace, clear, {DOMINATED_FLAG: None, DOMINATED_RECORD: None})
        before = set(self.index.dominated(namespace))
        self.client.delete(self.keys.dominance_pending(namespace))  # the full pass covers it
        every = self.index.fetch(namespace, self.index.chunk_ids(namespace))
        for hit in sorted(every.values(), key=lambda h: (h.chunk.ts, h.chunk.id), reverse=True):
            if hit.vector is not None:
                self._follow(namespace, hit.chunk, hit.vector, [(hit.chunk.id, hit.vector)])
        self.drain(namespace)
        flagged = len(set(self.index.dominated(namespace)) - before)
        return DominanceRebuild(namespace, len(records), len(kept), len(clear), flagged)


def _scored(chunk: Chunk) -> ScoredChunk:
    return ScoredChunk(chunk=chunk, score=0.0, sources=("mtm",))


def explain_flag(
    index: MediumTermIndex, namespace: str, chunk_id: str, identity: str | None = None
) -> Decision | None:
    """The decision record of a κ-flagged chunk, as the read-time drop gives it, with the flag
    beside it (``details["write_time"]``: the record, and whether it counts under
    ``identity``); ``None`` if the chunk has no κ flag. ``KeyError`` if the index does not
    hold the chunk there."""
    hit = index.fetch(namespace, [chunk_id]).get(chunk_id)
    if hit is None:
        raise KeyError(f"no chunk {chunk_id!r} in namespace {namespace!r}")
    if not isinstance(index, DominatedIndex):
        return None
    record = index.dominated_records(namespace, [chunk_id]).get(chunk_id)
    if not record:
        return None
    by = index.fetch(namespace, [str(record.get("by_chunk"))]).get(str(record.get("by_chunk")))
    if by is None:
        return None  # the dominating chunk left the index: nothing to name
    verdict = PairVerdict(_scored(hit.chunk), _scored(by.chunk), float(record["score"]), True)
    decision = drop_decision(
        _scored(hit.chunk),
        [verdict],
        float(record["threshold"]),
        str(record.get("measure", CONTRADICTION)),
    )
    write_time = {
        "flagged": True,
        "stage": STAGE,
        "record": record,
        "current": None if identity is None else record.get("identity") == identity,
    }
    return decision.model_copy(update={"details": {**decision.details, "write_time": write_time}})


def build(resources: Resources) -> DominanceGC:
    s = resources.settings
    return DominanceGC(
        build_dominance(resources),
        resources.index,
        resources.redis,
        resources.keys,
        page_size=s.dominance.gc_page_size,
        pages=s.dominance.gc_pages,
        resume=s.dominance.gc_resume,
        facts=ledger_facts,
        cosine_floor=s.dominance.cosine_floor,
    )
