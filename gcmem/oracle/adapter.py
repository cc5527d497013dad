"""Supersession adapters: κ(older, newer) = P(the newer statement supersedes the older one).

An NLI model answers "do these two statements contradict?"; Φ_T needs "does the newer
statement replace the older one?". The two part where agent memory hurts most: a change
announced about one attribute ("ops moved the exporter to 9310") beside a still-true fact about
the same entity (NLI: often "contradiction"), and a value change worded nothing like the old
statement ("Mine is Dr. Lindqvist now" after "dentist is Dr. Okafor"; NLI: "neutral"). An
adapter is a low-rank update of every linear layer of the encoder (LoRA) and a one-logit head,
trained on labelled (older, newer) pairs. It is scored one way, the older statement first.

Adapters ship inside the package keyed by the SHA-256 fingerprint of the base weights they
were trained on (``adapters/<sha>.safetensors``, its provenance, cross-validation and
thresholds in ``adapters/<sha>.json``) and apply when the loaded model matches
(``GCMEM_ORACLE_ADAPTER=auto``, opt-in); ``none``, the default, runs the plain NLI κ; a path
loads your own (``gcmem oracle adapt``). An adapter carries its own decision thresholds,
chosen for a pair-precision target on pairs its training never saw (leave-one-writer-out), so
no NLI calibration applies on top of it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gcmem.oracle.base import OracleError

if TYPE_CHECKING:  # torch loads with the model, never at import
    import torch
    from torch import nn

SHIPPED_DIR = Path(__file__).resolve().parent / "adapters"
FORMAT = "gcmem-supersession-adapter/1"
AUTO = "auto"
NONE = "none"
HEAD = "classifier"


@dataclass(frozen=True)
class LabelledPair:
    """An (older, newer) statement pair and whether the newer one supersedes the older."""

    older: str
    newer: str
    supersedes: bool
    group: str = ""  # who wrote it (a data split): cross-validation holds out whole groups


@dataclass(frozen=True)
class Adapter:
    """Low-rank deltas per linear module, the head, and what the adapter was made for."""

    tensors: dict[str, torch.Tensor]  # "<module>.lora_a" [r, in], ".lora_b" [out, r], head
    meta: dict[str, Any]
    sha256: str  # of the tensor file: part of the oracle identity θ

    @property
    def base_weights(self) -> str:
        return str(self.meta["base_weights_sha256"])

    @property
    def threshold(self) -> float:
        """Drop threshold: κ = 1 at or above it."""
        return float(self.meta["threshold"])

    @property
    def surface_threshold(self) -> float:
        """From here up to ``threshold`` a pair is uncertain: surfaced, never dropped."""
        return float(self.meta["surface_threshold"])

    @property
    def scale(self) -> float:
        return float(self.meta["alpha"]) / int(self.meta["rank"])

    def describe(self) -> str:
        return (
            f"rank {self.meta['rank']}, {self.meta.get('pairs', '?')} training pairs, drop >= "
            f"{self.threshold:.3f}, surface >= {self.surface_threshold:.3f}"
        )

    def apply(self, model: nn.Module) -> None:
        """Merge the deltas into ``model``'s linear layers (W += scale * B @ A) and put the
        one-logit head in place of its classifier: no cost per pair beyond the base model."""
        import torch
        from torch import nn

        modules = dict(model.named_modules())
        with torch.no_grad():
            for name in _lora_modules(self.tensors):
                layer = modules.get(name)
                if not isinstance(layer, nn.Linear):
                    raise OracleError(f"adapter module {name!r} is not a linear layer of the model")
                a, b = self.tensors[f"{name}.lora_a"], self.tensors[f"{name}.lora_b"]
                delta = (b.float() @ a.float()) * self.scale
                if delta.shape != layer.weight.shape:
                    raise OracleError(f"adapter shape {tuple(delta.shape)} does not fit {name}")
                layer.weight.add_(delta.to(layer.weight.dtype))
            weight = self.tensors[f"{HEAD}.weight"]
            head = nn.Linear(weight.shape[1], 1)
            head.weight.copy_(weight.float())
            head.bias.copy_(self.tensors[f"{HEAD}.bias"].float())
            dtype = next(model.parameters()).dtype
            device = next(model.parameters()).device
            set_head(model, head.to(device=device, dtype=dtype))

    def with_thresholds(self, threshold: float, surface: float, **meta: Any) -> Adapter:
        """The same adapter deciding at ``threshold`` and surfacing from ``surface``."""
        if not 0.0 <= surface <= threshold <= 1.0:
            raise ValueError("need 0 <= surface <= threshold <= 1")
        new = {**self.meta, **meta, "threshold": threshold, "surface_threshold": surface}
        return Adapter(self.tensors, new, self.sha256)

    def save(self, path: Path) -> Path:
        """``path`` (.safetensors) and its metadata beside it (.json)."""
        from safetensors.torch import save_file

        path.parent.mkdir(parents=True, exist_ok=True)
        save_file({k: v.contiguous() for k, v in sorted(self.tensors.items())}, str(path))
        path.chmod(0o644)  # package data: readable by whoever installs it
        meta = {**self.meta, "format": FORMAT, "tensors_sha256": _sha256(path)}
        path.with_suffix(".json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        return path

    @classmethod
    def load(cls, path: Path) -> Adapter:
        from safetensors.torch import load_file

        path = Path(path)
        if path.suffix != ".safetensors":
            path = path.with_suffix(".safetensors")
        meta_path = path.with_suffix(".json")
        if not path.is_file() or not meta_path.is_file():
            raise OracleError(f"adapter {path} needs both {path.name} and {meta_path.name}")
        meta = json.loads(meta_path.read_text())
        if meta.get("format") != FORMAT:
            raise OracleError(f"{meta_path}: not a {FORMAT} file")
        digest = _sha256(path)
        if meta.get("tensors_sha256") not in (None, digest):
            raise OracleError(f"{path}: tensors do not match the sha256 in {meta_path.name}")
        return cls(load_file(str(path)), meta, digest)


@dataclass(frozen=True)
class AdapterChoice:
    """The adapter a model runs with (None: plain NLI κ), where it comes from, and why."""

    adapter: Adapter | None
    source: str  # "shipped:<file>", the user's path, or "none"
    note: str


def adapter_note(setting: str, weights: str | None) -> str:
    """What ``choose_adapter`` would pick, from the metadata only (no tensors, no torch): for
    `gcmem config show`."""
    value = setting.strip()
    if value.lower() == NONE:
        return "off (GCMEM_ORACLE_ADAPTER=none)"
    path = adapter_path(value, weights)
    if path is None:
        return "none ships for these weights"
    meta_path = path.with_suffix(".json")
    if not meta_path.is_file():
        return f"error: {meta_path} is missing"
    meta = json.loads(meta_path.read_text())
    where = f"shipped {path.name}" if value.lower() == AUTO else str(path)
    return (
        f"{where}: rank {meta.get('rank')}, drop >= {meta.get('threshold')}, surface >= "
        f"{meta.get('surface_threshold')}"
    )


def active_adapter(oracle: object) -> Adapter | None:
    """The adapter of an oracle chain's model (gate and band wrap it), if it runs with one."""
    while oracle is not None:
        adapter = getattr(oracle, "adapter", None)
        if isinstance(adapter, Adapter):
            return adapter
        oracle = getattr(oracle, "inner", None) or getattr(oracle, "primary", None)
    return None


