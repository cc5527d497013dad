"""Settings the question names by their key: a config line, a pin or an assignment restated
with another value, in a file excerpt or in a sentence.

The ledger keys a file's lines by the file and block that hold them (``gcmem.facts.lines``), so
``requests==2.28.1`` in a quoted ``requirements.txt`` and "chore(deps): requests==2.31.0" in a
commit message are two keys, and ``instance_type = "t3.medium"`` inside a Terraform block is
another key than the same assignment quoted alone. The question says which they are: "Which
version of requests does the scraper pin?" names the key ``requests``, "What instance type is
the bastion?" the key ``instance_type`` and the thing it belongs to. A newer unit that assigns
the named key another value then supersedes the older unit's assignment, where both say the
same of the question's other words (neither names a thing the other does not: "the staging
box" is not "the box"; a file path is provenance and left out), each unit's owner before the
key is named by the other text ("Free plan rate limit: 60" is not the "Enterprise plan rate
limit"), both name the same environments, neither says a value holds on ("stays", "keeps"),
the newer is no hedge ("might", "not", "if", ...), each assigns the key once, and the question
does not ask what was added (the key gathers values).

A key is one key however a format spells it (``httpReadTimeout`` in a chart's values is the
``--http-read-timeout`` flag it renders); a command's flags are settings wherever they stand in
its line; a JSON key, a Go module requirement and "bump pgx to v5.5.5" assign too. A key
assigned under two blocks (``requests:`` and ``limits:``) is the one whose block the newer unit
names. Two values that differ only in their unit (``15 * time.Second``, ``15s``) are one value.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from functools import lru_cache

from gcmem.facts.align import MIN_CONTEXT_LINES, Unit, excerpt_edge, names_something, units_of
from gcmem.facts.extract import OWNER_LABEL, config_directive, proposed
from gcmem.facts.labels import collection_label, collection_setting
from gcmem.facts.lines import (
    CRON_ENTRY,
    grown_list,
    is_code_path,
    is_path,
    is_yaml_path,
    named_file,
    same_file,
)
from gcmem.normalize import word_stem

__all__ = ["KeyChange", "KeyValue", "asked_keys", "key_changes", "key_values", "names_key"]

# ``KEY = value``, ``KEY: value``, ``pkg==1.2``, ``key value;`` (nginx). A key is a code name:
# it starts a line, or (in a sentence) it has a ``_`` or ``.`` or is upper case, so that prose
# ("Heads up: the channel") is never a key.
_ASSIGNMENT = re.compile(
    r"(?P<quote>\"?)(?P<key>[A-Za-z_][\w.\-]*)(?P=quote)\s*(?P<op>==|~=|>=|=|:(?!//))\s*"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|\{[^}\n]*\}|\[[^\]\n]*\]|"
    # an arithmetic value ("60 * 60 * 12", "30 * time.Second") is one value
    r"\d[\w.]*(?:[ \t]*[*+/][ \t]*[\w.]+)+|[^\s,;#`]+)"
)
# A typed declaration (``pub const MAP_FIXED: c_int = 0x0010;``, ``let limit: u32 = 5;``,
# ``val retries: Int = 3``, a parameter's default ``timeout: float = 5.0,``): the declared
# name is its key, the type no part of it. Without a declaration word only in a code file
# (``TIMEOUT: int = 30``; in YAML ``command: FOO=bar`` is a key and its value).
_DECLARED = re.compile(
    r"^(?P<decl>(?:(?:pub(?:\([\w:\s]*\))?|export|private|public|internal|static|const|let"
    r"|var|val|mut|readonly)\s+)*)(?P<key>[A-Za-z_]\w*)\s*:\s*[^=:;]+?\s*=(?!=)\s*"
    r"(?P<value>[^;]+?)\s*[;,]?\s*$"
)
# a Go module requirement ("github.com/jackc/pgx/v5 v5.4.3"): the module's name is its key
_REQUIRE = re.compile(
    r"^(?:require\s+)?[\w.\-]+(?:/[\w.\-]+)*?/(?P<key>(?!v\d+\b)[A-Za-z][\w.\-]*)(?:/v\d+)?\s+"
    r"(?P<value>v\d[\w.\-+]*)\s*(?://.*)?$"
)
# "bump pgx to v5.5.5", "upgraded axios from 1.6.2 to 1.7.4": a package and its new version
_BUMPED = re.compile(
    r"\b(?:bump(?:s|ed)?|upgrade[sd]?)\s+(?P<key>[A-Za-z][\w.\-]*)"
    # "upgrade react and react-dom to ^18.2.0": each package named to the one version
    r"(?P<more>(?:,\s*[A-Za-z][\w.\-]*)*,?\s+and\s+[A-Za-z][\w.\-]*)?\s+(?:from\s+\S+\s+)?"
    r"to\s+(?:version\s*=\s*\"?)?(?P<value>[~^]?v?\d[\w.\-+]*\w)"
    # "pydantic is now pinned to 2.4.2"
    r"|\b(?P<pinned>[A-Za-z][\w.\-]*)\s+(?:is\s+)?(?:now\s+)?pinned\s+(?:to|at)\s+"
    r"(?P<pin>v?\d[\w.\-+]*\w)",
    re.I,
)
# "raised gunicorn `timeout` to `120`", "turned the `ingest.pipeline` logger up to `DEBUG`",
# "dropped invoicer sidekiq concurrency to `5`": a key and a new value quoted as code
_TO_TICKED = re.compile(
    r"(?:`(?P<ticked>[A-Za-z_][\w.\-]*)`(?:\s+[a-z]+){0,2}?|(?P<key>[A-Za-z_][\w.\-]*))"
    r"\s+(?:up\s+|down\s+)?to\s+`(?P<value>[^`\n]+)`"
)
# "go get github.com/spf13/cobra@v1.8.0", "npm install axios@1.7.4": a package installed at a
# version (a Go module's key is its name, as in ``go.mod``'s require lines)
_INSTALLED = re.compile(
    r"\b(?:go\s+get|npm\s+(?:i|install)|pnpm\s+add|yarn\s+add)\s+(?:-\S+\s+)*"
    r"(?:[\w.\-]+/)*(?P<key>(?!v\d+@)[A-Za-z][\w.\-]*)(?:/v\d+)?@(?P<value>v?\d[\w.\-+]*\w)"
)
# a JVM heap flag ("-Xmx2g" in JAVA_OPTS): its key, and the words a question asks it by
_JVM_FLAG = re.compile(r"(?<![\w\-])-(?P<key>Xm[xs])(?P<value>\d+[kKmMgGtT]?)(?![\w.])")
_ALIASES = {
    "xmx": ("max heap", "maximum heap"),
    "xms": ("initial heap", "min heap"),
    "runs-on": ("runner",),  # a GitHub Actions job's runner
}
# "CONFIG SET maxmemory-policy allkeys-lru" (a Redis command sets a key to a value)
_CONFIG_SET = re.compile(r"\bconfig\s+set\s+(?P<key>[\w.\-]+)\s+(?P<value>[^\s`]+)", re.I)
# a command's flag and its value ("--concurrency=16"): a setting wherever it is in the line
_FLAG = re.compile(r"(?:^|\s)--$")
# what follows a value and leaves it whole: a comment, a list's or a statement's separator
_TRAILER = re.compile(r"`?[,;]?\s*(?:(?:#|//|;).*)?")
# a ``key value`` line of a .conf or .cfg file (``maxmemory-policy noeviction``, redis.conf)
_SPACED = re.compile(r"^(?P<key>[a-z][\w.\-]*)\s+(?P<value>[^\s#;]+)\s*(?:#.*)?$")
# "bumped client_max_body_size to 50m": a code name and its new value in a sentence
_TO_VALUE = re.compile(r"(?P<key>[A-Za-z_][\w.\-]*)\s+to\s+(?P<value>[\w.\-:/\"']+)")
# "aws_instance.ci_runner instance_type is now "m6i.large"": a code name said to hold a value
_IS_NOW = re.compile(
    r"(?P<key>[A-Za-z_][\w.\-]*)\s+is\s+now\s+(?P<value>\"[^\"\n]+\"|'[^'\n]+'|[\w.\-:/]+)"
)
# a file's name: what a colon after it labels is one of its lines
_FILE_NAME = re.compile(
    r"\.(?:txt|ya?ml|json|toml|ini|cfg|conf|env|lock|xml|gradle|properties|tf|py|js|ts)$"
)
# A file named in a label: an absolute or home path (``is_path`` reads none), or a
# configuration file's name.
_FILE_IN = re.compile(
    r"(?:^|\s)~?/[\w.-]+(?:/[\w.-]+)*|\S+\.(?:txt|ya?ml|json|toml|ini|conf|list)\b"
)
_CODE_NAME = re.compile(r"[_.]|^[A-Z][A-Z0-9]+$")
# a function's signature, whose keyword defaults are settings of it
_SIGNATURE = re.compile(r"^\s*(?:async\s+)?(?:def|fn|func|fun|function)\s+\w+\s*\(")
# a verb that says a file holds the line after it ("test.yml now says runs-on: ubuntu-22.04")
_QUOTES_LINE = re.compile(r"\b(?:says|has|reads|shows)\s+(?:now\s+)?$", re.I)
# a Cargo dependency's inline table, whose version is the package's
_VERSION_TABLE = re.compile(r"^\{\s*version\s*=\s*\"(?P<version>[^\"]+)\"")
_HEDGE = re.compile(
    r"\b(?:might|maybe|if|unless|not|never|no longer|would|could|should we|proposal|"
    r"proposed|planning|plan to|thinking|considering|revert(?:ed)?|rolled back)\b|n't\b",
    re.I,
)
_ACCUMULATES = re.compile(r"\b(?:add|adds|added|include[sd]?|another|also|list|all)\b", re.I)
# A ticket's or review's reference names no owner ("PR #412: const defaultTimeout = 3").
_REFERENCE = re.compile(r"PR|MR|CR|CI|QA|[A-Z]{2,6}-\d+")
# The unit says a value holds on against another ("staging stays on LOG_LEVEL=debug").
_HOLDS = re.compile(r"\b(?:still|stays?|remains?|keeps?|unchanged)\b", re.I)
# a comment after a line's code ("MAX_UPLOAD_MB = 20  # keep in sync with nginx")
_TRAILING_COMMENT = re.compile(r"\s+(?:#|//)\s.*$")
# Environments a setting is scoped to: two units naming different ones are two keys.
_ENV = re.compile(
    # (a test of another kind is no environment: "under load test")
    r"\b(?:staging|stage|stg|prod|production|dev|development|"
    r"(?<!load )(?<!unit )(?<!smoke )(?<!stress )(?<!perf )(?<!integration )test|"
    r"testing|qa|local|sandbox|"
    r"preview|canary|beta)\b",
    re.I,
)
# Words of setting a value, no owner of it ("bumped", "set ... to").
_SETS = frozenset(
    str.split(
        """set sets bumped bump lowered lower raised raise changed change moved move switched
    switch updated update pinned upgraded upgrade downgraded downgrade reverted flipped flip
    turned turn made put merged merge increased increase decreased decrease chore deps fix feat
    export alias"""
    )
)
_STOP = frozenset(
    str.split(
        """a an the of in on at to for from by with is are was were be do does did what which
    who where when how set use used uses using run runs pin pinned pins depend depends require
    requires required value setting config configured file version our my we i it its this that
    there currently now manifest manifests default defaults"""
    )
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*")
_CONF_TYPES = (".conf", ".cfg")
_PROMPT = re.compile(r"^\s*(?:\$|[\w.\-]+=?[#>])\s+")  # "$ ", "postgres=# "
# a command's own words ("ALTER SYSTEM SET", "CONFIG SET"), no owner of the setting
_COMMAND_WORDS = frozenset(str.split("alter system config select sudo exec"))
_LABEL = re.compile(r"^\s*(?P<label>[A-Za-z][\w\-]*):\s+\S")
# labels of a message, not of a setting's owner ("Update: LOG_LEVEL=info")
_MESSAGE_LABELS = _SETS | frozenset(
    str.split("note notes update fyi reminder edit psa summary context tldr done heads now")
)
_NO_OWNER = _MESSAGE_LABELS | _STOP | _COMMAND_WORDS
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
# a flag ("--entity-name", "-A") or a path-like token ("/srv/app/bin/celery", "kafka-configs.sh")
_FLAG_OR_PATH = re.compile(
    r"(?<!\S)(?:--?[A-Za-z][\w.\-]*|\S*/\S*|[\w.\-]+\.(?:sh|py|js|rb))(?!\S)"
)
# values a setting flips between: that one is in the older text elsewhere says nothing
_FLIPS = frozenset(str.split("true false on off yes no enabled disabled"))


@dataclass(frozen=True)
class KeyValue:
    """One assignment: the unit it is in, its key as written and its value."""

    index: int
    unit: str
    key: str
    value: str
    path: str | None = None  # the file of the excerpt the unit is a line of
    block: str | None = None  # the innermost block the line is in (``limits:``, ``[root]``)
    # a line whose own key names nothing (``Unit.keyed``: in a block its excerpt does not
    # show, a list item)
    unkeyed: bool = False


@dataclass(frozen=True)
class KeyChange:
    """The older unit's assignment of ``key`` and the newer value that replaces it."""

    index: int
    unit: str
    key: str
    old: str
    new: str


