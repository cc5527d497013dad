"""The conflict oracle κ measured: quality, throughput, and what it adds to query latency.

    python -m bench.oracle                        # all three (docs/benchmarks.md)
    python -m bench.oracle --mode quality         # P/R/F1 of "contradiction", threshold sweep
    python -m bench.oracle --mode throughput      # pairs/s by batch size vs raw forward passes
    python -m bench.oracle --mode latency         # per-stage query latency, p50/p95
    python -m bench.oracle --smoke                # seconds; what the test suite runs
    python -m bench oracle ...                        # the same command

Run with ``HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 GCMEM_NLI_MODEL=<checkpoint>`` (the Makefile
sets these); the model is whatever ``GCMEM_NLI_MODEL`` names. Results (JSON, markdown, PNG) go
to ``bench/results/oracle/``.

- quality: the held-out NLI sets (binarised: contradiction vs entailment/neutral) and the
  agent-memory pairs of ``bench.oracle_pairs``; both direction policies; thresholds 0.05-0.95;
  per-category flag rates; the recall a cosine-similarity floor would cost.
- throughput: ``CrossEncoderOracle.score_directed`` (tokenize, bucket, pad, forward, softmax)
  against the bare ``model(**batch)`` over the same padded batches; ratio = overhead.
- latency: a memory timeline through ``Memory`` with the real embedder, Qdrant and Redis:
  expand, embed, search, STM, supersession pre-filter, κ (pair plan + verdict log + oracle),
  Φ_T, at several k, STM on/off, with a cold log, a warm log, and write-time precompute.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, cast

import numpy as np
import torch
import typer
from tqdm.auto import tqdm

from bench.cleanup import delete_matching
from bench.oracle_pairs import (
    HELD_OUT,
    QUERIES,
    LabelledPair,
    load_nli,
    memory_pairs,
    memory_timeline,
)
from gcmem.embedding import Embedder
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.filters.base import CandidateFilter
from gcmem.filters.dominance import TemporalDominance, temporal_dominance
from gcmem.filters.registry import build_chain, build_filters, known_stages
from gcmem.memory import Memory
from gcmem.models import Turn
from gcmem.oracle.base import apply_direction
from gcmem.oracle.cross_encoder import CrossEncoderOracle
from gcmem.oracle.factory import build_model_oracle
from gcmem.settings import Settings, load_settings

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "bench" / "results" / "oracle"
THRESHOLDS = tuple(round(t, 2) for t in np.arange(0.05, 0.951, 0.05))
CATEGORY_THRESHOLDS = (0.3, 0.5, 0.6, 0.7, 0.9)
REFERENCE_LLM_S = {"k10": 10.5, "k10_stm": (15.0, 26.0)}  # the reference LLM-prompt κ
NS = "bench-oracle"
LOG_STATES = ("cold", "warm", "precompute")
LATENCY_STAGES = ("expand", "embed", "search", "stm", "prefilter", "kappa", "phi_t", "total")


@dataclass(frozen=True)
class Config:
    nli_limit: int | None = None  # pairs per NLI set; None = all
    throughput_pairs: int = 512
    repeats: int = 3  # throughput: best of n
    batch_sizes: tuple[int, ...] = (1, 8, 32, 128)
    ks: tuple[int, ...] = (10, 20, 50)
    queries: int = len(QUERIES)
    rounds: int = 3  # memory timeline: 3 x ~100 turns
    timeline_turns: int | None = None  # cut the timeline (smoke runs)
    memory_limit: int | None = None  # agent-memory pairs (every n-th; smoke runs)
    precompute_m: int | None = None  # None = the settings' verdict_precompute_m
    threads: int | None = None  # torch intra-op threads; None = torch's default
    cosine_floor: float | None = None  # latency runs: GCMEM_DOMINANCE_COSINE_FLOOR
    pad_multiple: int | None = None  # batch widths rounded up to this; None = the device's default
    log_states: tuple[str, ...] = LOG_STATES
    floors: tuple[float, ...] = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
    device: str = "auto"
    redis_url: str | None = None
    out: Path = DEFAULT_OUT
    label: str = "full"


SMOKE = Config(
    nli_limit=8,
    throughput_pairs=8,
    repeats=1,
    batch_sizes=(1, 4),
    ks=(4,),
    queries=2,
    rounds=1,
    timeline_turns=16,
    memory_limit=20,
    precompute_m=3,
    floors=(0.3, 0.6),
    label="smoke",
)


# --- shared -------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        # The shared 2-core machine runs other people's work too: the load says how much.
        "loadavg_1_5_15": list(os.getloadavg()),
    }
    return info


def prf(flags: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    tp = int(np.sum(flags & labels))
    fp = int(np.sum(flags & ~labels))
    fn = int(np.sum(~flags & labels))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else 0.0


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, default=str))


# --- quality ------------------------------------------------------------------------------------


def score_both_directions(
    oracle: CrossEncoderOracle, pairs: Sequence[LabelledPair]
) -> tuple[np.ndarray, np.ndarray]:
    """(forward, max-of-both) P(contradiction); forward = P(c | older/premise, newer)."""
    both = [(p.older, p.newer) for p in pairs] + [(p.newer, p.older) for p in pairs]
    scores = oracle.score_directed(both)
    n = len(pairs)
    return scores[:n], np.maximum(scores[:n], scores[n:])


def sweep(scores: np.ndarray, labels: np.ndarray, threshold: float) -> dict[str, Any]:
    rows = [{"threshold": t, **prf(scores >= t, labels)} for t in THRESHOLDS]
    best = max(rows, key=lambda r: (r["f1"], -r["threshold"]))
    over_half = [r for r in rows if r["recall"] >= 0.5]
    at_half = max(over_half, key=lambda r: r["threshold"]) if over_half else None
    return {
        "at_threshold": {"threshold": threshold, **prf(scores >= threshold, labels)},
        "best_f1": best,
        "highest_threshold_with_recall_50": at_half,
        "sweep": rows,
    }


def run_quality(
    cfg: Config, oracle: CrossEncoderOracle, embedder: Embedder, threshold: float
) -> dict[str, Any]:
    sets: dict[str, list[LabelledPair]] = {name: load_nli(name, cfg.nli_limit) for name in HELD_OUT}
    sets["agent-memory"] = _memory_pairs(cfg)
    oracle.progress = True
    results: dict[str, Any] = {}
    scored: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, pairs in sets.items():
        t0 = time.perf_counter()
        fwd, mx = score_both_directions(oracle, pairs)
        elapsed = time.perf_counter() - t0
        scored[name] = (fwd, mx)
        labels = np.array([p.contradiction for p in pairs])
        results[name] = {
            "pairs": len(pairs),
            "contradictions": int(labels.sum()),
            "seconds": elapsed,
            "forward": sweep(fwd, labels, threshold),
            "max": sweep(mx, labels, threshold),
        }
    oracle.progress = False

    # Agent-memory categories: how often each kind of pair is flagged at the threshold.
    mem = sets["agent-memory"]
    fwd, mx = scored["agent-memory"]
    categories: dict[str, Any] = {}
    for cat in sorted({p.category for p in mem}):
        idx = np.array([p.category == cat for p in mem])
        categories[cat] = {
            "pairs": int(idx.sum()),
            "contradiction": bool(mem[int(np.argmax(idx))].contradiction),
            "flagged_forward": float(np.mean(fwd[idx] >= threshold)),
            "flagged_max": float(np.mean(mx[idx] >= threshold)),
            "flagged_max_by_threshold": {
                str(t): float(np.mean(mx[idx] >= t)) for t in CATEGORY_THRESHOLDS
            },
            "mean_score_max": float(np.mean(mx[idx])),
        }
    results["agent-memory"]["categories"] = categories
    order = np.argsort(-mx, kind="stable")
    results["agent-memory"]["examples"] = [
        {
            "older": mem[i].older,
            "newer": mem[i].newer,
            "label": mem[i].category,
            "score_forward": round(float(fwd[i]), 3),
            "score_max": round(float(mx[i]), 3),
        }
        for i in order
    ]
    results["cosine_floor"] = cosine_floor_cost(cfg, sets, embedder)
    return results


def _memory_pairs(cfg: Config) -> list[LabelledPair]:
    pairs = memory_pairs()
    if cfg.memory_limit is None or cfg.memory_limit >= len(pairs):
        return pairs
    step = len(pairs) / cfg.memory_limit  # every n-th pair keeps every category represented
    return [pairs[int(i * step)] for i in range(cfg.memory_limit)]


def cosine_floor_cost(
    cfg: Config, sets: dict[str, list[LabelledPair]], embedder: Embedder
) -> dict[str, Any]:
    """Share of contradictions (recall lost) and of other pairs (oracle work saved) that a
    cosine floor would skip, per set. NLI sets are subsampled to 2,000 pairs (embedding cost)."""
    out: dict[str, Any] = {}
    for name, pairs in sets.items():
        sample = pairs[:2000]
        vecs = embedder.embed([t for p in sample for t in (p.older, p.newer)])
        cos = np.sum(vecs[0::2] * vecs[1::2], axis=1)
        labels = np.array([p.contradiction for p in sample])
        out[name] = {
            "pairs": len(sample),
            "mean_cos_contradiction": float(cos[labels].mean()) if labels.any() else None,
            "mean_cos_other": float(cos[~labels].mean()) if (~labels).any() else None,
            "floors": [
                {
                    "floor": f,
                    "contradictions_skipped": float(np.mean(cos[labels] < f))
                    if labels.any()
                    else 0.0,
                    "other_pairs_skipped": float(np.mean(cos[~labels] < f))
                    if (~labels).any()
                    else 0.0,
                }
                for f in cfg.floors
            ],
        }
    return out


def quality_markdown(res: dict[str, Any], threshold: float) -> str:
    lines = [
        f"### Oracle quality (threshold {threshold:.2f})",
        "",
        "| set | pairs | contra. | direction | P | R | F1 | best F1 (θ) | "
        "highest θ with R ≥ 0.5 (P there) |",
        "|---|---:|---:|---|---:|---:|---:|---|---|",
    ]
    for name, r in res.items():
        if name == "cosine_floor":
            continue
        for direction in ("forward", "max"):
            s = r[direction]
            a, b, h = s["at_threshold"], s["best_f1"], s["highest_threshold_with_recall_50"]
            half = f"{h['threshold']:.2f} ({h['precision']:.2f})" if h else "never"
            lines.append(
                f"| {name} | {r['pairs']:,} | {r['contradictions']:,} | {direction} | "
                f"{a['precision']:.3f} | {a['recall']:.3f} | {a['f1']:.3f} | "
                f"{b['f1']:.3f} ({b['threshold']:.2f}) | {half} |"
            )
    cats = res["agent-memory"]["categories"]
    lines += [
        "",
        f"Agent-memory pairs flagged as contradictions at θ = {threshold:.2f}:",
        "",
        "| category | pairs | is a contradiction | flagged (forward) | flagged (max) | "
        "mean P(c) (max) | " + " | ".join(f"max @ {t}" for t in CATEGORY_THRESHOLDS) + " |",
        "|---|---:|---|---:|---:|---:|" + "---:|" * len(CATEGORY_THRESHOLDS),
    ]
    for cat, c in cats.items():
        by_t = " | ".join(
            f"{c['flagged_max_by_threshold'][str(t)]:.0%}" for t in CATEGORY_THRESHOLDS
        )
        lines.append(
            f"| {cat} | {c['pairs']} | {'yes' if c['contradiction'] else 'no'} | "
            f"{c['flagged_forward']:.0%} | {c['flagged_max']:.0%} | {c['mean_score_max']:.2f} | "
            f"{by_t} |"
        )
    lines += [
        "",
        "Cosine floor: share of pairs a floor would skip (contradictions skipped = recall lost):",
        "",
        "| set | floor | contradictions skipped | other pairs skipped |",
        "|---|---:|---:|---:|",
    ]
    for name, c in res["cosine_floor"].items():
        for f in c["floors"]:
            lines.append(
                f"| {name} | {f['floor']:.1f} | {f['contradictions_skipped']:.1%} | "
                f"{f['other_pairs_skipped']:.1%} |"
            )
    return "\n".join(lines) + "\n"


def quality_plot(res: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in res if n != "cosine_floor"]
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), sharey=True)
    for ax, name in zip(np.atleast_1d(axes), names, strict=True):
        for direction, style in (("max", "-"), ("forward", "--")):
            rows = res[name][direction]["sweep"]
            t = [r["threshold"] for r in rows]
            ax.plot(
                t, [r["precision"] for r in rows], style, color="tab:blue", label=f"P {direction}"
            )
            ax.plot(t, [r["recall"] for r in rows], style, color="tab:red", label=f"R {direction}")
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("threshold")
    np.atleast_1d(axes)[0].set_ylabel("contradiction P / R")
    np.atleast_1d(axes)[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- throughput ---------------------------------------------------------------------------------


def run_throughput(cfg: Config, oracle: CrossEncoderOracle) -> dict[str, Any]:
    workloads = {
        "snli-test": [(p.older, p.newer) for p in load_nli("snli-test", cfg.throughput_pairs)],
        "agent-memory": [(p.older, p.newer) for p in _memory_pairs(cfg)],
    }
    n = cfg.throughput_pairs
    workloads["agent-memory"] = (
        workloads["agent-memory"] * (n // len(workloads["agent-memory"]) + 1)
    )[:n]
    rows = []
    configured = oracle.batch_size
    for name, pairs in workloads.items():
        for b in tqdm(cfg.batch_sizes, desc=f"throughput {name}", unit="batch size"):
            oracle.batch_size = b
            oracle.score_directed(pairs[: max(b, 8)])  # warm-up
            # Best of `repeats`, interleaved: on a shared machine the minimum is the run the
            # neighbours disturbed least, and all three numbers see the same conditions.
            e2e = both = raw = prep = float("inf")
            for _ in range(cfg.repeats):
                t0 = time.perf_counter()
                oracle.score_directed(pairs)
                e2e = min(e2e, time.perf_counter() - t0)
                t0 = time.perf_counter()
                apply_direction(oracle.score_directed, pairs, "max")
                both = min(both, time.perf_counter() - t0)
                t0 = time.perf_counter()
                batches = oracle.batches(oracle.encode(pairs))
                prep = min(prep, time.perf_counter() - t0)
                raw = min(raw, _forward_only(oracle, batches))
            tokens = [len(e["input_ids"]) for e in oracle.encode(pairs)]
            rows.append(
                {
                    "workload": name,
                    "batch_size": b,
                    "pairs": len(pairs),
                    "mean_tokens": float(np.mean(tokens)),
                    "pairs_per_s": len(pairs) / e2e,
                    "pairs_per_s_max_direction": len(pairs) / both,
                    "raw_forward_pairs_per_s": len(pairs) / raw,
                    "tokenize_pad_ms": prep * 1e3,
                    "overhead_ratio": e2e / raw,
                }
            )
    oracle.batch_size = configured
    return {"rows": rows, "device": oracle.device, "dtype": str(oracle.dtype)}


def _forward_only(oracle: CrossEncoderOracle, batches: list[tuple[np.ndarray, Any]]) -> float:
    """Seconds for the bare ``model(**batch)`` calls over prepared batches."""
    cuda = oracle.device.startswith("cuda")
    if cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.inference_mode():
        for _, batch in batches:
            oracle.model(**batch)
    if cuda:
        torch.cuda.synchronize()
    return time.perf_counter() - t0


def throughput_markdown(res: dict[str, Any]) -> str:
    lines = [
        f"### Oracle throughput ({res['device']}, {res['dtype']})",
        "",
        "| workload | batch | mean tokens | pairs/s (forward) | pairs/s (max: 2 passes) | "
        "raw forward pairs/s | time ratio oracle / raw | tokenize + pad ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res["rows"]:
        lines.append(
            f"| {r['workload']} | {r['batch_size']} | {r['mean_tokens']:.0f} | "
            f"{r['pairs_per_s']:.0f} | {r['pairs_per_s_max_direction']:.0f} | "
            f"{r['raw_forward_pairs_per_s']:.0f} | {r['overhead_ratio']:.2f} | "
            f"{r['tokenize_pad_ms']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def throughput_plot(res: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workloads = sorted({r["workload"] for r in res["rows"]})
    fig, axes = plt.subplots(1, len(workloads), figsize=(5 * len(workloads), 3.4))
    for ax, name in zip(np.atleast_1d(axes), workloads, strict=True):
        rows = [r for r in res["rows"] if r["workload"] == name]
        x = np.arange(len(rows))
        ax.bar(x - 0.2, [r["pairs_per_s"] for r in rows], 0.4, label="oracle (end to end)")
        ax.bar(x + 0.2, [r["raw_forward_pairs_per_s"] for r in rows], 0.4, label="raw forward")
        ax.set_xticks(x, [str(r["batch_size"]) for r in rows])
        ax.set_xlabel("batch size")
        ax.set_ylabel("pairs / s")
        ax.set_title(f"{name} ({res['device']})", fontsize=10)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- latency ------------------------------------------------------------------------------------


@dataclass
class LatencySample:
    timings: dict[str, float]
    candidates: int
    pairs: int
    oracle_pairs: int
    hits: int
    misses: int
    dropped: int


@dataclass
class LatencyRig:
    memory: Memory
    prefilter: CandidateFilter | None
    dominance: TemporalDominance
    ingest_ms: float
    snapshot: dict[Any, Any] = field(default_factory=dict)  # verdict hash after ingest


def _turns(cfg: Config) -> list[Turn]:
    timeline = memory_timeline(cfg.rounds)[: cfg.timeline_turns]
    return [
        Turn(id=f"lat-{i:04d}", namespace=NS, text=t.text, ts=t.ts) for i, t in enumerate(timeline)
    ]


def build_rig(
    settings: Settings,
    embedder: Embedder,
    oracle: CrossEncoderOracle,
    turns: list[Turn],
    *,
    precompute: bool,
) -> LatencyRig:
    s = settings.replace(key_prefix=f"bench-oracle-{uuid.uuid4().hex[:10]}")
    mem = Memory(s, embedder=embedder, filters=[], ingest_stages=[])
    mem.resources.given_oracle = oracle
    has_ledger = "supersession" in known_stages()
    prefilter = build_filters(["supersession"], mem.resources)[0] if has_ledger else None
    dominance = cast(TemporalDominance, build_filters(["dominance"], mem.resources)[0])
    ingest = (["supersession"] if has_ledger else []) + (
        ["verdict-precompute"] if precompute else []
    )
    mem.ingest_stages = build_chain([], ingest, mem.resources)[1]
    t0 = time.perf_counter()
    for start in tqdm(
        range(0, len(turns), 32),
        desc="ingest" + (" + precompute" if precompute else ""),
        unit="batch",
    ):
        mem.ingest(turns[start : start + 32])
    rig = LatencyRig(mem, prefilter, dominance, (time.perf_counter() - t0) * 1e3)
    log = mem.resources.verdict_log
    rig.snapshot = cast(dict[Any, Any], mem.redis.hgetall(mem.keys.verdicts(NS, log.theta)))
    return rig


def measure(rig: LatencyRig, query: str, k: int, stm: bool) -> LatencySample:
    mem = rig.memory
    t_start = time.perf_counter()
    cands = mem.candidates(query, namespace=NS, k=k, stm=stm)
    timings = {key: cands.timings_ms.get(key, 0.0) for key in ("expand", "embed", "search", "stm")}
    kept = list(cands.candidates)
    t0 = time.perf_counter()
    if rig.prefilter is not None:
        kept, _ = rig.prefilter.apply(kept, cands.context)
    timings["prefilter"] = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    report = rig.dominance.verdicts(kept, cands.context)
    timings["kappa"] = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    outcome = temporal_dominance(kept, report.verdicts, threshold=rig.dominance.log.threshold)
    timings["phi_t"] = (time.perf_counter() - t0) * 1e3
    timings["total"] = (time.perf_counter() - t_start) * 1e3
    timings["oracle_model"] = report.timings_ms.get("oracle", 0.0)
    return LatencySample(
        timings,
        len(cands.candidates),
        report.plan.pairs,
        len(report.plan.oracle),
        report.hits,
        report.misses,
        len(outcome.dropped),
    )


def _reset_log(rig: LatencyRig, mode: str) -> None:
    log = rig.dominance.log
    log.clear(NS)
    if mode == "precompute" and rig.snapshot:
        rig.memory.redis.hset(rig.memory.keys.verdicts(NS, log.theta), mapping=rig.snapshot)


def run_latency(
    cfg: Config, settings: Settings, embedder: Embedder, oracle: CrossEncoderOracle
) -> dict[str, Any]:
    turns = _turns(cfg)
    queries = (QUERIES * (cfg.queries // len(QUERIES) + 1))[: cfg.queries]
    plain = build_rig(settings, embedder, oracle, turns, precompute=False)
    pre = (
        build_rig(settings, embedder, oracle, turns, precompute=True)
        if "precompute" in cfg.log_states
        else plain
    )
    configs = [(k, stm, mode) for k in cfg.ks for stm in (False, True) for mode in cfg.log_states]
    rows = []
    for k, stm, mode in tqdm(configs, desc="latency configs"):
        rig = pre if mode == "precompute" else plain
        samples: list[LatencySample] = []
        for q in queries:
            # Every query starts from the same log state: empty (cold), the ingest-time
            # precompute (precompute), or everything this query needs (warm: run it once).
            _reset_log(rig, mode)
            if mode == "warm":
                measure(rig, q, k, stm)
            samples.append(measure(rig, q, k, stm))
        hits = sum(s.hits for s in samples)
        misses = sum(s.misses for s in samples)
        rows.append(
            {
                "k": k,
                "stm": stm,
                "log": mode,
                "queries": len(samples),
                "candidates": statistics.mean(s.candidates for s in samples),
                "pairs": statistics.mean(s.pairs for s in samples),
                "oracle_pairs": statistics.mean(s.oracle_pairs for s in samples),
                "oracle_scored": statistics.mean(s.misses for s in samples),
                "hit_rate": hits / (hits + misses) if hits + misses else None,
                "dropped": statistics.mean(s.dropped for s in samples),
                "p50": {
                    st: pct([s.timings[st] for s in samples], 50)
                    for st in (*LATENCY_STAGES, "oracle_model")
                },
                "p95": {
                    st: pct([s.timings[st] for s in samples], 95)
                    for st in (*LATENCY_STAGES, "oracle_model")
                },
            }
        )
    result = {
        "turns": len(turns),
        "chunks": plain.memory.index.count(NS),
        "prefilter": plain.prefilter is not None,
        "ingest_ms": plain.ingest_ms,
        "ingest_with_precompute_ms": pre.ingest_ms if pre is not plain else None,
        "precomputed_verdicts": len(pre.snapshot) if pre is not plain else None,
        "precompute_m": settings.oracle.verdict_precompute_m,
        "cosine_floor": settings.dominance.cosine_floor,
        "redis": "server" if settings.storage.redis_url else "embedded",
        "device": oracle.device,
        "rows": rows,
        "reference_llm_kappa_s": REFERENCE_LLM_S,
    }
    for rig in {id(r): r for r in (plain, pre)}.values():
        # a Redis server outlives the run: leave nothing behind
        delete_matching(rig.memory.redis, rig.memory.keys.pattern())
        rig.memory.close()
    return result


def _ingest_line(res: dict[str, Any]) -> str:
    line = f"Ingest: {res['ingest_ms'] / res['turns']:.1f} ms/turn without precompute"
    if res["ingest_with_precompute_ms"] is not None:
        line += (
            f", {res['ingest_with_precompute_ms'] / res['turns']:.1f} ms/turn with precompute "
            f"(m = {res['precompute_m']}; {res['precomputed_verdicts']} verdicts stored)"
        )
    floor = res["cosine_floor"]
    return line + f". Cosine floor: {floor if floor is not None else 'off'}."


def latency_markdown(res: dict[str, Any]) -> str:
    lines = [
        f"### Query latency ({res['turns']} turns, {res['chunks']} chunks, oracle on "
        f"{res['device']}, Redis {res['redis']})",
        "",
        _ingest_line(res),
        "",
        "p50 / p95 in ms. κ = pair plan + verdict-log reads/writes + oracle. κ pairs = candidate "
        "pairs left for the oracle after scheduling; scored = distinct content pairs the model "
        "ran on (repeated texts share one verdict); hit rate = share of distinct pairs the log "
        "answered.",
        "",
        "| k | STM | log | cand. | κ pairs | scored | hit rate | expand | embed | search | STM | "
        "pre-filter | κ | Φ_T | total |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res["rows"]:
        cells = " | ".join(f"{r['p50'][s]:.1f} / {r['p95'][s]:.1f}" for s in LATENCY_STAGES)
        hr = f"{r['hit_rate']:.0%}" if r["hit_rate"] is not None else "-"
        lines.append(
            f"| {r['k']} | {'on' if r['stm'] else 'off'} | {r['log']} | {r['candidates']:.0f} | "
            f"{r['oracle_pairs']:.0f} | {r['oracle_scored']:.0f} | {hr} | {cells} |"
        )
    cold10 = [r for r in res["rows"] if r["k"] == 10 and r["log"] == "cold" and not r["stm"]]
    if cold10:
        p50 = cold10[0]["p50"]["total"]
        lines += [
            "",
            f"Reference LLM-prompt κ: ~10.5 s/query at k = 10 (15-26 s with STM). Here, cold log, "
            f"k = 10, STM off: p50 {p50:.0f} ms ({10_500 / max(p50, 1e-9):.0f}x faster).",
        ]
    return "\n".join(lines) + "\n"


def latency_plot(res: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res["rows"]
    stages = [s for s in LATENCY_STAGES if s != "total"]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(rows)), 4))
    bottom = np.zeros(len(rows))
    for st in stages:
        vals = np.array([r["p50"][st] for r in rows])
        ax.bar(range(len(rows)), vals, bottom=bottom, label=st)
        bottom += vals
    labels = [f"k{r['k']} {'stm' if r['stm'] else '-'}\n{r['log']}" for r in rows]
    ax.set_xticks(range(len(rows)), labels, fontsize=6)
    ax.set_yscale("symlog", linthresh=10)
    ax.set_ylabel("p50 ms (stacked by stage)")
    ax.legend(fontsize=7, ncols=4)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- entry point --------------------------------------------------------------------------------


def run(cfg: Config, modes: Sequence[str]) -> dict[str, Any]:
    threads_before = torch.get_num_threads()
    if cfg.threads is not None:
        torch.set_num_threads(cfg.threads)
    try:
        return _run(cfg, modes)
    finally:
        torch.set_num_threads(threads_before)  # process-wide: do not leak into the caller


def _run(cfg: Config, modes: Sequence[str]) -> dict[str, Any]:
    base = load_settings()
    with tempfile.TemporaryDirectory(prefix="gcmem-bench-oracle-") as tmp:
        settings = base.replace(
            data_dir=Path(tmp),
            ephemeral=True,
            redis_url=cfg.redis_url,
            device=cfg.device,
            filters=[],
            ingest=[],
            verdict_precompute_m=cfg.precompute_m or base.oracle.verdict_precompute_m,
            dominance_cosine_floor=cfg.cosine_floor,
        )
        # The bare model: quality and throughput are the cross-encoder's raw P(contradiction).
        oracle = cast(
            CrossEncoderOracle,
            build_model_oracle(
                settings.oracle.model_copy(update={"backend": "cross-encoder"}),
                settings.judge,
                device=settings.models.device,
                weights_cache=settings.storage.weights_cache(),
            ),
        )
        if cfg.pad_multiple is not None:
            oracle.pad_to_multiple_of = cfg.pad_multiple
        embedder = TransformerEmbedder(settings.models.embedder, device=cfg.device)
        out: dict[str, Any] = {
            "machine": machine(),
            "model": settings.oracle.model,
            "identity": json.loads(oracle.identity.canonical()),
            "pad_to_multiple_of": oracle.pad_to_multiple_of,
            "threshold": settings.oracle.threshold,
            "config": {k: v for k, v in asdict(cfg).items() if k != "out"},
        }
        cfg.out.mkdir(parents=True, exist_ok=True)
        stem = "" if cfg.label == "full" else f"-{cfg.label}"
        if "quality" in modes:
            out["quality"] = run_quality(cfg, oracle, embedder, settings.oracle.threshold)
            write_json(
                cfg.out / f"quality{stem}.json", {**out, "loadavg_at_end": list(os.getloadavg())}
            )
            (cfg.out / f"quality{stem}.md").write_text(
                quality_markdown(out["quality"], settings.oracle.threshold)
            )
            quality_plot(out["quality"], cfg.out / f"quality{stem}.png")
        if "throughput" in modes:
            out["throughput"] = run_throughput(cfg, oracle)
            write_json(
                cfg.out / f"throughput{stem}.json", {**out, "loadavg_at_end": list(os.getloadavg())}
            )
            (cfg.out / f"throughput{stem}.md").write_text(throughput_markdown(out["throughput"]))
            throughput_plot(out["throughput"], cfg.out / f"throughput{stem}.png")
        if "latency" in modes:
            out["latency"] = run_latency(cfg, settings, embedder, oracle)
            write_json(
                cfg.out / f"latency{stem}.json", {**out, "loadavg_at_end": list(os.getloadavg())}
            )
            (cfg.out / f"latency{stem}.md").write_text(latency_markdown(out["latency"]))
            latency_plot(out["latency"], cfg.out / f"latency{stem}.png")
    return out


MODES = ("quality", "throughput", "latency")


def _ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError as exc:
        raise typer.BadParameter(f"expected comma-separated integers, got {text!r}") from exc
    if not values or min(values) < 1:
        raise typer.BadParameter(f"expected positive integers, got {text!r}")
    return values


def _log_states(text: str) -> tuple[str, ...]:
    states = tuple(v.strip() for v in text.split(",") if v.strip())
    if not states or any(v not in LOG_STATES for v in states):
        raise typer.BadParameter(f"log states must be among {LOG_STATES}, got {text!r}")
    return states


def cli(
    mode: Annotated[str, typer.Option(help="quality, throughput, latency or all.")] = "all",
    smoke: Annotated[bool, typer.Option(help="A tiny run that finishes in seconds.")] = False,
    nli_limit: Annotated[
        int | None, typer.Option(min=1, help="Pairs per NLI set (default all).")
    ] = None,
    throughput_pairs: Annotated[
        int, typer.Option(min=1, help="Pairs per throughput run.")
    ] = Config.throughput_pairs,
    batch_sizes: Annotated[str, typer.Option(help="Comma-separated batch sizes.")] = "1,8,32,128",
    ks: Annotated[str, typer.Option(help="Comma-separated top-k values for latency.")] = "10,20,50",
    queries: Annotated[
        int, typer.Option(min=1, help="Queries per latency configuration.")
    ] = Config.queries,
    device: Annotated[str, typer.Option(help="auto, cpu or cuda.")] = "auto",
    redis_url: Annotated[str | None, typer.Option(help="Redis server (default: embedded).")] = None,
    threads: Annotated[
        int | None, typer.Option(min=1, help="torch CPU threads (default: torch's choice).")
    ] = None,
    cosine_floor: Annotated[
        float | None, typer.Option(min=-1.0, max=1.0, help="Latency: κ cosine floor (default off).")
    ] = None,
    precompute_m: Annotated[
        int | None, typer.Option(min=1, help="Latency: neighbours per chunk for precompute.")
    ] = None,
    pad_multiple: Annotated[
        int | None,
        typer.Option(min=1, help="Oracle batch widths rounded up to this (default: device's)."),
    ] = None,
    log_states: Annotated[
        str, typer.Option(help="Latency: comma-separated verdict-log states to measure.")
    ] = ",".join(LOG_STATES),
    out: Annotated[Path, typer.Option(help="Results directory.")] = DEFAULT_OUT,
    label: Annotated[str | None, typer.Option(help="Output file suffix (default: none).")] = None,
) -> None:
    """The conflict oracle: quality, throughput and query latency."""
    modes = MODES if mode == "all" else (mode,)
    if any(m not in MODES for m in modes):
        raise typer.BadParameter(f"mode must be one of {(*MODES, 'all')}, got {mode!r}")
    if device not in ("auto", "cpu", "cuda"):
        raise typer.BadParameter(f"device must be auto, cpu or cuda, got {device!r}")
    if smoke:
        cfg = replace(SMOKE, out=out, device=device, redis_url=redis_url, threads=threads)
    else:
        cfg = Config(
            nli_limit=nli_limit,
            throughput_pairs=throughput_pairs,
            batch_sizes=_ints(batch_sizes),
            ks=_ints(ks),
            queries=queries,
            device=device,
            redis_url=redis_url,
            threads=threads,
            cosine_floor=cosine_floor,
            precompute_m=precompute_m,
            pad_multiple=pad_multiple,
            log_states=_log_states(log_states),
            out=out,
            label=label or "full",
        )
    result = run(cfg, modes)
    for m in modes:
        stem = "" if cfg.label == "full" else f"-{cfg.label}"
        typer.echo((cfg.out / f"{m}{stem}.md").read_text())
    typer.echo(f"results in {cfg.out} ({', '.join(k for k in result if k in MODES)})")


if __name__ == "__main__":
    typer.run(cli)
