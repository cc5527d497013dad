"""The sweep harness: two resumable phases over a scenario file.

Phase 1, retrieval (per instance): ingest every turn into the instance's own namespace with
the real embedder and the supersession ledger on, in event-time order and in stages; between
stages the question is asked once through the multi-factor ranker, which is how its usage
counts accrue (an agent consults its memory over time). Then the candidate set R_k is gathered
once (MTM top-k fused over query variants, ∪ the STM buffer) and every condition that needs no
conflict oracle runs on it: standard RAG, timestamp re-ranking, multi-factor scoring and the
supersession pre-filter, with the STM buffer off (R_k without its STM-only members) and on.
Bag-of-facts ranks every chunk of the instance (k = ∞). R_k is stored (chunks, scores,
sources, vectors) with the supersession outcome, so phase 2 needs no index and no ledger.

Phase 2, evaluation (per instance): Φ_T (gcmem's ``TemporalDominance`` stage and verdict log)
with every oracle on the identical stored candidate sets: alone (κ decides every pair) and as
full gcmem (after the supersession pre-filter, keyed pairs decided by the ledger's rule). One
verdict log per oracle serves every condition and both STM settings, so each pair is scored
once per oracle. Noisy-gold oracles get the base rate of true contradictions among the pairs
Φ_T schedules, measured over the whole run after phase 1.

Both phases append one JSON line per instance (``RecordStore``) and skip instances already
recorded: an interrupted run resumes where it stopped. Files are keyed by a digest of what
they depend on, so a changed setting starts a new file instead of mixing results.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import redis

from bench.cleanup import delete_matching
from bench.embedding import CachedEmbedder
from bench.scenarios.model import Scenario
from bench.sweep.archive import VerdictArchive
from bench.sweep.config import SweepConfig
from bench.sweep.oracles import GoldLabels, GoldOracle, NoisyGoldOracle
from gcmem.embedding import Embedder
from gcmem.filters.base import CandidateFilter, QueryContext
from gcmem.filters.baselines import FactorWeights, MultiFactorRanker, TimestampRerank, UsageCounter
from gcmem.filters.dominance import TemporalDominance
from gcmem.filters.dominance_gc import STAGE as DOMINANCE_GC
from gcmem.filters.registry import build_filters
from gcmem.memory import Memory
from gcmem.memory.candidates import CandidateSet, gather_candidates, run_filter_chain
from gcmem.models import Chunk, RetrievalResult, ScoredChunk
from gcmem.oracle.base import ConflictOracle
from gcmem.oracle.pairs import ledger_facts, no_facts
from gcmem.oracle.relatedness import ANCHOR_VERSION
from gcmem.oracle.verdicts import VerdictLog
from gcmem.settings import Settings
from gcmem.storage.mtm import open_index
from gcmem.storage.mtm.index import DominatedIndex, FlagIndex, MediumTermIndex
from gcmem.storage.redis import Keyspace

# Bumped whenever a record's layout changes, so old work files are never misread.
RECORD_FORMAT = 2
STM_MODES = ("off", "on")
RETRIEVAL_CONDITIONS = ("rag", "timestamp", "multi-factor", "supersession")
BAG = "bag-of-facts"
# Conditions on R'_k, the candidate set retrieved with write-time GC exclusion.
GC_PREFILTER = "supersession+gc"
GC_FULL = "gcmem+gc"
# Full gcmem on R''_k: write-time GC with κ flags too (the dominance-gc ingest stage), each
# oracle on its own ingest (flags are the oracle's decisions).
KGC_FULL = "gcmem+kgc"
CANDIDATE_STAGES = ("expand", "embed", "search", "stm")


def key(condition: str, stm: str) -> str:
    return f"{condition}|{stm}"


def digest(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:12]


def retrieval_identity(
    config: SweepConfig, settings: Settings, scenarios_sha: str
) -> dict[str, Any]:
    """Everything phase 1's records depend on."""
    return {
        "format": RECORD_FORMAT,
        "scenarios": scenarios_sha,
        "k": config.k,
        "stm_size": config.stm_size,
        "context_k": config.context_k,
        "usage_queries": config.usage_queries,
        "embedder": settings.models.embedder,
        "chunk_max_chars": settings.memory.chunk_max_chars,
        "multifactor": [
            settings.baselines.weights,
            settings.baselines.half_life_days,
            settings.baselines.similarity,
        ],
        "supersession_gc": settings.supersession.gc,
    }


