"""Which candidate pairs need κ, and which are decided without it.

For Φ_T only pairs with different event times matter (equal timestamps never dominate). Of
those, a pair is decided without the oracle when
- both chunks have the same content (a chunk cannot contradict itself), or
- the two are excerpts of two named files (two files' lines state no key of each other), or
- both assert the same normalised (subject, relation) key: the ledger's deterministic rule
  decides it (same object -> compatible; a different object -> the newer supersedes), or
- an optional cosine floor says the two are too dissimilar to be about the same thing.
Everything else goes to the oracle, in one batch per query.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from gcmem.facts.extract import chunk_facts
from gcmem.facts.lines import grown_list, two_files
from gcmem.models import Chunk, Fact, ScoredChunk
from gcmem.normalize import normalize_key, normalize_object

PairClass = Literal[
    "equal_ts", "same_content", "two_files", "keyed_same", "keyed_conflict", "floor", "oracle"
]
# (subject, relation) key -> the set of objects a chunk asserts for it (whitespace-collapsed).
KeyedFacts = Mapping[tuple[str, str], frozenset[str]]
FactReader = Callable[[Chunk], KeyedFacts]


def ledger_facts(chunk: Chunk) -> KeyedFacts:
    """A chunk's assertions keyed the way the ledger keys them (``gcmem.facts.extract``).

    Extraction depends only on the text and the explicit facts, and a memory's hot chunks
    recur query after query, so results are cached by those (bounded, cleared when full).
    """
    cache_key = (chunk.text, chunk.explicit_facts, chunk.facts)
    cached = _FACTS_CACHE.get(cache_key)
    if cached is not None:
        return cached
    out: dict[tuple[str, str], set[str]] = {}
    for fact in chunk_facts(chunk):
        key = normalize_key(fact.subject, fact.relation)
        out.setdefault(key, set()).add(normalize_object(fact.object))
    keyed = {k: frozenset(v) for k, v in out.items()}
    if len(_FACTS_CACHE) >= _FACTS_CACHE_SIZE:
        _FACTS_CACHE.clear()
    _FACTS_CACHE[cache_key] = keyed
    return keyed


_FACTS_CACHE_SIZE = 8192
_FACTS_CACHE: dict[tuple[str, bool, tuple[Fact, ...]], KeyedFacts] = {}


def no_facts(chunk: Chunk) -> KeyedFacts:
    """No keyed decisions: every pair with different times goes to the oracle."""
    return {}


@dataclass
class PairPlan:
    """The pairs of one candidate set, classified. Pairs are (older, newer)."""

    oracle: list[tuple[ScoredChunk, ScoredChunk]] = field(default_factory=list)
    keyed: list[tuple[ScoredChunk, ScoredChunk, bool, tuple[str, ...]]] = field(
        default_factory=list
    )  # (older, newer, conflict?, the shared keys as "subject / relation")
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def pairs(self) -> int:
        return len(self.oracle) + len(self.keyed) + sum(self.skipped.values())


def classify_pair(
    older: Chunk,
    newer: Chunk,
    facts: Mapping[str, KeyedFacts],
    *,
    cosine: float | None = None,
    cosine_floor: float | None = None,
) -> tuple[PairClass, tuple[str, ...]]:
    """How a pair is decided; for keyed pairs also the shared keys."""
    if older.ts == newer.ts:
        return "equal_ts", ()
    if older.content_hash == newer.content_hash:
        return "same_content", ()
    if two_files(older.text, newer.text):
        return "two_files", ()  # ``services/api/.env`` and ``services/worker/.env``
    fa, fb = facts.get(older.id, {}), facts.get(newer.id, {})
    shared = sorted(set(fa) & set(fb))
    if shared:
        # a list the newer chunk keeps every member of grew: no conflict (``grown_list``)
        conflicting = tuple(
            f"{s} / {r}"
            for s, r in shared
            if fa[(s, r)] != fb[(s, r)] and not _grew(fa[(s, r)], fb[(s, r)])
        )
        if conflicting:
            return "keyed_conflict", conflicting
        return "keyed_same", tuple(f"{s} / {r}" for s, r in shared)
    if cosine_floor is not None and cosine is not None and cosine < cosine_floor:
        return "floor", ()
    return "oracle", ()


def _grew(older: frozenset[str], newer: frozenset[str]) -> bool:
    return all(any(grown_list(o, n) for n in newer) for o in older)


def read_facts(chunks: Sequence[Chunk], reader: FactReader) -> dict[str, KeyedFacts]:
    return {c.id: reader(c) for c in chunks}


def plan_pairs(
    candidates: Sequence[ScoredChunk],
    *,
    facts: Mapping[str, KeyedFacts],
    vectors: Mapping[str, np.ndarray],
    cosine_floor: float | None = None,
) -> PairPlan:
    """Every unordered candidate pair once, oriented (older, newer), in a canonical order."""
    ordered = sorted(candidates, key=lambda c: (c.chunk.ts, c.chunk.id))
    plan = PairPlan()
    for i, a in enumerate(ordered):
        va = vectors.get(a.chunk.id)
        for b in ordered[i + 1 :]:
            vb = vectors.get(b.chunk.id)
            cosine = float(va @ vb) if va is not None and vb is not None else None
            kind, keys = classify_pair(
                a.chunk, b.chunk, facts, cosine=cosine, cosine_floor=cosine_floor
            )
            if kind == "oracle":
                plan.oracle.append((a, b))
            elif kind in ("keyed_same", "keyed_conflict"):
                plan.keyed.append((a, b, kind == "keyed_conflict", keys))
            else:
                plan.skipped[kind] = plan.skipped.get(kind, 0) + 1
    return plan
