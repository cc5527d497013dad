"""Φ_T (temporal dominance) on hand-built candidate sets with a scripted oracle, the stage's pair
scheduling, its registry wiring, and the write-time verdict precompute."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta

import fakeredis
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcmem.filters.base import FilterOutcome, QueryContext
from gcmem.filters.dominance import (
    SUPERSEDES,
    PairVerdict,
    TemporalDominance,
    temporal_dominance,
)
from gcmem.filters.precompute import VerdictPrecompute
from gcmem.filters.registry import build_chain, build_filters
from gcmem.filters.resources import Resources
from gcmem.memory import Memory
from gcmem.memory.candidates import CandidateSet, run_filter_chain
from gcmem.models import Chunk, Fact, ScoredChunk, StaleSentence, Turn
from gcmem.oracle.adapter import Adapter
from gcmem.oracle.pairs import KeyedFacts, ledger_facts, no_facts
from gcmem.oracle.verdicts import VerdictLog
from gcmem.settings import Settings
from gcmem.storage.ledger.policy import PolicyTable
from gcmem.storage.redis import Keyspace
from tests.doubles import T0, HashingEmbedder, ScriptedOracle, scored_chunk

NS = "ns"
cand = scored_chunk


def ctx(vectors: dict[str, np.ndarray] | None = None) -> QueryContext:
    return QueryContext(
        query="q", namespace=NS, as_of=T0 + timedelta(days=365), vectors=vectors or {}
    )


def stage_for(oracle: ScriptedOracle, **kwargs: object) -> TemporalDominance:
    log = VerdictLog(fakeredis.FakeRedis(), Keyspace("test"), oracle)
    return TemporalDominance(log, facts=kwargs.pop("facts", no_facts), **kwargs)  # type: ignore[arg-type]


def kept_texts(outcome: FilterOutcome) -> list[str]:
    return [c.chunk.text for c in outcome.kept]


def test_chain_collapses_to_newest() -> None:
    a, b, c = cand("port 8000", 0), cand("port 8080", 1), cand("port 9090", 2)
    oracle = ScriptedOracle()
    for x, y in [(a, b), (b, c), (a, c)]:
        oracle.contradict(x.chunk.text, y.chunk.text)
    oracle.contradict(a.chunk.text, c.chunk.text, 0.95)
    kept, dropped = stage_for(oracle).apply([a, b, c], ctx())
    assert [k.id for k in kept] == [c.id]
    by_id = {d.chunk.id: d for d in dropped}
    assert by_id[b.id].dominated_by == c.id and by_id[b.id].dominated_by_turn_id == c.turn_id
    # The strongest evidence is named; every dominator is listed.
    assert by_id[a.id].dominated_by == c.id and by_id[a.id].score == pytest.approx(0.95)
    assert {d["chunk_id"] for d in by_id[a.id].details["dominators"]} == {b.id, c.id}
    assert all(d.stage == "dominance" for d in dropped)
    assert "P(contradiction) 0.95" in by_id[a.id].reason
    assert oracle.calls == 1  # every pair of the query in one batched oracle call


def test_chain_collapses_even_when_only_neighbours_contradict() -> None:
    # A -> B -> C with κ(A, C) = 0: B (in R_k) still dominates A although C removes B.
    a, b, c = cand("v1", 0), cand("v2", 1), cand("v3", 2)
    oracle = ScriptedOracle()
    oracle.contradict("v1", "v2")
    oracle.contradict("v2", "v3")
    kept, dropped = stage_for(oracle).apply([c, a, b], ctx())
    assert [k.id for k in kept] == [c.id]
    assert {d.chunk.id: d.dominated_by for d in dropped} == {a.id: b.id, b.id: c.id}


def test_revert_keeps_only_the_latest_statement() -> None:
    old = cand("The flag is on.", 0)
    flip = cand("The flag is off.", 1)
    back = cand("The flag is on.", 2, turn="t-back")  # same text as `old`, newer turn
    oracle = ScriptedOracle()
    oracle.contradict("The flag is on.", "The flag is off.")
    kept, dropped = stage_for(oracle).apply([old, flip, back], ctx())
    assert [k.id for k in kept] == [back.id]
    assert {d.chunk.id: d.dominated_by for d in dropped} == {old.id: flip.id, flip.id: back.id}
    # Identical contents never reach the oracle: a chunk cannot contradict itself.
    assert ("The flag is on.", "The flag is on.") not in oracle.pairs_scored


def test_equal_timestamps_never_dominate() -> None:
    a, b = cand("lives in Berlin", 3), cand("lives in Paris", 3)
    oracle = ScriptedOracle()
    oracle.contradict("lives in Berlin", "lives in Paris", 0.99)
    kept, dropped = stage_for(oracle).apply([a, b], ctx())
    assert {k.id for k in kept} == {a.id, b.id} and dropped == []
    assert oracle.pairs_scored == []  # not even scored
    # The pure function enforces it too, whatever verdicts it is handed.
    verdict = PairVerdict(a, b, 0.99, True)
    assert temporal_dominance([a, b], [verdict], threshold=0.5).dropped == []


def test_uncontradicted_old_chunks_survive() -> None:
    licence = cand("The project is licensed under Apache-2.0.", 0)
    old, new = cand("port 8000", 5), cand("port 8080", 9)
    oracle = ScriptedOracle()
    oracle.contradict("port 8000", "port 8080")
    kept, _ = stage_for(oracle).apply([licence, old, new], ctx())
    assert [k.id for k in kept] == [licence.id, new.id]  # input order kept


def test_below_threshold_is_no_conflict_and_threshold_change_reuses_scores() -> None:
    a, b = cand("x", 0), cand("y", 1)
    oracle = ScriptedOracle(threshold=0.5)
    oracle.contradict("x", "y", 0.4)
    stage = stage_for(oracle)
    assert stage.apply([a, b], ctx()).dropped == []
    oracle.threshold = 0.3
    assert [d.chunk.id for d in stage.apply([a, b], ctx()).dropped] == [a.id]
    assert oracle.calls == 1  # the second decision came from the log


def test_keyed_pairs_are_decided_without_the_oracle() -> None:
    same_a, same_b = cand("svc port 8000 (a)", 0), cand("svc port 8000 (b)", 1)
    flip_a, flip_b = cand("db host alpha", 2), cand("db host beta", 3)
    keyed: dict[str, KeyedFacts] = {
        same_a.id: {("svc", "port"): frozenset(["8000"])},
        same_b.id: {("svc", "port"): frozenset(["8000"])},
        flip_a.id: {("db", "host"): frozenset(["alpha"])},
        flip_b.id: {("db", "host"): frozenset(["beta"])},
    }
    oracle = ScriptedOracle()
    oracle.contradict("svc port 8000 (a)", "svc port 8000 (b)", 1.0)  # must not be consulted
    stage = stage_for(oracle, facts=lambda c: keyed.get(c.id, {}))
    kept, dropped = stage.apply([same_a, same_b, flip_a, flip_b], ctx())
    assert {k.id for k in kept} == {same_a.id, same_b.id, flip_b.id}
    (decision,) = dropped
    assert decision.chunk.id == flip_a.id and decision.details["source"] == "keyed"
    assert "db / host" in decision.reason
    scored = {frozenset(p) for p in oracle.pairs_scored}
    assert frozenset(("svc port 8000 (a)", "svc port 8000 (b)")) not in scored
    assert frozenset(("db host alpha", "db host beta")) not in scored


def test_cosine_floor_skips_dissimilar_pairs() -> None:
    a, b, c = cand("p", 0), cand("q", 1), cand("r", 2)
    oracle = ScriptedOracle()
    oracle.contradict("p", "q")
    oracle.contradict("p", "r")
    e = np.eye(3, dtype=np.float32)
    vectors = {a.id: e[0], b.id: (e[0] + e[1]) / np.sqrt(2), c.id: e[2]}
    _, dropped = stage_for(oracle, cosine_floor=0.5).apply([a, b, c], ctx(vectors))
    assert [d.dominated_by for d in dropped] == [b.id]  # (a, c) had cosine 0: skipped
    assert frozenset(("p", "r")) not in {frozenset(p) for p in oracle.pairs_scored}


def brute_force_phi_t(cands: Sequence[ScoredChunk], kappa: dict[frozenset[str], float]) -> set[str]:
    """Φ_T straight from the definition."""
    return {
        ci.id
        for ci in cands
        if not any(
            kappa.get(frozenset((ci.chunk.text, cj.chunk.text)), 0.0) >= 0.5
            and cj.chunk.ts > ci.chunk.ts
            and ci.chunk.content_hash != cj.chunk.content_hash
            for cj in cands
        )
    }


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), min_size=1, max_size=9),
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.floats(0, 1)), max_size=20),
    st.randoms(use_true_random=False),
)
def test_phi_t_matches_definition_and_ignores_input_order(
    items: list[tuple[int, int]],
    edges: list[tuple[int, int, float]],
    rnd: random.Random,
) -> None:
    # Text i at day d; repeated (text, day) combinations are distinct chunks (own turn ids).
    cands = [cand(f"s{t}", d, turn=f"turn-{n}") for n, (t, d) in enumerate(items)]
    kappa = {frozenset((f"s{x}", f"s{y}")): s for x, y, s in edges if x != y}
    oracle = ScriptedOracle(kappa)
    stage = stage_for(oracle)
    kept, dropped = stage.apply(cands, ctx())
    assert {k.id for k in kept} == brute_force_phi_t(cands, kappa)
    assert [k.id for k in kept] == [c.id for c in cands if c.id in {k.id for k in kept}]
    assert oracle.calls <= 1
    shuffled = list(cands)
    rnd.shuffle(shuffled)
    kept2, dropped2 = stage.apply(shuffled, ctx())
    assert {k.id for k in kept2} == {k.id for k in kept}
    summary = {(d.chunk.id, d.dominated_by, d.score, d.reason) for d in dropped}
    assert {(d.chunk.id, d.dominated_by, d.score, d.reason) for d in dropped2} == summary


# --- wiring into Memory, the registry, and the write-time precompute ---------------------------


def _turns(texts: list[tuple[str, int]]) -> list[Turn]:
    return [
        Turn(id=f"turn-{i}", namespace=NS, text=t, ts=T0 + timedelta(days=d))
        for i, (t, d) in enumerate(texts)
    ]


MEMORY = [
    ("The payments service runs on port 8000.", 0),
    ("The project is licensed under Apache-2.0.", 1),
    ("The payments service runs on port 8080.", 5),
    ("Sam complained about feeling winded after one flight of stairs.", 2),
    ("Sam jogged three miles before breakfast.", 8),
]


def _scripted() -> ScriptedOracle:
    oracle = ScriptedOracle()
    oracle.contradict(MEMORY[0][0], MEMORY[2][0], 0.83)
    oracle.contradict(MEMORY[3][0], MEMORY[4][0], 0.91)
    return oracle


def test_registry_shares_one_oracle_and_log(settings: Settings) -> None:
    oracle = _scripted()
    mem = Memory(settings, embedder=HashingEmbedder(), oracle=oracle, filters=[], ingest_stages=[])
    (dominance,) = build_filters(["dominance"], mem.resources)
    (precompute,) = build_chain([], ["verdict-precompute"], mem.resources)[1]
    assert isinstance(dominance, TemporalDominance) and isinstance(precompute, VerdictPrecompute)
    assert dominance.log is precompute.log is mem.resources.verdict_log
    assert dominance.log.oracle is oracle
    mem.close()


def test_precompute_lets_the_read_path_hit_the_log(settings: Settings) -> None:
    # the scripted κ contradicts pairs the anchoring test would only surface ("winded" /
    # "jogged" share no attribute word): this test is about the log, not that rule
    unanchored = settings.replace(dominance_anchor=False)
    mem = Memory(unanchored, embedder=HashingEmbedder(), filters=[], ingest_stages=[])
    oracle = _scripted()
    resources: Resources = mem.resources
    resources.given_oracle = oracle
    mem.filters = build_filters(["dominance"], resources)
    mem.ingest_stages = build_chain([], ["verdict-precompute"], resources)[1]
    report = mem.ingest(_turns(MEMORY))
    assert "verdict-precompute" in report.timings_ms
    log = resources.verdict_log
    assert log.size(NS) > 0
    calls = oracle.calls
    result = mem.retrieve("payments service port and Sam's fitness", namespace=NS, k=10)
    # Five chunks, m = 10 neighbours each: every pair was precomputed at ingest.
    assert oracle.calls == calls
    assert log.stats()["misses"] == log.size(NS)
    dropped = {d.chunk.chunk.text: d for d in result.dropped}
    assert set(dropped) == {MEMORY[0][0], MEMORY[3][0]}
    assert MEMORY[1][0] in result.texts  # the static fact survives
    assert dropped[MEMORY[3][0]].dominated_by_turn_id == "turn-4"
    mem.close()


def test_precompute_is_idempotent_on_redelivery(settings: Settings) -> None:
    mem = Memory(settings, embedder=HashingEmbedder(), filters=[], ingest_stages=[])
    oracle = _scripted()
    mem.resources.given_oracle = oracle
    mem.ingest_stages = build_chain([], ["verdict-precompute"], mem.resources)[1]
    mem.ingest(_turns(MEMORY))
    calls, size = oracle.calls, mem.resources.verdict_log.size(NS)
    mem.ingest(_turns(MEMORY))  # redelivered batch
    assert oracle.calls == calls and mem.resources.verdict_log.size(NS) == size
    mem.close()


def test_a_key_a_candidate_adds_a_value_to_is_no_keyed_conflict() -> None:
    # the grammar keys the first and the last the same ("under-12s ..." / "coached by"); the
    # middle one's "too" says the team has several coaches, so the last replaces nobody
    texts = [
        "Under-12s at Millbrook RFC are coached by Dave Ormerod, Level 2 badge.",
        "Under-12s at Millbrook RFC are coached by Sian Griffiths too, she played rugby.",
        "Under-12s at Millbrook RFC are coached by Kwame Boateng, he takes the forwards.",
    ]
    chunks = [cand(t, 7 * i) for i, t in enumerate(texts)]
    assert stage_for(ScriptedOracle(), facts=ledger_facts).apply(chunks, ctx()).dropped == []
    # without the "too" statement the keyed pair decides as before
    outcome = stage_for(ScriptedOracle(), facts=ledger_facts).apply([chunks[0], chunks[2]], ctx())
    assert [d.chunk.id for d in outcome.dropped] == [chunks[0].id]


def test_a_grown_list_is_no_keyed_conflict_and_a_shrunk_one_is() -> None:
    # every member of the older list is still one: the older line states nothing untrue
    def matrix(versions: str) -> str:
        return f"test.yml matrix:\n```yaml\n  python-version: [{versions}]\n```"

    older, grown = cand(matrix("'3.10'"), 0), cand(matrix("'3.10', '3.11'"), 7)
    assert (
        stage_for(ScriptedOracle(), facts=ledger_facts).apply([older, grown], ctx()).dropped == []
    )
    shrunk = cand(matrix("'3.11'"), 14)
    outcome = stage_for(ScriptedOracle(), facts=ledger_facts).apply([grown, shrunk], ctx())
    assert [d.chunk.id for d in outcome.dropped] == [grown.id]


def test_explicit_facts_reach_the_keyed_path(settings: Settings) -> None:
    """Chunks with explicit facts on the same (subject, relation) never cost an oracle call."""
    mem = Memory(settings, embedder=HashingEmbedder(), filters=[], ingest_stages=[])
    oracle = ScriptedOracle()
    log = VerdictLog(mem.redis, mem.keys, oracle)

    def explicit(chunk: Chunk) -> KeyedFacts:
        return {(f.subject, f.relation): frozenset([f.object]) for f in chunk.facts}

    mem.filters = [TemporalDominance(log, facts=explicit)]
    fact = [Fact(subject="payments", relation="port", object=o) for o in ("8000", "8080")]
    mem.ingest(
        [
            Turn(id="a", namespace=NS, text="payments on 8000", ts=T0, facts=[fact[0]]),
            Turn(
                id="b", namespace=NS, text="payments moved", ts=T0 + timedelta(1), facts=[fact[1]]
            ),
        ]
    )
    result = mem.retrieve("payments", namespace=NS)
    assert [d.chunk.turn_id for d in result.dropped] == ["a"]
    assert oracle.pairs_scored == []
    mem.close()


def test_the_ledgers_extractor_keys_value_flips_without_the_oracle() -> None:
    """The default fact reader is the supersession ledger's extractor (gcmem.facts.extract)."""
    old = cand("The payments service runs on port 8000.", 0)
    new = cand("The payments service runs on port 8080.", 4)
    again = cand("The payments service runs on port 8080 .", 6)  # same value, reinforced
    fit = cand("Sam jogged three miles before breakfast.", 5)  # no key: the oracle decides
    oracle = ScriptedOracle()
    kept, dropped = stage_for(oracle, facts=ledger_facts).apply([old, new, again, fit], ctx())
    assert [d.chunk.id for d in dropped] == [old.id]
    assert dropped[0].details["source"] == "keyed"
    assert {k.id for k in kept} == {new.id, again.id, fit.id}
    # Only pairs involving the unkeyed chunk reached the oracle.
    assert oracle.pairs_scored and all(fit.chunk.text in p for p in oracle.pairs_scored)