def evaluation_identity(
    config: SweepConfig, settings: Settings, retrieval_digest: str, nli_identity: str | None
) -> dict[str, Any]:
    return {
        "format": RECORD_FORMAT,
        "retrieval": retrieval_digest,
        "oracles": list(config.oracles),
        "noisy": [
            config.noisy_precisions,
            config.noisy_recalls,
            config.noisy_seed,
            config.noisy_stm,
        ],
        "nli": nli_identity,
        "threshold": settings.oracle.threshold,
        "cosine_floor": settings.dominance.cosine_floor,
        "rule": [
            settings.dominance.anchor and ANCHOR_VERSION,
            settings.dominance.confirm_threshold,
            settings.oracle.calibration_threshold,
        ],
    }


# --- (de)serialisation of candidate sets -------------------------------------------------------


def _b64(vec: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vec, dtype=np.float32).tobytes()).decode()


def _unb64(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.float32)


def encode_candidates(cs: CandidateSet) -> dict[str, Any]:
    ctx = cs.context
    return {
        "query": ctx.query,
        "namespace": ctx.namespace,
        "as_of": ctx.as_of.isoformat(),
        "k": cs.k,
        "variants": cs.variants,
        "query_vector": _b64(ctx.query_vector) if ctx.query_vector is not None else None,
        "candidates": [
            {"chunk": c.chunk.model_dump(mode="json"), "score": c.score, "sources": c.sources}
            for c in cs.candidates
        ],
        "vectors": {cid: _b64(v) for cid, v in ctx.vectors.items()},
        "ms": cs.timings_ms,
    }


def decode_candidates(data: dict[str, Any]) -> CandidateSet:
    qv = data.get("query_vector")
    context = QueryContext(
        query=data["query"],
        namespace=data["namespace"],
        as_of=datetime.fromisoformat(data["as_of"]),
        query_vector=_unb64(qv) if qv else None,
        vectors={cid: _unb64(v) for cid, v in data["vectors"].items()},
    )
    candidates = [
        ScoredChunk(
            chunk=Chunk.model_validate(c["chunk"]), score=c["score"], sources=tuple(c["sources"])
        )
        for c in data["candidates"]
    ]
    return CandidateSet(context, candidates, data["variants"], data["k"], dict(data["ms"]))


def without_stm(cs: CandidateSet) -> CandidateSet:
    """R_k with the STM buffer off: the same MTM top-k, minus chunks only the buffer added."""
    kept = [c for c in cs.candidates if "mtm" in c.sources]
    return CandidateSet(cs.context, kept, cs.variants, cs.k, dict(cs.timings_ms))


def subset(cs: CandidateSet, ids: Iterable[str]) -> CandidateSet:
    wanted = set(ids)
    kept = [c for c in cs.candidates if c.id in wanted]
    return CandidateSet(cs.context, kept, cs.variants, cs.k, dict(cs.timings_ms))


def encode_result(result: RetrievalResult) -> dict[str, Any]:
    stage_ms = {k: v for k, v in result.timings_ms.items() if k not in CANDIDATE_STAGES}
    return {
        "kept": [c.id for c in result.kept],
        "dropped": [[d.chunk.id, d.stage, d.reason] for d in result.dropped],
        "ms": stage_ms,
    }


def stm_sets(record: dict[str, Any], which: str = "candidates") -> dict[str, CandidateSet]:
    on = decode_candidates(record[which])
    return {"off": without_stm(on), "on": on}


