"""Runs blocking ``Memory`` calls off the event loop, serialised where the engine needs it.

Ingest batches run in the default executor (``run``). Queries run in a bounded pool of their
own (``query``): at most ``workers`` at once plus ``queue`` waiting, each with a deadline. A
query past its deadline is answered at once (504); its thread cannot be interrupted, so it
keeps its slot (and, with the embedded engine, the engine lock) until it ends: the bound on
concurrent work holds even for abandoned queries. The pool's threads are daemons, so a stuck
query never keeps a stopping process alive (SIGTERM ends it within the shutdown timeout).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from gcmem.filters.base import work_deadline
from gcmem.memory import Memory

T = TypeVar("T")
# Share of a query's deadline its stages may spend before wrapping up (see ``query``).
WORK_FRACTION = 0.75


class QueryOverloaded(RuntimeError):
    """Every query slot (running and queued) is taken."""


class DeadlineExceeded(TimeoutError):
    """The work did not finish within its deadline."""


class EngineBusy(RuntimeError):
    """The embedded engine is held by a batch or a query (a health check does not wait)."""


class DaemonPool:
    """A fixed set of daemon threads taking callables from a queue."""

    def __init__(self, workers: int, name: str) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._queue.put((fn, future))
        return future

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            fn, future = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)

    def shutdown(self) -> None:
        """Stop taking work; threads in a call finish it (or die with the process)."""
        for _ in self._threads:
            self._queue.put(None)


class MemoryRunner:
    """The event loop must stay free for reads, heartbeats, health checks and RPC while a
    batch embeds or a query scores, so every ``Memory`` call runs in a thread. The in-process
    Qdrant engine is not thread-safe: with it, calls are serialised (``exclusive``); a Qdrant
    server takes them concurrently."""

    def __init__(
        self, memory: Memory, *, exclusive: bool, query_workers: int = 4, query_queue: int = 64
    ) -> None:
        self.memory = memory
        self._lock = asyncio.Lock() if exclusive else None
        self._query_pool: DaemonPool | None = None
        self._probe_pool: DaemonPool | None = None
        self.query_workers = query_workers
        self._slots = query_workers + query_queue
        self._in_use = 0

    @classmethod
    def for_memory(cls, memory: Memory) -> MemoryRunner:
        s = memory.settings
        return cls(
            memory,
            exclusive=s.storage.embedded_qdrant and s.pipeline.index == "local",
            query_workers=s.pipeline.query_workers,
            query_queue=s.pipeline.query_queue,
        )

    @property
    def busy(self) -> bool:
        """The engine lock is held (a batch or query is using the embedded engine)."""
        return self._lock is not None and self._lock.locked()

    @property
    def queries_in_flight(self) -> int:
        return self._in_use

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

    async def query(self, fn: Callable[[], T], *, deadline_s: float) -> T:
        """``fn`` in the query pool, answered within ``deadline_s`` or ``DeadlineExceeded``;
        ``QueryOverloaded`` at once when every slot is taken."""
        if self._in_use >= self._slots:
            raise QueryOverloaded(
                f"{self._in_use} queries are running or queued (the limit is {self._slots})"
            )
        if self._query_pool is None:
            self._query_pool = DaemonPool(self.query_workers, "gcmem-query")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + deadline_s
        self._in_use += 1
        locked = False
        try:
            if self._lock is not None:
                await asyncio.wait_for(self._lock.acquire(), timeout=deadline_s)
                locked = True
        except TimeoutError:
            self._in_use -= 1
            raise DeadlineExceeded(f"waited {deadline_s:g} s for the engine") from None
        except BaseException:
            self._in_use -= 1
            raise
        # The work itself is told to wrap up at 3/4 of the deadline (κ stops starting new
        # batches and reports what it left undone), so a heavy query still answers in time.
        work_s = deadline_s * WORK_FRACTION

        def bounded() -> T:
            with work_deadline(work_s):
                return fn()

        future = self._query_pool.submit(bounded)

        def release(_: object) -> None:
            self._in_use -= 1
            if locked and self._lock is not None:
                self._lock.release()

        def done(f: object) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (shutdown)
                loop.call_soon_threadsafe(release, f)

        # The slot (and the lock) go back when the thread is done, not when we stop waiting.
        future.add_done_callback(done)
        waiting = asyncio.wrap_future(future, loop=loop)
        # An abandoned query's outcome is nobody's: read it so it is not reported as lost.
        waiting.add_done_callback(lambda f: f.cancelled() or f.exception())
        try:
            return await asyncio.wait_for(
                asyncio.shield(waiting), timeout=max(deadline - loop.time(), 0.0)
            )
        except TimeoutError:
            raise DeadlineExceeded(f"not answered within {deadline_s:g} s") from None

    async def probe(self, fn: Callable[[], T], *, timeout_s: float) -> T:
        """A health check's engine call: never waits for the engine (``EngineBusy`` when a
        batch or query holds it) and gives up after ``timeout_s`` (``DeadlineExceeded``);
        the lock, if taken, goes back when the call ends, not when we stop waiting."""
        if self._lock is not None and self._lock.locked():
            raise EngineBusy("the engine is in use")
        if self._probe_pool is None:
            self._probe_pool = DaemonPool(1, "gcmem-probe")
        loop = asyncio.get_running_loop()
        lock = self._lock
        if lock is not None:
            try:  # free a moment ago; others may be queued for it, and we do not queue
                await asyncio.wait_for(lock.acquire(), timeout=0.05)
            except TimeoutError:
                raise EngineBusy("the engine is in use") from None
        future = self._probe_pool.submit(fn)

        def done(_: object) -> None:
            if lock is not None:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(lock.release)

        future.add_done_callback(done)
        waiting = asyncio.wrap_future(future, loop=loop)
        waiting.add_done_callback(lambda f: f.cancelled() or f.exception())
        try:
            return await asyncio.wait_for(asyncio.shield(waiting), timeout=timeout_s)
        except TimeoutError:
            raise DeadlineExceeded(f"no answer within {timeout_s:g} s") from None

    def close(self) -> None:
        for pool in (self._query_pool, self._probe_pool):
            if pool is not None:
                pool.shutdown()
        self._query_pool = self._probe_pool = None
