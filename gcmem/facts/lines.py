"""Line-oriented text: file excerpts, their provenance header and each line's block context.

A memory that quotes a file is a **file excerpt**: a ``path:`` header line followed by the file's
lines (``src/app.py:`` then code), or one line with the path in front (``go.mod: require x
v1.2.3``). The path is provenance, never a subject: it qualifies every key the excerpt's lines
state (two lines of one file never share a key through it, and the same key in two files is
two keys), and every line of an excerpt is a line unit, even where it reads like prose
(docstrings, help texts).

The **block context** of a line is the chain of mapping keys that encloses it: YAML parents
(``services:`` / ``db:``), a TOML ``[section]``, a brace block opened by a key (``"scripts": {``,
``deps = {``). A code block opener (``if x >= 400 {``, ``def next(self):``) is a statement of
its own, not a context: a changed condition must not change the keys of the lines under it.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "CRON_ENTRY",
    "QUOTED_CODE",
    "ExcerptLine",
    "array_tables",
    "bare_header",
    "describe",
    "fence_language",
    "file_header",
    "inline_header",
    "is_code_path",
    "is_path",
    "is_yaml_path",
    "opens_stanza",
    "qualifier",
    "table_section",
]

# Code a sentence quotes between backticks ("the line is now `JAVA_OPTS=-Xmx6g`").
QUOTED_CODE = re.compile(r"`([^`\n]+)`")

# A crontab entry: five time fields (or an @ schedule), then the command. The command names
# the job; the schedule is its value ("0 2 * * * /opt/backup/run.sh" -> "30 4 * * * ...").
CRON_ENTRY = re.compile(
    r"^\s*(?P<schedule>@(?:reboot|yearly|annually|monthly|weekly|daily|hourly)"
    r"|[\d*][\d*/,\-]*(?:[ \t]+[\d*][\d*/,\-]*){4})[ \t]+(?P<command>\S.*)$"
)

# A path: no spaces, and either a directory part or a file extension (or a well-known
# extension-less file name). "app.port" is not a path: its "extension" is not a file type.
_EXTENSIONS = frozenset(
    str.split(
        "py pyi js mjs cjs jsx ts tsx go rs rb java kt kts scala c h cc cpp hpp cs swift php pl "
        "sh bash zsh fish ps1 lua r jl ex exs erl hs ml clj dart vue svelte sql json jsonc json5 "
        "yml yaml toml ini cfg conf env properties xml html htm css scss less md rst txt mod sum "
        "lock gradle tf hcl nix dockerfile mk cmake bzl proto graphql gql csv tsv plist service "
        "timer socket"
    )
)
_NAMES = frozenset(
    str.split(
        "makefile dockerfile containerfile gemfile rakefile procfile jenkinsfile vagrantfile "
        "justfile caddyfile brewfile pipfile gopkg license codeowners"
    )
)
_CODE_EXTENSIONS = frozenset(
    str.split(
        "py pyi js mjs cjs jsx ts tsx go rs rb java kt kts scala c h cc cpp hpp cs swift php pl "
        "lua r jl ex exs erl hs ml clj dart vue svelte"
    )
)
_YAML_EXTENSIONS = frozenset({"yml", "yaml"})
# A fence line of a Markdown code block, with its language tag ("```python", "~~~", "```").
_FENCE = re.compile(r"^\s*(?:```|~~~)(?P<lang>[\w+#.-]*)\s*$")
# A fence's language tag as the file extension of its code (``_CODE_EXTENSIONS``).
_FENCE_TYPES = {
    **{ext: ext for ext in ("py", "js", "ts", "go", "rs", "rb", "java", "kt", "scala")},
    **{"python": "py", "javascript": "js", "typescript": "ts", "golang": "go", "rust": "rs"},
    **{"ruby": "rb", "kotlin": "kt", "swift": "swift", "cpp": "cpp", "c++": "cpp"},
    **{"csharp": "cs", "c#": "cs", "php": "php", "tsx": "tsx", "jsx": "jsx"},
}
_JSON_EXTENSIONS = frozenset({"json", "jsonc", "json5"})
# INI files, whose keys all sit in sections (``.flake8``'s extension is its name)
_INI_EXTENSIONS = frozenset({"ini", "cfg", "flake8", "coveragerc", "pylintrc"})
# A JSON member that pins a version (``"through2": "^4.0.0"``): its key is a package, which a
# manifest lists once, whatever block the excerpt cut it from.
# (comma-first style too: ``, "nopt": "1"``)
_JSON_PIN = re.compile(r'^(?:,\s*)?"[^"]+"\s*:\s*"[\^~=<>v]*\d+(?:\.[\dx*]+)*(?:[-+][\w.\-]+)?",?$')
_PATH = re.compile(r"^[\w.\-@+~]+(?:/[\w.\-@+~]+)*$")
_HEADER_LINE = re.compile(r"^\s*(?P<path>\S+):\s*$")
# A line that only names the file it heads, bare or as a comment ("charts/gateway/values.yaml",
# "# services/api/values.yaml", "// src/app.ts")
_BARE_HEADER = re.compile(r"^\s*(?:(?:#|//|--|;)\s*)?(?P<path>/?[^\s:]+):?\s*$")
_INLINE = re.compile(r"^(?P<path>[^\s:]+):\s+(?P<rest>\S.*)$")
_CONTEXT_OPENER = re.compile(r"^(?P<key>[^:{}\[]+?)\s*(?::\s*[{\[]|:|\{|=\s*[{\[])$")
# A unified diff: its file lines (``--- a/x``, ``+++ b/x``, ``diff --git a/x b/x``) and hunk
# headers open it; each line after them carries a marker column (" " kept, "+" added, "-"
# removed) in front of the file's own text.
_DIFF_FILE = re.compile(r"^(?:\+\+\+|---)\s+(?:[ab]/)?(?P<path>[^\s]+)(?:\s.*)?$")
_DIFF_GIT = re.compile(r"^diff --git\s+(?:a/)?(?P<path>\S+)")
_DIFF_HUNK = re.compile(r"^@@ ")
# a Markdown fence that says its block is a diff: its lines have the marker column
_DIFF_FENCE = re.compile(r"^\s*(?:```|~~~)\s*(?:diff|patch)\s*$", re.IGNORECASE)
_DIFF_MARKERS = "+- \\"
_SECTION = re.compile(r"^\[\[?(?P<key>[^\]]+)\]\]?$")
# Sections a file repeats, one per element, as a TOML array of tables does: fluent-bit's
# ``[INPUT]``, ``[FILTER]``, ``[OUTPUT]`` (each output its own ``Name`` and ``Match``).
_REPEATED_SECTION = re.compile(r"^\[(?:INPUT|FILTER|OUTPUT|PARSER|MULTILINE_PARSER)\]$")
# a TOML assignment (``name = "Bug fixes"``), not an array element (``"httpx==0.22.0",``)
_TOML_ASSIGNMENT = re.compile(r"""^[\w"'.\- ]+?\s*=(?!=)""")
# A mapping key: a name (quoted or not, dotted or dashed), at most three words, no code.
_MAPPING_KEY = re.compile(r"^[\"'`]?[\w.\-/@$ ]{1,60}[\"'`]?$")
# An HCL (Terraform) block: a type and one or two quoted labels (``resource "aws_s3" "logs" {``).
_LABELLED_BLOCK = re.compile(r'^[A-Za-z_][\w-]*(?:\s+"[^"\s]{1,60}"){1,2}$')
_STANZA = re.compile(r"^[A-Za-z][\w-]*(?:[ \t]+[^\s:=,.;!?]+){1,2}[ \t]*$")
_STANZA_BODY = re.compile(r"^(?:\s{2,}|\t)\S")
_CODE_LEADS = frozenset(
    str.split(
        "if elif else for while def class fn func function with try except catch finally match "
        "switch case return async await impl struct enum trait type interface pub const let var "
        "static package import module do unless until when loop select go defer export"
    )
)
_BULLET = re.compile(r"^(?:[-*+•]\s+)")
_PLAN_UPDATE = re.compile(r"^~\s+(?=[\w\"'.\-]+\s*=)")
_PLAN_ARROW = re.compile(r"(?P<lead>=\s*)(?:\"[^\"]*\"|[^\s\"]+)\s+->\s+(?=\S)")
_CLOSERS = frozenset({"}", "},", "]", "],", ")", "),", "};", "});", "})"})


