"""The keyed verdict log: κ scores read before they are computed, stored insert-if-absent.

Layout: one Redis hash per (namespace, θ), ``{prefix}:{ns}:verdicts:{θ}``; field = the pair of
chunk content hashes (sorted when the oracle is symmetric, else "older:newer"); value = the
contradiction probability as ``repr(float)``.

Why per namespace rather than one global hash per θ: namespaces partition everything (a
tenant's verdicts go when its namespace goes, with no scan over other tenants' fields); a
shared hash would also let one tenant learn from cache timing whether another stored a given
text; and the ``{ns}`` hash tag keeps a namespace's verdicts on one cluster shard with the rest
of its keys. The cost, recomputing a pair two tenants both hold, is small.

Lookups: HMGET of the query's fields; misses go to the oracle in ONE batch; results are
written with HSETNX inside MULTI followed by HMGET, so when two workers race on a pair the
loser reads back (and uses) the winner's score: every process decides from the same number.
Decisions compare stored scores with the configured threshold, which is not part of θ, so a
threshold change re-decides from the log without recomputing.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast

import numpy as np

from gcmem.oracle.base import ConflictOracle, is_query_conditioned, score_for
from gcmem.storage.redis import Keyspace, RedisClient

STAT_FIELDS = ("hits", "misses", "stored", "raced", "oracle_calls")


class Statement(Protocol):
    """What the log needs of a chunk: its text and content hash."""

    @property
    def text(self) -> str: ...

    @property
    def content_hash(self) -> str: ...


@dataclass
class VerdictLookup:
    """Scores for a batch of pairs, with where they came from."""

    scores: np.ndarray
    hits: int = 0  # distinct pairs answered by the log
    misses: int = 0  # distinct pairs the oracle scored
    raced: int = 0  # misses another worker stored first (its score is used)
    timings_ms: dict[str, float] = field(default_factory=dict)


class VerdictLog:
    def __init__(self, client: RedisClient, keys: Keyspace, oracle: ConflictOracle) -> None:
        self.client = client
        self.keys = keys
        self.oracle = oracle
        self.theta = oracle.identity.digest
        self._theta_recorded = False

    @property
    def threshold(self) -> float:
        return self.oracle.threshold

    def decide(self, scores: np.ndarray | float) -> np.ndarray:
        return self.oracle.decide(scores)

    def field(self, older: Statement, newer: Statement) -> str:
        a, b = older.content_hash, newer.content_hash
        if self.oracle.symmetric and b < a:
            a, b = b, a
        return f"{a}:{b}"

    def scores(
        self,
        namespace: str,
        pairs: Sequence[tuple[Statement, Statement]],
        question: str | None = None,
    ) -> VerdictLookup:
        """P(contradiction) for each (older, newer) pair: from the log, else computed once.

        A query-conditioned oracle judges a pair relative to ``question``: its verdicts are
        keyed by the pair and a hash of the question (other oracles ignore ``question``).
        """
        if not pairs:
            return VerdictLookup(np.zeros(0, dtype=np.float64))
        key = self.keys.verdicts(namespace, self.theta)
        conditioned = bool(question) and is_query_conditioned(self.oracle)
        suffix = ""
        if conditioned and question:
            suffix = ":q" + hashlib.sha256(question.encode()).hexdigest()[:16]
        fields = [self.field(a, b) + suffix for a, b in pairs]
        timings: dict[str, float] = {}

        t0 = time.perf_counter()
        distinct = list(dict.fromkeys(fields))
        stored = cast(list[bytes | None], self.client.hmget(key, distinct))
        known: dict[str, float] = {
            f: float(v) for f, v in zip(distinct, stored, strict=True) if v is not None
        }
        timings["log_read"] = (time.perf_counter() - t0) * 1e3

        missing = [f for f in distinct if f not in known]
        raced = 0
        if missing:
            first_pair = {f: p for f, p in zip(fields, pairs, strict=True)}
            t0 = time.perf_counter()
            computed = score_for(
                self.oracle,
                [(first_pair[f][0].text, first_pair[f][1].text) for f in missing],
                question if conditioned else None,
            )
            timings["oracle"] = (time.perf_counter() - t0) * 1e3
            t0 = time.perf_counter()
            won, winners = self._store(key, missing, computed)
            timings["log_write"] = (time.perf_counter() - t0) * 1e3
            raced = len(missing) - won
            known.update(winners)

        hits = len(distinct) - len(missing)
        self._count(hits=hits, misses=len(missing), stored=len(missing) - raced, raced=raced)
        scores = np.array([known[f] for f in fields], dtype=np.float64)
        return VerdictLookup(scores, hits, len(missing), raced, timings)

    def _store(
        self, key: str, fields: list[str], scores: np.ndarray
    ) -> tuple[int, dict[str, float]]:
        """HSETNX each computed score, then read back what is stored (ours or a racer's)."""
        self._record_theta()
        pipe = self.client.pipeline(transaction=True)
        for f, s in zip(fields, scores, strict=True):
            pipe.hsetnx(key, f, repr(float(s)))
        pipe.hmget(key, fields)
        results = pipe.execute()
        won = sum(int(r) for r in results[:-1])
        stored = cast(list[bytes | None], results[-1])
        winners: dict[str, float] = {}
        for f, v, s in zip(fields, stored, scores, strict=True):
            # None only if the hash was deleted between the two commands of one transaction,
            # which MULTI rules out; keep our own score rather than fail.
            winners[f] = float(v) if v is not None else float(s)
        return won, winners

    def _record_theta(self) -> None:
        if not self._theta_recorded:
            ident = self.oracle.identity
            self.client.hsetnx(self.keys.oracle_identities(), self.theta, ident.canonical())
            self._theta_recorded = True

    def _count(self, **counts: int) -> None:
        pipe = self.client.pipeline(transaction=False)
        key = self.keys.verdict_stats()
        for name, value in counts.items():
            if value:
                pipe.hincrby(key, name, value)
        if counts.get("misses"):
            pipe.hincrby(key, "oracle_calls", 1)
        if len(pipe):
            pipe.execute()

    # --- inspection ------------------------------------------------------------------------
    def stats(self) -> dict[str, int]:
        return read_verdict_stats(self.client, self.keys)

    def size(self, namespace: str) -> int:
        return int(cast(int, self.client.hlen(self.keys.verdicts(namespace, self.theta))))

    def clear(self, namespace: str) -> None:
        """Forget this θ's verdicts for one namespace (benchmarks' cold runs; tenant removal)."""
        self.client.delete(self.keys.verdicts(namespace, self.theta))


def read_verdict_stats(client: RedisClient, keys: Keyspace) -> dict[str, int]:
    """The log's counters (all processes, all namespaces, all θ) without loading a model:
    hits and misses are distinct pairs, stored/raced count HSETNX outcomes, oracle_calls the
    batched oracle invocations. For ``/metrics``."""
    raw = cast(dict[bytes, bytes], client.hgetall(keys.verdict_stats()))
    out = dict.fromkeys(STAT_FIELDS, 0)
    out.update({k.decode(): int(v) for k, v in raw.items()})
    return out
