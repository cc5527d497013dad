"""The conflict oracle κ: NLI cross-encoder, optional LLM judge, keyed verdict log.

Exports resolve lazily: importing this package must not pull torch or transformers in; the
cross-encoder loads them when one is built.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gcmem.oracle.band import BandOracle as BandOracle
    from gcmem.oracle.base import ConflictOracle as ConflictOracle
    from gcmem.oracle.base import OracleError as OracleError
    from gcmem.oracle.base import OracleIdentity as OracleIdentity
    from gcmem.oracle.calibration import CalibratedOracle as CalibratedOracle
    from gcmem.oracle.calibration import Calibration as Calibration
    from gcmem.oracle.cross_encoder import CrossEncoderOracle as CrossEncoderOracle
    from gcmem.oracle.factory import build_oracle as build_oracle
    from gcmem.oracle.llm_judge import LLMJudgeOracle as LLMJudgeOracle
    from gcmem.oracle.relatedness import EntityGatedOracle as EntityGatedOracle
    from gcmem.oracle.verdicts import VerdictLog as VerdictLog
    from gcmem.oracle.verdicts import VerdictLookup as VerdictLookup
    from gcmem.oracle.verdicts import read_verdict_stats as read_verdict_stats

_EXPORTS = {
    "ConflictOracle": "gcmem.oracle.base",
    "OracleError": "gcmem.oracle.base",
    "OracleIdentity": "gcmem.oracle.base",
    "CrossEncoderOracle": "gcmem.oracle.cross_encoder",
    "EntityGatedOracle": "gcmem.oracle.relatedness",
    "Calibration": "gcmem.oracle.calibration",
    "CalibratedOracle": "gcmem.oracle.calibration",
    "BandOracle": "gcmem.oracle.band",
    "LLMJudgeOracle": "gcmem.oracle.llm_judge",
    "VerdictLog": "gcmem.oracle.verdicts",
    "VerdictLookup": "gcmem.oracle.verdicts",
    "read_verdict_stats": "gcmem.oracle.verdicts",
    "build_oracle": "gcmem.oracle.factory",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gcmem.oracle' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
