"""The anchoring test a κ drop needs (``gcmem.oracle.relatedness.anchored``): a common subject
and a common attribute, with no qualifier that makes them two things of one kind."""

from __future__ import annotations

import pytest

from gcmem.oracle.relatedness import (
    anchored,
    apart,
    qualified_apart,
    qualifiers,
    same_subject,
    scoped_apart,
)

# (older, newer): one thing whose value changed; every pair must stay anchored
SAME_THING = [
    # a possessive restating the subject's scope ("in the X repo" / "the X repo's")
    (
        "In the billing repo the default branch is develop; open PRs against it.",
        "Heads-up: the billing repo's default branch is trunk now, retarget open PRs.",
    ),
    ("Checkout in prod runs 6 replicas.", "Checkout in prod runs 10 replicas since Friday."),
    # the verb is the value: a preference that changed
    ("I hate running.", "I love running now."),
    # a verb after the subject is its predicate, not a qualifier of the object
    (
        "The media service rejects uploads over 50 MB.",
        "The media service accepts uploads up to 200 MB.",
    ),
    # a head noun after the common subject is its object, the value
    ("The profile worker uses the priority queue.", "The profile worker uses the batch queue."),
    ("My rent is €1,180 a month.", "The landlord raised it: my rent is €1,450 a month now."),
    ("For scheduling, I'm in Asia/Singapore.", "For scheduling, put me in Europe/Berlin."),
    ("The API listens on port 8080.", "The API listens on port 9090."),
    # two places changed, neither where the statement opens
    ("Standup is at 9:30 in room A.", "Standup is at 10:00 in room B."),
]

# (older, newer): still both true; none may be anchored
TWO_THINGS = [
    # parallel keys: the subject's head noun both name, qualified apart
    (
        "In the mobile repo the default branch is develop; open PRs against it.",
        "In the web repo the default branch is main; open PRs against it.",
    ),
    (
        "The mobile repo's default branch is develop, PRs go there.",
        "The web repo's default branch is trunk, PRs go there.",
    ),
    # ... or under a scope preposition
    ("Checkout in prod runs 6 replicas.", "Checkout in staging has 2 replicas."),
    # compatible opposites: the object qualified apart
    ("I hate treadmill running.", "I love trail running."),
    # multi-valued: a value added beside the other
    ("I take levothyroxine every morning.", "I also take magnesium every morning."),
    # one shape, differing where it opens (the subject) and again later (the value)
    (
        "The U10s train Tuesdays on Field 2 at the rec ground.",
        "The U12s train Thursdays on Field 2 at the rec ground.",
    ),
    # a pronoun is no common subject, a clitic half ("it's") no common attribute
    ("She's in seventh grade.", "She's always been good at maths."),
    ("Maria says it's a Go service.", "Maria thinks it's fine to deploy on Fridays."),
]


@pytest.mark.parametrize(("older", "newer"), SAME_THING)
def test_one_thing_stays_anchored(older: str, newer: str) -> None:
    assert anchored(older, newer)
    assert anchored(newer, older)  # the test is symmetric


@pytest.mark.parametrize(("older", "newer"), TWO_THINGS)
def test_two_things_of_one_kind_are_not_anchored(older: str, newer: str) -> None:
    assert not anchored(older, newer)
    assert not anchored(newer, older)


def test_qualifiers_are_the_modifiers_only_one_statement_has() -> None:
    mobile = "The mobile repo's default branch is develop."
    web = "The web repo's default branch is trunk."
    # past the words both share ("repo's default"), to the one that tells them apart
    assert qualifiers(mobile, "branch", web) == {"mobile"}
    assert qualifiers(web, "branch", mobile) == {"web"}
    assert qualified_apart(mobile, web, "branch")
    # a modifier the other statement also says anywhere is their common frame
    both = "The mobile repo's default branch is trunk; the web repo is archived."
    assert qualifiers(both, "branch", mobile) == frozenset()
    assert not qualified_apart(mobile, both, "branch")
    # a scope preposition's object after the word, past a determiner
    prod, staging = "Checkout in the prod cluster runs 6 pods.", "Checkout in staging runs 2 pods."
    assert qualifiers(prod, "checkout", staging) == {"prod"}
    assert qualifiers(staging, "checkout", prod) == {"staging"}


def test_values_verbs_and_times_are_no_qualifiers() -> None:
    # a number is the value, a pronoun's next word its verb, a time when, not which
    assert qualifiers("Checkout runs 6 replicas.", "replica", "Checkout runs 2 replicas.") == set()
    assert qualifiers("I hate running.", "running", "I love running.") == set()
    assert qualifiers("Standup on Monday mornings.", "standup", "Standup on Tuesday.") == set()
    assert qualifiers("My new laptop is a Dell.", "laptop", "My laptop is a Mac.") == set()


def test_a_common_subject_needs_a_name_not_a_pronoun() -> None:
    assert same_subject("I moved to Lisbon.", "I work from home.")  # the speaker is one
    assert not same_subject("She's in seventh grade.", "She's good at maths.")
    assert same_subject("Priya's school is Hollins.", "Priya walks to school.")


def test_passages_are_anchored_by_a_shared_word_alone() -> None:
    # in a paragraph the words next to a shared word are other sentences' as often as its
    # own, so the qualifier and additive guards are for statements only
    older = (
        "Ridgeway Press is a small publisher based in Leeds. It was founded in 1994 by two "
        "former teachers and publishes poetry and local history. Its best-known series is the "
        "Pennine Walks guides. The press also runs a yearly prize for new poets, judged by a "
        "panel of three writers, and the winner gets a first collection printed."
    )
    newer = older.replace("based in Leeds", "based in York").replace("also runs", "runs")
    assert len(older.split()) > 40
    assert anchored(older, newer)
    # the same pair as short statements: "also" on one side is a value added beside
    assert not anchored("Ridgeway Press also publishes poetry.", "Ridgeway Press publishes essays.")