def uses_gc_set(condition: str) -> bool:
    """Whether a condition key was computed on R'_k (write-time GC exclusion)."""
    return condition.startswith((GC_PREFILTER, GC_FULL))


# --- phase 1 -----------------------------------------------------------------------------------


def forget_namespace(client: redis.Redis, keys: Keyspace, namespace: str) -> None:
    """Delete one instance's keys (STM, ledger, usage, verdicts) once its record is written."""
    delete_matching(client, f"{keys.namespace(namespace)}:*")


@dataclass
class RetrievalPhase:
    settings: Settings
    config: SweepConfig
    embedder: Embedder  # the real model: query embeddings are timed uncached
    client: redis.Redis
    cached: CachedEmbedder = field(init=False)

    def __post_init__(self) -> None:
        self.cached = CachedEmbedder(self.embedder)
        self.keys = Keyspace(self.settings.storage.key_prefix)
        self._shared_index: MediumTermIndex | None = (
            None if self.settings.storage.embedded_qdrant else open_index(self.settings.storage)
        )

    def _ranker(self, *, record_usage: bool) -> MultiFactorRanker:
        s = self.settings
        return MultiFactorRanker(
            self.config.context_k,
            weights=FactorWeights(*s.baselines.weights),
            half_life_days=s.baselines.half_life_days,
            similarity=s.baselines.similarity,
            usage=UsageCounter(self.client, self.keys),
            record_usage=record_usage,
        )

    def run(self, scenario: Scenario) -> dict[str, Any]:
        # The embedded engine gets a fresh in-memory collection per instance: search is exact
        # and namespace-filtered, so results equal those of one shared collection, while local
        # mode's payload filter (a scan over every point) stays as cheap as one instance.
        index = self._shared_index or open_index(self.settings.storage)
        memory = Memory(self.settings, embedder=self.cached, index=index, redis_client=self.client)
        ns = scenario.namespace
        try:
            ingest_ms = self._ingest(memory, scenario)
            full = gather_candidates(
                scenario.question,
                namespace=ns,
                k=self.config.k,
                as_of=scenario.asked_at,
                embedder=self.embedder,
                index=memory.index,
                stm=memory.stm,
                expander=memory.expander,
            )
            sets = {"on": full, "off": without_stm(full)}
            chains: dict[str, list[CandidateFilter]] = {
                "rag": [],
                "timestamp": [TimestampRerank(self.config.context_k)],
                "multi-factor": [self._ranker(record_usage=False)],
                "supersession": build_filters(["supersession"], memory.resources),
            }
            contexts = {
                key(name, stm): encode_result(run_filter_chain(sets[stm], chain))
                for name, chain in chains.items()
                for stm in STM_MODES
            }
            # Write-time GC: superseded chunks are left out of the MTM search before top-k, so
            # this condition has its own candidate set R'_k (the one exception to parity).
            gc = memory.candidates(
                scenario.question,
                namespace=ns,
                k=self.config.k,
                as_of=scenario.asked_at,
                exclude_flagged=True,
            )
            gc_sets = {"on": gc, "off": without_stm(gc)}
            for stm in STM_MODES:
                contexts[key(GC_PREFILTER, stm)] = encode_result(
                    run_filter_chain(gc_sets[stm], chains["supersession"])
                )
            n_chunks = memory.index.count(ns)
            bag = gather_candidates(
                scenario.question,
                namespace=ns,
                k=max(n_chunks, 1),
                as_of=scenario.asked_at,
                embedder=self.cached,
                index=memory.index,
                stm=None,
                expander=memory.expander,
            )
            return {
                "id": scenario.id,
                "namespace": ns,
                "chunks": n_chunks,
                "ingest_ms": ingest_ms,
                "candidates": encode_candidates(full),
                "candidates_gc": encode_candidates(gc),
                "contexts": contexts,
                "bag": [c.turn_id for c in bag.candidates],
            }
        finally:
            if self._shared_index is None:
                index.close()
            forget_namespace(self.client, self.keys, ns)

    def _ingest(self, memory: Memory, scenario: Scenario) -> dict[str, float]:
        """Event-time order, in ``usage_queries + 1`` stages split evenly over the timeline."""
        turns = sorted(scenario.turns, key=lambda t: (t.ts, t.id))
        ranker = self._ranker(record_usage=True)
        totals: dict[str, float] = {}
        ingested = 0
        for q, (bound, batch) in enumerate(ingest_stages(turns, self.config.usage_queries)):
            if batch:
                report = memory.ingest(
                    [
                        {"id": t.id, "namespace": scenario.namespace, "text": t.text, "ts": t.ts}
                        for t in batch
                    ]
                )
                for stage, ms in report.timings_ms.items():
                    totals[stage] = totals.get(stage, 0.0) + ms
                ingested += len(batch)
            if q < self.config.usage_queries and ingested:
                cs = memory.candidates(
                    scenario.question,
                    namespace=scenario.namespace,
                    k=self.config.k,
                    as_of=bound,
                )
                ranker.apply(cs.candidates, cs.context)
        return totals


