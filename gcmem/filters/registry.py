"""Setting names -> stage constructors, so settings can list stages (``GCMEM_FILTERS``,
``GCMEM_INGEST``).

A constructor receives the memory's ``Resources`` (one Redis client, one index, one embedder,
one oracle) and returns an object that is a ``CandidateFilter``, an ``IngestStage``, or both.
The registry maps names to constructors and holds nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gcmem.filters import (
    announced,
    baselines,
    dominance,
    dominance_gc,
    precompute,
    supersession,
)
from gcmem.filters.base import CandidateFilter, IngestStage
from gcmem.filters.resources import Resources

Constructor = Callable[[Resources], Any]

STAGES: dict[str, Constructor] = {
    supersession.STAGE: supersession.build,  # the ledger at ingest, the pre-filter at query time
    announced.STAGE: announced.build,  # newer announced values for the query's question
    dominance.STAGE: dominance.build,  # Φ_T over κ
    precompute.STAGE: precompute.build,  # κ verdicts for new chunks' neighbours, at ingest
    dominance_gc.STAGE: dominance_gc.build,  # κ write-time GC flags, at ingest
    baselines.TIMESTAMP_STAGE: baselines.build_timestamp,  # baseline rankers, for comparison
    baselines.MULTI_FACTOR_STAGE: baselines.build_multi_factor,
}


def build(name: str, resources: Resources) -> Any:
    """A new stage of the registered ``name``."""
    if name not in STAGES:
        raise ValueError(f"unknown stage {name!r}; known stages: {', '.join(known_stages())}")
    return STAGES[name](resources)


def build_chain(
    filters: Sequence[str | CandidateFilter],
    ingest: Sequence[str | IngestStage],
    resources: Resources,
) -> tuple[list[CandidateFilter], list[IngestStage]]:
    """The query-time filters and the ingest stages. Names are built, each distinct name once;
    stage objects are used as given. A filter that keeps its own state at ingest (the
    supersession ledger) is also an ingest stage, whether or not ``ingest`` names it too."""
    built: dict[str, Any] = {}

    def stage(spec: str | CandidateFilter | IngestStage) -> Any:
        if not isinstance(spec, str):
            return spec
        if spec not in built:
            built[spec] = build(spec, resources)
        return built[spec]

    query_stages = [stage(s) for s in filters]
    for spec, obj in zip(filters, query_stages, strict=True):
        if not isinstance(obj, CandidateFilter):
            raise ValueError(f"stage {spec!r} is not a query-time filter")
    ingest_stages = [stage(s) for s in ingest]
    for ingest_spec, obj in zip(ingest, ingest_stages, strict=True):
        if not isinstance(obj, IngestStage):
            raise ValueError(f"stage {ingest_spec!r} has no ingest side")
    return query_stages, with_ingest_sides(query_stages, ingest_stages)


def build_filters(names: Sequence[str], resources: Resources) -> list[CandidateFilter]:
    """Query-time filters by name (e.g. a per-request chain)."""
    return build_chain(names, [], resources)[0]


def with_ingest_sides(
    filters: Sequence[CandidateFilter], ingest: Sequence[IngestStage]
) -> list[IngestStage]:
    """``ingest`` plus every filter that has an ingest side, each object once."""
    out = list(ingest)
    for stage in filters:
        if isinstance(stage, IngestStage) and all(stage is not other for other in out):
            out.append(stage)
    return out


def known_stages() -> list[str]:
    return sorted(STAGES)
