"""Smoke runs of the no-harm and alignment benchmarks on the real parts (MiniLM, embedded
Qdrant and Redis, the offline NLI checkpoint for the default chain): a few development
queries end to end, the report's numbers consistent with each other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import alignment
from bench.heldout import run as no_harm

pytestmark = [pytest.mark.model, pytest.mark.slow]


def _env(monkeypatch: pytest.MonkeyPatch, nli_model_path: str) -> None:
    monkeypatch.setenv("GCMEM_NLI_MODEL", nli_model_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


def test_no_harm_smoke(
    tmp_path: Path, nli_model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _env(monkeypatch, nli_model_path)
    no_harm.cli(
        sets=["changes", "static"],
        split="dev",
        condition=[],
        only=["rag", "default"],
        limit=None,
        k=10,
        out=tmp_path,
        tag=None,
        smoke=True,
    )
    report = json.loads((tmp_path / "smoke.json").read_text())
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


def test_alignment_smoke(
    tmp_path: Path, nli_model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _env(monkeypatch, nli_model_path)
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
