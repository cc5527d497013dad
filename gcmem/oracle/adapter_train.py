"""Training a supersession adapter (``gcmem oracle adapt``; ``gcmem.oracle.adapter``).

LoRA on every linear layer of a sequence-classification cross-encoder and a one-logit head
initialised from its contradiction-minus-neutral logit, trained with class-weighted binary
cross-entropy on labelled (older, newer) pairs. The base weights stay as they are: what ships
is the low-rank deltas and the head (about 1.4 MB for a 6-layer MiniLM at rank 8).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn
from tqdm.auto import tqdm
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from gcmem.oracle.adapter import FORMAT, HEAD, Adapter, LabelledPair, head_of, set_head
from gcmem.oracle.cross_encoder import CrossEncoderOracle, contradiction_index


@dataclass
class TrainConfig:
    rank: int = 8
    alpha: float = 16.0
    epochs: int = 2
    lr: float = 5e-4
    batch_size: int = 16
    max_length: int = 256
    seed: int = 0
    threads: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # provenance the caller adds


class LoRALinear(nn.Module):
    """y = W x + (alpha / r) B A x, with W frozen and B starting at zero (the model starts
    exactly where the base model is)."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float) -> None:
        super().__init__()
        self.base = base
        self.lora_a = nn.Parameter(
            torch.randn(rank, base.in_features) / math.sqrt(base.in_features)
        )
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scale = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + (x @ self.lora_a.T @ self.lora_b.T) * self.scale


def train_adapter(
    base: str | Path,
    pairs: Sequence[LabelledPair],
    config: TrainConfig,
    *,
    weights_sha256: str,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> Adapter:
    """An adapter for ``base`` (a local cross-encoder directory) trained on ``pairs``.
    Deterministic for a seed and thread count on one machine. Its thresholds start at 0.5: a
    caller that cross-validated sets them (``Adapter.with_thresholds``)."""
    if not any(p.supersedes for p in pairs) or all(p.supersedes for p in pairs):
        raise ValueError("training needs pairs of both labels")
    if config.threads:
        torch.set_num_threads(config.threads)
    random.seed(config.seed)
    torch.manual_seed(config.seed)
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    model = AutoModelForSequenceClassification.from_pretrained(str(base), dtype=torch.float32)
    set_head(model, initial_head(model))
    for p in model.parameters():
        p.requires_grad = False
    wrapped: dict[str, LoRALinear] = {}
    for name, module in list(model.named_modules()):
        if isinstance(module, nn.Linear) and not name.startswith(HEAD):
            wrapped[name] = LoRALinear(module, config.rank, config.alpha)
            _replace(model, name, wrapped[name])
    head = head_of(model)
    for p in head.parameters():
        p.requires_grad = True
    data = list(pairs)
    positives = sum(p.supersedes for p in data)
    # Balance the classes part of the way: positives are ~6% of agent-memory pairs.
    loss_fn = nn.BCEWithLogitsLoss(
        pos_weight=torch.tensor(((len(data) - positives) / positives) ** 0.5)
    )
    per_epoch = math.ceil(len(data) / config.batch_size)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=config.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, config.lr, total_steps=config.epochs * per_epoch, pct_start=0.1
    )
    model.train()
    t0 = time.perf_counter()
    with tqdm(
        total=config.epochs * per_epoch, desc="adapter", unit="batch", disable=not progress
    ) as bar:
        for epoch in range(config.epochs):
            total = 0.0
            for batch in _batches(data, config.batch_size, random.Random(config.seed + epoch)):
                enc = tokenizer(
                    [p.older for p in batch],
                    [p.newer for p in batch],
                    truncation=True,
                    max_length=config.max_length,
                    padding=True,
                    return_tensors="pt",
                )
                logits = model(**enc).logits.squeeze(-1)
                loss = loss_fn(logits, torch.tensor([float(p.supersedes) for p in batch]))
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                total += loss.item()
                bar.update(1)
            log(f"epoch {epoch + 1}/{config.epochs}: mean loss {total / per_epoch:.4f}")
    tensors: dict[str, torch.Tensor] = {}
    for name, lora in wrapped.items():
        tensors[f"{name}.lora_a"] = lora.lora_a.detach().clone()
        tensors[f"{name}.lora_b"] = lora.lora_b.detach().clone()
    tensors[f"{HEAD}.weight"] = head.weight.detach().clone()
    tensors[f"{HEAD}.bias"] = head.bias.detach().clone()
    meta = {
        "format": FORMAT,
        "base_model": Path(str(base)).name,
        "base_weights_sha256": weights_sha256,
        "rank": config.rank,
        "alpha": config.alpha,
        "epochs": config.epochs,
        "lr": config.lr,
        "batch_size": config.batch_size,
        "max_length": config.max_length,
        "seed": config.seed,
        "threads": config.threads,
        "pairs": len(data),
        "positives": positives,
        "train_seconds": round(time.perf_counter() - t0, 1),
        "threshold": 0.5,
        "surface_threshold": 0.5,
        **config.extra,
    }
    return Adapter(tensors, meta, "")


def score_pairs(
    base: str | Path,
    adapter: Adapter,
    pairs: Sequence[tuple[str, str]],
    *,
    batch_size: int = 64,
) -> list[float]:
    """κ for (older, newer) pairs with ``adapter`` (saved or not) on ``base``: what
    cross-validation scores held-out pairs with, through the oracle the filter runs."""
    oracle = CrossEncoderOracle(
        str(base),
        device="cpu",
        batch_size=batch_size,
        max_length=int(adapter.meta.get("max_length", 256)),
        adapter=adapter,
    )
    return [float(x) for x in oracle.score(list(pairs))]


def initial_head(model: nn.Module) -> nn.Linear:
    """A one-logit head starting from the NLI head's contradiction-minus-neutral logit (minus
    the mean of the other classes when there is no neutral one), so training starts from what
    the model already knows."""
    old = head_of(model)
    config: Any = model.config
    c = contradiction_index(config.id2label, "contradiction")
    labels = {str(v).lower(): int(k) for k, v in config.id2label.items()}
    rest = [labels["neutral"]] if "neutral" in labels else [i for i in labels.values() if i != c]
    head = nn.Linear(old.in_features, 1)
    with torch.no_grad():
        head.weight.copy_((old.weight[c] - old.weight[rest].mean(0)).unsqueeze(0))
        head.bias.copy_((old.bias[c] - old.bias[rest].mean()).unsqueeze(0))
    return head


def _batches(data: list[LabelledPair], size: int, rng: random.Random) -> list[list[LabelledPair]]:
    """Shuffled batches of similar length (sorted within windows of 20 batches): short
    memory statements are not padded to a paragraph's length."""
    order = data[:]
    rng.shuffle(order)
    out: list[list[LabelledPair]] = []
    window = size * 20
    for start in range(0, len(order), window):
        part = sorted(order[start : start + window], key=lambda p: len(p.older) + len(p.newer))
        out += [part[i : i + size] for i in range(0, len(part), size)]
    rng.shuffle(out)
    return out


def _replace(model: nn.Module, name: str, module: nn.Module) -> None:
    parent_name, _, child = name.rpartition(".")
    parent = model.get_submodule(parent_name) if parent_name else model
    setattr(parent, child, module)
