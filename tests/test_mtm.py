"""The medium-term index on both embedded engines: qdrant-client local mode and Qdrant Edge.

Engine logic only, so vectors come from the hashing double (or are written out by hand).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from gcmem.models import Chunk, Turn
from gcmem.settings import Settings
from gcmem.storage.mtm import MediumTermIndex, open_index
from gcmem.storage.mtm.edge import EdgeIndex, EdgeIndexError
from gcmem.storage.mtm.index import (
    DOMINATED_FLAG,
    FLAG_RECORD,
    SUPERSEDED_FLAG,
    DominatedIndex,
    FlagIndex,
)
from tests.conftest import make_settings
from tests.doubles import HashingEmbedder

ENGINES = ["local", "edge"]
T0 = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)
REPO = Path(__file__).resolve().parents[1]


def make_chunks(ns: str, texts: list[str], start: int = 0) -> list[Chunk]:
    return [
        Chunk.from_turn(
            Turn(id=f"{ns}-t{start + i}", namespace=ns, text=t, ts=T0 + timedelta(hours=i)), 0, t
        )
        for i, t in enumerate(texts)
    ]


def disk_settings(tmp_path: Path, engine: str) -> Settings:
    return make_settings(tmp_path, ephemeral=False, embedded_engine=engine)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["memory", "disk"])
def index(request: pytest.FixtureRequest, engine: str, tmp_path: Path) -> Iterator[MediumTermIndex]:
    """Each engine in memory and on disk."""
    if request.param == "memory":
        settings = make_settings(tmp_path, embedded_engine=engine)
    else:
        settings = disk_settings(tmp_path, engine)
    idx = open_index(settings.storage)
    yield idx
    idx.close()


TEXTS = [
    "The billing API listens on port 8443.",
    "Alice moved to Lisbon in March.",
    "We pinned numpy to version 1.26.4.",
    "Bob prefers green tea.",
]


def test_open_index_picks_the_configured_engine(engine: str, tmp_path: Path) -> None:
    idx = open_index(make_settings(tmp_path, embedded_engine=engine).storage)
    try:
        assert isinstance(idx, MediumTermIndex)
        assert isinstance(idx, EdgeIndex) == (engine == "edge")
    finally:
        idx.close()


def test_empty_index_reads_return_nothing(
    index: MediumTermIndex, hashing_embedder: HashingEmbedder
) -> None:
    q = hashing_embedder.embed(["port", "Alice"])
    assert index.search("a", q, 5) == [[], []]
    assert index.fetch("a", [make_chunks("a", TEXTS)[0].id]) == {}
    assert index.count() == 0
    assert index.count("a") == 0


def test_reupsert_is_a_noop(index: MediumTermIndex, hashing_embedder: HashingEmbedder) -> None:
    chunks = make_chunks("a", TEXTS)
    vectors = hashing_embedder.embed(TEXTS)
    index.upsert(chunks, vectors)
    index.upsert(chunks[:1], vectors[:1])
    index.upsert(chunks, vectors)
    assert index.count("a") == len(TEXTS)
    assert index.count() == len(TEXTS)
    hits = index.search("a", vectors[:1], 10)[0]
    assert sorted(h.chunk.id for h in hits) == sorted(c.id for c in chunks)


def test_search_returns_the_chunk_with_its_payload_and_unit_vector(
    index: MediumTermIndex, hashing_embedder: HashingEmbedder
) -> None:
    chunks = make_chunks("a", TEXTS)
    vectors = hashing_embedder.embed(TEXTS)
    # Stored unnormalised on purpose: cosine engines normalise, and Memory reads the vectors
    # back as cosine-ready unit vectors.
    index.upsert(chunks, vectors * 3.0)
    q = hashing_embedder.embed(["Which port does the billing API listen on?"])
    hits = index.search("a", q, 2)[0]
    assert len(hits) == 2
    top = hits[0]
    assert top.chunk == chunks[0], "payload round-trips to the same Chunk (ts, ids, text)"
    assert top.chunk.ts == T0 and top.chunk.ts.tzinfo is not None
    assert top.vector is not None
    assert np.linalg.norm(top.vector) == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(top.vector, vectors[0], atol=1e-5)
    assert top.score == pytest.approx(float(q[0] @ vectors[0]), abs=1e-4)
    assert hits[0].score >= hits[1].score


def test_several_query_vectors_get_one_result_list_each(
    index: MediumTermIndex, hashing_embedder: HashingEmbedder
) -> None:
    chunks = make_chunks("a", TEXTS)
    vectors = hashing_embedder.embed(TEXTS)
    index.upsert(chunks, vectors)
    results = index.search("a", vectors[[1, 3]], 1)
    assert [[h.chunk.id for h in r] for r in results] == [[chunks[1].id], [chunks[3].id]]


def test_exact_ties_come_back_in_one_order_and_cut_the_same_way(index: MediumTermIndex) -> None:
    # twelve word-for-word restatements share one vector: which of them the top 5 holds, and
    # in which order, must not depend on how the engine found them
    chunks = make_chunks("ns", [f"restated {i}" for i in range(12)])
    vector = np.zeros((1, 8), dtype=np.float32)
    vector[0, 0] = 1.0
    index.upsert(list(reversed(chunks)), np.repeat(vector, len(chunks), axis=0))
    hits = index.search("ns", vector, 5)[0]
    assert [h.chunk.id for h in hits] == sorted(c.id for c in chunks)[:5]


def test_namespace_isolation(index: MediumTermIndex, hashing_embedder: HashingEmbedder) -> None:
    a, b = make_chunks("tenant-a", TEXTS), make_chunks("tenant-b", [*TEXTS, "Only in B."])
    index.upsert(a, hashing_embedder.embed(TEXTS))
    index.upsert(b, hashing_embedder.embed([c.text for c in b]))
    assert (index.count("tenant-a"), index.count("tenant-b"), index.count()) == (4, 5, 9)
    assert index.count("tenant-c") == 0
    q = hashing_embedder.embed(["Only in B.", "port 8443"])
    for ns in ("tenant-a", "tenant-b"):
        for hits in index.search(ns, q, 20):
            assert hits and {h.chunk.namespace for h in hits} == {ns}
    assert index.search("tenant-c", q, 5) == [[], []]
    # fetch by id never crosses namespaces, even with the other tenant's exact ids
    assert index.fetch("tenant-a", [c.id for c in b]) == {}
    got = index.fetch("tenant-b", [c.id for c in a + b])
    assert set(got) == {c.id for c in b}
    assert all(h.vector is not None and h.score == 0.0 for h in got.values())


def test_fetch_ignores_unknown_and_malformed_ids(
    index: MediumTermIndex, hashing_embedder: HashingEmbedder
) -> None:
    chunks = make_chunks("a", TEXTS)
    index.upsert(chunks, hashing_embedder.embed(TEXTS))
    unknown = make_chunks("a", ["never stored"], start=99)[0].id
    got = index.fetch("a", [chunks[0].id, unknown, chunks[0].id])
    assert list(got) == [chunks[0].id]
    assert got[chunks[0].id].chunk == chunks[0]


def test_exclude_flagged_after_set_payload(
    index: MediumTermIndex, hashing_embedder: HashingEmbedder
) -> None:
    chunks = make_chunks("a", TEXTS)
    other = make_chunks("b", TEXTS)
    vectors = hashing_embedder.embed(TEXTS)
    index.upsert(chunks, vectors)
    index.upsert(other, vectors)
    stale = chunks[0]
    index.set_payload("a", [stale.id], {"superseded": True})
    # A write addressed to another namespace does not touch this one's points.
    index.set_payload("b", [chunks[1].id], {"superseded": True})

    q = vectors[:1]
    with_flagged = {h.chunk.id for h in index.search("a", q, 10)[0]}
    without = {h.chunk.id for h in index.search("a", q, 10, exclude_flagged=True)[0]}
    assert with_flagged == {c.id for c in chunks}
    assert without == {c.id for c in chunks[1:]}
    assert {h.chunk.id for h in index.search("b", q, 10, exclude_flagged=True)[0]} == {
        c.id for c in other
    }
    # The flag never leaks into the Chunk model; the chunk is kept, not deleted.
    assert index.fetch("a", [stale.id])[stale.id].chunk == stale
    assert index.count("a") == len(TEXTS)


def test_flag_records_are_listed_counted_and_cleared(
    index: MediumTermIndex, hashing_embedder: HashingEmbedder
) -> None:
    assert isinstance(index, FlagIndex)
    chunks = make_chunks("a", TEXTS)
    other = make_chunks("b", TEXTS)
    vectors = hashing_embedder.embed(TEXTS)
    index.upsert(chunks, vectors)
    index.upsert(other, vectors)
    record = {"stage": "supersession", "by_chunk": chunks[1].id, "keys": ["billing api / port"]}
    index.set_payload("a", [chunks[0].id], {SUPERSEDED_FLAG: True, FLAG_RECORD: record})
    index.set_payload("b", [other[2].id], {SUPERSEDED_FLAG: True, FLAG_RECORD: {}})
    ids = [c.id for c in chunks]
    assert index.flag_records("a", ids) == {chunks[0].id: record}
    assert index.flag_records("b", ids) == {}  # another namespace's ids are not read
    assert index.flagged("a") == [("a", chunks[0].id)]
    assert sorted(index.flagged()) == sorted([("a", chunks[0].id), ("b", other[2].id)])
    assert (index.count_flagged("a"), index.count_flagged("b")) == (1, 1)
    # the record never leaks into the Chunk model
    assert index.fetch("a", [chunks[0].id])[chunks[0].id].chunk == chunks[0]
    index.set_payload("a", [chunks[0].id], {SUPERSEDED_FLAG: False, FLAG_RECORD: None})
    assert index.flag_records("a", ids) == {} and index.count_flagged("a") == 0
    assert index.flagged("a") == []


def test_a_chunk_with_both_flags_is_counted_once(
    index: MediumTermIndex, hashing_embedder: HashingEmbedder
) -> None:
    assert isinstance(index, DominatedIndex) and isinstance(index, FlagIndex)
    chunks = make_chunks("a", TEXTS)
    index.upsert(chunks, hashing_embedder.embed(TEXTS))
    both, ledger_only, kappa_only, other_identity = (c.id for c in chunks[:4])
    index.set_payload("a", [both, ledger_only], {SUPERSEDED_FLAG: True})
    index.set_payload("a", [both, kappa_only], {DOMINATED_FLAG: "id-1"})
    index.set_payload("a", [other_identity], {DOMINATED_FLAG: "id-0"})
    assert index.count_dominated("a", "id-1") == 2
    # what the κ exclusion adds to the ledger's: only the chunk the ledger left in
    assert index.count_dominated("a", "id-1", unflagged=True) == 1
    assert index.count_flagged("a") + index.count_dominated("a", "id-1", unflagged=True) == 3


def test_persists_across_reopen(
    engine: str, tmp_path: Path, hashing_embedder: HashingEmbedder
) -> None:
    settings = disk_settings(tmp_path, engine)
    chunks = make_chunks("a", TEXTS)
    vectors = hashing_embedder.embed(TEXTS)
    first = open_index(settings.storage)
    first.upsert(chunks, vectors)
    first.set_payload("a", [chunks[0].id], {"superseded": True})
    first.close()

    reopened = open_index(settings.storage)
    try:
        assert reopened.count("a") == len(TEXTS)
        got = reopened.fetch("a", [chunks[2].id])[chunks[2].id]
        assert got.chunk == chunks[2]
        hits = reopened.search("a", vectors[:1], 10, exclude_flagged=True)[0]
        assert {h.chunk.id for h in hits} == {c.id for c in chunks[1:]}
        reopened.upsert(chunks, vectors)  # still idempotent after reopen
        assert reopened.count() == len(TEXTS)
    finally:
        reopened.close()


def test_dimension_mismatch_is_a_clear_error(
    engine: str, tmp_path: Path, hashing_embedder: HashingEmbedder
) -> None:
    settings = disk_settings(tmp_path, engine)
    chunks = make_chunks("a", TEXTS)
    idx = open_index(settings.storage)
    idx.upsert(chunks, hashing_embedder.embed(TEXTS))
    idx.close()

    reopened = open_index(settings.storage)
    try:
        with pytest.raises(ValueError, match="64-d vectors but the embedder makes 32-d"):
            reopened.ensure(32)
        with pytest.raises(ValueError, match="32-d"):
            reopened.upsert(make_chunks("a", ["x"], start=10), HashingEmbedder(32).embed(["x"]))
        assert reopened.count() == len(TEXTS), "the rejected write lost nothing"
    finally:
        reopened.close()


# --- Qdrant Edge specifics ---------------------------------------------------------------------


def test_edge_rejects_bad_vectors_before_writing(
    tmp_path: Path, hashing_embedder: HashingEmbedder
) -> None:
    idx = EdgeIndex(None, "c")
    try:
        chunks = make_chunks("a", TEXTS)
        vectors = hashing_embedder.embed(TEXTS)
        with pytest.raises(ValueError, match="one vector per chunk"):
            idx.upsert(chunks, vectors[:2])
        vectors[1, 0] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            idx.upsert(chunks, vectors)
        assert idx.count() == 0
        idx.upsert(chunks[:1], hashing_embedder.embed(TEXTS[:1]))
        with pytest.raises(ValueError, match="query vectors are 32-d"):
            idx.search("a", HashingEmbedder(32).embed(["x"]), 3)
    finally:
        idx.close()


def test_edge_in_memory_mode_leaves_nothing_behind(hashing_embedder: HashingEmbedder) -> None:
    idx = EdgeIndex(None, "c")
    idx.upsert(make_chunks("a", TEXTS), hashing_embedder.embed(TEXTS))
    workdir = idx.dir
    assert workdir.is_dir()
    idx.close()
    idx.close()  # idempotent
    assert not workdir.exists()
    with pytest.raises(EdgeIndexError, match="closed"):
        idx.count()


def test_edge_wal_recovers_writes_after_a_crash(tmp_path: Path) -> None:
    """A process that dies without flush or close loses no acknowledged write."""
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from tests.test_mtm import TEXTS, make_chunks
        from tests.doubles import HashingEmbedder
        from gcmem.storage.mtm.edge import EdgeIndex

        idx = EdgeIndex(Path({str(tmp_path)!r}), "c")
        chunks = make_chunks("a", TEXTS)
        idx.upsert(chunks, HashingEmbedder().embed(TEXTS))
        idx.set_payload("a", [chunks[0].id], {{"superseded": True}})
        os._exit(0)
        """
    )
    subprocess.run([sys.executable, "-c", script], cwd=REPO, check=True, timeout=120)
    idx = EdgeIndex(tmp_path, "c")
    try:
        assert idx.count("a") == len(TEXTS)
        flagged = make_chunks("a", TEXTS)[0].id
        q = HashingEmbedder().embed(TEXTS[:1])
        assert flagged not in {h.chunk.id for h in idx.search("a", q, 10, exclude_flagged=True)[0]}
    finally:
        idx.close()


