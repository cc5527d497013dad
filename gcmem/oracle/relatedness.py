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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from gcmem.facts.chunking import split_units
from gcmem.facts.extract import extract_triples
from gcmem.facts.lines import describe
from gcmem.normalize import normalize_term
from gcmem.oracle.base import (
    ConflictOracle,
    OracleIdentity,
    Pair,
    WrappedOracle,
    score_for,
)

GATE_VERSION = 1
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


def same_subject(a: str, b: str) -> bool:
    """True only when both statements name a common entity."""
    return bool(entities(a) & entities(b))


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
        "still since per"
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


def anchored(a: str, b: str) -> bool:
    """Both statements are about the same thing: a common subject (an entity both name) and a
    common attribute (a content word both say about it). The positive test a drop on κ needs;
    ``related`` is the negative one, for gating. "The ledger service runs on port 9300" and
    "The ledger service only accepts traffic from billing" share a subject, not an attribute.

    Quoted files (``gcmem.facts.lines``) are anchored only as excerpts of one place: the same
    file and at least one identical statement line. The path is provenance, not a subject two
    unrelated lines of a file share, and the model reads prose, not code."""
    ea, eb = _excerpt(a), _excerpt(b)
    if ea is not None or eb is not None:
        return ea is not None and eb is not None and ea[0] == eb[0] and bool(ea[1] & eb[1])
    return same_subject(a, b) and bool(attribute_words(a) & attribute_words(b))


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
