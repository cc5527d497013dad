"""The sweep's scenario format (a public contract) and its deterministic generator."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench.cli import app
from bench.scenarios.generate import SIZES, Generator, SizeSpec, generate, render_behavior
from bench.scenarios.markers import recency_markers
from bench.scenarios.model import (
    Scenario,
    ScenarioFormatError,
    load_scenarios,
    scenario_line,
    write_scenarios,
)
from bench.scenarios.vocab import BEHAVIORS, FIRST_PERSON, GENERIC_DISTRACTORS, KEYED, PEOPLE
from gcmem.facts.extract import extract_triples
from gcmem.models import NAMESPACE_PATTERN
from gcmem.normalize import normalize_key


@pytest.fixture(scope="module")
def small() -> list[Scenario]:
    return generate("small", seed=0)


def test_same_seed_writes_identical_bytes(tmp_path: Path) -> None:
    runner = CliRunner()
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"]
    for path, seed in zip(paths, (3, 3, 4), strict=True):
        result = runner.invoke(
            app,
            ["sweep-generate", "--size", "smoke", "--seed", str(seed), "--out", str(path)],
        )
        assert result.exit_code == 0, result.output
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


def test_full_size_is_the_original_scale() -> None:
    assert SIZES["full"].turns() == 137_760
    # One ratio of the full spec, generated: the arithmetic is what the generator does.
    spec = replace(SIZES["full"], instances_per_ratio=4, ratios=(100,))
    scenarios = generate(spec, seed=1)
    assert sum(len(s.turns) for s in scenarios) == spec.turns() == 4 * (2 * 101 + 4 + 116)
    kinds = [s.kind for s in scenarios]
    assert kinds == ["behavioral", "keyed", "static", "behavioral"]
    assert SIZES["full"].instances_per_ratio % 7 == 0  # whole kind cycles per ratio
    for s in scenarios:
        roles = [t.role for t in s.turns]
        if s.kind == "static":
            assert roles.count("static") == 2 * 101 + 4
        else:
            assert (roles.count("old"), roles.count("new")) == (200, 2)
        assert roles.count("distractor") == 116
        assert s.meta["ratio"] == 100


def test_generated_turns_are_marker_free(small: list[Scenario]) -> None:
    offending = [
        (s.id, t.text, recency_markers(t.text))
        for s in small
        for t in s.turns
        if recency_markers(t.text)
    ]
    assert not offending, offending[:5]
    assert not [s.question for s in small if recency_markers(s.question)]


def test_every_template_is_marker_free_and_never_names_its_state() -> None:
    rng = random.Random(0)
    for btype in BEHAVIORS:
        for state, templates in btype.states.items():
            for template in templates:
                for person in (FIRST_PERSON, PEOPLE[0], PEOPLE[8]):  # I, she, they
                    for _ in range(4):
                        text = render_behavior(template, person, rng)
                        assert not recency_markers(text), text
                        assert state.lower() not in text.lower(), (state, text)
                        assert "{" not in text, text
    for frame_text in [f for k in KEYED for f in k.frames] + list(GENERIC_DISTRACTORS):
        assert not recency_markers(frame_text), frame_text


def test_marker_detector_catches_phrases() -> None:
    assert recency_markers("I no longer smoke, and now I run") == ["no longer", "now"]
    assert recency_markers("They   used to live here") == ["used to"]
    assert recency_markers("The renewal of the nowhere pass") == []


def test_generated_instances_hold_the_contract(small: list[Scenario]) -> None:
    namespaces = {s.namespace for s in small}
    assert len(namespaces) == len(small)
    assert all(re.fullmatch(NAMESPACE_PATTERN, ns) for ns in namespaces)
    assert {s.category for s in small if s.kind == "behavioral"} == {b.name for b in BEHAVIORS}
    assert len(BEHAVIORS) >= 12
    persons = {s.meta["person"] for s in small if s.kind == "behavioral"}
    assert persons == {"first", "third"}
    assert any(len(s.stale_answers) == 2 for s in small), "chains A -> B -> C are generated"
    for s in small:
        texts: dict[str, str | None] = {}
        for t in s.turns:
            # One text never asserts two different states inside an instance (gold labels).
            assert texts.setdefault(t.text, t.state) == t.state
            assert len(t.text) < 480  # one chunk per turn
        if s.kind != "static":
            old = [t.ts for t in s.turns if t.role == "old"]
            new = [t.ts for t in s.turns if t.role == "new"]
            assert max(old) < min(new)
        assert len({t.ts for t in s.turns}) == len(s.turns)


def test_keyed_turns_are_keyed_by_the_ledger_extractor(small: list[Scenario]) -> None:
    """Every old/new turn of a keyed instance extracts exactly one triple, under one key: the
    supersession pre-filter gets a fair chance on the sweep's keyed facts."""
    for s in (s for s in small if s.kind == "keyed"):
        keys = set()
        for t in s.turns:
            if t.role in ("old", "new"):
                facts = extract_triples(t.text)
                assert len(facts) == 1, t.text
                assert t.state is not None and t.state in facts[0].object
                keys.add(normalize_key(facts[0].subject, facts[0].relation))
        assert len(keys) == 1, (s.id, keys)