def _stem(word: str) -> str:
    return word_stem(word.lower())


@lru_cache(maxsize=4096)
def _query_words(query: str) -> tuple[frozenset[str], frozenset[str]]:
    """The question's words as written (lower case) and their stems, stop words left out."""
    raw = [w.lower().rstrip(".") for w in _WORD.findall(_POSSESSIVE.sub("", query))]
    kept = [w for w in raw if w not in _STOP]
    return frozenset(raw), frozenset(_stem(w) for w in kept)


def _parts(key: str) -> list[str]:
    """A key's words: ``instance_type`` -> instance, type; ``maxRetries`` -> max, retries."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return [p for p in re.split(r"[_.\-\s]+", spaced.lower()) if p]


_HOW_MANY = re.compile(r"\bhow many\b", re.I)
_COUNT_WORDS = frozenset(["count", "num", "number"])


def _name(key: str) -> tuple[str, ...]:
    """A key's words; a dotted key's last segment where that is a name of several words
    (``spring.datasource.hikari.maximum-pool-size`` is the ``maximum-pool-size`` setting)."""
    last = key.rsplit(".", 1)[-1]
    return tuple(_parts(last)) if len(_parts(last)) > 2 else tuple(_parts(key))


def asked_keys(query: str, keys: set[str]) -> set[str]:
    """The keys the question names: as written ("MAX_RETRIES", "requests") or word by word
    ("instance type" for ``instance_type``)."""
    raw, stems = _query_words(query)
    counts = _HOW_MANY.search(query) is not None
    out = set()
    for key in keys:
        parts = list(_name(key))
        enough = len(parts) > 1  # one word alone may be any word of the question
        if counts and enough and parts[-1] in _COUNT_WORDS:
            parts = parts[:-1]  # "How many replicas ...?" asks for ``replicaCount``
        aliases = _ALIASES.get(key.lower(), ())
        if (
            key.lower() in raw
            or (enough and {_stem(p) for p in parts} <= stems)
            or any({_stem(w) for w in alias.split()} <= stems for alias in aliases)
        ):
            out.add(key)
    return out


def key_values(text: str) -> list[KeyValue]:
    """The assignments of a chunk's units (lines and sentences)."""
    return list(_key_values(text))


