"""Query over the bus: a ``QueryRequest`` in, a ``QueryReply`` (with the ``RetrievalResult``) out.

Requests go to a Redis list, so each is answered by exactly one of the serving processes
(FastStream's request/reply: the reply travels on a per-request channel). Errors come back
as a reply with ``ok=false`` instead of a timeout.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Literal, TypeVar

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator

from gcmem.filters.registry import build_filters
from gcmem.models import Namespace, RetrievalResult, lone_surrogate
from gcmem.pipeline.codec import describe_validation_error, printable
from gcmem.pipeline.metrics import PipelineMetrics
from gcmem.pipeline.runner import DeadlineExceeded, MemoryRunner, QueryOverloaded

MAX_QUERY_CHARS = 8192
T = TypeVar("T")


class QueryRequest(BaseModel):
    """One retrieval: the query, the namespace it may read, and options."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    namespace: Namespace | None = Field(
        default=None, description="The one namespace this request reads (default: GCMEM_NAMESPACE)."
    )
    k: int | None = Field(default=None, ge=1, le=1000, description="Top-k per query variant.")
    stm: bool = Field(default=True, description="Add the short-term buffer to the candidates.")
    as_of: AwareDatetime | None = Field(default=None, description="Read memory as of this time.")
    filters: list[str] | None = Field(
        default=None, description="Filter stage names, in order (default: the configured chain)."
    )

    # invalid -> HTTP 422, forbidden -> 403, busy -> 503, timeout -> 504, internal -> 500.
    @field_validator("query")
    @classmethod
    def _unicode_query(cls, value: str) -> str:
        pos = lone_surrogate(value)
        if pos is not None:
            raise ValueError(f"holds a lone surrogate U+{ord(value[pos]):04X} (not Unicode text)")
        return value


ErrorKind = Literal["invalid", "forbidden", "busy", "timeout", "internal"]


class QueryReply(BaseModel):
    ok: bool
    result: RetrievalResult | None = None
    error: str | None = None
    error_kind: ErrorKind | None = None


class QueryError(RuntimeError):
    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class QueryService:
    """Answers queries with the process's ``Memory`` (shared with its ingest worker, if any)."""

    def __init__(self, runner: MemoryRunner, metrics: PipelineMetrics) -> None:
        self.runner = runner
        self.memory = runner.memory
        self.metrics = metrics
        self.max_k = self.memory.settings.memory.max_k
        self.deadline_s = self.memory.settings.pipeline.query_deadline_s

    async def answer(self, request: QueryRequest) -> RetrievalResult:
        return await self._run(request, lambda result: result)

    async def _run(self, request: QueryRequest, render: Callable[[RetrievalResult], T]) -> T:
        """Retrieve in the query pool; ``render`` runs there too (serialising a large result
        is CPU work the event loop should not do)."""
        memory = self.memory
        t0 = time.perf_counter()
        if request.k is not None and request.k > self.max_k:
            raise ValueError(
                f"k={request.k} is above the maximum of {self.max_k} (GCMEM_MAX_K); "
                f"ask for at most {self.max_k}"
            )
        try:
            chain = (
                build_filters(request.filters, memory.resources)
                if request.filters is not None
                else None
            )
            rendered = await self.runner.query(
                lambda: render(
                    memory.retrieve(
                        request.query,
                        namespace=request.namespace,
                        k=request.k,
                        stm=request.stm,
                        as_of=request.as_of,
                        filters=chain,
                    )
                ),
                deadline_s=self.deadline_s,
            )
        except Exception as exc:
            counts = {"query_requests": 1, "query_errors": 1}
            if isinstance(exc, DeadlineExceeded):
                counts["query_timeouts"] = 1
            elif isinstance(exc, QueryOverloaded):
                counts["query_rejected_busy"] = 1
            await self._record(counts)
            raise
        await self._record({"query_requests": 1}, {"query": time.perf_counter() - t0})
        return rendered

    async def _record(
        self, counts: Mapping[str, int], latencies: Mapping[str, float] | None = None
    ) -> None:
        # Metrics are not worth failing an answer for (Redis may be what is down).
        with contextlib.suppress(Exception):
            await self.metrics.record(counts=counts, latencies_s=latencies)

    async def reply(self, body: QueryRequest | Mapping[str, Any]) -> QueryReply:
        """Validate a request body and answer it; every failure becomes an error reply."""
        outcome = await self._reply(body, lambda result: result)
        if isinstance(outcome, QueryReply):
            return outcome
        return QueryReply(ok=True, result=outcome)

    async def reply_json(self, body: QueryRequest | Mapping[str, Any]) -> bytes | QueryReply:
        """The ``RetrievalResult`` as JSON bytes, or the error reply (HTTP)."""
        return await self._reply(body, lambda result: result.model_dump_json().encode())

    async def _reply(
        self, body: QueryRequest | Mapping[str, Any], render: Callable[[RetrievalResult], T]
    ) -> T | QueryReply:
        try:
            request = QueryRequest.model_validate(body)
        except ValidationError as exc:
            await self._record({"query_requests": 1, "query_errors": 1})
            return QueryReply(ok=False, error=describe_validation_error(exc), error_kind="invalid")
        try:
            return await self._run(request, render)
        except DeadlineExceeded as exc:
            return QueryReply(
                ok=False,
                error=f"query deadline exceeded: {exc} (GCMEM_QUERY_DEADLINE_S); try a smaller "
                "k or fewer filter stages",
                error_kind="timeout",
            )
        except QueryOverloaded as exc:
            return QueryReply(ok=False, error=f"busy, retry later: {exc}", error_kind="busy")
        except ValueError as exc:  # bad namespace, unknown stage, naive as_of, k > max_k
            return QueryReply(ok=False, error=printable(str(exc)), error_kind="invalid")
        except Exception as exc:
            text = f"{type(exc).__name__}: {printable(str(exc))}"
            return QueryReply(ok=False, error=text, error_kind="internal")


def unwrap(reply: QueryReply) -> RetrievalResult:
    if not reply.ok or reply.result is None:
        raise QueryError(reply.error_kind or "internal", reply.error or "no result")
    return reply.result


def request_body(
    query: str,
    *,
    namespace: str | None = None,
    k: int | None = None,
    stm: bool = True,
    as_of: datetime | None = None,
    filters: list[str] | None = None,
) -> dict[str, Any]:
    """The JSON a client puts on the bus (validated here, so client mistakes fail early)."""
    req = QueryRequest(query=query, namespace=namespace, k=k, stm=stm, as_of=as_of, filters=filters)
    return req.model_dump(mode="json", exclude_none=True)
