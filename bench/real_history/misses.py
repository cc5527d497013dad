"""The README's miss classes: per transition at r = 1, what gcmem's default chain did with the
stale snippet, and where it kept it, what the alignment of the old and the new snippet sees.

Counts only (``python -m bench.real_history misses --from DIR``), so the held-out sets can be
classified without reading their texts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from bench.real_history.instances import build
from gcmem.facts.align import Unit, units_of
from gcmem.facts.align import _edited as edited_line  # the edited-line test alignment uses
from gcmem.models import collapse_whitespace

CLASSES = (
    "removed",
    "edited in one span, too little identical context",
    "no one-span partner",
    "kept, stale line noted",
    "stale line not in R_k",
)


def _line_unit(units: Sequence[Unit], line: str) -> Unit | None:
    want = collapse_whitespace(line)
    return next((u for u in units if u.line and collapse_whitespace(u.text) == want), None)


def alignment_class(record: dict[str, Any]) -> str:
    """Whether the old line (as its introducing commit wrote it) has a one-span partner in the
    new snippet: the new line differs from it in one contiguous span and what stays of it says
    something (``gcmem.facts.align``'s edited-line test)."""
    inst = build(record, 0, 1, "snippet")
    old = next(m for m in inst.items if m.role == "old")
    new = next(m for m in inst.items if m.role == "new")
    o = _line_unit(units_of(old.text), inst.stale_line)
    n = _line_unit(units_of(new.text), inst.new_line)
    if o is not None and n is not None and edited_line(o, n) is not None:
        return CLASSES[1]
    return CLASSES[2]


def classify(rows: Sequence[dict[str, Any]], records: Sequence[dict[str, Any]]) -> Counter[str]:
    by_id = {r["id"]: r for r in records}
    counts: Counter[str] = Counter()
    for row in rows:
        if row["ratio"] != 1 or row["format"] != "snippet":
            continue
        g = row["conditions"]["gcmem"]
        if g["stale_in_candidates"] == 0:
            counts[CLASSES[4]] += 1
        elif g["stale_dropped"] == g["stale_in_candidates"]:
            counts[CLASSES[0]] += 1
        elif g["stale_dropped"] + g["stale_noted_in_context"] == g["stale_in_candidates"]:
            counts[CLASSES[3]] += 1
        else:
            counts[alignment_class(by_id[row["transition"]])] += 1
    return counts