@lru_cache(maxsize=8192)
def _key_values(text: str) -> tuple[KeyValue, ...]:
    return tuple(_assignments(text))


def _assignments(text: str) -> Iterator[KeyValue]:
    named = named_file(text)  # "session cache redis.conf" over a fence: its lines are the file's
    for unit in units_of(text):
        if not unit.content or unit.question:
            continue
        body = unit.text
        if unit.line:
            directive = config_directive(body, unit.path or named)
            spaced = _SPACED.match(body)
            if directive is None and spaced and (unit.path or named or "").endswith(_CONF_TYPES):
                directive = spaced["key"], spaced["value"]
            if directive is not None:
                yield KeyValue(
                    unit.index, body, *directive, unit.path, _block(unit), not unit.keyed
                )
                continue
            required = _REQUIRE.match(body)
            if required is not None:
                yield KeyValue(unit.index, body, required["key"], required["value"], unit.path)
                continue
        declared = _DECLARED.match(body)
        if declared is not None and (declared["decl"] or is_code_path(unit.path)):
            yield _assigned(unit, declared["key"], declared["value"])
            continue
        pos = 0
        while (m := _ASSIGNMENT.search(body, pos)) is not None:
            # a rejected key's "value" may hold the next key ("last night: JAVA_OPTS=...")
            pos = m.end("key")
            if _is_assignment(m, body, unit.line):
                pos = m.end()
                yield _assigned(unit, m["key"], m["value"])
        said: dict[tuple[str, str], None] = {}  # in order, once each
        if not unit.line:
            for m in (*_TO_VALUE.finditer(body), *_IS_NOW.finditer(body)):
                if "_" in m["key"]:
                    said[(m["key"], _clean(m["value"]))] = None
        if unit.path is None:  # a sentence, or a note's line (a changelog's bullet)
            for m in _BUMPED.finditer(body):
                if m["pinned"]:
                    said[(m["pinned"], m["pin"])] = None
                elif "_" not in m["key"]:  # "bumped max_conns to 50" is read above
                    for key in (m["key"], *_WORD.findall(m["more"] or "")):
                        if key.lower() != "and":
                            said[(key, m["value"])] = None
            for m in _TO_TICKED.finditer(body):
                said[(m["ticked"] or m["key"], _clean(m["value"]))] = None
        for m in _CONFIG_SET.finditer(body):
            said[(m["key"], _clean(m["value"]))] = None
        for m in _INSTALLED.finditer(body):
            said[(m["key"], m["value"])] = None
        for m in _JVM_FLAG.finditer(body):
            said[(m["key"], m["value"])] = None
        for key, value in said:
            yield KeyValue(unit.index, body, key, value, unit.path)


