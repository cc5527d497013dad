"""``Resources``: what the filter stages are built from, passed in explicitly."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from gcmem.embedding import Embedder
from gcmem.oracle.adapter import Adapter, active_adapter
from gcmem.oracle.base import ConflictOracle, Redirectable
from gcmem.oracle.calibration import active_calibration
from gcmem.oracle.factory import build_oracle
from gcmem.oracle.verdicts import VerdictLog
from gcmem.settings import Settings
from gcmem.storage.ledger import SupersessionLedger
from gcmem.storage.ledger.policy import PolicyTable
from gcmem.storage.mtm.index import MediumTermIndex
from gcmem.storage.redis import Keyspace, RedisClient


@dataclass
class Resources:
    """The components stages are built from. The oracle (a model), its verdict log and the
    ledger are created on first use, once, so every stage that needs one gets the same one and
    a chain without κ loads no model; pass ``oracle`` to use one built elsewhere."""

    settings: Settings
    redis: RedisClient
    keys: Keyspace
    index: MediumTermIndex
    embedder: Embedder
    given_oracle: ConflictOracle | None = None

    @cached_property
    def oracle(self) -> ConflictOracle:
        s = self.settings
        return self.given_oracle or build_oracle(
            s.oracle, s.judge, device=s.models.device, weights_cache=s.storage.weights_cache()
        )

    @cached_property
    def verdict_log(self) -> VerdictLog:
        return VerdictLog(self.redis, self.keys, self.oracle)

    @cached_property
    def confirm_log(self) -> VerdictLog | None:
        """Verdicts of the same model in both directions (``DOMINANCE_CONFIRM_THRESHOLD``):
        the cross-encoder under the active calibration (no gate: the anchoring test already
        ran), viewed with direction "both", its threshold on the calibrated scale. ``None``
        when unset, when κ is not a cross-encoder, or when it runs with a supersession adapter
        (its score is already the one-way "the newer replaces the older")."""
        if self.settings.dominance.confirm_threshold is None or self.adapter is not None:
            return None
        oracle: object = self.oracle
        while not isinstance(oracle, Redirectable):
            oracle = getattr(oracle, "inner", None)
            if oracle is None:
                return None
        view = oracle.with_direction("both")
        confirm = self.settings.dominance.confirm_threshold
        own = self.settings.oracle.calibration_threshold
        view.threshold = self.score_threshold(confirm, own=own) or confirm
        return VerdictLog(self.redis, self.keys, view)

    @property
    def adapter(self) -> Adapter | None:
        """The supersession adapter κ runs with, if any."""
        return active_adapter(self.oracle)

    def score_threshold(self, raw: float | None, *, own: bool = False) -> float | None:
        """A threshold on the model's raw probabilities, on the scale κ scores on (the active
        calibration's, if any); ``own``: the calibration's own threshold instead."""
        if raw is None:
            return None
        layer = active_calibration(self.oracle)
        if layer is None:
            return raw
        return layer.calibration.threshold if own else layer.calibration.scaled(raw)

    @cached_property
    def policies(self) -> PolicyTable:
        """The deployment's resolution policies (rules, the built-in multi-valued table), read
        once for every stage that asks whether a relation accumulates."""
        return PolicyTable.from_settings(self.settings.ledger)

    @cached_property
    def ledger(self) -> SupersessionLedger:
        return SupersessionLedger(
            self.redis,
            self.keys,
            policies=self.policies,
            source_field=self.settings.ledger.source_field,
        )

    @property
    def oracle_loaded(self) -> bool:
        """Whether the oracle exists yet (a model others may reuse)."""
        return "oracle" in self.__dict__
