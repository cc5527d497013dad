"""Query-time filter stages (supersession pre-filter, temporal dominance, baselines) and the
ingest-side components that feed them (the ledger)."""

from gcmem.filters.base import CandidateFilter, FilterOutcome, IngestStage, QueryContext

__all__ = ["CandidateFilter", "FilterOutcome", "IngestStage", "QueryContext"]