def test_edge_second_opener_gets_a_clear_error(
    tmp_path: Path, hashing_embedder: HashingEmbedder
) -> None:
    first = EdgeIndex(tmp_path, "c")
    first.upsert(make_chunks("a", TEXTS), hashing_embedder.embed(TEXTS))
    try:
        with pytest.raises(EdgeIndexError, match="one writer at a time"):
            EdgeIndex(tmp_path, "c")
    finally:
        first.close()
    again = EdgeIndex(tmp_path, "c")  # the lock goes with close()
    assert again.count() == len(TEXTS)
    again.close()


def test_edge_ts_is_a_datetime_index_and_optimize_keeps_results(
    tmp_path: Path, hashing_embedder: HashingEmbedder
) -> None:
    import qdrant_edge as qe

    idx = EdgeIndex(tmp_path, "c")
    try:
        chunks = make_chunks("a", TEXTS)
        vectors = hashing_embedder.embed(TEXTS)
        idx.upsert(chunks, vectors)
        shard = idx._reader()
        assert shard is not None
        schema = shard.info().payload_schema
        assert schema["ts"].data_type == qe.PayloadSchemaType.Datetime
        assert schema["namespace"].data_type == qe.PayloadSchemaType.Keyword
        # ts is a real datetime field: a range filter on it selects by event time.
        later = qe.Filter(
            must=[qe.FieldCondition(key="ts", range=qe.RangeDateTime(gte="2026-01-05T10:00:00Z"))]
        )
        assert shard.count(qe.CountRequest(exact=True, filter=later)) == len(TEXTS) - 1
        before = [[h.chunk.id for h in r] for r in idx.search("a", vectors, 3)]
        idx.optimize()
        assert [[h.chunk.id for h in r] for r in idx.search("a", vectors, 3)] == before
    finally:
        idx.close()


