"""κ inside the query-latency rig: per oracle call, tokenizing, padding and forward time, and a
cProfile of the κ stage (cold verdict log, k = 10, STM off) over 12 queries.

    python -m bench.kappa_profile --device cuda --out bench/results/oracle-gpu

Writes ``kappa-profile-<device>.json`` (κ ms per query, one row per oracle call) and ``.txt``
(the profile). It found the cuDNN attention builds per shape on a GPU (docs/benchmarks.md, GPU).
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, cast

import numpy as np
import torch
import typer

import bench.oracle as bo
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.oracle.base import Pair
from gcmem.oracle.cross_encoder import CrossEncoderOracle
from gcmem.oracle.factory import build_model_oracle
from gcmem.settings import load_settings


class TimedOracle(CrossEncoderOracle):
    """The oracle with each ``score_directed`` call split into its three steps."""

    calls: list[dict[str, Any]]

    def score_directed(self, pairs: Sequence[Pair]) -> np.ndarray:
        sync = torch.cuda.synchronize if self.device.startswith("cuda") else (lambda: None)
        sync()
        t0 = time.perf_counter()
        encoded = self.encode(pairs)
        t1 = time.perf_counter()
        batches = self.batches(encoded)
        sync()
        t2 = time.perf_counter()
        out = np.zeros(len(pairs), dtype=np.float64)
        for idx, batch in batches:
            out[idx] = self.forward(batch).numpy()
        t3 = time.perf_counter()
        self.calls.append(
            {
                "pairs": len(pairs),
                "shapes": [list(b["input_ids"].shape) for _, b in batches],
                "encode_ms": (t1 - t0) * 1e3,
                "pad_ms": (t2 - t1) * 1e3,
                "forward_ms": (t3 - t2) * 1e3,
            }
        )
        return out


def cli(
    device: Annotated[str, typer.Option(help="cpu or cuda.")] = "cpu",
    queries: Annotated[int, typer.Option(min=1, help="Profiled queries.")] = 12,
    turns: Annotated[
        int | None, typer.Option(min=2, help="Memory turns (default: the ~300-turn timeline).")
    ] = None,
    out: Annotated[Path, typer.Option(help="Results directory.")] = Path("/tmp"),
) -> None:
    """Profile κ at query time on one device."""
    base = load_settings()
    cfg = replace(bo.Config(), device=device, timeline_turns=turns)
    with tempfile.TemporaryDirectory() as tmp:
        s = base.replace(data_dir=Path(tmp), ephemeral=True, device=device, filters=[], ingest=[])
        oracle = cast(
            CrossEncoderOracle,
            build_model_oracle(
                s.oracle.model_copy(update={"backend": "cross-encoder"}), s.judge, device=device
            ),
        )
        oracle.__class__ = TimedOracle  # the loaded model, with timed calls
        timed = cast(TimedOracle, oracle)
        timed.calls = []
        embedder = TransformerEmbedder(s.models.embedder, device=device)
        rig = bo.build_rig(s, embedder, oracle, bo._turns(cfg), precompute=False)
        texts = (bo.QUERIES * (queries // len(bo.QUERIES) + 1))[:queries]
        for q in texts[:2]:  # warm-up: first CUDA calls and allocator growth
            bo._reset_log(rig, "cold")
            bo.measure(rig, q, 10, False)
        timed.calls.clear()
        profile, kappa = cProfile.Profile(), []
        for q in texts:
            bo._reset_log(rig, "cold")
            cands = rig.memory.candidates(q, namespace=bo.NS, k=10, stm=False)
            kept = list(cands.candidates)
            if rig.prefilter is not None:
                kept, _ = rig.prefilter.apply(kept, cands.context)
            t0 = time.perf_counter()
            profile.enable()
            rig.dominance.verdicts(kept, cands.context)
            profile.disable()
            kappa.append((time.perf_counter() - t0) * 1e3)
    buf = io.StringIO()
    pstats.Stats(profile, stream=buf).sort_stats("cumulative").print_stats(35)
    summary = {
        "device": oracle.device,
        "kappa_ms_median": float(np.median(kappa)),
        **{
            f"{step}_ms_median": float(np.median([c[f"{step}_ms"] for c in timed.calls]))
            for step in ("encode", "pad", "forward")
        },
    }
    out.mkdir(parents=True, exist_ok=True)
    bo.write_json(
        out / f"kappa-profile-{device}.json", {**summary, "kappa_ms": kappa, "calls": timed.calls}
    )
    (out / f"kappa-profile-{device}.txt").write_text(buf.getvalue())
    typer.echo(json.dumps(summary))


if __name__ == "__main__":
    typer.run(cli)
