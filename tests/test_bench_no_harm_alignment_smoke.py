"""Smoke runs of the no-harm, no-harm-pairs and alignment benchmarks on the real parts
(MiniLM, embedded Qdrant and Redis, the offline NLI checkpoint for the default chain): a few
development queries end to end, the report's numbers consistent with each other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import redis

from bench import alignment
from bench.heldout import pairs as no_harm_pairs
from bench.heldout import run as no_harm
from tests.conftest import keys_on_server_at_cleanup, require_real_redis

pytestmark = [pytest.mark.model, pytest.mark.slow]


def _no_harm_smoke(out: Path, redis_url: str | None = None) -> dict[str, Any]:
    no_harm.cli(
        sets=["changes", "static"],
        split="dev",
        condition=[],
        only=["rag", "default"],
        limit=None,
        k=10,
        out=out,
        tag=None,
        smoke=True,
        redis_url=redis_url,
    )
    report: dict[str, Any] = json.loads((out / "smoke.json").read_text())
    return report


def test_no_harm_smoke(tmp_path: Path, offline_nli: str) -> None:
    report = _no_harm_smoke(tmp_path)
    assert report["redis"] == "embedded"
    assert report["candidate_sets_mismatched"] == 0  # every chain judged the same R_k
    for set_name in ("changes", "static"):
        per_cond = report["sets"][set_name]
        assert set(per_cond) >= {"rag", "default"}
        rag, default = per_cond["rag"]["all"], per_cond["default"]["all"]
        assert rag["queries"] == default["queries"] == 6
        assert rag["still_true_dropped"] == 0 and rag["current_lost"] == 0  # plain RAG keeps all
        assert default["still_true_dropped"] <= default["still_true_candidates"]
        assert default["still_true_candidates"] == rag["still_true_candidates"]
    # a change query's stale value: RAG shows it whenever it was retrieved, the chain no more
    changes = report["sets"]["changes"]
    assert changes["default"]["all"]["stale_exposure"] <= changes["rag"]["all"]["stale_exposure"]
    assert (tmp_path / "smoke.md").read_text().startswith("# No-harm on held-out text (smoke)")


@pytest.mark.redis
def test_no_harm_on_a_redis_server_gives_the_embedded_numbers(
    tmp_path: Path, offline_nli: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = require_real_redis()
    server = redis.Redis.from_url(url)
    on_server = keys_on_server_at_cleanup(monkeypatch, no_harm, server)
    embedded = _no_harm_smoke(tmp_path / "embedded")
    assert not on_server  # an embedded run cleans up nothing on the server
    served = _no_harm_smoke(tmp_path / "server", url)
    # one cleanup per condition; plain RAG writes no ledger, the default chain's keys were there
    assert len(on_server) == 2 and sum(on_server) > 0
    assert not list(server.scan_iter(match="noharm-*"))  # and none is left
    assert served["redis"] == "server"

    def outcome(report: dict[str, Any]) -> dict[str, Any]:
        keys = ("queries", "still_true_dropped", "current_lost", "stale_exposure", "notes_right")
        return {
            (s, c, f): {k: v[k] for k in keys}
            for s, per_cond in report["sets"].items()
            for c, fams in per_cond.items()
            if not c.startswith("_")
            for f, v in fams.items()
        }

    assert outcome(served) == outcome(embedded)


def test_alignment_smoke(tmp_path: Path, offline_nli: str) -> None:
    alignment.cli(
        sets=["changes"],
        split="dev",
        tsqa="none",
        tsqa_limit=0,
        limit=4,
        k=10,
        out=tmp_path,
        tag="smoke",
        redis_url=None,
    )
    report = json.loads((tmp_path / "smoke.json").read_text())
    per_chain = report["sets"]["changes"]
    assert set(per_chain) >= set(alignment.CHAINS)
    for name in alignment.CHAINS:
        summary = per_chain[name]["all"]
        assert summary["queries"] == 4
        assert summary["ingest_ms_per_turn"] >= 0.0 and summary["embed_ms_per_turn"] > 0.0
    assert (tmp_path / "smoke.md").stat().st_size > 0


def test_no_harm_pairs_smoke(tmp_path: Path, offline_nli: str) -> None:
    no_harm_pairs.cli(
        sets=["changes"],
        split="dev",
        limit=4,
        k=10,
        out=tmp_path,
        table=None,
        calibration=None,
    )
    rows = [json.loads(line) for line in (tmp_path / "pairs-dev.jsonl").read_text().splitlines()]
    assert rows and {r["set"] for r in rows} == {"changes"}
    assert {r["label"] for r in rows} <= {"justified", "harmful", "other"}
    for r in rows:
        assert 0.0 <= r["fwd"] <= 1.0 and 0.0 <= r["bwd"] <= 1.0
        assert r["older"] != r["newer"]
    # the table reads the same file back (the rule choice's input)
    no_harm_pairs.cli(
        sets=[], split="dev", limit=None, k=10, out=tmp_path,
        table=tmp_path / "pairs-dev.jsonl", calibration=None,
    )  # fmt: skip