# --- the no-harm rule: drop only what can be defended, surface the rest -----------------------


def _confirmed_stage(
    oracle: ScriptedOracle, both: ScriptedOracle, **kwargs: object
) -> TemporalDominance:
    client = fakeredis.FakeRedis()
    return TemporalDominance(
        VerdictLog(client, Keyspace("test"), oracle),
        facts=no_facts,
        confirm=VerdictLog(client, Keyspace("test"), both),
        **kwargs,  # type: ignore[arg-type]
    )


def test_uncertain_pair_is_surfaced_not_dropped() -> None:
    old, new = cand("Sam is badly out of shape.", 0), cand("Sam is very fit.", 5)
    oracle = ScriptedOracle(threshold=0.6)
    oracle.contradict(old.chunk.text, new.chunk.text, 0.55)
    outcome = stage_for(oracle, surface_threshold=0.5).apply([old, new], ctx())
    assert kept_texts(outcome) == [old.chunk.text, new.chunk.text]
    assert outcome.dropped == []
    (conflict,) = outcome.conflicts
    assert (conflict.older.id, conflict.newer.id) == (old.id, new.id)
    assert conflict.score == pytest.approx(0.55) and "below 0.60" in conflict.reason


def test_kappa_without_confirmation_in_both_directions_is_surfaced() -> None:
    old, new = cand("Sam is badly out of shape.", 0), cand("Sam is very fit.", 5)
    oracle, both = ScriptedOracle(threshold=0.6), ScriptedOracle(threshold=0.8, name="both")
    oracle.contradict(old.chunk.text, new.chunk.text, 0.9)
    both.contradict(old.chunk.text, new.chunk.text, 0.3)
    outcome = _confirmed_stage(oracle, both).apply([old, new], ctx())
    assert outcome.dropped == [] and len(outcome.kept) == 2
    assert "0.30 < 0.80 in both" in outcome.conflicts[0].reason
    both.contradict(old.chunk.text, new.chunk.text, 0.85)  # a new θ would be rebuilt; new stage
    outcome = _confirmed_stage(oracle, both).apply([old, new], ctx())
    assert [d.chunk.id for d in outcome.dropped] == [old.id] and outcome.conflicts == []


