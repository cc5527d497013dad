"""Prose alignment beyond one exact span (``gcmem.facts.prose_align``): local frames in
reworded statements and revised sentences of a revised paragraph, with their guardrails."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gcmem.facts.align import PairAlignment, align_units, units_of
from gcmem.facts.prose_align import (
    align_chunk_units,
    align_local,
    align_turn_revisions,
    covers,
    reworded_restatements,
)
from gcmem.models import Chunk, Turn
from gcmem.settings import Settings
from tests.alignment_support import alignment_memory, outcome, stale_lines
from tests.doubles import HashingEmbedder


def frames(old: str, new: str) -> list[tuple[str, str, str]]:
    return [
        (f.frame, f.old_value, f.new_value)
        for f in align_chunk_units(units_of(old), units_of(new)).frames
    ]


def local(old: str, new: str) -> tuple[str, str, str] | None:
    (o,), (n,) = units_of(old), units_of(new)
    return align_local(o, n)


# --- local frames -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "values"),
    [
        # the subject worded differently around the same words
        (
            "In the mobile repo the default branch is develop; open PRs against it.",
            "Heads-up: the mobile repo's default branch is trunk now, please retarget any open "
            "PRs.",
            ("develop", "trunk"),
        ),
        # an interior "now" / "still" is not part of what the statement names
        (
            "For the billing service the request timeout is 30 seconds.",
            "The billing service's request timeout is now 45 seconds.",
            ("30", "45"),
        ),
        # the same content words in another order
        (
            "On the Android app the minimum SDK is 24.",
            "The minimum SDK on the Android app is 26.",
            ("24", "26"),
        ),
    ],
)
def test_a_reworded_subject_around_a_shared_local_frame_is_one_key(
    old: str, new: str, values: tuple[str, str]
) -> None:
    [(frame, *found)] = frames(old, new)
    assert tuple(found) == values
    assert " _" in frame


def test_the_frame_is_the_newer_wording() -> None:
    found = local(
        "In the mobile repo the default branch is develop.",
        "The mobile repo's default branch is trunk.",
    )
    assert found == ("mobile repo's default branch is _", "develop", "trunk")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a different qualifier outside a short shared frame: parallel keys
        (
            "In the staging repo the default branch is develop.",
            "The mobile repo's default branch is trunk.",
        ),
        (
            "For the staging database the port is 5433.",
            "The production database's port is 5432.",
        ),
        ("In staging, the API's port is 8080.", "In production the API's port is 9090."),
        ("My daughter's school is Hollins Middle.", "Our son's school is Maple Ridge."),
        # the subject named in one and not the other
        ("For the EU bucket the region is eu-west-1.", "The region is eu-central-1."),
    ],
)
def test_a_different_word_outside_the_local_frame_is_a_parallel_key(old: str, new: str) -> None:
    assert frames(old, new) == []


def test_two_settings_quoted_by_their_own_names_are_two_keys() -> None:
    assert (
        frames(
            "registry config for the web repo: `@acme:registry=https://npm.acme.dev/`",
            "registry config for the web repo: `@fonts:registry=https://npm.fonts.dev/`",
        )
        == []
    )
    # control: one setting's value changed
    assert (
        frames(
            "registry config for the web repo: `@acme:registry=https://npm.acme.dev/`",
            "registry config for the web repo: `@acme:registry=https://npm.acme.io/`",
        )
        != []
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "In the mobile repo the default branch is develop.",
            "The mobile repo's default branch is not trunk.",
        ),
        (
            "In the mobile repo the default branch is develop.",
            "The mobile repo's default branch might be trunk.",
        ),
        (
            "For the billing service the request timeout is 30 seconds.",
            "The billing service's request timeout could be 45 seconds.",
        ),
    ],
)
def test_negation_and_modality_are_not_local_value_changes(old: str, new: str) -> None:
    assert frames(old, new) == []


def test_a_differing_predicate_is_not_a_local_value() -> None:
    assert (
        frames(
            "For the billing service the cache uses Redis.",
            "The billing service's cache dropped Redis.",
        )
        == []
    )


def test_a_lead_in_phrase_alone_is_no_local_frame() -> None:
    # the statements after "From pg_hba.conf on db-reports," differ whole, predicate and all
    block = "```\nhost  {}  {}  {}  scram-sha-256\n```\nFrom pg_hba.conf on db-reports, {}."
    old = block.format("all", "all", "10.8.0.0/24", "that's the VPN range")
    new = block.format("reports", "metabase", "172.16.4.9/32", "lets Metabase in")
    assert frames(old, new) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("For me the favourite tea is oolong.", "My favourite tea is also sencha."),
        ("In our house the main language is Polish.", "Our house's other language is English too."),
    ],
)
def test_an_added_value_is_not_a_replacement(old: str, new: str) -> None:
    assert frames(old, new) == []


def test_a_short_local_frame_is_left_to_kappa() -> None:
    # "for me, I like X" / "I like Y": two words of frame identify no attribute
    assert frames("For me, I like tea.", "Me, I like coffee.") == []


def test_config_lines_are_not_reworded_prose() -> None:
    assert frames("db:\n  port: 5432", "cache:\n  port: 6379") == []


# --- paragraph revisions ----------------------------------------------------------------------

PARAGRAPH = (
    "Solvane is a French company that makes industrial enzymes for the food industry. "
    "It operates two fermentation plants near Lyon and employs about 650 people. "
    "Solvane is a subsidiary of the Dutch chemicals group Verhagen, which bought it in 2015. "
    "Its best-known product is an enzyme blend used in denim finishing."
)


def test_a_revised_sentence_in_a_restated_paragraph_is_superseded() -> None:
    new = PARAGRAPH.replace(
        "the Dutch chemicals group Verhagen, which bought it in 2015",
        "the Japanese group Kaneshiro Holdings, which bought it last year",
    )
    al = align_chunk_units(units_of(PARAGRAPH), units_of(new))
    [f] = al.frames
    assert (f.old_unit, f.new_unit) == (2, 2)
    assert f.frame.startswith("solvane is subsidiary of _ #")
    assert f.old_value == "Dutch chemicals group Verhagen, which bought it in 2015"
    assert f.new_value == "Japanese group Kaneshiro Holdings, which bought it last year"
    assert sorted(al.restated) == [(0, 0), (1, 1), (3, 3)]


def test_the_revision_frame_belongs_to_its_paragraph() -> None:
    other = PARAGRAPH.replace("Solvane is a French", "Solvane is a Belgian")

    def revise(p: str) -> str:
        return p.replace("two fermentation plants near Lyon", "three plants near Lille")

    a = align_chunk_units(units_of(PARAGRAPH), units_of(revise(PARAGRAPH)))
    b = align_chunk_units(units_of(other), units_of(revise(other)))
    [fa], [fb] = a.frames, b.frames
    assert fa.frame != fb.frame  # same sentence, another document: another key


@pytest.mark.parametrize(
    "revise",
    [
        # text added to a sentence is an elaboration
        lambda p: p.replace("in 2015.", "in 2015 for 300 million euros."),
        # a negation inserted is left to κ
        lambda p: p.replace("It operates two", "It no longer operates two"),
        lambda p: p.replace("It operates two", "It might operate two"),
        # the whole sentence rewritten is not a value change
        lambda p: p.replace(
            "Its best-known product is an enzyme blend used in denim finishing.",
            "Customers mostly know it for a detergent additive sold across Asia and Africa.",
        ),
    ],
)
def test_what_a_revision_is_not(revise: object) -> None:
    assert callable(revise)
    assert frames(PARAGRAPH, revise(PARAGRAPH)) == []


def test_sentences_shared_out_of_order_are_not_a_revision() -> None:
    a = "The API runs on port 8080. Logs go to Loki. Alerts page the on-call engineer via Opsgenie."
    b = "Alerts page the on-call engineer via Opsgenie. Logs go to Loki. The API binds 9090."
    assert frames(a, b) == []


def test_one_restated_sentence_is_a_revision_only_of_a_small_part() -> None:
    old = (
        "The warship was launched in August 1938 at the yard in Kiel on the Baltic coast. "
        "She was commissioned in October with Kapitänleutnant Heinrich Liebe in command."
    )
    new = old.replace("Heinrich Liebe", "Heinrich Schuch")
    assert [(o, n) for _, o, n in frames(old, new)] == [("Liebe", "Schuch")]
    rewritten = old.replace(
        "She was commissioned in October with Kapitänleutnant Heinrich Liebe in command.",
        "She was commissioned in October and sailed for Norway with a new crew.",
    )
    assert frames(old, rewritten) == []


def test_two_short_sentences_with_one_shared_are_events_not_a_revision() -> None:
    # one short restated sentence is no paragraph: two logged events are both true
    assert frames("Went to the gym. I did 50 pushups.", "Went to the gym. I did 60 pushups.") == []


# --- time adverbials and trailing narration --------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "Our staging cluster is in eu-west-1.",
            "As of today our staging cluster is in eu-central-1.",
            ("our staging cluster is in _", "eu-west-1", "eu-central-1"),
        ),
        (
            "Marco sits on the developer-experience team.",
            "Since the reshuffle in March Marco sits on the observability team.",
            ("marco sits on _ team", "developer-experience", "observability"),
        ),
        (
            "The staging cluster is in eu-west-1.",
            "Our staging cluster is in eu-central-1 due to the GDPR review.",
            ("our staging cluster is in _", "eu-west-1", "eu-central-1"),
        ),
    ],
)
def test_a_time_adverbial_or_a_reason_is_not_part_of_the_frame(
    old: str, new: str, expected: tuple[str, str, str]
) -> None:
    assert frames(old, new) == [expected]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a time adverbial does not hide a differing scope or subject
        ("In staging the port is 5432.", "Since March the port is 5433."),
        ("The production port is 5432.", "Since March the staging port is 5433."),
    ],
)
def test_a_time_adverbial_hides_no_qualifier(old: str, new: str) -> None:
    assert frames(old, new) == []


@pytest.mark.parametrize(
    "new",
    [
        "The ML service targets Python 3.12 now that we dropped TensorFlow.",
        "The ML service targets Python 3.12 thanks to the PyTorch port.",
        "The ML service targets Python 3.12 as of the March release.",
    ],
)
def test_the_exact_rule_cuts_a_reason_clause_off_the_value(new: str) -> None:
    al = align_units(units_of("The ML service targets Python 3.9."), units_of(new))
    assert [(f.old_value, f.new_value) for f in al.frames] == [("3.9", "3.12")]


# --- revisions across chunk boundaries --------------------------------------------------------

S1 = "Casa Alta is a boutique hotel in the old town of Oaxaca."
S2 = "It is set in a restored colonial mansion around two courtyards."
S3 = "The hotel organises cooking classes and day trips to Monte Albán."
# narrated (an event to the exact rule): only the paragraph makes it a revised statement
S4 = "The mansion was restored in 2015 and opened in 2016 by the architect Elena Ruiz of Puebla."


def _chunk(turn: str, index: int, text: str, day: int) -> Chunk:
    t = Turn(id=turn, namespace="rev", text=text, ts=datetime(2025, 3, day, tzinfo=UTC))
    return Chunk.from_turn(t, index, text)


def test_a_revision_whose_chunk_boundary_moved_is_anchored_by_its_turn() -> None:
    s4 = S4.replace("Elena Ruiz", "Tomás Vega")
    old = [_chunk("a", 0, f"{S1} {S2} {S3}", 1), _chunk("a", 1, S4, 1)]
    new = [_chunk("b", 0, f"From their site: {S1} {S2}", 9), _chunk("b", 1, f"{S3} {s4}", 9)]
    units = {c.id: units_of(c.text) for c in (*old, *new)}
    pairs = [(o, n) for o in old for n in new]
    alignments = [(o, n, align_chunk_units(units[o.id], units[n.id])) for o, n in pairs]
    # the pair (old chunk 1, new chunk 1) shares no sentence: alone it is no revision
    assert [a[2].frames for a in alignments] == [[], [], [], []]
    align_turn_revisions(alignments, units)
    [f] = alignments[3][2].frames
    assert (f.old_value, f.new_value) == ("Elena Ruiz", "Tomás Vega")
    # the other pairs gained nothing: their sentences are restated
    assert [a[2].frames for a in alignments[:3]] == [[], [], []]


def test_turn_anchors_need_a_small_revised_part() -> None:
    s4 = "The mansion was restored in 2015 and opened in 2016 as a hotel with a rooftop bar."
    old = [_chunk("a", 0, f"{S1} {S2} {S3}", 1), _chunk("a", 1, S4, 1)]
    new = [_chunk("b", 0, f"From their site: {S1} {S2}", 9), _chunk("b", 1, f"{S3} {s4}", 9)]
    units = {c.id: units_of(c.text) for c in (*old, *new)}
    alignments = [(o, n, align_chunk_units(units[o.id], units[n.id])) for o in old for n in new]
    align_turn_revisions(alignments, units)
    assert all(a[2].frames == [] for a in alignments)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The port is 5432.", "Since 2020 the staging port is 5433."),
        ("The DB port is 5432.", "Since March staging DB port is 5433."),
    ],
)
def test_a_time_adverbial_ends_on_a_point_in_time_not_on_a_qualifier(old: str, new: str) -> None:
    assert frames(old, new) == []


def test_short_shared_sentences_do_not_make_a_revision() -> None:
    old = "Weekly report. All tests green. We shipped the login page to the beta group."
    new = "Weekly report. All tests green. We shipped the signup page to the beta group."
    assert frames(old, new) == []


def test_an_interior_still_does_not_hide_a_value_change() -> None:
    assert frames(
        "I still live in Leeds near the station.", "I live in York near the station."
    ) == [("i live in _ near station", "Leeds", "York")]


def test_a_trailing_too_is_additive() -> None:
    assert (
        frames(
            "For the team the main language is Polish.", "Our team's main language is English too."
        )
        == []
    )


def test_at_equal_frames_the_shorter_value_wins() -> None:
    # the whole sentence and its first clause give the same frame; the clause's value is kept
    al = align_units(
        units_of("The local dev server listens on port 3000."),
        units_of("The local dev server listens on port 5173 after we switched bundlers."),
    )
    assert [(f.old_value, f.new_value) for f in al.frames] == [("3000", "5173")]


# --- reworded paragraph revisions -------------------------------------------------------------

BIO = (
    "Ines Duarte is a furniture maker based in Braga. "
    "She learned joinery from her grandfather and spent a decade building boat interiors. "
    "Her tables pair oak tops with thin steel legs, and she runs an evening class for adults. "
    "Orders open every spring."
)
BIO_REVISED = (
    "Ines Duarte is a furniture maker based in Coimbra. "
    "She learned joinery from her grandfather and spent a decade fitting boat interiors. "
    "Her tables combine oak tops with thin steel legs, and she runs an evening class for "
    "adults in her workshop. "
    "Orders are open every spring."
)


def test_a_reworded_revision_restates_every_sentence_it_does_not_change() -> None:
    al = align_chunk_units(units_of(BIO), units_of(BIO_REVISED))
    [f] = al.frames
    assert (f.old_unit, f.old_value, f.new_value) == (0, "Braga", "Coimbra")
    assert sorted(al.restated) == [(1, 1), (2, 2), (3, 3)]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a second difference that is a value: not wording, so not restated
        ("a decade fitting", "twelve years fitting"),
        ("class for adults", "class for 12 adults"),
        ("runs an evening class", "runs an Evenings Club class"),
        # a negation or modal among the differences
        ("she runs an evening class", "she no longer runs an evening class"),
        ("Orders are open every spring.", "Orders might be open every spring."),
        # a sentence with no counterpart: the older paragraph says something the newer does not
        ("Orders are open every spring.", "Delivery is free within Portugal."),
        # the sentences out of order: another document
        (
            "Orders are open every spring.",
            "Orders are open every spring. She learned joinery from her grandfather.",
        ),
    ],
)
def test_a_reworded_revision_is_only_a_revision_in_wording(old: str, new: str) -> None:
    older, newer = units_of(BIO), units_of(BIO_REVISED.replace(old, new))
    found = align_units(older, newer)
    assert [f.old_value for f in found.frames] == ["Braga"]
    assert reworded_restatements(older, newer, found) == []


def test_a_reworded_paragraph_with_no_changed_value_restates_nothing() -> None:
    older, newer = units_of(BIO), units_of(BIO_REVISED.replace("Coimbra", "Braga"))
    found = PairAlignment(restated=[(0, 0)])
    assert reworded_restatements(older, newer, found) == []


def test_covers_needs_a_counterpart_for_every_statement_of_the_older_chunk() -> None:
    old = "The studio is on Via Roma. It opens at 9. Parking is behind the church."
    assert covers(old, "The studio is on Via Verdi. It opens at 9. Parking is behind the church.")
    assert covers(old, "Parking is behind the church. It opens at 10. The studio is on Via Roma.")
    assert not covers(old, "The studio is on Via Verdi now.")
    assert covers("The studio is on Via Roma.", "We moved the studio to Via Verdi.")


# --- a pronoun's subject ---------------------------------------------------------------------

BRIDGE = (
    "The Old Mill Bridge spans the Rhine near the village of Kell. It was completed in 1890. "
    "The bridge carries a single railway track."
)
CHAPEL = (
    "St. Anne's Chapel stands on a hill above the harbour. It was completed in 1921. "
    "The chapel holds services every Sunday."
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (BRIDGE, CHAPEL),
        # no name before the pronoun: the words of the sentence before it differ
        (
            "The city library moved into the former customs house. Its reading room seats 120 "
            "people.",
            "The town hall sits on the market square. Its reading room seats 80 people.",
        ),
        (
            "Marta Kovacs grew up in Split. She works as a translator in Zagreb.",
            "Ivo Horvat studied law in Rijeka. She works as a translator in Vienna.",
        ),
        # "the" and a noun the sentence before says: a pronoun in other words
        (
            "The River Haddon is a chalk stream in Norfolk. The river's total length is about "
            "64 kilometres.",
            "The River Scarrow is a chalk stream in Suffolk. The river's total length is about "
            "22 kilometres.",
        ),
    ],
)
def test_a_pronoun_after_a_different_subject_is_a_parallel_fact(old: str, new: str) -> None:
    assert frames(old, new) == []


def test_a_pronoun_in_a_revised_paragraph_keeps_its_subject() -> None:
    newer = BRIDGE.replace("1890", "1892")
    assert [(v, w) for _, v, w in frames(BRIDGE, newer)] == [("1890", "1892")]
    river = "The River Haddon is a chalk stream in Norfolk. The river's length is 64 km."
    assert [(v, w) for _, v, w in frames(river, river.replace("64", "71"))] == [("64", "71")]
    # a pronoun opening the chunk names no subject to compare: the frame stands
    assert [(v, w) for _, v, w in frames("It listens on 8443.", "It listens on 9443 now.")] == [
        ("8443", "9443")
    ]


def test_two_articles_pronoun_facts_keep_each_other(
    redis_settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    t0 = datetime(2024, 5, 1, tzinfo=UTC)
    turns = [
        Turn(id="bridge", namespace="wiki", text=BRIDGE, ts=t0),
        Turn(id="chapel", namespace="wiki", text=CHAPEL, ts=t0.replace(month=9)),
    ]
    with alignment_memory(redis_settings, hashing_embedder) as memory:
        memory.ingest(turns)
        result = memory.retrieve("When was it completed?", namespace="wiki", k=10)
    assert outcome(result) == {"bridge": "kept", "chapel": "kept"}
    assert stale_lines(result) == {"bridge": [], "chapel": []}


def test_a_revision_that_changes_the_value_in_the_subjects_sentence_too() -> None:
    old = (
        "LOVE is an artwork by Robert Indiana, located at the Indianapolis Museum of Art. It "
        "has been on continuous exhibition at the Indianapolis Museum of Art since 1975."
    )
    new = old.replace("Indianapolis Museum of Art", "Central Park")
    assert ("Indianapolis Museum of Art", "Central Park") in [
        (v, w) for _, v, w in frames(old, new)
    ]


def test_a_pronoun_statement_repeated_in_two_articles_restates_nothing(
    redis_settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    t0 = datetime(2024, 5, 1, tzinfo=UTC)
    frog = (
        "The Alcaraz painted frog is a small amphibian found in south-eastern Spain. It is "
        "classified as endangered on the IUCN Red List. It measures about 6 centimetres."
    )
    toad = (
        "The Sierra Morena midwife toad is a small amphibian found in southern Spain. It is "
        "classified as endangered on the IUCN Red List. It measures about 4 centimetres."
    )
    toad_revised = toad.replace("classified as endangered", "classified as vulnerable")
    turns = [
        Turn(id="frog", namespace="wiki", text=frog, ts=t0),
        Turn(id="toad", namespace="wiki", text=toad, ts=t0.replace(month=6)),
        Turn(id="toad2", namespace="wiki", text=toad_revised, ts=t0.replace(month=9)),
    ]
    with alignment_memory(redis_settings, hashing_embedder) as memory:
        memory.ingest(turns)
        result = memory.retrieve("IUCN Red List status", namespace="wiki", k=10)
    lines = stale_lines(result)
    # the toad's own older statement is superseded; the frog's identical one is its own fact
    assert lines.get("frog") == []
    assert outcome(result)["frog"] == "kept"
    assert "toad" not in lines or lines["toad"] == [
        "It is classified as endangered on the IUCN Red List."
    ]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "Japan trip, days 5 to 9. We take the Shinkansen to Kyoto on the 14th, seats in "
            "car 7. In Kyoto we stay four nights at the Hotel Kanra.",
            "Japan trip, days 10 to 13. From Kyoto we go to Hiroshima on the 18th for the "
            "Peace Memorial Museum, then the ferry to Miyajima.",
        ),
        (
            "Week 3 menu. Monday is lentil soup and Tuesday is fish pie. The kids pick Friday.",
            "Week 4 menu. Monday is chickpea curry, Wednesday is leftovers. Pizza on Friday.",
        ),
    ],
)
def test_titles_of_two_texts_of_a_series_are_no_value_change(old: str, new: str) -> None:
    assert frames(old, new) == []


def test_a_revised_text_under_a_changed_title_still_changes_its_value() -> None:
    # control: the bodies restate each other, so the title's change is the text's revision
    old = (
        "Pool hours, weekdays 6am to 9pm. Lane swimming is in the mornings. Bring a padlock "
        "for the lockers."
    )
    new = old.replace("6am", "7am")
    assert [(v, w) for _, v, w in frames(old, new)] == [("6am", "7am")]
