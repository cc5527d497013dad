"""``gcmem ledger ...``: read the supersession ledger (keys, history, as-of views, counters,
resolution decisions, the policy table) and decide held values (``confirm``).

Uses only Redis (the configured server or the embedded snapshot): no model is loaded.
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
    from gcmem.settings import Settings
    from gcmem.storage.ledger import DecisionSide, LedgerDecision, LedgerRow, SupersessionLedger
    from gcmem.storage.ledger.policy import PolicyTable

ledger_app = typer.Typer(no_args_is_help=True)
console = Console()

NamespaceOpt = Annotated[str | None, typer.Option(help="Namespace (default: GCMEM_NAMESPACE).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _settings() -> Settings:
    try:
        return load_settings()
    except SettingsError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc


def _policies(settings: Settings) -> PolicyTable:
    from gcmem.storage.ledger.policy import PolicyError, PolicyTable

    try:
        return PolicyTable.from_settings(settings.ledger)
    except PolicyError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc


def _open(namespace: str | None) -> tuple[SupersessionLedger, str]:
    from gcmem.memory import Memory
    from gcmem.storage.ledger import SupersessionLedger
    from gcmem.storage.redis import Keyspace, open_redis

    settings = _settings()
    try:
        ns = Memory.validate_namespace(namespace or settings.memory.namespace)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    ledger = SupersessionLedger(
        open_redis(settings.storage),
        Keyspace(settings.storage.key_prefix),
        policies=_policies(settings),
        source_field=settings.ledger.source_field,
    )
    return ledger, ns


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
    for col in (
        "kind",
        "object",
        "valid from",
        "valid to",
        "recorded",
        "retired",
        "why",
        "turns",
        "sources",
    ):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(
            r.kind if r.status is None else f"{r.kind} ({r.status})",
            r.object,
            r.valid_from.isoformat(timespec="seconds"),
            r.valid_to.isoformat(timespec="seconds") if r.valid_to else "open",
            r.recorded_at.isoformat(timespec="seconds"),
            r.retired_at.isoformat(timespec="seconds") if r.retired_at else "",
            f"{r.retired_reason} -> {r.retired_by_turn}" if r.retired_reason else "",
            ", ".join(r.provenance),
            ", ".join(x or "?" for x in r.sources),
        )
    return table


def _side(s: DecisionSide | None) -> str:
    if s is None:
        return ""
    known = ", ".join(x for x in s.sources if x)
    return f"{s.object!r} turns {', '.join(s.turns)}" + (f" from {known}" if known else "")


def _decision_table(decisions: Sequence[LedgerDecision], title: str) -> Table:
    table = Table(title=title)
    for col in ("#", "decided", "policy", "rule", "outcome", "winner", "loser", "deciding input"):
        table.add_column(col, overflow="fold")
    for d in decisions:
        table.add_row(
            str(d.n),
            d.decided_at.isoformat(timespec="seconds"),
            d.policy,
            d.rule,
            d.outcome,
            _side(d.winner),
            _side(d.loser),
            json.dumps(d.input, sort_keys=True),
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
    decisions = ledger.decisions(ns, subject, relation) if audit else []
    if as_json:  # the rows; `gcmem ledger decisions --json` has the resolutions
        print(json.dumps([r.to_dict() for r in rows], indent=2))
        return
    if not rows:
        console.print(f"no ledger entries for ({subject}, {relation}) in {ns}")
        raise typer.Exit(1)
    console.print(_table(rows, f"({subject}, {relation}) in {ns}"))
    if decisions:
        console.print(_decision_table(decisions, "resolutions"))


@ledger_app.command("as-of")
def as_of(
    subject: Annotated[str, typer.Argument()],
    relation: Annotated[str, typer.Argument()],
    valid_time: Annotated[str, typer.Option(help="Event time, ISO-8601 with zone.")],
    system_time: Annotated[
        str | None, typer.Option(help="What the ledger knew then (default: now).")
    ] = None,
    namespace: NamespaceOpt = None,
    decisions_too: Annotated[
        bool, typer.Option("--decisions/--no-decisions", help="Show the resolutions known then.")
    ] = True,
    as_json: JsonOpt = False,
) -> None:
    """The value a key had at VALID_TIME, as the ledger held it at SYSTEM_TIME, and the
    resolutions (policy, both values, what decided) the ledger had made by then."""
    ledger, ns = _open(namespace)
    vt = _when(valid_time, "--valid-time")
    assert vt is not None
    st = _when(system_time, "--system-time")
    row = ledger.as_of(ns, subject, relation, vt, st)
    decisions = (
        [d for d in ledger.decisions(ns, subject, relation, st) if _about(d, vt)]
        if decisions_too
        else []
    )
    if as_json:
        out = row.to_dict() if row else None
        if out is not None and decisions_too:
            out["decisions"] = [d.to_dict() for d in decisions]
        print(json.dumps(out, indent=2))
    elif row is None:
        console.print("no value was valid then")
    else:
        console.print(_table([row], f"({subject}, {relation}) as of {valid_time}"))
        if decisions:
            console.print(_decision_table(decisions, "resolutions known then"))
    if row is None:
        raise typer.Exit(1)


def _about(decision: LedgerDecision, valid_time: datetime) -> bool:
    """A decision bears on a valid time when one of its values had been stated by then."""
    return any(
        s is not None and s.valid_from <= valid_time for s in (decision.winner, decision.loser)
    )


@ledger_app.command("stats")
def stats(namespace: NamespaceOpt = None) -> None:
    """Counters: keys, assertions, versions, open versions, rows, audit rows, redeliveries."""
    ledger, ns = _open(namespace)
    print(json.dumps({"namespace": ns, **vars(ledger.stats(ns))}, indent=2))


@ledger_app.command("decisions")
def decisions(
    subject: Annotated[str, typer.Argument()],
    relation: Annotated[str, typer.Argument()],
    system_time: Annotated[
        str | None, typer.Option(help="Only what had been decided by then (default: now).")
    ] = None,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A key's resolution audit: per decision, the policy and rule, the winner and the loser
    with their turns and sources, and the input that decided it."""
    ledger, ns = _open(namespace)
    found = ledger.decisions(ns, subject, relation, _when(system_time, "--system-time"))
    if as_json:
        print(json.dumps([d.to_dict() for d in found], indent=2))
        return
    if not found:
        console.print(f"no resolutions for ({subject}, {relation}) in {ns}")
        raise typer.Exit(1)
    console.print(_decision_table(found, f"resolutions of ({subject}, {relation}) in {ns}"))


