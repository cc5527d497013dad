"""Deterministic (subject, relation, object) extraction, and the key normalisation the ledger uses.

No model: a fixed set of sentence forms, tried in order, each anchored on its verb phrase. The
object is the single mutable value; subject and relation become the ledger key. Everything
that is not clearly one value for one key yields no triple and falls through to the later
stages (the oracle): the extractor never guesses.

Forms (each also in the plural, ``are``/``use``/...):

- version specs: ``fastapi==0.110.0``, ``react@18.2.0``, ``numpy>=1.26`` (a line of specs, or
  the object of a verb: ``requirements.txt pins fastapi==0.110.0``), a bare ``fastapi 0.110.0``
  line, ``we pin X at V``, ``X is pinned at/to V`` -> (X, version, V)
- ``X is set to Y``, ``X = Y``, ``X: Y``, ``X defaults to Y``, ``we set X to Y``
- ``X runs/listens on port Y``, ``X is served/exposed on port Y`` -> (X, port, Y)
- ``X is named/called Y`` -> (X, name, Y)
- ``X uses Y``, ``X runs on Y``, ``X works at/for Y``, ``X reports to Y``, ``X returns Y``,
  ``X inherits from Y``, ``X points/resolves/maps/belongs to Y``; ``X lives in Y``, ``X is
  based/located/hosted in Y`` -> (X, location, Y)
- announced changes: ``we renamed X to Y``, ``X was rebranded to Y`` -> (X, name, Y) and (X,
  is, Y); ``ops raised the cap on X to Y``, ``X has been extended to Y``, ``bumped X to Y``,
  ``the standup time moved to 10am`` -> the new state, keyed like its statement
- passive: ``X is licensed under Y``, ``X is defined in Y``, ``X is hosted on Y``, ... ->
  (X, "<participle> <preposition>", Y)
- copula: ``The API base path for the project is /api/v1`` -> (project, api base path, /api/v1)

Key normalisation (``normalize_term``): Unicode NFKC, case folded, quote characters and the
articles a/an/the removed, whitespace collapsed, edge punctuation stripped. ``X's A``, ``the A
of X`` and ``the A for X`` all key as (X, A), so "The port of the payments service is 8080"
and "The payments service runs on port 8080" share a key. Qualifiers after the value ("... at
0.95.2 in requirements.txt", "In production, ...") become part of the relation, so values
stated for different scopes never supersede each other.

Object normalisation (``normalize_object``): whitespace collapse only. ``/API`` -> ``/api`` and
``Status('Good')`` -> ``['GOOD']`` are real changes. Quotes or backticks that wrap the whole
value, and the sentence's final full stop, delimit the value and are not part of it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from gcmem.facts.chunking import BULLET, split_units
from gcmem.facts.labels import (
    DISCOURSE_LABELS,
    collection_label,
    collection_setting,
    title_label,
)
from gcmem.facts.lines import (
    CRON_ENTRY,
    QUOTED_CODE,
    ExcerptLine,
    describe,
    is_code_path,
    is_comment_line,
    is_yaml_path,
    qualifier,
    without_comment,
)
from gcmem.models import Chunk, Fact
from gcmem.normalize import normalize_key, normalize_object, normalize_term
from gcmem.storage.ledger.policy import FILE_NAMED, REPEATED_DIRECTIVES

__all__ = [
    "OwnedToken",
    "added_facts",
    "added_keys",
    "chunk_facts",
    "config_directive",
    "extract_triples",
    "line_speaker",
    "owned_code_tokens",
    "proposed",
    "unit_facts",
]

# --- lexicon ---------------------------------------------------------------------------------


def _lexicon(words: str) -> frozenset[str]:
    return frozenset(words.split())


_PRONOUNS = _lexicon(
    """i me my we us our you your he him his she her they them their it its this that these those
    there here what which who whom whose where when why how some any each every all both either
    neither none one someone something anyone anything everyone everything nobody nothing"""
)
# Third-person pronouns: a subject that holds one is about what an earlier sentence names.
_THIRD_PERSON = _lexicon("he him his she her hers it its they them their theirs")
# A subject may not end with a word that needs something after it.
_DANGLING = _lexicon(
    """that which who whom whose where when and or but nor of for to in on at by with from as a an
    the is are was were be been than over up down off out back away"""
)
_RECENT = frozenset({"new", "current", "updated", "latest"})
_KIN = _lexicon(
    """brother sister mother father mom mum dad son daughter wife husband partner cousin uncle
    aunt niece nephew grandma grandpa grandmother grandfather friend colleague boss manager
    neighbour neighbor"""
)
# Words that make a statement not a plain assertion of one current value.
_REFUSE_WORDS = _lexicon(
    """not never no none neither nor without cannot isn't aren't wasn't weren't doesn't don't
    didn't won't wouldn't shouldn't can't couldn't hasn't haven't maybe perhaps probably
    possibly likely unlikely presumably apparently supposedly might may could should would must
    will shall can guess think thinks believe believes assume assumes suppose supposes seems
    seem seemed unsure uncertain unclear roughly approximately ish if unless whether"""
)
# "about" / "around" hedge a quantity ("about 5 pods", "around 9:30"); before anything else
# they are prepositions ("talk to her about the migration", "around the corner").
_APPROXIMATE = re.compile(
    r"\b(?:about|around)\s+(?:[$€£])?(?:\d|(?:a|an|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|twelve|fifteen|twenty|thirty|forty|fifty|hundred|thousand|dozen|half|noon|"
    r"midnight)\b)",
    re.IGNORECASE,
)
_CONDITIONAL_LEADS = _lexicon(
    """if when whenever unless whether once suppose supposing assuming after before until since
    while although though because"""
)
# A value said to hold beside others ("... job too,", "as well.", "the API also listens on";
# an opening "Also," only adds a note, and is read off above; "and also the son of" is
# another clause's).
# "too", "as well", "likewise" closing a clause
_TOO = r"\b(?:too|as well|likewise)(?=\s*(?:[,.;!)]|$))"
_VALUE_ADDITIVE = re.compile(
    _TOO + r"|(?<=\S )also\s+(?!(?:its|his|hers|this|was|as|less|plus|ours|yours|theirs)\b)"
    r"(?:is|are|has|have|\w+s|\w+ed)\b",
    re.IGNORECASE,
)
# "the package name changed too": a change said of one more thing, not one more value
_CHANGED_TOO = re.compile(r"\b\w+ed\s+(?:too|as well)\b", re.IGNORECASE)


def _adds_a_value(text: str) -> bool:
    return _VALUE_ADDITIVE.search(text) is not None and _CHANGED_TOO.search(text) is None


_DISCOURSE_LEAD = re.compile(
    r"^(?:(?:also|so|and|btw|ok|okay|well|right|yes|yeah|no|fyi|note(?: to self)?|update|"
    r"reminder|ps|done|"
    r"heads up(?: all| everyone| team| folks)?|quick note|by the way|for the record|"
    r"for reference|as a reminder|just so you know|"
    r"to be clear|for context|tl;dr)\s*[,:\-]\s*|(?:note that|remember that|keep in mind that|"
    r"for the record|for reference|also|btw|fyi)\s+)",
    re.IGNORECASE,
)
_BULLET = BULLET
# Adverbs that say nothing about the value; real logs put them next to the verb.
_FILLER_ADVERBS = _lexicon(
    """now currently still again also too already presently actually just officially finally
    today"""
)
# Clause words inside a value mean it is not a single value.
_CLAUSE_WORDS = _lexicon(
    """is are was were be been being am has have had do does did will would should can could may
    might must shall which who whom whose that because since until unless if when while though
    although so then than whereas"""
)
_CONJUNCTIONS = frozenset(["and", "or", "but", "nor", "plus", "either", "both", "versus", "vs"])
_NON_VALUES = _lexicon(
    """it this that these those something anything nothing unknown unclear tbd tba todo n/a na same
    unchanged different pending"""
)
# Prepositions that start a qualifier after the value ("... 0.95.2 in requirements.txt").
# "of" and "per" are not among them: they belong to values ("Bank of America", "120 per min").
_QUALIFIER_PREPS = _lexicon(
    """in on at for from under within inside via with during across behind through as over
    after before since until"""
)
_TIME_PREPS = frozenset({"after", "before", "since", "until", "during"})
_COMPANY = re.compile(r"^with (?:my|our|your|his|her|their|its) ")
# Words that make a trailing phrase a time ("over the weekend", "after the March release",
# "from May": after a preposition "may" is the month).
_TIME_WORDS = _lexicon(
    """weekend week weeks month months year years quarter sprint cycle morning afternoon
    evening night today yesterday tonight monday tuesday wednesday thursday friday saturday
    sunday january february march april may june july august september october november
    december jan feb mar apr jun jul aug sep sept oct nov dec ago release"""
)
# Head nouns that make "X is <plain word>" a value assignment rather than a description.
_ATTRIBUTE_NOUNS = _lexicon(
    """name port host hostname path url uri endpoint address version branch region zone timeout
    limit size level mode format language framework database db engine backend frontend driver
    runtime image tag owner lead manager maintainer email phone schedule interval frequency
    prefix suffix directory dir folder file filename key value default setting status state
    colour color theme font currency locale timezone city country food drink team role title id
    identifier number count ratio rate threshold budget deadline price cost license licence
    provider vendor cluster namespace queue topic channel bucket table schema index model
    algorithm strategy policy method protocol encoding charset separator delimiter entrypoint
    command script target destination source origin base root home editor shell os platform
    compiler interpreter toolchain registry repo repository remote upstream server client broker
    cache store storage location office salary age goal plan tier capacity quota password token
    cap ceiling max maximum minimum min retention ttl window expiry lifetime duration fee rent
    secret account user username handle alias nickname function class module package library
    dependency decorator signature type field column header cookie parameter argument flag
    option variable env environment config configuration network subnet vpc dns domain
    certificate cert day weekday time date month year sport hobby pet car breed diet job
    employer company school university major partner spouse doctor dentist gym"""
)
_PARTICIPLE_IRREGULAR = _lexicon(
    """built kept held run set put found bound hidden shown made sent spent led read written known
    drawn grown thrown taken given driven chosen frozen spoken broken worn torn born done seen
    won hung spun struck stuck sold told shut split spread cut let dealt laid paid said brought
    bought caught taught thought fed fled met left lost lit meant"""
)
_ADJ_PREP = frozenset(["available", "reachable", "accessible", "located", "based"])

_VERSION = r"v?\d+(?:\.\d+)+(?:[-+.]?[0-9A-Za-z]+)*|v\d+"
_VERSION_RE = re.compile(rf"^(?:{_VERSION})$")
_SPEC_RE = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._\-]*(?:\[[^\]]*\])?)\s*"
    # a bare major is a version too, with a wildcard or not ("click>=7.*", "tornado<6")
    rf"(?P<op>===|==|~=|>=|<=|!=|<|>|@)\s*(?P<ver>(?:{_VERSION})(?:\.\*)?|\d+(?:\.\*)?)$"
)
_PACKAGE_NAME_RE = re.compile(r"^[a-z][a-z0-9._\-]*$")
# An IPv4 address: after a name it is an address the directive lists ("nameserver 10.0.0.2",
# "server 10.0.0.5"), not the name's version
_IPV4 = re.compile(r"^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$")
_CODE_CHARS = set("/_=@#`'\"()[]{}<>:~$\\|*%&+^")


# --- the masked sentence ----------------------------------------------------------------------


def _mask(text: str) -> str:
    """Same-length copy of ``text`` in which everything inside quotes or brackets is 'x', so
    verb phrases and separators are only ever found at the top level of the sentence."""
    out = list(text)
    closers = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    quote: str | None = None
    for i, ch in enumerate(text):
        if quote is not None:
            if ch == quote:
                quote = None
            else:
                out[i] = "x"
            continue
        if stack:
            if ch == stack[-1]:
                stack.pop()
                continue
            if ch in closers:
                stack.append(closers[ch])
            out[i] = "x"
            continue
        if ch in closers:
            stack.append(closers[ch])
        elif ch in '`"“':
            end = "”" if ch == "“" else ch
            if end in text[i + 1 :]:
                quote = end
        elif ch == "'" and (i == 0 or not text[i - 1].isalnum()):
            # An opening single quote (not an apostrophe) with a closing one later.
            rest = text[i + 1 :]
            close = re.search(r"'(?!\w)", rest)
            if close is not None and close.start() > 0:
                quote = "'"
    return "".join(out)


@dataclass(frozen=True)
class _Sentence:
    text: str  # original
    mask: str  # same length, quotes and brackets blanked

    @classmethod
    def of(cls, text: str) -> _Sentence:
        return cls(text, _mask(text))

    def cut(self, start: int, end: int | None = None) -> _Sentence:
        return _Sentence(self.text[start:end], self.mask[start:end])

    def strip(self) -> _Sentence:
        left = len(self.text) - len(self.text.lstrip())
        right = len(self.text.rstrip())
        return self.cut(left, right)

    def tokens(self) -> list[tuple[str, str]]:
        """(original, masked) top-level tokens: quoted and bracketed spans stay whole."""
        return [(self.text[m.start() : m.end()], m.group()) for m in re.finditer(r"\S+", self.mask)]


# --- value parsing ----------------------------------------------------------------------------


# Modal verbs that are also names ("Will reports to Dana"); capitalised, they are names.
_NAME_LIKE = frozenset({"will", "may", "can", "mark", "bill", "sue"})


def _words(s: _Sentence) -> list[str]:
    """Top-level plain words (letters and apostrophes only), lower-cased. Code tokens
    (``/about``, ``app.main``) and quoted spans are not words. A capitalised name-like word
    ("Will", "May") is a name, not a modal, and is left out."""
    out = []
    for token in s.mask.split():
        word = token.strip('.,;:!?()"')
        if not word or not re.fullmatch(r"[A-Za-z']+", word):
            continue
        if word[0].isupper() and word.lower() in _NAME_LIKE:
            continue
        out.append(word.lower())
    return out


def _unwrap(value: str) -> str:
    """Quotes or backticks wrapping the whole value delimit it."""
    for left, right in (("`", "`"), ('"', '"'), ("'", "'"), ("“", "”")):
        if len(value) >= 2 and value.startswith(left) and value.endswith(right):
            inner = value[1:-1]
            if left not in inner and right not in inner and inner.strip():
                return inner.strip()
    return value


def _is_version(token: str) -> bool:
    return bool(_VERSION_RE.match(token))


def _is_strong(value: str) -> bool:
    """A value that is clearly a value: code, numbers, identifiers, proper names."""
    if any(ch.isdigit() for ch in value) or any(ch in _CODE_CHARS for ch in value):
        return True
    words = value.split()
    if any(re.search(r"\w[.\-]\w", w) for w in words):  # app.main, Apache-2, snake-case
        return True
    if any(w.isupper() and len(w) > 1 for w in words):  # DEBUG, AWS
        return True
    if any(re.search(r"[a-z][A-Z]", w) for w in words):  # camelCase, FastAPI
        return True
    return all(w[:1].isupper() for w in words if w.lower() not in {"of", "de", "la", "and"})


@dataclass(frozen=True)
class _Value:
    value: str
    qualifiers: tuple[str, ...]


def _parse_value(obj: _Sentence) -> _Value | None:
    """The object span -> one value plus trailing qualifier phrases, or None if it is not a
    single clean value."""
    tokens = obj.strip().tokens()
    while tokens and tokens[0][1].lower() in _FILLER_ADVERBS:
        tokens = tokens[1:]
    while tokens and tokens[-1][1].lower().strip(".,") in _FILLER_ADVERBS:
        tokens = tokens[:-1]
    if not tokens:
        return None
    value_tokens: list[str] = []
    qualifiers: list[list[str]] = []
    for original, masked in tokens:
        low = masked.lower()
        if value_tokens and low in _QUALIFIER_PREPS:
            qualifiers.append([original])
            continue
        if qualifiers:
            qualifiers[-1].append(original)
        else:
            value_tokens.append(original)
        plain = low.strip(".,;:!")
        capitalised = original[:1].isupper()  # "Will", "May": names, not modals
        if not capitalised and (
            plain in _CLAUSE_WORDS or plain in _CONJUNCTIONS or plain in _REFUSE_WORDS
        ):
            return None
        if masked.endswith((",", ";")) or masked in {"&&", "||", "/", "-", "--"}:
            return None
    at = _bracketed_role(value_tokens)
    role = None if at is None else " ".join(value_tokens[at:])
    value_tokens = value_tokens if at is None else value_tokens[:at]
    if len(value_tokens) > 6:
        return None
    raw = " ".join(value_tokens)
    value = _unwrap(raw)
    if not value:
        return None
    if CRON_ENTRY.match(value):
        # a crontab entry ("crontab on backup01: `30 3 * * 0 /opt/prune.sh`", quoted or not) is
        # one line of a file of many, not the label's one value (frame alignment keys an
        # entry by its command)
        return None
    if value == raw:  # quoted values are code ("`None`"): these checks are for prose
        if value.lower() in _NON_VALUES or value.lower() in _PRONOUNS:
            return None
        if value.split()[0].lower() in {"we", "i", "they", "he", "she", "you"}:
            return None  # "Figma: we upgraded the org": a clause, not a value
        if value.split()[0].lower() in {"a", "an"}:
            return None  # class membership ("is a runner"): several can hold at once
    quals = tuple(normalize_term(" ".join(q)) for q in qualifiers)
    if any(not q or len(q.split()) < 2 for q in quals):
        return None  # a bare trailing preposition is not a qualifier
    # "... over the weekend", "... in March": when it was said or done, not a scope of it
    quals = tuple(
        q for q in quals if q.split()[0] not in _TIME_PREPS and not set(q.split()[1:]) & _TIME_WORDS
    )
    # "... lives in Denver with her two cats": who or what comes along, not a scope of it
    quals = tuple(q for q in quals if not _COMPANY.match(q))
    if role is not None:
        quals = (*quals, normalize_term("as " + role.strip("()")))
    return _Value(value, quals)


def _bracketed_role(tokens: Sequence[str]) -> int | None:
    """Where a value's trailing bracket of words starts ("@dmitri (primary)", "Ana (interim)"):
    the role it holds, a qualifier of the key, so a primary and a secondary are two slots, not
    a change."""
    if len(tokens) < 2 or not tokens[-1].endswith(")"):
        return None
    start = next((i for i in range(len(tokens) - 1, 0, -1) if tokens[i].startswith("(")), None)
    if start is None:
        return None
    inside = " ".join(tokens[start:])[1:-1].split()
    if not inside or len(inside) > 3 or not all(w.isalpha() for w in inside):
        return None
    return start


# --- subjects --------------------------------------------------------------------------------


def _clean_subject(subject: _Sentence) -> str | None:
    """The subject surface text, or None when it cannot key anything."""
    s = subject.strip()
    text, mask = s.text.rstrip(" ,"), s.mask.rstrip(" ,")
    if not text or not any(ch.isalnum() for ch in text):
        return None
    words = [w.lower() for w in re.findall(r"\S+", mask)]
    plain = [w.strip(".,;:!?'") for w in words]
    while len(plain) > 1 and plain[-1] in _FILLER_ADVERBS:  # "the customer wiki now lives in"
        cut = text.rstrip()
        text, mask = cut[: cut.rfind(" ")].rstrip(), mask[: cut.rfind(" ")].rstrip()
        words, plain = words[:-1], plain[:-1]
    if len(plain) > 1 and plain[0] in _RECENT and text.split()[1][:1].islower():
        # "New rent is $1,525": the rent, now ("New York" is a name)
        first = re.match(r"\S+\s+", mask)
        assert first is not None
        text, mask = text[first.end() :], mask[first.end() :]
        words, plain = words[1:], plain[1:]
    if (
        len(plain) in (2, 3)
        and plain[-2] in _KIN
        and (len(plain) == 2 or plain[0] in {"my", "our", "the"} or plain[0].endswith("'s"))
        and text.split()[-1][:1].isupper()
    ):
        # "my brother Tomas", "Maya's sister Ines": the name is the subject
        text, mask = text.split()[-1], mask.split()[-1]
        words, plain = words[-1:], plain[-1:]
    if len(words) > 10 or plain[-1] in _DANGLING:
        return None
    if plain[0] in _PRONOUNS or plain[0].removesuffix("'s") in _PRONOUNS:
        return None
    if _THIRD_PERSON.intersection(plain):
        return None  # "the largest collection of her works": whose, an earlier sentence says
    if _hedged(s):
        return None
    # A verb in the subject is only allowed inside a relative clause ("the function that is
    # called on startup"); otherwise the verb split is in the wrong place.
    for i, w in enumerate(plain):
        if w in {"is", "are", "was", "were"} and (
            i == 0 or plain[i - 1] not in {"that", "which", "who"}
        ):
            return None
    if "," in mask or ";" in mask:
        return None
    return text


def _split_attribute(subject: str) -> tuple[str, str] | None:
    """``X's A`` / ``the A of X`` / ``the A for X`` -> (X, A)."""
    masked = _mask(subject)
    m = re.search(r"\s(?:of|for)\s", masked)
    if m is not None:
        attr, owner = subject[: m.start()], subject[m.end() :]
        if normalize_term(attr) and normalize_term(owner):
            return owner, attr
    m = re.match(r"^(?P<owner>.+?)(?:'s|’s|(?<=s)')\s+(?P<attr>.+)$", masked)
    if m is not None:
        owner, attr = subject[: m.end("owner")], subject[m.start("attr") :]
        if normalize_term(owner) and normalize_term(attr):
            return owner, attr
    return None


