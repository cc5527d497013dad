"""Announced changes, anchored on the question.

People rarely restate a changed value in the words they first used. "payments-api listens on
8443" is replaced by "ops moved payments-api over to port 9443", "my sister Priya works at
Deloitte" by "Priya's at Stripe now!": no grammar key and no frame is shared, and the NLI
checkpoint sees no contradiction it can defend. What the two do share is the question they
answer. Given the question, the rule is:

- the older statement **answers** it: it names the question's subject, and its verb or its
  type word ("Which *team* is Jonah on?"; "Which city does Leandro *live* in?"); for a name
  the type word or the verb must be there, for a number or a weekday the value's kind says
  it; and it gives a value of the answer's kind (a name for which/what/who/where, a number
  for "what port", a weekday for "what day"). "The user" of a question is the statements'
  first person;
- the newer statement **announces** a new value: a clause with a change word ("now", "moved
  to", "switched", "renamed", "going forward", ...) about the question's subject (named, by a
  bare head word when nothing else modifies it, or by a pronoun in a sentence that names it)
  gives a value of the same kind that the older statement does not have.

Precision first (a wrong excision hides a still-true fact), so the rule refuses whenever the
older statement may be about something else: it says the value holds on or is shared
("still", "too", "as well", "also"), it hedges ("might", "thinking about"), it negates, or
the question's subject is the modifier of another thing in it ("payments-api's *health
check*", "*Band* practice", "Leandro's *parents*"). A clause that hedges or negates announces
nothing. A query that is no wh-question gives no frame and the rule stays silent.

Where no older statement answers the question in its words, an announcement still replaces
the one value of its kind that older statements repeat in passing (``recurring_change``),
refused on any doubt.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from functools import lru_cache

from gcmem.facts.align import FRAME_SUBJECT, Unit, each_lacks, units_of
from gcmem.facts.code_keys import key_values
from gcmem.facts.labels import note_body
from gcmem.facts.prose_align import counterparts
from gcmem.facts.wording import (
    ADVERB,
    AUX,
    AUX_DO,
    CLAUSE_SPLIT,
    FIRST_PERSON,
    FREQUENCY,
    IDENTIFIER,
    IRREGULAR_PAST,
    MONTHS_SAID,
    PAIR,
    PRONOUNS,
    STOP,
    TIME_ZONES,
    TITLES,
    WH,
    WHEN_ASKED,
    Value,
    ValueKind,
    proper_names,
    root,
    said_stems,
    tokens_of,
    values,
    without_reason,
)
from gcmem.normalize import WEEKDAYS

_AUX_BE = frozenset({"is", "are", "was", "were"})
_HOW = frozenset({"many", "much", "long", "often", "big", "old", "far", "fast", "soon", "early"})
_ATTRIBUTE = re.compile(
    r"(?:what|which) (?:is|are|was|were) (?:the |your |my |our |his |her |their )?"
    r"([a-z0-9\- ]+?) (?:of|on|for|in|at)\b"
)
_PREPOSITIONS = frozenset({"on", "in", "at", "for", "to", "from", "with", "by", "during"})
# a relation said before a name as a title
_KIN_TITLE = re.compile(r"\b(Uncle|Aunt|Auntie|Grandma|Grandpa|Granny|Nana|Cousin) ([A-Z][a-z]+)")
# A phrasal verb's particle ("grow up", "sign off"), which a question may end with
_PARTICLES = frozenset({"up", "out", "off", "down", "over", "back", "away"})
# A past event of a life, which happened once: no later news changes where someone grew up or
# was born, only a correction that says the event again ("Naomi actually grew up in Galway")
_SETTLED = frozenset({root(w) for w in ("grow", "born", "raise")})
# Words that bound a time before a question word ("After how long is the page escalated?")
_BOUNDS = frozenset({"after", "before", "until", "within"})
# Type words whose answer is a number (a port, a version, a limit).
_NUMBER_HEADS = frozenset(
    root(w)
    for w in str.split(
        """port version number size limit price cost age time year count rate timeout
    amount floor height weight temperature budget salary rent fee score capacity quota
    retention interval length duration speed dose dosage usage threshold hour diem allowance
    stipend deposit discount penalty percentage percent minimum maximum ip"""
    )
)
_NUMBER = frozenset({root("number")})
# Verbs an amount of money answers by itself ("How much does the gym cost?": "it's $35")
_PRICE_VERBS = frozenset(map(root, ("cost", "charge", "pay")))
_MONEY_SAID = re.compile(r"[£$€¥]\s?\d|\b\d[\d,.]*\s?(?:quid|bucks|dollars|euros|pounds)\b")
# Type words whose values are numbers or names ("the gate code is 4471#", "code SPRING10")
_CODE_HEADS = frozenset(map(root, ("code", "pin", "extension", "passcode", "password")))
# Type words numbered in order as well as by number
_ORDINAL_HEADS = frozenset(map(root, ("floor", "grade", "level", "storey", "story")))
# Type words of places named or numbered ("Which room ...?": "the Fjord room", "room 230").
_PLACE_HEADS = frozenset(map(root, str.split("room gate platform desk locker bay seat suite")))
# Type words a value's kind says by itself ("What day is the sync?": "the sync is on Monday").
_KIND_HEADS = frozenset(map(root, ("day", "month", "time", "date", "year", "hour")))
# The shape of a value of a type word's kind (the type word's stem: ``root``).
_HOST = re.compile(r"[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)+|\d{1,3}(?:\.\d{1,3}){3}", re.I)
_PORT = root("port")
_ON_A_PORT = re.compile(r"(?:\bon|\bat|\bto|:)\s*\d{2,5}\b")
_SHAPES = {
    root("channel"): re.compile(r"#[\w-]+"),
    root("region"): re.compile(r"[a-z]{2}(?:-gov)?-[a-z]+-\d"),
    root("bucket"): re.compile(r"(?:s3|gs)://[\w./-]+"),
    root("host"): _HOST,
    root("hostname"): _HOST,
    root("server"): _HOST,
    root("endpoint"): re.compile(
        r"(?:https?://)?[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)+[\w/.-]*", re.I
    ),
    root("port"): re.compile(r"\d{2,5}"),
}

# A change word: the clause says the value is new. "for now" does not; "now that" does ("guitar
# practice is after dinner now that I'm back in the office": the state it gives is the present).
_CUE = re.compile(
    r"\b(?:(?<!for )now|going forward|moving forward|from now on|from here on(?: out)?|"
    r"moved|switched|shifted|renamed|"
    r"changed|(?:mov|relocat|migrat|switch|shift)ing|"
    # "New" opening a clause is the cue ("New GP is Dr. Okafor"); inside one, before another
    # capitalised word, it is part of a name ("born in New York City")
    r"(?<!a )(?<!an )(?-i:new|NEW|(?<![\w,] )New|New(?! [A-Z]))|"
    r"bumped|upgraded|raised|lowered|migrated|replaced|swapped|these days|nowadays|joined|"
    r"started at|starting|as of|effective|hired|rescheduled|revised|transferred|reassigned|"
    r"relocated|upped|rebooked|handed over|increased|decreased|reduced|"
    r"(?-i:left|quit)(?= (?:(?:the|his|her|their|my|our|your) )?[A-Z])|"
    r"(?:went|goes|go|gone|going) (?:up|down) to|"
    r"took over|taking over|takes over|taken over|cut over|rolled out|"
    # what holds from here on ("practice is at Oakmont for the rest of the season")
    r"for the rest of the (?:season|year|term|semester|quarter|month|week|summer|winter)|"
    rf"from (?:(?:next|this) (?:week|month|year|term|season)|today|tomorrow|"
    rf"{'|'.join(sorted(MONTHS_SAID | WEEKDAYS, key=len, reverse=True))}))\b",
    re.IGNORECASE,
)
# A change verb and "to" right after a value: the value is what changed ("cert-manager
# bumped to 1.11", "the standup got moved to 10").
# (not "to" of a purpose: "in Albuquerque now to be closer to the grandkids")
_MOVED_TO = re.compile(
    r"\s+(?:(?:was|were|got|has been|have been)\s+)?([a-z]+)\s+(?:over\s+)?to\b"
    r"(?!\s+(?:be|get|stay|help|save|keep|make|avoid|cut|free|give)\b)"
)
# The value holds on, is shared, is hedged or negated: nothing to supersede or announce.
_REFUSE = re.compile(
    r"\b(?:still|too|also|as well|own|either|not|never|no longer|might|maybe|almost|thinking|"
    r"stay(?:s|ed|ing)?|"
    # (not "planning" as a noun: "doing route planning and loves the day hours")
    r"thought about|considered|proposed|floated|pitched|discussed|debated|mulled|planned|"
    # an attempt or a look at a change is none ("Tried moving Biscuit onto Purina", "looked at
    # moving billing onto CockroachDB")
    r"(?:tried|trying|looked at|looking at|looked into|looking into|explored|exploring|"
    r"evaluated|evaluating|prototyped|piloted|trialled|trialed|tested)(?= [a-z]+ing\b)|"
    r"plan to|unless|separate|except|"
    r"planning(?= (?:to|on|for|a|an|the|our|my|their|his|her|its)\b)|"
    # a condition, not one on who needs the value ("is on db-stg-02 if anyone needs it")
    r"if(?!\s+(?:anyone|anybody|you|someone|somebody|people|folks)\s+(?:ever\s+)?"
    r"(?:needs?|asks?)\b|\s+(?:needed|necessary)\b)|"
    # (not "to match the other orgs": a reason to change, no other thing)
    r"(?<!match the )(?<!match )other|besides|instead|wants?|hoping|would|could|(?-i:may)|"
    r"love to|unchanged|same|"
    # a value for some cases ("now posts to #mobile-eng for anything touching the ios repos")
    r"for any(?:thing|one)? (?:touching|involving|about|from|that|which|over|under|with))\b|"
    # "once" of a condition ("once we pass 500 we'll switch"), not of a past event ("Once we
    # passed 480 subscribers I switched ...")
    r"\bonce (?!a |an |per |every |or |(?:we|i|they|he|she|it) (?:[a-z]+ed|hit|got|went|had|"
    r"was|were)\b)|n't\b|\b(?:i|we|you|they|he|she)['’]d\b",
    re.IGNORECASE,
)
_CONDITION = re.compile(r"if|unless", re.IGNORECASE)
# A request beside the value ("on-call handoffs go in #ops-pager, please don't DM the next
# person"): its negation is of what the reader should do, not of the value.
_REQUEST = re.compile(r"\s*(?:please\b|(?:pls|plz)\b|(?:do not|don't|don’t)\s)", re.IGNORECASE)
_COMPOUND = re.compile(r"[a-z]+(?:-[a-z]+)+")
# Words are bounded (60 characters) so that a long run of letters and hyphens is read in
# linear time, not rescanned from every position.
_POSSESSIVE = re.compile(
    r"\b([A-Za-z0-9][A-Za-z0-9\-]{0,60})(?:'s|’s|s'|s’)\s+"
    # not "is" before a verb's -ing form ("Leo's moaning that ...", "she's training for")
    r"(?![a-z]+ing\s+(?:that|about|for|to|on|at|in|with|the|a|an|his|her|their|my|our|its|"
    r"up|down|out|off|over|around|again)\b)"
    # what is owned, past an adjective of age ("Kiwi's new groomer")
    r"(?:(?:new|old|current|former|previous)\s+)?([A-Za-z][A-Za-z\-]{0,60})"
)
# Words that may follow a value without making it the modifier of another thing.
_AFTER_VALUE = frozenset(
    str.split(
        """last next this today tonight tomorrow yesterday morning afternoon evening week
    month year instead again already anyway though"""
    )
)
# The clause adds something to the subject rather than replacing a value.
_ADDS = re.compile(r"\b(?:has|have|got) (?:a |an )?new\b|\bnow (?:has|have)\b|\badded\b", re.I)
# "ap-southeast-2 is live for orders-api as of this morning": one more in service beside the
# old ones, unless something "new" replaces them ("New VPN gateway is live at ...") or the
# question asks what is live
_GOES_LIVE = re.compile(r"^(?!.*\bnew\b).*\b(?:is|are|went|goes|gone|going)\s+live\b", re.I)
_LIVE = root("live")
_NOT_MODIFIED = frozenset({"still", "too", "also", "now", "new", "old"}) | frozenset(
    # a preposition after the subject is no thing it modifies ("moved the session cache onto
    # port 6380")
    str.split("onto via through across toward towards behind inside within without until")
)


@dataclass(frozen=True)
class QuestionFrame:
    """What a wh-question asks: the words an answer must say (``words``; ``subject`` is them
    without the question's verb), its type word (``head``: "team" in "Which team is Jonah
    on?") and the kinds of value an answer gives."""

    words: frozenset[str]
    subject: frozenset[str]
    verb: str | None
    head: frozenset[str]
    kinds: frozenset[ValueKind]
    # the attribute noun of "what is the X of Y" (a clause may not leave it out)
    attribute: str | None = None
    # the words of the phrase a preposition governs at the question's end ("for the back
    # office", "in Lisbon"): where the answer holds; an announcing sentence names one of them
    scope: frozenset[str] = frozenset()
    # the possessors the question names ("Ellie" of "Ellie's school day"): the owner of the
    # thing asked about, not the thing
    owners: frozenset[str] = frozenset()
    # "who" asks for a person
    person: bool = False
    # "where" asks for a place
    place: bool = False
    # the question's subject under its other names in the memory ("my sister" and "Ana" of
    # "my sister Ana"): ``with_names``
    also: tuple[QuestionFrame, ...] = ()
    # subject words the question writes in lower case ("the studio"): a common noun, which a
    # name ending in it ("Mac Studio") does not say
    common: frozenset[str] = frozenset()
    # "how long" asks for a span of time: a number with its unit ("two weeks", "90 seconds")
    lasting: bool = False
    # the subject's last word in the question: the thing itself, the others its modifiers
    last: str | None = None
    # the verb of "Who runs the film club?", which the frame reads as a subject word: what is
    # asked of the subject, never a word that names it
    doing: str | None = None
    # the question's words as written, lower-cased
    forms: frozenset[str] = frozenset()
    # the attribute asked in "what is the X of Y" (``_asked_of``: "limit" of "the rate limit
    # for ...", "formal" of "the formal name of ..."): never a modifier to leave out
    asked_of: frozenset[str] = frozenset()
    # the preposition that closes "Which team is Amara on?": a statement that puts a name
    # right after it ("Amara's on Payments") answers in the question's own words
    stranded: str | None = None


@dataclass(frozen=True)
class AnswerChange:
    """The answer to the question was ``old_values`` and is ``new_values`` (as written; the
    keys are how ``values`` compares them)."""

    old_values: tuple[str, ...]
    new_values: tuple[str, ...]
    old_keys: frozenset[str] = frozenset()
    new_keys: frozenset[str] = frozenset()

    @classmethod
    def of(cls, old: Sequence[Value], new: Sequence[Value]) -> AnswerChange:
        return cls(
            _shown(old), _shown(new), frozenset(v.key for v in old), frozenset(v.key for v in new)
        )

    @classmethod
    def of_objects(cls, old: str, new: str) -> AnswerChange:
        """A change between two objects as the ledger records them (keyed by their values
        and by the whole object)."""

        def keys(obj: str) -> frozenset[str]:
            # a host is said without its domain too ("db-primary-03" of
            # "db-primary-03.internal") where that name could be nothing else
            host = obj.lower().split(".", 1)[0] if _HOST.fullmatch(obj) else ""
            named = {host} if _unique(host) else set()
            return frozenset({v.key for v in values(obj)} | {obj.lower()} | named)

        return cls((old,), (new,), keys(old), keys(new))


@dataclass(frozen=True)
class Revision:
    """The newer chunk is a revision of the older one: ``statement`` (the older chunk's unit
    index and text) changed its answer to the question, ``change`` from what to what, and
    every other statement is restated."""

    index: int
    statement: str
    change: AnswerChange


@lru_cache(maxsize=4096)
def question_frame(query: str) -> QuestionFrame | None:
    """The frame of a wh-question; None for anything else (a keyword query, a statement)."""
    words = [t.lower().replace("’", "'") for t in tokens_of(WHEN_ASKED.sub(" ", query))]
    if len(words) > 1 and (words[0] in _PREPOSITIONS or words[0] in _BOUNDS) and words[1] in WH:
        words = words[1:]  # "On which day is the code freeze?", "After how long ...?"
    if words and words[0].endswith("'s") and words[0][:-2] in WH:
        words[0:1] = [words[0][:-2], "is"]  # "What's the band called?"
    if not words or words[0] not in WH:
        return None
    if words[0] == "how" and len(words) > 1 and words[1] in _HOW:
        words = [words[0], *words[2:]]  # "how long", "how often": the question word, no topic
    head: set[str] = set()
    type_word = ""
    own_verb = None  # "Which team owns search-api?": the type word is the verb's subject
    if words[0] in ("which", "what"):
        i = 1
        if words[i : i + 2] in (["kind", "of"], ["type", "of"], ["sort", "of"]):
            i += 2
        no_aux = not AUX.intersection(words[i:])
        while i < len(words) and words[i] not in AUX and words[i] not in STOP:
            if no_aux and head and re.search(r"(?:s|ed)$", words[i]) and i + 1 < len(words):
                own_verb = root(words[i])
                break
            head.add(root(words[i]))
            type_word = root(words[i])
            i += 1
    # how often the answer holds is no part of what it is about ("When do I usually run?")
    content = [
        w for w in words if w not in STOP and w not in WH and w not in AUX and w not in FREQUENCY
    ]
    asked = frozenset(root(w) for w in content) - head
    if asked - TITLES:
        asked -= TITLES  # "Mr. Delacroix" is Delacroix, with or without the title
    if not asked and FIRST_PERSON.intersection(words):
        asked = frozenset({"user"})  # "What phone plan am I on?": the user's
    if not asked and len(head) > 1:
        # "Which Figma plan are we on?": the type word is the last, the words before it the
        # thing it belongs to
        asked = frozenset(head - {type_word})
        head = {type_word}
    if not asked:
        return None
    # The verb of "does payments-api listen on", "is the wiki hosted": the question's last word
    # (before a closing preposition), unless a preposition governs it ("... use for incidents").
    aux = next((w for w in words if w in AUX), None)
    tail = list(words)
    while tail and tail[-1] in _PREPOSITIONS:
        tail.pop()
    verb = own_verb
    # a preposition up to three words back governs the noun phrase that ends the question
    # ("... use for incidents", "does CORS allow for the back office"): no verb, and the
    # phrase says where the answer holds (``QuestionFrame.scope``)
    at = next(
        (i for i in range(len(tail) - 2, max(len(tail) - 5, -1), -1) if tail[i] in _PREPOSITIONS),
        None,
    )
    scope = (
        frozenset(root(w) for w in tail[at + 1 :] if w not in STOP)
        if at is not None
        else frozenset()
    )
    if verb is None and at is None and len(tail) > 2 and tail[-1] in _PARTICLES:
        # "Where did Naomi grow up?": the verb is "grow", "up" its particle (no word asked)
        asked -= {root(tail.pop())}
    if verb is None and at is None and tail and tail[-1] not in STOP and tail[-1] not in WH:
        last = tail[-1]
        if aux in AUX_DO or (aux in _AUX_BE and re.search(r"(?:ed|ing)$", last)):
            verb = root(last)
    elif verb is None and at is None and len(tail) > 2 and tail[-1] == "do" and aux in AUX_DO:
        # "What does Tobias do?" asks what he does: no name he is said with ("an architect in
        # Hamburg") is its answer
        verb = "do"
    subject = asked - {verb} if verb else asked
    if not subject:
        # the verb is the only word asked: the type word's modifiers are the subject ("What
        # Postgres version do we run?"), or the user where the verb is theirs ("Where do I
        # work?"; not "When do I do my laundry?", whose last word is no verb)
        if len(head) > 1:
            subject = frozenset(head - {type_word})
            head = {type_word}
        elif any(w == "i" and root(n) == verb for w, n in itertools.pairwise(words)):
            subject = frozenset({"user"})
        asked |= subject
    # "What's the URL of the staging Grafana?": the attribute is the noun before "of"
    named = _ATTRIBUTE.match(" ".join(words))
    attribute = root(named.group(1).split()[-1]) if named else None
    frame = QuestionFrame(
        asked,
        subject or asked,
        verb,
        frozenset(head),
        _answer_kinds(query, head),
        attribute if attribute in asked else None,
        scope & (subject or asked),
        frozenset(root(w) for w in words if w.endswith("'s") and w[:-2] not in WH),
        words[0] in ("who", "whom", "whose"),
        words[0] == "where",
        common=frozenset(root(w) for w in tokens_of(query) if w.islower()) & (subject or asked),
        lasting=_HOW_LONG.match(query.lower().lstrip()) is not None,
        last=next((r for w in reversed(words) if (r := root(w)) in (subject or asked)), None),
        doing=_doing(words, subject or asked),
        forms=frozenset(words),
        asked_of=_asked_of(named.group(1), subject or asked) if named else frozenset(),
        stranded=words[-1] if words[-1] in _PREPOSITIONS and aux in _AUX_BE else None,
    )
    # "Uncle Farid" is Farid ("Farid sold the house, he's in Albuquerque now") and Uncle
    # ("Grandpa sold the house and he's settled in Flagstaff")
    titled = [(root(m[1].lower()), root(m[2].lower())) for m in _KIN_TITLE.finditer(query)]
    also = tuple(
        replace(frame, subject=frame.subject - {drop}, words=frame.words - {drop})
        for kin, name in titled
        if {kin, name} <= frame.subject
        for drop in (kin, name)
    )
    return replace(frame, also=also) if also else frame


def _asked_of(phrase: str, subject: frozenset[str]) -> frozenset[str]:
    """The attribute phrase's head ("limit" of "rate limit"), or, where the head is no word
    of the subject ("name" of "formal name"), the words that stand for it ("formal")."""
    words = [root(w) for w in phrase.split()]
    if words and words[-1] in subject:
        return frozenset({words[-1]})
    return frozenset(words) & subject


def _doing(words: Sequence[str], subject: frozenset[str]) -> str | None:
    """The verb right after "who" that the frame reads as a subject word ("runs" of "Who runs
    the office film club?")."""
    if len(words) < 3 or words[0] != "who" or words[1] in AUX or words[1] in STOP:
        return None
    verb = root(words[1])
    return verb if verb in subject else None


def _answer_kinds(query: str, head: set[str]) -> frozenset[ValueKind]:
    asked = {root(w) for w in tokens_of(query.lower())}
    if "day" in head:
        return frozenset({"day"})
    if "month" in head:
        return frozenset({"month"})
    if root("time") in head:
        return frozenset({"number", "daypart"})  # "What time is bedtime?": 10:30, midnight
    low = query.lower().lstrip()
    if low.startswith("when"):
        # "When is the monthly budget review?" asks for a time, whatever amount it names
        return frozenset({"day", "month", "number", "ordinal", "daypart"})
    if asked & _CODE_HEADS:
        return frozenset({"name", "number"})
    if asked & _ORDINAL_HEADS:
        return frozenset({"number", "ordinal"})  # "the 4th floor", "floor 7"
    if asked & _NUMBER_HEADS:
        return frozenset({"number"})
    if head & _PLACE_HEADS:
        return frozenset({"name", "number"})  # "Hall B room 114" / "room 230"
    if re.match(
        r"(?:(?:after|before|until|within)\s+)?how (?:many|much|long|often|big|old|far|fast)\b", low
    ):
        return frozenset({"number"})
    return frozenset({"name"})


def _modifies_another(sentence: str, frame: QuestionFrame, asked: frozenset[str]) -> bool:
    """The question's subject is the modifier of another thing here: "payments-api's health
    check", "Band practice"."""
    if _owns_another(sentence, frame, asked):
        return True
    for m in PAIR.finditer(sentence):
        word, noun = m.group(1), m.group(2)
        # a compound the subject's own word ends ("Billing cluster Grafana", "locker room door
        # code"): the noun is inside the subject's name, no other thing
        after = _NEXT_WORD.match(sentence, m.end() + 1 + len(noun))
        if after is not None and root(after[1].lower()) in frame.subject:
            continue
        if (
            root(word) in frame.subject
            and root(noun) not in asked
            and noun not in STOP
            and noun not in AUX
            and noun not in _NOT_MODIFIED
            and noun not in _RUNS_ON
            and noun not in _OWN_INSTANCE
            and not re.search(r"(?:s|ed)$", noun)  # a verb: "payments-api listens"
            and noun not in IRREGULAR_PAST  # "rent went up"
            and not ADVERB.fullmatch(noun)  # "Priya finally moved to Bristol"
            and not (word.endswith("s") and word.islower())  # "the kids see": a plural's verb
        ):
            return True
    return False


_NEXT_WORD = re.compile(r" ([A-Za-z][A-Za-z\-]*)\b")


def _owns_another(sentence: str, frame: QuestionFrame, asked: frozenset[str]) -> bool:
    """The question's subject owns another thing here: "payments-api's health check"."""
    for m in _POSSESSIVE.finditer(sentence):
        owned = m.group(2).lower()
        if (
            root(m.group(1)) in frame.subject
            and root(owned) not in asked
            and owned not in STOP
            and owned not in _NOT_MODIFIED
        ):
            return True
    return False


# what a thing runs on is the thing where a version or a setting is asked ("Bumped the CI
# image to Node 20" for "Which Node version does CI use?")
_RUNS_ON = frozenset(str.split("image runtime runner container environment box server vm host"))
# the thing's own instance of a product, which is the product ("the notion workspace")
_OWN_INSTANCE = frozenset(
    str.split("workspace account subscription tenant org matrix pipeline workflow setup")
)


def answers(frame: QuestionFrame, sentence: str) -> bool:
    """The sentence states an answer to the question (see the module docstring)."""
    have = said_stems(sentence)
    # "What's Grandma's room number?": a number says "number" by its kind ("room ... is 214")
    subject = frame.subject - _NUMBER if frame.kinds == {"number"} else frame.subject
    subject = subject or frame.subject
    # a statement may leave out one modifier of a long subject ("Partner API keys are capped at
    # 600 requests per minute" for the rate limit of partner API keys), never its last word,
    # the thing itself ("Storybook for the design system" says nothing of its package), nor
    # a word of the attribute asked of it
    if not (
        subject <= have
        or (
            _covers(subject, have)
            and frame.last in have
            and frame.doing in have | {None}
            # the words of the attribute asked ("formal" of "the formal name of X")
            and frame.asked_of <= _said(frame, sentence, sentence)
        )
    ):
        return False
    # What is asked about the subject: the question's verb, or its type word standing for it
    # ("Platform team room is 4B" for "Which room does the platform team sit in?"); without a
    # verb, the type word of a name ("Which team is Jonah on?"), while a number's or a
    # weekday's kind says it ("What day is the sync?": "the sync is on Monday").
    head_said = bool(frame.head) and (
        frame.head <= have
        or _typed(frame.head, sentence)
        or _product(frame.head, sentence)
        # (never for the question's verb: "Marta studied in Valencia" says not where she lives)
        or (frame.verb is None and _located(frame.head, sentence))
        or (frame.stranded is not None and _put_after(frame.stranded, sentence))
        # another word for the group asked ("the Payments squad" for "Which team ...?")
        or any(_kind_of(h) & have for h in frame.head)
    )
    nouns = _verb_nouns(frame.verb, have)
    if frame.verb is not None:
        # an amount of money says what something costs ("My gym membership is $35 a month")
        priced = frame.verb in _PRICE_VERBS and _MONEY_SAID.search(sentence) is not None
        if frame.verb not in have and not nouns and not head_said and not priced:
            return False
    elif (
        frame.head
        and not head_said
        and (frame.kinds == {"name"} or not (frame.head & have or frame.head <= _KIND_HEADS))
    ):
        # a name needs its type word; a number or a weekday is the answer to "what day" or
        # "what time" by its kind, to any other type word only beside one of its words ("pin
        # Postgres at 14.9" for "What Postgres version ...", not "Prod DB has two replicas")
        return False
    found = [v.key for v in _values_for(frame, sentence) if v.kind in frame.kinds]
    if not found:
        return False
    # a clause that gives the value says it holds on, is shared, hedged or negated; a
    # condition about another thing, without the subject, leaves the values outside it ("Team
    # wiki is hosted on Confluence, ask Marco if you need an account")
    for clause in _clauses(sentence):
        inside = [v for v in found if v in clause.lower()]
        refusals = [m[0] for m in _REFUSE.finditer(clause)] if inside else []
        if refusals:
            aside = len(inside) < len(found) and not frame.subject & said_stems(clause)
            if not aside:
                return False
            if not (all(_CONDITION.fullmatch(r) for r in refusals) or _REQUEST.match(clause)):
                # "hosted in the Frankfurt region, same account as the CRM": the aside refuses
                # its own values, no answer, and leaves the others
                found = [v for v in found if v not in inside]
    asked = frame.words | frame.head | nouns
    return not _modifies_another(sentence, frame, asked)


def asks_about_key(frame: QuestionFrame, subject: str, relation: str) -> bool:
    """The question asks about a ledger key: half of a keyed subject's words are the
    question's ("quarterly offsite" for "Where does the team hold its quarterly offsite?"),
    or a frame (a statement with its value masked) says half of the question's subject."""
    if subject == FRAME_SUBJECT:
        return _half(frame.subject, said_stems(relation.replace("_", " ")))
    return _half(said_stems(subject), frame.words | frame.head)


def _compound_of(value: Value, verb: str | None) -> bool:
    """The value is a compound of common words, one of them the question's verb ("work-life
    balance" for "Where does Priyanka work?"): what is asked about, no answer."""
    return (
        verb is not None
        and _COMPOUND.fullmatch(value.key) is not None
        and any(root(part) == verb for part in value.key.split("-"))
    )


def _typed(head: frozenset[str], sentence: str) -> bool:
    """A value of the sentence has the shape of the question's type word: "#eng-incidents" is
    a channel, "us-east-1" a region, "s3://acme-logs" a bucket, "db-01.internal" a host."""
    # (a number of a port's shape is a port where a service is on it: "listens on 3300", not
    # "returns 200")
    if _PORT in head and _ON_A_PORT.search(sentence):
        return True
    shapes = [_SHAPES[w] for w in head if w in _SHAPES and w != _PORT]
    return bool(shapes) and any(
        shape.fullmatch(v.text) for shape in shapes for v in values(sentence)
    )


# Type words a product's or a provider's name answers by itself ("goes out through Mailchimp"
# for "What service does the choir newsletter use?")
_PRODUCT_HEADS = frozenset(map(root, str.split("service tool app platform provider vendor")))
_THROUGH_NAME = re.compile(r"\b(?:through|via|on|with|in|using|uses|use)\s+[A-Z][\w.-]+")


# the endings that make a verb's noun ("insurance" of "insure", "teacher" of "teach")
_VERB_NOUN_ENDINGS = frozenset(str.split("ance anc ence enc er or ment ier ion"))


def _verb_nouns(verb: str | None, have: frozenset[str]) -> frozenset[str]:
    """The words of ``have`` that name the question's verb as a noun ("insurance" of "Which
    company insures the car?", "teacher" of "Who teaches Ava piano?")."""
    if verb is None:
        return frozenset()
    stem = verb[:-1] if verb.endswith("y") else verb
    return frozenset(w for w in have if w.startswith(stem) and w[len(stem) :] in _VERB_NOUN_ENDINGS)


def _put_after(preposition: str, sentence: str) -> bool:
    """A name right after "is" and the question's closing preposition ("Amara's on
    Payments" for "Which team is Amara on?")."""
    return (
        re.search(rf"(?:'s|’s|\bis|\bare)\s+(?:now\s+)?{preposition}\s+(?:the\s+)?[A-Z]", sentence)
        is not None
    )


def _product(head: frozenset[str], sentence: str) -> bool:
    """The question asks for a product or a provider, and the sentence names one after the
    word that says it is used ("through Mailchimp", "via Buttondown")."""
    return head <= _PRODUCT_HEADS and _THROUGH_NAME.search(sentence) is not None


# Type words a place's name answers by itself where a locative says it ("Our office is in
# Leeds" for "Which city is the office in?")
_CITY_HEADS = frozenset(map(root, ("city", "town", "country")))
_IN_PLACE = re.compile(r"\b(?:in|to|from)\s+[A-Z][a-z]+")


def _located(head: frozenset[str], sentence: str) -> bool:
    return head <= _CITY_HEADS and _IN_PLACE.search(sentence) is not None


def _half(subject: frozenset[str], have: frozenset[str]) -> bool:
    return 2 * len(subject & have) >= len(subject) > 0


def _covers(subject: frozenset[str], have: frozenset[str]) -> bool:
    # A clause may drop one modifier of a long subject ("the timeout on the API gateway" for
    # "the API gateway's request timeout"), never one of two words ("prod db" for "staging db").
    got = len(subject & have)
    return got == len(subject) or (len(subject) >= 3 and 3 * got >= 2 * len(subject))


def _names_subject(
    frame: QuestionFrame, clause: str, sentence: str, before: str = "", *, standing: bool = True
) -> bool:
    """The clause is about the question's subject: it names it (a long subject may lose one
    modifier in three), or a subject of two words or more by one bare word ("we moved standup
    to 10:15" for the daily standup, "practice got moved" for Leo's soccer practice: nothing
    else modifies it, where "the production gateway" for the staging gateway is another
    thing), or it opens on a pronoun in a sentence that names it
    ("Caught up with Tomasz, he's at Zalando these days") or right after one (``before``:
    "Changed the cabin wifi password. It's larchwood77 now."), or, with ``standing``, on a
    possessive standing for it where an older statement answers ("ours moved to 10:15"; with
    no such anchor, nothing says what "ours" is). A subject word it leaves out
    is never the attribute a "what is the X of Y" question asks about, unless a value of the
    sentence has its shape ("moved to db-stg-07.internal" says the hostname)."""
    # (a word inside another thing's identifier names nothing: "redis-sess-3.int" is no Redis
    # cache; "payments-api" is the subject itself)
    plain = _without_names_of(frame, clause)
    for v in values(plain):
        if IDENTIFIER.search(v.key) and root(v.key) not in frame.subject:
            plain = plain.replace(v.text, " ")
    subject, have = frame.subject, _said(frame, plain, sentence)
    if frame.attribute is not None and frame.attribute not in have:
        return False
    if frame.scope and not frame.scope & said_stems(sentence):
        return False  # "CORS now allows X for local development": not for the back office
    if _covers(subject, have):
        return True
    words = tokens_of(clause)
    named = _covers(subject, said_stems(sentence)) or bool(
        before and _covers(subject, said_stems(before))
    )
    if words and words[0].lower() in PRONOUNS and named:
        return True
    if standing and any(
        w.lower() in _STANDING_FOR and (not i or words[i - 1].lower() in _JOINS)
        for i, w in enumerate(words)
    ):
        # "ours moved to 10:15 btw", "desks got reshuffled and ours moved to the 7th floor": a
        # reply about the thing asked, ours
        return True
    if len(subject) < 2:
        return False
    for i, token in enumerate(words):
        # the bare word names the thing, not its owner ("Ellie says lunch moved" is no news
        # of Ellie's school day) nor what is asked of it ("board game night is now run by"),
        # as the question writes it ("left a paddle" says nothing of the paddling group)
        if (
            root(token) in subject
            and root(token) not in frame.owners | {frame.doing}
            and _as_asked(token, frame)
        ):
            before = words[i - 1].lower() if i else ""
            return not before or before in STOP or bool(_CUE.fullmatch(before))
    return False


# a possessive standing for the thing it owns ("Ours moved to FigJam", "Mine is katherine.m"),
# opening a clause or joined to one
_STANDING_FOR = frozenset({"ours", "mine", "theirs"})
_JOINS = frozenset({"and", "but", "so", "then"})


def _as_asked(token: str, frame: QuestionFrame) -> bool:
    """The word as the question writes it, or its plural, singular or possessive."""
    low = token.lower().replace("’", "'").removesuffix("'s").removesuffix("'")
    said = {low, low + "s", low + "es", low.removesuffix("s"), low.removesuffix("es")}
    return not frame.forms or bool(said & frame.forms)


def _said(frame: QuestionFrame, text: str, shaped: str) -> frozenset[str]:
    """The stems ``text`` says, with the question's attribute where a value of ``shaped``
    has its shape ("db-stg-07.internal" says the hostname of "What's the hostname of ...?")."""
    have = said_stems(text)
    attribute = frame.attribute
    if attribute is not None and attribute not in have and _typed(frozenset({attribute}), shaped):
        return have | {attribute}
    return have


def _without_names_of(frame: QuestionFrame, clause: str) -> str:
    """The clause without the subject's common nouns that end a capitalised name ("new Mac
    Studio arrived" says nothing of "the studio"; "New GP is ..." opens on a change word)."""
    if not frame.common:
        return clause
    words = tokens_of(clause)
    named = [
        i
        for i, w in enumerate(words)
        if i
        and root(w) in frame.common
        and w[:1].isupper()
        and words[i - 1][:1].isupper()
        and root(words[i - 1]) not in frame.subject
        and not _CUE.fullmatch(words[i - 1])
    ]
    return " ".join(w for i, w in enumerate(words) if i not in named) if named else clause


def _asked_values(frame: QuestionFrame, sentence: str) -> list[Value]:
    """The sentence's values in clauses that name something the question asks ("his dog
    Rufus" after "Alex loves trail running though -" is no answer about running)."""
    asked = frame.words | frame.head
    clauses = [c for c in _fronted(_clauses(sentence)) if c and asked & said_stems(c)]
    # a clause that names what is asked in its own words, not only inside a value, is the
    # one that gives the answer ("Primary DB host is db-primary.internal, read replicas are
    # behind db-ro.internal": the replicas' host says "db" only in its name)
    outside = [c for c in clauses if asked & said_stems(_without_values(c))]
    return [v for clause in outside or clauses for v in _values_for(frame, clause)]


def _values_for(frame: QuestionFrame, text: str) -> list[Value]:
    """``values``; for a who-question, with a name that opens a clause on a word the question
    asks ("Marisol leads the data team" for "Who leads the data team?"): the one who does it."""
    found = _typed_values(frame, text)
    if not frame.person:
        return found
    keys = {v.key for v in found}
    for m in _OPENING_DOER.finditer(text):
        low = m[1].lower()
        if root(m[2].lower()) in frame.words and low not in keys and low not in STOP:
            found.append(Value("name", low, m[1]))
    # "Saoirse has taken over as release manager": the one who now is what is asked
    for m in _TAKES_OVER.finditer(text):
        low = m[1].lower()
        if frame.words <= said_stems(m[2]) and low not in keys and low not in STOP:
            found.append(Value("name", low, m[1]))
    return found


def _typed_values(frame: QuestionFrame, text: str) -> list[Value]:
    """``values``, with the word that names one of the question's type ("Which team is Jun
    on?") in lower case: "payments" of "sits on the payments team"."""
    found = values(text)
    # "backups run at 02:00 UTC": the time's zone, no name of anything
    found = [
        v
        for i, v in enumerate(found)
        if not (v.key in TIME_ZONES and i and found[i - 1].kind == "number")
    ]
    if frame.lasting:
        # "a stipend of $400 per shift" says no length of a shift
        found = [v for v in found if v.kind != "number" or _lasts(text, v)]
    keys = {v.key for v in found}
    if _BRANCH in frame.words | frame.head and "name" in frame.kinds:
        # a git branch is named in lower case ("the default branch is develop")
        for m in _BRANCH_NAME.finditer(text):
            if m[1].lower() not in keys:
                found.append(Value("name", m[1].lower(), m[1]))
                keys.add(m[1].lower())
    if not frame.head or "name" not in frame.kinds:
        return found
    for m in _TYPED_BY.finditer(text):
        word = m[1].lower()
        if root(m[2].lower()) in frame.head and word not in keys | _NOT_A_NAME | STOP:
            found.append(Value("name", word, m[1]))
            keys.add(word)
    return found


_BRANCH = root("branch")
# the names a repository's main line goes by
_MAIN_LINES = "main|master|trunk|develop|development|dev"
# ... said as a name, not after an article ("the main thing")
_BRANCH_NAME = re.compile(
    rf"(?<!\bthe )(?<!\ba )(?<!\bour )(?<!\bmy )(?<![\w/.-])({_MAIN_LINES})(?![\w/-]|\.\w)"
)
# a branch's name: a main line's, or one with a separator ("release-7.2", "feature/login")
_BRANCH_SHAPE = re.compile(rf"{_MAIN_LINES}|[\w.]+[-/][\w./-]+")
_HOW_LONG = re.compile(r"(?:(?:after|before|until|within)\s+)?how long\b")
_TIME_UNIT = re.compile(
    r"(?:\s*-?\s*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|"
    r"years?|yrs?|nights?|sprints?)|[smhdw])\b",
    re.IGNORECASE,
)


def _lasts(text: str, value: Value) -> bool:
    """The number is a span of time: a unit of time follows it ("two weeks", "90s")."""
    at = text.find(value.text)
    return at >= 0 and _TIME_UNIT.match(text, at + len(value.text)) is not None


def _types(frame: QuestionFrame, text: str, value: Value) -> bool:
    """The question's type word follows the value ("payments team", "Growth team")."""
    after = re.match(r"\s+([a-z]+)", text[text.find(value.text) + len(value.text) :])
    return after is not None and root(after[1]) in frame.head


# Kinds of group a name may be one of ("the Platform Guild", "the Data Reliability team"),
# each with the words that name it ("the Payments squad" is a team)
_GROUP_KINDS: tuple[frozenset[str], ...] = tuple(
    frozenset(map(root, str.split(kind)))
    for kind in (
        "team squad crew pod tribe",
        "board committee council panel",
        "guild club chapter society",
        "department",
        "group",
        "band choir",
        "league",
    )
)
_GROUP_WORDS = frozenset().union(*_GROUP_KINDS)


def _kind_of(word: str) -> frozenset[str]:
    return next((kind for kind in _GROUP_KINDS if word in kind), frozenset())


# the capitalised words that go on a name, and the lower-case word after them
_NAME_RUN = re.compile(r"((?:\s+[A-Z][\w&'-]*)*)(?:\s+([a-z]+))?")


def _another_kind(frame: QuestionFrame, text: str, value: Value) -> bool:
    """The question asks for a group of one kind ("Which board is Priya on?") and the value
    names a group of another: its name ends on, or is followed by, another kind's word ("the
    Platform Guild", "the Data Reliability team")."""
    asked = frozenset().union(*map(_kind_of, frame.head))
    if value.kind != "name" or not asked:
        return False
    at = text.find(value.text)
    run = _NAME_RUN.match(text, at + len(value.text)) if at >= 0 else None
    if run is None:
        return False
    words = [(value.text + run[1]).split()[-1].lower(), run[2] or ""]
    return any(root(w) in _GROUP_WORDS and root(w) not in asked for w in words)


# a determiner, a lower-case word, and the noun it names one of ("the growth team")
_TYPED_BY = re.compile(
    r"\b(?:the|a|an|my|his|her|their|our|your|its)\s+([a-z][a-z-]+)\s+([a-z]+)\b", re.I
)
# words before a type word that say which one without naming it ("the same team")
_NOT_A_NAME = frozenset(
    str.split(
        "same other whole entire new old main big small first next last current previous "
        "former own right wrong usual regular local nearest closest real single shared "
        "dedicated separate managed tiny large"
    )
)


# A capitalised word opening a clause that takes a role over, and the role
_TAKES_OVER = re.compile(
    r"(?:^\s*|[.!?:;,]\s+)([A-Z][a-z'’-]+)\s+(?:has\s+|have\s+|is\s+|'s\s+)?"
    r"(?:taken|took|taking|takes|stepped|steps|stepping)\s+(?:over\s+|in\s+)as\s+([^.;!?]+)"
)
# A capitalised word opening a clause, and the word after it ("Marisol leads ...")
_OPENING_DOER = re.compile(r"(?:^|[.!?:;,]\s+)([A-Z][a-z'’-]+)\s+([a-z]+)")


def _fronted(clauses: Sequence[str]) -> list[str]:
    """Clauses, a fronted phrase ("During an incident, coordinate in #inc-war-room") joined to
    the clause it opens: a preposition's phrase with no value of its own."""
    out: list[str] = []
    lead = ""
    for clause in clauses:
        words = tokens_of(clause)
        if not out and not lead and words and words[0].lower() in _FRONTING and not values(clause):
            lead = clause
            continue
        out.append(f"{lead} {clause}" if lead else clause)
        lead = ""
    return out + ([lead] if lead else [])


_FRONTING = frozenset({"during", "in", "on", "for", "at", "after", "before", "when", "while"})


def _without_values(clause: str, keys: re.Pattern[str] | None = None) -> str:
    """The clause with its values (those whose key ``keys`` finds, if given) blanked out."""
    for v in values(clause):
        if keys is None or keys.search(v.key):
            clause = clause.replace(v.text, " ")
    return clause


def _heads(clause: str, frame: QuestionFrame) -> list[Value]:
    """The clause's values that are not the modifier of another thing: in "moved to the
    Frankfurt office" the office moved, Frankfurt is no new employer; a number's unit and the
    question's own words may follow ("port 9443", "90 seconds", "the Billing team"), but a
    number right after the subject's name is its version ("Postgres 15")."""
    asked = frame.words | frame.head
    out: list[Value] = []
    for v in _values_for(frame, clause):
        at = clause.find(v.text)
        ahead = tokens_of(clause[:at])
        if (
            v.kind == "number"
            and ahead
            # "room 108" is the room, "number 41" the number
            and root(ahead[-1]) in frame.subject - _PLACE_HEADS - _NUMBER
            # unless the version is what is asked ("the gateway is on Kong 3.4" for "What
            # version of Kong ...?")
            and not frame.head & _VERSION_HEADS
        ):
            continue  # "both databases are on Postgres 15 now": the subject's version
        behind = tokens_of(clause[at + len(v.text) :])[:2]
        subject_and = ahead[-2:] if ahead[-1:] == ["and"] else []
        and_subject = behind[::-1] if behind[:1] == ["and"] else []
        if (
            v.kind == "name"
            and not frame.person
            and any(
                len(p) == 2 and root(p[0].lower()) in frame.subject
                for p in (subject_and, and_subject)
            )
        ):
            continue  # "Lena and Jonas are moving in together": a person beside the subject
        if frame.person and v.kind == "name" and _THING_TYPED.search(clause[:at]):
            continue  # "the sync moves to a new room, Juniper": a room's name, nobody's
        part = re.match(r"\s+(\w+)", clause[at + len(v.text) :])
        if frame.head & _REGIONS and (
            v.text.split()[-1].lower() in _PARTS_OF_A_CITY
            or (part and part[1].lower() in _PARTS_OF_A_CITY)
        ):
            continue  # "a new apartment in the Pearl District": a part of a city, no city
        moved = _MOVED_TO.match(clause[at + len(v.text) :])
        if moved is not None and _CUE.fullmatch(moved.group(1)):
            continue  # "cert-manager bumped to 1.11": what changed, its new value after "to"
        after = re.match(r"\s+([a-z][a-z\-]*)\b", clause[at + len(v.text) :])
        word = after.group(1) if after else ""
        # a word in -s or -ed after a clause's first word is its verb ("Priya works ..."); after
        # an object it is a noun ("now cache Gradle dependencies")
        verb = not tokens_of(clause[:at]) and re.search(r"(?:s|ed)$", word) is not None
        if (
            v.kind == "name"
            and word
            and word not in STOP
            and word not in _PREPOSITIONS
            and word not in _AFTER_VALUE
            and not _CUE.fullmatch(word)
            and root(word) not in asked
            and word not in _CARRIERS
            and not (frame.place and _PLACE_NOUN.match(clause[at + len(v.text) :]))
            and not verb
        ):
            continue
        out.append(v)
    return out


# a type word of places and things right before a name, set off by a comma ("a new room,
# Juniper"): the name is that thing's
_THING_TYPED = re.compile(
    r"\b(?:room|floor|building|venue|hall|space|office|channel|app|tool|repo|site|server),?\s*$"
)
_VERSION_HEADS = frozenset(map(root, ("version", "release")))
_REGIONS = frozenset(map(root, ("city", "town", "country", "state")))
_PARTS_OF_A_CITY = frozenset(
    str.split(
        "district street avenue road square quarter heights borough neighbourhood neighborhood"
    )
)


# What a name after "for" is: a purpose, no place ("Chloe's training for the Great North Run")
_PURPOSE = re.compile(r"\bfor\s+(?:the\s+|a\s+|an\s+)?(?:[A-Z][\w'’-]*\s+)*$")


def _for_purpose(text: str, value: str) -> bool:
    at = text.find(value)
    return at > 0 and _PURPOSE.search(text[:at]) is not None


# A place a name modifies answers a where-question ("moved to the Northgate aquatic center");
# an office is a firm's ("Leonie moved to the Frankfurt office" is no new employer)
_PLACE_NOUN = re.compile(
    r"\s+(?:[a-z]+\s+)?(?:center|centre|pool|clinic|school|gym|park|hall|library|field|rink|"
    r"studio|campus|hospital|stadium|arena|church|club|"
    # a home's rooms and a person's home ("Jo's basement", "Sam's place")
    r"place|house|flat|apartment|basement|garage|kitchen|garden|backyard)s?\b"
)
# Things a provider's name says the answer through ("now lives on a little Hetzner box":
# the blog is hosted at Hetzner); an office, a team or a room is a thing of its own
_CARRIERS = frozenset(
    str.split("box server vps vm instance machine droplet account plan cluster subscription")
)


def announcement(
    frame: QuestionFrame,
    older: str,
    newer: str,
    before: str = "",
    accumulates: Callable[[str], bool] | None = None,
) -> AnswerChange | None:
    """``newer`` announces a new value for the answer ``older`` gives, or None; ``before`` is
    the statement that precedes ``newer`` in its text (what a pronoun opening it refers to).
    Either may name the question's subject by another of its names (``QuestionFrame.also``).
    ``accumulates``: whether a statement's frame (``_slotted``) holds many values at once
    (the ledger's policy): a value said in one ("queue is consumed by _") is one more."""
    frames = (frame, *frame.also)
    answering = next((f for f in frames if answers(f, older)), None)
    if answering is None:
        return None
    in_older = {t.lower() for t in tokens_of(older)}
    in_newer = {t.lower() for t in tokens_of(without_reason(newer))}
    asked = answering.words | answering.head
    answer = [
        v
        for v in _asked_values(answering, older)
        if v.kind in answering.kinds
        and root(v.key) not in asked
        and not _compound_of(v, answering.verb)
        and not (answering.place and _for_purpose(older, v.text))
    ]
    answer = [
        v
        for v in answer
        if not _another_kind(answering, older, v)
        # a who-question's answer is someone's name ("Release manager for Q3 is Benedikt")
        and (not answering.person or _PERSON.fullmatch(v.text))
    ]
    # where the asked attribute has a shape, the values of that shape are the answer ("Staging
    # Postgres is on db-stg-02.internal": the hostname, not the product)
    answer = _shaped(answering, answer)
    # what the newer statement says again is no old answer ("now in Year 3 at Oakwood"; "New GP
    # is Dr. Okafor, same clinic" after "My GP is Dr. Alvarez at Northside Clinic")
    old = [v for v in answer if v.key not in in_newer or _left(v, newer)]
    if not old or (accumulates is not None and accumulates(_slotted(older, old))):
        return None
    kinds = {v.kind for v in old}
    # an old answer read only by its type word ("the payments team": ``_typed_values``); the
    # plain values are read again only where every old value sits before the type word
    typed_only = all(_types(answering, older, v) for v in old) and not (
        {v.key for v in old} & {v.key for v in values(older)}
    )
    for named in frames:
        for clause in _announcing_clauses(named, newer, before):
            new = [
                v
                for v in _heads(clause, named)
                if v.kind in kinds
                and v.key not in in_older
                and root(v.key) not in asked | named.words  # "Biscuit" asked about
                and _fits(named, v)
                and not _another_kind(named, clause, v)
                # an answer said only by its type word ("the payments team") is replaced by
                # one said so too, not by any name ("mentoring Keisha")
                and (not typed_only or _types(named, clause, v))
            ]
            if new and not (accumulates is not None and accumulates(_slotted(clause, new))):
                return AnswerChange.of(old, new)
    return _in_the_same_unit(answering, old, older, newer, in_older)


def _in_the_same_unit(
    frame: QuestionFrame, old: Sequence[Value], older: str, newer: str, in_older: AbstractSet[str]
) -> AnswerChange | None:
    """A newer statement that names the asked thing by fewer words ("Portal upload cap got
    bumped to 100 MB" for the max upload size on the portal) announces where its one new
    number is in the old answer's unit ("25 MB"), with a change word and nothing held on,
    hedged or of another thing."""
    unit_of = {v: u for v in old if v.kind == "number" and (u := _unit_of(older, v))}
    was, units = list(unit_of), set(unit_of.values())
    if not was or frame.last is None or _NO_CHANGE.search(newer):
        return None
    for clause in _clauses(without_reason(newer)):
        if (
            not _CUE.search(clause)
            or _REFUSE.search(clause)
            or _ADDS.search(clause)
            or frame.last not in said_stems(clause)
            or _of_another(clause, frame)
        ):
            continue
        now = [v for v in values(clause) if v.kind == "number" and v.key not in in_older]
        if len(now) != 1 or _unit_of(clause, now[0]) not in units:
            continue
        # the words before the value name the asked thing, with at most one word of its own
        # ("upload cap"), not another thing of it ("Portal avatar limit got bumped to 5 MB")
        ahead = tokens_of(_CUE.sub(" ", clause[: clause.find(now[0].text)]))
        others = {
            w.lower()
            for w in ahead
            if w.lower() not in STOP
            and w.lower() not in _PREPOSITIONS
            and root(w.lower()) not in frame.words | frame.head
        }
        said = frame.subject & said_stems(clause)
        if len(others) <= 1 and 2 * len(said) >= min(len(frame.subject), 4):
            return AnswerChange.of(was, now)
    return None


# the word after a number that says what it counts ("25 MB", "14 days")
_UNIT = re.compile(r"\s*([a-z]+|%|°[cf])\b", re.IGNORECASE)


def _unit_of(text: str, value: Value) -> str | None:
    at = text.find(value.text)
    unit = _UNIT.match(text, at + len(value.text)) if at >= 0 else None
    if unit is None or unit[1].lower() in STOP or unit[1].lower() in _PREPOSITIONS:
        return None
    return unit[1].lower()


def _shaped(frame: QuestionFrame, found: list[Value]) -> list[Value]:
    """The values of the shape of the question's attribute or type word, where there are
    any (``_SHAPES``); all of them otherwise."""
    shapes = [_SHAPES[w] for w in {frame.attribute, *frame.head} if w in _SHAPES]
    shaped = [v for v in found if any(shape.fullmatch(v.text) for shape in shapes)]
    return shaped or found


def _fits(frame: QuestionFrame, value: Value) -> bool:
    """A number has the shape of the question's type word, where that has one (a port is a
    number of two to five digits: "38GB" is no port). Names are left to ``answers``: a host
    is said without its domain ("db-prod-03")."""
    if value.kind != "number":
        return True
    shapes = [_SHAPES[w] for w in frame.head if w in _SHAPES]
    return not shapes or any(shape.fullmatch(value.text) for shape in shapes)


# "left Acme", "quit the Harbour Club", "cancelled Equinox": the value named as the one given up
_LEFT = (
    r"\b(?:left|quit|quitting|leaving|leaves|cancell?ed|cancell?ing|ditched|sold|gave\s+up|"
    r"moved\s+(?:out\s+of|away\s+from))\s+(?:(?:the|his|her|their|my|our|your)\s+)?"
)


def _left(value: Value, newer: str) -> bool:
    """The newer statement names the old value as the one given up ("Tom left Acme and
    joined Globex"): it says the old answer, not again."""
    return re.search(_LEFT + re.escape(value.text) + r"\b", newer, re.I) is not None


# "my sister Ana", "our manager, Priya", "my boss Hendrik Vos": a relation to the speaker
# and the name of the one in it
_APPOSED = re.compile(
    r"\b(?i:my|our|his|her|their|your)\s+(?P<rel>[a-z]+(?:[\s-][a-z]+)?)\s*,?\s+"
    rf"(?:(?i:{'|'.join(sorted(TITLES))})\.?\s+)?(?P<name>[A-Z][a-z]+)\b"
)


def with_names(frame: QuestionFrame, texts: Sequence[str]) -> QuestionFrame:
    """``frame`` with its subject's other names in ``texts`` (``QuestionFrame.also``): where a
    text says "my sister Ana", a question about "my sister" is about Ana, and one about Ana
    is about "my sister"."""
    alternates: dict[frozenset[str], QuestionFrame] = {}
    for text in texts:
        for m in _APPOSED.finditer(text):
            rel = frozenset(root(w) for w in re.split(r"[\s-]", m.group("rel")))
            name = frozenset({root(m.group("name").lower())})
            for mine, other in ((rel, name), (name, rel)):
                if frame.subject <= mine and other not in alternates:
                    alternates[other] = replace(
                        frame,
                        subject=frozenset(frame.subject - mine | other),
                        words=frozenset(frame.words - mine | other),
                    )
    return replace(frame, also=frame.also + tuple(alternates.values())) if alternates else frame


def _announcing_clauses(frame: QuestionFrame, newer: str, before: str) -> Iterator[str]:
    """The clauses of ``newer`` that could announce a new answer: a change word, nothing held
    on, hedged or added, the question's subject named and modifying nothing else ("the
    production worker pool got bumped"; "now has a new on-call alias")."""
    clauses = _clauses(newer)
    if _NO_CHANGE.search(newer):
        return  # "We floated moving them to Northgate, ..., so nothing changes"
    for i, clause in enumerate(clauses):
        role = _new_role(frame, clause)
        # (a word the question asks is no change word: "new" of "for new hires" when the
        # question asks what new engineers get)
        cue = any(root(m[0].lower()) not in frame.words for m in _CUE.finditer(clause))
        if not clause or not (cue or role) or _REFUSE.search(clause):
            continue
        if frame.verb in _SETTLED and frame.verb not in said_stems(clause):
            continue
        if _of_another(clause, frame):
            continue
        if not _names_subject(frame, clause, newer, before) and not _carried(
            frame, clause, clauses[i - 1] if i else before
        ):
            continue
        asked = frame.words | frame.head | _verb_nouns(frame.verb, said_stems(clause))
        if _modifies_another(clause, frame, asked) or (
            (_ADDS.search(clause) or (_GOES_LIVE.search(clause) and _LIVE not in frame.words))
            and not role
        ):
            continue
        yield clause


# A statement that says nothing changes announces nothing, whatever change it talks about.
_NO_CHANGE = re.compile(
    r"\b(?:nothing|no)\s+(?:actually\s+|really\s+)?changes?\b|\bnothing(?:'s|’s| is) changing\b",
    re.IGNORECASE,
)


# "rate limit on notifications-gw": another thing of the subject
_THING_OF = re.compile(r"\b([a-z][\w-]*)\s+(?:on|of)\s+(?:the\s+)?([A-Za-z0-9][\w.-]*)")
# "cache host for the feature-flag service": the asked thing of another thing
_THING_FOR = re.compile(
    r"\b([a-z][\w-]*)\s+for\s+(?:the\s+|our\s+)?([A-Za-z0-9][\w.-]*)\s+"
    r"(?:service|team|app|project|repo|repository|cluster|site|database|db|api|worker|job|bucket)\b"
)


def _of_another(clause: str, frame: QuestionFrame) -> bool:
    """The clause's change is of another thing than the one asked: a thing the question does
    not ask of the subject ("Rate limit on notifications-gw raised to 300" for its port), or
    the asked thing of a service, team or app the question does not name ("new cache host for
    the feature-flag service" for the analytics cache's host)."""
    asked = frame.words | frame.head
    for m in _THING_OF.finditer(clause):
        thing = m[1]
        if (
            root(m[2].lower()) in frame.subject
            and root(thing) not in asked
            and thing not in STOP
            and thing not in _PREPOSITIONS
            and _CUE.fullmatch(thing) is None
        ):
            return True
    return any(
        root(m[1]) in asked and root(m[2].lower()) not in asked for m in _THING_FOR.finditer(clause)
    )


_IT = re.compile(r"\s*(?:it's|it’s|it is|its)\s", re.IGNORECASE)


def _carried(frame: QuestionFrame, clause: str, prior: str) -> bool:
    """The clause goes on from a change of the question's subject that gave no value
    ("Staging database got migrated to the new cluster, point your tools at
    pg-stg-aurora.internal from now on"): the clause or statement before it names the subject
    (the asked attribute aside) with a change word, holds no value of the question's kinds and
    refuses nothing; the clause names the attribute and the type word (or has values of their
    shapes)."""
    if not prior or _REFUSE.search(prior) or not _CUE.search(prior):
        return False
    # ("Dad changed the cabin wifi password, it's larkspur2024 now": "it" is the password)
    if (
        frame.attribute is not None
        and frame.attribute not in _said(frame, clause, clause)
        and not _IT.match(clause)
    ):
        return False
    said = said_stems(prior) | said_stems(clause)
    if frame.head and not (frame.head <= said or _typed(frame.head, clause)):
        return False  # "Pepper switched vets, we go to Dr. Hale now": no news of her food
    subject = frame.subject - {frame.attribute} if frame.attribute else frame.subject
    return _covers(subject, said_stems(prior)) and not any(
        v.kind in frame.kinds for v in _heads(prior, frame)
    )


# "has a new lead": one more of a thing, unless it is the role the question asks about
_HAS_NEW = re.compile(r"\b(?:has|have|got) (?:a |an )?new ([a-z]+)\b", re.I)


def _new_role(frame: QuestionFrame, clause: str) -> bool:
    """The clause gives the asked role a new holder ("Data has a new lead" for "Who leads
    the data team?"): the noun after "has a new" is a word the question asks."""
    m = _HAS_NEW.search(clause)
    return m is not None and root(m[1].lower()) in frame.head | frame.words


@lru_cache(maxsize=8192)
def _clauses(text: str) -> tuple[str, ...]:
    """The text's clauses, each with the bare value set off after it (by a comma, a colon or a
    dash) joined on ("moved Grandma to a ground floor room, 108, easier with the walker": the
    room is 108; "New standup time starting Monday: 10:00 ET"). Cached: ``answers`` reads
    every candidate's statements for every question."""
    out: list[str] = []
    for clause in CLAUSE_SPLIT.split(text):
        found = values(clause) if out and clause.strip() else []
        if found and " ".join(v.text for v in found) == clause.strip().rstrip(".!"):
            out[-1] = f"{out[-1].rstrip()} {clause.strip()}"
            continue
        # a name opening the clause after "has a new lead:" is the new one ("Data has a new
        # lead: Kenji Watanabe started Monday")
        name = _OPENING_NAME.match(clause) if out and _NEW_ROLE.search(out[-1]) else None
        if name is not None:
            out[-1] = f"{out[-1].rstrip()} {name[1]}"
        out.append(clause)
    return tuple(out)


_NEW_ROLE = re.compile(r"\bnew\s+[a-z]+\s*$")
_OPENING_NAME = re.compile(r"\s*((?:[A-Z][a-z'’-]+)(?:\s+[A-Z][a-z'’-]+){0,2})\b")


def mentions_old_value(frame: QuestionFrame, change: AnswerChange, sentence: str) -> bool:
    """``sentence`` takes a value the question's answer no longer has for granted: once an
    announcement decided the change, an older statement that names the question's subject and
    the old value, not the new one ("Flying to Portland in June to see Maya" after "Maya's in
    Denver now"), repeats the old answer in other words. It refuses what ``answers`` refuses
    (the value holds on, is shared, hedged or negated; the subject owns another thing:
    "Maya's roommate") and a sentence where the old value owns another thing ("Oakwood's
    playground"). A bare word after the subject is read as its verb ("Maya sent more Portland
    rain photos"): the old value names the subject's thing, not the word after it.

    A sentence that leaves the subject out mentions the old value in passing ("Paged Falcon
    about the checkout 500s" after search-api moved from Falcon to Atlas) when ``_in_passing``
    says so."""
    found_values = values(sentence)
    embedded = _embedded(change.old_keys, found_values, change.new_keys)
    if (
        not _covers(frame.subject, _said(frame, sentence, sentence))
        and not _in_passing(frame, change, sentence, found_values, embedded)
        and not _beside_subject(frame, change, sentence)
    ):
        return False
    found = {v.key for v in found_values} | embedded
    # an old value that opens the sentence is one too ("Maple Grove called ...")
    found |= {
        text.lower()
        for text in change.old_values
        if text.lower() in change.old_keys and _says_whole(text, sentence)
    }
    old = change.old_keys
    if not _names_old(old, found) or found & change.new_keys:
        return False
    # the clauses that say the old value: none may hold it on, hedge or add; the subject
    # owning another thing matters there ("Maya's roommate lives in Portland"), not in a
    # clause of its own ("visiting Leeds, Amara's cooking jollof")
    saying = [c for c in CLAUSE_SPLIT.split(sentence) if c and _says_old(change, c)]
    if any(
        _REFUSE.search(_IMPERATIVE.sub("", _doer_wants(change, c))) or _ADDS.search(c)
        for c in saying
    ):
        return False
    if _owns(old, sentence) and not (frame.person and _covers(frame.subject, said_stems(sentence))):
        # the old value's own thing ("Oakwood's playground", "Northside Clinic's pharmacy"),
        # unless the old value is the person the subject's statement names in that role
        # ("Leo needs Sandra's sign-off")
        return False
    asked = frame.words | frame.head
    return not any(_owns_another(c, frame, asked) for c in saying or [sentence])


# An instruction's "don't" negates the instruction, not the value it relies on ("Don't book
# anything Saturday morning, Maya has swim")
_IMPERATIVE = re.compile(r"^\s*(?:don't|don’t|do not)\s+(?=[a-z]+\s)", re.I)
# A name of capitalised words that owns the next thing ("Northside Clinic's pharmacy").
_NAME_OWNS = re.compile(r"((?:[A-Z][\w\-]*\s+){0,3}[A-Za-z0-9][\w\-]{0,60})(?:'s|’s|s'|s’)\s")


def _doer_wants(change: AnswerChange, clause: str) -> str:
    """The clause without the old value's own wish ("Ramirez wants Leo working on flip
    turns"): what the old coach wants hedges nothing about who the coach was."""
    for text in change.old_values:
        clause = re.sub(rf"\b{re.escape(text)}\s+wants?\b", " ", clause)
    return clause


def _owns(old: frozenset[str], sentence: str) -> bool:
    """An old value, or a name it is a word of, owns a thing in the sentence."""
    return any(
        m.group(1).lower() in old or old.intersection(m.group(1).lower().split())
        for m in _NAME_OWNS.finditer(sentence)
    )


def _says_old(change: AnswerChange, clause: str) -> bool:
    """The clause says an old value (as a value, inside a token, or as written)."""
    found = values(clause)
    keys = {v.key for v in found} | _embedded(change.old_keys, found, change.new_keys)
    keys |= {t.lower() for t in change.old_values if _says_whole(t, clause)}
    return bool(keys & change.old_keys)


_SCHEME = re.compile(r"^[a-z][a-z0-9+]*://")
# a command line's one-letter flag ("psql -p 5433 -U analyst"): no name
_FLAG = re.compile(r"(?<!\S)--?[A-Za-z]\b")


def _says_whole(value: str, text: str) -> bool:
    """``value`` written whole in ``text``: not the start of a longer version ("0.4" is not
    said by "0.4.0") nor the end of one."""
    return re.search(rf"(?<![\w.]){re.escape(value)}(?!\w|\.\w)", text) is not None


def _embedded(
    old: frozenset[str], found: Sequence[Value], new: frozenset[str] = frozenset()
) -> set[str]:
    """The old keys that could be nothing else (``_names_old``: an identifier, a number of
    three characters or more) said inside a longer token, at its separators:
    "localhost:9100/metrics", "s3://acme-logs-prod/2023/", "v1.27.9" (a patch release of
    1.27); a bucket or URL also without its scheme ("acme-logs-prod" for
    "s3://acme-logs-prod"). Never inside a longer number or word ("91003", "x9100"), and not
    where a new value holds the old one so (0.4 -> 0.4.6: "0.4.0" is of both)."""
    out: set[str] = set()
    for key in old:
        inside = _inside(key)
        if inside is None or any(inside.search(n) for n in new):
            continue
        if any(v.key != key and inside.search(v.key) for v in found):
            out.add(key)
    return out


@lru_cache(maxsize=1024)
def _inside(key: str) -> re.Pattern[str] | None:
    """The pattern of ``key`` inside a longer token (``_embedded``); None for a key that could
    be something else."""
    if not _distinctive(key):
        return None
    bare = re.escape(_SCHEME.sub("", key))
    return re.compile(rf"(?:(?<=\bv)|(?<![\w.\-])){bare}(?![\w\-]|\.\w*[a-z])")


# A cloud region is many things' value ("us-east-1"): no one thing's identifier.
_REGION = re.compile(r"[a-z]{2}(?:-[a-z]+)+-\d")


def _unique(key: str) -> bool:
    """An identifier one thing has: a host, a bucket, an address, a password
    ("pg-stg-02", "help@brightlane.io", "acme-logs-prod", "pinecone42"), never a short code,
    a version or a region."""
    return (
        len(key) >= 6
        and IDENTIFIER.search(key) is not None
        and re.search(r"[a-z].*[a-z]", key) is not None
        and _REGION.fullmatch(key) is None
    )


def identifies_one_thing(change: AnswerChange) -> bool:
    """An old value of the change is an identifier one thing has (``_unique``: a host, a
    bucket, an address), whichever key a text says it under."""
    return any(_unique(k) for k in change.old_keys)


def _distinctive(key: str) -> bool:
    """A value that could be nothing else: an identifier or a number of three characters."""
    return IDENTIFIER.search(key) is not None or (key[:1].isdigit() and len(key) >= 3)


_KIND_OF_PLACE = frozenset(
    str.split(
        """animal clinic hospital vet vets veterinary practice surgery dental medical school
    academy centre center gym studio club group property lettings bank fitness pool"""
    )
)


def _names_old(old: frozenset[str], found: set[str]) -> bool:
    """The sentence names the old value: all of its words, half of them or more ("Called
    Riverside to book his booster" after "Pham at Riverside Animal Clinic"), or one that could
    be nothing else (an identifier or a number: "it's pinecone42" after "CabinNet, password
    pinecone42")."""
    hit = old & found
    return bool(hit) and (
        2 * len(hit) >= len(old)
        or any(_distinctive(k) for k in hit)
        # the proper part of a place's name, the rest its kind ("Harbor" of "Harbor Animal
        # Clinic")
        or bool(hit - _KIND_OF_PLACE and not old - hit - _KIND_OF_PLACE)
    )


def _in_passing(
    frame: QuestionFrame,
    change: AnswerChange,
    sentence: str,
    found: Sequence[Value],
    embedded: AbstractSet[str],
) -> bool:
    """A sentence that does not name the question's subject still takes its old answer for
    granted when the old value could be nothing else: a name or identifier, or a number of
    three characters or more ("Called Riverside to book his booster", "psql ... -p 5433"),
    never a weekday or a month, which recur in any diary. It must name no other thing (a
    proper name besides the old value's own words: "Marta joined the Platform team" is Marta's
    team) and say nothing of what the question asks (its verb or type word: "Staging listens
    on 5432" is another subject's port, not a mention of production's old one)."""
    old = [v for v in found if v.key in change.old_keys]
    # a name that opens the sentence, or its note's body, is no value of it ("Greenleaf called
    # to confirm", "Reminder: Greenleaf charges ...")
    body = _NOTE_WORD.sub("", sentence, count=1).lstrip()
    opening = [
        t
        for t in change.old_values
        if t[:1].isupper() and t.lower() in change.old_keys and re.match(rf"{re.escape(t)}\b", body)
    ]
    if not (old or embedded or opening) or not all(
        v.kind == "name" or (v.kind == "number" and len(v.key) >= 3) for v in old
    ):
        return False
    if all(_unique(k) for k in {v.key for v in old} | set(embedded)):
        # a host, a bucket, an address, a password is one thing's: whatever else the
        # sentence names ("OPS-4411: redis-sess-01.internal memory at 87%")
        return True
    rest = sentence
    for text in change.old_values:
        # the old value with the capitalised words around it ("Sam Okafor", "Team Atlas")
        rest = re.sub(rf"(?:[A-Z][\w.'’-]*\s+)*{re.escape(text)}(?:\s+[A-Z][\w'’-]*)*", " ", rest)
    rest = _FLAG.sub(" ", rest)
    asked = frame.head | ({frame.verb} if frame.verb else frozenset())
    if asked & said_stems(rest) or proper_names(rest) - frame.words:
        return False
    # a capitalised first word before a verb is a name too ("Marta joined Falcon"); a note's
    # label is none ("Reminder: Greenleaf charges ...")
    first = tokens_of(_NOTE_WORD.sub("", rest, count=1))[:2]
    return not (
        len(first) == 2
        and first[0][:1].isupper()
        and root(first[0]) not in frame.words
        and not IDENTIFIER.search(first[0].lower())  # "OPS-212 is assigned to ..."
        and (first[1] in AUX or re.fullmatch(r"[a-z]+(?:ed|s)", first[1]) is not None)
    )


# The label of a note to oneself or to the team, which owns nothing ("Reminder:", "Bug:").
_NOTE_WORD = re.compile(
    r"^\s*(?:reminder|note(?: to self)?|fyi|psa|heads[- ]up|bug|todo|to-?do|update|ps|nb|tip|"
    r"warning|ticket)\s*:",
    re.IGNORECASE,
)


def revision(
    frame: QuestionFrame,
    older: str,
    newer: str,
    *,
    whole: bool = True,
    accumulates: Callable[[str], bool] | None = None,
) -> Revision | None:
    """``newer`` revises the paragraph ``older`` and changes its answer to the question.

    A revision restates every statement of the older paragraph (``prose_align.counterparts``:
    each has its own counterpart sharing most of its words), both paragraphs name the
    question's subject, and a statement about what the question asks has a value of the
    answer's kind its counterpart does not have, and the counterpart one it does not have
    ("Employees may work remotely up to two days per week" / "Staff may work remotely up to
    three days per week"). No change word is needed: the revision says everything again.

    ``whole=False`` reads a document re-issued with some statements reworded past
    recognition: the two open on counterpart statements ("Certificate rotation (runbook
    4.2): ..." / "Certificate rotation (runbook 4.2, revised): ...") and half the older's
    statements or more have one. What it returns is then that statement's change alone,
    never the whole older paragraph's.

    ``accumulates`` says whether a statement's frame (``_slotted``: its words, the changed
    value as ``_``) holds many values at once, by the deployment's resolution policies: a
    second "Welcome Rhys to the team" is one more member, no revision."""
    if sum(u.content for u in units_of(older)) < 2:
        return None  # a single statement is no paragraph: the announcement rule's case
    # a paragraph need not name all of what the question asks ("Hana Reyes is a senior
    # engineer ..." for "What is Hana Reyes's job title?"): half of it, and the restatement of
    # every statement, say it is the same text
    if not (_half(frame.subject, said_stems(older)) and _half(frame.subject, said_stems(newer))):
        return None
    pairs = counterparts(older, newer, every=whole)
    if pairs is None or not _same_lines(older, newer, pairs):
        return None
    if (
        not whole
        and len(pairs) == 1
        and not _past_label(pairs[0][0].text) & _past_label(pairs[0][1].text)
    ):
        # two messages under one label, sharing nothing past it ("Book club shortlist for
        # autumn: Tomorrow, and Tomorrow, ..." / "...: The Bee Sting, Declan's pick")
        return None
    asked = frame.words | frame.head
    # the one statement of a prose paragraph whose values changed may change them in a kind
    # the question's words do not say, where every other says the same values again
    # ("within 30 minutes" / "within 15 minutes" for "How quickly ..."); lines of code are
    # two files' as often as one's
    said = [(old, values(old.text), values(new.text)) for old, new in pairs]
    revised = [i for i, (_, was, now) in enumerate(said) if _changed(was, now)[0]]
    prose = whole and not any(u.line for u in units_of(older))
    only = revised[0] if len(revised) == 1 and prose else None
    for i, (old, was, now) in enumerate(said):
        # the one revised statement of a paragraph that names the subject may leave it to
        # the paragraph ("Every issue lands ... on Sunday morning" / "Each issue now arrives
        # on Thursday evening"), where its values are of the answer's kind and say more than
        # a quantity (core hours changed answer no "How many days ...?")
        named = bool(asked & said_stems(old.text))
        if not named and i != only:
            continue
        if i != only or not named:
            kinds = frame.kinds if named else frame.kinds - {"number"}
            was = [v for v in was if v.kind in kinds]
            now = [v for v in now if v.kind in kinds]
        gone, came = _changed(was, now)
        if not gone:
            continue
        if accumulates is not None and accumulates(_slotted(old.text, gone)):
            continue  # "Welcome Tomasz to the team!" / "Welcome Rhys to the team": one more
        # two paragraphs each naming something the other does not, the changed value aside,
        # are two articles of one shape ("Dunlaggan Island ... in the Sound of Jura" /
        # "Inchmorrow ... in the Firth of Lorn"), not one article revised
        changed = (" ".join(v.key for v in gone), " ".join(v.key for v in came))
        if each_lacks(proper_names(older), proper_names(newer), changed):
            return None
        return Revision(old.index, old.text, AnswerChange.of(gone, came))
    return None


def _same_lines(older: str, newer: str, pairs: Sequence[tuple[Unit, Unit]]) -> bool:
    """Whether each line of a file the pairing matches is its counterpart's line: the same file
    and, where both assign, the same key. Lines of one shape (``pub const AF_INET: i32 = 0;`` /
    ``pub const SHUT_RDWR: i32 = 2;``) share most of their words, in one file or in two."""
    lines = [(old, new) for old, new in pairs if old.line or new.line]
    if not lines:
        return True  # prose: nothing to read the keys of
    keys: list[dict[int, set[str]]] = [{}, {}]
    for side, text in zip(keys, (older, newer), strict=True):
        for kv in key_values(text):
            side.setdefault(kv.index, set()).add(kv.key.lower())
    for old, new in lines:
        if old.path != new.path:
            return False
        # a line may assign several keys (a signature's defaults): one key in common is one line
        was, now = keys[0].get(old.index), keys[1].get(new.index)
        if was and now and was.isdisjoint(now):
            return False
    return True


def _past_label(statement: str) -> frozenset[str]:
    """The stems a statement says after its label (``note_body``), if it has one."""
    body = note_body(statement)
    return said_stems(statement if body is None else body)


def _changed(was: Sequence[Value], now: Sequence[Value]) -> tuple[list[Value], list[Value]]:
    """The values gone from ``was`` and those new in ``now`` (both empty: none changed)."""
    gone = [v for v in was if v.key not in {n.key for n in now}]
    came = [v for v in now if v.key not in {w.key for w in was}]
    return (gone, came) if gone and came else ([], [])


def _slotted(statement: str, found: Sequence[Value]) -> str:
    """The statement as a frame: lower case, its words only, the values as the slot ``_``."""
    for v in found:
        statement = re.sub(rf"(?<![\w\-]){re.escape(v.text)}(?![\w\-])", " _ ", statement)
    return " ".join(re.findall(r"[\w'’\-]+", statement.lower()))


def _shown(found: Sequence[Value]) -> tuple[str, ...]:
    """Values as written, each once, in order."""
    return tuple(dict.fromkeys(v.text for v in found))


def announced_values(frame: QuestionFrame, newer: str, before: str = "") -> list[Value]:
    """The values of the question's kinds that a clause of ``newer`` announces on its own,
    with no older answer to anchor it: besides what ``announcement`` asks of the clause, it
    names the subject outside the values ("the replica host moved to db-ro-3.internal" names
    no database), no parallel subject (``_parallel_subject``), and the question's verb ("Lena
    moved to a flat on Quay Street" says nothing of where she works)."""
    if frame.verb and root(frame.verb) not in said_stems(newer):
        return []
    asked = frame.words | frame.head
    for clause in _announcing_clauses(frame, newer, before):
        bare = _without_values(clause, IDENTIFIER)
        named = _names_subject(frame, bare, newer, before, standing=False)
        if not named or _parallel_subject(bare, frame):
            continue
        new = [
            v for v in _heads(clause, frame) if v.kind in frame.kinds and root(v.key) not in asked
        ]
        if new:
            return new
    return []


# A value that may name a person: a capitalised word, no path, digit or code.
_PERSON = re.compile(r"[A-Z][a-z'’.-]*(?:[A-Z][a-z'’.-]*)*")


def recurring_change(
    frame: QuestionFrame,
    new: Sequence[Value],
    newer: str,
    older: Sequence[str],
    later: Sequence[str],
) -> AnswerChange | None:
    """The old answer an announcement replaces where no older statement answers the question
    in its words: the one value of the new value's kind (its words always said together)
    that two or more older statements repeat, none of it a word of a name the question says
    ("City" of "New York City"). Any doubt refuses: another value of the kind repeated too
    (the replica beside the primary, a second tool), the repeated value said again from the
    announcement on (the asked subject's value that stays while a parallel one changes), or
    the new value said before it."""
    if frame.person and not all(_PERSON.fullmatch(v.text) for v in new):
        return None  # "Who covers ...?" is not answered by "/ops/ingest"
    kinds = {v.kind for v in new}
    new_keys = {v.key for v in new}
    said_later = {t.lower() for text in (newer, *later) for t in tokens_of(text)}
    asked = frame.words | frame.head
    said = [{t.lower() for t in tokens_of(text)} for text in older]
    if any(new_keys & tokens for tokens in said):
        return None  # the new value was said before the announcement
    found: dict[str, Value] = {}
    for text in older:
        for v in _named(text):
            if (
                v.kind in kinds
                and root(v.key) not in asked
                and v.key not in new_keys
                and not _in_asked_name(text, v.text, asked)
                # a branch's old name is a branch's name ("green CI" is none)
                and (_BRANCH not in asked or _BRANCH_SHAPE.fullmatch(v.text))
            ):
                found.setdefault(v.key, v)
    # the older statements that say each value (a name as written), and the values always
    # said together as one
    where: dict[frozenset[int], list[Value]] = defaultdict(list)
    for key, v in found.items():
        if v.kind == "name" and v.text[:1].isupper():
            name = re.compile(rf"(?<![\w\-]){re.escape(v.text)}(?![\w\-])")
            chunks = frozenset(i for i, text in enumerate(older) if name.search(text))
        else:
            chunks = frozenset(i for i, tokens in enumerate(said) if key in tokens)
        where[chunks].append(v)
    repeated = [(chunks, vs) for chunks, vs in where.items() if len(chunks) >= 2]
    if len(repeated) != 1 or any(v.key in said_later for _, vs in repeated for v in vs):
        return None
    chunks, old = repeated[0]
    # one of them ties the value to the question: a word of its subject or type word ("On-call
    # pages come through Opsgenie"); a name only ever said apart from it ("Lunch with Priya",
    # "Priya says hi") is nobody's old answer
    if not any(said_stems(older[i]) & (frame.subject | frame.head) for i in chunks):
        return None
    # a where-question's old answer is said as a place somewhere ("at the Eastgate pool"), not
    # only as someone ("Swim lessons for Theo and Ava", "Ava passed her level 3 test!")
    if frame.place and not any(
        re.search(rf"\b(?:at|in|to|from|near)\s+(?:the\s+)?{re.escape(v.text)}\b", older[i])
        for i in chunks
        for v in old
    ):
        return None
    return AnswerChange.of(old, new)


def _in_asked_name(text: str, value: str, asked: frozenset[str]) -> bool:
    """The value is a word of a longer name the question says ("City" of "New York City" for
    a question about the New York Yankees)."""
    run = r"(?:[A-Z][\w'’\-]*\s+)*"
    for m in re.finditer(
        rf"{run}(?<![\w\-]){re.escape(value)}(?![\w\-])(?:\s+[A-Z][\w'’\-]*)*", text
    ):
        if any(root(w.lower()) in asked for w in m.group(0).split() if w != value):
            return True
    return False


def _named(text: str) -> list[Value]:
    """``values``, and the capitalised words that open a sentence or clause ("Opsgenie paged
    me", "ticket PAY-442: Opsgenie escalation ...") as names."""
    out = values(text)
    for m in re.finditer(r"(?:^|[.!?:;]\s+)([A-Z][\w\-]+)", text):
        low = m.group(1).lower()
        if low not in STOP and low not in FIRST_PERSON and low not in PRONOUNS:
            out.append(Value("name", low, m.group(1)))
    return out


def _parallel_subject(clause: str, frame: QuestionFrame) -> bool:
    """The clause's thing is the asked one's parallel: it belongs to someone the question does
    not name ("Mia's practice", "my sister's dentist"; "she's joined" is no owner), or a word
    the question does not say qualifies its first subject word ("Staging database host moved
    to ..." for the production database host)."""
    mine = frame.words | frame.head | FIRST_PERSON
    for m in _POSSESSIVE.finditer(clause):
        owner = m.group(1).lower()
        if owner not in STOP and owner not in PRONOUNS and root(owner) not in mine:
            return True
    words = tokens_of(clause)
    for i, token in enumerate(words):
        if root(token) in frame.subject:
            prev = words[i - 1] if i else ""
            return bool(prev) and not (
                # a person's or a product's name is qualified by no common word before it
                # ("After the restructure Leo reports to ...")
                (token[:1].isupper() and prev.islower())
                or prev.lower() in STOP
                or root(prev.lower()) in mine
                or _CUE.fullmatch(prev) is not None
                or _POSSESSIVE.match(f"{prev} x") is not None
            )
    return False


_LINKS = frozenset({"of", "is", "at", "on", "in", "=", "to"})


def _beside_subject(frame: QuestionFrame, change: AnswerChange, sentence: str) -> bool:
    """The old value stands next to a word of the question's subject, as its value ("the
    lisinopril 10 mg refill", "rent of £1,450", "Wednesday practice"). Not next to its type
    word: "port 5433" may be another subject's port."""
    words = tokens_of(sentence)
    for i, token in enumerate(words):
        if token.lower() not in change.old_keys:
            continue
        for step in (-1, 1):
            j = i + step
            if 0 <= j < len(words) and words[j].lower() in _LINKS:
                j += step
            if 0 <= j < len(words) and root(words[j].lower()) in frame.subject:
                return True
    return False
