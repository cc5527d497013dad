"""Resolution policies through the whole query chain (supersession stage, then Φ_T with keyed
pairs) and over HTTP: evidence drops only its loser, confirm surfaces the held value as a
conflict and keeps the incumbent, accumulate keeps every value, latest is unchanged."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio

from gcmem.memory import Memory
from gcmem.models import RetrievalResult
from gcmem.pipeline.app import Roles, create_app
from gcmem.pipeline.query import request_body
from gcmem.settings import PolicyRule, Settings
from tests.conftest import make_settings
from tests.doubles import HashingEmbedder, ScriptedOracle
from tests.pipeline_support import drained, free_port, hashing_memory, serving_http, wait_until

T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
RULES = [
    {"relation": "medication", "policy": "confirm"},
    {"relation": "dose", "policy": "evidence"},
    {"relation": "* speak* _", "policy": "accumulate"},
]


def turn(
    i: int, text: str, fact: tuple[str, str, str], source: str, ns: str = "chain"
) -> dict[str, Any]:
    s, r, o = fact
    return {
        "id": f"t{i}",
        "namespace": ns,
        "text": text,
        "ts": (T0 + timedelta(days=i)).isoformat(),
        "metadata": {"source": source},
        "facts": [{"subject": s, "relation": r, "object": o}],
    }


STREAM = [
    turn(1, "The patient takes aspirin.", ("patient", "medication", "aspirin"), "gp"),
    turn(2, "The patient takes ibuprofen now.", ("patient", "medication", "ibuprofen"), "chat"),
    turn(3, "Dose is 100 mg.", ("patient", "dose", "100 mg"), "ehr"),
    turn(4, "Dose is 100 mg, per the record.", ("patient", "dose", "100 mg"), "ehr"),
    turn(5, "Dose is 200 mg.", ("patient", "dose", "200 mg"), "chat"),
    turn(6, "I speak French.", ("i", "i speak _", "French"), "chat"),
    turn(7, "I speak Spanish.", ("i", "i speak _", "Spanish"), "chat"),
    turn(8, "The port is 8080.", ("api", "port", "8080"), "chat"),
    turn(9, "The port is 9090.", ("api", "port", "9090"), "chat"),
]


def memory(settings: Settings) -> Memory:
    return Memory(settings, embedder=HashingEmbedder(), oracle=ScriptedOracle())


def texts(result: RetrievalResult) -> set[str]:
    return {c.chunk.text for c in result.kept}


def dropped(result: RetrievalResult) -> dict[str, str]:
    return {d.chunk.chunk.text: d.stage for d in result.dropped}


@pytest.fixture
def chain_settings(tmp_path: Path, request: pytest.FixtureRequest) -> Settings:
    return make_settings(
        tmp_path,
        filters=["supersession", "dominance"],
        ledger_policies=RULES,
        top_k=20,
        stm_size=0,
        # the read-time chain is the subject: flagged chunks stay in the search
        supersession_exclude=False,
    )


def test_each_policy_through_the_chain(chain_settings: Settings) -> None:
    with memory(chain_settings) as mem:
        mem.ingest(STREAM)
        result = mem.retrieve("patient medication dose speak port", namespace="chain", k=20)
    kept = texts(result)
    # confirm: both kept, the held value surfaced, Φ_T did not drop the incumbent
    assert {"The patient takes aspirin.", "The patient takes ibuprofen now."} <= kept
    [conflict] = result.conflicts
    assert conflict.stage == "supersession" and conflict.score is None
    assert conflict.older.chunk.text == "The patient takes aspirin."
    assert conflict.newer.chunk.text == "The patient takes ibuprofen now."
    assert "held pending confirmation" in conflict.reason and "from chat" in conflict.reason
    assert "may be superseded by" in result.context()
    # evidence: two records beat one newer chat statement; only the loser is dropped
    assert dropped(result)["Dose is 200 mg."] == "supersession"
    assert {"Dose is 100 mg.", "Dose is 100 mg, per the record."} <= kept
    # accumulate: a language never supersedes another, and Φ_T does not either
    assert {"I speak French.", "I speak Spanish."} <= kept
    # latest: unchanged
    assert dropped(result)["The port is 8080."] == "supersession"
    assert "The port is 9090." in kept
    assert len(result.dropped) == 2


def test_adapters_carry_the_conflict_on_both_sides(chain_settings: Settings) -> None:
    from gcmem.integrations.langchain import GCMemRetriever
    from gcmem.integrations.llamaindex import GCMemRetriever as LlamaRetriever

    with memory(chain_settings) as mem:
        mem.ingest(STREAM[:2])
        docs = GCMemRetriever(memory=mem, namespace="chain", k=20).invoke("patient medication")
        nodes = LlamaRetriever(mem, namespace="chain", k=20).retrieve("patient medication")
    assert len(docs) == 2 and len(nodes) == 2
    for doc in docs:
        [record] = doc.metadata["gcmem_conflicts"]
        assert record["reason"].startswith("policy confirm:")
        assert {record["older_turn_id"], record["newer_turn_id"]} == {"t1", "t2"}
    for node in nodes:
        assert node.node.metadata["gcmem_conflicts"][0]["stage"] == "supersession"
        assert "gcmem_conflicts" in node.node.excluded_llm_metadata_keys


@pytest.mark.parametrize("builtin", [False, True])
def test_without_rules(tmp_path: Path, builtin: bool) -> None:
    s = make_settings(
        tmp_path,
        filters=["supersession", "dominance"],
        top_k=20,
        stm_size=0,
        supersession_exclude=False,
        ledger_known_multi_valued=builtin,
    )
    with memory(s) as mem:
        mem.ingest(STREAM)
        result = mem.retrieve("patient medication dose speak port", namespace="chain", k=20)
    gone = set(dropped(result))
    # latest everywhere, but for the built-in multi-valued relations when they are on: a
    # language never supersedes another, in the ledger or in Φ_T
    assert {"The patient takes aspirin.", "Dose is 100 mg.", "The port is 8080."} <= gone
    if builtin:
        assert {"I speak French.", "I speak Spanish."} <= texts(result)
    else:
        assert "I speak French." in gone
    assert result.conflicts == []


def test_confirming_promotes_and_flags(chain_settings: Settings) -> None:
    s = chain_settings.replace(supersession_gc=True)
    with memory(s) as mem:
        mem.ingest(STREAM)
        [held] = mem.pending("chain")
        assert (held.pending.object, held.incumbent.object) == ("ibuprofen", "aspirin")  # type: ignore[union-attr]
        result = mem.confirm("patient", "medication", "ibuprofen", namespace="chain", by="nurse")
        assert result.outcome == "promoted"
        after = mem.retrieve("patient medication", namespace="chain", k=20)
        assert dropped(after)["The patient takes aspirin."] == "supersession"
        assert after.conflicts == []
        # the incumbent's chunk is flagged: search for the present leaves it out
        present = mem.candidates(
            "patient medication", namespace="chain", k=20, stm=False, exclude_flagged=True
        )
        names = {c.chunk.text for c in present.candidates}
        assert "The patient takes ibuprofen now." in names
        assert "The patient takes aspirin." not in names


@pytest.mark.redis
async def test_confirm_over_http(real_redis_settings: Settings) -> None:
    s = real_redis_settings.replace(
        pipeline_block_ms=50,
        ledger_policies=[PolicyRule.model_validate(r) for r in RULES],
        top_k=20,
        stm_size=0,
        filters=["supersession"],
    )
    built = create_app(
        s, roles=Roles(worker=True, query=True, http=True), memory_factory=hashing_memory
    )
    t = built.runtime.topology
    bus = redis.asyncio.Redis.from_url(str(s.storage.redis_url))
    try:
        async with (
            serving_http(built, free_port()) as base,
            httpx.AsyncClient(base_url=base) as http,
        ):
            assert (await http.post("/v1/turns", json=STREAM[:2])).status_code == 202
            await wait_until(lambda: drained(bus, t.stream, t.group), timeout=60, what="ingest")
            body = request_body("patient medication", namespace="chain", k=20)
            before = RetrievalResult.model_validate(
                (await http.post("/v1/query", json=body)).json()
            )
            assert len(before.conflicts) == 1 and not before.dropped
            bad = await http.post("/v1/ledger/confirm", json={"subject": "patient"})
            assert bad.status_code == 422
            req = {
                "namespace": "chain",
                "subject": "patient",
                "relation": "medication",
                "object": "ibuprofen",
                "by": "dr-http",
            }
            done = await http.post("/v1/ledger/confirm", json=req)
            assert done.status_code == 200 and done.json()["outcome"] == "promoted", done.text
            again = await http.post("/v1/ledger/confirm", json=req)
            assert again.json()["outcome"] == "none"
            after = RetrievalResult.model_validate((await http.post("/v1/query", json=body)).json())
            # the confirmation closed the incumbent: its chunk is flagged, so a query about
            # the present leaves it out before top-k (write-time exclusion is on by default)
            assert after.conflicts == [] and after.dropped == [] and after.excluded_at_write == 1
            assert [c.chunk.turn_id for c in after.kept] == ["t2"]
            old = next(c for c in before.kept if c.chunk.turn_id == "t1")
            why = await http.get("/v1/why", params={"chunk_id": old.id, "namespace": "chain"})
            assert why.status_code == 200 and why.json()["superseded"] is True
            assert why.json()["decision"]["dominated_by_turn_id"] == "t2"
    finally:
        await bus.aclose()


def test_an_outweighed_value_is_not_flagged_and_can_take_over(chain_settings: Settings) -> None:
    s = chain_settings.replace(supersession_gc=True)
    with memory(s) as mem:
        mem.ingest(STREAM[2:5])  # dose: 100 mg (ehr) twice, then 200 mg (chat) once

        def present() -> set[str]:
            found = mem.candidates(
                "patient dose", namespace="chain", k=20, stm=False, exclude_flagged=True
            )
            return {c.chunk.text for c in found.candidates}

        assert "Dose is 200 mg." in present()  # trailing, dropped at query time, not flagged
        assert dropped(mem.retrieve("patient dose", namespace="chain", k=20)) == {
            "Dose is 200 mg.": "supersession"
        }
        mem.ingest(
            [
                turn(10 + i, f"Dose is 200 mg ({i}).", ("patient", "dose", "200 mg"), f"app{i}")
                for i in range(2)
            ]
        )
        now = present()
        assert {"Dose is 200 mg.", "Dose is 200 mg (1)."} <= now  # 3 vs 2: it took over
        assert "Dose is 100 mg." not in now  # the deposed value is flagged