def _assigned(unit: Unit, key: str, value: str) -> KeyValue:
    return KeyValue(
        unit.index, unit.text, key, _clean(value), unit.path, _block(unit), not unit.keyed
    )


def _block(unit: Unit) -> str | None:
    scope = unit.context[1:] if unit.path else unit.context
    return scope[-1].rstrip(":{[] ").lstrip("[") if scope else None


def _is_assignment(m: re.Match[str], body: str, line: bool) -> bool:
    """A file line's leading key, a command's flag, a code name anywhere, a pin
    (``requests==2.31.0``), or in a sentence a plain word given a number or a quoted value
    ("set to replicas: 6")."""
    if m["op"] == "=" and _FLAG.search(body[: m.start()]):
        return True
    rest = body[m.end() :].strip()
    numeric = m["value"][:1].isdigit()
    if m["op"] == ":" and _FILE_NAME.search(m["key"]):
        return False  # a file named before its line ("requirements.txt: pandas==2.1.4")
    if m["op"] == ":" and CRON_ENTRY.match(body[m.start("value") :]):
        return False  # a label before a crontab's line ("crontab on db-01: 15 2 * * * ...")
    # a label that names a collection, not by the key's own word ("Set replicas: 6"), or a
    # file: one member of it, one of its lines ("added to /etc/hosts on the laptop:
    # 192.168.1.52 printer.home", "/etc/hosts on the kiosk laptops: 192.168.1.41 till.lan")
    if m["op"] == ":" and not line:
        label = body[: m.end("key")]
        if (
            ":" not in label
            and collection_label(label)
            and (not collection_label(m["key"]) or _FILE_IN.search(label) is not None)
        ):
            return False
    # words after a code name's "=" say where or why ("DATABASE_POOL_SIZE=25 in
    # .env.production after the alerts"): a label takes a colon
    coded = m["op"] == "=" and _CODE_NAME.search(m["key"]) is not None
    if m["op"] == "=" and _SIGNATURE.match(body):
        return True  # a parameter's default (``def fetch_feed(url, timeout=30):``)
    # a JSON pair ("\"react\": \"^18.2.0\" builds fine") is code, whatever words follow it,
    # and so is a line quoted after a verb that says a file holds it ("now has LOG_LEVEL: warn")
    paired = m["op"] == ":" and (
        (m["quote"] == '"' and m["value"][:1] == '"') or _QUOTES_LINE.search(body[: m.start()])
    )
    if (
        rest
        and not _TRAILER.fullmatch(rest)
        and not coded
        and not paired
        and (line or (m["op"] == ":" and not numeric))
    ):
        return False  # a label before words ("Maya: I moved", "Note: the key is ..."), no setting
    if (line and not body[: m.start()].strip()) or _CODE_NAME.search(m["key"]) or paired:
        return True
    return m["op"] in ("==", "~=", ">=") or m["value"][:1] in "0123456789\"'{["


