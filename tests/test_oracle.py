"""The real NLI cross-encoder (the shared offline checkpoint) as κ, its identity θ, and the
weights fingerprint."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from gcmem.oracle.base import OracleError
from gcmem.oracle.cross_encoder import CrossEncoderOracle, contradiction_index
from gcmem.oracle.factory import build_oracle
from gcmem.oracle.fingerprint import WeightsFingerprint, clear_memory_cache
from tests.conftest import make_settings

pytestmark = pytest.mark.model

PORT = ("The service runs on port 8000.", "The service runs on port 8080.")
NEUTRAL = [
    ("Alice likes tea.", "The build uses Python 3.11."),
    ("The timeout is 1800 seconds.", "The timeout is set to 1800 s."),
    ("The project is licensed under Apache-2.0.", "The payments service runs on port 8000."),
]


@pytest.fixture(scope="session")
def nli_oracle(nli_model_path: str) -> CrossEncoderOracle:
    return CrossEncoderOracle(nli_model_path, device="cpu", direction="max", batch_size=8)


@pytest.fixture(scope="session")
def permuted_model_dir(nli_model_path: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared checkpoint with its classes stored in another order: id2label and the
    classifier rows permuted together, so the model computes the same function."""
    out = tmp_path_factory.mktemp("permuted-nli")
    model = AutoModelForSequenceClassification.from_pretrained(nli_model_path)
    labels = model.config.id2label  # {0: contradiction, 1: entailment, 2: neutral}
    perm = [2, 0, 1]  # new row i holds old class perm[i]: contradiction moves to index 1
    with torch.no_grad():
        model.classifier.weight.copy_(model.classifier.weight[perm].clone())
        model.classifier.bias.copy_(model.classifier.bias[perm].clone())
    model.config.id2label = {i: labels[old] for i, old in enumerate(perm)}
    model.config.label2id = {name: i for i, name in model.config.id2label.items()}
    model.save_pretrained(out)
    AutoTokenizer.from_pretrained(nli_model_path).save_pretrained(out)
    return out


def test_flags_a_clear_contradiction_and_not_neutral_pairs(nli_oracle: CrossEncoderOracle) -> None:
    scores = nli_oracle.score([PORT, *NEUTRAL])
    decisions = nli_oracle.decide(scores)
    assert decisions[0], f"port flip scored {scores[0]:.2f}"
    assert not decisions[1:].any(), f"neutral pairs scored {scores[1:]}"
    # The max policy is symmetric; forward alone misses this flip (docs/oracle.md: 0.42).
    assert nli_oracle.score([PORT[::-1]])[0] == pytest.approx(scores[0], abs=1e-5)
    forward = nli_oracle.score_directed([PORT])[0]
    assert forward < scores[0]


def test_scores_do_not_depend_on_batching_or_order(nli_oracle: CrossEncoderOracle) -> None:
    pairs = [PORT, *NEUTRAL, ("A dog runs.", "A cat sleeps on a very long and winding road.")]
    batched = nli_oracle.score_directed(pairs)
    single = np.array([nli_oracle.score_directed([p])[0] for p in pairs])
    np.testing.assert_allclose(batched, single, atol=1e-5)
    reversed_order = nli_oracle.score_directed(pairs[::-1])[::-1]
    np.testing.assert_allclose(batched, reversed_order, atol=1e-5)
    assert nli_oracle.score([]).shape == (0,)


