"""Stale mentions (``gcmem.facts.mentions``): older statements that name a value a decided
frame replaced, and the guards that keep everything else; end to end through ``Memory``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from gcmem.facts.align import units_of
from gcmem.facts.mentions import ValueChange, distinctive, stale_mentions
from gcmem.facts.prose_align import align_chunk_units
from gcmem.filters.supersession import _same_thing
from gcmem.memory import Memory
from gcmem.models import Chunk, Turn
from gcmem.settings import Settings
from tests.alignment_support import alignment_memory, outcome
from tests.doubles import HashingEmbedder

T0 = datetime(2023, 1, 2, 9, 0, tzinfo=UTC)
NS = "mentions"
OLD = "The ML service targets Python 3.9 because of the TensorFlow pin."
NEW = "We dropped TensorFlow for PyTorch, so the ML service targets Python 3.12 now."


def chunk(tid: str, text: str, days: float) -> Chunk:
    return Chunk(
        id=f"c-{tid}",
        namespace=NS,
        turn_id=tid,
        index=0,
        text=text,
        ts=T0 + timedelta(days=days),
        content_hash=tid,
    )


def mentioned(
    others: dict[str, tuple[str, float]],
    older: str = OLD,
    newer: str = NEW,
    *,
    frame: str | None = "ml service targets python _",
    **kw: object,
) -> set[str]:
    """Turn ids of ``others`` found to be stale mentions of the one frame ``older`` ->
    ``newer`` decide (OLD -> NEW's by default; ``frame=None``: any one frame)."""
    old, new = chunk("old", older, 0), chunk("new", newer, 30)
    chunks = {c.id: c for c in (old, new)}
    chunks |= {f"c-{t}": chunk(t, text, d) for t, (text, d) in others.items()}
    units = {cid: units_of(c.text) for cid, c in chunks.items()}
    found = align_chunk_units(units[old.id], units[new.id])
    said = [f.frame for f in found.frames]
    assert said == [frame] if frame is not None else len(said) == 1
    changes = ValueChange.from_frames([(old, new, found)], units)
    return {m.chunk.turn_id for m in stale_mentions(changes, units, chunks, **kw)}  # type: ignore[arg-type]


def test_restatements_in_other_words_are_stale_mentions() -> None:
    others = {
        "t2": ("Yes, still Python 3.9 for the ML service; don't use match statements.", 10),
        "t3": ("The Dockerfile for the ML service starts FROM python:3.9-slim.", 20),
    }
    assert mentioned(others) == {"t2", "t3"}


@pytest.mark.parametrize(
    "text",
    [
        "We never ran Python 3.9 on the ML service.",  # negated in its clause
        "The ML service might need Python 3.9 wheels.",  # modal
        "The ML service also ships Python 3.9 wheels.",  # additive: a value beside it
        "Our CI image has Python 3.9 preinstalled.",  # not about the frame's thing
        "The ML service pins Python 3.95 for the demo.",  # 3.9 is not named
        "Moving the ML service from Python 3.9 to 3.12 next sprint.",  # names the new value
    ],
)
def test_guarded_statements_are_not_mentions(text: str) -> None:
    assert mentioned({"t2": (text, 10)}) == set()


def test_a_mention_after_the_change_is_not_stale() -> None:
    later = {"t9": ("Yes, still Python 3.9 for the ML service; don't use match statements.", 40)}
    assert mentioned(later) == set()


def test_the_subject_test_keeps_a_parallel_key() -> None:
    parallel = {"t2": ("The billing service targets Python 3.9.", 10)}
    assert mentioned(parallel) == {"t2"}  # the frame's words alone cannot tell
    assert mentioned(parallel, same_thing=_same_thing) == set()


# --- end to end ---------------------------------------------------------------------------


def turn(tid: str, text: str, days: float) -> Turn:
    return Turn(id=tid, namespace=NS, text=text, ts=T0 + timedelta(days=days))


@pytest.fixture
def memory(redis_settings: Settings, hashing_embedder: HashingEmbedder) -> Iterator[Memory]:
    with alignment_memory(redis_settings, hashing_embedder) as m:
        yield m


TURNS = [
    ("t1", OLD, 0),
    ("t2", "The ML service exposes a gRPC endpoint for predictions.", 5),
    ("t3", "Yes, still Python 3.9 for the ML service; don't use match statements.", 10),
    ("t4", "The billing service targets Python 3.9.", 12),
    ("t5", "The Dockerfile for the ML service starts FROM python:3.9-slim.", 20),
    ("t6", NEW, 30),
]


def test_stale_mentions_are_dropped_with_the_frames_decision(memory: Memory) -> None:
    for tid, text, days in TURNS:
        memory.ingest([turn(tid, text, days)])
    result = memory.retrieve("Which Python version does the ML service target?", namespace=NS)
    assert outcome(result) == {
        "t1": "dropped",
        "t2": "kept",
        "t3": "dropped",
        "t4": "kept",  # the billing service: a parallel key
        "t5": "dropped",
        "t6": "kept",
    }
    for d in result.dropped:
        # t1 is keyed by the grammar too ("targets Python 3.9"): the frame its mentions close
        # under is recorded for it beside that key
        frames = [a for a in d.details["assertions"] if a["subject"] == "frame"]
        assert [(a["relation"], a["object"]) for a in frames] == [
            ("ml service targets python _", "3.9")
        ]
        assert d.dominated_by_turn_id == "t6" and "3.12" in d.reason


def test_mentions_off_keeps_them(
    redis_settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    with alignment_memory(redis_settings, hashing_embedder, supersession_align_mentions=False) as m:
        m.ingest([turn(tid, text, days) for tid, text, days in TURNS])
        result = m.retrieve("Which Python version does the ML service target?", namespace=NS)
    assert outcome(result)["t3"] == "kept" and outcome(result)["t1"] == "dropped"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("50 MB", True),  # a number with its unit
        ("db-main-01.internal", True),
        ("Barcelona", True),
        ("Dmitri Havel", True),
        ("January", False),  # months, weekdays and languages are said of many things
        ("Spanish", False),
        ("8080", False),  # a bare number too
        ("twice a week", False),
    ],
)
def test_distinctive_values(value: str, expected: bool) -> None:
    assert distinctive(value) is expected