def _clean(value: str) -> str:
    table = _VERSION_TABLE.match(value)  # ``tokio = { version = "1.28", ... }``: its version
    if table:
        return table["version"]
    if value.count(")") > value.count("("):  # a signature's last default (``verify=True):``)
        value = value[: value.rfind(")")]
    return value.strip().strip("\"'").rstrip(".")


def _owner(query: str, kv: KeyValue) -> frozenset[str]:
    """What the unit says the key belongs to, in its clause before the key: names ("Free plan
    rate limit: 60", "auth-service: request_timeout: 5s") and the question's own words ("set
    the worker to LOG_LEVEL=warn")."""
    line = _key_line(kv)
    line = line[: line.find(kv.key)]
    before = re.split(r"[,;—.!?]\s|:\s(?=\S+\s*(?:==|=|:))", line)[-1]
    # a heading of words before a colon is the message's, not the owner's ("Black Friday
    # prep: checkout deployment set to replicas: 6"); a one-word label ("auth-service:")
    # names the owner
    heading = re.match(r"^\s*[^:]*\s[^:]*:\s", before)
    named: frozenset[str] = frozenset()
    if heading is not None:
        # ... unless it names a database, a host, an environment ("audit db: max_connections")
        if OWNER_LABEL.fullmatch(heading.group().strip()):
            named = frozenset(w.lower() for w in _WORD.findall(heading.group())) - _NO_OWNER
        before = before[heading.end() :]
    # a command's prompt, program, flags and paths are how it runs, not whose setting it is
    prompted = _PROMPT.match(before)
    if prompted:
        words = before[prompted.end() :].split(None, 1)
        before = words[1] if len(words) > 1 else ""
    before = _FLAG_OR_PATH.sub(" ", before)
    raw, _ = _query_words(query)
    # a line's label names its owner ("reports: celery ... --concurrency=3", a Procfile's)
    label = _LABEL.match(line)
    return (
        frozenset(
            w.lower()
            for w in _WORD.findall(before)
            if w.lower() not in _NO_OWNER
            and not _REFERENCE.fullmatch(w)
            and (re.search(r"[-_]|^[A-Z]", w) or w.lower() in raw)
        )
        | frozenset(
            [label["label"].lower()]
            if label and label["label"] != kv.key and label["label"].lower() not in _MESSAGE_LABELS
            else []
        )
        | named
    )


