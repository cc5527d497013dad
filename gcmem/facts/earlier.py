"""Questions that ask for an earlier value.

"Who did support@ forward to first?", "Where did Bea work before?", "What was the previous
owner's name?": the answer is a value a newer statement has since replaced, or the first of
several. The chain's decisions stay right (the older chunk is superseded), but acting on them
would take away the one chunk that answers. For such a question the memory searches the
flagged chunks too and keeps what the chain decided against, each with its decision record,
so the reader sees the old and the new value, dated (``gcmem.memory.candidates``).

No model: a few question shapes, in the past tense, asking what came first, before or
previously. Forms that share the words but name a kind of thing are not read: "the first
country to host ...", "the original host", "a former politician", "the bank originally
established as ..." (an ordinal or a descriptor: on real questions these ask about the thing
so named, not for an earlier value), nor present forms ("What do I do first?", "Which host is
used to restart it?"), nor an instrument ("Which tool did Rahul use to build it?"), nor a
question that names its own time ("... in Apr 1966?").
"""

from __future__ import annotations

import re

_PAST = r"(?:did|was|were|had|went|got|came)"
_NO_DETERMINER = "".join(
    rf"(?<!\b{d} )" for d in ("the", "a", "my", "our", "your", "his", "her", "their", "its", "'s")
)
_EARLIER = re.compile(
    # "Which region did we launch in first?", "Which tag was first put on SUP-2291?": "first"
    # said of the doing, not an ordinal of a thing ("the first country", "first to host")
    rf"\b{_PAST}\b[^?]*?{_NO_DETERMINER}\bfirst\b(?!-|\s+(?:to|of|of all|one|time)\b)"
    # "What was the previous owner's name?", "What was our old address?"
    rf"|\b{_PAST}\s+(?:the|our|my|your|his|her|their|\w+'s)\s+(?:previous|old)\b"
    # "What was it originally?", "Who previously ran it?"; not a descriptor of a thing
    # ("the bank originally established as ...")
    r"|\b(?:originally|initially|previously|formerly)\b(?!\s+(?:\w+ed|known|built|called|"
    r"named|founded|made|written|set up)\b)"
    # "Which label marks that it used to work?", never "Which host is used to restart it?"
    r"|(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )\bused to\b"
    # "Where did Bea work before?", "What was it before the switch?"
    rf"|\b{_PAST}\b[^?]*\bbefore(?:\s+(?:that|then|the\s+\w+))?\W*$",
    re.IGNORECASE,
)
# A question that names its own time ("in Apr 1966", "from 2008 to 2014") asks about then.
_DATED = re.compile(r"\b(?:1[5-9]|20)\d\d\b")


def asks_earlier(question: str) -> bool:
    """Whether ``question`` asks for a value that was replaced (or for the first of several),
    not for the present one."""
    q = question.strip()
    return _EARLIER.search(q) is not None and _DATED.search(q) is None
