"""``python -m bench sweep``: the accumulation-ratio sweep, on a scenario file or a size."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bench.scenarios.model import ScenarioFormatError, write_scenarios
from bench.sweep.config import SweepConfig
from bench.sweep.reader import ReaderError

DEFAULT_WORK = Path(".bench-cache") / "sweep"
DEFAULT_OUT = Path("bench") / "results" / "sweep"


def _floats(text: str, name: str) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError as exc:
        raise typer.BadParameter(f"{name} must be comma-separated numbers: {text!r}") from exc
    if not values or any(not 0 < v <= 1 for v in values):
        raise typer.BadParameter(f"{name} must lie in (0, 1]: {text!r}")
    return values


def cli(
    scenarios: Annotated[
        Path | None,
        typer.Option(help="Scenario file (JSONL, the sweep format). Default: generate --size."),
    ] = None,
    size: Annotated[
        str, typer.Option(help="Generated size when no file is given: smoke|small|medium|full.")
    ] = "smoke",
    seed: Annotated[int, typer.Option(help="Generator seed (with --size).")] = 0,
    k: Annotated[int, typer.Option(min=1, help="MTM top-k of the candidate set R_k.")] = 10,
    stm_size: Annotated[int, typer.Option(min=0, help="Short-term buffer size (STM on).")] = 5,
    rerank_k: Annotated[
        int | None, typer.Option(min=1, help="Chunks the baseline rankers keep (default: k).")
    ] = None,
    oracles: Annotated[
        str, typer.Option(help="Comma-separated κ variants: nli, gold, noisy.")
    ] = "nli,gold,noisy",
    noisy_recalls: Annotated[
        str, typer.Option(help="Noisy-gold detector recalls.")
    ] = "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
    noisy_precisions: Annotated[
        str, typer.Option(help="Noisy-gold detector precisions.")
    ] = "1.0,0.9,0.75,0.5,0.3,0.2,0.1",
    write_gc: Annotated[
        str,
        typer.Option(
            help="Comma-separated oracles (gold, nli) that also run write-time GC with κ flags "
            "(their own ingest); '' = none."
        ),
    ] = "gold,nli",
    write_gc_model_limit: Annotated[
        int | None,
        typer.Option(min=1, help="Write-time GC with the model's κ on the first N instances."),
    ] = None,
    usage_queries: Annotated[
        int, typer.Option(min=0, help="Times the question is asked during ingest (usage counts).")
    ] = 3,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N instances.")] = None,
    work_dir: Annotated[
        Path | None, typer.Option(help="Resumable state (default .bench-cache/sweep/<name>).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Results directory (default bench/results/sweep/<name>).")
    ] = None,
    threads: Annotated[
        int | None, typer.Option(min=1, help="torch CPU threads (default: torch's own choice).")
    ] = None,
    llm_url: Annotated[
        str | None,
        typer.Option(help="OpenAI-compatible base URL of a real reader, e.g. http://host:8000/v1."),
    ] = None,
    llm_model: Annotated[str | None, typer.Option(help="The reader's model name.")] = None,
    llm_api_key: Annotated[
        str | None, typer.Option(envvar="GCMEM_SWEEP_LLM_API_KEY", help="Bearer token.")
    ] = None,
    llm_conditions: Annotated[
        str | None, typer.Option(help="Comma-separated condition keys the reader answers for.")
    ] = None,
    llm_concurrency: Annotated[int, typer.Option(min=1, help="Requests at once.")] = 4,
    report_only: Annotated[
        bool, typer.Option(help="Compute nothing; report on what is recorded so far.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Progress bars.")] = True,
) -> None:
    """Accumulation-ratio sweep: every condition on the identical candidate set per instance;
    writes results.json, tables.md and PNG plots. Interrupted runs resume where they stopped."""
    from bench.scenarios.generate import SIZES, generate
    from bench.sweep.run import run_sweep

    wanted = tuple(o.strip() for o in oracles.split(",") if o.strip())
    unknown = sorted(set(wanted) - {"nli", "gold", "noisy"})
    if unknown:
        raise typer.BadParameter(f"unknown oracles {unknown}; choose from nli, gold, noisy")
    unknown_gc = sorted({o.strip() for o in write_gc.split(",") if o.strip()} - {"nli", "gold"})
    if unknown_gc:
        raise typer.BadParameter(f"unknown --write-gc oracles {unknown_gc}; choose from nli, gold")
    config = SweepConfig(
        k=k,
        stm_size=stm_size,
        rerank_k=rerank_k,
        usage_queries=usage_queries,
        oracles=wanted,
        noisy_recalls=_floats(noisy_recalls, "--noisy-recalls"),
        noisy_precisions=_floats(noisy_precisions, "--noisy-precisions"),
        write_gc=tuple(o.strip() for o in write_gc.split(",") if o.strip()),
        write_gc_model_limit=write_gc_model_limit,
    )
    reader = None
    if llm_url or llm_model:
        if not (llm_url and llm_model):
            raise typer.BadParameter("a real reader needs both --llm-url and --llm-model")
        from bench.sweep.reader import DEFAULT_CONDITIONS, ReaderConfig

        conds = (
            tuple(c.strip() for c in llm_conditions.split(",") if c.strip())
            if llm_conditions
            else DEFAULT_CONDITIONS
        )
        reader = ReaderConfig(
            llm_url, llm_model, api_key=llm_api_key, conditions=conds, concurrency=llm_concurrency
        )
    if scenarios is None:
        if size not in SIZES:
            raise typer.BadParameter(f"unknown size {size!r}; choose from {', '.join(SIZES)}")
        name = f"{size}-seed{seed}"
        scenarios = (work_dir or DEFAULT_WORK / name) / f"scenarios-{name}.jsonl"
        if not scenarios.exists():
            n = write_scenarios(generate(size, seed), scenarios)
            typer.echo(f"generated {n} instances into {scenarios}")
    else:
        name = scenarios.stem
    try:
        run_sweep(
            scenarios,
            config,
            work_dir=work_dir or DEFAULT_WORK / name,
            out_dir=out or DEFAULT_OUT / name,
            limit=limit,
            progress=progress,
            threads=threads,
            reader=reader,
            report_only=report_only,
            log=typer.echo,
        )
    except ScenarioFormatError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    except ReaderError as exc:
        typer.echo(f"error: the LLM reader failed: {exc}", err=True)
        raise typer.Exit(3) from exc
