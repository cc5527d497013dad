"""Per-chunk statement units: which ledger keys each unit states, and who restated it.

Frame alignment decides per statement unit (sentence or line), but the ledger keys assertions
per chunk. This map lets the query side decide a chunk by its units: a multi-statement chunk
is dropped only when every unit is superseded or restated by a newer chunk, and a kept chunk
can name its stale units. One Redis hash per chunk (under the namespace's hash tag); every
field is written idempotently (same field, same value), so redelivery and concurrent writers
need no read-modify-write:

- ``n``: number of units; ``x``: JSON list of units that state nothing (labels, block openers);
- ``k:<unit>:<key id>``: JSON ``[subject, relation, object]`` of a key the unit states;
- ``r:<unit>:<chunk id>``: JSON ``[event time (µs), turn id]`` of a newer chunk restating it;
- ``b:<unit>:<older unit>:<chunk id>``: ``1`` where the unit restates that unit of an older chunk
  (the reverse of ``r:``, so a decision about this unit reaches the older identical ones);
- ``m:<unit>``: ``1`` where the unit's keys come from naming a replaced value (a stale mention,
  ``gcmem.facts.mentions``), not from its own statement of the key.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from gcmem.storage.redis import Keyspace, RedisClient


@dataclass(frozen=True)
class UnitKey:
    key_id: str
    subject: str
    relation: str
    object: str


@dataclass(frozen=True)
class Restatement:
    chunk_id: str
    turn_id: str
    at_us: int  # event time of the restating chunk, integer microseconds


@dataclass
class ChunkUnits:
    """A chunk's unit map as written so far."""

    units: int
    skip: frozenset[int] = frozenset()
    keys: dict[int, dict[str, UnitKey]] = field(default_factory=lambda: defaultdict(dict))
    restated: dict[int, list[Restatement]] = field(default_factory=lambda: defaultdict(list))
    # unit -> (older chunk id, its unit) that this unit restates
    restates: dict[int, set[tuple[str, int]]] = field(default_factory=lambda: defaultdict(set))
    mentions: set[int] = field(default_factory=set)  # units keyed as stale mentions

    def content_units(self) -> list[int]:
        return [i for i in range(self.units) if i not in self.skip]


@dataclass
class UnitWrite:
    """Fields to add to one chunk's unit map."""

    chunk_id: str
    units: int
    skip: Sequence[int] = ()
    keys: list[tuple[int, UnitKey]] = field(default_factory=list)
    restated: list[tuple[int, Restatement]] = field(default_factory=list)
    restates: list[tuple[int, str, int]] = field(default_factory=list)  # (unit, older, its unit)
    mentions: Sequence[int] = ()


class UnitStore:
    def __init__(self, client: RedisClient, keys: Keyspace) -> None:
        self.client = client
        self.keys = keys

    def write(self, namespace: str, writes: Iterable[UnitWrite]) -> None:
        pipe = self.client.pipeline(transaction=False)
        queued = False
        for w in writes:
            mapping: dict[str, str] = {"n": str(w.units), "x": json.dumps(sorted(set(w.skip)))}
            for unit, key in w.keys:
                mapping[f"k:{unit}:{key.key_id}"] = json.dumps(
                    [key.subject, key.relation, key.object]
                )
            for unit, r in w.restated:
                mapping[f"r:{unit}:{r.chunk_id}"] = json.dumps([r.at_us, r.turn_id])
            for unit, older, older_unit in w.restates:
                mapping[f"b:{unit}:{older_unit}:{older}"] = "1"
            for unit in w.mentions:
                mapping[f"m:{unit}"] = "1"
            pipe.hset(self.keys.ledger_units(namespace, w.chunk_id), mapping=cast(Any, mapping))
            queued = True
        if queued:
            pipe.execute()

    def read(self, namespace: str, chunk_ids: Sequence[str]) -> dict[str, ChunkUnits]:
        """Unit maps of those chunks that have one."""
        ids = list(dict.fromkeys(chunk_ids))
        if not ids:
            return {}
        pipe = self.client.pipeline(transaction=False)
        for cid in ids:
            pipe.hgetall(self.keys.ledger_units(namespace, cid))
        out: dict[str, ChunkUnits] = {}
        for cid, raw in zip(ids, pipe.execute(), strict=True):
            data = cast(dict[bytes, bytes], raw)
            if not data or b"n" not in data:
                continue
            cu = ChunkUnits(
                units=int(data[b"n"]), skip=frozenset(json.loads(data.get(b"x", b"[]")))
            )
            for k, v in data.items():
                name = k.decode()
                if name.startswith("k:"):
                    _, unit, kid = name.split(":", 2)
                    s, r, o = json.loads(v)
                    cu.keys[int(unit)][kid] = UnitKey(kid, str(s), str(r), str(o))
                elif name.startswith("r:"):
                    _, unit, other = name.split(":", 2)
                    at, turn = json.loads(v)
                    cu.restated[int(unit)].append(Restatement(other, str(turn), int(at)))
                elif name.startswith("b:"):
                    _, unit, older_unit, older = name.split(":", 3)
                    cu.restates[int(unit)].add((older, int(older_unit)))
                elif name.startswith("m:"):
                    cu.mentions.add(int(name[2:]))
            out[cid] = cu
        return out

    def forget(self, namespace: str, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            self.client.delete(*(self.keys.ledger_units(namespace, c) for c in chunk_ids))


__all__ = ["ChunkUnits", "Restatement", "UnitKey", "UnitStore", "UnitWrite"]
