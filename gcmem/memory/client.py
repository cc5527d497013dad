"""The interface an agent codes against, whether memory runs in its process or behind the bus.

Like qdrant-client's local and remote modes, one API whichever side memory runs on, in a sync
and an async twin:

- ``MemoryClient`` (``ingest``, ``retrieve``): ``Memory`` in process, ``SyncBusClient`` over
  the bus (a ``gcmem worker`` / ``gcmem serve`` fleet; ``gcmem.integrations.bus``);
- ``AsyncMemoryClient`` (``aingest``, ``aretrieve``): ``Memory`` in process, ``BusClient``
  over the bus.

The same turn model (``Turn``) in, the same ``RetrievalResult`` out. Ingest in process is done
when it returns; over the bus the turns are durable on the stream and a worker ingests them.
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