def _attribute_like(term: str) -> bool:
    words = normalize_term(term).split()
    return bool(words) and words[-1].removesuffix("'s") in _ATTRIBUTE_NOUNS


# --- forms -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Form:
    """One sentence form, anchored on a verb phrase found at the top level of the sentence.

    ``relation`` maps the verb-phrase match to the canonical relation; ``assign`` marks the
    "is"-family (the subject may carry its attribute: "the A of X"); ``gate`` is the copula's
    extra demand that a plain-word value be an attribute's value; ``versioned``: "allow" turns
    "uses Python 3.11" into (S, uses python, 3.11), "require" accepts only such values.
    """

    name: str
    verb: re.Pattern[str]
    relation: Callable[[re.Match[str]], str]
    assign: bool = False
    gate: bool = False
    versioned: str = "allow"
    need_version: bool = False


def _fixed(rel: str) -> Callable[[re.Match[str]], str]:
    return lambda _m: rel


def _group(name: str, mapping: dict[str, str] | None = None) -> Callable[[re.Match[str]], str]:
    def rel(m: re.Match[str]) -> str:
        phrase = " ".join(m.group(name).lower().split())
        return (mapping or {}).get(phrase, phrase)

    return rel


_ACTIVE_MAP = {
    "works at": "works at",
    "works for": "works at",
    "work at": "works at",
    "work for": "works at",
    "is employed at": "works at",
    "is employed by": "works at",
    "reports to": "reports to",
    "report to": "reports to",
    "lives in": "lives in",
    "live in": "lives in",
    "uses": "uses",
    "use": "uses",
    "runs on": "runs on",
    "run on": "runs on",
    "returns": "returns",
    "return": "returns",
    "inherits from": "inherits from",
    "inherit from": "inherits from",
    "extends": "inherits from",
    "extend": "inherits from",
    "subclasses": "inherits from",
    "points to": "points to",
    "point to": "points to",
    "points at": "points to",
    "resolves to": "resolves to",
    "resolve to": "resolves to",
    "maps to": "maps to",
    "map to": "maps to",
    "belongs to": "belongs to",
    "belong to": "belongs to",
    "redirects to": "redirects to",
    "redirect to": "redirects to",
    "is owned by": "owned by",
}
_VERSIONED_ONLY = (
    r"requires|require|depends on|depend on|ships with|ships|ship|targets|target|installs|"
    r"install|bundles|bundle|vendors|has|have|runs|run|pins|pin|locks|lock|includes|include|"
    r"builds with|build with|compiles with|lists|list|declares|declare|specifies|specify"
)
_PARTICIPLE = r"[a-z]+ed|" + "|".join(sorted(_PARTICIPLE_IRREGULAR))
_PASSIVE_PREP = r"in|on|at|to|by|under|from|with|into|onto|inside|within|via|through|behind|as"

