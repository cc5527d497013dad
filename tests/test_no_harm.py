"""The default chain on the real models drops no still-true fact in each failure family that
made the previous default harmful, and still removes a stale value it can defend."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gcmem import Memory, Turn
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.models import chunk_id
from tests.conftest import default_memory

pytestmark = [pytest.mark.model]

T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)

# family -> (statements in time order, query); every statement is still true
STILL_TRUE = {
    "parallel_keys": (
        [
            "The staging database listens on port 5433.",
            "The production database listens on port 5432.",
            "Our son goes to Hillside Primary.",
            "Our daughter goes to Oakwood Academy.",
            # one subject and attribute, qualified apart (κ gives these >= 0.8 both ways)
            "The cart service in prod runs 8 pods.",
            "The cart service in staging runs 2 pods.",
            "The mobile repo's default branch is develop, PRs go there.",
            "The web repo's default branch is trunk, PRs go there.",
        ],
        "Which port does the production database listen on?",
    ),
    "elaborations": (
        [
            "My dog Biscuit is a border collie.",
            "Biscuit has a white patch over his left eye.",
            "Biscuit is terrified of fireworks and hides under the bed.",
        ],
        "Tell me about Biscuit.",
    ),
    "compatible_opposites": (
        [
            "I hate running on a treadmill at the gym.",
            "I love running trails in the hills on Sunday mornings.",
            # the objects qualified apart (κ: >= 0.8 both ways)
            "I hate treadmill running.",
            "I love trail running.",
        ],
        "Do I like running?",
    ),
    "multi_valued": (
        [
            "I speak Portuguese with my parents.",
            "I speak English at work.",
            "I have started speaking some Japanese with my tutor.",
        ],
        "Which languages do I speak?",
    ),
    "same_topic_unrelated": (
        [
            "The ledger service runs on port 9300.",
            "The ledger service only accepts traffic from the billing namespace.",
            "The ledger service is owned by the finance platform team.",
        ],
        "What network policy does the ledger service have?",
    ),
    "static_restated": (
        [
            "Our main database is PostgreSQL 15.",
            "The frontend is a Next.js app deployed on Vercel.",
            "Yes, the main database is still PostgreSQL 15.",
        ],
        "Which database do we use?",
    ),
    "long_paragraphs": (
        [
            "The Harbor Street office opened in 2012 with twelve engineers, most of them "
            "hired from the local university. It occupies two floors of a converted "
            "warehouse, with a rooftop terrace that the team uses for Friday lunches, and it "
            "still hosts the monthly meetup for the city's Python community.",
            "The Harbor Street office runs the company's support desk for Europe, staffed "
            "from eight in the morning to eight at night. Its engineers maintain the billing "
            "integrations, and two of them are on the on-call rotation every week, handing "
            "over to the New York office in the evening.",
        ],
        "What happens at the Harbor Street office?",
    ),
}


def _memory(tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str) -> Memory:
    return default_memory(tmp_path, embedder, nli_model_path)


def _turns(ns: str, texts: list[str]) -> list[Turn]:
    return [
        Turn(id=f"{ns}-{i}", namespace=ns, text=text, ts=T0 + timedelta(days=30 * i))
        for i, text in enumerate(texts)
    ]


@pytest.mark.parametrize("family", sorted(STILL_TRUE))
def test_default_chain_keeps_every_still_true_fact(
    family: str, tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str
) -> None:
    texts, query = STILL_TRUE[family]
    with _memory(tmp_path, embedder, nli_model_path) as memory:
        memory.ingest(_turns(family.replace("_", "-"), texts))
        result = memory.retrieve(query, namespace=family.replace("_", "-"), k=10)
    assert result.dropped == [], [(d.chunk.chunk.text, d.reason) for d in result.dropped]
    assert set(result.texts) == set(texts)


def test_default_chain_still_removes_a_stale_value(
    tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str
) -> None:
    texts = [
        "The payments service runs on port 8000.",
        "The project is licensed under Apache-2.0.",
        "The payments service runs on port 8080.",
    ]
    with _memory(tmp_path, embedder, nli_model_path) as memory:
        memory.ingest(_turns("pay", texts))
        result = memory.retrieve("Which port does the payments service run on?", namespace="pay")
    assert texts[0] not in result.texts
    assert texts[1] in result.texts and texts[2] in result.texts
    # the ledger decided it at ingest: flagged, and left out before top-k
    assert result.dropped == [] and result.excluded_at_write == 1


def test_default_chain_surfaces_a_pair_kappa_is_not_confident_about(
    tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str
) -> None:
    # "behind the internal load balancer" makes the older statement another key for the ledger:
    # κ alone would decide, and this checkpoint is below the calibration's precision-0.97
    # threshold, so both stay and the result names the pair (the reader sees both, dated)
    texts = [
        "The payments service runs on port 8000 behind the internal load balancer.",
        "The project is licensed under Apache-2.0.",
        "The payments service runs on port 8080.",
    ]
    with _memory(tmp_path, embedder, nli_model_path) as memory:
        memory.ingest(_turns("pay", texts))
        result = memory.retrieve("Which port does the payments service run on?", namespace="pay")
    assert result.dropped == [] and set(result.texts) == set(texts)
    (conflict,) = [c for c in result.conflicts if c.stage == "dominance"]
    assert conflict.older.chunk.turn_id == "pay-0" and conflict.newer.chunk.turn_id == "pay-2"
    assert conflict.score is not None and "below" in conflict.reason
    assert "P(contradiction)" in conflict.reason


def test_default_chain_removes_a_reworded_stale_value_and_keeps_the_rest(
    tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str
) -> None:
    texts = [
        "In the mobile repo the default branch is develop; open PRs against it.",
        "Releases are tagged with semantic version numbers like v4.2.0.",
        "Heads-up: the mobile repo's default branch is trunk now, please retarget any open PRs.",
    ]
    with _memory(tmp_path, embedder, nli_model_path) as memory:
        memory.ingest(_turns("repo", texts))
        result = memory.retrieve("What is the default branch of the mobile repo?", namespace="repo")
        # its decision names the frame, both values and the newer turn
        decision = memory.explain(chunk_id("repo", "repo-0", 0), namespace="repo")
    assert texts[0] not in result.texts
    assert texts[1] in result.texts and texts[2] in result.texts
    assert decision is not None and decision.dominated_by_turn_id == "repo-2"
    [assertion] = decision.details["assertions"]
    assert assertion["relation"] == "mobile repo's default branch is _"
    assert (assertion["object"], assertion["superseded_by"]["object"]) == ("develop", "trunk")


def test_default_chain_removes_an_announced_change_and_keeps_its_neighbours(
    tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str
) -> None:
    # old and new share no grammar key and no frame; the question anchors them
    texts = [
        "The ledger service listens on 7001 behind the mesh gateway.",
        "The ledger service only accepts traffic from the billing namespace.",
        "The ledger service's metrics exporter listens on 9100.",
        "Heads up: we moved the ledger service to port 7443 this morning.",
    ]
    with _memory(tmp_path, embedder, nli_model_path) as memory:
        memory.ingest(_turns("ann", texts))
        result = memory.retrieve("Which port does the ledger service listen on?", namespace="ann")
    assert texts[0] not in result.texts
    assert set(texts[1:]) <= set(result.texts)
    (decision,) = result.dropped
    assert decision.stage == "announced" and decision.dominated_by_turn_id == "ann-3"
    assert "7001 -> 7443" in decision.reason


# Reworded statements sharing a short local frame ("... default branch is _") around a
# qualifier that differs just outside it: parallel keys, never one ledger key.
REWORDED_PARALLEL_KEYS = [
    "In the mobile repo the default branch is develop; open PRs against it.",
    "Heads-up: the web repo's default branch is trunk now, please retarget any open PRs.",
    "For the staging database the port is 5433.",
    "The production database's port is 5432 these days.",
]


def test_frame_alignment_keeps_reworded_parallel_keys(
    tmp_path: Path, embedder: TransformerEmbedder, nli_model_path: str
) -> None:
    # the deterministic stage alone, on the real embedder's neighbours: it must key nothing
    # here (κ's own decisions on these pairs are the other tests' subject)
    with _memory(tmp_path, embedder, nli_model_path) as memory:
        memory.ingest(_turns("par", REWORDED_PARALLEL_KEYS))
        supersession = memory.filters[0]
        assert supersession.name == "supersession"
        query = "What is the default branch of the mobile repo?"
        result = memory.retrieve(query, namespace="par", filters=[supersession])
        flagged = [memory.explain(c.id, namespace="par") for c in result.kept]
    assert result.excluded_at_write == 0 and result.dropped == []
    assert set(result.texts) == set(REWORDED_PARALLEL_KEYS)
    assert flagged == [None] * len(REWORDED_PARALLEL_KEYS)