# --- phase 1b: write-time GC with κ flags ---------------------------------------------------


def writegc_identity(
    config: SweepConfig, settings: Settings, scenarios_sha: str, oracle: str
) -> dict[str, Any]:
    """Everything a κ write-time GC record depends on (``oracle``: the oracle's identity)."""
    return {
        "format": RECORD_FORMAT,
        "scenarios": scenarios_sha,
        "k": config.k,
        "stm_size": config.stm_size,
        "embedder": settings.models.embedder,
        "chunk_max_chars": settings.memory.chunk_max_chars,
        "oracle": oracle,
        "rule": [
            # the model's rule: anchoring test version, the calibration's own threshold
            settings.dominance.anchor
            and oracle != "gold"
            and [ANCHOR_VERSION, settings.oracle.calibration_threshold],
            settings.dominance.confirm_threshold,
            settings.dominance.surface_threshold,
            settings.dominance.cosine_floor,
        ],
        "paging": [
            settings.dominance.gc_page_size,
            settings.dominance.gc_pages,
            settings.dominance.gc_resume,
        ],
    }


@dataclass
class WriteGCPhase:
    """Per instance and κ: ingest with the ledger and the dominance-gc stage under that κ,
    let the background stage finish its queued paging, gather R''_k with both kinds of flags
    excluded and run full gcmem on it (the product's stages, one rule at write and read
    time). Each oracle ingests into its own fresh index: flags are its own decisions."""

    settings: Settings
    config: SweepConfig
    embedder: CachedEmbedder
    client: redis.Redis
    name: str  # "gold" or the model's name
    model_oracle: ConflictOracle | None = None  # None: gold κ from the scenario's labels

    def run(self, scenario: Scenario) -> dict[str, Any]:
        update: dict[str, Any] = {
            "ingest": ["supersession", DOMINANCE_GC],
            "filters": ["supersession", "announced", "dominance"],
        }
        if self.model_oracle is None:
            # Gold κ is the sweep's perfect detector: the anchor is a precision guard for a
            # model and would only take true detections away from it (the sweep's read-time
            # gold conditions run without it too). A model runs under the product's rule.
            update["dominance_anchor"] = False
        settings = self.settings.replace(**update)
        oracle = self.model_oracle or GoldOracle(
            GoldLabels(scenario, self.settings.memory.chunk_max_chars)
        )
        index = open_index(settings.storage)
        memory = Memory(
            settings, embedder=self.embedder, index=index, redis_client=self.client, oracle=oracle
        )
        ns = scenario.namespace
        keys = Keyspace(settings.storage.key_prefix)
        try:
            t0 = time.perf_counter()
            turns = sorted(scenario.turns, key=lambda t: (t.ts, t.id))
            ingest_ms: dict[str, float] = {}
            # the same staging as phase 1 (batches between the usage queries), no queries
            for _, batch in ingest_stages(turns, self.config.usage_queries):
                if not batch:
                    continue
                report = memory.ingest(
                    [{"id": t.id, "namespace": ns, "text": t.text, "ts": t.ts} for t in batch]
                )
                for stage, ms in report.timings_ms.items():
                    ingest_ms[stage] = ingest_ms.get(stage, 0.0) + ms
            kgc = memory.dominance_gc
            assert kgc is not None
            queued = kgc.pending(ns)
            t1 = time.perf_counter()
            kgc.drain(ns)  # the background stage catching up before the question
            drain_ms = (time.perf_counter() - t1) * 1e3
            total_ms = (time.perf_counter() - t0) * 1e3
            cs = memory.candidates(
                scenario.question,
                namespace=ns,
                k=self.config.k,
                as_of=scenario.asked_at,
                exclude_flagged=True,  # asked about the present at asked_at
            )
            sets = {"on": cs, "off": without_stm(cs)}
            contexts = {
                key(f"{KGC_FULL}[{self.name}]", stm): encode_result(memory.filter(sets[stm]))
                for stm in STM_MODES
            }
            assert isinstance(index, DominatedIndex)
            return {
                "id": scenario.id,
                "candidates": encode_candidates(cs),
                "contexts": contexts,
                "kappa_flags": len(index.dominated(ns)),
                "ledger_flags": index.count_flagged(ns) if isinstance(index, FlagIndex) else 0,
                "queued_after_ingest": queued,
                "pages": kgc.pages_searched,
                "ingest_ms": ingest_ms,
                "drain_ms": drain_ms,
                "total_ms": total_ms,
                "turns": len(turns),
            }
        finally:
            index.close()
            forget_namespace(self.client, keys, ns)


