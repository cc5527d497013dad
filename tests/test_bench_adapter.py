"""The supersession adapter's cross-validation benchmark: a smoke run end to end on the real
checkpoint (one fold, tiny data), and the rules that choose its thresholds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import adapter as bench_adapter
from bench.cli import app as bench_app


def _row(score: float, label: str) -> dict[str, object]:
    return {"score": score, "label": label}


def test_drop_threshold_is_the_lowest_that_reaches_the_precision_target() -> None:
    rows = [
        _row(0.99, "justified"),
        _row(0.98, "justified"),
        _row(0.97, "harmful"),
        _row(0.96, "justified"),
        _row(0.95, "other"),  # not judged: the older chunk is stale, no one lost anything
        _row(0.5, "harmful"),
    ]
    assert bench_adapter.drop_threshold(rows, 1.0) == pytest.approx(0.98)
    assert bench_adapter.drop_threshold(rows, 0.75) == pytest.approx(0.96)
    # unreachable: nothing is dropped
    assert bench_adapter.drop_threshold([_row(0.9, "harmful")], 0.9) == 1.0


def test_note_threshold_counts_notes_about_a_stale_chunk_below_the_drop_threshold() -> None:
    rows = [
        _row(0.99, "harmful"),  # above the drop threshold: not a note
        _row(0.9, "other"),
        _row(0.85, "justified"),
        _row(0.8, "harmful"),
        _row(0.7, "harmful"),
    ]
    assert bench_adapter.note_threshold(rows, 0.95, 1.0) == pytest.approx(0.85)
    assert bench_adapter.note_threshold(rows, 0.95, 0.6) == pytest.approx(0.8)


@pytest.mark.model
@pytest.mark.slow
def test_adapter_cv_smoke(
    tmp_path: Path, offline_nli: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "adapter" in {group.name for group in bench_app.registered_groups}
    monkeypatch.setattr(bench_adapter, "CACHE", tmp_path / "cache")
    bench_adapter.cv(
        folds=[],
        epochs=1,
        rank=2,
        threads=1,
        precision=bench_adapter.PRECISION,
        note_precision=bench_adapter.NOTE_PRECISION,
        generated=0,
        out=tmp_path,
        smoke=True,
    )
    report = json.loads((tmp_path / "cv-smoke.json").read_text())
    assert report["folds"] == [",".join(bench_adapter.FOLDS[0])]
    rows = [json.loads(line) for line in (tmp_path / "oof-smoke.jsonl").read_text().splitlines()]
    assert rows and all(0.0 <= r["score"] <= 1.0 for r in rows)
    assert {r["split"] for r in rows} <= set(bench_adapter.FOLDS[0])  # out of fold only
    assert report["pairs"] == len(rows)
    assert 0.0 <= report["surface_threshold"] <= report["threshold"] <= 1.0
    assert (tmp_path / "cv-smoke.md").read_text().startswith("# Supersession adapter")
    # the fold adapter is a loadable adapter file of the checkpoint
    [fold_adapter] = (tmp_path / "folds-smoke").glob("*.safetensors")
    assert json.loads(fold_adapter.with_suffix(".json").read_text())["rank"] == 2


def test_turn_pairs_label_each_time_ordered_pair_by_the_older_turn() -> None:
    rows = bench_adapter.turn_pairs("dev38")
    inst = bench_adapter.instances("dev38")[0]
    mine = [r for r in rows if r["question"] == inst.query]
    text = {t.id: t.text for t in inst.turns}
    stale = {text[t] for t in inst.stale_turns}
    current = {text[t] for t in inst.current_turns}
    assert mine and all(r["family"] == inst.family for r in mine)
    for r in mine:
        if r["older"] not in stale:
            assert r["label"] == "harmful"  # dropping a still-true or current turn loses it
        else:
            assert r["label"] == ("justified" if r["newer"] in current else "other")
    assert {"justified", "harmful", "other"} <= {r["label"] for r in mine}
    row = mine[0]
    assert bench_adapter.asked(row, True) == f"{inst.query} || {row['older']}"
    assert bench_adapter.asked(row, False) == row["older"]


@pytest.mark.model
@pytest.mark.slow
def test_adapter_question_smoke(tmp_path: Path, offline_nli: str) -> None:
    bench_adapter.question(
        with_question=True,
        held_out=["dev38"],
        cap=300,
        epochs=2,
        rank=8,
        threads=1,
        precision=bench_adapter.QUESTION_PRECISION,
        out=tmp_path,
        smoke=True,
    )
    report = json.loads((tmp_path / "question-question-smoke.json").read_text())
    assert report["held_out"] == ["dev38"] and "dev38" not in report["trained_on"]
    assert report["config"]["epochs"] == 1 and report["config"]["cap"] == 5
    for name in ("adapter", "nli"):
        r = report[name]
        assert 0.0 <= r["threshold"] <= 1.0
        fam = r["per_family"]["keyed_restated"]
        assert fam["justified"] + fam["harmful"] + fam["other"] == fam["drops"] <= 60
    assert (tmp_path / "question-question-smoke.md").read_text().startswith("# Adapter reading")
