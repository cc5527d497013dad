"""Test doubles for unit tests of logic only. Features are tested on the real parts."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np

from gcmem.models import Chunk, ScoredChunk, chunk_id, content_hash
from gcmem.oracle.base import OracleIdentity

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def scored_chunk(
    text: str,
    day: float,
    turn: str | None = None,
    score: float = 0.5,
    *,
    namespace: str = "ns",
    t0: datetime = T0,
) -> ScoredChunk:
    """A one-chunk candidate ``day`` days after ``t0`` (its turn id from its text and day)."""
    turn_id = turn or f"t-{text[:12]}-{day}"
    chunk = Chunk(
        id=chunk_id(namespace, turn_id, 0),
        namespace=namespace,
        turn_id=turn_id,
        index=0,
        text=text,
        ts=t0 + timedelta(days=day),
        content_hash=content_hash(text),
    )
    return ScoredChunk(chunk=chunk, score=score)


class HashingEmbedder:
    """Deterministic bag-of-words hashing embedder: texts sharing words get similar vectors.
    Fast and model-free, for unit tests of logic that only need "similar texts are close"."""

    def __init__(self, dim: int = 64) -> None:
        self._dim = dim
        self.calls = 0

    @property
    def name(self) -> str:
        return f"hashing-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
                out[i, h % self._dim] += 1.0 if (h >> 32) & 1 else -1.0
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else out[i]
            if not norm:
                out[i, 0] = 1.0
        return out


class ScriptedOracle:
    """A ConflictOracle double: P(contradiction) from a table of unordered text pairs
    (default 0.0), counting calls and scored pairs. For logic tests of Φ_T and the verdict log;
    the real cross-encoder is tested in tests/test_oracle.py."""

    def __init__(
        self,
        table: dict[frozenset[str], float] | None = None,
        *,
        threshold: float = 0.5,
        name: str = "scripted",
    ) -> None:
        self.table = dict(table or {})
        self.threshold = threshold
        self.calls = 0
        self.pairs_scored: list[tuple[str, str]] = []
        self._identity = OracleIdentity("scripted", {"name": name})

    @property
    def identity(self) -> OracleIdentity:
        return self._identity

    @property
    def symmetric(self) -> bool:
        return True

    def contradict(self, a: str, b: str, score: float = 0.9) -> None:
        self.table[frozenset((a, b))] = score

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.calls += 1
        self.pairs_scored.extend(pairs)
        return np.array([self.table.get(frozenset(p), 0.0) for p in pairs], dtype=np.float64)

    def decide(self, scores: np.ndarray | float) -> np.ndarray:
        return np.asarray(scores, dtype=np.float64) >= self.threshold
