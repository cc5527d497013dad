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
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from gcmem.facts.align import units_of
from gcmem.facts.extract import config_directive, proposed
from gcmem.facts.lines import is_path
from gcmem.normalize import word_stem

__all__ = ["KeyChange", "KeyValue", "asked_keys", "key_changes", "key_values"]

# ``KEY = value``, ``KEY: value``, ``pkg==1.2``, ``key value;`` (nginx). A key is a code name:
# it starts a line, or (in a sentence) it has a ``_`` or ``.`` or is upper case, so that prose
# ("Heads up: the channel") is never a key.
_ASSIGNMENT = re.compile(
    r"(?P<key>[A-Za-z_][\w.\-]*)\s*(?P<op>==|~=|>=|=|:(?!//))\s*"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|\{[^}\n]*\}|\[[^\]\n]*\]|[^\s,;#]+)"
)
# "bumped client_max_body_size to 50m": a code name and its new value in a sentence
_TO_VALUE = re.compile(r"(?P<key>[A-Za-z_][\w.\-]*)\s+to\s+(?P<value>[\w.\-:/\"']+)")
_CODE_NAME = re.compile(r"[_.]|^[A-Z][A-Z0-9]+$")
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
# Environments a setting is scoped to: two units naming different ones are two keys.
_ENV = re.compile(
    r"\b(?:staging|stage|stg|prod|production|dev|development|test|testing|qa|local|sandbox|"
    r"preview|canary|beta)\b",
    re.I,
)
# Words of setting a value, no owner of it ("bumped", "set ... to").
_SETS = frozenset(
    str.split(
        """set sets bumped bump lowered raised changed moved switched updated pinned upgraded
    downgraded reverted flipped turned made put chore deps fix feat export alias"""
    )
)
_STOP = frozenset(
    str.split(
        """a an the of in on at to for from by with is are was were be do does did what which
    who where when how set use used uses using run runs pin pinned pins depend depends require
    requires required value setting config configured file version our my we i it its this that
    there currently now"""
    )
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*")


@dataclass(frozen=True)
class KeyValue:
    """One assignment: the unit it is in, its key as written and its value."""

    index: int
    unit: str
    key: str
    value: str
    path: str | None = None  # the file of the excerpt the unit is a line of


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
    raw = [w.lower().rstrip(".") for w in _WORD.findall(query)]
    kept = [w for w in raw if w not in _STOP]
    return frozenset(raw), frozenset(_stem(w) for w in kept)


def _parts(key: str) -> list[str]:
    """A key's words: ``instance_type`` -> instance, type; ``maxRetries`` -> max, retries."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return [p for p in re.split(r"[_.\-\s]+", spaced.lower()) if p]


def asked_keys(query: str, keys: set[str]) -> set[str]:
    """The keys the question names: as written ("MAX_RETRIES", "requests") or word by word
    ("instance type" for ``instance_type``)."""
    raw, stems = _query_words(query)
    out = set()
    for key in keys:
        parts = _parts(key)
        if key.lower() in raw or (len(parts) > 1 and {_stem(p) for p in parts} <= stems):
            out.add(key)
    return out


def key_values(text: str) -> list[KeyValue]:
    """The assignments of a chunk's units (lines and sentences)."""
    return list(_key_values(text))


@lru_cache(maxsize=8192)
def _key_values(text: str) -> tuple[KeyValue, ...]:
    return tuple(_assignments(text))


def _assignments(text: str) -> Iterator[KeyValue]:
    for unit in units_of(text):
        if not unit.content or unit.question:
            continue
        body = unit.text
        if unit.line:
            directive = config_directive(body, unit.path)
            if directive is not None:
                yield KeyValue(unit.index, body, *directive, path=unit.path)
                continue
        pos = 0
        while (m := _ASSIGNMENT.search(body, pos)) is not None:
            # a rejected key's "value" may hold the next key ("last night: JAVA_OPTS=...")
            pos = m.end("key")
            if _is_assignment(m, body, unit.line):
                pos = m.end()
                yield KeyValue(unit.index, body, m["key"], _clean(m["value"]), unit.path)
        if not unit.line:
            for m in _TO_VALUE.finditer(body):
                if "_" in m["key"]:
                    yield KeyValue(unit.index, body, m["key"], _clean(m["value"]))


def _is_assignment(m: re.Match[str], body: str, line: bool) -> bool:
    """A file line's leading key, a code name anywhere, a pin (``requests==2.31.0``), or in a
    sentence a plain word given a number or a quoted value ("set to replicas: 6")."""
    rest = body[m.end() :].strip()
    numeric = m["value"][:1].isdigit()
    if (
        rest
        and not rest.startswith(("#", "//", ";"))
        and (line or (m["op"] == ":" and not numeric))
    ):
        return False  # a label before words ("Maya: I moved", "Note: the key is ..."), no setting
    if (line and not body[: m.start()].strip()) or _CODE_NAME.search(m["key"]):
        return True
    return m["op"] in ("==", "~=", ">=") or m["value"][:1] in "0123456789\"'{["


def _clean(value: str) -> str:
    return value.strip().strip("\"'").rstrip(".")


def _owner(query: str, kv: KeyValue) -> frozenset[str]:
    """What the unit says the key belongs to, in its clause before the key: names ("Free plan
    rate limit: 60", "auth-service: request_timeout: 5s") and the question's own words ("set
    the worker to LOG_LEVEL=warn")."""
    line = kv.unit[: kv.unit.find(kv.key)].rsplit("\n", 1)[-1]
    before = re.split(r"[,;—.!?]\s|:\s(?=\S+\s*(?:==|=|:))", line)[-1]
    raw, _ = _query_words(query)
    return frozenset(
        w.lower()
        for w in _WORD.findall(before)
        if w.lower() not in _SETS
        and not _REFERENCE.fullmatch(w)
        and (re.search(r"[-_]|^[A-Z]", w) or w.lower() in raw)
    )


def _says(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(text)) | frozenset(
        p for w in _WORD.findall(text) for p in _parts(w)
    )


def _envs(text: str) -> frozenset[str]:
    return frozenset(m.group(0).lower() for m in _ENV.finditer(text))


def _context(query: str, key: str, text: str) -> frozenset[str]:
    """The question's words besides the key that the text says (a file path's words too)."""
    raw, stems = _query_words(query)
    # a file's path is provenance (the ledger's), not a thing the question asks about
    own = {_stem(p) for p in _parts(key)} | {_stem(key)} | {_stem(w) for w in raw if is_path(w)}
    return frozenset((stems - own) & {_stem(w) for w in _says(text)})


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
    new_values = [
        kv for kv in key_values(newer) if not _HEDGE.search(kv.unit) and not _HOLDS.search(kv.unit)
    ]
    out: list[KeyChange] = []
    for old in old_values:
        if old.key not in asked or _HOLDS.search(old.unit):
            continue
        same_key = [kv for kv in new_values if kv.key.lower() == old.key.lower()]
        if len(same_key) != 1 or sum(kv.key.lower() == old.key.lower() for kv in old_values) > 1:
            continue  # not assigned again, or a key with several values (allowed origins)
        new = same_key[0]
        if new.value == old.value:
            continue
        if old.path and new.path and old.path != new.path:
            continue  # the same key in two files (a base file and its override)
        # each unit's owner is named by the other text ("auth-service: request_timeout" is not
        # "billing-service: ..."); the environments agree
        if not (_owner(query, new) <= _says(older) and _owner(query, old) <= _says(newer)):
            continue
        if _envs(old.unit) != _envs(new.unit):
            continue
        if _context(query, old.key, older) != _context(query, old.key, newer):
            continue
        if new.value.lower() in older.lower():
            continue  # the newer value was there already (another line of the same file)
        out.append(KeyChange(old.index, old.unit, old.key, old.value, new.value))
    return out
