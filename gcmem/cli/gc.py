"""``gcmem why CHUNK_ID`` and ``gcmem gc rebuild``: write-time GC flags, explained and rebuilt.

Both read the ledger (Redis) and the MTM index only: no model is loaded, except by
``gc rebuild --kappa``, which re-decides κ flags under the configured oracle.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from gcmem.settings import SettingsError, load_settings

if TYPE_CHECKING:
    from gcmem.filters.supersession import SupersessionStage
    from gcmem.storage.mtm.index import MediumTermIndex

gc_app = typer.Typer(no_args_is_help=True)
console = Console()

NamespaceOpt = Annotated[str | None, typer.Option(help="Namespace (default: GCMEM_NAMESPACE).")]


@contextlib.contextmanager
def _open() -> Iterator[tuple[SupersessionStage, MediumTermIndex, str]]:
    """The supersession stage as settings configure it (its ledger and rule), the index
    (closed, so persisted, at the end) and the default namespace."""
    from gcmem.filters.supersession import SupersessionStage
    from gcmem.storage.ledger import SupersessionLedger
    from gcmem.storage.mtm import open_index
    from gcmem.storage.redis import Keyspace, open_redis, save_embedded

    try:
        settings = load_settings()
    except SettingsError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    ledger = SupersessionLedger(open_redis(settings.storage), Keyspace(settings.storage.key_prefix))
    index = open_index(settings.storage)
    stage = SupersessionStage(
        ledger,
        index,
        write_time_gc=False,
        grammar=settings.supersession.grammar,
        align=settings.supersession.align,
        reworded=settings.supersession.align_reworded,
        mentions=settings.supersession.align_mentions,
    )
    try:
        yield stage, index, settings.memory.namespace
    finally:
        index.close()
        save_embedded(settings.storage)


def _namespace(value: str) -> str:
    from gcmem.memory import Memory

    try:
        return Memory.validate_namespace(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc


def why(
    chunk_id: Annotated[str, typer.Argument(help="The chunk's id (as results and drops show).")],
    namespace: NamespaceOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the Decision JSON.")] = False,
) -> None:
    """Why a chunk is superseded: the decision record write-time GC flagged it by (the same
    record a read-time drop carries): the ledger's, else a κ flag's. Exit 1 if nothing
    supersedes it."""
    from gcmem.filters.dominance_gc import explain_flag
    from gcmem.filters.writegc import explain

    with _open() as (stage, index, default_ns):
        ns = _namespace(namespace or default_ns)
        try:
            decision = explain(stage, index, ns, chunk_id) or explain_flag(index, ns, chunk_id)
        except KeyError as exc:
            console.print(f"[red]{escape(str(exc.args[0]))}[/red]")
            raise typer.Exit(1) from exc
    if decision is None:
        if as_json:
            print("null")
        else:
            console.print(f"chunk {chunk_id} in {ns}: nothing supersedes it (not flagged)")
        raise typer.Exit(1)
    if as_json:
        print(decision.model_dump_json(indent=2))
        return
    write_time = decision.details.get("write_time", {})
    state = "flagged" if write_time.get("flagged") else "not flagged yet (gcmem gc rebuild)"
    if write_time.get("stage"):
        state += f" by {write_time['stage']}"
    console.print(f"[bold]{escape(decision.text)}[/bold]  ({decision.dropped_chunk.ts.date()})")
    console.print(f"[red]superseded[/red] [{decision.stage}] {escape(decision.reason)}")
    console.print(f"newer chunk {decision.dominated_by} (turn {decision.dominated_by_turn_id})")
    record = write_time.get("record") or {}
    console.print(
        f"write-time flag: {state}"
        + (f", decided {record.get('decided_at')}" if record.get("decided_at") else "")
    )


@gc_app.command("rebuild")
def rebuild(
    namespace: Annotated[
        str | None, typer.Option(help="Only this namespace (default: every namespace).")
    ] = None,
    kappa: Annotated[
        bool,
        typer.Option(
            "--kappa",
            help="Also recompute the κ flags (dominance-gc) of --namespace under the configured "
            "oracle, threshold and rule (loads the model).",
        ),
    ] = False,
) -> None:
    """Recompute every write-time GC flag from the ledger: flag chunks whose assertions are
    all superseded, clear flags that no longer hold; with ``--kappa``, the κ flags from the
    verdict log too (flags of another oracle identity count for nothing until then). Nothing
    is deleted."""
    from gcmem.filters.writegc import rebuild_all, rebuild_flags
    from gcmem.memory import Memory

    with _open() as (stage, index, _):
        if namespace is None:
            reports = rebuild_all(stage.ledger, index, decide=stage.flaggable)
        else:
            ns = _namespace(namespace)
            reports = [rebuild_flags(stage.ledger, index, ns, stage.flaggable)]
    for r in reports:
        print(json.dumps(vars(r)))
    if kappa:
        if namespace is None:
            raise typer.BadParameter("--kappa needs --namespace")
        with Memory() as memory:
            print(json.dumps(vars(memory.rebuild_dominance_flags(_namespace(namespace)))))
        return
    if not reports:
        console.print("no namespace has a ledger or a flag")