def is_path(text: str) -> bool:
    """A file path: no spaces, and a directory part or a file type (``retry.py``, ``go.mod``)."""
    if not _PATH.match(text) or not any(ch.isalpha() for ch in text):
        return False
    name = _file_name(text)
    if _known_name(name):
        return True
    return "." not in name and "/" in text and not text.endswith("/")


def _file_name(path: str) -> str:
    """A path's last part, lower-cased as ``_known_name`` reads it (``Dockerfile``)."""
    return path.rsplit("/", 1)[-1].lower()


# Names files have whatever follows (``Dockerfile.dev``, ``requirements-dev.txt``).
_NAME_PREFIXES = ("dockerfile", "makefile", "requirements", ".env.")


def _known_name(name: str) -> bool:
    """A file's name says it is one: a file type (``retry.py``) or a name files have
    (``Makefile``, ``requirements-dev.txt``)."""
    if name in _NAMES or name.startswith(_NAME_PREFIXES):
        return True
    return "." in name and name.rsplit(".", 1)[-1] in _EXTENSIONS


def diff_header(line: str) -> str | None:
    """The path a unified diff's header line names ("" for a hunk header, a ```` ```diff ````
    fence or a deleted file's ``/dev/null``), else None (not a diff header)."""
    if _DIFF_HUNK.match(line) or _DIFF_FENCE.match(line):
        return ""
    m = _DIFF_FILE.match(line) or _DIFF_GIT.match(line)
    if m is None:
        return None
    path = m.group("path")
    return path if path != "/dev/null" and is_path(path) else ""


