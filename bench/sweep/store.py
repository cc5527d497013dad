"""Append-only JSONL records, one per instance: what makes a long sweep resumable.

Each record is written as one line and flushed to disk before the next instance starts, so an
interrupted run loses at most the instance in flight. A torn last line (the process died
mid-write) is cut off when the store is opened; any other unreadable line is an error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class RecordStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._repair()

    def _repair(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if not data or data.endswith(b"\n"):
            return
        cut = data.rfind(b"\n") + 1  # drop the torn tail
        with self.path.open("r+b") as fh:
            fh.truncate(cut)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(
                        f"{self.path}:{lineno}: unreadable record ({exc.msg})"
                    ) from exc

    def ids(self) -> set[str]:
        return {str(r["id"]) for r in self}

    def by_id(self) -> dict[str, dict[str, Any]]:
        return {str(r["id"]): r for r in self}

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
