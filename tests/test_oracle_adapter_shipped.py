"""The supersession adapter shipped for the offline NLI checkpoint: what it was trained on,
that ``GCMEM_ORACLE_ADAPTER=auto`` runs with it (it is opt-in), and what it decides on the
real models."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gcmem import Memory, Turn
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.oracle.adapter import SHIPPED_DIR, Adapter, active_adapter
from gcmem.oracle.fingerprint import WeightsFingerprint
from gcmem.settings import Settings
from tests.conftest import default_memory

T0 = datetime(2025, 2, 3, 9, 0, tzinfo=UTC)


def _shipped() -> list[Path]:
    return sorted(SHIPPED_DIR.glob("*.safetensors"))


def test_every_shipped_adapter_is_named_by_its_base_weights_and_trained_on_dev_only() -> None:
    files = _shipped()
    assert files, "the package ships the offline checkpoint's adapter"
    for path in files:
        meta = json.loads(path.with_suffix(".json").read_text())
        assert path.stem == meta["base_weights_sha256"] and len(path.stem) == 64
        adapter = Adapter.load(path)  # the tensors match the sha256 the metadata records
        assert 0 < adapter.surface_threshold <= adapter.threshold < 1
        # trained on development splits only: no held-out split's file among its data
        files_read = meta["data_files"]
        assert files_read and all("/dev" in name for name in files_read), files_read
        assert not any("test" in name for name in files_read)
        cv = meta["cross_validation"]
        chosen = [r for r in cv["pooled"] if r["threshold"] == round(adapter.threshold, 4)]
        assert chosen and chosen[0]["precision"] >= cv["precision_target"]


def _memory(
    tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str, *, kappa_only: bool = False
) -> Memory:
    """The shipped defaults with the adapter on (``GCMEM_ORACLE_ADAPTER=auto``);
    ``kappa_only``: no ledger keys at ingest (grammar, alignment), so κ's own decisions show."""
    ledger_off = {"supersession_grammar": False, "supersession_align": False}
    return default_memory(
        tmp_path,
        embedder,
        nli_model_path,
        oracle_adapter="auto",
        **(ledger_off if kappa_only else {}),
    )


def _turns(ns: str, texts: list[str]) -> list[Turn]:
    return [
        Turn(id=f"{ns}-{i}", namespace=ns, text=text, ts=T0 + timedelta(days=21 * i))
        for i, text in enumerate(texts)
    ]


@pytest.mark.model
def test_the_offline_checkpoint_runs_with_its_adapter_when_asked(
    tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str
) -> None:
    assert Settings().oracle.adapter == "none"  # opt-in
    weights = WeightsFingerprint().of(nli_model_path)
    assert (SHIPPED_DIR / f"{weights}.safetensors").is_file()
    with _memory(tmp_path, embedder, nli_model_path) as memory:
        adapter = active_adapter(memory.resources.oracle)
        assert adapter is not None and adapter.base_weights == weights
        assert memory.resources.oracle.threshold == adapter.threshold


@pytest.mark.model
def test_the_adapter_surfaces_a_pair_it_is_not_confident_about(
    tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str
) -> None:
    # A replacement worded unlike the older statement: no ledger key or frame joins them, and
    # P(supersedes) lands in the adapter's uncertain band (above the surface threshold, below
    # the drop threshold), so both stay and the result names the pair.
    texts = [
        "My physiotherapist is Dr. Hale at the Northside clinic.",
        "The project is licensed under Apache-2.0.",
        "Switched physios: I see Dr. Moreau now, Northside was too far.",
    ]
    with _memory(tmp_path, embedder, nli_model_path) as memory:
        memory.ingest(_turns("physio", texts))
        result = memory.retrieve("Who is my physiotherapist?", namespace="physio")
    assert result.dropped == [] and set(result.texts) == set(texts)
    (conflict,) = [c for c in result.conflicts if c.stage == "dominance"]
    assert (conflict.older.chunk.turn_id, conflict.newer.chunk.turn_id) == ("physio-0", "physio-2")
    assert conflict.score is not None and "P(supersedes)" in conflict.reason
    assert "below" in conflict.reason
    assert "may be superseded by" in result.context()


BAKERY = (
    "The Harbor Street bakery opens at {} on weekdays and sells rye loaves, croissants and a "
    "seasonal fruit tart. It is run by two sisters who took it over from their father."
)


@pytest.mark.model
def test_kappa_with_the_adapter_drops_a_revised_paragraph_and_says_why(
    tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str
) -> None:
    texts = [
        BAKERY.format("7 a.m."),
        "The bakery's owners also run a café on Quay Lane.",
        BAKERY.format("9 a.m."),
    ]
    with _memory(tmp_path, embedder, nli_model_path, kappa_only=True) as memory:
        dominance = next(f for f in memory.filters if f.name == "dominance")
        memory.ingest(_turns("bakery", texts))
        # κ alone (the stage the adapter changes), on the real candidates
        result = memory.retrieve(
            "When does the Harbor Street bakery open?", namespace="bakery", filters=[dominance]
        )
    [dropped] = result.dropped
    assert dropped.chunk.chunk.text == texts[0] and dropped.dominated_by_turn_id == "bakery-2"
    assert dropped.details["measure"] == "P(supersedes)"
    assert dropped.score is not None and dropped.score >= dropped.details["threshold"]
    assert set(result.texts) == {texts[1], texts[2]}


@pytest.mark.model
def test_kappa_with_the_adapter_keeps_still_true_facts_beside_a_change(
    tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str
) -> None:
    # an elaboration, a multi-valued attribute, compatible opposites and a parallel key, each
    # next to a statement κ could mistake for its replacement: κ alone drops none of them
    texts = [
        "Our dog Pepper is a border collie.",
        "I speak Spanish and some German.",
        "I hate running on the treadmill.",
        "The staging database listens on port 5433.",
        "Pepper has a small scar above her left eye from a fence.",
        "I've started learning Japanese too.",
        "I love trail running on weekends.",
        "The production database listens on port 5432.",
    ]
    with _memory(tmp_path, embedder, nli_model_path, kappa_only=True) as memory:
        dominance = next(f for f in memory.filters if f.name == "dominance")
        memory.ingest(_turns("mix", texts))
        for query in (
            "Tell me about Pepper.",
            "Which languages do I speak?",
            "Do I like running?",
            "Which port does the database listen on?",
        ):
            result = memory.retrieve(query, namespace="mix", k=8, filters=[dominance])
            assert result.dropped == [], [(d.chunk.chunk.text, d.reason) for d in result.dropped]
