"""The library facade (``Memory``) and what it is made of: candidate gathering over the index
and the short-term buffer, the filter chain, and filtering of other retrievers' documents."""

from gcmem.memory.client import AsyncMemoryClient, MemoryClient
from gcmem.memory.facade import IngestReport, Memory, TurnValidationError

__all__ = ["AsyncMemoryClient", "IngestReport", "Memory", "MemoryClient", "TurnValidationError"]
