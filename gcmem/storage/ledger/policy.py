"""Resolution policies: which rule decides a conflict on a (subject, relation) key.

A policy table is an ordered list of rules (``gcmem.settings.PolicyRule``): the inline
``GCMEM_LEDGER_POLICIES`` rules first, then the rules of ``GCMEM_LEDGER_POLICY_FILE``. The
first rule whose namespace, subject, relation and source globs all match decides; no match
means the default policy (``latest`` unless configured). Patterns match the normalised key
(what the ledger stores), so ``"* speak* _"`` matches the frame relations ``i speak _`` and
``alice speaks _`` alike.

- ``latest``: the newer event time wins (the ledger's original rule).
- ``evidence``: the value with the larger support (the sum of its assertions' source trust
  weights; 1.0 each by default) wins, whatever its time; equal support goes to the value
  stated latest, then to the larger value (an arbitrary but order-free tie-break).
- ``confirm``: a contradicting value is held *pending*: the incumbent stays current and
  reads report the pending value as a conflict, until a second, independent source states
  it, a confirmation call promotes it, or it expires.
- ``accumulate``: multi-valued; a new value never supersedes, every value stays current.

After the rules, before the default: relations that hold many values at once by what they
mean (``MULTI_VALUED``: a language spoken, a certification, a topic's consumers, an allergy)
accumulate, unless ``GCMEM_LEDGER_KNOWN_MULTI_VALUED=false``. Nobody declares that a person
may speak two languages; a second one stated later is one more, not a replacement.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gcmem.normalize import ARTICLES
from gcmem.settings import LedgerSettings, PolicyName, PolicyRule, SettingsError

POLICIES: tuple[PolicyName, ...] = ("latest", "evidence", "confirm", "accumulate")
BUILTIN_RULE = "built-in"
SINGLE_VALUED: frozenset[str] = frozenset({"latest", "evidence", "confirm"})
DEFAULT_TRUST = 1.0
# Relations whose values are members, each true beside the others. Matched as whole words at
# the end of a relation ("certified in", "is consumed by") or right before a frame's slot
# ("marta is certified in _ , renewed last spring"); a phrase elsewhere in a frame ("service
# used by billing listens on port _") says nothing about the slot's value.
MULTI_VALUED: tuple[str, ...] = (
    *("speak", "speaks", "spoke", "fluent in", "got into", "taken up", "took up", "been to"),
    *("gotten into", "getting into", "really into"),  # "Gus has gotten really into _"
    # someone's hobbies: a hobby named later is one more ("his big retirement hobby is _")
    *("hobby", "hobbies", "hobby is", "hobbies are", "hobbies include"),
    *("certified in", "certified as", "trained in", "qualified in", "enrolled in"),
    # a second nationality is one more ("Elif has a German passport", after a Turkish one)
    *("passport", "passports", "citizenship"),
    *("signed up for",),  # a course, a class: one more
    # what a household pays for is one more bill or subscription ("we pay for Disney+")
    *("pay for", "pays for", "paying for"),
    # what is added is one more ("git remote add _", "add _ to the rota"), and so is a plugin
    # manager's line ("`Plug 'junegunn/fzf.vim'` in init.vim")
    *("add", "adds", "added", "plug", "plugin"),
    *("interested in", "involved in", "allergic to", "intolerant to", "intolerant of"),
    # what someone stays off for their health or taste is one more thing, not a replacement
    *("avoid", "avoids", "avoided", "stay away from", "stays away from", "stayed away from"),
    *("steer clear of", "steers clear of", "steered clear of"),
    *("consumed by", "used by", "read by", "called by", "imported by", "referenced by"),
    *("subscribed to", "subscribed by", "depended on by", "shared with"),
    # a welcome adds a member ("welcome _ to the data platform team")
    *("welcome", "welcomed", "welcoming"),
    # what a lab, shop or garden keeps, stocks or grows is one more, slotted right after the
    # verb ("we keep _ in the lab", "the shop stocks _"): where a thing is kept slots later
    *("keep", "keeps", "stock", "stocks", "carry", "carries", "culture", "cultures"),
    *("grow", "grows"),
    # ... and where it is stocked is one more shop ("our candles are stocked at _")
    *("stocked at", "stocked in", "stocked by"),
    # the instruments someone plays ("priya plays _ in community orchestra")
    *("play", "plays"),
    # a lab's grants, a club's sponsors: one more ("kalinowski lab / funded by")
    *("funded by", "sponsored by"),
    # the languages a work is translated into: one more ("heronsgate doc / translated into")
    *("translated into", "translated to", "localized into", "localised into", "dubbed into"),
    # who or what may use a thing: one more ("kenji was granted access to _")
    *("granted access to", "given access to", "has access to", "have access to"),
    # a copy is one of a collection's items ("club owns a copy of _")
    *("copy of", "copies of"),
    # what someone has got is one more thing got ("ivo's got his _": a CKA, then a PRINCE2)
    *("got his", "got her", "got their"),
)
_MULTI_VALUED = re.compile(
    r"(?:^|\s)(?:" + "|".join(re.escape(p) for p in MULTI_VALUED) + r")(?:$|\s+_(?:\s|$))"
    # the courses someone takes in a term or a school year ("Leo's taking _ this semester")
    # are several
    r"|(?:^|\s)taking\s+_\s+(?:this|next|last)\s+(?:semester|term|quarter|year)\b"
    # and the books a club reads over a term ("book club this term is reading _"; a month's
    # pick is one)
    r"|(?:^|\s)(?:this|next|last)\s+(?:term|semester|season|year)\s+(?:is|are)\s+reading\s+_"
    # so are the pieces performed at a concert ("choir's doing _ at christmas concert")
    r"|(?:^|\s)(?:doing|playing|singing|performing)\s+_\s+at\s+(?:\S+\s+){0,3}?"
    r"(?:concert|recital|gig|show|festival|service)\b"
    # and a work's translations, the language slotted right before the word ("kestrel notes
    # ships _ translation")
    r"|(?:^|\s)_\s+(?:translation|localization|localisation|dub)s?(?:\s|$)"
    # and a firewall's rules, one a port ("on vps : ufw allow _")
    r"|(?:^|\s)(?:ufw|firewall-cmd)\s+(?:allow|deny|limit|reject)\s+_(?:\s|$)"
    # and a list's member ("y9 summer reading list includes _"); not what a plan includes,
    # an amount that changes ("free tier now includes _")
    r"|(?:^|\s)(?:list|lineup|line-up|menu|playlist|syllabus|curriculum|bundle|collection|"
    r"shelf|rota)\s+(?:now\s+)?(?:includes|include|included)\s+_(?:\s|$)"
    # and what is put on a list or a setlist is one more item ("put _ on the harbour inn
    # setlist")
    r"|(?:^|\s)(?:put|puts|putting)\s+_\s+on\s+(?:\S+\s+){0,4}?(?:setlist|set\s+list|list|"
    r"playlist|menu|agenda|rota|shortlist|wishlist)(?:\s|$)"
    # and the features or flags a tenant has switched on ("acme tenant has _ turned on")
    r"|(?:^|\s)(?:has|have|had)\s+_\s+(?:turned\s+on|switched\s+on|enabled)(?:\s|$)"
)

# Configuration directives a file repeats, one value a line: a second "nameserver" line in
# resolv.conf, a "server" line in an upstream block or a "deb" line in sources.list adds one.
# Only as a line's whole frame ("/etc/resolv.conf > nameserver _"), as a line quoted in a
# sentence that names its file ("`nameserver 9.9.9.9` in resolv.conf on the lab VMs", "`deb
# http://... bookworm main` in sources.list") or after a label's colon ("haproxy backend api:
# `server api2 10.8.0.12:3000 check`"), never a word of a sentence ("in the print server").
REPEATED_DIRECTIVES: tuple[str, ...] = (
    *("nameserver", "server", "pool", "peer", "allow", "deny", "listen", "include"),
    *("deb", "deb-src"),
    *("brew", "cask", "tap", "gem"),  # a Brewfile's and a Gemfile's lines
    *("ufw",),  # a firewall's rules ("ufw allow 22/tcp", "ufw allow 443/tcp")
)
_DIRECTIVES = "|".join(re.escape(d) for d in REPEATED_DIRECTIVES)
_DIRECTIVE_LINE = re.compile(
    rf"(?:^|>\s)(?:{_DIRECTIVES})\s+_\s*;?$"
    # the line's own words after the slot: a suite's components ("deb _ main universe"), a
    # listener's options ("listen _ ssl http2"); not any words ("allow _ hours for drive")
    r"|(?:^|>\s)(?:deb|deb-src)\s+_(?:\s+[\w.-]+){1,4}$"
    r"|(?:^|>\s)listen\s+_(?:\s+(?:ssl|http2|quic|default_server|reuseport|proxy_protocol))+"
    r"\s*;?$"
    # a line quoted in a sentence: its own words after the slot, then its file
    rf"|^(?:{_DIRECTIVES})\s+_(?:\s+[\w.-]+){{0,3}}\s*;?\s+(?:in|from)\s+(?:\S+\s+){{0,4}}?\(?"
    r"[\w./-]*\.(?:conf|list|cfg|ini)\b"
    rf"|\s:\s(?:{_DIRECTIVES})\s+_(?:\s+[\w.-]+){{0,3}}\s*;?$"
    # ... or after a verb that says a named file or block holds it ("api.conf upstream block
    # has `server 10.0.4.11:8080;`")
    r"|(?:\.(?:conf|list|cfg|ini)|\bupstream|\bblock|\bbackend)\b[^_]*?\s"
    rf"(?:has|have|holds|lists|contains|includes)\s(?:{_DIRECTIVES})\s+_(?:\s+[\w.-]+){{0,3}}"
    r"\s*;?$"
)


# A file a label names ("inventory/prod.ini under [kafka]", "Brewfile in the dotfiles repo",
# ".npmrc in the monorepo"): a path or a name with an extension, a dotfile, or a file named
# "...file".
FILE_NAMED = re.compile(
    r"(?:^|[\s(])(?:[\w.-]+/)*(?:[\w-]+\.[a-z]{2,6}|\.[a-z][\w-]{1,20}|(?:brew|gem|docker|make|"
    r"proc|caddy|vagrant|jenkins|just|rake|pip)file|"
    # a dotfile as the normaliser leaves it, without its dot ("gitignore : _")
    r"(?:git|docker|npm|eslint|prettier|helm|gcloud)ignore|gitattributes|gitmodules)\b",
    re.IGNORECASE,
)
# A line quoted whole after a label that names its file ("Brewfile in the dotfiles repo:
# `cask "wezterm"`", "prometheus.yml static target: `- 'node-a.int:9100'`"): one line of the
# file's many, never the file's one value; so is a list's element by its first key ("ci.yml ,
# strategy.matrix : - os : _"). Not a line of a file excerpt ("ci.yml > name : _"):
# its own key, under its parents, has one value.
_FILE_LINE = re.compile(r"^(?P<label>[^:>]+?)\s:\s(?:-\s(?:[\w.-]+\s:\s)?)?_$")


# A label naming a group of people lists its members ("panel for the staff backend role: _").
# Config keys ("tags:", "mirrors:") are left out: a file line's value is the key's whole value.
GROUPS: tuple[str, ...] = (
    *("panel", "members", "attendees", "guests", "speakers", "reviewers", "volunteers"),
    *("participants", "invitees", "lineup", "line-up", "roster", "crew", "cast", "committee"),
    # and a label naming payments that go out side by side lists one of them ("direct debit
    # out of the joint account: council tax, 1st of the month")
    *("direct debit", "direct debits", "standing order", "standing orders"),
)
# A file listing people, one a line (MAINTAINERS, CODEOWNERS, AUTHORS): a line is one more.
_GROUP_FILE = re.compile(
    r"^(?:(?:maintainers|authors|contributors)(?:\s+(?:file|list))?|codeowners(?:\s+file)?|"
    r"owners\s+file)$"
)
_GROUP_LABEL = re.compile(
    r"^(?:(?:the|our|my) )?(?:" + "|".join(re.escape(g) for g in GROUPS) + r")\b[^:_]*:\s*_(?:\s|$)"
)


# A label granting access names one more person who has it ("confocal access granted: _"),
# and auto-pay is on for one more bill ("auto-pay / is on": "for the car insurance")
_LIST_SUBJECT = re.compile(r"(?:^|\s)access\s+(?:granted|given|approved)$|^auto-?pay$")


# A file line's place (``... > line after X before Y``, ``... > edited line Z after X before
# Y``): X and Y are the lines around it, no relation of its value.
_PLACE = re.compile(r"(?:^|> )(?:(?:edited )?line|block) .*after .* before ")


def multi_valued(relation: str, subject: str = "") -> bool:
    """Whether a normalised relation (or frame) ends on, or slots its value after, a
    relation that holds many values at once (``MULTI_VALUED``), or is a label naming a group
    with the slot after its colon (``GROUPS``) or a file listing people (``maintainers
    file``), or is a line of a directive its file repeats (``REPEATED_DIRECTIVES``), or
    states a subject that lists (``confocal access granted`` / ``is``, ``auto-pay`` / ``is
    on``). Never a file line's place: the line there was replaced (``rustup component add
    clippy-preview`` -> ``... add clippy`` at one place of a CI script), and the lines around
    it (a docstring's next line, "the parameter was added") are no relation of its value."""
    if _PLACE.search(relation):
        return False
    line = _FILE_LINE.match(relation)
    return (
        _MULTI_VALUED.search(relation) is not None
        or _GROUP_LABEL.search(relation) is not None
        or _GROUP_FILE.match(relation) is not None
        or _DIRECTIVE_LINE.search(relation) is not None
        or (line is not None and FILE_NAMED.search(line["label"]) is not None)
        or (relation in ("is", "is on") and _LIST_SUBJECT.search(subject) is not None)
    )


class PolicyFile(BaseModel):
    """The policy file: rules, and optionally the default policy, source trust, confirm TTL."""

    model_config = ConfigDict(extra="forbid")

    rules: list[PolicyRule] = Field(default_factory=list)
    default: PolicyName | None = None
    trust: dict[str, float] = Field(default_factory=dict)
    confirm_ttl_s: float | None = Field(default=None, ge=0)


class PolicyError(SettingsError):
    """The policy file cannot be read or is not a valid rule table (a settings problem: the
    CLI reports it in one line like any other)."""


def _pattern(text: str | None) -> str | None:
    """A key pattern normalised the way keys are: case folded, articles dropped."""
    if text is None:
        return None
    words = [w for w in text.casefold().split() if w not in ARTICLES]
    return " ".join(words)


@dataclass(frozen=True)
class Resolution:
    """The policy one assertion is resolved under, and the rule that chose it."""

    policy: PolicyName
    rule: str  # "rule 2 (meds)", or "default"
    confirm_ttl_s: float = 0.0


@dataclass(frozen=True)
class PolicyTable:
    rules: tuple[PolicyRule, ...] = ()
    default: PolicyName = "latest"
    trust: tuple[tuple[str, float], ...] = ()
    confirm_ttl_s: float = 0.0
    known_multi_valued: bool = True

    @classmethod
    def from_settings(cls, ledger: LedgerSettings) -> PolicyTable:
        path = ledger.policy_file
        file = load_policy_file(path) if path is not None else None
        rules = list(ledger.policies) + (file.rules if file else [])
        trust = dict(file.trust if file else {})
        trust.update(ledger.source_trust)  # the environment overrides the file
        default = (file.default if file and file.default else None) or (ledger.policy_default)
        ttl = file.confirm_ttl_s if file and file.confirm_ttl_s is not None else None
        return cls(
            rules=tuple(rules),
            default=default,
            trust=tuple(sorted(trust.items())),
            confirm_ttl_s=ledger.confirm_ttl_s if ttl is None else ttl,
            known_multi_valued=ledger.known_multi_valued,
        )

    @property
    def latest_only(self) -> bool:
        """Whether every key resolves latest-wins (no rule, no built-in table)."""
        return not self.rules and self.default == "latest" and not self.known_multi_valued

    def weight(self, source: str | None) -> float:
        if source is None:
            return DEFAULT_TRUST
        return dict(self.trust).get(source, DEFAULT_TRUST)

    def resolve(
        self, namespace: str, subject: str, relation: str, source: str | None = None
    ) -> Resolution:
        """The policy for an assertion on the normalised key (subject, relation)."""
        for i, rule in enumerate(self.rules, start=1):
            if rule.namespace is not None and not fnmatchcase(namespace, rule.namespace):
                continue
            pattern = _pattern(rule.subject)
            if pattern is not None and not fnmatchcase(subject, pattern):
                continue
            pattern = _pattern(rule.relation)
            if pattern is not None and not fnmatchcase(relation, pattern):
                continue
            if rule.source is not None and (source is None or not fnmatchcase(source, rule.source)):
                continue
            label = f"rule {i}" + (f" ({rule.name})" if rule.name else "")
            ttl = rule.confirm_ttl_s if rule.confirm_ttl_s is not None else self.confirm_ttl_s
            return Resolution(rule.policy, label, ttl if rule.policy == "confirm" else 0.0)
        if self.known_multi_valued and multi_valued(relation, subject):
            return Resolution("accumulate", BUILTIN_RULE)
        ttl = self.confirm_ttl_s if self.default == "confirm" else 0.0
        return Resolution(self.default, "default", ttl)

    def describe(self) -> list[dict[str, Any]]:
        """The table as rows (``gcmem ledger policies``), the default last."""
        rows: list[dict[str, Any]] = []
        for i, rule in enumerate(self.rules, start=1):
            row: dict[str, Any] = {"rule": i, **rule.model_dump(exclude_none=True)}
            if rule.policy == "confirm" and rule.confirm_ttl_s is None:
                row["confirm_ttl_s"] = self.confirm_ttl_s
            rows.append(row)
        if self.known_multi_valued:
            rows.append(
                {
                    "rule": BUILTIN_RULE,
                    "policy": "accumulate",
                    "relation": "speaks, certified in, ...",
                    "relations": list(MULTI_VALUED),
                }
            )
        last: dict[str, Any] = {"rule": "default", "policy": self.default}
        if self.default == "confirm":
            last["confirm_ttl_s"] = self.confirm_ttl_s
        rows.append(last)
        return rows


def load_policy_file(path: Path) -> PolicyFile:
    """Read a YAML or JSON policy file (JSON is YAML; ``.json`` is parsed strictly)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PolicyError(f"policy file {path}: {exc.strerror or exc}") from exc
    try:
        raw = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise PolicyError(f"policy file {path}: not valid {path.suffix or 'YAML'}: {exc}") from exc
    if isinstance(raw, list):
        raw = {"rules": raw}  # a bare list of rules is a table too
    try:
        return PolicyFile.model_validate(raw or {})
    except ValidationError as exc:
        errors = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise PolicyError(f"policy file {path}: {errors}") from exc


__all__ = [
    "BUILTIN_RULE",
    "MULTI_VALUED",
    "POLICIES",
    "REPEATED_DIRECTIVES",
    "SINGLE_VALUED",
    "PolicyError",
    "PolicyFile",
    "PolicyTable",
    "Resolution",
    "load_policy_file",
    "multi_valued",
]
