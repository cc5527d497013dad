"""Labelled statement pairs for the oracle benchmark, and the memory timeline its latency runs use.

- NLI held-out sets (never trained on by the shared checkpoint): SNLI test, MNLI
  dev-mismatched, counterfactual SNLI test, binarised to contradiction / not.
- Agent-memory pairs (older, newer), written for this benchmark: keyed value flips,
  behavioural state changes (the state is implied, never named), compatible facts about the same
  entity, restatements, and unrelated pairs. Small and hand-made; the sweep generator
  (``bench.scenarios``) can supply more.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

NLI_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "nli"
HELD_OUT = {
    "snli-test": "snli/test.jsonl",
    "mnli-dev-mismatched": "mnli/dev_mismatched.jsonl",
    "cad-snli-test": "cad_snli/test.jsonl",
}


@dataclass(frozen=True)
class LabelledPair:
    older: str  # the premise for NLI sets
    newer: str
    contradiction: bool
    category: str


def load_nli(name: str, limit: int | None = None, nli_dir: Path = NLI_DIR) -> list[LabelledPair]:
    path = nli_dir / HELD_OUT[name]
    if not path.is_file():
        raise FileNotFoundError(f"NLI set {name} not found at {path}")
    out = []
    with path.open() as fh:
        for line in fh:
            row = json.loads(line)
            label = row["label"]
            out.append(
                LabelledPair(row["premise"], row["hypothesis"], label == "contradiction", label)
            )
            if limit is not None and len(out) >= limit:
                break
    return out


# --- agent-memory pairs -------------------------------------------------------------------------

# (template, values): the same statement with two different values is a keyed value flip.
KEYED_FLIPS: list[tuple[str, tuple[str, ...]]] = [
    ("The payments service runs on port {}.", ("8000", "8080", "9000", "5000")),
    ("The auth service listens on port {}.", ("4000", "4443", "8443")),
    ("We pin fastapi at {} in requirements.txt.", ("0.95.2", "0.110.0", "0.111.1")),
    ("The project uses Python {}.", ("3.10", "3.11", "3.12")),
    ("The API base path for the project is {}.", ("/api/v1", "/api/v2", "/v3")),
    ("The staging database is called {}.", ("orders_stage", "orders_staging", "stage_db")),
    ("The default request timeout is {} seconds.", ("30", "60", "1800")),
    ("Maria reports to {}.", ("Dana", "Lee", "Kofi")),
    ("The deploy branch is {}.", ("main", "release", "production")),
    ("The CI pipeline runs on {}.", ("GitHub Actions", "GitLab CI", "Jenkins")),
    ("Priya lives in {}.", ("Berlin", "Lisbon", "Toronto")),
    ("Sam's favourite food is {}.", ("ramen", "tacos", "paella")),
    ("The cache backend is {}.", ("Redis", "Memcached", "Valkey")),
    ("The frontend is built with {}.", ("React", "Vue", "Svelte")),
    ("Omar works at {}.", ("Google", "Microsoft", "a small startup")),
    ("The nightly backup runs at {}.", ("02:00 UTC", "04:30 UTC", "23:00 UTC")),
    ("The maximum upload size is {} MB.", ("10", "25", "100")),
    ("The team's stand-up is at {}.", ("9:30", "10:00", "11:15")),
    ("The production cluster is in region {}.", ("eu-west-1", "us-east-1", "ap-south-1")),
    ("Our log level in production is {}.", ("INFO", "WARNING", "DEBUG")),
]

# (older, newer): the newer statement implies the older state no longer holds.
BEHAVIOURAL: list[tuple[str, str]] = [
    (
        "Sam complained about feeling winded after one flight of stairs.",
        "Sam jogged three miles before breakfast.",
    ),
    ("Priya is a strict vegetarian.", "Priya ordered a rare steak at dinner."),
    ("Jonas doesn't drink alcohol at all.", "Jonas had three beers at the pub last night."),
    ("Aiko is afraid of flying and never takes planes.", "Aiko flew to Tokyo for the weekend."),
    ("Noah broke his leg and is on crutches.", "Noah played a full football match on Sunday."),
    ("Elena hates coffee.", "Elena drinks three espressos every morning."),
    ("Kwame is allergic to cats.", "Kwame adopted two cats and sleeps with them on his bed."),
    ("Fatima can't swim.", "Fatima swam across the lake on Saturday."),
    ("Omar quit smoking last year.", "Omar smoked a cigarette after lunch."),
    ("Mei has never left her home country.", "Mei spent a month backpacking in Peru."),
    ("Diego is single.", "Diego introduced me to his wife at the party."),
    ("Zoe works night shifts at the hospital.", "Zoe starts her office job at 9 every morning."),
    ("Arjun doesn't own a car.", "Arjun drove his car to the beach."),
    ("Lucia is learning to play the piano as a beginner.", "Lucia performed a Chopin concerto."),
    ("Rafael is saving money and never eats out.", "Rafael eats at restaurants every night."),
    ("Hannah is pregnant with her first child.", "Hannah has never been pregnant."),
    ("Yusuf is a night owl who sleeps until noon.", "Yusuf wakes up at 5 am every day."),
    ("Alex is vegan.", "Alex had a cheeseburger and a milkshake for lunch."),
    ("Ingrid is terrified of dogs.", "Ingrid spends every afternoon at the dog park with her dog."),
    ("Tomás lives alone.", "Tomás shares his flat with three roommates."),
    ("Sam was too weak to walk to the shop.", "Sam carried the sofa up four floors alone."),
    ("Priya has been unemployed since March.", "Priya went to her office job today."),
    ("Jonas is bedridden with the flu.", "Jonas went rock climbing today."),
    (
        "Aiko is colour-blind and can't tell red from green.",
        "Aiko easily sorted the red and green beads.",
    ),
    ("Noah never reads books.", "Noah reads a novel every week."),
    ("Elena is scared of heights.", "Elena went skydiving on her birthday."),
    ("Kwame lost his sense of smell.", "Kwame loves the smell of fresh bread."),
    ("Fatima is a teetotaller.", "Fatima drank a bottle of wine at the wedding."),
    ("Omar is an only child.", "Omar visited his brother and sister at Christmas."),
    ("Mei can't drive.", "Mei drove us to the airport."),
    ("Diego is allergic to peanuts.", "Diego eats peanut butter sandwiches every day."),
    ("Zoe has never been to Paris.", "Zoe lived in Paris for five years."),
    (
        "The payments service is deprecated and switched off.",
        "The payments service handles all checkout traffic.",
    ),
    (
        "The old build server has been decommissioned.",
        "The old build server ran last night's release build.",
    ),
    (
        "The feature flag for dark mode is disabled for everyone.",
        "All users see dark mode by default.",
    ),
    ("The repository is private.", "Anyone on the internet can clone the repository."),
]

# Facts about the same entity that can all be true.
COMPATIBLE: list[tuple[str, str]] = [
    ("The payments service runs on port 8000.", "The payments service is written in Go."),
    ("The payments service runs on port 8080.", "The payments service talks to Postgres."),
    (
        "We pin fastapi at 0.110.0 in requirements.txt.",
        "We pin pydantic at 2.6.0 in requirements.txt.",
    ),
    ("The API base path for the project is /api/v2.", "The project is licensed under Apache-2.0."),
    ("Sam jogged three miles before breakfast.", "Sam's favourite food is ramen."),
    ("Priya lives in Berlin.", "Priya works as a data engineer."),
    ("Priya is a strict vegetarian.", "Priya loves spicy food."),
    (
        "Jonas had three beers at the pub last night.",
        "Jonas watched the football match at the pub.",
    ),
    ("Maria reports to Dana.", "Maria leads the platform team."),
    ("The staging database is called orders_stage.", "The staging database runs Postgres 16."),
    ("The default request timeout is 30 seconds.", "The default retry count is 3."),
    (
        "The CI pipeline runs on GitHub Actions.",
        "The CI pipeline runs the unit tests on every push.",
    ),
    ("Elena drinks three espressos every morning.", "Elena walks to work."),
    ("Omar works at Google.", "Omar commutes by bike."),
    ("Aiko flew to Tokyo for the weekend.", "Aiko visited her grandmother in Tokyo."),
    ("Noah played a full football match on Sunday.", "Noah's team won 3-1."),
    ("The cache backend is Redis.", "The cache entries expire after ten minutes."),
    ("The frontend is built with React.", "The frontend uses TypeScript."),
    ("The production cluster is in region eu-west-1.", "The production cluster has twelve nodes."),
    ("Kwame adopted two cats.", "Kwame works from home on Fridays."),
    ("Fatima swam across the lake on Saturday.", "Fatima trains for a triathlon."),
    ("Mei spent a month backpacking in Peru.", "Mei speaks Spanish."),
    ("Diego introduced me to his wife at the party.", "Diego brought a cake to the party."),
    ("Zoe works night shifts at the hospital.", "Zoe is a nurse."),
    ("Arjun drove his car to the beach.", "Arjun likes surfing."),
    ("Our log level in production is INFO.", "Logs are shipped to Loki."),
    ("The nightly backup runs at 02:00 UTC.", "Backups are kept for 30 days."),
    ("The deploy branch is main.", "Pull requests need two approvals."),
    ("The team's stand-up is at 9:30.", "The team's retro is on Fridays."),
    ("Hannah is pregnant with her first child.", "Hannah is taking a prenatal yoga class."),
]

# The same fact said again in other words: reinforcement, not conflict.
RESTATEMENTS: list[tuple[str, str]] = [
    ("The payments service runs on port 8080.", "Port 8080 is where the payments service listens."),
    ("We pin fastapi at 0.110.0 in requirements.txt.", "requirements.txt has fastapi==0.110.0."),
    ("The timeout is 1800 seconds.", "The timeout is set to 1800 s."),
    ("Sam jogged three miles before breakfast.", "Before breakfast Sam went for a three-mile run."),
    ("Priya lives in Berlin.", "Priya's home is in Berlin."),
    ("Maria reports to Lee.", "Lee is Maria's manager."),
    ("The cache backend is Redis.", "We use Redis for caching."),
    ("Elena hates coffee.", "Elena can't stand coffee."),
    ("The API base path for the project is /api/v2.", "All endpoints live under /api/v2."),
    ("Omar works at Microsoft.", "Omar is employed by Microsoft."),
    ("The deploy branch is release.", "We deploy from the release branch."),
    ("Aiko is afraid of flying.", "Flying scares Aiko."),
]


def memory_pairs(seed: int = 7) -> list[LabelledPair]:
    """The labelled agent-memory set (deterministic)."""
    rnd = random.Random(seed)
    pairs: list[LabelledPair] = []
    for template, values in KEYED_FLIPS:
        a, b = rnd.sample(values, 2)
        pairs.append(LabelledPair(template.format(a), template.format(b), True, "keyed-flip"))
    pairs += [LabelledPair(a, b, True, "behavioural") for a, b in BEHAVIOURAL]
    pairs += [LabelledPair(a, b, False, "compatible") for a, b in COMPATIBLE]
    pairs += [LabelledPair(a, b, False, "restatement") for a, b in RESTATEMENTS]
    # Unrelated: statements about different entities, drawn from the sets above.
    pool = sorted({s for p in pairs for s in (p.older, p.newer)})
    for _ in range(40):
        a, b = rnd.sample(pool, 2)
        if _entity(a) != _entity(b):
            pairs.append(LabelledPair(a, b, False, "unrelated"))
    return pairs


def _entity(sentence: str) -> str:
    words = sentence.split()
    return " ".join(words[:3]) if words[0].lower() in {"the", "our", "we"} else words[0]


# --- a memory timeline for the latency runs ----------------------------------------------------


@dataclass(frozen=True)
class TimelineTurn:
    text: str
    ts: datetime


T0 = datetime(2025, 6, 2, 9, 0, tzinfo=UTC)


def memory_timeline(rounds: int = 3, seed: int = 11) -> list[TimelineTurn]:
    """Value histories (each keyed template restated with changing values), behavioural
    changes, compatible facts and restatements, spread over ``rounds`` x 30 days."""
    rnd = random.Random(seed)
    turns: list[TimelineTurn] = []
    minute = 0

    def at(day: float) -> datetime:
        nonlocal minute
        minute += 1
        return T0 + timedelta(days=day, minutes=minute)

    for r in range(rounds):
        base = 30.0 * r
        for template, values in KEYED_FLIPS:
            turns.append(
                TimelineTurn(
                    template.format(values[r % len(values)]), at(base + rnd.uniform(0, 29))
                )
            )
        for older, newer in BEHAVIOURAL:
            turns.append(
                TimelineTurn(older if r % 2 == 0 else newer, at(base + rnd.uniform(0, 29)))
            )
        for a, b in COMPATIBLE + RESTATEMENTS:
            turns.append(TimelineTurn(a if r % 2 == 0 else b, at(base + rnd.uniform(0, 29))))
    return sorted(turns, key=lambda t: t.ts)


QUERIES: list[str] = [
    "Which port does the payments service run on?",
    "What fastapi version do we pin?",
    "What is the API base path?",
    "How fit is Sam?",
    "Who does Maria report to?",
    "Where does Priya live?",
    "What does Jonas drink?",
    "Does Aiko fly?",
    "What is the staging database called?",
    "What is the default request timeout?",
    "Which CI system do we use?",
    "What does Elena drink in the morning?",
    "Does Kwame have pets?",
    "Where does Omar work?",
    "What cache backend do we use?",
    "Which region is the production cluster in?",
    "What log level do we use in production?",
    "Is the repository public?",
    "Can Mei drive?",
    "Is Diego married?",
    "What does Alex eat?",
    "When is the nightly backup?",
    "What is the deploy branch?",
    "Which Python version does the project use?",
]


def iter_texts(pairs: list[LabelledPair]) -> Iterator[str]:
    for p in pairs:
        yield p.older
        yield p.newer
