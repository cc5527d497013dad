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


def test_load_ks_mix_small_max_and_above_max() -> None:
    from bench.pipeline import LoadConfig, load_ks

    cfg = LoadConfig(queries=200, at_max_k=10, above_max_k=5, max_k=100)
    ks = load_ks(cfg)
    assert len(ks) == 200 and ks.count(100) == 10 and ks.count(101) == 5
    assert len(set(ks)) > 4 and ks.index(100) < 50, "heavy queries come early, among light ones"


def test_bounded_server_under_200_concurrent_queries(tmp_path: Path) -> None:
    """``gcmem serve`` under 200 concurrent queries (10 at GCMEM_MAX_K, 5 above it): no 5xx
    besides the bounds' own 503/504, above-max refused with 422, /healthz always 200 within
    1 s, and SIGTERM with max-k queries in flight ends the process within its timeout."""
    from bench.pipeline import LOAD_SMOKE, run_load, write_load

    cfg = replace(
        LOAD_SMOKE,
        queries=200,
        at_max_k=10,
        above_max_k=5,
        redis_url=require_real_redis(),
        out=tmp_path,
    )
    result = run_load(cfg)
    write_load(result, cfg.out, cfg.label)
    assert (tmp_path / f"{cfg.label}.md").stat().st_size > 0
    load = result["load"]
    assert load["queries"] == 200 and load["server_errors"] == 0, load["statuses"]
    assert set(load["statuses"]) <= {"200", "422", "503", "504"}
    assert load["statuses"]["422"] == 5 and load["above_max_k_statuses"] == [422]
    assert load["answered_200"] >= 150 and load["at_max_k_p50_ms"] is not None
    assert 0 < load["p50_ms"] <= load["p99_ms"]
    assert load["healthz_probes"] > 5 and load["healthz_non_200"] == 0
    assert load["healthz_max_ms"] < 1000, load["healthz_max_ms"]
    term = result["sigterm"]
    assert term["exit_s"] < cfg.shutdown_timeout_s + 5, term
    assert term["exit_code"] in (0, -15), term  # uvicorn re-raises SIGTERM after shutdown
