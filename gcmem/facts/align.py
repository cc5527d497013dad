"""Frame alignment: two statements identical except for one value span are a value change.

No grammar and no model. A chunk is cut into statement units (``split_units``: prose sentences,
and for line-oriented text one unit per line, with the enclosing YAML/TOML/brace block as its
context). Units are tokenised (words, values, operators and quotes apart; ``pkg==1.2.3``,
``--flag=value`` and ``NAME=VALUE`` split at the operator) and compared token by token after
normalisation (NFKC; plain words case-folded; articles and quote marks ignored; code-like
tokens compared exactly, so ``/API`` -> ``/api`` is a change).

Two units (or two runs of clauses, one from each) **align** when, after trimming their common
prefix and suffix, what is left on each side is one span and

- both sides are non-empty (an insertion or deletion is not a value change: it is how
  negation and hedges get added, "no longer", "not");
- the two spans share no word (two or more differing places: a different subject *and* value,
  "staging port 8080" / "production port 9090", are not one key);
- neither the spans nor the frame hold a negation, hedge or modal ("not", "never", "might",
  "could", "should", ...), and the unit is not a question or a condition;
- the span is an argument, not the predicate: it follows a copula, preposition, possessive,
  operator or naming verb, or it is value-like (a digit, a code character, a capital letter,
  quoted); a plain word after a verb's subject ("uses" / "dropped") is a different predicate;
- no copula follows the span (then the span is inside the subject: "the port for staging is
  8080" / "for production is 8080" are parallel keys);
- the frame identifies an attribute: at least ``MIN_PROSE_FRAME`` words for prose ("I like X"
  has two and is left to κ), an operator or block context for a line; the span is at most
  ``MAX_SPAN`` tokens and never longer than the frame.

Two units are compared at all (``comparable``) when they share half the shorter one's words, or
one clause of each, of four words or more, shares three quarters of its words (a clause
restated between elaborations of its own).

Clauses are cut at top-level ``,`` ``;`` ``—`` and ``: `` and before narrating subordinators
("after we switched bundlers", "since the move"); clauses that open with a scope preposition
or condition ("in staging", "when running locally") stay attached to their neighbour, so a
scope is always part of the frame. Leading discourse words, an open-ended time ("until further
notice") and trailing "now"/"currently" are not part of any frame; a lead that bounds the
statement by something going on now ("While the roof is repaired,") leads in, a recurring
condition ("While travelling,") scopes.

The **frame** is the aligned run with the slot masked: its normalised tokens with ``_`` for
the span, prefixed by the line's block context (``services > db > image : _``). It becomes
the ledger key ``(FRAME_SUBJECT, frame)``; the spans' surface text are the objects. Relation
strings are plain lower-case text, so per-relation resolution policies match them with glob
patterns (``* speak* _``, ``*team in platform org``; see docs/policies.md); a frame longer
than ``MAX_FRAME_CHARS`` keeps its first characters and ends in ``#<digest>``.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

from gcmem.facts.chunking import COLUMN_GAP, split_units_with_gaps
from gcmem.facts.extract import DOSE, MONEY, SETTING_VALUE, quoted_requirement, requirement_spec
from gcmem.facts.labels import DISCOURSE_LABELS, collection_label, collection_setting, member_note
from gcmem.facts.lines import (
    CRON_ENTRY,
    QUOTED_CODE,
    describe,
    is_code_path,
    is_yaml_path,
    table_section,
)
from gcmem.normalize import MONTHS, WEEKDAYS, word_stem

__all__ = [
    "FRAME_SUBJECT",
    "FrameMatch",
    "PairAlignment",
    "Token",
    "Unit",
    "accumulating",
    "align_units",
    "each_lacks",
    "excerpt_replacements",
    "frame_rank",
    "referents_apart",
    "restricted",
    "slot_is_statement",
    "tokenize",
    "units_of",
]

FRAME_SUBJECT = "frame"
SLOT = "_"
MIN_PROSE_FRAME = 3
MAX_SPAN = 8
# A restatement in other framing words: the sentence said again has at least this many words,
# and each side at most this many tokens before or after it.
MIN_RESTATED_WORDS = 5
MAX_RESTATED_EXTRA = 8
# Words a statement may say before the words it shares with an older one ("From next week,").
MAX_LEAD_IN = 8
MAX_LABELLED_LEAD_IN = 10
_LEAD_ENDS = frozenset({",", ":", ";", "—", "–", "and", "so", "because"})
MAX_FRAME_CHARS = 200
MAX_UNITS = 64  # per chunk: alignment cost stays bounded for long documents
MAX_CLAUSES = 8
# Share of the shorter unit's words the two units must share to be aligned at all. A third
# would reach a restated statement between a different lead-in and a different tail ("Went
# back to basics after the wrist thing — the layout I type on is QWERTY these days"), but on a
# held-out split it also aligned a multi-valued trap and dropped a still-true fact.
MIN_WORD_OVERLAP = 0.5
# ... or one clause of each nearly the same, of a few words at least: a restated clause between
# elaborations of its own ("Saturday doors open at 7:30, you'll be on the till with Marco" /
# "Saturday doors open at 8:00, so bread has to be out by 7:40"); align_pair's guards decide.
MIN_CLAUSE_OVERLAP = 0.75
MIN_CLAUSE_WORDS = 4


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ARTICLES = _words("a an the")
_SENTENCE_OPENERS = frozenset({":", "!", "?"})
# Words that end a time expression ("from next sprint", "starting Monday", "as of June").
_WHEN_WORDS = (
    WEEKDAYS
    | MONTHS
    | _words(
        """today tomorrow tonight week weekend month year quarter sprint season term semester
    release"""
    )
)
_NOUN_OPENERS = _ARTICLES | _words("my our your his her their its this that these those")
_NEGATIONS = _words(
    """not never no none nobody nothing neither nor without cannot can't won't isn't aren't
    wasn't weren't doesn't don't didn't hasn't haven't hadn't shouldn't wouldn't couldn't
    mustn't longer n't"""
)
_MODALS = _words(
    """might may maybe perhaps probably possibly could would should can likely unlikely
    presumably apparently supposedly guess think thinks believe believes hope hopes plan
    plans planning considering thinking wonder unsure uncertain unclear if unless whether
    whenever suppose supposing assuming"""
)
_COPULAS = _words(
    "is are was were be been being am 's 're 'm becomes became become remains remain stays stay "
    "equals"
)
# Past-tense verbs of narration: a sentence that tells an event ("I spent Tuesday on the
# sofa", "I got winded on Baker Street") is one occurrence, which a later event does not
# supersede. Ambiguous forms (set, put, read, cut) are left out: they also state config.
_PAST_EVENT = _words(
    "spent got went had made took came ran saw met bought ate drank felt left found gave told "
    "wrote sat stood heard thought brought caught kept lost paid sold sent built began did "
    "flew drove rode swam won woke wore broke chose forgot fell"
)
_AUXILIARIES = _words("has have had having get gets got getting be been being")
# Participles that say where or what something is when they follow a noun ("an illustrator
# based in Lisbon", "the bucket hosted in eu-west-1"): a state, not an event.
_STATIVE_PARTICIPLES = _words(
    "based located headquartered situated stationed housed hosted stored registered listed "
    "priced rated scheduled named called titled labelled labeled"
)
_LEAD_WORDS = _COPULAS | _words(
    """behind beside near opposite inside outside above below beneath across along around
    to on at in of as from by under with for into via onto over than per every each my our
    his her their its your named called titled labelled labeled set pinned targets target
    targeting using uses use = == := : >= <= ~= != @ -> => is: mine ours"""
)
# A verb whose object is a value only where a purpose is said ("for hay fever I take X").
_TAKE = _words("take takes")
# Verbs inside a span mean it spans a predicate, not one value ("prod runs 6" / "staging has 2").
_SPAN_VERBS = _COPULAS | _words(
    """has have had runs run ran uses use used gets get got goes go went sits sit sat lives live
    lived works work worked moved moves move became does do did makes make made takes take took
    holds hold keeps keep kept needs need needed wants want wanted likes like liked loves love
    hates hate prefers prefer"""
)
# A scope inside a span ("8000 in staging" / "8080") makes it a value *and* a qualifier.
_SPAN_SCOPE = _words("in on at for under within inside across during behind via through when if")
# Words two different values may share ("Chief of the Defence Staff" / "commander of ...").
_FUNCTION_WORDS = _words("of and & de du la le von van der den del da di do y e et und")
# A relative clause or clause boundary ends the slot's clause when looking right of it.
_CLAUSE_END = _words("which who whom whose that where when because , ; — – ( )")
# Clause openers that keep a clause attached to its neighbour: a scope or a condition.
_ATTACH = _words(
    """in on at for under within inside across during per outside except when if unless while
    whenever where only"""
)
# Subordinators that narrate the change; a clause boundary when enough words precede them.
# A participle joined to one a present auxiliary governs shares it ("are dumped ... and kept").
_COORDINATORS = _words("and or")
_PRESENT = _words("is are am has have")
_PRESENT_VERBS = _PRESENT | _words("go do")
# Who a message is for ("For the new folks,", "If customers ask,"): people told, not a scope.
_AUDIENCES = frozenset(
    map(
        word_stem,
        [
            "folk",
            "parent",
            "staff",
            "student",
            "newcomer",
            "hire",
            "member",
            "people",
            "everyone",
            "anyone",
            "team",
            "crew",
            "guest",
            "customer",
            "visitor",
            "volunteer",
            "player",
            "kid",
            "sitter",
            "house-sitter",
            "babysitter",
            "nanny",
            "mum",
            "mom",
            "dad",
            "family",
            "neighbour",
            "neighbor",
            "colleague",
            "intern",
            "contractor",
            "reviewer",
            "user",
            "girl",
            "boy",
            "helper",
            "lad",
            "lass",
            "guy",
            "recruit",
            "joiner",
            "starter",
            "teammate",
            "rookie",
        ],
    )
)
_LISTENERS = _words("you your anyone someone somebody anybody people folks")
# Words before an audience lead-in ("Again for the weekend staff:", "Once more for ...").
_AGAIN = _words("again once more just quick")
# Tokens that open a tail after a statement said again (", right by the trough", "(yes)").
_TAIL_OPENERS = _words(", ( — – - ;")
# Words that open a subordinate clause after the slot.
_SUBORDINATORS = _words("before after until while whenever unless if once although though")
_CLAUSE_PRONOUNS = _words("it they he she we i you this that")
_CONSEQUENCE = _words("so therefore hence")
# Lead-ins that file a statement away (articles are ignored tokens: "for the record").
_FOR_THE_RECORD = frozenset(
    {
        ("for", "future", "reference"),
        ("for", "reference"),
        ("for", "record"),
        ("for", "context"),
        ("for", "your", "information"),
        ("for", "info"),
    }
)
_REPORTING = _words("say says said saying confirms confirmed reckons remember note recall")
_OBJECTS = _words("her him them me us everyone")
# What a statement may be cited from ("per the diagram", "from the tuning notes").
_DOCUMENTS = _words(
    """notes note docs doc documentation wiki runbook diagram spec readme handbook minutes
    thread email ticket memo letter guide page"""
)
# what a note is written into ("For the carer's folder:", "For the bio on the meetup page:")
_DESTINATIONS = _DOCUMENTS | _words("folder binder file bio profile records newsletter noticeboard")
_RELATIVES = frozenset({"who", "which", "that", "whose"})
_NARRATE = _words("after since because so following once")
_REASONS = _NARRATE - _CONSEQUENCE  # "after", "since", "because": why or when, never what
_NARRATE_PAIRS = frozenset({("now", "that"), ("due", "to"), ("thanks", "to"), ("as", "of")})
_LEAD_FILLERS = _words(
    """also so and but then plus btw fyi psa update updated note reminder ps heads-up heads ok
    okay well yes yeah now currently still confirming"""
)
_TRAIL_FILLERS = _words("now currently today anymore again too instead still")
# A reminder's opening is no negation of what it reminds of ("Don't forget choir rehearsals
# are in the school hall").
# An open-ended time in front ("until further notice", "for the time being") says the statement
# holds from now on: no condition on it.
_LEAD_PHRASES = (
    ("don't", "forget"),
    ("do", "not", "forget"),
    ("never", "forget"),
    ("until", "further", "notice"),
    ("for", "time", "being"),  # articles are ignored tokens
    ("for", "foreseeable", "future"),
    ("from", "now", "on"),
    ("going", "forward"),
)
_TRAIL_PHRASES = (
    ("these", "days"),
    ("from", "now", "on"),
    ("for", "now"),
    ("going", "forward"),
    ("at", "moment"),  # articles are ignored tokens: "at the moment"
    ("right", "now"),
)
_LEAD_STARTS = frozenset(p[0] for p in _LEAD_PHRASES)
_TRAIL_ENDS = frozenset(p[-1] for p in _TRAIL_PHRASES)
_KEY_OPERATORS = frozenset({"=", ":", ":="})
_CLAUSE_PUNCT = frozenset({",", ";", "—", "–", "-", ":"})
# Additive words: the newer statement adds a value beside the old one (multi-valued).
_ADDITIVE = frozenset({"also", "too", "another", "additionally", "added", "adding", "besides"})
# Words that say a value holds on ("still biweekly Thursdays").
_CONTINUATION = frozenset({"still", "unchanged"})
# A label in front of a colon is a few words ("eu-logs bucket", "Maya").
MAX_LABEL_WORDS = 4
MAX_QUANTITY_TOKENS = 5
# Words of a date that change together ("the third week of February").
_CALENDAR = frozenset(
    str.split(
        "first second third fourth fifth sixth seventh eighth ninth tenth last "
        "january february march april may june july august september october november "
        "december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday "
        "thursday friday saturday sunday"
    )
)
_LABEL_PRONOUNS = _words("i we you he she it they this that these those there")
# Words two clauses share without saying the same kind of thing ("we", "is", "to").
_REST_STOP = (
    _FUNCTION_WORDS
    | _LEAD_FILLERS
    | _TRAIL_FILLERS
    | _words(
        """i we you he she it they me us them my our your his her its their is are was were be
        been am has have had do does did will would can could should to in on at for with by
        from as per this that these those there here just not"""
    )
)
# Words that open an adverbial lead-in ("After the reorg", "From this weekend", "Since the
# cutover", "To meet Google's deadline").
_ADVERBIAL = _words("after since from once following starting to with thanks as now this next")
# Pronouns that open a statement after a lead-in ("After the rack migration you'll find ...").
_OPENING_PRONOUNS = _words("i i'm i've we we're we've you you'll you're they they're he she")
# a pronoun with its verb in one word opens a clause by itself ("it's also on the fridge")
_CONTRACTED = frozenset(w for w in _OPENING_PRONOUNS if "'" in w) | _words("it's he's she's")
# Words that qualify the name after them ("staging Grafana", "prod Postgres").
_QUALIFIERS = _words(
    """staging stage prod production dev development test testing qa uat beta alpha canary
    preview internal external local remote mobile web desktop ios android primary secondary
    replica backup old new legacy main default shared"""
)
# Words that only lead into a message ("Please note invoices should be ...").
_POLITE = _words("please hi hello hey just quick")
# Words that size a message before its kind ("Small update:", "Quick reminder:").
_MESSAGE_SIZES = _words("small quick short brief big final last friendly gentle")
# A status report in front of a colon ("Upgrade done:", "Migration finished:") is no label.
_DONE = _words("done finished complete completed merged shipped deployed fixed")
# A word after a value that gives it a role beside another ("1.1.1.1 as the public fallback";
# a reason, "Room 118 because of the renovation", narrates a change instead).
_VALUE_TAILS = _words("as")
_INDEFINITE = _words("a an")
# Verbs of having: what follows with "a" or "an" is one of the things had.
_POSSESSION = _words("has have had owns own runs run operates operate keeps keep")
# Words that open a condition.
_CONDITIONS = _words("if unless whenever")
# Modals that instruct rather than hedge.
_DEONTIC = _words("should must")
_HARD_PUNCT = frozenset({";", ":", "—", "–"})
_QUOTES = frozenset("\"'`“”‘’«»")
_OPEN = "([{"
_CLOSE = ")]}"
_EDGE_TRAIL = ".,;:!?"
_OPERATOR = re.compile(
    r"^(?P<name>-{0,2}[A-Za-z_@][\w.\-/@\[\]]*?)(?P<op>==|>=|<=|~=|!=|:=|=|@(?=[v^~]?\d))"
    r"(?P<rest>.*)$"
)
_CODE_CHARS = frozenset("/_=@#:~$\\|*%&+^<>.")
_WORD = re.compile(r"^[^\W\d_]+(?:['’][^\W\d_]+)*$")


@dataclass(frozen=True)
class Token:
    text: str  # surface text
    norm: str | None  # what alignment compares; None: ignored (articles, quote marks)
    start: int  # character offsets in the unit text
    end: int
    quoted: bool = False
    # a file line's token with its case kept (see ``tokenize``); None: compare ``norm``
    exact: str | None = None

    @cached_property
    def same(self) -> str:
        """What alignment compares (ignored tokens are never compared)."""
        return self.exact if self.exact is not None else self.norm or ""

    # cached: alignment asks it of every token of every candidate split
    @cached_property
    def punct(self) -> bool:
        return self.norm is not None and not any(ch.isalnum() for ch in self.norm)


def _norm(text: str) -> str | None:
    text = unicodedata.normalize("NFKC", text).replace("’", "'")
    if text in _QUOTES:
        return None
    if _WORD.match(text):
        low = text.casefold()
        return None if low in _ARTICLES else low
    return text


def _exact(text: str, norm: str | None) -> str | None:
    """What a file line compares: the normalised token with its case."""
    if norm is None:
        return None
    return unicodedata.normalize("NFKC", text).replace("’", "'")


def tokenize(text: str, *, fold_case: bool = True) -> list[Token]:
    """Tokens of one unit: quotes, brackets and edge punctuation apart from words; an
    identifier glued to an assignment or version operator split at the operator. With
    ``fold_case=False`` (the lines of a file excerpt) plain words keep their case: in a file a
    case change (``"PATTERN"`` -> ``"pattern"``, ``buildUrl`` -> ``buildURL``) is a change."""
    out: list[Token] = []
    quoted = False
    for m in re.finditer(r"\S+", text):
        piece, base = m.group(), m.start()
        lo, hi = 0, len(piece)
        lead: list[tuple[int, int]] = []
        trail: list[tuple[int, int]] = []
        while lo < hi and (piece[lo] in _QUOTES or piece[lo] in _OPEN):
            lead.append((lo, lo + 1))
            lo += 1
        while hi > lo and (piece[hi - 1] in _QUOTES or piece[hi - 1] in _CLOSE + _EDGE_TRAIL):
            trail.append((hi - 1, hi))
            hi -= 1
        core: list[tuple[int, int]] = []
        if lo < hi:
            core = _split_core(piece, lo, hi)
        for s, e in [*lead, *core, *reversed(trail)]:
            surface = piece[s:e]
            if surface in _QUOTES:
                quoted = not quoted
            norm = _norm(surface)
            if (
                fold_case
                and norm == surface
                and (not out or out[-1].text in _SENTENCE_OPENERS)
                and surface[1:] == surface[1:].lower()
                and any(ch.islower() for ch in surface[1:])  # "U12", "K8s" are names
            ):
                # a sentence's capital, also after a label's colon: "Under-12s" / "...
                # under-12s" / "Update: Under-12s"
                norm = surface.lower()
            exact = None if fold_case else _exact(surface, norm)
            out.append(Token(surface, norm, base + s, base + e, quoted, exact))
    return out


def _split_core(piece: str, lo: int, hi: int) -> list[tuple[int, int]]:
    core = piece[lo:hi]
    parts: list[tuple[int, int]] = []
    m = _OPERATOR.match(core)
    if m is not None:
        parts.append((lo, lo + m.end("name")))
        parts.append((lo + m.start("op"), lo + m.end("op")))
        if m.group("rest"):
            parts.extend(_split_brackets(piece, lo + m.start("rest"), hi))
        return parts
    return _split_brackets(piece, lo, hi)


def _split_brackets(piece: str, lo: int, hi: int) -> list[tuple[int, int]]:
    parts: list[tuple[int, int]] = []
    start = lo
    for i in range(lo, hi):
        if piece[i] in _OPEN + _CLOSE or (
            piece[i] == ":" and i + 1 < hi and piece[i - 1 : i] == ")"
        ):
            if start < i:
                parts.append((start, i))
            parts.append((i, i + 1))
            start = i + 1
    if start < hi:
        parts.append((start, hi))
    return parts


@dataclass(frozen=True)
class Unit:
    """One statement unit of a chunk."""

    index: int
    text: str
    tokens: tuple[Token, ...]
    line: bool  # a line of line-oriented text
    context: tuple[str, ...] = ()  # enclosing block keys (YAML parents, TOML section, braces)
    content: bool = True  # False: a label or block opener, which states nothing by itself
    question: bool = False
    path: str | None = None  # the file of a file excerpt (its first context entry)
    keyed: bool = True  # False: a file line whose own key names nothing (see facts.lines)
    gap: bool = False  # blank lines of its file excerpt stand right before it
    indent: int = 0  # a file line's indentation (columns of leading whitespace)

    @cached_property
    def words(self) -> frozenset[str]:
        """The unit's compared words (punctuation and ignored tokens left out)."""
        return frozenset(t.norm for t in self.tokens if t.norm and not t.punct)

    @property
    def key(self) -> tuple[str, ...]:
        """The compared form (identical keys: the unit is restated)."""
        return (*self.context, *(t.same for t in self.tokens if t.norm is not None))

    @cached_property
    def runs(self) -> tuple[tuple[Token, ...], ...]:
        """The compared tokens (``_trim``) of the whole unit, then of each clause: what the
        local-frame search compares, kept with the unit because a neighbour chunk is aligned
        against many newer ones."""
        spans = dict.fromkeys([(0, len(self.tokens)), *self.clauses])
        return tuple(tuple(_trim(self.tokens[a:b])) for a, b in spans)

    @cached_property
    def clauses(self) -> tuple[tuple[int, int], ...]:
        """Clause runs as token index ranges (``_clauses``)."""
        return tuple(_clauses(self))

    @cached_property
    def clause_words(self) -> tuple[frozenset[str], ...]:
        """The compared words of each clause of ``MIN_CLAUSE_WORDS`` or more (``comparable``:
        a neighbour's units are compared with every newer chunk's)."""
        spans = (self.tokens[lo:hi] for lo, hi in self.clauses)
        words = (frozenset(t.norm for t in toks if t.norm and not t.punct) for toks in spans)
        return tuple(w for w in words if len(w) >= MIN_CLAUSE_WORDS)

    @cached_property
    def labels(self) -> tuple[tuple[int, tuple[str, ...]], ...]:
        """(end character, words) of each clause that is a subject's label in front of a
        colon ("backend repo:", "Maya:"; not "Update:"), in order (``topic``)."""
        out = []
        for lo, hi in self.clauses:
            toks = self.tokens[lo:hi]
            if not toks or toks[-1].norm != ":":
                continue
            words = tuple((t.norm or "").casefold() for t in toks[:-1] if not t.punct)
            if _status(words):
                continue  # "Upgrade done:" reports, it names no subject
            if _subject_label(toks[:-1]):
                out.append((toks[-1].end, words))
        return tuple(out)


