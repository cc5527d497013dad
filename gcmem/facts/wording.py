"""The words of a statement as the question-anchored rules read them (``announced``,
``habits``): its tokens and their stems (a short form as its word, an irregular past form as
its verb's, the first person standing for "the user"), the words that carry nothing asked
(stop words, pronouns, auxiliaries), and its value-like tokens with their kinds (numbers,
weekdays, months, parts of the day, identifiers, capitalised names)."""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from typing import Literal, NamedTuple

from gcmem.normalize import MONTHS, WEEKDAYS, word_stem

ValueKind = Literal["number", "ordinal", "day", "month", "name", "daypart"]

# Short forms people use for a question's words, by stem: "prod db" is the production
# database, "Dad's physio" his physiotherapy, "capped at 300 requests" the rate limit.
_SHORT_FORMS = {
    "prod": "production",
    "physio": "physiotherapy",
    "repo": "repository",
    "max": "maximum",
    "min": "minimum",
    "db": "databas",
    "config": "configuration",
    "env": "environment",
    "cap": "limit",
    "capp": "limit",
    "tier": "plan",  # "bumped to the Organization tier" for "Which Figma plan ...?"
    "hostnam": "host",
}
# short forms that other words stem to: read as the short form only as written
_WRITTEN_SHORT = {"min": frozenset({"min", "mins"})}

# When a question is asked ("Which city does Ines live in these days?") and the rate its
# answer is given in ("How much is the gym per month?") say nothing of what it is about.
# "now" and "currently" stay: ending a question, they keep the word before them from being
# read as its verb ("Where does Ana work now?"), as the rules were chosen with.
WHEN_ASKED = re.compile(
    r"\b(?:these days|nowadays|at the moment|at present|lately|any ?more)\b|"
    r"\b(?:per|a|an|each|every) (?:month|week|year|day|night|hour|person)\b",
    re.I,
)

# Irregular past forms, by the verb's plain form: "The newsletter is sent through Mailchimp"
# answers "What service sends the newsletter?". Forms that are also other words ("left",
# "found", "lay") are not listed.
IRREGULAR_PAST = {
    past: base
    for base, forms in {
        "send": "sent",
        "hold": "held",
        "teach": "taught",
        "meet": "met",
        "run": "ran",
        "keep": "kept",
        "pay": "paid",
        "build": "built",
        "buy": "bought",
        "tell": "told",
        "sell": "sold",
        "bring": "brought",
        "lead": "led",
        "make": "made",
        "take": "took taken",
        "go": "went gone",
        "write": "wrote written",
        "drive": "drove driven",
        "choose": "chose chosen",
        "give": "gave given",
        "spend": "spent",
        "lend": "lent",
        "win": "won",
        "sit": "sat",
        "stand": "stood",
        "eat": "ate eaten",
        "fly": "flew flown",
        "ride": "rode ridden",
        "begin": "began begun",
        "grow": "grew grown",
        "leave": "left",
    }.items()
    for past in forms.split()
}

# "runn" of "running", "plann" of "planned": the stem cut left the consonant doubled
_DOUBLED = re.compile(r"[aeiou](?:bb|gg|mm|nn|pp|tt)$")


@lru_cache(maxsize=16384)  # the stage stems the same words of every candidate pair again
def root(word: str) -> str:
    """A word's stem (``word_stem``), a short form as its full word, an irregular past form
    as its verb's; a consonant doubled before a cut suffix is one ("running", "planned")."""
    word = IRREGULAR_PAST.get(word.casefold(), word)
    stem = word_stem(word)
    if stem != word.casefold() and _DOUBLED.search(stem):
        stem = stem[:-1]
    if stem in _WRITTEN_SHORT and word.casefold() not in _WRITTEN_SHORT[stem]:
        return stem  # "mine" and "mined" stem to "min", no short form of "minimum"
    return _SHORT_FORMS.get(stem, stem)


# Words that carry no part of what a question asks about.
STOP = frozenset(
    str.split(
        """a an the is are was were be been being am i me my mine we our us you your he she it its
    they them their this that these those of in on at to for from with by and or but so as do
    does did have has had will would can could should may must there here just only very then
    than about into over under after before during again since per s m re ve ll d t which who whom
    whose what when where why how if one get got any some all each every it's what's who's
    where's called named call name kind type current currently now right use used using like
    know go going his him her hers"""
    )
)

WH = frozenset({"which", "what", "who", "where", "when", "how"})

AUX = frozenset({"is", "are", "was", "were", "does", "do", "did", "am", "has", "have", "can"})

AUX_DO = frozenset({"does", "do", "did"})

