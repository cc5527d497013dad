"""gcmem: garbage collection for agent memory.

An inference-time consistency filter between an agent's memory and its model: stale,
contradicted chunks are excised before generation; facts nothing contradicts survive.
"""

from gcmem.memory import AsyncMemoryClient, IngestReport, Memory, MemoryClient, TurnValidationError
from gcmem.models import Chunk, Conflict, Decision, Fact, RetrievalResult, ScoredChunk, Turn
from gcmem.settings import Settings, load_settings

__version__ = "0.1.0"

__all__ = [
    "AsyncMemoryClient",
    "Chunk",
    "Conflict",
    "Decision",
    "Fact",
    "IngestReport",
    "Memory",
    "MemoryClient",
    "RetrievalResult",
    "ScoredChunk",
    "Settings",
    "Turn",
    "TurnValidationError",
    "load_settings",
]
