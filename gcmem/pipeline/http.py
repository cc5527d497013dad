"""The HTTP interface, for clients that do not speak Redis (FastStream's ASGI support).

- ``POST /v1/turns``: one Turn or a list of them -> published to the turn stream (202); the
  workers ingest them like any other entry. All-or-nothing: one invalid turn -> 422 listing
  every problem, nothing published.
- ``POST /v1/query``: a ``QueryRequest`` -> the ``RetrievalResult`` JSON.
- ``GET /v1/why?chunk_id=ID&namespace=NS``: why a chunk is superseded (the decision record
  write-time GC flagged it by, as a read-time drop gives it) -> ``{"chunk_id", "namespace",
  "superseded", "decision"}``; 404 for a chunk the namespace does not hold. Auth as for queries.
- ``POST /v1/ledger/confirm``: a ``ConfirmRequest`` -> promote (or reject) the value held
  pending on a confirm-policy key; the ``ConfirmResult`` JSON (``outcome`` "none" when nothing
  was held, "mismatch" when ``object`` is no longer the held value).
- ``GET /healthz``: liveness: Redis answers and no background task is dead -> 200, else 503;
  the index check never waits behind a running batch or query ("busy" is healthy).
- ``GET /readyz``: readiness: started, Redis answers, every background task running (none
  restarting) -> 200, else 503.
- ``GET /metrics``: Prometheus text.

Bodies are read strictly (``codec.strict_json``): over ``GCMEM_HTTP_MAX_BODY_BYTES`` -> 413;
not UTF-8, not strict JSON (NaN, Infinity), lone surrogates, nesting deeper than
``GCMEM_MAX_JSON_DEPTH`` -> 400; schema problems and k above ``GCMEM_MAX_K`` -> 422; a full
query pool -> 503; a query past ``GCMEM_QUERY_DEADLINE_S`` -> 504. A 500 (FastStream's handler
wrapper turns any exception into one, logged) means a gcmem bug.

Auth (optional): ``Authorization: Bearer <token>``. ``GCMEM_HTTP_TOKEN`` opens every namespace
and the metrics; a ``GCMEM_HTTP_NAMESPACE_TOKENS`` token opens only its own namespace, so one
tenant's token cannot read or write another's memory.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from faststream.asgi import AsgiResponse, Request, get, post
from faststream.asgi.request import ClientDisconnectError
from faststream.asgi.types import ASGIApp
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gcmem.models import Namespace, Turn
from gcmem.pipeline.codec import JsonRejected, describe_validation_error, printable, strict_json
from gcmem.pipeline.query import QueryRequest
from gcmem.pipeline.runner import EngineBusy
from gcmem.settings import HttpSettings

M = TypeVar("M", bound=BaseModel)

if TYPE_CHECKING:
    from gcmem.pipeline.app import PipelineRuntime

log = logging.getLogger(__name__)

JSON = {"content-type": "application/json"}
MAX_TURNS_PER_REQUEST = 10_000


class ConfirmRequest(BaseModel):
    """A confirmation call for a key under the confirm policy."""

    model_config = ConfigDict(extra="forbid")

    namespace: Namespace | None = None
    subject: str = Field(min_length=1, max_length=512)
    relation: str = Field(min_length=1, max_length=256)
    object: str | None = Field(
        default=None, max_length=2048, description="The held value meant (guards a race)."
    )
    reject: bool = False
    by: str = Field(default="http", min_length=1, max_length=256, description="For the audit.")


def _json(data: Any, status: int = 200) -> AsgiResponse:
    return AsgiResponse(json.dumps(data).encode(), status_code=status, headers=JSON)


def _error(status: int, message: str, **extra: Any) -> AsgiResponse:
    return _json({"error": message, **extra}, status)


class HttpAuth:
    """Bearer-token checks. No tokens configured = no auth (bind to loopback, the default)."""

    def __init__(self, http: HttpSettings) -> None:
        self.global_token = http.token.get_secret_value() if http.token is not None else None
        self.namespace_tokens = {
            ns: tok.get_secret_value() for ns, tok in http.namespace_tokens.items()
        }

    @property
    def enabled(self) -> bool:
        return self.global_token is not None or bool(self.namespace_tokens)

    @staticmethod
    def _presented(request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        return token.strip() if scheme.lower() == "bearer" and token.strip() else None

    def check(self, request: Request, namespaces: Iterable[str] | None) -> AsgiResponse | None:
        """None if allowed; else the 401/403 response. ``namespaces=None``: admin only."""
        if not self.enabled:
            return None
        token = self._presented(request)
        if token is None:
            return _error(401, "missing bearer token")
        if self.global_token is not None and hmac.compare_digest(token, self.global_token):
            return None
        if namespaces is None:
            return _error(403, "this endpoint needs the GCMEM_HTTP_TOKEN token")
        for ns in set(namespaces):
            expected = self.namespace_tokens.get(ns)
            if expected is None or not hmac.compare_digest(token, expected):
                return _error(403, f"token does not grant namespace {ns!r}")
        return None


async def _read_body(request: Request, limit: int) -> bytes | AsgiResponse:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return _error(413, f"body is {declared} bytes; the limit is {limit}")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                return _error(413, f"body exceeds the limit of {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnectError:
        return _error(400, "client disconnected")
    return b"".join(chunks)


async def _read_model(
    request: Request, model: type[M], limit: int, max_depth: int
) -> M | AsgiResponse:
    """A request body as ``model``: 400/413 from the reader, 422 with the schema problem."""
    data = await _read_json(request, limit, max_depth)
    if isinstance(data, AsgiResponse):
        return data
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        return _error(422, describe_validation_error(exc))


async def _read_json(request: Request, limit: int, max_depth: int) -> Any | AsgiResponse:
    body = await _read_body(request, limit)
    if isinstance(body, AsgiResponse):
        return body
    try:
        return strict_json(body, max_depth=max_depth)
    except JsonRejected as exc:
        return _error(400, exc.reason, kind=exc.kind)


# Query reply error kinds -> HTTP status.
STATUS = {"invalid": 422, "forbidden": 403, "busy": 503, "timeout": 504, "internal": 500}


def http_routes(runtime: PipelineRuntime) -> list[tuple[str, ASGIApp]]:
    settings = runtime.settings
    auth = HttpAuth(settings.http)
    limit = settings.http.max_body_bytes
    depth = settings.pipeline.max_json_depth
    if not auth.enabled and settings.http.host not in ("127.0.0.1", "localhost", "::1"):
        log.warning(
            "HTTP on %s without tokens: anyone who reaches it reads and writes every namespace "
            "(set GCMEM_HTTP_TOKEN or GCMEM_HTTP_NAMESPACE_TOKENS)",
            settings.http.host,
        )

    @post(description="Publish one Turn or a JSON list of Turns to the turn stream (202).")
    async def post_turns(scope: Any, request: Request) -> AsgiResponse:
        unauthenticated = auth.check(request, [])  # 401 before reading anything
        if unauthenticated is not None:
            return unauthenticated
        data = await _read_json(request, limit, depth)
        if isinstance(data, AsgiResponse):
            return data
        items = data if isinstance(data, list) else [data]
        if not items or len(items) > MAX_TURNS_PER_REQUEST:
            return _error(422, f"send 1 to {MAX_TURNS_PER_REQUEST} turns per request")
        memory = runtime.memory
        if memory is None:
            return _error(503, "starting")
        turns: list[Turn] = []
        problems: list[dict[str, Any]] = []
        for pos, item in enumerate(items):
            if not isinstance(item, dict):
                problems.append({"index": pos, "error": "not a JSON object"})
                continue
            try:
                turns.append(memory.validate([item])[0])
            except Exception as exc:  # TurnValidationError carries the pydantic error
                err = getattr(exc, "error", exc)
                text = (
                    describe_validation_error(err)
                    if isinstance(err, ValidationError)
                    else printable(str(err))
                )
                problems.append({"index": pos, "error": text})
        if problems:
            return _error(422, "invalid turns; nothing was published", problems=problems)
        denied = auth.check(request, [t.namespace for t in turns])
        if denied is not None:
            return denied
        stream = runtime.topology.stream
        ids = []
        for turn in turns:
            entry_id = await runtime.broker.publish(turn.model_dump(mode="json"), stream=stream)
            ids.append(entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id))
        return _json({"accepted": len(ids), "stream": stream, "ids": ids}, 202)

    @post(description="Retrieve the filtered context: a QueryRequest in, a RetrievalResult out.")
    async def post_query(scope: Any, request: Request) -> AsgiResponse:
        unauthenticated = auth.check(request, [])
        if unauthenticated is not None:
            return unauthenticated
        query = await _read_model(request, QueryRequest, limit, depth)
        if isinstance(query, AsgiResponse):
            return query
        denied = auth.check(request, [query.namespace or settings.memory.namespace])
        if denied is not None:
            return denied
        if runtime.queries is None:
            return _error(503, "starting")
        reply = await runtime.queries.reply_json(query)
        if isinstance(reply, bytes):
            return AsgiResponse(reply, headers=JSON)
        kind = reply.error_kind or "internal"
        extra = {"retry_after_s": 1} if kind == "busy" else {}
        return _error(STATUS.get(kind, 500), reply.error or "query failed", kind=kind, **extra)

    @get(description="Why a chunk is superseded: ?chunk_id=ID&namespace=NS -> its Decision.")
    async def get_why(scope: Any, request: Request) -> AsgiResponse:
        unauthenticated = auth.check(request, [])
        if unauthenticated is not None:
            return unauthenticated
        params = request.query_params
        chunk_id = (params.get("chunk_id") or [""])[0]
        namespace = (params.get("namespace") or [settings.memory.namespace])[0]
        if not chunk_id:
            return _error(422, "chunk_id is required")
        denied = auth.check(request, [namespace])
        if denied is not None:
            return denied
        memory = runtime.memory
        if memory is None or runtime.runner is None:
            return _error(503, "starting")
        try:
            decision = await runtime.runner.run(
                lambda: memory.explain(chunk_id, namespace=namespace)
            )
        except KeyError as exc:
            return _error(404, str(exc.args[0]))
        except ValueError as exc:  # an invalid namespace
            return _error(422, str(exc))
        body = {
            "chunk_id": chunk_id,
            "namespace": namespace,
            "superseded": decision is not None,
            "decision": decision.model_dump(mode="json") if decision is not None else None,
        }
        return _json(body)

    @post(description="Promote or reject a value held pending confirmation (confirm policy).")
    async def post_confirm(scope: Any, request: Request) -> AsgiResponse:
        unauthenticated = auth.check(request, [])
        if unauthenticated is not None:
            return unauthenticated
        req = await _read_model(request, ConfirmRequest, limit, depth)
        if isinstance(req, AsgiResponse):
            return req
        ns = req.namespace or settings.memory.namespace
        denied = auth.check(request, [ns])
        if denied is not None:
            return denied
        memory = runtime.memory
        if memory is None or runtime.runner is None:
            return _error(503, "starting")
        result = await runtime.runner.run(
            lambda: memory.confirm(
                req.subject, req.relation, req.object, namespace=ns, by=req.by, reject=req.reject
            )
        )
        return _json(
            {
                "namespace": ns,
                "outcome": result.outcome,
                "fact_id": result.fact_id,
                "object": result.object,
                "closed_chunks": list(result.closed_chunks),
            }
        )

    async def _checks() -> tuple[dict[str, Any], bool]:
        """(body, Redis answered). Bounded: a check never takes more than ~1 s."""
        checks: dict[str, Any] = {"roles": runtime.roles.names()}
        redis_ok = False
        if runtime.client is None or runtime.runner is None or runtime.memory is None:
            checks["error"] = "starting"
            return checks, False
        try:
            await asyncio.wait_for(runtime.client.ping(), timeout=0.8)
            checks["redis"] = "ok"
            redis_ok = True
        except TimeoutError:
            # Slow under load is not dead (a liveness probe must not restart a busy server);
            # readiness says not ready.
            checks["redis"] = "slow"
        except Exception as exc:
            checks["redis"] = f"{type(exc).__name__}: {printable(str(exc), 200)}"
        runner, memory = runtime.runner, runtime.memory
        try:
            await runner.probe(lambda: memory.index.count(settings.memory.namespace), timeout_s=0.5)
            checks["index"] = "ok"
        except EngineBusy:
            checks["index"] = "busy"  # a batch or query holds the embedded engine: alive
        except TimeoutError:
            checks["index"] = "slow"
        except Exception as exc:
            checks["index"] = f"{type(exc).__name__}: {printable(str(exc), 200)}"
        checks["queries_in_flight"] = runner.queries_in_flight
        checks["tasks"] = runtime.task_report()
        return checks, redis_ok

    @get(description="Liveness: 200 while Redis answers and no background task is dead.")
    async def healthz(scope: Any, request: Request) -> AsgiResponse:
        checks, redis_ok = await _checks()
        tasks = checks.get("tasks", {})
        dead = sorted(n for n, t in tasks.items() if t["status"] == "dead")
        index = checks.get("index")
        alive = redis_ok or checks.get("redis") == "slow"
        ok = alive and not dead and index in ("ok", "busy", "slow")
        if dead:
            checks["dead_tasks"] = dead
        return _json({"status": "ok" if ok else "unavailable", **checks}, 200 if ok else 503)

    @get(description="Readiness: 200 when started, Redis answers and every task is running.")
    async def readyz(scope: Any, request: Request) -> AsgiResponse:
        checks, redis_ok = await _checks()
        tasks = checks.get("tasks", {})
        waiting = sorted(n for n, t in tasks.items() if t["status"] != "running")
        ready = (
            runtime.ready.is_set() and redis_ok and not waiting and checks.get("index") != "slow"
        )
        if waiting:
            checks["not_running"] = waiting
        body = {"status": "ready" if ready else "not ready", **checks}
        return _json(body, 200 if ready else 503)

    @get(description="Prometheus text: pipeline counters, consumer lag, oracle, latencies.")
    async def metrics(scope: Any, request: Request) -> AsgiResponse:
        denied = auth.check(request, None)
        if denied is not None:
            return denied
        if runtime.metrics is None:
            return _error(503, "starting")
        text = await runtime.metrics.render()
        return AsgiResponse(
            text.encode(), headers={"content-type": "text/plain; version=0.0.4; charset=utf-8"}
        )

    return [
        ("/v1/turns", post_turns),
        ("/v1/query", post_query),
        ("/v1/why", get_why),
        ("/v1/ledger/confirm", post_confirm),
        ("/healthz", healthz),
        ("/readyz", readyz),
        ("/metrics", metrics),
    ]
