"""What the AsyncAPI document says a subscriber's messages are.

FastStream derives a subscriber's payload schema from its handler's signature
(``parse_handler_params``: every parameter that is not a ``Context`` field). The turn handler
takes the raw batch (``RedisBatchStreamMessage``, a ``Context`` field) because entries are
decoded and validated one by one, so a bad entry is dead-lettered instead of failing its
batch; FastStream therefore documents its payload as ``EmptyPayload``. The wire contract is
one ``Turn`` per stream entry, and ``declare_payload`` states it: the subscriber's message
payload is built the way FastStream builds a publisher's ``schema=`` payload.
"""

from __future__ import annotations

from typing import Any

from faststream.redis.subscriber.specification import StreamSubscriberSpecification
from faststream.specification.asyncapi.message import get_model_schema
from pydantic import BaseModel, create_model


class DeclaredStreamPayload(StreamSubscriberSpecification):
    """A stream subscriber's specification whose message payload is a declared model."""

    __slots__ = ("payload_model",)

    def __init__(self, base: StreamSubscriberSpecification, payload: type[BaseModel]) -> None:
        super().__init__(base._outer_config, base.config, base.calls, base.stream_sub)
        self.payload_model = payload

    def get_payloads(self) -> list[tuple[dict[str, Any], str]]:
        # One field whose type is the model: ``get_model_schema`` then returns the model's
        # own schema under its title (as for ``broker.publisher(schema=...)``).
        holder = create_model("", payload__=(self.payload_model, ...))
        return [(get_model_schema(holder, prefix=f"{self.name}:Message"), "")]


def declare_payload(subscriber: Any, payload: type[BaseModel]) -> None:
    """Document ``payload`` as the message of ``subscriber`` (a Redis stream subscriber)."""
    spec = getattr(subscriber, "specification", None)
    if not isinstance(spec, StreamSubscriberSpecification):
        raise TypeError(f"not a Redis stream subscriber: {subscriber!r}")
    subscriber.specification = DeclaredStreamPayload(spec, payload)
