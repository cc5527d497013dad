"""Where the pipeline's messages live: stream, group, consumer, dead letters, request lists."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass

from gcmem.settings import PipelineSettings
from gcmem.storage.redis import Keyspace


def default_consumer_name() -> str:
    # Unique per process start: a restarted worker must not inherit a dead one's pending
    # entries by name (XAUTOCLAIM moves them explicitly, with their delivery counts).
    host = "".join(c if c.isalnum() or c in "-_." else "-" for c in socket.gethostname())[:48]
    return f"{host or 'host'}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


@dataclass(frozen=True)
class Topology:
    """Names of every Redis object the pipeline reads or writes."""

    keys: Keyspace
    stream: str
    group: str
    consumer: str

    @classmethod
    def from_settings(
        cls, pipeline: PipelineSettings, keys: Keyspace, consumer: str | None = None
    ) -> Topology:
        return cls(
            keys=keys,
            stream=pipeline.stream or keys.turn_stream(),
            group=pipeline.group,
            consumer=consumer or pipeline.consumer or default_consumer_name(),
        )

    @property
    def dead_letters(self) -> str:
        return self.keys.dead_letters(self.stream)

    @property
    def failures(self) -> str:
        return self.keys.pipeline_failures()

    @property
    def metrics(self) -> str:
        return self.keys.pipeline_metrics()

    @property
    def members(self) -> str:
        """Hash: consumer name -> JSON of each running pipeline process (roles, pid, start)."""
        return f"{self.keys.pipeline()}:members"

    @property
    def query_requests(self) -> str:
        return self.keys.query_requests()

    @property
    def index_requests(self) -> str:
        return self.keys.index_requests()