def test_backend_encoding_matches_the_tokenizer_call(nli_model_path: str) -> None:
    """The Rust-backend encoding padded in numpy feeds the model exactly what the tokenizer's
    own padded call does, truncation of over-long pairs included, and scores the same."""
    oracle = CrossEncoderOracle(nli_model_path, device="cpu", max_length=24, batch_size=3)
    assert oracle._pad_values is not None  # the shipped checkpoint takes the fast path
    long = " ".join(["the staging database keeps its nightly backups for a week"] * 6)
    pairs = [PORT, *NEUTRAL, (long, "Backups are kept for a month."), ("Hi.", long)]
    tok = oracle.tokenizer
    for idx, batch in oracle.batches(oracle.encode(pairs)):
        expected = tok(
            [pairs[i][0] for i in idx],
            [pairs[i][1] for i in idx],
            truncation=True,
            max_length=24,
            padding=True,
            return_tensors="pt",
        )
        assert set(batch) == set(expected.keys())
        for name, tensor in batch.items():
            assert torch.equal(tensor, expected[name]), name
    assert max(len(e["input_ids"]) for e in oracle.encode(pairs)) == 24
    slow = CrossEncoderOracle(nli_model_path, device="cpu", max_length=24, batch_size=3)
    slow.__dict__["_pad_values"] = None  # the generic path: tokenizer call + tokenizer.pad
    np.testing.assert_allclose(oracle.score_directed(pairs), slow.score_directed(pairs), atol=1e-6)


def test_widths_round_up_to_a_multiple_without_changing_scores(nli_model_path: str) -> None:
    """Padding to a multiple (CUDA's default, to bound the shapes kernels see) adds only pad
    positions, never past truncation's length, and leaves every score as it was."""
    plain = CrossEncoderOracle(nli_model_path, device="cpu", max_length=30, batch_size=2)
    assert plain.pad_to_multiple_of == 1  # no padding work on the CPU by default
    padded = CrossEncoderOracle(
        nli_model_path, device="cpu", max_length=30, batch_size=2, pad_to_multiple_of=8
    )
    long = " ".join(["the staging database keeps its nightly backups for a week"] * 6)
    pairs = [PORT, *NEUTRAL, (long, "Backups are kept for a month.")]
    for (i0, a), (i1, b) in zip(
        plain.batches(plain.encode(pairs)), padded.batches(padded.encode(pairs)), strict=True
    ):
        assert list(i0) == list(i1)
        width = b["input_ids"].shape[1]
        assert width % 8 == 0 or width == 30
        assert width <= max(30, a["input_ids"].shape[1])
        n = a["input_ids"].shape[1]
        for name in a:
            assert torch.equal(b[name][:, :n], a[name]), name
        assert int(b["attention_mask"][:, n:].sum()) == 0
    np.testing.assert_allclose(plain.score_directed(pairs), padded.score_directed(pairs), atol=1e-5)
    with pytest.raises(ValueError, match="pad_to_multiple_of"):
        CrossEncoderOracle(nli_model_path, device="cpu", pad_to_multiple_of=0)


def test_batch_size_defaults_by_device(nli_model_path: str) -> None:
    assert CrossEncoderOracle(nli_model_path, device="cpu").batch_size == 32
    assert CrossEncoderOracle(nli_model_path, device="cpu", batch_size=5).batch_size == 5


def test_identity_names_what_determines_scores(nli_oracle: CrossEncoderOracle) -> None:
    theta = nli_oracle.identity
    assert theta.params["model"] == "nli-minilm-l6"
    assert len(theta.params["weights_sha256"]) == 64
    assert theta.params["labels"]["0"] == "contradiction"
    assert theta.params["direction"] == "max" and theta.params["template"] == "{text}"
    assert "threshold" not in theta.canonical()


def test_identity_changes_with_template_and_direction(nli_model_path: str) -> None:
    base = make_settings(Path("/tmp"), nli_model=nli_model_path, device="cpu")
    a = build_oracle(base.oracle, base.judge)
    b = build_oracle(base.replace(oracle_direction="forward").oracle, base.judge)
    c = build_oracle(base.replace(oracle_template="Memory: {text}").oracle, base.judge)
    d = build_oracle(base.replace(oracle_threshold=0.9).oracle, base.judge)
    assert len({a.identity.digest, b.identity.digest, c.identity.digest}) == 3
    assert d.identity.digest == a.identity.digest  # threshold is not part of θ
    assert not b.symmetric and a.symmetric


