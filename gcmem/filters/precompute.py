"""Write-time verdict precompute: at ingest, score each new chunk against its nearest MTM
neighbours, so the read path mostly finds κ in the log instead of running the model.

Contradicting chunks are near each other in embedding space (that is why top-k returns both),
so a query's candidate pairs are largely among each chunk's top-m neighbours. Pairs are
scheduled exactly as the dominance stage schedules them (``gcmem.oracle.pairs``): different
timestamps only, no keyed or identical-content pairs, the same cosine floor.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gcmem.filters.resources import Resources
from gcmem.models import Chunk
from gcmem.oracle.base import is_query_conditioned
from gcmem.oracle.pairs import FactReader, classify_pair, ledger_facts, read_facts
from gcmem.oracle.verdicts import VerdictLog
from gcmem.storage.mtm.index import Hit, MediumTermIndex

STAGE = "verdict-precompute"


class VerdictPrecompute:
    name = STAGE

    def __init__(
        self,
        log: VerdictLog,
        index: MediumTermIndex,
        *,
        m: int,
        facts: FactReader,
        cosine_floor: float | None = None,
    ) -> None:
        if m < 1:
            raise ValueError("verdict precompute needs m >= 1 neighbours")
        self.log = log
        self.index = index
        self.m = m
        self.facts = facts
        self.cosine_floor = cosine_floor
        self.pairs_scored = 0  # pairs sent to the log over this object's life (hits included)

    def on_ingest(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        if is_query_conditioned(self.log.oracle):
            return  # its verdicts depend on the query, which is unknown at write time
        by_ns: dict[str, list[int]] = {}
        for i, chunk in enumerate(chunks):
            by_ns.setdefault(chunk.namespace, []).append(i)
        for ns, rows in by_ns.items():
            self._namespace(ns, [chunks[i] for i in rows], vectors[rows])

    def _namespace(self, namespace: str, chunks: list[Chunk], vectors: np.ndarray) -> None:
        # Over-fetch: the chunk itself, equal-time and keyed neighbours do not count toward m.
        results = self.index.search(namespace, vectors, 3 * self.m + 1)
        pairs: dict[frozenset[str], tuple[Chunk, Chunk]] = {}
        for chunk, hits in zip(chunks, results, strict=True):
            for older, newer, _ in neighbour_pairs(
                chunk, hits, self.facts, m=self.m, cosine_floor=self.cosine_floor
            ):
                pairs.setdefault(frozenset((older.id, newer.id)), (older, newer))
        if pairs:
            self.log.scores(namespace, list(pairs.values()))
            self.pairs_scored += len(pairs)


def neighbour_pairs(
    chunk: Chunk,
    hits: Sequence[Hit],
    facts: FactReader,
    *,
    m: int,
    cosine_floor: float | None = None,
    vector: np.ndarray | None = None,
) -> list[tuple[Chunk, Chunk, float]]:
    """(older, newer, cosine) of the pairs κ judges between ``chunk`` and its first ``m``
    neighbours among ``hits``, scheduled as the dominance stage schedules them: equal-time and
    identical-content neighbours do not count toward m, keyed and sub-floor pairs count but
    are not judged. Cosine is the hit's score, or with ``vector`` (the chunk's), the dot
    product with the hit's stored vector (hits found around another chunk)."""
    neighbours = [h for h in hits if h.chunk.id != chunk.id]
    known = read_facts([chunk, *(h.chunk for h in neighbours)], facts)
    out: list[tuple[Chunk, Chunk, float]] = []
    taken = 0
    for hit in neighbours:
        if taken == m:
            break
        other = hit.chunk
        cosine = (
            float(vector @ hit.vector)
            if vector is not None and hit.vector is not None
            else hit.score
        )
        older, newer = (other, chunk) if other.ts < chunk.ts else (chunk, other)
        kind, _ = classify_pair(older, newer, known, cosine=cosine, cosine_floor=cosine_floor)
        if kind in ("equal_ts", "same_content"):
            continue
        taken += 1
        if kind == "oracle":
            out.append((older, newer, cosine))
    return out


def build(resources: Resources) -> VerdictPrecompute:
    s = resources.settings
    return VerdictPrecompute(
        resources.verdict_log,
        resources.index,
        m=s.oracle.verdict_precompute_m,
        facts=ledger_facts,
        cosine_floor=s.dominance.cosine_floor,
    )