GRAMMAR_TURNS = [
    ("t1", "The quarterly offsite is always in Barcelona.", 0),
    ("t2", "Barcelona offsite next month, bring a rain jacket.", 10),
    ("t3", "The offsite is three days: planning, hacking and fun.", 15),
    ("t4", "My sister's wedding is in Barcelona in May.", 18),  # names the value, not the thing
    ("t5", "Quarterly offsites are in Lisbon from now on, the company opened an office there.", 30),
]


def test_mentions_of_a_value_the_grammar_decided(memory: Memory) -> None:
    for tid, text, days in GRAMMAR_TURNS:
        memory.ingest([turn(tid, text, days)])
    result = memory.retrieve("Where is the quarterly offsite held?", namespace=NS)
    assert outcome(result) == {
        "t1": "dropped",  # the grammar's key: (quarterly offsite, is in)
        "t2": "dropped",  # a distinctive old value and one word of the key ("offsite")
        "t3": "kept",
        "t4": "kept",
        "t5": "kept",
    }
    [mention] = [d for d in result.dropped if d.chunk.chunk.turn_id.endswith("t2")]
    [a] = mention.details["assertions"]
    assert (a["subject"], a["relation"], a["object"]) == ("quarterly offsite", "is in", "Barcelona")


def test_a_mention_beside_a_still_true_statement_is_noted_not_excised(memory: Memory) -> None:
    memory.ingest([turn("t1", OLD, 0)])
    mention = "Heads up, we run Python 3.9 for the ML service. The model registry lives in MLflow."
    memory.ingest([turn("t2", mention, 5)])
    memory.ingest([turn("t6", NEW, 30)])
    result = memory.retrieve("Which Python version does the ML service target?", namespace=NS)
    kept = next(c for c in result.kept if c.chunk.turn_id == "t2")
    [note] = kept.stale_sentences
    assert note.evidence == "mention" and not note.excised and note.value == "3.9"
    assert kept.visible_text == mention  # an inference from a named value: shown, with a note
    assert "names '3.9', which was replaced since" in result.context()


def test_a_mention_reads_hedges_as_alignment_does() -> None:
    from gcmem.facts.mentions import asserts_value

    # "plan" the noun and "with no" hedge nothing; "plan to" and "no longer" do
    [said] = units_of("The gym is on the Gold plan at 45 pounds, with no joining fee.")
    assert asserts_value(said, "Gold")
    [planned] = units_of("We plan to move the gym to the Gold tier.")
    assert not asserts_value(planned, "Gold")


