"""Pipeline commands: ``worker``, ``serve``, ``publish``, ``asyncapi`` and the ``dlq`` group."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from tqdm.auto import tqdm

from gcmem.settings import Settings, SettingsError, install_log_masking, load_settings

if TYPE_CHECKING:
    from gcmem.pipeline.app import PipelineApp, Roles

console = Console(stderr=True)
dlq_app = typer.Typer(no_args_is_help=True, help="Inspect and replay the dead-letter stream.")

EMBEDDED_WORKER_HELP = (
    "gcmem worker needs GCMEM_REDIS_URL: the embedded Redis lives inside one process.\n"
    "  - one process, no servers: `gcmem serve --with-worker`\n"
    "  - several processes: a Redis server (or the URL `gcmem serve` prints for its embedded "
    "Redis) and a Qdrant server (GCMEM_QDRANT_URL), or GCMEM_PIPELINE_INDEX=bus with "
    "`gcmem serve --host-index`"
)


def _settings(**overrides: object) -> Settings:
    try:
        return load_settings(**{k: v for k, v in overrides.items() if v is not None})
    except SettingsError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc


def _bus_settings(**overrides: object) -> Settings:
    """Settings for a command that talks to the bus, which cannot run on a Redis Cluster."""
    from gcmem.storage.redis import bus_config_error

    settings = _settings(**overrides)
    if (error := bus_config_error(settings.storage)) is not None:
        console.print(f"[red]{error}[/red]")
        raise typer.Exit(2)
    return settings


def _build(settings: Settings, roles: Roles, consumer: str | None) -> PipelineApp:
    from gcmem.pipeline.app import PipelineConfigError, create_app

    # gcmem's own log lines (dead letters, reclaims, Redis outages) next to FastStream's.
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    install_log_masking()  # no URL password in any log line

    try:
        return create_app(settings, roles=roles, consumer=consumer)
    except PipelineConfigError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc


def worker(
    consumer: Annotated[str | None, typer.Option(help="Consumer name (default: unique).")] = None,
    batch_size: Annotated[int | None, typer.Option(min=1, help="Entries per batch.")] = None,
    query: Annotated[bool, typer.Option(help="Also answer query requests on the bus.")] = False,
) -> None:
    """Consume the turn stream as a member of the consumer group (needs GCMEM_REDIS_URL)."""
    from gcmem.pipeline.app import Roles

    settings = _settings(pipeline_batch_size=batch_size)
    if settings.storage.redis_url is None:
        console.print(f"[red]{EMBEDDED_WORKER_HELP}[/red]")
        raise typer.Exit(2)
    built = _build(settings, Roles(worker=True, query=query), consumer)
    asyncio.run(built.app.run())


def serve(
    with_worker: Annotated[
        bool, typer.Option("--with-worker", help="Also consume the turn stream in this process.")
    ] = False,
    host_index: Annotated[
        bool,
        typer.Option(
            "--host-index",
            help="Serve the embedded index to workers running with GCMEM_PIPELINE_INDEX=bus.",
        ),
    ] = False,
    http: Annotated[bool, typer.Option(help="Serve the HTTP interface.")] = True,
    host: Annotated[str | None, typer.Option(help="HTTP bind address.")] = None,
    port: Annotated[int | None, typer.Option(help="HTTP port.")] = None,
) -> None:
    """Answer queries over the bus and HTTP. Without GCMEM_REDIS_URL the embedded Redis is
    exposed on 127.0.0.1 for the bus (the URL is printed)."""
    from gcmem.pipeline.app import Roles

    settings = _settings(http_host=host, http_port=port)
    roles = Roles(worker=with_worker, query=True, host_index=host_index, http=http)
    built = _build(settings, roles, None)
    if built.runtime.embedded_bus is not None:
        console.print(f"embedded Redis for the bus: GCMEM_REDIS_URL={built.url}")
    if http:
        from faststream.asgi import AsgiFastStream

        assert isinstance(built.app, AsgiFastStream)
        console.print(f"HTTP on http://{settings.http.host}:{settings.http.port}")
        # In-flight requests get half the shutdown time; the other half closes the rest.
        options = {
            "host": settings.http.host,
            "port": settings.http.port,
            "timeout_graceful_shutdown": max(1, int(settings.pipeline.shutdown_timeout_s / 2)),
        }
        asyncio.run(built.app.run(run_extra_options=options))  # type: ignore[arg-type]
    else:
        asyncio.run(built.app.run())


def publish(
    file: Annotated[Path, typer.Argument(help="Turns, one JSON object per line ('-' = stdin).")],
) -> None:
    """Publish turns to the turn stream as they are (the workers validate them; rejected
    lines land in the dead-letter stream with the reason)."""
    from gcmem.pipeline.topology import Topology
    from gcmem.storage.redis import Keyspace, open_bus_redis

    settings = _bus_settings()
    if settings.storage.redis_url is None:
        console.print("[red]gcmem publish needs GCMEM_REDIS_URL (the bus's Redis)[/red]")
        raise typer.Exit(2)
    client = open_bus_redis(settings.storage)
    stream = Topology.from_settings(settings.pipeline, Keyspace(settings.storage.key_prefix)).stream
    source = sys.stdin.buffer if str(file) == "-" else file.open("rb")
    published = 0
    with source, tqdm(desc="publish", unit="turn") as bar:
        pipe = client.pipeline(transaction=False)
        for line in source:
            line = line.rstrip(b"\r\n")
            if not line.strip():
                continue
            pipe.xadd(stream, {"__data__": line})
            published += 1
            if len(pipe) >= 500:
                pipe.execute()
                bar.update(500)
        n = len(pipe)
        pipe.execute()
        bar.update(n)
    console.print(f"published {published} entries to {stream}")


def asyncapi(
    out: Annotated[
        Path, typer.Option(help="Directory for asyncapi.json and asyncapi.yaml.")
    ] = Path("docs"),
) -> None:
    """Write the AsyncAPI document of the pipeline (turn stream, dead letters, queries)."""
    import yaml

    from gcmem.pipeline.app import Roles, create_app

    settings = _settings(redis_url="redis://localhost:6379/0", key_prefix="gcmem")
    built = create_app(settings, roles=Roles(worker=True, query=True), consumer="worker")
    doc = _canonical(built.app.schema.to_specification().to_jsonable())
    out.mkdir(parents=True, exist_ok=True)
    (out / "asyncapi.json").write_text(json.dumps(doc, indent=2) + "\n")
    (out / "asyncapi.yaml").write_text(yaml.dump(doc, sort_keys=False))
    console.print(f"wrote {out / 'asyncapi.json'} and {out / 'asyncapi.yaml'}")


def _canonical(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with its named sections in name order: FastStream lists publishers in an
    order that can differ between processes, and the committed files must be reproducible."""
    out = dict(doc)
    for section in ("channels", "operations"):
        if section in out:
            out[section] = dict(sorted(out[section].items()))
    if "components" in out:
        out["components"] = {
            name: dict(sorted(items.items())) if isinstance(items, dict) else items
            for name, items in out["components"].items()
        }
    return out