# "one" is left out: "the salmon one" is no number
NUMBER_WORDS = frozenset(
    str.split(
        """two three four five six seven eight nine ten eleven twelve fifteen twenty thirty
    forty fifty sixty ninety hundred"""
    )
)

TITLES = frozenset(str.split("dr mr mrs ms prof sir"))

# Times of day a habit keeps ("I run in the mornings" / "switched to evening runs"): values
# only where the question asks when, so a diary's "this morning" answers nothing else.
DAYPARTS = frozenset(
    str.split("morning afternoon evening night midnight noon lunchtime lunch breakfast dinner")
)

# "may" is a modal far more often than a month; "Oct 14-17" is one
MONTHS_SAID = (MONTHS - {"may"}) | frozenset(
    str.split("jan feb apr jun jul aug sep sept oct nov dec")
)

# A comma between digits is a thousands separator ("$1,450" is one number, not "1" and "450").
# Letters are any script's ("Tomás", "Zoë").
TOKEN = re.compile(r"[#@]?[^\W_](?:[^\W_]|['’\-_./:#@+]|,(?=\d))*(?:[^\W_]|[%+#])|[^\W_]")

# "the 1st", "the 23rd": a date's day, when-questions' answer, never an amount or a port
ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)")

NUMBER = re.compile(r"\d+(?:[.:,]\d+)*(?:%|[a-z]{1,3})?")

IDENTIFIER = re.compile(r"[#@/_]|[a-z]-[a-z0-9]|[a-z]\.[a-z]|[a-z]\d|\d[a-z]")

# A year said in prose ("in 2013", "2001–02", "(1943–44)"): not a number inside a code token,
# an address or a version ("port 2049" in a line is no year; callers read prose)
YEAR = re.compile(r"(?<![\w.:=/-])(?:19|20)\d\d(?!\w|\.\d)")

# Clause boundaries; a colon or comma inside a value ("10:15", "€1,180") is none.
CLAUSE_SPLIT = re.compile(r"[,:](?=\s|$)|[;()]|\s[-–—]\s|\b(?:but|so|since|because)\b")

# A reason or a time the statement opens with ("Since she joined the Sunday walking group,
# Mum rings on Saturdays"): why it changed, no answer said again
_REASON_LEAD = re.compile(r"^\s*(?:since|because|as)\s+[^,;.]+,\s*", re.I)


def without_reason(text: str) -> str:
    """``text`` without the reason clause it opens with."""
    return _REASON_LEAD.sub("", text, count=1)


# A word and the next one (a lookahead, so "the production worker pool" gives every pair).
PAIR = re.compile(r"\b([A-Za-z0-9][A-Za-z0-9\-]{0,60})(?= ([a-z][a-z\-]{0,60})\b)")

# An adverb in -ly (not a noun in -ly: "family", "supply") modifies no thing.
ADVERB = re.compile(
    r"(?!(?:family|supply|assembly|reply|anomaly|rally|ally|belly|jelly)$)[a-z]{2,}ly"
)

FREQUENCY = frozenset(
    str.split("usually normally typically generally often always mostly regularly sometimes")
)

# "mine", "ours": the subject its sentence named ("my old dentist retired, so mine is ...")
PRONOUNS = frozenset(str.split("he she they it he's she's they're it's mine ours theirs hers"))

FIRST_PERSON = frozenset({"i", "i'm", "i've", "i'll", "i'd", "me", "my", "mine"})


class Value(NamedTuple):
    """A value-like token: its kind, its comparison key (case-folded; a plural weekday in the
    singular) and its text as written."""

    kind: ValueKind
    key: str
    text: str


def tokens_of(text: str) -> list[str]:
    """The statement's words, values and identifiers as written (``TOKEN``)."""
    return TOKEN.findall(text)


@lru_cache(maxsize=4096)
def stems_of(text: str) -> frozenset[str]:
    """The words' stems, and two words in a row joined as one ("per key" for "per-key")."""
    tokens = tokens_of(text)
    joined = (f"{a}-{b}".lower() for a, b in itertools.pairwise(tokens) if (a + b).isalpha())
    # and a hyphenated name's words ("billing-api" says "billing API")
    parts = (root(p) for t in tokens if "-" in t for p in t.split("-") if p.isalpha())
    return frozenset(root(t) for t in tokens) | frozenset(joined) | frozenset(parts)


