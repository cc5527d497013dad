"""Attention kernels: cuDNN's per-shape graphs are kept out of CUDA forwards, CPU is untouched."""

from __future__ import annotations

import torch

from gcmem.runtime import attention_kernels


def test_cuda_forwards_run_without_cudnn_attention_and_restore_it() -> None:
    before = torch.backends.cuda.cudnn_sdp_enabled()
    with attention_kernels("cuda:0"):
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        assert torch.backends.cuda.flash_sdp_enabled()
        assert torch.backends.cuda.mem_efficient_sdp_enabled()
        assert torch.backends.cuda.math_sdp_enabled()
    assert torch.backends.cuda.cudnn_sdp_enabled() == before


def test_cpu_forwards_change_no_backend_flag() -> None:
    before = torch.backends.cuda.cudnn_sdp_enabled()
    with attention_kernels("cpu"):
        assert torch.backends.cuda.cudnn_sdp_enabled() == before
