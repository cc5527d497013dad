"""Core commands: demo, ingest, query, stages."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from tqdm.auto import tqdm

from gcmem.settings import SettingsError, load_settings

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="gcmem: garbage collection for agent memory.",
)
console = Console()


def _memory(**overrides: object):  # type: ignore[no-untyped-def]
    from gcmem.memory import Memory

    try:
        settings = load_settings(**overrides)
    except SettingsError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    return Memory.from_settings(settings)


@app.command()
def demo(
    data_dir: Annotated[
        Path | None, typer.Option(help="Keep the demo memory here (default: in memory only).")
    ] = None,
) -> None:
    """Ingest a built-in timeline of changing and static facts, then show, per question, the
    context standard RAG gives and what gcmem's filters keep and drop (with reasons)."""
    from gcmem.cli.demo import run_demo

    overrides: dict[str, object] = {"namespace": "demo"}
    if data_dir is None:
        overrides["ephemeral"] = True
    else:
        overrides["data_dir"] = data_dir
    with _memory(**overrides) as memory:
        run_demo(memory, console)


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(help="Turns, one JSON object per line ('-' = stdin).")],
    namespace: Annotated[
        str | None, typer.Option(help="Namespace for turns that do not name one.")
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Turns per ingest batch.")] = 256,
) -> None:
    """Ingest turns from a JSONL file, with a progress bar. Invalid lines are reported with
    their line number and skipped; the rest are ingested."""
    from gcmem.memory import TurnValidationError

    overrides: dict[str, object] = {}
    if namespace:
        overrides["namespace"] = namespace
    stream = sys.stdin if str(file) == "-" else file.open(encoding="utf-8")
    bad = good = total_chunks = 0
    with _memory(**overrides) as memory, stream:
        batch: list[tuple[int, dict[str, object]]] = []

        def flush() -> None:
            nonlocal bad, good, total_chunks
            pending = batch[:]
            batch.clear()
            while pending:
                try:
                    total_chunks += memory.ingest([row for _, row in pending]).chunks
                    good += len(pending)
                    return
                except TurnValidationError as exc:
                    lineno = pending[exc.position][0]
                    console.print(f"[red]line {lineno}: {exc.error}[/red]")
                    bad += 1
                    del pending[exc.position]

        progress = tqdm(desc="ingest", unit="turn")
        for lineno, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if not isinstance(row, dict):
                    raise ValueError("not a JSON object")
            except ValueError as exc:
                console.print(f"[red]line {lineno}: {exc}[/red]")
                bad += 1
                continue
            batch.append((lineno, row))
            if len(batch) >= batch_size:
                n = len(batch)
                flush()
                progress.update(n)
        n = len(batch)
        flush()
        progress.update(n)
        progress.close()
    console.print(f"ingested {good} turns ({total_chunks} chunks); {bad} rejected")
    if bad:
        raise typer.Exit(1)


@app.command()
def query(
    text: Annotated[str, typer.Argument(help="The question.")],
    namespace: Annotated[str | None, typer.Option(help="Namespace to read.")] = None,
    k: Annotated[int | None, typer.Option(min=1, help="Top-k per query variant.")] = None,
    stm: Annotated[bool, typer.Option(help="Add the short-term buffer to the candidates.")] = True,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the RetrievalResult JSON.")
    ] = False,
) -> None:
    """Retrieve the filtered context for a question."""
    from gcmem.cli.demo import render_result

    with _memory() as memory:
        result = memory.retrieve(text, namespace=namespace, k=k, stm=stm)
    if as_json:
        print(result.model_dump_json(indent=2))
    else:
        render_result(result, console)


@app.command()
def stages() -> None:
    """List the filter and ingest stages settings can name."""
    from gcmem.filters.registry import known_stages

    for name in known_stages():
        console.print(name)
