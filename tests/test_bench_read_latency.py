"""Smoke run of ``bench read-latency`` (real embedder, NLI checkpoint, Redis, embedded index)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.read_latency import cli


@pytest.mark.model
@pytest.mark.redis
def test_read_latency_smoke(
    tmp_path: Path, nli_model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GCMEM_NLI_MODEL", nli_model_path)
    monkeypatch.setenv("GCMEM_DATA_DIR", str(tmp_path / "data"))
    cli(scenarios=None, instances=1, repeats=2, out=tmp_path / "out", redis_url=None)
    result = json.loads((tmp_path / "out" / "read_latency.json").read_text())
    assert set(result["conditions"]) == {"exclude", "no-exclude"}
    assert len(result["instances"]) == 2  # one keyed, one behavioural
    for c in result["conditions"].values():
        assert c["queries"] == 4 and 0 < c["p50_ms"] <= c["p95_ms"]
    assert result["conditions"]["no-exclude"]["excluded_at_write"] == 0
    assert "| exclude |" in (tmp_path / "out" / "read_latency.md").read_text()
