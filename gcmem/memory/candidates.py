"""Query -> candidate set R_k: expand, embed, MTM top-k per variant, fuse, ∪ STM, dedup."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

import numpy as np

from gcmem.embedding import Embedder
from gcmem.filters.base import CandidateFilter, QueryContext
from gcmem.models import Conflict, Decision, RetrievalResult, ScoredChunk, Source
from gcmem.storage.mtm.index import DominatedIndex, FlagIndex, Hit, MediumTermIndex
from gcmem.storage.stm import ShortTermBuffer

_STOPWORDS = frozenset(
    """a an the is are was were be been being am do does did done what which who whom whose
    when where why how of in on at to for from by with about as into than then that this these
    those it its i me my we our you your he him his she her they them their there here and or
    but if so not no yes can could should would will shall may might must have has had please
    tell say said know current currently now right any some""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[\w./:=@+-]+", re.UNICODE)


@runtime_checkable
class QueryExpander(Protocol):
    def expand(self, query: str) -> list[str]:
        """The query variants to search with; the first is the raw query."""
        ...


class KeywordExpander:
    """The raw query plus its content words (question words, stopwords and punctuation gone):
    short keyword queries match terse stored facts that a full question embeds away from."""

    def expand(self, query: str) -> list[str]:
        words = [w.strip(".,;:!?") for w in _WORD.findall(query)]
        keywords = " ".join(w for w in words if w and w.lower() not in _STOPWORDS)
        variants = [query]
        if keywords and keywords.lower() != query.strip().lower():
            variants.append(keywords)
        return variants


@dataclass
class CandidateSet:
    """R_k with everything a filter needs; benchmarks run several filter chains on one set."""

    context: QueryContext
    candidates: list[ScoredChunk]
    variants: list[str]
    k: int
    timings_ms: dict[str, float] = field(default_factory=dict)
    # flagged chunks the MTM search left out (0 when it did not exclude flags)
    excluded_at_write: int = 0


def _fuse(per_variant: Sequence[Sequence[Hit]], k: int) -> list[Hit]:
    """Max-score fusion: a chunk's relevance is its best cosine over the variants."""
    best: dict[str, Hit] = {}
    for hits in per_variant:
        for hit in hits:
            prev = best.get(hit.chunk.id)
            if prev is None or hit.score > prev.score:
                best[hit.chunk.id] = hit
    return sorted(best.values(), key=lambda h: (-h.score, h.chunk.id))[:k]


def gather_candidates(
    query: str,
    *,
    namespace: str,
    k: int,
    as_of: datetime,
    embedder: Embedder,
    index: MediumTermIndex,
    stm: ShortTermBuffer | None,
    expander: QueryExpander,
    exclude_flagged: bool = False,
    exclude_dominated: str | None = None,
    earlier: bool = False,
) -> CandidateSet:
    timings: dict[str, float] = {}

    t0 = time.perf_counter()
    variants = expander.expand(query)
    timings["expand"] = (time.perf_counter() - t0) * 1e3

    t0 = time.perf_counter()
    qvecs = embedder.embed(variants)
    timings["embed"] = (time.perf_counter() - t0) * 1e3

    t0 = time.perf_counter()
    per_variant = index.search(
        namespace,
        qvecs,
        k,
        exclude_flagged=exclude_flagged,
        exclude_dominated=exclude_dominated,
    )
    fused = _fuse(per_variant, k)
    excluded = (
        index.count_flagged(namespace) if exclude_flagged and isinstance(index, FlagIndex) else 0
    )
    if exclude_dominated is not None and isinstance(index, DominatedIndex):
        excluded += index.count_dominated(namespace, exclude_dominated, unflagged=exclude_flagged)
    timings["search"] = (time.perf_counter() - t0) * 1e3

    t0 = time.perf_counter()
    sources: dict[str, set[Source]] = {h.chunk.id: {"mtm"} for h in fused}
    hits: dict[str, Hit] = {h.chunk.id: h for h in fused}
    if stm is not None:
        recent = stm.recent(namespace)
        missing = [c.id for c in recent if c.id not in hits]
        stored = index.fetch(namespace, missing)
        for chunk in recent:
            sources.setdefault(chunk.id, set()).add("stm")
            if chunk.id in hits:
                continue
            vec = stored[chunk.id].vector if chunk.id in stored else None
            score = float(np.max(qvecs @ vec)) if vec is not None else 0.0
            hits[chunk.id] = Hit(chunk, score, vec)
    timings["stm"] = (time.perf_counter() - t0) * 1e3

    ordered = sorted(hits.values(), key=lambda h: (-h.score, h.chunk.id))
    candidates = [
        ScoredChunk(chunk=h.chunk, score=h.score, sources=tuple(sorted(sources[h.chunk.id])))
        for h in ordered
    ]
    vectors = {h.chunk.id: h.vector for h in ordered if h.vector is not None}
    context = QueryContext(
        query=query,
        namespace=namespace,
        as_of=as_of,
        query_vector=qvecs[0],
        vectors=vectors,
        earlier=earlier,
    )
    return CandidateSet(context, candidates, variants, k, timings, excluded)


def run_filter_chain(candidates: CandidateSet, chain: Sequence[CandidateFilter]) -> RetrievalResult:
    """Run filter stages, in order, over a candidate set: the memory's own candidates
    (``Memory.filter``) and other retrievers' documents (``gcmem.memory.documents``) alike."""
    ctx = candidates.context
    kept: list[ScoredChunk] = list(candidates.candidates)
    dropped: list[Decision] = []
    superseded: list[Decision] = []
    recorded: set[str] = set()  # chunks in ``superseded``
    conflicts: list[Conflict] = []
    timings = dict(candidates.timings_ms)
    for stage in chain:
        t0 = time.perf_counter()
        outcome = stage.apply(kept, ctx)
        timings[stage.name] = (time.perf_counter() - t0) * 1e3
        if ctx.earlier and outcome.dropped:
            # asked for an earlier value: what the stage decided against is the answer
            order = {c.id: i for i, c in enumerate(kept)}
            back = [d.chunk for d in outcome.dropped]
            kept = sorted([*outcome.kept, *back], key=lambda c: order[c.id])
            # one record a chunk: a later stage may decide against it again
            superseded.extend(d for d in outcome.dropped if d.chunk.id not in recorded)
            recorded.update(d.chunk.id for d in outcome.dropped)
        else:
            kept = outcome.kept
            dropped.extend(outcome.dropped)
        conflicts.extend(outcome.conflicts)
    if ctx.earlier:
        kept = [_shown(c) for c in kept]
    alive = {c.id for c in kept}
    conflicts = [c for c in conflicts if c.older.id in alive and c.newer.id in alive]
    return RetrievalResult(
        query=ctx.query,
        namespace=ctx.namespace,
        k=candidates.k,
        as_of=ctx.as_of,
        kept=kept,
        dropped=dropped,
        superseded=superseded,
        conflicts=conflicts,
        candidates=len(candidates.candidates),
        excluded_at_write=candidates.excluded_at_write,
        variants=candidates.variants,
        filters=[s.name for s in chain],
        timings_ms=timings,
        budgets={stage: dict(v) for stage, v in ctx.budgets.items()},
    )


def _shown(candidate: ScoredChunk) -> ScoredChunk:
    """The chunk with its superseded statements shown, each with its note, not excised."""
    if not any(s.excised for s in candidate.stale_sentences):
        return candidate
    shown = tuple(s.model_copy(update={"evidence": "mention"}) for s in candidate.stale_sentences)
    return candidate.model_copy(update={"stale_sentences": shown})