def in_diff(line: str) -> bool:
    """Whether a line can be a unified diff's hunk line (a marker column, then the text)."""
    return line[:1] in _DIFF_MARKERS or diff_header(line) is not None


def file_header(line: str) -> str | None:
    """The path of a ``path:`` header line, else None."""
    # an absolute path heads an excerpt too ("/etc/logrotate.d/shopfront:"), not one line
    return _header_path(_HEADER_LINE.match(line))


def table_section(line: str) -> str | None:
    """The name of an INI or TOML section header line (``[testenv:docs]``), not of an array
    of tables (``[[bin]]``, whose elements share a name): a file has each such section once."""
    body = line.strip()
    sec = _SECTION.match(body)
    return None if sec is None or _element_header(body) else sec["key"]


def _element_header(body: str) -> bool:
    """A section header that opens one of several elements of its name (``[[bin]]``,
    ``[OUTPUT]``)."""
    return body.startswith("[[") or _REPEATED_SECTION.match(body) is not None


def fence_language(line: str) -> str | None:
    """The language tag of a code fence line, lower case ("" for an untagged fence), else
    None (no fence)."""
    m = _FENCE.match(line)
    return None if m is None else m.group("lang").lower()


def bare_header(line: str) -> str | None:
    """The path of a line that only names a file, bare or as a comment
    ("charts/gateway/values.yaml", "# services/api/values.yaml": the usual ways a pasted
    snippet says which file it is), else None."""
    return _header_path(_BARE_HEADER.match(line))


def _header_path(m: re.Match[str] | None) -> str | None:
    if m is None:
        return None
    path = m.group("path")
    return path if is_path(path.removeprefix("/")) else None


# a note after a file's path ("metrics-agent.service (excerpt)", "requirements.txt (api)")
_NOTE = re.compile(r"\s+\([^()]*\)(?=:?$)")


@lru_cache(maxsize=8192)  # read for every candidate pair at query time
def named_file(text: str) -> str | None:
    """The file an excerpt says it is: a path alone on its first line, over its lines
    ("services/worker/.env"), or the one path the line before its first fenced block names
    ("so settings/prod.py now overrides it:")."""
    lines = text.splitlines()
    if any(line.strip() for line in lines[1:]):
        path = bare_header(_NOTE.sub("", lines[0].strip()))
        if path is not None:
            return path.removeprefix("/")
    for before, line in itertools.pairwise(lines):
        if fence_language(line) is not None:
            named = {w for w in (t.strip("`'\"(),:;") for t in before.split()) if is_path(w)}
            return named.pop().removeprefix("/") if len(named) == 1 else None
    return None


def two_files(a: str, b: str) -> bool:
    """Whether two excerpts name two files (``named_file``): their lines are two files' keys,
    never one key's two values."""
    mine, theirs = named_file(a), named_file(b)
    return mine is not None and theirs is not None and not same_file(mine, theirs)


