"""The pipeline benchmark's smoke size runs end to end (real processes, real Redis) and
writes consistent results."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from bench.pipeline import SMOKE, markdown, run, turn_json, write
from gcmem.models import Turn
from tests.conftest import require_real_redis

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.model]


def test_bench_turns_are_valid_turns() -> None:
    for i in range(50):
        Turn.model_validate_json(turn_json(i))


def test_smoke_benchmark_writes_results(tmp_path: Path) -> None:
    cfg = replace(SMOKE, redis_url=require_real_redis(), out=tmp_path)
    result = run(cfg)
    write(result, cfg.out, cfg.label)
    for ext in ("json", "md", "png"):
        assert (tmp_path / f"smoke.{ext}").stat().st_size > 0
    saved = json.loads((tmp_path / "smoke.json").read_text())
    [dep] = saved["deployments"]
    ingest = dep["ingest"]
    assert ingest["turns"] == cfg.turns and ingest["turns_per_s"] > 0
    assert ingest["ratio"] == pytest.approx(ingest["turns_per_s"] / saved["embedder_texts_per_s"])
    burst = dep["burst"]
    assert burst["turns"] == cfg.burst and 0 < burst["max_lag"] <= cfg.burst
    assert burst["samples"][-1][1:] == [0, 0], "the burst drained"
    assert [q["concurrency"] for q in dep["query"]] == list(cfg.concurrency)
    for q in dep["query"]:
        assert q["queries"] == cfg.queries and 0 < q["p50_ms"] <= q["p95_ms"]
    assert "ratio to embedder" in markdown(saved)
