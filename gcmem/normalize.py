"""Key normalisation shared by the extractor, the ledger and the oracle's entity gate.

A subject, relation or entity name becomes a key part with ``normalize_term``: Unicode NFKC,
case folded, quote characters and the articles a/an/the removed, whitespace collapsed, edge
punctuation stripped. Objects compare exactly after whitespace collapse (``normalize_object``):
case and punctuation changes are real changes. It sits below storage because the ledger keys
every assertion with it.
"""

from __future__ import annotations

import re
import unicodedata

from gcmem.models import collapse_whitespace

__all__ = [
    "KEY_SEPARATOR",
    "MONTHS",
    "WEEKDAYS",
    "display_key",
    "fact_key",
    "normalize_key",
    "normalize_object",
    "normalize_term",
    "word_stem",
]

ARTICLES = frozenset({"a", "an", "the"})
WEEKDAYS = frozenset(str.split("monday tuesday wednesday thursday friday saturday sunday"))
MONTHS = frozenset(
    str.split(
        "january february march april may june july august september october november december"
    )
)
_QUOTE_CHARS = '`"“”„«»'
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'"})
_SINGLE_QUOTE = re.compile(r"(?<!\w)'|'(?!\w)")
_EDGE_PUNCT = " \t.,;:!?"
KEY_SEPARATOR = "\x1f"  # never survives normalize_term, so the key string is unambiguous


def normalize_term(text: str) -> str:
    """A subject, relation or entity name as a key part: NFKC, case-folded, without quote
    characters or articles, whitespace collapsed, edge punctuation stripped. Idempotent."""
    norm = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    norm = "".join(
        ch for ch in norm if ch not in _QUOTE_CHARS and unicodedata.category(ch)[0] != "C"
    )
    norm = _SINGLE_QUOTE.sub(" ", norm).casefold()
    words = [w for w in norm.split() if w.strip(_EDGE_PUNCT) not in ARTICLES]
    return " ".join(words).strip(_EDGE_PUNCT)


def normalize_key(subject: str, relation: str) -> tuple[str, str]:
    """The (subject, relation) pair the ledger keys an assertion by."""
    return normalize_term(subject), normalize_term(relation)


def fact_key(subject: str, relation: str) -> str:
    """``normalize_key`` as one string (subject, unit separator, relation)."""
    s, r = normalize_key(subject, relation)
    return f"{s}{KEY_SEPARATOR}{r}"


def display_key(key: str) -> str:
    """A ``fact_key`` string for people: ``subject / relation``."""
    return key.replace(KEY_SEPARATOR, " / ")


def normalize_object(text: str) -> str:
    """Objects compare exactly after whitespace collapse: case and punctuation are content."""
    return collapse_whitespace(text)


_CODE_CHARS = re.compile(r"[\d\-_./#]")


def word_stem(word: str) -> str:
    """A word with its inflection cut, for comparing words across forms ("listens" / "listen",
    "hosted" / "host", "cities" / "city"): case-folded, possessive removed; a token with
    digits or code punctuation (``payments-api``, ``v2``) is kept whole. Crude on purpose:
    both sides of a comparison go through it, so only collisions matter, not real stems."""
    word = word.casefold().replace("\u2019", "'")
    for clitic in ("'s", "'"):
        if word.endswith(clitic):
            word = word[: -len(clitic)]
    if _CODE_CHARS.search(word):
        return word
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith("sses"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word
