"""``TransformerEmbedder``: a sentence-transformers model run on transformers directly.

Mean pooling (or CLS, per the model's ``1_Pooling/config.json``) and L2 normalisation, so the
dot product of two vectors is their cosine similarity.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from tqdm.auto import tqdm
from transformers import AutoModel, AutoTokenizer

from gcmem.runtime import (
    attention_kernels,
    quiet_transformers,
    resolve_device,
    resolve_model_source,
)


class TransformerEmbedder:
    """An ``Embedder`` (``gcmem.embedding``) over a local directory, model package or hub id."""

    def __init__(
        self,
        model: str,
        *,
        device: str = "auto",
        batch_size: int = 64,
        max_length: int = 256,
        progress: bool = False,
    ) -> None:
        quiet_transformers()
        source = resolve_model_source(model)
        self._name = model
        self.device = resolve_device(device)
        self.batch_size = batch_size
        self.max_length = max_length
        self.progress = progress
        self.tokenizer = AutoTokenizer.from_pretrained(source)
        self.model = AutoModel.from_pretrained(source).to(self.device).eval()
        self._cls_pooling = _uses_cls_pooling(Path(source))
        self._dim = int(self.model.config.hidden_size)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    @torch.inference_mode()
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        # Length-sorted batches waste less padding; results go back to input order.
        order = np.argsort([len(t) for t in texts], kind="stable")
        starts = range(0, len(texts), self.batch_size)
        for start in tqdm(starts, desc="embed", disable=not self.progress, unit="batch"):
            idx = order[start : start + self.batch_size]
            batch = self.tokenizer(
                [texts[i] for i in idx],
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
            ).to(self.device)
            with attention_kernels(self.device):
                hidden = self.model(**batch).last_hidden_state
            if self._cls_pooling:
                pooled = hidden[:, 0]
            else:
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            pooled = torch.nn.functional.normalize(pooled.float(), dim=-1)
            out[idx] = pooled.cpu().numpy()
        return out


def _uses_cls_pooling(model_dir: Path) -> bool:
    config = model_dir / "1_Pooling" / "config.json"
    if not config.is_file():
        return False
    data = json.loads(config.read_text())
    return bool(data.get("pooling_mode_cls_token")) and not data.get("pooling_mode_mean_tokens")
