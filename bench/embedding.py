"""The real embedder behind a text -> vector cache, shared by the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from gcmem.embedding import Embedder


class CachedEmbedder:
    """The real embedder behind a text -> vector cache.

    Benchmarks ingest the same texts many times (a shared distractor pool, restated states,
    one memory per condition over the same candidates), so each distinct text is embedded
    once. Vectors are the model's own.
    Counts what the model actually embedded and its time (in all, and per text: the share of
    the batch that embedded it), for the throughputs and per-turn costs reports state.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self._cache: dict[str, np.ndarray] = {}
        self.embedded = 0
        self.seconds = 0.0
        self.ms: dict[str, float] = {}  # text -> model time attributed to it

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            t0 = time.perf_counter()
            vectors = self.inner.embed(missing)
            elapsed = time.perf_counter() - t0
            self.seconds += elapsed
            self.embedded += len(missing)
            self._cache.update(zip(missing, vectors, strict=True))
            self.ms.update(dict.fromkeys(missing, elapsed * 1e3 / len(missing)))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])
