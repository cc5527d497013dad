"""Message and result models: the public contract on the bus and in the library.

``Turn`` is what agents publish. Its ``schema_version`` is checked: a consumer rejects versions it
does not know (to the dead-letter stream) instead of guessing at their meaning.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    FiniteFloat,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

TURN_SCHEMA_VERSION = 1
RESULT_SCHEMA_VERSION = 1

# Namespaces become Redis key parts and Qdrant payload values: a conservative charset keeps
# them from escaping their key (no ':', '{', '}', '*', spaces, ...).
NAMESPACE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
DEFAULT_MAX_TEXT_CHARS = 32_768
# Event times outside this window are almost always unit or parsing bugs at the producer.
MIN_EVENT_TIME = datetime(1970, 1, 1, tzinfo=UTC)
MAX_FUTURE_SKEW = timedelta(days=1)
MAX_METADATA_KEYS = 64

# Chunk ids are uuid5 under this namespace UUID, so ids are stable across processes.
CHUNK_ID_NAMESPACE = uuid.UUID("8d0f3c4e-52a7-5c6b-9e1a-6f0d7b2c9a31")

Namespace = Annotated[str, StringConstraints(pattern=NAMESPACE_PATTERN)]
Identifier = Annotated[str, StringConstraints(min_length=1, max_length=256)]
Role = Literal["user", "assistant", "system", "tool", "observation"]
# Finite floats only: NaN and infinities pass JSON-ish parsers but fail the vector engine's
# payload encoding much later; integers within int64 for the same reason.
MetadataInt = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
MetadataValue = str | MetadataInt | FiniteFloat | bool | None

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_WS = re.compile(r"\s+")


def collapse_whitespace(text: str) -> str:
    return _WS.sub(" ", text).strip()


def content_hash(text: str) -> str:
    """Identity of a chunk's content: NFC and whitespace-collapsed, case kept (case is content)."""
    norm = collapse_whitespace(unicodedata.normalize("NFC", text))
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


def chunk_id(namespace: str, turn_id: str, index: int) -> str:
    return str(uuid.uuid5(CHUNK_ID_NAMESPACE, f"{namespace}\x1f{turn_id}\x1f{index}"))


