"""κ as an NLI cross-encoder on transformers: P(contradiction) for (premise, hypothesis).

- The contradiction class is looked up in the model's ``config.id2label`` (never assumed).
- Pairs are tokenized once, sorted by length and batched, so short memory sentences are not
  padded to the longest pair of a query; results return in input order.
- CUDA runs in bf16 (fp16 where bf16 is unsupported) unless told otherwise; CPU runs fp32.
- On a GPU the forward pass is cheap and tokenizing is the cost (bench/results/oracle-gpu):
  fast tokenizers encode through the Rust backend and batches are padded in numpy, and the
  default batch is larger there (128 pairs; 32 on the CPU, where larger batches gain little).
"""

from __future__ import annotations

import copy
import os
import threading
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from tqdm.auto import tqdm
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from gcmem.oracle.adapter import NONE, Adapter, choose_adapter
from gcmem.oracle.base import (
    Direction,
    OracleError,
    OracleIdentity,
    Pair,
    apply_direction,
    check_direction,
    check_threshold,
    decide,
)
from gcmem.oracle.fingerprint import WeightsFingerprint, local_model_dir
from gcmem.runtime import (
    attention_kernels,
    quiet_transformers,
    resolve_device,
    resolve_model_source,
)
from gcmem.settings import check_template

Precision = Literal["auto", "fp32", "fp16", "bf16"]
_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
# Pairs per forward pass when not configured: on an H200, 128 doubles end-to-end pairs/s over
# 32 and 512 adds little (bench/results/oracle-gpu/throughput-cuda.md); on the CPU 32 is enough.
DEFAULT_BATCH = {"cpu": 32, "cuda": 128}
PAD_MULTIPLE_CUDA = 16


