"""One sweep run: load scenarios, run (or resume) both phases, write the report."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.cleanup import delete_matching
from bench.embedding import CachedEmbedder
from bench.scenarios.model import Scenario, file_sha256, load_scenarios
from bench.sweep.archive import VerdictArchive
from bench.sweep.config import SweepConfig
from bench.sweep.harness import (
    EvaluationPhase,
    RetrievalPhase,
    WriteGCPhase,
    contradiction_base_rate,
    digest,
    evaluation_identity,
    retrieval_identity,
    writegc_identity,
)
from bench.sweep.reader import ReaderConfig, run_reader
from bench.sweep.report import (
    build_table,
    detector_rows,
    headline_numbers,
    latency_summary,
    main_conditions,
    model_pair_quality,
    realised_noise,
    summarise,
    write_outputs,
    writegc_summary,
)
from bench.sweep.store import RecordStore
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.settings import Settings, load_settings
from gcmem.storage.redis import open_redis


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            names = [line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPU cores, {platform.system()} {platform.release()}"


def sweep_settings(config: SweepConfig, work_dir: Path, run_digest: str) -> Settings:
    """The environment's settings (Redis/Qdrant URLs, NLI model, oracle knobs) with the sweep's
    retrieval shape and the ledger on; everything embedded stays in memory."""
    return load_settings(
        data_dir=work_dir / "data",
        ephemeral=True,
        key_prefix=f"gcmem-sweep-{run_digest[:10]}",
        top_k=config.k,
        stm_size=config.stm_size,
        ingest=["supersession"],
        filters=[],
    )


def _embedder(settings: Settings) -> TransformerEmbedder:
    return TransformerEmbedder(
        settings.models.embedder,
        device=settings.models.device,
        batch_size=settings.models.embed_batch_size,
        max_length=settings.models.embed_max_length,
    )


def _add_embedding_stats(path: Path, texts: int, seconds: float) -> dict[str, float]:
    """Texts the model embedded and the time it took, summed over resumed invocations."""
    stats = json.loads(path.read_text()) if path.exists() else {"texts": 0, "seconds": 0.0}
    stats = {"texts": stats["texts"] + texts, "seconds": stats["seconds"] + seconds}
    path.write_text(json.dumps(stats))
    return stats


def _drop_prefix(client: Any, prefix: str) -> None:
    delete_matching(client, f"{prefix}:*")


def _with_elapsed(step: Any) -> Any:
    def timed(scenario: Scenario, *args: Any) -> dict[str, Any]:
        t0 = time.perf_counter()
        record: dict[str, Any] = step(scenario, *args)
        record["elapsed_s"] = round(time.perf_counter() - t0, 4)
        # The machine is shared: the 1-minute load average puts each timing in context.
        record["load1"] = round(os.getloadavg()[0], 2)
        return record

    return timed


def run_sweep(
    scenarios_path: Path,
    config: SweepConfig,
    *,
    work_dir: Path,
    out_dir: Path,
    limit: int | None = None,
    progress: bool = True,
    command: str | None = None,
    threads: int | None = None,
    reader: ReaderConfig | None = None,
    report_only: bool = False,
    log: Any = print,
) -> dict[str, Any]:
    """Run or resume both phases, then write the report. ``report_only``: compute nothing, and
    report on the instances both phases have recorded so far (e.g. while a run is going)."""
    import torch
    from tqdm.auto import tqdm

    if threads is not None:
        # On a shared machine two OpenMP threads per process thrash (measured 4-16 texts/s
        # with two threads against 40-44 with one under load); one thread is the safe choice.
        torch.set_num_threads(threads)
    t_start = time.perf_counter()
    # A log file gets a progress line every 30 s instead of a carriage-return stream.
    bar: dict[str, Any] = {"disable": not progress}
    if not sys.stderr.isatty():
        bar["mininterval"] = 30.0
    scenarios = load_scenarios(scenarios_path)
    if limit is not None:
        scenarios = scenarios[:limit]
    by_id = {s.id: s for s in scenarios}
    sha = file_sha256(scenarios_path)
    work_dir.mkdir(parents=True, exist_ok=True)
    settings = sweep_settings(config, work_dir, digest([sha, asdict(config)]))
    client = open_redis(settings.storage)

    # --- phase 1: retrieval --------------------------------------------------------------------
    retrieval_digest = digest(retrieval_identity(config, settings, sha))
    store_a = RecordStore(work_dir / f"retrieval-{retrieval_digest}.jsonl")
    done = store_a.ids()
    todo = [] if report_only else [s for s in scenarios if s.id not in done]
    embed_stats: dict[str, float] = {}
    phase_a: RetrievalPhase | None = None
    if todo:
        log(f"retrieval: {len(todo)} of {len(scenarios)} instances to ingest and retrieve")
        phase_a = RetrievalPhase(settings, config, _embedder(settings), client)
        step = _with_elapsed(phase_a.run)
        for scenario in tqdm(todo, desc="retrieve", unit="inst", **bar):
            store_a.append(step(scenario))
        embed_stats = _add_embedding_stats(
            work_dir / f"embedding-{retrieval_digest}.json",
            phase_a.cached.embedded,
            phase_a.cached.seconds,
        )
    else:
        stats_file = work_dir / f"embedding-{retrieval_digest}.json"
        embed_stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    retrieval = {r["id"]: r for r in store_a if r["id"] in by_id}

    base_rate, scheduled = contradiction_base_rate(
        by_id, retrieval.values(), settings.memory.chunk_max_chars
    )
    log(
        f"Φ_T schedules {scheduled:,} pairs over {len(retrieval)} candidate sets (STM on); "
        f"{base_rate:.3f} of them are true contradictions"
    )
    unreachable = len(config.noisy_names()) - len(config.noisy_names(base_rate))
    if unreachable:
        log(
            f"skipping {unreachable} noisy detector(s) whose precision is unreachable at this "
            "base rate (even flagging every pair gives more)"
        )

    model_oracle = None
    model_name = "nli" if settings.oracle.backend == "cross-encoder" else settings.oracle.backend
    model_settings = settings
    if "nli" in config.oracles or "nli" in config.write_gc:
        from gcmem.oracle.factory import build_oracle

        model_oracle = build_oracle(
            settings.oracle,
            settings.judge,
            device=settings.models.device,
            weights_cache=settings.storage.weights_cache(),
        )
        # A calibrated κ brings its own threshold (GCMEM_ORACLE_CALIBRATION): key the records
        # and report decisions by the threshold actually applied.
        model_settings = settings.replace(oracle_threshold=model_oracle.threshold)
        if "nli" in config.oracles:
            settings = model_settings
    model_identity = model_oracle.identity.canonical() if model_oracle is not None else None

    # --- phase 1b: write-time GC with κ flags, per oracle --------------------------------------
    writegc: dict[str, dict[str, dict[str, Any]]] = {}
    cached: CachedEmbedder | None = None
    for name in config.write_gc:
        model = name == "nli"
        if model and model_oracle is None:
            continue
        label = model_name if model else name
        ident = model_identity if model else "gold"
        wsettings = model_settings if model else settings
        wdigest = digest(writegc_identity(config, wsettings, sha, str(ident)))
        store_w = RecordStore(work_dir / f"writegc-{name}-{wdigest}.jsonl")
        wanted = scenarios[: config.write_gc_model_limit] if model else scenarios
        done_w = store_w.ids()
        todo_w = [] if report_only else [s for s in wanted if s.id not in done_w]
        if todo_w:
            log(f"write-time GC with κ = {label}: {len(todo_w)} instances")
            if cached is None:
                cached = (
                    phase_a.cached if phase_a is not None else CachedEmbedder(_embedder(settings))
                )
            embedder_w = cached
            phase_w = WriteGCPhase(
                wsettings, config, embedder_w, client, label, model_oracle if model else None
            )
            step_w = _with_elapsed(phase_w.run)
            for scenario in tqdm(todo_w, desc=f"write-gc[{label}]", unit="inst", **bar):
                store_w.append(step_w(scenario))
        writegc[label] = {r["id"]: r for r in store_w if r["id"] in by_id}

    # --- phase 2: evaluation -------------------------------------------------------------------
    # phase 2 scores with the model only when it is one of the oracles (write-time GC alone
    # may have loaded it)
    eval_oracle = model_oracle if "nli" in config.oracles else None
    eval_identity = model_identity if eval_oracle is not None else None
    eval_digest = digest(evaluation_identity(config, settings, retrieval_digest, eval_identity))
    store_b = RecordStore(work_dir / f"evaluation-{eval_digest}.jsonl")
    done_b = store_b.ids()
    todo_b = [] if report_only else [s for s in scenarios if s.id not in done_b]
    if todo_b:
        log(f"evaluation: {len(todo_b)} instances; oracles {', '.join(config.oracles)}")
        archive = VerdictArchive(work_dir, eval_oracle.identity.digest) if eval_oracle else None
        phase_b = EvaluationPhase(
            settings, config, client, base_rate, eval_oracle, model_name, archive
        )
        step_b = _with_elapsed(phase_b.run)
        for scenario in tqdm(todo_b, desc="evaluate", unit="inst", **bar):
            store_b.append(step_b(scenario, retrieval[scenario.id]))
    evaluation = {r["id"]: r for r in store_b if r["id"] in by_id}
    if len(evaluation) < len(scenarios):
        log(f"reporting on {len(evaluation)} of {len(scenarios)} instances (the rest are pending)")
    if not report_only:  # a report-only call may run beside the run that owns these keys
        _drop_prefix(client, settings.storage.key_prefix)  # the run's own keys (oracle stats, θs)

    # --- optional real reader ------------------------------------------------------------------
    answers = None
    if reader is not None and not report_only:
        log(f"LLM reader: {reader.model} at {reader.base_url} on {', '.join(reader.conditions)}")
        answers = run_reader(reader, by_id, retrieval, evaluation, work_dir, progress=progress)

    # --- report --------------------------------------------------------------------------------
    table = build_table(by_id, retrieval, evaluation, answers, writegc)
    names = main_conditions(config, model_name, list(writegc))
    conds = [f"{n}|{stm}" for n in names for stm in ("off", "on")] + ["bag-of-facts|-"]
    noisy = [
        f"{part}[{name}]|{stm}"
        for name, _, _ in config.noisy_names(base_rate)
        for part in ("phi", "gcmem")
        for stm in config.noisy_stm
    ]
    summary = summarise(table, conds, noisy)
    # Model time an earlier run paid for verdicts this run read from the archive: part of
    # what a cold evaluation costs.
    reused = sum(
        k.get("archived_ms", 0.0) / 1e3 for r in evaluation.values() for k in r["kappa"].values()
    )
    phase_seconds = {
        "retrieval": sum(r.get("elapsed_s", 0.0) for r in retrieval.values()),
        "evaluation": sum(r.get("elapsed_s", 0.0) for r in evaluation.values()) + reused,
        "evaluation_model_time_reused": reused,
    }
    loads = [r["load1"] for r in (*retrieval.values(), *evaluation.values()) if "load1" in r]
    ratios = sorted(set(table.ratio.tolist()))  # those of the instances reported
    results: dict[str, Any] = {
        "meta": {
            "command": command or " ".join(["gcmem", *sys.argv[1:]]),
            "generated": datetime.now(UTC).isoformat(timespec="seconds"),
            "scenarios": str(scenarios_path),
            "scenarios_sha256": sha,
            "instances": len(table.ids),
            "chunks": sum(int(r["chunks"]) for r in retrieval.values()),
            "ratios": [f"{r:g}:1" for r in ratios],
            "config": {**asdict(config), "context_k": config.context_k},
            "embedder": settings.models.embedder,
            "model_oracle": model_identity,
            "threshold": settings.oracle.threshold,
            "direction": settings.oracle.direction,
            "base_rate": base_rate,
            "scheduled_pairs": scheduled,
            "main_conditions": names,
            "model_name": model_name,
            "machine": machine(),
            "torch_threads": torch.get_num_threads(),
            "mean_load1": sum(loads) / len(loads) if loads else None,
            "phase_seconds": phase_seconds,
            "wall_time_s": phase_seconds["retrieval"] + phase_seconds["evaluation"],
            "this_invocation_s": time.perf_counter() - t_start,
            "embedding": embed_stats,
            "work_dir": str(work_dir),
            "llm_reader": f"{reader.model} via {reader.base_url}" if reader else None,
        },
        "conditions": summary,
        "detector": detector_rows(summary, config),
        "noise": realised_noise(
            by_id, retrieval.values(), config, base_rate, settings.memory.chunk_max_chars
        )
        if config.noisy_names(base_rate)
        else {},
        "latency": latency_summary(retrieval, evaluation, model_name),
        "model_pairs": model_pair_quality(by_id, evaluation, model_name, settings.oracle.threshold),
        "headline": headline_numbers(table, model_name),
        "write_gc": writegc_summary(writegc),
    }
    paths = write_outputs(results, out_dir)
    log("wrote " + ", ".join(str(p) for p in paths))
    return results