@pytest.mark.skipif(os.name != "posix", reason="POSIX paths")
def test_edge_and_local_share_a_data_dir_without_clashing(
    tmp_path: Path, hashing_embedder: HashingEmbedder
) -> None:
    """Switching GCMEM_EMBEDDED_ENGINE on one data dir keeps each engine's files apart."""
    vectors = hashing_embedder.embed(TEXTS)
    for engine, texts in (("local", TEXTS), ("edge", TEXTS[:2])):
        idx = open_index(disk_settings(tmp_path, engine).storage)
        idx.upsert(make_chunks("a", texts), vectors[: len(texts)])
        idx.close()
    for engine, expected in (("local", 4), ("edge", 2)):
        idx = open_index(disk_settings(tmp_path, engine).storage)
        assert idx.count() == expected
        idx.close()


def test_edge_is_safe_to_share_between_threads(tmp_path: Path) -> None:
    """Memory's async twins run on worker threads: concurrent writes and reads on one shard
    lose nothing and never cross namespaces."""
    import threading

    idx = EdgeIndex(tmp_path, "c")
    rng = np.random.default_rng(0)
    per_writer = 200
    batches = {
        w: make_chunks(f"ns{w}", [f"fact {w}-{i}" for i in range(per_writer)]) for w in range(4)
    }
    vectors = {w: rng.standard_normal((per_writer, 16)).astype(np.float32) for w in batches}
    idx.upsert(batches[0][:1], vectors[0][:1])
    errors: list[BaseException] = []

    def write(w: int) -> None:
        try:
            for s in range(0, per_writer, 25):
                idx.upsert(batches[w][s : s + 25], vectors[w][s : s + 25])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def read() -> None:
        try:
            for j in range(100):
                for hits in idx.search("ns1", vectors[0][j % 10 : j % 10 + 2], 5):
                    assert all(h.chunk.namespace == "ns1" for h in hits)
                idx.set_payload("ns0", [batches[0][0].id], {"superseded": bool(j % 2)})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in batches]
    threads += [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        assert [idx.count(f"ns{w}") for w in batches] == [per_writer] * 4
    finally:
        idx.close()