def test_a_statement_said_again_inside_a_longer_one_is_a_mention_without_a_name() -> None:
    from gcmem.facts.align import said_within

    [said] = units_of("Deliveries leave the shop at 10:30 each morning.")
    [told] = units_of(
        "Customer on the phone wanted a time, told her deliveries leave the shop at 10:30 each "
        "morning."
    )
    assert said_within(told, said)
    # a scope or a hedge around it makes it another statement
    for text in (
        "In winter, deliveries leave the shop at 10:30 each morning.",
        "Not sure anymore, but deliveries leave the shop at 10:30 each morning.",
    ):
        [other] = units_of(text)
        assert not said_within(other, said), text
    # a short statement is too little to recognise inside another
    [short] = units_of("The port is 8080.")
    [longer] = units_of("Told her the port is 8080 for now.")
    assert not said_within(longer, short)


def test_the_statement_said_again_inside_a_longer_one_goes_with_it(memory: Memory) -> None:
    memory.ingest(
        [
            turn("t1", "Deliveries leave the shop at 10:30 each morning.", 0),
            turn(
                "t2",
                "Customer on the phone wanted a time, told her deliveries leave the shop at 10:30 "
                "each morning.",
                3,
            ),
            turn(
                "t3",
                "New driver starts later, so deliveries leave the shop at 11:15 each morning.",
                9,
            ),
        ]
    )
    result = memory.retrieve("When do deliveries leave the shop?", namespace=NS, k=10)
    assert outcome(result) == {"t1": "dropped", "t2": "dropped", "t3": "kept"}


def line_mentions(texts: dict[str, tuple[str, float]]) -> set[str]:
    """Turn ids of ``texts`` found to be stale mentions of a config line's change."""
    old = chunk("old", "Settings for the record:\nwork_queue_limit = 200\nlog_level = info", 0)
    new = chunk("new", "Applied in the window:\nwork_queue_limit = 350", 30)
    chunks = {c.id: c for c in (old, new)}
    chunks |= {f"c-{t}": chunk(t, text, d) for t, (text, d) in texts.items()}
    units = {cid: units_of(c.text) for cid, c in chunks.items()}
    found = align_chunk_units(units[old.id], units[new.id])
    assert [(f.frame, f.old_value, f.new_value) for f in found.frames] == [
        ("work_queue_limit = _", "200", "350")
    ]
    changes = ValueChange.from_frames([(old, new, found)], units)
    return {m.chunk.turn_id for m in stale_mentions(changes, units, chunks)}


def test_a_config_lines_key_said_in_prose_with_the_old_value_is_a_mention() -> None:
    """A line's change keys prose that names the line's code key and its old value; not a
    statement without the key, nor another file's line (line alignment decides lines)."""
    texts = {
        "t1": ("We hit work_queue_limit = 200 during the batch import.", 10),
        "t2": ("The import stalled at 200 rows.", 11),
        "t3": ("other.conf:\nwork_queue_limit = 200", 12),
    }
    assert line_mentions(texts) == {"t1"}


def test_a_plain_word_key_of_a_line_needs_a_distinctive_value() -> None:
    old = chunk("old", "config.yaml:\nretries: 3\nmode: fast", 0)
    new = chunk("new", "config.yaml:\nretries: 5\nmode: fast", 30)
    said = chunk("t1", "We keep retries at 3 for the nightly job.", 10)
    chunks = {c.id: c for c in (old, new, said)}
    units = {cid: units_of(c.text) for cid, c in chunks.items()}
    found = align_chunk_units(units[old.id], units[new.id])
    assert [f.old_value for f in found.frames] == ["3"]
    changes = ValueChange.from_frames([(old, new, found)], units)
    assert stale_mentions(changes, units, chunks) == []  # "retries" and "3" name little


def test_a_statement_of_another_year_is_another_occasion() -> None:
    others = {
        "t2": ("He raced for DAMS in the 2014 Formula Renault 3.5 season, winning the title.", 10),
        "t3": ("In 2013 Sainz raced Formula Renault 3.5 for Arden.", 12),
        "t4": ("Sainz raced Formula Renault 3.5 for Arden.", 14),
    }
    # a sentence both restate follows the revised one, so the pair aligns
    rest = " He missed several races while focused on GP3."
    old = "Sainz raced in Formula Renault 3.5 for the first time in 2013." + rest
    new = "Sainz raced in Formula BMW Europe for the first time in 2013." + rest
    # the same year, or none said: the old value said again; another season: kept
    assert mentioned(others, old, new, frame=None) == {"t3", "t4"}
