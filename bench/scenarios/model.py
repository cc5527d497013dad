"""The sweep's scenario format: a public contract, JSONL, one instance per line.

    {"id", "kind": "keyed" | "behavioral" | "static", "category", "question", "answer",
     "stale_answers": [...], "turns": [{"id", "text", "ts", "role", "state"}], "meta": {...}}

- ``ts`` is ISO-8601 with a UTC offset (``2024-03-01T09:30:00Z``); naive times are rejected.
- ``role``: ``old`` asserts a superseded state, ``new`` the current one, ``distractor`` is
  unrelated, ``static`` is about the same entity and still true (it must survive filtering).
- ``state``: the value of the asked-about attribute a turn asserts (``old`` and ``new`` turns
  must carry one; a ``static`` turn carries one only when it answers the question, as in
  ``static`` instances; distractors carry none).
- ``keyed`` / ``behavioral`` instances need at least one ``new`` turn, every ``new`` turn's
  state is ``answer``, and every ``old`` turn is older than every ``new`` one. ``static``
  instances have no ``old``/``new`` turns and at least one ``static`` turn whose state is
  ``answer``; their ``stale_answers`` are the wrong values a confused reader could give.
- ``meta`` (optional; scalars or lists of strings) carries generator details: ``meta.ratio``
  groups results by accumulation ratio (without it the ratio is ``#old / #new``);
  ``meta.options`` lists the answers a forced-choice reader picks from (default: ``answer``
  plus ``stale_answers``).

Each instance is ingested into its own namespace; the question is asked one hour after the
instance's last turn. ``load_scenarios`` reports every problem with its line number.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from gcmem.models import check_event_time

SCENARIO_FORMAT_VERSION = 1
ASK_DELAY = timedelta(hours=1)

Kind = Literal["keyed", "behavioral", "static"]
TurnRole = Literal["old", "new", "distractor", "static"]
NonBlank = Annotated[str, StringConstraints(min_length=1, max_length=4096, strip_whitespace=True)]
MetaValue = str | int | float | bool | list[str] | None


class ScenarioFormatError(ValueError):
    """A scenario file is malformed; the message names the file and line."""


class ScenarioTurn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    text: Annotated[str, StringConstraints(min_length=1, max_length=32_768)]
    ts: AwareDatetime
    role: TurnRole
    state: NonBlank | None = None

    @field_validator("text")
    @classmethod
    def _text_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("text is blank")
        return value

    @field_validator("ts")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return check_event_time(value)

    @model_validator(mode="after")
    def _state_by_role(self) -> ScenarioTurn:
        if self.role in ("old", "new") and self.state is None:
            raise ValueError(f"turn {self.id!r}: an {self.role!r} turn must carry a state")
        if self.role == "distractor" and self.state is not None:
            raise ValueError(f"turn {self.id!r}: a distractor carries no state")
        return self


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    kind: Kind
    category: NonBlank
    question: NonBlank
    answer: NonBlank
    stale_answers: list[NonBlank] = Field(default_factory=list)
    turns: list[ScenarioTurn] = Field(min_length=1)
    meta: dict[str, MetaValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        ids = [t.id for t in self.turns]
        dupes = sorted({i for i in ids if ids.count(i) > 1}) if len(set(ids)) != len(ids) else []
        if dupes:
            raise ValueError(f"duplicate turn ids: {dupes[:5]}")
        old = [t for t in self.turns if t.role == "old"]
        new = [t for t in self.turns if t.role == "new"]
        if self.kind == "static":
            if old or new:
                raise ValueError("a static instance has no 'old' or 'new' turns")
            if not any(t.role == "static" and t.state == self.answer for t in self.turns):
                raise ValueError("a static instance needs a static turn whose state is the answer")
            return self
        if not new:
            raise ValueError(f"a {self.kind} instance needs at least one 'new' turn")
        wrong = [t.id for t in new if t.state != self.answer]
        if wrong:
            raise ValueError(f"'new' turns must assert the answer {self.answer!r}: {wrong[:5]}")
        if old and max(t.ts for t in old) >= min(t.ts for t in new):
            raise ValueError("every 'old' turn must be older than every 'new' turn")
        return self

    # --- derived ---------------------------------------------------------------------------
    @property
    def asked_at(self) -> datetime:
        return max(t.ts for t in self.turns) + ASK_DELAY

    @property
    def ratio(self) -> float | None:
        """Stale : current, from ``meta.ratio`` or the turn roles (None for static without meta)."""
        value = self.meta.get("ratio")
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        new = sum(t.role == "new" for t in self.turns)
        return sum(t.role == "old" for t in self.turns) / new if new else None

    @property
    def namespace(self) -> str:
        """A namespace-safe, collision-free name derived from the id."""
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", self.id).strip("-.")[:80] or "x"
        digest = hashlib.sha1(self.id.encode()).hexdigest()[:10]
        return f"sw-{slug}-{digest}"

    def current_states(self) -> set[str]:
        return {self.answer}


def scenario_line(scenario: Scenario) -> str:
    return json.dumps(scenario.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))


def write_scenarios(scenarios: Iterable[Scenario], path: Path) -> int:
    """Write JSONL atomically; returns the number of instances."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as fh:
        for scenario in scenarios:
            fh.write(scenario_line(scenario) + "\n")
            n += 1
    tmp.replace(path)
    return n


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "instance"
        parts.append(f"{loc}: {err['msg']}")
    more = len(exc.errors()) - 5
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


def iter_scenarios(path: Path) -> Iterator[tuple[int, Scenario]]:
    """(line number, scenario) per non-blank line; raises ScenarioFormatError on the first bad
    line, naming it."""
    if not path.is_file():
        raise ScenarioFormatError(f"{path}: no such scenario file")
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ScenarioFormatError(f"{where}: not valid JSON ({exc.msg})") from exc
            if not isinstance(data, dict):
                raise ScenarioFormatError(f"{where}: expected a JSON object per line")
            try:
                scenario = Scenario.model_validate(data)
            except ValidationError as exc:
                ident = data.get("id")
                label = f" (id {ident!r})" if isinstance(ident, str) else ""
                raise ScenarioFormatError(f"{where}{label}: {_describe(exc)}") from exc
            if scenario.id in seen:
                raise ScenarioFormatError(
                    f"{where}: duplicate instance id {scenario.id!r} (first on line "
                    f"{seen[scenario.id]})"
                )
            seen[scenario.id] = lineno
            yield lineno, scenario


def load_scenarios(path: Path) -> list[Scenario]:
    scenarios = [s for _, s in iter_scenarios(path)]
    if not scenarios:
        raise ScenarioFormatError(f"{path}: no scenarios in the file")
    return scenarios


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def count_by_role(scenarios: Sequence[Scenario]) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in scenarios:
        for t in s.turns:
            out[t.role] = out.get(t.role, 0) + 1
    return out