# A flow sequence written whole on its line: ``["3.9", "3.10"]``, ``[a, b]`` (a trailing
# comment aside); no nested brackets, so a call's or a type's arguments are not read as one.
_FLOW_LIST = re.compile(r"^\[(?P<body>[^\[\]]*)\]\s*(?:#.*)?$")


def list_members(value: str) -> Counter[str] | None:
    """The members of a value written as a list, counted (``["3.9", "3.10"]`` -> 3.9, 3.10),
    else None."""
    m = _FLOW_LIST.match(value.strip())
    if m is None:
        return None
    items = Counter(x.strip().strip("'\"").strip() for x in m["body"].split(","))
    del items[""]
    return items or None


def grown_list(older: str, newer: str) -> bool:
    """Whether ``newer`` is ``older``'s list with members added (or reordered): every member
    of the older list is still one, so the older value states nothing the newer one drops
    ("python-version: ["3.9"]", then "["3.9", "3.10"]"). Counted: a version tuple's
    component changed (``[0, 2, 0]`` -> ``[0, 2, 9]``) drops one."""
    old, new = list_members(older), list_members(newer)
    return old is not None and new is not None and old <= new


def same_file(a: str, b: str) -> bool:
    """Two paths of one file: the same, or one a shorter path of the other
    ("settings.py", "app/settings.py")."""
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def inline_header(line: str) -> tuple[str, str] | None:
    """``path: rest`` -> (path, rest) for a one-line excerpt, else None."""
    m = _INLINE.match(line.strip())
    if m is None or not is_path(m.group("path")):
        return None
    return m.group("path"), m.group("rest")


def is_code_path(path: str | None) -> bool:
    """Whether the excerpt is source code (not config or a manifest), by the file's type."""
    return _extension(path) in _CODE_EXTENSIONS


# The line comment a file type writes after its code (``replicas: 3  # for launch``).
_HASH_COMMENTS = frozenset(
    str.split("yml yaml toml ini cfg conf env py pyi rb sh bash zsh r pl ex exs")
)
_SLASH_COMMENTS = frozenset(
    str.split("js mjs cjs jsx ts tsx go rs java kt kts scala c h cc cpp hpp cs swift php dart")
)
_QUOTE_CHARS = frozenset("\"'`")


def _comment_marker(path: str | None) -> str | None:
    """The line comment marker of the file's type, if it has one."""
    name = (path or "").rsplit("/", 1)[-1].lower()
    ext = _extension(path)
    if ext in _HASH_COMMENTS or name.startswith(_NAME_PREFIXES):
        return "#"
    return "//" if ext in _SLASH_COMMENTS else None


def is_comment_line(text: str, path: str | None) -> bool:
    """Whether the file line is all comment (``# Offense count: 14``): it says something
    about the lines near it, and a file has many such notes of one shape, each about other
    lines; a value in it is no setting of the file."""
    marker = _comment_marker(path)
    return marker is not None and text.lstrip().startswith(marker)


def without_comment(text: str, path: str | None) -> str:
    """The line without the comment after its code (``replicas: 3  # for launch``,
    ``uses: pypa/gh-action-pypi-publish@67339c7... # release/v1``): a comment says why or
    which, not the value. A marker inside quotes, or not after a space, is text (``"#fff"``,
    ``https://``); a line that is all comment stays as it is."""
    marker = _comment_marker(path)
    if marker is None or marker not in text:
        return text  # every file line is read at ingest and query time: most have none
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in _QUOTE_CHARS:
            quote = ch
        elif text.startswith(marker, i) and i > 0 and text[i - 1] in " \t":
            return text[:i].rstrip()
    return text


def is_yaml_path(path: str | None) -> bool:
    return _extension(path) in _YAML_EXTENSIONS


def _extension(path: str | None) -> str:
    name = (path or "").rsplit("/", 1)[-1].lower()
    return name.rsplit(".", 1)[-1] if "." in name else ""


def _norm_key(text: str) -> str:
    text = text.strip().strip("\"'`").strip()
    return " ".join(text.casefold().split())


def _mapping_opener(body: str) -> str | None:
    """The key a block opener opens (``db:``, ``"scripts": {``, ``deps = {``), else None (a
    code opener such as ``if x {`` or ``def f(self):`` states something itself)."""
    m = _CONTEXT_OPENER.match(body)
    if m is None:
        return None
    key = m.group("key").strip()
    if _LABELLED_BLOCK.match(key):
        return _norm_key(key.replace('"', ""))  # ``variable "instance_type" {``
    if not _MAPPING_KEY.match(key) or len(key.split()) > 3:
        return None
    if key.split()[0].casefold() in _CODE_LEADS:
        return None
    return _norm_key(key)


