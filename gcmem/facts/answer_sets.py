"""Habit questions whose answers come from a closed set.

Most how- and what-questions about a habit are answered by any phrase, which no rule can
check ("How do I take my coffee?"). A few are answered from a short list everyone shares: how
someone gets to a place (a bike, the tram, the car), what they drink at some time of day
(coffee, green tea, rooibos), what they read on (a Kindle, paper books, audiobooks), which
diet they keep (vegetarian, pescatarian, vegan), how the food shop is done (delivered, at a
supermarket), what the news is followed on (TV, radio, a podcast). For
those, two statements about the habit that name no member of the list in common give two
different answers, which is what a change needs (``gcmem.facts.habits``): the words of the
list are the shape the answer is checked for, as a time is for a when-question.

Each set says where a statement speaks of the habit asked: a trip names its place ("bikes to
the office") or goes "in"; a drink or a read names the time of day the question asks about
("in the morning", "before bed"), so coffee in the morning and rooibos in the afternoon are
two habits, both true.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gcmem.facts.wording import root

__all__ = ["AnswerSet", "answer_set"]


def _members(groups: dict[str, str]) -> tuple[re.Pattern[str], dict[str, str]]:
    """A pattern of every member (longest first, so "green tea" is not read as "tea") and
    the member each word or phrase names. Phrases are "|"-separated."""
    member = {w: m for m, words in groups.items() for w in words.split("|")}
    alternatives = sorted(member, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, alternatives)) + r")\b", re.I)
    return pattern, member


@dataclass(frozen=True)
class AnswerSet:
    """A closed set of answers: the questions it answers, its members, and whether a
    statement speaks of the habit the question asks about (``focus``: the thing asked)."""

    name: str
    pattern: re.Pattern[str]
    member: dict[str, str]
    speaks_of: Callable[[str, str], bool]
    # the question's place is the thing asked ("commute to the office")
    to_place: bool = False
    # the type words that name the set ("What diet do I follow?")
    heads: frozenset[str] = frozenset()
    # what follows a member said of another thing ("vegan cheese", "veggie main"), if the
    # set's words are also adjectives
    modifies: re.Pattern[str] | None = None

    def members(self, sentence: str) -> frozenset[str]:
        """The members a sentence names, less those it gives up ("gave up coffee")."""
        named = {
            self.member[m[1].lower()]
            for m in self.pattern.finditer(sentence)
            if self.modifies is None or not self.modifies.match(sentence, m.end())
        }
        return frozenset(named - self.given_up(sentence))

    def given_up(self, sentence: str) -> frozenset[str]:
        """The members a sentence gives up or denies ("Dropped the e-reader", "I don't drive
        in"): each in the clause a cue opens."""
        return frozenset(
            self.member[m[1].lower()]
            for cue in _GIVEN_UP.finditer(sentence)
            for m in self.pattern.finditer(_CLAUSE_END.split(sentence[cue.end() :], 1)[0])
        )


# a member the statement leaves or denies ("gave up coffee", "three weeks without coffee",
# "off caffeine", "I don't drive in")
_GIVEN_UP = re.compile(
    r"\b(?:gave up|given up|quit|cut(?: out)?|without|off|stopped|no more|instead of|"
    r"swapped out|ditched|dropped|not|never|no)\b|n['’]t\b",
    re.I,
)

# where what is given up ends ("gave up coffee, it's green tea now")
_CLAUSE_END = re.compile(r"[,;.!?()]|\s[-–—]\s|\s(?:so|and|but|for)\s")
# the trip said without its destination ("taking the tram in"), a commute, the way there
_TRIP = re.compile(
    r"\b(?:in|commut\w*|door to door|way in|ride in|into (?:the )?(?:city|town))\b", re.I
)
_DESTINATION = re.compile(r"\b(?:to|into)\s+(?:(?:the|my|his|her|their|our|your)\s+)?([\w-]+)")
# one place by several words: work is the office ("cycles to the office" / "tram to work")
_WORKPLACE = frozenset(map(root, ("work", "office", "job", "desk")))


def _trip(focus: str, sentence: str) -> bool:
    """The sentence says the trip to the place asked: the place after "to" ("bikes to the
    office"; "Felix's work is close to the gym, so he walks there" is a trip to the gym), or
    the trip without one ("taking the tram in")."""
    places = _WORKPLACE if focus in _WORKPLACE else {focus}
    return (
        any(root(m[1].lower()) in places for m in _DESTINATION.finditer(sentence))
        or _TRIP.search(sentence) is not None
    )


# The times of day a drink or a read is had, each by its words.
_TIMES: dict[str, re.Pattern[str]] = {
    "morning": re.compile(
        r"\b(?:mornings?|breakfast|first thing|before (?:noon|standup|work)|"
        r"[5-9](?::\d\d)?\s?am)\b",
        re.I,
    ),
    "afternoon": re.compile(r"\b(?:afternoons?|after lunch|[1-5](?::\d\d)?\s?pm)\b", re.I),
    "evening": re.compile(r"\b(?:evenings?|nights?|bed|bedtime|lights out|before sleep)\b", re.I),
}
_TIME_OF = {
    **dict.fromkeys(("morning", "mornings"), "morning"),
    **dict.fromkeys(("afternoon", "afternoons"), "afternoon"),
    **dict.fromkeys(("evening", "evenings", "night", "nights", "bed", "bedtime"), "evening"),
}


def _at_time(query: str) -> Callable[[str, str], bool]:
    """A statement speaks of the habit asked where it says the question's time of day, if
    the question names one ("What do I drink in the morning?")."""
    asked = {_TIME_OF[w] for w in re.findall(r"[a-z]+", query.lower()) if w in _TIME_OF}

    def speaks_of(_focus: str, sentence: str) -> bool:
        return all(_TIMES[t].search(sentence) for t in asked)

    return speaks_of


_TRAVEL = _members(
    {
        "bike": "bike|bikes|biking|biked|cycle|cycles|cycling|cycled|bicycle|e-bike",
        "car": "drive|drives|driving|drove|car",
        "walk": "walk|walks|walking|walked",
        "bus": "bus",
        "tram": "tram|streetcar",
        "train": "train|metro|subway|tube|underground",
        "ferry": "ferry",
        "scooter": "scooter|e-scooter|moped|motorbike",
        "shuttle": "shuttle",
        "taxi": "taxi|uber|lyft",
        "carpool": "carpool|carpooling",
    }
)
_DRINKS = _members(
    {
        "coffee": "coffee|espresso|latte|lattes|flat white|flat whites|cappuccino|americano|"
        "drip|cold brew|macchiato|cortado|mocha",
        "decaf": "decaf",
        "green tea": "green tea|sencha",
        "matcha": "matcha",
        "rooibos": "rooibos",
        "herbal tea": "herbal tea|chamomile|peppermint tea|mint tea",
        "tea": "tea|black tea|builder's tea|earl grey|chai",
        # water is drunk beside anything ("loads of water in the evenings"): not a member
        "sparkling water": "sparkling water|seltzer",
        "beer": "beer|ipa|lager|pint|guinness|stout|ale",
        "wine": "wine|red wine|white wine|prosecco",
        "soft drink": "soda|lime and soda|ginger beer|coke|diet coke|lemonade",
        "juice": "juice|orange juice",
        "smoothie": "smoothie",
        "kombucha": "kombucha",
        "hot chocolate": "hot chocolate|cocoa",
    }
)
_READING = _members(
    {
        "e-reader": "kindle|e-reader|ereader|kobo",
        "paper": "paper books|paperbacks|paperback|hardbacks|physical books|library books|paper",
        "audio": "audiobooks|audiobook|audible",
        "screen": "phone|tablet|ipad",
    }
)

_DIETS = _members(
    {
        "vegan": "vegan|plant-based|plant based",
        "vegetarian": "vegetarian|veggie",
        "pescatarian": "pescatarian|pescetarian",
        "keto": "keto|ketogenic",
        "low-carb": "low-carb|low carb",
        "paleo": "paleo",
        "gluten-free": "gluten-free|gluten free",
        "dairy-free": "dairy-free|dairy free",
        "flexitarian": "flexitarian",
        "omnivore": "omnivore|omnivorous",
        "carnivore": "carnivore",
    }
)


# how the food shop is done: brought to the door, or bought at a shop (a supermarket by its
# name: "at the big Tesco"; its app is how a delivery is ordered, "through the Tesco app")
_SHOPPING = _members(
    {
        "delivery": "delivery|deliveries|delivered|ordered online|order online|orders online|"
        "online shop|online order|ocado|instacart",
        "collection": "click and collect|click-and-collect|curbside|kerbside|pickup|pick-up",
        "in store": "in-store|in store|supermarket|store trip|store trips|aldi|lidl|tesco|"
        "sainsbury's|asda|morrisons|waitrose|kroger|safeway|costco|walmart|publix|wegmans|"
        "trader joe's|whole foods|rewe|edeka|the market|farmers market|farmers' market",
    }
)
_ORDERED_THROUGH = re.compile(r"\s+(?:app|website|site|online|delivery|deliveries)\b", re.I)
# how someone follows the news: what they watch, hear or read it on
_NEWS = _members(
    {
        "tv": "tv|television|telly|the six o'clock news|evening news",
        "radio": "radio",
        "podcast": "podcast|podcasts",
        "newspaper": "newspaper|newspapers|the paper|paper edition",
        "online": "news app|apps|online|website|websites|twitter|reddit|newsletter|newsletters",
    }
)


def _said_with(words: str) -> Callable[[str, str], bool]:
    """A statement speaks of the habit asked where it says one of ``words`` ("groceries")."""
    pattern = re.compile(rf"\b(?:{words})", re.I)

    def speaks_of(_focus: str, sentence: str) -> bool:
        return pattern.search(sentence) is not None

    return speaks_of


# a diet's word before a noun is said of the thing ("vegan cheese", "veggie main",
# "pescatarian-friendly"), before these of the person ("vegan now", "vegetarian since uni")
_OF_A_THING = re.compile(
    r"-[a-z]|\s+(?!(?:diet|now|these|this|last|since|for|at|in|on|again|lately|nowadays|and|or|"
    r"but|so|too|about|mostly|except|though|anymore|any|from|with|to|by|after|before|when|if|"
    r"as|because|lifestyle|it|is|was|who|which|that|no|not|the|a|an|full-time|"
    r"these|days|years?|months?|weeks?)\b)[a-z]",
    re.I,
)


def _anywhere(_focus: str, _sentence: str) -> bool:
    """A diet is the person's whatever the statement is about."""
    return True


# how someone gets to a place; what they drink; what they read on, or how they read
_TRAVEL_QUESTION = re.compile(
    r"^how\s+(?:do|does|did)\s+.+?\s+(?:get|commute|travel|go|come)\b(?:\s+(?:to|into|in)\b|$)",
    re.I,
)
_DRINK_QUESTION = re.compile(r"^what\s+(?:do|does)\s+.+?\s+drink\b", re.I)
_DIET_QUESTION = re.compile(
    r"^what(?:'s|’s|\s+is)\s+(?:\S+\s+){1,3}?diet\b|"
    r"^what\s+(?:(?:kind|sort|type)\s+of\s+)?diet\s+(?:do|does|is)\b|\bdiet-wise\b",
    re.I,
)
_SHOPPING_QUESTION = re.compile(r"^how\b.*\b(?:grocer(?:y|ies)|food shop|weekly shop)\b", re.I)
_NEWS_QUESTION = re.compile(
    r"^how\s+(?:do|does)\s+.+?\s+(?:follow|get|keep up with)\s+.*\bnews\b", re.I
)
_READING_QUESTION = re.compile(
    r"^(?:what\s+(?:do|does)\s+.+?\s+read\s+on\b|how\s+(?:do|does)\s+.+?\s+read\b)", re.I
)


def answer_set(query: str) -> AnswerSet | None:
    """The closed set that answers a habit question, or None."""
    q = query.strip()
    if _TRAVEL_QUESTION.match(q):
        return AnswerSet("a way of travelling", *_TRAVEL, _trip, to_place=True)
    if _DRINK_QUESTION.match(q):
        return AnswerSet("a drink", *_DRINKS, _at_time(q))
    if _READING_QUESTION.match(q):
        return AnswerSet("a way of reading", *_READING, _at_time(q))
    if _SHOPPING_QUESTION.match(q):
        return AnswerSet(
            "a way of shopping",
            *_SHOPPING,
            _said_with("grocer|food shop|weekly shop|big shop"),
            modifies=_ORDERED_THROUGH,
        )
    if _NEWS_QUESTION.match(q):
        return AnswerSet("a way of following the news", *_NEWS, _said_with("news"))
    if _DIET_QUESTION.search(q):
        return AnswerSet(
            "a diet", *_DIETS, _anywhere, heads=frozenset({root("diet")}), modifies=_OF_A_THING
        )
    return None
