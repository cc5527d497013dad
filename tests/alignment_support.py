"""Shared by the frame-alignment tests that run through ``Memory``."""

from __future__ import annotations

from gcmem.embedding import Embedder
from gcmem.memory import Memory
from gcmem.models import RetrievalResult
from gcmem.settings import Settings


def alignment_memory(settings: Settings, embedder: Embedder, **over: object) -> Memory:
    """The supersession stage alone, STM off; the read-time decisions are the subject, so
    flagged chunks stay in the search."""
    s = settings.replace(filters=["supersession"], stm_size=0, supersession_exclude=False, **over)
    return Memory(s, embedder=embedder)


def outcome(result: RetrievalResult) -> dict[str, str]:
    """Turn id -> "kept" / "dropped"."""
    out = {c.chunk.turn_id: "kept" for c in result.kept}
    out.update({d.chunk.chunk.turn_id: "dropped" for d in result.dropped})
    return out


def stale_lines(result: RetrievalResult) -> dict[str, list[str]]:
    """Turn id -> the statements its kept chunk is noted stale in."""
    return {c.chunk.turn_id: [s.text for s in c.stale_sentences] for c in result.kept}