def opens_stanza(line: str, following: str) -> bool:
    """Whether ``line`` is the header of a stanza of an indentation-structured config
    (``Host bastion`` in an ssh config: a keyword and a name or two, unindented) and
    ``following`` the first of its indented lines; a code statement opening a block
    (``class Foo``) is no header."""
    return (
        _STANZA.match(line) is not None
        and line.split()[0].casefold() not in _CODE_LEADS
        and _STANZA_BODY.match(following) is not None
    )


def _label_opener(body: str, indent: int) -> str | None:
    """The key a prose label ends on, after a comma ("In gateway.yaml, payments-svc:"): the
    lines indented under it are that key's, as under a bare ``payments-svc:`` (two blocks
    under two such labels are two subjects' settings, not one setting's two values). A path
    or a phrase after the comma names no key ("merged the PR, dashboard/package.json:")."""
    if indent or not body.endswith(":") or "," not in body:
        return None
    last = body[:-1].rsplit(",", 1)[1].strip()
    if len(last.split()) != 1 or "." in last or "/" in last:
        return None
    return _mapping_opener(last + ":")


@dataclass(frozen=True)
class ExcerptLine:
    """One line of line-oriented text with where it sits."""

    text: str  # the line, stripped (an inline header removed)
    indent: int
    context: tuple[str, ...]  # enclosing mapping keys, outermost first
    content: bool  # False: a header, a mapping opener, a section header or a closer
    path: str | None = None  # the excerpt's file, when the text has a header
    item: bool = False  # inside a YAML list item (its keys are the item's, not the block's)
    keyed: bool = True  # whether the line's own key identifies it within the file (below)

    @property
    def scope(self) -> tuple[str, ...]:
        """The file, then the block context: what qualifies the line's keys."""
        return ((self.path,) if self.path else ()) + self.context


