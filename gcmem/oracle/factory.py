"""Build the configured oracle from settings: model, calibration, band and gate."""

from __future__ import annotations

import logging

from gcmem.oracle.base import ConflictOracle, OracleError
from gcmem.oracle.calibration import CalibratedOracle
from gcmem.oracle.fingerprint import WeightsFingerprint, local_model_dir
from gcmem.oracle.shipped import choice_for, choose_calibration
from gcmem.runtime import resolve_model_source
from gcmem.settings import Settings

log = logging.getLogger(__name__)


def build_oracle(settings: Settings) -> ConflictOracle:
    """The configured κ, inside out: the model (cross-encoder or judge), its calibration, the
    uncertainty band (to the LLM judge), and the relatedness gate in front of all of them (a
    gated pair costs nothing and is never routed)."""
    s = settings
    oracle = calibrated(build_model_oracle(s), s)
    if s.oracle_band is not None:
        from gcmem.oracle.band import BandOracle

        if s.oracle == "llm-judge":
            raise ValueError("GCMEM_ORACLE_BAND routes to the LLM judge; κ already is the judge")
        low, high = s.oracle_band
        oracle = BandOracle(oracle, _llm_judge(s), low=low, high=high)
    if s.oracle_gate == "entity":
        from gcmem.oracle.relatedness import EntityGatedOracle

        oracle = EntityGatedOracle(oracle)
    return oracle


def calibrated(model: ConflictOracle, settings: Settings) -> ConflictOracle:
    """The model under ``ORACLE_CALIBRATION`` (shipped for its weights, the user's, or none).
    The decision threshold stays ORACLE_THRESHOLD, mapped onto the calibrated scale (same
    decisions, calibrated scores), unless ORACLE_CALIBRATION_THRESHOLD takes the
    calibration's own."""
    choice = choice_for(settings.oracle_calibration, model.identity)
    log.info("oracle calibration: %s", choice.note)
    if choice.calibration is None:
        return model
    cal = choice.calibration
    threshold = None if settings.oracle_calibration_threshold else cal.scaled(model.threshold)
    return CalibratedOracle(model, cal, threshold, source=choice.source)


def build_model_oracle(settings: Settings) -> ConflictOracle:
    """The bare model (no gate, calibration or band): what a calibration is fitted for."""
    s = settings
    if s.oracle == "llm-judge":
        return _llm_judge(s)
    from gcmem.oracle.cross_encoder import CrossEncoderOracle

    return CrossEncoderOracle(
        s.nli_model,
        device=s.device,
        precision=s.oracle_precision,
        max_length=s.oracle_max_length,
        batch_size=s.oracle_batch_size,
        direction=s.oracle_direction,
        threshold=s.oracle_threshold,
        template=s.oracle_template,
        contradiction_label=s.oracle_contradiction_label,
        fingerprint=_fingerprint(s),
        question_template=s.oracle_question_template,
    )


def _fingerprint(s: Settings) -> WeightsFingerprint:
    return WeightsFingerprint(None if s.ephemeral else s.data_dir / "cache" / "weights-sha256.json")


def calibration_note(settings: Settings) -> str:
    """Which calibration the configured oracle runs with, without loading the model (the
    weights are hashed once and cached): for `gcmem config show`."""
    s = settings
    if s.oracle == "llm-judge":
        return choose_calibration(s.oracle_calibration, None, s.oracle_template).note
    try:
        weights = _fingerprint(s).of(local_model_dir(resolve_model_source(s.nli_model)))
    except (OracleError, OSError) as exc:
        return f"unknown until the model loads (cannot fingerprint {s.nli_model!r}: {exc})"
    try:
        choice = choose_calibration(
            s.oracle_calibration,
            weights,
            s.oracle_template,
            conditioned=s.oracle_question_template is not None,
        )
    except OracleError as exc:
        return f"error: {exc}"
    return choice.note


def _llm_judge(s: Settings) -> ConflictOracle:
    from gcmem.oracle.llm_judge import DEFAULT_JUDGE_PROMPT, LLMJudgeOracle

    if not s.llm_judge_url or not s.llm_judge_model:
        raise ValueError(
            "GCMEM_ORACLE=llm-judge and GCMEM_ORACLE_BAND need GCMEM_LLM_JUDGE_URL and "
            "GCMEM_LLM_JUDGE_MODEL"
        )
    return LLMJudgeOracle(
        s.llm_judge_url,
        s.llm_judge_model,
        api_key=s.llm_judge_api_key.get_secret_value() if s.llm_judge_api_key else None,
        prompt=s.llm_judge_prompt or DEFAULT_JUDGE_PROMPT,
        direction=s.oracle_direction,
        threshold=s.oracle_threshold,
        logprobs=s.llm_judge_logprobs,
        timeout_s=s.llm_judge_timeout_s,
        concurrency=s.llm_judge_concurrency,
    )