def lone_surrogate(text: str) -> int | None:
    """Position of the first lone surrogate in ``text`` (not Unicode text), else None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def check_event_time(ts: datetime) -> datetime:
    if ts < MIN_EVENT_TIME:
        raise ValueError(f"timestamp {ts.isoformat()} is before 1970-01-01")
    if ts > datetime.now(UTC) + MAX_FUTURE_SKEW:
        raise ValueError(f"timestamp {ts.isoformat()} is more than a day in the future")
    return ts.astimezone(UTC)


class Fact(BaseModel):
    """One (subject, relation, object) assertion; the object is the single mutable value."""

    model_config = ConfigDict(frozen=True)

    subject: Annotated[str, StringConstraints(min_length=1, max_length=512)]
    relation: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    object: Annotated[str, StringConstraints(min_length=1, max_length=2048)]


class Turn(BaseModel):
    """One interaction turn, as published on the bus (schema version 1)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)

    schema_version: Literal[1] = 1
    id: Identifier
    namespace: Namespace = "default"
    session_id: Identifier | None = None
    role: Role = "user"
    text: str
    ts: AwareDatetime
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    facts: list[Fact] | None = None

    @field_validator("schema_version", mode="before")
    @classmethod
    def _version_is_an_integer(cls, value: object) -> object:
        # True == 1 in Python: a boolean would pass Literal[1] and mean nothing
        if isinstance(value, bool):
            raise ValueError("schema_version must be the integer 1, not a boolean")
        return value

    @field_validator("id", "session_id")
    @classmethod
    def _printable_id(cls, value: str | None) -> str | None:
        if value is not None and (_CONTROL.search(value) or not value.strip()):
            raise ValueError("must be non-blank and free of control characters")
        return value

    @field_validator("text")
    @classmethod
    def _check_text(cls, value: str, info: ValidationInfo) -> str:
        limit = DEFAULT_MAX_TEXT_CHARS
        if isinstance(info.context, dict):
            limit = int(info.context.get("max_text_chars", limit))
        if not value.strip():
            raise ValueError("text is empty")
        if len(value) > limit:
            raise ValueError(f"text has {len(value)} characters; the limit is {limit}")
        if _CONTROL.search(value):
            raise ValueError("text contains control characters (other than tab and newline)")
        return value

    @field_validator("ts", mode="before")
    @classmethod
    def _ts_is_text(cls, value: object) -> object:
        # pydantic reads a number as unix seconds (12345 -> 1970-01-01T03:25:45Z): a unit
        # bug at the producer would be stored silently. The contract is ISO 8601 text.
        if isinstance(value, int | float):
            raise ValueError(
                f"must be an ISO 8601 string with a UTC offset, e.g. 2026-01-05T09:00:00+00:00 "
                f"(got the number {value!r}; unix timestamps are not accepted)"
            )
        return value

    @field_validator("ts")
    @classmethod
    def _check_ts(cls, value: datetime) -> datetime:
        return check_event_time(value)

    @model_validator(mode="after")
    def _unicode_text(self) -> Turn:
        # A lone surrogate ("\ud800" in JSON) is a str in Python but not Unicode text: every
        # encoder downstream (digest, embedder, Redis, Qdrant) fails on it.
        strings: list[tuple[str, str]] = [("id", self.id), ("text", self.text)]
        if self.session_id is not None:
            strings.append(("session_id", self.session_id))
        for key, meta in self.metadata.items():
            strings.append(("metadata key", key))
            if isinstance(meta, str):
                strings.append(
                    (f"metadata.{key.encode('utf-8', 'backslashreplace').decode()}", meta)
                )
        for i, fact in enumerate(self.facts or ()):
            strings += [(f"facts.{i}.{name}", getattr(fact, name)) for name in Fact.model_fields]
        for where, text in strings:
            pos = lone_surrogate(text)
            if pos is not None:
                raise ValueError(
                    f"{where} holds a lone surrogate U+{ord(text[pos]):04X} at {pos} "
                    "(not Unicode text)"
                )
        return self

    @field_validator("metadata", mode="before")
    @classmethod
    def _finite_metadata(cls, value: object) -> object:
        # One clear message instead of the four the union's members would each report.
        if isinstance(value, dict):
            for key, meta in value.items():
                if isinstance(meta, float) and not math.isfinite(meta):
                    raise ValueError(f"metadata[{key!r}] is {meta!r}: only finite numbers")
        return value

    @field_validator("metadata")
    @classmethod
    def _check_metadata(cls, value: dict[str, MetadataValue]) -> dict[str, MetadataValue]:
        if len(value) > MAX_METADATA_KEYS:
            raise ValueError(f"metadata has {len(value)} keys; the limit is {MAX_METADATA_KEYS}")
        return value


class Chunk(BaseModel):
    """A retrievable piece of one turn. Ids are deterministic, so re-ingest is a no-op."""

    model_config = ConfigDict(frozen=True)

    id: str
    namespace: Namespace
    turn_id: Identifier
    index: int = Field(ge=0)
    text: str
    ts: AwareDatetime
    role: Role = "user"
    session_id: str | None = None
    content_hash: str
    facts: tuple[Fact, ...] = ()
    explicit_facts: bool = False
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)

    @classmethod
    def from_turn(cls, turn: Turn, index: int, text: str) -> Chunk:
        explicit = turn.facts is not None
        return cls(
            id=chunk_id(turn.namespace, turn.id, index),
            namespace=turn.namespace,
            turn_id=turn.id,
            index=index,
            text=text,
            ts=turn.ts,
            role=turn.role,
            session_id=turn.session_id,
            content_hash=content_hash(text),
            # Explicit facts belong to the turn; they ride on its first chunk only.
            facts=tuple(turn.facts or ()) if index == 0 else (),
            explicit_facts=explicit,
            metadata=turn.metadata,
        )


Source = Literal["mtm", "stm", "input"]


