"""The smoke sweep end to end through the CLI, on the real parts: MiniLM embedder, embedded
Qdrant and Redis, the supersession ledger, and the offline NLI cross-encoder as κ."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from bench.cli import app
from bench.scenarios.generate import generate
from bench.scenarios.model import write_scenarios
from bench.sweep.reader import ChatClient, ReaderConfig, ReaderError, match_option

pytestmark = [pytest.mark.model, pytest.mark.slow]


class FakeChat(BaseHTTPRequestHandler):
    """An OpenAI-compatible /chat/completions that picks the first option, chattily."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeChat.requests.append(body)
        prompt = body["messages"][-1]["content"]
        first = prompt.split("Options:\n- ", 1)[1].split("\n", 1)[0]
        reply = json.dumps({"choices": [{"message": {"content": f"The answer is: {first}."}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(reply.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def fake_llm() -> Iterator[str]:
    FakeChat.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeChat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


@pytest.fixture
def sweep_env(monkeypatch: pytest.MonkeyPatch, nli_model_path: str) -> None:
    monkeypatch.setenv("GCMEM_NLI_MODEL", nli_model_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    for var in ("GCMEM_REDIS_URL", "GCMEM_QDRANT_URL", "GCMEM_ORACLE", "GCMEM_FILTERS"):
        monkeypatch.delenv(var, raising=False)


def test_smoke_sweep_end_to_end_and_resume(tmp_path: Path, sweep_env: None, fake_llm: str) -> None:
    scenarios = tmp_path / "smoke.jsonl"
    write_scenarios(generate("smoke", seed=0), scenarios)
    out = tmp_path / "out"
    args = [
        "sweep", "--scenarios", str(scenarios), "--k", "5", "--stm-size", "3",
        "--threads", "1", "--noisy-recalls", "0.5,1.0", "--noisy-precisions", "1.0,0.75",
        "--work-dir", str(tmp_path / "work"), "--out", str(out), "--no-progress",
        "--llm-url", fake_llm, "--llm-model", "fake", "--llm-conditions",
        "rag|off,gcmem[gold]|off,bag-of-facts|-",
    ]  # fmt: skip
    runner = CliRunner()
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "retrieval: 9 of 9" in first.output and "evaluation: 9" in first.output
    for name in (
        "results.json",
        "tables.md",
        "accuracy_vs_ratio.png",
        "recall_vs_ratio.png",
        "detector_dependency.png",
    ):
        assert (out / name).stat().st_size > 0, name
    results = json.loads((out / "results.json").read_text())
    conds = results["conditions"]
    for cond in (
        "rag",
        "timestamp",
        "multi-factor",
        "supersession",
        "phi[nli]",
        "gcmem[nli]",
        "phi[gold]",
        "gcmem[gold]",
        "supersession+gc",
        "gcmem+gc[gold]",
    ):
        for stm in ("off", "on"):
            assert f"{cond}|{stm}" in conds, cond
    assert "bag-of-facts|-" in conds
    assert "gcmem[noisy-p0.75-r0.5]|off" in conds
    # Write-time GC with κ flags: each oracle on its own ingest, both in the report.
    assert "write-time GC with κ = gold: 9 instances" in first.output
    assert "write-time GC with κ = nli: 9 instances" in first.output
    for stm in ("off", "on"):
        assert f"gcmem+kgc[nli]|{stm}" in conds
        # gold flags at ingest leave no stale chunk and take no still-true one
        assert conds[f"gcmem+kgc[gold]|{stm}"]["overall"]["stale_exposure"]["mean"] == 0.0
        assert conds[f"gcmem+kgc[gold]|{stm}"]["overall"]["static_retention"]["mean"] == 1.0
    assert results["write_gc"]["gold"]["kappa_flags"] > 0
    assert results["write_gc"]["gold"]["dominance_gc_ms_per_turn"] > 0
    headline = json.loads((out / "headline.json").read_text())
    assert set(headline) == {"ratio_100_stm_off"}  # the smoke sweep has no 100:1 instances
    assert {"gold", "nli", "rag", "static_retention_gold", "static_retention_nli"} <= set(
        headline["ratio_100_stm_off"]
    )
    assert headline["ratio_100_stm_off"]["instances"]["gold"] == 0

    def overall(cond: str, metric: str) -> float:
        value = conds[cond]["overall"][metric]["mean"]
        assert value is not None
        return float(value)

    # Standard RAG serves stale chunks; full gcmem with gold κ serves none and keeps every static
    # fact it was given, and is pure wherever retrieval found the current state.
    assert overall("rag|off", "stale_exposure") > 0
    for stm in ("off", "on"):
        assert overall(f"gcmem[gold]|{stm}", "stale_exposure") == 0.0
        assert overall(f"gcmem[gold]|{stm}", "static_retention") == 1.0
        assert overall(f"gcmem[gold]|{stm}", "purity_if_retrieved") == 1.0
    assert (
        conds["bag-of-facts|-"]["overall_means"]["context_size"]
        > conds["rag|off"]["overall_means"]["context_size"]
    )
    assert overall("bag-of-facts|-", "recall_current") == 1.0
    # The NLI oracle scored the pairs once; its quality on them is reported.
    assert results["model_pairs"]["all"]["pairs"] > 0
    assert results["meta"]["scheduled_pairs"] >= results["model_pairs"]["all"]["pairs"]
    assert "## RQ4" in (out / "tables.md").read_text()
    # The real-reader path: one request per (instance, condition), answers graded.
    assert len(FakeChat.requests) == 9 * 3
    assert FakeChat.requests[0]["temperature"] == 0
    assert conds["rag|off"]["overall"]["accuracy_llm"]["n"] == 9
    assert conds["timestamp|off"]["overall"]["accuracy_llm"]["n"] == 0
    assert "A real reader" in (out / "tables.md").read_text()

    again = runner.invoke(app, args)  # everything recorded: nothing is recomputed
    assert again.exit_code == 0, again.output
    assert "retrieval:" not in again.output and "evaluation:" not in again.output
    assert "write-time GC with κ" not in again.output
    assert len(FakeChat.requests) == 9 * 3  # cached replies: nothing asked twice
    rerun = json.loads((out / "results.json").read_text())
    assert rerun["conditions"]["gcmem[gold]|off"] == conds["gcmem[gold]|off"]


def test_sweep_rejects_a_malformed_scenario_file(tmp_path: Path, sweep_env: None) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "kind": "keyed"}\n')
    result = CliRunner().invoke(
        app, ["sweep", "--scenarios", str(bad), "--work-dir", str(tmp_path / "w")]
    )
    assert result.exit_code == 2
    assert "bad.jsonl:1" in result.output


def test_reader_matches_replies_and_reports_a_dead_endpoint() -> None:
    options = ["8080", "8000", "does not smoke", "smokes"]
    assert match_option("8080", options) == "8080"
    assert match_option("The port is 8080.", options) == "8080"
    assert match_option("Smokes", options) == "smokes"
    assert match_option("He does not smoke.", options) == "does not smoke"  # not "smoke"
    assert match_option("either 8080 or 8000", options) is None
    assert match_option("no idea", options) is None
    dead = ChatClient(ReaderConfig("http://127.0.0.1:9/v1", "m", timeout_s=2))
    with pytest.raises(ReaderError, match=r"127\.0\.0\.1:9"):
        dead.ask("hello")
