"""κ accuracy tools: relatedness gate, calibration, uncertainty band, `gcmem oracle finetune`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gcmem.oracle.band import BandOracle
from gcmem.oracle.base import OracleError
from gcmem.oracle.calibration import (
    CalibratedOracle,
    Calibration,
    fit_calibration,
    precision_recall_at,
)
from gcmem.oracle.cross_encoder import CrossEncoderOracle
from gcmem.oracle.factory import build_oracle
from gcmem.oracle.finetune import PROVENANCE_FILE, FinetuneConfig, build_examples, finetune
from gcmem.oracle.fingerprint import WeightsFingerprint
from gcmem.oracle.llm_judge import LLMJudgeOracle
from gcmem.oracle.relatedness import USER, EntityGatedOracle, entities, related
from tests.conftest import make_settings
from tests.doubles import ScriptedOracle
from tests.test_oracle_llm import FakeJudge, judge  # noqa: F401  (the fake judge fixture)

CONTRADICTION = (
    "The payments service runs on port 8000.",
    "The payments service runs on port 8080.",
)
UNRELATED = ("Alice likes tea.", "The build uses Python 3.11.")


# --- relatedness gate ---------------------------------------------------------------------------


def test_entity_extractor_names_what_a_statement_is_about() -> None:
    assert "payments service" in entities(CONTRADICTION[0])
    assert entities("We pin fastapi at 0.95.2.") & entities("fastapi==0.110.0")
    assert USER in entities("Jogged three miles before breakfast.")  # diary style, no subject
    assert USER in entities("I was winded after one flight of stairs.")
    assert "priya" in entities("Priya mentioned that she bought sable brushes.")
    assert entities("She left early.") == frozenset()  # unknown: never gated
    assert related("She left early.", "Alice likes tea.")
    assert not related("Priya ran ten kilometres.", "Jonas smokes a pack a day.")


@pytest.fixture(scope="module")
def nli(nli_model_path: str) -> CrossEncoderOracle:
    return CrossEncoderOracle(nli_model_path, device="cpu", direction="max", threshold=0.5)


def test_gate_keeps_a_one_entity_contradiction_and_skips_an_unrelated_pair(
    nli: CrossEncoderOracle,
) -> None:
    gated = EntityGatedOracle(nli)
    scores = gated.score([CONTRADICTION, UNRELATED])
    # The contradiction reaches the real model and keeps its score; the unrelated pair never
    # does (its score is exactly 0, and the gate counted it).
    assert scores[0] == pytest.approx(float(nli.score([CONTRADICTION])[0]))
    assert bool(gated.decide(scores)[0])
    assert scores[1] == 0.0 and gated.gated == 1
    assert gated.identity.digest != nli.identity.digest  # gated verdicts are logged apart


# --- calibration ------------------------------------------------------------------------------


def _dev(seed: int = 0, n: int = 600) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.2
    # An over-confident detector: positives high, but many negatives high too.
    s = np.where(y, rng.beta(5, 2, n), rng.beta(1.2, 3, n))
    return s, y.astype(int)


@pytest.mark.parametrize("method", ["temperature", "isotonic"])
def test_calibration_is_monotone_and_meets_its_precision_target_on_dev(method: str) -> None:
    scores, labels = _dev()
    cal = fit_calibration(
        scores,
        labels,
        method=method,
        precision_target=0.8,
        oracle_theta="t",  # type: ignore[arg-type]
    )
    grid = np.linspace(0, 1, 501)
    mapped = cal.apply(grid)
    assert np.all(np.diff(mapped) >= -1e-12)
    assert mapped.min() >= 0 and mapped.max() <= 1
    assert cal.target_met
    p, r, _ = precision_recall_at(cal.apply(scores), labels, cal.threshold)
    assert p >= 0.8 and r > 0
    # The threshold is the recall-maximising one: any lower calibrated score misses the target.
    lower = np.unique(cal.apply(scores))
    lower = lower[lower < cal.threshold]
    if len(lower):
        assert precision_recall_at(cal.apply(scores), labels, float(lower[-1]))[0] < 0.8


def test_calibration_round_trips_and_is_bound_to_the_oracle_theta(tmp_path: Path) -> None:
    inner = ScriptedOracle({frozenset(CONTRADICTION): 0.7}, threshold=0.5)
    scores, labels = _dev(1)
    cal = fit_calibration(
        scores,
        labels,
        method="temperature",
        precision_target=0.8,
        oracle_theta=inner.identity.digest,
    )
    path = cal.save(tmp_path / "cal.json")
    loaded = Calibration.load(path)
    assert loaded == cal
    oracle = CalibratedOracle(inner, loaded)
    assert oracle.threshold == cal.threshold
    assert oracle.score([CONTRADICTION])[0] == pytest.approx(float(cal.apply([0.7])[0]))
    assert oracle.identity.digest not in (inner.identity.digest,)
    other = ScriptedOracle(threshold=0.5, name="other model")
    with pytest.raises(OracleError, match="refit"):
        CalibratedOracle(other, loaded)
    # Settings wire it in: the configured oracle's θ must match the calibration's.
    settings = make_settings(tmp_path, oracle_calibration=str(path))
    with pytest.raises(OracleError, match="fitted for oracle"):
        build_oracle(settings.oracle, settings.judge)


# --- uncertainty band -------------------------------------------------------------------------


def test_band_routes_uncertain_pairs_to_the_llm_judge(
    judge: tuple[FakeJudge, str],  # noqa: F811
) -> None:
    state, url = judge
    sure_yes = ("The auth service runs on port 9000.", "The auth service runs on port 9090.")
    primary = ScriptedOracle(
        {frozenset(CONTRADICTION): 0.55, frozenset(UNRELATED): 0.5, frozenset(sure_yes): 0.97},
        threshold=0.9,
    )
    second = LLMJudgeOracle(url, "judge", direction="forward", threshold=0.5)
    band = BandOracle(primary, second, low=0.3, high=0.9)
    scores = band.score([CONTRADICTION, UNRELATED, sure_yes])
    # Both pairs in [0.3, 0.9) went to the judge (and only they): it says yes to the port flip
    # and no to the unrelated pair; the confident pair kept the primary's score.
    assert len(state.requests) == 2 and band.routed == 2
    assert list(band.decide(scores)) == [True, False, True]
    assert scores[2] == pytest.approx(0.97)
    assert band.identity.digest != primary.identity.digest


def test_band_setting_needs_a_configured_judge(tmp_path: Path, nli_model_path: str) -> None:
    settings = make_settings(tmp_path, nli_model=nli_model_path, oracle_band="0.3,0.8")
    with pytest.raises(ValueError, match="LLM_JUDGE"):
        build_oracle(settings.oracle, settings.judge)


# --- finetune ---------------------------------------------------------------------------------


def _tiny_data(path: Path) -> Path:
    rows = [
        {
            "premise": "The auth service runs on port 9000.",
            "hypothesis": "The auth service runs on port 9090.",
            "label": "contradiction",
            "question": "Which port?",
        },
        {
            "premise": "A man is cooking dinner.",
            "hypothesis": "A person is in a kitchen.",
            "label": "entailment",
        },
        {
            "premise": "Ken Adams works at Acme.",
            "hypothesis": "Ken Adams likes jazz.",
            "label": "neutral",
        },
        {
            "text": "I ran ten kilometres along the canal.",
            "group": "u",
            "attribute": "fitness",
            "state": "athletic",
            "question": "How fit is the user?",
        },
        {
            "text": "I was winded after one flight of stairs.",
            "group": "u",
            "attribute": "fitness",
            "state": "unfit",
        },
        {"text": "I adopted a tabby cat from the shelter.", "group": "u"},
        {
            "text": "Priya bought a set of sable brushes.",
            "group": "p",
            "attribute": "hobby",
            "state": "painting",
        },
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_augmentation_labels_state_changes_compatible_and_unrelated_pairs(tmp_path: Path) -> None:
    data = _tiny_data(tmp_path / "d.jsonl")
    cfg = FinetuneConfig("unused", [data], tmp_path / "m", augment_unrelated=1.0, augment_flips=1.0)
    examples, counts = build_examples(cfg)
    by_source = {(e.source, e.label) for e in examples}
    assert ("aug-state-change", "contradiction") in by_source
    assert ("aug-compatible", "neutral") in by_source
    assert ("aug-unrelated", "neutral") in by_source
    assert ("aug-flip", "contradiction") in by_source
    flips = [e for e in examples if e.source == "aug-flip"]
    assert all(e.premise != e.hypothesis for e in flips)
    changes = [e for e in examples if e.source == "aug-state-change"]
    assert {frozenset((c.premise, c.hypothesis)) for c in changes} == {
        frozenset(
            ("I ran ten kilometres along the canal.", "I was winded after one flight of stairs.")
        )
    }
    assert sum(counts.values()) == len(examples)


def test_finetune_end_to_end_and_the_model_loads_as_an_oracle(
    tmp_path: Path, nli_model_path: str
) -> None:
    data = _tiny_data(tmp_path / "d.jsonl")
    out = tmp_path / "tuned"
    cfg = FinetuneConfig(
        nli_model_path,
        [data],
        out,
        epochs=1,
        batch_size=4,
        device="cpu",
        threads=1,
        progress=False,
        seed=3,
    )
    provenance = finetune(cfg, log=lambda _: None)
    assert provenance["steps"] >= 1 and provenance["rows"] >= 7
    saved = json.loads((out / PROVENANCE_FILE).read_text())
    assert saved["weights_sha256"] == WeightsFingerprint().of(out)
    assert saved["data"][0]["sha256"]
    oracle = CrossEncoderOracle(str(out), device="cpu")
    base = CrossEncoderOracle(nli_model_path, device="cpu")
    scores = oracle.score([CONTRADICTION, UNRELATED])
    assert scores.shape == (2,) and np.all((scores >= 0) & (scores <= 1))
    assert oracle.identity.digest != base.identity.digest  # new weights, new θ
    assert oracle.id2label == base.id2label  # the label map survives training


# --- query-conditioned κ ------------------------------------------------------------------------


def test_query_conditioned_oracle_is_keyed_by_question_in_the_verdict_log(
    tmp_path: Path, nli_model_path: str
) -> None:
    from gcmem.oracle.verdicts import VerdictLog
    from gcmem.storage.redis import Keyspace, open_redis
    from tests.test_oracle_verdicts import NS, chunk

    settings = make_settings(
        tmp_path,
        nli_model=nli_model_path,
        oracle_gate="entity",
        oracle_question_template="{question} [SEP] {text}",
    )
    oracle = build_oracle(settings.oracle, settings.judge)
    assert isinstance(oracle, EntityGatedOracle) and oracle.query_conditioned
    plain = CrossEncoderOracle(nli_model_path, device="cpu")
    q = "Which port does the payments service run on?"
    with_q = oracle.score_with_question([CONTRADICTION], q)
    assert with_q[0] != pytest.approx(float(plain.score([CONTRADICTION])[0]))
    log = VerdictLog(open_redis(settings.storage), Keyspace(settings.storage.key_prefix), oracle)
    a, b = chunk(CONTRADICTION[0]), chunk(CONTRADICTION[1])
    first = log.scores(NS, [(a, b)], q)
    assert first.misses == 1 and first.scores[0] == pytest.approx(float(with_q[0]))
    assert log.scores(NS, [(a, b)], q).hits == 1  # same question: from the log
    assert log.scores(NS, [(a, b)], "Who owns the auth service?").misses == 1  # new question


# --- the accuracy bench -------------------------------------------------------------------------


def test_accuracy_bench_pairs_and_filter_metrics_on_gold_kappa() -> None:
    from bench.oracle_accuracy import (
        candidate_sets,
        filter_metrics,
        labelled_pairs,
        scenarios_for,
        statements,
    )
    from bench.scenarios.generate import SizeSpec
    from tests.doubles import HashingEmbedder

    spec = SizeSpec(instances_per_ratio=7, distractors=6, statics=2, ratios=(2,))
    scen = scenarios_for(5, False, spec)
    rows = statements(scen)
    assert {"text", "group"} <= set(rows[0]) and any("state" in r for r in rows)
    sets = candidate_sets(scen, HashingEmbedder().embed, k=6, stm=2)
    pairs = labelled_pairs(sets, {s.id: s for s in scen}, HashingEmbedder().embed)
    y = np.array([p["label"] == "contradiction" for p in pairs])
    assert 0 < y.sum() < len(pairs)
    as_dicts = [cs.__dict__ for cs in sets]
    gold = filter_metrics(as_dicts, pairs, y, full=False)
    # Gold κ removes every stale candidate that has a newer contradicting one, and no true fact.
    assert gold["still_true_dropped"] == 0 and gold["stale_removed_share"] > 0
    flag_all = filter_metrics(as_dicts, pairs, np.ones(len(pairs), dtype=bool), full=False)
    assert flag_all["still_true_dropped"] > 0  # a κ that flags everything destroys true facts


@pytest.mark.parametrize("command", ["evaluate", "calibrate"])
def test_a_bad_pairs_file_names_its_line_before_any_model_loads(
    command: str, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from gcmem.cli import app

    bad = tmp_path / "pairs.jsonl"
    bad.write_text('{"premise": "a", "hypothesis": "b", "label": "neutral"}\nnot json\n')
    args = ["oracle", command, str(bad)]
    if command == "calibrate":
        args += ["--out", str(tmp_path / "cal.json")]
    # A model path that cannot load: reaching it would be a different error.
    result = CliRunner().invoke(app, args, env={"GCMEM_NLI_MODEL": str(tmp_path)})
    assert result.exit_code == 2
    assert f"{bad}:2: not JSON" in result.output
    assert not (tmp_path / "cal.json").exists()