def units_of(text: str) -> list[Unit]:
    """The chunk's statement units (at most ``MAX_UNITS``), lines with their scope: the file of
    an excerpt (``gcmem.facts.lines``: provenance, a qualifier of every frame) and the
    enclosing block keys."""
    return list(_units_of(text))


# A shell command that shows something ("$ kafka-topics.sh --describe --topic orders",
# "$ kubectl get deploy api -o yaml"): a question to the system, which its output answers. Two
# such commands differ in what they show, never in a value.
_INSPECTS = re.compile(
    r"^\$\s+\S.*?\s(?:--describe|describe(?:-[\w-]+)?|get|show|status|inspect|cat|head|"
    r"tail|ls|list|info|top)(?:\s|$)"
)


# A line of words ending in a colon, no code: a caption (a code block's opener is a statement).
_CAPTION = re.compile(
    r"^(?!(?:class|def|if|elif|else|for|while|try|except|finally|with|async|case|match|"
    r"switch|do|fn|func|function)\b)[^:(){}\[\]=<>]*\s[^:(){}\[\]=<>]*:$"
)


# Units are immutable and a chunk is aligned with every newer neighbour: split each text once.
@lru_cache(maxsize=8192)
def _units_of(text: str) -> tuple[Unit, ...]:
    units: list[Unit] = []
    with_gaps = split_units_with_gaps(text)[:MAX_UNITS]
    split = [unit for unit, _ in with_gaps]
    gaps = [gap for _, gap in with_gaps]
    for (raw, line), where, gap in zip(split, describe(split), gaps, strict=True):
        stripped = raw.strip() if where is None else where.text
        context: tuple[str, ...] = ()
        content = True
        path = None
        keyed = True
        indent = 0
        if where is not None:
            context, content, path, keyed = where.scope, where.content, where.path, where.keyed
            indent = where.indent
            # a caption over a snippet ("mirror job for the APAC box:") names what follows:
            # two captions differ in what they name, never in a value
            keyed = keyed and (path is not None or not _CAPTION.match(stripped))
        elif (stripped.endswith(":") and len(stripped.split()) <= 8) or _INSPECTS.match(stripped):
            content = False
        # a file's lines compare exactly (case included): they are copies of the same file
        toks = tuple(tokenize(stripped, fold_case=path is None))
        units.append(
            Unit(
                index=len(units),
                text=stripped,
                tokens=toks,
                line=line,
                context=context,
                content=content and any(t.norm for t in toks),
                question=stripped.endswith("?"),
                path=path,
                keyed=keyed,
                gap=gap and path is not None,
                indent=indent,
            )
        )
    return tuple(units)


# --- alignment --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FrameMatch:
    """Two units that state the same frame with different values."""

    old_unit: int
    new_unit: int
    frame: str  # the relation: normalised frame text with the slot as _
    old_value: str
    new_value: str


@dataclass
class PairAlignment:
    frames: list[FrameMatch] = field(default_factory=list)
    restated: list[tuple[int, int]] = field(default_factory=list)  # (old unit, new unit)


def _clauses(unit: Unit) -> list[tuple[int, int]]:
    """Clause runs of a prose unit as token index ranges (a line is one clause)."""
    toks = unit.tokens
    n = len(toks)
    if unit.line or n == 0:
        return [(0, n)]
    cuts = [0]
    for i, t in enumerate(toks):
        if t.quoted or i == 0 or i == n - 1:
            continue
        if t.norm in _CLAUSE_PUNCT and t.text in _CLAUSE_PUNCT:
            if t.norm == ":":
                right = sum(1 for u in toks[i + 1 :] if u.norm and not u.punct)
                if i < 4 and right < 3:
                    continue
                if right < 3:
                    continue
            if t.norm == "-" and not (toks[i - 1].end < t.start and t.end < toks[i + 1].start):
                continue
            cuts.append(i + 1)  # the punctuation closes the clause before it
        elif t.norm == "." and toks[i + 1].text[:1].islower():
            cuts.append(i + 1)  # a sentence's end the splitter left ("... and all. because")
        elif (
            t.norm in _NARRATE
            or (t.norm, toks[i + 1].norm) in _NARRATE_PAIRS
            or _and_clause(t, toks[i + 1])
            or _while_present(toks[i : i + 5])
        ) and i - cuts[-1] >= 3:
            cuts.append(i)
    cuts.append(n)
    spans = [(a, b) for a, b in itertools.pairwise(cuts) if a < b]
    # Scope clauses stay with a neighbour: a leading one with the next, others with the previous.
    merged: list[tuple[int, int]] = []
    pending: int | None = None
    for a, b in spans:
        first = next((t.norm for t in toks[a:b] if t.norm), None)
        start = a if pending is None else pending
        pending = None
        # ("In the mobile repo the default branch is develop;" is a clause of its own)
        # (nor one at a sentence's end: "... Family Practice. since Dr. Nwosu retired")
        ended = (b < n and toks[b - 1].norm == ".") or toks[max(a - 1, 0)].norm == "."
        # (nor one that says who says so: ", per the director's email")
        cited = _attribution(toks[a:b])
        # (nor a closing "while" of something going on now: ", while our neighbour is away")
        present = a > 0 and _while_present(toks[a:b])
        if first in _ATTACH and toks[b - 1].norm != ";" and not ended and not cited and not present:
            if merged:
                merged[-1] = (merged[-1][0], b)
            else:
                pending = start
            continue
        merged.append((start, b))
    if pending is not None:
        merged.append((pending, n))
    return merged[:MAX_CLAUSES] or [(0, n)]


def _trim(toks: Sequence[Token]) -> list[Token]:
    """Compared tokens of a run: without ignored tokens, edge punctuation, leading discourse
    words and trailing "now"-like fillers."""
    out = [t for t in toks if t.norm is not None]
    lo, hi = 0, len(out)
    changed = True
    while changed and lo < hi:
        changed = False
        while lo < hi and (out[lo].punct or out[lo].norm in _LEAD_FILLERS):
            lo += 1
            changed = True
        for phrase in _LEAD_PHRASES if lo < hi and out[lo].norm in _LEAD_STARTS else ():
            n = len(phrase)
            if hi - lo > n and tuple(t.norm for t in out[lo : lo + n]) == phrase:
                lo += n
                changed = True
        while lo < hi and (out[hi - 1].punct or out[hi - 1].norm in _TRAIL_FILLERS):
            hi -= 1
            changed = True
        for phrase in _TRAIL_PHRASES if lo < hi and out[hi - 1].norm in _TRAIL_ENDS else ():
            n = len(phrase)
            if hi - lo >= n and tuple(t.norm for t in out[hi - n : hi]) == phrase:
                hi -= n
                changed = True
    return out[lo:hi]


def _without_lead_in(
    x: list[Token], y: list[Token], a: Sequence[Token], b: Sequence[Token]
) -> tuple[list[Token], list[Token]]:
    """The two runs without the few words either says first ("From next week, under-12s
    training takes place at ..."; "After the flagd upgrade the service answers on ..."): the
    rests must start with the same two words, each after a comma, a colon, "and" or "so",
    an article that opens it, or words that only lead into a message ("Please note"; else
    the last word may qualify it: "Since March staging DB port is ..."). A lead-in that
    scopes or conditions the statement ("In staging the port is ..."), negates or hedges it,
    or labels it ("Staging: the port is ...") is part of the statement, and stays.
    ``a`` and ``b``: the runs ``x`` and ``y`` were trimmed from, ignored tokens included."""
    if len(x) < 2 or len(y) < 2 or x[0].same == y[0].same:
        return x, y
    # where each pair of words starts in y's first tokens, to pair with x's (cost: the runs
    # of every clause pairing of every neighbour pass here)
    at: dict[tuple[str, str], list[int]] = {}
    for j in range(min(MAX_LABELLED_LEAD_IN, len(y) - 2) + 1):
        at.setdefault((y[j].same, y[j + 1].same), []).append(j)
    starts = sorted(
        (i + j, i, j)
        for i in range(min(MAX_LABELLED_LEAD_IN, len(x) - 2) + 1)
        if not x[i].punct  # the statement opens on a word, after the lead-in's colon
        for j in at.get((x[i].same, x[i + 1].same), ())
        if _lead_length_ok(x[:i]) and _lead_length_ok(y[:j])
    )
    if not starts:
        return x, y
    _, i, j = starts[0]
    # two lead-ins: each only a lead into a message ("Hi Marco, as before," / "Please note"),
    # never words that may name two subjects ("Harlow Heath Football Club" / "Tollbridge Town
    # Football Club")
    both = bool(i and j)
    if not all(
        _opens(lead, run[k], raw, both)
        for lead, run, k, raw in ((x[:i], x, i, a), (y[:j], y, j, b))
    ):
        return x, y
    if both and each_lacks(_named_words(x[:i]), _named_words(y[:j]), ("", "")):
        # each lead names a thing the other does not: two items' statements ("£25/month to
        # Shelter, goes out on the 1st" / "£10/month to the RNLI, goes out on the 15th"), not
        # one statement led in two ways
        return x, y
    return x[i:], y[j:]


def _named_words(lead: Sequence[Token]) -> set[str]:
    """The lead's names (``_naming``) past its first word, which a sentence opens with."""
    words = [t for t in lead if t.norm and not t.punct]
    return {t.norm or "" for t in words[1:] if _naming(t)}


def _naming(t: Token) -> bool:
    """A name: a word with a capital or a digit among letters ("Subaru", "F-150",
    "£25/month"), not a discourse label or a function word."""
    if t.punct or not t.norm:
        return False
    if t.norm in DISCOURSE_LABELS or t.norm in _LEAD_FILLERS or t.norm in _FUNCTION_WORDS:
        return False
    return any(ch.isupper() for ch in t.text) or (
        any(ch.isdigit() for ch in t.text) and any(ch.isalpha() for ch in t.text)
    )


def _starts_at(run: Sequence[Token]) -> bool:
    """The run ends on when it starts to hold ("... on Thursday mornings from June")."""
    return len(run) > 3 and run[-1].norm in _WHEN_WORDS and run[-2].norm in ("from", "starting")


def _without_start_time(x: list[Token], y: list[Token]) -> tuple[list[Token], list[Token]]:
    """The run that alone ends on a start time, without it: the newer statement says from when
    its value holds, which is no part of the value ("bins get collected on Thursday mornings
    from June"); where both end on one ("closed from Monday" / "from Tuesday"), it may be."""
    if _starts_at(y) and not _starts_at(x):
        return x, y[:-2]
    if _starts_at(x) and not _starts_at(y):
        return x[:-2], y
    return x, y


def _lead_length_ok(lead: Sequence[Token]) -> bool:
    """A lead-in of a few tokens; a longer one only where a colon ends it ("Lesson learned from
    last year's leggy plants:")."""
    limit = MAX_LABELLED_LEAD_IN if lead and lead[-1].norm == ":" else MAX_LEAD_IN
    return len(lead) <= limit


def _opens(lead: Sequence[Token], first: Token, raw: Sequence[Token], strict: bool) -> bool:
    """No lead-in, or one that ends where the statement opens and neither scopes, labels,
    negates nor hedges it (``_without_lead_in``); ``strict``: only punctuation or words that
    only lead into a message say where it ends."""
    if not lead:
        return True
    words = [t.norm or "" for t in lead if not t.punct]
    # the words trimmed off the run's start belong to the lead-in ("Reminder for new parents:")
    trimmed = [t for t in raw if t.norm is not None and t.end <= lead[0].start]
    # "Just a reminder that ...": the lead's own words only lead in, "that" opens the statement
    # (the words may have been trimmed: "Reminder that ...")
    said = [t.norm or "" for t in trimmed if not t.punct] + words
    told = said[:-1] if len(said) > 1 and said[-1] == "that" else words
    marked = (
        lead[-1].norm in _LEAD_ENDS
        or all(w in _LEAD_FILLERS or w in _POLITE for w in told)
        or _reports(lead, first)
    )
    lead = trimmed + list(lead)
    if strict:
        return marked and _lead_in(lead)
    adverbial = bool(words) and words[0] in _ADVERBIAL
    opened = (
        marked
        # a pronoun opens a statement, and so does a name after words that do not qualify it
        # ("From this weekend Saturday training ..."; not "Since March staging Grafana")
        or (adverbial and len(words) >= 2 and first.norm in _OPENING_PRONOUNS)
        or (
            adverbial
            and len(words) >= 2
            and first.text[:1].isupper()
            and not first.text.isupper()
            and words[-1] not in _QUALIFIERS
        )
        # ... and so does any word after a time ("From next sprint standup is at 9:45")
        or (adverbial and len(words) >= 2 and words[-1] in _WHEN_WORDS)
        # an article opens it, unless a preposition takes it as its object ("Maintenance
        # window for the main Postgres cluster is ...": the cluster is no subject there)
        or (
            not (words and words[-1] in _OBJECT_PREPOSITIONS)
            and any(
                t.norm is None and t.text.lower() in _ARTICLES
                for t in raw
                if lead[-1].end <= t.start and t.end <= first.start
            )
        )
    )
    return opened and _lead_in(lead)


_TELLING = _words("told tell telling")