def describe(units: Sequence[tuple[str, bool]]) -> list[ExcerptLine | None]:
    """Each statement unit ``(text, is a line)`` with where it sits: its file (after a
    ``path:`` header, or its own inline ``path:`` prefix) and its block context; ``None`` for
    prose sentences. The block stack runs over the line units in order."""
    out: list[ExcerptLine | None] = []
    stack: list[tuple[int, str]] = []  # (indent, key) of open YAML/brace blocks
    section: str | None = None
    element = False  # the section is an element of a TOML array of tables
    head: str | None = None  # the element's first line, which tells it from the others
    fence = ""  # the language of the open fenced block, as a file extension
    path: str | None = None
    item_indent: int | None = None  # indent of the list item the lines are in
    # the head line of the list item the lines are in, where the item is a mapping
    # (``- name: checkout`` / ``  timeout: 8s``) in a note naming no file
    record: str | None = None
    excerpt = 0  # which excerpt of the text (a header starts the next)
    # JSON lines: (position in out, excerpt, indent, indent of the outermost visible opener)
    braced_lines: list[tuple[int, int, int, int | None]] = []
    floor: dict[int, int] = {}  # excerpt -> lowest indent of a closer whose opener is unseen
    diff = False  # inside a unified diff
    for n, (raw, line) in enumerate(units):
        if not line:
            out.append(None)
            diff = False
            named = bare_header(raw)
            # a path alone above a fenced block names its file; above bare lines it may be a
            # caption ("requirements.txt" over pins a sentence later restates unqualified)
            fenced = n + 1 < len(units) and fence_language(units[n + 1][0]) is not None
            if named is not None and fenced:
                path, stack, section = named, [], None
                element = False
                excerpt += 1
            continue
        changed = diff_header(raw)
        if changed is not None:
            if changed and changed != path:
                path, stack, section = changed, [], None
                element = False
                excerpt += 1
            diff = True
            stack = [] if changed == "" else stack
            out.append(ExcerptLine(raw.strip(), 0, (), False, path))
            continue
        if diff and raw[:1] in _DIFF_MARKERS:
            marker, raw = raw[0], raw[1:]
            if marker != " " and marker != "+":
                # a removed line (or "\ No newline"): what the file no longer says
                context = tuple(key.removesuffix(" {").strip() for _, key in stack)
                out.append(ExcerptLine(raw.strip(), 0, context, False, path))
                continue
        else:
            diff = False
        # an indented line of an open excerpt is one of its lines (``license_files =`` /
        # ``   LICENSE.txt``), however much it reads like a file's name
        opens = path is None or not raw[:1].isspace()
        header = file_header(raw) if opens else None
        if header is None and opens:
            header = bare_header(raw)
        if header is not None and is_yaml_path(path) and not _known_name(_file_name(header)):
            # in a YAML file ``Lint/EndAlignment:`` is a key (a rubocop cop), not a file
            header = None
        if header is not None:
            path, stack, section = header, [], None
            element = False
            excerpt += 1
            out.append(ExcerptLine(raw.strip(), 0, (), False, header))
            continue
        tag = fence_language(raw)
        if tag is not None:  # a fence opens a block (its language) or closes the open one
            fence = "" if fence or not tag else _FENCE_TYPES.get(tag, "")
        line_path = path
        inline = inline_header(raw) if path is None else None
        if inline is not None:
            line_path, raw = inline
        # a Terraform plan's in-place update (``~ instance_type = "m6i.large"``) states the
        # line's new value: the marker is no part of its key
        stripped = raw.strip()
        if _PLAN_UPDATE.match(stripped):
            # ... and the value after its arrow (``~ size = "10" -> "20"``)
            stripped = _PLAN_ARROW.sub(r"\g<lead>", _PLAN_UPDATE.sub("", stripped))
        indent = len(raw) - len(raw.lstrip())
        body = _BULLET.sub("", stripped)
        content = True
        if body != stripped:
            item_indent = indent
            following = units[n + 1] if n + 1 < len(units) else None
            record = body if path is None and _record_item(body, indent, following) else None
        elif item_indent is not None and indent <= item_indent:
            item_indent = record = None
        # YAML lets a block sequence sit at its key's own indent (``branches:`` / ``- main``):
        # such an item is still the key's
        compact = (
            stripped.startswith("- ") and is_yaml_path(line_path) and _opened_at(stack, indent)
        )
        while (
            stack
            and stack[-1][0] >= indent
            and not stack[-1][1].endswith("{")
            and not (compact and stack[-1][0] == indent)
        ):
            stack.pop()
        if body in _CLOSERS:
            while stack and not stack[-1][1].endswith("{"):
                stack.pop()
            if stack:
                stack.pop()
            elif indent > 0:
                floor[excerpt] = min(indent, floor.get(excerpt, indent))
            content = False
        # in source code a bracketed line is a list literal, not a TOML or INI section, and in
        # YAML a flow sequence (``["3.10", "3.11-dev"]`` under ``python_version:``)
        listed = is_code_path(line_path) or is_yaml_path(line_path)
        sec = None if listed else _SECTION.match(body)
        if sec is not None:
            section, stack = _norm_key(sec.group("key")), []
            # one element of a TOML array of tables (``[[tool.poetry.source]]``)
            element, head = _element_header(body), None
            content = False
        context = tuple(
            k.removesuffix(" {").strip()
            for k in ([section] if section else []) + [key for _, key in stack]
        )
        if content and sec is None:
            key = _mapping_opener(body)
            if key is None and line_path is None:
                key = _label_opener(body, indent)
            following = units[n + 1] if n + 1 < len(units) else None
            if (
                key is None
                and indent == 0
                and not is_code_path(line_path)  # source code's blocks are statements
                and following is not None
                and following[1]
                and opens_stanza(body, following[0])
            ):
                key = _norm_key(body)  # ``Host bastion``: its indented lines are its own
            if key is not None:
                braced = body.endswith(("{", "["))
                stack.append((indent, key + (" {" if braced else "")))
                content = False
        item = item_indent is not None
        rooted = indent == 0 or section is not None or bool(stack and stack[0][0] == 0)
        # a fence's language says the file type where no path does (```python: an indented
        # binding is a class's or a function's, as in a .py file)
        typed = line_path or (f"snippet.{fence}" if fence in _CODE_EXTENSIONS else None)
        keyed = _keyed(typed, indent, item, rooted, section is not None, body)
        # the elements of a TOML array of tables have the same keys, and so have the items of
        # YAML's list of mappings in a note naming no file: an element's first line (``name =
        # "internal"``, ``- name: checkout``) says which element the lines after it are of
        if element and content and head is None:
            head, keyed = body, False
        elif element and head is not None:
            context = (*context, head)
        if record is not None and typed is None:
            keyed = keyed and body == stripped
            if body == stripped:
                context = (*context, record)
        # a comment's words (``# Offense count: 14``) are a note on the lines near it
        keyed = keyed and not is_comment_line(stripped, line_path)
        json_member = content and keyed and _extension(line_path) in _JSON_EXTENSIONS
        if json_member and _JSON_PIN.match(stripped) is None:
            braced_lines.append((len(out), excerpt, indent, stack[0][0] if stack else None))
            # a member two levels deep whose excerpt shows no opener is a nested object's
            # (the ``"name"`` of package.json's ``"author": {``, a primer.json project's
            # ``"git_clone_url"``), not the file's own
            keyed = bool(stack) or indent < (2 if raw.startswith("\t") else 4)
        out.append(ExcerptLine(stripped, indent, context, content, line_path, item, keyed))
    # A JSON excerpt cut from inside a nested object shows a closer (``},``) whose opener it
    # does not: the lines deeper than that closer sit in a block the excerpt does not name
    # (``"one": ...`` under one message and under another), so their keys name nothing; a
    # version pin names its package wherever it sits.
    for pos, exc, indent, outer in braced_lines:
        lowest = floor.get(exc)
        if lowest is None or indent <= lowest or (outer is not None and outer <= lowest):
            continue
        where = out[pos]
        assert where is not None
        out[pos] = dataclasses.replace(where, keyed=False)
    return out


