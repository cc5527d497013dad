"""The document-level filter core both framework adapters use (``gcmem.memory.documents``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from gcmem.filters.base import FilterOutcome, QueryContext
from gcmem.memory import Memory
from gcmem.memory.documents import (
    DocumentFilter,
    ExternalDocument,
    TimestampError,
    parse_timestamp,
)
from gcmem.models import Decision, ScoredChunk
from tests.conftest import make_settings
from tests.doubles import HashingEmbedder

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


# --- timestamps --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-03-02T09:00:00Z", T0),
        ("2026-03-02T10:00:00+01:00", T0),
        (T0, T0),
        (T0.astimezone(timezone(timedelta(hours=-5))), T0),
        (T0.timestamp(), T0),
        (int(T0.timestamp()), T0),
    ],
)
def test_parse_timestamp_accepts_aware_forms(value: object, expected: datetime) -> None:
    assert parse_timestamp(value) == expected


def test_parse_timestamp_naive_values_need_a_zone() -> None:
    for naive in ("2026-03-02T09:00:00", datetime(2026, 3, 2, 9), date(2026, 3, 2)):
        with pytest.raises(TimestampError, match="no time zone"):
            parse_timestamp(naive)
    assert parse_timestamp("2026-03-02T09:00:00", naive_tz=UTC) == T0
    assert parse_timestamp(date(2026, 3, 2), naive_tz=UTC) == T0.replace(hour=0)


@pytest.mark.parametrize("bad", ["yesterday", "", "2026-13-01", True, None, [1], float("nan")])
def test_parse_timestamp_rejects_garbage(bad: object) -> None:
    with pytest.raises(TimestampError):
        parse_timestamp(bad)


# --- the filter core, with a recording stage (logic only; real stages in the adapter tests) ---
class NewestPerWordStage:
    """Drops a chunk when a newer chunk shares its first word: enough structure to check the
    plumbing (positions, order independence, scratch isolation) without a model."""

    name = "newest-per-word"

    def __init__(self) -> None:
        self.seen: list[QueryContext] = []
        self.ingested: list[list[str]] = []

    def on_ingest(self, chunks: Sequence[object], vectors: object) -> None:
        self.ingested.append([c.text for c in chunks])  # type: ignore[attr-defined]

    def apply(self, candidates: Sequence[ScoredChunk], query: QueryContext) -> FilterOutcome:
        self.seen.append(query)
        kept, dropped = [], []
        for c in candidates:
            word = c.chunk.text.split()[0]
            newer = [
                o for o in candidates if o.chunk.text.split()[0] == word and o.chunk.ts > c.chunk.ts
            ]
            if newer:
                dropped.append(
                    Decision(chunk=c, stage=self.name, reason="newer", dominated_by=newer[0].id)
                )
            else:
                kept.append(c)
        return FilterOutcome(kept, dropped)


@pytest.fixture
def stage() -> NewestPerWordStage:
    return NewestPerWordStage()


@pytest.fixture
def doc_filter(tmp_path: Path, stage: NewestPerWordStage) -> DocumentFilter:
    return DocumentFilter(make_settings(tmp_path), embedder=HashingEmbedder(), filters=[stage])


def _docs() -> list[ExternalDocument]:
    return [
        ExternalDocument("port 8000", T0, score=0.9),
        ExternalDocument("licence Apache-2.0", T0, score=0.5),
        ExternalDocument("port 8080", T0 + timedelta(days=10), score=0.8),
        ExternalDocument("undated note", None),
        ExternalDocument("port 8000", T0, score=0.7),  # same document again (another retriever)
    ]


def test_positions_map_back_with_duplicates_and_undated(
    doc_filter: DocumentFilter, stage: NewestPerWordStage
) -> None:
    out = doc_filter.filter("which port?", _docs())
    assert out.kept_positions() == [1, 2, 3]
    assert [i for i, _ in out.dropped_positions()] == [0, 4]
    assert out.decision(0) is not None and out.decision(0) == out.decision(4)
    assert out.chunk_ids[3] is None
    # duplicates became one candidate with the best score; the undated one never entered
    assert out.result.candidates == 3
    dup = next(d for d in out.result.dropped)
    assert dup.chunk.score == pytest.approx(0.9)
    # the stage saw the query vector and a vector for every candidate
    ctx = stage.seen[-1]
    assert ctx.query_vector is not None and set(ctx.vectors) == set(c for c in out.chunk_ids if c)
    # the ingest side got the documents oldest first
    assert stage.ingested[-1][-1] == "port 8080"
    # results are reported in the documents' namespace, not the scratch one
    assert out.result.namespace == "external"
    assert all(d.chunk.chunk.namespace == "external" for d in out.result.dropped)


def test_ids_are_stable_and_order_does_not_matter(doc_filter: DocumentFilter) -> None:
    docs = _docs()
    a = doc_filter.filter("which port?", docs)
    b = doc_filter.filter("which port?", list(reversed(docs)))
    assert sorted(c for c in a.chunk_ids if c) == sorted(c for c in b.chunk_ids if c)
    kept_a = {docs[i].text for i in a.kept_positions()}
    kept_b = {list(reversed(docs))[i].text for i in b.kept_positions()}
    assert kept_a == kept_b


def test_caller_ids_identify_documents(doc_filter: DocumentFilter) -> None:
    same_text = [
        ExternalDocument("port 8000", T0, id="a"),
        ExternalDocument("port 8000", T0, id="b"),
    ]
    out = doc_filter.filter("q", same_text)
    assert out.chunk_ids[0] != out.chunk_ids[1]


def test_empty_query_is_an_error(doc_filter: DocumentFilter) -> None:
    with pytest.raises(ValueError, match="query is empty"):
        doc_filter.filter("  ", _docs())
    with pytest.raises(ValueError, match="timezone-aware"):
        doc_filter.filter("q", _docs(), as_of=datetime(2026, 1, 1))


def test_no_documents(doc_filter: DocumentFilter) -> None:
    out = doc_filter.filter("q", [])
    assert out.kept_positions() == [] and out.result.candidates == 0


class KeyWritingStage(NewestPerWordStage):
    """Writes a key per document into the scratch namespace, like a ledger does."""

    def __init__(self, flt: list[DocumentFilter]) -> None:
        super().__init__()
        self.flt = flt
        self.namespaces: list[str] = []

    def on_ingest(self, chunks: Sequence[object], vectors: object) -> None:
        f = self.flt[0]
        for c in chunks:
            ns = c.namespace  # type: ignore[attr-defined]
            self.namespaces.append(ns)
            f.redis.hset(f"{f.keys.namespace(ns)}:ledger", c.id, c.text)  # type: ignore[attr-defined]


def test_scratch_ledger_is_private_per_call_and_removed(tmp_path: Path) -> None:
    holder: list[DocumentFilter] = []
    stage = KeyWritingStage(holder)
    settings = make_settings(tmp_path)
    flt = DocumentFilter(settings, embedder=HashingEmbedder(), filters=[stage])
    holder.append(flt)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(5):
                flt.filter("which port?", _docs())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    # every call used its own namespace, and none of them is left behind
    assert len(set(stage.namespaces)) == 15
    assert list(flt.redis.scan_iter(match=f"{settings.storage.key_prefix}:*")) == []


def test_nothing_is_written_to_the_memory_store(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    memory = Memory(settings, embedder=HashingEmbedder(), filters=[], ingest_stages=[])
    before = sorted(memory.redis.scan_iter(match=f"{settings.storage.key_prefix}:*"))
    memory.filter_documents("which port?", _docs())
    after = sorted(memory.redis.scan_iter(match=f"{settings.storage.key_prefix}:*"))
    assert before == after
    assert memory.index.count() == 0


def test_memory_document_filter_is_built_once_by_stage_name(tmp_path: Path) -> None:
    memory = Memory(make_settings(tmp_path), embedder=HashingEmbedder())
    assert memory.document_filter() is memory.document_filter()
    assert memory.document_filter().embedder is memory.embedder


def test_unknown_stage_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown stage"):
        DocumentFilter(make_settings(tmp_path), embedder=HashingEmbedder(), filters=["nope"])


def test_hand_built_stages_need_an_explicit_document_filter(
    tmp_path: Path, stage: NewestPerWordStage
) -> None:
    memory = Memory(make_settings(tmp_path), embedder=HashingEmbedder(), filters=[stage])
    with pytest.raises(ValueError, match="pass a DocumentFilter"):
        memory.document_filter()