def _reports(lead: Sequence[Token], first: Token) -> bool:
    """The lead-in ends where a statement is reported or recalled ("vet says", "told her",
    "remember"), or on a sentence's end the splitter left ("patched it. ingress annotation:
    ..."): what follows is the statement itself."""
    last = lead[-1].norm or ""
    if last in (".", "?", "!") and first.text[:1].islower():
        return True  # "websocket drops after a minute? ingress annotation: ..."
    if last in _REPORTING:
        return True
    if last == "that" and any(t.norm in _REPORTING or t.norm in _TELLING for t in lead[:-1]):
        return True  # "Told the pharmacist again that ...": what was told follows
    return len(lead) >= 2 and lead[-2].norm in _TELLING and last in _OBJECTS


def _instruction(frame_left: Sequence[Token]) -> bool:
    """The shared words before the slot say what must or may be done ("should", "must", "you
    can": "you can poke at staging on X" tells the reader where), and hedge nothing else."""
    words = [t.norm for t in frame_left if not t.punct]
    modal = [(i, m) for i, m in enumerate(words) if m in _MODALS]
    return bool(modal) and all(
        m in _DEONTIC or (m == "can" and i > 0 and words[i - 1] == "you") for i, m in modal
    )


def _status(words: Sequence[str]) -> bool:
    """Words in front of a colon that report a status ("Upgrade done", "Migration finished")."""
    return bool(words) and words[-1] in _DONE


def _hedged(toks: Sequence[Token]) -> bool:
    """The words negate or hedge what follows them."""
    norms = [t.norm or "" for t in toks]
    return any(_hedges(norms, i) for i in range(len(norms)))


_PLAN = _words("plan plans")


def _hedges(norms: Sequence[str], i: int) -> bool:
    """The word at ``i`` negates or hedges ("we plan to ...", not "on a monthly plan"; "with
    no ack" is a condition on a noun, not a negated statement)."""
    n = norms[i]
    if n in _PLAN:
        return i + 1 < len(norms) and norms[i + 1] in ("to", "on")
    if n == "no" and i > 0 and norms[i - 1] == "with":
        return False
    return n in _NEGATIONS or n in _MODALS or n.endswith("n't")


def _lead_in(toks: Sequence[Token]) -> bool:
    """The words lead into a statement without scoping, conditioning, negating, hedging or
    labelling it (a message's label before a colon, "Update:", leads in)."""
    words = [t.norm or "" for t in toks if not t.punct]
    if toks and toks[-1].norm in (":", ",") and (_discourse(toks[:-1]) or _status(words)):
        return True  # "Change of plan:", "Update:", "Upgrade done:", "Change of plan,"
    if words and (_to_audience(toks) or _recalled(words)):
        return True  # "If your build is weird, remember ...": the telling is for the listener
    if _for_the_present(toks):
        return True  # "While the roof is repaired,": how long, not whether
    if not words or (_hedged(toks) and words[-1] not in _CONSEQUENCE):
        return False  # a reason ending on "so" hedges only itself ("can't start earlier, so")
    if (words[0] in _ATTACH or words[0] in _SPAN_SCOPE) and not _attribution(toks):
        return False  # (an audience returned above)
    # "Staging:" names a subject (not "For the contractors:", an audience)
    return not any(t.norm == ":" and _subject_label(toks[:i]) for i, t in enumerate(toks))


_RECURRING = _words(
    "lunch breakfast dinner break breaks holiday summer winter spring autumn fall vacation "
    "night morning evening rush peak hours"
)


def _for_the_present(toks: Sequence[Token]) -> bool:
    """A lead that bounds a statement by something going on now ("While the roof is repaired,",
    "During the parental-leave cover,"): the statement holds now, for a while. Not a recurring
    condition ("While travelling,", "During school holidays,") nor a hedged one."""
    words = [t.norm or "" for t in toks if not t.punct]
    if len(words) < 2 or not toks or toks[-1].norm != "," or _hedged(toks):
        return False
    if words[0] == "during":
        # a named spell of time, not a recurring one ("during lunch", "during the holidays")
        return (
            len(words) >= 3
            and not (words[-1].endswith("s") and words[-1].isalpha())
            and not any(w in _WHEN_WORDS or w in _CALENDAR or w in _RECURRING for w in words)
        )
    return _while_present(toks)


def _while_present(toks: Sequence[Token]) -> bool:
    """A "while" clause about something going on now ("while the lido is being resurfaced"):
    it bounds the statement in time, it is no condition the value holds under."""
    words = [t.norm or "" for t in toks if not t.punct]
    return len(words) >= 3 and words[0] == "while" and any(w in ("is", "are") for w in words[1:4])


def _subject_label(label: Sequence[Token]) -> bool:
    """Words in front of a colon that name a subject ("Staging", "eu-logs bucket"), not what
    kind of message follows or where it is kept ("Update", "Team page"), who says so ("from
    the tuning notes") or whom it is for ("For the contractors")."""
    return (
        _label(label)
        and not _discourse(label)
        and not _attribution(label)
        and not _to_audience(label)
    )


_NEWS_DAYS = _words("today yesterday tonight")
# A message's act, by its verb: what follows is the statement it replies or repeats.
_REPLYING = _words(
    "replying answering confirming updating quoting repeating clarifying correcting reposting"
)
# Where a note is written or kept.
_MEDIA = _DESTINATIONS | _words(
    "diary calendar faq excerpt whatsapp slack chat channel post intro journal sheet "
    "spreadsheet changelog plan tip"
)
# Words that name which of several environments or regions a label is about.
_VARIANTS = _words(
    "staging stage prod production dev development test testing qa uat preprod sandbox local "
    "live beta canary primary secondary replica eu us uk emea apac"
)


def _medium(label: Sequence[Token]) -> bool:
    """A label that names where the note is written or kept ("Team page", "Staff handbook
    excerpt", "Diary"), with nothing before its head that names one of several (an
    environment, a region, a name: "Staging notes", "Maya's diary")."""
    words = [t for t in label if t.norm and not t.punct]
    if not words or len(words) > MAX_LABEL_WORDS or words[-1].norm not in _MEDIA:
        return False
    before = words[:-1]
    return not any(
        t.norm in _VARIANTS
        or (i and t.text[:1].isupper())
        or "'" in t.text
        or any(ch.isdigit() for ch in t.text)
        for i, t in enumerate(before)
    )


def _discourse(label: Sequence[Token]) -> bool:
    """A label that says what kind of message follows, perhaps to whom: "Update", "Reminder
    for new parents", "Small update to my bio", "Parents, please note", "..., heads up" (not
    "Staging update": a word before the kind names a subject)."""
    words = [t.norm or "" for t in label if not t.punct]
    if not words:
        return False
    if " ".join(words) in DISCOURSE_LABELS:
        return True
    if len(words) == 2 and words[0].endswith("'s") and words[1] in DISCOURSE_LABELS:
        return True  # "Optician's note": who wrote it, and the kind
    if len(words) >= 2 and words[-1] in _NEWS_DAYS:
        return True  # "New test today": when the news came, not what it is about
    if words[0] in _REPLYING or words[0] == "re":
        return True  # "Replying to Jonas", "Answering the alert question", "Re your ticket"
    if _medium(label):
        return True  # "Team page", "Staff WhatsApp": where it is written, not what about
    opener = words[1:] if words[0] in _MESSAGE_SIZES else words
    if opener and (opener[0] in DISCOURSE_LABELS or " ".join(opener[:2]) in DISCOURSE_LABELS):
        return True
    # after a comma: "Parents, please note", "Rearranged the middle songs, heads up"
    cut = max((i for i, t in enumerate(label) if t.norm == ","), default=None)
    if cut is None:
        return False
    tail = [t.norm or "" for t in label[cut + 1 :] if not t.punct]
    tail = tail[1:] if tail and tail[0] in _POLITE else tail
    return " ".join(tail) in DISCOURSE_LABELS


def _attribution(toks: Sequence[Token]) -> bool:
    """ "Per change ticket NET-2291," / "Per Sarah,": who or what says so (a name or a number
    after "per", or a document after "per" or "from"), not a scope ("per region"
    distributes)."""
    words = [t for t in toks if not t.punct]
    if len(words) >= 2 and words[0].norm in ("per", "from") and words[-1].norm in _DOCUMENTS:
        return True  # "Per the diagram,", "from the tuning notes:": a document says so
    if len(words) >= 3 and words[0].norm in _DOCUMENTS and words[1].norm == "from":
        return True  # "Email from Mr. Gupta:": who sent it
    return (
        len(words) >= 2
        and words[0].norm == "per"
        and any(t.text[:1].isupper() or any(ch.isdigit() for ch in t.text) for t in words[1:])
    )


def _value_like(span: Sequence[Token]) -> bool:
    for t in span:
        s = t.text
        if t.quoted or any(ch.isdigit() for ch in s) or any(ch.isupper() for ch in s):
            return True
        if s.count("-") >= 2 and all(p.isalnum() for p in s.split("-")):
            return True  # an identifier of three parts ("acme-exports-eu")
        if any(ch in _CODE_CHARS for ch in s.strip(_EDGE_TRAIL)):
            return True
    return False


def _hyphenated_ids(sx: Sequence[Token], sy: Sequence[Token]) -> bool:
    """Two one-word values that are hyphenated identifiers ("the Sentry project mobile-prod" /
    "mobile-release", "the namespace billing-prod" / "fin-core")."""
    if len(sx) != 1 or len(sy) != 1:
        return False
    parts = [sx[0].text.split("-"), sy[0].text.split("-")]
    return all(len(p) > 1 and all(w.isalnum() for w in p) for p in parts)


def _surface(unit: Unit, span: Sequence[Token]) -> str:
    text = unit.text[span[0].start : span[-1].end]
    return " ".join(text.split())


def _align_runs(
    old: Unit, a: Sequence[Token], new: Unit, b: Sequence[Token]
) -> tuple[str, str, str] | None:
    """(frame, old value, new value) when the two runs differ in exactly one value span."""
    if old.line and new.line:
        a, b = _uncommented(a), _uncommented(b)
    x, y = _trim(a), _trim(b)
    if not x or not y:
        return None
    if not (old.line and new.line and old.path is not None):
        # a file's line opens on its key (``rand = { ..., version = "X" }`` is rand's, not
        # the package's ``version = "Y"``): nothing before it is a lead-in
        x, y = _without_lead_in(x, y, a, b)
    x, y = _without_start_time(x, y)
    p = 0
    while p < len(x) and p < len(y) and x[p].same == y[p].same:
        p += 1
    if p == len(x) == len(y):
        return None  # identical: a restatement, not a value change
    s = 0
    while s < len(x) - p and s < len(y) - p and x[-1 - s].same == y[-1 - s].same:
        s += 1
    sx, sy = x[p : len(x) - s], y[p : len(y) - s]
    if not sx or not sy:
        return None  # insertion or deletion
    if len(sx) > MAX_SPAN or len(sy) > MAX_SPAN:
        return None
    words_x = {t.same for t in sx if not t.punct and t.norm not in _FUNCTION_WORDS}
    words_y = {t.same for t in sy if not t.punct and t.norm not in _FUNCTION_WORDS}
    shared = words_x & words_y
    if shared and not (
        _quantity(sx, sy, shared) or _named_places(sx, sy, shared) or _one_name_each(sx, sy)
    ):
        return None  # two differing places
    left, right = x[:p], x[len(x) - s :]
    frame_words = [t for t in (*left, *right) if not t.punct]
    # Negation and modality matter in the slot's clause: "I don't use X" / "I don't use Y".
    # An instruction both statements give in the same words ("queries should point at X" /
    # "... at Y") is no hedge: the newer replaces the older.
    instruction = _instruction(left) and not any(t.norm in _MODALS for t in (*sx, *sy, *right))
    for run, span_start, span_end in ((x, p, len(x) - s), (y, p, len(y) - s)):
        lo = span_start
        while lo > 0 and run[lo - 1].norm not in _CLAUSE_END:
            lo -= 1
        hi = span_end
        # a condition after the value, said by both ("... is called X if you're setting up
        # kubectl"), conditions the telling, not which value holds
        while hi < len(run) and run[hi].norm not in _CLAUSE_END | _CONDITIONS:
            hi += 1
        clause = [t.norm or "" for t in run[lo:hi]]
        if any(
            _hedges(clause, k) and not (instruction and clause[k] in _MODALS)
            for k in range(len(clause))
        ):
            return None
    if _names_setting(sx) and _names_setting(sy) and sx[0].same != sy[0].same:
        return None  # "user.name X" / "user.email Y": another setting, not another value
    if any(len(span) > 1 and span[1].norm in _VALUE_TAILS for span in (sx, sy)):
        return None  # "1.1.1.1 as the public fallback": a value and its role beside another
    if not (old.line and new.line) and _two_predicates(sx, sy):
        return None  # "is versioned in the URL" / "is rate-limited per partner": two properties
    if _one_of_several(old.tokens, sx[-1]) or _one_of_several(new.tokens, sy[-1]):
        return None  # "hands out 10.0.0.53 as a DNS resolver": one of several, not the one
    if _one_of_some(old.tokens, sx[0]) or _one_of_some(new.tokens, sy[0]):
        return None  # "Our studio has an office in Lagos": an office, one of its offices
    for span in (sx, sy):
        if any(t.norm in _HARD_PUNCT for t in span):
            return None
        if not old.line and any(t.norm == "(" for t in span[1:]):
            return None  # "@dmitri (primary)" / "@ayesha (secondary)": a value and its role
        if any(
            t.norm in _SPAN_VERBS
            and not t.text[:1].isupper()
            and not _clock(span, i)
            and not _inside_name(span, i)
            for i, t in enumerate(span)
        ):
            return None
        # a scope inside the span with more of the span after it is a qualifier; a preposition
        # ending the span belongs to the shared frame after it ("engineer on" / "manager of")
        # ("The Dome at Americas Center" is a name: capitals on both sides of the word)
        # ("the parish hall on Mill Lane": a place named after it, to the span's end)
        for i in range(1, len(span) - 1):
            if span[i].norm in _SPAN_SCOPE and not (
                (span[0].text[:1].isupper() or _all_named(span[i + 1 :]))
                and span[i + 1].text[:1].isupper()
            ):
                return None
        for i, t in enumerate(span[:-1]):
            if t.norm == "," and span[i + 1].norm in _ATTACH:
                return None
    cleft = _cleft(right)
    if (not left or _scope_only(left)) and not cleft:
        # the slot opens the statement, perhaps after where it holds: it is the subject ("In
        # services.yaml, ledger-api has timeout_ms" / "..., notify-api has ...")
        return None
    if _experienced(left):
        return None  # "Helen has been to Peru" / "... to Japan": places been, all still true
    if _liking(left):
        return None  # "Sven's big on bouldering" / "... on sourdough": two things he likes
    if _dosed(right):
        return None  # "Dad's on atorvastatin 20mg" / "... omeprazole 20mg": two medicines
    if _times_apart(sx, sy):
        return None  # "forwards to Hamid, weekdays" / "... Kezia, weekends": two times' values
    if left and left[-1].norm == ":" and old.path is None and not old.context:
        label = [t.text for t in left[:-1] if not t.punct]
        if collection_label(" ".join(label)):
            return None  # "Allergies: cats" / "Allergies: ragweed": members of a collection
    if not (old.line and new.line) and _narrates_event(_without_reduced_relative(left, right), a):
        return None  # an event, not a state: two events are both true
    # a copula after the slot says the slot is inside its subject, unless the slot already sits
    # in a predicate and an "and" opens another clause ("is called Harbor-Guest and the
    # password is taped ..."), or a subordinate clause holds the slot ("kicks in once 5% of a
    # table's rows are dead": a threshold)
    predicate = any(t.norm in _COPULAS or t.norm in _SPAN_VERBS for t in left)
    subordinate = any(t.norm in _SUBORDINATORS for t in left)
    for prev, t in zip((x[len(x) - s - 1], *right), right, strict=False):
        if t.norm in _CLAUSE_END or t.norm in _SUBORDINATORS or _and_clause(prev, t):
            break  # "... to X before anyone in finance is awake": another clause's copula
        if t.norm == "and" and predicate:
            break
        if t.norm in _COPULAS and not _clock((prev, t), 1) and not subordinate and not cleft:
            return None  # the slot sits inside the subject ("7 am" is a time, not a copula)
    lead = next((t.norm for t in reversed(left) if t.norm not in _TRAIL_FILLERS), None)
    lead_ok = (
        lead in _LEAD_WORDS
        or (lead is not None and lead.endswith(("'s", "'re", "'m")))
        # what is taken for one purpose ("for hay fever I take X"): one thing, where taken
        # alone it is one of several ("Nan takes X every morning")
        or (lead in _TAKE and any(t.norm == "for" for t in (*left, *right)))
    )
    # in a file's line, a span right of its key operator (``key: $(image)``, ``NAME = "a b"``)
    # is inside the value, whatever its words
    assigned = old.path is not None and any(t.punct and t.norm in _KEY_OPERATORS for t in left)
    if not (lead_ok or assigned or _hyphenated_ids(sx, sy)) and not (
        _value_like(sx) and _value_like(sy)
    ):
        return None  # a differing verb or predicate, not a value
    line = old.line and new.line
    if line:
        if _nameless_block(left):
            return None  # "maven { url 'X' }": a block with no name is one element of a list
        if _lists_members(left):
            return None  # "ALLOWED_ORIGIN=X": one more member of a list, not the one value
        has_op = any(t.norm in _LEAD_WORDS and t.punct for t in left) or bool(old.context)
        if not has_op and len(frame_words) < 2:
            return None
    elif len(frame_words) < MIN_PROSE_FRAME and not _quoted_key(left):
        return None  # too short to identify an attribute ("I like X"): left to κ
    if max(len(sx), len(sy)) > max(len(frame_words), 1) and not assigned:
        return None
    masked = [*(t.norm for t in left), SLOT, *(t.norm for t in right)]
    frame = " ".join(n for n in masked if n)
    if old.context:
        frame = " > ".join((*old.context, frame))
    if len(frame) > MAX_FRAME_CHARS:
        digest = hashlib.sha256(frame.encode("utf-8")).hexdigest()[:12]
        frame = f"{frame[:MAX_FRAME_CHARS]} #{digest}"
    return frame, _surface(old, sx), _surface(new, sy)


_CLEFT_HEADS = _words("one person")


def _cleft(right: Sequence[Token]) -> bool:
    """The slot is the focus of a cleft ("Dr. Ramos is the one who handles my follow-ups"):
    the words after it name a role that one holder fills, so the slot is its value, not the
    statement's subject."""
    words = [t.norm for t in right if not t.punct][:3]  # articles are no tokens here
    return (
        len(words) == 3
        and words[0] in _COPULAS
        and words[1] in _CLEFT_HEADS
        and words[2] in ("who", "that")
    )


