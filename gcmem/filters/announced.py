"""The announced-change stage: excise statements a newer candidate announces a new value for,
anchored on the query's question (``gcmem.facts.announced``).

The ledger and frame alignment decide changes whose old and new statements share a key or a
frame; most people announce a change in other words ("ops moved payments-api over to port
9443" after "payments-api listens on 8443"). This stage reads the question: an older
candidate's statement that answers it with one value is superseded by a newer candidate's
clause that announces another value of the same kind for the question's subject.

Decisions follow the unit rule of the other stages: the superseded statement is listed on the
kept candidate (``stale_sentences``, excised from what a reader sees) and the chunk is dropped
only when every statement in it is superseded. A query that is no wh-question leaves every
candidate as it is. No model, no storage: the stage reads the candidates' texts and times.
"""

from __future__ import annotations

from collections.abc import Sequence

from gcmem.facts.align import Unit, units_of
from gcmem.facts.announced import Announcement, QuestionFrame, announcement, question_frame
from gcmem.filters.base import FilterOutcome, QueryContext
from gcmem.filters.resources import Resources
from gcmem.models import Decision, ScoredChunk, StaleSentence

STAGE = "announced"


def _prose(units: Sequence[Unit]) -> list[Unit]:
    # Lines of code and config are the ledger's and alignment's; questions state nothing.
    return [u for u in units if u.content and not u.line and not u.question]


class AnnouncedChangeFilter:
    """Query-time stage: statements superseded by a newer announced value for the question."""

    name = STAGE

    def apply(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> FilterOutcome:
        frame = question_frame(query.query)
        if frame is None or len(candidates) < 2:
            return FilterOutcome(list(candidates), [])
        units = {c.id: _prose(units_of(c.chunk.text)) for c in candidates}
        # newest first, so each statement is marked with the latest announcement
        newer_first = sorted(candidates, key=lambda c: c.chunk.ts, reverse=True)
        kept: list[ScoredChunk] = []
        dropped: list[Decision] = []
        for cand in candidates:
            stale = self._superseded(frame, cand, units, newer_first)
            if not stale:
                kept.append(cand)
                continue
            known = {s.index for s in cand.stale_sentences if s.excised}
            added = tuple(s for s in stale if s.index not in known)
            updated = cand.model_copy(update={"stale_sentences": cand.stale_sentences + added})
            if {u.index for u in units[cand.id]} <= known | {s.index for s in added}:
                dropped.append(_decision(updated, added))
            else:
                kept.append(updated)
        return FilterOutcome(kept, dropped)

    @staticmethod
    def _superseded(
        frame: QuestionFrame,
        older: ScoredChunk,
        units: dict[str, list[Unit]],
        newer_first: Sequence[ScoredChunk],
    ) -> list[StaleSentence]:
        out: list[StaleSentence] = []
        for unit in units[older.id]:
            for newer in newer_first:
                if newer.chunk.ts <= older.chunk.ts:
                    break  # equal times never dominate
                found = _announced(frame, unit, units[newer.id])
                if found is not None:
                    out.append(_stale(unit, found, newer))
                    break
        return out


def _announced(frame: QuestionFrame, unit: Unit, newer: Sequence[Unit]) -> Announcement | None:
    for other in newer:
        found = announcement(frame, unit.text, other.text)
        if found is not None:
            return found
    return None


def _stale(unit: Unit, found: Announcement, newer: ScoredChunk) -> StaleSentence:
    return StaleSentence(
        index=unit.index,
        text=unit.text,
        key="the question asked",
        value=" / ".join(found.old_values),
        current_value=" / ".join(found.new_values),
        superseded_by=newer.id,
        superseded_by_turn_id=newer.turn_id,
        since=newer.chunk.ts,
        stage=STAGE,
    )


def _decision(cand: ScoredChunk, stale: Sequence[StaleSentence]) -> Decision:
    first = stale[0]
    return Decision(
        chunk=cand,
        stage=STAGE,
        reason=(
            f"every statement is superseded by a newer announced value for the question "
            f"({first.value} -> {first.current_value})"
        ),
        dominated_by=first.superseded_by,
        dominated_by_turn_id=first.superseded_by_turn_id,
        details={"sentences": [s.model_dump(mode="json") for s in stale]},
    )


def build(resources: Resources) -> AnnouncedChangeFilter:
    del resources  # reads only the candidates
    return AnnouncedChangeFilter()
