"""Smoke run of ``python -m bench policies`` on the real Redis server: the matrix's shape, and
no anomaly for any policy (the read-modify-write baseline shows the checks can see one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import require_real_redis

pytestmark = pytest.mark.redis


def test_policy_anomaly_matrix_smoke(tmp_path: Path) -> None:
    from bench.cli import BENCHMARKS, app

    assert BENCHMARKS["policies"] == "bench.policies"
    url = require_real_redis()
    out = CliRunner().invoke(
        app,
        ["policies", "--writers", "1,4", "--runs", "3", "--redis-url", url, "--out", str(tmp_path)],
    )
    assert out.exit_code == 0, out.output
    result = json.loads((tmp_path / "anomalies.json").read_text())
    assert result["writers"] == [1, 4]
    assert set(result["policies"]) == {"latest", "evidence", "confirm", "accumulate"}
    for name, data in result["policies"].items():
        assert data["lost_updates"] == 0, name
        assert data["audit_missing"] == 0, name
        assert data["wrong_winner"] == 0 and data["accumulate_missing"] == 0, name
        assert data["pending_max"] <= 1, name
        if name != "accumulate":
            assert data["open_assertions_max"] == 1, name
        assert data["cells"]["4"]["writes"] == 3 * 4 * 4
    assert "| confirm | 4 |" in (tmp_path / "anomalies.md").read_text()
    assert result["baseline_read_modify_write"]["1"]["lost_updates"] == 0
