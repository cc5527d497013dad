"""Turn -> chunks: statement units packed greedily up to a character budget.

A unit is a sentence of prose or, in line-oriented text (config files, diffs, code, bullet
lists, a ``label:`` line in front of a block), one line. Lines are kept as lines (joined by a
newline, indentation kept) so that a config file or a diff stays one assertion per line for
the extractor and for frame alignment; prose lines are joined and split into sentences.

Short turns (the common case for conversational memory) stay one chunk. Explicit ``Turn.facts``
ride on chunk 0, so a turn's facts are asserted once.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from gcmem.facts.labels import DISCOURSE_LABELS
from gcmem.facts.lines import (
    CRON_ENTRY,
    diff_header,
    fence_language,
    file_header,
    in_diff,
    inline_header,
    opens_stanza,
)
from gcmem.models import Chunk, Turn, collapse_whitespace

# A sentence ends at . ! ? followed by space and an upper-case letter, digit or quote; this keeps
# "v1.2.3", "e.g. foo" and "/api/v1." inside their sentences, and a title's full stop ("Mrs.
# Hargreave", "Dr. Amadi", "St. Anne's") is not an end.
_SENTENCE_END = re.compile(
    r"(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bProf\.)(?<!\bMt\.)"
    r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])"
)

CONFIG_LINE = re.compile(
    r"^\s*(?:[-*+•]\s+)?(?:export\s+)?[\"'`]?[\w.\-\[\]]+[\"'`]?\s*(?::\s|:$|=|==|>=|<=|~=|@)"
)
BULLET = re.compile(r"^\s*(?:[-*+•>]|\d{1,3}[.)])\s+")
# Other lines that are lines, not prose: indented (code, YAML; a tab is an indent), a directive
# comment (``#SBATCH --time=...``, ``#include``, a shebang), a TOML/INI section header, a block
# opener or closer, a diff line, a declaration, a Dockerfile instruction, or a short label
# ending in a colon ("settings.py:").
_CODE_LINE = re.compile(
    r"^(?:\s{2,}\S|\t\S|#(?:[A-Z]{2,}|include|define|pragma|!)|\[\[?[^\]]+\]\]?\s*$|.*[{(\[]\s*$|"
    r"\s*[}\])][,;]?\s*$|[+-](?![+-])\S|@@|diff |def |"
    r"class |import |from \S+ import |"
    # a declaration in JavaScript, TypeScript, Kotlin or Scala ("export const API_URL = ...")
    r"(?:export\s+)?(?:const|let|var|val)\s+[A-Za-z_$][\w$]*\s*(?::[^=]*)?=|"
    # a Dockerfile's instructions, which are upper case by convention
    r"(?:FROM|RUN|CMD|LABEL|EXPOSE|ENV|ADD|COPY|ENTRYPOINT|VOLUME|USER|WORKDIR|ARG|ONBUILD|"
    r"STOPSIGNAL|HEALTHCHECK|SHELL)\s+\S)"
)
_LABEL_WORDS = 8
# A message opened by a label of its kind and a colon, then sentences ("Update: we keep the
# spare keys with the Lindqvists. Their number is on the fridge."): prose, not a ``key:
# value`` line (a speaker's "Maya: ..." stays a transcript line).
_LABELLED_PROSE = re.compile(r"^(?P<label>[A-Za-z][A-Za-z -]{0,20}):\s+(?:\S+\s+){4,}\S")


# Labels that name a kind of document, not a speaker ("Luis: Ha, welcome to the club! ..."
# is a transcript's line, whatever follows it)
_DOCUMENT_LABELS = frozenset(
    str.split(
        """about bio biography summary overview description background profile runbook
        procedure policy process guidelines rules instructions abstract intro introduction
        context purpose scope steps playbook"""
    )
)


# ... nor does a noun of a kind no first name is ("Escalation", "Logging", "Drop-off")
_TOPIC_WORD = re.compile(r"(?:ion|ing|ment|ure|ity|ness|ance|ence|ship|ogy)$|-[a-z]")


def _paragraph(label: str, text: str) -> bool:
    """A document's label over two sentences or more of words ("About: Lila Marchetti is a
    fiddle player ... She grew up ..."): prose, where a value reads as one."""
    if label[:1].isupper() and not (
        label.casefold() in _DOCUMENT_LABELS or _TOPIC_WORD.search(label) is not None
    ):
        return False  # a speaker, or a key of its own
    found = [s for s in _SENTENCE_END.split(text.strip()) if len(s.split()) >= 3]
    return len(found) >= 2


# A directive line of a space-separated config file (nginx, redis.conf, sshd_config):
# ``client_max_body_size 25m;``, ``maxmemory-policy allkeys-lru``. Alone such a line reads like
# a few words; a paragraph of nothing else is a config block.
_DIRECTIVE = re.compile(r"^\s*[a-z_][\w.\-]*(?:[ \t]+[^\s.,!?][^\s]*){1,3}[ \t]*;?[ \t]*$")


def _directives(lines: list[str], line_units: list[bool]) -> bool:
    """A paragraph whose lines, but those that are line units anyway (``line_units``: a
    ``label:`` in front), are two or more directive lines, one of them keyed in code style (an
    underscore, a hyphen or a dot in its key, or a closing semicolon)."""
    rest = [line for line, unit in zip(lines, line_units, strict=True) if not unit]
    if len(rest) < 2 or not all(_DIRECTIVE.match(line) for line in rest):
        return False
    return any(
        re.search(r"[_.\-]", line.split()[0]) or line.rstrip().endswith(";") for line in rest
    )