def test_kappa_needs_a_common_subject_to_drop() -> None:
    # parallel keys: the same attribute of two subjects; κ fires, nothing names both
    us = cand("The US uploads bucket lives in us-east-1.", 0)
    eu = cand("The EU uploads bucket is in eu-west-1, Ireland.", 3)
    oracle = ScriptedOracle(threshold=0.6)
    oracle.contradict(us.chunk.text, eu.chunk.text, 0.95)
    outcome = stage_for(oracle, require_anchor=True, surface_threshold=0.5).apply([us, eu], ctx())
    assert outcome.dropped == [] and len(outcome.kept) == 2
    # ... nor a conflict: both are true, a note would cast doubt on one of them
    assert outcome.conflicts == []
    oracle.contradict(us.chunk.text, eu.chunk.text, 0.55)  # the uncertain band: the same
    outcome = stage_for(oracle, require_anchor=True, surface_threshold=0.5).apply([us, eu], ctx())
    assert outcome.dropped == [] and outcome.conflicts == []
    # the same κ between statements about one named subject is a drop
    a, b = cand("Priya lives in Leeds.", 0), cand("Priya lives in York now.", 3)
    oracle.contradict(a.chunk.text, b.chunk.text, 0.95)
    outcome = stage_for(oracle, require_anchor=True).apply([a, b], ctx())
    assert [d.chunk.id for d in outcome.dropped] == [a.id]


