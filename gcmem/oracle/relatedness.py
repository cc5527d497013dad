"""Relatedness gating before κ: two statements can only contradict when they are about the same
thing. A deterministic entity extractor names what a statement is about; a pair whose entity
sets are both known and disjoint never reaches the model (its score is 0).

Entities, each normalised with the triple extractor's ``normalize_term``:
- the speaker ("user"): first-person pronouns, or a diary-style sentence that starts with a
  past-tense verb and has no subject ("Ran 10 km before work.");
- names: runs of capitalised words (sentence-initial words only when they are not a function
  word or a verb), e.g. "Priya", "Maria Lopez", "Victoria Park";
- keyed subjects: the subject of every triple ``gcmem.facts.extract`` finds ("payments
  service", "fastapi"), and "the X service/repository/worker/dependency" phrases;
- code-like tokens: package specs (``fastapi==0.95.2`` -> "fastapi"), paths and dotted names.

A statement with no entity is "unknown" and is never gated (the extractor never guesses): the
gate only removes pairs it can prove unrelated, so it trades little recall for precision.

``anchored`` is the positive test a κ drop needs: a common subject and a common attribute,
neither qualified apart (each statement giving the shared word a modifier the other lacks:
"the mobile / web repo's default branch", "checkout in prod / in staging", "treadmill /
trail running"), and no value added beside the other ("also").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from difflib import SequenceMatcher
from functools import lru_cache

import numpy as np

from gcmem.facts.align import _ADDITIVE, _REST_STOP, _SPAN_VERBS, _narrates_event, tokenize
from gcmem.facts.chunking import split_sentences, split_units
from gcmem.facts.extract import MONEY, extract_triples, line_speaker, quoted_file_line
from gcmem.facts.labels import member_note
from gcmem.facts.lines import describe
from gcmem.facts.prose_align import _TIME_WORDS
from gcmem.models import collapse_whitespace
from gcmem.normalize import normalize_term
from gcmem.oracle.base import (
    ConflictOracle,
    OracleIdentity,
    Pair,
    WrappedOracle,
    score_for,
)

GATE_VERSION = 1
# The anchoring rule a κ drop passes (``anchored``); part of the drop identity, so write-time κ
# flags set under an earlier rule stop counting. 2: qualifiers, pronouns, additive words;
# 3: two scopes; 4: a labelled speaker's first person, dates are no subject, a collection's
# members are not anchored; 5: a scope preposition before a determiner ("for the gym"), two
# lines quoted from one file's many.
ANCHOR_VERSION = 5
USER = "user"

_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"})
_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "on",
        "over",
        "during",
        "one",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "it",
        "its",
        "we",
        "our",
        "us",
        "you",
        "your",
        "he",
        "she",
        "they",
        "him",
        "her",
        "them",
        "his",
        "their",
        "what",
        "which",
        "who",
        "when",
        "where",
        "why",
        "how",
        "in",
        "at",
        "to",
        "for",
        "from",
        "of",
        "by",
        "with",
        "after",
        "before",
        "since",
        "until",
        "while",
        "if",
        "but",
        "and",
        "or",
        "so",
        "yesterday",
        "today",
        "tonight",
        "last",
        "next",
        "every",
        "each",
        "some",
        "all",
        "no",
        "not",
        "my",
        "i",
    ]
)
_IRREGULAR_PAST = frozenset(
    [
        "ate",
        "bought",
        "brought",
        "built",
        "came",
        "caught",
        "chose",
        "did",
        "drank",
        "drove",
        "fell",
        "felt",
        "fed",
        "flew",
        "forgot",
        "found",
        "fought",
        "gave",
        "got",
        "grew",
        "had",
        "heard",
        "held",
        "hid",
        "hit",
        "hurt",
        "kept",
        "knew",
        "laid",
        "led",
        "left",
        "lent",
        "let",
        "lost",
        "made",
        "meant",
        "met",
        "paid",
        "put",
        "quit",
        "ran",
        "rang",
        "read",
        "rode",
        "rose",
        "sang",
        "sat",
        "saw",
        "said",
        "sent",
        "set",
        "shook",
        "shot",
        "shut",
        "slept",
        "sold",
        "spent",
        "spoke",
        "stood",
        "stole",
        "swam",
        "swore",
        "took",
        "taught",
        "tore",
        "told",
        "thought",
        "threw",
        "understood",
        "woke",
        "won",
        "wore",
        "wrote",
        "went",
    ]
)
_CAPITALISED = re.compile(r"[A-Z][\w'’.-]*")
_WORD = re.compile(r"[\w'’]+(?:[.-][\w'’]+)*|\S")
_NOUN_HEADS = (
    r"service|repository|repo|worker|dependency|package|library|database|cluster|queue|project"
)
_HEADED = re.compile(rf"\bthe\s+([\w.-]+(?:\s+[\w.-]+)?)\s+({_NOUN_HEADS})\b", re.I)
_SPEC = re.compile(r"\b([A-Za-z][\w.-]*)\s*(?:==|>=|<=|~=|@)\s*v?\d")
_CODE = re.compile(r"(?:^|\s)((?:[\w.-]+/)+[\w.-]+|[a-z_][\w-]*\.[a-z][\w.-]*)(?=[\s,;:]|$)")


def _is_verb_like(word: str) -> bool:
    w = word.lower()
    return w in _IRREGULAR_PAST or (len(w) > 3 and w.endswith("ed"))


@lru_cache(maxsize=16384)
def entities(text: str) -> frozenset[str]:
    """The normalised entities a statement is about (empty: unknown)."""
    found: set[str] = set()
    words = _WORD.findall(text)
    lowered = [w.lower().replace("’", "'") for w in words]
    if any(w in _FIRST_PERSON for w in lowered):
        found.add(USER)
    # Names: runs of capitalised words; sentence starts only when not a function word or verb.
    sentence_start = True
    run: list[str] = []

    def flush() -> None:
        if run:
            found.add(normalize_term(" ".join(run)))
            run.clear()

    for word in words:
        if _CAPITALISED.fullmatch(word) and word != "I":
            lower = word.lower()
            if sentence_start and not run:
                if _is_verb_like(word):
                    found.add(USER)  # diary style: "Jogged three miles."
                elif lower not in _FUNCTION_WORDS:
                    run.append(word)
            elif lower not in _FUNCTION_WORDS or run:
                run.append(word)
            sentence_start = False
            continue
        flush()
        sentence_start = word in {".", "!", "?"}
    flush()
    for fact in extract_triples(text):
        subject = normalize_term(fact.subject)
        if subject and subject not in ("we", "i"):
            found.add(subject)
    for match in _HEADED.finditer(text):
        found.add(normalize_term(f"{match.group(1)} {match.group(2)}"))
        found.add(normalize_term(match.group(1)))
    for match in _SPEC.finditer(text):
        found.add(normalize_term(match.group(1)))
    for match in _CODE.finditer(text):
        found.add(normalize_term(match.group(1)))
    found.discard("")
    return frozenset(found)


def related(a: str, b: str) -> bool:
    """False only when both statements name entities and they share none."""
    ea, eb = entities(a), entities(b)
    return not ea or not eb or bool(ea & eb)


_POSSESSIVE = ("'s", "’s", "s'", "s’")
# Pronouns the name extractor reads as a name at a sentence start ("She's", "I'm"): a
# pronoun is no subject two statements share (every note about someone says "she").
_PRONOUN_NAMES = frozenset(
    str.split("she he it they we you i her him his them their its our my your this that there")
)


# Dates name when, not what: two statements about September are not about one thing.
_CALENDAR = frozenset(
    str.split(
        "january february march april may june july august september october november december "
        "monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday"
    )
)


def _subjects(text: str) -> frozenset[str]:
    """The entities a drop may anchor on: possessives as their owner ("crm's" -> "crm"),
    pronouns and dates left out. The speaker stays: first person is the user, ``USER``, or
    in a line that names its speaker ("Maya: my bedtime is 10"), that speaker, whose name
    is an entity already (two speakers' "my bedtime" are two people's)."""
    out = set()
    found = entities(text)
    if line_speaker(text.strip()):
        found = found - {USER}
    for entity in found:
        if entity in _CALENDAR:
            continue
        name = entity
        for clitic in (*_POSSESSIVE, "'m", "'ve", "'re", "'ll", "'d"):
            if name.endswith(clitic) and len(name) > len(clitic):
                name = name[: -len(clitic)]
                break
        if name not in _PRONOUN_NAMES:
            out.add(name)
    return frozenset(out)


def same_subject(a: str, b: str) -> bool:
    """True only when both statements name a common entity (pronouns are none)."""
    return bool(_subjects(a) & _subjects(b))


def rival_subjects(a: str, b: str) -> bool:
    """Each statement names a thing of one kind that the other does not: "the ML service" and
    "the billing service" (named entities of several words, the same head word, different
    modifiers). Parallel keys, whatever else the two share."""
    ea = {e for e in entities(a) if " " in e}
    eb = {e for e in entities(b) if " " in e}
    return any(x.split()[-1] == y.split()[-1] for x in ea - eb for y in eb - ea)


# Words that carry no attribute (a str, split once: the set is read, never edited).
_ATTRIBUTE_STOP = frozenset(
    str.split(
        "a an the is are was were be been being am i me my mine we our you your he she it its "
        "they them their this that these those of in on at to for from with by and or but not "
        "no so as do does did have has had will would can could should may might must there "
        "here also just only very now then than too about into over under after before again "
        "still since per "
        # clitic halves ("it's", "I'm", "don't"): no attribute, the word regex splits them
        "s m re ve ll d t don isn aren wasn weren doesn didn hasn haven hadn won wouldn couldn "
        "shouldn "
        # connectives, quantifiers and number words: they say how, not what
        "which who whom whose what when where why how because while though although through "
        "if unless both either all any some most more many much each every one two three four "
        "five six seven eight nine ten twice"
    )
)
_ATTRIBUTE_WORD = re.compile(r"[a-z][a-z0-9_-]*")


def attribute_words(text: str) -> frozenset[str]:
    """What a statement says about its subject, as words: content words that are not part of
    an entity's name, numbers and values left out (they are what changes), crudely stemmed
    (a trailing plural "s" removed) so "uploads" meets "upload"."""
    named = {w for e in entities(text) for w in e.split()}
    out = set()
    for word in _ATTRIBUTE_WORD.findall(text.casefold()):
        if word in _ATTRIBUTE_STOP or word in named:
            continue
        out.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return frozenset(out)


_LINE_WORDS = re.compile(r"\w+")
MIN_SHARED_LINE_WORDS = 3


@lru_cache(maxsize=16384)
def _excerpt(text: str) -> tuple[str, frozenset[str]] | None:
    """A file excerpt's path and its statement lines (whitespace-collapsed, at least three
    words each), or None for text that quotes no file."""
    units = split_units(text)
    where = [w for w in describe(units) if w is not None]
    paths = {w.path for w in where if w.path}
    if len(paths) != 1:
        return None
    lines = frozenset(
        " ".join(w.text.split())
        for w in where
        if w.content and len(_LINE_WORDS.findall(w.text)) >= MIN_SHARED_LINE_WORDS
    )
    return next(iter(paths)), lines


# --- qualifiers: parallel subjects and objects ---------------------------------------------
# "the mobile repo's default branch is develop" / "the web repo's default branch is trunk"
# share the head noun and the attribute, but name two things: each statement qualifies the
# shared word with a modifier the other lacks. The same holds for subjects under a scope
# ("Checkout in prod runs 6" / "Checkout in staging has 2") and for objects ("I hate treadmill
# running" / "I love trail running"). Frame alignment has the same guard ("a different word
# outside the frame", ``gcmem.facts.prose_align``); this one has no frame, only the words
# next to each word the two statements share.
_QUALIFIER_TOKEN = re.compile(r"[\w][\w'’-]*(?:\.\w+)*|[^\w\s]")
# A scope preposition right after a shared word opens its qualifier ("checkout in staging").
_SCOPE_PREPOSITIONS = frozenset(str.split("in on at for under within inside across via through"))
_DETERMINERS = frozenset(
    str.split("the a an our my your their its his her this that these those each every")
)
# A word right after these is in a verb's place ("I love trail running", "we hate ..."), so
# it is the predicate, not a modifier of what follows it.
_VERB_POSITION = frozenset(
    str.split(
        "i we you they he she it who which that to will would can could should must may might "
        "do does did don't doesn't didn't always never usually really also still now just "
        "i'm we're they're you're i've we've"
    )
)
# Words that are a value or a time, not a qualifier of the word they precede or follow.
_NOT_QUALIFIERS = (
    _SPAN_VERBS
    | _TIME_WORDS
    | frozenset(
        str.split(
            "new old current previous former latest next last same other own main default "
            "weekend weekends evening evenings night nights days weeks months years mornings "
            # quantifier pronouns: "everyone's handles" are the speaker's too
            "everyone everybody everything someone somebody anyone anybody nobody none"
        )
    )
)


@lru_cache(maxsize=16384)
def _tokens(text: str) -> tuple[str, ...]:
    """Case-folded words (a possessive kept as the word with "'s") and punctuation marks."""
    return tuple(_QUALIFIER_TOKEN.findall(text.casefold()))


def _stem(word: str) -> str:
    """A token as ``attribute_words`` compares it: possessive and a plural "s" removed."""
    for clitic in _POSSESSIVE:
        if word.endswith(clitic) and len(word) > len(clitic):
            word = word[: -len(clitic)]
            break
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _content(word: str) -> bool:
    stem = _stem(word)
    return bool(_ATTRIBUTE_WORD.fullmatch(stem)) and stem not in _ATTRIBUTE_STOP


@lru_cache(maxsize=16384)
def _statement_words(text: str) -> frozenset[str]:
    return frozenset(_stem(t) for t in _tokens(text))


def _heads(text: str) -> frozenset[str]:
    """The last word of every entity a statement names (its head noun)."""
    return frozenset(_stem(e.split()[-1]) for e in entities(text) if e != USER)


def _qualifier(word: str, before: str | None, heads: frozenset[str]) -> bool:
    """Whether ``word`` (after ``before``) can qualify a noun: a content word that is no
    verb, value or time, and not in a verb's place after a pronoun or an entity's head."""
    if not _content(word) or _is_verb_like(word) or word.endswith("ly"):
        return False
    if _stem(word) in _NOT_QUALIFIERS or word in _NOT_QUALIFIERS:
        return False
    return before is None or (before not in _VERB_POSITION and _stem(before) not in heads)


def _nominal(word: str) -> bool:
    """Not a verb by its form or the verbs alignment knows ("hosted", "runs")."""
    return not _is_verb_like(word) and word not in _SPAN_VERBS and _stem(word) not in _SPAN_VERBS


def _compound(word: str, shared: frozenset[str]) -> bool:
    """A word both statements say that can be part of a noun phrase with its neighbour."""
    return _content(word) and _stem(word) in shared and _nominal(word)


def qualifiers(text: str, word: str, other: str) -> frozenset[str]:
    """What ``text`` says of ``word`` that ``other`` does not: the modifier in front of each
    occurrence of ``word`` (past the words both statements share: "the *mobile* repo's default
    branch"), and the object of a scope preposition right after it ("checkout in *staging*").
    Only words absent from ``other`` count: what both say is their common frame."""
    toks = _tokens(text)
    shared = _statement_words(other)
    heads = _heads(text)
    out: set[str] = set()
    for i, tok in enumerate(toks):
        if _stem(tok) != word:
            continue
        # the shared words around it that name one thing with it ("default branch"); a verb
        # ends that name ("Marco sits on the X team": "on the X team" is not Marco's scope)
        lo, hi = i, i
        while lo > 0 and _compound(toks[lo - 1], shared):
            lo -= 1
        while hi + 1 < len(toks) and _compound(toks[hi + 1], shared):
            hi += 1
        if lo > 0:
            before = toks[lo - 2] if lo > 1 else None
            if _qualifier(toks[lo - 1], before, heads) and _stem(toks[lo - 1]) not in shared:
                out.add(_stem(toks[lo - 1]))
        if hi + 2 < len(toks) and toks[hi + 1] in _SCOPE_PREPOSITIONS and _nominal(toks[hi]):
            k = hi + 2
            while k < len(toks) - 1 and toks[k] in _DETERMINERS:
                k += 1
            end = k
            while end + 1 < len(toks) and _content(toks[end + 1]) and _nominal(toks[end + 1]):
                end += 1
            # a scope the statement goes on after is a qualifier ("checkout in staging has
            # 2"); one that ends its clause is the value ("the service is in us-east-1")
            goes_on = end + 1 < len(toks) and toks[end + 1][0].isalnum()
            if goes_on and _qualifier(toks[k], None, heads) and _stem(toks[k]) not in shared:
                out.add(_stem(toks[k]))
    return frozenset(out)


# Additive words: a value added beside another one (multi-valued), which no drop may treat as
# its replacement; the same words frame alignment reads so (``gcmem.facts.prose_align``).
def _additive(text: str) -> bool:
    """A value added beside another ("Japanese too", "also Go"); "too" in front of a word is
    a degree ("too far"), not an addition."""
    toks = _tokens(text)
    return any(
        t in _ADDITIVE and not (t == "too" and i + 1 < len(toks) and toks[i + 1][0].isalnum())
        for i, t in enumerate(toks)
    )


def qualified_apart(a: str, b: str, word: str) -> bool:
    """Each statement qualifies the shared ``word`` with a modifier the other lacks: two
    things of one kind (two repos' branches, trail and treadmill running), not one."""
    return bool(qualifiers(a, word, b)) and bool(qualifiers(b, word, a))


# Statements up to this many words get the qualifier guards (a sentence or two; passages and
# paragraphs do not: their neighbours of a word are other sentences' words as often).
MAX_QUALIFIED_WORDS = 40


def _statement_sized(text: str) -> bool:
    return sum(1 for t in _tokens(text) if t[0].isalnum()) <= MAX_QUALIFIED_WORDS


def _position(text: str, subject: str) -> int:
    """Where a statement first names a subject (its head word; the speaker: a first-person
    word), or its length when it does not."""
    toks = _tokens(text)
    head = None if subject == USER else _stem(subject.split()[-1])
    for i, tok in enumerate(toks):
        if (tok in _FIRST_PERSON) if head is None else (_stem(tok) == head):
            return i
    return len(toks)


def _subjects_apart(a: str, b: str) -> bool:
    """A head noun both statements name, qualified apart ("the mobile / web repo"), and no
    common subject named before it in both: they are about two things. A head named after a
    common subject is its object ("the profile worker uses the priority / realtime queue")."""
    common = _subjects(a) & _subjects(b)
    apart = {h for h in _heads(a) & _heads(b) if qualified_apart(a, b, h)}
    for head in apart:
        before = [
            s
            for s in common
            if (s == USER or _stem(s.split()[-1]) not in apart)
            and all(_position(t, s) < _position(t, head) for t in (a, b))
        ]
        if not before:
            return True
    return False


def _says_something(tokens: Sequence[str]) -> bool:
    """A span with a word that is neither the speaker, a function word nor a verb: a value or
    a scope ("I'm in" / "put me in" is the predicate reworded)."""
    return any(
        t[0].isalnum()
        and t not in _FIRST_PERSON
        and t not in _VERB_POSITION
        and t not in _FUNCTION_WORDS
        and not _is_verb_like(t)
        for t in tokens
    )


def scoped_apart(a: str, b: str) -> bool:
    """The statements are one sentence with two or more differing spans, one of them the
    object of a scope preposition both say ("Pool opens at 5:30am *on weekdays*" / "... at
    8am *on weekends*", "Direct debit set up *for the broadband*, comes out on the 15th" /
    "... *for the gym*, ... on the 28th"): two values of two scopes, not one value
    replaced. One differing span ("opens at 9 on Mondays" / "... at 10 on Mondays") is a
    value change and stays κ's."""
    ta, tb = _tokens(a), _tokens(b)
    spans: list[tuple[int, int]] = []  # (start in a, start in b) of each differing span
    glued = False  # the equal run before this op is punctuation only ("9:30" is one value)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
        if tag == "equal":
            glued = bool(spans) and all(not t[0].isalnum() for t in ta[i1:i2])
        elif not glued and _says_something(ta[i1:i2]) and _says_something(tb[j1:j2]):
            spans.append((i1, j1))
    if len(spans) < 2:
        return False

    def scoped(i: int, j: int) -> bool:
        # the preposition right before the span, or before its determiner ("for the gym")
        k = 1 + (i > 1 and j > 1 and ta[i - 1] in _DETERMINERS)
        shared = i >= k and j >= k and ta[i - k : i] == tb[j - k : j]
        return shared and ta[i - k] in _SCOPE_PREPOSITIONS

    return any(scoped(i, j) for i, j in spans)


def anchored(a: str, b: str) -> bool:
    """Both statements are about the same thing: a common subject (an entity both name) and a
    common attribute (a content word both say about it). The positive test a drop on κ needs;
    ``related`` is the negative one, for gating. "The ledger service runs on port 9300" and
    "The ledger service only accepts traffic from billing" share a subject, not an attribute.

    Statements (up to ``MAX_QUALIFIED_WORDS`` words each) are held to more: no head noun
    both name qualified apart before a common subject (two subjects of one kind), no second
    differing span under a shared scope preposition (``scoped_apart``: two scopes), at least
    one common attribute word not qualified apart (two objects of one kind), and an additive
    word ("also", "another") in both or neither.

    Two notes that each state a member of a collection ("Countries visited: Japan (2018)" /
    "...: Morocco (2019)", ``gcmem.facts.labels``) are never anchored.

    Quoted files (``gcmem.facts.lines``) are anchored only as excerpts of one place: the same
    file and at least one identical statement line. The path is provenance, not a subject two
    unrelated lines of a file share, and the model reads prose, not code."""
    ea, eb = _excerpt(a), _excerpt(b)
    if ea is not None or eb is not None:
        return ea is not None and eb is not None and ea[0] == eb[0] and bool(ea[1] & eb[1])
    if member_note(a) and member_note(b):
        return False  # "Countries visited: Japan" / "...: Morocco": members, side by side
    if quoted_file_line(a) and quoted_file_line(b):
        return False  # two quoted lines of one file's many (a Brewfile's, an inventory's)
    if not same_subject(a, b):
        return False
    shared = {_stem(w) for w in attribute_words(a) & attribute_words(b)}
    if not (_statement_sized(a) and _statement_sized(b)):
        # passages: the words next to a shared word belong to other sentences as often as to
        # its own, so they tell nothing apart
        return bool(shared)
    if _additive(a) != _additive(b):
        return False  # "also", "another": a value added beside the other one, not instead
    if _subjects_apart(a, b) or scoped_apart(a, b) or opened_apart(a, b) or payees_apart(a, b):
        return False
    return any(not qualified_apart(a, b, word) for word in shared)


# An amount paid to a payee by name ("250 a month to the Nationwide ISA", "£40 to the RSPB")
_PAID_TO = re.compile(
    rf"(?:{MONEY}|\b\d[\d,.]*)(?:\s*(?:a|per|/)\s*(?:month|week|year))?\s+to\s+"
    r"(?:(?:the|my|our|his|her|their)\s+)?(?P<payee>[A-Z][\w'’&-]*(?:\s+[A-Z][\w'’&-]*)*)"
)


def payees_apart(a: str, b: str) -> bool:
    """Each statement pays an amount to a payee by name, and the payees differ ("Standing order:
    250 a month to the Nationwide ISA" / "...: 40 a month to the RSPB"): two payments of a
    list, not one amount replaced."""
    pa = {m["payee"].lower() for m in _PAID_TO.finditer(a)}
    pb = {m["payee"].lower() for m in _PAID_TO.finditer(b)}
    return bool(pa) and bool(pb) and not pa & pb


_STORING = frozenset({"keep", "keeps", "kept", "store", "stores", "stash", "stashes"})


def opened_apart(a: str, b: str) -> bool:
    """Two statements of one shape that differ where they open and again after words they
    share: each its own subject's value ("The U10s train Tuesdays on Field 2" / "The U12s train
    Thursdays on Field 2"), two places, as frame alignment reads them. A lead-in one adds
    ("FYI the port is 9090") is no differing opening."""
    x = [t.norm for t in tokenize(a) if t.norm and not t.punct]
    y = [t.norm for t in tokenize(b) if t.norm and not t.punct]
    ops = SequenceMatcher(a=x, b=y, autojunk=False).get_opcodes()
    diffs = [op for op in ops if op[0] != "equal"]
    if len(diffs) < 2 or diffs[0][0] != "replace":
        return False
    _, i1, i2, j1, j2 = diffs[0]
    # ... or differ first in what is stored, said after "keep" ("We keep HEK293T in the dewar,
    # box 4" / "We keep HeLa in the dewar, box 7"): each thing in its own place
    stored = i1 == j1 and 0 < i1 <= 3 and x[i1 - 1] in _STORING
    if (i1 > 1 or j1 > 1) and not stored:
        return False
    if not all(any(w not in _REST_STOP for w in side) for side in (x[i1:i2], y[j1:j2])):
        return False  # "In the billing repo" / "Heads-up: the billing repo's": no subjects
    first_end = i2
    return any(op[0] == "equal" and op[2] - op[1] >= 2 and op[1] >= first_end for op in ops)


def apart(a: str, b: str) -> bool:
    """The statements are provably about two things: the anchor's negative tests without its
    positive one (a common subject and attribute word). Two notes that each state a member of
    a collection; a thing of one kind each names that the other does not (``rival_subjects``);
    lines two different speakers say; for statements, a value added beside the other one, a
    head noun qualified apart, two scopes. Quoted files are one thing only as excerpts of one
    place in one file (``_one_place``): the adapter never learned file excerpts, and two
    windows of a file that share one generic line were where it erred on real git history.

    A supersession adapter's drop needs only this test, not the anchor: the adapter was
    trained to tell a change of one attribute from a still-true fact beside it, which the
    anchor's common-word test cannot see (it kept a sixth of the adapter's justified drops).
    Out of fold, this test took out the adapter's most confident mistakes, near-identical
    records of two things ("Owner of billing-svc: @priya" / "Owner of ledger-svc: @tomasz",
    two speakers' "I'm on JST" / "I'm on IST"), at the price of some justified drops
    (``bench/results/adapter``)."""
    ea, eb = _excerpt(a), _excerpt(b)
    if ea is not None or eb is not None:
        return not (ea is not None and eb is not None and _one_place(ea, eb))
    if (member_note(a) and member_note(b)) or (quoted_file_line(a) and quoted_file_line(b)):
        return True
    if rival_subjects(a, b) or _speakers_apart(a, b):
        return True
    if _statement_sized(a) and _statement_sized(b):
        return (
            _additive(a) != _additive(b)
            or _subjects_apart(a, b)
            or scoped_apart(a, b)
            or payees_apart(a, b)
        )
    return False


def _one_place(a: tuple[str, frozenset[str]], b: tuple[str, frozenset[str]]) -> bool:
    """Two excerpts of one file that quote one place in it: at least half of the statement
    lines of each are identical in the other (a revision of a snippet, not two windows of a
    file that share a generic line such as ``runs-on: ubuntu-latest``)."""
    shared = len(a[1] & b[1])
    return a[0] == b[0] and shared > 0 and 2 * shared >= max(len(a[1]), len(b[1]))


def narrated_event(text: str, newer: str | None = None) -> bool:
    """A statement (up to ``MAX_QUALIFIED_WORDS`` words) that narrates a past event ("Alison
    Settle was appointed editor in 1926", "Dana skipped Tuesday yoga"): it stays true whatever
    changed since, so a supersession adapter's score on it is surfaced, never a drop. Given
    the ``newer`` statement, only the sentences it does not restate count: a revised paragraph
    that repeats its history word for word ("who took it over from their father") and changes
    a state narrates nothing the revision would lose."""
    if not _statement_sized(text):
        return False
    restated = {_sentence_key(s) for s in split_sentences(newer)} if newer else set()
    return any(
        _narrates_event(tokenize(s))
        for s in split_sentences(text)
        if _sentence_key(s) not in restated
    )


def _sentence_key(sentence: str) -> str:
    return collapse_whitespace(sentence).casefold()


def _speakers_apart(a: str, b: str) -> bool:
    """Two transcript lines, each naming a different speaker ("Aiko: I'm on JST" / "Ravi: I'm
    on IST")."""
    sa, sb = line_speaker(a.strip()), line_speaker(b.strip())
    return sa is not None and sb is not None and sa != sb


class EntityGatedOracle(WrappedOracle):
    """κ behind the entity gate: unrelated pairs score 0 without reaching ``inner``.

    θ extends the inner oracle's identity with the gate (a gated oracle's verdicts differ from
    the bare model's, so they are logged apart).
    """

    def __init__(self, inner: ConflictOracle) -> None:
        self.inner = inner
        self.gated = 0  # pairs the gate decided over this object's life
        self._identity = OracleIdentity(
            "entity-gated",
            {"inner": inner.identity.canonical(), "gate": f"entity-v{GATE_VERSION}"},
        )

    @property
    def threshold(self) -> float:
        return self.inner.threshold

    @threshold.setter
    def threshold(self, value: float) -> None:
        self.inner.threshold = value

    def score_with_question(self, pairs: Sequence[Pair], question: str) -> np.ndarray:
        return self._gated(pairs, lambda ps: score_for(self.inner, ps, question))

    def mask(self, pairs: Sequence[Pair]) -> np.ndarray:
        return np.array([related(a, b) for a, b in pairs], dtype=bool)

    def score(self, pairs: Sequence[Pair]) -> np.ndarray:
        return self._gated(pairs, self.inner.score)

    def _gated(
        self, pairs: Sequence[Pair], score: Callable[[Sequence[Pair]], np.ndarray]
    ) -> np.ndarray:
        keep = self.mask(pairs)
        out = np.zeros(len(pairs), dtype=np.float64)
        idx = np.flatnonzero(keep)
        self.gated += int(len(pairs) - len(idx))
        if len(idx):
            out[idx] = score([pairs[int(i)] for i in idx])
        return out

    def decide(self, scores: np.ndarray | float) -> np.ndarray:
        return self.inner.decide(scores)