def names_key(key: str, text: str) -> bool:
    """Whether ``text`` names the key, as written or word by word."""
    return key.lower() in text.lower() or set(_name(key)) <= _says(text)


def _named_by(owner: frozenset[str], text: str) -> bool:
    """Whether ``text`` names every owner word, whole or word by word ("session cache" names
    ``session-cache``)."""
    said = _says(text)
    return all(w in said or set(_parts(w)) <= said for w in owner)


def _key_line(kv: KeyValue) -> str:
    """The line of the unit that holds the assignment."""
    start = kv.unit.find(kv.key)
    return kv.unit[kv.unit.rfind("\n", 0, start) + 1 :].split("\n", 1)[0]


def _says(text: str) -> frozenset[str]:
    words = _WORD.findall(_POSSESSIVE.sub("", text))
    # a dotted name's segments are said whole too ("ci_runner" of "aws_instance.ci_runner")
    segments = {seg.lower() for w in words if "." in w for seg in w.split(".") if seg}
    return (
        frozenset(w.lower() for w in words)
        | frozenset(p for w in words for p in _parts(w))
        | segments
    )


def _envs(text: str) -> frozenset[str]:
    return frozenset(m.group(0).lower() for m in _ENV.finditer(text))


def _context(query: str, key: str, text: str) -> frozenset[str]:
    """The question's words besides the key that the text says (a file path's words too; a
    word only another setting's key has names no thing: ``workers = 4`` beside ``timeout``;
    a word said longer counts: "Postgres" in ``postgresql.conf``)."""
    raw, stems = _query_words(query)
    # a file's path is provenance (the ledger's), not a thing the question asks about
    own = {_stem(p) for p in _parts(key)} | {_stem(key)} | {_stem(w) for w in raw if is_path(w)}
    keys = {kv.key for kv in key_values(text) if _name(kv.key) != _name(key)}
    said = {_stem(w) for w in _says(_without(text, keys))}
    return frozenset(
        q for q in stems - own if q in said or (len(q) >= 5 and any(w.startswith(q) for w in said))
    )


def _without(text: str, keys: set[str]) -> str:
    """``text`` without the names of ``keys`` where they stand as keys (before an operator)."""
    for key in sorted(keys, key=len, reverse=True):
        text = re.sub(rf"(?<![\w.\-]){re.escape(key)}(?=[\"']?\s*(?:==|=|:|\s+\S))", " ", text)
    return text


# what may follow a number and leave it the same quantity (``time.Second``, ``15s``, ``v1.2``)
_UNITS = frozenset(
    str.split(
        """v s ms sec secs second seconds m min mins minute minutes h hr hrs hour hours d day
    days timesecond timemillisecond timeminute timehour k kb kib mb mib gb gib mi gi"""
    )
) | {""}


def _same_value(a: str, b: str) -> bool:
    """The same value, written two ways: ``15 * time.Second`` and ``15s``, ``1.32`` and
    ``1.32.0`` (the same numbers, whatever their units: a change of unit alone is no change
    gcmem can claim)."""
    if a.lower() == b.lower():
        return True
    if not all(re.sub(r"[\d\s.*_\"']", "", v.lower()) in _UNITS for v in (a, b)):
        return False  # "us-east-1" / "eu-central-1": more than numbers differ
    numbers = [_numbers(a), _numbers(b)]
    return bool(numbers[0]) and numbers[0] == numbers[1]


def _several(value: str) -> bool:
    """A value that lists members itself (``a,b``, ``[a, b]``, ``a b``)."""
    return re.search(r"[,\s\[]", value.strip()) is not None


def _numbers(value: str) -> list[int]:
    found = [int(n) for n in re.findall(r"\d+", value)]
    while len(found) > 1 and found[-1] == 0:
        found.pop()
    return found


