"""The deterministic sweep generator: same seed, same bytes.

Per accumulation ratio r (stale : current = N : M) and instance, M = ``new_turns`` turns assert
the current state and r * M turns the superseded one(s), among ``statics`` still-true facts
about the same entity and ``distractors`` unrelated turns. Instance kinds cycle behavioural,
keyed, static, behavioural, keyed, static, behavioural; categories cycle in a fixed order, so
every ratio holds the same mix and ratios are comparable.

- behavioural: a person's state (12 entity types) implied by what they did, first or third
  person, never named; 30% of instances with three or more states are chains A -> B -> C.
- keyed: one (subject, relation) value stated in one frame per instance (surface variants
  only: case of the first letter, a missing full stop), as deterministic supersession keys it.
- static: an attribute that never changes, asserted (r + 1) * M times; nothing may drop it.

Timeline: 240 days; the change falls at 55-85% of it; statics and distractors anywhere. Every
instance is a pure function of (seed, ratio, index); the distractor pool of (seed).

Full size (``--size full``): 7 ratios x 112 instances, 2 current turns, 4 statics and 116
distractors per instance = 137,760 turns of one chunk each, the scale of the original study.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from bench.scenarios.model import Scenario, ScenarioTurn, write_scenarios
from bench.scenarios.vocab import (
    BEHAVIORS,
    FIRST_PERSON,
    GENERIC_DISTRACTORS,
    KEYED,
    KEYED_SUBJECTS,
    OPENINGS,
    PEOPLE,
    REPORTING_VERBS,
    SLOTS,
    BehaviorType,
    KeyedCategory,
    Person,
)

GENERATOR_VERSION = 1
RATIOS: tuple[int, ...] = (1, 2, 5, 10, 20, 50, 100)
BASE_TIME = datetime(2024, 1, 1, 8, 0, tzinfo=UTC)
SPAN = timedelta(days=240)
CHAIN_SHARE = 0.3
POOL_SIZE = 6000


@dataclass(frozen=True)
class SizeSpec:
    instances_per_ratio: int
    distractors: int
    statics: int = 4
    new_turns: int = 2
    ratios: tuple[int, ...] = RATIOS

    def turns(self) -> int:
        per = self.statics + self.distractors
        return sum(self.instances_per_ratio * ((r + 1) * self.new_turns + per) for r in self.ratios)


SIZES: dict[str, SizeSpec] = {
    # CI: three ratios, one instance of each kind, a handful of distractors.
    "smoke": SizeSpec(instances_per_ratio=3, distractors=6, statics=2, ratios=(1, 5, 20)),
    "small": SizeSpec(instances_per_ratio=28, distractors=40),
    "medium": SizeSpec(instances_per_ratio=56, distractors=80),
    # 112 * sum_r (2 (r + 1) + 4 + 116) = 137,760 turns.
    "full": SizeSpec(instances_per_ratio=112, distractors=116),
}

# 3/7 behavioural, 2/7 keyed, 2/7 static; with 7 * 4 instances per ratio every one of the 12
# behavioural types appears equally often at every ratio.
KIND_CYCLE = ("behavioral", "keyed", "static", "behavioral", "keyed", "static", "behavioral")


# --- rendering -----------------------------------------------------------------------------


def _fill(template: str, rng: random.Random, **fixed: str) -> str:
    values = dict(fixed)
    for name in SLOTS:
        if "{" + name + "}" in template and name not in values:
            values[name] = rng.choice(SLOTS[name])
    return template.format(**values)


def render_behavior(template: str, person: Person, rng: random.Random) -> str:
    """A behavioural template in the first or third person, with subject drop / reporting."""
    body = template
    was = "was"
    if person is FIRST_PERSON:
        subject = "I"
        if body.startswith("{S} ") and rng.random() < 0.25:
            # Diary style: "Ran 10 kilometres ...". The first word is capitalised after filling.
            body = body[len("{S} ") :]
            subject = ""
    elif rng.random() < 0.25:
        subject = f"{person.name} {rng.choice(REPORTING_VERBS)} {person.subject}"
        was = person.was
    else:
        subject = person.name
    if subject and "{day}" not in body and "{month}" not in body and rng.random() < 0.25:
        body = rng.choice(OPENINGS) + body
    text = _fill(body, rng, S=subject, pos=person.pos, obj=person.obj, was=was)
    return text[:1].upper() + text[1:]


def render_keyed(frame: str, subject: str, value: str, rng: random.Random) -> str:
    text = frame.format(x=subject, v=value)
    if "==" in frame:
        return text
    roll = rng.random()
    if roll < 0.15 and text[:1].isupper() and not text.startswith(subject):
        return text[:1].lower() + text[1:]
    if roll > 0.85 and text.endswith("."):
        return text[:-1]
    return text


# --- the distractor pool -------------------------------------------------------------------


@dataclass(frozen=True)
class PoolEntry:
    text: str
    subject: str | None  # whose attribute it is about ("user", "person:Priya", ...), if anyone


def _person_key(person: Person) -> str:
    return "user" if person is FIRST_PERSON else f"person:{person.name}"


def build_pool(seed: int, size: int = POOL_SIZE) -> list[PoolEntry]:
    """Unrelated turns instances draw their distractors from: other people's behaviour, other
    subjects' keyed facts, everyday chatter. Deterministic in ``seed``; texts are distinct."""
    rng = random.Random(f"gcmem-sweep-pool:{GENERATOR_VERSION}:{seed}")
    people = (FIRST_PERSON, *PEOPLE)
    seen: set[str] = set()
    pool: list[PoolEntry] = []
    attempts = 0
    while len(pool) < size and attempts < size * 20:
        attempts += 1
        roll = rng.random()
        if roll < 0.4:
            person = rng.choice(people)
            btype = rng.choice(BEHAVIORS)
            template = rng.choice(btype.states[rng.choice(sorted(btype.states))])
            entry = PoolEntry(render_behavior(template, person, rng), _person_key(person))
        elif roll < 0.7:
            cat = rng.choice(KEYED)
            subject = rng.choice(KEYED_SUBJECTS[cat.subject_kind])
            text = render_keyed(rng.choice(cat.frames), subject, rng.choice(cat.values), rng)
            entry = PoolEntry(text, f"{cat.subject_kind}:{subject}")
        else:
            entry = PoolEntry(_fill(rng.choice(GENERIC_DISTRACTORS), rng), None)
        if entry.text not in seen:
            seen.add(entry.text)
            pool.append(entry)
    return pool


