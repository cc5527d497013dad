"""Calibrations shipped in the package: chosen by the weights fingerprint, applied by default,
overridden by a user's file, absent for unknown weights, and part of the oracle identity θ."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from gcmem.filters.resources import Resources
from gcmem.oracle.base import ConflictOracle, OracleError
from gcmem.oracle.calibration import CalibratedOracle, Calibration, active_calibration
from gcmem.oracle.cross_encoder import CrossEncoderOracle
from gcmem.oracle.factory import build_oracle
from gcmem.oracle.fingerprint import WeightsFingerprint, clear_memory_cache
from gcmem.oracle.shipped import SHIPPED_DIR, choose_calibration, shipped_calibration
from gcmem.oracle.verdicts import VerdictLog
from gcmem.settings import Settings
from gcmem.storage.redis import Keyspace, open_redis
from tests.conftest import cleanup_prefix, make_settings
from tests.doubles import ScriptedOracle
from tests.test_oracle_verdicts import NS, chunk

PORT = ("The payments service runs on port 8000.", "The payments service runs on port 8080.")
TEA = ("Alice likes tea.", "The build uses Python 3.11.")


def nli_settings(tmp_path: Path, nli_model: str, **overrides: object) -> Settings:
    """The offline checkpoint as plain NLI κ (GCMEM_ORACLE_ADAPTER=none): what a calibration
    maps. With its supersession adapter (the default) no calibration applies."""
    return make_settings(tmp_path, nli_model=nli_model, oracle_adapter="none", **overrides)


def build_oracle_for(settings: Settings) -> ConflictOracle:
    return build_oracle(settings.oracle, settings.judge, device="cpu")


def _shipped() -> list[Calibration]:
    return [Calibration.load(p) for p in sorted(SHIPPED_DIR.glob("*.json"))]


def _calibration(a: float, b: float, **fields: object) -> Calibration:
    return Calibration("temperature", {"a": a, "b": b}, 0.5, 0.9, True, "", **fields)  # type: ignore[arg-type]


# --- logic (no model) ---------------------------------------------------------------------------


def test_every_shipped_file_is_named_by_the_weights_it_was_fitted_for() -> None:
    files = sorted(SHIPPED_DIR.glob("*.json"))
    assert files, "the package ships at least the offline checkpoint's calibration"
    for path, cal in zip(files, _shipped(), strict=True):
        assert path.stem == cal.weights_sha256 and len(cal.weights_sha256) == 64
        assert cal.model and cal.fitted_on and cal.date and cal.method == "temperature"
        # A strictly increasing map: raw-scale thresholds keep their decisions on its scale.
        raw = np.linspace(0.001, 0.999, 999)
        assert np.all(np.diff(cal.apply(raw)) > 0)
        t = cal.scaled(0.6)
        assert np.array_equal(raw >= 0.6, cal.apply(raw) >= t)
        assert cal.invert(t) == pytest.approx(0.6, abs=1e-9)
        assert cal.dev["precision"] >= cal.precision_target and cal.target_met


def test_unknown_weights_run_raw_and_say_so() -> None:
    choice = choose_calibration("auto", "0" * 64, "{text}")
    assert choice.calibration is None and choice.source == "none"
    assert "raw scores" in choice.note and "0000000000000000" in choice.note
    off = choose_calibration("none", _shipped()[0].weights_sha256, "{text}")
    assert off.calibration is None and "off" in off.note
    assert choose_calibration("auto", None, "{text}").calibration is None  # an LLM judge


def test_shipped_calibration_needs_the_template_it_was_fitted_for() -> None:
    cal = _shipped()[0]
    assert choose_calibration("auto", cal.weights_sha256, cal.template).calibration == cal
    other = choose_calibration("auto", cal.weights_sha256, "passage: {text}")
    assert other.calibration is None and "template" in other.note
    conditioned = choose_calibration("auto", cal.weights_sha256, cal.template, conditioned=True)
    assert conditioned.calibration is None


def test_a_users_file_overrides_the_shipped_one(tmp_path: Path) -> None:
    shipped = _shipped()[0]
    mine = _calibration(1.5, 0.2, weights_sha256=shipped.weights_sha256, model="mine")
    path = mine.save(tmp_path / "mine.json")
    choice = choose_calibration(str(path), shipped.weights_sha256, shipped.template)
    assert choice.calibration == mine and choice.source == str(path)
    assert choice.calibration.digest != shipped.digest
    with pytest.raises(OracleError, match="cannot read"):
        choose_calibration(str(tmp_path / "missing.json"), shipped.weights_sha256, "{text}")


def test_older_calibration_files_without_weights_still_load(tmp_path: Path) -> None:
    legacy = {
        "method": "temperature",
        "params": {"a": 0.8, "b": -1.0},
        "threshold": 0.7,
        "precision_target": 0.9,
        "target_met": True,
        "oracle_theta": "abc",
        "dev": {},
    }
    (tmp_path / "old.json").write_text(json.dumps(legacy))
    cal = Calibration.load(tmp_path / "old.json")
    assert cal.weights_sha256 == "" and cal.oracle_theta == "abc"


@pytest.fixture
def log_settings(tmp_path: Path) -> Iterator[Settings]:
    s = make_settings(tmp_path)
    yield s
    cleanup_prefix(s)


def test_calibration_is_part_of_theta_so_other_calibrations_never_reuse_verdicts(
    log_settings: Settings,
) -> None:
    raw = ScriptedOracle({frozenset(PORT): 0.7}, threshold=0.6)
    theta = raw.identity.digest
    first = CalibratedOracle(
        raw, Calibration("temperature", {"a": 0.7, "b": -0.8}, 0.8, 0.97, True, theta)
    )
    refit = CalibratedOracle(
        raw, Calibration("temperature", {"a": 0.9, "b": -0.5}, 0.8, 0.97, True, theta)
    )
    client, keys = open_redis(log_settings.storage), Keyspace(log_settings.storage.key_prefix)
    pair = [(chunk(PORT[0]), chunk(PORT[1]))]
    logs = [VerdictLog(client, keys, o) for o in (raw, first, refit)]
    assert len({log.theta for log in logs}) == 3
    for log in logs:  # each θ scores the pair itself: none reads another's stored score
        assert log.scores(NS, pair).misses == 1
    assert raw.calls == 3
    assert logs[1].scores(NS, pair).hits == 1  # the same calibration shares its own verdicts
    stored = [float(log.scores(NS, pair).scores[0]) for log in logs]
    assert stored[0] == pytest.approx(0.7)
    assert stored[1] == pytest.approx(float(first.calibration.apply([0.7])[0]))
    assert stored[2] != pytest.approx(stored[1])


def test_calibrated_view_keeps_the_map_under_another_direction() -> None:
    raw = ScriptedOracle({frozenset(PORT): 0.7}, threshold=0.6)
    cal = Calibration("temperature", {"a": 0.7, "b": -0.8}, 0.8, 0.97, True, raw.identity.digest)
    with pytest.raises(OracleError, match="cannot change direction"):
        CalibratedOracle(raw, cal).with_direction("both")  # the double has no directions
    other = ScriptedOracle(name="another model")
    with pytest.raises(OracleError, match="does not fit"):
        CalibratedOracle(other, cal)


# --- the real offline checkpoint ------------------------------------------------------------------


@pytest.mark.model
def test_shipped_calibration_applies_to_the_offline_checkpoint(
    tmp_path: Path, nli_model_path: str
) -> None:
    clear_memory_cache()
    cache = tmp_path / "weights.json"
    weights = WeightsFingerprint(cache).of(nli_model_path)
    clear_memory_cache()
    again = WeightsFingerprint(cache)
    assert again.of(nli_model_path) == weights and again.files_hashed == 0  # stable, cached
    shipped = shipped_calibration(weights)
    assert shipped is not None, f"no calibration ships for the offline checkpoint ({weights})"

    settings = nli_settings(tmp_path, nli_model_path)
    oracle = build_oracle_for(settings)
    assert isinstance(oracle, CalibratedOracle) and oracle.calibration == shipped
    assert oracle.source == f"shipped:{weights}.json"
    bare = CrossEncoderOracle(nli_model_path, device="cpu", threshold=settings.oracle.threshold)
    raw = bare.score([PORT, TEA])
    assert np.allclose(oracle.score([PORT, TEA]), shipped.apply(raw))
    # The default decides with the calibration's own threshold, κ and the confirmation alike.
    assert oracle.threshold == pytest.approx(shipped.threshold)
    assert oracle.identity.digest != bare.identity.digest
    assert shipped.digest in oracle.identity.canonical()
    resources = Resources(
        settings, open_redis(settings.storage), Keyspace(settings.storage.key_prefix), None, None
    )  # type: ignore[arg-type]
    confirm = resources.confirm_log
    assert confirm is not None and active_calibration(confirm.oracle) is not None
    assert confirm.oracle.threshold == pytest.approx(shipped.threshold)
    both = CrossEncoderOracle(nli_model_path, device="cpu", direction="both").score([PORT])
    assert confirm.oracle.score([PORT])[0] == pytest.approx(float(shipped.apply(both)[0]))
    # the surfacing threshold stays a raw one, mapped onto the calibrated scale
    assert resources.score_threshold(0.5) == pytest.approx(shipped.scaled(0.5))

    # The raw rule (ORACLE_CALIBRATION_THRESHOLD=false): the raw thresholds mapped through the
    # calibration, so the bare model's decisions on the calibrated scale.
    raw_rule = nli_settings(tmp_path, nli_model_path, oracle_calibration_threshold=False)
    mapped = build_oracle_for(raw_rule)
    assert mapped.threshold == pytest.approx(shipped.scaled(raw_rule.oracle.threshold))
    assert np.array_equal(mapped.decide(mapped.score([PORT, TEA])), bare.decide(raw))
    mapped_confirm = Resources(
        raw_rule, open_redis(raw_rule.storage), Keyspace(raw_rule.storage.key_prefix), None, None
    ).confirm_log  # type: ignore[arg-type]
    assert mapped_confirm is not None
    assert mapped_confirm.oracle.threshold == pytest.approx(shipped.scaled(0.6))


@pytest.mark.model
def test_user_calibration_and_none_override_the_shipped_one(
    tmp_path: Path, nli_model_path: str
) -> None:
    weights = WeightsFingerprint().of(nli_model_path)
    mine = _calibration(1.2, -0.3, weights_sha256=weights, model="mine")
    path = mine.save(tmp_path / "mine.json")
    user = build_oracle_for(nli_settings(tmp_path, nli_model_path, oracle_calibration=str(path)))
    assert isinstance(user, CalibratedOracle) and user.calibration == mine
    assert user.source == str(path)
    raw = build_oracle_for(nli_settings(tmp_path, nli_model_path, oracle_calibration="none"))
    assert isinstance(raw, CrossEncoderOracle)
    auto = build_oracle_for(nli_settings(tmp_path, nli_model_path))
    assert len({user.identity.digest, raw.identity.digest, auto.identity.digest}) == 3
    wrong = _calibration(1.0, 0.0, weights_sha256="f" * 64, model="other")
    other = wrong.save(tmp_path / "other.json")
    with pytest.raises(OracleError, match="weights ffffffffffffffff"):
        build_oracle_for(nli_settings(tmp_path, nli_model_path, oracle_calibration=str(other)))
    # a calibration file is for P(contradiction): with the adapter it is an error
    with pytest.raises(OracleError, match="GCMEM_ORACLE_ADAPTER=none"):
        build_oracle_for(
            make_settings(
                tmp_path,
                nli_model=nli_model_path,
                oracle_calibration=str(path),
                oracle_adapter="auto",
            )
        )


@pytest.mark.model
def test_config_show_names_the_active_adapter_and_calibration(
    tmp_path: Path, nli_model_path: str
) -> None:
    from typer.testing import CliRunner

    from gcmem.cli import app as cli_app

    env = {"GCMEM_NLI_MODEL": nli_model_path, "GCMEM_DATA_DIR": str(tmp_path)}
    shown = json.loads(CliRunner().invoke(cli_app, ["config", "show"], env=env).stdout)
    assert shown["oracle"]["GCMEM_ORACLE_ADAPTER"].startswith("none: off")
    assert shown["oracle"]["GCMEM_ORACLE_CALIBRATION"].startswith("auto: shipped nli-minilm-l6")
    # the supersession adapter (opt-in) replaces calibration
    env["GCMEM_ORACLE_ADAPTER"] = "auto"
    shown = json.loads(CliRunner().invoke(cli_app, ["config", "show"], env=env).stdout)
    assert shown["oracle"]["GCMEM_ORACLE_ADAPTER"].startswith("auto: shipped 30afa551")
    assert "on top of the supersession adapter" in shown["oracle"]["GCMEM_ORACLE_CALIBRATION"]
    env["GCMEM_ORACLE_ADAPTER"] = "none"
    env["GCMEM_ORACLE_CALIBRATION"] = "none"
    shown = json.loads(CliRunner().invoke(cli_app, ["config", "show"], env=env).stdout)
    assert "raw scores" in shown["oracle"]["GCMEM_ORACLE_CALIBRATION"]
