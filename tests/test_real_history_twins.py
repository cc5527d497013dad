"""Twin lines (two still-true lines of one file at one commit that differ in one span): the
miner on a synthetic git repository, the measure on the model-free chain, the CLI end to end on
the real parts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench.real_history import TWINS_DIR
from bench.real_history.__main__ import app
from bench.real_history.twins import measure, mine_twins, summarize, twin_pairs
from gcmem import Memory
from gcmem.settings import load_settings
from tests.doubles import HashingEmbedder
from tests.test_real_history_miner import _commit, _git

_HANDLERS = """package app

func handleGet(w Writer) {
	log("start")
	w.Write(get())
	log("done")
}

func handlePut(w Writer) {
	log("start")
	w.Write(put())
	log("done")
}
"""


def test_twin_pairs_are_one_span_apart_and_far_enough_apart() -> None:
    lines = _HANDLERS.split("\n")
    found = {(lines[i], lines[j]) for i, j, _ in twin_pairs("app/handlers.go", lines)}
    assert ("func handleGet(w Writer) {", "func handlePut(w Writer) {") in found
    assert ("\tw.Write(get())", "\tw.Write(put())") in found
    # identical lines are restatements, and lines whose windows overlap are seen together
    assert all(a.strip() != b.strip() for a, b in found)
    near = ["x = 1", "A_SETTING = 'a'", "B_SETTING = 'b'", "y = 2"]
    assert list(twin_pairs("settings.py", near)) == []


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q", "-b", "main")
    _commit(
        work,
        {"LICENSE": "Permission is hereby granted, free of charge, to any", "app/h.go": _HANDLERS},
        "2024-01-01T00:00:00+00:00",
    )
    bare = tmp_path / "owner+name" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare


def test_mine_twins_records_both_windows_dated_apart(snapshot: Path) -> None:
    records = mine_twins(snapshot, per_repo=5)
    assert records and all(r["repo"] == "owner/name" and r["license"] == "MIT" for r in records)
    for r in records:
        assert len(r["sha"]) == 40 and r["older_time"] < r["newer_time"]
        assert r["older_context"]["lines"][r["older_context"]["index"]] == r["older_line"]
        assert r["newer_context"]["lines"][r["newer_context"]["index"]] == r["newer_line"]
        assert "___" in r["question"]
    assert mine_twins(snapshot, per_repo=5) == records  # deterministic


def _record(older: list[str], newer: list[str], path: str = "app/h.go") -> dict[str, object]:
    return {
        "id": f"{path}:{older[1]}",
        "repo": "owner/name",
        "path": path,
        "older_context": {"lines": older, "index": 1},
        "newer_context": {"lines": newer, "index": 1},
        "question": f"In {path}, what fills the blank?",
        "older_time": "2024-01-01T00:00:00+00:00",
        "newer_time": "2024-07-01T00:00:00+00:00",
    }


def test_measure_counts_a_hidden_twin_and_a_kept_one(tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path, ephemeral=True, redis_url=None, qdrant_url=None,
        key_prefix="twins-test", ingest=[], filters=["supersession"],
    )  # fmt: skip
    memory = Memory(settings, embedder=HashingEmbedder())
    try:
        records = [
            # two handlers: the chain keeps both
            _record(
                ["}", "func handleGet(w Writer) {", "\tlog()"],
                ["}", "func handlePut(w Writer) {", "\tlog()"],
            ),
            # a constant's two values at one place read as a change: the measure must see it
            _record(
                ["import os", "DEFAULT_TIMEOUT = 30", "NAME = 'x'"],
                ["import os", "DEFAULT_TIMEOUT = 60", "NAME = 'x'"],
                path="pkg/settings.py",
            ),
        ]
        rows = measure(records, memory, {"m": list(memory.filters)}, progress=False)
    finally:
        memory.close()
    assert [r["conditions"]["m"]["older_hidden"] for r in rows] == [False, True]
    assert not any(r["conditions"]["m"]["newer_hidden"] for r in rows)
    summary = summarize(rows)
    assert summary["pairs"] == 2 and summary["m"]["pairs_hidden"] == 1
    assert summary["m"]["hide_rate"] == 0.5


def test_every_committed_twin_set_is_well_formed() -> None:
    for path in sorted(TWINS_DIR.glob("*.jsonl")):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        assert len(records) >= 100, path
        assert len({r["id"] for r in records}) == len(records), path
        assert all(r["license"] and len(r["sha"]) == 40 for r in records), path


@pytest.mark.model
@pytest.mark.slow
def test_twins_cli_on_the_real_parts(
    tmp_path: Path, nli_model_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    out = tmp_path / "out"
    args = [
        "twins", "--pairs", str(TWINS_DIR / "dev.jsonl"), "--out", str(out), "--smoke",
        "--nli-model", nli_model_path, "--no-progress",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert results["headline_format"] == "snippet"
    assert results["summary"] == results["by_format"]["snippet"]
    for summary in results["by_format"].values():  # the windows, and each line alone
        assert summary["pairs"] == 4
        assert set(summary) >= {"rag", "supersession", "gcmem", "best"}
        assert summary["rag"]["pairs_hidden"] == 0  # plain retrieval hides nothing
    assert set(results["by_format"]) == {"snippet", "line"}
    assert "| line | gcmem |" in (out / "results.md").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--formats", "snippet,diff"], "unknown format"),
        (["--pairs", "no/such/pairs.jsonl"], "no twin pairs file"),
        (["--redis-url", "redis://127.0.0.1:1/0"], "cannot use the Redis server"),
    ],
)
def test_twins_cli_refuses_bad_input_before_running(
    tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["twins", "--out", str(out), "--nli-model", "unused", *args, "--no-progress"]
    )
    assert result.exit_code != 0 and message in result.output
    assert not out.exists()  # nothing written
