"""The atomic-transition criteria, as pure functions over paths and line pairs (no git).

A commit is an *atomic value transition* when all of these hold (``mine.py`` applies them):

1. Files. Paths are sorted into three groups:
   - *ignored*: changelog/news/history/release-notes files, generated lock and checksum files
     (``package-lock.json``, ``yarn.lock``, ``pnpm-lock.yaml``, ``Cargo.lock``, ``go.sum``,
     ``poetry.lock``, ``uv.lock``, ``Pipfile.lock``), documentation (``*.md``, ``*.rst``,
     ``*.txt`` other than ``requirements*.txt``, anything under ``docs/``) and tests (``tests/``,
     ``test/``, ``testdata/``, ``__tests__/``, ``test_*.py``, ``*_test.py``, ``*_test.go``,
     ``*.test.*``, ``*.spec.*``). A value change is routinely accompanied by a changelog line, a
     regenerated lock file, a docs mention and an updated test; those are ignored, not counted.
   - *candidate*: code, config and manifest files by extension or name (``.py .js .mjs .cjs .ts
     .go .rs .toml .json .yaml .yml .cfg .ini .mod``, ``requirements*.txt``, ``Dockerfile``,
     ``Makefile``, ``.nvmrc``, ``.python-version``) outside ``vendor/`` and ``node_modules/``.
   - *other*: everything else (``.css``, ``.html``, vendored code, ...). A change there is a
     change to the project, so it counts against atomicity like a candidate file's.
2. Exactly one changed line pair over the commit's candidate and other files: one file, one
   hunk, one removed and one added line (``numstat`` 1/1; no binary, added, deleted or renamed
   non-ignored file), and that file is a candidate.
3. One contiguous differing token span: the two lines' token sequences (``TOKEN``: words with
   inner dots and hyphens, e.g. ``2.31.0`` or ``max-age``, else single punctuation characters)
   differ by exactly one ``replace`` run (``difflib`` opcodes). A pure insertion or deletion
   (an argument added, a suffix dropped) has no old or no new value and is not a transition.
   Whitespace-only changes differ in no token and fail here.
4. Value size: each side of the span is at most ``MAX_VALUE_CHARS`` (40) characters and
   ``MAX_VALUE_TOKENS`` (4) tokens.
5. Not a comment: the line is not a comment line (``#`` in hash-comment languages, ``//``,
   ``/*``, ``*`` in C-like ones), and the span does not sit after a trailing comment marker.
6. Not prose: the line does not hold ``PROSE_WORDS`` (6) or more consecutive plain words (a
   docstring, message or comment continuation; code with long keyword runs is lost with it),
   does not open a docstring (a line starting with triple quotes) and holds no reST markup
   (double backticks, ``:py:``/``:func:``/``:class:``/``:meth:`` roles).
7. Lines at most ``MAX_LINE_CHARS`` (200) characters (minified or generated text).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

MAX_VALUE_CHARS = 40
MAX_VALUE_TOKENS = 4
MAX_LINE_CHARS = 200
PROSE_WORDS = 6

TOKEN = re.compile(r"\w(?:[\w.\-]*\w)?|[^\w\s]")
_PROSE = re.compile(rf"(?:\b[A-Za-z]+\b[,;:]?\s+){{{PROSE_WORDS - 1}}}\b[A-Za-z]+\b")
# Docstring and reST markup: a line opening a docstring, or holding ``literal`` / :role: text.
_MARKUP = re.compile(r"^\s*[rbuf]?(\"\"\"|\'\'\')|``|:py:|:func:|:class:|:meth:")

FileGroup = Literal["ignored", "candidate", "other"]

_CHANGELOG = re.compile(r"^(changelog|changes|history|news|release[-_ ]?notes)(\.|$)", re.I)
_LOCKS = frozenset(
    {
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "cargo.lock",
        "go.sum",
        "poetry.lock",
        "uv.lock",
        "pipfile.lock",
        "npm-shrinkwrap.json",
    }
)
_TEST_DIRS = frozenset({"tests", "test", "testdata", "__tests__", "testing"})
_TEST_NAME = re.compile(r"^test_.*\.py$|.*_test\.(py|go)$|.*\.(test|spec)\.\w+$")
_DOC_EXT = frozenset({".md", ".rst", ".adoc", ".txt"})
_CODE_EXT = frozenset(
    {
        ".py",
        ".js",
        ".mjs",
        ".cjs",
        ".ts",
        ".go",
        ".rs",
        ".toml",
        ".json",
        ".yaml",
        ".yml",
        ".cfg",
        ".ini",
        ".mod",
    }
)
_CODE_NAMES = frozenset({"dockerfile", "makefile", ".nvmrc", ".python-version"})
_VENDORED = frozenset({"vendor", "node_modules", "third_party"})
_HASH_COMMENT_EXT = frozenset({".py", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".txt"})


def _is_requirements(name: str) -> bool:
    return name.startswith("requirements") and name.endswith((".txt", ".in"))


def classify_path(path: str) -> FileGroup:
    p = PurePosixPath(path)
    name = p.name.lower()
    parts = [part.lower() for part in p.parts[:-1]]
    if _CHANGELOG.match(name) or name in _LOCKS:
        return "ignored"
    if any(part in _TEST_DIRS for part in parts) or _TEST_NAME.match(name):
        return "ignored"
    if "docs" in parts or "doc" in parts:
        return "ignored"
    if p.suffix.lower() in _DOC_EXT and not _is_requirements(name):
        return "ignored"
    if any(part in _VENDORED for part in parts):
        return "other"
    if p.suffix.lower() in _CODE_EXT or name in _CODE_NAMES or _is_requirements(name):
        return "candidate"
    return "other"


def hash_comments(path: str) -> bool:
    p = PurePosixPath(path)
    name = p.name.lower()
    return p.suffix.lower() in _HASH_COMMENT_EXT or name in _CODE_NAMES or _is_requirements(name)


def _comment_start(line: str, path: str) -> int | None:
    """Index where a comment starts in ``line``, if any (a heuristic, no string parsing)."""
    if hash_comments(path):
        m = re.search(r"(?:^|\s)#", line)
        return m.start() if m else None
    m = re.search(r"(?:^|\s)(?://|/\*)|^\s*\*", line)
    return m.start() if m else None


@dataclass(frozen=True)
class Span:
    """The one differing token span of a line pair."""

    old_value: str
    new_value: str
    old_start: int  # character offsets into the old / new line
    new_start: int
    prefix: str  # the line text before the span (identical in both lines, modulo spacing)
    old_tokens: int
    new_tokens: int


def differing_span(old: str, new: str) -> Span | None:
    """The single contiguous ``replace`` span between two lines, else None."""
    a = list(TOKEN.finditer(old))
    b = list(TOKEN.finditer(new))
    ops = [
        op
        for op in difflib.SequenceMatcher(
            None, [m.group() for m in a], [m.group() for m in b], autojunk=False
        ).get_opcodes()
        if op[0] != "equal"
    ]
    if len(ops) != 1 or ops[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = ops[0]
    o0, o1 = a[i1].start(), a[i2 - 1].end()
    n0, n1 = b[j1].start(), b[j2 - 1].end()
    return Span(
        old_value=old[o0:o1],
        new_value=new[n0:n1],
        old_start=o0,
        new_start=n0,
        prefix=new[:n0],
        old_tokens=i2 - i1,
        new_tokens=j2 - j1,
    )


Rejection = Literal[
    "long_line",
    "comment",
    "prose",
    "no_single_span",
    "value_too_long",
]


def check_pair(path: str, old: str, new: str) -> Span | Rejection:
    """Criteria 3-7 on one removed/added line pair: the span, or why the pair is rejected."""
    if len(old) > MAX_LINE_CHARS or len(new) > MAX_LINE_CHARS:
        return "long_line"
    for line in (old, new):
        start = _comment_start(line, path)
        if start is not None and not line[:start].strip():
            return "comment"
    if any(_PROSE.search(line) or _MARKUP.search(line) for line in (old, new)):
        return "prose"
    span = differing_span(old, new)
    if span is None:
        return "no_single_span"
    for value, tokens in ((span.old_value, span.old_tokens), (span.new_value, span.new_tokens)):
        if len(value) > MAX_VALUE_CHARS or tokens > MAX_VALUE_TOKENS:
            return "value_too_long"
    for line, start in ((old, span.old_start), (new, span.new_start)):
        comment = _comment_start(line, path)
        if comment is not None and comment < start:
            return "comment"
    return span


# --- naming the quantity (for the question only) -------------------------------------------

_KEYWORDS = frozenset(
    [
        "def",
        "class",
        "func",
        "fn",
        "pub",
        "const",
        "var",
        "let",
        "return",
        "import",
        "from",
        "async",
        "await",
        "static",
        "type",
        "struct",
        "interface",
        "export",
        "default",
        "new",
        "if",
        "else",
        "elif",
        "for",
        "while",
        "in",
        "is",
        "not",
        "and",
        "or",
        "package",
        "mod",
        "use",
        "self",
        "this",
    ]
)
_IDENT = re.compile(r"[A-Za-z_$][\w$.\-]*")
# What may sit between a key and its value: assignment, mapping, comparison, pin operators,
# quotes and opening brackets.
_SEPARATOR = re.compile(r"""^[\s"'`\]]*(?:[:=]=?|[<>~!^]=?|==|@)[\s"'`(\[{^~=<>v]*$""")
_BARE_KEY = re.compile(r"""^\s*[-\w.]+\s+[\s"'`v]*$""")  # ``go 1.21``, ``rev v0.1``
# A typed declaration's name before its type (``pub const MAP_FIXED: c_int = ``, ``timeout:
# Optional[float] = ``): the quantity is the name, not the type.
_TYPED = re.compile(r"""(?P<name>[A-Za-z_$][\w$]*)\s*:\s*[\w\s<>\[\],.*&'?|]+?\s*=\s*["'`]?$""")

ValueKind = Literal["version", "number", "boolean", "name", "path", "string"]
_VERSION = re.compile(r"^[v^~<>=!]*\d+(?:\.\d+)+(?:[-+.\w]*)$")
_TAG = re.compile(r"^v\d+(?:\.\d+)*$")  # ``actions/checkout@v3``
_DIGEST = re.compile(r"^[0-9a-f]{7,40}$")  # a commit-pinned action or module
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:e-?\d+)?[A-Za-z]{0,3}$")
_BOOL = frozenset({"true", "false", "none", "null", "nil", "undefined", "yes", "no", "on", "off"})


