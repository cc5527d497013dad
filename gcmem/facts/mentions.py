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
  frame, and at least half of them (the subject and attribute words, not the value);
- it has no additive word ("also", "too": a value beside the old one, a multi-valued
  attribute), and the caller's subject test holds for it and the old statement (the stage:
  a common named entity and no rival one, ``gcmem.oracle.relatedness``).

The supersession stage records the mention as an assertion of the old value under the frame's
key at the mention's own time, so the ledger closes it with the same decision record (frame,
both values, the newer turn) and the chunk is dropped only when every statement in it is
superseded or restated, as for any frame.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from gcmem.facts.align import _MODALS, _NEGATIONS, SLOT, PairAlignment, Unit
from gcmem.facts.prose_align import _ADDITIVE, _NEUTRAL
from gcmem.models import Chunk

__all__ = ["MIN_SHARED_WORDS", "StaleMention", "stale_mentions"]

MIN_SHARED_WORDS = 2
# A value is a short span: a long one (a revised clause) is not something people restate.
MAX_VALUE_WORDS = 4
MAX_VALUE_CHARS = 40


@dataclass(frozen=True)
class StaleMention:
    chunk: Chunk
    unit: int
    frame: str
    value: str


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


def _asserts(unit: Unit, value: str) -> bool:
    """The unit names ``value`` in a clause with no negation or modal, and adds nothing."""
    if not unit.content or unit.words & _ADDITIVE:
        return False
    for run in unit.runs[1:] or unit.runs:
        if run and _named(value, unit.text[run[0].start : run[-1].end]):
            words = {t.norm for t in run}
            return not (words & _NEGATIONS or words & _MODALS)
    return False


def stale_mentions(
    alignments: Sequence[tuple[Chunk, Chunk, PairAlignment]],
    units: Mapping[str, Sequence[Unit]],
    chunks: Mapping[str, Chunk],
    same_thing: Callable[[str, str], bool] = lambda mention, statement: True,
) -> list[StaleMention]:
    """The stale mentions, among ``chunks``' statements, of every prose frame the alignments
    decided (each (chunk, unit) once: the first frame that claims it). ``same_thing(mention,
    old statement)`` is the subject test a caller adds (the frame's words cannot tell "the ML
    service" from "the billing service")."""
    settled: set[tuple[str, int]] = set()
    for old, new, found in alignments:
        settled |= {(old.id, o) for o, _ in found.restated}
        settled |= {(new.id, n) for _, n in found.restated}
        settled |= {(old.id, f.old_unit) for f in found.frames}
        settled |= {(new.id, f.new_unit) for f in found.frames}
    out: list[StaleMention] = []
    for old, new, found in alignments:
        for f in found.frames:
            if units[old.id][f.old_unit].line or units[new.id][f.new_unit].line:
                continue  # a file line's value is the line itself: restated, not mentioned
            value = " ".join(f.old_value.split())
            if len(value) > MAX_VALUE_CHARS or len(value.split()) > MAX_VALUE_WORDS:
                continue
            about = _frame_words(f.frame, value)
            need = max(MIN_SHARED_WORDS, (len(about) + 1) // 2)
            if len(about) < need:
                continue
            for cid, chunk in chunks.items():
                if cid in (old.id, new.id) or chunk.turn_id == new.turn_id or chunk.ts >= new.ts:
                    continue
                for unit in units[cid]:
                    if (cid, unit.index) in settled or len(unit.words & about) < need:
                        continue
                    if not _asserts(unit, value) or _named(f.new_value, unit.text):
                        continue
                    if not same_thing(unit.text, units[old.id][f.old_unit].text):
                        continue
                    settled.add((cid, unit.index))
                    out.append(StaleMention(chunk, unit.index, f.frame, f.old_value))
    return out
