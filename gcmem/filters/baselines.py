"""Baseline rankers, shipped so users can compare gcmem with what memory systems commonly do.

Both are re-rankers, not filters: they reorder the candidate set and keep the first ``k``, so
their survivors come out in *their* order (newest first; highest combined score first), not in
input order. Every candidate beyond ``k`` gets a decision record like any filter's drop.

- ``timestamp-rerank``: newest first, truncate to k. Stale chunks go only when enough newer
  chunks outrank them, and old facts that nothing contradicts go with them.
- ``multi-factor``: relevance + recency + usage count + stability, weighted (the scoring
  many agent memories use). Usage is how often the ranker has served a chunk (a Redis counter
  per namespace, bumped for every chunk it keeps); stability is how long a statement has held
  (the time span of the candidates that restate it, cosine >= ``similarity``). Under
  accumulation both favour the stale majority: it was served more and restated longer. The
  benchmark (``python -m bench sweep``) measures exactly that.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from gcmem.filters.base import FilterOutcome, QueryContext
from gcmem.filters.resources import Resources
from gcmem.models import Decision, ScoredChunk
from gcmem.storage.redis import Keyspace, RedisClient

TIMESTAMP_STAGE = "timestamp-rerank"
MULTI_FACTOR_STAGE = "multi-factor"
FACTORS = ("relevance", "recency", "usage", "stability")


def _check_k(k: int) -> int:
    if k < 1:
        raise ValueError(f"a ranker must keep at least one chunk (k={k})")
    return k


class TimestampRerank:
    """Newest first (ties: higher relevance, then id), truncated to ``k``."""

    name = TIMESTAMP_STAGE

    def __init__(self, k: int) -> None:
        self.k = _check_k(k)

    def apply(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> FilterOutcome:
        ranked = sorted(candidates, key=lambda c: (-c.chunk.ts.timestamp(), -c.score, c.id))
        kept, cut = ranked[: self.k], ranked[self.k :]
        if not cut:
            return FilterOutcome(kept, [])
        boundary = kept[-1].chunk.ts.isoformat(timespec="seconds")
        dropped = [
            Decision(
                chunk=c,
                stage=self.name,
                reason=f"older than the {self.k} newest candidates (the {self.k}th is from "
                f"{boundary})",
                details={"rank": self.k + i + 1, "k": self.k},
            )
            for i, c in enumerate(cut)
        ]
        return FilterOutcome(kept, dropped)


class UsageCounter:
    """How often each chunk was served, per namespace (one Redis hash)."""

    def __init__(self, client: RedisClient, keys: Keyspace) -> None:
        self.client = client
        self.keys = keys

    def counts(self, namespace: str, ids: Sequence[str]) -> list[int]:
        if not ids:
            return []
        raw = cast(list[bytes | None], self.client.hmget(self.keys.usage(namespace), list(ids)))
        return [int(v) if v is not None else 0 for v in raw]

    def record(self, namespace: str, ids: Sequence[str]) -> None:
        if not ids:
            return
        pipe = self.client.pipeline(transaction=False)
        for chunk_id in ids:
            pipe.hincrby(self.keys.usage(namespace), chunk_id, 1)
        pipe.execute()


@dataclass(frozen=True)
class FactorWeights:
    relevance: float = 0.25
    recency: float = 0.25
    usage: float = 0.25
    stability: float = 0.25

    def vector(self) -> np.ndarray:
        w = np.array([self.relevance, self.recency, self.usage, self.stability], dtype=np.float64)
        if (w < 0).any() or w.sum() <= 0:
            raise ValueError("multi-factor weights must be non-negative with a positive sum")
        return w / w.sum()


def _minmax(values: np.ndarray) -> np.ndarray:
    lo, hi = float(values.min()), float(values.max())
    return np.ones_like(values) if hi - lo < 1e-12 else (values - lo) / (hi - lo)


class MultiFactorRanker:
    """score = w . (relevance, recency, usage, stability), each in [0, 1]; keep the top ``k``."""

    name = MULTI_FACTOR_STAGE

    def __init__(
        self,
        k: int,
        *,
        weights: FactorWeights | None = None,
        half_life_days: float = 30.0,
        similarity: float = 0.8,
        usage: UsageCounter | None = None,
        record_usage: bool = True,
    ) -> None:
        if half_life_days <= 0:
            raise ValueError("half_life_days must be positive")
        self.k = _check_k(k)
        self.weights = (weights or FactorWeights()).vector()
        self.half_life_days = half_life_days
        self.similarity = similarity
        self.usage = usage
        # Serving is using: kept chunks count once more. Off for read-only scoring (benchmarks
        # scoring one candidate set several ways must not feed one run into the next).
        self.record_usage = record_usage

    def factors(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> np.ndarray:
        """(n, 4) array: relevance, recency, usage, stability per candidate, each in [0, 1]."""
        n = len(candidates)
        out = np.zeros((n, 4), dtype=np.float64)
        if n == 0:
            return out
        out[:, 0] = _minmax(np.array([c.score for c in candidates], dtype=np.float64))
        ages = np.array(
            [max(0.0, (query.as_of - c.chunk.ts).total_seconds() / 86_400) for c in candidates]
        )
        out[:, 1] = 0.5 ** (ages / self.half_life_days)
        if self.usage is not None:
            counts = np.array(self.usage.counts(query.namespace, [c.id for c in candidates]))
            top = counts.max()
            if top > 0:
                out[:, 2] = np.log1p(counts) / math.log1p(top)
        out[:, 3] = self._stability(candidates, query)
        return out

    def _stability(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> np.ndarray:
        times = np.array([c.chunk.ts.timestamp() for c in candidates])
        spans = np.zeros(len(candidates))
        vectors = [query.vectors.get(c.id) for c in candidates]
        present = [i for i, v in enumerate(vectors) if v is not None]
        if present:
            mat = np.stack([vectors[i] for i in present])  # type: ignore[misc]
            sims = mat @ mat.T
            for row, i in enumerate(present):
                members = [present[j] for j in np.flatnonzero(sims[row] >= self.similarity)]
                spans[i] = times[members].max() - times[members].min()
        top = spans.max()
        return spans / top if top > 0 else spans

    def apply(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> FilterOutcome:
        if not candidates:
            return FilterOutcome([], [])
        factors = self.factors(candidates, query)
        scores = factors @ self.weights
        order = sorted(
            range(len(candidates)),
            key=lambda i: (-scores[i], -candidates[i].score, candidates[i].id),
        )
        kept = [candidates[i] for i in order[: self.k]]
        dropped = []
        for rank, i in enumerate(order[self.k :], start=self.k + 1):
            parts = ", ".join(f"{n} {v:.2f}" for n, v in zip(FACTORS, factors[i], strict=True))
            dropped.append(
                Decision(
                    chunk=candidates[i],
                    stage=self.name,
                    reason=f"multi-factor score {scores[i]:.2f} ({parts}) ranks {rank}; the "
                    f"context keeps {self.k}",
                    score=float(scores[i]),
                    details={
                        "rank": rank,
                        "k": self.k,
                        **dict(zip(FACTORS, factors[i].tolist(), strict=True)),
                    },
                )
            )
        if self.usage is not None and self.record_usage:
            self.usage.record(query.namespace, [c.id for c in kept])
        return FilterOutcome(kept, dropped)


def _context_k(resources: Resources) -> int:
    return resources.settings.baselines.k or resources.settings.memory.top_k


def build_timestamp(resources: Resources) -> TimestampRerank:
    return TimestampRerank(_context_k(resources))


def build_multi_factor(resources: Resources) -> MultiFactorRanker:
    s = resources.settings
    return MultiFactorRanker(
        _context_k(resources),
        weights=FactorWeights(*s.baselines.weights),
        half_life_days=s.baselines.half_life_days,
        similarity=s.baselines.similarity,
        usage=UsageCounter(resources.redis, resources.keys),
    )
