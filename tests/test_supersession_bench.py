"""The evolving-knowledge benchmark: its data's invariants, and a smoke run on MiniLM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.supersession import BenchConfig, majority_answer, run_benchmark, write_report
from bench.supersession_data import (
    EVOLVING_SETS,
    FRAMES,
    STATIC_FACTS,
    STATIC_SET,
    generate_set,
    marker_words,
)
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.facts.extract import extract_triples

SEEDS = (0, 1, 2, 3)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", EVOLVING_SETS)
def test_generated_scenarios_are_marker_free(name: str, seed: int) -> None:
    scenarios = generate_set(name, count=40, copies=3, seed=seed)
    assert len(scenarios) >= 30
    assert {s.frame for s in scenarios} == set(FRAMES[name])  # every frame is used
    assert sum(len(s.values) == 3 for s in scenarios) >= 10  # chains A -> B -> C
    for s in scenarios:
        for t in s.turns:
            assert marker_words(t.text) == [], (s.id, t.text)
        assert marker_words(s.question) == [], s.question
        # state A and state B are the same text except for the value: one slot, the same
        # prefix and suffix around it in every statement
        assert len(set(s.values)) == len(s.values)
        assert s.template.count("{value}") == 1
        prefix, suffix = s.template.split("{value}")
        for t in s.turns:
            assert t.text == prefix + s.values[t.state] + suffix
        # event time orders the states; nothing else does
        last = {t.state: t.ts for t in s.turns}
        first = {t.state: min(u.ts for u in s.turns if u.state == t.state) for t in s.turns}
        assert all(last[i] < first[i + 1] for i in range(len(s.values) - 1))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", EVOLVING_SETS)
def test_one_scenario_per_fact(name: str, seed: int) -> None:
    """Two scenarios of a set never state the same fact: the ledger would (rightly) let one
    supersede the other, and the benchmark would score that as a loss."""
    scenarios = generate_set(name, count=40, seed=seed)
    keys = [(f.subject, f.relation) for s in scenarios for f in extract_triples(s.statement(0))]
    assert len(keys) == len(set(keys))


def test_marker_check_catches_markers() -> None:
    assert marker_words("The port is now 8080.") == ["now"]
    assert marker_words("`fetch_latest` returns `None`.") == ["latest"]
    assert marker_words("The port no longer is 8000.") == ["longer", "no", "no longer"]
    assert marker_words("The port is 8080.") == []


def test_static_facts_are_distinct() -> None:
    static = generate_set(STATIC_SET, count=len(STATIC_FACTS))
    assert len({s.question for s in static}) == len(static) and all(
        len(s.turns) == 1 for s in static
    )
    assert all(marker_words(s.turns[0].text) == [] for s in static)


def test_generation_is_deterministic() -> None:
    a = generate_set("api_evolution", count=10, copies=2, seed=7)
    b = generate_set("api_evolution", count=10, copies=2, seed=7)
    assert a == b


def test_majority_reader_proxy() -> None:
    assert majority_answer([]) is None
    assert majority_answer(["A", "B", "A"]) == "A"
    assert majority_answer(["B", "A"]) == "B"  # tie: the higher-ranked chunk's value
    assert majority_answer(["B", "A", "A", "B"]) == "B"


@pytest.mark.model
@pytest.mark.slow
def test_smoke_run(tmp_path: Path, embedder: TransformerEmbedder) -> None:
    # two of the four sets keep CI short; `python -m bench supersession --smoke` runs all four
    config = BenchConfig(
        sets=("config_migration", "api_evolution"), scenarios=4, statics=3, copies=(1, 3), k=5
    )
    report = run_benchmark(config, embedder, progress=False)
    paths = write_report(report, tmp_path)
    assert [p.name for p in paths] == ["results.json", "results.md", "supersession.png"]
    assert all(p.stat().st_size > 0 for p in paths)
    data = json.loads(paths[0].read_text())
    assert len(data["results"]) == 2 * 2
    for r in data["results"]:
        rag, pre, idx = (r["conditions"][c] for c in ("rag", "prefilter", "index"))
        if r["extraction_coverage"] > 0:
            assert pre["stale_exposure_keyed"] == 0.0 and idx["stale_exposure_keyed"] == 0.0
        # the pre-filter only ever removes superseded chunks: static facts are untouched
        assert pre["static_recall"] == rag["static_recall"]
        assert idx["static_recall"] >= rag["static_recall"]
        assert r["parity_violations"] == 0
        assert r["ledger"]["open"] <= r["ledger"]["versions"] <= r["ledger"]["assertions"]
    assert "| rag |" in paths[1].read_text()
