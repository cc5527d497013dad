"""Read latency of the default chain with write-time exclusion on and off.

    python -m bench read-latency --scenarios .bench-cache/sweep/full100/full-r100-seed0.jsonl

Per condition, one embedded ``Memory`` (the product's defaults; ``supersession_exclude`` on
or off, STM off): each instance is ingested into its own namespace, its question asked once to
warm the verdict log, then ``--repeats`` times timed (``Memory.retrieve``, wall clock). The
instances are the first ``--instances`` of each kind (keyed, behavioural) in the file, or of a
generated smoke set. Writes ``read_latency.json`` and ``read_latency.md``.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
import uuid
from pathlib import Path
from typing import Annotated

import typer

from bench.cleanup import delete_matching
from bench.scenarios.generate import generate
from bench.scenarios.model import Scenario
from gcmem import Memory, load_settings

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "read-latency"


def _instances(path: Path | None, per_kind: int) -> list[Scenario]:
    rows = (
        [Scenario.model_validate_json(line) for line in path.open() if line.strip()]
        if path is not None
        else generate("smoke")
    )
    return [
        s
        for kind in ("keyed", "behavioral")
        for s in [r for r in rows if r.kind == kind][:per_kind]
    ]


def measure(
    scenarios: list[Scenario], repeats: int, redis_url: str | None
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for exclude in (False, True):
        over: dict[str, object] = {"supersession_exclude": exclude, "stm_size": 0}
        if redis_url:
            over["redis_url"] = redis_url
        settings = load_settings(key_prefix=f"bench-rl-{uuid.uuid4().hex[:8]}", **over)
        times: list[float] = []
        excluded = 0
        with Memory.from_settings(settings) as memory:
            for s in scenarios:
                ns = f"rl-{uuid.uuid4().hex[:12]}"
                memory.ingest(
                    [{"id": t.id, "namespace": ns, "ts": t.ts, "text": t.text} for t in s.turns]
                )
                memory.retrieve(s.question, namespace=ns)  # warm the verdict log
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    result = memory.retrieve(s.question, namespace=ns)
                    times.append(1000 * (time.perf_counter() - t0))
                excluded += result.excluded_at_write
            delete_matching(memory.redis, f"{settings.storage.key_prefix}*")
        times.sort()
        out["exclude" if exclude else "no-exclude"] = {
            "queries": len(times),
            "p50_ms": statistics.median(times),
            "p95_ms": times[max(0, int(0.95 * len(times)) - 1)],
            "excluded_at_write": excluded,
        }
    return out


def cli(
    scenarios: Annotated[
        Path | None, typer.Option(help="Sweep scenario file (JSONL); default: a smoke set.")
    ] = None,
    instances: Annotated[int, typer.Option(min=1, help="Instances per kind.")] = 2,
    repeats: Annotated[int, typer.Option(min=1, help="Timed queries per instance.")] = 15,
    out: Annotated[Path, typer.Option(help="Results directory.")] = DEFAULT_OUT,
    redis_url: Annotated[str | None, typer.Option(help="Redis server.")] = None,
) -> None:
    """Read latency of the default chain with write-time exclusion on vs off."""
    chosen = _instances(scenarios, instances)
    result = {
        "scenarios": str(scenarios) if scenarios else "generated smoke",
        "instances": [s.id for s in chosen],
        "repeats": repeats,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}",
        "conditions": (conditions := measure(chosen, repeats, redis_url)),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "read_latency.json").write_text(json.dumps(result, indent=1) + "\n")
    rows = [
        f"| {name} | {c['queries']:.0f} | {c['p50_ms']:.1f} | {c['p95_ms']:.1f} "
        f"| {c['excluded_at_write']:.0f} |"
        for name, c in conditions.items()
    ]
    (out / "read_latency.md").write_text(
        "# Read latency, write-time exclusion on vs off\n\n"
        f"{result['scenarios']}; {len(chosen)} instances; {result['machine']}.\n\n"
        "| condition | queries | p50 ms | p95 ms | excluded at write (last query each) |\n"
        "|---|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n"
    )
    typer.echo((out / "read_latency.md").read_text())
