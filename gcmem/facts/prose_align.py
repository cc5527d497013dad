"""Prose alignment beyond one exact span: local frames and paragraph revisions.

``gcmem.facts.align`` keys two statements when they are identical except for one value span.
Real rewordings of a changed value keep the frame but not the rest of the sentence; two more
rules, both over the same statement units and tokens, and both recording ordinary
``FrameMatch`` rows (the ledger and the supersession stage treat them like any frame):

**Local frame** (``align_local``). Within a clause of each statement (clauses as the exact
rule cuts them: a scope clause stays attached, so "In staging, ..." is always in the clause),
the value span must be preceded by a shared run of words (the *local frame*: "default branch
is _") and followed by the same words up to the clause's end. What precedes the local frame
may be worded differently, but it must name the same things: the same content words on both
sides, in any order and form ("In the mobile repo the default branch is develop" /
"the mobile repo's default branch is trunk"; function words, possessive 's and the
adverbs "now", "currently", "still", "nowadays" do not count). A different word there is a
different subject or qualifier ("staging" / "production" database port), so the statements
are parallel keys and nothing is recorded. The statement with the outer words replaced by
the newer statement's is then judged by the exact rule, so every guard of that rule holds
(negation and modality, predicates, narration, the slot in the subject, frame length).
An additive word in either clause ("also", "too", "another") means a value added beside
the old one, which never supersedes it.

**Paragraph revision** (``align_revision``). When an older chunk is restated sentence by
sentence in a newer one (at least ``MIN_REVISION_ANCHORS`` identical sentences, and at least
a third of its statements), a sentence of the older chunk between the same restated
neighbours whose counterpart shares most of its words is a revised sentence: what lies
between the two sentences' common beginning and common end is the value, even when it spans
more than one place ("a subsidiary of the Dutch chemicals group Verhagen, which bought it in
2015" / "of the Japanese group Kaneshiro Holdings, which bought it last year"). The frame is
the common beginning and end with the slot masked, tagged with a digest of the first restated
sentence (a revision frame belongs to its paragraph, never to another document that happens
to share a sentence start). Inserted or removed text is an elaboration, not a revision; a
negation or modal in either differing part leaves the pair to κ.

**Reworded paragraph revision** (``reworded_restatements``). A revision may reword every
sentence, so no sentence anchors it. When each content sentence of the older chunk has, in
order, a counterpart in the newer one that is identical, states a changed value (a frame
found above), or shares most of its words with nothing but wording between them (no value,
negation or modal among the words that differ), and at least one value changed, the reworded
sentences count as restated: the older paragraph is superseded as a whole, since the newer
one says everything it said. Any other difference leaves the older chunk kept, its changed
sentence noted.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache

from gcmem.facts.align import (
    _CODE_CHARS,
    _FUNCTION_WORDS,
    _SPAN_SCOPE,
    _WORD,
    MAX_FRAME_CHARS,
    MAX_SPAN,
    SLOT,
    FrameMatch,
    PairAlignment,
    Token,
    Unit,
    _align_runs,
    _eligible,
    _hedged,
    _hedges,
    _overlap,
    _surface,
    _trim,
    _words,
    adds_a_value,
    align_units,
    continues,
    frame_rank,
    labelled_record,
    languages,
    members,
    referents_apart,
    restricted,
    series_titles,
    topic,
    two_things,
    two_topics,
    units_of,
)
from gcmem.models import Chunk

__all__ = [
    "MIN_REVISION_ANCHORS",
    "align_chunk_units",
    "align_local",
    "align_revision",
    "align_turn_revisions",
    "covers",
]

MIN_REVISION_ANCHORS = 2
ANCHOR_WORDS = 6  # words of a restated sentence that anchors a revision
MAX_REVISION_SPAN = 24  # tokens of a revised part: longer is a rewrite, not a value
MIN_REVISION_FRAME = 3  # shared words around a revised part
# A chunk pair with one restated sentence is a revision only with a long anchor and a small
# revised part inside a long shared frame (a two-sentence paragraph revised in one value).
STRICT_ANCHOR_WORDS = 8
STRICT_REVISION_FRAME = 6
# A reworded sentence of a revised paragraph shares this much of its words with its
# counterpart; a paragraph of one sentence is a statement, which the exact rules decide.
REWORD_OVERLAP = 0.6
MIN_REWORDED_SENTENCES = 2
_NUMBER_WORDS = _words(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
    ninety hundred thousand million billion dozen half twice thrice once first second third
    fourth fifth single double triple decade decades"""
)
MIN_PROSE_LINE_WORDS = 6  # a line with this many words after its label reads as a sentence
_INTERIOR_ADVERBS = frozenset({"now", "currently", "still", "nowadays"})
# Words that do not tell two subjects apart: function words, scope prepositions, the copula's
# clitics and plain connectives. Pronouns and determiners like "my" / "your" do count.
_NEUTRAL = (
    _FUNCTION_WORDS | _SPAN_SCOPE | frozenset({"to", "from", "by", "with", "'s", "s", "our"})
) - {"when", "if"}
# A leading time adverbial in front of one statement only ("As of today our staging cluster
# is in ...", "Since the reshuffle Marco sits on ..."): when the change happened, not what.
_TIME_OPENERS = frozenset({"since", "starting", "effective", "lately", "recently", "nowadays"})
_TIME_WORDS = _words(
    """today yesterday tonight week month year quarter sprint spring summer autumn fall winter
    morning january february march april may june july august september october november
    december monday tuesday wednesday thursday friday saturday sunday move migration reshuffle
    reorg rename upgrade release launch switch merger acquisition change"""
)
_TIME_PAIRS = frozenset(
    {("as", "of"), ("these", "days"), ("this", "week"), ("this", "month"), ("this", "year")}
)


