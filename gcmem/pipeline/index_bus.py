"""The medium-term index over the bus, for embedded deployments with several processes.

The embedded Qdrant engine lives inside one process. ``gcmem serve --host-index`` answers
index requests on a Redis list with that engine; workers started with
``GCMEM_PIPELINE_INDEX=bus`` use ``BusIndex``, a ``MediumTermIndex`` whose calls are those
requests. Embedding, the expensive part, then scales over worker processes while one engine
keeps one copy of the index. Deployments with a Qdrant server do not need this: every process
talks to the server.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from faststream.redis import RedisBroker

from gcmem.models import Chunk
from gcmem.pipeline.runner import MemoryRunner
from gcmem.storage.mtm.index import Hit, MediumTermIndex


class IndexBusError(RuntimeError):
    """The index host answered with an error, or did not answer in time."""


def encode_array(arr: np.ndarray) -> dict[str, Any]:
    arr = np.ascontiguousarray(arr, dtype=np.float32)
    return {"shape": list(arr.shape), "f32": base64.b64encode(arr.tobytes()).decode()}


def decode_array(data: Mapping[str, Any]) -> np.ndarray:
    raw = base64.b64decode(data["f32"])
    return np.frombuffer(raw, dtype=np.float32).reshape(data["shape"]).copy()


def _encode_hit(hit: Hit) -> dict[str, Any]:
    return {
        "chunk": hit.chunk.model_dump(mode="json"),
        "score": hit.score,
        "vector": encode_array(hit.vector) if hit.vector is not None else None,
    }


def _decode_hit(data: Mapping[str, Any]) -> Hit:
    vector = decode_array(data["vector"]) if data.get("vector") else None
    return Hit(Chunk.model_validate(data["chunk"]), float(data["score"]), vector)


class IndexHost:
    """Serves index requests with a local engine, serialised with the process's own calls."""

    def __init__(self, runner: MemoryRunner, index: MediumTermIndex) -> None:
        self.runner = runner
        self.index = index

    async def handle(self, body: Mapping[str, Any]) -> dict[str, Any]:
        try:
            result = await self.runner.run(lambda: self._dispatch(body))
        except Exception as exc:
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        return {"ok": True, "result": result}

    def _dispatch(self, body: Mapping[str, Any]) -> Any:
        op = body.get("op")
        index = self.index
        if op == "ensure":
            index.ensure(int(body["dim"]))
            return None
        if op == "upsert":
            chunks = [Chunk.model_validate(c) for c in body["chunks"]]
            index.upsert(chunks, decode_array(body["vectors"]))
            return None
        if op == "search":
            hits = index.search(
                body["namespace"],
                decode_array(body["queries"]),
                int(body["k"]),
                exclude_flagged=bool(body.get("exclude_flagged")),
                exclude_dominated=body.get("exclude_dominated"),
            )
            return [[_encode_hit(h) for h in per_query] for per_query in hits]
        if op == "fetch":
            found = index.fetch(body["namespace"], list(body["ids"]))
            return {cid: _encode_hit(h) for cid, h in found.items()}
        if op == "set_payload":
            index.set_payload(body["namespace"], list(body["ids"]), dict(body["payload"]))
            return None
        if op == "count":
            return index.count(body.get("namespace"))
        raise ValueError(f"unknown index operation {op!r}")


class BusIndex:
    """``MediumTermIndex`` whose every call is a request to the index host.

    Its methods are blocking, like every index's: they are called from worker threads
    (``MemoryRunner``) and run their request on the process's event loop.
    """

    def __init__(
        self,
        broker: RedisBroker,
        loop: asyncio.AbstractEventLoop,
        requests: str,
        *,
        timeout_s: float = 30.0,
    ) -> None:
        self.broker = broker
        self.loop = loop
        self.requests = requests
        self.timeout_s = timeout_s

    def _call(self, op: str, **args: Any) -> Any:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            raise RuntimeError("BusIndex blocks: call it from a worker thread, not the loop")
        future = asyncio.run_coroutine_threadsafe(self._request({"op": op, **args}), self.loop)
        return future.result(timeout=self.timeout_s + 5)

    async def _request(self, body: dict[str, Any]) -> Any:
        try:
            msg = await self.broker.request(body, list=self.requests, timeout=self.timeout_s)
        except TimeoutError as exc:
            raise IndexBusError(
                f"no index host answered on {self.requests!r} within {self.timeout_s} s "
                "(is `gcmem serve --host-index` running on this Redis and key prefix?)"
            ) from exc
        reply = await msg.decode()
        if not isinstance(reply, dict) or not reply.get("ok"):
            error = reply.get("error") if isinstance(reply, dict) else reply
            raise IndexBusError(f"index host: {error}")
        return reply.get("result")

    def ensure(self, dim: int) -> None:
        self._call("ensure", dim=dim)

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        if not chunks:
            return
        self._call(
            "upsert",
            chunks=[c.model_dump(mode="json") for c in chunks],
            vectors=encode_array(vectors),
        )

    def search(
        self,
        namespace: str,
        queries: np.ndarray,
        k: int,
        *,
        exclude_flagged: bool = False,
        exclude_dominated: str | None = None,
    ) -> list[list[Hit]]:
        rows = self._call(
            "search",
            namespace=namespace,
            queries=encode_array(queries),
            k=k,
            exclude_flagged=exclude_flagged,
            exclude_dominated=exclude_dominated,
        )
        return [[_decode_hit(h) for h in per_query] for per_query in rows]

    def fetch(self, namespace: str, ids: Sequence[str]) -> dict[str, Hit]:
        if not ids:
            return {}
        rows = self._call("fetch", namespace=namespace, ids=list(ids))
        return {cid: _decode_hit(h) for cid, h in rows.items()}

    def set_payload(self, namespace: str, ids: Sequence[str], payload: Mapping[str, Any]) -> None:
        if ids:
            self._call("set_payload", namespace=namespace, ids=list(ids), payload=dict(payload))

    def count(self, namespace: str | None = None) -> int:
        return int(self._call("count", namespace=namespace))

    def close(self) -> None:
        """The host owns the engine; a client has nothing to close."""