def test_two_values_of_an_attribute_that_holds_many_are_not_a_contradiction() -> None:
    # one span apart, the frame around it multi-valued by the ledger's policy table (the
    # instruments someone plays): the policy decides, never κ
    cello = cand("Priya plays the cello in the community orchestra on Wednesdays.", 0)
    horn = cand("Priya plays the trombone in the community orchestra on Wednesdays.", 5)
    oracle = ScriptedOracle(threshold=0.6)
    oracle.contradict(cello.chunk.text, horn.chunk.text, 0.95)
    table = PolicyTable()

    def policy(namespace: str, subject: str, relation: str, source: str | None) -> str:
        return table.resolve(namespace, subject, relation, source).policy

    outcome = stage_for(oracle, policy=policy, surface_threshold=0.5).apply([cello, horn], ctx())
    assert outcome.dropped == [] and len(outcome.kept) == 2 and outcome.conflicts == []
    # a single-valued frame one span apart is still κ's to decide
    a, b = cand("Priya lives in Leeds.", 0), cand("Priya lives in York.", 3)
    oracle.contradict(a.chunk.text, b.chunk.text, 0.95)
    outcome = stage_for(oracle, policy=policy).apply([a, b], ctx())
    assert [d.chunk.id for d in outcome.dropped] == [a.id]
    # without a policy table (every key latest-wins) κ decides as before
    outcome = stage_for(oracle).apply([cello, horn], ctx())
    assert [d.chunk.id for d in outcome.dropped] == [cello.id]


