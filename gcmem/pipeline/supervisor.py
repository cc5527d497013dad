"""Background tasks that cannot die silently: restarted on any exception, with backoff.

A worker whose reclaim loop has died still looks alive (it answers pings, its subscriber
reads new entries) while nothing takes over a dead consumer's entries. So every background
loop runs under ``Supervisor``: an exception is logged, counted (``task_restarts:<name>`` in
the metrics hash, ``gcmem_pipeline_task_restarts_total``), and the loop starts again after an
exponential backoff; ``/healthz`` and ``/readyz`` report each task's state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from gcmem.pipeline.codec import printable
from gcmem.pipeline.metrics import PipelineMetrics

log = logging.getLogger(__name__)

TaskLoop = Callable[[asyncio.Event], Awaitable[None]]
TaskStatus = Literal["running", "restarting", "stopped", "dead"]


@dataclass
class TaskState:
    name: str
    status: TaskStatus = "running"
    restarts: int = 0
    last_error: str | None = None
    last_error_at: float | None = None

    def view(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "restarts": self.restarts,
            "last_error": self.last_error,
            "last_error_age_s": (
                round(time.time() - self.last_error_at, 1)
                if self.last_error_at is not None
                else None
            ),
        }


class Supervisor:
    """Runs named loops until ``stop`` is set; a loop that raises (or returns early) is
    restarted after ``initial_backoff_s``, doubling up to ``max_backoff_s``; a loop that ran
    ``healthy_after_s`` without failing starts again from the initial backoff."""

    def __init__(
        self,
        metrics: PipelineMetrics | None,
        stop: asyncio.Event,
        *,
        initial_backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
        healthy_after_s: float = 60.0,
    ) -> None:
        self.metrics = metrics
        self.stop = stop
        self.initial_backoff_s = initial_backoff_s
        self.max_backoff_s = max_backoff_s
        self.healthy_after_s = healthy_after_s
        self.states: dict[str, TaskState] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def spawn(self, name: str, loop: TaskLoop) -> asyncio.Task[None]:
        state = self.states[name] = TaskState(name)
        task = asyncio.create_task(self._supervise(state, loop), name=f"gcmem-{name}")
        self.tasks[name] = task
        return task

    async def _supervise(self, state: TaskState, loop: TaskLoop) -> None:
        backoff = self.initial_backoff_s
        try:
            while not self.stop.is_set():
                state.status = "running"
                started = time.monotonic()
                try:
                    await loop(self.stop)
                    if self.stop.is_set():
                        break
                    raise RuntimeError("the loop returned while the process runs")
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    if time.monotonic() - started >= self.healthy_after_s:
                        backoff = self.initial_backoff_s
                    state.status = "restarting"
                    state.restarts += 1
                    state.last_error = f"{type(exc).__name__}: {printable(str(exc), 500)}"
                    state.last_error_at = time.time()
                    log.error(
                        "background task %s failed (restart %d in %.1f s): %s",
                        state.name,
                        state.restarts,
                        backoff,
                        state.last_error,
                        exc_info=exc,
                    )
                    await self._count(state.name)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.stop.wait(), timeout=backoff)
                    backoff = min(backoff * 2, self.max_backoff_s)
        except asyncio.CancelledError:
            state.status = "stopped" if self.stop.is_set() else "dead"
            raise
        state.status = "stopped"

    async def _count(self, name: str) -> None:
        if self.metrics is None:
            return
        try:
            await self.metrics.record(counts={f"task_restarts:{name}": 1})
        except Exception as exc:  # Redis may be what failed; the local count is kept
            log.debug("could not record the restart of %s: %r", name, exc)

    def report(self) -> dict[str, dict[str, Any]]:
        for name, task in self.tasks.items():
            state = self.states[name]
            if task.done() and state.status not in ("stopped", "dead"):
                state.status = "dead"  # ended without the supervisor noticing (cancelled)
        return {name: state.view() for name, state in self.states.items()}

    @property
    def alive(self) -> bool:
        """No task is dead (restarting ones are alive: they come back by themselves)."""
        return all(v["status"] != "dead" for v in self.report().values())

    @property
    def ready(self) -> bool:
        return all(v["status"] == "running" for v in self.report().values())

    async def join(self, timeout: float) -> None:
        """Wait for the tasks to finish after ``stop`` is set; cancel what does not."""
        tasks = list(self.tasks.values())
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=timeout)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=1.0)