def ingest_stages(turns: Sequence[Any], usage_queries: int) -> list[tuple[datetime, list[Any]]]:
    """Event-time ordered turns in ``usage_queries + 1`` stages split evenly over the
    timeline: (the stage's end, its turns; possibly none)."""
    first, last = turns[0].ts, turns[-1].ts
    n = usage_queries
    bounds = [first + (last - first) * (q / (n + 1)) for q in range(1, n + 1)] + [last]
    out: list[tuple[datetime, list[Any]]] = []
    start = 0
    for bound in bounds:
        end = start
        while end < len(turns) and turns[end].ts <= bound:
            end += 1
        out.append((bound, list(turns[start:end])))
        start = end
    return out


# --- phase 2 -----------------------------------------------------------------------------------


def scheduled_pairs(candidates: Sequence[ScoredChunk]) -> list[tuple[ScoredChunk, ScoredChunk]]:
    """The pairs Φ_T asks κ about when no ledger key decides them: different event times,
    different contents, oriented (older, newer)."""
    ordered = sorted(candidates, key=lambda c: (c.chunk.ts, c.id))
    return [
        (a, b)
        for i, a in enumerate(ordered)
        for b in ordered[i + 1 :]
        if a.chunk.ts != b.chunk.ts and a.chunk.content_hash != b.chunk.content_hash
    ]


def contradiction_base_rate(
    scenarios: dict[str, Scenario], records: Iterable[dict[str, Any]], chunk_max_chars: int
) -> tuple[float, int]:
    """Share of true contradictions among the pairs Φ_T schedules in every R_k (STM on)."""
    positives = total = 0
    for record in records:
        labels = GoldLabels(scenarios[record["id"]], chunk_max_chars)
        for a, b in scheduled_pairs(decode_candidates(record["candidates"]).candidates):
            total += 1
            positives += labels.contradicts(a.chunk.text, b.chunk.text)
    return (positives / total if total else 0.0), total


def chained(cs: CandidateSet, prefilter: dict[str, Any], stage: CandidateFilter) -> dict[str, Any]:
    """``stage`` after the supersession pre-filter, whose phase-1 outcome on ``cs`` is
    ``prefilter``: the same as running the chain [supersession, stage], with both stages'
    decisions and timings."""
    result = encode_result(run_filter_chain(subset(cs, prefilter["kept"]), [stage]))
    result["dropped"] = prefilter["dropped"] + result["dropped"]
    result["ms"] = {**prefilter["ms"], **result["ms"]}
    return result


