"""Habit questions answered from a closed set (``gcmem.facts.answer_sets``)."""

from __future__ import annotations

import pytest

from gcmem.facts.answer_sets import answer_set
from gcmem.facts.habits import habit_change


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("How does Priya get to the office?", "a way of travelling"),
        ("How does the user commute to the office?", "a way of travelling"),
        ("What do I drink in the mornings?", "a drink"),
        ("What does Carlos drink in the evenings?", "a drink"),
        ("What do I read on at night?", "a way of reading"),
        ("How do I read books these days?", "a way of reading"),
        ("How do we do our weekly grocery shopping?", "a way of shopping"),
        ("How does dad follow the news?", "a way of following the news"),
        ("How do I take my coffee?", None),  # any phrase answers it
        ("What do I eat for lunch?", None),
    ],
)
def test_the_questions_each_set_answers(question: str, name: str | None) -> None:
    found = answer_set(question)
    assert (found.name if found else None) == name


def test_members_are_read_longest_first_and_less_what_is_given_up() -> None:
    drinks = answer_set("What do I drink in the morning?")
    assert drinks is not None
    assert drinks.members("a pot of green tea around 3") == {"green tea"}  # not "tea"
    assert drinks.members("Two flat whites a day, minimum.") == {"coffee"}
    assert drinks.members("Dad gave up coffee, it's green tea for him now.") == {"green tea"}
    assert drinks.members("Loads of water with dinner.") == frozenset()  # beside anything


def test_a_drink_is_had_at_the_time_the_question_asks() -> None:
    drinks = answer_set("What do I drink in the morning?")
    assert drinks is not None
    assert drinks.speaks_of("drink", "two cups of coffee every morning before standup")
    assert not drinks.speaks_of("drink", "the 3pm cup is rooibos now")
    untimed = answer_set("What does Kenji drink at parties?")
    assert untimed is not None and untimed.speaks_of("drink", "Kenji's on sparkling water now")


@pytest.mark.parametrize(
    ("question", "older", "newer"),
    [
        (
            "What do I drink in the mornings?",
            "Can't function without my two cups of coffee in the morning, honestly.",
            "I've been doing matcha every morning for a month now and the jitters are gone.",
        ),
        (
            "What does the user drink in the morning?",
            "I drink two cups of black coffee every morning, non-negotiable.",
            "Doctor said my reflux is partly caffeine, so I've switched to green tea in the "
            "mornings.",
        ),
    ],
)
def test_a_changed_drink_is_read(question: str, older: str, newer: str) -> None:
    assert habit_change(question, older, newer) is not None


@pytest.mark.parametrize(
    ("question", "older", "newer"),
    [
        # another time of day: two habits
        (
            "What do I drink in the morning?",
            "Two cups of black coffee every morning, that's my routine.",
            "Cut caffeine after noon, so the 3pm cup is rooibos now.",
        ),
        # water beside the drink asked; a drink for one occasion; one more drink
        (
            "What does Carlos drink in the evenings?",
            "Carlos drinks loads of water in the evenings since he took up running.",
            "Carlos has cut out alcohol completely; in the evenings it's herbal tea now.",
        ),
        (
            "What does Hugo drink in the evenings?",
            "Hugo has a pint of IPA in the evenings.",
            "When we go out in the evenings Hugo orders a lime and soda now.",
        ),
        (
            "What do I drink in the morning?",
            "Coffee every morning, black.",
            "These days I also have a green tea in the morning.",
        ),
        # the older statement says it is no habit of theirs
        (
            "What do I drink in the morning?",
            "I never drink coffee in the morning.",
            "I'm on green tea in the mornings now.",
        ),
    ],
)
def test_drinks_that_stay_true(question: str, older: str, newer: str) -> None:
    assert habit_change(question, older, newer) is None


@pytest.mark.parametrize(
    ("question", "older", "newer"),
    [
        # a negation of something else in the older statement ("no sugar") is no denial
        (
            "What do I drink in the morning?",
            "My morning drink is a big mug of black coffee, no sugar, two of them on bad days.",
            "Doctor said to cut the caffeine for my sleep, so it's green tea in the mornings now.",
        ),
        # giving the old member up says the change without a change word
        (
            "How do I usually read books?",
            "I read almost everything on my Kindle these days, easier in bed.",
            "Dropped the e-reader, I'm back to paper books from the library.",
        ),
    ],
)
def test_a_change_said_by_giving_the_old_answer_up(question: str, older: str, newer: str) -> None:
    assert habit_change(question, older, newer) is not None


def test_a_denied_member_is_no_member() -> None:
    travel = answer_set("How does Priya get to the office?")
    assert travel is not None
    assert travel.members("Priya doesn't drive to the office, she takes the tram in.") == {"tram"}
    assert travel.given_up("I never cycle in when it rains") == {"bike"}
    # giving up a member the older statement does not name says no change of it
    assert (
        habit_change(
            "How does Priya get to the office?",
            "Priya takes the tram to the office.",
            "Priya dropped the car, she walks to the office.",
        )
        is None
    )


@pytest.mark.parametrize(
    ("sentence", "members"),
    [
        ("I went fully vegan last month.", {"vegan"}),
        ("Tomás has been vegetarian since uni.", {"vegetarian"}),
        ("Marta's pescatarian now, the doctor wants more omega-3.", {"pescatarian"}),
        # a diet's word said of a thing names no diet
        ("Found a great vegan cheese for the board.", set()),
        ("Book somewhere with a real veggie main.", set()),
        ("Pescatarian-friendly options would be great.", set()),
    ],
)
def test_a_diet_is_said_of_the_person_not_of_a_thing(sentence: str, members: set[str]) -> None:
    for question in ("What's my diet?", "What diet does Tomás follow?", "What is Zoe's diet?"):
        diets = answer_set(question)
        assert diets is not None and diets.name == "a diet"
        assert diets.members(sentence) == members


@pytest.mark.parametrize(
    ("question", "older", "newer", "changed"),
    [
        # a household's shop, said with "we"; a supermarket by its name is a shop visited
        (
            "How and when do we do the big grocery shop?",
            "I do the big grocery shop on Sunday mornings at the Aldi on Crane Road.",
            "Gave up fighting the Sunday crowds, groceries get delivered Wednesday evenings now "
            "through the Tesco app.",
            True,
        ),
        # ... its app is how the delivery is ordered, no visit: both deliveries
        (
            "How do we do our grocery shopping?",
            "We get the groceries delivered through the Tesco app on Thursdays.",
            "We switched the grocery delivery to Ocado now, same Thursday slot.",
            False,
        ),
        (
            "How does dad follow the news?",
            "Dad watches the news on TV every evening at 6, like clockwork.",
            "Dad has quit the TV news, says it raises his blood pressure. He listens to a radio "
            "podcast with his coffee in the morning instead.",
            True,
        ),
        # a team's process asked with "we" is no one's habit
        (
            "When do we deploy?",
            "We deploy on Friday afternoons.",
            "We deploy on Tuesday mornings now.",
            False,
        ),
    ],
)
def test_shopping_and_news_are_closed_sets(
    question: str, older: str, newer: str, changed: bool
) -> None:
    assert (habit_change(question, older, newer) is not None) is changed