def _same_place(older: str, old_index: int, newer: str, new_index: int) -> bool:
    """Whether the two units stand at one place: a line right before or right after them is
    the same line and names something (``node_exporter:`` names a workflow), or two lines
    around them are the same and none that both excerpts show differs (``ignored_updates:`` /
    ``- match:`` above a dependabot rule). ``hooks:`` alone is in every item of a pre-commit
    config, and ``}`` closes anything."""
    a, b = units_of(older), units_of(newer)

    def beside(units: list[Unit], at: int, step: int) -> Unit | None:
        j = at + step
        return None if excerpt_edge(units, j) or not units[j].line else units[j]

    if _within(a, old_index, b, new_index):
        return False
    shown: list[tuple[Unit, Unit, int]] = []
    for step in (-2, -1, 1, 2):
        x, y = beside(a, old_index, step), beside(b, new_index, step)
        if x is not None and y is not None:
            shown.append((x, y, step))
    if any(abs(step) == 1 and x.text == y.text and names_something(x) for x, y, step in shown):
        return True
    return len(shown) >= 2 and all(x.text == y.text for x, y, _ in shown)


def _within(a: list[Unit], i: int, b: list[Unit], j: int) -> bool:
    """Whether one excerpt lies strictly within the other around the two units, with fewer
    than ``MIN_CONTEXT_LINES`` same lines: its every line is the other's, and the other goes
    on past both its ends. Two jobs of one workflow both have ``profile: minimal`` /
    ``toolchain: stable`` / ``override: true``: an excerpt of just those lines fits either.
    (Two excerpts that start at the same line, one ending at the unit, are one window.)"""
    around, ends = 0, []
    for step in (-1, 1):
        x, y = i + step, j + step
        while not (excerpt_edge(a, x) or excerpt_edge(b, y)) and a[x].text == b[y].text:
            around, x, y = around + 1, x + step, y + step
        ends.append((excerpt_edge(a, x), excerpt_edge(b, y)))
    return around < MIN_CONTEXT_LINES and len(set(ends)) == 1 and ends[0][0] != ends[0][1]


# Where a sentence's clauses part (not at a colon: "replicas: 8" is one assignment).
_CLAUSES = re.compile(r"[,;]\s|\s[-–—]\s|\b(?:but|so|because|since)\b")


def _clause(kv: KeyValue) -> str:
    """The clause of the unit that assigns the key: a negation or a hedge in another one is
    about something else ("committed replicas: 8 so argo doesn't revert it")."""
    at = kv.unit.find(kv.key)
    if at < 0:
        return kv.unit
    start = max((m.end() for m in _CLAUSES.finditer(kv.unit, 0, at)), default=0)
    end = next((m.start() for m in _CLAUSES.finditer(kv.unit, at)), len(kv.unit))
    return kv.unit[start:end]


def _firm(kv: KeyValue) -> bool:
    """The assignment's own clause neither hedges it nor says it holds on."""
    clause = _clause(kv)
    return not _HEDGE.search(clause) and not _HOLDS.search(clause)


def _list_element(kv: KeyValue) -> bool:
    """A key of a YAML list's element (``- go: "1.8.x"``): the list's other elements have
    theirs, so no one element gives the key's value."""
    return is_yaml_path(kv.path) and kv.unit.lstrip().startswith("- ")


def _only_one(old: KeyValue, assigned: list[KeyValue], new: KeyValue) -> bool:
    """Whether ``old`` is the one assignment of its key that ``new`` can restate: the only one,
    or the only one in a block the newer unit names ("limits now ``memory: 3Gi``" is the
    ``memory`` under ``limits:``, not the one under ``requests:``)."""
    if len(assigned) == 1:
        return True
    said = _says(new.unit)
    named = [kv for kv in assigned if kv.block and kv.block.lower() in said]
    distinct = len({kv.block for kv in assigned}) == len(assigned)
    return distinct and len(named) == 1 and named[0] is old


def _spaced_in_prose(text: str, keys: Collection[str]) -> Iterator[KeyValue]:
    """A config directive said in a sentence as it is written in its file, key and value
    apart ("the uploads vhost now has client_max_body_size 50m; reload done"): for asked keys
    no word could be (``snake_case``, ``kebab-case``) only."""
    distinctive = [k for k in keys if re.search(r"[a-z0-9][_-][a-z0-9]", k, re.I)]
    if not distinctive:
        return
    for unit in units_of(text):
        if unit.line or not unit.content or unit.question:
            continue
        for key in distinctive:
            m = re.search(
                rf"(?<![\w.\-]){re.escape(key)}\s+([\w.:/@\-]*\d[\w.:/@\-]*)(?=[;,)]|\s|$)",
                unit.text,
            )
            if m is not None:
                yield KeyValue(unit.index, unit.text, key, m.group(1).rstrip(".:"))


