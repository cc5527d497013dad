"""Changed habits, anchored on the question.

A habit has no value of a kind the announcement rule can compare: "I swim at the leisure
centre pool" becomes "Since the clocks changed I swim in the lido instead", "Dad walks the dog
at 7am" becomes "Dad walks the dog after dinner now". No key, no frame and no shared value;
the NLI checkpoint scores such pairs as contradictions no more often than it scores wrong ones
(on the development draws: P(contradiction) >= 0.6 for 4 of 38 true pairs and 5 of 31 wrong
ones). What the two statements share is the person, the question they answer and, in the
newer one, the words of a change ("now", "these days", "instead", "quit", "no longer").

The rule reads when-, where- and who-questions about a person (the user, someone the
question names, or their relation: "my dad"), whose answers have a shape a statement can be
checked for (a time, a place, a person), and the how- and what-questions answered from a
closed set (``gcmem.facts.answer_sets``: how someone gets to a place, what they drink at a time
of day, what they read on), where two statements naming no member in common differ, the newer
with a change word or a "since" and for no occasion only ("when it pours, I drive"); other
how- and what-questions, whose answer is any phrase, and questions with a type word (the
announcement rule's) decide nothing. Then:

- both statements are about the person (the user is the statements' "I", or a note's
  missing subject: "Been revising at the cafe"; a newer statement may open on a pronoun) and
  about no other person before the thing asked ("My daughter takes the bus to school");
- both say the thing the question asks about (its last word outside the phrase that says
  where the answer holds: "walk" in "When does Dad take his walk?"), as itself and not as the
  modifier of another thing ("lunch break"), and both give an answer of the question's shape
  ("at work" is no place for "Where does Marcus work?"), under the times the question names
  ("on weekdays");
- the newer statement says a change word and neither hedges ("thinking about", "might", a
  question), adds ("also", "too": a second habit is no change of the first) or holds on
  ("still"); the older one neither hedges, holds on, negates, nor is already past ("used to");
- the newer statement does not say the old answer again ("My run before work is up to 8k
  now" elaborates "I run every morning before work"), unless it gives it up ("quit the pool").

Precision first: a wrong excision hides a still-true fact, so everything the rule cannot read
is left as it is. Three development draws were written against it (``dev37`` ... ``dev39``):
each wrong excision they found became a guard above, and how/what-questions were left out
when every remaining one was of that kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from gcmem.facts.announced import question_frame
from gcmem.facts.answer_sets import AnswerSet, answer_set
from gcmem.facts.extract import line_speaker
from gcmem.facts.wording import (
    ADVERB,
    AUX,
    AUX_DO,
    CLAUSE_SPLIT,
    FIRST_PERSON,
    FREQUENCY,
    NUMBER_WORDS,
    PAIR,
    PRONOUNS,
    STOP,
    TITLES,
    WH,
    WHEN_ASKED,
    proper_names,
    root,
    said_stems,
    tokens_of,
    values,
    without_reason,
)
from gcmem.normalize import WEEKDAYS

__all__ = ["HabitChange", "asks_about_a_habit", "habit_change"]

# "now" in the question dates it, it says nothing of what is asked (``WHEN_ASKED`` takes out
# "these days" and the like)
_NOW_IN_QUESTION = re.compile(r"\b(?:currently|right now|now)\b", re.I)
_CHANGE = re.compile(
    r"\b(?:(?<!for )now(?! that)|these days|nowadays|lately|instead|switched|quit|stopped|"
    r"no longer|gave up|given up|anymore|any more|ever since|swapped|replaced|"
    r"moved to|moved (?:my|our|his|her|their|the)|taken over|took over|"
    r"taken up|took up|new routine|been \w+ing\b[^.;]*\bsince|^since)\b",
    re.I,
)
_HEDGE = re.compile(
    r"\b(?:might|may|could|should|would|thinking|considering|weighing|planning|plan to|"
    r"proposed|if|maybe|not sure|decided|wants?|hoping|trying|try|tempted|"
    r"wondering|probably)\b|\?",
    re.I,
)
# one more answer, not another ("I also walk in"); ``_ADDS`` also reads what grows ("more")
# ("too" before a word is a degree: "too tired to write")
_ALSO_WORDS = r"also|too(?!\s+[a-z])|as well|another|both|in addition"
_ALSO = re.compile(rf"\b(?:{_ALSO_WORDS})\b", re.I)
_ADDS = re.compile(rf"\b(?:{_ALSO_WORDS}|added|adding|extra|on top|more)\b", re.I)
_GIVE_UP = re.compile(
    r"\b(?:quit|stopped|no longer|gave up(?: on)?|given up(?: on)?|dropped|cancell?ed|"
    r"instead of|deleted)\b",
    re.I,
)
_KEPT_WORDS = r"still|same|again|used to|other"
_HOLDS = re.compile(rf"\b(?:{_KEPT_WORDS}|not|never|no)\b|n't\b", re.I)
_KEPT = re.compile(rf"\b(?:{_KEPT_WORDS})\b", re.I)
# a note without its "I": it opens on a verb in the past ("Switched to ...", "Been ...")
_CLIPPED = re.compile(r"[a-z]+ed|been|got|went|gave|took|began|quit|swapped|dropped")
_DOERS = frozenset(str.split("i you he she they we my your his her our their"))
_SUBJECT_PRONOUNS = frozenset({"i", "i'm", "i've", "i'll", "we", "we're", "we've"})
_FIRST_PERSON_PLURAL = frozenset({"we", "we're", "we've", "us", "our", "ours"})
# what says when, never what is asked
_TIME_WORDS = frozenset(
    root(w)
    for w in (
        *WEEKDAYS,
        *str.split("day days week weekend weekday night morning afternoon evening daily weekly"),
    )
)
# verbs that say nothing of what is asked ("What does the user do ...", "How does X get ...")
_GENERIC = frozenset(map(root, str.split("do does did get gets go goes have has kind sort type")))
# a place said: a locative preposition and its object ("at the lido"), or "home"
_PLACE = re.compile(
    r"\b(?:at|in|on|to|from|near|by|inside|outside|around|round|into)\s+"
    r"(?:(?:the|a|an|my|our|his|her|their|its)\s+)?([\w'’-]+)|\b(home|downstairs|upstairs)\b",
    re.I,
)
# words that may follow the thing asked without being a noun it modifies ("work most days")
_QUANTIFIERS = frozenset(str.split("most every each all some many few any this that these those"))
# the questions whose answer has a shape a statement can be checked for: a time, a place, a
# person; a how- or what-question's answer is any phrase (on the development draws every wrong
# excision of the rule was one: "When it pours, I drive Bram to school instead")
# (a how- or what-question answered from a closed set is read too: ``answer_sets``)
_SHAPED = frozenset({"when", "where", "who"})
# a change said with "since" ("Since we moved out I take the train in"), beside ``_CHANGE``
_SINCE = re.compile(r"\bsince\b", re.I)
# an answer for some occasions only ("when it pours, I drive")
# ("unless" names the exception to a habit that holds otherwise: "I cycle to work now unless
# it's pouring" is the change)
_OCCASION = re.compile(r"\b(?:when|whenever|if|on days)\b", re.I)
# how much the older statement needs its habit is no negation ("can't function without coffee")
_EMPHATIC = re.compile(
    r"\b(?:can't|cannot|can’t)\s+(?:function|live|survive|cope|start the day)\s+without\b|"
    r"\bdon't talk to me before\b",
    re.I,
)
_TIME_KINDS = frozenset({"day", "month", "number", "ordinal", "daypart"})
# prepositions of time, after which a word is said as itself ("in bed around 1am")
_AT_A_TIME = frozenset(str.split("around until till after before by at"))
# a word that places the number after it in time ("at 6", "by 10")
_PLACED_AT = rf"\b(?:{'|'.join(sorted(_AT_A_TIME))})\s+"
# bedtime is said in words of its own
_BEDTIME = re.compile(r"\b(?:lights[- ]out|asleep|bedtime|in bed|to bed|go to sleep)\b", re.I)
# a call is rung or phoned too ("Mum rings on Saturday mornings")
_PHONED = re.compile(r"\b(?:rings?|ringing|rang|phones?|phoned|phoning|facetimed?)\b", re.I)
_SAID_AS = {root("bed"): _BEDTIME, root("sleep"): _BEDTIME, root("call"): _PHONED}
_STILL = re.compile(r"\bstill\b", re.I)
# a when-question asked by its type word
_WHAT_TIME = re.compile(r"\s*(?:at\s+|on\s+)?(?:what|which)\s+(?:time|days?)\b", re.I)
_TIME_HEADS = frozenset(map(root, ("time", "day", "days")))
# verbs of habits that questions also use as function words
_HABIT_VERBS = frozenset({root("call")})
# People a question may ask about by their relation to the user or to someone named ("the
# user's daughter", "Ava's brother"): another person than the one a statement's "I" or name
# is, so a statement answers only where it says the same relation.
_RELATIONS: dict[str, str] = {
    word: group
    for group, words in {
        "mother": "mother mom mum mommy mummy mama",
        "father": "father dad daddy papa",
        "parent": "parent parents",
        "son": "son sons",
        "daughter": "daughter daughters",
        "child": "kid kids child children",
        "sibling": "sister brother sibling siblings",
        "spouse": "husband wife partner spouse boyfriend girlfriend fiance fiancee",
        "grandparent": "grandma grandmother grandpa grandfather nana granny gran",
        "other": "roommate flatmate housemate boss manager neighbour neighbor cousin aunt uncle "
        "colleague coworker co-worker teammate friend mate",
    }.items()
    for word in words.split()
}


@dataclass(frozen=True)
class HabitChange:
    """The older statement's habit, the newer statement that changes it, and the question's
    words both say as the thing asked (the habit, by its stems: the decision record names
    it)."""

    older: str
    newer: str
    shared: frozenset[str]


_ACRONYMS = re.compile(r"[A-Z]{2,}s")


def _persons(query: str) -> tuple[bool, frozenset[str]]:
    """Whether the question asks about the user, and the names it asks about."""
    words = {t.lower() for t in tokens_of(query)}
    user = bool(words & (FIRST_PERSON | {"user", "user's"}))
    names = frozenset(
        root(v.key)
        for v in values(query)
        if v.kind == "name"
        and v.text[:1].isupper()
        and v.key.isalpha()
        and not v.text.isupper()
        and not _ACRONYMS.fullmatch(v.text)  # "PRs", "PDFs": things, no one's name
    )
    return user, names


def _relation(token: str) -> str | None:
    low = token.lower().replace("’", "'").removesuffix("'s").removesuffix("'")
    return _RELATIONS.get(low)


def _of_person(sentence: str, asked: frozenset[str], focus: str, *, who: bool) -> bool:
    """The sentence says the relations the question asks about, and in the clause that says
    the thing asked, no other relation before it ("My daughter takes the bus to school" is
    the daughter's way to school, not the user's; "out fishing with my dad" is still the
    user's Saturday). A who-question asks for the person: any may come first."""
    said = {r for t in tokens_of(sentence) if (r := _relation(t))}
    if not asked <= said:
        return False
    if who:
        return True
    for clause in CLAUSE_SPLIT.split(sentence):
        tokens = tokens_of(clause or "")
        if not any(root(t.lower()) == focus for t in tokens):
            continue
        for t in tokens:
            if root(t.lower()) == focus:
                return True
            if (r := _relation(t)) is not None and r not in asked:
                return False
    return True


def _names_person(
    user: bool, names: frozenset[str], relations: frozenset[str], sentence: str, *, newer: bool
) -> bool:
    """The sentence is about the person asked: it names them ("Dad" for "my dad"); for the
    user, it says "I" or "we", or, in the clipped style of notes, opens on a verb in the past
    and names no other person ("Been revising at the cafe on Mill Road"); a newer statement
    may open on a pronoun."""
    said = said_stems(sentence)
    tokens = tokens_of(sentence)
    words = {t.lower().replace("’", "'") for t in tokens}
    if names and names <= said:
        return True
    if relations and relations <= {r for t in tokens if (r := _relation(t))}:
        return True
    if user and not names and not relations:
        if words & (FIRST_PERSON | _FIRST_PERSON_PLURAL) or "user" in said:
            return True
        others = words & (PRONOUNS - {"it", "it's"}) or any(_relation(t) for t in tokens)
        if not others and tokens and _CLIPPED.fullmatch(tokens[0].lower()):
            return True
    return newer and bool(tokens) and tokens[0].lower().replace("’", "'") in PRONOUNS


# capitalised names after a preposition name a place or a thing ("at Planet Fitness", "in
# Obsidian"), not a person
_PLACE_NAME = re.compile(
    r"\b(?i:at|in|on|to|from|into|near|by|with)\s+(?:the\s+)?((?:[A-Z][\w'’-]*\s*)+)"
)


def _one_speaker(q: _Asked, older: str, newer: str) -> bool:
    """A question that names its person ("When does Ana journal?") may ask about the
    memory's user by name, who writes "I journal every night before bed": two first-person
    statements with no speaker label are one person's, so a change between them is that
    person's whoever the name is. The older statement may name no person the newer one does
    not ("I take Maya to ballet on Tuesdays" / "I take Leo ... now" are two children)."""
    if not q.names or q.relations:
        return False
    for s in (older, newer):
        words = [t.lower().replace("’", "'") for t in tokens_of(s)]
        # a chat line's speaker ("Caroline: I went ..."): its "I" is that person
        if line_speaker(s) or not set(words) & (FIRST_PERSON | _FIRST_PERSON_PLURAL):
            return False
        if words[0] in PRONOUNS:
            return False
    places = {w.lower() for m in _PLACE_NAME.finditer(older) for w in m.group(1).split()}
    return not proper_names(older) - places - proper_names(newer) - q.names


def _names_someone(
    sentence: str,
    asked: frozenset[str],
    names: frozenset[str],
    relations: frozenset[str],
    focus: str,
) -> bool:
    """In the clause that says the thing asked, the sentence names a person the question
    does not: a name or a relation ("Tom has taken over the school run", "my neighbour walks
    the dog"), or "I" / "we" as a subject ("My hair is a disaster" names nobody who cuts it;
    "my manager" is the relation asked, not an answer)."""
    for clause in CLAUSE_SPLIT.split(sentence):
        tokens = tokens_of(clause or "")
        if not any(root(t.lower()) == focus for t in tokens):
            continue
        words = {t.lower().replace("’", "'") for t in tokens}
        people = {root(n) for n in proper_names(clause or "")} - asked - names
        opening = _opening_name(tokens) and root(_possessor(tokens[0])) not in names
        if (
            people
            or opening
            or any((r := _relation(t)) and r not in relations for t in tokens)
            or words & _SUBJECT_PRONOUNS
        ):
            return True
    return False


def _done_by_another(tokens: list[str]) -> bool:
    """A who-question whose "does" is an auxiliary before a named doer: "Who does Tariq report
    to?", "Who does my son play with?", "Who does the user live with?"."""
    low = [t.lower() for t in tokens]
    return (
        len(tokens) > 2
        and low[1] in AUX_DO
        and (tokens[2][:1].isupper() or low[2] in _DOERS or low[2:4] == ["the", "user"])
    )


def _possessor(token: str) -> str:
    return token.lower().replace("’", "'").removesuffix("'s")


def _says_place(sentence: str, asked: frozenset[str]) -> bool:
    """The sentence says a place that is not the question's own word ("at the lido"; "at
    work" for "Where does Marcus work?" says none)."""
    for m in _PLACE.finditer(sentence):
        word = m.group(1) or m.group(2)
        if word.isalpha() and root(word.lower()) not in asked | _TIME_WORDS:
            return True
    return False


def _opening_name(tokens: list[str]) -> bool:
    """A sentence opening on a capitalised word with "'s" opens on a name ("Dani's switched
    to cycling"), unless the word is a pronoun or a stop word ("It's", "That's")."""
    if not tokens or not tokens[0][:1].isupper():
        return False
    low = tokens[0].lower().replace("’", "'")
    base = low.removesuffix("'s")
    return low != base and base not in STOP and low not in PRONOUNS and base not in WH


_TIME_PHRASE = re.compile(
    r"\b(?:before|after)\s+(?:work|school|bed|class|lunch|dinner|breakfast)\b|"
    r"\bfirst thing\b|\blights[- ]out\b|\bbedtime\b",
    re.IGNORECASE,
)
# a clock time ("7:30", "6am", "6.15")
_CLOCK = re.compile(r"\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)|\d{1,2}[:.]\d\d", re.I)


def _says_time(sentence: str) -> bool:
    """The sentence says a time: a day, a month, a part of the day, a date, or a number that
    is a clock time or follows a word that places it in time ("at 6", "by 10"); "replaced
    every 600 km" says none. A time said by what it is before or after ("before work", "first
    thing", "lights out") is one too."""
    if _TIME_PHRASE.search(sentence):
        return True
    for v in values(sentence):
        if v.kind in _TIME_KINDS - {"number"}:
            return True
        if v.kind == "number" and (
            _CLOCK.fullmatch(v.text)
            or re.search(rf"{_PLACED_AT}{re.escape(v.text)}\b", sentence, re.I)
        ):
            return True
    return False


_AND = re.compile(r"\s+and\s+", re.IGNORECASE)


def _times_habit(sentence: str, focus: str, asked: frozenset[str]) -> bool:
    """The sentence says when the habit asked is done: a time in a part joined by "and" that
    says the habit too, not only in one that says another thing done ("I write in Scrivener
    and back up to Dropbox every evening" says when the backup is done)."""
    return any(_says_time(part) and _as_itself(focus, part, asked) for part in _AND.split(sentence))


def _as_itself(word: str, sentence: str, asked: frozenset[str]) -> bool:
    """``word`` is said as itself, not as the modifier of a noun the question does not ask
    about ("bouldering grade", "lunch break"); an adjective after it ("coffee black") is
    read as a noun too, so only a word not followed by such a noun counts."""
    said = [t.lower() for t in tokens_of(sentence) if root(t.lower()) == word]
    if not said:
        # bedtime in other words ("lights out by 10", "asleep by 10:30")
        other = _SAID_AS.get(word)
        return other is not None and other.search(sentence) is not None
    if any(t != word and re.search(r"(?:s|ed)$", t) for t in said):
        return True  # "drinks hot water": a verb and its object, no modifier
    for m in PAIR.finditer(sentence):
        first, noun = m.group(1), m.group(2)
        if (
            root(first.lower()) == word
            and root(noun) not in asked
            and noun not in STOP
            and noun not in AUX
            and noun not in _QUANTIFIERS
            and noun not in _AT_A_TIME
            and noun not in NUMBER_WORDS
            and not noun[:1].isdigit()
            and noun not in FREQUENCY
            and not re.search(r"(?:s|ed|ing)$", noun)
            and not ADVERB.fullmatch(noun)
            and not _CHANGE.fullmatch(noun)
        ):
            return False
    return True


def _answer_words(sentence: str, asked: frozenset[str]) -> frozenset[str]:
    """What the sentence says besides the question, the people, time of saying and stop
    words: its answer and the circumstances around it."""
    return frozenset(
        w
        for t in tokens_of(sentence)
        if (low := t.lower().replace("’", "'")) not in STOP
        and low not in FIRST_PERSON
        and low not in _FIRST_PERSON_PLURAL
        and low not in PRONOUNS
        and low not in AUX
        and low not in FREQUENCY
        and _relation(t) is None
        and not _CHANGE.fullmatch(low)
        and (w := root(low)) not in asked
        and w not in _GENERIC
    )


# Where an independent clause starts: after a comma before a new subject or "so", "and",
# "but"; at a semicolon or a full stop ("I swim before work, the pool opens at 6": the pool's
# hours are the circumstances of another clause)
_INDEPENDENT = re.compile(
    r",\s+(?=(?:so|and|but|the|our|my|we|i|it|they|this|that|there|he|she)\s)|;\s+|\.\s+",
    re.I,
)


def _answer_clause(sentence: str, focus: str) -> str:
    """The independent clause of ``sentence`` that says the thing asked (``focus``), where
    the answer is; the whole sentence if none or several do."""
    clauses = [c for c in _INDEPENDENT.split(sentence) if root(focus) in said_stems(c)]
    return clauses[0] if len(clauses) == 1 else sentence


def _given_up(sentence: str) -> frozenset[str]:
    """The words a sentence gives up: the three after "quit", "stopped", "no longer", ..."""
    out: set[str] = set()
    for m in _GIVE_UP.finditer(sentence):
        out |= {root(t.lower()) for t in tokens_of(sentence[m.end() :])[:3]}
    return frozenset(out)


@dataclass(frozen=True)
class _Asked:
    """What a when-, where- or who-question about a person asks, read once per query."""

    wh: str
    user: bool
    names: frozenset[str]
    relations: frozenset[str]
    asked: frozenset[str]  # the question's words and type word
    about: frozenset[str]  # those besides the person, the time and generic verbs
    focus: str  # the thing asked (see ``habit_change``)
    asks_doer: bool
    when: frozenset[str]  # the times the question names
    closed: AnswerSet | None = None  # the closed set that answers it (``answer_set``)


@lru_cache(maxsize=1024)
def _asked(query: str) -> _Asked | None:
    wh = query.lstrip().split(" ", 1)[0].lower()
    # "What time do I go to bed?", "Which days do I go in?": a when-question by its type word
    timed = _WHAT_TIME.match(query) is not None
    if timed:
        wh = "when"
    closed = answer_set(query)
    if wh not in _SHAPED and closed is None:
        return None  # "How do I take my coffee?": no shape to check an answer against
    undated = _NOW_IN_QUESTION.sub(" ", WHEN_ASKED.sub(" ", query))
    frame = question_frame(undated)
    if frame is not None and (
        (timed and frame.head <= _TIME_HEADS) or (closed and frame.head <= closed.heads)
    ):
        # the type word says when, or names the closed set: nothing else is asked
        frame = replace(frame, head=frozenset())
    if frame is None or frame.head:
        # "Which vet does Miso go to?": a named thing of a type, the announcement rule's to
        # compare ("vet says that's perfect" names the type, gives no answer); "What sports
        # does Ava play?" asks for a list
        return None
    user, names = _persons(query)
    relations = frozenset(r for t in tokens_of(query) if (r := _relation(t)))
    if closed is not None:
        # a closed set's habit may be a household's, asked with "we" ("How do we do the
        # grocery shopping?"; a team's process, "When do we deploy?", is no one's habit), or a
        # relation's ("How does dad follow the news?")
        user = user or bool({t.lower() for t in tokens_of(query)} & _FIRST_PERSON_PLURAL)
    if not (user or names or (closed is not None and relations)):
        return None
    asked = frame.words | frame.head
    about = asked - names - {"user"} - _GENERIC - _TIME_WORDS - TITLES
    # an acronym's plural is said many ways ("PRs", "PR reviews", "pull requests"): the verb
    # beside it says what the habit is
    acronyms = {root(t.lower()) for t in tokens_of(undated) if _ACRONYMS.fullmatch(t)}
    about = about - acronyms or about
    if not about:
        # "When does Dad call?": the habit is the verb the question frame reads as a function
        # word ("What do we call it?")
        about = frozenset(root(t.lower()) for t in tokens_of(undated)) & _HABIT_VERBS
        asked |= about
    # the thing asked about is the question's last such word outside the phrase that says
    # where the answer holds ("play games on" asks about games, "the cooking in the user's
    # household" about cooking), or in it where nothing else is asked ("get to work"): a pair
    # that shares only another word of the question is no answer
    order = [root(t.lower()) for t in tokens_of(undated)]
    focus = [w for w in order if w in about and w not in frame.scope] or [
        w for w in order if w in about
    ]
    if closed is not None and closed.to_place:
        # how someone gets to a place asks about the place ("commute to the office")
        focus = [w for w in order if w in frame.scope] or focus
    if not focus:
        return None
    return _Asked(
        wh=wh,
        user=user,
        names=names,
        relations=relations,
        asked=asked,
        about=about,
        focus=focus[-1],
        # "Who walks Biscuit?" and "Who does the school run?" ask for the one doing it; "Who
        # does Tariq report to?" for another, Tariq doing it
        asks_doer=wh == "who" and not _done_by_another(tokens_of(query)),
        when=frozenset(w for w in order if w in _TIME_WORDS and w in asked),
        closed=closed,
    )


def asks_about_a_habit(query: str) -> bool:
    """The question is one the rule reads (a when-, where- or who-question about a person,
    or one a closed set answers); for any other, ``habit_change`` is None for every pair."""
    return _asked(query) is not None


def habit_change(query: str, older: str, newer: str) -> HabitChange | None:
    """``newer`` changes the habit ``older`` states, as an answer to ``query``; or None."""
    q = _asked(query)
    if q is None:
        return None
    if not (
        _names_person(q.user, q.names, q.relations, older, newer=False)
        and _names_person(q.user, q.names, q.relations, newer, newer=True)
    ) and not _one_speaker(q, older, newer):
        return None
    if q.closed is not None:
        return _closed_change(q, q.closed, older, newer)
    if not _CHANGE.search(newer) or _HEDGE.search(newer) or _ADDS.search(newer):
        return None
    if _STILL.search(newer):
        return None
    if _HEDGE.search(older) or _HOLDS.search(older) or _ADDS.search(older):
        return None
    if not (_as_itself(q.focus, older, q.asked) and _as_itself(q.focus, newer, q.asked)):
        return None
    if not all(_of_person(s, q.relations, q.focus, who=q.asks_doer) for s in (older, newer)):
        return None
    if q.wh == "when" and not all(_times_habit(s, q.focus, q.asked) for s in (older, newer)):
        return None
    # each statement gives an answer of the question's shape: a person for who, a place for
    # where ("My manager signed off my leave" names the manager, it says nothing of who it is)
    if q.wh == "who" and not all(
        _names_someone(s, q.asked, q.names, q.relations, q.focus) for s in (older, newer)
    ):
        return None
    if q.wh == "where" and not all(_says_place(s, q.asked) for s in (older, newer)):
        return None
    # the times the question names say which habit it is ("on weekdays"): both say them
    if not all(q.when <= said_stems(s) for s in (older, newer)):
        return None
    # a newer statement that says the old answer again elaborates it ("my run before work is
    # up to 8k now" after "I run every morning before work"), unless it gives it up ("quit
    # sugar" after "two sugars")
    answer = _answer_clause(older, q.focus)
    again = said_stems(without_reason(newer))
    if _answer_words(answer, q.asked | q.names) & again - _given_up(newer):
        return None
    shared = frozenset(
        w for w in q.about if _as_itself(w, older, q.asked) and _as_itself(w, newer, q.asked)
    )
    return HabitChange(older, newer, shared)


def _closed_change(q: _Asked, answers: AnswerSet, older: str, newer: str) -> HabitChange | None:
    """The answer from a closed set changed: both statements speak of the habit asked and
    name members, none in common ("I bike to work" / "I've been taking the tram in"), the
    newer one with a change word or a "since", for no occasion only ("when it pours")."""
    plain = _EMPHATIC.sub(" ", older)
    was, now = answers.members(plain), answers.members(newer)
    if not was or not now or was & now:
        return None
    # giving the old answer up says the change too ("Dropped the e-reader, I'm back to paper")
    if not (_CHANGE.search(newer) or _SINCE.search(newer) or answers.given_up(newer) & was):
        return None
    if _HEDGE.search(newer) or _ALSO.search(newer) or _OCCASION.search(newer):
        return None
    # what holds on is a member ("still vegetarian at home"), not something else ("Pescatarian
    # now, still no meat")
    if any(
        _STILL.search(c) and answers.pattern.search(c)
        for c in re.split(r"[.!?]|" + CLAUSE_SPLIT.pattern, newer)
    ):
        return None
    # a negation in the older statement denies a member or nothing asked ("black coffee, no
    # sugar"): ``AnswerSet.given_up`` reads it
    if _HEDGE.search(plain) or _KEPT.search(plain) or _ALSO.search(plain):
        return None
    if _OCCASION.search(older):
        return None
    if not (answers.speaks_of(q.focus, older) and answers.speaks_of(q.focus, newer)):
        return None
    if not all(_of_person(s, q.relations, q.focus, who=False) for s in (older, newer)):
        return None
    return HabitChange(older, newer, frozenset({q.focus}))