# --- instances -----------------------------------------------------------------------------


@dataclass
class _Draft:
    """Turns of one instance before times are sorted and ids assigned."""

    items: list[tuple[float, str, str, str | None]]  # (time fraction, text, role, state)

    def add(self, when: float, text: str, role: str, state: str | None) -> None:
        self.items.append((when, text, role, state))


def _states_for(rng: random.Random, states: Sequence[str], chain: bool) -> list[str]:
    """The sequence of states an instance goes through (the last is current)."""
    return rng.sample(list(states), 3 if chain else 2)


def _split_old(n_old: int, stale: list[str]) -> list[str]:
    """Old turns' states in time order: a chain's earlier states get equal shares."""
    if not stale:
        return []
    per = [n_old // len(stale) + (1 if i < n_old % len(stale) else 0) for i in range(len(stale))]
    return [s for s, n in zip(stale, per, strict=True) for _ in range(n)]


Say = Callable[[str], str]  # state -> an utterance asserting it


def _keyed_say(frame: str, subject: str, rng: random.Random) -> Say:
    return lambda state: render_keyed(frame, subject, state, rng)


def _repeat(draft: _Draft, rng: random.Random, n: int, state: str, say: Say) -> None:
    """A state that never changes, asserted ``n`` times anywhere on the timeline."""
    for _ in range(n):
        draft.add(rng.random(), say(state), "static", state)


def _evolve(
    draft: _Draft,
    rng: random.Random,
    change: float,
    counts: tuple[int, int],
    states: Sequence[str],
    say: Say,
) -> None:
    """Old turns (the superseded states, in order) before ``change``, new ones after it."""
    n_old, n_new = counts
    *stale, answer = states
    for when, state in zip(
        sorted(rng.uniform(0, change) for _ in range(n_old)),
        _split_old(n_old, stale),
        strict=True,
    ):
        draft.add(when, say(state), "old", state)
    for _ in range(n_new):
        draft.add(rng.uniform(change, 1), say(answer), "new", answer)


class Generator:
    def __init__(
        self, spec: SizeSpec, seed: int = 0, categories: Sequence[str] | None = None
    ) -> None:
        self.spec = spec
        self.seed = seed
        known = {b.name for b in BEHAVIORS} | {k.name for k in KEYED}
        if categories:
            unknown = sorted(set(categories) - known)
            if unknown:
                raise ValueError(f"unknown categories {unknown}; known: {sorted(known)}")
        wanted = set(categories) if categories else known
        self.behaviors = [b for b in BEHAVIORS if b.name in wanted]
        self.keyed = [k for k in KEYED if k.name in wanted]
        if not self.behaviors and not self.keyed:
            raise ValueError("no categories left to generate")
        self.pool = build_pool(seed)

    def scenarios(self) -> Iterator[Scenario]:
        for ratio in self.spec.ratios:
            counters = {"behavioral": 0, "keyed": 0, "static": 0}
            for index in range(self.spec.instances_per_ratio):
                kind = KIND_CYCLE[index % len(KIND_CYCLE)]
                # A category list without behaviours (or without keyed facts) folds onto the other.
                if kind == "behavioral" and not self.behaviors:
                    kind = "keyed"
                if kind == "keyed" and not self.keyed:
                    kind = "behavioral"
                slot = counters[kind]
                counters[kind] += 1
                rng = random.Random(f"gcmem-sweep:{GENERATOR_VERSION}:{self.seed}:{ratio}:{index}")
                yield self.instance(kind, slot, ratio, index, rng)

    def instance(
        self, kind: str, slot: int, ratio: int, index: int, rng: random.Random
    ) -> Scenario:
        spec = self.spec
        draft = _Draft([])
        n_new = spec.new_turns
        n_old = ratio * n_new
        change = rng.uniform(0.55, 0.85)
        meta: dict[str, str | int | float | bool | list[str] | None] = {
            "ratio": ratio,
            "seed": self.seed,
            "generator": GENERATOR_VERSION,
        }
        if kind == "static":
            use_behavior = (slot % 2 == 0 and self.behaviors) or not self.keyed
            if use_behavior:
                btype = self.behaviors[(slot // 2) % len(self.behaviors)]
                person = self._person(slot // 2, rng)
                state = rng.choice(sorted(btype.states))
                _repeat(
                    draft,
                    rng,
                    (ratio + 1) * n_new,
                    state,
                    partial(self._say, btype, person=person, rng=rng),
                )
                self._behavior_statics(draft, btype, person, rng)
                subject_key = _person_key(person)
                question, category = self._behavior_question(btype, person), btype.name
                options = sorted(btype.states)
                meta.update(
                    subject=person.name, person="first" if person is FIRST_PERSON else "third"
                )
            else:
                cat = self.keyed[(slot // 2) % len(self.keyed)]
                subject = rng.choice(KEYED_SUBJECTS[cat.subject_kind])
                frame = rng.choice(cat.frames)
                state = rng.choice(cat.values)
                _repeat(draft, rng, (ratio + 1) * n_new, state, _keyed_say(frame, subject, rng))
                self._keyed_statics(draft, cat, subject, rng)
                subject_key = f"{cat.subject_kind}:{subject}"
                question, category = cat.question.format(x=subject), cat.name
                options = sorted([*rng.sample([v for v in cat.values if v != state], 3), state])
                meta.update(subject=subject, frame=frame)
            answer, stale = state, []
            meta["options"] = options
        elif kind == "behavioral":
            btype = self.behaviors[slot % len(self.behaviors)]
            person = self._person(slot, rng)
            chain = len(btype.states) >= 3 and rng.random() < CHAIN_SHARE and n_old >= 2
            states = _states_for(rng, sorted(btype.states), chain)
            answer, stale = states[-1], states[:-1]
            say = partial(self._say, btype, person=person, rng=rng)
            _evolve(draft, rng, change, (n_old, n_new), states, say)
            self._behavior_statics(draft, btype, person, rng)
            subject_key = _person_key(person)
            question, category = self._behavior_question(btype, person), btype.name
            meta.update(
                subject=person.name,
                person="first" if person is FIRST_PERSON else "third",
                chain=chain,
                options=sorted(btype.states),
            )
        else:
            cat = self.keyed[slot % len(self.keyed)]
            subject = rng.choice(KEYED_SUBJECTS[cat.subject_kind])
            frame = rng.choice(cat.frames)
            chain = rng.random() < CHAIN_SHARE and n_old >= 2
            states = _states_for(rng, cat.values, chain)
            answer, stale = states[-1], states[:-1]
            _evolve(draft, rng, change, (n_old, n_new), states, _keyed_say(frame, subject, rng))
            self._keyed_statics(draft, cat, subject, rng)
            subject_key = f"{cat.subject_kind}:{subject}"
            question, category = cat.question.format(x=subject), cat.name
            meta.update(subject=subject, frame=frame, chain=chain)
        self._distractors(draft, subject_key, rng)
        scenario_id = f"{kind}-{category.replace(' ', '_')}-r{ratio}-{index:04d}"
        return Scenario(
            id=scenario_id,
            kind=kind,
            category=category,
            question=question,
            answer=answer,
            stale_answers=stale,
            turns=self._timeline(scenario_id, draft, ratio, index, rng),
            meta=meta,
        )

    # --- parts -------------------------------------------------------------------------------
    def _person(self, slot: int, rng: random.Random) -> Person:
        return FIRST_PERSON if slot % 2 == 0 else rng.choice(PEOPLE)

    @staticmethod
    def _behavior_question(btype: BehaviorType, person: Person) -> str:
        who = "the user" if person is FIRST_PERSON else person.name
        return btype.question.format(who=who, whose=f"{who}'s")

    @staticmethod
    def _say(btype: BehaviorType, state: str, *, person: Person, rng: random.Random) -> str:
        return render_behavior(rng.choice(btype.states[state]), person, rng)

    def _behavior_statics(
        self, draft: _Draft, asked: BehaviorType, person: Person, rng: random.Random
    ) -> None:
        others = [b for b in BEHAVIORS if b.name != asked.name]
        for i, btype in enumerate(rng.sample(others, 2)):
            state = rng.choice(sorted(btype.states))
            for _ in range(self.spec.statics // 2 + (i < self.spec.statics % 2)):
                draft.add(
                    rng.random(), self._say(btype, state, person=person, rng=rng), "static", None
                )

    def _keyed_statics(
        self, draft: _Draft, asked: KeyedCategory, subject: str, rng: random.Random
    ) -> None:
        """Other attributes of the same subject, each with one fixed value and frame."""
        others = [k for k in KEYED if k.subject_kind == asked.subject_kind and k is not asked]
        picks = [(rng.choice(k.frames), rng.choice(k.values)) for k in rng.sample(others, 2)]
        for i in range(self.spec.statics):
            frame, value = picks[i % len(picks)]
            draft.add(rng.random(), render_keyed(frame, subject, value, rng), "static", None)

    def _distractors(self, draft: _Draft, subject_key: str, rng: random.Random) -> None:
        eligible = [e for e in self.pool if e.subject != subject_key]
        for entry in rng.sample(eligible, min(self.spec.distractors, len(eligible))):
            draft.add(rng.random(), entry.text, "distractor", None)

    def _timeline(
        self, scenario_id: str, draft: _Draft, ratio: int, index: int, rng: random.Random
    ) -> list[ScenarioTurn]:
        start = BASE_TIME + timedelta(days=(index * 7 + ratio * 3) % 300)
        seconds = int(SPAN.total_seconds())
        used: set[int] = set()
        timed = []
        for when, text, role, state in draft.items:
            t = int(when * seconds)
            while t in used:  # distinct event times: equal timestamps never dominate
                t += 1
            used.add(t)
            timed.append((t, text, role, state))
        timed.sort(key=lambda item: item[0])
        return [
            ScenarioTurn(
                id=f"{scenario_id}-t{j:04d}",
                text=text,
                ts=start + timedelta(seconds=t),
                role=role,
                state=state,
            )
            for j, (t, text, role, state) in enumerate(timed)
        ]


def generate(
    size: str | SizeSpec = "smoke", seed: int = 0, categories: Sequence[str] | None = None
) -> list[Scenario]:
    spec = SIZES[size] if isinstance(size, str) else size
    return list(Generator(spec, seed, categories).scenarios())


def cli(
    out: Annotated[Path, typer.Option(help="Scenario file to write (JSONL).")],
    size: Annotated[str, typer.Option(help=f"One of {', '.join(SIZES)}.")] = "smoke",
    seed: Annotated[int, typer.Option(help="Generator seed.")] = 0,
    ratios: Annotated[
        str | None, typer.Option(help="Comma-separated ratios (default: the size's).")
    ] = None,
    categories: Annotated[
        str | None,
        typer.Option(help="Comma-separated categories to keep (held-out splits), e.g. diet,port."),
    ] = None,
) -> None:
    """Generate accumulation-ratio sweep scenarios (deterministic in the seed)."""
    if size not in SIZES:
        raise typer.BadParameter(f"unknown size {size!r}; choose from {', '.join(SIZES)}")
    spec = SIZES[size]
    if ratios:
        try:
            spec = replace(spec, ratios=tuple(int(r) for r in ratios.split(",") if r.strip()))
        except ValueError as exc:
            raise typer.BadParameter(f"ratios must be integers: {ratios!r}") from exc
    cats = [c.strip() for c in categories.split(",") if c.strip()] if categories else None
    try:
        scenarios = generate(spec, seed, cats)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    n = write_scenarios(scenarios, out)
    turns = sum(len(s.turns) for s in scenarios)
    typer.echo(f"wrote {n} instances ({turns:,} turns) to {out}")
