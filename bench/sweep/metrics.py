"""Per-instance metrics of one context, and the two deterministic reader proxies.

A context is the ordered list of turn ids a condition hands the reader (a turn counts once,
however many of its chunks made it). "Current" turns assert the answer: ``new`` turns, or in a
``static`` instance the ``static`` turns whose state is the answer. Current-state recall is
defined for evolving (keyed, behavioural) instances only.

Reader proxies (forced: they must answer, and an empty answer counts as wrong):
- ``majority``: the state asserted by the most context turns; ties go to the state of the
  highest-ranked turn among the tied states. This is the "majority vote trap" made explicit.
- ``top``: the state of the highest-ranked context turn that asserts any state.
A turn asserts a state when the scenario gives it one (``old``, ``new``, answering ``static``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bench.scenarios.model import Scenario

Grade = Literal["correct", "stale", "wrong", "abstain"]
READERS = ("majority", "top")


@dataclass(frozen=True)
class InstanceLabels:
    answer: str
    stale: frozenset[str]
    role: dict[str, str]
    state: dict[str, str | None]
    current: frozenset[str]
    totals: dict[str, int]  # role -> turns in the instance ("current" included)
    evolving: bool  # keyed / behavioural: the state changed; static: it never did

    @classmethod
    def of(cls, scenario: Scenario) -> InstanceLabels:
        role: dict[str, str] = {t.id: t.role for t in scenario.turns}
        state = {t.id: t.state if t.role != "distractor" else None for t in scenario.turns}
        current = frozenset(
            t.id
            for t in scenario.turns
            if t.role == "new" or (t.role == "static" and t.state == scenario.answer)
        )
        totals: Counter[str] = Counter(role.values())
        totals["current"] = len(current)
        return cls(
            answer=scenario.answer,
            stale=frozenset(scenario.stale_answers),
            role=role,
            state=state,
            current=current,
            totals=dict(totals),
            evolving=scenario.kind != "static",
        )


def dedupe(turns: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(turns))


def majority_reader(labels: InstanceLabels, context: Sequence[str]) -> str | None:
    asserted = [labels.state[t] for t in context if labels.state.get(t) is not None]
    if not asserted:
        return None
    counts = Counter(asserted)
    best = max(counts.values())
    tied = {s for s, n in counts.items() if n == best}
    return next(s for s in asserted if s in tied)  # the highest-ranked of the tied states


def top_reader(labels: InstanceLabels, context: Sequence[str]) -> str | None:
    return next((labels.state[t] for t in context if labels.state.get(t) is not None), None)


def grade(labels: InstanceLabels, answer: str | None) -> Grade:
    if answer is None:
        return "abstain"
    if answer == labels.answer:
        return "correct"
    return "stale" if answer in labels.stale else "wrong"


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def context_metrics(
    labels: InstanceLabels, context: Sequence[str], candidates: Sequence[str]
) -> dict[str, float | None]:
    """Metrics of ``context`` (ordered turn ids) drawn from the candidate set ``candidates``."""
    ctx = dedupe(context)
    pool = set(candidates)

    def count(turns: Sequence[str] | set[str], role: str) -> int:
        if role == "current":
            return sum(t in labels.current for t in turns)
        return sum(labels.role.get(t) == role for t in turns)

    in_ctx = {r: count(ctx, r) for r in ("current", "old", "static", "distractor")}
    in_pool = {r: count(pool, r) for r in ("current", "old", "static")}
    out: dict[str, float | None] = {
        "context_size": float(len(ctx)),
        "current_in_candidates": float(in_pool["current"] > 0),
        "purity": float(in_ctx["current"] > 0 and in_ctx["old"] == 0),
        # The filter's own share: purity where retrieval put a current chunk in R_k at all (no
        # filter can add what retrieval missed).
        "purity_if_retrieved": (
            float(in_ctx["current"] > 0 and in_ctx["old"] == 0) if in_pool["current"] else None
        ),
        "stale_exposure": float(in_ctx["old"] > 0),
        "stale_share": _share(in_ctx["old"], len(ctx)),
        "shadows_removed": float(in_pool["old"] - in_ctx["old"]),
        "static_retention": _share(in_ctx["static"], in_pool["static"]),
    }
    for role in ("current", "old", "static", "distractor"):
        out[f"recall_{role}"] = _share(in_ctx[role], labels.totals.get(role, 0))
    if not labels.evolving:
        # A static instance restates its answer (r + 1) * M times; the share of those in a k-chunk
        # context shrinks by construction, which says nothing about the filter.
        out["recall_current"] = None
    for reader, answer in (
        ("majority", majority_reader(labels, ctx)),
        ("top", top_reader(labels, ctx)),
    ):
        g = grade(labels, answer)
        out[f"accuracy_{reader}"] = float(g == "correct")
        out[f"stale_answer_{reader}"] = float(g == "stale")
        out[f"abstain_{reader}"] = float(g == "abstain")
    return out
