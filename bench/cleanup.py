"""Leaving a Redis server as a run found it: a benchmark deletes the keys it wrote."""

from __future__ import annotations

from typing import Any

BATCH = 1000


def delete_matching(client: Any, pattern: str) -> int:
    """Delete every key matching ``pattern`` (a run's own prefix), ``BATCH`` keys per DEL so a
    large run neither blocks the server on one command nor sends one per key; returns how many
    were deleted."""
    keys = list(client.scan_iter(match=pattern, count=BATCH))
    for start in range(0, len(keys), BATCH):
        client.delete(*keys[start : start + BATCH])
    return len(keys)
