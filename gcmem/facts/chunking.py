"""Turn -> chunks: sentences packed greedily up to a character budget.

Short turns (the common case for conversational memory) stay one chunk. Explicit ``Turn.facts``
ride on chunk 0, so a turn's facts are asserted once.
"""

from __future__ import annotations

import re

from gcmem.models import Chunk, Turn, collapse_whitespace

# A sentence ends at . ! ? followed by space and an upper-case letter, digit or quote; this keeps
# "v1.2.3", "e.g. foo" and "/api/v1." inside their sentences.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    sentences: list[str] = []
    for para in paragraphs:
        sentences.extend(s for s in _SENTENCE_END.split(collapse_whitespace(para)) if s)
    return sentences


def chunk_text(text: str, max_chars: int) -> list[str]:
    chunks: list[str] = []
    current = ""
    for sentence in split_sentences(text):
        while len(sentence) > max_chars:  # one over-long sentence: hard wrap at a space
            cut = sentence.rfind(" ", 0, max_chars)
            cut = cut if cut > max_chars // 2 else max_chars
            if current:
                chunks.append(current)
                current = ""
            chunks.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if not current:
            current = sentence
        elif len(current) + 1 + len(sentence) <= max_chars:
            current = f"{current} {sentence}"
        else:
            chunks.append(current)
            current = sentence
    if current:
        chunks.append(current)
    return chunks or [collapse_whitespace(text)]


def chunk_turn(turn: Turn, max_chars: int) -> list[Chunk]:
    return [
        Chunk.from_turn(turn, i, text) for i, text in enumerate(chunk_text(turn.text, max_chars))
    ]
