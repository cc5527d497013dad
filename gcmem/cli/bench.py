"""``gcmem bench ...``: each benchmark module in ``bench/`` exposes a typer command ``cli``."""

from __future__ import annotations

import importlib

import typer

bench_app = typer.Typer(no_args_is_help=True)

# name -> module in the top-level ``bench`` package; each defines ``cli``.
BENCHMARKS: dict[str, str] = {
    "mtm": "bench.mtm",  # issue 2: embedded MTM engine choice (local mode vs Qdrant Edge)
    "oracle": "bench.oracle",  # issue 4: κ quality, throughput, query latency
    "supersession": "bench.supersession",  # issue 3: evolving sets, pre-filter, write-time GC
    "sweep": "bench.sweep.cli",  # issue 6: the accumulation-ratio sweep (headline benchmark)
    "sweep-generate": "bench.scenarios.generate",  # issue 6: its scenario generator
    "pipeline": "bench.pipeline",  # issue 5: stream ingest vs embedder, lag, bus queries
}

for _name, _module in BENCHMARKS.items():
    bench_app.command(_name)(importlib.import_module(_module).cli)

# issue 8: κ accuracy on agent memory (a command group: data, evaluate)
bench_app.add_typer(
    importlib.import_module("bench.oracle_accuracy").app,
    name="oracle-accuracy",
    help="κ accuracy on held-out agent-memory pairs: gates, calibration, fine-tuning.",
)
