"""Name -> component factory, so settings can list stages (``GCMEM_FILTERS``, ``GCMEM_INGEST``).

A factory receives the shared ``Resources`` (one Redis client, one index, one embedder) and
returns an object that is a ``CandidateFilter``, an ``IngestStage``, or both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gcmem.embedding import Embedder
from gcmem.filters.base import CandidateFilter, IngestStage
from gcmem.mtm.index import MediumTermIndex
from gcmem.redis_backend import Keyspace, RedisClient
from gcmem.settings import Settings


@dataclass
class Resources:
    settings: Settings
    redis: RedisClient
    keys: Keyspace
    index: MediumTermIndex
    embedder: Embedder
    # Components built once and shared by the stages that need them (e.g. one oracle for the
    # dominance filter and the ingest-time precompute), keyed by name.
    shared: dict[str, Any] = field(default_factory=dict)

    def get_or_create(self, name: str, factory: Callable[[], Any]) -> Any:
        if name not in self.shared:
            self.shared[name] = factory()
        return self.shared[name]


Factory = Callable[[Resources], Any]
_FACTORIES: dict[str, Factory] = {}


def register(name: str) -> Callable[[Factory], Factory]:
    def decorator(factory: Factory) -> Factory:
        _FACTORIES[name] = factory
        return factory

    return decorator


def _load_builtin() -> None:
    # Importing the stage modules registers their factories.
    import gcmem.filters.stages  # noqa: F401


def build(name: str, resources: Resources) -> Any:
    _load_builtin()
    if name not in _FACTORIES:
        known = ", ".join(sorted(_FACTORIES)) or "none"
        raise ValueError(f"unknown stage {name!r}; known stages: {known}")
    return resources.get_or_create(f"stage:{name}", lambda: _FACTORIES[name](resources))


def build_filters(names: Sequence[str], resources: Resources) -> list[CandidateFilter]:
    stages = [build(n, resources) for n in names]
    for name, stage in zip(names, stages, strict=True):
        if not isinstance(stage, CandidateFilter):
            raise ValueError(f"stage {name!r} is not a query-time filter")
    return stages


def build_ingest_stages(names: Sequence[str], resources: Resources) -> list[IngestStage]:
    stages = [build(n, resources) for n in names]
    for name, stage in zip(names, stages, strict=True):
        if not isinstance(stage, IngestStage):
            raise ValueError(f"stage {name!r} has no ingest side")
    return stages


def known_stages() -> list[str]:
    _load_builtin()
    return sorted(_FACTORIES)
