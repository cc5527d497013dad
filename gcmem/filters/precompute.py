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
from gcmem.storage.mtm.index import MediumTermIndex

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
            neighbours = [h for h in hits if h.chunk.id != chunk.id]
            facts = read_facts([chunk, *(h.chunk for h in neighbours)], self.facts)
            taken = 0
            for hit in neighbours:
                if taken == self.m:
                    break
                other = hit.chunk
                older, newer = (other, chunk) if other.ts < chunk.ts else (chunk, other)
                kind, _ = classify_pair(
                    older, newer, facts, cosine=hit.score, cosine_floor=self.cosine_floor
                )
                if kind in ("equal_ts", "same_content"):
                    continue
                taken += 1
                if kind == "oracle":
                    pairs.setdefault(frozenset((older.id, newer.id)), (older, newer))
        if pairs:
            self.log.scores(namespace, list(pairs.values()))
            self.pairs_scored += len(pairs)


def build(resources: Resources) -> VerdictPrecompute:
    s = resources.settings
    return VerdictPrecompute(
        resources.verdict_log,
        resources.index,
        m=s.oracle.verdict_precompute_m,
        facts=ledger_facts,
        cosine_floor=s.dominance.cosine_floor,
    )