def shipped_path(weights_sha256: str) -> Path:
    return SHIPPED_DIR / f"{weights_sha256}.safetensors"


def choose_adapter(setting: str | Adapter, weights: str | None) -> AdapterChoice:
    """What ``GCMEM_ORACLE_ADAPTER`` (or an adapter already in memory) means for a model with
    these weights."""
    if isinstance(setting, Adapter):
        _check_base(setting, weights, "the adapter")
        return AdapterChoice(setting, "in memory", f"in memory: {setting.describe()}")
    value = setting.strip()
    if value.lower() == NONE:
        return AdapterChoice(None, NONE, "off (GCMEM_ORACLE_ADAPTER=none): NLI κ")
    path = adapter_path(value, weights)
    if path is None:
        key = "no weights" if weights is None else f"weights {weights[:16]}"
        return AdapterChoice(None, NONE, f"none ships for {key}: NLI κ")
    adapter = Adapter.load(path)
    if value.lower() == AUTO:
        return AdapterChoice(adapter, f"shipped:{path.name}", f"shipped: {adapter.describe()}")
    _check_base(adapter, weights, f"adapter {value}")
    return AdapterChoice(adapter, value, f"user adapter {value}: {adapter.describe()}")


def adapter_path(setting: str, weights: str | None) -> Path | None:
    """The file ``GCMEM_ORACLE_ADAPTER`` names for a model with these weights: the user's path,
    or with ``auto`` the adapter shipped for them; None for ``none`` or when none ships."""
    value = setting.strip()
    if value.lower() == NONE:
        return None
    if value.lower() != AUTO:
        return Path(value).expanduser()
    if weights is None or not shipped_path(weights).is_file():
        return None
    return shipped_path(weights)


def _check_base(adapter: Adapter, weights: str | None, name: str) -> None:
    if weights is not None and adapter.base_weights != weights:
        raise OracleError(
            f"{name} was trained on weights {adapter.base_weights[:16]}, the loaded model has "
            f"{weights[:16]}"
        )


def _lora_modules(tensors: dict[str, Any]) -> list[str]:
    return sorted({k.removesuffix(".lora_a") for k in tensors if k.endswith(".lora_a")})


def head_of(model: nn.Module) -> nn.Linear:
    """The model's classification head (a linear layer named ``classifier``)."""
    from torch import nn

    head = getattr(model, HEAD, None)
    if not isinstance(head, nn.Linear):
        raise OracleError("the model has no linear classifier head to replace")
    return head


def set_head(model: nn.Module, head: nn.Linear) -> None:
    head_of(model)  # the model must have one to replace
    setattr(model, HEAD, head)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
