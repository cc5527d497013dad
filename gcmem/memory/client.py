"""The interface an agent codes against, whether memory runs in its process or behind the bus.

``Memory`` (in process) and ``gcmem.integrations.bus.BusClient`` (a ``gcmem worker`` /
``gcmem serve`` fleet) both implement ``AsyncMemoryClient``: the same turn model in, the same
``RetrievalResult`` out, the way qdrant-client's local and remote modes share one API.
``Memory`` also has the sync twins (``MemoryClient``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from gcmem.models import RetrievalResult, Turn


@runtime_checkable
class MemoryClient(Protocol):
    def ingest(self, turns: Sequence[Turn]) -> Any: ...

    def retrieve(
        self,
        query: str,
        *,
        namespace: str | None = None,
        k: int | None = None,
        stm: bool = True,
        as_of: datetime | None = None,
    ) -> RetrievalResult: ...


@runtime_checkable
class AsyncMemoryClient(Protocol):
    async def aingest(self, turns: Sequence[Turn]) -> Any: ...

    async def aretrieve(
        self,
        query: str,
        *,
        namespace: str | None = None,
        k: int | None = None,
        stm: bool = True,
        as_of: datetime | None = None,
    ) -> RetrievalResult: ...
