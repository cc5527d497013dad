"""The short-term buffer in Redis: a sorted set of chunk ids by event time plus their data.

A plain list would hold "the last N delivered", which depends on delivery order when several
workers consume one stream. Ordering by event time (ties: chunk id) makes the buffer the same
N chunks whatever the delivery order, redeliveries included, like every other part of gcmem.
One Lua script appends and trims, so concurrent writers never leave more than N.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, cast, runtime_checkable

from gcmem.models import Chunk
from gcmem.storage.redis import Keyspace, RedisClient

# KEYS: index zset, data hash. ARGV: capacity, then (score, id, json) triples.
# ZADD NX keeps a redelivered chunk where it is; ZPOPMIN drops the oldest beyond capacity.
_PUSH_AND_TRIM = """
local cap = tonumber(ARGV[1])
local added = 0
for i = 2, #ARGV, 3 do
  if redis.call('ZADD', KEYS[1], 'NX', ARGV[i], ARGV[i + 1]) == 1 then
    redis.call('HSET', KEYS[2], ARGV[i + 1], ARGV[i + 2])
    added = added + 1
  end
end
local excess = redis.call('ZCARD', KEYS[1]) - cap
if excess > 0 then
  local gone = redis.call('ZPOPMIN', KEYS[1], excess)
  for j = 1, #gone, 2 do
    redis.call('HDEL', KEYS[2], gone[j])
  end
end
return added
"""


def _score(chunk: Chunk) -> int:
    # Integer microseconds since the epoch: exact in a double up to year ~2255.
    return int(chunk.ts.timestamp() * 1_000_000)


@runtime_checkable
class ShortTermBuffer(Protocol):
    capacity: int

    def push(self, chunks: Sequence[Chunk]) -> int:
        """Add chunks (idempotent per chunk id); returns how many were new."""
        ...

    def recent(self, namespace: str) -> list[Chunk]:
        """The buffer's chunks for one namespace, newest first."""
        ...


class RedisShortTermBuffer:
    def __init__(self, client: RedisClient, keys: Keyspace, capacity: int) -> None:
        self.client = client
        self.keys = keys
        self.capacity = capacity
        self._script = client.register_script(_PUSH_AND_TRIM)

    def push(self, chunks: Sequence[Chunk]) -> int:
        if self.capacity == 0 or not chunks:
            return 0
        by_ns: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            by_ns.setdefault(chunk.namespace, []).append(chunk)
        added = 0
        for ns, group in by_ns.items():
            argv: list[str | int] = [self.capacity]
            for chunk in group:
                argv += [_score(chunk), chunk.id, chunk.model_dump_json()]
            keys = [self.keys.stm_index(ns), self.keys.stm_data(ns)]
            added += int(self._script(keys=keys, args=argv))
        return added

    def recent(self, namespace: str) -> list[Chunk]:
        if self.capacity == 0:
            return []
        ids = cast(
            list[bytes], self.client.zrevrange(self.keys.stm_index(namespace), 0, self.capacity - 1)
        )
        if not ids:
            return []
        raw = self.client.hmget(self.keys.stm_data(namespace), ids)
        return [Chunk.model_validate_json(r) for r in raw if r is not None]