def _content(t: Token) -> str | None:
    """The word a token contributes to "what the outer part names", or None."""
    return None if t.norm is None or t.punct else _content_word(t.norm)


@lru_cache(maxsize=16384)
def _content_word(n: str) -> str | None:
    if n in _NEUTRAL or n in _INTERIOR_ADVERBS:
        return None
    for clitic in ("'s", "s'"):
        if n.endswith(clitic) and len(n) > len(clitic):
            return n[: -len(clitic)]
    return n


def _bag(toks: Sequence[Token]) -> Counter[str]:
    return Counter(w for w in map(_content, toks) if w is not None)


def _time_adverbial(toks: Sequence[Token]) -> bool:
    """A time adverbial: it opens with a time word ("since", "as of", "starting") and ends on
    a point in time ("March", "2024", "today", "the reshuffle"), so it cannot end on a
    qualifier ("since March staging" is not one)."""
    norms = [t.norm for t in toks if t.norm is not None and not t.punct]
    if len(norms) < 2 or not (norms[0] in _TIME_OPENERS or tuple(norms[:2]) in _TIME_PAIRS):
        return False
    last = norms[-1]
    return last in _TIME_WORDS or any(ch.isdigit() for ch in last) or tuple(norms) in _TIME_PAIRS


def _opens_time(toks: Sequence[Token]) -> bool:
    """Whether a time adverbial could start here: every prefix ``_time_adverbial`` tries
    opens with these words."""
    norms = list(itertools.islice((t.norm for t in toks if t.norm and not t.punct), 2))
    return bool(norms) and (norms[0] in _TIME_OPENERS or tuple(norms[:2]) in _TIME_PAIRS)


def _same_things(px: Sequence[Token], py: Sequence[Token]) -> tuple[int, int] | None:
    """Whether two outer parts name the same things: equal content words, or equal after a
    leading time adverbial of one of them (tried at every length). Returns how many tokens
    of each part the adverbial takes (the frame leaves it out), or None."""
    bx, by = _bag(px), _bag(py)
    if bx == by:
        return 0, 0
    if _opens_time(px):
        for k in range(2, len(px) + 1):
            if _time_adverbial(px[:k]) and _bag(px[k:]) == by:
                return k, 0
    if _opens_time(py):
        for k in range(2, len(py) + 1):
            if _time_adverbial(py[:k]) and _bag(py[k:]) == bx:
                return 0, k
    return None


def _common_suffix(x: Sequence[Token], y: Sequence[Token]) -> int:
    s = 0
    while s < len(x) and s < len(y) and x[-1 - s].norm == y[-1 - s].norm:
        s += 1
    return s


