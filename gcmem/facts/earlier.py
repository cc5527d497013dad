"""Questions that ask for an earlier value.

"Who did support@ forward to first?", "What was the office's original name?", "Where did Bea
work before?": the answer is a value a newer statement has since replaced, or the first of
several. The chain's decisions stay right (the older chunk is superseded), but acting on them
would take away the one chunk that answers. For such a question the memory searches the
flagged chunks too and keeps what the chain decided against, each with its decision record,
so the reader sees the old and the new value, dated (``gcmem.memory.candidates``).

No model: a few question shapes, all in the past or naming the first, original or former
value. The present forms that share their words are not read ("What do I do first?" is a
routine's order, "Which host is used to restart it?" an instrument).
"""

from __future__ import annotations

import re

_PAST = r"(?:did|was|were|had|went|got|came)"
_EARLIER = re.compile(
    # "Which region did we launch in first?", "Which tag was put on SUP-2291 first?"
    rf"\b{_PAST}\b[^?]*\bfirst\W*$"
    # "Who was the first person ...", "What was my first trip abroad?", "the original name"
    rf"|\b{_PAST}\s+(?:\S+\s+){{0,2}}(?:first|original|previous|former|old|earlier)\b"
    r"|\b(?:originally|initially|previously|formerly|at first|to begin with)\b"
    # "Which label marks that it used to work?", never "Which host is used to restart it?"
    r"|(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )\bused to\b"
    r"|\bdid\b[^?]*\buse to\b"
    # "Where did Bea work before?", "What was it before the switch?"
    rf"|\b{_PAST}\b[^?]*\bbefore(?:\s+(?:that|then|the\s+\w+))?\W*$",
    re.IGNORECASE,
)


def asks_earlier(question: str) -> bool:
    """Whether ``question`` asks for a value that was replaced (or for the first of several),
    not for the present one."""
    return _EARLIER.search(question.strip()) is not None
