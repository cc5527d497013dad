"""``bench.cleanup`` on a real Redis server: a run's keys go, others stay; a server is asked
first, as the run will open it."""

from __future__ import annotations

import uuid

import pytest
import redis
import typer

from bench.cleanup import BATCH, delete_matching, require_server
from tests.conftest import require_real_redis


@pytest.mark.redis
def test_deletes_only_the_runs_keys_in_batches() -> None:
    client = redis.Redis.from_url(require_real_redis())
    mine, other = f"cleanup-{uuid.uuid4().hex[:10]}", f"cleanup-{uuid.uuid4().hex[:10]}"
    try:
        pipe = client.pipeline(transaction=False)
        for i in range(2 * BATCH + 7):  # more than one DEL's worth
            pipe.set(f"{mine}:{{ns}}:k{i}", i)
        pipe.set(f"{other}:k", 1)
        pipe.set(f"{mine}x:k", 1)  # shares the prefix's characters, not the prefix
        pipe.execute()
        assert delete_matching(client, f"{mine}:*") == 2 * BATCH + 7
        assert list(client.scan_iter(match=f"{mine}:*")) == []
        assert client.get(f"{other}:k") == b"1"
        assert client.get(f"{mine}x:k") == b"1"
        assert delete_matching(client, f"{mine}:*") == 0
    finally:
        client.delete(f"{other}:k", f"{mine}x:k")


@pytest.mark.redis
def test_the_server_is_asked_with_the_runs_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    url = require_real_redis()
    require_server(url)  # reachable, no password: nothing to say
    require_server(None)  # no server given: the embedded store, nothing to ask
    monkeypatch.setenv("GCMEM_REDIS_USERNAME", "no-such-user")
    monkeypatch.setenv("GCMEM_REDIS_PASSWORD", "not-the-password")
    with pytest.raises(typer.BadParameter, match="cannot use the Redis server"):
        require_server(url)