def test_category_filter_for_held_out_splits() -> None:
    scenarios = generate(
        SizeSpec(instances_per_ratio=4, distractors=3, ratios=(2,)), 0, ["diet", "port"]
    )
    assert {s.category for s in scenarios} == {"diet", "port"}
    with pytest.raises(ValueError, match="unknown categories"):
        Generator(SIZES["smoke"], 0, ["astrology"])


def test_round_trip(tmp_path: Path) -> None:
    scenarios = generate("smoke", seed=2)
    path = tmp_path / "s.jsonl"
    assert write_scenarios(scenarios, path) == len(scenarios)
    assert load_scenarios(path) == scenarios


def _later(ts: str) -> str:
    from datetime import datetime, timedelta

    return (datetime.fromisoformat(ts) + timedelta(seconds=1)).isoformat()


def _valid() -> dict[str, object]:
    return json.loads(scenario_line(generate("smoke", seed=0)[0]))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("question"), "question"),
        (lambda d: d.update(kind="fuzzy"), "kind"),
        (lambda d: d["turns"][0].update(ts="2024-01-01T00:00:00"), "timezone"),
        (lambda d: d["turns"][0].update(role="ancient"), "role"),
        (lambda d: d.update(answer="not the answer"), "must assert the answer"),
        (lambda d: d.update(extra_field=1), "extra"),
        (lambda d: d.update(turns=[]), "turns"),
    ],
)
def test_malformed_scenarios_name_their_line(tmp_path: Path, mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    good, bad = _valid(), _valid()
    bad["id"] = "broken"
    mutate(bad)
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(bad) + "\n")
    with pytest.raises(ScenarioFormatError) as err:
        load_scenarios(path)
    assert f"{path}:3" in str(err.value)
    assert message in str(err.value).lower() or message in str(err.value)


def test_old_after_new_is_rejected(tmp_path: Path) -> None:
    data = _valid()
    turns = data["turns"]
    assert isinstance(turns, list)
    old = next(t for t in turns if t["role"] == "old")
    old["ts"] = _later(max(t["ts"] for t in turns if t["role"] == "new"))
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(data) + "\n")
    with pytest.raises(ScenarioFormatError, match=r":1.*older than every 'new'"):
        load_scenarios(path)


def test_bad_json_duplicates_and_empty_files(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(_valid()) + "\n{not json\n")
    with pytest.raises(ScenarioFormatError, match=r"s\.jsonl:2: not valid JSON"):
        load_scenarios(path)
    path.write_text(json.dumps(_valid()) + "\n" + json.dumps(_valid()) + "\n")
    with pytest.raises(ScenarioFormatError, match=r":2: duplicate instance id .* line 1"):
        load_scenarios(path)
    path.write_text("\n\n")
    with pytest.raises(ScenarioFormatError, match="no scenarios"):
        load_scenarios(path)
    path.write_text("[1, 2]\n")
    with pytest.raises(ScenarioFormatError, match=":1: expected a JSON object"):
        load_scenarios(path)
    with pytest.raises(ScenarioFormatError, match="no such scenario file"):
        load_scenarios(tmp_path / "missing.jsonl")
