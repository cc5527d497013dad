"""Leaving a Redis server as a run found it: a benchmark deletes the keys it wrote."""

from __future__ import annotations

from typing import Any

import redis
import typer

from gcmem.settings import load_settings
from gcmem.storage.redis import connection_kwargs

BATCH = 1000


def require_server(url: str | None) -> None:
    """A benchmark given ``--redis-url`` asks that server first, before it loads a model or
    writes a file, with the credentials the run will use (``GCMEM_REDIS_*``): an unreachable
    server or a malformed URL is a clear ``typer.BadParameter``. Nothing to check without one."""
    if not url:
        return
    try:
        storage = load_settings(redis_url=url).storage
        redis.Redis.from_url(url, socket_connect_timeout=2, **connection_kwargs(storage)).ping()
    except (redis.RedisError, ValueError) as exc:
        raise typer.BadParameter(f"cannot use the Redis server {url}: {exc}") from exc


def delete_matching(client: Any, pattern: str) -> int:
    """Delete every key matching ``pattern`` (a run's own prefix), ``BATCH`` keys per DEL so a
    large run neither blocks the server on one command nor sends one per key; returns how many
    were deleted."""
    keys = list(client.scan_iter(match=pattern, count=BATCH))
    for start in range(0, len(keys), BATCH):
        client.delete(*keys[start : start + BATCH])
    return len(keys)