FORMS: tuple[_Form, ...] = (
    _Form(
        "pinned",
        re.compile(
            r"\s(?:is|are)\s+(?:pinned|locked|held|frozen)\s+(?:at|to|on)\s+(?:version\s+)?",
            re.I,
        ),
        _fixed("version"),
        versioned="no",
        need_version=True,
    ),
    _Form(
        "set_to",
        re.compile(r"\s(?:is|are)\s+(?:set|configured|fixed)\s+(?:to|as|at)\s+", re.I),
        _fixed("is"),
        assign=True,
    ),
    _Form("defaults_to", re.compile(r"\sdefaults?\s+to\s+", re.I), _fixed("default")),
    _Form(
        "port",
        re.compile(
            r"\s(?:runs|run|listens|listen|serves|serve|binds|bind|"
            r"(?:is|are)\s+(?:served|exposed|available|reachable|bound|running|listening))?"
            r"\s*(?:on|at|to)\s+port\s+|\suses\s+port\s+|\s(?:is|are)\s+on\s+port\s+",
            re.I,
        ),
        _fixed("port"),
        versioned="no",
    ),
    _Form(
        "named",
        re.compile(r"\s(?:is|are)\s+(?:named|called|titled|labelled|labeled)\s+", re.I),
        _fixed("name"),
        versioned="no",
    ),
    _Form(
        "active",
        re.compile(
            r"\s(?P<verb>" + "|".join(sorted(_ACTIVE_MAP, key=len, reverse=True)) + r")\s+", re.I
        ),
        _group("verb", _ACTIVE_MAP),
    ),
    _Form(
        "versioned",
        re.compile(rf"\s(?P<verb>{_VERSIONED_ONLY})\s+", re.I),
        _group("verb", {"depend on": "depends on", "ship": "ships", "ships with": "ships"}),
        versioned="require",
    ),
    _Form(
        "passive",
        re.compile(rf"\s(?:is|are)\s+(?P<verb>(?:{_PARTICIPLE})\s+(?:{_PASSIVE_PREP}))\s+", re.I),
        _group("verb"),
    ),
    _Form(
        "located",
        re.compile(
            rf"\s(?:is|are)\s+(?P<verb>(?:{'|'.join(_ADJ_PREP)})\s+(?:in|at|on|from))\s+", re.I
        ),
        _group("verb"),
    ),
    _Form("assign", re.compile(r"\s*(?::=|(?<![=!<>~])=(?!=))\s*"), _fixed("is"), assign=True),
    _Form("colon", re.compile(r":\s+"), _fixed("is"), assign=True),
    _Form(
        "copula_at",
        re.compile(r"\s(?:is|are)\s+(?P<verb>in|at|on|under|inside)\s+", re.I),
        lambda m: "is " + m.group("verb").lower(),
    ),
    _Form("copula", re.compile(r"\s(?:is|are)\s+", re.I), _fixed("is"), assign=True, gate=True),
)

_WE_VERB = re.compile(
    r"^(?:we|i|they)\s+(?:(?:still|also|now|currently|always|usually)\s+)?"
    r"(?P<verb>pin|lock|hold|keep|bump|upgrade|downgrade|set|configure|run|deploy|host)\s+",
    re.I,
)
_WE_PREP = re.compile(r"\s(?P<prep>at|to|on|as)\s+(?:(?P<port>port)\s+|version\s+)?", re.I)

# Announced changes: "we renamed X to Y", "ops raised the cap on X to Y", "X was renamed to Y",
# "X has been bumped to Y", "the standup moved to 10am". What they assert is the new state, so
# they key like the statement of it ("X is called Y", "the cap on X is Y").
_RENAME_VERBS = "renamed|rebranded|retitled"
_SET_VERBS = (
    "raised|lowered|increased|decreased|reduced|bumped|changed|moved|switched|updated|"
    "migrated|upgraded|downgraded|set|reset|extended|shortened|capped|doubled|halved|"
    "cut|lifted|dropped|pushed|pulled|shifted"
)
_MOTION_VERBS = frozenset({"moved", "migrated", "shifted", "pushed", "pulled"})
# Things that are somewhere: moving one changes its place, not its value.
_PLACED_NOUNS = _lexicon(
    """team office company school university employer partner spouse doctor dentist gym server
    cluster database db repo repository service account user cache store storage queue bucket
    table file folder directory"""
)
_CHANGE_ADVERBS = r"(?:(?:now|just|finally|officially|recently|also|already|since|today)\s+)*"
_CHANGE_AGENT = re.compile(
    r"^(?P<agent>[A-Za-z][\w.&-]*(?:\s+[A-Za-z][\w.&-]*){0,2}?)\s+"
    r"(?:(?:have|has|had|'ve|’ve)\s+)?"
    + _CHANGE_ADVERBS
    + rf"(?P<verb>{_RENAME_VERBS}|{_SET_VERBS})\s+",
    re.I,
)
# A note's elided agent: "bumped the CI runners to Node 22 today".
_CHANGE_NO_AGENT = re.compile(rf"^(?P<verb>{_RENAME_VERBS}|{_SET_VERBS})\s+", re.I)
_CHANGE_PASSIVE = re.compile(
    r"\s(?:was|were|has\s+been|have\s+been|had\s+been|got|gets|is|are|'s\s+been|’s\s+been)\s+"
    + _CHANGE_ADVERBS
    + rf"(?P<verb>{_RENAME_VERBS}|{_SET_VERBS})\s+(?=(?:from\s|to\s|as\s))",
    re.I,
)
_CHANGE_INTRANSITIVE = re.compile(
    r"\s(?:(?:has|have)\s+)?"
    + _CHANGE_ADVERBS
    + r"(?P<verb>changed|moved|switched|went\s+up|went\s+down|increased|decreased|dropped|"
    r"rose|grew|jumped|shrank|shifted)\s+(?=(?:from\s|to\s))",
    re.I,
)
_CHANGE_TARGET = re.compile(
    r"(?:^|\s)(?:from\s+.+?\s+)?(?P<prep>to|as)\s+(?:(?P<port>port)\s+)?", re.I
)
# "is always in Barcelona": a frequency adverb between copula and value says nothing about
# which value it is.
_COPULA_ADVERB = re.compile(
    r"(?<=\s)(?P<verb>is|are)\s+(?:always|usually|normally|typically|generally)\s+", re.I
)
# Words after the value that only say the change is recent ("... in Lisbon from now on").
_RECENCY_TAIL = re.compile(
    r",?\s+(?:from\s+now\s+on|going\s+forward|these\s+days|nowadays|today|yesterday|tonight|"
    r"(?:last|this|next)\s+(?:night|week|month|year|quarter|sprint|cycle|time|\w+day)|"
    r"(?:as\s+of|starting|effective)\s+(?:\w+\s+){0,2}\w+)(?=\s*(?:$|[,;]))",
    re.I,
)


# --- extraction -------------------------------------------------------------------------------


def _singular(term: str) -> str:
    """The head noun in the singular ("quarterly offsites" -> "quarterly offsite"), so a
    statement about the class and one about its instance key alike."""
    head, _, last = term.rpartition(" ")
    if not head or len(last) <= 3 or not last.isalpha() or last.endswith(("ss", "us", "is")):
        return term  # one word may be a config key ("retries: 3"), not prose
    if last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "xes", "sses")):
        last = last[:-2]
    elif last.endswith("s"):
        last = last[:-1]
    return f"{head} {last}"


# Relations that say the same thing: where someone or something is based.
_WHERE = re.compile(r"^(?:(?:lives|based|located|resides|hosted)\s+(?:in|on|at)|home base)\b")


# What a setting is called besides its name ("the max_connections setting", "the value of
# MAX_RETRIES"): the name alone keys it, as "max_connections is 200" does.
_SETTING_NOUNS = frozenset(
    str.split("setting option parameter param flag variable constant config field")
)
_IDENTIFIER = re.compile(r"[a-z][\w\-]*[_.][\w.\-]*")  # normalised: snake_case, dotted


def _setting_name(subject: str, relation: str) -> tuple[str, str]:
    words = subject.split()
    if len(words) == 2 and words[1] in _SETTING_NOUNS and _IDENTIFIER.fullmatch(words[0]):
        return words[0], relation
    if relation == "value" and len(words) == 1 and _IDENTIFIER.fullmatch(subject):
        return subject, "is"
    return subject, relation


def _fact(subject: str, relation: str, value: str) -> Fact | None:
    s, r = normalize_key(subject, relation)
    s, r = _setting_name(s, r)
    r = _WHERE.sub("location", r)
    if subject.split() and subject.split()[-1].islower():  # "Tomas" is a name
        s = _singular(s)
    if not s or not r or not value:
        return None
    if r == "is" and collection_setting(subject):
        return None  # ``ALLOWED_ORIGIN=...``: one more member of a list, not the one value
    if len(s) > 512 or len(r) > 256 or len(value) > 2048:
        return None
    return Fact(subject=s, relation=r, object=normalize_object(value))


def _with_qualifiers(relation: str, qualifiers: Sequence[str]) -> str:
    return " ".join([relation, *qualifiers])


def requirement_spec(token: str) -> tuple[str, str] | None:
    """``name==ver`` -> (name, ver); other operators keep theirs: ``numpy>=1.26`` -> ``>=1.26``."""
    m = _SPEC_RE.match(token)
    if m is None:
        return None
    name = m.group("name").split("[")[0]
    op, ver = m.group("op"), m.group("ver")
    return name, ver if op in {"==", "===", "@"} else f"{op}{ver}"


