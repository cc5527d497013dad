"""The sweep's knobs (kept free of heavy imports: the CLI imports it at start-up)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SweepConfig:
    k: int = 10
    stm_size: int = 5
    rerank_k: int | None = None  # context the rankers keep; None = k
    usage_queries: int = 3
    oracles: tuple[str, ...] = ("nli", "gold", "noisy")
    noisy_recalls: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    # 0.3 is about what the offline NLI checkpoint reaches on the sweep's pairs (the committed
    # full run used exactly these; lower ones are skipped where the base rate makes them
    # unreachable, see ``reachable``).
    noisy_precisions: tuple[float, ...] = (1.0, 0.9, 0.75, 0.5, 0.3)
    noisy_seed: int = 0
    # The detector-dependency curve is read with the STM buffer off; both modes cost twice.
    noisy_stm: tuple[str, ...] = ("off",)
    # Write-time GC with κ flags (its own ingest per oracle): which of the oracles, and on how
    # many instances the model's runs (its κ at ingest costs the most; None = all).
    write_gc: tuple[str, ...] = ("gold", "nli")
    write_gc_model_limit: int | None = None

    @property
    def context_k(self) -> int:
        return self.rerank_k or self.k

    def noisy_names(self, base_rate: float | None = None) -> list[tuple[str, float, float]]:
        """(name, precision, recall) of each noisy detector; with ``base_rate``, only those
        reachable at that share of true contradictions (see ``reachable``)."""
        if "noisy" not in self.oracles:
            return []
        return [
            (noisy_name(p, r), p, r)
            for p in self.noisy_precisions
            for r in self.noisy_recalls
            if base_rate is None or reachable(p, r, base_rate)
        ]


def reachable(precision: float, recall: float, base_rate: float) -> bool:
    """Whether a detector of this recall can have this (expected) precision when a share
    ``base_rate`` of the pairs are contradictions: even flagging every other pair gives
    precision recall * b / (recall * b + 1 - b), so lower precisions do not exist."""
    return recall * base_rate * (1 - precision) <= precision * (1 - base_rate)


def noisy_name(precision: float, recall: float) -> str:
    return f"noisy-p{precision:g}-r{recall:g}"
