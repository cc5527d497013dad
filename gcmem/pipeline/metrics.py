"""Pipeline metrics, shared by every worker process through Redis, rendered as Prometheus text.

Counters and latency histograms live in one Redis hash (HINCRBY), so ``GET /metrics`` on any
``gcmem serve`` shows the whole fleet, and a restarted worker does not reset them. Gauges
(consumer lag, pending, stream lengths) are read from Redis at scrape time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

import redis.asyncio
from redis.exceptions import ResponseError

from gcmem.pipeline.topology import Topology

# Seconds. Embedding a batch on CPU lands in 0.1-5 s; RPC queries in 1-500 ms.
LATENCY_BUCKETS: tuple[float, ...] = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)

COUNTERS: dict[str, str] = {
    "processed": "Turns ingested (durable in MTM, STM and every ingest stage).",
    "duplicates": "Entries skipped because their turn id was already ingested, same content.",
    "failed": "Processing attempts that failed (the entry stays pending and is retried).",
    "reclaimed": "Pending entries of idle consumers taken over with XAUTOCLAIM.",
    "batches": "Batches processed.",
    "query_requests": "Query requests served (bus and HTTP).",
    "query_errors": "Query requests answered with an error.",
    "query_timeouts": "Query requests past their deadline (answered 504 / a timeout error).",
    "query_rejected_busy": "Query requests refused because every query slot was taken (503).",
}


def _le(bound: float) -> str:
    return "+Inf" if math.isinf(bound) else repr(bound)


class PipelineMetrics:
    def __init__(self, client: redis.asyncio.Redis, topology: Topology) -> None:
        self.client = client
        self.topology = topology
        self.key = topology.metrics

    async def record(
        self,
        counts: Mapping[str, int] | None = None,
        latencies_s: Mapping[str, float] | None = None,
        dead_lettered: Mapping[str, int] | None = None,
    ) -> None:
        pipe = self.client.pipeline(transaction=False)
        for name, value in (counts or {}).items():
            if value:
                pipe.hincrby(self.key, name, value)
        for kind, value in (dead_lettered or {}).items():
            if value:
                pipe.hincrby(self.key, f"dead_lettered:{kind}", value)
        for stage, seconds in (latencies_s or {}).items():
            bound = next((b for b in LATENCY_BUCKETS if seconds <= b), math.inf)
            pipe.hincrby(self.key, f"latency:{stage}:bucket:{_le(bound)}", 1)
            pipe.hincrbyfloat(self.key, f"latency:{stage}:sum", seconds)
            pipe.hincrby(self.key, f"latency:{stage}:count", 1)
        if len(pipe):
            await pipe.execute()

    async def snapshot(self) -> dict[str, float]:
        raw = cast(dict[bytes, bytes], await self.client.hgetall(self.key))
        return {k.decode(): float(v) for k, v in raw.items()}

    async def render(self) -> str:
        """The Prometheus text exposition (format 0.0.4) of every pipeline metric."""
        snap = await self.snapshot()
        gauges = await self._gauges()
        oracle = await self._oracle_stats()
        out = _Exposition()
        for name, help_text in COUNTERS.items():
            out.metric(f"gcmem_pipeline_{name}_total", "counter", help_text)
            out.sample(f"gcmem_pipeline_{name}_total", snap.get(name, 0.0))
        out.metric(
            "gcmem_pipeline_dead_lettered_total",
            "counter",
            "Entries moved to the dead-letter stream, by reason kind.",
        )
        kinds = sorted(k.split(":", 1)[1] for k in snap if k.startswith("dead_lettered:"))
        for kind in kinds:
            value = snap[f"dead_lettered:{kind}"]
            out.sample("gcmem_pipeline_dead_lettered_total", value, reason=kind)
        if not kinds:
            out.sample("gcmem_pipeline_dead_lettered_total", 0.0, reason="none")
        out.metric(
            "gcmem_pipeline_task_restarts_total",
            "counter",
            "Background task restarts after an exception (reclaimer, heartbeat, snapshot).",
        )
        tasks = sorted(k.split(":", 1)[1] for k in snap if k.startswith("task_restarts:"))
        for task in tasks:
            out.sample(
                "gcmem_pipeline_task_restarts_total", snap[f"task_restarts:{task}"], task=task
            )
        if not tasks:
            out.sample("gcmem_pipeline_task_restarts_total", 0.0, task="none")
        labels = {"stream": self.topology.stream, "group": self.topology.group}
        gauge_help = {
            "consumer_lag": "Entries in the stream not yet delivered to the group (XINFO lag).",
            "pending": "Entries delivered to the group and not yet acknowledged.",
            "consumers": "Consumers registered in the group.",
            "stream_length": "Entries in the turn stream.",
            "dead_letter_length": "Entries in the dead-letter stream.",
        }
        for name, help_text in gauge_help.items():
            out.metric(f"gcmem_pipeline_{name}", "gauge", help_text)
            out.sample(f"gcmem_pipeline_{name}", gauges.get(name, math.nan), **labels)
        self._render_oracle(out, oracle)
        self._render_latencies(out, snap)
        return out.text()

    async def _gauges(self) -> dict[str, float]:
        t = self.topology
        gauges: dict[str, float] = {
            "stream_length": float(await self.client.xlen(t.stream)),
            "dead_letter_length": float(await self.client.xlen(t.dead_letters)),
        }
        try:
            groups = await self.client.xinfo_groups(t.stream)
        except ResponseError:  # no stream yet
            groups = []
        for group in groups:
            info = {_str(k): v for k, v in cast(dict[Any, Any], group).items()}
            if _str(info.get("name")) != t.group:
                continue
            gauges["pending"] = float(info.get("pending") or 0)
            gauges["consumers"] = float(info.get("consumers") or 0)
            lag = info.get("lag")
            # Redis < 7 has no lag; after XDEL/XTRIM Redis 7 may report nil (unknown).
            gauges["consumer_lag"] = float(lag) if lag is not None else math.nan
        return gauges

    async def _oracle_stats(self) -> dict[str, float]:
        raw = cast(
            dict[bytes, bytes], await self.client.hgetall(self.topology.keys.verdict_stats())
        )
        return {k.decode(): float(v) for k, v in raw.items()}

    @staticmethod
    def _render_oracle(out: _Exposition, stats: Mapping[str, float]) -> None:
        # Counters kept by the oracle's verdict log (gcmem.oracle.verdicts): pairs scored by
        # the model are the log's misses; hits were answered from the log.
        hits, misses = stats.get("hits", 0.0), stats.get("misses", 0.0)
        out.metric("gcmem_oracle_pairs_scored_total", "counter", "Pairs the oracle model scored.")
        out.sample("gcmem_oracle_pairs_scored_total", misses)
        out.metric(
            "gcmem_oracle_verdict_log_hits_total", "counter", "Pair verdicts read from the log."
        )
        out.sample("gcmem_oracle_verdict_log_hits_total", hits)
        out.metric(
            "gcmem_oracle_verdict_log_hit_rate",
            "gauge",
            "hits / (hits + misses) of the verdict log since it was created.",
        )
        total = hits + misses
        out.sample("gcmem_oracle_verdict_log_hit_rate", hits / total if total else math.nan)
        for name in ("oracle_calls", "raced"):
            metric = f"gcmem_oracle_{name}_total"
            out.metric(metric, "counter", f"Verdict log counter '{name}'.")
            out.sample(metric, stats.get(name, 0.0))

    @staticmethod
    def _render_latencies(out: _Exposition, snap: Mapping[str, float]) -> None:
        metric = "gcmem_stage_latency_seconds"
        out.metric(metric, "histogram", "Latency per pipeline stage (per batch or request).")
        stages = sorted({k.split(":")[1] for k in snap if k.startswith("latency:")})
        for stage in stages:
            cumulative = 0.0
            for bound in (*LATENCY_BUCKETS, math.inf):
                cumulative += snap.get(f"latency:{stage}:bucket:{_le(bound)}", 0.0)
                out.sample(f"{metric}_bucket", cumulative, stage=stage, le=_le(bound))
            out.sample(f"{metric}_sum", snap.get(f"latency:{stage}:sum", 0.0), stage=stage)
            out.sample(f"{metric}_count", snap.get(f"latency:{stage}:count", 0.0), stage=stage)


def _str(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class _Exposition:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def metric(self, name: str, kind: str, help_text: str) -> None:
        self.lines.append(f"# HELP {name} {help_text}")
        self.lines.append(f"# TYPE {name} {kind}")

    def sample(self, name: str, value: float, **labels: str) -> None:
        label_text = ""
        if labels:
            inner = ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items())
            label_text = "{" + inner + "}"
        self.lines.append(f"{name}{label_text} {_num(value)}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _num(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)
