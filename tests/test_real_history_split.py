"""The dev / held-out split of the committed transitions: disjoint, complete, mixed."""

from __future__ import annotations

import json

from bench.real_history import TRANSITIONS_JSONL
from bench.real_history.split import DEV_REPOS, HELDOUT_REPOS, select


def test_the_halves_split_every_committed_transition_once() -> None:
    records = [json.loads(line) for line in TRANSITIONS_JSONL.read_text().splitlines() if line]
    dev, held = select(records, "dev"), select(records, "heldout")
    assert DEV_REPOS.isdisjoint(HELDOUT_REPOS)
    assert {r["repo"] for r in records} == DEV_REPOS | HELDOUT_REPOS
    assert len(dev) + len(held) == len(records) == len(select(records, "all"))
    assert {r["repo"] for r in dev} == DEV_REPOS and {r["repo"] for r in held} == HELDOUT_REPOS
    # a repository in neither half (mined later) is held out
    extra = {**records[0], "repo": "someone/else"}
    assert select([extra], "heldout") == [extra] and select([extra], "dev") == []
