"""``python -m bench NAME ...``: each benchmark module exposes a typer command ``cli``.

Benchmarks run from a source checkout against gcmem's public API; they are not in the wheel.
"""

import importlib

import typer

app = typer.Typer(no_args_is_help=True, help="gcmem benchmarks (run from a source checkout).")

# name -> module in this package; each defines ``cli``.
BENCHMARKS = {
    "mtm": "bench.mtm",  # embedded MTM engine choice (local mode vs Qdrant Edge)
    "oracle": "bench.oracle",  # κ quality, throughput, query latency
    "supersession": "bench.supersession",  # evolving sets, pre-filter, write-time GC
    "alignment": "bench.alignment",  # frame alignment vs grammar per family, ingest/read cost
    "sweep": "bench.sweep.cli",  # the accumulation-ratio sweep (headline benchmark)
    "sweep-generate": "bench.scenarios.generate",  # its scenario generator
    "pipeline": "bench.pipeline",  # stream ingest vs embedder, lag, bus queries
    "no-harm": "bench.heldout.run",  # still-true facts dropped on held-out text, per family
    "no-harm-pairs": "bench.heldout.pairs",  # κ's pairs on held-out text, labelled, with features
    "calibration-fit": "bench.calibration_fit",  # the calibration shipped for an NLI checkpoint
    "policies": "bench.policies",  # resolution policies x concurrent writers: anomaly matrix
    "read-latency": "bench.read_latency",  # default chain, write-time exclusion on vs off
}

for _name, _module in BENCHMARKS.items():
    app.command(_name)(importlib.import_module(_module).cli)

# the supersession adapter shipped for the offline checkpoint (a command group: cv, train,
# thresholds, question)
app.add_typer(
    importlib.import_module("bench.adapter").app,
    name="adapter",
    help="The supersession adapter: cross-validation, training, reading the question.",
)
# κ accuracy on agent memory (a command group: data, evaluate)
app.add_typer(
    importlib.import_module("bench.oracle_accuracy").app,
    name="oracle-accuracy",
    help="κ accuracy on held-out agent-memory pairs: gates, calibration, fine-tuning.",
)
