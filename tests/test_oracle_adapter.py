"""Supersession adapters (``gcmem.oracle.adapter``): training, the merge into the model, the
file format and its checks, the choice by weights fingerprint, and what an adapter changes in
κ's identity, calibration, threshold and Φ_T's rule.

Logic tests run on a tiny BERT built here (random weights, the offline checkpoint's tokenizer);
the shipped adapter on the real checkpoint is tested in ``test_oracle_adapter_shipped.py``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from transformers import BertConfig, BertForSequenceClassification
from typer.testing import CliRunner

from gcmem.cli import app
from gcmem.filters.dominance import build as build_dominance
from gcmem.filters.resources import Resources
from gcmem.memory import Memory
from gcmem.oracle.adapter import (
    Adapter,
    LabelledPair,
    active_adapter,
    adapter_note,
    choose_adapter,
)
from gcmem.oracle.adapter_train import TrainConfig, score_pairs, train_adapter
from gcmem.oracle.base import OracleError
from gcmem.oracle.calibration import active_calibration
from gcmem.oracle.cross_encoder import CrossEncoderOracle
from gcmem.oracle.factory import build_oracle
from gcmem.oracle.fingerprint import WeightsFingerprint
from tests.conftest import make_settings

PAIRS = [
    LabelledPair("Ana lives in Porto.", "Ana moved to Lyon last spring.", True),
    LabelledPair("The exporter listens on 9102.", "Ops moved the exporter to 9310.", True),
    LabelledPair("Ana lives in Porto.", "Ana's birthday is in March.", False),
    LabelledPair("The exporter listens on 9102.", "The exporter belongs to the infra team.", False),
    LabelledPair("My son goes to Maple Elementary.", "My daughter goes to Hollins Middle.", False),
    LabelledPair("I hate treadmill running.", "I love trail running.", False),
]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory, nli_model_path: str) -> Path:
    """A 2-layer BERT with random weights, an NLI label map and the real tokenizer."""
    out = tmp_path_factory.mktemp("tiny-nli")
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=3,
        id2label={0: "contradiction", 1: "entailment", 2: "neutral"},
        label2id={"contradiction": 0, "entailment": 1, "neutral": 2},
    )
    BertForSequenceClassification(config).save_pretrained(out)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        shutil.copy(Path(nli_model_path) / name, out / name)
    return out


@pytest.fixture(scope="module")
def trained(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    weights = WeightsFingerprint().of(tiny_model)
    adapter = train_adapter(
        tiny_model,
        PAIRS,
        TrainConfig(rank=2, epochs=2, batch_size=4, threads=1),
        weights_sha256=weights,
        progress=False,
        log=lambda _: None,
    )
    path = tmp_path_factory.mktemp("adapter") / "tiny.safetensors"
    return adapter.with_thresholds(0.7, 0.4).save(path)


# --- training, file format, merge -----------------------------------------------------------


def test_training_needs_both_labels(tiny_model: Path) -> None:
    with pytest.raises(ValueError, match="both labels"):
        train_adapter(
            tiny_model,
            [p for p in PAIRS if not p.supersedes],
            TrainConfig(rank=2, epochs=1),
            weights_sha256="x",
            progress=False,
        )


def test_saved_adapter_round_trips_with_its_metadata(trained: Path, tiny_model: Path) -> None:
    adapter = Adapter.load(trained)
    meta = json.loads(trained.with_suffix(".json").read_text())
    assert adapter.sha256 == meta["tensors_sha256"] and len(adapter.sha256) == 64
    assert adapter.base_weights == WeightsFingerprint().of(tiny_model)
    assert (adapter.threshold, adapter.surface_threshold) == (0.7, 0.4)
    assert meta["pairs"] == len(PAIRS) and meta["positives"] == 2 and meta["rank"] == 2
    # one low-rank pair per linear layer of the encoder and pooler, and the head
    linear = [
        n
        for n, m in BertForSequenceClassification.from_pretrained(tiny_model).named_modules()
        if isinstance(m, torch.nn.Linear) and not n.startswith("classifier")
    ]
    assert sorted(k.removesuffix(".lora_a") for k in adapter.tensors if k.endswith(".lora_a")) == (
        sorted(linear)
    )
    assert adapter.tensors["classifier.weight"].shape == (1, 32)


def test_apply_merges_the_low_rank_delta_and_replaces_the_head(
    trained: Path, tiny_model: Path
) -> None:
    adapter = Adapter.load(trained)
    base = BertForSequenceClassification.from_pretrained(tiny_model)
    model = BertForSequenceClassification.from_pretrained(tiny_model)
    adapter.apply(model)
    name = "bert.encoder.layer.1.attention.self.query"
    a, b = adapter.tensors[f"{name}.lora_a"], adapter.tensors[f"{name}.lora_b"]
    expected = base.get_submodule(name).weight + adapter.scale * (b @ a)
    assert torch.allclose(model.get_submodule(name).weight, expected, atol=1e-6)
    assert not torch.equal(model.get_submodule(name).weight, base.get_submodule(name).weight)
    assert model.classifier.out_features == 1


def test_a_tampered_tensor_file_is_refused(trained: Path, tmp_path: Path) -> None:
    copy = tmp_path / "t.safetensors"
    shutil.copy(trained, copy)
    shutil.copy(trained.with_suffix(".json"), copy.with_suffix(".json"))
    data = bytearray(copy.read_bytes())
    data[-1] ^= 0xFF
    copy.write_bytes(bytes(data))
    with pytest.raises(OracleError, match="do not match"):
        Adapter.load(copy)
    copy.with_suffix(".json").unlink()
    with pytest.raises(OracleError, match="needs both"):
        Adapter.load(copy)


def test_thresholds_must_be_ordered(trained: Path) -> None:
    with pytest.raises(ValueError):
        Adapter.load(trained).with_thresholds(0.5, 0.9)


# --- choice by fingerprint --------------------------------------------------------------------


def test_choice_none_auto_and_path(trained: Path, tiny_model: Path) -> None:
    weights = WeightsFingerprint().of(tiny_model)
    assert choose_adapter("none", weights).adapter is None
    auto = choose_adapter("auto", weights)  # nothing ships for random weights
    assert auto.adapter is None and "none ships" in auto.note
    mine = choose_adapter(str(trained), weights)
    assert mine.adapter is not None and mine.source == str(trained)
    with pytest.raises(OracleError, match="trained on weights"):
        choose_adapter(str(trained), "0" * 64)
    assert adapter_note("none", weights).startswith("off")
    assert "drop >= 0.7" in adapter_note(str(trained), weights)


def _merged_model_scores(
    model_dir: Path, adapter: Adapter, pairs: list[tuple[str, str]]
) -> list[float]:
    """The reference: the base model with the adapter merged, one unpadded pair at a time."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModelForSequenceClassification.from_pretrained(str(model_dir)).eval()
    adapter.apply(model)
    with torch.inference_mode():
        return [
            float(torch.sigmoid(model(**tokenizer(a, b, return_tensors="pt")).logits[0, 0]))
            for a, b in pairs
        ]


