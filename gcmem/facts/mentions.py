"""Stale mentions: older statements that name a value a decided frame has since replaced.

Alignment keys a pair of statements that differ in one value ("The ML service targets Python
3.9" / "... targets Python 3.12 now"). People restate the old value in other words before it
changes ("Yes, still Python 3.9 for the ML service", "the Dockerfile for the ML service starts
FROM python:3.9-slim"); no second statement has their frame, so nothing keys them and they
outlive the change. A statement is a **stale mention** of a decided frame when, older than the
statement that replaced the value:

- it names the old value (at word boundaries, case-insensitive) and not the new one, and the
  clause that names it has no negation or modal (those stay with κ);
- it is about the frame's thing: it shares at least ``MIN_SHARED_WORDS`` content words of the
  frame, and at least half of them (the subject and attribute words, not the value); for a
  *distinctive* old value (an identifier, a code token, a number with its unit, a proper name
  that is not a month, weekday or language: ``salesdb``, ``50 MB``, ``Barcelona``) one shared
  word is enough, because such a value names the thing by itself ("Run migrations with
  DATABASE=salesdb" after the database was renamed);
- it states no key of its own (a statement the grammar keys is decided by that key: "my
  daughter's school is Oakwood" is not a mention of the son's school);
- it has no additive word ("also", "too": a value beside the old one, a multi-valued
  attribute), and the caller's subject test holds for it and the old statement (the stage:
  a common named entity and no rival one, ``gcmem.oracle.relatedness``);
- where both sentences are prose that name years, they share one: "He raced for DAMS in the
  2014 Formula Renault 3.5 season" is another season than "Sainz raced in Formula Renault
  3.5 for the first time in 2013", not that statement said again.

A change decided between two file lines ("max_connections = 200" -> "350") keys prose that
names every word of the line's key, when those words or the old value are code
("we hit max_connections = 200 during the import"); another file's line is never a mention
(line alignment decides lines).

Decided changes come from frame alignment (``ValueChange.from_frames``) and from the grammar
(two statements with one extractor key and different values, ``ValueChange.from_keys``: "Our
design system is called Bedrock" / "The design system was rebranded to Atlas"). The
supersession stage records the mention as an assertion of the old value under the change's
key at the mention's own time, so the ledger closes it with the same decision record (frame,
both values, the newer turn) and the chunk is dropped only when every statement in it is
superseded or restated, as for any frame.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from gcmem.facts.align import (
    _ADDITIVE,
    FRAME_SUBJECT,
    SLOT,
    PairAlignment,
    Unit,
    _hedged,
    said_within,
)
from gcmem.facts.prose_align import _NEUTRAL
from gcmem.facts.wording import YEAR
from gcmem.models import Chunk
from gcmem.normalize import MONTHS, WEEKDAYS

__all__ = [
    "MIN_SHARED_WORDS",
    "StaleMention",
    "ValueChange",
    "asserts_value",
    "distinctive",
    "stale_mentions",
]

MIN_SHARED_WORDS = 2
# A value is a short span: a long one (a revised clause) is not something people restate.
MAX_VALUE_WORDS = 4
MAX_VALUE_CHARS = 40


@dataclass(frozen=True)
class StaleMention:
    chunk: Chunk
    unit: int
    key: tuple[str, str]  # (subject, relation) the old value is recorded under
    value: str


@dataclass(frozen=True)
class ValueChange:
    """A decided change of one value: the older and newer statement, the key it is decided
    under, the words that name its thing, and both values."""

    old: Chunk
    new: Chunk
    old_unit: int
    new_unit: int
    key: tuple[str, str]
    about: frozenset[str]
    old_value: str
    new_value: str
    # decided between two file lines: prose mentions it only by all of its key's words, and
    # only when they or the value are code ("max_connections"; not "enabled: true")
    in_lines: bool = False

    @classmethod
    def from_frames(
        cls,
        alignments: Sequence[tuple[Chunk, Chunk, PairAlignment]],
        units: Mapping[str, Sequence[Unit]],
    ) -> list[ValueChange]:
        """Every frame the alignments decided."""
        out = []
        for old, new, found in alignments:
            for f in found.frames:
                in_lines = units[old.id][f.old_unit].line or units[new.id][f.new_unit].line
                out.append(
                    cls(
                        old,
                        new,
                        f.old_unit,
                        f.new_unit,
                        (FRAME_SUBJECT, f.frame),
                        _frame_words(f.frame, f.old_value),
                        f.old_value,
                        f.new_value,
                        in_lines,
                    )
                )
        return out

    @classmethod
    def from_keys(
        cls,
        pairs: Sequence[tuple[Chunk, Chunk]],
        keys: Mapping[str, Sequence[tuple[int, str, str, str]]],
        units: Mapping[str, Sequence[Unit]],
    ) -> list[ValueChange]:
        """Every extractor key two paired prose statements state with different values;
        ``keys[chunk_id]`` lists (unit, subject, relation, value)."""
        out = []
        for old, new in pairs:
            newer = {(s, r): (u, v) for u, s, r, v in keys.get(new.id, ())}
            for u, s, r, v in keys.get(old.id, ()):
                if (s, r) not in newer:
                    continue
                nu, nv = newer[(s, r)]
                if nv == v or units[old.id][u].line or units[new.id][nu].line:
                    continue
                out.append(cls(old, new, u, nu, (s, r), _key_words(s, r, v), v, nv))
        return out


_CODE_WORD = re.compile(r"[_./]|[a-z][A-Z]")


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _key_words(subject: str, relation: str, value: str) -> frozenset[str]:
    values = {_stem(w) for w in re.findall(r"[\w.]+", value.casefold())}
    words = re.findall(r"[^\W_]+", f"{subject} {relation}".casefold())
    return frozenset(
        _stem(w) for w in words if w not in _NEUTRAL and w != "is" and _stem(w) not in values
    )


_COMMON_PROPER = (
    MONTHS
    | WEEKDAYS
    | frozenset(
        str.split("english spanish french german italian portuguese chinese japanese korean")
    )
)


def distinctive(value: str) -> bool:
    """A value that names its thing by itself: an identifier or code token, a number with a
    unit, a proper name (not a month, weekday or language)."""
    words = value.split()
    if not words or not any(ch.isalpha() for ch in value):
        return False  # a bare number is said of many things
    if any(ch.isdigit() for ch in value) or re.search(r"[_./:@=]|[a-z][A-Z]", value):
        return True
    if all(w[:1].isupper() for w in words) and len(value) >= 4:
        return not {w.casefold() for w in words} <= _COMMON_PROPER
    return False


def _named(value: str, text: str) -> bool:
    """``value`` occurs in ``text`` with no letter or digit glued to either end."""
    words = value.casefold().split()
    pattern = r"(?<![\w])" + r"\s+".join(map(re.escape, words)) + r"(?![\w])"
    return re.search(pattern, text.casefold()) is not None


def _frame_words(frame: str, value: str) -> frozenset[str]:
    values = set(value.casefold().split())
    return frozenset(
        w
        for w in frame.split()
        if w != SLOT and w not in _NEUTRAL and w not in values and any(ch.isalnum() for ch in w)
    )


def _other_years(unit: Unit, said: Unit) -> bool:
    """Both statements are prose naming years, and no year is in both: two occasions."""
    if unit.line or said.line:
        return False
    mine, theirs = set(YEAR.findall(unit.text)), set(YEAR.findall(said.text))
    return bool(mine and theirs) and not mine & theirs


def asserts_value(unit: Unit, value: str) -> bool:
    """The unit names ``value`` in a clause with no negation or modal, and adds nothing."""
    if not unit.content or unit.words & _ADDITIVE:
        return False
    for run in unit.runs[1:] or unit.runs:
        if run and _named(value, unit.text[run[0].start : run[-1].end]):
            return not _hedged(run)
    return False


def stale_mentions(
    changes: Sequence[ValueChange],
    units: Mapping[str, Sequence[Unit]],
    chunks: Mapping[str, Chunk],
    same_thing: Callable[[str, str], bool] = lambda mention, statement: True,
    settled: Collection[tuple[str, int]] = (),
) -> list[StaleMention]:
    """The stale mentions, among ``chunks``' statements, of every decided change (each
    (chunk, unit) once: the first change that claims it). ``same_thing(mention, old
    statement)`` is the subject test a caller adds (the frame's words cannot tell "the ML
    service" from "the billing service"); ``settled`` units are decided otherwise (restated,
    aligned, keyed by the grammar) and are never mentions."""
    taken = set(settled)
    for c in changes:
        taken |= {(c.old.id, c.old_unit), (c.new.id, c.new_unit)}
    out: list[StaleMention] = []
    for c in changes:
        value = " ".join(c.old_value.split())
        if len(value) > MAX_VALUE_CHARS or len(value.split()) > MAX_VALUE_WORDS:
            continue
        about = frozenset(map(_stem, c.about))
        named = c.key[1] == "name" or c.key[1].endswith(("called _", "named _"))
        # a name names its thing by itself, whatever it looks like ("salesdb")
        need = 1 if named or distinctive(value) else max(MIN_SHARED_WORDS, (len(about) + 1) // 2)
        if c.in_lines:
            # a line's key said in prose: all of its words, and they or the value are code
            # ("max_connections = 200 in postgresql.conf"; "enabled: true" names nothing)
            if not about or (need > 1 and not any(_CODE_WORD.search(w) for w in c.about)):
                continue
            about = frozenset(w.casefold() for w in about)  # prose words are case-folded
            need = len(about)
        if len(about) < need:
            continue
        for cid, chunk in chunks.items():
            if cid in (c.old.id, c.new.id) or chunk.turn_id == c.new.turn_id:
                continue
            if chunk.ts >= c.new.ts:
                continue
            for unit in units[cid]:
                if (cid, unit.index) in taken or len({_stem(w) for w in unit.words} & about) < need:
                    continue
                if c.in_lines and unit.line:
                    continue  # another file's line: line alignment decides it
                if not asserts_value(unit, value) or _named(c.new_value, unit.text):
                    continue
                said = units[c.old.id][c.old_unit]
                if _other_years(unit, said):
                    continue
                # the old statement said again inside a longer one names its thing as it did
                if not same_thing(unit.text, said.text) and not said_within(unit, said):
                    continue
                taken.add((cid, unit.index))
                out.append(StaleMention(chunk, unit.index, c.key, c.old_value))
    return out