def _finish(
    form: _Form,
    relation: str,
    subject_part: _Sentence,
    object_part: _Sentence,
    lead_qualifiers: Sequence[str],
    *,
    note: bool = True,
) -> Fact | None:
    """The fact one placement of a form reads; ``note``: a sentence, not a file's line."""
    subject = _clean_subject(subject_part)
    if subject is None:
        return None
    parsed = _parse_value(object_part)
    if parsed is None:
        return None
    value, quals = parsed.value, (*lead_qualifiers, *parsed.qualifiers)
    if form.assign and not quals:
        # "PR #331 (sync client): MAX_RETRIES = 5": a label, then the setting's own name (one
        # placed "in app/build.gradle.kts" is left to the inline reading, which scopes it)
        label, colon, name = subject.rpartition(": ")
        # the label is a note's words, no declaration's name ("pub const SIGIOT: c_int = 6",
        # "TIMEOUT: int = 30": a type follows the colon there)
        words = label.casefold().split()
        said = note and len(words) >= 2 and words[0] not in _DECLARATION_WORDS
        # ... unless the label names the setting's owner ("reporting db: max_connections")
        owned = OWNER_LABEL.fullmatch(label + colon.strip()) is not None
        if colon and said and not owned and _CODE_NAME.fullmatch(name.strip()):
            subject = name.strip()
    tokens = value.split()
    quoted = form.name == "colon" and object_part.text.lstrip().startswith("`")
    if quoted and (_one_of_many(subject, tokens) or SETTING_VALUE.match(value)):
        # one line of a file's many, as on its line, or a setting by its own name
        # (``@acme:registry=...``, read as that name's value): no key's value
        return None
    if (
        form.name == "colon"
        and len(tokens) >= 2
        and tokens[0].casefold() in REPEATED_DIRECTIVES
        and FILE_NAMED.search(subject)
    ):
        return None  # unquoted, too ("resolv.conf on the VPN gateway: nameserver 10.8.0.2")
    if form.name == "colon" and note and _STATEMENT_ENTRY.match(value):
        # "Payments on-call rota: Priya covers weekday nights": a statement under a heading,
        # one entry of the rota; frame alignment compares two entries (a name replaced, the
        # rest the same, is a change; "Dmitri covers weekends" is another entry)
        return None
    if form.name == "colon" and _PAYMENT.match(value):
        # "Standing order: £200 to the ISA": one payment of a list, or the label's amount
        # changed with its payee kept; frame alignment compares both parts
        return None
    row = _MAPPING_ROW.match(value) if form.name == "colon" else None
    if row is not None:
        # "ownership sheet: billing-api -> Kestrel squad": one row of a mapping, keyed by its
        # left side (the next row maps another thing)
        return _fact(f"{subject} {row['key']}", _with_qualifiers(relation, quals), row["value"])
    spec = requirement_spec(value) if len(tokens) == 1 else None
    if spec is not None and form.versioned != "no":
        return _fact(spec[0], _with_qualifiers("version", quals), spec[1])
    if form.need_version:
        if not _is_version(value):
            return None
        return _fact(subject, _with_qualifiers(relation, quals), value)
    if len(tokens) >= 2 and _is_version(tokens[-1]) and form.versioned != "no":
        name = " ".join(tokens[:-1])
        if not _is_version(name):
            return _fact(subject, _with_qualifiers(f"{relation} {name}", quals), tokens[-1])
    if form.versioned == "require":
        return None
    attributed = False
    if form.assign:
        split = _split_attribute(subject)
        if split is not None:
            subject, relation = split[0], split[1]
            attributed = True
            if _clean_subject(_Sentence.of(subject)) is None:
                return None
    if form.gate and not (_is_strong(value) or attributed or _attribute_like(subject)):
        return None
    return _fact(subject, _with_qualifiers(relation, quals), value)


# An amount of money as written ("£148", "$1,020", "€2.5k")
MONEY = r"[£$€¥]\d[\d,.]*[kKmM]?"
# (an amount without its currency too, to a payee by name: "450 to Castlegate Lettings")
_PAYMENT = re.compile(
    rf"^(?:{MONEY}(?:/\w+)? to \S|\d[\d,.]*(?:/\w+)? to (?:(?:the|my|our|his|her) )?[A-Z])"
)
# A name, a verb in the present tense and what it does ("Priya covers weekday nights")
_STATEMENT_ENTRY = re.compile(r"^[A-Z][a-z]+ [a-z]{2,}(?<![su]s)(?<!ss)s [a-z]\S*(?: \S+)*$")
# A mapping's row after a label: its left side, an arrow, what it maps to
_MAPPING_ROW = re.compile(r"^(?P<key>[^\s<>=]+?(?:\s[^\s<>=]+?)?)\s*(?:->|→|=>)\s*(?P<value>\S.*)$")
# A value that is a setting of its own, by its name (``@acme:registry=https://...``)
SETTING_VALUE = re.compile(r"^[`'\"]?(?P<name>[\w@.:/-]+?)\s?=\s?\S")


def _one_of_many(label: str, line: Sequence[str]) -> bool:
    """A line (its tokens) quoted after ``label`` is one of its file's many: the label names
    the file, or the line is of a directive its file repeats, with its arguments ("server api1
    10.8.0.11:3000 check" in a backend, "Plug 'tpope/vim-fugitive'" in a vimrc), as
    ``gcmem.storage.ledger.policy`` reads the directive's lines."""
    directive = line[0].casefold() if len(line) >= 2 else ""
    return (
        directive in REPEATED_DIRECTIVES
        or directive == "plug"
        or FILE_NAMED.search(label) is not None
    )


_QUOTED_LINE = re.compile(r"^(?P<label>[^:`\n]{2,120}):\s*`(?P<line>[^`\n]+)`\s*\.?$")


def quoted_file_line(text: str) -> bool:
    """One line quoted whole after a label that names its file, or of a directive its file
    repeats ("Brewfile in the dotfiles repo: `brew "ripgrep"`", "haproxy backend api: `server
    api1 10.8.0.11:3000 check`"): a line of the file's many, as the colon form reads it."""
    m = _QUOTED_LINE.match(text.strip())
    return m is not None and _one_of_many(m["label"], m["line"].split())


# A sentence that opens on the speaker's possessive, after an optional chat speaker label.
_POSSESSIVE_LEAD = re.compile(r"^(?:(?P<speaker>[A-Z][a-z]+):\s+)?(?:my|our)\s+(?=[a-z0-9])", re.I)


# "Maya's in Denver now", "Dad's on 20 mg": a possessive is never followed by a bare
# preposition, so this 's is "is".
_IS_CONTRACTION = re.compile(
    r"(?<=[A-Za-z])['’]s\s+(?=(?:(?:now|still|currently|back)\s+)?(?:in|at|on)\s)"
)


def _possessive_subject(text: str, speaker: str | None) -> str:
    """ "My X" / "Our X" as a subject: the thing of whoever speaks. A memory namespace is one
    person's (or one team's), so "our design system" is the design system; in a transcript
    whose lines name their speaker ("Maya: ...", ``speaker`` for the sentences after the
    label), "My dog is ..." is Maya's dog, never Jordan's."""
    m = _POSSESSIVE_LEAD.match(text)
    if m is None:
        return text
    label = m.group("speaker")
    if label is not None and not _speaker_label(label):
        return text  # "Owner: my team": a key, not a speaker
    owner = label or speaker
    return (f"{owner}'s " if owner else "The ") + text[m.end() :]


def line_speaker(line: str) -> str | None:
    """The speaker a transcript line names first ("Maya: ..."), if any."""
    m = re.match(r"(?P<name>[A-Z][a-z]+):\s", line)
    return m.group("name") if m is not None and _speaker_label(m.group("name")) else None


def _speaker_label(key: str) -> bool:
    """A chat transcript's "Lucy: Yes.": a capitalised name that is no attribute, in front of
    a colon, is who speaks, not a key ("Owner: Ann", "Host: db-1" are keys)."""
    word = key.strip()
    return bool(re.fullmatch(r"[A-Z][a-z]+", word)) and not _attribute_like(word)


# a program and its arguments up to a flag ("rsync -az --bwlimit"; a list item's "- --flag"
# is no command)
_COMMAND_FLAG = re.compile(r"^\s*(?!-\s)\S+\s+(?:\S+\s+)*--?[A-Za-z][\w\-]*$")


def _try_form(
    form: _Form, s: _Sentence, lead_qualifiers: Sequence[str], *, note: bool = True
) -> list[Fact]:
    """Every top-level placement of the form's verb phrase; one reading or none. In a note
    (not a file's line), a collection's label names no key: "Allergies: cats" adds a member
    ("tags: backend" in a file is that key's one value)."""
    readings: dict[tuple[str, str], Fact] = {}
    for m in form.verb.finditer(s.mask):
        if m.start() == 0 and form.name not in {"colon", "assign"}:
            continue
        label = s.text[: m.start()]
        if form.name == "colon" and (
            _speaker_label(label) or (note and (collection_label(label) or title_label(label)))
        ):
            continue
        if form.name == "assign" and _COMMAND_FLAG.match(label):
            # a command's flag ("rsync -az --bwlimit=5000 src host:dst"): its "value" runs on
            # into the command's other arguments, and the command is no subject (frame
            # alignment compares two invocations whole)
            continue
        relation = form.relation(m)
        fact = _finish(
            form, relation, s.cut(0, m.start()), s.cut(m.end()), lead_qualifiers, note=note
        )
        if fact is not None:
            readings[(fact.subject, fact.relation)] = fact
    if len(readings) != 1:
        return []  # none, or an ambiguous sentence: no guess
    return list(readings.values())


def _try_we(s: _Sentence, lead_qualifiers: Sequence[str]) -> list[Fact]:
    """``we pin X at V``, ``we set X to Y``, ``we run X on port P``, ``we deploy X to Y``."""
    m = _WE_VERB.match(s.mask)
    if m is None:
        return []
    verb = m.group("verb").lower()
    rest = s.cut(m.end())
    tokens = rest.strip().tokens()
    if tokens and verb in {"pin", "lock"}:
        spec = requirement_spec(tokens[0][0])
        if spec is not None:
            parsed = _parse_value(_Sentence.of(" ".join(["x", *[t[0] for t in tokens[1:]]])))
            quals = (*lead_qualifiers, *(parsed.qualifiers if parsed else ()))
            if len(tokens) > 1 and parsed is None:
                return []
            fact = _fact(spec[0], _with_qualifiers("version", quals), spec[1])
            return [fact] if fact else []
    readings: dict[tuple[str, str], Fact] = {}
    for pm in _WE_PREP.finditer(rest.mask):
        prep = pm.group("prep").lower()
        obj = rest.cut(pm.end())
        parsed = _parse_value(obj)
        if parsed is None:
            continue
        subject = _clean_subject(rest.cut(0, pm.start()))
        if subject is None:
            continue
        quals = (*lead_qualifiers, *parsed.qualifiers)
        value = parsed.value
        if pm.group("port"):
            relation = "port" if verb in {"run", "host", "deploy", "set", "configure"} else ""
        elif verb in {"pin", "lock", "bump", "upgrade", "downgrade"}:
            relation = "version" if _is_version(value) and prep in {"at", "to", "on"} else ""
        elif verb in {"keep", "hold"}:
            relation = "version" if _is_version(value) else ("is" if prep == "at" else "")
        elif verb in {"set", "configure"}:
            relation = "is" if prep in {"to", "as"} else ""
        elif verb == "run":
            relation = "runs on" if prep == "on" else ""
        elif verb == "deploy":
            relation = f"deployed {prep}" if prep in {"to", "on"} else ""
        else:  # host
            relation = f"hosted {prep}" if prep in {"on", "at"} else ""
        if not relation:
            continue
        if relation == "is":
            split = _split_attribute(subject)
            if split is not None:
                subject, relation = split
        fact = _fact(subject, _with_qualifiers(relation, quals), value)
        if fact is not None:
            readings[(fact.subject, fact.relation)] = fact
    return list(readings.values()) if len(readings) == 1 else []


def _change_facts(
    verb: str, subject_part: _Sentence, rest: _Sentence, lead_qualifiers: Sequence[str]
) -> tuple[Fact, ...]:
    """``_change_fact``, and for a rename the plain value as well: "the analytics bucket is
    acme-raw-events" names the bucket as much as "... is called acme-raw-events" does."""
    fact = _change_fact(verb, subject_part, rest, lead_qualifiers)
    if fact is None:
        return ()
    if fact.relation.split()[0] != "name" or re.fullmatch(_RENAME_VERBS, verb, re.I) is None:
        return (fact,)
    plain = _fact(fact.subject, "is" + fact.relation[len("name") :], fact.object)
    return (fact, plain) if plain is not None else (fact,)


