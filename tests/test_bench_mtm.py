"""The MTM engine benchmark's smoke size runs end to end and writes sane results."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bench.mtm import LARGE_NS, SMOKE, exact_recall, namespaces, run_benchmark
from bench.mtm_corpus import DERIVED_COS_RANGE, derive_vectors, memory_sentence
from gcmem.embedding.transformer import TransformerEmbedder


def test_layout_has_many_small_namespaces_and_one_large() -> None:
    ns = namespaces(1000, 100, 0.25)
    assert ns.count(LARGE_NS) == 250
    small = {n for n in ns if n != LARGE_NS}
    assert len(small) == 8 and all(ns.count(n) <= 100 for n in small)
    assert namespaces(1000, 100, 0.25) == ns, "deterministic"


def test_corpus_is_deterministic_and_derived_vectors_stay_near_their_base() -> None:
    assert memory_sentence(7) == memory_sentence(7)
    assert len({memory_sentence(i) for i in range(200)}) > 190
    rng = np.random.default_rng(1)
    real = rng.standard_normal((50, 16)).astype(np.float32)
    real /= np.linalg.norm(real, axis=1, keepdims=True)
    out = derive_vectors(real, 130)
    assert out.shape == (130, 16)
    np.testing.assert_array_equal(out[:50], real)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    cos = (out[50:] * real[np.arange(80) % 50]).sum(1)
    assert cos.min() >= DERIVED_COS_RANGE[0] - 1e-4 and cos.max() <= DERIVED_COS_RANGE[1] + 1e-4


def test_exact_recall_counts_ties_and_misses() -> None:
    vectors = np.eye(12, dtype=np.float32)
    vectors[11] = vectors[0]  # a duplicate of row 0: either id is a correct answer
    ids = [f"c{i}" for i in range(12)]
    row_of = {cid: i for i, cid in enumerate(ids)}
    ns_rows = {"a": np.arange(12)}
    q = vectors[:1]
    assert exact_recall([["c11"]], q, np.array(["a"]), vectors, ns_rows, row_of) == 0.1
    full = [ids[:10]]
    assert exact_recall(full, q, np.array(["a"]), vectors, ns_rows, row_of) == 1.0


@pytest.mark.model
def test_smoke_benchmark_writes_results(tmp_path: Path, embedder: TransformerEmbedder) -> None:
    cfg = replace(SMOKE, out=tmp_path / "out", cache=tmp_path / "cache")
    result = run_benchmark(cfg, embedder=embedder)
    for ext in ("json", "md", "png"):
        assert (cfg.out / f"smoke.{ext}").stat().st_size > 0
    saved = json.loads((cfg.out / "smoke.json").read_text())
    assert saved["rows"] == json.loads(json.dumps(result["rows"]))
    engines = {r["engine"] for r in saved["rows"]}
    assert engines == {"local", "edge", "edge+optimize"}
    for row in saved["rows"]:
        assert row["size"] == 600
        assert row["ingest_rate"] > 0 and row["p50_small_ms"] > 0 and row["disk_mb"] > 0
        # Both engines search exactly at this size (local always; Edge below its HNSW
        # threshold), so anything short of full recall is a bug, not approximation.
        assert row["recall_small"] == pytest.approx(1.0)
        assert row["recall_large"] == pytest.approx(1.0)
    local = next(r for r in saved["rows"] if r["engine"] == "local")
    assert local["extra"]["bulk_filled"] > 0, "the smoke run exercises the bulk-fill path"
    assert "| 600 | edge |" in (cfg.out / "smoke.md").read_text()
