"""Build the configured oracle from settings: model, calibration, band and gate."""

from __future__ import annotations

import logging
from pathlib import Path

from gcmem.oracle.adapter import AUTO, NONE, active_adapter, adapter_note, adapter_path
from gcmem.oracle.base import ConflictOracle, OracleError
from gcmem.oracle.calibration import CalibratedOracle
from gcmem.oracle.fingerprint import WeightsFingerprint, local_model_dir
from gcmem.oracle.shipped import choice_for, choose_calibration
from gcmem.runtime import resolve_model_source
from gcmem.settings import Device, JudgeSettings, OracleSettings

log = logging.getLogger(__name__)


def build_oracle(
    settings: OracleSettings,
    judge: JudgeSettings,
    *,
    device: Device = "auto",
    weights_cache: Path | None = None,
) -> ConflictOracle:
    """The configured κ, inside out: the model (cross-encoder or judge), its calibration, the
    uncertainty band (to the LLM judge), and the relatedness gate in front of all of them (a
    gated pair costs nothing and is never routed). ``weights_cache``: where the model's
    weight fingerprint is cached (none: recomputed per process)."""
    s = settings
    oracle = calibrated(build_model_oracle(s, judge, device=device, weights_cache=weights_cache), s)
    if s.band is not None:
        from gcmem.oracle.band import BandOracle

        if s.backend == "llm-judge":
            raise ValueError("GCMEM_ORACLE_BAND routes to the LLM judge; κ already is the judge")
        low, high = s.band
        oracle = BandOracle(oracle, _llm_judge(s, judge), low=low, high=high)
    if s.gate == "entity":
        from gcmem.oracle.relatedness import EntityGatedOracle

        oracle = EntityGatedOracle(oracle)
    return oracle


def calibrated(model: ConflictOracle, settings: OracleSettings) -> ConflictOracle:
    """The model under ``ORACLE_CALIBRATION`` (shipped for its weights, the user's, or none).
    The decision threshold stays ORACLE_THRESHOLD, mapped onto the calibrated scale (same
    decisions, calibrated scores), unless ORACLE_CALIBRATION_THRESHOLD takes the
    calibration's own. A model with a supersession adapter is not calibrated: the adapter's
    probability is its own scale, and it decides at its own threshold (with
    ORACLE_CALIBRATION_THRESHOLD, else at ORACLE_THRESHOLD)."""
    adapter = active_adapter(model)
    if adapter is not None:
        if settings.calibration.strip().lower() not in (AUTO, NONE):
            # A calibration maps P(contradiction); the adapter's score is another question.
            raise OracleError(
                f"GCMEM_ORACLE_CALIBRATION={settings.calibration} calibrates the NLI model's "
                "P(contradiction), but the oracle runs with a supersession adapter "
                f"({adapter.describe()}); set GCMEM_ORACLE_ADAPTER=none to use it"
            )
        log.info("oracle adapter: %s", adapter.describe())
        if settings.calibration_threshold:
            model.threshold = adapter.threshold
        return model
    choice = choice_for(settings.calibration, model.identity)
    log.info("oracle calibration: %s", choice.note)
    if choice.calibration is None:
        return model
    cal = choice.calibration
    threshold = None if settings.calibration_threshold else cal.scaled(model.threshold)
    return CalibratedOracle(model, cal, threshold, source=choice.source)


def oracle_notes(settings: OracleSettings, weights_cache: Path | None = None) -> dict[str, str]:
    """Which adapter and calibration the configured oracle runs with, without loading the
    model (the weights are hashed once and cached in ``weights_cache``): for `gcmem config
    show`, keyed by setting."""
    s = settings
    if s.backend == "llm-judge":
        return {
            "adapter": "none (llm-judge backend)",
            "calibration": choose_calibration(s.calibration, None, s.template).note,
        }
    try:
        source = resolve_model_source(s.model)
        weights = WeightsFingerprint(weights_cache).of(local_model_dir(source))
    except (OracleError, OSError) as exc:
        unknown = f"unknown until the model loads (cannot fingerprint {s.model!r}: {exc})"
        return {"adapter": unknown, "calibration": unknown}
    adapter = adapter_note(s.adapter, weights)
    if adapter_path(s.adapter, weights) is not None:
        return {"adapter": adapter, "calibration": "none on top of the supersession adapter"}
    try:
        choice = choose_calibration(
            s.calibration, weights, s.template, conditioned=s.question_template is not None
        )
    except OracleError as exc:
        return {"adapter": adapter, "calibration": f"error: {exc}"}
    return {"adapter": adapter, "calibration": choice.note}


def build_model_oracle(
    settings: OracleSettings,
    judge: JudgeSettings,
    *,
    device: Device = "auto",
    weights_cache: Path | None = None,
) -> ConflictOracle:
    """The bare model (no gate, calibration or band): what a calibration is fitted for."""
    s = settings
    if s.backend == "llm-judge":
        return _llm_judge(s, judge)
    from gcmem.oracle.cross_encoder import CrossEncoderOracle

    return CrossEncoderOracle(
        s.model,
        device=device,
        precision=s.precision,
        max_length=s.max_length,
        batch_size=s.batch_size,
        direction=s.direction,
        threshold=s.threshold,
        template=s.template,
        contradiction_label=s.contradiction_label,
        fingerprint=WeightsFingerprint(weights_cache),
        question_template=s.question_template,
        adapter=s.adapter,
    )


def _llm_judge(s: OracleSettings, judge: JudgeSettings) -> ConflictOracle:
    from gcmem.oracle.llm_judge import DEFAULT_JUDGE_PROMPT, LLMJudgeOracle

    if not judge.url or not judge.model:
        raise ValueError(
            "GCMEM_ORACLE=llm-judge and GCMEM_ORACLE_BAND need GCMEM_LLM_JUDGE_URL and "
            "GCMEM_LLM_JUDGE_MODEL"
        )
    return LLMJudgeOracle(
        judge.url,
        judge.model,
        api_key=judge.api_key.get_secret_value() if judge.api_key else None,
        prompt=judge.prompt or DEFAULT_JUDGE_PROMPT,
        direction=s.direction,
        threshold=s.threshold,
        logprobs=judge.logprobs,
        timeout_s=judge.timeout_s,
        concurrency=judge.concurrency,
    )
