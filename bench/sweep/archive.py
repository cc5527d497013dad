"""The model oracle's verdicts, kept across sweep runs: one JSONL file per oracle identity θ.

gcmem's verdict log stores P(contradiction) per content-hash pair under θ, and θ leaves out
the decision threshold, so a threshold change re-decides from stored scores. Within a run the
log lives in Redis and goes with each instance's namespace; this archive keeps it, so an
evaluation with another threshold (or another filter chain) seeds the log and never runs the
model on a pair it has scored. Each entry also keeps what the cold scoring cost, so a run that
reuses verdicts still reports the model time a cold run pays.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from bench.sweep.store import RecordStore
from gcmem.oracle.verdicts import VerdictLog


class VerdictArchive:
    def __init__(self, work_dir: Path, theta: str) -> None:
        self.theta = theta
        self.store = RecordStore(work_dir / f"verdicts-{theta}.jsonl")
        self.entries: dict[str, dict[str, Any]] = {str(r["id"]): r for r in self.store}

    def get(self, instance: str) -> dict[str, Any] | None:
        return self.entries.get(instance)

    def seed(self, log: VerdictLog, namespace: str, instance: str) -> dict[str, Any] | None:
        """Write the archived verdicts into the namespace's log (insert-if-absent)."""
        entry = self.get(instance)
        if entry is None or not entry["fields"]:
            return entry
        pipe = log.client.pipeline(transaction=False)
        key = log.keys.verdicts(namespace, log.theta)
        for field, score in entry["fields"].items():
            pipe.hsetnx(key, field, repr(float(score)))
        pipe.execute()
        return entry

    def save(
        self, log: VerdictLog, namespace: str, instance: str, cold_ms: float, misses: int
    ) -> None:
        """Archive the namespace's log for this instance when it holds anything new."""
        raw = cast(
            Mapping[bytes, bytes], log.client.hgetall(log.keys.verdicts(namespace, log.theta))
        )
        fields = {k.decode(): float(v) for k, v in raw.items()}
        known = self.entries.get(instance)
        if known is not None and set(fields) <= set(known["fields"]):
            return
        entry = {
            "id": instance,
            "theta": self.theta,
            "fields": {**(known or {}).get("fields", {}), **fields},
            # The first cold scoring is what a run without the archive pays.
            "cold_ms": known["cold_ms"] if known else cold_ms,
            "misses": known["misses"] if known else misses,
        }
        self.store.append(entry)
        self.entries[instance] = entry