class AdaptedOracle(ScriptedOracle):
    """A scripted κ that says it runs with a supersession adapter: the score is then
    P(newer supersedes older), and Φ_T uses the adapter's rule."""

    adapter = Adapter({}, {"threshold": 0.99, "surface_threshold": 0.8}, "0" * 64)


def test_with_a_supersession_adapter_only_a_replacement_of_one_thing_is_dropped() -> None:
    oracle = AdaptedOracle(threshold=0.99)
    stage = stage_for(oracle, require_anchor=False, surface_threshold=0.8)
    assert stage.measure == SUPERSEDES and stage.drop_identity()["anchor"].startswith("apart")
    # worded unlike the older statement (the anchor's common-word test would keep it)
    old, new = (
        cand("Note to self: dentist is Dr. Okafor.", 0),
        cand("Mine is Dr. Lindqvist now.", 9),
    )
    oracle.contradict(old.chunk.text, new.chunk.text, 0.995)
    outcome = stage.apply([old, new], ctx())
    [dropped] = outcome.dropped
    assert dropped.chunk.id == old.id and dropped.details["measure"] == SUPERSEDES
    assert "superseded by newer chunk" in dropped.reason and "P(supersedes) 0.99" in dropped.reason
    # provably two things (parallel keys): neither dropped nor noted, however sure κ is
    staging = cand("The staging database listens on port 5433.", 0)
    prod = cand("The production database listens on port 5432.", 9)
    oracle.contradict(staging.chunk.text, prod.chunk.text, 0.999)
    outcome = stage.apply([staging, prod], ctx())
    assert outcome.dropped == [] and outcome.conflicts == [] and len(outcome.kept) == 2
    # a narrated past event stays true: surfaced, never dropped
    event = cand("I joined Brightwave as a data engineer in March 2021.", 0)
    now = cand("I work at Nordlicht now.", 9)
    oracle.contradict(event.chunk.text, now.chunk.text, 0.999)
    outcome = stage.apply([event, now], ctx())
    assert outcome.dropped == [] and len(outcome.kept) == 2
    [conflict] = outcome.conflicts
    assert conflict.older.id == event.id and "narrates a past event" in conflict.reason
    # the band below the drop threshold is surfaced with the adapter's measure
    oracle.contradict(old.chunk.text, new.chunk.text, 0.9)
    outcome = stage_for(oracle, require_anchor=False, surface_threshold=0.8).apply(
        [old, new], ctx()
    )
    assert (
        outcome.dropped == [] and "P(supersedes) 0.90 is below 0.99" in outcome.conflicts[0].reason
    )