def _change_fact(
    verb: str, subject_part: _Sentence, rest: _Sentence, lead_qualifiers: Sequence[str]
) -> Fact | None:
    """The new state an announced change asserts: (X, name, Y) for a rename, (X, port, P) for
    "to port P", else the value of the attribute X names ("the upload cap on the media
    service": (media service, upload cap, Y)). An X that names no attribute ("we moved the
    team to Berlin") keys nothing: what relation it changes is not in the sentence."""
    m = _CHANGE_TARGET.match(rest.mask)
    if m is None:
        return None
    parsed = _parse_value(rest.cut(m.end()))
    subject = _clean_subject(subject_part)
    if parsed is None or subject is None:
        return None
    quals = (*lead_qualifiers, *parsed.qualifiers)
    rename = re.fullmatch(_RENAME_VERBS, verb, re.I) is not None
    if rename or m.group("port"):
        if rename and m.group("port"):
            return None
        return _fact(subject, _with_qualifiers("name" if rename else "port", quals), parsed.value)
    if m.group("prep").lower() != "to":
        return None
    split = _split_attribute(subject)
    if split is not None:
        if _clean_subject(_Sentence.of(split[0])) is None:
            return None
        return _fact(split[0], _with_qualifiers(split[1], quals), parsed.value)
    head = normalize_term(subject).split()[-1]
    if verb.lower() in _MOTION_VERBS and head in _PLACED_NOUNS:
        return None  # "we moved the team to Berlin": where it is changed, not which it is
    # "we moved standup to 10:15": a number is a value of the thing itself
    if not _attribute_like(subject) and not any(ch.isdigit() for ch in parsed.value):
        return None
    return _fact(subject, _with_qualifiers("is", quals), parsed.value)


def _try_change(s: _Sentence, lead_qualifiers: Sequence[str]) -> list[Fact]:
    """ "We renamed X to Y", "X was raised to Y", "the standup moved to 10am": one reading or
    none. The agent of an active change is a pronoun or a short name ("ops", "IT")."""
    readings: dict[tuple[str, str], tuple[Fact, ...]] = {}
    active = _CHANGE_AGENT.match(s.mask) or _CHANGE_NO_AGENT.match(s.mask)
    if active is not None:
        agent = (active.groupdict().get("agent") or "").lower().split()
        if not any(w in _CLAUSE_WORDS or w in _DANGLING for w in agent):
            rest = s.cut(active.end())
            for tm in re.finditer(r"\s(?:from|to|as)\s", rest.mask):
                facts = _change_facts(
                    active.group("verb"),
                    rest.cut(0, tm.start()),
                    rest.cut(tm.start()),
                    lead_qualifiers,
                )
                if facts:
                    readings[(facts[0].subject, facts[0].relation)] = facts
                    break
    if not readings:
        for form in (_CHANGE_PASSIVE, _CHANGE_INTRANSITIVE):
            for m in form.finditer(s.mask):
                verb = m.group("verb").split()[0]
                facts = _change_facts(verb, s.cut(0, m.start()), s.cut(m.end()), lead_qualifiers)
                if facts:
                    readings[(facts[0].subject, facts[0].relation)] = facts
    return list(next(iter(readings.values()))) if len(readings) == 1 else []


# A dependency bump as commit messages and changelogs say it ("bump pydantic to 2.7.1",
# "chore(deps): bump axios from 1.6.2 to 1.7.4"): the package's new version.
_BUMP = re.compile(
    r"^(?:(?:commit\s+[0-9a-f]{6,40}|(?:chore|build|deps|fix)(?:\([\w-]+\))?)\s*:\s*)?"
    r"(?:bump(?:s|ed)?|upgrade[sd]?|update[sd]?|pin(?:s|ned)?|downgrade[sd]?)\s+"
    r"(?P<name>[A-Za-z@][\w.\-/@]*)\s+(?:from\s+v?\d[\w.\-+]*\s+)?to\s+"
    r"(?P<ver>v?\d+(?:\.\d+)+(?:[-+][\w.]+)?)(?=$|\s|[,;](?:\s|$)|\.(?:\s|$))",
    re.IGNORECASE,
)


def _try_bump(s: _Sentence) -> list[Fact]:
    m = _BUMP.match(s.mask.strip())
    if m is None or _hedged(s) or s.text.rstrip().endswith("?"):
        return []
    fact = _fact(m.group("name").lower(), "version", m.group("ver"))
    return [fact] if fact else []


def _try_specs(s: _Sentence) -> list[Fact] | None:
    """A line made only of version specs (``fastapi==0.110.0 pydantic==2.6.0``) or a bare
    ``name version`` line. None when the line is something else."""
    tokens = [t[0].rstrip(",") for t in s.tokens()]
    if not tokens:
        return None
    specs = [requirement_spec(t) for t in tokens]
    if all(sp is not None for sp in specs):
        facts = [_fact(n, "version", v) for n, v in specs if n and v]  # type: ignore[misc]
        return [f for f in facts if f is not None]
    if (
        len(tokens) == 2
        and _PACKAGE_NAME_RE.match(tokens[0])
        and _is_version(tokens[1])
        and not _IPV4.match(tokens[1])
    ):
        fact = _fact(tokens[0], "version", tokens[1])
        return [fact] if fact else []
    return None


_LEAD_QUALIFIER = re.compile(
    r"^(?P<q>(?:in|on|at|for|under|within|inside|across)\s+[^,]{1,60}),\s*", re.IGNORECASE
)


# A statement of one value is short; a longer "sentence" is prose the splitter could not cut
# (and scanning it for every verb placement would cost quadratic time).
MAX_STATEMENT_CHARS = 400


def _extract_sentence(
    sentence: str, speaker: str | None = None, *, note: bool = True
) -> list[Fact]:
    text = _BULLET.sub("", sentence.strip())
    if not text or text.endswith("?") or len(text) > MAX_STATEMENT_CHARS:
        return []
    text = text.rstrip()
    while text and text[-1] in ".!;":
        text = text[:-1].rstrip()
    if text.endswith(","):
        return []
    parts = _dash_clauses(text)
    if len(parts) > 1:
        return _joined(_extract_sentence(part, speaker, note=note) for part in parts) or []
    previous = None
    while previous != text:  # discourse leads can stack ("Also, for the record, ...")
        previous = text
        text = _DISCOURSE_LEAD.sub("", text, count=1).strip()
    text = _COPULA_ADVERB.sub(r"\g<verb> ", _RECENCY_TAIL.sub("", text))
    text = _possessive_subject(_IS_CONTRACTION.sub(" is ", text), speaker)
    s = _Sentence.of(text)
    if _adds_a_value(text):
        return []  # "... is read by the warehouse-sync job too": one more value, none replaced
    specs = _try_specs(s)
    if specs is not None:
        return specs
    lead: list[str] = []
    m = _LEAD_QUALIFIER.match(s.mask)
    if m is not None:
        lead.append(normalize_term(s.text[: m.end("q")]))
        s = s.cut(m.end())
    words = _words(s)
    if words and words[0] in _CONDITIONAL_LEADS:
        return []
    whole = s
    if _hedged(s):
        # "We moved standup to 10:15 so the Lisbon folks can join": a hedge in a reason or
        # purpose clause says why, it does not hedge the statement before it (and a hedged
        # clause states nothing)
        reason = _REASON_CLAUSE.search(s.mask)
        if reason is None or reason.start() == 0 or _hedged(s.cut(0, reason.start())):
            return []
        s = s.cut(0, reason.start())
    found = _try_clause(s, lead, note=note)
    if found:
        return found
    # "X is Y, so Z ...", "We dropped A, so the service targets B": each independent clause
    # is a statement of its own (the refusals above still read the whole sentence).
    clauses = []
    for start, end in _clause_spans(whole.mask):
        clause = whole.cut(start, end).strip()
        clause = clause.cut(len(clause.text) - len(_CLAUSE_LEAD.sub("", clause.text, count=1)))
        if not _hedged(clause):
            clauses.append(_try_clause(clause, lead if start == 0 else (), part=True))
    readings = _joined(clauses)
    if readings is None:
        return []
    if readings:
        return readings
    # "The analytics bucket is acme-raw-events, dump the nightly exports in there": a comma
    # before a phrase of three or more words with a lower-case word ends the statement (a
    # list goes on with values and conjunctions: "Berlin, Paris and Rome").
    m = re.search(r",\s+(?=[A-Za-z][\w'’]*\s+\S+\s+\S+)", s.mask)
    if m is not None and m.start() > 0:
        tail = [w.lower() for w in s.mask[m.end() :].split()[:3]]
        if any(w.isalpha() and w.islower() for w in s.text[m.end() :].split()[:3]) and not (
            set(tail) & _CONJUNCTIONS
        ):
            return _try_clause(s.cut(0, m.start()), lead, part=True)
    return []


# A spaced dash between two clauses: "Maya's in Denver now — the transfer came through".
_DASH_BREAK = re.compile(r"\s+(?:—|–|--)\s+")
# A dash tail that starts with one of these qualifies the clause before it ("— or at least it
# was", "— unless they changed it"): the sentence stays whole, so its hedge refuses it.
_DEPENDENT_LEADS = _REFUSE_WORDS | _CONDITIONAL_LEADS | frozenset({"or", "at", "and", "but"})


def _dash_clauses(text: str) -> list[str]:
    """The clauses of a sentence joined by spaced dashes, each read on its own (a hedge or an
    aside in one says nothing about the other); a side of fewer than three words ("9 – 5",
    "— maybe") or a dependent tail keeps the sentence whole."""
    parts = _DASH_BREAK.split(text)
    if len(parts) < 2:
        return [text]
    for part in parts:
        words = part.split()
        if len(words) < 3:
            return [text]
    if any(p.split()[0].lower().strip(",") in _DEPENDENT_LEADS for p in parts[1:]):
        return [text]
    return parts


def _joined(readings: Iterable[list[Fact]]) -> list[Fact] | None:
    """The facts of a sentence's clauses; None for two values of one key in one sentence (no
    guess)."""
    out: dict[tuple[str, str], Fact] = {}
    for facts in readings:
        for fact in facts:
            if out.setdefault((fact.subject, fact.relation), fact) != fact:
                return None
    return list(out.values())


# Where a reason, purpose or result clause starts: "because ...", "so (that) <subject> ...",
# ", so ..."; or a clause about someone the statement names (", and she seems way happier":
# a hedge of how she is, not of where she works).
_REASON_CLAUSE = re.compile(
    r",\s+(?=so\s|and\s+(?:she|he|they)\s)|,?\s+(?=(?:because|so\s+that|so\s+(?:the|our|my|we|i|it|they|you|he|she|"
    r"everyone)\s))",
    re.IGNORECASE,
)


def _hedged(s: _Sentence) -> bool:
    """A negation, modal, hedge or condition anywhere in ``s`` (an approximating "about" /
    "around" only before a quantity)."""
    return any(w in _REFUSE_WORDS for w in _words(s)) or _APPROXIMATE.search(s.mask) is not None


def _try_clause(
    s: _Sentence, lead: Sequence[str], *, part: bool = False, note: bool = True
) -> list[Fact]:
    """The forms on one clause. A ``part`` of a sentence is never a ``label: value`` line:
    "Daniel: Ha, my sister was the same" is a speaker and a remark, not (daniel, is, Ha)."""
    found = _try_we(s, lead) or _try_change(s, lead) or _try_bump(s)
    if found:
        return found
    words = _words(s)
    if words and words[0] in {"we", "i", "they", "you"}:
        return []
    for form in FORMS:
        if part and form.name == "colon":
            continue
        found = _try_form(form, s, lead, note=note)
        if found:
            return found
    return []