def _local_runs(
    old: Unit, x: Sequence[Token], new: Unit, y: Sequence[Token], detached: bool = False
) -> tuple[str, str, str] | None:
    """``detached``: the two runs are clauses beside other clauses that name different things,
    so the frame must have its subject inside the clause (outer words on both sides): "The
    Subaru gets synthetic oil, change every 6,000 miles" / "The old F-150 is on conventional
    oil, change every 3,000 miles" share the clause's frame, not its subject."""
    x = [t for t in x if t.norm not in _INTERIOR_ADVERBS]
    y = [t for t in y if t.norm not in _INTERIOR_ADVERBS]
    s = _common_suffix(x, y)
    xp, yp = x[: len(x) - s], y[: len(y) - s]
    # every split of the two prefixes into (outer, local frame, value), longest frame first
    xn, yn = [t.norm for t in xp], [t.norm for t in yp]

    def suffix(i: int, j: int) -> int:  # _common_suffix(xp[:i], yp[:j]), without the slices
        k = 0
        while k < i and k < j and xn[i - 1 - k] == yn[j - 1 - k]:
            k += 1
        return k

    splits: list[tuple[int, int, int, int]] = []
    for lx in range(1, min(MAX_SPAN, len(xp) - 1) + 1):
        for ly in range(1, min(MAX_SPAN, len(yp) - 1) + 1):
            frame = suffix(len(xp) - lx, len(yp) - ly)
            if frame:
                splits.append((-frame, lx + ly, lx, ly))
    outer: dict[tuple[int, int], tuple[int, int] | None] = {}  # splits share outer parts
    for neg_frame, _, lx, ly in sorted(splits):
        frame = -neg_frame
        ends = (len(xp) - lx - frame, len(yp) - ly - frame)
        px, py = xp[: ends[0]], yp[: ends[1]]
        if ends not in outer:
            outer[ends] = _same_things(px, py)
        cut = outer[ends]
        if cut is None:
            continue  # a different word outside the frame: a different subject or scope
        if detached and not (_bag(px[cut[0] :]) and _bag(py[cut[1] :])):
            continue  # the subject is in the other clauses, and they differ
        # the older statement reworded with the newer one's outer words (less a time
        # adverbial), judged by the exact rule (every one of its guards)
        px, py, y_run = px[cut[0] :], py[cut[1] :], y[cut[1] :]
        found = _align_runs(old, [*py, *xp[cut[0] + len(px) :], *x[len(x) - s :]], new, y_run)
        if found is not None:
            return found
    return None


def _prose_view(unit: Unit) -> Unit | None:
    """The unit as prose: a prose sentence, or a line that is a sentence behind a label
    ("Heads-up: the mobile repo's default branch is trunk now, ..."); None for config lines."""
    if not unit.line:
        return unit
    words = sum(1 for t in unit.tokens if t.norm is not None and _WORD.match(t.text))
    if unit.context or words < MIN_PROSE_LINE_WORDS:
        return None
    return replace(unit, line=False)


def align_local(old: Unit, new: Unit) -> tuple[str, str, str] | None:
    """A shared local frame around one value in two reworded prose statements, if any (the
    longest frame of any clause pair, or of the whole statements)."""
    old_prose, new_prose = _prose_view(old), _prose_view(new)
    if old_prose is None or new_prose is None or old.context != new.context:
        return None
    old, new = old_prose, new_prose
    if adds_a_value(old.tokens) or adds_a_value(new.tokens) or members(old, new):
        return None  # "also", "too", "another", a collection's members: values side by side
    if restricted(old.tokens) != restricted(new.tokens):
        return None  # "..., but only severity=critical": a value for some cases, not all
    if not (_eligible(old) and _eligible(new)):
        return None
    best: tuple[str, str, str] | None = None
    xs = [(x, _bag(x)) for x in _compared_runs(old)]
    ys = [(y, _bag(y)) for y in _compared_runs(new)]
    all_x, all_y = _bag(_trim(old.tokens)), _bag(_trim(new.tokens))
    for x, bx in xs:
        for y, by in ys:
            rest_x, rest_y = all_x - bx, all_y - by  # what the other clauses name
            detached = bool(rest_x) and bool(rest_y) and rest_x != rest_y
            # equal outer words and frames leave only the two values to differ
            if (bx - by).total() > MAX_SPAN or (by - bx).total() > MAX_SPAN:
                continue
            if x and y and two_topics(topic(old, x[0].start), topic(new, y[0].start)):
                continue  # under two labels: "backend repo: Node 18" / "frontend repo: ..."
            found = None if continues(y, x) else _local_runs(old, x, new, y, detached)
            # the longest frame; at equal frames the shortest values (a clause, not the
            # sentence with its trailing narration)
            if found is not None and (best is None or frame_rank(found) > frame_rank(best)):
                best = found
    return None if best is None or two_things(old, new, best) else best


