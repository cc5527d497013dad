"""Leaving a Redis server as a run found it: a benchmark deletes the keys it wrote."""

from __future__ import annotations

from typing import Any

import redis

BATCH = 1000


def server_error(url: str) -> str | None:
    """Why the Redis server at ``url`` cannot take a run (unreachable, a malformed URL), else
    None: a benchmark asks before it loads a model or writes a file."""
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except (redis.RedisError, ValueError) as exc:
        return f"cannot use the Redis server {url}: {exc}"
    return None


def delete_matching(client: Any, pattern: str) -> int:
    """Delete every key matching ``pattern`` (a run's own prefix), ``BATCH`` keys per DEL so a
    large run neither blocks the server on one command nor sends one per key; returns how many
    were deleted."""
    keys = list(client.scan_iter(match=pattern, count=BATCH))
    for start in range(0, len(keys), BATCH):
        client.delete(*keys[start : start + BATCH])
    return len(keys)
