"""The agent-side bus clients speak the pipeline's contract: a published entry decodes, with
the pipeline's own codec, back to the turn that was sent; a LangChain chat history publishes
through the stream sink."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from gcmem.integrations.bus import TurnStreamSink
from gcmem.models import Turn
from gcmem.pipeline.codec import StreamEntry, decode_entry
from gcmem.pipeline.topology import Topology
from gcmem.settings import Settings
from gcmem.storage.redis import Keyspace, open_redis


def _turn(i: int) -> Turn:
    return Turn(
        id=f"t{i}",
        namespace="ns-bus",
        text=f"The build number is {i}.",
        ts=datetime(2026, 3, 2, 9, i, tzinfo=UTC),
    )


def _decoded(settings: Settings) -> Iterator[Turn | object]:
    client = open_redis(settings.storage)
    stream = Topology.from_settings(
        settings.pipeline, Keyspace(settings.storage.key_prefix), consumer="t"
    ).stream
    for entry_id, fields in client.xrange(stream):
        entry = StreamEntry(entry_id.decode(), fields)
        yield decode_entry(entry, max_bytes=settings.pipeline.max_message_bytes, validate=_validate)


def _validate(data: object) -> Turn:
    return Turn.model_validate(data)


def test_published_turns_decode_with_the_pipeline_codec(redis_settings: Settings) -> None:
    sink = TurnStreamSink(redis_settings)
    turns = [_turn(i) for i in range(3)]
    ids = sink.publish_ids(turns)
    assert len(ids) == 3 and ids == sorted(ids)
    assert list(_decoded(redis_settings)) == turns


def test_chat_history_publishes_over_the_stream(redis_settings: Settings) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage

    from gcmem.integrations.langchain import GCMemChatMessageHistory

    history = GCMemChatMessageHistory(
        TurnStreamSink(redis_settings), session_id="s1", namespace="ns-bus"
    )
    ts = datetime(2026, 3, 2, 9, tzinfo=UTC)
    history.add_messages(
        [HumanMessage("The build number is 7.", additional_kwargs={"ts": ts}), AIMessage("ok")]
    )
    decoded = list(_decoded(redis_settings))
    assert [(t.id, t.role, t.text) for t in decoded] == [  # type: ignore[attr-defined]
        ("s1:0", "user", "The build number is 7."),
        ("s1:1", "assistant", "ok"),
    ]
