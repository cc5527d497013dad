"""Printing shared by the examples: one question, the context a plain retriever gives, the
context gcmem gives, and what gcmem excised and why. ``check`` makes each example verify the
claim it prints (exit status 1 if gcmem's context still holds a stale value)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from datetime import datetime

Line = tuple[datetime | str | None, str]


def _when(ts: datetime | str | None) -> str:
    if ts is None:
        return "   undated"
    if isinstance(ts, str):
        ts = datetime.fromisoformat(ts)
    return ts.strftime("%Y-%m-%d")


def _lines(rows: Iterable[Line], stale: Sequence[str]) -> list[str]:
    out = []
    for ts, text in rows:
        mark = "STALE" if any(s in text for s in stale) else "     "
        out.append(f"    {mark} {_when(ts)}  {text}")
    return out or ["    (nothing)"]


def show(
    question: str,
    *,
    plain: Iterable[Line],
    gcmem: Iterable[Line],
    dropped: Iterable[tuple[datetime | str | None, str, str]] = (),
    stale: Sequence[str] = (),
    plain_label: str = "plain retriever",
    excluded_at_write: int = 0,
) -> None:
    print(f"\nQ: {question}")
    print(f"  {plain_label} gives:")
    print("\n".join(_lines(plain, stale)))
    print("  gcmem gives:")
    print("\n".join(_lines(gcmem, stale)))
    drops = list(dropped)
    if drops or excluded_at_write:
        print("  gcmem excised:")
        for ts, text, reason in drops:
            print(f"    - {_when(ts)}  {text}\n        because: {reason}")
    if excluded_at_write:
        # flagged superseded at ingest, left out before top-k (`gcmem why CHUNK_ID` explains one)
        print(f"    - {excluded_at_write} chunk(s) superseded at write time, never retrieved")


class Checks:
    """Collects the example's claims; ``finish`` exits 1 if any failed."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def stale_in_plain(self, question: str, texts: Iterable[str], stale: str) -> None:
        if not any(stale in t for t in texts):
            self.failures.append(f"{question!r}: the plain context has no {stale!r} to excise")

    def clean(self, question: str, texts: Iterable[str], stale: str, current: str) -> None:
        texts = list(texts)
        if any(stale in t for t in texts):
            self.failures.append(f"{question!r}: gcmem's context still holds {stale!r}")
        if not any(current in t for t in texts):
            self.failures.append(f"{question!r}: gcmem's context lost {current!r}")

    def clean_or_noted(
        self, question: str, docs: Iterable[tuple[str, object]], stale: str, current: str
    ) -> None:
        """Like ``clean``, except that a stale text may stay when gcmem attached a conflict
        note to it (a pair κ is not confident enough to decide: both kept, the reader told)."""
        docs = list(docs)
        if any(stale in text and not note for text, note in docs):
            self.failures.append(f"{question!r}: gcmem's context holds {stale!r} without a note")
        if not any(current in text for text, _ in docs):
            self.failures.append(f"{question!r}: gcmem's context lost {current!r}")

    def finish(self) -> None:
        print()
        if self.failures:
            for failure in self.failures:
                print(f"CHECK FAILED: {failure}")
            sys.exit(1)
        print(
            "all checks passed: gcmem served no stale value without a conflict note and kept "
            "every current one"
        )
