from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from gcmem.models import (
    Chunk,
    RetrievalResult,
    ScoredChunk,
    StaleSentence,
    Turn,
    chunk_id,
    content_hash,
)

TS = datetime(2026, 1, 5, 12, tzinfo=UTC)


def turn(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "t1",
        "namespace": "ns",
        "text": "Alice lives in Paris.",
        "ts": TS,
    }
    base.update(kw)
    return base


def error_of(**kw: object) -> str:
    with pytest.raises(ValidationError) as info:
        Turn.model_validate(turn(**kw))
    return str(info.value)


def test_valid_turn_roundtrips_through_json() -> None:
    t = Turn.model_validate(
        turn(facts=[{"subject": "alice", "relation": "lives in", "object": "Paris"}])
    )
    again = Turn.model_validate_json(t.model_dump_json())
    assert again == t
    assert again.schema_version == 1


def test_iso_string_timestamp_is_accepted_and_normalised_to_utc() -> None:
    t = Turn.model_validate(turn(ts="2026-01-05T14:00:00+02:00"))
    assert t.ts == TS
    assert t.ts.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    ("kw", "needle"),
    [
        ({"ts": "2026-01-05T12:00:00"}, "timezone"),
        ({"ts": "9999-01-01T00:00:00Z"}, "future"),
        ({"ts": "1960-01-01T00:00:00Z"}, "before 1970"),
        ({"text": "   "}, "text is empty"),
        ({"text": "x" * 40_000}, "limit is 32768"),
        ({"text": "bad \x00 byte"}, "control characters"),
        ({"namespace": "a:b"}, "namespace"),
        ({"namespace": "tenant*"}, "namespace"),
        ({"namespace": "{x}"}, "namespace"),
        ({"namespace": ""}, "namespace"),
        ({"schema_version": 2}, "schema_version"),
        ({"role": "robot"}, "role"),
        ({"unexpected": 1}, "unexpected"),
        ({"id": ""}, "id"),
    ],
)
def test_invalid_turns_get_clear_errors(kw: dict[str, object], needle: str) -> None:
    assert needle in error_of(**kw)


def test_text_limit_is_configurable_through_context() -> None:
    with pytest.raises(ValidationError, match="limit is 10"):
        Turn.model_validate(turn(text="x" * 11), context={"max_text_chars": 10})


def test_chunk_ids_are_deterministic_and_namespaced() -> None:
    assert chunk_id("a", "t1", 0) == chunk_id("a", "t1", 0)
    assert chunk_id("a", "t1", 0) != chunk_id("b", "t1", 0)
    assert chunk_id("a", "t1", 0) != chunk_id("a", "t1", 1)


def test_content_hash_collapses_whitespace_but_keeps_case() -> None:
    assert content_hash("port  8080\n") == content_hash("port 8080")
    assert content_hash("/API") != content_hash("/api")


def test_explicit_facts_ride_on_the_first_chunk_only() -> None:
    t = Turn.model_validate(turn(facts=[{"subject": "a", "relation": "b", "object": "c"}]))
    first, second = Chunk.from_turn(t, 0, "one"), Chunk.from_turn(t, 1, "two")
    assert len(first.facts) == 1 and first.explicit_facts
    assert second.facts == () and second.explicit_facts


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"ts": 12345}, "unix timestamps are not accepted"),
        ({"ts": 1767603600.5}, "unix timestamps are not accepted"),
        ({"metadata": {"x": float("nan")}}, "only finite numbers"),
        ({"metadata": {"x": float("-inf")}}, "only finite numbers"),
        ({"text": "a lone \ud800 surrogate"}, "lone surrogate U+D800"),
        ({"id": "id-\udfff"}, "id"),  # pydantic's own unicode check, or ours
        ({"metadata": {"k": "v\udc80"}}, "metadata.k holds a lone surrogate"),
        ({"metadata": {"\udc80": 1}}, "metadata key holds a lone surrogate"),
        (
            {"facts": [{"subject": "s\ud800", "relation": "r", "object": "o"}]},
            "facts.0.subject",
        ),
        ({"metadata": {"x": 2**64}}, "metadata"),
    ],
)
def test_turn_refuses_what_the_engines_cannot_store(
    changes: dict[str, object], needle: str
) -> None:
    raw = {"id": "t1", "text": "hello", "ts": "2026-01-05T09:00:00+00:00", **changes}
    if changes.get("metadata") == {"x": 2**64}:
        # Beyond int64: kept as a (finite) float rather than failing in the index later.
        assert isinstance(Turn.model_validate(raw).metadata["x"], float)
        return
    with pytest.raises(ValidationError) as err:
        Turn.model_validate(raw)
    assert needle in str(err.value)


