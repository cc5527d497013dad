"""Test doubles for unit tests of logic only. Features are tested on the real parts."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np


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
