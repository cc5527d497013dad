"""What a label in front of a colon names: a collection (its notes add members) or one thing's
attribute (its notes replace a value)."""

from __future__ import annotations

import pytest

from gcmem.facts.labels import collection_label


@pytest.mark.parametrize(
    "label",
    [
        "Allergies",
        "Countries visited",
        "Platform team roster",
        # the head before a qualifier
        "Covers for the Fox & Hound gig",
        # an activity or a state named by its verb, with an object or a place after it
        "Coaching the U12 girls this season",
        "Enabled for the beta cohort",
    ],
)
def test_a_collection_or_an_activity_label_adds_members(label: str) -> None:
    assert collection_label(label)


@pytest.mark.parametrize(
    "label",
    [
        "Standup time",
        "Meeting room",
        "Port for staging",
        "eu-logs bucket",
        "AWS",
        "Updated on Monday",
    ],
)
def test_an_attribute_label_names_one_value(label: str) -> None:
    assert not collection_label(label)
