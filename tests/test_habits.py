"""Changed habits anchored on the question (``gcmem.facts.habits``): the changes the rule reads,
the near misses that must stay still true, and the announced stage's use of it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from gcmem.facts.habits import habit_change
from gcmem.filters.announced import STAGE, AnnouncedChangeFilter
from gcmem.filters.base import QueryContext
from tests.doubles import T0, scored_chunk

cand = scored_chunk

# (question, older statement, newer statement): the newer changes the habit.
CHANGED = [
    # a diet, from the closed set of diets; what is still true beside it holds nothing asked
    (
        "What diet does Tomás follow?",
        "Tomás has been vegetarian since uni.",
        "Tomás is pescatarian now, still no red meat.",
    ),
    (
        "What's my diet?",
        "I'm vegetarian, no meat or fish.",
        "Went vegan last month, so no dairy for me anymore.",
    ),
    # a when-question asked by its type word; bedtime in words of its own; a word said as
    # itself before a preposition of time
    (
        "What time do I go to bed?",
        "Lights out at midnight most nights for me.",
        "Since the new job I'm in bed by 10:15.",
    ),
    (
        "What time does Priyanka go to bed?",
        "Priyanka is usually in bed around 12:30.",
        "Priyanka is asleep by 10 these days, the twins wear her out.",
    ),
    (
        "Which day do I go swimming?",
        "I go swimming on Thursdays with the masters group.",
        "I swim on Saturdays now, the pool changed its hours.",
    ),
    # calling someone is the habit a question about a call asks ("call" is also a function
    # word of questions: "What do we call it?"); a call "moved to" another day
    (
        "When does Dad call?",
        "Dad calls every Sunday at 6, like clockwork.",
        "Dad's switched his calls to Wednesday evenings now.",
    ),
    (
        "When do I call my mom?",
        "I call my mom every Sunday afternoon, it's our thing.",
        "Mom joined a bridge group, so our weekly call moved to Wednesday nights.",
    ),
    # a change dated by an opening "Since"
    (
        "When does Biscuit get his main walk?",
        "I walk Biscuit around the block at 6am, he gets restless otherwise.",
        "Since working from home, Biscuit's big walk is at lunchtime in the woods.",
    ),
    # "too" before a word is a degree, no "also"
    (
        "When do I practise piano?",
        "I practise piano after dinner, half an hour once the kitchen is tidy.",
        "Switched to practising piano at 6am, evenings I was too tired to focus.",
    ),
    (
        "How does Tom get to the office?",
        "Tom cycles to the office, always too fast along the canal.",
        "Too icy now, Tom has been taking the tram in instead.",
    ),
    # how someone gets to a place: a way of travelling there, said with its place or as "in"
    (
        "How does the user get to the office?",
        "I take the 12 bus to the office, about 40 minutes.",
        "Since the clocks changed I cycle to the office instead.",
    ),
    (
        "How does Priya get to the office?",
        "Priya bikes to the office most days, it's about 25 minutes along the canal.",
        "Priya's been taking the tram in since the canal path flooded.",
    ),
    # work is the office; "reads more now" adds no way of travelling
    (
        "How does Oskar get to work?",
        "Oskar cycles to the office every day, rain or shine.",
        "Oskar's been taking the tram to work since his knee started acting up, reads more now.",
    ),
    # "commute to the office" asks about the office
    (
        "How does the user commute to the office?",
        "I bike to the office, 25 minutes along the canal path.",
        "Since the knee surgery I take the S2 train in, about 35 minutes door to door.",
    ),
    # the older's answer is in its own clause: another clause's circumstances ("the pool
    # opens at 6") are no answer the newer says again
    (
        "When do I usually swim?",
        "I've been swimming laps before work, the pool opens at 6 and it's basically empty.",
        "New office has a pool in the basement gym, so I swim at lunch now.",
    ),
    # a question naming the user by name, of two first-person statements: one speaker's
    (
        "When does Felix practice guitar?",
        "I squeeze in guitar practice on my lunch break, 30 minutes with the practice amp.",
        "With the office days I can't do midday anymore, so guitar happens after dinner.",
    ),
    # "moved my ... into", "been ...ing since": a change said in other words
    (
        "Where do I keep my journal?",
        "I journal every night in a Leuchtturm notebook, dot grid.",
        "moved my journaling into Obsidian, a daily note template and a tag for gratitude.",
    ),
    (
        "Where does Kwame swim?",
        "Kwame swims at the leisure centre pool before work.",
        "Kwame has been swimming in the lido since the clocks changed.",
    ),
    (
        "Where does the user swim?",
        "I swim at the leisure centre pool before work.",
        "Since the clocks changed I swim in the lido instead.",
    ),
    (
        "Where does Kwame swim?",
        "Kwame swims at the leisure centre pool before work.",
        "Kwame swims in the lido these days, he says the cold water wakes him up.",
    ),
    (
        "When does Dad walk the dog?",
        "Dad walks the dog at 7am, before the school run.",
        "Dad walks the dog after dinner now, his knee is stiff in the mornings.",
    ),
    (
        "Who does the school run in the user's family?",
        "My husband does the school run on his way to work.",
        "These days I do the school run, his shift starts at six.",
    ),
    # the person by their relation; a note in the clipped style names nobody else
    (
        "When does my dad drink his tea?",
        "Dad drinks his tea at 4pm, with a biscuit.",
        "Dad drinks his tea at 11 now, before his walk.",
    ),
    (
        "Where do I study for exams?",
        "I study for exams in the university library.",
        "Switched to studying for exams at the cafe on Mill Road, campus is a building site.",
    ),
    # a time said by what it comes before ("before work")
    (
        "When do I go running?",
        "I run before work, usually a loop round the reservoir.",
        "New job starts at 7:30 so I've switched to evening runs, after dinner settles.",
    ),
    # "unless" names the exception to the habit that holds otherwise
    (
        "How do I get to work?",
        "I take the 52 bus to work, it's slow but I get to read.",
        "Bought a secondhand road bike, so I cycle to work now unless it's pouring.",
    ),
]

# (question, older statement, newer statement): both stay true, or the rule cannot tell.
STILL_TRUE = [
    # the time is another thing's that the statement does ("back up ... every evening")
    (
        "When do I do my writing?",
        "I write in Scrivener and back up to Dropbox every evening.",
        "I write from 5 to 7am now while she sleeps, and honestly it's going well.",
    ),
    # a diet held on, and a diet's word said of a thing
    (
        "What diet does Tomás follow?",
        "Tomás has been vegetarian since uni.",
        "Tomás is pescatarian now when eating out, still vegetarian at home.",
    ),
    (
        "What's my diet?",
        "I'm vegetarian, no meat or fish.",
        "Found a great vegan cheese for the party now.",
    ),
    # bedtime not said by the newer statement; a time that is no person's habit
    (
        "What time do I go to bed?",
        "Lights out at midnight most nights for me.",
        "Since the new job I'm up at 6:15.",
    ),
    (
        "What time is the team standup?",
        "Standup is at 9:30 in the big room.",
        "Standup moved to 10 now.",
    ),
    # a walk to another place than the one asked; the same way said again; one way more
    (
        "How does Felix get to work?",
        "Felix drives to work with a new dashcam on the windscreen.",
        "Felix's work is close to the gym now, so he walks there at lunch.",
    ),
    (
        "How do I get to work?",
        "I bike to work most days, 25 minutes along the canal.",
        "Since the new lane opened I bike in along Harris Ave, 20 minutes door to door.",
    ),
    (
        "How do I get to work?",
        "I take the bus to work.",
        "These days I also walk in when the weather is nice.",
    ),
    # a how- or what-question's answer has no shape to check: decided by nothing, but for
    # how someone gets to a place: a way there for some days only is no change
    (
        "How does Bram get to school?",
        "Bram scoots to school on his scooter most mornings.",
        "When it pours, I drive Bram to school instead.",
    ),
    (
        "What does my dad drink in the morning?",
        "Dad drinks two mugs of builder's tea in the morning.",
        "Dad gave up tea, he drinks hot water and lemon in the morning now.",
    ),
    # the newer statement hedges, adds, holds on or asks
    (
        "How does the user get to the office?",
        "I take the 12 bus to the office, about 40 minutes.",
        "Thinking I might cycle to the office now that it's lighter.",
    ),
    (
        "Where does Kwame swim?",
        "Kwame swims at the leisure centre pool before work.",
        "Kwame also swims in the lido now on Sundays.",
    ),
    (
        "Where does Kwame swim?",
        "Kwame swims at the leisure centre pool before work.",
        "Kwame still swims there, but lately he does 60 lengths.",
    ),
    (
        "Where does Kwame swim?",
        "Kwame swims at the leisure centre pool before work.",
        "Does Kwame swim in the lido now?",
    ),
    # another person's habit: the user's son, not the user's daughter
    (
        "How does the user's son get to school?",
        "My son walks to school with his friends.",
        "My daughter cycles to school now, the bus kept being late.",
    ),
    (
        "How does the user get to the office?",
        "I take the 12 bus to the office, about 40 minutes.",
        "My wife drives to the office these days.",
    ),
    # a question with a type word is the announcement rule's; a plural asks for a list
    (
        "Which gym does Kwame go to?",
        "Kwame goes to the gym on Fenwick Street.",
        "Kwame's gym now opens at 5am.",
    ),
    (
        "What sports does Ava play?",
        "Ava plays netball on Tuesdays.",
        "Ava plays hockey now, on Thursdays.",
    ),
    # the thing asked said only as the modifier of another thing
    (
        "Where does Bea eat lunch?",
        "Bea eats lunch at her desk.",
        "Bea's lunch break is at 1pm now.",
    ),
    # the pair shares another word of the question, not the thing asked
    (
        "What does Isaac play games on?",
        "Isaac plays with his brother online on Friday nights.",
        "Isaac plays on the Steam Deck now, on the couch.",
    ),
    # no change word; an older statement already in the past or negated
    (
        "Where does Kwame swim?",
        "Kwame swims at the leisure centre pool before work.",
        "Kwame swims in the lido on Sundays.",
    ),
    (
        "Where does Kwame swim?",
        "Kwame used to swim at the leisure centre pool.",
        "Kwame swims in the lido these days.",
    ),
    (
        "Where does Kwame swim?",
        "Kwame never swims at the leisure centre pool.",
        "Kwame swims in the lido these days.",
    ),
    # a when-question needs a time in both
    (
        "When does Dad walk the dog?",
        "Dad walks the dog at 7am, before the school run.",
        "Dad walks the dog with a new harness now.",
    ),
    # not about a person: the keyed rules' domain
    (
        "Where does the billing service log to?",
        "The billing service logs to Loki.",
        "The billing service logs to Datadog now.",
    ),
    # the newer statement says the old answer again: it elaborates the habit
    (
        "When do I go running?",
        "I run every morning before work, along the seafront.",
        "My run before work is up to 8k now.",
    ),
    # ... its answer set off by a comma is still its clause's
    (
        "When do I go running?",
        "I run every morning, before work, the seafront is empty then.",
        "My run before work is up to 8k now.",
    ),
    # another person opens the newer statement
    (
        "How do I get to work?",
        "I take the Northern line to work.",
        "Dani's switched to cycling to work now.",
    ),
    # the question's time says which habit: the weekend's is another one
    (
        "When do I run on weekdays?",
        "I run on weekday mornings at 6:30.",
        "Switched my weekend run to the evenings now.",
    ),
    # a who-question needs a person, a where-question a place, in both statements
    (
        "Who is my manager?",
        "My manager signed off my leave for June.",
        "Priya is my manager now, since the reorg.",
    ),
    (
        "Where does Kwame swim?",
        "Kwame swims fast, he did 40 lengths.",
        "Kwame swims in the lido these days.",
    ),
    # found on fresh development draws: "at work" is the question's own word, no place; a
    # title is no word of the habit; a colleague is another doer; a clause with the thing
    # asked must name who does it; "at 2" is a time, no place
    (
        "Where does Marcus work?",
        "Marcus works at Heathrow, air traffic control of all things.",
        "Lately Marcus has been training the new starters at work.",
    ),
    (
        "How do I reach Mr. Osei?",
        "Mr. Osei, my landlord, said to text him on 07700 900318.",
        "Mr. Osei switched the bins to the new council collection schedule.",
    ),
    (
        "Who does Tariq report to?",
        "Tariq reports to Lorraine in procurement.",
        "Tariq's colleague Ines reports to Greg now after the shake-up.",
    ),
    (
        "Who cuts my hair?",
        "My hair is a disaster in this humidity, I need a better product.",
        "Jess cuts my hair these days, she's brilliant.",
    ),
    (
        "Where does my mum work?",
        "Mum works at Hartley Primary as the school secretary.",
        "Mum's work hours are shorter these days, she finishes at 2.",
    ),
    # one speaker's "I" only: a chat line's speaker, another person named in the older
    # statement alone, a newer statement opening on "she"
    (
        "When does Felix practice guitar?",
        "Maya: I squeeze in guitar practice on my lunch break.",
        "Maya: guitar happens after dinner now, the office days killed midday.",
    ),
    (
        "When does Ana do ballet?",
        "I take Maya to ballet on Tuesdays at 5.",
        "I take Leo to ballet on Thursdays at 6 now.",
    ),
    (
        "When does Ana journal?",
        "I journal every night before bed.",
        "She journals over breakfast these days.",
    ),
    # not a wh-question
    (
        "Does Kwame swim?",
        "Kwame swims at the leisure centre pool before work.",
        "Kwame swims in the lido these days.",
    ),
    # a number is no time unless it is a clock time or placed in time ("every 600 km")
    (
        "When do I go running?",
        "My running shoes are Brooks Ghosts, replaced every 600 km or so.",
        "Since the new job starts at 7:30 I've switched to evening runs, after dinner has settled.",
    ),
]


@pytest.mark.parametrize(("question", "older", "newer"), CHANGED)
def test_a_changed_habit_is_read(question: str, older: str, newer: str) -> None:
    found = habit_change(question, older, newer)
    assert found is not None
    assert found.older == older and found.newer == newer and found.shared


@pytest.mark.parametrize(("question", "older", "newer"), STILL_TRUE)
def test_near_misses_stay_still_true(question: str, older: str, newer: str) -> None:
    assert habit_change(question, older, newer) is None


def _apply(query: str, *chunks):  # type: ignore[no-untyped-def]
    return AnnouncedChangeFilter().apply(
        list(chunks), QueryContext(query=query, namespace="ns", as_of=T0 + timedelta(days=400))
    )


def test_stage_excises_the_old_habit_and_keeps_the_rest_of_its_chunk() -> None:
    old = cand("Kwame swims at the leisure centre pool. He works at the library.", 0)
    new = cand("Kwame swims in the lido these days, he says the cold water wakes him up.", 30)
    outcome = _apply("Where does Kwame swim?", old, new)
    assert outcome.dropped == []
    kept = next(c for c in outcome.kept if c.id == old.id)
    (stale,) = kept.stale_sentences
    assert stale.stage == STAGE and stale.superseded_by == new.id
    assert stale.key == "the question asked (a changed habit: swim)"  # the habit, by its stem
    assert stale.text == "Kwame swims at the leisure centre pool."
    assert "leisure centre" not in kept.visible_text and "library" in kept.visible_text


def test_stage_drops_a_chunk_that_only_states_the_old_habit() -> None:
    old = cand("Dad walks the dog at 7am, before the school run.", 0)
    other = cand("Dad's knee surgery is booked for March.", 10)
    new = cand("Dad walks the dog after dinner now, his knee is stiff in the mornings.", 30)
    outcome = _apply("When does Dad walk the dog?", old, other, new)
    (decision,) = outcome.dropped
    assert decision.chunk.id == old.id and decision.dominated_by == new.id
    assert "after dinner now" in decision.reason
    assert {c.id for c in outcome.kept} == {other.id, new.id}


def test_an_older_statement_never_changes_a_newer_one() -> None:
    new = cand("Dad walks the dog after dinner now, his knee is stiff in the mornings.", 0)
    old = cand("Dad walks the dog at 7am, before the school run.", 30)
    outcome = _apply("When does Dad walk the dog?", new, old)
    assert outcome.dropped == [] and all(c.stale_sentences == () for c in outcome.kept)


@pytest.mark.parametrize(
    "text",
    ["", " ", "?", "Who", "When does ?", "\x00\x01 where", "Who\u200b is my mum?", "x" * 5000],
)
def test_odd_text_decides_nothing_and_raises_nothing(text: str) -> None:
    assert habit_change(text, "I swim at the pool.", "I swim in the lido now.") is None
    assert habit_change("Where does the user swim?", text, "I swim in the lido now.") is None
    assert habit_change("Where does the user swim?", "I swim at the pool.", text) is None


def test_an_acronyms_plural_is_no_person_and_no_focus() -> None:
    older = "Kenji reviews PRs first thing after standup, so you'll get comments by lunch."
    newer = "Kenji protects his mornings for deep work, he batches PR reviews at 5pm now."
    change = habit_change("When does Kenji review PRs?", older, newer)
    assert change is not None and "review" in change.shared
    # still no change where the newer one adds a second habit
    also = "Kenji also reviews PRs at 5pm now."
    assert habit_change("When does Kenji review PRs?", older, also) is None


def test_a_call_is_rung_and_a_reason_says_no_answer_again() -> None:
    older = "Mum calls me every Sunday evening, like clockwork."
    newer = "Since she joined the Sunday walking group, Mum rings on Saturday mornings instead."
    assert habit_change("When does Mum call?", older, newer) is not None
    # the old answer said again in the statement itself elaborates it
    again = "Mum rings on Sunday evenings and Saturday mornings now."
    assert habit_change("When does Mum call?", older, again) is None