# A gap between the columns of a table-like line: a tab, or two spaces or more.
COLUMN_GAP = re.compile(r"\t|  +")


def table_row(line: str) -> bool:
    """A line of three columns or more set apart by column gaps, each a few words that end no
    sentence (pg_hba.conf's ``host  analytics  metabase  10.8.3.0/24``): one row of a table,
    never prose typed with two spaces after a full stop."""
    cells = COLUMN_GAP.split(line.strip())
    return len(cells) >= 3 and all(
        len(cell.split()) <= 4 and not cell.endswith((".", "!", "?", ",")) for cell in cells
    )


def is_line_unit(line: str) -> bool:
    """Whether a line is a unit of its own (config, code, diff, bullet, crontab entry, label,
    table row)."""
    if BULLET.match(line) or _CODE_LINE.match(line) or table_row(line):
        return True
    if CONFIG_LINE.match(line):
        prose = _LABELLED_PROSE.match(line)
        return prose is None or not (
            prose["label"].casefold() in DISCOURSE_LABELS
            or _paragraph(prose["label"], line[prose.end("label") + 1 :])
        )
    if CRON_ENTRY.match(line):
        return True
    if inline_header(line) is not None:
        return True
    stripped = line.strip()
    return stripped.endswith(":") and len(stripped.split()) <= _LABEL_WORDS


class TextUnit(NamedTuple):
    text: str
    line: bool  # a line of line-oriented text (kept with its indentation)


def _prose(lines: list[str]) -> list[TextUnit]:
    joined = collapse_whitespace(" ".join(lines))
    return [TextUnit(s, False) for s in _SENTENCE_END.split(joined) if s]


def split_units(text: str) -> list[TextUnit]:
    """Statement units in text order: prose sentences and line units. Every line of a file
    excerpt (a paragraph under a ``path:`` header) is a line unit, prose-like or not."""
    return [unit for unit, _ in split_units_with_gaps(text)]


def split_units_with_gaps(text: str) -> list[tuple[TextUnit, bool]]:
    """``split_units`` with, per unit, whether blank lines of a file excerpt stand right
    before it: they are lines of the file too, and part of what fixes a line's place
    (``gcmem.facts.align.excerpt_replacements``)."""
    units: list[tuple[TextUnit, bool]] = []
    excerpt = False  # inside a file excerpt: its blank lines do not end it
    fenced = False  # inside a code fence
    diff = False  # inside a unified diff: its lines open with a marker column
    for n, para in enumerate(re.split(r"\n\s*\n", text)):
        prose: list[str] = []
        lines = [line for line in para.split("\n") if line.strip()]
        excerpt = excerpt or (bool(lines) and file_header(lines[0]) is not None)
        gap = n > 0 and excerpt  # the paragraph's first unit follows blank lines
        line_units = [is_line_unit(line) for line in lines]  # once a line, for both uses
        directives = _directives(lines, line_units)

        def add(found: list[TextUnit]) -> None:
            nonlocal gap
            for unit in found:
                units.append((unit, gap))
                gap = False

        for i, line in enumerate(lines):
            # a Markdown code fence: the writer's own mark that the lines up to the closing
            # fence are code or configuration, whatever their shape
            fence = fence_language(line) is not None
            diff = (diff and in_diff(line)) or diff_header(line) is not None
            if (
                excerpt
                or fenced
                or fence
                or diff
                or directives
                or line_units[i]
                # ssh_config's ``Host bastion``: a line unit heading the indented lines under it
                or (i + 1 < len(lines) and opens_stanza(line, lines[i + 1]))
            ):
                add(_prose(prose))
                prose = []
                add([TextUnit(line.rstrip(), True)])
                fenced = fenced != fence
            else:
                prose.append(line)
        add(_prose(prose))
    return units


def split_sentences(text: str) -> list[str]:
    return [u.text for u in split_units(text)]


def chunk_text(text: str, max_chars: int) -> list[str]:
    """Units packed greedily up to ``max_chars``; a file excerpt's later chunks repeat its
    ``path:`` header (provenance travels with every chunk of the file)."""
    chunks: list[str] = []
    current = ""
    current_line = False  # whether the current chunk ends with a line unit
    header: str | None = None
    for (unit, line), gap in split_units_with_gaps(text):
        if line and file_header(unit) is not None:
            header = unit.strip()
        while len(unit) > max_chars:  # one over-long unit: hard wrap at a space
            cut = unit.rfind(" ", 0, max_chars)
            cut = cut if cut > max_chars // 2 else max_chars
            if current:
                chunks.append(current)
                current = ""
            chunks.append(unit[:cut].strip())
            unit = unit[cut:].strip()
        # a file excerpt keeps one blank line where the file has blank lines
        sep = ("\n\n" if gap and current_line else "\n") if line or current_line else " "
        if not current:
            current = unit
        elif len(current) + 1 + len(unit) <= max_chars:
            current = f"{current}{sep}{unit}"
        else:
            chunks.append(current)
            current = unit if header is None or unit.strip() == header else f"{header}\n{unit}"
        current_line = line
    if current:
        chunks.append(current)
    return chunks or [collapse_whitespace(text)]


def chunk_turn(turn: Turn, max_chars: int) -> list[Chunk]:
    return [
        Chunk.from_turn(turn, i, text) for i, text in enumerate(chunk_text(turn.text, max_chars))
    ]