def _compared_runs(unit: Unit) -> Sequence[Sequence[Token]]:
    """The runs a local frame may lie in: a labelled record only whole, to its end."""
    if not labelled_record(unit):
        return unit.runs
    end = max((t.end for t in unit.tokens if not t.punct), default=0)
    return [r for r in unit.runs if r and r[-1].end >= end]


def _words_in(unit: Unit) -> int:
    return sum(1 for t in unit.tokens if t.norm is not None and not t.punct)


def _digest(unit: Unit) -> str:
    return hashlib.sha256(" ".join(unit.key).encode("utf-8")).hexdigest()[:8]


def _revised(old: Unit, new: Unit, anchor: Unit, *, strict: bool) -> tuple[str, str, str] | None:
    """(frame, old part, new part) of a revised sentence, if it is a revision of a value
    (``strict``: the paragraph has one restated sentence only, so the revised part must be
    small against a long shared frame)."""
    if old.line or new.line or not (_eligible(old) and _eligible(new)):
        return None
    x, y = _trim(old.tokens), _trim(new.tokens)
    p = 0
    while p < len(x) and p < len(y) and x[p].norm == y[p].norm:
        p += 1
    s = _common_suffix(x[p:], y[p:])
    sx, sy = x[p : len(x) - s], y[p : len(y) - s]
    if not sx or not sy:
        return None  # inserted or removed text: an elaboration, not a revision
    if len(sx) > MAX_REVISION_SPAN or len(sy) > MAX_REVISION_SPAN:
        return None
    shared = [t for t in (*x[:p], *x[len(x) - s :]) if not t.punct]
    if len(shared) < MIN_REVISION_FRAME:
        return None
    if strict and (
        len(shared) < STRICT_REVISION_FRAME or 3 * len(sx) > len(x) or 3 * len(sy) > len(y)
    ):
        return None
    for part in (sx, sy):
        if _hedged(part):
            return None  # a negation or hedge changed: left to κ
    masked = [*(t.norm for t in x[:p]), SLOT, *(t.norm for t in x[len(x) - s :])]
    frame = " ".join(n for n in masked if n)
    if len(frame) > MAX_FRAME_CHARS:
        frame = frame[:MAX_FRAME_CHARS]
    return f"{frame} #{_digest(anchor)}", _surface(old, sx), _surface(new, sy)


def align_revision(
    old: Sequence[Unit], new: Sequence[Unit], found: PairAlignment
) -> list[FrameMatch]:
    """Revised sentences of an older chunk that a newer chunk restates sentence by sentence
    (``found``: the exact alignment of the pair, whose restated units are the anchors)."""
    # a restated sentence anchors a revision only if it is a sentence of substance: two
    # notes sharing "Weekly report." and "All green." are two reports, not one revised
    anchors = sorted((o, n) for o, n in found.restated if _words_in(old[o]) >= ANCHOR_WORDS)
    content = [u for u in old if u.content]
    if len(anchors) >= MIN_REVISION_ANCHORS and 3 * len(anchors) >= len(content):
        strict = False
    elif len(anchors) == 1 and _words_in(old[anchors[0][0]]) >= STRICT_ANCHOR_WORDS:
        strict = True  # one long restated sentence: a revision only of a small part
    else:
        return []
    if any(b[1] <= a[1] for a, b in itertools.pairwise(anchors)):
        return []  # restated out of order: a different document, not a revision
    done_old = {o for o, _ in anchors} | {f.old_unit for f in found.frames}
    taken_new = {n for _, n in anchors} | {f.new_unit for f in found.frames}
    first = old[anchors[0][0]]
    out: list[FrameMatch] = []
    for unit in content:
        if unit.index in done_old:
            continue
        lo = max((n for o, n in anchors if o < unit.index), default=-1)
        hi = min((n for o, n in anchors if o > unit.index), default=len(new))
        best = _closest(unit, new[lo + 1 : hi], taken_new)
        if best is None:
            continue
        revised = _revised(unit, best, first, strict=strict)
        if revised is not None:
            taken_new.add(best.index)
            out.append(FrameMatch(unit.index, best.index, *revised))
    return out


