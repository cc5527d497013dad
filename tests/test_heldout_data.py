"""The committed helper-written sets still pass the checks their writers ran
(``bench.heldout.validate``), and the checks catch what they are for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.heldout.data import DATA_DIR
from bench.heldout.validate import PROFILES, Profile, check

SPLITS = {
    "dev2": "written",
    "dev5": "written",
    "dev7": "written",
    "dev8": "written",
    "dev9": "written",
    "dev10": "written",
    "dev11": "written",
    "test2": "written",
    "test3": "written",
    "test4": "written",
    "test5": "written",
    "test6": "written",
    "test7": "written",
    "test8": "written",
    "dev3": "traps",
    "dev6": "traps",
    "dev12": "traps",
    "dev13": "traps",
    "dev14": "paragraphs",
    "dev15": "frames",
    "dev16": "frames",
    "test9": "frames",
    "dev17": "frames",
    "dev18": "frames",
    "test10": "frames",
    "dev19": "members",
    "dev20": "prose",
    "dev21": "restated",
    "dev22": "frames",
    "dev23": "frames",
    "dev24": "prose",
    "dev25": "restated",
    "dev26": "frames",
    "dev27": "members",
    "dev28": "frames",
    "dev29": "written",
    "dev30": "frames",
    "dev31": "written",
    "dev32": "frames",
    "dev33": "written",
    "dev34": "written",
    "dev35": "written",
    "dev36": "traps",
    "dev37": "habits",
    "dev38": "people",
    "dev39": "ways",
    "dev40": "passing",
    "dev41": "accumulating",
    "dev42": "mentioned",
    "dev43": "codetraps",
    "dev44": "announcing",
    "dev45": "habitsparas",
    "dev46": "codetraps2",
    "dev47": "codechanges",
    "dev48": "codechanges2",
    "dev49": "oldvalues",
    "dev50": "traps3",
    "dev51": "accumulating",
    "dev52": "named",
    "dev53": "named",
    "dev54": "accumulating",
    "dev55": "accumulating",
    "dev56": "traps3",
    "dev57": "written",
    "dev58": "accumulating",
    "dev59": "written",
    "dev60": "accumulating",
    "dev61": "traps3",
    "dev62": "accumulating",
    "dev63": "written",
    "dev64": "accumulating",
    "dev65": "written",
    "dev66": "accumulating",
    "dev67": "accumulating",
    "dev68": "traps3",
    "dev69": "accumulating",
    "dev70": "traps3",
    "dev71": "accumulating",
    "dev72": "traps3",
    "dev73": "written",
    "dev74": "accumulating",
    "dev75": "accumulating",
    "dev76": "traps3",
    "dev77": "written",
    "dev78": "accumulating",
    "dev79": "accumulating",
    "dev80": "traps3",
    "dev81": "written",
    "dev82": "accumulating",
    "dev83": "written",
    "dev84": "accumulating",
    "dev85": "accumulating",
    "dev86": "accumulating",
    "dev87": "written",
    "dev88": "accumulating",
    "dev89": "written",
    "dev90": "accumulating",
    "dev91": "traps3",
    "dev92": "written",
    "dev93": "written",
    "dev94": "accumulating",
    "dev95": "traps3",
    "dev96": "written",
    "dev97": "written",
    "dev98": "accumulating",
    "dev99": "traps3",
    "dev100": "written",
    "dev101": "written",
    "dev102": "accumulating",
    "dev103": "traps3",
    "dev104": "written",
    "dev105": "written",
    "dev106": "accumulating",
    "dev107": "written",
    "dev108": "accumulating",
    "dev109": "traps3",
    "dev110": "written",
    "dev111": "written",
    "dev112": "accumulating",
    "dev113": "traps3",
    "dev114": "written",
    "dev115": "written",
    "dev116": "accumulating",
    "dev117": "traps3",
    "dev119": "accumulating",
    "dev120": "traps3",
    "dev123": "accumulating",
    "dev124": "traps3",
    "dev118": "written",
    "dev121": "written",
    "dev125": "written",
    "dev122": "written",
    "dev129": "accumulating",
    "dev130": "traps3",
    "dev126": "written",
    "dev128": "written",
    "dev131": "written",
    "dev127": "written",
    "devconv": "chats",
}


def _files(split: str) -> dict[str, Path]:
    return {kind: DATA_DIR / kind / f"{split}.jsonl" for kind in ("changes", "static")}


@pytest.mark.parametrize("split", sorted(SPLITS))
def test_committed_sets_pass_their_writers_checks(split: str) -> None:
    errs, counts = check(_files(split), PROFILES[SPLITS[split]])
    assert errs == []
    assert sum(counts.values()) == sum(
        (*PROFILES[SPLITS[split]].changes.values(), *PROFILES[SPLITS[split]].static.values())
    )


def test_a_stale_value_in_the_current_turn_is_an_error(tmp_path: Path) -> None:
    row = {
        "id": "keyed_prose-001",
        "family": "keyed_prose",
        "turns": [
            {"id": "t1", "ts": "2024-01-01T09:00:00Z", "text": "The port is 8080."},
            {"id": "t2", "ts": "2024-01-05T09:00:00Z", "text": "Lunch is at noon."},
            {"id": "t3", "ts": "2024-01-10T09:00:00Z", "text": "Lunch moved to 1pm."},
            {"id": "t4", "ts": "2024-02-01T09:00:00Z", "text": "The port is 9090, not 8080."},
        ],
        "query": "Which port?",
        "current_turns": ["t4"],
        "stale_turns": ["t1"],
        "still_true_turns": ["t2", "t3"],
        "current_value": "9090",
        "stale_values": ["8080"],
    }
    path = tmp_path / "changes.jsonl"
    path.write_text(json.dumps(row) + "\n")
    errs, _ = check({"changes": path}, Profile(changes={"keyed_prose": 1}, static={}))
    assert errs == ["keyed_prose-001: stale value '8080' appears in current turn t4"]