def test_turn_accepts_datetimes_and_finite_metadata() -> None:
    t = Turn(
        id="t1",
        text="hello",
        ts=datetime(2026, 1, 5, tzinfo=UTC),
        metadata={"a": 1.5, "b": -(2**63), "c": True, "d": None, "e": "ünïcode ✓"},
    )
    assert t.metadata["b"] == -(2**63) and t.metadata["c"] is True


def test_a_boolean_schema_version_is_rejected() -> None:
    # True == 1, so Literal[1] alone would take it (over HTTP as much as on the bus)
    turn = {"id": "a", "text": "x", "ts": "2026-01-05T09:25:11+00:00", "schema_version": True}
    with pytest.raises(ValidationError, match="not a boolean"):
        Turn.model_validate(turn)
    assert Turn.model_validate({**turn, "schema_version": 1}).schema_version == 1


def _kept(text: str, *sentences: StaleSentence) -> ScoredChunk:
    turn = Turn(id="t", namespace="ns", text=text, ts=datetime(2026, 1, 1, tzinfo=UTC))
    return ScoredChunk(chunk=Chunk.from_turn(turn, 0, text), score=1.0, stale_sentences=sentences)


def test_visible_text_excises_superseded_statements_across_whitespace() -> None:
    since = datetime(2026, 2, 1, tzinfo=UTC)
    stale = StaleSentence(
        index=0,
        text="PATH = C:\\old",
        key="path / is",
        value="C:\\old",
        current_value="C:\\new",
        since=since,
    )
    sc = _kept("PATH =   C:\\old\nDEBUG = 1", stale)
    assert sc.visible_text == "[superseded on 2026-02-01; current value: C:\\new]\nDEBUG = 1"
    assert sc.chunk.text == "PATH =   C:\\old\nDEBUG = 1"  # the stored chunk is untouched
    missing = stale.model_copy(update={"text": "a statement the chunk does not hold"})
    assert _kept("DEBUG = 1", missing).visible_text == "DEBUG = 1"
    assert _kept("DEBUG = 1").visible_text == "DEBUG = 1"


def test_an_excised_line_is_never_the_start_of_a_longer_one() -> None:
    stale = StaleSentence(
        index=1, text="- id: ruff", key="k", value="- id: ruff", current_value="- id: ruff-check"
    )
    sc = _kept("hooks:\n  - id: ruff-format\n  - id: ruff\n    args: [--fix]", stale)
    assert sc.visible_text == (
        "hooks:\n  - id: ruff-format\n  [superseded; current value: - id: ruff-check]\n"
        "    args: [--fix]"
    )


def test_a_mention_stays_in_the_text_and_gets_a_note() -> None:
    note = StaleSentence(
        index=1,
        text="Bring the 3.9 wheel.",
        key="k",
        value="3.9",
        current_value="3.12",
        evidence="mention",
    )
    sc = _kept("The ML box is ready. Bring the 3.9 wheel.", note)
    assert sc.visible_text == sc.chunk.text
    result = RetrievalResult(
        query="q",
        namespace="ns",
        k=1,
        as_of=datetime(2026, 3, 1, tzinfo=UTC),
        kept=[sc],
        candidates=1,
    )
    assert result.context().endswith("Note: [1] names '3.9', which was replaced (now '3.12').")