def _round_up(width: int, multiple: int, cap: int) -> int:
    """width rounded up to a multiple, never past cap (truncation's length) unless it was."""
    return max(width, min(-(-width // multiple) * multiple, cap))


def contradiction_index(id2label: dict[int, str] | dict[str, str], label: str) -> int:
    """The class index whose label is ``label`` (case-insensitive) in a config's id2label."""
    wanted = label.strip().lower()
    matches = [int(i) for i, name in id2label.items() if str(name).strip().lower() == wanted]
    if len(matches) != 1:
        names = ", ".join(f"{i}={n}" for i, n in sorted(id2label.items(), key=lambda x: int(x[0])))
        raise OracleError(
            f"the model's id2label ({names}) has {len(matches)} labels named {label!r}; "
            "use an NLI model whose config names its classes, or set "
            "GCMEM_ORACLE_CONTRADICTION_LABEL to the name of its contradiction class"
        )
    return matches[0]


def resolve_precision(precision: Precision, device: str) -> torch.dtype:
    if precision != "auto":
        if device == "cpu" and precision == "fp16":
            raise ValueError("fp16 inference is not supported on CPU; use fp32 or bf16")
        return _DTYPES[precision]
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32


class CrossEncoderOracle:
    kind = "cross-encoder"

    def __init__(
        self,
        model: str,
        *,
        device: str = "auto",
        precision: Precision = "auto",
        max_length: int = 256,
        batch_size: int | None = None,
        pad_to_multiple_of: int | None = None,
        direction: Direction = "max",
        threshold: float = 0.5,
        template: str = "{text}",
        contradiction_label: str = "contradiction",
        fingerprint: WeightsFingerprint | None = None,
        progress: bool = False,
        question_template: str | None = None,
        adapter: str | Adapter = NONE,
    ) -> None:
        quiet_transformers()
        if (batch_size is not None and batch_size < 1) or max_length < 8:
            raise ValueError("batch_size must be >= 1 and max_length >= 8")
        if pad_to_multiple_of is not None and pad_to_multiple_of < 1:
            raise ValueError("pad_to_multiple_of must be >= 1")
        self.model_name = model
        self.source = resolve_model_source(model)
        self.device = resolve_device(device)
        self.dtype = resolve_precision(precision, self.device)
        self.max_length = max_length
        self.batch_size = (
            batch_size or DEFAULT_BATCH["cuda" if self.device.startswith("cuda") else "cpu"]
        )
        # On CUDA every new (batch, width) shape costs kernel selection on first sight, and
        # each query brings new widths; rounding widths up bounds the shapes. The CPU has no
        # such cost, so padding there would only add work.
        self.pad_to_multiple_of = pad_to_multiple_of or (
            PAD_MULTIPLE_CUDA if self.device.startswith("cuda") else 1
        )
        self.direction = check_direction(direction)
        self.threshold = check_threshold(threshold)
        self.template = check_template(template, {"text"}, {"text"}, "GCMEM_ORACLE_TEMPLATE")
        # Query-conditioned κ: each statement is rendered with the question in front
        # ("contradict relative to the user query"); None = the unconditioned form only.
        self.question_template = (
            None
            if question_template is None
            else check_template(
                question_template,
                {"question", "text"},
                {"question", "text"},
                "GCMEM_ORACLE_QUESTION_TEMPLATE",
            )
        )
        self.progress = progress
        # Fast tokenizers have failed with "Already borrowed" when query threads tokenize
        # concurrently with truncation (huggingface/tokenizers#537); tokenizing one call at a
        # time costs little next to the forward pass, which stays concurrent.
        self._tokenizer_lock = threading.Lock()
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(self.source)
            self.model = (
                AutoModelForSequenceClassification.from_pretrained(self.source, dtype=self.dtype)
                .to(self.device)
                .eval()
            )
        except (OSError, ValueError) as exc:  # not found, not cached offline, no network
            raise OracleError(
                f"cannot load the NLI model {model!r} (GCMEM_NLI_MODEL): {exc}\n"
                "Set GCMEM_NLI_MODEL to a local model directory, or allow access to the hub; "
                "GCMEM_FILTERS=supersession runs without a model."
            ) from exc
        id2label = {int(k): str(v) for k, v in self.model.config.id2label.items()}
        self.label_index = contradiction_index(id2label, contradiction_label)
        self.id2label = id2label
        weights = (fingerprint or WeightsFingerprint()).of(local_model_dir(self.source))
        # A supersession adapter turns the NLI head into P(newer supersedes older): one
        # direction, the older statement first, whatever ORACLE_DIRECTION says.
        self.adapter_choice = choose_adapter(adapter, weights)
        self.adapter = self.adapter_choice.adapter
        if self.adapter is not None:
            self.adapter.apply(self.model)
            self.direction = "forward"
        self._identity = OracleIdentity(
            self.kind,
            {
                # A directory's name, not its path: the same files elsewhere share verdicts
                # (the weights hash pins the content).
                "model": Path(self.source).name if os.path.isdir(self.source) else self.source,
                "weights_sha256": weights,
                "template": self.template,
                "labels": {str(k): v for k, v in sorted(id2label.items())},
                "contradiction_index": self.label_index,
                "direction": self.direction,
                # Truncation changes what the model sees, hence its scores.
                "max_length": self.max_length,
            },
        )
        if self.adapter is not None:
            # Only when one applies, so the θ of the plain NLI oracle is unchanged.
            self._identity = OracleIdentity(
                self.kind, {**self._identity.params, "adapter_sha256": self.adapter.sha256}
            )
        if self.question_template is not None:
            # Only when set, so the θ of an unconditioned oracle is unchanged by this option.
            self._identity = OracleIdentity(
                self.kind, {**self._identity.params, "question_template": self.question_template}
            )
        # Precision is deliberately not in θ: fp32/bf16 scores differ in the third decimal,
        # and CPU and GPU workers should share one log (the first writer's score wins).

    @property
    def identity(self) -> OracleIdentity:
        return self._identity

    def with_direction(self, direction: Direction) -> CrossEncoderOracle:
        """The same loaded model under another direction policy (its own θ)."""
        if self.adapter is not None and direction != "forward":
            raise OracleError("a supersession adapter scores one direction (older, newer) only")
        view = copy.copy(self)
        view.direction = check_direction(direction)
        view._identity = OracleIdentity(
            self.kind, {**self._identity.params, "direction": view.direction}
        )
        return view

    @property
    def symmetric(self) -> bool:
        return self.direction != "forward"

    @property
    def query_conditioned(self) -> bool:
        return self.question_template is not None

    def score_with_question(self, pairs: Sequence[Pair], question: str) -> np.ndarray:
        """P(contradiction) per pair, judged relative to ``question``."""
        if self.question_template is None:
            return self.score(pairs)
        qt = self.question_template
        rendered = [
            (qt.format(question=question, text=a), qt.format(question=question, text=b))
            for a, b in pairs
        ]
        return self.score(rendered)

    def decide(self, scores: np.ndarray | float) -> np.ndarray:
        return decide(scores, self.threshold)

    def score(self, pairs: Sequence[Pair]) -> np.ndarray:
        """P(contradiction) per (older, newer) pair under the direction policy."""
        return apply_direction(self.score_directed, pairs, self.direction)

    def encode(self, pairs: Sequence[Pair]) -> list[dict[str, Any]]:
        """Tokenized (premise, hypothesis) pairs, unpadded, truncated to max_length."""
        premises = [self.template.format(text=a) for a, _ in pairs]
        hypotheses = [self.template.format(text=b) for _, b in pairs]
        with self._tokenizer_lock:
            if self._pad_values is not None:
                # The Rust backend directly: the same ids as the call below (longest-first
                # truncation, special tokens added) without building per-pair Python objects.
                backend = self.tokenizer.backend_tokenizer
                backend.no_padding()
                backend.enable_truncation(self.max_length, strategy="longest_first")
                encodings = backend.encode_batch(list(zip(premises, hypotheses, strict=True)))
                return [
                    {
                        "input_ids": e.ids,
                        "token_type_ids": e.type_ids,
                        "attention_mask": e.attention_mask,
                    }
                    for e in encodings
                ]
            enc = self.tokenizer(
                premises, hypotheses, truncation=True, max_length=self.max_length, padding=False
            )
        keys = list(enc.keys())
        return [{k: enc[k][i] for k in keys} for i in range(len(pairs))]

    @cached_property
    def _pad_values(self) -> dict[str, int] | None:
        """Pad value per model input when batches can be padded in numpy: a fast tokenizer
        that pads on the right and whose model inputs are the three BERT-style ones."""
        tok = self.tokenizer
        inputs = set(tok.model_input_names)
        if (
            not getattr(tok, "is_fast", False)
            or tok.padding_side != "right"
            or tok.pad_token_id is None
            or not inputs <= {"input_ids", "token_type_ids", "attention_mask"}
        ):
            return None
        values = {"input_ids": int(tok.pad_token_id), "attention_mask": 0}
        if "token_type_ids" in inputs:
            values["token_type_ids"] = int(getattr(tok, "pad_token_type_id", 0))
        return values

    def batches(self, encoded: Sequence[dict[str, Any]]) -> list[tuple[np.ndarray, Any]]:
        """Length-sorted, padded batches: (input positions, tensors on the device)."""
        lengths = np.fromiter((len(e["input_ids"]) for e in encoded), np.int64, len(encoded))
        order = np.argsort(lengths, kind="stable")
        pad = self._pad_values
        out: list[tuple[np.ndarray, Any]] = []
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            if pad is None:
                with self._tokenizer_lock:
                    padded = self.tokenizer.pad(
                        [encoded[i] for i in idx],
                        pad_to_multiple_of=self.pad_to_multiple_of,
                        return_tensors="pt",
                    )
                out.append((idx, padded.to(self.device)))
                continue
            width = _round_up(int(lengths[idx].max()), self.pad_to_multiple_of, self.max_length)
            batch = {}
            for name, value in pad.items():
                rows = np.full((len(idx), width), value, dtype=np.int64)
                for row, i in enumerate(idx):
                    seq = encoded[i][name]
                    rows[row, : len(seq)] = seq
                batch[name] = torch.from_numpy(rows).to(self.device)
            out.append((idx, batch))
        return out

    @torch.inference_mode()
    def forward(self, batch: Any) -> torch.Tensor:
        """P(contradiction), or with an adapter P(supersedes), for one padded batch (float32,
        on the CPU)."""
        with attention_kernels(self.device):
            logits = self.model(**batch).logits.float()
        if self.adapter is not None:
            return torch.sigmoid(logits[:, 0]).cpu()
        return torch.softmax(logits, dim=-1)[:, self.label_index].cpu()

    def score_directed(self, pairs: Sequence[Pair]) -> np.ndarray:
        """P(contradiction) with the first statement as premise, no direction policy."""
        out = np.zeros(len(pairs), dtype=np.float64)
        if not pairs:
            return out
        batches = self.batches(self.encode(pairs))
        for idx, batch in tqdm(batches, desc="κ", unit="batch", disable=not self.progress):
            out[idx] = self.forward(batch).numpy()
        return out