# Where an independent clause starts inside a sentence: after a comma or a semicolon before a
# conjunction or a new subject, and before "because" / "so <subject>".
_CLAUSE_BREAK = re.compile(
    r",\s+(?=(?:so|and|but|which|because|the|our|my|we|i|it|they|this|that|there)\s)"
    r"|;\s+|\s+(?=because\s)|\s+(?=so\s+(?:the|our|my|we|i|it|they)\s)",
    re.I,
)
_CLAUSE_LEAD = re.compile(r"^(?:so|and|but|which|because)\s+", re.I)


def _clause_spans(mask: str) -> list[tuple[int, int]]:
    """(start, end) of each clause, or [] when the sentence is one clause."""
    cuts = [(m.start(), m.end()) for m in _CLAUSE_BREAK.finditer(mask)]
    if not cuts:
        return []
    spans, start = [], 0
    for cut_start, cut_end in cuts:
        spans.append((start, cut_start))
        start = cut_end
    spans.append((start, len(mask)))
    return spans


def statement_units(text: str) -> Iterator[str]:
    """Sentences of prose, with line units (``key: value``, ``KEY=value``, specs, bullets, code
    and diff lines) kept apart even when the text wraps them into one paragraph."""
    for unit in split_units(text):
        yield unit.text.strip()


# A YAML block scalar's indicator is where the value starts, not the value.
_BLOCK_SCALARS = frozenset({"|", ">", "|-", ">-", "|+", ">+"})


def _scoped(fact: Fact, scope: Sequence[str]) -> Fact | None:
    """A line's fact keyed within its file and block (``version in cargo.toml > package``):
    the file is provenance, so it qualifies the key instead of being a subject."""
    if fact.object in _BLOCK_SCALARS:
        return None
    if not scope:
        return fact
    return _fact(
        fact.subject, _with_qualifiers(fact.relation, ["in", qualifier(scope)]), fact.object
    )


# Manifest lines whose key is the package, not the line's syntax.
_GO_REQUIRE = re.compile(
    r"^(?:require\s+)?(?P<name>[\w.\-]+(?:/[\w.\-~+]+)+)\s+(?P<ver>v\d[\w.\-+]*)(?:\s*//.*)?$"
)
_IMAGE = re.compile(
    r"^FROM\s+(?:--platform=\S+\s+)?(?P<name>[\w.\-/]+(?::\d+/[\w.\-/]+)?)"
    r"(?::(?P<tag>[\w.\-]+))?(?:@(?P<digest>\S+))?(?:\s+AS\s+\S+)?$",
    re.IGNORECASE,
)
_YAML_REF = re.compile(
    r"^(?:-\s+)?(?P<key>[\w.\-]+):\s+[\"']?(?P<name>[\w.\-]+(?:/[\w.\-]+)+)@(?P<ref>[\w.\-]+)[\"']?$"
)
_INLINE_TABLE = re.compile(r"^(?P<name>[\w.\-\"']+)\s*=\s*\{(?P<body>[^{}]*)\}$")
_INLINE_PAIR = re.compile(r"(?P<k>[\w.\-]+)\s*=\s*(?P<v>\"[^\"]*\"|'[^']*'|[^,\s]+)")


# A quoted requirement, a Python manifest's list element (setup.py's ``install_requires``,
# pyproject's ``dependencies``): ``"click>=7.0",``, ``"httptools==0.1.* ;" + env_marker``.
_QUOTED_SPEC = re.compile(
    r"""^(?P<q>["'])(?P<spec>[^"'\s;]+)\s*(?:;[^"']*)?(?P=q)\s*(?:,|\+.*)?$"""
)


def quoted_requirement(line: str) -> tuple[str, str] | None:
    """A quoted requirement line's ``requirement_spec`` (``"click>=7.0",``), else None."""
    m = _QUOTED_SPEC.match(line)
    return None if m is None else requirement_spec(m.group("spec"))


def _manifest_facts(line: str) -> list[Fact] | None:
    """Facts of a manifest line form (go.mod require, Dockerfile FROM, a YAML ``uses:
    owner/repo@ref``, a TOML inline table, a quoted requirement), else None."""
    if (spec := quoted_requirement(line)) is not None:
        fact = _fact(spec[0], "version", spec[1])
        return [fact] if fact else []
    m = _GO_REQUIRE.match(line)
    if m is not None:
        fact = _fact(m.group("name"), "version", m.group("ver"))
        return [fact] if fact else []
    m = _IMAGE.match(line)
    if m is not None and (m.group("tag") or m.group("digest")):
        fact = _fact(m.group("name"), "image tag", m.group("tag") or m.group("digest"))
        return [fact] if fact else []
    m = _YAML_REF.match(line)
    if m is not None:
        if not any(ch.isdigit() for ch in m.group("ref")):
            # a branch or channel (``dtolnay/rust-toolchain@nightly``, ``@master``) is which
            # variant a step runs, and one workflow's jobs run several: no version of the file
            return []
        fact = _fact(m.group("name"), "version", m.group("ref"))
        return [fact] if fact else []
    m = _INLINE_TABLE.match(line)
    if m is not None:
        name = _unwrap(m.group("name"))
        pairs = [
            (p.group("k"), _unwrap(p.group("v"))) for p in _INLINE_PAIR.finditer(m.group("body"))
        ]
        return [f for f in (_fact(name, k, v) for k, v in pairs) if f is not None]
    return None


# A package clause (Go, Java, Kotlin): a file declares its package once, at its top level, so
# the clause is the file's one package name (Scala, which allows several, is left out).
_PACKAGE_CLAUSE = re.compile(r"^package\s+(?P<name>[A-Za-z_][\w.]*)\s*;?$")
_PACKAGE_EXTENSIONS = frozenset({"go", "java", "kt"})


def _package_facts(where: ExcerptLine) -> list[Fact] | None:
    """The package a file's top-level package clause names, else None."""
    ext = (where.path or "").rsplit("/", 1)[-1].rsplit(".", 1)[-1].lower()
    if where.indent != 0 or "." not in (where.path or "") or ext not in _PACKAGE_EXTENSIONS:
        return None
    m = _PACKAGE_CLAUSE.match(where.text)
    if m is None:
        return None
    fact = _fact("package", "name", m.group("name"))
    return [fact] if fact else []


# A YAML list element naming a versioned runtime or tool (``- jruby-9.1.8.0``, ``- pypy-3.10``):
# its name is the package and the rest its version, as in a pin. A list names one version of a
# name (two in one excerpt give the key two values, so neither is kept: ``extract_triples``);
# a version needs a dot, so ``- rbx-2`` or ``- windows-2019`` (build numbers, OS images that a
# matrix lists side by side) are no pins.
_LIST_PIN = re.compile(
    r"^-\s+[\"']?(?P<name>[A-Za-z][A-Za-z_]*(?:-[A-Za-z][A-Za-z_]*)*)-"
    r"(?P<ver>v?\d+(?:\.\d+)+(?:[-+.][0-9A-Za-z]+)*)[\"']?$"
)


# A YAML list element that defines an anchor (``- &jruby jruby-9.2.7.0``): an anchor's name is
# one node's in its file, so it keys the scalar after it as the element's own key cannot.
_ANCHORED_ELEMENT = re.compile(
    r"^-\s+&(?P<anchor>[A-Za-z0-9_][\w\-]*)\s+(?P<value>[^\s#&*|>{\[][^#]*?)\s*(?:#.*)?$"
)


def _list_element_facts(where: ExcerptLine) -> list[Fact] | None:
    """What keys a YAML list element: the version it pins (``_LIST_PIN``) or the scalar its
    anchor names (``_ANCHORED_ELEMENT``); else None."""
    if not is_yaml_path(where.path):
        return None
    if (m := _LIST_PIN.match(where.text)) is not None:
        fact = _fact(m.group("name"), "version", m.group("ver"))
    elif (m := _ANCHORED_ELEMENT.match(where.text)) is not None:
        fact = _fact(f"&{m.group('anchor')}", "is", m.group("value"))
    else:
        return None
    return [fact] if fact else []


# A name in snake_case with an underscore: no sentence word has one.
_SNAKE_NAME = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+"
# Words that open a declaration: the name after them is declared, not said in a note.
_DECLARATION_WORDS = frozenset(
    str.split("pub const let var val static final export private public protected readonly mut")
)
# A name no sentence word has: UPPER_CASE or snake_case with an underscore, camelCase.
_SETTING_NAME = rf"[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]|{_SNAKE_NAME}|[a-z]+(?:[A-Z][a-z0-9]+)+"
# A setting's name as code writes it: those, or a dotted property (``server.port``).
_CODE_NAME = re.compile(rf"{_SETTING_NAME}|[a-z][\w-]*(?:\.[a-z][\w-]*)+")
# A server configuration directive (nginx and its kin: ``client_max_body_size 10m;``): a
# name in snake_case, one value, a semicolon. Source code has that shape too (``size_t n;``:
# a C type ends in "_t"), so not in a code file.
_DIRECTIVE = re.compile(rf"^(?P<name>{_SNAKE_NAME})\s+(?P<value>[^\s;{{}}\"']+);\s*(?:#.*)?$")


def config_directive(line: str, path: str | None = None) -> tuple[str, str] | None:
    """The name and value a configuration directive line sets (``_DIRECTIVE``), else None."""
    m = _DIRECTIVE.match(line.strip())
    if m is None or m.group("name").endswith("_t") or is_code_path(path):
        return None
    return m.group("name"), m.group("value")


def _directive_facts(where: ExcerptLine) -> list[Fact] | None:
    """The fact a configuration directive line states, else None."""
    found = config_directive(where.text, where.path)
    if found is None:
        return None
    fact = _fact(found[0], "is", found[1])
    return [fact] if fact else []


def _line_facts(line: str, keyed: bool = True) -> list[Fact]:
    """A file line's facts: a manifest form, else the sentence forms on the line without its
    member separator (``"debug": "2.6.9",``); a line whose own key does not identify it
    (``ExcerptLine.keyed``) only through the manifest forms, which key the package."""
    manifest = _manifest_facts(line)
    if manifest is not None:
        return manifest
    if not keyed:
        return []  # "run: x" in one list item and another: two steps, not one key
    if line.endswith(",") and not line.endswith(",,"):
        line = line[:-1].rstrip()
    if line.endswith(" \\"):
        line = line[:-2].rstrip()  # a shell line continued on the next: the "\\" is no value
    return _extract_sentence(line, note=False)


