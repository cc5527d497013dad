"""The library facade (``Memory``) and what it is made of: candidate gathering over the index
and the short-term buffer, the filter chain, and filtering of other retrievers' documents."""

from gcmem.memory.facade import IngestReport, Memory, TurnValidationError

__all__ = ["IngestReport", "Memory", "TurnValidationError"]