@dataclass
class EvaluationPhase:
    settings: Settings
    config: SweepConfig
    client: redis.Redis
    base_rate: float
    model_oracle: ConflictOracle | None  # the NLI cross-encoder (or configured judge)
    model_name: str = "nli"
    archive: VerdictArchive | None = None  # the model's verdicts from earlier runs

    def __post_init__(self) -> None:
        self.keys = Keyspace(self.settings.storage.key_prefix)

    def oracles(self, labels: GoldLabels) -> list[tuple[str, ConflictOracle]]:
        out: list[tuple[str, ConflictOracle]] = []
        if "nli" in self.config.oracles and self.model_oracle is not None:
            out.append((self.model_name, self.model_oracle))
        if "gold" in self.config.oracles:
            out.append(("gold", GoldOracle(labels)))
        for name, precision, recall in self.config.noisy_names(self.base_rate):
            out.append(
                (
                    name,
                    NoisyGoldOracle(
                        labels,
                        recall=recall,
                        precision=precision,
                        base_rate=self.base_rate,
                        seed=self.config.noisy_seed,
                    ),
                )
            )
        return out

    def run(self, scenario: Scenario, retrieval: dict[str, Any]) -> dict[str, Any]:
        sets = stm_sets(retrieval)
        gc_sets = stm_sets(retrieval, "candidates_gc")
        labels = GoldLabels(scenario, self.settings.memory.chunk_max_chars)
        floor = self.settings.dominance.cosine_floor
        contexts: dict[str, Any] = {}
        kappa: dict[str, Any] = {}
        try:
            ns = retrieval["namespace"]
            for name, oracle in self.oracles(labels):
                log = VerdictLog(self.client, self.keys, oracle)
                alone = TemporalDominance(log, facts=no_facts, cosine_floor=floor)
                after_prefilter = TemporalDominance(log, facts=ledger_facts, cosine_floor=floor)
                model = name == self.model_name
                archived = (
                    self.archive.seed(log, ns, scenario.id) if model and self.archive else None
                )
                if model:
                    kappa[name] = self._score_pairs(alone, sets["on"])
                    if archived is not None:
                        kappa[name]["archived_ms"] = archived["cold_ms"]
                        kappa[name]["archived_misses"] = archived["misses"]
                noisy = name.startswith("noisy-")
                for stm in self.config.noisy_stm if noisy else STM_MODES:
                    cs = sets[stm]
                    contexts[key(f"phi[{name}]", stm)] = encode_result(
                        run_filter_chain(cs, [alone])
                    )
                    contexts[key(f"gcmem[{name}]", stm)] = chained(
                        cs, retrieval["contexts"][key("supersession", stm)], after_prefilter
                    )
                    if not noisy:
                        contexts[key(f"{GC_FULL}[{name}]", stm)] = chained(
                            gc_sets[stm],
                            retrieval["contexts"][key(GC_PREFILTER, stm)],
                            after_prefilter,
                        )
                if model and self.archive is not None:
                    k = kappa[name]
                    self.archive.save(log, ns, scenario.id, k["ms"], k["misses"])
        finally:
            forget_namespace(self.client, self.keys, retrieval["namespace"])
        return {"id": scenario.id, "contexts": contexts, "kappa": kappa}

    def _score_pairs(self, stage: TemporalDominance, cs: CandidateSet) -> dict[str, Any]:
        """Score every pair Φ_T schedules once (a cold log), keeping per-pair scores and timing;
        the conditions that follow read the same verdicts from the log."""
        t0 = time.perf_counter()
        report = stage.verdicts(cs.candidates, cs.context)
        ms = (time.perf_counter() - t0) * 1e3
        return {
            "ms": ms,
            "hits": report.hits,
            "misses": report.misses,
            "pairs": [
                [v.older.turn_id, v.newer.turn_id, round(v.score, 4)]
                for v in report.verdicts
                if v.source == "oracle"
            ],
        }