def _reworded(old: Unit, new: Unit) -> bool:
    """Two sentences that say the same thing in other words: what differs between them holds
    no value (a digit, a capitalised word past the first, code characters) and no negation
    or modal."""
    diff = old.words ^ new.words
    for unit in (old, new):
        first = next((i for i, t in enumerate(unit.tokens) if not t.punct), 0)
        norms = [t.norm or "" for t in unit.tokens]
        for i, t in enumerate(unit.tokens):
            if t.punct or t.norm not in diff:
                continue
            n = norms[i]
            if _hedges(norms, i):
                return False
            if n in _NUMBER_WORDS or any(
                ch.isdigit() or ch in _CODE_CHARS for ch in t.text.strip(".,;:!?")
            ):
                return False
            if i != first and t.text[:1].isupper():
                return False
    return True


def reworded_restatements(
    old: Sequence[Unit], new: Sequence[Unit], found: PairAlignment
) -> list[tuple[int, int]]:
    """The sentences of an older paragraph that a newer revision of it says again in other
    words, as (old unit, new unit) restatements. Only for a whole-paragraph revision: every
    content sentence of the older chunk is restated, framed (its value changed) or reworded
    in the newer one, in order, and at least one value changed. Then the older chunk is
    superseded as a whole (nothing it says is lost: the newer one says all of it); a sentence
    that differs in anything but wording leaves the chunk to its sentence notes."""
    if not found.frames or any(u.line for u in (*old, *new)):
        return []
    content = [u for u in old if u.content]
    if len(content) < MIN_REWORDED_SENTENCES:
        return []
    placed = {o: n for o, n in found.restated} | {f.old_unit: f.new_unit for f in found.frames}
    taken = set(placed.values())
    out: list[tuple[int, int]] = []
    last = -1
    for unit in content:
        if unit.index in placed:
            if placed[unit.index] <= last:
                return []  # out of order: another document, not a revision
            last = placed[unit.index]
            continue
        best = _closest(unit, new[last + 1 :], taken, least=REWORD_OVERLAP)
        if best is None or not _reworded(unit, best):
            return []
        out.append((unit.index, best.index))
        taken.add(best.index)
        last = best.index
    return out


def align_chunk_units(old: Sequence[Unit], new: Sequence[Unit]) -> PairAlignment:
    """The exact alignment of an older and a newer chunk, with local frames for statements it
    left unexplained and revised sentences when the newer chunk is a revision of the older."""
    found = align_units(old, new)
    done = {o for o, _ in found.restated} | {f.old_unit for f in found.frames}
    taken = {n for _, n in found.restated} | {f.new_unit for f in found.frames}
    for o in old:
        if not o.content or o.index in done:
            continue
        for n in new:
            if not n.content or n.index in taken or _overlap(o, n) < 0.5:
                continue
            local = align_local(o, n)
            if local is not None and not referents_apart(old, o, new, n, local[1:]):
                found.frames.append(FrameMatch(o.index, n.index, *local))
                done.add(o.index)
                taken.add(n.index)
                break
    if not found.restated:
        found.frames = [f for f in found.frames if not series_titles(old, new, f)]
    found.frames.extend(
        f
        for f in align_revision(old, new, found)
        if not referents_apart(
            old, old[f.old_unit], new, new[f.new_unit], (f.old_value, f.new_value)
        )
    )
    found.restated.extend(reworded_restatements(old, new, found))
    found.frames = [f for f in found.frames if not languages(f.frame, f.old_value, f.new_value)]
    return found


