"""Sweep metrics on hand-built contexts, its statistics, its label-driven oracles (run through
gcmem's own Φ_T stage and verdict log), the baseline rankers, and the resumable record store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import fakeredis
import numpy as np
import pytest

from bench.scenarios.model import Scenario, ScenarioTurn
from bench.sweep.config import SweepConfig, reachable
from bench.sweep.metrics import InstanceLabels, context_metrics, majority_reader, top_reader
from bench.sweep.oracles import GoldLabels, GoldOracle, NoisyGoldOracle, false_positive_rate
from bench.sweep.report import detector_summary
from bench.sweep.stats import bootstrap, paired_delta
from bench.sweep.store import RecordStore
from gcmem.filters.base import QueryContext
from gcmem.filters.baselines import (
    FactorWeights,
    MultiFactorRanker,
    TimestampRerank,
    UsageCounter,
)
from gcmem.filters.dominance import TemporalDominance
from gcmem.filters.registry import build_filters
from gcmem.filters.resources import Resources
from gcmem.models import ScoredChunk
from gcmem.oracle.base import ConflictOracle
from gcmem.oracle.pairs import no_facts
from gcmem.oracle.verdicts import VerdictLog
from gcmem.settings import load_settings
from gcmem.storage.redis import Keyspace, open_redis
from tests.doubles import HashingEmbedder, scored_chunk

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
NS = "ns"


def scenario(
    turns: list[tuple[str, str, str | None]], answer: str = "B", kind: str = "behavioral"
) -> Scenario:
    """turns: (text, role, state) in time order, one day apart."""
    stale = sorted({s for _, r, s in turns if r == "old" and s is not None})
    return Scenario.model_validate(
        {
            "id": "inst",
            "kind": kind,
            "category": "fitness",
            "question": "How fit is Sam?",
            "answer": answer,
            "stale_answers": stale,
            "turns": [
                {
                    "id": f"t{i}",
                    "text": text,
                    "ts": T0 + timedelta(days=i),
                    "role": role,
                    "state": state,
                }
                for i, (text, role, state) in enumerate(turns)
            ],
        }
    )


@pytest.fixture
def inst() -> Scenario:
    return scenario(
        [
            ("Sam was winded on the stairs.", "old", "A"),  # t0
            ("Sam sat on the sofa all day.", "old", "A"),  # t1
            ("Sam has a cat named Luna.", "static", None),  # t2
            ("The printer jammed.", "distractor", None),  # t3
            ("Sam gave up on the hike.", "old", "A"),  # t4
            ("Sam ran ten kilometres.", "new", "B"),  # t5
            ("Sam swam fifty lengths.", "new", "B"),  # t6
        ]
    )


def test_context_metrics_on_a_hand_built_context(inst: Scenario) -> None:
    labels = InstanceLabels.of(inst)
    pool = ["t0", "t1", "t2", "t3", "t5"]
    rag = context_metrics(labels, ["t0", "t1", "t5", "t2", "t3"], pool)
    assert rag["purity"] == 0.0 and rag["stale_exposure"] == 1.0
    assert rag["recall_current"] == 0.5 and rag["recall_old"] == pytest.approx(2 / 3)
    assert rag["recall_static"] == 1.0 and rag["recall_distractor"] == 1.0
    assert rag["stale_share"] == pytest.approx(2 / 5)
    assert rag["shadows_removed"] == 0.0 and rag["static_retention"] == 1.0
    assert rag["accuracy_majority"] == 0.0 and rag["stale_answer_majority"] == 1.0  # 2 A vs 1 B
    assert rag["accuracy_top"] == 0.0  # t0 (state A) ranks first
    filtered = context_metrics(labels, ["t5", "t2", "t3"], pool)
    assert filtered["purity"] == 1.0 and filtered["purity_if_retrieved"] == 1.0
    assert filtered["shadows_removed"] == 2.0 and filtered["static_retention"] == 1.0
    assert filtered["accuracy_majority"] == 1.0 and filtered["accuracy_top"] == 1.0
    collateral = context_metrics(labels, ["t5", "t3"], pool)
    assert collateral["static_retention"] == 0.0
    empty = context_metrics(labels, ["t3"], pool)
    assert empty["abstain_majority"] == 1.0 and empty["accuracy_majority"] == 0.0
    assert empty["purity"] == 0.0
    missed = context_metrics(labels, ["t3"], ["t3", "t0"])
    assert missed["purity_if_retrieved"] is None  # nothing current was retrieved
    # A turn split into several chunks counts once.
    assert context_metrics(labels, ["t5", "t5", "t2"], pool)["context_size"] == 2.0


def test_readers_break_ties_by_rank(inst: Scenario) -> None:
    labels = InstanceLabels.of(inst)
    assert majority_reader(labels, ["t3", "t5", "t0"]) == "B"  # 1-1 tie: the higher-ranked
    assert majority_reader(labels, ["t0", "t5"]) == "A"
    assert majority_reader(labels, ["t0", "t5", "t6"]) == "B"
    assert top_reader(labels, ["t3", "t2", "t6", "t0"]) == "B"
    assert top_reader(labels, ["t3"]) is None


def test_static_instance_current_turns() -> None:
    static = scenario(
        [("Sam walked the terrier.", "static", "dog"), ("Printer jammed.", "distractor", None)],
        answer="dog",
        kind="static",
    )
    labels = InstanceLabels.of(static)
    m = context_metrics(labels, ["t0"], ["t0", "t1"])
    assert m["purity"] == 1.0 and m["accuracy_majority"] == 1.0
    # Current-state recall is a property of evolving facts only.
    assert m["recall_current"] is None and m["recall_old"] is None
    assert m["static_retention"] == 1.0


def test_bootstrap_and_paired_delta() -> None:
    est = bootstrap([0.0, 1.0] * 50, resamples=2000)
    assert est.mean == 0.5 and est.lo < 0.5 < est.hi and est.hi - est.lo < 0.25
    flat = bootstrap([1.0, 1.0, 1.0])
    assert (flat.lo, flat.hi) == (1.0, 1.0)
    assert bootstrap([]).n == 0 and bootstrap([]).as_dict()["mean"] is None
    treat, ctrl = [1.0] * 30 + [0.0] * 10, [0.0] * 30 + [0.0] * 10
    delta = paired_delta(treat, ctrl)
    assert delta.mean == 0.75 and delta.lo > 0.5
    with pytest.raises(ValueError):
        paired_delta([1.0], [1.0, 0.0])


# --- oracles ---------------------------------------------------------------------------------


def cand(text: str, day: float, turn: str, score: float = 0.5) -> ScoredChunk:
    return scored_chunk(text, day, turn, score, namespace=NS, t0=T0)


def test_gold_oracle_through_gcmems_dominance_stage(inst: Scenario) -> None:
    labels = GoldLabels(inst, chunk_max_chars=480)
    oracle: ConflictOracle = GoldOracle(labels)
    assert isinstance(oracle, ConflictOracle)
    log = VerdictLog(fakeredis.FakeRedis(), Keyspace("t"), oracle)
    stage = TemporalDominance(log, facts=no_facts)
    texts = {t.id: t for t in inst.turns}
    cands = [cand(texts[t].text, i, t) for i, t in enumerate(["t0", "t1", "t2", "t3", "t4", "t5"])]
    ctx = QueryContext(query="q", namespace=NS, as_of=T0 + timedelta(days=30))
    kept, dropped = stage.apply(cands, ctx)
    assert [c.turn_id for c in kept] == ["t2", "t3", "t5"]  # stale gone, static and distractor kept
    assert {d.chunk.turn_id for d in dropped} == {"t0", "t1", "t4"}
    assert all(d.dominated_by_turn_id == "t5" for d in dropped)
    # Verdicts are logged once per pair: a second pass is all hits.
    again = stage.verdicts(cands, ctx)
    assert again.misses == 0 and again.hits > 0


def test_gold_labels_reject_ambiguous_texts() -> None:
    bad = scenario([("Same words.", "old", "A"), ("Same words.", "new", "B")])
    with pytest.raises(ValueError, match="share a text"):
        GoldLabels(bad, chunk_max_chars=480)


def test_noisy_oracle_hits_its_precision_and_recall_in_expectation() -> None:
    # 400 statements in 4 states: pairs across states contradict (~75% of all pairs), so pick a
    # population with base rate 0.2: every positive pair among the first 60 + negatives.
    turns = [(f"statement number {i}", "old", "ABCD"[i % 4]) for i in range(399)]
    turns.append(("final statement", "new", "B"))
    inst = scenario(turns, answer="B")
    labels = GoldLabels(inst, chunk_max_chars=480)
    texts = [t.text for t in inst.turns]
    pos = [(a, b) for i, a in enumerate(texts) for b in texts[i + 1 :] if labels.contradicts(a, b)]
    neg = [
        (a, b) for i, a in enumerate(texts) for b in texts[i + 1 :] if not labels.contradicts(a, b)
    ]
    population = pos[:4000] + neg[:16000]
    base_rate = 4000 / 20000
    for recall, precision in ((0.3, 0.9), (0.8, 0.75), (1.0, 1.0)):
        oracle = NoisyGoldOracle(labels, recall=recall, precision=precision, base_rate=base_rate)
        flagged = oracle.decide(oracle.score(population))
        truth = np.array([True] * 4000 + [False] * 16000)
        tp = int((flagged & truth).sum())
        assert tp / truth.sum() == pytest.approx(recall, abs=0.03)
        assert tp / flagged.sum() == pytest.approx(precision, abs=0.03)
    # Coupled draws: a higher-recall detector catches a superset.
    low = NoisyGoldOracle(labels, recall=0.3, precision=1.0, base_rate=base_rate)
    high = NoisyGoldOracle(labels, recall=0.6, precision=1.0, base_rate=base_rate)
    lo_hits, hi_hits = low.score(pos[:2000]), high.score(pos[:2000])
    assert np.all(hi_hits >= lo_hits)
    assert low.identity.digest != high.identity.digest


def test_false_positive_rate_bounds() -> None:
    assert false_positive_rate(1.0, 1.0, 0.2) == 0.0
    assert false_positive_rate(0.5, 0.5, 0.5) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="unreachable"):
        false_positive_rate(1.0, 0.05, 0.5)
    with pytest.raises(ValueError):
        false_positive_rate(0.0, 0.9, 0.2)


def test_unreachable_noisy_detectors_are_skipped_not_fatal() -> None:
    # Smoke-sized sets have many contradictions (base rate ~0.19): precision 0.1 cannot exist
    # there at any recall, precision 0.15 only up to recall ~0.75. The default grid must run.
    config = SweepConfig(noisy_recalls=(0.5, 1.0), noisy_precisions=(1.0, 0.15, 0.1))
    assert len(config.noisy_names()) == 6
    kept = {(p, r) for _, p, r in config.noisy_names(base_rate=0.19)}
    assert kept == {(1.0, 0.5), (1.0, 1.0), (0.15, 0.5)}
    for p in (1.0, 0.9, 0.5, 0.3, 0.2, 0.1):
        for r in (0.1, 0.5, 1.0):
            ok = reachable(p, r, 0.19)
            if ok:
                assert 0 <= false_positive_rate(r, p, 0.19) <= 1
            else:
                with pytest.raises(ValueError, match="unreachable"):
                    false_positive_rate(r, p, 0.19)
    assert SweepConfig(oracles=("gold",)).noisy_names(base_rate=0.1) == []


def _est(mean: float, half: float = 0.02) -> dict[str, float]:
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": 100}


def _detector_results(phi_means: list[float]) -> dict[str, Any]:
    """A results.json shape with one precision (1.0) and recalls 0.1, 0.5, 1.0."""
    recalls = [0.1, 0.5, 1.0]
    rows: list[dict[str, Any]] = [
        {"recall": r, "gcmem": [_est(m + 0.15)], "phi": [_est(m)]}
        for r, m in zip(recalls, phi_means, strict=True)
    ]
    starts: dict[str, float | None] = {}
    for part in ("gcmem", "phi"):
        start = None
        for row in reversed(rows):
            if row[part][0]["lo"] <= 0:
                break
            start = row["recall"]
        starts[part] = start
    return {
        "detector": {
            "precisions": [1.0],
            "rows": rows,
            "helps_from": {part: {"1": s} for part, s in starts.items()},
        },
        "conditions": {"supersession|off": {"delta_vs_rag": {"accuracy_majority": _est(0.15)}}},
    }


def test_detector_summary_states_the_threshold_from_the_numbers() -> None:
    everywhere = detector_summary(_detector_results([0.05, 0.2, 0.35]))
    assert everywhere.startswith("No recall threshold in the range tested: at precision 1 ")
    assert "+0.05 at recall 0.1, +0.20 at recall 0.5, +0.35 at recall 1" in everywhere
    assert "pre-filter alone: +0.15" in everywhere
    knee = detector_summary(_detector_results([-0.01, 0.2, 0.35]))
    assert "at recall ≥ 0.1 for full gcmem and ≥ 0.5 for Φ_T alone; below that" in knee
    never = detector_summary(_detector_results([-0.3, -0.2, -0.1]))
    assert "and nowhere for Φ_T alone" in never
    worse = detector_summary(_detector_results([-0.5, -0.4, -0.3]))
    assert "never has its 95% interval above zero, at any recall tested (0.1-1)" in worse
    assert detector_summary({}).startswith("Not measured")


# --- baselines ---------------------------------------------------------------------------------


def test_timestamp_rerank_keeps_the_newest_k() -> None:
    cands = [cand("a", 1, "a", 0.9), cand("b", 5, "b", 0.1), cand("c", 3, "c", 0.5)]
    ctx = QueryContext(query="q", namespace=NS, as_of=T0 + timedelta(days=10))
    kept, dropped = TimestampRerank(2).apply(cands, ctx)
    assert [c.turn_id for c in kept] == ["b", "c"]  # newest first, whatever the relevance
    assert [d.chunk.turn_id for d in dropped] == ["a"] and "2 newest" in dropped[0].reason
    assert TimestampRerank(5).apply(cands, ctx).dropped == []
    with pytest.raises(ValueError):
        TimestampRerank(0)


def test_multi_factor_behaves_as_defined() -> None:
    embed = HashingEmbedder(dim=32)
    texts = ["Sam was out of breath on the stairs"] * 3 + ["Sam ran a marathon", "printer jam"]
    cands = [
        cand(texts[0], 1, "old1", 0.80),
        cand(texts[1] + " again", 40, "old2", 0.82),
        cand(texts[2] + " twice", 80, "old3", 0.81),
        cand(texts[3], 100, "new", 0.79),
        cand(texts[4], 99, "noise", 0.20),
    ]
    vecs = embed.embed([c.chunk.text for c in cands])
    ctx = QueryContext(
        query="q",
        namespace=NS,
        as_of=T0 + timedelta(days=101),
        vectors={c.id: v for c, v in zip(cands, vecs, strict=True)},
    )
    client = fakeredis.FakeRedis()
    usage = UsageCounter(client, Keyspace("t"))
    ids = {c.turn_id: c.id for c in cands}
    relevance_only = MultiFactorRanker(5, weights=FactorWeights(1, 0, 0, 0), usage=usage)
    assert [c.turn_id for c in relevance_only.apply(cands, ctx).kept] == [
        "old2",
        "old3",
        "old1",
        "new",
        "noise",
    ]
    assert usage.counts(NS, [ids["old2"], ids["noise"]]) == [1, 1]  # serving is using
    recency_only = MultiFactorRanker(
        2, weights=FactorWeights(0, 1, 0, 0), record_usage=False, usage=usage
    )
    kept, dropped = recency_only.apply(cands, ctx)
    assert [c.turn_id for c in kept] == ["new", "noise"] and len(dropped) == 3
    assert usage.counts(NS, [ids["new"]]) == [1]  # record_usage=False left the counts alone
    factors = MultiFactorRanker(3, similarity=0.5).factors(cands, ctx)
    assert factors.shape == (5, 4) and (factors >= 0).all() and (factors <= 1).all()
    assert factors[:3, 3].max() == 1.0 and factors[3, 3] == 0.0  # restated longest = stable
    # Default weights under accumulation: the restated, served stale majority outranks the one
    # current chunk (the failure this baseline exists to show).
    usage.record(NS, [ids["old1"], ids["old2"], ids["old3"]])
    kept = MultiFactorRanker(3, usage=usage, similarity=0.5).apply(cands, ctx).kept
    assert "new" not in [c.turn_id for c in kept]


def test_baselines_are_registered_stages(tmp_path: Path) -> None:
    settings = load_settings(
        data_dir=tmp_path, ephemeral=True, top_k=4, baseline_k=2, multifactor_weights=[1, 0, 0, 0]
    )
    client = open_redis(settings.storage)
    res = Resources(settings, client, Keyspace("t"), index=None, embedder=HashingEmbedder())  # type: ignore[arg-type]
    ts, mf = build_filters(["timestamp-rerank", "multi-factor"], res)
    assert isinstance(ts, TimestampRerank) and ts.k == 2
    assert isinstance(mf, MultiFactorRanker) and mf.k == 2 and mf.weights[0] == 1.0
    with pytest.raises(ValueError, match="4 non-negative weights"):
        load_settings(multifactor_weights=[1, 2])


# --- the record store ----------------------------------------------------------------------------


def test_record_store_resumes_after_a_torn_write(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    store = RecordStore(path)
    store.append({"id": "a", "x": 1})
    store.append({"id": "b", "x": 2})
    with path.open("a") as fh:
        fh.write('{"id": "c", "x"')  # the process died mid-write
    reopened = RecordStore(path)
    assert reopened.ids() == {"a", "b"}
    reopened.append({"id": "c", "x": 3})
    assert [r["id"] for r in RecordStore(path)] == ["a", "b", "c"]
    path.write_text('{"id": "a"}\nnot json\n{"id": "b"}\n')
    with pytest.raises(ValueError, match=r"r\.jsonl:2"):
        RecordStore(path).ids()


def test_turn_model_roundtrip() -> None:
    t = ScenarioTurn(id="x", text="hi", ts=T0, role="static", state=None)
    assert ScenarioTurn.model_validate_json(t.model_dump_json()) == t


def test_verdict_archive_reuses_scores_across_runs(tmp_path: Path) -> None:
    from bench.sweep.archive import VerdictArchive
    from tests.doubles import ScriptedOracle

    a, b = cand("The port is 8000.", 0, "a"), cand("The port is 8080.", 1, "b")
    ctx = QueryContext(query="q", namespace=NS, as_of=T0 + timedelta(days=9))
    oracle = ScriptedOracle({frozenset((a.chunk.text, b.chunk.text)): 0.55})
    first = VerdictLog(fakeredis.FakeRedis(), Keyspace("t"), oracle)
    archive = VerdictArchive(tmp_path, first.theta)
    assert archive.seed(first, NS, "inst") is None
    assert TemporalDominance(first, facts=no_facts).apply([a, b], ctx).dropped  # 0.55 >= 0.5
    archive.save(first, NS, "inst", cold_ms=12.0, misses=1)
    # A later run, another process, a stricter threshold: no model call, a different decision.
    oracle.threshold = 0.6
    later = VerdictLog(fakeredis.FakeRedis(), Keyspace("t"), oracle)
    reopened = VerdictArchive(tmp_path, later.theta)
    entry = reopened.seed(later, NS, "inst")
    assert entry is not None and entry["cold_ms"] == 12.0
    calls = oracle.calls
    assert not TemporalDominance(later, facts=no_facts).apply([a, b], ctx).dropped
    assert oracle.calls == calls