# Code written into a sentence ("requirements now has requests==2.31.0", "so we set
# LOG_LEVEL=warn", "Dockerfile now starts FROM python:3.12-slim"): the token states its key and
# value as exactly as its line would.
_INLINE_PIN = re.compile(
    rf"(?<![\w.\-?&/=])(?P<name>[A-Za-z][\w.\-]*)==(?P<ver>{_VERSION})(?![\w\-]|\.\w)"
)
_INLINE_IMAGE = re.compile(
    r"(?<!\S)FROM\s+(?P<name>[a-z0-9][\w.\-/]*):(?P<tag>[\w.\-]*\w)(?![\w\-:/]|\.\w)"
)
# NAME=VALUE with a name no sentence word has: UPPER_CASE or snake_case with an underscore,
# camelCase, or a command-line flag (``--web.listen-address=:9110``)
_INLINE_ASSIGN = re.compile(
    rf"(?<![\w.\-\"'?&/=])(?P<name>{_SETTING_NAME}|--[a-z][a-z0-9]*(?:[.\-][a-z0-9]+)*)"
    r"\s?=\s?(?P<value>\"[^\"\s]+\"|'[^'\s]+'|[^\s\"',;()=]*[^\s\"',;()=.])"
)
_INLINE_PAIR_JSON = re.compile(r'"(?P<name>[\w.@/\-]+)":\s?"(?P<value>[^"\s]+)"')
# a directive written into a sentence, its semicolon ending the clause ("now has
# client_max_body_size 50m;")
_INLINE_DIRECTIVE = re.compile(
    rf"(?<![\w.\-\"'?&/=])(?P<name>{_SNAKE_NAME})\s(?P<value>[^\s;{{}}\"',()]+)(?=;|$)"
)
# a Go module and its version ("go.mod now has `github.com/segmentio/kafka-go v0.4.47`"): a
# module path names its package, as a pin's name does
_INLINE_MODULE = re.compile(
    r"(?<![\w.\-/])(?P<name>[a-z0-9][\w\-]*(?:\.[\w\-]+)+(?:/[\w.\-~+]+)+)\s+"
    r"(?P<ver>v\d+(?:\.\d+)+(?:[\-+][\w.\-+]*)?)(?![\w.\-])"
)
_INLINE_FORMS = (
    _INLINE_PIN,
    _INLINE_MODULE,
    _INLINE_IMAGE,
    _INLINE_ASSIGN,
    _INLINE_PAIR_JSON,
    _INLINE_DIRECTIVE,
)
# A clause about a value that no longer holds, or one that is not set: its code tokens name
# the old or the hoped-for value, not the state.
_INLINE_REFUSE = _lexicon(
    """was were used old older previous previously formerly before from instead replaced
    replacing removed removing dropped dropping deprecated reverted revert rolled rollback
    back until"""
)
# What may follow a quoted line that opens a clause: its place and when it holds.
_PLACED = re.compile(
    r"\s*(?:in\s+(?:the\s+)?\[(?P<section>[^\[\]\s]+)\](?:\s+(?:section|block|table))?)?"
    r"\s*(?:now|from now on|going forward|these days)?\s*[.!]?\s*",
    re.IGNORECASE,
)
# "from" that says since when ("from now on", "from next sprint"), not from which old value
_FROM_NOW = re.compile(r"\bfrom(?=\s+(?:now|today|tomorrow|tonight|next|this)\b)", re.IGNORECASE)
# A token in a sentence states the value when the clause says so before it ("now has X",
# "set the worker to X", "PR merged: X"); one that the clause opens with is what it talks
# about ("requests==2.28.1 has a known CVE").
_INLINE_CUES = _lexicon(
    """now is are has have set sets pin pinned pins bump bumped bumps raise raised lower
    lowered change changed update updated upgrade upgraded downgrade downgraded move moved
    switch switched merged start starts use uses using run runs read reads says shows to at on
    with"""
)
# Words that may stand before a ``NAME=VALUE`` or JSON pair token: any other word names what
# the setting belongs to ("the jenkins agents use instance_type = ..."), a subject no line of
# a file carries, so the token would be the same key as another thing's setting.
_INLINE_BARE = _INLINE_CUES | _lexicon(
    """the a an our my its their this that so and then also just finally we i they it ops
    value line entry"""
)
# Words that link an owner's names ("production in config/database.yml"), naming nothing.
_INLINE_LINKS = _lexicon("in of for under inside")
# A pronoun with its verb ("so now it's SESSION_TTL=7200"): it names no owner.
_INLINE_PRONOUNS = _lexicon("it's that's there's we're they're i'm he's she's it")
_INLINE_SECTION = re.compile(r"\[([^\[\]\s]+)\]")
# A path with a directory names which of several files (``inventory-svc/.env.production``);
# matched from the start of a run only, so a long run without "/" is read once, not per offset
_INLINE_PATH = re.compile(r"(?<![\w.-])[\w.-]+/")
_INLINE_ADDITIVE = re.compile(r"\b(?:also|too|as well|likewise)\b", re.IGNORECASE)
_INLINE_CLAUSE_BREAK = re.compile(r"[,;]\s|[.!]\s|\s[-–—]\s|\n")
# A label before the colon that names a database, a host or an environment ("reporting db:
# max_connections = 300", "staging: ...") is the setting's owner, as words before it would be;
# a message's label ("commit 9f3a2c1:", "PR merged:") names none.
OWNER_LABEL = re.compile(
    r"\s*(?:(?:the|our|my)\s+)?(?:[\w.-]+\s+){0,3}?(?:db|database|cluster|server|host|box|node|"
    r"vm|replica|primary|shard|instance|broker|prod|production|staging|stage|dev|development|qa|"
    r"uat|sandbox|preprod)\s*:",
    re.IGNORECASE,
)


# ``key: value`` written into a sentence ("the cache now uses image: redis:7.2-alpine"): a
# YAML line's form. A colon after a word is a label in prose ("Heads up: ..."), so the token
# is read only as an owned token (below), which an older line with that very key must confirm.
_INLINE_COLON = re.compile(
    r"(?<![\w.\-:/])(?P<name>[a-z][a-z0-9_\-]*):\s(?P<value>'[^'\n]+'|\"[^\"\n]+\"|"
    r"[^\s\"',;()]*[^\s\"',;().:])"
)

# ``key = value`` or ``key: value`` in backticks: code by the writer's own mark, read like the
# colon form (an older line with that very key must confirm it)
_INLINE_SPAN = re.compile(
    r"`(?P<name>[A-Za-z_][\w.\-]*)\s?[=:]\s?(?![=:])(?P<value>[^`\s\"']|[^`\s\"'][^`]*[^`\s;,])`"
)

_INLINE_COLON_LEAD = re.compile(
    r"(?:(?<![\w'])(?:" + "|".join(sorted(_INLINE_CUES)) + r")|->|→)\s+$", re.IGNORECASE
)


@dataclass(frozen=True)
class OwnedToken:
    """A setting written into a sentence after the words that name its owner ("worker now has
    instance_type = m6i.large", "changed the Night heat automation to temperature: 17"): the
    key is that owner's, which only an older excerpt naming the same owner can tell."""

    fact: Fact
    owner: frozenset[str]


def _names_nothing(word: str) -> bool:
    """A word before a setting that names no owner: a cue, a link between names, a message's
    kind ("FYI changed ..."), a pronoun, a past-tense verb ("Backfill relaunched with ...")."""
    return (
        word in _INLINE_BARE
        or word in _INLINE_LINKS
        or word in DISCOURSE_LABELS
        or word in _INLINE_PRONOUNS
        or (len(word) > 4 and word.endswith("ed"))
    )


def inline_code_facts(sentence: str) -> list[Fact]:
    """The code tokens of a prose sentence as the facts their lines would give: a pin
    (``name==1.2``: its version), a ``FROM image:tag`` (its image tag), ``NAME=VALUE`` and a
    JSON ``"key": "value"`` pair (``is``). In a clause with words, only a token after a word
    that says it holds (``_INLINE_CUES``), and a setting only with no word before it that
    names its owner (``_INLINE_BARE``: a package or an image names itself; see
    ``owned_code_tokens``); none from a clause that is hedged, negated or about an old value
    (its words read with the code tokens left out), and none for a key the sentence gives two
    values (a change written as "from A to B")."""
    found = [(n, r, v) for n, r, v, owner in _code_tokens(sentence) if owner is None]
    found += _ticked_pins(sentence)
    values: dict[tuple[str, str], set[str]] = defaultdict(set)
    for name, relation, value in found:
        values[(name.lower(), relation)].add(value)
    facts: list[Fact] = []
    for name, relation, value in found:
        if len(values[(name.lower(), relation)]) == 1:
            fact = _fact(name, relation, value)
            if fact is not None and fact not in facts:
                facts.append(fact)
    return facts


# A manifest line written out unquoted at the end of the sentence that says it is the line now
# ("..., the line is now tokio = { version = "1.35", features = ["full"] }").
_LINE_NOW = re.compile(
    r"\b(?:the\s+)?(?:line|entry)\s+(?:is\s+now|now\s+(?:is|reads|says)|reads)\s*:?\s+"
    r"(?P<code>\S+\s*=\s*\S.*?)\s*$",
    re.IGNORECASE,
)


def _ticked_pins(sentence: str) -> list[tuple[str, str, str]]:
    """The version a manifest line quoted whole in backticks pins (`` `tokio = { version =
    "1.35", features = ["full"] }` ``), or written out unquoted after "the line is now"
    (``_LINE_NOW``): a pin names its package wherever it is written, as on its line; none
    from a sentence that is hedged or about an old value."""
    spans = QUOTED_CODE.findall(sentence)
    said = _LINE_NOW.search(sentence)
    if said is not None:
        spans.append(said.group("code"))
        sentence = sentence[: said.start("code")]
    if not spans:
        return []
    words = _words(_Sentence.of(QUOTED_CODE.sub(" ", sentence)))
    if any(w in _REFUSE_WORDS or w in _INLINE_REFUSE for w in words):
        return []
    out = []
    for span in spans:
        for fact in _manifest_facts(span.strip()) or ():
            if fact.relation == "version":
                out.append((fact.subject, fact.relation, fact.object))
    return out


def owned_code_tokens(sentence: str) -> list[OwnedToken]:
    """The settings of a sentence that ``inline_code_facts`` leaves out because words before
    them name an owner, and ``key: value`` tokens, each with its owner's words (empty when
    none is named): what the supersession stage may read as an older excerpt's line when that
    excerpt names the same owner and has exactly one line with that key."""
    out: list[OwnedToken] = []
    for name, relation, value, owner in _code_tokens(sentence, colon=True):
        fact = _fact(name, relation, value)
        if fact is not None and owner is not None:
            out.append(OwnedToken(fact, owner))
    return out


