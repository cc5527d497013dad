"""Embedders: the ``Embedder`` protocol the index and candidate gathering use.

The transformers implementation lives in ``gcmem.embedding.transformer`` and is imported only
by whoever builds one, so ``import gcmem`` loads no torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Embedder", "load_embedder"]


@runtime_checkable
class Embedder(Protocol):
    """Texts -> L2-normalised float32 vectors of shape (len(texts), dim)."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def load_embedder(
    model: str, *, device: str = "auto", batch_size: int = 64, max_length: int = 256
) -> Embedder:
    """The transformers embedder for a model reference (directory, package or hub id).

    torch and transformers are imported here, on first use, not when gcmem is imported."""
    from gcmem.embedding.transformer import TransformerEmbedder

    return TransformerEmbedder(model, device=device, batch_size=batch_size, max_length=max_length)
