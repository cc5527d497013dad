"""Temporal dominance Φ_T: drop a chunk when a newer candidate contradicts it.

    Φ_T(R_k) = { c_i ∈ R_k | there is no c_j ∈ R_k with κ(c_i, c_j) = 1 and τ_j > τ_i }

R_k is the candidate set this stage receives (after the supersession pre-filter). A dominating
c_j need not survive itself: A -> B -> C collapses to C, because B is in R_k and contradicts A
even though C in turn removes B. Chunks that nothing newer contradicts always survive,
however old, which is what separates Φ_T from recency heuristics. Equal timestamps never
dominate.

κ comes from the verdict log (one batched oracle call for all of a query's misses); pairs the
ledger's (subject, relation) keys decide, identical contents, equal timestamps and (optionally)
pairs under a cosine floor never reach the oracle (``gcmem.oracle.pairs``).

A keyed pair whose differing keys resolve under a policy other than latest-wins (evidence,
confirm, accumulate) is not a time-ordered contradiction: the ledger's policy decided it (the
supersession stage drops the loser or surfaces the held value), so Φ_T counts it κ = 0. So is
a pair of statements one span apart whose frame resolves so ("Priya plays the cello / the
trombone ...": the instruments someone plays), keyed or not.

A per-query pair budget bounds κ's work: when more pairs need κ than the budget allows, the
most relevant pairs (by the lower, then the higher, relevance score of the two chunks) are
judged and the rest are not: they count as κ = 0 and are reported in the result's
``budgets``. The choice depends only on the candidates, never on what the verdict log holds,
so the same query over the same memory still gives the same decisions.

A query run with a deadline (the pipeline's query pool sets one, ``base.work_deadline``) sends
its pairs to the log in slices, most relevant first, and starts no slice past the deadline:
what it did not judge is reported the same way (``past_deadline``), and the query answers
with the decisions it could make instead of not at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from gcmem.facts.align import FRAME_SUBJECT, one_span_frame, units_of
from gcmem.facts.extract import added_keys, unit_facts
from gcmem.facts.mentions import asserts_value, distinctive
from gcmem.facts.prose_align import covers
from gcmem.filters.base import FilterOutcome, QueryContext, has_deadline, past_deadline
from gcmem.filters.resources import Resources
from gcmem.models import Conflict, Decision, Fact, ScoredChunk, StaleSentence
from gcmem.normalize import display_key, fact_key, normalize_key
from gcmem.oracle.adapter import active_adapter
from gcmem.oracle.pairs import (
    FactReader,
    KeyedFacts,
    PairPlan,
    ledger_facts,
    plan_pairs,
    read_facts,
)
from gcmem.oracle.relatedness import ANCHOR_VERSION, anchored, apart, narrated_event
from gcmem.oracle.verdicts import VerdictLog
from gcmem.storage.ledger.policy import PolicyTable

STAGE = "dominance"
# What κ's score is a probability of: the NLI model's, or a supersession adapter's.
CONTRADICTION = "P(contradiction)"
SUPERSEDES = "P(supersedes)"
# Pairs per verdict-log call when the query has a deadline: about one oracle batch, so on a
# slow device the deadline is overshot by little.
DEADLINE_SLICE = 32

# (namespace, subject, relation, source) -> the resolution policy of that key
PolicyOf = Callable[[str, str, str, str | None], str]


@dataclass(frozen=True)
class PairVerdict:
    """κ for one candidate pair, with the evidence the decision record cites."""

    older: ScoredChunk
    newer: ScoredChunk
    score: float
    contradicts: bool
    source: Literal["oracle", "keyed"] = "oracle"
    keys: tuple[str, ...] = ()  # keyed pairs: the shared keys, "subject / relation"


def temporal_dominance(
    candidates: Sequence[ScoredChunk],
    verdicts: Iterable[PairVerdict],
    *,
    threshold: float,
    measure: str = CONTRADICTION,
) -> FilterOutcome:
    """Φ_T over ``candidates`` given κ for (some of) their pairs; pairs without a verdict count
    as κ = 0. Survivors keep their input order; the result does not depend on that order."""
    members = {c.id for c in candidates}
    dominators: dict[str, list[PairVerdict]] = {}
    for v in verdicts:
        if not v.contradicts or v.older.id not in members or v.newer.id not in members:
            continue
        # κ is a relation between two chunks; which one is dominated is decided by time alone.
        old, new = _in_time_order(v)
        if new.chunk.ts > old.chunk.ts:  # equal timestamps never dominate
            dominators.setdefault(old.id, []).append(
                PairVerdict(old, new, v.score, True, v.source, v.keys)
            )
    # A chunk only keyed conflicts dominate is decided by its statements, as the supersession
    # stage decides it: other statements in it may still be true.
    partly = {
        cid: stale
        for cid, by in dominators.items()
        if all(v.source == "keyed" for v in by) and (stale := keyed_stale_units(by)) is not None
    }
    kept = [
        c.model_copy(update={"stale_sentences": _merged(c.stale_sentences, partly[c.id])})
        if c.id in partly
        else c
        for c in candidates
        if c.id not in dominators or c.id in partly
    ]
    dropped = [
        drop_decision(c, dominators[c.id], threshold, measure)
        for c in candidates
        if c.id in dominators and c.id not in partly
    ]
    return FilterOutcome(kept, dropped)


def keyed_stale_units(by: Sequence[PairVerdict]) -> tuple[StaleSentence, ...] | None:
    """The statements of the older chunk of ``by`` (keyed verdicts, one older chunk) that the
    newer chunks supersede, when the chunk also says something they neither supersede nor
    restate; None when the whole chunk goes (every statement superseded, restated, or a
    mention of a replaced distinctive value), or when its units do not show the key (explicit
    facts, a key only the whole text yields).

    A unit is superseded when the extractor keys it under a key on which a newer chunk asserts
    a different value (the newest such chunk names the current value); a unit that names a
    replaced distinctive value in a plain assertion ("health checks hit :8000/health" beside
    "runs on port 8000") goes with it, since no key of its own keeps it (a mention: noted, not
    excised, when the chunk stays)."""
    old = by[0].older.chunk
    if old.explicit_facts:
        return None
    mine = ledger_facts(old)
    replaced: dict[tuple[str, str], PairVerdict] = {}  # key -> the newest newer chunk
    for v in sorted(by, key=lambda v: (v.newer.chunk.ts, v.newer.id)):
        theirs = ledger_facts(v.newer.chunk)
        for key in mine.keys() & theirs.keys():
            if mine[key] != theirs[key]:
                replaced[key] = v
    units = units_of(old.text)
    by_unit: dict[int, list[Fact]] = {}
    for i, fact in unit_facts(old.text):
        by_unit.setdefault(i, []).append(fact)
    restated = {u.key for v in by for u in units_of(v.newer.chunk.text) if u.content}
    stale: list[StaleSentence] = []
    still_true = False
    for unit in units:
        if not unit.content:
            continue
        evidence: Literal["statement", "mention"] = "statement"
        hit = next(
            (
                (f, replaced[k])
                for f in by_unit.get(unit.index, [])
                if (k := normalize_key(f.subject, f.relation)) in replaced
            ),
            None,
        )
        if hit is None:
            evidence = "mention"
            hit = next(
                (
                    (f, replaced[k])
                    for i, facts in by_unit.items()
                    if i != unit.index
                    for f in facts
                    if (k := normalize_key(f.subject, f.relation)) in replaced
                    and distinctive(f.object)
                    and asserts_value(unit, f.object)
                ),
                None,
            )
        if hit is not None:
            fact, v = hit
            current = ledger_facts(v.newer.chunk)[normalize_key(fact.subject, fact.relation)]
            stale.append(
                StaleSentence(
                    index=unit.index,
                    text=unit.text,
                    key=display_key(fact_key(fact.subject, fact.relation)),
                    value=fact.object,
                    current_value=" / ".join(sorted(current)),
                    superseded_by=v.newer.id,
                    superseded_by_turn_id=v.newer.turn_id,
                    since=v.newer.chunk.ts,
                    stage=STAGE,
                    evidence=evidence,
                )
            )
        elif unit.key not in restated:
            still_true = True
    return tuple(stale) if stale and still_true else None


def _merged(
    have: tuple[StaleSentence, ...], more: tuple[StaleSentence, ...]
) -> tuple[StaleSentence, ...]:
    """The supersession stage's stale statements, then this stage's for other units."""
    seen = {s.index for s in have}
    return have + tuple(s for s in more if s.index not in seen)


def drop_decision(
    chunk: ScoredChunk, by: list[PairVerdict], threshold: float, measure: str = CONTRADICTION
) -> Decision:
    """The decision record of ``chunk`` dropped because of these (contradicting, newer)
    verdicts; write-time GC explains its κ flags with the same record. ``measure`` names what
    κ's score is a probability of."""
    # Name the strongest evidence; ties go to the newest chunk, then the id (deterministic).
    ranked = sorted(by, key=lambda v: (-v.score, -v.newer.chunk.ts.timestamp(), v.newer.id))
    best = ranked[0]
    when = best.newer.chunk.ts.isoformat(timespec="seconds")
    if best.source == "keyed":
        reason = (
            f"newer chunk (turn {best.newer.turn_id}, {when}) asserts a different value for "
            f"{', '.join(best.keys)}"
        )
    else:
        verb = "superseded" if measure == SUPERSEDES else "contradicted"
        reason = (
            f"{verb} by newer chunk (turn {best.newer.turn_id}, {when}): "
            f"{measure} {best.score:.2f} >= {threshold:.2f}"
        )
    if len(ranked) > 1:
        reason += f"; {len(ranked) - 1} more newer chunk(s) contradict it"
    return Decision(
        chunk=chunk,
        stage=STAGE,
        reason=reason,
        dominated_by=best.newer.id,
        dominated_by_turn_id=best.newer.turn_id,
        score=best.score,
        details={
            "source": best.source,
            "measure": measure,
            "threshold": threshold,
            "keys": list(best.keys),
            "dominators": [
                {
                    "chunk_id": v.newer.id,
                    "turn_id": v.newer.turn_id,
                    "ts": v.newer.chunk.ts.isoformat(),
                    "score": v.score,
                    "source": v.source,
                }
                for v in ranked
            ],
        },
    )