def _scope_only(left: Sequence[Token]) -> bool:
    """The frame before the slot is one scope phrase closed by a comma ("In services.yaml,")."""
    return (
        len(left) >= 2
        and left[0].norm in _SPAN_SCOPE
        and left[-1].norm == ","
        and not any(t.norm == "," for t in left[:-1])
    )


def _nameless_block(left: Sequence[Token]) -> bool:
    """The slot sits in a brace block a bare word opens on the same line, with no name or
    operator between (``maven { url 'X' }``, ``server { listen 80; }``): such a block declares
    an element of its enclosing list (a repository, a server), each one its own, so two of
    them with two values are two elements, not a value replaced."""
    words = [t for t in left if t.norm]
    return len(words) >= 3 and not words[0].punct and words[1].norm == "{"


def _lists_members(left: Sequence[Token]) -> bool:
    """The line's key, before its operator, names a list of members (``collection_setting``:
    ``ALLOWED_ORIGIN``, ``trusted_proxies``)."""
    op = next((i for i, t in enumerate(left) if t.punct and t.norm in _KEY_OPERATORS), None)
    return op is not None and collection_setting(" ".join(t.text for t in left[:op]))


def _quoted_key(left: Sequence[Token]) -> bool:
    """The slot follows a quoted setting's key and its operator (`` `proxy-read-timeout:
    "60"` ``): the key names the attribute, however short the rest of the frame."""
    return (
        len(left) >= 2
        and left[-1].norm in _KEY_OPERATORS
        and left[-1].quoted
        and left[-2].quoted
        and len(left[-2].text) >= 6
        and any(ch in "._-" for ch in left[-2].text)
    )


_QUANTIFIED = _words("all every everything everyone both nothing none")


def _and_clause(prev: Token, t: Token) -> bool:
    """An "and" that opens a clause of its own after the value: a verb phrase sharing the
    subject ("... port 8443 and is only reachable over the VPN"), a pronoun's clause ("...
    size 41 and they're tight") or a quantified subject's ("... 1.29 and all workloads came
    back"); "the staging and prod DBs are" keeps one subject."""
    if prev.norm != "and":
        return False
    return (
        t.norm in _COPULAS
        or t.norm in _CLAUSE_PRONOUNS
        or t.norm in _QUANTIFIED
        or (t.norm or "").startswith(("they'", "it'", "he'", "she'", "we'", "i'"))
    )


def adds_a_value(tokens: Sequence[Token]) -> bool:
    """An additive word ("also", "too", "another") that is not a relative clause's own ("Mr.
    Haddad, who also coaches the debate club": the teacher coaches besides teaching) nor one
    of a clause with a subject of its own after a comma ("..., I've told Uncle Pete too") nor
    one of a clause that narrates why ("Now that we've added the Stones covers, ...")."""
    clause = 0  # where the current comma clause starts
    for i, t in enumerate(tokens):
        if t.norm in (",", ";"):
            clause = i + 1
        if t.norm not in _ADDITIVE or (i and tokens[i - 1].text.casefold() in _RELATIVES):
            continue
        if t.norm == "too" and i + 1 < len(tokens) and not tokens[i + 1].punct:
            continue  # "too noisy": a degree, not another value
        own = [u for u in tokens[clause:i] if not u.punct]
        # a subject and its verb: "I've told Uncle Pete too", "it's also on the fridge"
        if (
            clause
            and own
            and ((len(own) >= 2 and own[0].norm in _OPENING_PRONOUNS) or own[0].norm in _CONTRACTED)
        ):
            continue
        # "Now that we've added the covers, ...": a clause that narrates why, not the value
        head = tuple(u.norm for u in own[:2])
        if head and (head[0] in _REASONS or head[0] in _SUBORDINATORS or head in _NARRATE_PAIRS):
            continue
        return True
    return False


_SCOPING = _words("only except excluding")


def restricted(tokens: Sequence[Token]) -> bool:
    """A clause after the statement's own restricts it ("but only for critical alerts",
    "except on weekends")."""
    return any(
        t.norm in _SCOPING and any(u.norm in (",", "but") for u in tokens[max(0, i - 2) : i])
        for i, t in enumerate(tokens)
    )


def accumulating(frame: str, new: Unit, others: Sequence[Unit]) -> bool:
    """Whether another statement says the frame's value with "also", "too" or "another"
    ("Under-12s are coached by Sian Griffiths too" between "... coached by Dave Ormerod" and
    "... coached by Kwame Boateng"): the attribute has several values, so a later one
    replaces none of them."""
    for o in others:
        if o.line or not adds_a_value(o.tokens):
            continue
        found = align_pair(o, new, added=True)
        if found is None or found[0] != frame:
            continue
        # the additive word in the value's own clause ("Told the rep too: orders ship out of
        # Castlefield" adds nothing to where orders ship out of)
        at = o.text.find(found[1])
        cuts = [i for i, t in enumerate(o.tokens) if t.norm in (",", ";", ":")]
        lo = max((i + 1 for i in cuts if o.tokens[i].start < at), default=0)
        hi = min((i for i in cuts if o.tokens[i].start >= at), default=len(o.tokens))
        if adds_a_value(o.tokens[lo:hi]):
            return True
    return False


def _experienced(left: Sequence[Token]) -> bool:
    """The slot is what someone has been to or visited, in the perfect ("has been to _",
    "we've visited _"): experiences add up, a later one replaces none."""
    words = [t.norm or "" for t in left if not t.punct]
    if len(words) >= 3 and words[-2:] == ["been", "to"]:
        perfect = words[-3]
    elif len(words) >= 2 and words[-1] == "visited":
        perfect = words[-2]
    else:
        return False
    return perfect in ("has", "have", "had") or perfect.endswith(("'s", "'ve", "'d"))


def _one_of_several(unit: Sequence[Token], last: Token) -> bool:
    """The words after the value give it an indefinite role ("X as a resolver", "X as an
    approver"): a role several values hold at once. ``unit``: the unit's tokens, ignored ones
    included; ``last``: the value's last token."""
    after = [t for t in unit if t.start >= last.end]
    return len(after) >= 2 and after[0].norm in _VALUE_TAILS and after[1].text in _INDEFINITE


def _one_of_some(unit: Sequence[Token], slot: Token) -> bool:
    """The words of the slot's clause before it bring in an indefinite thing someone has, with
    words of its own ("has an office in _", "has a cat named _"): the value is that thing's,
    one of some ("we post an update at least _" is no possession).
    An article right before the slot belongs to the value ("drives a _"); "has a population
    of _" measures one thing."""
    before = [t for t in unit if t.end <= slot.start]
    said = [t.norm for t in before if t.norm is not None and not t.punct]
    if not said or "of" in said[-2:]:
        return False
    words = 0
    for i in range(len(before) - 1, 0, -1):
        t = before[i]
        if t.norm in _CLAUSE_END or t.norm in _HARD_PUNCT:
            return False
        if t.text in _INDEFINITE:  # lower case: "Serie A club _" has no indefinite thing
            return words > 0 and _possesses(before[:i])
        if t.norm is not None and not t.punct:
            words += 1
    return False


# Languages: what a person speaks, a desk covers, a site is translated into are several at once.
_LANGUAGES = frozenset(
    str.split(
        """english french german spanish italian portuguese polish turkish dutch swedish
        norwegian danish finnish icelandic japanese korean mandarin chinese cantonese arabic
        hindi urdu bengali punjabi tamil russian ukrainian greek hebrew farsi persian vietnamese
        thai indonesian malay tagalog swahili czech slovak hungarian romanian bulgarian serbian
        croatian slovenian welsh irish gaelic catalan basque galician estonian latvian
        lithuanian"""
    )
)


def languages(frame: str, old_value: str, new_value: str) -> bool:
    """Both values are languages and the frame names no language of its own ("covers _",
    "speaks _", "translated into _"; not "default language is _"): one more, not another."""
    return (
        old_value.lower() in _LANGUAGES
        and new_value.lower() in _LANGUAGES
        and "language" not in frame
    )


# A liking said as an idiom: what someone is big on, into, keen on or a fan of is one of the
# things they like, never an attribute's one value ("I like X" is too short a frame anyway).
_LIKING = re.compile(
    r"(?:\bbig on|(?:\bis|'s|\bam|'m|\bare|'re|\breally|\bso|\btotally|\bvery) into|"
    r"\bkeen on|\bfan of|\bobsessed with|\bhooked on|\bmad about|\bcrazy about|"
    r"\bpassionate about)$"
)


def _liking(left: Sequence[Token]) -> bool:
    return _LIKING.search(" ".join(t.norm for t in left[-4:] if t.norm)) is not None


# A dose ("20mg", "50 mg"): what comes before it is a medicine, one of several someone takes.
_DOSE = re.compile(DOSE, re.IGNORECASE)


def _dosed(right: Sequence[Token]) -> bool:
    said = " ".join(t.norm for t in right[:2] if t.norm)
    return _DOSE.match(said) is not None


# The part of the week or the day a value is said to hold for, after a comma.
_TIMES_OF_WEEK = frozenset(
    w + suffix
    for w in (*WEEKDAYS, *str.split("weekday weekend weeknight morning afternoon evening night"))
    for suffix in ("", "s")
)


def _times_apart(sx: Sequence[Token], sy: Sequence[Token]) -> bool:
    """Each value ends on when it holds, after a comma, and the times differ ("Hamid,
    weekdays" / "Kezia, weekends"): one value for each time, not one replacing the other."""

    def when(span: Sequence[Token]) -> str | None:
        ok = len(span) >= 3 and span[-2].norm == "," and span[-1].norm in _TIMES_OF_WEEK
        return span[-1].norm if ok else None

    a, b = when(sx), when(sy)
    return a is not None and b is not None and a.rstrip("s") != b.rstrip("s")


def _possesses(before: Sequence[Token]) -> bool:
    """The words end on a verb of having: "has", "owns", or "got" after "have" ("We've got an
    office in _"; a bare "got" is a getting: "Lena got a job at _")."""
    said = [t.norm for t in before if t.norm is not None and not t.punct]
    if not said:
        return False
    if said[-1] == "got":
        return len(said) > 1 and (said[-2] in ("have", "has") or said[-2].endswith(("'ve", "'s")))
    return said[-1] in _POSSESSION


def _quantity(sx: Sequence[Token], sy: Sequence[Token], shared: set[str]) -> bool:
    """Two spans that differ only in numbers or calendar words, with the same words between
    them ("3 sets of 12" / "4 sets of 10", "third week of February" / "first week of March"):
    one compound quantity or date, not two places."""
    if max(len(sx), len(sy)) > MAX_QUANTITY_TOKENS:
        return False
    rest = [[t for t in span if t.same not in shared] for span in (sx, sy)]
    kept = [[t.same for t in span if t.same in shared] for span in (sx, sy)]
    return kept[0] == kept[1] and all(
        t.punct
        or t.norm in _FUNCTION_WORDS
        or t.norm in _CALENDAR
        or any(ch.isdigit() for ch in t.text)
        for part in rest
        for t in part
    )


def _named_places(sx: Sequence[Token], sy: Sequence[Token], shared: set[str]) -> bool:
    """Two names of places that share only the preposition inside them ("Boots on Kingsway" /
    "Lloyds pharmacy on Mill Lane"): one place, not two; a name opens each span and another
    follows the preposition."""
    if not shared <= _SPAN_SCOPE:
        return False
    for span in (sx, sy):
        inner = [i for i, t in enumerate(span) if t.same in shared]
        if not span[0].text[:1].isupper() or any(
            i == 0
            or i == len(span) - 1
            or not span[i + 1].text[:1].isupper()
            or (span[i + 1].norm or "").removesuffix("s") in _CALENDAR  # "Costa on Mondays"
            for i in inner
        ):
            return False
    return True


def _one_name_each(sx: Sequence[Token], sy: Sequence[Token]) -> bool:
    """Two short proper names that share a word ("Octopus Tracker" / "Agile Octopus"): one
    name replaced by another, not two places."""
    return all(
        _all_named(span) and len([t for t in span if not t.punct]) <= MAX_LABEL_WORDS
        for span in (sx, sy)
    )


def _inside_name(span: Sequence[Token], i: int) -> bool:
    """A short lowercase word between two capitalised ones is part of a name ("Casa do Rio",
    "Rio de Janeiro"), not a verb of the span."""
    return (
        0 < i < len(span) - 1
        and len(span[i].text) <= 3
        and span[i - 1].text[:1].isupper()
        and span[i + 1].text[:1].isupper()
    )


def _clock(span: Sequence[Token], i: int) -> bool:
    """``span[i]`` is the "am" of a time ("9 am"), not a verb."""
    return span[i].norm == "am" and i > 0 and span[i - 1].text[-1:].isdigit()


def _all_named(toks: Sequence[Token]) -> bool:
    """Every word is capitalised (a proper name: "Mill Lane")."""
    words = [t for t in toks if not t.punct]
    return bool(words) and all(t.text[:1].isupper() for t in words)


def _uncommented(run: Sequence[Token]) -> Sequence[Token]:
    """A line's tokens without its trailing comment (`` # big exports``, `` // TODO``): a
    comment added beside a changed value is no second changed place."""
    for i, t in enumerate(run):
        if i and t.text in ("#", "//"):
            return run[:i]
    return run


def _crontab_entries(old: Unit, new: Unit) -> tuple[re.Match[str], re.Match[str]] | None:
    a = CRON_ENTRY.match(old.text) if old.line else None
    b = CRON_ENTRY.match(new.text) if new.line else None
    return (a, b) if a is not None and b is not None else None


def _schedule(entry: re.Match[str]) -> str:
    return " ".join(entry["schedule"].split())


def _schedule_change(
    a: re.Match[str], b: re.Match[str], context: tuple[str, ...]
) -> tuple[str, str, str] | None:
    """Two crontab entries of one command whose schedule changed: (frame, old schedule, new
    schedule). The command is the key (the schedule opens the line, where a slot is otherwise
    a subject); two commands at two times are two jobs: a crontab lists many. (One schedule
    whose command changed in one span aligns as any line does.)"""
    was, now = _schedule(a), _schedule(b)
    if a["command"].split() != b["command"].split():
        return None
    return _capped(" ".join((*context, "crontab", SLOT, *a["command"].split()))), was, now


# A setting's name: an identifier in dotted or snake form ("user.email", "max_connections"):
# dot-separated words, with a "." or "_" before a letter somewhere after the first character.
# Two linear patterns (one nested pattern backtracks exponentially on "a_a_a_...!").
_IDENTIFIER = re.compile(r"[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)*")
_SEPARATED = re.compile(r"[._][A-Za-z]")


def _setting_name(text: str) -> bool:
    return _IDENTIFIER.fullmatch(text) is not None and _SEPARATED.search(text, 1) is not None


def _names_setting(span: Sequence[Token]) -> bool:
    """The span opens on a setting's name and goes on to its value."""
    words = [t for t in span if not t.punct]
    return len(words) > 1 and _setting_name(span[0].text)


def _without_reduced_relative(left: Sequence[Token], right: Sequence[Token]) -> list[Token]:
    """The frame's words, less a participle right after the value that opens a phrase about
    it ("Node 18.19 pinned in .nvmrc", "the files kept under /srv"): it describes the value,
    it narrates nothing."""
    words = [t for t in (*left, *right) if not t.punct]
    if len(right) >= 2 and right[0].norm not in _COPULAS and right[1].norm in _ATTACH:
        words = [t for t in words if t is not right[0]]
    return words


def _narrates_event(words: Sequence[Token], raw: Sequence[Token] = ()) -> bool:
    """A past-tense verb that is not a passive or perfect participle after an auxiliary
    ("is named", "was moved", "has changed" state something; "spent", "stopped" narrate). A
    participle joined to one a present auxiliary governs shares it ("are dumped into X and
    kept"); one before a copula is in the subject ("The photographer we booked is X"). After
    an article or a possessive (in ``raw``, the run with its ignored words) the word modifies
    a noun ("the left foot", "my used car")."""
    before = {t.start: p.text.casefold() for p, t in itertools.pairwise(raw)}
    modifying: set[int] | None = None  # read only once a past form is met
    previous = ""
    governed = False  # a participle after an auxiliary came before
    # a verb before the statement's copula is in its subject ("The photographer we booked is")
    copula = max((i for i, t in enumerate(words) if t.norm in _COPULAS), default=-1)
    for i, t in enumerate(words):
        n = t.norm or ""
        after_auxiliary = (
            previous in _COPULAS
            or previous in _AUXILIARIES
            or previous.endswith(("'s", "'re", "'m", "'ve"))
            or (governed and previous in _COORDINATORS)
        )
        narrated = before.get(t.start) not in _NOUN_OPENERS and (
            n in _PAST_EVENT or (len(n) > 4 and n.endswith("ed") and n not in _STATIVE_PARTICIPLES)
        )
        if narrated:
            modifying = _modifying_participles(raw) if modifying is None else modifying
            narrated = t.start not in modifying
        if (
            not after_auxiliary
            and narrated
            and i > copula
            and not _in_relative(words, i)
            and not _complement(words, i)
        ):
            return True
        # only a present auxiliary's ("are dumped ... and kept": a standing state; "was
        # restored ... and opened in 2016" narrates)
        governed = governed or (after_auxiliary and narrated and previous in _PRESENT)
        previous = n
    return False


_OBJECT_PREPOSITIONS = _words("on in at to for from with by under into onto of over")


def _modifying_participles(raw: Sequence[Token]) -> set[int]:
    """Where a participle describes the noun before it, a preposition's object, and opens a
    phrase of its own ("run on the runner image pinned to JDK 17", "stored in the bucket
    created for backups"): the noun phrase is no subject, so the participle is no verb."""
    words = [t for t in raw if not t.punct]
    out: set[int] = set()
    for i in range(3, len(words) - 1):
        if words[i + 1].text.casefold() not in _OBJECT_PREPOSITIONS:
            continue
        for k in range(2, 5):
            if i - k - 1 < 0:
                break
            opener = words[i - k].text.casefold()
            if opener in _NOUN_OPENERS:
                noun = [w.text.casefold() for w in words[i - k + 1 : i]]
                if words[i - k - 1].text.casefold() in _OBJECT_PREPOSITIONS and not any(
                    w in _COPULAS or w in _AUXILIARIES for w in noun
                ):
                    out.add(words[i].start)
                break
    return out


