"""Build the configured oracle from settings: model, calibration, band and gate."""

from __future__ import annotations

from pathlib import Path

from gcmem.oracle.base import ConflictOracle
from gcmem.oracle.fingerprint import WeightsFingerprint
from gcmem.settings import Device, JudgeSettings, OracleSettings


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
    oracle = build_model_oracle(s, judge, device=device, weights_cache=weights_cache)
    if s.calibration is not None:
        from gcmem.oracle.calibration import CalibratedOracle, Calibration

        oracle = CalibratedOracle(oracle, Calibration.load(s.calibration))
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