def test_context_dates_and_notes_surfaced_conflicts() -> None:
    old, new = cand("Sam is badly out of shape.", 0), cand("Sam is very fit.", 5)
    oracle = ScriptedOracle(threshold=0.6)
    oracle.contradict(old.chunk.text, new.chunk.text, 0.55)
    cands = CandidateSet(candidates=[new, old], context=ctx(), k=2, variants=[], timings_ms={})
    result = run_filter_chain(cands, [stage_for(oracle, surface_threshold=0.5)])
    text = result.context()
    assert "[1] (2026-01-10) Sam is very fit." in text
    assert "Note: [2] (2026-01-05) may be superseded by [1] (2026-01-10)." in text


def test_pair_budget_judges_the_most_relevant_pairs_and_reports_the_rest() -> None:
    # 12 candidates, 66 pairs needing κ; a budget of 10 judges the 10 most relevant pairs.
    cands = [cand(f"statement number {i}", i, score=1.0 - i / 100) for i in range(12)]
    oracle = ScriptedOracle()
    # The two most relevant chunks contradict (judged); two of the least relevant do too
    # (beyond the budget: not judged, both kept).
    oracle.contradict(cands[0].chunk.text, cands[1].chunk.text)
    oracle.contradict(cands[10].chunk.text, cands[11].chunk.text)
    stage = stage_for(oracle, pair_budget=10)
    context = ctx()
    kept, dropped = stage.apply(cands, context)
    assert len(oracle.pairs_scored) == 10
    assert [d.chunk.id for d in dropped] == [cands[0].id]
    assert cands[10].id in {k.id for k in kept}
    assert context.budgets["dominance"] == {
        "pair_budget": 10,
        "oracle_pairs": 66,
        "judged": 10,
        "unscored": 56,
        "past_deadline": 0,
    }
    # Deterministic: the same candidates in another order judge the same pairs, and a
    # second run (with the log now holding those verdicts) decides the same.
    again = stage_for(oracle, pair_budget=10)
    shuffled = list(reversed(cands))
    kept2, dropped2 = again.apply(shuffled, ctx())
    assert [d.chunk.id for d in dropped2] == [cands[0].id]
    assert {k.id for k in kept2} == {k.id for k in kept}
    # Without a budget every pair is judged and both contradictions count.
    unbounded = stage_for(ScriptedOracle(dict(oracle.table)))
    context3 = ctx()
    _, dropped3 = unbounded.apply(cands, context3)
    assert {d.chunk.id for d in dropped3} == {cands[0].id, cands[10].id}
    assert context3.budgets == {}