def key_changes(query: str, older: str, newer: str) -> list[KeyChange]:
    """The older chunk's assignments of a key the question names that the newer chunk assigns
    another value (see the module docstring)."""
    if _ACCUMULATES.search(query):
        return []  # "Which allowed origin was added ...?": the key gathers values
    if proposed(newer):
        return []  # a draft or a change in review sets nothing yet
    old_values = key_values(older)
    asked = asked_keys(query, {kv.key for kv in old_values})
    if not asked:
        return []
    new_values = [kv for kv in key_values(newer) if _firm(kv)]
    assigned = {_name(kv.key) for kv in new_values}
    new_values += [
        kv for kv in _spaced_in_prose(newer, asked) if _name(kv.key) not in assigned and _firm(kv)
    ]
    out: list[KeyChange] = []
    for old in old_values:
        if old.key not in asked or _HOLDS.search(_TRAILING_COMMENT.sub("", old.unit)):
            continue  # (a comment's "keep in sync with nginx" holds nothing on)
        # one key however it is spelled: ``httpReadTimeout`` in values.yaml is the chart's
        # ``--http-read-timeout`` flag
        name = _name(old.key)
        same_key = [kv for kv in new_values if _name(kv.key) == name]
        # one assignment said twice ("kubectl scale --replicas=8 and committed replicas: 8")
        if len({(kv.value, (kv.block or "").lower()) for kv in same_key}) != 1:
            continue  # not assigned again, or assigned two values
        new = same_key[0]
        if _list_element(old) or _list_element(new):
            continue  # each element of a list has its own (``- go: "1.8.x"``, ``- go: tip``)
        if old.block and new.block and old.block.lower() != new.block.lower():
            continue  # ``timeout-minutes`` of the ``unit`` job and of the ``integration`` job
        if old.path and new.path:
            if old.path.removeprefix("./") != new.path.removeprefix("./"):
                continue  # two excerpts' headers name two files (package.json, estest/...)
            if (
                is_yaml_path(old.path)
                and not (old.unkeyed or new.unkeyed)
                and (old.block or "").lower() != (new.block or "").lower()
            ):
                continue  # a job's ``name: Lint`` and the workflow's top-level ``name: ci``
            if old.unkeyed != new.unkeyed:
                # in one file, a line of a block its excerpt does not show and one whose block
                # it shows are two keys' (``version: 2`` under an unseen ``workflows:``, the
                # top-level ``version: 2.1``)
                continue
            if old.unkeyed and not _same_place(older, old.index, newer, new.index):
                # two lines of unseen blocks are one key's only at one place: a line beside
                # them the same (``code: 'FSTWRN001'`` and ``code: 'FSTDEP022'`` above two
                # warnings' messages are two objects' codes, whatever the question names)
                continue
        if not _only_one(old, [kv for kv in old_values if _name(kv.key) == name], new):
            continue  # a key with several values (allowed origins), none the newer names
        if _same_value(old.value, new.value) or grown_list(old.value, new.value):
            continue  # one value, or a list the newer one keeps every member of
        if collection_setting(old.key) and not (_several(old.value) or _several(new.value)):
            continue  # a list's name, one member each (``ALLOWED_ORIGIN=...``): one more
        old_file, new_file = old.path or named_file(older), new.path or named_file(newer)
        if old_file and new_file and not same_file(old_file, new_file):
            continue  # the same key in two files (a base file and its override)
        # each unit's owner is named by the other text ("auth-service: request_timeout" is not
        # "billing-service: ..."); the environments agree
        if not (_named_by(_owner(query, new), older) and _named_by(_owner(query, old), newer)):
            continue
        # the environments each assignment's line names, the other text names too
        if not (_envs(_key_line(old)) <= _envs(newer) and _envs(_key_line(new)) <= _envs(older)):
            continue
        # a newer text naming the older's file by its name is about that file ("... is what
        # start.sh has now" after indexer/start.sh): the path's words are its words too, and
        # the block that holds the key ("maximum-pool-size: 30 in application.yml" says the
        # ``hikari:`` block's key)
        named_too = (
            f"{newer} {old_file} {old.block or ''}"
            if old_file
            and re.search(rf"(?<![\w.\-/]){re.escape(old_file.rsplit('/', 1)[-1])}\b", newer)
            else newer
        )
        if _context(query, old.key, older) != _context(query, old.key, named_too):
            continue
        if new.value.lower() not in _FLIPS and re.search(
            rf"(?<![\w.]){re.escape(new.value)}(?![\w.])", older, re.I
        ):
            continue  # the newer value was there already (another line of the same file)
        out.append(KeyChange(old.index, old.unit, old.key, old.value, new.value))
    return out