@dataclass
class DominanceReport:
    """What κ cost for one candidate set (benchmarks and logs read it)."""

    verdicts: list[PairVerdict]
    plan: PairPlan
    hits: int = 0
    misses: int = 0
    timings_ms: dict[str, float] = field(default_factory=dict)
    unscored: int = 0  # pairs that needed κ beyond the pair budget


def _differ_only_on(
    old: ScoredChunk,
    new: ScoredChunk,
    facts: Mapping[str, KeyedFacts],
    keys: frozenset[tuple[str, str]],
) -> bool:
    """Every key on which the pair differs is one of ``keys``."""
    fa, fb = facts.get(old.id, {}), facts.get(new.id, {})
    differing = {k for k in set(fa) & set(fb) if fa[k] != fb[k]}
    return bool(differing) and differing <= keys


class TemporalDominance:
    """The Φ_T filter stage over κ from the verdict log."""

    name = STAGE

    def __init__(
        self,
        log: VerdictLog,
        *,
        facts: FactReader,
        cosine_floor: float | None = None,
        require_anchor: bool = False,
        surface_threshold: float | None = None,
        confirm: VerdictLog | None = None,
        policy: PolicyOf | None = None,
        source_field: str = "source",
        pair_budget: int | None = None,
    ) -> None:
        self.log = log
        self.facts = facts
        self.cosine_floor = cosine_floor
        self.require_anchor = require_anchor
        self.surface_threshold = surface_threshold
        self.confirm = confirm
        self.policy = policy  # None: every keyed conflict is latest-wins
        self.source_field = source_field
        self.pair_budget = pair_budget
        self.measure = SUPERSEDES if active_adapter(log.oracle) is not None else CONTRADICTION

    def verdicts(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> DominanceReport:
        """κ for every pair Φ_T needs: keyed pairs decided here, the rest in one log call."""
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        facts = read_facts([c.chunk for c in candidates], self.facts)
        plan = plan_pairs(
            candidates, facts=facts, vectors=query.vectors, cosine_floor=self.cosine_floor
        )
        timings["plan"] = (time.perf_counter() - t0) * 1e3
        # keys a candidate adds a value to ("... coached by Sian Griffiths too"): several
        # values at once, so two chunks' different values of them are no conflict (read only
        # where a keyed pair conflicts)
        added = (
            frozenset().union(*(added_keys(c.chunk.text) for c in candidates))
            if any(conflict for _, _, conflict, _ in plan.keyed)
            else frozenset()
        )
        verdicts = []
        for old, new, conflict, keys in plan.keyed:
            if conflict and (
                self._policy_decides(old, new, facts, query.namespace)
                or _differ_only_on(old, new, facts, added)
            ):
                conflict = False
            verdicts.append(
                PairVerdict(old, new, 1.0 if conflict else 0.0, conflict, "keyed", keys)
            )
        chosen = within_budget(plan.oracle, self.pair_budget)
        # Under a deadline the pairs go to the log in slices, most relevant first, and no
        # slice starts past it; without one, in one call (one oracle batch) as always.
        step = DEADLINE_SLICE if has_deadline() else max(len(chosen), 1)
        if has_deadline():
            chosen = within_budget(chosen, None, ranked=True)
        judged: list[tuple[ScoredChunk, ScoredChunk]] = []
        hits = misses = 0
        spent = 0.0  # seconds in the log calls so far: the next slice's cost, estimated
        for start in range(0, len(chosen), step):
            expected = spent / len(judged) * step if judged else 0.0
            if past_deadline(expected):
                break
            t_slice = time.perf_counter()
            part = chosen[start : start + step]
            lookup = self.log.scores(
                query.namespace, [(a.chunk, b.chunk) for a, b in part], query.query
            )
            for name, ms in lookup.timings_ms.items():
                timings[name] = timings.get(name, 0.0) + ms
            hits, misses = hits + lookup.hits, misses + lookup.misses
            decisions = self.log.decide(lookup.scores)
            verdicts += [
                PairVerdict(a, b, float(s), bool(d))
                for (a, b), s, d in zip(part, lookup.scores, decisions, strict=True)
            ]
            judged += part
            spent += time.perf_counter() - t_slice
        unscored = len(plan.oracle) - len(judged)
        if unscored:
            query.budgets[STAGE] = {
                "pair_budget": self.pair_budget if self.pair_budget is not None else 0,
                "oracle_pairs": len(plan.oracle),
                "judged": len(judged),
                "unscored": unscored,
                "past_deadline": len(chosen) - len(judged),
            }
        return DominanceReport(verdicts, plan, hits, misses, timings, unscored=unscored)

    def _policy_decides(
        self,
        old: ScoredChunk,
        new: ScoredChunk,
        facts: Mapping[str, KeyedFacts],
        namespace: str,
    ) -> bool:
        """Every key on which the pair differs resolves under a non-latest policy."""
        fa, fb = facts.get(old.id, {}), facts.get(new.id, {})
        differing = [k for k in set(fa) & set(fb) if fa[k] != fb[k]]
        return bool(differing) and self._non_latest(namespace, differing, new)

    def _non_latest(
        self, namespace: str, keys: Iterable[tuple[str, str]], newer: ScoredChunk
    ) -> bool:
        """Every one of these keys resolves under a policy other than latest-wins (the newer
        chunk's source may pick the rule)."""
        if self.policy is None:
            return False
        source = newer.chunk.metadata.get(self.source_field)
        return all(
            self.policy(namespace, s, r, None if source is None else str(source)) != "latest"
            for s, r in keys
        )

    def apply(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> FilterOutcome:
        """Φ_T over the verdicts it may act on; κ verdicts about one thing that may not drop
        (not confirmed in both directions, a score in the uncertain band) are surfaced as
        conflicts instead. With the anchor required, a pair that shares no subject and
        attribute is neither: κ says nothing about it."""
        report = self.verdicts(candidates, query)
        decided, conflicts = self.split(report.verdicts, query)
        outcome = temporal_dominance(
            candidates, decided, threshold=self.log.threshold, measure=self.measure
        )
        return FilterOutcome(outcome.kept, outcome.dropped, conflicts)

    def split(
        self, verdicts: Sequence[PairVerdict], query: QueryContext
    ) -> tuple[list[PairVerdict], list[Conflict]]:
        """The verdicts Φ_T may act on, and the pairs to surface. Keyed verdicts are the
        ledger's rule and always act; a κ verdict acts only when its pair shares a subject and
        an attribute (if required) and contradicts in both directions (if a confirmation log is
        set: one batched lookup for all of the query's candidate drops)."""
        decided: list[PairVerdict] = []
        conflicts: list[Conflict] = []
        pending: list[PairVerdict] = []
        threshold = self.log.threshold
        for v in verdicts:
            if v.source == "keyed" or v.older.chunk.ts == v.newer.chunk.ts:
                decided.append(v)  # equal times never dominate
            elif _explained(v):
                # The supersession stage already decided what the newer chunk replaces in the
                # older one (those statements are excised); κ read both whole, so its verdict
                # says nothing about the older chunk's other statements.
                continue
            elif not v.contradicts:
                decided.append(v)
                if (
                    self.surface_threshold is not None
                    and v.score >= self.surface_threshold
                    and self._about_one_thing(v)
                ):
                    conflicts.append(
                        _conflict(v, f"{self.measure} {v.score:.2f} is below {threshold:.2f}")
                    )
            elif not self._about_one_thing(v):
                # Not a conflict at all: two statements about different things (parallel
                # keys, another attribute) are both true whatever κ says. Surfacing them
                # would tell the reader a still-true fact may be superseded (most notes
                # did, docs/benchmarks.md "Notes only about one thing").
                continue
            elif self.measure == SUPERSEDES and narrated_event(
                *(c.chunk.text for c in _in_time_order(v))
            ):
                # A past event stays true; what it implied may not (surfaced, not dropped).
                conflicts.append(
                    _conflict(
                        v,
                        f"{self.measure} {v.score:.2f} >= {threshold:.2f}, but the older "
                        "statement narrates a past event",
                    )
                )
            else:
                pending.append(v)
        if self.confirm is not None and pending:
            lookup = self.confirm.scores(
                query.namespace, [(v.older.chunk, v.newer.chunk) for v in pending], query.query
            )
            confirmed = self.confirm.decide(lookup.scores)
            both_ways = []
            for v, both, ok in zip(pending, lookup.scores, confirmed, strict=True):
                if ok:
                    both_ways.append(v)
                else:
                    conflicts.append(
                        _conflict(
                            v,
                            f"P(contradiction) {v.score:.2f} >= {threshold:.2f} in one "
                            f"direction, {float(both):.2f} < {self.confirm.threshold:.2f} in both",
                        )
                    )
            pending = both_ways
        for v in pending:
            older, newer = _in_time_order(v)
            if covers(older.chunk.text, newer.chunk.text):
                decided.append(v)
            else:
                # κ read the pair whole; the older chunk's other statements are not its to drop
                conflicts.append(
                    _conflict(
                        v,
                        f"{self.measure} {v.score:.2f} >= {threshold:.2f}, but the older chunk "
                        "says more than the newer one restates",
                    )
                )
        return decided, conflicts

    def _about_one_thing(self, v: PairVerdict) -> bool:
        """The pair shares a subject and an attribute (when the anchor is required); with a
        supersession adapter, it is not provably about two things (``relatedness.apart``)."""
        older, newer = v.older.chunk.text, v.newer.chunk.text
        if self._members(v):
            return False
        if self.measure == SUPERSEDES:
            return not apart(older, newer)
        return not self.require_anchor or anchored(older, newer)

    def _members(self, v: PairVerdict) -> bool:
        """The two statements give two values of one attribute that holds many at once (one
        span apart, the frame around it under a policy other than latest-wins: "Priya plays
        the cello / the trombone in the community orchestra"): the ledger's policy decides
        such values, as it does a keyed pair's, never Φ_T."""
        if self.policy is None:
            return False
        frame = one_span_frame(v.older.chunk.text, v.newer.chunk.text)
        return frame is not None and self._non_latest(
            v.newer.chunk.namespace, [normalize_key(FRAME_SUBJECT, frame)], v.newer
        )

    def drop_identity(self) -> dict[str, Any]:
        """Everything a drop on κ depends on besides the pair itself: the oracle θ, its
        threshold and the no-harm rule (anchor, confirmation θ and threshold). Write-time
        flags carry its digest and count only under the identity they were set with."""
        return {
            "theta": self.log.theta,
            "threshold": self.log.threshold,
            "anchor": (
                f"apart-v{ANCHOR_VERSION}"
                if self.measure == SUPERSEDES
                else f"v{ANCHOR_VERSION}"
                if self.require_anchor
                else None
            ),
            "confirm": None
            if self.confirm is None
            else {"theta": self.confirm.theta, "threshold": self.confirm.threshold},
        }

    def dropping(self, verdicts: Sequence[PairVerdict], query: QueryContext) -> list[PairVerdict]:
        """The κ verdicts under which Φ_T drops the older chunk of the pair (the same rule as
        ``apply``: surfaced-only and uncertain pairs are not among them)."""
        decided, _ = self.split(verdicts, query)
        return [
            v
            for v in decided
            if v.contradicts and v.source == "oracle" and v.older.chunk.ts != v.newer.chunk.ts
        ]


def within_budget(
    pairs: Sequence[tuple[ScoredChunk, ScoredChunk]], budget: int | None, *, ranked: bool = False
) -> list[tuple[ScoredChunk, ScoredChunk]]:
    """The pairs κ judges: all of them, or the ``budget`` most relevant; in their order, or
    most relevant first (``ranked``)."""

    def priority(pair: tuple[ScoredChunk, ScoredChunk]) -> tuple[float, float, str, str]:
        a, b = pair
        return (-min(a.score, b.score), -max(a.score, b.score), a.id, b.id)

    if ranked:
        return sorted(pairs, key=priority)[:budget]
    if budget is None or len(pairs) <= budget:
        return list(pairs)
    chosen = {(a.id, b.id) for a, b in sorted(pairs, key=priority)[:budget]}
    return [(a, b) for a, b in pairs if (a.id, b.id) in chosen]


def _explained(v: PairVerdict) -> bool:
    """The older chunk of the pair has statements the newer one was decided to supersede."""
    older, newer = _in_time_order(v)
    return any(s.superseded_by == newer.id for s in older.stale_sentences)


def _in_time_order(v: PairVerdict) -> tuple[ScoredChunk, ScoredChunk]:
    return (v.older, v.newer) if v.older.chunk.ts <= v.newer.chunk.ts else (v.newer, v.older)


def _conflict(v: PairVerdict, why: str) -> Conflict:
    older, newer = _in_time_order(v)
    return Conflict(older=older, newer=newer, stage=STAGE, reason=why, score=v.score)


def build(resources: Resources) -> TemporalDominance:
    table = PolicyTable.from_settings(resources.settings.ledger)
    policy: PolicyOf | None = None
    if not table.latest_only:

        def policy(namespace: str, subject: str, relation: str, source: str | None) -> str:
            return table.resolve(namespace, subject, relation, source).policy

    settings = resources.settings.dominance
    adapter = resources.adapter
    surface = resources.score_threshold(settings.surface_threshold)
    if (
        adapter is not None
        and surface is not None
        and resources.settings.oracle.calibration_threshold
    ):
        surface = adapter.surface_threshold
    return TemporalDominance(
        resources.verdict_log,
        facts=ledger_facts,
        cosine_floor=settings.cosine_floor,
        # The adapter was trained to tell a change of one attribute from a still-true fact
        # beside it; the anchor's word test would keep a sixth of its justified drops.
        require_anchor=settings.anchor and adapter is None,
        surface_threshold=surface,
        confirm=resources.confirm_log,
        policy=policy,
        source_field=resources.settings.ledger.source_field,
        pair_budget=settings.pair_budget,
    )