def test_retrieval_result_carries_the_budget_report(settings: Settings) -> None:
    s = settings.replace(oracle_pair_budget=3, stm_size=0)
    oracle = ScriptedOracle()
    with Memory(s, embedder=HashingEmbedder()) as memory:
        memory.resources.given_oracle = oracle
        memory.filters = build_filters(["dominance"], memory.resources)
        turns = [
            Turn(
                id=f"t{i}",
                namespace=NS,
                text=f"Alice enjoyed the concert {i} a lot",
                ts=T0 + timedelta(days=i),
            )
            for i in range(6)
        ]
        memory.ingest(turns)
        result = memory.retrieve("did Alice enjoy the concert", namespace=NS, k=6)
    assert result.candidates == 6
    assert result.budgets["dominance"]["judged"] == 3
    assert result.budgets["dominance"]["unscored"] == 15 - 3
    assert len(oracle.pairs_scored) == 3


class _SlowOracle(ScriptedOracle):
    """Stands for a model on a slow device: each batch takes a while."""

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        import time

        time.sleep(0.25)
        return super().score(pairs)


def test_a_deadline_stops_kappa_between_slices_most_relevant_first() -> None:
    from gcmem.filters.base import work_deadline
    from gcmem.filters.dominance import DEADLINE_SLICE

    cands = [cand(f"statement number {i}", i, score=1.0 - i / 1000) for i in range(40)]
    pairs = 40 * 39 // 2
    oracle = _SlowOracle()
    oracle.contradict(cands[0].chunk.text, cands[1].chunk.text)  # the most relevant pair
    context = ctx()
    # Generous beside one slice (0.25 s), so that planning 780 pairs on a loaded runner still
    # leaves time for the first slice; 25 slices would take over 6 s.
    with work_deadline(0.8):
        _, dropped = stage_for(oracle).apply(cands, context)
    report = context.budgets["dominance"]
    assert 0 < report["judged"] < pairs and report["judged"] % DEADLINE_SLICE == 0
    assert report["past_deadline"] == report["unscored"] == pairs - report["judged"]
    assert [d.chunk.id for d in dropped] == [cands[0].id], "the most relevant pairs went first"
    # Without a deadline: one oracle call for every pair, nothing reported.
    unbounded = _SlowOracle()
    context2 = ctx()
    stage_for(unbounded).apply(cands, context2)
    assert unbounded.calls == 1 and len(unbounded.pairs_scored) == pairs
    assert context2.budgets == {}


# --- keyed conflicts decide a chunk by its statements -----------------------------------------
def _keyed(old: ScoredChunk, new: ScoredChunk) -> PairVerdict:
    return PairVerdict(old, new, 1.0, True, "keyed", ("payments service / port",))


