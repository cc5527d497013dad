"""Build the configured oracle from settings: model, calibration, band and gate."""

from __future__ import annotations

from gcmem.oracle.base import ConflictOracle
from gcmem.oracle.fingerprint import WeightsFingerprint
from gcmem.settings import Settings


def build_oracle(settings: Settings) -> ConflictOracle:
    """The configured κ, inside out: the model (cross-encoder or judge), its calibration, the
    uncertainty band (to the LLM judge), and the relatedness gate in front of all of them (a
    gated pair costs nothing and is never routed)."""
    s = settings
    oracle = build_model_oracle(s)
    if s.oracle_calibration is not None:
        from gcmem.oracle.calibration import CalibratedOracle, Calibration

        oracle = CalibratedOracle(oracle, Calibration.load(s.oracle_calibration))
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


def build_model_oracle(settings: Settings) -> ConflictOracle:
    """The bare model (no gate, calibration or band): what a calibration is fitted for."""
    s = settings
    if s.oracle == "llm-judge":
        return _llm_judge(s)
    from gcmem.oracle.cross_encoder import CrossEncoderOracle

    cache = None if s.ephemeral else s.data_dir / "cache" / "weights-sha256.json"
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
        fingerprint=WeightsFingerprint(cache),
        question_template=s.oracle_question_template,
    )


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