@pytest.mark.parametrize(
    ("a", "b", "apart"),
    [
        # two scopes under one preposition: two values, both true
        (
            "Pool at the Y opens at 5:30am on weekdays.",
            "Pool at the Y opens at 8am on weekends.",
            True,
        ),
        ("Checkout runs 6 pods in prod.", "Checkout runs 2 pods in staging.", True),
        ("The gym opens at 6am for members.", "The gym opens at 9am for guests.", True),
        # one differing span (a value, "9:30" one token run) stays κ's
        ("The standup is at 9:30 on Mondays.", "The standup is at 10:00 on Mondays.", False),
        ("The ML service targets Python 3.9.", "The ML service targets Python 3.12 now.", False),
        # two changed values, one under "at": not decided by κ (the pair is surfaced instead)
        ("Alice works at Google as an engineer.", "Alice works at Microsoft as a manager.", True),
        # one span ("red Honda" -> "blue Mazda") is one value
        ("Sam drives a red Honda.", "Sam drives a blue Mazda.", False),
    ],
)
def test_scoped_apart(a: str, b: str, apart: bool) -> None:
    assert scoped_apart(a, b) is apart
    if apart:
        assert not anchored(a, b)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        # first person in a line that names its speaker is that speaker
        (
            "Maya: my bedtime is 10 on school nights",
            "Jordan: my bedtime is 11 on school nights",
            False,
        ),
        (
            "Maya: my bedtime is 10 on school nights",
            "Maya: my bedtime is 11 on school nights",
            True,
        ),
        ("My bedtime is 10 on school nights", "My bedtime is 11 on school nights", True),
        # a date is when, not what: two children, one month
        (
            "Noah starts at Brookside Elementary in September, 2nd grade.",
            "Lily starts at Brookside Middle in September, 6th grade.",
            False,
        ),
        ("Noah goes to Brookside Elementary.", "Noah goes to Oakwood Academy.", True),
        # two members of one collection
        ("Countries visited: Japan (2018)", "Countries visited: Morocco (2019)", False),
    ],
)
def test_speakers_and_dates_as_subjects(a: str, b: str, expected: bool) -> None:
    assert anchored(a, b) is expected


# ``apart``: the only relatedness test a supersession adapter's drop needs. A change worded
# unlike the older statement ("Mine is Dr. Lindqvist now") is not provably about another
# thing, though it shares no attribute word with it; records of two things are.
@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The ML service runs on port 9000.", "The billing service runs on port 9100."),
        ("Aiko: I'm on JST, so evenings work for me", "Ravi: I'm on IST, so evenings are hard"),
        ("Countries visited: Japan (2018)", "Countries visited: Morocco (2019)"),
        ("The pool opens at 5:30am on weekdays.", "The pool opens at 8am on weekends."),
        (
            "Direct debit set up for the broadband, comes out on the 15th.",
            "Direct debit set up for the gym, comes out on the 28th.",
        ),
        ("I speak Portuguese.", "I also speak some Japanese now."),
        (
            "inventory/prod.ini under [kafka]: `kafka-a1.prod.internal broker_id=1`",
            "inventory/prod.ini under [kafka]: `kafka-c1.prod.internal broker_id=3`",
        ),
        ("The mobile repo's default branch is develop.", "The web repo's default branch is trunk."),
        ("src/app.py:\nTIMEOUT = 30", "src/other.py:\nTIMEOUT = 60"),
        # two payments, each to its own payee
        (
            "Standing order: 250 a month to the Nationwide ISA, goes out on the 1st.",
            "Standing order: 40 a month to the RSPB, goes out on the 1st.",
        ),
    ],
)
def test_apart_records_of_two_things(older: str, newer: str) -> None:
    assert apart(older, newer) and not anchored(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "Note to self: dentist is Dr. Okafor on Delancey.",
            "Mine is Dr. Lindqvist now, the Delancey practice shut down.",
        ),
        (
            "fyi the metrics exporter on the batch hosts listens on 9102",
            "ops moved the metrics exporter to 9310 tonight.",
        ),
        ("Maya: my bedtime is 10", "Maya: I go to bed at midnight these days"),
        ("The payments service runs on port 8000.", "The payments service runs on port 8080."),
    ],
)
def test_a_change_in_other_words_is_not_apart(older: str, newer: str) -> None:
    assert not apart(older, newer)


def test_two_things_each_kept_in_its_place_are_apart() -> None:
    # what is stored differs, and then its place: two things, as frame alignment reads them
    a = "We keep HEK293T in the liquid nitrogen dewar, rack C, box 4."
    b = "We keep HeLa in the liquid nitrogen dewar, rack C, box 7."
    assert not anchored(a, b)
    # one thing moved to another place is one thing's value
    assert anchored(
        "We keep the HeLa stocks in the liquid nitrogen dewar, rack C.",
        "We keep the HeLa stocks in the liquid nitrogen dewar, rack D now.",
    )


def test_one_payee_s_amount_changed_stays_anchored() -> None:
    assert anchored(
        "Standing order: 250 a month to the Nationwide ISA, goes out on the 1st.",
        "Standing order: 300 a month to the Nationwide ISA, goes out on the 1st.",
    )