def test_a_keyed_conflict_excises_the_stale_statement_and_keeps_the_still_true_one() -> None:
    old = cand("The payments service runs on port 8000. Deploys happen on Tuesdays.", 0)
    new = cand("The payments service runs on port 8080.", 3)
    outcome = temporal_dominance([old, new], [_keyed(old, new)], threshold=0.5)
    assert outcome.dropped == []
    kept = next(c for c in outcome.kept if c.id == old.id)
    [stale] = kept.stale_sentences
    assert (stale.index, stale.value, stale.current_value) == (0, "8000", "8080")
    assert stale.superseded_by == new.id and stale.stage == "dominance"
    assert stale.since == new.chunk.ts
    assert kept.visible_text == (
        "[superseded on 2026-01-08; current value: 8080] Deploys happen on Tuesdays."
    )


def test_a_keyed_conflict_drops_a_chunk_that_says_nothing_else() -> None:
    old = cand("The payments service runs on port 8000.", 0)
    new = cand("The payments service runs on port 8080.", 3)
    outcome = temporal_dominance([old, new], [_keyed(old, new)], threshold=0.5)
    assert [d.chunk.id for d in outcome.dropped] == [old.id]


def test_a_keyed_conflict_drops_a_chunk_whose_other_statements_the_newer_one_restates() -> None:
    old = cand("The payments service runs on port 8000. It is owned by the Ledger team.", 0)
    new = cand("The payments service runs on port 8080. It is owned by the Ledger team.", 3)
    outcome = temporal_dominance([old, new], [_keyed(old, new)], threshold=0.5)
    assert [d.chunk.id for d in outcome.dropped] == [old.id]


def test_a_statement_naming_the_replaced_distinctive_value_goes_with_it() -> None:
    old = cand("Our design system is called Bedrock. Bedrock ships weekly.", 0)
    new = cand("Our design system is called Atlas.", 3)
    verdict = PairVerdict(old, new, 1.0, True, "keyed", ("design system / name",))
    outcome = temporal_dominance([old, new], [verdict], threshold=0.5)
    assert [d.chunk.id for d in outcome.dropped] == [old.id]
    # ... but a hedged one does not assert it, and keeps the chunk (excised where it is stale)
    old = cand("Our design system is called Bedrock. We might fork Bedrock later.", 0)
    verdict = PairVerdict(old, new, 1.0, True, "keyed", ("design system / name",))
    outcome = temporal_dominance([old, new], [verdict], threshold=0.5)
    assert outcome.dropped == []
    kept = next(c for c in outcome.kept if c.id == old.id)
    assert [s.index for s in kept.stale_sentences] == [0]


def test_an_oracle_verdict_on_a_pair_the_ledger_explained_neither_drops_nor_surfaces() -> None:
    old = cand("The crit is in the Orion room. Snacks are on Priya.", 0)
    new = cand("The crit is in the Vega room.", 3)
    note = StaleSentence(
        index=0,
        text="The crit is in the Orion room.",
        key="k",
        value="Orion",
        current_value="Vega",
        superseded_by=new.id,
    )
    old = old.model_copy(update={"stale_sentences": (note,)})
    oracle = ScriptedOracle({frozenset({old.chunk.text, new.chunk.text}): 0.99})
    outcome = stage_for(oracle, surface_threshold=0.1).apply([old, new], ctx())
    assert oracle.pairs_scored  # κ did judge the pair: its verdict is set aside
    assert outcome.dropped == [] and outcome.conflicts == []
    assert {c.id for c in outcome.kept} == {old.id, new.id}


def test_kappa_drops_a_passage_only_when_the_newer_chunk_restates_the_rest_of_it() -> None:
    passage = cand(
        "Ada Lane was born in Leeds in 1931. She taught chemistry at Hull until 1970.", 0
    )
    other = cand("Ada Lane taught physics at York from 1972.", 3)
    revision = cand("Ada Lane was born in Leeds in 1931. She taught physics at Hull until 1970.", 5)
    oracle = ScriptedOracle(
        {
            frozenset({passage.chunk.text, other.chunk.text}): 0.99,
            frozenset({passage.chunk.text, revision.chunk.text}): 0.99,
        }
    )
    stage = stage_for(oracle, surface_threshold=0.1)
    # a statement about one of the passage's topics: κ's verdict is surfaced, not a drop
    outcome = stage.apply([passage, other], ctx())
    assert outcome.dropped == [] and len(outcome.conflicts) == 1
    assert "says more than the newer one restates" in outcome.conflicts[0].reason
    # a revision of the whole passage: κ may drop it
    outcome = stage.apply([passage, revision], ctx())
    assert [d.chunk.id for d in outcome.dropped] == [passage.id]
