"""Label-driven conflict oracles for the sweep: gold κ and noisy gold κ at a set precision/recall.

Both implement gcmem's ``ConflictOracle`` protocol, so the very same Φ_T stage and verdict log
run with them as with the NLI cross-encoder; only κ differs. Labels come from a scenario: a
chunk asserts the state of its turn (``old``/``new`` turns, and ``static`` turns that answer
the question); two chunks contradict iff both assert a state and the states differ.

Noisy gold: a true contradiction is reported with probability ``recall``; a non-contradiction
with the false-positive rate that makes the expected precision ``precision`` on a pair
population whose share of true contradictions is ``base_rate``:

    precision = r π / (r π + f (1 - π))   =>   f = r π (1 - p) / (p (1 - π))

Each pair's coin is a hash of (seed, the unordered pair of content hashes), shared across
recall levels, so a detector with higher recall catches a superset of what a lower one does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import numpy as np

from bench.scenarios.model import Scenario
from gcmem.facts.chunking import chunk_text
from gcmem.models import content_hash
from gcmem.oracle.base import OracleError, OracleIdentity, Pair, decide

THRESHOLD = 0.5


class GoldLabels:
    """content hash -> the state it asserts (None: asserts nothing about the question)."""

    def __init__(self, scenario: Scenario, chunk_max_chars: int) -> None:
        states: dict[str, str | None] = {}
        origin: dict[str, str] = {}
        for turn in scenario.turns:
            state = turn.state if turn.role in ("old", "new", "static") else None
            for text in chunk_text(turn.text, chunk_max_chars):
                h = content_hash(text)
                if h in states and states[h] != state:
                    raise ValueError(
                        f"instance {scenario.id!r}: turns {origin[h]!r} and {turn.id!r} share a "
                        f"text but assert different states ({states[h]!r}, {state!r}); gold "
                        "labels are undefined"
                    )
                states[h] = state
                origin.setdefault(h, turn.id)
        self.states = states
        self.digest = hashlib.sha256(
            json.dumps(sorted(states.items(), key=lambda kv: kv[0])).encode()
        ).hexdigest()[:32]

    def state(self, text: str) -> str | None:
        h = content_hash(text)
        if h not in self.states:
            raise OracleError("a statement outside the scenario reached the gold oracle")
        return self.states[h]

    def contradicts(self, a: str, b: str) -> bool:
        sa, sb = self.state(a), self.state(b)
        return sa is not None and sb is not None and sa != sb


class GoldOracle:
    """κ from the labels: 1.0 for a true contradiction, else 0.0."""

    threshold = THRESHOLD

    def __init__(self, labels: GoldLabels) -> None:
        self.labels = labels
        self._identity = OracleIdentity("gold", {"labels": labels.digest})

    @property
    def identity(self) -> OracleIdentity:
        return self._identity

    @property
    def symmetric(self) -> bool:
        return True

    def score(self, pairs: Sequence[Pair]) -> np.ndarray:
        return np.array(
            [1.0 if self.labels.contradicts(a, b) else 0.0 for a, b in pairs], dtype=np.float64
        )

    def decide(self, scores: np.ndarray | float) -> np.ndarray:
        return decide(scores, self.threshold)


def false_positive_rate(recall: float, precision: float, base_rate: float) -> float:
    """The rate at which non-contradictions must be flagged for the expected precision."""
    if not 0 < recall <= 1 or not 0 < precision <= 1 or not 0 < base_rate < 1:
        raise ValueError(
            f"need 0 < recall <= 1, 0 < precision <= 1, 0 < base_rate < 1 "
            f"(got {recall}, {precision}, {base_rate})"
        )
    rate = recall * base_rate * (1 - precision) / (precision * (1 - base_rate))
    if rate > 1:
        raise ValueError(
            f"precision {precision} at recall {recall} is unreachable with base rate "
            f"{base_rate:.3f}: even flagging every non-contradiction gives more precision"
        )
    return rate


def pair_uniform(seed: int, a: str, b: str) -> float:
    """A uniform [0, 1) draw fixed by the seed and the unordered pair of contents."""
    ha, hb = sorted((content_hash(a), content_hash(b)))
    digest = hashlib.blake2b(f"{seed}:{ha}:{hb}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


class NoisyGoldOracle:
    """Gold κ seen through a detector of set recall and (expected) precision."""

    threshold = THRESHOLD

    def __init__(
        self,
        labels: GoldLabels,
        *,
        recall: float,
        precision: float,
        base_rate: float,
        seed: int = 0,
    ) -> None:
        self.labels = labels
        self.recall = recall
        self.precision = precision
        self.fp_rate = false_positive_rate(recall, precision, base_rate)
        self.seed = seed
        self._identity = OracleIdentity(
            "noisy-gold",
            {
                "labels": labels.digest,
                "recall": recall,
                "precision": precision,
                "base_rate": round(base_rate, 6),
                "seed": seed,
            },
        )

    @property
    def identity(self) -> OracleIdentity:
        return self._identity

    @property
    def symmetric(self) -> bool:
        return True

    def score(self, pairs: Sequence[Pair]) -> np.ndarray:
        out = np.zeros(len(pairs), dtype=np.float64)
        for i, (a, b) in enumerate(pairs):
            u = pair_uniform(self.seed, a, b)
            rate = self.recall if self.labels.contradicts(a, b) else self.fp_rate
            out[i] = 1.0 if u < rate else 0.0
        return out

    def decide(self, scores: np.ndarray | float) -> np.ndarray:
        return decide(scores, self.threshold)
