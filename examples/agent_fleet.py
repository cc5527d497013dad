"""Three simulated agents share one gcmem memory over Redis: they publish their turns to the
turn stream and ask for context over the bus, each learning what the others changed.

    make example-fleet        (or: .venv/bin/python examples/agent_fleet.py)

The gcmem pipeline (a stream worker and a query server, ``gcmem.pipeline``) runs inside this
script. With no GCMEM_REDIS_URL the bus is gcmem's embedded Redis served on a loopback port,
so nothing needs installing; with GCMEM_REDIS_URL set, the agents and the pipeline use that
Redis server (under a private key prefix, removed at the end). Offline: MiniLM embedder, the
NLI checkpoint named by GCMEM_NLI_MODEL.

Each agent is its own ``BusClient`` (own connections): it XADDs turns to the stream, the
worker's consumer group ingests them, and a query is a request/reply on the bus. Each agent
asks twice: plain RAG (``filters=[]``) and gcmem's chain.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from _show import Checks, show

from gcmem import Turn, load_settings
from gcmem.integrations.bus import BusClient
from gcmem.pipeline.app import Roles, create_app
from gcmem.settings import Settings
from gcmem.storage.redis import open_redis

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NAMESPACE = "fleet"


@dataclass(frozen=True)
class Agent:
    name: str
    # (day, text): what this agent says, in two rounds (days < 7, then later)
    says: tuple[tuple[int, str], ...]
    # (question, stale value, current value): the agent's question at the end
    asks: tuple[str, str, str]


AGENTS = [
    Agent(
        "planner",
        (
            (0, "The release train ships on Thursdays."),
            (1, "The launch date for checkout v2 is March 20."),
            (5, "The launch date for checkout v2 is March 20."),
            (9, "The launch date for checkout v2 is April 3."),
        ),
        ("Which port does the payments service run on?", "port 8000", "port 8080"),
    ),
    Agent(
        "coder",
        (
            (0, "The payments service runs on port 8000."),
            (2, "We pin fastapi at 0.95.2 in requirements.txt."),
            (4, "We pin fastapi at 0.95.2 in requirements.txt."),
            (11, "We pin fastapi at 0.110.0 in requirements.txt."),
        ),
        ("What is the launch date for checkout v2?", "March 20", "April 3"),
    ),
    Agent(
        "ops",
        (
            (3, "The payments service runs on port 8000."),
            (4, "The staging database is called orders_stage."),
            (12, "The payments service runs on port 8080."),
        ),
        ("What fastapi version do we pin?", "0.95.2", "0.110.0"),
    ),
]


def turns_of(agent: Agent, first_round: bool) -> list[Turn]:
    return [
        Turn(
            id=f"{agent.name}-{i}",
            namespace=NAMESPACE,
            session_id=agent.name,
            role="assistant",
            text=text,
            ts=START + timedelta(days=day, hours=i),
            metadata={"agent": agent.name},
        )
        for i, (day, text) in enumerate(agent.says)
        if (day < 7) == first_round
    ]


async def run_agent(agent: Agent, settings: Settings, url: str, round_: int) -> int:
    async with BusClient(settings, url=url) as bus:
        ids = await bus.publish(turns_of(agent, first_round=round_ == 1))
    return len(ids)


async def ask(agent: Agent, settings: Settings, url: str, checks: Checks) -> None:
    question, stale, current = agent.asks
    async with BusClient(settings, url=url) as bus:
        plain = await bus.query(question, namespace=NAMESPACE, k=4, filters=[])
        gcmem = await bus.query(question, namespace=NAMESPACE, k=4)
    print(f"\n[{agent.name}] asks over the bus")
    show(
        question,
        plain=[(c.chunk.ts, f"{c.chunk.text}  ({c.chunk.session_id})") for c in plain.kept],
        gcmem=[(c.chunk.ts, f"{c.chunk.text}  ({c.chunk.session_id})") for c in gcmem.kept],
        dropped=[(d.dropped_chunk.ts, d.text, f"[{d.stage}] {d.reason}") for d in gcmem.dropped],
        stale=[stale],
        excluded_at_write=gcmem.excluded_at_write,
    )
    checks.stale_in_plain(question, plain.texts, stale)
    checks.clean(question, gcmem.texts, stale, current)


async def wait_ingested(settings: Settings, url: str, timeout: float = 300) -> None:
    async with BusClient(settings, url=url) as bus:
        deadline = asyncio.get_running_loop().time() + timeout
        while await bus.lag() > 0:
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError("the worker did not drain the turn stream")
            await asyncio.sleep(0.1)


async def main() -> None:
    settings = load_settings(
        ephemeral=True,
        namespace=NAMESPACE,
        ingest=["supersession"],
        stm_size=0,
        key_prefix=f"gcmem-fleet-{uuid.uuid4().hex[:8]}",
        pipeline_block_ms=50,
    )
    built = create_app(settings, roles=Roles(worker=True, query=True))
    pipeline = asyncio.create_task(built.app.run())
    ready = asyncio.create_task(built.runtime.ready.wait())
    await asyncio.wait({pipeline, ready}, return_when=asyncio.FIRST_COMPLETED)
    if not ready.done():
        pipeline.result()  # start-up failed: raise its error
    where = "embedded Redis" if settings.storage.redis_url is None else "Redis server"
    print(f"gcmem pipeline up: worker + query server on {where} {built.url}")
    print(f"turn stream {built.runtime.topology.stream}, group {built.runtime.topology.group}")
    checks = Checks()
    try:
        for round_ in (1, 2):
            counts = await asyncio.gather(
                *(run_agent(a, settings, built.url, round_) for a in AGENTS)
            )
            await wait_ingested(settings, built.url)
            print(f"round {round_}: agents published {sum(counts)} turns; worker ingested them")
        for agent in AGENTS:
            await ask(agent, settings, built.url, checks)
    finally:
        built.app.exit()
        await pipeline
        if settings.storage.redis_url is not None:
            client = open_redis(settings.storage)
            keys = list(client.scan_iter(match=f"{settings.storage.key_prefix}:*", count=1000))
            if keys:
                client.delete(*keys)
    checks.finish()


if __name__ == "__main__":
    asyncio.run(main())
