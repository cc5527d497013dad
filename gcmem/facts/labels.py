"""What the label in front of a colon names (``label: value`` notes and lines).

A label whose head is a plural or a collective noun names a collection ("Export formats
supported: CSV", "Allergies: cats", "Platform team roster: Ana"): each note adds a member, so
two notes with two values are both true, and neither keys nor aligns a value that replaces
the other (the ledger's accumulating policy, without anyone declaring it).
"""

from __future__ import annotations

import re

__all__ = [
    "DISCOURSE_LABELS",
    "collection_label",
    "collection_setting",
    "member_note",
    "title_label",
]

# Labels in front of a colon that say what kind of message it is, not what it is about.
DISCOURSE_LABELS = frozenset(
    {
        *("update", "reminder", "note", "note to self", "fyi", "psa", "edit", "correction"),
        *("ps", "btw", "done"),
        *("todo", "tip", "announcement", "heads-up", "heads up", "quick note", "nb", "also"),
        *("change of plan", "follow-up", "follow up", "news", "good news", "bad news"),
    }
)

# Singular nouns that hold many members.
_COLLECTIVE = frozenset(
    str.split(
        "roster list lineup line-up menu playlist backlog queue wishlist watchlist shortlist "
        "checklist inventory collection set stack scope agenda setlist repertoire docket"
    )
)
# Singular heads that name one member of many ("Required check on main: `lint`", a ticket's
# "Affects version: 4.2.1"): a branch has several required checks, a bug affects several
# versions.
_MEMBER_HEADS = frozenset(
    {("required", "check"), ("status", "check"), ("affects", "version"), ("affected", "version")}
)
# Nouns that name one thing ("Programme: BSc Physics") but a collection in a label that puts
# its value on them ("On the winter concert programme: Siyahamba").
_LISTED_ON = frozenset(str.split("programme program bill"))
# Words ending in "s" that are not plurals.
_NOT_PLURAL = frozenset(
    str.split(
        "status bus alias canvas gas news series species analysis basis axis thesis campus "
        "census corpus bonus virus atlas focus radius chassis lens plus minus always perhaps "
        "kubernetes redis postgres jenkins"
    )
)
# Irregular participles that trail a head noun ("Languages spoken").
_PARTICIPLES = frozenset(
    str.split("spoken known written seen taken given eaten worn held kept built sold bought read")
)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*")
# Prepositions that qualify a head noun, and determiners that open an object.
_QUALIFYING = frozenset(str.split("for of in at on to with from by out into via through under"))
_CHANGE_VERBS = frozenset(
    str.split(
        "updated changed moved switched bumped upgraded downgraded raised lowered renamed "
        "replaced migrated updating changing moving switching"
    )
)
_DETERMINERS = frozenset(str.split("the a an my our your their his her this that these those"))


def _plural(word: str) -> bool:
    w = word.casefold().removesuffix("'")
    if len(w) <= 3 or not w.endswith("s") or w in _NOT_PLURAL:
        return False
    return not w.endswith(("ss", "us", "is", "ous"))


def collection_label(label: str) -> bool:
    """A label whose head noun names a collection: a plural or collective last word before
    any qualifier and after any trailing participle ("Countries visited", "Export formats
    supported", "Covers for the gig"); a modifier's plural is not the head ("eu-logs
    bucket"), an all-capitals word is a name ("AWS"); or a label that names an activity
    (``_activity``)."""
    words = _TOKEN.findall(label)
    if _activity(words):
        return True
    # the head comes before a qualifier ("Covers for the Fox & Hound gig")
    cut = next((i for i, w in enumerate(words) if i and w.casefold() in _QUALIFYING), None)
    words = words[:cut] if cut is not None else words
    while len(words) > 1 and (
        words[-1].casefold().endswith("ed") or words[-1].casefold() in _PARTICIPLES
    ):
        words = words[:-1]
    if not words or words[-1].isupper():
        return False
    head = words[-1].casefold()
    on = words[0].casefold() == "on"
    pair = tuple(w.casefold() for w in words[-2:])
    return (
        _plural(head) or head in _COLLECTIVE or (on and head in _LISTED_ON) or pair in _MEMBER_HEADS
    )


# Words that end a label naming an account of one thing ("Vendor summary: Northwind
# Logistics."): the thing the text is about, of which a workspace keeps one per thing.
_ACCOUNTS = frozenset(
    str.split("summary overview profile spotlight factsheet datasheet dossier bio writeup write-up")
)


# A card that describes one thing of a kind ("Service card: notifications-dispatcher"), of
# which a team keeps one per thing; not a card that pays or opens ("Payment card: Visa").
_CARDS_OF = frozenset(str.split("service team recipe player project product component system app"))


def title_label(label: str) -> bool:
    """A label that titles an account of what follows it: "Vendor summary: Northwind
    Logistics" and "Vendor summary: Harbour Freight" are two vendors' summaries, not one
    label's old and new value; so are two service cards."""
    words = [w.casefold() for w in _TOKEN.findall(label)]
    return len(words) >= 2 and (
        words[-1] in _ACCOUNTS or (words[-1] == "card" and words[-2] in _CARDS_OF)
    )


# A setting's name that says it lists what is let through or added: ``ALLOWED_ORIGIN``,
# ``trusted_proxy``, ``ip_allowlist``. Each line sets one more member (the comments beside them
# say which: "# back-office dashboard", "# reseller portal"), not the one value.
_MEMBER_PREFIXES = frozenset(str.split("allowed trusted permitted extra additional"))
_LIST_WORDS = frozenset(
    str.split("allowlist whitelist safelist denylist blocklist blacklist ignorelist")
)
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def collection_setting(name: str) -> bool:
    """A setting's name that names a list of members: it opens on "allowed", "trusted",
    "extra" ... or names an allow- or deny-list (``max_allowed_packet`` opens on neither)."""
    words = [w.casefold() for w in _NAME_WORDS.findall(name)]
    return bool(words) and (words[0] in _MEMBER_PREFIXES or any(w in _LIST_WORDS for w in words))


def _activity(words: list[str]) -> bool:
    """A label that names an activity or a state by its verb, with an object or a place after
    it ("Coaching the U12 girls this season", "Enabled for the beta cohort"): what follows it
    is one of those taking part, not an attribute's value ("Meeting room" is a noun's)."""
    if len(words) < 2:
        return False
    verb, after = words[0].casefold(), words[1].casefold()
    if verb in _CHANGE_VERBS:
        return False  # "Updated on Monday: the port is 9090" announces a change
    return len(verb) > 4 and verb.endswith(("ing", "ed")) and after in _DETERMINERS | _QUALIFYING


# A note that opens on a label: "Allergies: cats", "Food bank sign-ups: Rosa, Saturday 9am".
_NOTE_LABEL = re.compile(r"^\s*(?:[-*•]\s+)?(?P<label>[^:\n]{1,60}?)\s*:\s+\S")


def note_body(text: str) -> str | None:
    """What a note says after its label ("Standing order: £25/month to Shelter" -> "£25/month
    to Shelter"); None for text that opens on no label."""
    m = _NOTE_LABEL.match(text)
    return None if m is None else text[m.end() - 1 :]


def member_note(text: str) -> bool:
    """A note that states a member of a collection: it opens on a collection's label."""
    m = _NOTE_LABEL.match(text)
    return m is not None and collection_label(m.group("label"))