_RELATIVE_SUBJECTS = _CLAUSE_PRONOUNS - _words("it this that")  # a person's: "we ended up on"
# Present verbs whose object takes a participle that says its standing state ("I keep the tank
# heater dialed to 26°C", "we leave the router plugged into ...").
_HOLDING = _words("keep keeps leave leaves")


def _complement(words: Sequence[Token], i: int) -> bool:
    """A participle that says the state its clause's object is kept in, not an event."""
    return any(t.norm in _HOLDING for t in words[max(0, i - 5) : i - 1])


def _in_relative(words: Sequence[Token], i: int) -> bool:
    """A past verb in a relative clause without "that", after a noun and its pronoun subject,
    with the statement's present verb still to come ("The tariff we ended up on goes by the
    name X": the tariff, not an event)."""
    if i < 2 or words[i - 1].norm not in _RELATIVE_SUBJECTS:
        return False
    noun = words[i - 2].norm or ""
    if noun in _RELATIVE_SUBJECTS or noun in _AUXILIARIES or noun in _COPULAS:
        return False
    return any(
        (n := t.norm or "") in _PRESENT_VERBS
        or (len(n) > 3 and n.endswith("s") and not n.endswith("ss") and n.isalpha())
        for t in words[i + 1 :]
    )


def _overlap(a: Unit, b: Unit) -> float:
    x, y = a.words, b.words
    if not x or not y:
        return 0.0
    return len(x & y) / min(len(x), len(y))


def comparable(a: Unit, b: Unit) -> bool:
    """Worth aligning: the units share half the shorter one's words, or a clause of each is
    nearly the same (``MIN_CLAUSE_OVERLAP``)."""
    if _overlap(a, b) >= MIN_WORD_OVERLAP:
        return True
    if len(a.clauses) == len(b.clauses) == 1:
        return False
    return any(
        len(x & y) >= MIN_CLAUSE_OVERLAP * min(len(x), len(y))
        for x in a.clause_words
        for y in b.clause_words
    )


def _eligible(unit: Unit) -> bool:
    if not unit.content or unit.question:
        return False
    first = next((t.norm for t in unit.tokens if t.norm and not t.punct), None)
    if first not in {"if", "unless", "whether", "suppose", "supposing", "assuming"}:
        return True
    # a condition on the listener, not the world ("If your build is weird, remember ..."), or
    # one on when to recall the statement ("If the job hangs, remember builds go ...")
    comma = next((i for i, t in enumerate(unit.tokens) if t.norm == ","), None)
    if comma is None:
        return False
    after = next((t.norm for t in unit.tokens[comma + 1 :] if t.norm), None)
    return _to_audience(unit.tokens[:comma]) or after in ("remember", "note")


def align_pair(old: Unit, new: Unit, *, added: bool = False) -> tuple[str, str, str] | None:
    """The frame two units share with one differing value, if any (clause runs tried, the
    longest frame kept; at equal frames the shortest values, so a narrating clause after the
    value is not part of it). ``added``: the frame of a unit that adds its value too (for
    ``accumulating``), which is no change."""
    if old.context != new.context or not (_eligible(old) and _eligible(new)):
        return None
    if (
        not added
        and not (old.line and new.line)
        and (adds_a_value(old.tokens) or adds_a_value(new.tokens))
    ):
        return None  # "also", "too", "another": a value added beside the old one
    if members(old, new):
        return None
    if restricted(old.tokens) != restricted(new.tokens):
        return None  # "..., but only severity=critical": a value for some cases, not all
    entries = _crontab_entries(old, new)
    if entries is not None and _schedule(entries[0]) != _schedule(entries[1]):
        return _schedule_change(*entries, old.context)
    best = (
        None if continues(new.tokens, old.tokens) else _align_runs(old, old.tokens, new, new.tokens)
    )
    oc, nc = old.clauses, new.clauses
    o_topics = [topic(old, old.tokens[lo].start) for lo, _ in oc]
    n_topics = [topic(new, new.tokens[lo].start) for lo, _ in nc]
    # a labelled record ("Team coffee run: Omar, oat cortado") is compared whole
    o_record, n_record = labelled_record(old), labelled_record(new)
    for i in range(len(oc)):
        for j in range(i, len(oc)):
            if o_record and oc[j][1] != len(old.tokens):
                continue
            a = old.tokens[oc[i][0] : oc[j][1]]
            for k in range(len(nc)):
                last = k + (j - i)
                if last >= len(nc):
                    break
                if n_record and nc[last][1] != len(new.tokens):
                    continue
                if two_topics(o_topics[i], n_topics[k]):
                    continue  # "eu-logs bucket: ..." / "us-logs bucket: ...": two subjects
                if _hedged(old.tokens[: oc[i][0]]) != _hedged(new.tokens[: nc[k][0]]):
                    continue  # "Maybe soon, the port is 8016": a clause before it hedges it
                b = new.tokens[nc[k][0] : nc[last][1]]
                found = None if continues(b, a) else _align_runs(old, a, new, b)
                if found is not None and _named_apart(
                    old, (oc[i][0], oc[j][1]), new, (nc[k][0], nc[last][1]), found
                ):
                    continue
                if found is not None and (best is None or frame_rank(found) > frame_rank(best)):
                    best = found
    return None if best is None or two_things(old, new, best) else best


_PARTICIPLE = re.compile(r"[a-z]+(?:-[a-z]+)*ed")


def _two_predicates(sx: Sequence[Token], sy: Sequence[Token]) -> bool:
    """Two spans that each open on another participle with words after it ("versioned in the
    URL" / "rate-limited per partner"): two predicates of the subject, not one value."""
    return (
        all(
            len(span) > 1 and _PARTICIPLE.fullmatch(span[0].norm or "") is not None
            for span in (sx, sy)
        )
        and sx[0].same != sy[0].same
    )


