"""A changing project memory shared by the framework integration tests.

Values change without recency words, as they do in real logs; the stale value is the majority
(two turns say port 8000, one says 8080), which is what makes plain top-k serve it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from gcmem.embedding import Embedder
from gcmem.memory import Memory
from gcmem.models import Turn
from tests.conftest import make_settings

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NAMESPACE = "proj"

# (day, text)
TIMELINE: list[tuple[int, str]] = [
    (0, "The payments service runs on port 8000."),
    (0, "The project is licensed under Apache-2.0."),
    (1, "We pin fastapi at 0.95.2 in requirements.txt."),
    (4, "The payments service runs on port 8000."),
    (6, "The staging database is called orders_stage."),
    (12, "The payments service runs on port 8080."),
    (14, "We pin fastapi at 0.110.0 in requirements.txt."),
]

PORT_QUESTION = "Which port does the payments service run on?"
STALE_PORT, CURRENT_PORT = "port 8000", "port 8080"
LICENCE_QUESTION = "What licence does the project use?"
LICENCE = "Apache-2.0"
LICENCE_TEXT = "The project is licensed under Apache-2.0."

# The real chain: deterministic supersession, then the NLI oracle and Φ_T.
CHAIN = ["supersession", "dominance"]


def turns(namespace: str = NAMESPACE) -> list[Turn]:
    return [
        Turn(
            id=f"t{i:02d}",
            namespace=namespace,
            session_id="s1",
            text=text,
            ts=T0 + timedelta(days=day, minutes=i),
        )
        for i, (day, text) in enumerate(TIMELINE)
    ]


def documents() -> list[tuple[str, datetime]]:
    """The same timeline as (text, event time), for other frameworks' stores."""
    return [(t.text, t.ts) for t in turns()]


def real_memory(tmp_path: Path, embedder: Embedder, nli_model: str) -> Memory:
    """Embedded engines, the real embedder, the real NLI oracle, the real stages."""
    settings = make_settings(
        tmp_path,
        namespace=NAMESPACE,
        filters=CHAIN,
        ingest=["supersession"],
        nli_model=nli_model,
        device="cpu",
        stm_size=0,
        # the adapters' drop records are the subject: stale chunks stay in the search, so
        # they are dropped (with reasons) after retrieval instead of excluded before it
        supersession_exclude=False,
    )
    memory = Memory(settings, embedder=embedder)
    memory.ingest(turns())
    return memory
