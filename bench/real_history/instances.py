"""Transitions (JSONL records) -> benchmark instances: dated memories, a question, labels.

One instance per (transition, accumulation ratio r, memory format):

- old memories: r of them. The first is the old line as its introducing commit wrote it, dated
  at that commit's author time; the other r - 1 are restatements (``mine.restatements``: the
  old line in later versions of the file, dated at those commits; filler at spaced times when
  the file saw fewer commits), evenly spaced over the stored ones, so r = 3 is a subset of r = 10;
- the new memory: the new line at the new commit's author time;
- distractors: the stored windows of real lines from the same file and from other files at the
  new commit (still true when the question is asked), dated at evenly spaced times between the
  introduction and the change, the same for every r.

Formats: ``snippet`` (one memory per window: the file path, then the real lines, newline-joined)
and ``line`` (one memory per real line: ``path: line``; the changed line alone, each distractor
line its own memory). The question is asked one day after the change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

Format = Literal["snippet", "line"]
FORMATS: tuple[Format, ...] = ("snippet", "line")
RATIOS = (1, 3, 10)


@dataclass(frozen=True)
class MemoryItem:
    id: str
    text: str
    ts: datetime
    role: Literal["old", "new", "distractor"]
    state: str | None


@dataclass(frozen=True)
class Instance:
    id: str
    transition: str
    namespace: str
    ratio: int
    format: Format
    question: str
    asked_at: datetime
    items: list[MemoryItem]
    answer: str
    stale: str
    stale_line: str
    new_line: str

    def turns(self) -> list[dict[str, Any]]:
        return [
            {"id": m.id, "namespace": self.namespace, "text": m.text, "ts": m.ts}
            for m in sorted(self.items, key=lambda m: (m.ts, m.id))
        ]


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(text)


def snippet_text(path: str, lines: list[str]) -> str:
    return f"{path}:\n" + "\n".join(lines)


def line_text(path: str, line: str) -> str:
    return f"{path}: {line.strip()}"


def _restated(record: dict[str, Any], r: int) -> list[dict[str, Any]]:
    stored = record["restatements"]
    want = min(r - 1, len(stored))
    if want <= 0:
        return []
    return [stored[int(i * len(stored) / want)] for i in range(want)]


def namespace_for(index: int, ratio: int, fmt: Format) -> str:
    return f"rh-{index:04d}-r{ratio}-{fmt}"


def build(record: dict[str, Any], index: int, ratio: int, fmt: Format) -> Instance:
    path = record["path"]
    tid = re.sub(r"[^A-Za-z0-9_.-]", "_", record["id"])
    intro, change = _ts(record["intro_time"]), _ts(record["time"])
    old_windows = [
        {"time": record["intro_time"], **record["old_context"]},
        *_restated(record, ratio),
    ]
    items: list[MemoryItem] = []
    for j, w in enumerate(old_windows):
        text = (
            snippet_text(path, w["lines"])
            if fmt == "snippet"
            else line_text(path, w["lines"][w["index"]])
        )
        items.append(MemoryItem(f"{tid}-old{j}", text, _ts(w["time"]), "old", record["old_value"]))
    new = record["new_context"]
    new_text = (
        snippet_text(path, new["lines"])
        if fmt == "snippet"
        else line_text(path, new["lines"][new["index"]])
    )
    items.append(MemoryItem(f"{tid}-new", new_text, change, "new", record["new_value"]))
    windows = record["distractors"]
    for j, d in enumerate(windows):
        ts = intro + (change - intro) * (j + 1) / (len(windows) + 1)
        if fmt == "snippet":
            items.append(
                MemoryItem(
                    f"{tid}-d{j}", snippet_text(d["path"], d["lines"]), ts, "distractor", None
                )
            )
            continue
        for i, line in enumerate(d["lines"]):
            if len(line.strip()) >= 3:
                items.append(
                    MemoryItem(
                        f"{tid}-d{j}.{i}", line_text(d["path"], line), ts, "distractor", None
                    )
                )
    return Instance(
        id=f"{tid}|r{ratio}|{fmt}",
        transition=record["id"],
        namespace=namespace_for(index, ratio, fmt),
        ratio=ratio,
        format=fmt,
        question=record["question"],
        asked_at=change + timedelta(days=1),
        items=items,
        answer=record["new_value"],
        stale=record["old_value"],
        stale_line=record["old_line"].strip(),
        new_line=record["new_line"].strip(),
    )
