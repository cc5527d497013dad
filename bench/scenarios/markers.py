"""Recency and change markers: words that tell a reader (or a model) which statement is newer.

Generated turns must not contain them, so that nothing but event time separates the current
state from the superseded one: a filter that works here works from time and content, not from
cue words ("now", "no longer", "switched to") that real memory rarely carries.
"""

from __future__ import annotations

import re

# Multi-word markers first, then single words; all matched case-insensitively on word
# boundaries.
RECENCY_MARKERS: tuple[str, ...] = (
    "no longer",
    "not anymore",
    "any more",
    "any longer",
    "no more",
    "these days",
    "used to",
    "at the moment",
    "at present",
    "as of",
    "from now on",
    "going forward",
    "first time",
    "this week",
    "last week",
    "this morning",
    "now",
    "nowadays",
    "currently",
    "current",
    "anymore",
    "lately",
    "recently",
    "recent",
    "latest",
    "newest",
    "new",
    "newly",
    "old",
    "older",
    "formerly",
    "former",
    "previously",
    "previous",
    "before",
    "after",
    "since",
    "still",
    "again",
    "anew",
    "just",
    "finally",
    "today",
    "yesterday",
    "tonight",
    "update",
    "updated",
    "updates",
    "upgrade",
    "upgraded",
    "downgraded",
    "migrate",
    "migrated",
    "bumped",
    "change",
    "changed",
    "changes",
    "switch",
    "switched",
    "moved",
    "replaced",
    "replace",
    "instead",
    "deprecated",
    "obsolete",
    "outdated",
    "quit",
    "stopped",
    "started",
    "began",
    "became",
    "become",
    "becoming",
    "revert",
    "reverted",
)

_PATTERN = re.compile(
    r"\b(" + "|".join(re.escape(m).replace(r"\ ", r"\s+") for m in RECENCY_MARKERS) + r")\b",
    re.IGNORECASE,
)


def recency_markers(text: str) -> list[str]:
    """The recency/change markers ``text`` contains (lower-cased, in order of appearance)."""
    return [m.group(1).lower() for m in _PATTERN.finditer(text)]