# --- κ with an adapter ------------------------------------------------------------------------


def test_oracle_with_an_adapter_scores_one_way_under_its_own_identity(
    trained: Path, tiny_model: Path
) -> None:
    plain = CrossEncoderOracle(str(tiny_model), device="cpu", direction="max")
    adapted = CrossEncoderOracle(
        str(tiny_model), device="cpu", direction="max", adapter=str(trained)
    )
    assert "adapter_sha256" not in plain.identity.params
    assert adapted.identity.params["adapter_sha256"] == Adapter.load(trained).sha256
    assert adapted.identity.params["direction"] == "forward" and not adapted.symmetric
    assert adapted.identity.digest != plain.identity.digest
    with pytest.raises(OracleError, match="one direction"):
        adapted.with_direction("both")
    pairs = [(p.older, p.newer) for p in PAIRS]
    scores = adapted.score(pairs)
    assert ((scores >= 0) & (scores <= 1)).all()
    reference = _merged_model_scores(tiny_model, Adapter.load(trained), pairs)
    assert scores == pytest.approx(reference, abs=1e-5)
    # cross-validation scores through the same oracle, with an adapter not yet saved
    assert score_pairs(tiny_model, Adapter.load(trained), pairs) == pytest.approx(
        reference, abs=1e-5
    )
    # one direction: the reversed pair is a different question
    assert adapted.score([(pairs[0][1], pairs[0][0])])[0] != pytest.approx(scores[0], abs=1e-6)


def test_with_an_adapter_no_calibration_applies_and_its_thresholds_decide(
    trained: Path, tiny_model: Path, tmp_path: Path
) -> None:
    s = make_settings(
        tmp_path,
        nli_model=str(tiny_model),
        oracle_adapter=str(trained),
        filters=["supersession", "dominance"],
    )
    oracle = build_oracle(s.oracle, s.judge, device="cpu")
    assert active_adapter(oracle) is not None and active_calibration(oracle) is None
    assert oracle.threshold == 0.7
    own = build_oracle(s.replace(oracle_calibration_threshold=False).oracle, s.judge, device="cpu")
    assert own.threshold == s.oracle.threshold
    with Memory.from_settings(s) as mem:
        res: Resources = mem.resources
        assert res.confirm_log is None
        stage = build_dominance(res)
        assert stage.require_anchor is False and stage.confirm is None
        assert stage.surface_threshold == 0.4
        assert stage.drop_identity()["theta"] == oracle.identity.digest


def test_without_an_adapter_the_rule_is_unchanged(tiny_model: Path, tmp_path: Path) -> None:
    s = make_settings(
        tmp_path, nli_model=str(tiny_model), filters=["supersession", "dominance"]
    )  # auto: none ships for these weights
    with Memory.from_settings(s) as mem:
        stage = build_dominance(mem.resources)
        assert stage.require_anchor is True and stage.confirm is not None


# --- the CLI ----------------------------------------------------------------------------------


def test_adapt_reports_a_bad_line_by_file_and_number(tmp_path: Path) -> None:
    data = tmp_path / "pairs.jsonl"
    data.write_text(
        json.dumps({"older": "a", "newer": "b", "supersedes": True})
        + "\n"
        + json.dumps({"older": "a", "newer": "b", "supersedes": "yes"})
        + "\n"
    )
    result = CliRunner().invoke(app, ["oracle", "adapt", str(data), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert f"{data}:2" in result.output


def test_adapt_writes_an_adapter_the_oracle_loads(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "pairs.jsonl"
    data.write_text(
        "".join(
            json.dumps({"older": p.older, "newer": p.newer, "supersedes": p.supersedes}) + "\n"
            for p in PAIRS
        )
    )
    monkeypatch.setenv("GCMEM_NLI_MODEL", str(tiny_model))
    out = tmp_path / "mine"
    result = CliRunner().invoke(
        app,
        [
            *("oracle", "adapt", str(data), "--out", str(out), "--rank", "2", "--epochs", "1"),
            *("--threshold", "0.9", "--surface-threshold", "0.6", "--threads", "1"),
        ],
    )
    assert result.exit_code == 0, result.output
    oracle = CrossEncoderOracle(str(tiny_model), device="cpu", adapter=str(out) + ".safetensors")
    assert oracle.adapter is not None and oracle.adapter.threshold == 0.9
