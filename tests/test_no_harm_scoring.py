"""How ``bench no-harm`` judges one query's outcome: decision precision counts a removed stale
value as right and a removed still-true fact or lost current answer as wrong, per stage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bench.heldout.data import HeldoutTurn, Instance
from bench.heldout.run import Tally, score
from gcmem.models import (
    Chunk,
    Conflict,
    Decision,
    RetrievalResult,
    ScoredChunk,
    StaleSentence,
    Turn,
)

T0 = datetime(2025, 3, 1, tzinfo=UTC)
NS = "ns"
TEXTS = {
    "t1": "The API gateway listens on port 8080.",  # stale
    "t2": "The API gateway's owner is the platform team.",  # still true
    "t3": "The API gateway listens on port 9090 now.",  # current
}


def _instance() -> Instance:
    return Instance(
        id="i1",
        family="keyed_prose",
        turns=[
            HeldoutTurn(id=t, ts=T0 + timedelta(days=i), text=x)
            for i, (t, x) in enumerate(TEXTS.items())
        ],
        query="Which port does the API gateway listen on?",
        current_turns=["t3"],
        stale_turns=["t1"],
        still_true_turns=["t2"],
        current_value="9090",
        stale_values=["8080"],
    )


def _scored(tid: str) -> ScoredChunk:
    turn = Turn(id=f"{NS}-{tid}", namespace=NS, text=TEXTS[tid], ts=T0)
    return ScoredChunk(chunk=Chunk.from_turn(turn, 0, TEXTS[tid]), score=0.5)


def _result(kept: list[str], dropped: dict[str, str]) -> RetrievalResult:
    return RetrievalResult(
        query="q",
        namespace=NS,
        k=10,
        candidates=len(kept) + len(dropped),
        as_of=T0 + timedelta(days=10),
        kept=[_scored(t) for t in kept],
        dropped=[Decision(chunk=_scored(t), stage=s, reason="r") for t, s in dropped.items()],
    )


def test_a_removed_stale_value_is_a_right_decision() -> None:
    tally = Tally()
    score(_instance(), _result(["t2", "t3"], {"t1": "supersession"}), tally, NS)
    summary = tally.summary()
    assert summary["decision_precision"] == 1.0
    assert summary["decisions_by_stage"] == {
        "supersession": {"right": 1, "wrong": 0, "precision": 1.0}
    }
    assert summary["stale_exposure"] == 0.0 and summary["still_true_dropped"] == 0


def test_a_removed_still_true_fact_and_a_lost_answer_are_wrong_decisions() -> None:
    tally = Tally()
    score(_instance(), _result(["t1"], {"t2": "dominance", "t3": "dominance"}), tally, NS)
    summary = tally.summary()
    assert summary["decisions_by_stage"]["dominance"] == {"right": 0, "wrong": 2, "precision": 0.0}
    assert summary["current_lost"] == 1 and summary["still_true_dropped"] == 1


def test_no_decision_has_no_precision() -> None:
    tally = Tally()
    score(_instance(), _result(["t1", "t2", "t3"], {}), tally, NS)
    assert tally.summary()["decision_precision"] is None


def test_a_note_on_a_still_true_fact_counts_against_note_precision() -> None:
    result = _result(["t1", "t2", "t3"], {})
    right = Conflict(older=_scored("t1"), newer=_scored("t3"), stage="dominance", reason="r")
    wrong = Conflict(older=_scored("t2"), newer=_scored("t3"), stage="dominance", reason="r")
    tally = Tally()
    score(_instance(), result.model_copy(update={"conflicts": [right, wrong]}), tally, NS)
    summary = tally.summary()
    assert (summary["notes_right"], summary["notes_wrong"]) == (1, 1)
    assert summary["note_precision"] == 0.5
    tally = Tally()
    score(_instance(), result, tally, NS)
    assert tally.summary()["note_precision"] is None  # no notes: nothing to judge


def _with_stale(tid: str, text: str) -> ScoredChunk:
    note = StaleSentence(index=0, text=text, key="k", value="v", current_value="7070")
    return _scored(tid).model_copy(update={"stale_sentences": (note,)})


def test_an_excised_stale_statement_is_not_exposure_and_is_a_right_decision() -> None:
    result = _result(["t2", "t3"], {})
    result.kept.append(_with_stale("t1", TEXTS["t1"]))
    tally = Tally()
    score(_instance(), result, tally, NS)
    summary = tally.summary()
    assert summary["stale_exposure"] == 0.0
    assert summary["decisions_by_stage"] == {
        "supersession (statement)": {"right": 1, "wrong": 0, "precision": 1.0}
    }
    assert summary["still_true_dropped"] == 0 and summary["still_true_excised"] == 0


def test_a_stale_statement_left_visible_is_exposure() -> None:
    result = _result(["t2", "t3"], {})
    result.kept.append(_with_stale("t1", "a statement the text does not hold"))
    tally = Tally()
    score(_instance(), result, tally, NS)
    assert tally.summary()["stale_exposure"] == 1.0


def test_an_excision_inside_a_still_true_or_current_chunk_is_harm() -> None:
    result = _result(["t1"], {})
    result.kept += [_with_stale("t2", TEXTS["t2"]), _with_stale("t3", TEXTS["t3"])]
    tally = Tally()
    score(_instance(), result, tally, NS)
    summary = tally.summary()
    assert summary["still_true_excised"] == 2 and summary["still_true_dropped"] == 2
    assert summary["current_lost"] == 1 and summary["current_present"] == 0.0
    assert summary["decisions_by_stage"]["supersession (statement)"]["wrong"] == 2


def test_a_stale_value_inside_the_marker_of_its_excision_is_no_exposure() -> None:
    # the marker shows the current value "18080", in which the stale "8080" recurs
    note = StaleSentence(index=0, text=TEXTS["t1"], key="k", value="v", current_value="18080")
    result = _result(["t2", "t3"], {})
    result.kept.append(_scored("t1").model_copy(update={"stale_sentences": (note,)}))
    assert "8080" in result.kept[-1].visible_text
    tally = Tally()
    score(_instance(), result, tally, NS)
    assert tally.summary()["stale_exposure"] == 0.0
