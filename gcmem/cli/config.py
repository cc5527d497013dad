"""``gcmem config``: the effective settings, and the reference table of the docs."""

from __future__ import annotations

import json
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import typer
from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import NoDecode
from rich.console import Console

from gcmem.oracle.factory import oracle_notes
from gcmem.settings import Settings, SettingsError, load_settings, mask_url, sections
from gcmem.storage.redis import Keyspace

config_app = typer.Typer(no_args_is_help=True)
REFERENCE_START = "<!-- config-reference:start -->\n"
REFERENCE_END = "<!-- config-reference:end -->"
console = Console()


def _type_name(annotation: Any) -> str:
    args = [a for a in get_args(annotation) if not isinstance(a, NoDecode)]
    origin = get_origin(annotation)
    if origin is Literal:
        return " \\| ".join(f"`{a}`" for a in args)
    if origin is Annotated:
        return _type_name(args[0])
    if origin in (Union, UnionType):
        return " \\| ".join(_type_name(a) for a in args).replace("NoneType", "unset")
    if origin is not None:
        return f"{origin.__name__}[{', '.join(_type_name(a) for a in args)}]"
    return getattr(annotation, "__name__", str(annotation))


def _default(info: FieldInfo) -> str:
    factory = info.default_factory
    if factory is not None:
        # gcmem's documented factories describe a machine-dependent default (DATA_DIR).
        if factory.__module__.startswith("gcmem") and factory.__doc__:
            return factory.__doc__.strip()
        return f"`{json.dumps(factory())}`"  # type: ignore[call-arg]
    if info.default is None:
        return "unset"
    return f"`{json.dumps(info.default, default=str)}`"


def settings_reference() -> str:
    """Every setting as markdown, a table per section: variable, field, type, default, meaning."""
    out: list[str] = []
    for section, cls in sections().items():
        out += [
            f"### {section}",
            "",
            (cls.__doc__ or "").strip(),
            "",
            "| variable | field | type | default | meaning |",
            "|---|---|---|---|---|",
        ]
        variables = cls.variables()
        for name, info in cls.model_fields.items():
            meaning = (info.description or "").replace("|", "\\|").replace("\n", " ")
            out.append(
                f"| `{variables[name]}` | `{section}.{name}` | {_type_name(info.annotation)} "
                f"| {_default(info)} | {meaning} |"
            )
        out.append("")
    return "\n".join(out)


def _shown(value: object) -> object:
    if isinstance(value, SecretStr):
        return "**********"
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    if isinstance(value, str) and "://" in value:
        return mask_url(value)  # credentials inside URLs (redis://user:pass@host)
    return value


def effective_values(settings: Settings) -> dict[str, dict[str, object]]:
    """Section -> field -> value; unset values that mean a derived default show the value
    actually used."""
    values = settings.model_dump()
    pipeline, storage, baselines = values["pipeline"], values["storage"], values["baselines"]
    if pipeline["stream"] is None:
        pipeline["stream"] = Keyspace(settings.storage.key_prefix).turn_stream()
    if storage["qdrant_path"] is None and settings.storage.embedded_qdrant:
        storage["qdrant_path"] = settings.storage.resolved_qdrant_path()
    if baselines["k"] is None:
        baselines["k"] = settings.memory.top_k
    # The adapter and calibration actually applied to the configured model's weights (or why
    # none is).
    notes = oracle_notes(settings.oracle, settings.storage.weights_cache())
    for field, note in notes.items():
        values["oracle"][field] = f"{getattr(settings.oracle, field)}: {note}"
    return values


@config_app.command("show")
def show() -> None:
    """The effective settings from the environment, as JSON by section (each value under its
    variable): secrets and passwords inside URLs masked, derived defaults (the stream name,
    the embedded Qdrant path) as used."""
    try:
        settings = load_settings()
    except SettingsError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    values = {
        section: {variables[k]: _shown(v) for k, v in fields.items()}
        for section, fields in effective_values(settings).items()
        for variables in [sections()[section].variables()]
    }
    typer.echo(json.dumps(values, indent=2, default=str))


@config_app.command("reference")
def reference(
    write: Annotated[
        Path | None,
        typer.Option(
            help="Rewrite this file's config-reference block instead "
            "(the docs page: docs/configuration.md)."
        ),
    ] = None,
) -> None:
    """Every GCMEM_ variable with its type, default and meaning (markdown; the docs' table)."""
    table = settings_reference()
    if write is None:
        typer.echo(table, nl=False)
        return
    text = write.read_text(encoding="utf-8")
    head, sep, rest = text.partition(REFERENCE_START)
    _, sep_end, tail = rest.partition(REFERENCE_END)
    if not (sep and sep_end):
        raise typer.BadParameter(f"{write} has no {REFERENCE_START} ... {REFERENCE_END} block")
    write.write_text(head + REFERENCE_START + table + REFERENCE_END + tail, encoding="utf-8")
