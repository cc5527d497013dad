"""``gcmem ledger ...``: read the supersession ledger (keys, history, as-of views, counters).

Reads only Redis (the configured server or the embedded snapshot): no model is loaded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from gcmem.settings import SettingsError, load_settings

if TYPE_CHECKING:
    from gcmem.storage.ledger import LedgerRow, SupersessionLedger

ledger_app = typer.Typer(no_args_is_help=True)
console = Console()

NamespaceOpt = Annotated[str | None, typer.Option(help="Namespace (default: GCMEM_NAMESPACE).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _open(namespace: str | None) -> tuple[SupersessionLedger, str]:
    from gcmem.memory import Memory
    from gcmem.storage.ledger import SupersessionLedger
    from gcmem.storage.redis import Keyspace, open_redis

    try:
        settings = load_settings()
    except SettingsError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    try:
        ns = Memory.validate_namespace(namespace or settings.namespace)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    return SupersessionLedger(open_redis(settings), Keyspace(settings.key_prefix)), ns


def _when(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        ts = datetime.fromisoformat(value)
    except ValueError as exc:
        raise typer.BadParameter(f"{name}: {value!r} is not an ISO-8601 time") from exc
    if ts.tzinfo is None:
        raise typer.BadParameter(f"{name}: {value!r} has no time zone")
    return ts


def _table(rows: Sequence[LedgerRow], title: str) -> Table:
    table = Table(title=title)
    for col in ("kind", "object", "valid from", "valid to", "recorded", "retired", "why", "turns"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(
            r.kind,
            r.object,
            r.valid_from.isoformat(timespec="seconds"),
            r.valid_to.isoformat(timespec="seconds") if r.valid_to else "open",
            r.recorded_at.isoformat(timespec="seconds"),
            r.retired_at.isoformat(timespec="seconds") if r.retired_at else "",
            f"{r.retired_reason} -> {r.retired_by_turn}" if r.retired_reason else "",
            ", ".join(r.provenance),
        )
    return table


@ledger_app.command("keys")
def keys(namespace: NamespaceOpt = None, as_json: JsonOpt = False) -> None:
    """Every (subject, relation) key the namespace's ledger holds, with its current value."""
    ledger, ns = _open(namespace)
    out = []
    for subject, relation in ledger.keys_of(ns):
        row = ledger.current(ns, subject, relation)
        out.append(
            {"subject": subject, "relation": relation, "current": row.object if row else None}
        )
    if as_json:
        print(json.dumps(out, indent=2))
        return
    table = Table(title=f"ledger keys in {ns}")
    for col in ("subject", "relation", "current value"):
        table.add_column(col, overflow="fold")
    for item in out:
        table.add_row(item["subject"], item["relation"], item["current"] or "(none open)")
    console.print(table)


@ledger_app.command("history")
def history(
    subject: Annotated[str, typer.Argument(help="Subject (normalised like the extractor does).")],
    relation: Annotated[str, typer.Argument(help="Relation, e.g. port, version, 'works at'.")],
    namespace: NamespaceOpt = None,
    audit: Annotated[bool, typer.Option(help="Include the audit trail.")] = True,
    as_json: JsonOpt = False,
) -> None:
    """A key's versions (what the value was, when, what replaced it) and its audit trail."""
    ledger, ns = _open(namespace)
    rows = (
        ledger.history(ns, subject, relation) if audit else ledger.versions(ns, subject, relation)
    )
    if as_json:
        print(json.dumps([r.to_dict() for r in rows], indent=2))
        return
    if not rows:
        console.print(f"no ledger entries for ({subject}, {relation}) in {ns}")
        raise typer.Exit(1)
    console.print(_table(rows, f"({subject}, {relation}) in {ns}"))


@ledger_app.command("as-of")
def as_of(
    subject: Annotated[str, typer.Argument()],
    relation: Annotated[str, typer.Argument()],
    valid_time: Annotated[str, typer.Option(help="Event time, ISO-8601 with zone.")],
    system_time: Annotated[
        str | None, typer.Option(help="What the ledger knew then (default: now).")
    ] = None,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The value a key had at VALID_TIME, as the ledger held it at SYSTEM_TIME."""
    ledger, ns = _open(namespace)
    vt = _when(valid_time, "--valid-time")
    assert vt is not None
    row = ledger.as_of(ns, subject, relation, vt, _when(system_time, "--system-time"))
    if as_json:
        print(json.dumps(row.to_dict() if row else None, indent=2))
    elif row is None:
        console.print("no value was valid then")
    else:
        console.print(_table([row], f"({subject}, {relation}) as of {valid_time}"))
    if row is None:
        raise typer.Exit(1)


@ledger_app.command("stats")
def stats(namespace: NamespaceOpt = None) -> None:
    """Counters: keys, assertions, versions, open versions, rows, audit rows, redeliveries."""
    ledger, ns = _open(namespace)
    print(json.dumps({"namespace": ns, **vars(ledger.stats(ns))}, indent=2))
