"""``gcmem oracle finetune``: adapt a sequence-classification cross-encoder to agent memory.

Input: JSONL files whose rows are either
- labelled pairs: ``premise``, ``hypothesis``, ``label`` (a class name of the model, e.g.
  contradiction / entailment / neutral), optional ``question`` (query-conditioned training);
- statements for augmentation: ``text``, ``group`` (who or what it is about, e.g. an instance's
  subject), optional ``attribute`` and ``state``, optional ``question``.

Built-in augmentation (each a switch):
- statements: same group + attribute, different state -> contradiction (value flips and
  behavioural state changes); same group, different attribute or no attribute -> neutral
  (compatible facts about one entity); different groups -> neutral (unrelated);
- labelled pairs: a premise with the hypothesis of a row about other entities -> neutral
  (unrelated pairs; SNLI calls many of those "contradiction"); a premise whose number or
  version is replaced by another -> contradiction (value flip).

Every row is trained in a random order of its two statements (κ scores both orders). The
output directory is a transformers model directory ``CrossEncoderOracle`` loads as is, plus
``gcmem-finetune.json`` (provenance: base model, data files and their sha256, counts, seed,
hyper-parameters, wall time, weights sha256).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gcmem.oracle.relatedness import entities
from gcmem.settings import check_template

PROVENANCE_FILE = "gcmem-finetune.json"
DEFAULT_QUESTION_TEMPLATE = "{question} [SEP] {text}"
CONTRADICTION = "contradiction"
NEUTRAL = "neutral"


@dataclass(frozen=True)
class Example:
    premise: str
    hypothesis: str
    label: str
    question: str | None = None
    source: str = "pairs"


@dataclass(frozen=True)
class Statement:
    text: str
    group: str
    attribute: str | None = None
    state: str | None = None
    question: str | None = None


@dataclass
class FinetuneConfig:
    base_model: str
    data: list[Path]
    out: Path
    epochs: float = 1.0
    batch_size: int = 16
    lr: float = 3e-5
    warmup: float = 0.1
    max_length: int = 128
    seed: int = 0
    device: str = "auto"
    threads: int | None = None
    limit: int | None = None  # rows kept after augmentation (a random sample)
    augment_unrelated: float = 0.25  # unrelated pairs per labelled pair
    augment_flips: float = 0.1  # value flips per labelled pair with a number in it
    statement_pairs: int = 12  # augmentation pairs drawn per statement group (each kind)
    # Statement neutrals kept per statement contradiction (None = all): compatible and
    # unrelated pairs are plentiful, state changes are not.
    neutral_ratio: float | None = 3.0
    question_template: str = DEFAULT_QUESTION_TEMPLATE
    question_share: float = 0.5  # rows with a question: trained with it this often
    progress: bool = True
    extra: dict[str, Any] = field(default_factory=dict)  # recorded in the provenance


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_rows(paths: Iterable[Path]) -> tuple[list[Example], list[Statement]]:
    pairs: list[Example] = []
    statements: list[Statement] = []
    for path in paths:
        with Path(path).open() as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as exc:
                    raise ValueError(f"{path}:{n}: not JSON: {exc}") from exc
                question = row.get("question") or None
                if "premise" in row:
                    if not row.get("hypothesis") or not row.get("label"):
                        raise ValueError(f"{path}:{n}: a pair needs premise, hypothesis, label")
                    pairs.append(
                        Example(
                            str(row["premise"]),
                            str(row["hypothesis"]),
                            str(row["label"]).strip().lower(),
                            question,
                            str(row.get("source") or Path(path).stem),
                        )
                    )
                elif "text" in row and "group" in row:
                    statements.append(
                        Statement(
                            str(row["text"]),
                            str(row["group"]),
                            row.get("attribute"),
                            row.get("state"),
                            question,
                        )
                    )
                else:
                    raise ValueError(
                        f"{path}:{n}: a row needs premise/hypothesis/label or text/group"
                    )
    return pairs, statements


# --- augmentation ----------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])(v?\d+(?:\.\d+)*)(?![\w.]*\w)")


def flip_value(text: str, rng: random.Random) -> str | None:
    """``text`` with one number or version replaced by a different one of the same shape."""
    matches = list(_NUMBER.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    value = m.group(1)
    parts = value.lstrip("v").split(".")
    i = rng.randrange(len(parts))
    old = int(parts[i]) if parts[i].isdigit() else 0
    new = old
    while new == old:
        new = max(0, old + rng.choice([-3, -2, -1, 1, 2, 3, 5, 10]))
        if len(parts) == 1 and old >= 100:
            new = old + rng.choice([-1, 1]) * rng.choice([1, 10, 80, 100, 1000])
    parts[i] = str(new)
    flipped = ("v" if value.startswith("v") else "") + ".".join(parts)
    return text[: m.start(1)] + flipped + text[m.end(1) :]


def augment_pairs(
    pairs: Sequence[Example], cfg: FinetuneConfig, rng: random.Random
) -> list[Example]:
    out: list[Example] = []
    if not pairs:
        return out
    n_unrelated = int(len(pairs) * cfg.augment_unrelated)
    tries = 0
    while len(out) < n_unrelated and tries < n_unrelated * 10:
        tries += 1
        a, b = rng.choice(pairs), rng.choice(pairs)
        if a is b or entities(a.premise) & entities(b.hypothesis):
            continue
        out.append(Example(a.premise, b.hypothesis, NEUTRAL, a.question, "aug-unrelated"))
    flips = 0
    budget = int(len(pairs) * cfg.augment_flips)
    for ex in rng.sample(list(pairs), len(pairs)):
        if flips >= budget:
            break
        flipped = flip_value(ex.premise, rng)
        if flipped is not None and flipped != ex.premise:
            out.append(Example(ex.premise, flipped, CONTRADICTION, ex.question, "aug-flip"))
            flips += 1
    return out


def augment_statements(
    statements: Sequence[Statement], cfg: FinetuneConfig, rng: random.Random
) -> list[Example]:
    """Contradictions from state changes, neutrals from compatible and unrelated statements."""
    by_group: dict[str, list[Statement]] = defaultdict(list)
    for s in statements:
        by_group[s.group].append(s)
    groups = sorted(by_group)
    out: list[Example] = []
    k = cfg.statement_pairs
    for g in groups:
        members = by_group[g]
        stated = [s for s in members if s.attribute is not None and s.state is not None]
        conflicts = [
            (a, b)
            for i, a in enumerate(stated)
            for b in stated[i + 1 :]
            if a.attribute == b.attribute and a.state != b.state and a.text != b.text
        ]
        same = [
            (a, b)
            for i, a in enumerate(stated)
            for b in stated[i + 1 :]
            if a.attribute == b.attribute and a.state == b.state and a.text != b.text
        ]
        compatible = [
            (a, b)
            for a in members
            for b in members
            if a is not b
            and a.text != b.text
            and (a.attribute is None or b.attribute is None or a.attribute != b.attribute)
        ]
        question = next((s.question for s in members if s.question), None)
        for pool, label, source in (
            (conflicts, CONTRADICTION, "aug-state-change"),
            (same, NEUTRAL, "aug-same-state"),
            (compatible, NEUTRAL, "aug-compatible"),
        ):
            for a, b in rng.sample(pool, min(k, len(pool))):
                out.append(Example(a.text, b.text, label, question, source))
        if len(groups) > 1:
            for s in rng.sample(members, min(k, len(members))):
                other = by_group[rng.choice(groups)]
                o = rng.choice(other)
                if o.group != g:
                    out.append(Example(s.text, o.text, NEUTRAL, question, "aug-unrelated"))
    if cfg.neutral_ratio is not None:
        positives = [e for e in out if e.label == CONTRADICTION]
        # Same attribute, same state, different words ("booked a kennel for the trip to Lyon"
        # / "... to Ghent") are the hardest negatives: without them a model learns "same
        # person, any difference = contradiction". They are kept first (up to one per
        # contradiction); compatible and unrelated pairs fill the rest of the ratio.
        same_state = [e for e in out if e.source == "aug-same-state"]
        others = [e for e in out if e.label != CONTRADICTION and e.source != "aug-same-state"]
        keep_same = rng.sample(same_state, min(len(same_state), len(positives)))
        budget = max(0, round(len(positives) * cfg.neutral_ratio) - len(keep_same))
        if positives:
            out = positives + keep_same + rng.sample(others, min(len(others), budget))
    return out


def build_examples(cfg: FinetuneConfig) -> tuple[list[Example], dict[str, int]]:
    rng = random.Random(cfg.seed)
    pairs, statements = read_rows(cfg.data)
    examples = list(pairs)
    examples += augment_pairs(pairs, cfg, rng)
    examples += augment_statements(statements, cfg, rng)
    rng.shuffle(examples)
    if cfg.limit is not None:
        examples = examples[: cfg.limit]
    counts = Counter(f"{e.source}:{e.label}" for e in examples)
    return examples, dict(sorted(counts.items()))


# --- training --------------------------------------------------------------------------------


def render(text: str, question: str | None, template: str) -> str:
    return text if question is None else template.format(question=question, text=text)


def finetune(cfg: FinetuneConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Train, save the model directory and its provenance; returns the provenance."""
    import numpy as np
    import torch
    from tqdm.auto import tqdm
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
        get_linear_schedule_with_warmup,
    )

    from gcmem.oracle.fingerprint import WeightsFingerprint
    from gcmem.runtime import quiet_transformers, resolve_device, resolve_model_source

    check_template(
        cfg.question_template, {"question", "text"}, {"question", "text"}, "question template"
    )
    quiet_transformers()
    if cfg.threads is not None:
        torch.set_num_threads(cfg.threads)
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    examples, counts = build_examples(cfg)
    if not examples:
        raise ValueError("no training rows")
    labels = sorted({e.label for e in examples})
    source = resolve_model_source(cfg.base_model)
    device = resolve_device(cfg.device)
    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModelForSequenceClassification.from_pretrained(source)
    label2id = {str(v).lower(): int(k) for k, v in model.config.id2label.items()}
    if not set(labels) <= set(label2id):
        # A model without these classes (or a bare encoder) gets a new head over the data's
        # label names.
        names = sorted(set(labels) | {CONTRADICTION, NEUTRAL})
        model = AutoModelForSequenceClassification.from_pretrained(
            source,
            num_labels=len(names),
            id2label=dict(enumerate(names)),
            label2id={n: i for i, n in enumerate(names)},
            ignore_mismatched_sizes=True,
        )
        label2id = {n: i for i, n in enumerate(names)}
    model.to(device).train()
    rng = random.Random(cfg.seed + 1)

    def encode(batch: Sequence[Example]) -> Any:
        firsts, seconds = [], []
        for e in batch:
            q = e.question if e.question and rng.random() < cfg.question_share else None
            a, b = (e.premise, e.hypothesis) if rng.random() < 0.5 else (e.hypothesis, e.premise)
            if e.label not in (CONTRADICTION, NEUTRAL):
                a, b = e.premise, e.hypothesis  # entailment is directional
            firsts.append(render(a, q, cfg.question_template))
            seconds.append(render(b, q, cfg.question_template))
        enc = tokenizer(
            firsts,
            seconds,
            truncation=True,
            max_length=cfg.max_length,
            padding=True,
            return_tensors="pt",
        )
        enc["labels"] = torch.tensor([label2id[e.label] for e in batch])
        return enc.to(device)

    steps_per_epoch = math.ceil(len(examples) / cfg.batch_size)
    total = max(1, int(steps_per_epoch * cfg.epochs))
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.01)
    schedule = get_linear_schedule_with_warmup(optimizer, int(total * cfg.warmup), total)
    log(
        f"finetune: {len(examples):,} rows, {total:,} steps of {cfg.batch_size} on {device} "
        f"(labels {label2id})"
    )
    t0 = time.perf_counter()
    losses: list[float] = []
    bar = tqdm(total=total, desc="finetune", unit="step", disable=not cfg.progress)
    step = 0
    while step < total:
        order = list(range(len(examples)))
        rng.shuffle(order)
        for start in range(0, len(order), cfg.batch_size):
            if step >= total:
                break
            batch = [examples[i] for i in order[start : start + cfg.batch_size]]
            out = model(**encode(batch))
            out.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            losses.append(float(out.loss.detach()))
            step += 1
            bar.update(1)
            if step % 20 == 0:
                bar.set_postfix(loss=f"{np.mean(losses[-20:]):.3f}")
    bar.close()
    seconds = time.perf_counter() - t0
    cfg.out.mkdir(parents=True, exist_ok=True)
    model.eval().to("cpu")
    model.save_pretrained(cfg.out)
    tokenizer.save_pretrained(cfg.out)
    provenance: dict[str, Any] = {
        "base_model": cfg.base_model,
        "base_weights_sha256": WeightsFingerprint().of(source) if Path(source).is_dir() else None,
        "data": [{"path": str(p), "sha256": file_sha256(p)} for p in cfg.data],
        "rows": len(examples),
        "rows_by_source_label": counts,
        "labels": label2id,
        "config": {
            k: (str(v) if isinstance(v, Path) else v)
            for k, v in asdict(cfg).items()
            if k not in ("data", "out", "progress")
        },
        "steps": total,
        "train_seconds": round(seconds, 1),
        "pairs_per_second": round(total * cfg.batch_size / seconds, 1) if seconds else None,
        "final_loss": float(np.mean(losses[-50:])) if losses else None,
        "device": device,
        "torch_threads": torch.get_num_threads(),
        "weights_sha256": WeightsFingerprint().of(cfg.out),
    }
    (cfg.out / PROVENANCE_FILE).write_text(json.dumps(provenance, indent=2) + "\n")
    log(f"finetune: saved {cfg.out} in {seconds:.0f}s (weights {provenance['weights_sha256']})")
    return provenance
