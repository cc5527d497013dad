"""What a label in front of a colon names: a collection (its notes add members) or one thing's
attribute (its notes replace a value)."""

from __future__ import annotations

import pytest

from gcmem.facts.extract import extract_triples
from gcmem.facts.labels import collection_label, collection_setting, title_label


@pytest.mark.parametrize(
    "label",
    [
        "Allergies",
        "Countries visited",
        "Platform team roster",
        # the head before a qualifier
        "Covers for the Fox & Hound gig",
        "Direct debits out of the joint account",
        "Reporting bot token scope",  # a token's scope lists permissions
        # an activity or a state named by its verb, with an object or a place after it
        "Coaching the U12 girls this season",
        "Enabled for the beta cohort",
        "Added to /etc/hosts on the laptop",
        # a programme a piece is put on, a running order
        "On the winter concert programme",
        "Tonight's setlist",
        # one member of many: a branch's required checks, the versions a bug affects
        "Required check on main",
        "Affects version",
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
        "Programme",  # a course of study: one
        "On the laptop",
        "Image tag",
        "Fix version",  # a fix is planned for one release
    ],
)
def test_an_attribute_label_names_one_value(label: str) -> None:
    assert not collection_label(label)


@pytest.mark.parametrize(
    ("name", "members"),
    [
        ("ALLOWED_ORIGIN", True),
        ("trustedProxy", True),
        ("IP_ALLOWLIST", True),
        ("extra-index-url", True),
        ("max_allowed_packet", False),  # a size, whatever word it holds
        ("ORIGIN", False),
        ("LOG_LEVEL", False),
    ],
)
def test_a_setting_that_lists_members_is_named_so(name: str, members: bool) -> None:
    assert collection_setting(name) is members


def test_repeated_allow_list_lines_are_members_not_a_changed_value() -> None:
    from gcmem.facts.align import align_units, units_of
    from gcmem.facts.extract import extract_triples

    old = "ALLOWED_ORIGIN=https://app.example"
    new = "ALLOWED_ORIGIN=https://partners.example   # reseller portal"
    assert align_units(units_of(old), units_of(new)).frames == []
    assert extract_triples(new) == []
    assert extract_triples("PUBLIC_ORIGIN=https://app.example") != []


@pytest.mark.parametrize(
    ("label", "title"),
    [
        ("Vendor summary", True),
        ("Supplier profile", True),
        ("Team spotlight", True),
        ("Summary", False),  # one word: the summary of the thing the text is about
        ("Vendor", False),
        ("Account manager", False),
        ("Service card", True),  # a card describing one service of many
        ("Payment card", False),  # the card that pays: one at a time
        ("Card", False),
    ],
)
def test_a_title_label_names_what_its_text_is_about(label: str, title: bool) -> None:
    assert title_label(label) is title


def test_a_title_label_keys_no_value() -> None:
    # "Vendor summary: Northwind Logistics." and "Vendor summary: Harbour Freight." title two
    # vendors' summaries; "Vendor: Northwind Logistics" names the one vendor
    assert extract_triples("Vendor summary: Northwind Logistics.") == []
    assert extract_triples("Vendor: Northwind Logistics.") != []
    assert extract_triples("Service card: notifications-dispatcher. It fans out push.") == []
