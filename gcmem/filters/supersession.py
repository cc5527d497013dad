"""The supersession stage: ledger writes at ingest, the pre-filter at query time.

Ingest (``IngestStage``): every chunk's assertions (explicit ``Turn.facts`` or the extractor's
triples) go into the bi-temporal ledger. With write-time GC on (``GCMEM_SUPERSESSION_GC``), a
chunk whose every assertion is now closed gets the MTM payload flag ``superseded``, so MTM
search can leave it out before top-k (``GCMEM_SUPERSESSION_EXCLUDE``). Older chunks are
re-checked whenever a newer value closes their version, and every chunk of the batch is
re-checked too (a redelivered chunk's upsert resets its flag; the check sets it again).

Query (``CandidateFilter``): a candidate is dropped when every assertion it makes is
superseded as of the query's time (its version's ``valid_to`` <= ``as_of``). Chunks with no
assertions, or none the ledger knows, pass untouched. The decision names the superseding
version, its chunk and turn, and the value valid at ``as_of``. The kept chunks are the
original chunks: the filter never rewrites text into triples.

Frame alignment (``align=True``, ``gcmem.facts.align``): at ingest, each new chunk's statement
units are aligned with those of its nearest MTM neighbours (the index's search with the
vectors ``on_ingest`` receives, plus the other chunks of the batch). Two units identical except
for one value span record both values under the key ``("frame", <frame>)`` through the same
ledger (each with its own chunk, turn and event time, so the ledger decides by event time);
identical units are recorded as restated, and a restatement of a unit that states a frame
reinforces that frame. With ``reworded=True`` (``gcmem.facts.prose_align``) a reworded
statement around the same local frame, and a revised sentence of a paragraph the newer chunk
restates, record their values the same way; with ``mentions=True`` (``gcmem.facts.mentions``)
an older statement that names a value a decided frame replaced records that value under the
frame at its own time. A newer config line that names a key with less of its block context
than an older line did (``max_client_conn = 800`` after ``[pgbouncer] max_client_conn = 300``)
states that scoped key when it is the only candidate among the neighbours (``_scope_references``).
Which keys each unit states, and which newer
chunks restated it, is kept per chunk (``UnitStore``). A chunk with such a map is decided by
its units: it is dropped only when every unit that states something is superseded (one of its
keys closed) or restated by a newer chunk, and at least one is superseded; otherwise it is
kept and its superseded units are listed on the kept candidate (``ScoredChunk.stale_sentences``).
Chunks alignment never touched keep the assertion rule above.

Resolution policies decide what "superseded" means per key (``gcmem.storage.ledger.policy``):
an evidence loser or an expired held value is closed like a latest-wins loser and dropped the
same way; accumulate values never close; a value held *pending* (confirm) is neither dropped
nor silently kept: the chunk stays and the result carries a ``Conflict`` naming it and the
incumbent that reads still return. Frame keys are ``("frame", <frame text>)``, so a policy rule
selects frames by relation pattern (``{"subject": "frame", "relation": "*speak*", "policy":
"accumulate"}``).
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from itertools import pairwise
from typing import Any

import numpy as np

from gcmem.facts.align import (
    FRAME_SUBJECT,
    FrameMatch,
    Unit,
    accumulating,
    align_units,
    placed_restatement,
    referents_apart,
    units_of,
)
from gcmem.facts.extract import (
    added_keys,
    added_lines,
    chunk_facts,
    inline_code_facts,
    owned_code_tokens,
    proposed,
    unit_facts,
)
from gcmem.facts.lines import (
    array_tables,
    fence_language,
    file_header,
    grown_list,
    is_path,
    list_members,
    named_file,
    qualifier,
    same_file,
    two_files,
)
from gcmem.facts.mentions import ValueChange, stale_mentions
from gcmem.facts.prose_align import align_chunk_units, align_turn_revisions
from gcmem.facts.wording import STOP
from gcmem.filters.base import FilterOutcome, QueryContext
from gcmem.filters.resources import Resources
from gcmem.filters.writegc import STAGE, mirror_flags, moved_chunks
from gcmem.models import Chunk, Conflict, Decision, Fact, ScoredChunk, StaleSentence
from gcmem.normalize import (
    display_key,
    fact_key,
    normalize_key,
    normalize_object,
    normalize_term,
    word_stem,
)
from gcmem.oracle.relatedness import rival_subjects, same_subject
from gcmem.storage.ledger import (
    AssertionStatus,
    FactReader,
    RecordReport,
    SupersessionLedger,
    key_id,
    to_micros,
)
from gcmem.storage.ledger.units import ChunkUnits, Restatement, UnitKey, UnitStore, UnitWrite
from gcmem.storage.mtm.index import MediumTermIndex

log = logging.getLogger(__name__)

# Older identical statements one decision reaches along restatements (bounded work per batch).
MAX_EARLIER = 256


class SupersessionStage:
    """Both sides of deterministic supersession, over one ledger."""

    name = STAGE

    def __init__(
        self,
        ledger: SupersessionLedger,
        index: MediumTermIndex | None = None,
        *,
        write_time_gc: bool = True,
        facts: FactReader | None = None,  # default: explicit facts, else the extractor
        grammar: bool = True,
        align: bool = True,
        reworded: bool = True,
        mentions: bool = True,
        neighbours: int = 8,
        units: UnitStore | None = None,
    ) -> None:
        self.ledger = ledger
        self.index = index
        self.write_time_gc = write_time_gc and index is not None
        self.facts = facts
        self.grammar = grammar
        self.align = align
        # exact one-span frames only, or also local frames and paragraph revisions
        self.reworded = reworded
        self.aligner = align_chunk_units if reworded else align_units
        self.mentions = mentions
        self.neighbours = neighbours
        self.units = units or UnitStore(ledger.client, ledger.keys)

    # --- ingest ----------------------------------------------------------------------------
    def on_ingest(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        self.record(chunks, vectors)

    def record(self, chunks: Sequence[Chunk], vectors: np.ndarray | None = None) -> RecordReport:
        """Ledger writes (grammar, and frame alignment when ``vectors`` are given) and
        write-time GC for a batch; the report says what each write did. Alignment reads unit
        maps and texts, never the ledger, so its frames are found first and both kinds of
        assertion go to the ledger in one write (one script call per namespace)."""
        recheck: dict[str, set[str]] = defaultdict(set)
        framed: dict[str, tuple[Chunk, list[Fact]]] = {}
        added: dict[str, set[tuple[str, str]]] = {}
        if self.align and vectors is not None and len(chunks):
            framed, touched, added = self.align_batch(chunks, vectors)
            for namespace, ids in touched.items():
                recheck[namespace] |= ids
        grammar = self.facts or chunk_facts
        batch = {c.id for c in chunks}

        def assertions(chunk: Chunk) -> list[Fact]:
            own = list(grammar(chunk)) if self.grammar and chunk.id in batch else []
            if chunk.id in added:
                own = [
                    f for f in own if normalize_key(f.subject, f.relation) not in added[chunk.id]
                ]
            return (own + framed[chunk.id][1]) if chunk.id in framed else own

        # batch chunks in ingest order (the tie-break for equal event times), then the older
        # neighbours whose frame values are recorded at their own times
        stating = [*chunks, *(c for cid, (c, _) in framed.items() if cid not in batch)]
        report = self.ledger.record(stating, assertions)
        if self.write_time_gc:
            # a new chunk this batch wrote no assertion for keeps the state it had: nothing
            # of it can be closed but through a write, which lands in closed_chunks
            written = {r.chunk_id for r in report.results}
            for chunk in chunks:
                if chunk.id in written:
                    recheck[chunk.namespace].add(chunk.id)
            for namespace, closed in report.closed_chunks.items():
                recheck[namespace] |= closed
            # an out-of-order write can give an already closed version a new successor,
            # which the flag records of its key's chunks name: those are refreshed
            moved = moved_chunks(self.ledger, report)
            for namespace, ids in moved.items():
                recheck[namespace] |= ids
            for namespace, ids in recheck.items():
                self.mirror_flags(namespace, sorted(ids), refresh=moved.get(namespace, set()))
        return report

    def align_batch(
        self, chunks: Sequence[Chunk], vectors: np.ndarray
    ) -> tuple[
        dict[str, tuple[Chunk, list[Fact]]], dict[str, set[str]], dict[str, set[tuple[str, str]]]
    ]:
        """Frame alignment of a batch against its neighbours: the unit maps of every chunk
        involved (written here), per chunk the frame assertions to record (both sides), and
        per batch chunk the grammar keys a neighbour adds a value to (``_added_keys``: not
        recorded)."""
        framed: dict[str, tuple[Chunk, list[Fact]]] = {}
        touched: dict[str, set[str]] = defaultdict(set)
        added: dict[str, set[tuple[str, str]]] = {}
        rows: dict[str, list[int]] = defaultdict(list)
        for i, chunk in enumerate(chunks):
            if not chunk.explicit_facts:
                rows[chunk.namespace].append(i)
        for namespace, idx in rows.items():
            batch = [chunks[i] for i in idx]
            part, writes, withheld = self._align_namespace(namespace, batch, vectors[idx])
            writes += self._grammar_maps(batch, {w.chunk_id for w in writes}, withheld)
            self.units.write(namespace, writes)  # one pipeline per namespace and batch
            framed.update(part)
            added.update(withheld)
            touched[namespace] |= {w.chunk_id for w in writes}
        return framed, touched, added

    def _grammar_maps(
        self,
        chunks: Sequence[Chunk],
        written: Collection[str],
        withheld: Mapping[str, set[tuple[str, str]]],
    ) -> list[UnitWrite]:
        """Unit maps for the batch's chunks of several statements that the grammar keys and
        alignment did not map: such a chunk is then decided by its units like an aligned one
        (a superseded statement does not take a still-true one beside it along)."""
        if not self.grammar or self.facts is not None:
            return []
        writes = []
        for chunk in chunks:
            if chunk.id in written:
                continue
            units = units_of(chunk.text)
            stating = [u.index for u in units if u.content]
            if len(stating) < 2:
                continue
            keys = _grammar_keys(chunk.text, len(units), withheld.get(chunk.id, set()))
            if keys:
                skip = [u.index for u in units if not u.content]
                writes.append(UnitWrite(chunk.id, len(units), skip=skip, keys=list(keys)))
        return writes

    def _pairs(
        self, namespace: str, chunks: Sequence[Chunk], vectors: np.ndarray
    ) -> list[tuple[Chunk, Chunk]]:
        """(older, newer) pairs: each chunk with its nearest index neighbours and batch mates;
        equal event times and chunks of one turn are never paired."""
        found: dict[frozenset[str], tuple[Chunk, Chunk]] = {}

        def add(a: Chunk, b: Chunk) -> None:
            if a.id == b.id or a.turn_id == b.turn_id or a.ts == b.ts:
                return
            if b.explicit_facts:
                return
            older, newer = (a, b) if a.ts < b.ts else (b, a)
            found.setdefault(frozenset((a.id, b.id)), (older, newer))

        m = self.neighbours
        if self.index is not None:
            results = self.index.search(namespace, vectors, m + len(chunks) + 1)
            for chunk, hits in zip(chunks, results, strict=True):
                taken = 0
                for hit in hits:
                    if taken == m:
                        break
                    if hit.chunk.turn_id == chunk.turn_id:
                        continue
                    taken += 1
                    add(chunk, hit.chunk)
        if len(chunks) > 1:
            sims = vectors @ vectors.T
            for i, chunk in enumerate(chunks):
                for j in np.argsort(-sims[i])[: m + 1]:
                    add(chunk, chunks[int(j)])
        return list(found.values())

    def _align_namespace(
        self, namespace: str, chunks: Sequence[Chunk], vectors: np.ndarray
    ) -> tuple[
        dict[str, tuple[Chunk, list[Fact]]], list[UnitWrite], dict[str, set[tuple[str, str]]]
    ]:
        """Frame assertions per chunk, the unit maps to write (the caller writes them with
        the batch's other maps) and the grammar keys withheld per chunk (``_added_keys``)."""
        pairs = self._pairs(namespace, chunks, vectors)
        if not pairs:
            return {}, [], {}
        units: dict[str, list[Unit]] = {}
        involved: dict[str, Chunk] = {}
        for older, newer in pairs:
            for c in (older, newer):
                if c.id not in units:
                    units[c.id] = units_of(c.text)
                    involved[c.id] = c
        withheld = _added_keys(pairs, units)
        neighbours_of: dict[str, list[str]] = defaultdict(list)  # newer -> its older neighbours
        for older, newer in pairs:
            neighbours_of[newer.id].append(older.id)
        known = self.units.read(namespace, [older.id for older, _ in pairs])
        facts: dict[str, dict[tuple[str, str], str]] = defaultdict(dict)
        keys: dict[str, set[tuple[int, UnitKey]]] = defaultdict(set)
        restated: dict[str, list[tuple[int, Restatement]]] = defaultdict(list)
        # frames each (chunk, unit) states, from the map and from this batch (reinforcement)
        stated: dict[tuple[str, int], dict[str, UnitKey]] = defaultdict(dict)
        for cid, cu in known.items():
            for unit, by_kid in cu.keys.items():
                for kid, key in by_kid.items():
                    if key.subject == FRAME_SUBJECT:
                        stated[(cid, unit)][kid] = key

        def state(
            chunk: Chunk, unit: int, relation: str, value: str, subject: str = FRAME_SUBJECT
        ) -> None:
            s, r = normalize_key(subject, relation)
            obj = normalize_object(value)
            if not r or not obj:
                return
            key = UnitKey(key_id(s, r), s, r, obj)
            facts[chunk.id].setdefault((s, r), obj)
            keys[chunk.id].add((unit, key))
            stated[(chunk.id, unit)][key.key_id] = key

        # the extractor's keys per chunk, and per unit their ids
        found: dict[str, tuple[tuple[int, UnitKey], ...]] = {}
        grammar: dict[str, dict[int, set[str]]] = {}
        if self.grammar and self.facts is None:
            for cid, us in units.items():
                found[cid] = _grammar_keys(involved[cid].text, len(us), withheld.get(cid, set()))
                per_unit: dict[int, set[str]] = defaultdict(set)
                for unit, key in found[cid]:
                    per_unit[unit].add(key.key_id)
                grammar[cid] = per_unit
            for (newer, unit, key), olders in _scope_references(pairs, found, units):
                for older, ounit, okey in olders:  # both sides, as a frame's are
                    state(older, ounit, okey.relation, okey.object, okey.subject)
                state(newer, unit, olders[0][2].relation, key.object, key.subject)
        alignments = [(o, n, self.aligner(units[o.id], units[n.id])) for o, n in pairs]
        for older, newer, al in alignments:
            # a proposed file's lines change no value, nor do lines said to be added (when
            # they are all it quotes: a block restated around them may change a line too);
            # nor do another thing's lines (a rename changes the name line alone, one frame,
            # and keeps a line of its body)
            body = [n for _, n in al.restated if fence_language(units[newer.id][n].text) is None]
            renamed = len(al.frames) == 1 and bool(body)
            only_added = added_lines(newer.text) and not any(n > 0 for n in body)
            if (
                proposed(newer.text)
                or only_added
                or (not renamed and _other_identity(older.text, newer.text))
            ):
                al.frames = [f for f in al.frames if not units[newer.id][f.new_unit].line]
            # a frame another neighbour adds a value to ("... too") has several values
            if al.frames:
                others = [u for o in neighbours_of[newer.id] if o != older.id for u in units[o]]
                al.frames = [
                    f
                    for f in al.frames
                    if units[newer.id][f.new_unit].line
                    or not accumulating(f.frame, units[newer.id][f.new_unit], others)
                ]
        if self.reworded:
            align_turn_revisions(alignments, units)
        superseded: set[tuple[str, int]] = set()  # (chunk, unit) of frames' old values
        mentioned: dict[str, set[int]] = defaultdict(set)  # units keyed as stale mentions
        keyed_by_grammar: dict[str, list[tuple[Chunk, Chunk, FrameMatch]]] = defaultdict(list)
        grammar_framed: set[str] = set()  # chunks of frames the grammar keys
        for older, newer, al in alignments:
            for f in al.frames:
                shared = grammar.get(older.id, {}).get(f.old_unit, set()) & grammar.get(
                    newer.id, {}
                ).get(f.new_unit, set())
                # a key the grammar gives one value in both ("home games ... is at Millfield
                # Leisure Centre" around "court 2" / "court 4") decides nothing here
                if shared and _grammar_changes(found, older.id, f.old_unit, newer.id, f.new_unit):
                    # the grammar keys this pair already: one decision, one key (unless
                    # mentions of its old value need the frame to be closed under); both
                    # chunks get unit maps, so the older one is decided by its units (a
                    # sentence that also states a value the newer one repeats still goes)
                    keyed_by_grammar[f.frame].append((older, newer, f))
                    grammar_framed.update((older.id, newer.id))
                    continue
                state(older, f.old_unit, f.frame, f.old_value)
                state(newer, f.new_unit, f.frame, f.new_value)
                superseded.add((older.id, f.old_unit))
        if self.mentions:
            values = {
                cid: [(u, k.subject, k.relation, k.object) for u, k in keys_]
                for cid, keys_ in found.items()
            }
            changes = ValueChange.from_frames(alignments, units) + ValueChange.from_keys(
                pairs, values, units
            )
            settled = {(o.id, u) for o, _, al in alignments for u, _ in al.restated}
            settled |= {(n.id, u) for _, n, al in alignments for _, u in al.restated}
            # a unit the grammar keys is the grammar's to decide, unless all it keys is code
            # written into the sentence ("... starts FROM python:3.9-slim" still mentions 3.9)
            settled |= {
                (cid, u)
                for cid, per_unit in grammar.items()
                for u in per_unit
                if not _inline_only(units[cid][u], found[cid])
            }
            for m in stale_mentions(changes, units, involved, _same_thing, settled):
                subject, relation = m.key
                state(m.chunk, m.unit, relation, m.value, subject)
                mentioned[m.chunk.id].add(m.unit)
                for older, newer, f in keyed_by_grammar.pop(relation, []):
                    state(older, f.old_unit, f.frame, f.old_value)
                    state(newer, f.new_unit, f.frame, f.new_value)
                    superseded.add((older.id, f.old_unit))
        # (newer chunk, unit) -> the older (chunk, unit) it restates: stored and this batch's
        back: dict[tuple[str, int], set[tuple[str, int]]] = defaultdict(set)
        for cid, cu in known.items():
            for n, olds in cu.restates.items():
                back[(cid, n)] |= olds
        # an identical statement opened by a pronoun after two different subjects ("It is a
        # Grade II listed building." in two churches' articles) restates nothing; the values
        # the pair's frames change may differ there (a revision's changed name)
        # (each with whether it is the same line of a file, not a twin elsewhere in it: only
        # then does a value closed on one close on the other, ``placed_restatement``)
        alike: list[tuple[Chunk, Chunk, int, int, bool]] = []
        for older, newer, al in alignments:
            changed = (
                " ".join(f.old_value for f in al.frames),
                " ".join(f.new_value for f in al.frames),
            )
            ou, nu = units[older.id], units[newer.id]
            alike += [
                (older, newer, o, n, placed_restatement(ou, o, nu, n, al))
                for o, n in al.restated
                if not referents_apart(ou, ou[o], nu, nu[n], changed)
            ]
        for older, newer, o, n, placed in alike:
            if placed:
                back[(newer.id, n)].add((older.id, o))
        # an old value a frame closes is closed in every older identical statement too: the
        # restatement stated the value the older line states (the older line's own excerpt
        # may not align with the newer one: other lines of its window changed in between)
        read = set(known)  # chunks whose stored restatements are in ``back``
        for origin, (cid, unit) in self._restated_earlier(
            namespace, superseded, back, involved, units, read
        ):
            for key in list(stated.get(origin, {}).values()):
                state(involved[cid], unit, key.relation, key.object, key.subject)
        # ... and in every later restatement of it older than the change: "If you're dropping
        # off compost, the plot we rent is number 17" said after "The plot we rent is number
        # 17" states 17 as well (the ledger orders the values by time)
        for origin, (cid, unit) in self._restated_later(
            namespace, superseded, back, known, involved, units, read
        ):
            for key in list(stated.get(origin, {}).values()):
                state(involved[cid], unit, key.relation, key.object, key.subject)
        restates: dict[str, list[tuple[int, str, int]]] = defaultdict(list)
        for older, newer, o, n, placed in alike:
            restated[older.id].append(
                (o, Restatement(newer.id, newer.turn_id, to_micros(newer.ts)))
            )
            if not placed:
                continue
            restates[newer.id].append((n, older.id, o))
            for key in list(stated.get((older.id, o), {}).values()):
                state(newer, n, key.relation, key.object, key.subject)
        write_ids = set(keys) | set(restated) | set(restates) | grammar_framed
        writes = []
        for cid in sorted(write_ids):
            cu_units = units[cid]
            grammar_keys = (
                list(
                    found[cid]
                    if cid in found
                    else _grammar_keys(involved[cid].text, len(cu_units), withheld.get(cid, set()))
                )
                if self.grammar and self.facts is None
                else []
            )
            writes.append(
                UnitWrite(
                    chunk_id=cid,
                    units=len(cu_units),
                    skip=[u.index for u in cu_units if not u.content],
                    keys=sorted(keys.get(cid, set()), key=lambda x: (x[0], x[1].key_id))
                    + grammar_keys,
                    restated=restated.get(cid, []),
                    restates=restates.get(cid, []),
                    mentions=sorted(mentioned.get(cid, ())),
                )
            )
        framed = {
            cid: (involved[cid], [Fact(subject=s, relation=r, object=o) for (s, r), o in f.items()])
            for cid, f in facts.items()
        }
        return framed, writes, withheld

    def _restated_later(
        self,
        namespace: str,
        origins: Collection[tuple[str, int]],
        back: dict[tuple[str, int], set[tuple[str, int]]],
        known: dict[str, ChunkUnits],
        involved: dict[str, Chunk],
        units: dict[str, list[Unit]],
        read: set[str],
    ) -> list[tuple[tuple[str, int], tuple[str, int]]]:
        """(origin, later) pairs of (chunk, unit): the units that restate an origin unit
        directly (``back``, completed with the stored maps of the chunks the origin's own map
        names as its restaters, ``r:`` fields, where not read yet)."""
        later = {
            r.chunk_id
            for cid, unit in origins
            if cid in known
            for r in known[cid].restated.get(unit, ())
        }
        self._read_restatements(namespace, sorted(later - read), back, read)
        out = sorted(
            (origin, node) for node, olds in back.items() for origin in olds if origin in origins
        )
        self._involve(namespace, [cid for _, (cid, _) in out], involved, units)
        return [
            (origin, (cid, unit))
            for origin, (cid, unit) in out
            if cid in involved and unit < len(units[cid])
        ]

    def _read_restatements(
        self,
        namespace: str,
        chunk_ids: Sequence[str],
        back: dict[tuple[str, int], set[tuple[str, int]]],
        read: set[str],
    ) -> None:
        """Add the stored restatements of those chunks to ``back`` (each chunk read once)."""
        if chunk_ids:
            read.update(chunk_ids)
            for cid, cu in self.units.read(namespace, chunk_ids).items():
                for n, olds in cu.restates.items():
                    back[(cid, n)] |= olds

    def _involve(
        self,
        namespace: str,
        chunk_ids: Collection[str],
        involved: dict[str, Chunk],
        units: dict[str, list[Unit]],
    ) -> None:
        """Fetch the chunks outside the batch from the index (left out without one) and split
        their units."""
        missing = sorted(set(chunk_ids) - involved.keys())
        if missing and self.index is not None:
            for cid, hit in self.index.fetch(namespace, missing).items():
                involved[cid] = hit.chunk
        for cid in chunk_ids:
            if cid in involved and cid not in units:
                units[cid] = units_of(involved[cid].text)

    def _restated_earlier(
        self,
        namespace: str,
        origins: Collection[tuple[str, int]],
        back: dict[tuple[str, int], set[tuple[str, int]]],
        involved: dict[str, Chunk],
        units: dict[str, list[Unit]],
        read: set[str],
    ) -> list[tuple[tuple[str, int], tuple[str, int]]]:
        """(origin, earlier) pairs of (chunk, unit): every older unit that an origin unit
        restates, directly or along a chain of restatements (``back``, completed from the
        stored unit maps as the walk goes), with the same compared form (file, block context
        and line) and an earlier event time. Chunks outside the batch are fetched from the
        index (and left out without one); at most ``MAX_EARLIER`` units are reached."""
        out: list[tuple[tuple[str, int], tuple[str, int]]] = []
        seen = set(origins)
        frontier = {node: node for node in sorted(origins)}  # node -> the origin it restates
        while frontier and len(out) < MAX_EARLIER:
            self._read_restatements(
                namespace, sorted({cid for cid, _ in frontier} - read), back, read
            )
            step: dict[tuple[str, int], tuple[str, int]] = {}
            for node, origin in frontier.items():
                for earlier in sorted(back.get(node, ())):
                    if earlier not in seen and len(out) < MAX_EARLIER:
                        seen.add(earlier)
                        step[earlier] = origin
                        out.append((origin, earlier))
            frontier = step
        self._involve(namespace, [cid for _, (cid, _) in out], involved, units)
        found = []
        for origin, (cid, unit) in out:
            chunk = involved.get(cid)
            if chunk is None or chunk.ts >= involved[origin[0]].ts:
                continue
            mine, theirs = units[cid], units[origin[0]]
            same = unit < len(mine) and origin[1] < len(theirs)
            if same and mine[unit].key == theirs[origin[1]].key:
                found.append((origin, (cid, unit)))
        return found

    def flaggable(self, namespace: str, chunk_ids: Sequence[str]) -> list[str]:
        """Those chunks the query rule would drop at any time (all assertions closed for good;
        or, for chunks with a unit map, every unit superseded or restated)."""
        if not chunk_ids:
            return []
        status = self.ledger.chunk_status(namespace, chunk_ids, detail=False)
        # a closed list value may be one the present value still lists every member of: its
        # chunks are read again with the valid version (rare: only list values)
        lists = [
            cid
            for cid, assertions in status.items()
            if any(
                _closed_for_good(a) and list_members(a.version.object) is not None
                for a in assertions
                if a.version is not None
            )
        ]
        if lists:
            status.update(self.ledger.chunk_status(namespace, lists))
        maps = self.units.read(namespace, chunk_ids) if self.align else {}
        flagged = []
        for cid, assertions in status.items():
            cu = maps.get(cid)
            if cu is not None:
                if unit_verdict(cu, assertions, _flaggable).drop:
                    flagged.append(cid)
            elif assertions and all(_flaggable(a) for a in assertions):
                flagged.append(cid)
        return flagged

    def mirror_flags(
        self,
        namespace: str,
        chunk_ids: Sequence[str],
        refresh: Collection[str] | None = None,
    ) -> list[str]:
        """Set the MTM ``superseded`` flag, with its record (``gcmem.filters.writegc``), on the
        ``flaggable`` chunks; returns their ids. Flags only ever go up: a closed version never
        reopens."""
        if self.index is None or not chunk_ids:
            return []
        return mirror_flags(
            self.ledger, self.index, namespace, chunk_ids, decide=self.flaggable, refresh=refresh
        )

    def explain(self, chunk: Chunk) -> Decision | None:
        """The decision a query about the present would drop ``chunk`` with (the same rule and
        record as ``apply``), or ``None`` if it would keep it."""
        cand = ScoredChunk(chunk=chunk, score=0.0, sources=("mtm",))
        query = QueryContext(query="", namespace=chunk.namespace, as_of=datetime.now(UTC))
        dropped = self.apply([cand], query).dropped
        return dropped[0] if dropped else None

    # --- query -----------------------------------------------------------------------------
    def apply(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> FilterOutcome:
        if not candidates:
            return FilterOutcome([], [])
        by_namespace: dict[str, list[str]] = defaultdict(list)
        for cand in candidates:
            by_namespace[cand.chunk.namespace].append(cand.id)
        status: dict[str, list[AssertionStatus]] = {}
        maps: dict[str, ChunkUnits] = {}
        for namespace, ids in by_namespace.items():
            status.update(self.ledger.chunk_status(namespace, ids, query.as_of))
            if self.align:
                maps.update(self.units.read(namespace, ids))
        now = datetime.now(UTC)

        texts = {c.id: c.chunk.text for c in candidates}
        kept: list[ScoredChunk] = []
        dropped: list[Decision] = []
        held: list[tuple[ScoredChunk, AssertionStatus]] = []
        for cand in candidates:

            def lost(a: AssertionStatus, text: str = cand.chunk.text) -> bool:
                # a key two files' lines share ("LOG_LEVEL=info" in services/api/.env, then
                # in services/worker/.env) is two keys: the other file's line replaces none
                successor = a.successor.chunk_id if a.successor else None
                if successor in texts and two_files(text, texts[successor]):
                    return False
                return _lost(a, query.as_of, now)

            assertions = [a for a in status.get(cand.id, []) if a.version is not None]
            cu = maps.get(cand.id)
            if cu is None:
                if assertions and all(lost(a) for a in assertions):
                    dropped.append(_decision(cand, assertions))
                    continue
                kept.append(cand)
            else:
                verdict = unit_verdict(cu, assertions, lost, query.as_of)
                if verdict.drop:
                    dropped.append(_decision(cand, verdict.superseded(), verdict.describe(cand)))
                    continue
                if verdict.stale:
                    cand = cand.model_copy(update={"stale_sentences": verdict.notes(cand)})
                kept.append(cand)
            held += [(cand, a) for a in assertions if _held(a, now)]
        return FilterOutcome(kept, dropped, _conflicts(held, kept, status))


def _closed_for_good(a: AssertionStatus) -> bool:
    """Closed at all, and not a claim that may take over again (write-time flags only go up)."""
    return a.superseded_at(None) and not _may_return(a)


def _flaggable(a: AssertionStatus) -> bool:
    return _closed_for_good(a) and not _grown(a)


def _may_return(a: AssertionStatus) -> bool:
    """An evidence claim that is outweighed today takes over once its support is larger: its
    chunks are dropped at query time while it trails, but never flagged (flags only go up)."""
    return a.version is not None and a.version.status == "outweighed"


def _held(a: AssertionStatus, now: datetime) -> bool:
    return a.version is not None and a.version.pending_at(now)


def _lost(a: AssertionStatus, as_of: datetime, now: datetime) -> bool:
    """Superseded as of the query (unless its value is the one valid then), or a held value
    past its deadline (the ledger retires it on the key's next call; reads do not wait)."""
    version = a.version
    if version is not None and version.pending and not version.pending_at(now):
        return True
    if not a.superseded_at(as_of):
        return False
    # A value that holds again at the asked time (a, then b, then a: a revert) is not stale:
    # the chunk states what the key says now; nor is a list the value then still holds every
    # member of (``_grown``).
    assert version is not None
    return a.valid is None or (a.valid.object != version.object and not _grown(a))


def _grown(a: AssertionStatus) -> bool:
    """A list value whose every member the valid value still lists (a CI matrix, a scrape
    target list grown by one): the older line states nothing untrue, so it is not dropped. A
    member removed later makes it stale again (reads compare with the value valid then)."""
    return (
        a.version is not None
        and a.valid is not None
        and grown_list(a.version.object, a.valid.object)
    )


def _conflicts(
    held: Sequence[tuple[ScoredChunk, AssertionStatus]],
    kept: Sequence[ScoredChunk],
    status: dict[str, list[AssertionStatus]],
) -> list[Conflict]:
    """One conflict per held assertion whose incumbent a kept candidate states: older = that
    candidate (the value reads return), newer = the chunk whose value is held."""
    by_fact: dict[str, ScoredChunk] = {}
    for cand in kept:
        for a in status.get(cand.id, []):
            if a.version is not None and a.version.open:
                by_fact.setdefault(a.version.fact_id, cand)
    out = []
    for cand, a in held:
        version, incumbent = a.version, a.successor
        assert version is not None
        older = by_fact.get(incumbent.fact_id) if incumbent is not None else None
        if older is None or incumbent is None:
            continue  # the incumbent was not retrieved: nothing to set the held value against
        key = display_key(fact_key(version.subject, version.relation))
        until = version.pending_until.isoformat() if version.pending_until else "no deadline"
        sources = ", ".join(x for x in version.sources if x) or "unknown sources"
        out.append(
            Conflict(
                older=older,
                newer=cand,
                stage=STAGE,
                reason=f"policy confirm: {key} = {version.object!r} (from {sources}) is held "
                f"pending confirmation; the ledger's value is still {incumbent.object!r} "
                f"(held until {until})",
                score=None,
            )
        )
    return out


def _describe(a: AssertionStatus) -> dict[str, Any]:
    version = a.version
    assert version is not None
    out: dict[str, Any] = {
        "key": display_key(fact_key(version.subject, version.relation)),
        "subject": version.subject,
        "relation": version.relation,
        "object": version.object,
        "fact_id": version.fact_id,
        "valid_from": version.valid_from.isoformat(),
        "valid_to": version.valid_to.isoformat() if version.valid_to else None,
        # None for a version that lost to a newer one; else how the policy ruled the value out
        "status": version.status,
    }
    for name, row in (("superseded_by", a.successor), ("valid_at_query", a.valid)):
        if row is not None:
            out[name] = {
                "fact_id": row.fact_id,
                "object": row.object,
                "chunk_id": row.chunk_id,
                "turn_id": row.turn_id,
                "valid_from": row.valid_from.isoformat(),
            }
    return out


def _decision(
    cand: ScoredChunk,
    assertions: Sequence[AssertionStatus],
    sentences: list[dict[str, Any]] | None = None,
) -> Decision:
    details = [_describe(a) for a in assertions]
    first = assertions[0]
    version, successor = first.version, first.successor
    assert version is not None
    parts = []
    for d in details:
        new = d.get("superseded_by", {})
        parts.append(f"{d['key']} = {d['object']!r} superseded by {new.get('object')!r}")
    when = version.valid_to.date().isoformat() if version.valid_to else "?"
    reason = "; ".join(parts) + f" (from {when}, turn {successor.turn_id if successor else '?'})"
    return Decision(
        chunk=cand,
        stage=STAGE,
        reason=reason,
        dominated_by=successor.chunk_id if successor else None,
        dominated_by_turn_id=successor.turn_id if successor else None,
        score=None,
        details={"assertions": details}
        if sentences is None
        else {"assertions": details, "sentences": sentences},
    )


@dataclass
class UnitVerdict:
    """A chunk with a unit map, decided by its units at one time."""

    units: ChunkUnits
    stale: dict[int, list[AssertionStatus]]  # unit -> its superseded keys' assertions
    restated: dict[int, Restatement]  # unit -> the first newer chunk restating it
    drop: bool

    def superseded(self) -> list[AssertionStatus]:
        seen: dict[str, AssertionStatus] = {}
        for unit in sorted(self.stale):
            for a in self.stale[unit]:
                seen.setdefault(a.assertion_id + a.key_id, a)
        return list(seen.values())

    def describe(self, cand: ScoredChunk) -> list[dict[str, Any]]:
        texts = units_of(cand.chunk.text)
        out: list[dict[str, Any]] = []
        for i in self.units.content_units():
            text = texts[i].text if i < len(texts) else ""
            if i in self.stale:
                first = self.stale[i][0]
                out.append(
                    {"index": i, "text": text, "status": "superseded", "key": _key_of(first)}
                )
            elif i in self.restated:
                r = self.restated[i]
                out.append(
                    {
                        "index": i,
                        "text": text,
                        "status": "restated",
                        "by_chunk": r.chunk_id,
                        "by_turn": r.turn_id,
                    }
                )
            else:
                out.append({"index": i, "text": text, "status": "standing"})
        return out

    def notes(self, cand: ScoredChunk) -> tuple[StaleSentence, ...]:
        texts = units_of(cand.chunk.text)
        out: list[StaleSentence] = []
        for i in sorted(self.stale):
            a = self.stale[i][0]
            version, successor = a.version, a.successor
            assert version is not None
            out.append(
                StaleSentence(
                    index=i,
                    text=texts[i].text if i < len(texts) else "",
                    key=_key_of(a),
                    value=version.object,
                    current_value=a.valid.object
                    if a.valid
                    else (successor.object if successor else None),
                    superseded_by=successor.chunk_id if successor else None,
                    superseded_by_turn_id=successor.turn_id if successor else None,
                    since=version.valid_to,
                    evidence="mention" if i in self.units.mentions else "statement",
                )
            )
        return tuple(out)


def _key_of(a: AssertionStatus) -> str:
    v = a.version
    return display_key(fact_key(v.subject, v.relation)) if v is not None else a.key_id


def unit_verdict(
    units: ChunkUnits,
    assertions: Sequence[AssertionStatus],
    lost: Callable[[AssertionStatus], bool],
    as_of: datetime | None = None,
) -> UnitVerdict:
    """Stale units (a key they state ``lost``), restated units (a newer chunk, at or before
    ``as_of``, None: ever, states them identically), and whether the chunk goes: every
    stating unit covered, at least one stale."""
    by_kid: dict[str, list[AssertionStatus]] = defaultdict(list)
    for a in assertions:
        by_kid[a.key_id].append(a)
    limit = None if as_of is None else to_micros(as_of)
    stale: dict[int, list[AssertionStatus]] = {}
    restated: dict[int, Restatement] = {}
    content = units.content_units()
    for i in content:
        hit = [a for kid in units.keys.get(i, {}) for a in by_kid.get(kid, []) if lost(a)]
        if hit:
            stale[i] = hit
            continue
        by = [r for r in units.restated.get(i, []) if limit is None or r.at_us <= limit]
        if by:
            restated[i] = min(by, key=lambda r: (r.at_us, r.chunk_id))
    drop = bool(stale) and all(i in stale or i in restated for i in content)
    return UnitVerdict(units, stale, restated, drop)


def build(resources: Resources) -> SupersessionStage:
    s = resources.settings
    return SupersessionStage(
        resources.ledger,
        resources.index,
        write_time_gc=s.supersession.gc,
        grammar=s.supersession.grammar,
        align=s.supersession.align,
        reworded=s.supersession.align_reworded,
        mentions=s.supersession.align_mentions,
        neighbours=s.supersession.align_neighbours,
    )


def _grammar_keys(
    text: str, units: int, withheld: Collection[tuple[str, str]] = ()
) -> tuple[tuple[int, UnitKey], ...]:
    """The extractor's keys per unit (the same keys, file and block scope included, that the
    ledger records for the chunk, none ``withheld``), so a grammar supersession counts for its
    unit."""
    out: list[tuple[int, UnitKey]] = []
    for unit, fact in unit_facts(text):
        key = _unit_key(fact)
        if key is not None and unit < units and (key.subject, key.relation) not in withheld:
            out.append((unit, key))
    return tuple(out)


def _added_keys(
    pairs: Sequence[tuple[Chunk, Chunk]], units: Mapping[str, Sequence[Unit]]
) -> dict[str, set[tuple[str, str]]]:
    """Per newer chunk, the keys an older neighbour adds a value to with "too", "also" or "as
    well" ("The under-12s are coached by Sian Griffiths too" between "... coached by Dave
    Ormerod" and "... coached by Kwame Boateng"): the key holds several values, so the newer
    chunk's value of it replaces none and is not recorded."""
    out: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for older, newer in pairs:
        for u in units[older.id]:
            if u.content and not u.line:
                out[newer.id] |= added_keys(u.text)
    return {cid: keys for cid, keys in out.items() if keys}


def _unit_key(fact: Fact) -> UnitKey | None:
    """The ledger key a fact states, as a unit map records it (None for an empty key)."""
    s, r = normalize_key(fact.subject, fact.relation)
    return UnitKey(key_id(s, r), s, r, fact.object) if s and r else None


def _inline_keys(unit: Unit) -> frozenset[tuple[str, str]]:
    """The keys of the code tokens written into a prose unit (none for a line)."""
    return frozenset() if unit.line else _code_token_keys(unit.text)


# A neighbour's units are read again for every newer chunk aligned with it, as its facts are.
@lru_cache(maxsize=8192)
def _code_token_keys(text: str) -> frozenset[tuple[str, str]]:
    return frozenset(normalize_key(f.subject, f.relation) for f in inline_code_facts(text))


def _inline_only(unit: Unit, keys: Sequence[tuple[int, UnitKey]]) -> bool:
    """Whether every key the grammar gives ``unit`` comes from a code token in its sentence."""
    own = {(k.subject, k.relation) for u, k in keys if u == unit.index}
    return bool(own) and own <= _inline_keys(unit)


def _scope_of(unit: Unit, relation: str) -> tuple[str, tuple[str, ...]] | None:
    """(base relation, block context) of a line's key (``is in pgbouncer`` under
    ``[pgbouncer]``: ``is``, ``("pgbouncer",)``); a prose unit's key has no context. None when
    the relation does not end with the unit's own context (a prose qualifier)."""
    if not unit.context:
        return relation, ()
    tail = " in " + normalize_term(qualifier(unit.context))
    return (relation[: -len(tail)], unit.context) if relation.endswith(tail) else None


def _scope_references(
    pairs: Sequence[tuple[Chunk, Chunk]],
    found: dict[str, tuple[tuple[int, UnitKey], ...]],
    units: dict[str, list[Unit]],
) -> list[tuple[tuple[Chunk, int, UnitKey], list[tuple[Chunk, int, UnitKey]]]]:
    """A newer config line that names a key with less of its block context than an older
    line did states that older, scoped key: ``max_client_conn = 800`` after ``[pgbouncer]
    max_client_conn = 300``, ``[jwt] expiry = "15m"`` after ``auth.toml > [jwt] expiry``,
    ``set LOG_LEVEL=warn`` after ``worker > environment > LOG_LEVEL=debug``. Only when
    exactly one such scoped key (same name and base relation, a context ending with the newer
    line's) is among the older neighbours' lines, and the newer chunk names the key in no
    other scope: two candidates (a web and a db ``image``, a staging and a production
    section) are parallel keys, and nothing is recorded. The newer side is a code line or a
    code token of a sentence (``inline_code_facts``), never a prose statement; a token after
    words that name its owner, or a ``key: value`` token (``owned_code_tokens``), only
    against an older excerpt that names every one of those words ("checkout deployment set
    to replicas: 6" after a Deployment excerpt named checkout), with its context or none.
    Returns ((newer chunk, unit, its key), the older (chunk, unit, scoped key) lines it
    states)."""
    olders: dict[str, list[Chunk]] = defaultdict(list)
    newers: dict[str, Chunk] = {}
    # each newer chunk's sentences: whose lines it says they are, which file it names
    newer_prose = {
        newer.id: " ".join(u.text for u in units[newer.id] if not u.line) for _, newer in pairs
    }
    for older, newer in pairs:
        if _ANOTHER_OWNER.search(newer_prose[newer.id]) or _other_identity(older.text, newer.text):
            continue
        olders[newer.id].append(older)
        newers[newer.id] = newer
    out = []
    for nid, newer in newers.items():
        keys = found.get(nid, ())
        owned = _owned_keys(units[nid])
        for unit, key, owner in [(u, k, None) for u, k in keys] + owned:
            nu = units[nid][unit]
            mine = _scope_of(nu, key.relation)
            if mine is None:
                continue
            token = owner is not None or (key.subject, key.relation) in _inline_keys(nu)
            if not nu.line and not token:
                continue
            base, scope = mine
            scoped: list[tuple[Chunk, int, UnitKey]] = []
            for older in olders[nid]:
                if owner is not None and not owner <= _text_words(older.text):
                    continue
                for ounit, okey in found.get(older.id, ()):
                    ou = units[older.id][ounit]
                    theirs = _scope_of(ou, okey.relation) if ou.line else None
                    if okey.subject != key.subject or theirs is None or theirs[0] != base:
                        continue
                    if ou.path is not None and _names_other_file(newer_prose[nid], ou.path):
                        continue  # "log-shipper.service has `ExecStart=...`": another file's
                    if not nu.line and ou.context and _names_sibling(nu.text, ou.context[-1]):
                        continue  # "android build ... `runs-on: ...`" is not ``build-ios``'s
                    context, within = theirs[1], scope
                    if ou.path is not None and ou.path == nu.path:
                        if nu.line and file_header(newer.text.partition("\n")[0]) == nu.path:
                            # two excerpts of one file: a window that does not reach the
                            # block's header shows nothing of which block it is in (quart's
                            # ``description`` of a dependabot group, not [project]'s)
                            continue
                        # one file on both sides: its blocks are compared, the path opens both
                        context, within = context[1:], scope[1:]
                    deeper = len(context) > len(within) or (owner is not None and context == within)
                    if deeper and context[len(context) - len(within) :] == within:
                        # a block of an array of tables (``[[example]]``) is one of several
                        # alike: the line without it names none of them
                        missing = context[: len(context) - len(within)]
                        if not array_tables(older.text).intersection(missing):
                            scoped.append((older, ounit, okey))
            others = {
                k.relation
                for _, k in keys
                if k.subject == key.subject and k.relation != key.relation
            }
            if len({k.relation for _, _, k in scoped}) == 1 and not others:
                out.append(((newer, unit, key), scoped))
    return out


def _names_sibling(sentence: str, block: str) -> bool:
    """The sentence names a sibling of the block: one of the block name's words after another
    word that qualifies it ("android build" for ``build-ios``, "the staging deploy" for
    ``deploy-prod``), the block itself nowhere. An element's head line (``repo: https://...``
    over a list item's lines, ``name = "internal"`` in an array of tables) names no block."""
    if ": " in block or " = " in block:
        return False
    parts = {word_stem(p) for p in re.split(r"[-_.\s]+", block) if p}
    if len(parts) < 2:
        return False
    phrases = [
        [word_stem(w) for w in re.findall(r"[A-Za-z]\w*", phrase)]
        for phrase in re.split(r"[.,;:!?()`]", sentence)
    ]
    if parts <= {w for words in phrases for w in words}:
        return False
    return any(
        w in parts
        and before not in parts
        and before not in STOP
        and before not in _NOT_OWNERS
        and re.fullmatch(r"[a-z]{2,}", before) is not None
        for words in phrases
        for before, w in pairwise(words)
    )


# Words before a block's word that qualify no sibling ("the new build", "each build").
_NOT_OWNERS = frozenset({"new", "old", "now", "same", "next", "last", "first", "whole", "ci"})


# A line naming what an excerpt describes: a package.json's "name", a TOML source's name, a
# chart's app, a scrape job (``"name": "@lumen/ui-kit",``, ``name = "internal"``, ``- job_name:
# node``), on a line of its own or quoted in a sentence (`` `- name: OTEL_ENDPOINT` ``).
_IDENTITY_KEY = r"""["']?(?P<key>name|id|app|package|project|service|module|job_name)["']?"""
_IDENTITY_LINE = re.compile(
    rf"""(?:^[ \t]*|`)(?:-[ \t]+)?{_IDENTITY_KEY}[ \t]*[:=][ \t]*["']?"""
    r"""(?P<value>[^"'`,\s#]+)["']?,?[ \t]*(?:$|`)"""
    # a host list entry (``- host: shop.example.de`` under ingress hosts)
    r"""|^[ \t]*-[ \t]+(?P<entry>host)[ \t]*:[ \t]*(?P<host>[^\s#]+)[ \t]*$"""
    # a named block of code: a class, a struct, an impl, a Terraform resource
    r"""|^[ \t]*(?:pub[ \t]+)?(?P<kind>class|struct|enum|interface|impl(?:[ \t]+\w+[ \t]+for)?"""
    r"""|resource[ \t]+"\w+")[ \t]+"?(?P<block>\w+)""",
    re.MULTILINE,
)


@lru_cache(maxsize=8192)
def _identities(text: str) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for m in _IDENTITY_LINE.finditer(text):
        if m.group("key"):
            out[m.group("key")].add(m.group("value"))
        elif m.group("entry"):
            out["- host"].add(m.group("host"))
        else:
            kind = m.group("kind")
            out["impl" if kind.startswith("impl") else kind].add(m.group("block"))
    # the file the excerpt names (``named_file``: "services/worker/.env" over its lines): two
    # excerpts of two files state no key of each other
    path = named_file(text)
    if path is not None:
        out["file"].add(path)
    return {key: frozenset(values) for key, values in out.items()}


# The newer chunk's prose says its lines are another thing's ("the reporting replica is its
# own resource", "that one is presence.service"): a line with less context is no older key's.
_ANOTHER_OWNER = re.compile(
    r"\b(?:its own|separate|a different|the other one|that one is|this one is)\b", re.IGNORECASE
)


def _other_identity(older: str, newer: str) -> bool:
    """Two excerpts that name different things by an identity line (``"name": "@lumen/ui-kit"``
    and ``"name": "@lumen/date-utils"``; two ``[[tool.poetry.source]]`` elements): their other
    lines are two owners' settings, never one setting's two values."""
    mine, theirs = _identities(older), _identities(newer)
    return any(
        key in mine and not any(_same_name(key, a, b) for a in mine[key] for b in values)
        for key, values in theirs.items()
    )


def _names_other_file(prose: str, path: str) -> bool:
    """Whether the sentences name a file, and none of them is ``path`` (a path in inline code
    is a value: ``log_dir = /var/log/app``)."""
    words = re.sub(r"`[^`]*`", " ", prose).split()
    named = {w for w in (t.strip("'\"(),:;.") for t in words) if is_path(w)}
    return bool(named) and not any(
        same_file(p.removeprefix("/"), path.removeprefix("/")) for p in named
    )


def _same_name(key: str, a: str, b: str) -> bool:
    return same_file(a, b) if key == "file" else a == b


def _grammar_changes(
    found: Mapping[str, Sequence[tuple[int, UnitKey]]],
    old_chunk: str,
    old_unit: int,
    new_chunk: str,
    new_unit: int,
) -> bool:
    """Whether a key the grammar reads from both units has another value in the newer one."""
    was = {k.key_id: k.object for u, k in found.get(old_chunk, ()) if u == old_unit}
    now = {k.key_id: k.object for u, k in found.get(new_chunk, ()) if u == new_unit}
    return any(kid in was and was[kid] != value for kid, value in now.items())


def _owned_keys(units: Sequence[Unit]) -> list[tuple[int, UnitKey, frozenset[str]]]:
    """The owned code tokens of a chunk's prose units (``owned_code_tokens``): (unit, key,
    the owner's words). A labelled message outside any file ("Follow-up: production now says
    `pool: 25`") is split as a ``key: value`` line; its backticks say it quotes code."""
    return [
        (unit.index, key, owner)
        for unit in units
        if unit.content and (not unit.line or (unit.path is None and "`" in unit.text))
        for key, owner in _owned_token_keys(unit.text)
    ]


# Read for every newer chunk on every ingest batch it is aligned in, as its facts are.
@lru_cache(maxsize=8192)
def _owned_token_keys(text: str) -> tuple[tuple[UnitKey, frozenset[str]], ...]:
    out = []
    for token in owned_code_tokens(text):
        key = _unit_key(token.fact)
        if key is not None:
            out.append((key, frozenset(word_stem(w) for w in token.owner)))
    return tuple(out)


@lru_cache(maxsize=8192)
def _text_words(text: str) -> frozenset[str]:
    """The words of a text, lower-cased and crudely stemmed, code tokens split at their
    punctuation (``"worker"`` in ``resource "aws_instance" "worker"``)."""
    return frozenset(word_stem(w) for w in re.findall(r"[a-z]+", text.casefold()))


def _same_thing(mention: str, statement: str) -> bool:
    """A stale mention's subject test: a common entity, and no rival one."""
    return same_subject(mention, statement) and not rival_subjects(mention, statement)
