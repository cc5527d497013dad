"""Runs blocking ``Memory`` calls off the event loop, serialised where the engine needs it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from gcmem.memory import Memory

T = TypeVar("T")


class MemoryRunner:
    """The event loop must stay free for reads, heartbeats and RPC while a batch embeds, so
    every ``Memory`` call runs in a thread. The in-process Qdrant engine is not thread-safe:
    with it, calls are serialised (``exclusive``); a Qdrant server takes them concurrently."""

    def __init__(self, memory: Memory, *, exclusive: bool) -> None:
        self.memory = memory
        self._lock = asyncio.Lock() if exclusive else None

    @classmethod
    def for_memory(cls, memory: Memory) -> MemoryRunner:
        s = memory.settings
        return cls(memory, exclusive=s.embedded_qdrant and s.pipeline_index == "local")

    @contextlib.asynccontextmanager
    async def _guard(self) -> AsyncIterator[None]:
        if self._lock is None:
            yield
        else:
            async with self._lock:
                yield

    async def run(self, fn: Callable[[], T]) -> T:
        async with self._guard():
            return await asyncio.to_thread(fn)
