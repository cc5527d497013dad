"""Calibrations that ship inside the package, keyed by the weights fingerprint of the model
they were fitted for, and the choice of the calibration a configured oracle runs with.

``GCMEM_ORACLE_CALIBRATION``:
- ``auto`` (default): the shipped calibration of the loaded weights
  (``calibrations/<weights sha256>.json``) when one exists and fits the input template;
  otherwise raw scores, and the choice says why;
- ``none``: raw scores;
- a path: that calibration JSON (``gcmem oracle calibrate``); it must fit the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gcmem.oracle.base import OracleIdentity
from gcmem.oracle.calibration import Calibration

SHIPPED_DIR = Path(__file__).resolve().parent / "calibrations"
AUTO = "auto"
NONE = "none"


def shipped_path(weights_sha256: str) -> Path:
    return SHIPPED_DIR / f"{weights_sha256}.json"


def shipped_calibration(weights_sha256: str) -> Calibration | None:
    path = shipped_path(weights_sha256)
    return Calibration.load(path) if path.is_file() else None


@dataclass(frozen=True)
class CalibrationChoice:
    """The calibration to apply (None: raw scores), where it comes from, and why."""

    calibration: Calibration | None
    source: str  # "shipped:<file>", the user's path, or "none"
    note: str  # one line for logs and `gcmem config show`


def choose_calibration(
    setting: str, weights: str | None, template: str, *, conditioned: bool = False
) -> CalibrationChoice:
    """What ``GCMEM_ORACLE_CALIBRATION`` means for a model with these weights and template."""
    if setting.strip().lower() == NONE:
        return CalibrationChoice(None, NONE, "off (GCMEM_ORACLE_CALIBRATION=none): raw scores")
    if setting.strip().lower() != AUTO:
        cal = Calibration.load(Path(setting).expanduser())
        return CalibrationChoice(cal, setting, f"user calibration {setting}: {cal.describe()}")
    if not weights:
        return CalibrationChoice(None, NONE, "none ships for this oracle (no weights): raw scores")
    found = shipped_calibration(weights)
    if found is None:
        return CalibrationChoice(
            None, NONE, f"none ships for weights {weights[:16]}: raw scores (uncalibrated)"
        )
    why = found.mismatch_weights(weights, template, conditioned=conditioned)
    if why is not None:
        return CalibrationChoice(None, NONE, f"shipped calibration not applied ({why}): raw scores")
    name = shipped_path(weights).name
    return CalibrationChoice(found, f"shipped:{name}", f"shipped {found.model}: {found.describe()}")


def choice_for(setting: str, identity: OracleIdentity) -> CalibrationChoice:
    """``choose_calibration`` for a loaded model oracle, from its identity θ."""
    params = identity.params
    weights = params.get("weights_sha256")
    return choose_calibration(
        setting,
        None if weights is None else str(weights),
        str(params.get("template", "")),
        conditioned="question_template" in params,
    )