# A neighbour's sentences are read again for every newer chunk aligned with it: once each.
@lru_cache(maxsize=8192)
def _code_tokens(
    sentence: str, *, colon: bool = False
) -> tuple[tuple[str, str, str, frozenset[str] | None], ...]:
    """(name, relation, value, owner words) of each code token said to hold; the owner is None
    for a token ``inline_code_facts`` keys, the words that name another owner otherwise (a
    setting after them, or a ``key: value`` token: ``colon``)."""
    found: list[tuple[str, str, str, frozenset[str] | None]] = []
    forms = (*_INLINE_FORMS, _INLINE_COLON) if colon else _INLINE_FORMS
    # backticks mark code: a ``key = value`` span is read whatever its key looks like, and
    # the other forms read the sentence without them (a blank each: offsets stay)
    ticked = sentence
    sentence = sentence.replace("`", " ")
    start = 0
    for brk in [*_INLINE_CLAUSE_BREAK.finditer(sentence), None]:
        end = brk.start() if brk is not None else len(sentence)
        clause = sentence[start:end]
        start_of_clause = start
        # a directive's semicolon ends the clause ("set client_max_body_size 50m; and ...")
        closed = sentence[end : end + 1] == ";"
        hits = [
            (form, m)
            for form in forms
            for m in form.finditer(clause)
            if form is not _INLINE_DIRECTIVE
            or clause[m.end() :].strip() == ";"
            or (closed and m.end() == len(clause))
        ]
        if colon:
            hits += [(_INLINE_SPAN, m) for m in _INLINE_SPAN.finditer(ticked[start:end])]
        start = brk.end() if brk is not None else end
        # a span another form reads (a pin, an assignment) is that form's
        known = [m.span() for form, m in hits if form not in (_INLINE_SPAN, _INLINE_COLON)]
        hits = [
            (form, m)
            for form, m in hits
            if form is not _INLINE_SPAN or not any(m.start() <= a < m.end() for a, _ in known)
        ]
        ticks = [m.span() for form, m in hits if form is _INLINE_SPAN]
        hits = [
            (form, m)
            for form, m in hits
            if form is _INLINE_SPAN
            or not any(a <= m.start() < b or a < m.end() <= b for a, b in ticks)
        ]
        if colon:
            # a "key: value" inside another token ("image: redis:7.2") is that token's; one is
            # read only right after a word that says it holds ("uses image: ...", "to
            # temperature: 17", "-> groceries: 750"), never as a label ("prep: checkout ...")
            spans = [m.span() for form, m in hits if form not in (_INLINE_COLON, _INLINE_SPAN)]
            hits = [
                (form, m)
                for form, m in hits
                if form is not _INLINE_COLON
                or (
                    not any(a <= m.start() < b or a < m.end() <= b for a, b in spans)
                    and _INLINE_COLON_LEAD.search(clause[: m.start()]) is not None
                )
            ]
        if not hits:
            continue
        plain = _FROM_NOW.sub(lambda f: " " * len(f.group()), clause)
        for _form, m in hits:
            plain = plain[: m.start()] + " " * (m.end() - m.start()) + plain[m.end() :]
        words = _Sentence.of(plain)
        clause_words = _words(words)
        if _hedged(words) or any(w in _INLINE_REFUSE for w in clause_words):
            continue
        for form, m in sorted(hits, key=lambda h: h[1].start()):
            lead = clause[: m.start()].rstrip()
            before = _words(words.cut(0, m.start()))
            # a Dockerfile's first instruction, its lines run together: FROM says it itself;
            # a colon introduces a value that ends the clause ("PR merged: requests==2.31.0
            # (CVE fix)"), not a subject ("Heads up: requests==2.28.1 has a known CVE")
            opens = form is _INLINE_IMAGE and not lead
            labelled = lead.endswith(":") and not _words(words.cut(m.end()))
            # a quoted line that opens the clause, only its place and "now" after it
            # ("`host = relay.mailgun.org` in the [smtp] section now"), is that line again
            placed = _PLACED.fullmatch(clause[m.end() :]) if form is _INLINE_SPAN else None
            quoted = placed is not None and not lead
            said = opens or labelled or quoted or any(w in _INLINE_CUES for w in before)
            if clause_words and not said:
                continue
            # the owner is named after the last colon ("commit 9f3a2c1: raise RETRY_LIMIT = 5"),
            # or by a label that names a database or a host (``OWNER_LABEL``) before it;
            # a path names it too ("inventory-svc/.env.production has X=10"), and a setting
            # said to hold "as well" or "too" is another owner's beside this one
            last_colon = lead.rfind(":")
            label_from = lead.rfind(":", 0, max(last_colon, 0)) + 1
            owned = last_colon >= 0 and OWNER_LABEL.fullmatch(lead[label_from:]) is not None
            named_from = label_from if owned else last_colon + 1
            owner_text = clause[named_from : m.start()]
            owner = _words(words.cut(named_from, m.start()))
            setting = form in (
                _INLINE_ASSIGN,
                _INLINE_PAIR_JSON,
                _INLINE_COLON,
                _INLINE_DIRECTIVE,
                _INLINE_SPAN,
            )
            if setting and _INLINE_ADDITIVE.search(plain):
                continue
            named: frozenset[str] | None = None
            if setting:
                # a path names the file ("production in config/database.yml now says
                # `pool: 25`"): its words are the owner's, which the older excerpt must name
                pathed = _INLINE_PATH.search(owner_text) is not None
                # a clause that opens on a verb in -ing ("running the indexer with ...") names
                # its owner after it
                opener = owner_text.split()[:1]
                verb = opener[0].casefold() if opener and opener[0].endswith("ing") else None
                others = frozenset(w for w in owner if not _names_nothing(w) and w != verb)
                if pathed:
                    paths = (w for w in owner_text.split() if "/" in w)
                    others |= {p for w in paths for p in re.findall(r"[a-z0-9]+", w.casefold())}
                if placed is not None and placed["section"]:
                    # the section named after it is where the older excerpt holds the line
                    others |= {placed["section"].casefold()}
                if others or pathed or form in (_INLINE_COLON, _INLINE_SPAN):
                    named = others
            if form in (_INLINE_PIN, _INLINE_MODULE):
                found.append((m.group("name"), "version", m.group("ver"), named))
            elif form is _INLINE_IMAGE:
                # a base image is many Dockerfiles': a service the clause names before it owns
                # this one ("ingest-worker runs on Python 3.10 (FROM python:3.10-slim)")
                services = frozenset(
                    part
                    for w in re.findall(r"[A-Za-z]\w*(?:[-_]\w+)+", owner_text)
                    for part in re.findall(r"[a-z]+", w.casefold())
                )
                found.append((m.group("name"), "image tag", m.group("tag"), services or None))
            else:
                # a section the sentence names ("[Makefile] uses indent_style = tab") scopes
                # the setting as its header line would
                section = _INLINE_SECTION.findall(clause[lead.rfind(":") + 1 : m.start()])
                relation = _with_qualifiers("is", ["in", section[-1]]) if section else "is"
                ticked_value = (
                    _ticked_value(ticked, start_of_clause, m) if form is _INLINE_ASSIGN else None
                )
                value = ticked_value or _unwrap(m.group("value"))
                found.append((m.group("name"), relation, value, named))
    return tuple(found)


def _ticked_value(ticked: str, offset: int, m: re.Match[str]) -> str | None:
    """The whole value of a setting quoted alone in backticks (`` `JAVA_OPTS=-Xmx6g
    -XX:+UseG1GC` ``): the backticks, not a space, end it."""
    at = offset + m.start()
    if ticked[at - 1 : at] != "`":
        return None
    close = ticked.find("`", at)
    if close < offset + m.end():
        return None
    value = ticked[offset + m.start("value") : close].strip()
    return _unwrap(value) if value else None


def unit_facts(text: str) -> list[tuple[int, Fact]]:
    """The facts of each statement unit (``split_units`` order), as (unit index, fact).

    Lines of a file excerpt (``gcmem.facts.lines``) are keyed within their file and block
    context; the header states nothing. A line whose own key does not name one thing in its
    file (an indented binding in source code, a key inside a YAML list item) is keyed only by
    a manifest form.
    """
    return list(_unit_facts(text))


# A file excerpt posted as a proposal ("Draft PR #12:", "do NOT merge", "proposed change"):
# its lines say what the file would hold, not what it holds.
_PROPOSED = re.compile(
    r"\b(?:draft|wip|rfc|proposal|proposed|proposing|do(?:n't| not) merge|"
    r"not (?:yet )?merged|unmerged|(?:in|under|for|up for) review)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)
def proposed(text: str) -> bool:
    """The text's own words (its sentences, and a label over lines that names no file) call
    what it quotes a proposal; a file's lines ("draft: false", a comment) never do."""
    units = split_units(text)
    return _proposes(units, describe(units))


def _proposes(
    units: Sequence[tuple[str, bool]],
    where: Sequence[ExcerptLine | None],
    words: re.Pattern[str] = _PROPOSED,
) -> bool:
    return any(
        words.search(raw) is not None
        for (raw, _line), at in zip(units, where, strict=True)
        if at is None or (at.path is None and raw.rstrip().endswith(":"))
    )


# A file excerpt posted as what was added ("added to the node job in prometheus.yml:", "web3
# added:"): its lines are new members beside the file's others, not values replacing them.
_ADDED = re.compile(r"\b(?:add|adds|added|adding|appended)\b(?!-)", re.IGNORECASE)


@lru_cache(maxsize=8192)
def added_lines(text: str) -> bool:
    """The text's own words (as ``proposed`` reads them) say that what it quotes was added."""
    units = split_units(text)
    return _proposes(units, describe(units), _ADDED)


# Ingest reads a chunk's facts twice (the ledger's assertions, the stage's unit keys) and a
# neighbour's for every newer chunk aligned with it; facts are frozen, so they are shared.
@lru_cache(maxsize=8192)
def _unit_facts(text: str) -> tuple[tuple[int, Fact], ...]:
    units = split_units(text)
    described = describe(units)
    out: list[tuple[int, Fact]] = []
    quoted_proposal = _proposes(units, described)
    speaker: str | None = None  # of a transcript: the last line's label
    for i, ((raw, _line), where) in enumerate(zip(units, described, strict=True)):
        speaker = line_speaker(raw.strip()) or speaker
        if where is None:
            facts: list[Fact | None] = [_dosed(f) for f in _extract_sentence(raw.strip(), speaker)]
            keyed = {(f.subject, f.relation) for f in facts if f is not None}
            facts += [
                f for f in inline_code_facts(raw.strip()) if (f.subject, f.relation) not in keyed
            ]
        elif not where.content or quoted_proposal or is_comment_line(where.text, where.path):
            continue
        else:
            where = replace(where, text=without_comment(where.text, where.path))
            own = _package_facts(where)
            if own is None:
                own = _list_element_facts(where)
            if own is None:
                own = _directive_facts(where)
            if own is None:
                own = _line_facts(where.text, where.keyed)
            facts = [_scoped(f, where.scope) for f in own]
        out.extend((i, f) for f in facts if f is not None)
    return tuple(out)


# A dose ("20mg", "50 mg"), and a medicine before it ("amlodipine 5mg", "sertraline 50 mg")
DOSE = r"\d+(?:\.\d+)?\s?(?:mg|mcg|µg|ug|ml|iu|units?)"
_MEDICINE_DOSE = re.compile(rf"(?P<drug>[a-z][a-z\-]+)\s+(?P<dose>{DOSE})", re.IGNORECASE)


def _dosed(fact: Fact | None) -> Fact | None:
    """A medicine's dose is keyed by the medicine: someone takes several at once ("Dad's on
    amlodipine 5mg" / "Dad's on atorvastatin 20mg"), while one medicine's dose changes
    ("sertraline 50 mg" -> "sertraline 75 mg")."""
    m = _MEDICINE_DOSE.fullmatch(fact.object) if fact is not None else None
    if fact is None or m is None:
        return fact
    drug = m["drug"].lower()
    return Fact(subject=fact.subject, relation=f"{fact.relation} {drug}", object=m["dose"])


def extract_triples(text: str) -> list[Fact]:
    """Zero or more facts, one per (subject, relation) key, in text order.

    A key the text gives two different values for (in two sentences) yields nothing: which one
    is meant is exactly the guess the extractor does not make.
    """
    by_key: dict[tuple[str, str], Fact | None] = {}
    for _unit, fact in unit_facts(text):
        key = (fact.subject, fact.relation)
        if key in by_key:
            prev = by_key[key]
            if prev is not None and prev.object != fact.object:
                by_key[key] = None
        else:
            by_key[key] = fact
    return [f for f in by_key.values() if f is not None]


# the additive word itself (``_TOO``, or "also" before a word), to read the statement without it
_ADDITIVE_WORD = re.compile(r"\s*" + _TOO + r"|(?<=\S )also\s+(?=\w)", re.IGNORECASE)


def added_facts(text: str) -> list[Fact]:
    """The facts a statement adds a value to with "too", "as well" or "also" (read without
    the word; ``extract_triples`` keys none of them): the key holds several values at once
    ("The under-12s are coached by Sian Griffiths too")."""
    # only the clause the word is in ("Told the rep too: orders ship from Leeds" adds nothing)
    return [
        fact
        for clause in re.split(r"[,:;]\s", text)
        if _adds_a_value(clause)
        for fact in extract_triples(_ADDITIVE_WORD.sub("", clause))
    ]


@lru_cache(maxsize=8192)
def added_keys(text: str) -> frozenset[tuple[str, str]]:
    """The normalised keys of ``added_facts`` (a neighbour's or a candidate's statements are
    read again for every chunk compared with them)."""
    return frozenset(normalize_key(f.subject, f.relation) for f in added_facts(text))


def chunk_facts(chunk: Chunk) -> list[Fact]:
    """What a chunk asserts: its turn's explicit facts when the turn carried them (extraction
    is bypassed, even for chunks that carry none), else the extractor's triples."""
    if chunk.explicit_facts:
        return list(chunk.facts)
    return extract_triples(chunk.text)
