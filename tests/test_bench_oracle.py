"""The oracle benchmark's smoke run: every mode end to end on the real model, tiny sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import kappa_profile
from bench import oracle as bench_oracle
from bench.cli import BENCHMARKS
from bench.oracle_pairs import memory_pairs

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_memory_pairs_are_labelled_and_deterministic() -> None:
    pairs = memory_pairs()
    assert pairs == memory_pairs()
    cats = {p.category for p in pairs}
    assert cats == {"keyed-flip", "behavioural", "compatible", "restatement", "unrelated"}
    assert all(p.contradiction == (p.category in {"keyed-flip", "behavioural"}) for p in pairs)
    assert all(p.older != p.newer for p in pairs)


def test_oracle_benchmark_smoke(
    tmp_path: Path, nli_model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert BENCHMARKS["oracle"] == "bench.oracle"
    monkeypatch.setenv("GCMEM_NLI_MODEL", nli_model_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    # One torch thread: on a busy 2-core runner two threads contend and run several times slower.
    bench_oracle.cli(smoke=True, out=tmp_path, threads=1)
    for mode in ("quality", "throughput", "latency"):
        for ext in ("json", "md", "png"):
            assert (tmp_path / f"{mode}-smoke.{ext}").stat().st_size > 0

    quality = json.loads((tmp_path / "quality-smoke.json").read_text())["quality"]
    assert set(quality) >= {"snli-test", "mnli-dev-mismatched", "cad-snli-test", "agent-memory"}
    for direction in ("forward", "max"):
        sweep = quality["snli-test"][direction]["sweep"]
        assert len(sweep) == len(bench_oracle.THRESHOLDS)
        recalls = [row["recall"] for row in sweep]
        assert recalls == sorted(recalls, reverse=True)  # recall falls as the threshold rises

    throughput = json.loads((tmp_path / "throughput-smoke.json").read_text())["throughput"]
    assert {r["batch_size"] for r in throughput["rows"]} == {1, 4}
    assert all(
        r["pairs_per_s"] > 0 and r["raw_forward_pairs_per_s"] > 0 for r in throughput["rows"]
    )

    latency = json.loads((tmp_path / "latency-smoke.json").read_text())["latency"]
    rows = {(r["stm"], r["log"]): r for r in latency["rows"]}
    assert len(rows) == 6
    for stm in (False, True):
        assert rows[(stm, "warm")]["oracle_scored"] == 0  # everything from the log
        if rows[(stm, "cold")]["oracle_pairs"]:
            assert rows[(stm, "cold")]["hit_rate"] == 0
    assert latency["precomputed_verdicts"] > 0
    assert "p50" in rows[(False, "cold")] and rows[(False, "cold")]["p95"]["total"] > 0


def test_kappa_profile_smoke(
    tmp_path: Path, nli_model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GCMEM_NLI_MODEL", nli_model_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    kappa_profile.cli(device="cpu", queries=2, turns=24, out=tmp_path)
    report = json.loads((tmp_path / "kappa-profile-cpu.json").read_text())
    assert len(report["kappa_ms"]) == 2
    assert report["calls"], "the cold log sent no pair to the oracle"
    for call in report["calls"]:
        assert sum(shape[0] for shape in call["shapes"]) == call["pairs"]
        assert call["forward_ms"] > 0
    assert "verdicts" in (tmp_path / "kappa-profile-cpu.txt").read_text()