class StaleSentence(BaseModel):
    """A statement inside a kept chunk that a newer chunk superseded (the chunk stays because
    other statements in it are still true): which one, what replaced its value, and when."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(ge=0, description="Position of the statement unit in the chunk.")
    text: str
    key: str = Field(description="The superseded ledger key, 'subject / relation'.")
    value: str = Field(description="The value this statement gives.")
    current_value: str | None = Field(default=None, description="The value that replaced it.")
    superseded_by: str | None = Field(default=None, description="Chunk id of the newer value.")
    superseded_by_turn_id: str | None = None
    since: AwareDatetime | None = Field(default=None, description="Event time of the change.")
    stage: str = Field(default="supersession", description="The stage that decided it.")
    evidence: Literal["statement", "mention"] = Field(
        default="statement",
        description="'statement': the statement itself gives the key another value (a reader "
        "gets it excised); 'mention': it names a value that was replaced (shown with a note).",
    )

    @property
    def excised(self) -> bool:
        return self.evidence == "statement"

    def marker(self) -> str:
        """What a reader sees in the statement's place: that something was superseded, when,
        and the value now valid, never the superseded value itself."""
        since = f" on {self.since.date().isoformat()}" if self.since else ""
        now = f"; current value: {self.current_value}" if self.current_value else ""
        return f"[superseded{since}{now}]"


# A statement's marker in the text a reader gets (``StaleSentence.marker``).
MARKER = re.compile(r"\[superseded[^\]\n]*\]")


def unmarked(text: str) -> str:
    """A reader's text without its markers: what it still states (a marker names the current
    value, which may contain the superseded one: "- jruby" in "current value: - jruby-head")."""
    return MARKER.sub(" ", text)


def excise(text: str, sentences: Sequence[StaleSentence]) -> str:
    """``text`` with each superseded statement replaced by its marker (mentions of a replaced
    value stay: ``context()`` notes them). Statement units are whitespace-collapsed sentences
    or lines, so each is found word by word across any whitespace, as a whole; one that cannot
    be found is left as it is."""
    for s in sentences:
        words = s.text.split()
        if not s.excised or not words:
            continue
        # the statement whole, never the start of a longer line ("- id: ruff" before
        # "- id: ruff-format") nor the end of one
        pattern = r"(?<![\w-])" + r"\s+".join(map(re.escape, words)) + r"(?![\w-])"
        # the marker is literal text (a value may hold a backslash), never a template
        text = re.sub(pattern, _literal(s.marker()), text, count=1)
    return text


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    return lambda _match: text


class ScoredChunk(BaseModel):
    """A candidate: a chunk with its relevance to the query and where it came from.
    ``stale_sentences`` lists statements in it that are superseded (the chunk is kept, and a
    reader sees it with those statements excised: ``visible_text``)."""

    model_config = ConfigDict(frozen=True)

    chunk: Chunk
    score: float
    sources: tuple[Source, ...] = ("mtm",)
    stale_sentences: tuple[StaleSentence, ...] = ()

    @property
    def id(self) -> str:
        return self.chunk.id

    @property
    def visible_text(self) -> str:
        """The text a reader gets: the chunk's, with its superseded statements excised (the
        stored chunk is untouched; ``chunk.text`` is the original)."""
        if not self.stale_sentences:
            return self.chunk.text
        return excise(self.chunk.text, self.stale_sentences)

    @property
    def turn_id(self) -> str:
        return self.chunk.turn_id


class Decision(BaseModel):
    """Why a chunk was dropped: by which stage, because of which newer chunk, with what score."""

    model_config = ConfigDict(frozen=True)

    chunk: ScoredChunk
    stage: str
    reason: str
    dominated_by: str | None = Field(default=None, description="Chunk id of the newer chunk.")
    dominated_by_turn_id: str | None = None
    score: float | None = None
    details: dict[str, Any] = Field(default_factory=dict)

    # The dropped candidate is ``chunk`` (a ScoredChunk: relevance and sources) holding the
    # stored ``Chunk``; these name what a reader of the record usually wants.
    @property
    def dropped_chunk(self) -> Chunk:
        return self.chunk.chunk

    @property
    def text(self) -> str:
        return self.chunk.chunk.text

    @property
    def chunk_id(self) -> str:
        return self.chunk.chunk.id


class Conflict(BaseModel):
    """Two candidates that may disagree, both kept: the newer may supersede the older, but no
    decision gcmem can defend says so (an uncertain κ or one not confirmed in both
    directions, on two statements about the same subject and attribute; a value awaiting
    confirmation). The reader sees both, dated."""

    model_config = ConfigDict(frozen=True)

    older: ScoredChunk
    newer: ScoredChunk
    stage: str
    reason: str = Field(description="Why it was surfaced and not decided.")
    score: float | None = Field(default=None, description="κ's score for the pair, if any.")


class RetrievalResult(BaseModel):
    """The filtered context for one query, with a decision record for every dropped chunk."""

    schema_version: Literal[1] = 1
    query: str
    namespace: Namespace
    k: int
    as_of: AwareDatetime
    kept: list[ScoredChunk] = Field(description="Context, most relevant first.")
    dropped: list[Decision] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(
        default_factory=list, description="Undecided disagreements among the kept chunks."
    )
    superseded: list[Decision] = Field(
        default_factory=list,
        description="Only for a question that asks for an earlier value ('Who did support@ "
        "forward to first?', 'Where did Bea work before?'): the chunks the chain decided "
        "against, kept in the context, each with its decision record (and statements it "
        "would excise shown with a note).",
    )
    candidates: int = Field(description="Size of the candidate set R_k before filtering.")
    excluded_at_write: int = Field(
        default=0,
        description="Chunks of the namespace left out of the MTM search before top-k because "
        "write-time GC flagged them superseded (0 when the search did not exclude flags); "
        "Memory.explain gives each one's decision record.",
    )
    variants: list[str] = Field(default_factory=list, description="Query expansion variants.")
    filters: list[str] = Field(default_factory=list, description="Stages run, in order.")
    timings_ms: dict[str, float] = Field(default_factory=dict)
    budgets: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="Work a per-query budget left undone, by stage: e.g. dominance "
        "{pair_budget, oracle_pairs, judged, unscored, past_deadline}: pairs beyond the κ "
        "budget, or left when the query's deadline came, were not judged (both chunks of "
        "such a pair are kept unless something else drops them).",
    )

    @property
    def texts(self) -> list[str]:
        """The kept texts as a reader gets them (superseded statements inside a kept chunk
        excised: ``ScoredChunk.visible_text``)."""
        return [c.visible_text for c in self.kept]

    def context(self, separator: str = "\n") -> str:
        """The kept texts, superseded statements excised in place. With surfaced conflicts,
        mentions of a replaced value or superseded chunks kept for a question about an earlier
        value, each text is numbered and dated and a note per conflict says which may be
        superseded by which (per mention, which value was replaced; per superseded chunk, by
        which it was), so the reader weighs both."""
        notes = [
            c
            for c in self.conflicts
            if c.older.id in self._positions and c.newer.id in self._positions
        ]
        mentions = [(k, s) for k in self.kept for s in k.stale_sentences if not s.excised]
        pos = self._positions
        superseded = [d for d in self.superseded if d.chunk.id in pos]
        if not notes and not mentions and not superseded:
            return separator.join(self.texts)
        lines = [
            f"[{pos[c.id]}] ({c.chunk.ts.date().isoformat()}) {c.visible_text}" for c in self.kept
        ]
        for c in notes:
            lines.append(
                f"Note: [{pos[c.older.id]}] ({c.older.chunk.ts.date().isoformat()}) may be "
                f"superseded by [{pos[c.newer.id]}] ({c.newer.chunk.ts.date().isoformat()})."
            )
        for d in superseded:
            older = f"[{pos[d.chunk.id]}] ({d.chunk.chunk.ts.date().isoformat()})"
            by = self.kept[pos[d.dominated_by] - 1] if d.dominated_by in pos else None
            newer = f" by [{pos[by.id]}] ({by.chunk.ts.date().isoformat()})" if by else ""
            lines.append(f"Note: {older} was superseded{newer}.")
        for k, s in mentions:
            since = f" since {s.since.date().isoformat()}" if s.since else ""
            now = f" (now {s.current_value!r})" if s.current_value else ""
            lines.append(f"Note: [{pos[k.id]}] names {s.value!r}, which was replaced{since}{now}.")
        return separator.join(lines)

    @property
    def _positions(self) -> dict[str, int]:
        return {c.id: n for n, c in enumerate(self.kept, 1)}