def align_turn_revisions(
    alignments: Sequence[tuple[Chunk, Chunk, PairAlignment]],
    units: Mapping[str, Sequence[Unit]],
) -> None:
    """Revised sentences whose paragraph was chunked differently in the two turns (a value of
    another length moves a chunk boundary): the anchors are the sentences restated between the
    two *turns*, over every aligned chunk pair of the batch. Only a small revised part inside
    a long shared frame counts (the strict rule), between chunks at most one position apart,
    for sentences no newer chunk restates. Adds the frames to ``alignments`` in place."""
    anchors: dict[tuple[str, str], list[tuple[int, int, Unit]]] = defaultdict(list)
    settled: set[tuple[str, int]] = set()  # (old chunk, unit) restated or framed anywhere
    for old, new, found in alignments:
        for o, _ in found.restated:
            if _words_in(units[old.id][o]) >= ANCHOR_WORDS:
                anchors[(old.turn_id, new.turn_id)].append((old.index, o, units[old.id][o]))
        settled |= {(old.id, o) for o, _ in found.restated}
        settled |= {(old.id, f.old_unit) for f in found.frames}
    for old, new, found in alignments:
        turn_anchors = anchors.get((old.turn_id, new.turn_id), [])
        if len(turn_anchors) < MIN_REVISION_ANCHORS or abs(old.index - new.index) > 1:
            continue
        first = min(turn_anchors, key=lambda a: (a[0], a[1]))[2]
        taken = {n for _, n in found.restated} | {f.new_unit for f in found.frames}
        for unit in units[old.id]:
            if not unit.content or (old.id, unit.index) in settled:
                continue
            best = _closest(unit, units[new.id], taken)
            if best is None:
                continue
            revised = _revised(unit, best, first, strict=True)
            if revised is not None:
                taken.add(best.index)
                settled.add((old.id, unit.index))
                found.frames.append(FrameMatch(unit.index, best.index, *revised))


def covers(old_text: str, new_text: str) -> bool:
    """Whether the newer chunk says again everything the older one says but what it changes:
    each content statement of the older chunk has its own counterpart in the newer one,
    sharing at least ``REWORD_OVERLAP`` of the shorter's words (a statement alone needs none:
    the pair is about it). What a model's verdict on the pair may remove: a paragraph revised
    or reworded as a whole, never the other sentences of a passage it merely shares a topic
    with."""
    old = [u for u in units_of(old_text) if u.content]
    return len(old) < 2 or counterparts(old_text, new_text) is not None


def counterparts(
    old_text: str, new_text: str, *, every: bool = True
) -> list[tuple[Unit, Unit]] | None:
    """Each content statement of the older chunk with its own counterpart in the newer one
    (``covers``' pairing), or None when one has none. With ``every=False``, the statements
    that have one, or None unless the first statements of both are counterparts (a document
    re-issued under its own opening) and at least half of the older's have one."""
    new = units_of(new_text)
    taken: set[int] = set()
    pairs: list[tuple[Unit, Unit]] = []
    old = [u for u in units_of(old_text) if u.content]
    for unit in old:
        match = _closest(unit, new, taken, least=REWORD_OVERLAP)
        if match is None:
            if every:
                return None
            continue
        taken.add(match.index)
        pairs.append((unit, match))
    if every:
        return pairs
    first = next((u for u in new if u.content), None)
    opened = bool(pairs) and pairs[0][0] is old[0] and pairs[0][1] is first
    return pairs if opened and 2 * len(pairs) >= len(old) else None


def _closest(
    unit: Unit, candidates: Sequence[Unit], taken: Collection[int], *, least: float = 0.5
) -> Unit | None:
    """The free statement of ``candidates`` sharing the most words with ``unit`` (at least
    ``least`` of the shorter's), the revised sentence's counterpart."""
    best: tuple[float, Unit] | None = None
    for cand in candidates:
        if not cand.content or cand.index in taken:
            continue
        score = _overlap(unit, cand)
        if score >= least and (best is None or score > best[0]):
            best = (score, cand)
    return None if best is None else best[1]