def one_span_frame(older: str, newer: str) -> str | None:
    """The frame of two single statements that differ in one span only, whatever its words
    (the slot masked: "Priya plays the _ in the community orchestra"); None for anything else.
    Not a value change by itself: ``align_pair`` decides that; this says what attribute two
    near-identical statements give values of, for the policy that attribute resolves under."""
    if len(split_units_with_gaps(older)) != 1 or len(split_units_with_gaps(newer)) != 1:
        return None
    x = [t for t in tokenize(older) if t.norm is not None]
    y = [t for t in tokenize(newer) if t.norm is not None]
    ops = difflib.SequenceMatcher(
        a=[t.same for t in x], b=[t.same for t in y], autojunk=False
    ).get_opcodes()
    changed = [op for op in ops if op[0] != "equal"]
    if len(changed) != 1 or changed[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = changed[0]
    if i2 - i1 > MAX_SPAN or j2 - j1 > MAX_SPAN or not (x[:i1] or x[i2:]):
        return None
    return " ".join([*(t.text for t in x[:i1]), SLOT, *(t.text for t in x[i2:])])


def two_things(old: Unit, new: Unit, found: tuple[str, str, str]) -> bool:
    """A frame two units share whose values are still two things, not one value changed: the
    frame is only a lead-in, or the values are two entries or two settings."""
    frame, a, b = found
    return (
        slot_is_statement(frame)
        or two_fields(frame, a, b)
        or label_and_entry_differ(old.text, new.text, a, b)
        or two_settings(a, b)
        or two_jobs(a, b)
        or two_columns(old.text, new.text, a, b)
    )


def two_settings(old: str, new: str) -> bool:
    """Values that are each a setting of their own, by different names (``@acme:registry=...``
    / ``@fortawesome:registry=...``): two lines of a file, not one value changed."""
    a, b = SETTING_VALUE.match(old), SETTING_VALUE.match(new)
    return a is not None and b is not None and a["name"] != b["name"]


def two_jobs(old: str, new: str) -> bool:
    """Values that are each a crontab entry, of different commands (Rosa put ``0 2 * * *
    pg_dump.sh`` / ``30 3 * * 0 vacuum_full.sh`` in the crontab): two jobs, as two crontab
    lines are (``_schedule_change``), not one job's schedule changed."""
    a, b = CRON_ENTRY.match(old.strip("`")), CRON_ENTRY.match(new.strip("`"))
    return a is not None and b is not None and a["command"].split() != b["command"].split()


def two_columns(old_text: str, new_text: str, old: str, new: str) -> bool:
    """Values that run across a column gap of a table-like line in both texts (pg_hba.conf's
    ``host  analytics  metabase  10.8.3.0/24`` / ``...  airflow  10.8.5.0/24``): the first and
    last of their columns both differ, so two fields changed (another user's entry), not one
    value."""
    return _spans_columns(old_text, old) and _spans_columns(new_text, new)


def _spans_columns(text: str, value: str) -> bool:
    words = value.split()
    if len(words) < 2:
        return False
    m = re.search(r"\s+".join(map(re.escape, words)), text)
    return m is not None and COLUMN_GAP.search(m[0]) is not None


# A list entry's amount ("council tax, £148") and its day of the month ("broadband, 14th").
_AMOUNT = re.compile(rf"^{MONEY}$")
_DAY = re.compile(r"^\d{1,2}(?:st|nd|rd|th)$")


def two_fields(frame: str, old: str, new: str) -> bool:
    """Values that are an entry and its day of the month, or after a label's colon its
    amount, both differing ("council tax, 1st" / "broadband, 14th"; "Direct debit ...: council
    tax, £148" / "...: Octopus Energy, around £95"; "Standing order: £200 to the ISA" / "...:
    £50 to Ella's savings"): two entries of a list, not one value changed. A place's parts
    ("Berlin, Germany" / "Toronto, Canada") are one value, and so are a provider and its price
    in a sentence ("Our broadband is with BT, £35 a month" / "... Sky, £30 ...": a switch)."""
    a, b = _two_parts(old), _two_parts(new)
    if a is None or b is None or a[0] == b[0] or a[1] == b[1]:
        return False
    field = [x.split()[0] if x.split() else "" for x in (a[1], b[1])]
    if all(_DAY.match(f) for f in field):
        return True
    if f": {SLOT}" not in frame:
        return False
    return all(_AMOUNT.match(f) for f in field) or all(_AMOUNT.match(p[0]) for p in (a, b))


def _two_parts(value: str) -> tuple[str, str] | None:
    """An entry and what follows its comma ("council tax, £148"), or an amount and where it
    goes ("£200 to the ISA"); an amount's qualifier is left out ("around £95")."""
    parts = value.split(", ")
    if len(parts) != 2:
        parts = value.split(" to ", 1) if _AMOUNT.match(value.split(" ", 1)[0]) else []
    if len(parts) != 2:
        return None
    return parts[0], _ROUGHLY.sub("", parts[1])


def _an_amount(words: Sequence[str]) -> bool:
    """A few words that give an amount ("£38", "around £95 a month")."""
    return len(words) <= 4 and any(_AMOUNT.match(w) for w in words)


_ROUGHLY = re.compile(r"^(?:around|about|roughly|approx\.?|approximately|~)\s*", re.I)


_LABEL = re.compile(r"^(?P<label>[^:]{1,80}):\s+(?P<entry>\S.*)$", re.S)


def label_and_entry_differ(old: str, new: str, old_value: str, new_value: str) -> bool:
    """The values differ in a label and what follows its colon differs too ("emergency
    contact 1: Hugh Barnes (uncle) ..." / "emergency contact 2: Priti Shah (neighbour) ...";
    "section 3: equipment" / "section 5: travel"): two entries of a list under numbered or
    named labels, not one value changed. A label renumbered over the same entry stays one."""
    a, b = _LABEL.match(old.strip()), _LABEL.match(new.strip())
    if a is None or b is None:
        return False
    if not (_says(a["label"], old_value) and _says(b["label"], new_value)):
        return False  # the value is the entry ("Wifi password: hunter2" / "...: larch77")
    return " ".join(a["entry"].casefold().split()) != " ".join(b["entry"].casefold().split())


def _says(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.I) is not None


# A frame that is only a phrase of place or source before a comma: what follows it is the
# statement, its predicate included ("that's the VPN range" / "lets Metabase in"), no value.
_LEAD_ONLY = re.compile(r"^(?:from|in|on|at|for|per|via|inside|within|under) [^,]*, _$")


def slot_is_statement(frame: str) -> bool:
    """Whether the frame is only a lead-in phrase ("from pg_hba.conf on db-reports , _")."""
    return _LEAD_ONLY.match(frame) is not None


def _names(unit: Unit, run: tuple[int, int]) -> set[str]:
    """Names in the unit outside ``run`` (``_naming``), not the unit's first word."""
    return {
        t.norm or ""
        for i, t in enumerate(unit.tokens)
        if i and not run[0] <= i < run[1] and _naming(t)
    }


def _named_apart(
    old: Unit, a: tuple[int, int], new: Unit, b: tuple[int, int], found: tuple[str, str, str]
) -> bool:
    """Two clause runs beside other clauses that name different things (each a name the other
    lacks), or say one kind of thing in words of their own: the frame is shared, its subject
    is not ("The Subaru gets synthetic oil, change every 6,000 miles" / "The old F-150 is on
    conventional oil, change every 3,000 miles"; "The River Haddon is a river in Norfolk, and
    a tributary of the River Yare" / "The River Scarrow is a river in Norfolk, and a tributary
    of the River Bure"; "The storefront builds with Vite, output goes to dist/" / "The admin
    panel builds with webpack 5, output goes to build/")."""
    if a == (0, len(old.tokens)) and b == (0, len(new.tokens)):
        return False
    # the changed value said again elsewhere in the sentence names nothing else; names only
    # after both runs elaborate a statement that has its subject ("the layout I type on is
    # Colemak, the toggle is Ctrl+Space" / "... is Workman, with the DH mod on the home row")
    ahead = _names(old, (a[0], len(old.tokens))) or _names(new, (b[0], len(new.tokens)))
    if ahead and each_lacks(_names(old, a), _names(new, b), found[1:]):
        return True
    # a shared run of words in the other clauses, and words of each replaced by the other's
    # beside it: a second differing place ("builds with Vite" / "builds with webpack 5"), the
    # subject's perhaps (words one side adds, a tail or a lead-in, are no place)
    ox, oy = _rest(old, a), _rest(new, b)
    x, y = [_rest_word(old.tokens[i]) for i in ox], [_rest_word(new.tokens[i]) for i in oy]
    values = _words(found[1].casefold()) | _words(found[2].casefold())

    def content(words: Sequence[str]) -> bool:
        return any(w not in _REST_STOP and w not in values for w in words)

    ops = difflib.SequenceMatcher(a=x, b=y, autojunk=False).get_opcodes()
    shared = any(t == "equal" and i2 - i1 >= 2 and content(x[i1:i2]) for t, i1, i2, _, _ in ops)
    # ... or shared words either side of a replaced one ("she's got the payments pager" /
    # "he's got the search pager")
    shared = shared or any(
        t == "replace"
        and ops[k - 1][0] == ops[k + 1][0] == "equal"
        and content(x[ops[k - 1][1] : ops[k - 1][2]] + x[ops[k + 1][1] : ops[k + 1][2]])
        for k, (t, *_) in enumerate(ops[1:-1], 1)
    )
    replaced = [
        (i1, i2, j1, j2)
        for t, i1, i2, j1, j2 in ops
        if t == "replace" and content(x[i1:i2]) and content(y[j1:j2])
    ]
    # each value with a clause of its own right after it, saying different things of each
    # ("maintained by Leah Okafor, she wrote the parser" / "... by Rory Brennan, who handles
    # releases"): two people, unless a word says the one replaced the other (or that one is
    # added: the frame is then one that holds several, which the pair must still show)
    if (
        ox
        and oy
        and ox[0] == a[1]
        and oy[0] == b[1]
        and x[0] in _OWN_CLAUSE
        and y[0] in _OWN_CLAUSE
        and each_lacks(x[1:], y[1:], found[1:])
        and not any(t.norm in _REPLACING for t in (*old.tokens, *new.tokens))
        and not (adds_a_value(old.tokens) or adds_a_value(new.tokens))
    ):
        return True
    if x != y and _contact(x) and _contact(y) and all(_named_first(v) for v in found[1:]):
        # "Uncle Theo, 07700 900456" / "Auntie Mel, 07700 900789", "Femi next door, 07700
        # 900877, ...": two people
        return True
    # a label's entry with its amount differing beside it ("Direct debit ... on the 1st:
    # council tax, £148" / "...: Octopus Energy, around £96 a month"): two entries of the
    # label's list
    if len(replaced) == 1 and found[0].endswith(f": {SLOT}"):
        i1, i2, j1, j2 = replaced[0]
        if _an_amount(x[i1:i2]) and _an_amount(y[j1:j2]):
            return not any(_AMOUNT.match(v) for v in found[1:])
    # a numbered name differing beside the frame ("..., rack 2" / "..., rack 4"; "shelf 3",
    # "bay 7"): a second place, as "Ward 3" / "Ward 5" is
    if any(
        t == "replace"
        and i1 > 0
        and i2 - i1 == j2 - j1 == 1
        and _numeral(x[i1])
        and _numeral(y[j1])
        and x[i1 - 1] == y[j1 - 1]
        and x[i1 - 1] not in _REST_STOP
        and x[i1 - 1] not in _LEAD_WORDS
        and x[i1 - 1] not in values
        for t, i1, i2, j1, j2 in ops
    ):
        return True
    # a pronoun in both runs whose antecedent, said before them, differs ("installed
    # telescope.nvim for fuzzy finding, bound it to <leader>ff" / "installed harpoon for
    # jumping between files, bound it to <leader>h"): "it" is two things
    if (
        a[0]
        and b[0]
        and _refers_within(old.tokens[a[0] : a[1]])
        and _refers_within(new.tokens[b[0] : b[1]])
    ):
        lead_x = [w for w in (_rest_word(t) for t in old.tokens[: a[0]]) if w]
        lead_y = [w for w in (_rest_word(t) for t in new.tokens[: b[0]]) if w]
        if (
            content(lead_x)
            and content(lead_y)
            and each_lacks(
                [w for w in lead_x if w not in _REST_STOP],
                [w for w in lead_y if w not in _REST_STOP],
                found[1:],
            )
        ):
            return True
    before = found[0].split(f" {SLOT}")[0].rsplit(" ", 1)[-1]
    if len(replaced) == 1 and before in _LEAD_WORDS:
        i1, i2, j1, j2 = replaced[0]
        if _second_value(old, ox[i1:i2], new, oy[j1:j2]):
            return False
    return shared and bool(replaced)


_PHONE_PART = re.compile(r"^\+?[\d()\-.]+$")
_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+\.[\w.]+$")
_NUMERAL = re.compile(r"^[a-z]?\d{1,3}[a-z]?$")


def _numeral(word: str) -> bool:
    """A short number that can name a place ("2", "12b", "b3"), not a measure or a time."""
    return _NUMERAL.match(word) is not None


def _named_first(value: str) -> bool:
    """The value opens on a capitalised word: a name, perhaps with words after it ("Femi next
    door"), or after who the person is to the writer ("our neighbour Carol")."""
    words = [t for t in tokenize(value, fold_case=False) if not t.punct]
    if words and words[0].text.lower() in _KIN_LEADS:
        words = words[1:]
        while words and words[0].text.islower() and len(words) > 1:
            words = words[1:]  # the role: "neighbour", "sister-in-law", "old flatmate"
    return bool(words) and words[0].text[:1].isupper()


_KIN_LEADS = _words("our my his her their")


def _contact(words: Sequence[str]) -> bool:
    """A phone number or an e-mail address among the words: how to reach a person ("07700
    900877, he works from home most days")."""
    if any(_EMAIL.match(w) for w in words):
        return True
    run: list[str] = []
    for w in [*words, ""]:
        if w and _PHONE_PART.match(w):
            run.append(w)
            continue
        if sum(ch.isdigit() for ch in "".join(run)) >= 7:
            return True
        run = []
    return False


def _second_value(old: Unit, xs: Sequence[int], new: Unit, ys: Sequence[int]) -> bool:
    """The one other place two units differ is a second number or time, in clauses that are
    one value apart on their own: both values changed together ("Saturday doors open at 7:30,
    so bread has to be out of the oven by 7:10" / "... at 8:00, ... by 7:40"), not a numbered
    name ("Ward 3 has 24 beds" / "Ward 5 ...": two places in that clause)."""
    for unit, ix in ((old, xs), (new, ys)):
        if not all(any(ch.isdigit() for ch in unit.tokens[i].text) for i in ix):
            return False
        if ix[0] == 0 or unit.tokens[ix[0] - 1].norm not in _LEAD_WORDS:
            return False  # "Ward 3": a number that names
    ca = next((c for c in old.clauses if c[0] <= xs[0] < c[1]), None)
    cb = next((c for c in new.clauses if c[0] <= ys[0] < c[1]), None)
    if ca is None or cb is None or xs[-1] >= ca[1] or ys[-1] >= cb[1]:
        return False
    return _align_runs(old, old.tokens[ca[0] : ca[1]], new, new.tokens[cb[0] : cb[1]]) is not None


def _refers_within(run: Sequence[Token]) -> bool:
    """A run with a pronoun that refers back to something said before it."""
    return any(t.norm in _REFERRING for t in run if not t.quoted)


_OWN_CLAUSE = _words("who whose she he they she's he's they're")
_REPLACING = _words("now new switched moved replaced replacing instead anymore longer took")


def _rest_word(t: Token) -> str:
    """A word as ``_named_apart`` compares the rest: an acronym as written ("the US
    customers" names a country, not "us")."""
    return t.text if len(t.text) > 1 and t.text.isupper() else t.norm or ""


def _rest(unit: Unit, run: tuple[int, int]) -> list[int]:
    """The indices of the unit's words outside ``run``, in order."""
    return [
        i for i, t in enumerate(unit.tokens) if not run[0] <= i < run[1] and t.norm and not t.punct
    ]


def each_lacks(x: Iterable[str], y: Iterable[str], values: Sequence[str]) -> bool:
    """Each of two word sets has a word the other lacks, the changed ``values`` (old, new)
    left out of their sides."""
    a = set(x) - _words(values[0].casefold())
    b = set(y) - _words(values[1].casefold())
    return bool(a - b) and bool(b - a)


def members(old: Unit, new: Unit) -> bool:
    """Two notes that each state a member of a collection ("Allergies: cats", "Food bank
    sign-ups: Rosa, Saturday 9am"): both true, whatever differs (a config line under its
    parents is its key's one value)."""
    return not (old.context or new.context or old.path or new.path) and (
        member_note(old.text) and member_note(new.text)
    )


def continues(run: Sequence[Token], older: Sequence[Token] = ()) -> bool:
    """The newer clause says a value holds on ("team lunch is still biweekly Thursdays"): a
    restatement in other words, never a change. Not when the older clause says it too ("the
    oldest iOS we still ship to is 15.4"): then the word is part of the statement."""
    said = {t.norm for t in older}
    return any(t.norm in _CONTINUATION and t.norm not in said for t in run)


def labelled_record(unit: Unit) -> bool:
    """A prose note that opens on a label and goes on in clauses ("Food bank sign-ups: Rosa,
    Saturday 9am"): a record whose parts are read together, not one value per clause."""
    clauses = unit.clauses
    if len(clauses) < 3 or not unit.labels or clauses[0][1] == clauses[0][0]:
        return False
    return unit.labels[0][0] == unit.tokens[clauses[0][1] - 1].end  # the first clause


def topic(unit: Unit, start: int) -> tuple[str, ...]:
    """What the labels in front of the clause at character ``start`` say it is about: the
    clauses before it that end in a colon ("backend repo:", "Maya:"), but for labels of the
    message's kind ("Update:"). Two clauses aligned under different topics are two subjects'."""
    return tuple(w for end, words in unit.labels if end <= start for w in words)


def two_topics(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Both clauses are labelled, differently: two subjects. A label on one side only
    ("Casa Alta update: it has 22 rooms") says nothing about the unlabelled one."""
    return bool(a) and bool(b) and a != b


def _label(toks: Sequence[Token]) -> bool:
    """A name in front of a colon ("eu-logs bucket", "Maya"), not a clause that leads into
    the next ("The landlord raised it: my rent is ..."): a few words, no verb or pronoun."""
    words = [t.norm for t in toks if t.norm and not t.punct]
    if not words or len(words) > MAX_LABEL_WORDS or _narrates_event(toks):
        return False
    if words[0] in _REASONS:
        return False  # "After Dr. Nair's review:" says when, it names nothing
    return not any(w in _COPULAS or w in _AUXILIARIES or w in _LABEL_PRONOUNS for w in words)


def frame_rank(found: tuple[str, str, str]) -> tuple[int, int]:
    """Which of two alignments of one pair to keep: the longer frame, then shorter values."""
    return len(found[0]), -(len(found[1]) + len(found[2]))


# Personal pronouns that open a statement whose subject an earlier sentence of its chunk names.
_REFERRING = _words(
    """it its it's it'll he his he's he'll he'd she her she's she'll she'd they their they're
    they'll they'd they've them"""
)
# Capitalised first words that name nothing.
_NOT_NAMES = _REFERRING | _LEAD_FILLERS | DISCOURSE_LABELS | _words("i we you this that there")


def _refers_back(units: Sequence[Unit], unit: Unit) -> bool:
    """The statement opens on a pronoun, or on "the" and a noun an earlier sentence of its
    chunk says ("The bridge carries ..." after "The Harwell Bridge is a truss bridge"): its
    subject is named before it."""
    if unit.line:
        return False
    words = [t for t in unit.tokens if not t.punct and (t.norm or t.text.lower() == "the")]
    words = [t for t in words if t.norm not in _LEAD_FILLERS]
    if not words:
        return False
    if words[0].norm in _REFERRING:
        return True
    if words[0].text.lower() != "the" or len(words) < 2 or not words[1].text[:1].islower():
        return False
    noun = (words[1].norm or "").removesuffix("'s")
    return any(noun in u.words for u in units if u.index < unit.index and not u.line)


# A statement that names a subject says something about it ("41 in 2007." split off "world
# No. 41 in 2007" names nothing).
MIN_REFERENT_WORDS = 4


def _referent(units: Sequence[Unit], index: int) -> Unit | None:
    """The chunk's nearest prose statement before unit ``index`` that does not refer back
    itself (``_refers_back``): the one that names what unit ``index`` refers to."""
    before = [
        u
        for u in units
        if u.index < index
        and u.content
        and not u.line
        and len(u.words) >= MIN_REFERENT_WORDS
        and not _refers_back(units, u)
    ]
    return max(before, key=lambda u: u.index) if before else None


def _subject_names(unit: Unit) -> frozenset[str]:
    """The names a statement says (``_names``), its first word too: the sentence that
    introduces a subject opens on its name ("Saint-Aubin-des-Prés is a commune ...")."""
    first = next((t for t in unit.tokens if t.norm and not t.punct), None)
    lead = (
        {first.norm}
        if first is not None
        and first.norm
        and first.text[:1].isupper()
        and first.norm not in _NOT_NAMES
        else set()
    )
    return frozenset(_names(unit, (0, 0)) | lead)


def referents_apart(
    old: Sequence[Unit], o: Unit, new: Sequence[Unit], n: Unit, values: tuple[str, str]
) -> bool:
    """Two statements, one of them referring back (opened by a pronoun, or by "the" and a noun
    said before: ``_refers_back``), whose chunks name different things before it:
    "It was completed in 1890." after "The Harwell Bridge is a truss bridge over the River
    Teme" and after "The Colford Bridge is a truss bridge over the River Lugg" share a frame,
    not a subject (two articles' parallel facts, not one value changed). The sentences that
    name the subject differ when each has a name, or a word, the other does not, the changed
    ``values`` (old, new) aside: a revision restates that sentence, or changes the value
    there too. A chunk that opens on the statement leaves it open."""
    if not (_refers_back(old, o) or _refers_back(new, n)):
        return False
    a, b = _referent(old, o.index), _referent(new, n.index)
    if a is None or b is None:
        return False
    return each_lacks(_subject_names(a), _subject_names(b), values) or each_lacks(
        a.words, b.words, values
    )


def _restates(old: Unit, new: Unit) -> bool:
    """Two prose statements that say one sentence in the same words, with a short lead-in or
    tail that only one of them has on each side ("If you're dropping off compost, the plot we
    rent is number 17" / "The plot we rent is number 17, right by the trough"): the same value
    said again. Not where the extra words scope, hedge or negate it ("In
    staging, ...", "Maybe ...")."""
    if old.line or new.line or old.context != new.context:
        return False
    if len(old.words - new.words) > MAX_RESTATED_EXTRA or len(new.words - old.words) > (
        MAX_RESTATED_EXTRA
    ):
        return False  # cheap: more words of its own than a lead-in and a tail hold
    x, y = old.runs[0], new.runs[0]
    if not x or not y:
        return False
    xs, ys = [t.same for t in x], [t.same for t in y]
    m = difflib.SequenceMatcher(a=xs, b=ys, autojunk=False).find_longest_match(
        0, len(xs), 0, len(ys)
    )
    core = x[m.a : m.a + m.size]
    if sum(1 for t in core if not t.punct) < MIN_RESTATED_WORDS:
        return False
    if (m.a and m.b) or (m.a + m.size < len(x) and m.b + m.size < len(y)):
        return False  # both add words on one side: the sentence said again is one of their parts
    for unit, run, at in ((old, x, m.a), (new, y, m.b)):
        lead, tail = run[:at], run[at + m.size :]
        if len(lead) > MAX_RESTATED_EXTRA or len(tail) > MAX_RESTATED_EXTRA:
            return False
        if lead and not (
            (lead[-1].punct or _unpunctuated_lead(lead, unit.tokens))
            and (_lead_in(lead) or _to_audience(lead))
        ):
            return False
        if tail and (tail[0].norm not in _TAIL_OPENERS or (_hedged(tail) and not _bidding(tail))):
            return False
    return True


def said_within(unit: Unit, statement: Unit) -> bool:
    """The whole of ``statement`` (its compared words, at least ``MIN_RESTATED_WORDS``) said
    again inside one clause of ``unit``, nothing in ``unit`` hedging or negating it and no word
    of that clause scoping or conditioning it ("Customer on the phone wanted a time, told her
    deliveries leave the shop at 10:30 each morning." after "Deliveries leave the shop at 10:30
    each morning."; not "In winter, deliveries leave ...")."""
    if unit.line or statement.line:
        return False
    said = _trim(statement.tokens)
    if sum(1 for t in said if not t.punct) < MIN_RESTATED_WORDS:
        return False
    core, n = [t.same for t in said], len(said)
    for lo, hi in unit.clauses:
        toks = [t for t in unit.tokens[lo:hi] if t.norm is not None]
        seq = [t.same for t in toks]
        at = next((k for k in range(len(seq) - n + 1) if seq[k : k + n] == core), None)
        if at is None:
            continue
        rest = [t for i, t in enumerate(unit.tokens) if t.norm and not lo <= i < hi]
        rest += [*toks[:at], *toks[at + n :]]
        scoped = any(t.norm in _ATTACH for t in (*toks[:at], *toks[at + n :]))
        return not scoped and not _hedged(rest)
    return False


def _unpunctuated_lead(lead: Sequence[Token], unit: Sequence[Token]) -> bool:
    """A lead-in of one or two words typed without its comma ("Still Standup is at 9:30"):
    the sentence said again restarts with its capital (``unit``: its tokens, ignored words
    included, where the word after the lead-in is)."""
    first = next((t for t in unit if t.start > lead[-1].start), None)
    return (
        len(lead) <= 2
        and first is not None
        and first.text[:1].isupper()
        and not first.text.isupper()
    )


def _recalled(words: Sequence[str]) -> bool:
    """A lead-in that says the statement is told for the record ("For future reference,",
    "For the record,") or recalled when something happens ("If the job hangs, remember"): the
    statement itself holds as said."""
    if tuple(words[:3]) in _FOR_THE_RECORD or tuple(words[:2]) in _FOR_THE_RECORD:
        return len(words) <= 3
    return words[0] in _CONDITIONS and words[-1] in ("remember", "note") and len(words) <= 8


def _to_audience(lead: Sequence[Token]) -> bool:
    """A lead-in that says who the telling is for ("For the new folks,", "Again for the
    weekend staff:") or conditions it on the listener ("If you're dropping off compost,", "If
    customers ask,"), not the fact: said again, the fact is the same."""
    words = [t.norm or "" for t in lead if not t.punct]
    while words and (words[0] in _LEAD_FILLERS or words[0] in _AGAIN):
        words = words[1:]
    if len(words) < 2:
        return False
    if words[0] in ("for", "to"):
        # "For the new folks,", "For whoever gets there first:", "To the Saturday staff:"
        listeners = words[1] in _LISTENERS or words[1] in ("whoever", "everyone", "everybody")
        reader = word_stem(words[-1]) in _AUDIENCES or words[-1] in _DESTINATIONS
        return (reader or listeners) and not _hedged(lead)
    listener = words[1] in _LISTENERS or words[1].startswith("you'")
    # the condition's own "if" hedges nothing here; anything after it may
    return (
        words[0] in _CONDITIONS
        and (listener or word_stem(words[1]) in _AUDIENCES)
        and not _hedged([t for t in lead if t.norm not in _CONDITIONS])
    )


def _bidding(tail: Sequence[Token]) -> bool:
    """A tail that tells the listener what (not) to do (", don't be late"): no hedge of the
    statement before it."""
    words = [t.norm or "" for t in tail if not t.punct]
    return len(words) >= 2 and words[0] in ("don't", "please") and not _hedged(tail[2:])


def _in_named_file(units: Sequence[Unit], others: Sequence[Unit]) -> Sequence[Unit]:
    """``units`` as lines of the one file ``others`` are an excerpt of, where ``units`` name no
    file of their own but a label line of theirs names that one ("Changed
    /etc/logrotate.d/shopfront for the audit requirement:" over the file's lines): the lines
    after the label are that file's for this comparison only (a label naming a file is no
    excerpt header of its own: its keys stay unqualified against everything else)."""
    paths = {u.path for u in others if u.path}
    if len(paths) != 1 or any(u.path for u in units):
        return units
    path = next(iter(paths))
    label = next(
        (u.index for u in units if u.line and u.text.rstrip().endswith(":") and path in u.text),
        None,
    )
    if label is None:
        return units
    return [
        replace(u, context=(path, *u.context), path=path) if u.line and u.index > label else u
        for u in units
    ]


# The slot right after a command's "set" ("redis-cli CONFIG SET _", "sysctl -w _", "--set _")
_SET_SLOT = re.compile(r"(?:^|\s)(?:set|--set|-w)\s+_(?:\s|$)", re.IGNORECASE)


def _sets_another_key(frame: str, old_value: str, new_value: str) -> bool:
    """A command that sets a key names the key first: "CONFIG SET maxmemory 6gb" and "CONFIG
    SET appendfsync always" set two keys, not one key's two values."""
    if not _SET_SLOT.search(frame):
        return False
    a, b = old_value.split(), new_value.split()
    return len(a) > 1 and len(b) > 1 and a[0].lower() != b[0].lower()


# A title names its text: a few words, no verb, no key operator ("Japan trip, days 5 to 9.")
MAX_TITLE_WORDS = 8
_TITLE_VERBS = _SPAN_VERBS | _PAST_EVENT | _KEY_OPERATORS


def _title(unit: Unit, units: Sequence[Unit]) -> bool:
    """``unit`` opens its chunk as a title: the first statement, verbless and short, with more
    statements after it."""
    content = [u for u in units if u.content]
    return (
        len(content) > 1
        and content[0].index == unit.index
        and not unit.line
        and len(unit.words) <= MAX_TITLE_WORDS
        and not unit.words & _TITLE_VERBS
    )


def series_titles(old: Sequence[Unit], new: Sequence[Unit], frame: FrameMatch) -> bool:
    """Two chunks that restate nothing of each other, each under a title, the titles one frame
    apart ("Japan trip, days 5 to 9." / "... days 10 to 13."; "Week 3 menu" / "Week 4 menu"):
    the titles name two texts of a series, not one fact's old and new value."""
    return _title(old[frame.old_unit], old) and _title(new[frame.new_unit], new)


def _another_key_of_file(unit: Unit, frame: str, old_value: str, new_value: str) -> bool:
    """Two lines of a file, wherever they sit, that assign two keys: the slot sits before the
    line's key operator (the key itself: ``pub const SHUT_RDWR: i32 = 2;`` and ``pub const
    AF_VSOCK: i32 = 2;`` are two constants), or the value is a table or list on one side and
    a scalar on the other (``robovm = { module = ... }`` under ``[libraries]``, ``robovm =
    "2.3.14"`` under ``[versions]``). A key renamed or a value reshaped in place is
    ``excerpt_replacements``'s (the lines around place it). In code, so is a slot that no key
    operator outside brackets precedes (``_slot_assigned``); and a line that is one quoted
    string is an array's element, its list's value, unless it pins a requirement."""
    if not (unit.line and unit.path is not None):
        return False
    if is_code_path(unit.path) and not _slot_assigned(unit, frame, old_value):
        return not _declared_outside(unit, old_value)
    if _QUOTED_ELEMENT.match(unit.text):
        # a requirement's pin names its package (``"httpx>=0.22.0",``): that is its key
        return quoted_requirement(unit.text.strip()) is None
    words = frame.split()
    if SLOT in words:
        at = words.index(SLOT)
        if any(w in _KEY_OPERATORS for w in words[at + 1 :]) and not any(
            w in _KEY_OPERATORS for w in words[:at]
        ):
            return True
    return old_value.lstrip().startswith(("{", "[")) != new_value.lstrip().startswith(("{", "["))


# a line that is one quoted string (an array's element: ``"Programming Language :: Python ::
# 3.14",``): what it says is a value of its list, no key's, unless it pins a requirement
_QUOTED_ELEMENT = re.compile(r"""^\s*(["'])[^"']*\1\s*,?\s*$""")


def _slot_assigned(unit: Unit, frame: str, value: str) -> bool:
    """Whether the slot follows a key operator outside brackets in its line (``TIMEOUT =
    _``, ``port: _``; the line read up to the value, else the frame's words up to the slot).
    Anywhere else in a line of code the slot names which thing the line declares, imports,
    calls or tags (``def _(arbiter, worker):``, ``impl _ for Shell``, ``use _;``,
    ``#[cfg(feature = _)]``, ``app.get(_, handler)``, ``}, { prefix: _ })``): a file has
    many such lines side by side, each true, and two of them are two things, not one thing's
    two values."""
    at = unit.text.find(value)
    if at >= 0:
        words = [t.norm or "" for t in unit.tokens if t.end <= at]
    else:
        masked = frame.split(" > ", len(unit.context))[-1].split()
        if SLOT not in masked:
            return True
        words = masked[: masked.index(SLOT)]
    depth = 0
    for w in words:
        if w in _KEY_OPERATORS and depth == 0:
            return True
        depth = max(0, depth + sum(w.count(c) for c in _OPEN) - sum(w.count(c) for c in _CLOSE))
    return False


# the name a line of code declares or imports (``class ClientDisconnected(...)``, ``type
# Termios ...``, ``from uvicorn.main import Server``)
_DECLARED = re.compile(
    r"\b(?:class|struct|type|interface|trait|enum|def|fn|func|function|const|let|var|import)"
    r"\s+(?P<name>[A-Za-z_$][\w$]*)"
)


def _declared_outside(unit: Unit, value: str) -> bool:
    """Whether the line declares or imports a name outside the changed span: the name is the
    line's identity (a file declares a class, a type or an imported name once), so what
    changes beside it is its value (a base class, a type's definition, a module path)."""
    return any(
        not re.search(rf"(?<![\w$.]){re.escape(m['name'])}(?![\w$])", value)
        for m in _DECLARED.finditer(unit.text)
    )


def align_units(old: Sequence[Unit], new: Sequence[Unit]) -> PairAlignment:
    """Every restated unit and every one-value frame between an older and a newer chunk."""
    old, new = _in_named_file(old, new), _in_named_file(new, old)
    out = PairAlignment()
    by_key: dict[tuple[str, ...], list[int]] = {}
    for u in new:
        if u.content:
            by_key.setdefault(u.key, []).append(u.index)
    for o in old:
        if not o.content:
            continue
        same = by_key.get(o.key)
        if same:
            out.restated.append((o.index, same[0]))
            continue
        said = next((n.index for n in new if n.content and _restates(o, n)), None)
        if said is not None:
            out.restated.append((o.index, said))
            continue
        if not o.keyed:
            continue  # only its place identifies it: ``excerpt_replacements``
        for n in new:
            if not n.content or not n.keyed or n.key == o.key or not comparable(o, n):
                continue
            found = align_pair(o, n)
            if found is not None and (_sets_another_key(*found) or _another_key_of_file(o, *found)):
                continue
            if found is not None and languages(*found):
                continue
            if found is not None and not referents_apart(old, o, new, n, found[1:]):
                out.frames.append(FrameMatch(o.index, n.index, *found))
    file = SameFile.of(old, new)
    if file is not None:
        out.frames.extend(excerpt_replacements(file, out))
        renamed = renamed_block(file)
        out.frames.extend(renamed)
        # a line under a renamed block is replaced, not restated (its words stay the same)
        moved = {f.old_unit for f in renamed}
        out.restated = [(o, n) for o, n in out.restated if o not in moved]
    out.frames.extend(_quoted_crontab_changes(old, new))
    return out


def _quoted_crontab_changes(old: Sequence[Unit], new: Sequence[Unit]) -> list[FrameMatch]:
    """A crontab entry quoted in a newer sentence ("Moved the backup later: `15 4 * * *
    /opt/backup.sh`") against the older crontab's line of the same command: its schedule
    changed (the command is the key, as between two crontab lines)."""
    out = []
    for n in new:
        if n.line or not n.content or _hedged(n.tokens):
            continue
        entries = [m for q in QUOTED_CODE.findall(n.text) if (m := CRON_ENTRY.match(q.strip()))]
        if len(entries) != 1:
            continue
        for o in old:
            was = CRON_ENTRY.match(o.text) if o.line and o.content else None
            if was is None or _schedule(was) == _schedule(entries[0]):
                continue
            found = _schedule_change(was, entries[0], o.context)
            if found is not None:
                out.append(FrameMatch(o.index, n.index, *found))
    return out


# --- file excerpts: a line replaced between the same neighbours ---------------------------------

# An anchor line must say something: "}", "end" or "hooks:" anchor nothing.
MIN_ANCHOR_TOKENS = 2
MIN_ANCHOR_CHARS = 8
# Identical lines around the replaced one, both sides together (git diff's default context is
# three lines): one line either side also fits two twin functions of one file.
MIN_CONTEXT_LINES = 3
# Around a whole-line replacement with no single anchor line: one line more, half each side.
MIN_PLAIN_CONTEXT_LINES = 4
# An edited line (one span changed) at the same edge of both excerpts: this many identical
# lines on its other side.
MIN_EDGE_CONTEXT_LINES = 2


# The "path" of lines no header names: a block pasted on its own (an ssh config entry, a
# ``.env``) is compared with another such block as one file would be, by its lines' places.
PATHLESS = ""


def placed_restatement(
    old: Sequence[Unit], o: int, new: Sequence[Unit], n: int, frames: PairAlignment
) -> bool:
    """Whether the identical unit ``new[n]`` is ``old[o]``'s very line, so that a value
    closed on one is closed on the other. Any sentence or keyed line is; a line whose own key
    names nothing (a line of a block the excerpt does not show) is unless one excerpt lies
    within the other with fewer than ``MIN_CONTEXT_LINES`` lines around it that are identical
    or replaced in place (``frames``: the pair's alignment), or right under a top-level key or
    section header both show. Two jobs of one workflow share ``profile: minimal`` /
    ``toolchain: stable`` / ``override: true``: an excerpt of just those lines fits both, so a
    change of one job's toolchain says nothing of the other's; two copies of one window, or
    one window edited around the line, are one place. (Such a line still counts as restated
    for the older chunk's verdict: the newer one says it too.)"""
    unit = old[o]
    if not unit.line or unit.keyed:
        return True
    if o > 0 and n > 0 and old[o - 1].key == new[n - 1].key and _root_opener(old[o - 1]):
        return True  # the first line of a block its file has once

    replaced = {(f.old_unit, f.new_unit) for f in frames.frames}
    around = same = 0
    ends = []  # per side, how the identical run stops: "both", "one" excerpt ends, or "differ"
    for step in (-1, 1):
        i, j = o + step, n + step
        while not (excerpt_edge(old, i) or excerpt_edge(new, j)) and (
            old[i].line and new[j].line and (old[i].key == new[j].key or (i, j) in replaced)
        ):
            same += old[i].key == new[j].key
            around, i, j = around + 1, i + step, j + step
        at_edge = excerpt_edge(old, i), excerpt_edge(new, j)
        ends.append("both" if all(at_edge) else "one" if any(at_edge) else "differ")
    if around >= MIN_CONTEXT_LINES:
        return True
    # one excerpt lies within the other: nothing around the line tells its place from a
    # twin's (where a neighbour differs, the two are one window edited around the line);
    # in a config file nor does a window none of whose lines around is the same, where the
    # line's value is a short word every block may have (rubocop's cops each have an
    # ``Enabled: 'pending'`` under a ``StyleGuide:`` line of their own; a pre-commit
    # repository's URL is its own)
    inside = "differ" not in ends and "one" in ends
    return not inside and (same > 0 or is_code_path(unit.path) or _names_its_own(unit))


# letters and digits a config line's value holds to name one thing of its file (a URL, a
# path, a long identifier), not a setting many blocks share (``'pending'``, ``stable``)
MIN_OWN_VALUE_CHARS = 16


def _names_its_own(unit: Unit) -> bool:
    """Whether the line's value names one thing of its file: ``MIN_OWN_VALUE_CHARS`` letters
    and digits, or a requirement pin however short (``tf: tensorflow!=2.5.0`` names its
    package)."""
    operator = next((t for t in unit.tokens if t.norm in _KEY_OPERATORS), None)
    after = [t for t in unit.tokens if operator is None or t.start >= operator.end]
    value = [t.norm for t in after if t.norm and t.norm not in _KEY_OPERATORS]
    if alnum_count(value) >= MIN_OWN_VALUE_CHARS:
        return True
    raw = unit.text[operator.end :] if operator is not None else unit.text
    return requirement_spec(raw.strip()) is not None


def _excerpt_path(units: Sequence[Unit]) -> str | None:
    paths = {u.path for u in units if u.content}
    if len(paths) != 1:
        return None
    path = next(iter(paths))
    if path is None and sum(u.content and u.line for u in units) >= MIN_CONTEXT_LINES:
        return PATHLESS
    return path


def alnum_count(words: Iterable[str]) -> int:
    """Letters and digits in the words (what a line holds besides punctuation)."""
    return sum(ch.isalnum() for w in words for ch in w)


def names_something(unit: Unit) -> bool:
    """Whether the unit's words hold ``MIN_ANCHOR_CHARS`` letters or digits (``node_exporter:``
    does; ``hooks:`` and ``}`` do not)."""
    return alnum_count(t.norm for t in unit.tokens if t.norm and not t.punct) >= MIN_ANCHOR_CHARS


def _anchor(unit: Unit) -> bool:
    words = [t.norm for t in unit.tokens if t.norm and not t.punct]
    return unit.content and len(words) >= MIN_ANCHOR_TOKENS and names_something(unit)


def _section_header(unit: Unit) -> bool:
    """An INI or TOML section header line (``table_section``): it anchors the lines under it."""
    return unit.line and not unit.content and table_section(unit.text) is not None


def _path_header(unit: Unit) -> bool:
    """The ``path:`` line that opens a file excerpt: it names the file, no place in it."""
    return unit.text.rstrip(":") == unit.path


def excerpt_edge(units: Sequence[Unit], i: int) -> bool:
    """Whether position ``i`` is past an excerpt's lines: outside it, or its path header."""
    return not 0 <= i < len(units) or _path_header(units[i])


def _root_opener(unit: Unit) -> bool:
    """A top-level YAML key that opens a block (``test_script:``) or a section header: a
    file has each once."""
    if not unit.line or unit.content or unit.indent != 0 or _path_header(unit):
        return False
    return _section_header(unit) or (is_yaml_path(unit.path) and _key_opener(unit))


@dataclass(frozen=True)
class SameFile:
    """Two excerpts of one file: its path and each excerpt's lines in order, closers too (they
    fix the place), the header left out, a blank line (None) where the file has blank lines."""

    path: str
    old: list[Unit | None]
    new: list[Unit | None]

    @classmethod
    def of(cls, old: Sequence[Unit], new: Sequence[Unit]) -> SameFile | None:
        path = _excerpt_path(old)
        if path is None or path != _excerpt_path(new):
            return None

        def lines(units: Sequence[Unit]) -> list[Unit | None]:
            return _file_lines(
                [
                    u
                    for u in units
                    if u.line and (u.path or PATHLESS) == path and u.text.rstrip(":") != path
                ]
            )

        return cls(path, lines(old), lines(new))


def excerpt_replacements(file: SameFile, found: PairAlignment) -> list[FrameMatch]:
    """Lines of one file that a newer excerpt replaces in place. Two excerpts of the same file
    are compared line by line (``difflib`` over the lines' compared forms); a block of lines
    between identical ones is a replacement

    - of its one line by one line whatever the change inside it (a renamed key or call, an
      edited expression), when ``MIN_CONTEXT_LINES`` identical lines stand around it, before
      and after, one of them a real statement (an anchor), or ``MIN_PLAIN_CONTEXT_LINES``,
      half on each side, whose words together make one (list elements, YAML keys);
    - of a YAML list's element by one or more elements of the list, placed by the list's
      own lines: its key and its elements around it (``_list_replacement``);
    - of each of its lines by the one new line of the block that differs from it in one
      contiguous token span (``_edited``: the rest of the line, an anchor itself, is the
      same), when that pairing is one to one in the block and in order, and the block stands
      between ``MIN_CONTEXT_LINES`` identical lines, or at the same edge of both excerpts with
      ``MIN_EDGE_CONTEXT_LINES`` identical lines on its other side. Other lines of the window
      changed in between (``writeln!(...)`` became ``eprintln!(...)`` above ``exit(1)`` ->
      ``exit(2)``), the excerpt ends at the changed line, or only closers stand around it.

    The key is the place: the file, the block context and the lines around (for an edited
    line also the line with its span masked, so two lines of one block never share a key);
    the values are the two lines. Pairs a value frame already keys are left to it.

    Blank lines are lines of the file (git's diff context counts them too): between two
    statements they count towards ``MIN_CONTEXT_LINES``; at an excerpt's edge only statements
    count. One identical statement either side and nothing else is not enough for either
    rule: two twin functions of one file (a sync and an async transport) have the same lines
    around their twin lines."""
    a, b = file.old, file.new
    framed_old = {f.old_unit for f in found.frames}
    framed_new = {f.new_unit for f in found.frames}
    out: list[FrameMatch] = []
    matcher = difflib.SequenceMatcher(
        a=[_BLANK if u is None else u.key for u in a],
        b=[_BLANK if u is None else u.key for u in b],
        autojunk=False,
    )
    ops = matcher.get_opcodes()
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag != "replace":
            continue
        # the identical lines around the block (a replace sits between equal runs or an edge)
        before = a[ops[k - 1][1] : ops[k - 1][2]] if k > 0 else []
        after = a[ops[k + 1][1] : ops[k + 1][2]] if k < len(ops) - 1 else []
        context = Context(
            [u for u in before if u is not None],
            [u for u in after if u is not None],
            len(before) + len(after),
            min(len(before), len(after)),
        )
        old_block, new_block = a[i1:i2], b[j1:j2]
        whole = _whole_line_replacement(old_block, new_block, context) or _list_replacement(
            file, (i1, i2, j1, j2), context
        )
        body = _definition_opening(old_block, new_block, context, file.path) or _section_opening(
            a[:i1], old_block, new_block, context, b[j2:]
        )
        if whole is not None:
            pairs = [whole]
        else:
            # at one edge only: between the block and that edge, lines identical or edited
            beyond = ops[:k] if not context.before else ops[k + 1 :]
            edge = bool(context.before and context.after) or _edited_through(a, b, beyond)
            pairs = _edited_pairs(old_block, new_block, context, body, edge=edge)
        for o, n, frame in pairs:
            if o.index in framed_old or n.index in framed_new:
                continue
            out.append(FrameMatch(o.index, n.index, _capped(frame), o.text, n.text))
    return out


_BLANK = ("\x00blank",)


def renamed_block(file: SameFile) -> list[FrameMatch]:
    """A section or block key renamed in place (``[wheel]`` -> ``[bdist_wheel]``, a typo'd
    ``lnstall:`` -> ``install:``): two excerpts of one file that read the same word for word
    but for that one opener line, with ``MIN_CONTEXT_LINES`` identical lines around it and a
    statement among them. The opener is replaced at its place (a frame), and so is each line
    under it, keyed by the block's name: its words stay, its block is another."""
    a, b = file.old, file.new

    def words(us: Sequence[Unit | None]) -> list[tuple[str, ...]]:
        return [_BLANK if u is None else tuple(t.same for t in u.tokens if t.norm) for u in us]

    ops = difflib.SequenceMatcher(a=words(a), b=words(b), autojunk=False).get_opcodes()
    changed = [op for op in ops if op[0] != "equal"]
    if len(changed) != 1 or changed[0][0] != "replace":
        return []
    _, i1, i2, j1, j2 = changed[0]
    o, n = a[i1], b[j1]
    if i2 - i1 != 1 or j2 - j1 != 1 or o is None or n is None:
        return []
    if not (_opener(o) and _opener(n)) or o.context[:-1] != n.context[:-1]:
        return []
    # blank lines are lines of the file here too
    around = [u for u in (*a[:i1], *a[i2:]) if u is not None]
    if len(a) - 1 < MIN_CONTEXT_LINES or not any(_anchor(u) for u in around):
        return []
    context = Context(
        [u for u in a[:i1] if u is not None], [u for u in a[i2:] if u is not None], len(a) - 1, 0
    )
    place = _place(o, context, "block")
    frames = [FrameMatch(o.index, n.index, _capped(place), o.text, n.text)]
    # each line under it: the same words, now under the new name (the block's name is part
    # of the value, so the ledger closes the old line's)
    frames += [
        FrameMatch(
            x.index,
            y.index,
            _capped(f"{place} > {x.text}".casefold()),
            f"{o.text} {x.text}",
            f"{n.text} {y.text}",
        )
        for tag, p1, p2, q1, q2 in ops
        if tag == "equal"
        for x, y in zip(a[p1:p2], b[q1:q2], strict=True)
        if x is not None and y is not None and x.content and (x.key != y.key or _under(x, o))
    ]
    return frames


def _under(line: Unit, opener: Unit) -> bool:
    """Whether ``line`` sits in the block ``opener`` opens (its context names the opener, as
    keys do, case folded: ``Include:`` renamed from ``include:`` keeps its lines' keys)."""
    at = len(opener.context)
    name = opener.text.strip().rstrip(":{[=").strip().casefold()
    return len(line.context) > at and line.context[at].casefold() == name


def _opener(unit: Unit) -> bool:
    """A line that names a section or opens a block and states nothing itself (a list's
    key too: ``format_nongpl = [``)."""
    text = unit.text.strip()
    section = text.startswith("[") and text.endswith("]")
    return not unit.content and (section or text.endswith((":", "{", "[")))


@dataclass(frozen=True)
class Context:
    """The identical lines around a replaced block: the statements right before and right
    after it (empty at an excerpt's edge) and how many lines, blank ones included, in all and
    on its shorter side."""

    before: list[Unit]
    after: list[Unit]
    lines: int
    side: int


def _file_lines(units: Sequence[Unit]) -> list[Unit | None]:
    """The excerpt's lines in order, a blank line (None) where its file has blank lines."""
    out: list[Unit | None] = []
    for u in units:
        if u.gap and out:
            out.append(None)
        out.append(u)
    return out


def _capped(frame: str) -> str:
    if len(frame) > MAX_FRAME_CHARS:
        digest = hashlib.sha256(frame.encode("utf-8")).hexdigest()[:12]
        frame = f"{frame[:MAX_FRAME_CHARS]} #{digest}"
    return frame


def _place(unit: Unit, context: Context, what: str = "line") -> str:
    prev = context.before[-1].text if context.before else "the excerpt's start"
    nxt = context.after[0].text if context.after else "the excerpt's end"
    return " > ".join((*unit.context, f"{what} after {prev} before {nxt}")).casefold()


def _whole_line_replacement(
    old: Sequence[Unit | None], new: Sequence[Unit | None], context: Context
) -> tuple[Unit, Unit, str] | None:
    """One line replaced by one line between ``MIN_CONTEXT_LINES`` identical lines, a
    statement or a section header among them; or between ``MIN_PLAIN_CONTEXT_LINES``, at
    least half on each side, that say something together (``_say_something``: list elements
    ``"docs/",`` / ``"tests/",`` / ``"uv.lock"``, the keys ``on:`` / ``schedule:`` /
    ``jobs:`` around a cron line), when none says it alone."""
    if len(old) != 1 or len(new) != 1 or not context.before or not context.after:
        return None
    o, n = old[0], new[0]
    if o is None or n is None or not (o.content and n.content) or o.context != n.context:
        return None
    around = [*context.before, *context.after]
    if context.lines < MIN_CONTEXT_LINES:
        return None
    if not any(_anchor(u) or _section_header(u) for u in around):
        plain = context.lines >= MIN_PLAIN_CONTEXT_LINES and 2 * context.side >= context.lines
        if not (plain and _say_something(around)):
            return None
    return o, n, _place(o, context)


def _list_replacement(
    file: SameFile, block: tuple[int, int, int, int], context: Context
) -> tuple[Unit, Unit, str] | None:
    """An element of a YAML list replaced in place, paired with the new element of its block
    most like it (``- jruby`` -> ``- '3.3'`` / ``- jruby-head``: ``jruby-head``); the old
    element is nowhere in the newer excerpt. Elements of one list are its values in order, so
    the list's own lines place it:

    - the one element of a list that both excerpts show whole (``_sole_item``), whatever
      follows the list in each (``branches:`` / ``- "master"`` / blank / ``jobs:`` ->
      ``branches:`` / ``- "main"`` / ``release:``);
    - one element replaced by one or more elements between ``MIN_CONTEXT_LINES`` identical
      lines (``MIN_EDGE_CONTEXT_LINES`` right after a top-level key, which names one list in
      its file: ``go:`` / ``- 1.9.x`` / ``- tip``), next to it on either side an element of
      the list or, before it, the list's key, and after it the list's end, an element on one
      side at least (``matrix:`` / ``node-version:`` / ``- 20`` / ``- 18`` -> ``- 22`` /
      ``- 18``; ``rvm:`` / ``- 2.2.3`` / ``- ruby-head`` -> ``- 2.2.4`` / ``- 2.3.0`` /
      ``- ruby-head``); an element's own lines under it are passed over (``hooks:`` /
      ``- id: ruff`` / ``args: ["--fix"]`` / ``- id: ruff-format``)."""
    i1, i2, j1, j2 = block
    o, n = file.old[i1], file.new[j1]
    if o is None or n is None or not context.before or o.context != n.context:
        return None
    if not (is_yaml_path(o.path) and _bullet(o) and _bullet(n)):
        return None
    if any(u is not None and u.text == o.text for u in file.new):
        return None  # still in the list (moved), or in another one

    def element(u: Unit | None) -> bool:
        return u is not None and _bullet(u) and u.indent == o.indent and u.context == o.context

    def following(lines: Sequence[Unit | None], at: int) -> Unit | None:
        return next((u for u in lines[at + 1 :] if u is not None), None)

    if _sole_item(o, n, context.before[-1], following(file.old, i1), following(file.new, j1)):
        return o, n, _place(o, context)
    # before it, past the lines of the element before (its own keys), the list's
    prev = next((u for u in reversed(context.before) if u.indent <= o.indent), None)
    if prev is None:
        return None
    added = [u for u in file.new[j1:j2] if u is not None]
    if i2 - i1 != 1 or not all(element(u) for u in added):
        return None
    opened = _key_opener(prev)  # (its indent is no deeper than the element's)
    # a top-level key names one list in its file: its key and an element place the line
    rooted = opened and prev.indent == 0
    needed = MIN_EDGE_CONTEXT_LINES if rooted else MIN_CONTEXT_LINES
    # past the element's own lines (``- id: ruff`` / ``args: ["--fix"]``), the list's next
    nxt = next((u for u in context.after if u.indent <= o.indent), None)
    if context.lines < needed or nxt is None:
        return None
    ended = nxt.indent < o.indent or (nxt.indent == o.indent and not _bullet(nxt))
    # the list on both sides (an element, its key, its end), an element on one at least
    placed = (element(prev) or opened) and (element(nxt) or ended)
    if not placed or not (element(prev) or element(nxt)):
        return None
    like = max(added, key=lambda u: difflib.SequenceMatcher(a=o.text, b=u.text).ratio())
    return o, like, _place(o, context)


def _sole_item(o: Unit, n: Unit, opener: Unit, o_next: Unit | None, n_next: Unit | None) -> bool:
    """The line is the one element of a YAML list that both excerpts show whole: its key's
    opener right before it and, in each excerpt, the next key, no deeper than the opener,
    right after it (``go:`` / ``- 1.6.3`` / ``branches:``). The list's one value was
    replaced, whatever the words around say."""
    if not _key_opener(opener):
        return False

    def ends(item: Unit, nxt: Unit | None) -> bool:
        # a sequence may sit at its key's own indent (``branches:`` / ``- main``): then the
        # next key at that indent ends it, and a next item there is another element
        if nxt is None or nxt.indent > opener.indent:
            return False
        return opener.indent < item.indent or (opener.indent == item.indent and not _bullet(nxt))

    return ends(o, o_next) and ends(n, n_next)


def _bullet(unit: Unit) -> bool:
    return unit.text.lstrip().startswith("- ")


def _key_opener(unit: Unit) -> bool:
    """A YAML key whose value is the block under it (``go:``, ``branches:``)."""
    return unit.text.rstrip().endswith(":")


def _say_something(units: Sequence[Unit]) -> bool:
    """Whether lines together hold what one anchor line holds: ``MIN_ANCHOR_TOKENS``
    different words and ``MIN_ANCHOR_CHARS`` letters or digits in them (closers hold none,
    and a word repeated, ``end`` / ``end``, counts once)."""
    words = {t.norm for u in units for t in u.tokens if t.norm and not t.punct}
    return len(words) >= MIN_ANCHOR_TOKENS and alnum_count(words) >= MIN_ANCHOR_CHARS


def _edited(old: Unit, new: Unit) -> str | None:
    """The old line with its one differing span masked, when the two lines differ in one
    contiguous token span (both sides non-empty, at most ``MAX_SPAN`` tokens) and the rest
    of the line says something (``MIN_ANCHOR_CHARS`` letters or digits in its unchanged
    tokens or, by character, at the start and end of both lines: ``process::exit(_);``,
    ``})('https://_/data/sponsors.md');``, not ``}) _ ;``) and is longer than the span;
    else None."""
    if not (old.content and new.content) or old.context != new.context:
        return None
    x = [t for t in old.tokens if t.norm is not None]
    y = [t for t in new.tokens if t.norm is not None]
    p = 0
    while p < len(x) and p < len(y) and x[p].same == y[p].same:
        p += 1
    s = 0
    while s < len(x) - p and s < len(y) - p and x[-1 - s].same == y[-1 - s].same:
        s += 1
    sx, sy = x[p : len(x) - s], y[p : len(y) - s]
    if not sx or not sy or max(len(sx), len(sy)) > MAX_SPAN:
        return None
    shared = [*x[:p], *x[len(x) - s :]]
    chars = alnum_count(t.norm for t in shared if t.norm and not t.punct)
    if max(chars, _kept_chars(old.text, new.text)) < MIN_ANCHOR_CHARS:
        return None  # what stays is punctuation or a short word: not the same statement
    if len(shared) <= max(len(sx), len(sy)):
        return None
    return " ".join(
        [*(t.norm or "" for t in x[:p]), SLOT, *(t.norm or "" for t in x[len(x) - s :])]
    )


def _kept_chars(old: str, new: str) -> int:
    """Letters and digits the two lines share at their start and end, by character: a token
    changed in part (a URL's host, ``reorder_python_imports`` -> ``reorder-python-imports``)
    keeps the rest of its characters in what stays of the line."""
    p = 0
    while p < len(old) and p < len(new) and old[p] == new[p]:
        p += 1
    s = 0
    while s < len(old) - p and s < len(new) - p and old[-1 - s] == new[-1 - s]:
        s += 1
    kept = old[:p] + old[len(old) - s :]
    return sum(ch.isalnum() for ch in kept)


def _edited_through(
    a: Sequence[Unit | None],
    b: Sequence[Unit | None],
    ops: Sequence[tuple[str, int, int, int, int]],
) -> bool:
    """Whether the two excerpts' lines in these difflib opcodes are identical or, line for
    line, each edited in one span (``_edited``): the same lines, changed in place."""
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        if tag != "replace" or i2 - i1 != j2 - j1:
            return False
        for x, y in zip(a[i1:i2], b[j1:j2], strict=True):
            if x is None or y is None or _edited(x, y) is None:
                return False
    return True


def _edited_pairs(
    old: Sequence[Unit | None],
    new: Sequence[Unit | None],
    context: Context,
    body: bool = False,
    *,
    edge: bool = True,
) -> list[tuple[Unit, Unit, str]]:
    """The block's lines each edited in one span into one new line of the block (see
    ``excerpt_replacements``); ``body``: the block opens a top-level function's body
    (``_definition_opening``), which its definition line places whatever the line count.
    ``edge``: without statements on one side, the lines between the block and that edge of
    both excerpts are identical or each edited in place (``_edited_through``): a line that
    differs otherwise beyond it (``}`` above one twin, ``var c string`` above the other, in
    two branches of one function) is no edge but a sign of another place."""
    placed = body or _placed_by_context(context, edge)
    if not (placed or context.before or context.after):
        return []  # no identical statement around it: not even a respelled word is placed
    edits = [
        (o, n, m)
        for o in old
        if o is not None and not _heading(o)
        for n in new
        if n is not None and (m := _edited(o, n)) is not None
    ]
    olds = Counter(o.index for o, _, _ in edits)
    news = Counter(n.index for _, n, _ in edits)
    pairs = [e for e in edits if olds[e[0].index] == 1 and news[e[1].index] == 1]
    if len(pairs) != len(edits):
        return []  # a line edited into two lines (or two into one): twins, not one place
    order = [n.index for _, n, _ in sorted(pairs, key=lambda e: e[0].index)]
    if order != sorted(order):
        return []  # crossed pairs: lines moved
    # a word respelled (a typo fixed, "_" for "-") is one name's line edited: twin lines name
    # two things, so one identical statement beside it is place enough
    if not placed and not (pairs and all(_respelled(o.text, n.text) for o, n, _ in pairs)):
        return []
    return [(o, n, _place(o, context, f"edited line {m}")) for o, n, m in pairs]


def _heading(unit: Unit) -> bool:
    """An excerpt's first line in words, ending on a colon ("ingest service requirements.txt
    right now:"): the writer's label over the lines, no line of the file (its edit changes
    what the excerpt is called, no value)."""
    text = unit.text.strip()
    return unit.index == 0 and text.endswith(":") and len(text.split()) >= 3


def _placed_by_context(context: Context, edge: bool) -> bool:
    """``MIN_CONTEXT_LINES`` identical lines around, or at one edge ``MIN_EDGE_CONTEXT_LINES``
    statements on the other side with the lines beyond the block placed (``edge``)."""
    if context.before and context.after:
        return context.lines >= MIN_CONTEXT_LINES
    # an edge (or only blank lines) on one side: statements on the other
    return len(context.before or context.after) >= MIN_EDGE_CONTEXT_LINES and edge


# The shortest word whose one-letter respelling is read as a typo fixed, not another word.
MIN_RESPELLED_CHARS = 6
_SEPARATORS = re.compile(r"[-_.]")


def _respelled(old: str, new: str) -> bool:
    """Whether the two lines differ in one word spelled two ways: the same letters but for
    separators ("reorder_python_imports" / "reorder-python-imports"), or one letter added,
    dropped or replaced inside a word of ``MIN_RESPELLED_CHARS`` letters, no digit in it
    ("Spwawning" / "Spawning", "dependencues" / "dependencies"). An edit at a word's first or
    last letter makes another word ("getItem" / "setItem", "handler" / "handlers")."""
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    s = 0
    while s < min(len(old), len(new)) - p and old[-1 - s] == new[-1 - s]:
        s += 1
    # the word around the change, on both sides
    lo = p
    while lo > 0 and (old[lo - 1].isalnum() or old[lo - 1] in "-_."):
        lo -= 1
    hi_old, hi_new = len(old) - s, len(new) - s
    while hi_old < len(old) and (old[hi_old].isalnum() or old[hi_old] in "-_."):
        hi_old += 1
    hi_new = len(new) - (len(old) - hi_old)
    a, b = old[lo:hi_old].strip("-_."), new[lo:hi_new].strip("-_.")
    if a == b or any(ch.isdigit() for ch in a + b):
        return False
    if _SEPARATORS.sub("", a).casefold() == _SEPARATORS.sub("", b).casefold():
        return True
    if min(len(a), len(b)) < MIN_RESPELLED_CHARS or not (a.isalpha() and b.isalpha()):
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if i == 0 or i == min(len(a), len(b)) or a[-1] != b[-1]:
        return False  # the first or last letter: another word
    return a[i + 1 :] == b[i + 1 :] or a[i + 1 :] == b[i:] or a[i:] == b[i + 1 :]


# A top-level function definition that opens a brace block: Go ``func`` (with its receiver),
# Rust ``fn``, JS/TS ``function``, Kotlin ``fun``, Swift ``func``. At the top level of a file
# a function's name is declared once (a second declaration is a compile error or replaces the
# first), so its definition line names one place; a method inside a class or ``impl`` does
# not (``fn new() -> Self {`` and ``fn fmt(...)`` recur in every ``impl`` of one file).
_DEFINITION = re.compile(
    r"^(?:(?:pub(?:\([\w:\s]*\))?|export|default|async|unsafe|const|extern(?:\s+\"\w+\")?"
    r"|inline|private|internal|public|static|override|suspend)\s+)*"
    r"(?:func\s*(?:\([^()]*\)\s*)?\w+|fn\s+\w+|function\*?\s*\w+|fun\s+[\w.<>]+)\s*[(<\[].*\{$"
)


def _definition_opening(
    old: Sequence[Unit | None], new: Sequence[Unit | None], context: Context, path: str
) -> bool:
    """Whether the replaced block opens one top-level function's body in both excerpts: the
    identical line right before it is the function's definition line (``_DEFINITION``, at
    indent 0), an identical line follows it, and its lines sit inside (indented). Elsewhere the
    excerpts may differ (a doc comment above the definition, the excerpt cut before the closing
    brace). At the top level of a file a function's name is declared once, so the definition
    line names one place: two times of it, not twins. A control block (``if err != nil {``), a
    method in a class or ``impl`` (indented), or a Python ``def`` (version-conditional twins
    ``if PY2: def f(): ...``) are never this."""
    if not is_code_path(path) or not context.before or not context.after:
        return False
    opener = context.before[-1]
    if opener.indent != 0 or not _DEFINITION.match(opener.text):
        return False
    lines = [u for u in (*old, *new) if u is not None]
    return bool(lines) and all(u.indent > 0 for u in lines)


def _section_opening(
    old_before: Sequence[Unit | None],
    old: Sequence[Unit | None],
    new: Sequence[Unit | None],
    context: Context,
    new_rest: Sequence[Unit | None],
) -> bool:
    """Whether one line is replaced by one line right under an INI or TOML section header in
    both excerpts, and its end is placed too: an identical line follows it, or in the newer
    excerpt the next section starts right after it (``[metadata]`` / ``license_file =
    LICENSE`` -> ``[metadata]`` / ``license_files = LICENSE`` / blank / ``[flake8]``). A file
    has each section once, so the header names one place, and the section's first line is one
    line at a time; with its end shown, the old line is not further down either."""
    if len(old) != 1 or old[0] is None or not new or new[0] is None:
        return False
    header = old_before[-1] if old_before else None  # identical in both: the equal run
    if header is None or header.indent != 0 or not _section_header(header):
        return False
    if context.after and len(new) == 1:
        return True
    # the old excerpt ended at the line: the newer one shows the section end after its line
    following = next((u for u in (*new[1:], *new_rest) if u is not None), None)
    return following is not None and _section_header(following)


def frames_of(alignment: PairAlignment) -> Iterable[str]:
    return (f.frame for f in alignment.frames)
