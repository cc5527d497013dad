"""The announced-change stage: statements a newer candidate gives a new value for, anchored on
the query's question (``gcmem.facts.announced``).

The ledger and frame alignment decide changes whose old and new statements share a key or a
frame; most people announce a change in other words ("ops moved payments-api over to port
9443" after "payments-api listens on 8443"), or revise a paragraph as a whole, rewording every
sentence around the changed value. This stage reads the question and decides both:

- **an announcement**: an older candidate's statement that answers the question is superseded
  by a newer candidate's clause that announces another value of the same kind for the
  question's subject. The statement is listed on the kept candidate (``stale_sentences``,
  excised from what a reader sees); the chunk is dropped only when every statement in it is
  superseded (the unit rule of the other stages);
- **a mention**: once an announcement decided that the answer changed, an older candidate's
  statement that names the question's subject and the old value (not the new one) repeats
  the old answer in other words ("Took the train to Leipzig to see Ilse" after "Ilse is in
  Dresden now") and is marked the same way (``mentions_old_value``). The ledger's changes
  count as announcements: a candidate whose version, under a key the question asks about,
  closed the one before it (``asks_about_key``) decides that change, though the older
  statements it closed are no candidates (flagged at write time); their mentions in other
  words still are ("Run migrations with DATABASE=salesdb" after the database was renamed to
  crm_core). Where no statement answers the question in its words, the newest announcement
  decides a change from the one value of its kind that older candidates repeat in passing
  (``recurring_change``);
- **a changed habit**: for a when-, where- or who-question about a person, an older statement
  of the habit asked about is superseded by a newer one that says it changed in other words
  ("Kwame swims at the leisure centre pool" / "Kwame swims in the lido these days";
  ``gcmem.facts.habits``); no value is compared, so none is carried on to mentions;
- **a revision**: a newer candidate that restates every statement of an older paragraph and
  changes its answer to the question replaces it: the older chunk is dropped. A document
  re-issued under its own opening with some statements reworded (``revision(...,
  whole=False)``) supersedes only the statement whose answer it changed.

A query that is no wh-question leaves every candidate as it is. No model: the stage reads
the candidates' texts and times, the deployment's resolution policies for which frames
accumulate (the ledger's table: a second welcome to a team is one more member) and, in one
status read per namespace, the versions the ledger holds for the candidates' assertions;
equal times never decide.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from gcmem.facts.align import FRAME_SUBJECT, Unit, units_of
from gcmem.facts.announced import (
    AnswerChange,
    QuestionFrame,
    announced_values,
    announcement,
    answers,
    asks_about_key,
    identifies_one_thing,
    mentions_old_value,
    question_frame,
    recurring_change,
    revision,
    with_names,
)
from gcmem.facts.code_keys import key_changes, names_key
from gcmem.facts.extract import unit_facts
from gcmem.facts.habits import asks_about_a_habit, habit_change
from gcmem.filters.base import FilterOutcome, QueryContext
from gcmem.filters.resources import Resources
from gcmem.models import Decision, ScoredChunk, StaleSentence
from gcmem.normalize import normalize_key
from gcmem.storage.ledger import AssertionStatus, SupersessionLedger
from gcmem.storage.ledger.policy import PolicyTable

STAGE = "announced"


# A question about what was added ("Which IP was added to the bastion security group?") asks
# about one member among several: no announced value replaces it.
_ASKS_ADDED = re.compile(r"\b(?:was|were|got|been|is|are)\s+(?:\w+\s+)?added\b", re.I)


class AnnouncedChangeFilter:
    """Query-time stage: statements superseded by a newer announced or revised value for the
    query's question."""

    name = STAGE

    def __init__(
        self, policies: PolicyTable | None = None, ledger: SupersessionLedger | None = None
    ) -> None:
        # which frames accumulate (a welcome adds a member): the ledger's policies
        self.policies = policies or PolicyTable()
        self.ledger = ledger

    def apply(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> FilterOutcome:
        frame = question_frame(query.query)
        if len(candidates) < 2 or _ASKS_ADDED.search(query.query):
            return FilterOutcome(list(candidates), [])
        if frame is not None:  # the subject under the other names the candidates give it
            frame = with_names(frame, [c.chunk.text for c in candidates])

        def accumulates(statement: str) -> bool:
            subject, relation = normalize_key(FRAME_SUBJECT, statement)
            return self.policies.resolve(query.namespace, subject, relation).policy == (
                "accumulate"
            )

        # newest first, so each statement is marked with the latest change
        newer_first = sorted(candidates, key=lambda c: c.chunk.ts, reverse=True)
        prose = {c.id: _prose(c.chunk.text) for c in candidates}
        revised: dict[str, StaleSentence] = {}
        habits: dict[str, list[StaleSentence]] = {}
        found: dict[str, list[tuple[StaleSentence, Decided]]] = {}
        for cand in candidates:
            newer = [c for c in newer_first if c.chunk.ts > cand.chunk.ts]
            if frame is None:
                # a yes/no or keyword question has no frame to announce a value of; a code
                # key it names still has one ("Is the new_checkout_flow flag on?")
                found[cand.id] = _reassigned(query.query, cand, newer, set())
                continue
            rev = _revised(frame, cand, newer, accumulates)
            if rev is not None:
                revised[cand.id] = rev[0]
                continue
            found[cand.id] = _announced(frame, cand, newer, prose, accumulates)
            found[cand.id] += _reassigned(
                query.query, cand, newer, {s.index for s, _ in found[cand.id]}
            )
            changed = _changed_habits(
                query.query, cand, newer, prose, {s.index for s, _ in found[cand.id]}
            )
            if changed:
                habits[cand.id] = changed
            if not found[cand.id] and not changed:  # a re-issue: only where nothing changed
                reissued = _revised(frame, cand, newer, accumulates, whole=False)
                found[cand.id] = [reissued] if reissued is not None else []
        # the announced changes and the ledger's, latest first: an older statement that
        # repeats an old value of one is marked with the latest
        decided = [d for marked in found.values() for _, d in marked]
        if frame is not None and self.ledger is not None:
            decided += _recorded(self.ledger, frame, candidates, query.as_of)
        decided.sort(key=lambda d: d.newer.chunk.ts, reverse=True)
        if not decided and frame is not None:
            inferred = _recurring(frame, newer_first, prose)
            if inferred is not None:
                decided = [inferred]
        kept: list[ScoredChunk] = []
        dropped: list[Decision] = []
        for cand in candidates:
            if cand.id in revised:
                dropped.append(
                    _decision(
                        cand,
                        [revised[cand.id]],
                        "revised by a newer version of the paragraph that restates the rest",
                    )
                )
                continue
            stale = [s for s, _ in found[cand.id]] + habits.get(cand.id, [])
            if frame is not None:
                stale += _mentioned(
                    frame, cand, _said(cand.chunk.text), decided, {s.index for s in stale}
                )
            known = {s.index for s in cand.stale_sentences if s.excised}
            added = tuple(s for s in stale if s.index not in known)
            if not added:
                kept.append(cand)
                continue
            updated = cand.model_copy(update={"stale_sentences": cand.stale_sentences + added})
            said = {u.index for u in units_of(cand.chunk.text) if u.content}
            if said <= known | {s.index for s in added}:
                dropped.append(
                    _decision(
                        updated,
                        added,
                        "every statement is superseded by a newer announced value for the question",
                    )
                )
            else:
                kept.append(updated)
        return FilterOutcome(kept, dropped)


def _said(text: str) -> list[Unit]:
    # every statement may mention an old value: a line too (a command, a labelled note:
    # "psql -h db-main-01.internal", "reminder for new hires: connect to vpn-east.acme.io"),
    # or a question that takes it for granted ("config points at vpn-east.acme.io, anyone
    # else?")
    return [u for u in units_of(text) if u.content]


def _prose(text: str) -> list[Unit]:
    # what answers or announces: lines of code and config are the ledger's and alignment's,
    # and questions state nothing
    return [u for u in _said(text) if not u.line and not u.question]


def _revised(
    frame: QuestionFrame,
    older: ScoredChunk,
    newer: Sequence[ScoredChunk],
    accumulates: Callable[[str], bool],
    *,
    whole: bool = True,
) -> tuple[StaleSentence, Decided] | None:
    """The changed statement of ``older``, by the newest candidate that revises it whole, or
    (``whole=False``) re-issues its document: then only that statement is excised."""
    for cand in newer:
        found = revision(
            frame, older.chunk.text, cand.chunk.text, whole=whole, accumulates=accumulates
        )
        if found is not None:
            stale = _stale(found.index, found.statement, found.change, cand)
            return stale, Decided(found.change, cand)
    return None


@dataclass(frozen=True)
class Decided:
    """An announced change of the question's answer, and the candidate that announced it."""

    change: AnswerChange
    newer: ScoredChunk
    key: str | None = None  # the code key it assigns (``key_changes``), if that is how
    # the ledger key whose change it is (``_recorded``), as (subject, relation)
    ledger_key: tuple[str, str] | None = None


def _announced(
    frame: QuestionFrame,
    older: ScoredChunk,
    newer: Sequence[ScoredChunk],
    prose: Mapping[str, Sequence[Unit]],
    accumulates: Callable[[str], bool],
) -> list[tuple[StaleSentence, Decided]]:
    """``older``'s statements a newer candidate announces another value for (the newest); a
    value of a frame that ``accumulates`` is one more, announced over nothing."""
    out: list[tuple[StaleSentence, Decided]] = []
    for unit in prose[older.id]:
        if not answers(frame, unit.text):
            continue  # nothing any newer clause could replace
        for cand in newer:
            found = _announcing(frame, unit, prose[cand.id], accumulates)
            if found is not None:
                out.append((_stale(unit.index, unit.text, found, cand), Decided(found, cand)))
                break
    return out


def _reassigned(
    query: str, older: ScoredChunk, newer: Sequence[ScoredChunk], marked: set[int]
) -> list[tuple[StaleSentence, Decided]]:
    """``older``'s assignments of a key the question names that a newer candidate assigns
    another value (``key_changes``; the newest)."""
    out: list[tuple[StaleSentence, Decided]] = []
    for cand in newer:
        for change in key_changes(query, older.chunk.text, cand.chunk.text):
            if change.index in marked:
                continue
            marked.add(change.index)
            answer = AnswerChange(
                (change.old,),
                (change.new,),
                frozenset({change.old.lower()}),
                frozenset({change.new.lower()}),
            )
            out.append(
                (_stale(change.index, change.unit, answer, cand), Decided(answer, cand, change.key))
            )
    return out


def _changed_habits(
    query: str,
    older: ScoredChunk,
    newer: Sequence[ScoredChunk],
    prose: Mapping[str, Sequence[Unit]],
    marked: set[int],
) -> list[StaleSentence]:
    """``older``'s statements of a habit a newer candidate's statement changes
    (``habit_change``; the newest). No value is compared, so none is carried on to mentions."""
    out: list[StaleSentence] = []
    if not asks_about_a_habit(query):
        return out
    for unit in prose[older.id]:
        if unit.index in marked:
            continue
        for cand in newer:
            found = next(
                (
                    c
                    for other in prose[cand.id]
                    if (c := habit_change(query, unit.text, other.text))
                ),
                None,
            )
            if found is not None:
                habit = " ".join(sorted(found.shared))
                out.append(
                    StaleSentence(
                        index=unit.index,
                        text=unit.text,
                        key=f"the question asked (a changed habit: {habit})",
                        value=found.older,
                        current_value=found.newer,
                        superseded_by=cand.id,
                        superseded_by_turn_id=cand.turn_id,
                        since=cand.chunk.ts,
                        stage=STAGE,
                    )
                )
                break
    return out


def _recorded(
    ledger: SupersessionLedger,
    frame: QuestionFrame,
    candidates: Sequence[ScoredChunk],
    as_of: datetime,
) -> list[Decided]:
    """The value changes the ledger recorded under keys the question asks about, each made by
    the candidate that states the new value (a version valid at the question's time that
    closed the one before it). The older statements of the old value are often no candidates
    (flagged at write time, or dropped by the supersession stage); what this adds is their
    mentions in other words ("Flights booked for Barcelona again" after the offsite moved to
    Lisbon), which ``_mentioned`` marks as it marks an announced change's."""
    by_namespace: dict[str, list[str]] = defaultdict(list)
    for cand in candidates:
        by_namespace[cand.chunk.namespace].append(cand.id)
    status: dict[str, list[AssertionStatus]] = {}
    for namespace, ids in by_namespace.items():
        status.update(ledger.chunk_status(namespace, ids, as_of, previous=True))
    out: list[Decided] = []
    for cand in candidates:
        for a in status.get(cand.id, []):
            now, before = a.version, a.predecessor
            if (
                now is None
                or before is None
                or before.object == now.object
                or not now.valid_at(as_of)
                or not asks_about_key(frame, now.subject, now.relation)
            ):
                continue
            change = AnswerChange.of_objects(before.object, now.object)
            out.append(Decided(change, cand, ledger_key=(now.subject, now.relation)))
    return out


def _mentioned(
    frame: QuestionFrame,
    older: ScoredChunk,
    units: Sequence[Unit],
    decided: Sequence[Decided],
    marked: set[int],
) -> list[StaleSentence]:
    """``older``'s other statements that repeat the old value of an announced change made
    after it (``mentions_old_value``), each marked with the latest such change."""
    out: list[StaleSentence] = []
    # each unit's own keys, read only where a change the ledger recorded may be mentioned
    own: dict[int, set[tuple[str, str]]] = defaultdict(set)
    if any(d.ledger_key is not None for d in decided):
        for index, fact in unit_facts(older.chunk.text):
            own[index].add((fact.subject, fact.relation))
    for unit in units:
        if unit.index in marked:
            continue
        for d in decided:
            keys = own[unit.index] if unit.path is not None else set()
            if d.ledger_key is not None and keys and d.ledger_key not in keys:
                # a file line that assigns a key of its own states that key's value: the
                # value recorded as replaced under another key (``"expect_formatting_changes":
                # true`` of the ``ptr`` block, tox's changed) is no mention of it
                continue
            if (
                d.key is not None
                and _plain(d.change.old_values)
                and not names_key(d.key, unit.text)
            ):
                # a plain word is said of many things: "INFO" of another logger is no
                # mention of ``ingest.pipeline: INFO`` ("t3.medium" names its setting)
                continue
            if not unit.keyed and not identifies_one_thing(d.change):
                # a file line whose own key names nothing (a key of a block the excerpt does
                # not show, a list item): "version: 2" under an unseen "workflows:" is no
                # mention of the top-level version's old value
                continue
            if d.newer.chunk.ts > older.chunk.ts and mentions_old_value(frame, d.change, unit.text):
                out.append(_stale(unit.index, unit.text, d.change, d.newer))
                break
    return out


def _plain(values: Sequence[str]) -> bool:
    return all(re.fullmatch(r"[A-Za-z]+", v) for v in values)


def _recurring(
    frame: QuestionFrame, newer_first: Sequence[ScoredChunk], prose: Mapping[str, Sequence[Unit]]
) -> Decided | None:
    """The newest announcement whose old answer older statements repeat (``recurring_change``)."""
    for i, cand in enumerate(newer_first):
        units = prose[cand.id]
        for j, unit in enumerate(units):
            new = announced_values(frame, unit.text, units[j - 1].text if j else "")
            if not new:
                continue
            older = [c.chunk.text for c in newer_first[i + 1 :] if c.chunk.ts < cand.chunk.ts]
            later = [c.chunk.text for c in newer_first[:i]]
            change = recurring_change(frame, new, cand.chunk.text, older, later)
            if change is not None:
                return Decided(change, cand)
    return None


def _announcing(
    frame: QuestionFrame,
    unit: Unit,
    newer: Sequence[Unit],
    accumulates: Callable[[str], bool],
) -> AnswerChange | None:
    for i, other in enumerate(newer):
        before = newer[i - 1].text if i else ""
        found = announcement(frame, unit.text, other.text, before, accumulates)
        if found is not None:
            return found
    return None


def _stale(index: int, text: str, change: AnswerChange, newer: ScoredChunk) -> StaleSentence:
    return StaleSentence(
        index=index,
        text=text,
        key="the question asked",
        value=" / ".join(change.old_values),
        current_value=" / ".join(change.new_values),
        superseded_by=newer.id,
        superseded_by_turn_id=newer.turn_id,
        since=newer.chunk.ts,
        stage=STAGE,
    )


def _decision(cand: ScoredChunk, stale: Sequence[StaleSentence], why: str) -> Decision:
    first = stale[0]
    return Decision(
        chunk=cand,
        stage=STAGE,
        reason=f"{why} ({first.value} -> {first.current_value})",
        dominated_by=first.superseded_by,
        dominated_by_turn_id=first.superseded_by_turn_id,
        details={"sentences": [s.model_dump(mode="json") for s in stale]},
    )


def build(resources: Resources) -> AnnouncedChangeFilter:
    return AnnouncedChangeFilter(resources.policies, resources.ledger)