def quantity_name(prefix: str) -> str | None:
    """The key a value is assigned to (``DEFAULT_POOLSIZE = 10`` -> ``DEFAULT_POOLSIZE``), when
    only separator characters stand between the last identifier of ``prefix`` and the span."""
    typed = _TYPED.search(prefix)
    if typed is not None:
        return typed["name"]
    idents = [m for m in _IDENT.finditer(prefix) if m.group().lower() not in _KEYWORDS]
    if not idents:
        return None
    last = idents[-1]
    if not (
        _SEPARATOR.match(prefix[last.end() :]) or (len(idents) == 1 and _BARE_KEY.match(prefix))
    ):
        return None
    return last.group().strip(".-")


def value_kind(old: str, new: str) -> ValueKind:
    values = (old.strip("\"'`"), new.strip("\"'`"))
    if all(_VERSION.match(v) or _TAG.match(v) or _DIGEST.match(v) for v in values):
        return "version"
    if all(_NUMBER.match(v) for v in values):
        return "number"
    if all(v.lower() in _BOOL for v in values):
        return "boolean"
    if all(re.fullmatch(r"[A-Za-z_$][\w$]*", v) for v in values):
        return "name"
    if any("/" in v for v in values):
        return "path"
    return "string"


def question_for(path: str, line: str, span_start: int, span_len: int, name: str | None) -> str:
    """The question that names the quantity (a template; only the question is templated)."""
    if name:
        return f"What is {name} in {path}?"
    masked = (line[:span_start] + "___" + line[span_start + span_len :]).strip()
    return f"In {path}, what fills the blank in `{masked}`?"