def test_label_index_comes_from_id2label(
    nli_oracle: CrossEncoderOracle, permuted_model_dir: Path
) -> None:
    permuted = CrossEncoderOracle(str(permuted_model_dir), device="cpu", direction="max")
    assert permuted.label_index == 1 and nli_oracle.label_index == 0
    pairs = [PORT, *NEUTRAL]
    np.testing.assert_allclose(permuted.score(pairs), nli_oracle.score(pairs), atol=1e-5)
    # Same weights content, different label map: a different θ (its verdicts are not shared).
    assert permuted.identity.digest != nli_oracle.identity.digest


def test_a_model_without_a_contradiction_label_is_refused() -> None:
    with pytest.raises(OracleError, match="GCMEM_ORACLE_CONTRADICTION_LABEL"):
        contradiction_index({0: "LABEL_0", 1: "LABEL_1"}, "contradiction")
    assert contradiction_index({0: "ENTAILMENT", 1: "Contradiction"}, "contradiction") == 1


def test_bad_settings_are_clear_errors(nli_model_path: str) -> None:
    with pytest.raises(ValueError, match="text"):
        CrossEncoderOracle(nli_model_path, device="cpu", template="{premise}")
    with pytest.raises(ValueError, match="threshold"):
        CrossEncoderOracle(nli_model_path, device="cpu", threshold=1.5)
    with pytest.raises(FileNotFoundError):
        CrossEncoderOracle("/nonexistent/model/dir", device="cpu")


def _fake_model(root: Path, weights: bytes) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "model.safetensors").write_bytes(weights)
    (root / "config.json").write_text("{}")
    (root / "README.md").write_text("docs do not change scores")
    return root


def test_fingerprint_hashes_once_and_notices_changes(tmp_path: Path) -> None:
    clear_memory_cache()
    model = _fake_model(tmp_path / "m", b"weights-v1")
    cache = tmp_path / "cache.json"
    first = WeightsFingerprint(cache)
    digest = first.of(model)
    assert first.files_hashed == 2
    clear_memory_cache()  # a new process: only the cache file remains
    second = WeightsFingerprint(cache)
    assert second.of(model) == digest and second.files_hashed == 0
    (model / "README.md").write_text("edited docs")
    assert WeightsFingerprint(cache).of(model) == digest
    (model / "model.safetensors").write_bytes(b"weights-v2")
    stat = (model / "model.safetensors").stat()
    os.utime(model / "model.safetensors", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    changed = WeightsFingerprint(cache)
    assert changed.of(model) != digest and changed.files_hashed == 1
    # Same files at another path: same fingerprint (content, not location).
    assert WeightsFingerprint().of(_fake_model(tmp_path / "copy", b"weights-v2")) == changed.of(
        model
    )
    (tmp_path / "docs-only").mkdir()
    with pytest.raises(FileNotFoundError):
        WeightsFingerprint().of(tmp_path / "docs-only")  # no weight files


def test_concurrent_queries_score_like_sequential_ones(nli_oracle: CrossEncoderOracle) -> None:
    """Query threads share one oracle (Memory.aretrieve runs in threads)."""
    pairs = [PORT, *NEUTRAL]
    batches = [[*pairs[i:], (f"Item {i} is red.", f"Item {i} is blue.")] for i in range(4)]
    expected = [nli_oracle.score(b) for b in batches]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(nli_oracle.score, batches * 2))
    for want, have in zip(expected * 2, got, strict=True):
        np.testing.assert_allclose(have, want, atol=1e-5)


def test_a_model_that_cannot_load_is_a_clear_error(tmp_path: Path) -> None:
    # An existing directory without model files: what a wrong GCMEM_NLI_MODEL looks like.
    with pytest.raises(OracleError, match="GCMEM_NLI_MODEL"):
        CrossEncoderOracle(str(tmp_path), device="cpu")
