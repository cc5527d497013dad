"""The benchmark run: every instance through one embedded ``Memory``, six conditions.

Per instance (a fresh namespace): ingest its memories in event-time order through
``Memory.ingest`` (real MiniLM embedder, embedded Qdrant and Redis, the supersession ledger with
write-time GC flags), gather R_k once (``Memory.candidates``, MTM top-k, STM off), then run each
filter chain on that same candidate set (``Memory.filter``):

- ``rag``: no filter;
- ``timestamp``: timestamp re-ranking (``TimestampRerank``), newest ``rerank_k`` kept;
- ``supersession``: the deterministic ledger pre-filter alone;
- ``kappa``: Φ_T with κ deciding every pair (the NLI cross-encoder; no ledger keys);
- ``gcmem``: ``Memory()``'s default chain (supersession, announced changes, then dominance
  with κ);
- ``best``: the sweep's best NLI configuration, full gcmem on R'_k (the MTM search leaves
  write-time GC flagged chunks out before top-k). The one condition on its own candidate set.

Labels are per chunk: a chunk of an old (new) memory asserts the old (new) value when it holds
the changed line; distractor chunks are still true; other chunks of a memory (its surrounding
lines, if the chunker split it) carry no state. Readers (``bench.sweep.metrics``): ``majority``
(forced; the headline), ``top`` (forced), and ``allowed`` (answers only when every
state-bearing chunk in context agrees, else abstains). Stale-fact error = the reader answers the
superseded value. κ scores are memoised by text pair across one run (the three ratios of a
transition share most pairs), so latency is the warm cost; the model's cold cost per pair is
reported beside it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import statistics
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.cleanup import delete_matching
from bench.embedding import CachedEmbedder
from bench.real_history.instances import Format, Instance, build
from bench.sweep.metrics import InstanceLabels, context_metrics, dedupe
from gcmem.facts.chunking import chunk_turn
from gcmem.facts.extract import extract_triples
from gcmem.filters.base import CandidateFilter
from gcmem.filters.baselines import TimestampRerank
from gcmem.filters.dominance import TemporalDominance
from gcmem.filters.registry import build_filters
from gcmem.memory import Memory
from gcmem.models import Chunk, RetrievalResult, Turn, collapse_whitespace, unmarked
from gcmem.normalize import normalize_key
from gcmem.oracle.adapter import active_adapter
from gcmem.oracle.base import ConflictOracle, OracleIdentity, Pair
from gcmem.oracle.factory import build_oracle
from gcmem.oracle.pairs import no_facts
from gcmem.settings import Settings, load_settings

CONDITIONS = ("rag", "timestamp", "supersession", "kappa", "gcmem", "best")
LABELS = {
    "rag": "plain RAG",
    "timestamp": "timestamp re-ranking",
    "supersession": "supersession pre-filter alone",
    "kappa": "κ only (Φ_T, NLI, no ledger)",
    "gcmem": "gcmem default chain (supersession + announced + dominance)",
    "best": "best: gcmem + write-time GC (R'_k)",
}
READERS = ("majority", "top", "allowed")


class MemoOracle:
    """The real oracle behind a text-pair memo (scores are the model's own)."""

    def __init__(self, inner: ConflictOracle) -> None:
        self.inner = inner
        self.threshold = inner.threshold
        self._memo: dict[Pair, float] = {}
        self.computed = 0
        self.seconds = 0.0

    @property
    def identity(self) -> OracleIdentity:
        return self.inner.identity

    @property
    def symmetric(self) -> bool:
        return self.inner.symmetric

    def _key(self, pair: Pair) -> Pair:
        return (min(pair), max(pair)) if self.symmetric else pair

    def score(self, pairs: Sequence[Pair]) -> np.ndarray:
        missing = list(dict.fromkeys(self._key(p) for p in pairs if self._key(p) not in self._memo))
        if missing:
            t0 = time.perf_counter()
            scores = self.inner.score(missing)
            self.seconds += time.perf_counter() - t0
            self.computed += len(missing)
            self._memo.update(zip(missing, (float(s) for s in scores), strict=True))
        return np.array([self._memo[self._key(p)] for p in pairs], dtype=np.float64)

    def decide(self, scores: np.ndarray | float) -> np.ndarray:
        return self.inner.decide(scores)


@dataclass
class RunConfig:
    nli_model: str
    ratios: tuple[int, ...] = (1, 3, 10)
    formats: tuple[Format, ...] = ("snippet", "line")
    top_k: int = 10
    rerank_k: int = 5
    device: str = "cpu"
    # the ledger, verdict log and short-term buffer on this Redis server (the pipeline's
    # deployment) instead of the embedded one; the run's keys are deleted at its end
    redis_url: str | None = None


def make_settings(data_dir: Path, config: RunConfig) -> Settings:
    """Embedded engines (Redis: the configured server, if any), nothing persisted, the
    library's default filter chain."""
    return load_settings(
        data_dir=data_dir,
        ephemeral=True,
        redis_url=config.redis_url,
        qdrant_url=None,
        key_prefix=f"gcmem-rh-{uuid.uuid4().hex[:8]}",
        nli_model=config.nli_model,
        device=config.device,
        top_k=config.top_k,
        ingest=[],
    )


# --- labels ------------------------------------------------------------------------------------


@dataclass
class ChunkLabels:
    labels: InstanceLabels
    unlabelled: int  # old/new memories none of whose chunks holds the changed line whole
    chunks: dict[str, Chunk] = field(default_factory=dict)


def chunk_labels(inst: Instance, settings: Settings) -> ChunkLabels:
    """Per-chunk roles and states (see the module docstring)."""
    role: dict[str, str] = {}
    state: dict[str, str | None] = {}
    chunks: dict[str, Chunk] = {}
    unlabelled = 0
    lines = {"old": collapse_whitespace(inst.stale_line), "new": collapse_whitespace(inst.new_line)}
    for item in inst.items:
        turn = Turn(id=item.id, namespace=inst.namespace, text=item.text, ts=item.ts)
        found = False
        for chunk in chunk_turn(turn, settings.memory.chunk_max_chars):
            chunks[chunk.id] = chunk
            if item.role == "distractor":
                role[chunk.id], state[chunk.id] = "distractor", None
            elif lines[item.role] in chunk.text:
                role[chunk.id], state[chunk.id] = item.role, item.state
                found = True
            else:
                role[chunk.id], state[chunk.id] = "context", None
        if item.role != "distractor" and not found:
            unlabelled += 1
    totals: Counter[str] = Counter(role.values())
    current = frozenset(c for c, r in role.items() if r == "new")
    totals["current"] = len(current)
    labels = InstanceLabels(
        answer=inst.answer,
        stale=frozenset({inst.stale}),
        role=role,
        state=state,
        current=current,
        totals=dict(totals),
        evolving=True,
    )
    return ChunkLabels(labels, unlabelled, chunks)


def allowed_reader(labels: InstanceLabels, context: Sequence[str]) -> str | None:
    """Answers only when the context's state-bearing chunks all agree; else abstains."""
    states = {labels.state[c] for c in context if labels.state.get(c) is not None}
    return next(iter(states)) if len(states) == 1 else None


def noted_stale(labels: InstanceLabels, result: RetrievalResult, stale_line: str) -> set[str]:
    """Kept old chunks whose changed line the reader does not get: the unit rule keeps a chunk
    with a still-true line no newer chunk restates, and excises the superseded line from the
    text a reader gets (``ScoredChunk.visible_text``)."""
    # the line whole, not inside a longer one ("- id: ruff" in "- id: ruff-format")
    line = re.compile(rf"(?<!\S){re.escape(collapse_whitespace(stale_line))}(?!\S)")
    return {
        k.id
        for k in result.kept
        if labels.role.get(k.id) == "old"
        and line.search(collapse_whitespace(k.chunk.text))
        and not line.search(collapse_whitespace(unmarked(k.visible_text)))
    }


def result_metrics(
    labels: InstanceLabels,
    result: RetrievalResult,
    candidates: Sequence[str],
    stale_line: str | None = None,
) -> dict[str, Any]:
    """The reader metrics read the context the way ``RetrievalResult.context()`` gives it: a
    kept chunk whose stale line is excised does not state the old value (the
    ``*_ignoring_notes`` keys are the readers given the chunks' stored text)."""
    ctx = dedupe([c.id for c in result.kept])
    raw = context_metrics(labels, ctx, candidates)
    noted = noted_stale(labels, result, stale_line) if stale_line else set()
    if noted:
        labels = dataclasses.replace(labels, state={**labels.state, **dict.fromkeys(noted)})
    m: dict[str, Any] = dict(context_metrics(labels, ctx, candidates))
    m["stale_answer_majority_ignoring_notes"] = raw["stale_answer_majority"]
    m["accuracy_majority_ignoring_notes"] = raw["accuracy_majority"]
    m["stale_noted_in_context"] = len(noted)
    answer = allowed_reader(labels, ctx)
    m["accuracy_allowed"] = float(answer == labels.answer)
    m["stale_answer_allowed"] = float(answer is not None and answer in labels.stale)
    m["abstain_allowed"] = float(answer is None)
    kept = set(ctx)
    pool = list(dict.fromkeys(candidates))
    true_in = [c for c in pool if labels.role.get(c) in ("distractor", "new")]
    m["still_true_in_candidates"] = len(true_in)
    m["still_true_dropped"] = sum(c not in kept for c in true_in)
    # a kept still-true chunk with a line excised ("[superseded on ...]"): the reader no
    # longer gets all of it, so it counts beside the drops
    m["still_true_excised"] = sum(
        bool(k.stale_sentences)
        for k in result.kept
        if labels.role.get(k.id) in ("distractor", "new")
    )
    m["distractors_dropped"] = sum(
        c not in kept for c in pool if labels.role.get(c) == "distractor"
    )
    m["current_dropped"] = sum(c not in kept for c in pool if labels.role.get(c) == "new")
    m["stale_in_candidates"] = sum(labels.role.get(c) == "old" for c in pool)
    m["stale_dropped"] = sum(c not in kept for c in pool if labels.role.get(c) == "old")
    m["drops_by_stage"] = dict(Counter(d.stage for d in result.dropped))
    m["still_true_dropped_by_stage"] = dict(
        Counter(
            d.stage for d in result.dropped if labels.role.get(d.chunk_id) in ("distractor", "new")
        )
    )
    m["current_in_context"] = float(any(labels.role.get(c) == "new" for c in ctx))
    return m


# --- one instance --------------------------------------------------------------------------------


@dataclass
class Runner:
    config: RunConfig
    settings: Settings
    memory: Memory
    oracle: MemoOracle
    chains: dict[str, list[CandidateFilter]]

    @classmethod
    def open(cls, config: RunConfig, data_dir: Path) -> Runner:
        from gcmem.embedding import load_embedder

        settings = make_settings(data_dir, config)
        embedder = CachedEmbedder(
            load_embedder(settings.models.embedder, device=settings.models.device)
        )
        # κ is the configured oracle behind a text-pair memo (same θ, so the verdict log keys
        # verdicts exactly as the default chain does); every stage of the chain gets it.
        oracle = MemoOracle(
            build_oracle(
                settings.oracle,
                settings.judge,
                device=settings.models.device,
                weights_cache=settings.storage.weights_cache(),
            )
        )
        memory = Memory(settings, embedder=embedder, oracle=oracle)
        log = memory.resources.verdict_log
        chains: dict[str, list[CandidateFilter]] = {
            "rag": [],
            "timestamp": [TimestampRerank(config.rerank_k)],
            "supersession": build_filters(["supersession"], memory.resources),
            "kappa": [
                TemporalDominance(log, facts=no_facts, cosine_floor=settings.dominance.cosine_floor)
            ],
            "gcmem": list(memory.filters),
        }
        return cls(config, settings, memory, oracle, chains)

    def close(self) -> None:
        if self.config.redis_url:
            delete_matching(self.memory.redis, self.memory.keys.pattern())  # the run's own keys
        self.memory.close()

    def run(self, inst: Instance) -> dict[str, Any]:
        mem = self.memory
        cl = chunk_labels(inst, self.settings)
        t0 = time.perf_counter()
        mem.ingest(inst.turns())
        ingest_ms = (time.perf_counter() - t0) * 1e3
        t0 = time.perf_counter()
        cands = mem.candidates(
            inst.question, namespace=inst.namespace, stm=False, as_of=inst.asked_at
        )
        gather_ms = (time.perf_counter() - t0) * 1e3
        pool = [c.id for c in cands.candidates]
        out: dict[str, Any] = {}
        for name, chain in self.chains.items():
            t0 = time.perf_counter()
            result = mem.filter(cands, filters=chain)
            ms = (time.perf_counter() - t0) * 1e3
            out[name] = {
                **result_metrics(cl.labels, result, pool, inst.stale_line),
                "latency_ms": ms + gather_ms,
                "filter_ms": ms,
            }
        t0 = time.perf_counter()
        gc = mem.candidates(
            inst.question,
            namespace=inst.namespace,
            stm=False,
            as_of=inst.asked_at,
            exclude_flagged=True,
        )
        gc_gather = (time.perf_counter() - t0) * 1e3
        t0 = time.perf_counter()
        result = mem.filter(gc, filters=self.chains["gcmem"])
        ms = (time.perf_counter() - t0) * 1e3
        present = {c.id for c in gc.candidates}
        out["best"] = {
            **result_metrics(cl.labels, result, list(present), inst.stale_line),
            "latency_ms": ms + gc_gather,
            "filter_ms": ms,
            # still-true chunks of R_k that write-time GC left out of R'_k: absent, not dropped,
            # so ``still_true_dropped`` does not count them
            "still_true_excluded_at_write": sum(
                c not in present and cl.labels.role.get(c) in ("distractor", "new") for c in pool
            ),
        }
        return {
            "id": inst.id,
            "transition": inst.transition,
            "ratio": inst.ratio,
            "old_memories": sum(m.role == "old" for m in inst.items),
            "format": inst.format,
            "candidates": len(pool),
            "unlabelled": cl.unlabelled,
            "ingest_ms": ingest_ms,
            "engagement": self.engagement(inst, cl),
            "conditions": out,
        }

    def engagement(self, inst: Instance, cl: ChunkLabels) -> dict[str, Any]:
        """Why gcmem does or does not see this change: the ledger keys of the first old and the
        new chunk holding the changed line, and κ on that pair (the memoised model score)."""
        first_old = next((c for c in cl.chunks.values() if cl.labels.role.get(c.id) == "old"), None)
        new = next((c for c in cl.chunks.values() if cl.labels.role.get(c.id) == "new"), None)
        if first_old is None or new is None:
            return {"class": "unlabelled"}
        ko = {
            normalize_key(f.subject, f.relation): f.object for f in extract_triples(first_old.text)
        }
        kn = {normalize_key(f.subject, f.relation): f.object for f in extract_triples(new.text)}
        shared = [k for k in ko if k in kn]
        if not ko or not kn:
            cls = "no_fact"
        elif not shared:
            cls = "key_mismatch"
        elif all(ko[k] == kn[k] for k in shared):
            cls = "keyed_same_object"
        else:
            cls = "keyed"
        score = float(self.oracle.score([(first_old.text, new.text)])[0])
        return {
            "class": cls,
            "kappa": score,
            "kappa_fires": bool(self.oracle.decide(score)),
            "keys_old": sorted(" / ".join(k) for k in ko),
            "keys_new": sorted(" / ".join(k) for k in kn),
        }


def instances_of(records: Sequence[dict[str, Any]], config: RunConfig) -> list[Instance]:
    return [
        build(record, i, r, fmt)
        for fmt in config.formats
        for i, record in enumerate(records)
        for r in config.ratios
    ]


def run_all(
    records: Sequence[dict[str, Any]], config: RunConfig, *, progress: bool = True
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from tqdm.auto import tqdm

    insts = instances_of(records, config)
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gcmem-rh-") as tmp:
        runner = Runner.open(config, Path(tmp))
        try:
            rows = [
                runner.run(inst) for inst in tqdm(insts, desc="real-history", disable=not progress)
            ]
        finally:
            runner.close()
    adapter = active_adapter(runner.oracle)
    info = {
        "runtime_s": time.perf_counter() - t_start,
        "kappa_pairs_computed": runner.oracle.computed,
        "kappa_model_s": runner.oracle.seconds,
        "embedded_texts": runner.memory.embedder.embedded
        if hasattr(runner.memory.embedder, "embedded")
        else None,
        "settings": {
            "filters": list(runner.settings.memory.filters),
            "top_k": runner.settings.memory.top_k,
            "rerank_k": config.rerank_k,
            "oracle_threshold": runner.settings.oracle.threshold,
            "oracle_direction": runner.settings.oracle.direction,
            "oracle_calibration_threshold": runner.settings.oracle.calibration_threshold,
            "oracle_adapter": runner.settings.oracle.adapter,
            "oracle_adapter_sha256": adapter.sha256 if adapter is not None else None,
            "dominance_anchor": runner.settings.dominance.anchor,
            "dominance_confirm_threshold": runner.settings.dominance.confirm_threshold,
            "dominance_cosine_floor": runner.settings.dominance.cosine_floor,
            "supersession_gc": runner.settings.supersession.gc,
            "redis": "server" if config.redis_url else "embedded",
            "chunk_max_chars": runner.settings.memory.chunk_max_chars,
            "nli_model": Path(config.nli_model).name,
            "embedder": runner.settings.models.embedder,
        },
    }
    return rows, info


# --- aggregation ---------------------------------------------------------------------------------

_MEAN_KEYS = (
    "stale_answer_majority",
    "accuracy_majority",
    "stale_answer_top",
    "accuracy_top",
    "stale_answer_allowed",
    "accuracy_allowed",
    "abstain_allowed",
    "current_in_candidates",
    "current_in_context",
    "stale_exposure",
    "stale_answer_majority_ignoring_notes",
    "accuracy_majority_ignoring_notes",
)


def _agg(rows: Sequence[dict[str, Any]], cond: str) -> dict[str, Any]:
    ms = [r["conditions"][cond] for r in rows]
    if not ms:
        return {}
    # rows of runs before the notes were read have no *_ignoring_notes keys: the same numbers
    out: dict[str, Any] = {
        k: statistics.fmean(m.get(k, m.get(k.removesuffix("_ignoring_notes"), 0.0)) for m in ms)
        for k in _MEAN_KEYS
    }
    out["stale_fact_error"] = out["stale_answer_majority"]
    out["stale_fact_error_ignoring_notes"] = out["stale_answer_majority_ignoring_notes"]
    out["accuracy"] = out["accuracy_majority"]
    out["current_value_recall"] = out["current_in_context"]
    true_in = sum(m["still_true_in_candidates"] for m in ms)
    out["still_true_dropped"] = sum(m["still_true_dropped"] for m in ms)
    out["still_true_in_candidates"] = true_in
    out["still_true_dropped_rate"] = out["still_true_dropped"] / true_in if true_in else 0.0
    by_stage: Counter[str] = Counter()
    for m in ms:
        by_stage.update(m.get("still_true_dropped_by_stage", {}))
    out["still_true_dropped_by_stage"] = dict(sorted(by_stage.items()))
    out["still_true_excised"] = sum(m.get("still_true_excised", 0) for m in ms)
    if any("still_true_excluded_at_write" in m for m in ms):
        out["still_true_excluded_at_write"] = sum(
            m.get("still_true_excluded_at_write", 0) for m in ms
        )
    out["distractors_dropped"] = sum(m["distractors_dropped"] for m in ms)
    out["current_dropped"] = sum(m["current_dropped"] for m in ms)
    stale_in = sum(m["stale_in_candidates"] for m in ms)
    out["stale_removed_rate"] = sum(m["stale_dropped"] for m in ms) / stale_in if stale_in else 0.0
    lat = sorted(m["latency_ms"] for m in ms)
    out["latency_ms_mean"] = statistics.fmean(lat)
    out["latency_ms_p50"] = lat[len(lat) // 2]
    out["latency_ms_p95"] = lat[min(len(lat) - 1, int(0.95 * len(lat)))]
    out["instances"] = len(ms)
    return out


def aggregate(rows: Sequence[dict[str, Any]], ratios: Sequence[int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for cond in CONDITIONS:
        entry = _agg(rows, cond)
        entry["by_ratio"] = {
            str(r): _agg([row for row in rows if row["ratio"] == r], cond) for r in ratios
        }
        out[cond] = entry
    return out


def engagement_table(
    rows: Sequence[dict[str, Any]], records: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """Per transition (at r = 1): which stage of gcmem's default chain removed the stale line
    (the ledger alone if the supersession condition removed every stale chunk of R_k, else
    dominance if the full chain did), and if neither, which class of miss. Also grouped by
    file type, with the share of transitions the ledger keys and κ flags."""
    by_id = {r["id"]: r for r in records}
    table: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        if row["ratio"] != 1:
            continue
        rec = by_id[row["transition"]]
        pre, full = row["conditions"]["supersession"], row["conditions"]["gcmem"]
        eng = row["engagement"]
        if full["stale_in_candidates"] == 0:
            outcome = "stale_not_retrieved"
        elif pre["stale_dropped"] == pre["stale_in_candidates"]:
            outcome = "removed_by_supersession"
        elif full["stale_dropped"] == full["stale_in_candidates"]:
            outcome = "removed_by_dominance"
        else:
            fires = eng.get("kappa_fires")
            outcome = f"missed:{eng['class']}" + (
                "" if fires is None else f",kappa_{'fires' if fires else 'silent'}"
            )
        fmt = row["format"]
        table[fmt][outcome] += 1
        table[f"{fmt}:{file_type(rec['path'])}"][outcome] += 1
        table[f"{fmt}/ledger-class"][eng["class"]] += 1
        if "kappa_fires" in eng:
            table[f"{fmt}/kappa-on-old-new-pair"]["fires" if eng["kappa_fires"] else "silent"] += 1
        if outcome.startswith("missed") and len(examples[f"{fmt}:{outcome}"]) < 4:
            examples[f"{fmt}:{outcome}"].append(
                f"{rec['repo']} {rec['path']}: {rec['old_line'].strip()} -> "
                f"{rec['new_line'].strip()}"
            )
    return {"counts": {k: dict(v) for k, v in sorted(table.items())}, "examples": dict(examples)}


def file_type(path: str) -> str:
    name = Path(path).name.lower()
    if name in ("package.json", "go.mod", "cargo.toml", "pyproject.toml", "setup.py", "setup.cfg"):
        return name
    if name.startswith("requirements"):
        return "requirements"
    suffix = Path(path).suffix.lower()
    if suffix in (".yml", ".yaml"):
        return "yaml"
    return suffix.lstrip(".") or name


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