def _dlq() -> tuple[Settings, object]:
    from gcmem.pipeline.dlq import DeadLetterQueue
    from gcmem.pipeline.topology import Topology
    from gcmem.storage.redis import Keyspace, open_async_bus_redis

    settings = _bus_settings()
    topo = Topology.from_settings(
        settings.pipeline, Keyspace(settings.storage.key_prefix), consumer="cli"
    )
    return settings, DeadLetterQueue(
        open_async_bus_redis(settings.storage), topo.stream, topo.dead_letters
    )


@dlq_app.command("list")
def dlq_list(
    limit: Annotated[int, typer.Option(min=1, help="Entries to show.")] = 50,
    start: Annotated[str, typer.Option(help="First dead-letter id ('-' = oldest).")] = "-",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """List dead letters: reason, attempts, turn id, and the start of the payload."""
    from gcmem.pipeline.dlq import DeadLetterQueue

    _, queue = _dlq()
    assert isinstance(queue, DeadLetterQueue)

    async def run() -> None:
        letters = await queue.read(count=limit, start=start)
        total = await queue.length()
        await queue.client.aclose()
        if as_json:
            for letter in letters:
                row = letter.model_dump(mode="json")
                row["payload"] = letter.payload.decode("utf-8", "replace")
                print(json.dumps(row))
            return
        table = Table(title=f"{queue.key}: {total} dead letters")
        for col in ("id", "kind", "attempts", "turn", "reason", "payload"):
            table.add_column(col, overflow="fold")
        for letter in letters:
            preview = letter.payload[:80].decode("utf-8", "replace")
            table.add_row(
                letter.id or "",
                letter.kind,
                str(letter.attempts),
                letter.turn_id or "",
                letter.reason[:200],
                f"{preview}{'…' if letter.payload_bytes > 80 else ''} ({letter.payload_bytes} B)",
            )
        Console().print(table)

    asyncio.run(run())


@dlq_app.command("replay")
def dlq_replay(
    ids: Annotated[list[str] | None, typer.Argument(help="Dead-letter ids to replay.")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Replay every dead letter.")] = False,
    kind: Annotated[str | None, typer.Option(help="Only dead letters of this kind.")] = None,
) -> None:
    """Publish dead letters' original entries to the turn stream again (after a fix)."""
    from gcmem.pipeline.dlq import DeadLetterQueue

    if not ids and not all_:
        console.print("[red]name dead-letter ids, or --all[/red]")
        raise typer.Exit(2)
    _, queue = _dlq()
    assert isinstance(queue, DeadLetterQueue)

    async def run() -> int:
        if all_:
            letters = []
            start = "-"
            while True:
                page = await queue.read(count=500, start=start)
                letters += page
                if len(page) < 500:
                    break
                start = "(" + str(page[-1].id)
        else:
            letters = await queue.get(ids or [])
        if kind:
            letters = [x for x in letters if x.kind == kind]
        new_ids = await queue.replay(letters)
        await queue.client.aclose()
        return len(new_ids)

    console.print(f"replayed {asyncio.run(run())} dead letters")


@dlq_app.command("drop")
def dlq_drop(
    ids: Annotated[list[str], typer.Argument(help="Dead-letter ids to delete for good.")],
) -> None:
    """Delete dead letters (after inspection)."""
    from gcmem.pipeline.dlq import DeadLetterQueue

    _, queue = _dlq()
    assert isinstance(queue, DeadLetterQueue)

    async def run() -> int:
        n = await queue.drop(ids)
        await queue.client.aclose()
        return n

    console.print(f"dropped {asyncio.run(run())} dead letters")


def register(app: typer.Typer) -> None:
    app.command()(worker)
    app.command()(serve)
    app.command()(publish)
    app.command()(asyncapi)
    app.add_typer(dlq_app, name="dlq")