def values(sentence: str) -> list[Value]:
    """The value-like tokens of a sentence with their kind: numbers (digits or number words),
    weekdays, months, identifiers (``acme-raw-events``, ``#ops-alerts``) and capitalised words
    that do not start the sentence."""
    out: list[Value] = []
    previous: re.Match[str] | None = None
    said: list[str] = []  # the words before this one, lower-cased
    for m in TOKEN.finditer(sentence):
        token = m.group(0).rstrip(".")
        low = token.lower()
        named = (bool(said) and said[-1] in _NAMING) or tuple(said[-2:]) in _NAMING_PAIRS
        said.append(low)
        # what stands between the previous token and this one says whether a sentence starts
        # here ("." after "Dr" starts none: a name follows its title)
        start = previous.end() if previous else 0
        gap = sentence[start : m.start()].strip()
        ended = (previous is not None and previous.group(0).endswith(".")) or gap[-1:] in (
            ".",
            "!",
            "?",
            ":",
        )
        titled = previous is not None and previous.group(0).rstrip(".").lower() in TITLES
        initial = previous is None or (ended and not titled)
        previous = m
        day = low[:-1] if low.endswith("s") and low[:-1] in WEEKDAYS else low
        if ORDINAL.fullmatch(low):
            out.append(Value("ordinal", low, token))
        elif (
            NUMBER.fullmatch(low) or low in NUMBER_WORDS or _counted_one(said, sentence[m.end() :])
        ):
            out.append(Value("number", low, token))
        elif day in WEEKDAYS:
            out.append(Value("day", day, token))
        elif low in MONTHS_SAID:
            out.append(Value("month", low[:3], token))
        elif low in DAYPARTS or (low.endswith("s") and low[:-1] in DAYPARTS):
            out.append(Value("daypart", low.removesuffix("s"), token))
        elif low in TITLES:
            continue  # "Dr. Okafor": the name is the value, not the title
        elif IDENTIFIER.search(low) or (
            # a capitalised word is a name unless it only starts the sentence
            token[0].isupper() and not initial and low not in STOP and low not in FIRST_PERSON
        ):
            out.append(Value("name", low, token))
        elif named and token.isalpha() and low not in STOP and low not in FIRST_PERSON:
            out.append(Value("name", low, token))  # "is called deployctl", "renamed to shipit"
    return out


# Time zones, said after a clock time ("02:00 UTC", "9:15 ET").
TIME_ZONES = frozenset(
    str.split("utc gmt cet cest eet est edt cst cdt mst mdt pst pdt bst ist jst aest aedt et pt ct")
)


# "one" counts only before what it counts and after a word that asks for an amount ("needs
# one approving review", "within one working day"); "the one", "one of", "no one" count nothing
_ONE_AFTER = frozenset(
    str.split("needs need needed requires require required takes take took within only just")
)
_ONE_BEFORE = re.compile(r"\s+(?!of\b|another\b|or\b|and\b|more\b|thing\b)[a-z]{3,}\b")


def _counted_one(said: list[str], after: str) -> bool:
    return (
        said[-1] == "one"
        and len(said) >= 2
        and said[-2] in _ONE_AFTER
        and _ONE_BEFORE.match(after) is not None
    )


# A word right after these is a name however it is written ("the CLI is called deployctl")
_NAMING = frozenset({"called", "named"})
_NAMING_PAIRS = frozenset(
    {("renamed", "to"), ("rebranded", "to"), ("rebranded", "as"), ("changed", "to")}
)


# "I report to X" says who the user's manager is ("Jo reports to Anita" is Jo's).
_REPORTS_TO = re.compile(r"\bI\s+(?:now\s+|still\s+)?report(?:ed)?\s+(?:in)?to\b")


_PER_PERIOD = re.compile(r"(?:\b(?:a|an|per|each|every)\s+|/)(month|week|year|day|night)\b", re.I)
_PERIODIC = {
    "month": "monthly",
    "week": "weekly",
    "year": "yearly",
    "day": "daily",
    "night": "nightly",
}


def said_stems(text: str) -> frozenset[str]:
    """The stems of a statement, first person standing for "user" (a memory's questions ask
    about "the user"; its statements say "I" and "my"), and "I report to" for "manager"."""
    have = stems_of(text)
    if _REPORTS_TO.search(text):
        have |= {"manager", "boss"}
    # "$2,500 a month" says the monthly limit, "every day" the daily standup
    have |= {_PERIODIC[m[1].lower()] for m in _PER_PERIOD.finditer(text)}
    return have | {"user"} if have & FIRST_PERSON else have


def proper_names(text: str) -> set[str]:
    """The keys of the statement's capitalised names. Identifiers and compounds are left out:
    a reworded revision respells them ("free-diver", "Config-only" / "Flag-guarded")."""
    return {
        v.key
        for v in values(text)
        if v.kind == "name" and v.text[:1].isupper() and not IDENTIFIER.search(v.key)
    }
