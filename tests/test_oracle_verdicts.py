"""The keyed verdict log: computed once, reused across restarts, one verdict under races."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from gcmem.models import Chunk, chunk_id, content_hash
from gcmem.oracle.base import OracleIdentity
from gcmem.oracle.verdicts import VerdictLog
from gcmem.settings import Settings
from gcmem.storage.redis import EmbeddedRedis, Keyspace, open_redis, save_embedded
from tests.conftest import cleanup_prefix, make_settings, require_real_redis
from tests.doubles import ScriptedOracle

NS = "tenant-a"
TS = datetime(2026, 2, 1, tzinfo=UTC)


def chunk(text: str, ns: str = NS) -> Chunk:
    return Chunk(
        id=chunk_id(ns, text, 0),
        namespace=ns,
        turn_id=text,
        index=0,
        text=text,
        ts=TS,
        content_hash=content_hash(text),
    )


A, B, C = chunk("port 8000"), chunk("port 8080"), chunk("licence Apache-2.0")


def scripted() -> ScriptedOracle:
    oracle = ScriptedOracle()
    oracle.contradict("port 8000", "port 8080", 0.83)
    return oracle


def test_each_pair_is_computed_once(redis_settings: Settings) -> None:
    oracle = scripted()
    log = VerdictLog(
        open_redis(redis_settings.storage), Keyspace(redis_settings.storage.key_prefix), oracle
    )
    first = log.scores(NS, [(A, B), (A, C), (B, C), (B, A)])  # (B, A) = (A, B) unordered
    assert oracle.calls == 1 and len(oracle.pairs_scored) == 3
    np.testing.assert_allclose(first.scores, [0.83, 0.0, 0.0, 0.83])
    assert (first.hits, first.misses) == (0, 3)
    second = log.scores(NS, [(B, A), (C, B)])
    assert oracle.calls == 1  # all hits
    np.testing.assert_allclose(second.scores, [0.83, 0.0])
    assert (second.hits, second.misses) == (2, 0)
    assert list(log.decide(second.scores)) == [True, False]
    stats = log.stats()
    assert (stats["hits"], stats["misses"], stats["stored"], stats["oracle_calls"]) == (2, 3, 3, 1)
    assert log.scores(NS, []).scores.shape == (0,)


def test_namespaces_do_not_share_verdicts(redis_settings: Settings) -> None:
    oracle = scripted()
    log = VerdictLog(
        open_redis(redis_settings.storage), Keyspace(redis_settings.storage.key_prefix), oracle
    )
    log.scores(NS, [(A, B)])
    log.scores("tenant-b", [(chunk("port 8000", "tenant-b"), chunk("port 8080", "tenant-b"))])
    assert oracle.calls == 2
    assert log.size(NS) == 1 and log.size("tenant-b") == 1
    log.clear("tenant-b")
    assert log.size("tenant-b") == 0 and log.size(NS) == 1


def test_directional_oracles_key_ordered_pairs(redis_settings: Settings) -> None:
    class Forward(ScriptedOracle):
        @property
        def symmetric(self) -> bool:
            return False

        def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
            self.calls += 1
            return np.array([0.9 if p == ("port 8000", "port 8080") else 0.1 for p in pairs])

    oracle = Forward()
    log = VerdictLog(
        open_redis(redis_settings.storage), Keyspace(redis_settings.storage.key_prefix), oracle
    )
    assert list(log.scores(NS, [(A, B), (B, A)]).scores) == [0.9, 0.1]


def test_a_different_oracle_identity_gets_its_own_log(redis_settings: Settings) -> None:
    client, keys = open_redis(redis_settings.storage), Keyspace(redis_settings.storage.key_prefix)
    one, other = scripted(), ScriptedOracle(name="other-model")
    VerdictLog(client, keys, one).scores(NS, [(A, B)])
    result = VerdictLog(client, keys, other).scores(NS, [(A, B)])
    assert other.calls == 1 and result.scores[0] == 0.0
    identities = client.hgetall(keys.oracle_identities())
    assert {k.decode() for k in identities} == {one.identity.digest, other.identity.digest}


@pytest.mark.parametrize("backend", ["embedded", pytest.param("real", marks=pytest.mark.redis)])
def test_same_decision_after_a_process_restart(backend: str, tmp_path: Path) -> None:
    url = require_real_redis() if backend == "real" else None
    s = make_settings(tmp_path, redis_url=url, ephemeral=False)
    try:
        before = VerdictLog(open_redis(s.storage), Keyspace(s.storage.key_prefix), scripted())
        decided = before.decide(before.scores(NS, [(A, B), (A, C)]).scores)
        if backend == "embedded":
            # The embedded server dies with the process; its snapshot carries the keyspace.
            save_embedded(s.storage)
            EmbeddedRedis._servers.clear()
        # A new process: new client, new oracle object. It scores everything 0.0, so a
        # decision of True can only come from the log.
        fresh_oracle = ScriptedOracle()
        after = VerdictLog(open_redis(s.storage), Keyspace(s.storage.key_prefix), fresh_oracle)
        result = after.scores(NS, [(B, A), (C, A)])
        assert fresh_oracle.calls == 0
        assert list(after.decide(result.scores)) == list(decided) == [True, False]
    finally:
        cleanup_prefix(s)


class RacingOracle(ScriptedOracle):
    """Both workers miss, then wait for each other before storing: a guaranteed race."""

    def __init__(self, barrier: threading.Barrier, value: float) -> None:
        super().__init__()
        self.barrier = barrier
        self.value = value

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.calls += 1
        self.barrier.wait(timeout=10)
        return np.full(len(pairs), self.value)


def test_two_racing_workers_store_one_verdict(real_redis_settings: Settings) -> None:
    s = real_redis_settings
    barrier = threading.Barrier(2)
    oracles = [RacingOracle(barrier, 0.9), RacingOracle(barrier, 0.1)]
    # Separate clients (separate connections), one shared Redis server: two workers.
    logs = [VerdictLog(open_redis(s.storage), Keyspace(s.storage.key_prefix), o) for o in oracles]
    results: list[float] = [0.0, 0.0]
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            results[i] = float(logs[i].scores(NS, [(A, B)]).scores[0])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert not errors
    assert all(o.calls == 1 for o in oracles)  # both really computed
    stored = open_redis(s.storage).hgetall(
        Keyspace(s.storage.key_prefix).verdicts(NS, logs[0].theta)
    )
    assert len(stored) == 1
    (winner,) = (float(v) for v in stored.values())
    assert winner in (0.9, 0.1)
    assert results == [winner, winner]  # the loser uses the winner's score
    stats = logs[0].stats()
    assert (stats["stored"], stats["raced"]) == (1, 1)


def test_identity_digest_is_stable() -> None:
    a = OracleIdentity("cross-encoder", {"model": "m", "labels": {"0": "contradiction"}})
    b = OracleIdentity("cross-encoder", {"labels": {"0": "contradiction"}, "model": "m"})
    assert a.digest == b.digest and len(a.digest) == 32
    assert OracleIdentity("cross-encoder", {"model": "n"}).digest != a.digest
