"""The real-history benchmark end to end on two committed transitions, on the real parts: MiniLM
embedder, embedded Qdrant and Redis (and the Redis server, ``--redis-url``), the supersession
ledger, the offline NLI checkpoint."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import redis
from typer.testing import CliRunner

from bench.real_history import TRANSITIONS_JSONL
from bench.real_history import run as run_module
from bench.real_history.__main__ import app
from bench.real_history.run import CONDITIONS
from tests.conftest import keys_on_server_at_cleanup, require_real_redis

pytestmark = [pytest.mark.model, pytest.mark.slow]

# A requirements pin (the ledger's version-spec form keys it) and a Go module bump.
IDS = ("encode/httpx@4b23574cf8", "caddyserver/caddy@ff6da1216b")


def test_run_from_the_committed_jsonl(
    tmp_path: Path, nli_model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    records = [json.loads(line) for line in TRANSITIONS_JSONL.read_text().splitlines()]
    assert len(records) >= 130 and len({r["repo"] for r in records}) >= 10
    assert all(r["license"] and len(r["sha"]) == 40 for r in records)
    picked = [r for r in records if r["id"] in IDS]
    assert len(picked) == 2
    data = tmp_path / "transitions.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in picked))
    out = tmp_path / "out"
    args = [
        "run", "--transitions", str(data), "--out", str(out), "--ratios", "1,3",
        "--formats", "line", "--nli-model", nli_model_path, "--no-progress",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert results["transitions"] == 2 and results["repositories"] == 2
    assert set(results["conditions"]) == set(CONDITIONS)
    for cond in CONDITIONS:
        c = results["conditions"][cond]
        assert 0.0 <= c["stale_fact_error"] <= 1.0 and 0.0 <= c["accuracy"] <= 1.0
        assert c["instances"] == 4
    # The pinned requirement is keyed by the ledger: the pre-filter removes every stale copy,
    # so the forced reader cannot serve the old pin, while plain RAG at r = 3 (three old lines,
    # one new) follows the majority.
    with gzip.open(out / "instances.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line in f]
    trio = {r["ratio"]: r["conditions"] for r in rows if r["transition"] == IDS[0]}
    assert trio[3]["rag"]["stale_answer_majority"] == 1.0
    assert trio[3]["supersession"]["stale_answer_majority"] == 0.0
    pre = trio[3]["supersession"]
    assert pre["stale_in_candidates"] >= 1 and pre["stale_dropped"] == pre["stale_in_candidates"]
    # R'_k keeps every still-true chunk of R_k that write-time GC did not leave out
    excluded = [r["conditions"]["best"]["still_true_excluded_at_write"] for r in rows]
    assert results["conditions"]["best"]["still_true_excluded_at_write"] == sum(excluded)
    for r, gone in zip(rows, excluded, strict=True):
        kept_true = r["conditions"]["best"]["still_true_in_candidates"]
        assert r["conditions"]["gcmem"]["still_true_in_candidates"] - gone <= kept_true
    assert (out / "stale_error_vs_ratio.png").stat().st_size > 0
    assert "| plain RAG |" in (out / "results.md").read_text()


@pytest.mark.redis
def test_run_on_a_redis_server_leaves_it_as_it_found_it(
    tmp_path: Path, nli_model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--redis-url``: the ledger and the verdict log on the server the pipeline deploys
    with, the same decision as embedded, and the run's keys deleted at its end."""
    url = require_real_redis()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    server = redis.Redis.from_url(url)
    on_server = keys_on_server_at_cleanup(monkeypatch, run_module, server)
    records = [json.loads(line) for line in TRANSITIONS_JSONL.read_text().splitlines()]
    data = tmp_path / "transitions.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records if r["id"] == IDS[0]))
    out = tmp_path / "out"
    args = [
        "run", "--transitions", str(data), "--out", str(out), "--ratios", "3",
        "--formats", "snippet", "--nli-model", nli_model_path, "--redis-url", url,
        "--no-progress",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    # the ledger's and the verdict log's keys were on the server, and none is left
    assert len(on_server) == 1 and on_server[0] > 0
    assert not list(server.scan_iter(match="gcmem-rh-*"))
    results = json.loads((out / "results.json").read_text())
    assert results["run"]["settings"]["redis"] == "server"
    with gzip.open(out / "instances.jsonl.gz", "rt") as f:
        (row,) = [json.loads(line) for line in f]
    pre = row["conditions"]["supersession"]
    assert pre["stale_in_candidates"] >= 1 and pre["stale_dropped"] == pre["stale_in_candidates"]
    assert row["conditions"]["gcmem"]["stale_answer_majority"] == 0.0