_MAPPING_PAIR = re.compile(r"^[\w.\-]+:\s+\S")


def _record_item(body: str, indent: int, following: tuple[str, bool] | None) -> bool:
    """A list item that is one mapping of a YAML sequence: its bullet line is ``key: value``
    and so is the deeper-indented line under it (``- name: checkout`` / ``  timeout: 8s``)."""
    if following is None or not following[1] or _MAPPING_PAIR.match(body) is None:
        return False
    raw = following[0]
    line = raw.strip()
    deeper = len(raw) - len(raw.lstrip()) > indent
    return deeper and _BULLET.match(line) is None and _MAPPING_PAIR.match(line) is not None


def _opened_at(stack: Sequence[tuple[int, str]], indent: int) -> bool:
    """A YAML key opened at this indent is open: a sequence item at that indent is its own."""
    return any(at == indent and not key.endswith("{") for at, key in stack)


def _keyed(
    path: str | None, indent: int, item: bool, rooted: bool, sectioned: bool, body: str
) -> bool:
    """Whether a line's own key (``x = y``, ``key: value``) names one thing in its file. In
    source code only top-level lines: an indented binding is local, and the same file binds
    the name again in every function. In YAML not a line inside a list item (each item has
    the same keys) nor one whose enclosing blocks the excerpt does not show (it may be in
    one); in JSON the same, where a closer shows such a block (``describe``); in an INI file
    (every key in a section) only under a section header the excerpt shows (``commands =``
    is in every ``[testenv:*]`` of a ``tox.ini``); in TOML there, at indent 0 or where the
    line assigns no key (an array's element: ``"httpx>=0.22.0",`` names its package).
    Elsewhere (and outside file excerpts) yes."""
    if path is None:
        return True
    if is_code_path(path):
        return indent == 0
    if _extension(path) in _YAML_EXTENSIONS:
        return rooted and not item
    if _extension(path) in _INI_EXTENSIONS:
        return sectioned
    if _extension(path) == "toml":
        # an indented key sits in a table the excerpt does not show, most often one element
        # of an array of tables (``[[tool.towncrier.type]]`` / ``    name = "Bug fixes"``)
        return sectioned or indent == 0 or _TOML_ASSIGNMENT.match(body) is None
    return True


def array_tables(text: str) -> frozenset[str]:
    """The block keys (as a line's context names them) of a text's TOML arrays of tables
    (``[[example]]``) and repeated sections (``[OUTPUT]``): each header opens one of several
    blocks of that name."""
    return frozenset(
        _norm_key(sec["key"])
        for line in text.splitlines()
        if (sec := _SECTION.match(line.strip())) is not None and _element_header(line.strip())
    )


def qualifier(scope: Sequence[str]) -> str:
    """The qualifier a line's keys carry: its file and block context (``a.yml > jobs > x``)."""
    return " > ".join(scope)