@ledger_app.command("policies")
def policies(as_json: JsonOpt = False) -> None:
    """The resolution-policy table in force (first matching rule wins), source trust weights."""
    settings = _settings()
    table = _policies(settings)
    rows = table.describe()
    if as_json:
        print(
            json.dumps(
                {
                    "rules": rows,
                    "trust": dict(table.trust),
                    "source_field": settings.ledger.source_field,
                    "file": str(settings.ledger.policy_file)
                    if settings.ledger.policy_file
                    else None,
                },
                indent=2,
            )
        )
        return
    out = Table(title="resolution policies (first match wins)")
    for col in ("rule", "namespace", "subject", "relation", "source", "policy", "confirm ttl"):
        out.add_column(col, overflow="fold")
    for row in rows:
        ttl = row.get("confirm_ttl_s")
        out.add_row(
            str(row["rule"]) + (f" ({row['name']})" if row.get("name") else ""),
            row.get("namespace", "*"),
            row.get("subject", "*"),
            row.get("relation", "*"),
            row.get("source", "*"),
            row["policy"],
            "" if ttl is None else ("never" if ttl == 0 else f"{ttl:g} s"),
        )
    console.print(out)
    if table.trust:
        console.print(
            "source trust: " + ", ".join(f"{k} = {v:g}" for k, v in table.trust) + " (others 1)"
        )


@ledger_app.command("pending")
def pending(namespace: NamespaceOpt = None, as_json: JsonOpt = False) -> None:
    """Values held pending confirmation (confirm policy), with the incumbents reads return."""
    ledger, ns = _open(namespace)
    held = ledger.pending(ns)
    if as_json:
        print(
            json.dumps(
                [
                    {
                        "subject": h.subject,
                        "relation": h.relation,
                        "pending": h.pending.to_dict(),
                        "incumbent": h.incumbent.to_dict() if h.incumbent else None,
                    }
                    for h in held
                ],
                indent=2,
            )
        )
        return
    table = Table(title=f"pending in {ns}")
    for col in ("subject", "relation", "incumbent", "pending", "sources", "until"):
        table.add_column(col, overflow="fold")
    for h in held:
        until = h.pending.pending_until
        table.add_row(
            h.subject,
            h.relation,
            h.incumbent.object if h.incumbent else "",
            h.pending.object,
            ", ".join(x or "?" for x in h.pending.sources),
            until.isoformat(timespec="seconds") if until else "no deadline",
        )
    console.print(table)


@ledger_app.command("confirm")
def confirm(
    subject: Annotated[str, typer.Argument()],
    relation: Annotated[str, typer.Argument()],
    value: Annotated[
        str | None, typer.Argument(help="The held value meant; refused if another is held.")
    ] = None,
    reject: Annotated[bool, typer.Option(help="Retire the held value instead.")] = False,
    by: Annotated[str, typer.Option(help="Who decides (kept in the audit).")] = "cli",
    namespace: NamespaceOpt = None,
) -> None:
    """Promote (or --reject) the value a confirm-policy key holds pending. Exit 1 when nothing
    was held or the held value is not VALUE."""
    ledger, ns = _open(namespace)
    result = ledger.confirm(ns, subject, relation, value, by=by, reject=reject)
    print(
        json.dumps(
            {
                "namespace": ns,
                "outcome": result.outcome,
                "fact_id": result.fact_id,
                "object": result.object,
                "closed_chunks": list(result.closed_chunks),
            },
            indent=2,
        )
    )
    if result.outcome not in ("promoted", "rejected"):
        raise typer.Exit(1)


@ledger_app.command("expire")
def expire(namespace: NamespaceOpt = None) -> None:
    """Retire every held value past its deadline now (the next write on a key does it too)."""
    ledger, ns = _open(namespace)
    gone = ledger.expire(ns)
    print(json.dumps({"namespace": ns, "expired": [g.object for g in gone]}, indent=2))
