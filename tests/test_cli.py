"""The command line on the embedded defaults, with the real embedder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gcmem.cli.demo import TIMELINE

pytestmark = [pytest.mark.model, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]


def run_cli(
    *args: str, data_dir: Path, stdin: str | None = None, **env_overrides: str
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GCMEM_DATA_DIR": str(data_dir),
        "GCMEM_FILTERS": "[]",
        "GCMEM_INGEST": "[]",
        "HF_HUB_OFFLINE": "1",
        **env_overrides,
    }
    return subprocess.run(
        [sys.executable, "-m", "gcmem", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        input=stdin,
        timeout=300,
    )


def test_ingest_then_query_across_processes(tmp_path: Path) -> None:
    lines = [
        json.dumps(
            {
                "id": "t1",
                "namespace": "proj",
                "text": "The service runs on port 8000.",
                "ts": "2026-01-01T10:00:00Z",
            }
        ),
        "this is not json",
        json.dumps(
            {
                "id": "t2",
                "namespace": "proj",
                "text": "The licence is MIT.",
                "ts": "2026-01-02T10:00:00",
            }
        ),
        json.dumps(
            {
                "id": "t3",
                "namespace": "proj",
                "text": "The service runs on port 8080.",
                "ts": "2026-01-03T10:00:00Z",
            }
        ),
    ]
    file = tmp_path / "turns.jsonl"
    file.write_text("\n".join(lines) + "\n")
    ingest = run_cli("ingest", str(file), data_dir=tmp_path / "d")
    assert ingest.returncode == 1, ingest.stderr  # two lines rejected -> non-zero exit
    out = ingest.stdout + ingest.stderr
    assert "line 2" in out and "line 3" in out and "timezone" in out
    assert "ingested 2 turns" in out

    query = run_cli(
        "query", "Which port?", "--namespace", "proj", "--json", data_dir=tmp_path / "d"
    )
    assert query.returncode == 0, query.stderr
    result = json.loads(query.stdout)
    assert {c["chunk"]["turn_id"] for c in result["kept"]} == {"t1", "t3"}
    assert result["namespace"] == "proj"


def test_bad_setting_exits_with_named_variable(tmp_path: Path) -> None:
    env_run = subprocess.run(
        [sys.executable, "-m", "gcmem", "query", "x"],
        capture_output=True,
        text=True,
        env={**os.environ, "GCMEM_TOP_K": "-3", "GCMEM_DATA_DIR": str(tmp_path)},
        cwd=REPO,
        timeout=120,
    )
    assert env_run.returncode == 2
    assert "GCMEM_TOP_K" in env_run.stdout + env_run.stderr


def test_demo_runs_the_default_chain_on_real_models(tmp_path: Path, nli_model_path: str) -> None:
    # The demo as `make demo` runs it: default filter chain, real embedder and NLI model.
    env = {k: v for k, v in os.environ.items() if k not in ("GCMEM_FILTERS", "GCMEM_INGEST")}
    demo = subprocess.run(
        [sys.executable, "-m", "gcmem", "demo"],
        capture_output=True,
        text=True,
        env={
            **env,
            "GCMEM_DATA_DIR": str(tmp_path / "d"),
            "GCMEM_NLI_MODEL": nli_model_path,
            "COLUMNS": "400",  # no wrapped table cells
        },
        cwd=REPO,
        timeout=300,
    )
    assert demo.returncode == 0, demo.stderr
    out = demo.stdout
    assert f"ingested {len(TIMELINE)} turns" in out
    assert "filter chain: supersession, announced, dominance" in out
    # an announced change in other words than the old statement: the question anchors it
    assert (
        "[announced] every statement is superseded by a newer announced value for the "
        "question (Deloitte -> Stripe)" in out
    )
    assert "standard RAG context" in out
    # keyed change: the ledger drops the old port; behavioural change: the two statements
    # share a subject but no attribute word, so κ may neither drop nor flag it: both stay
    assert "[supersession] payments service / port = '8000' superseded by '8080'" in out
    # a chunk with a still-true statement beside a superseded one stays, the old pin excised
    assert (
        "│ keep │ 2026-03-03 │ [superseded on 2026-03-16; current value: 0.110.0] Uvicorn serves "
        "it with 4 workers." in out
    )
    assert "│ keep │ 2026-03-05 │ Sam is badly out of shape these days." in out
    assert "surfaced 'Sam is badly out of shape" not in out
    assert "[dominance]" not in out
