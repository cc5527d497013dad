"""``gcmem oracle ...``: adapt, fine-tune, calibrate and evaluate the conflict oracle κ."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from gcmem.oracle.adapter import LabelledPair

oracle_app = typer.Typer(no_args_is_help=True, help="Adapt, fine-tune, calibrate and evaluate κ.")


def read_adapter_pairs(path: Path) -> list[LabelledPair]:
    """Rows ``{"older": str, "newer": str, "supersedes": bool}``; a bad line ends the
    command naming file and line."""
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("supersedes"), bool):
                raise ValueError('needs "older", "newer" (strings) and "supersedes" (true/false)')
            older, newer = row["older"], row["newer"]
            if not isinstance(older, str) or not isinstance(newer, str):
                raise ValueError('"older" and "newer" must be strings')
        except (ValueError, KeyError) as exc:
            typer.echo(f"error: {path}:{n}: {exc}", err=True)
            raise typer.Exit(2) from exc
        out.append(LabelledPair(older, newer, row["supersedes"], str(row.get("group", ""))))
    return out


@oracle_app.command()
def adapt(
    data: Annotated[
        list[Path], typer.Argument(help='JSONL: {"older", "newer", "supersedes": bool} rows.')
    ],
    out: Annotated[Path, typer.Option(help="Adapter to write (.safetensors, + .json).")],
    threshold: Annotated[
        float, typer.Option(min=0, max=1, help="Drop at or above this P(supersedes).")
    ] = 0.97,
    surface_threshold: Annotated[
        float, typer.Option(min=0, max=1, help="Surface (not drop) from this score up.")
    ] = 0.8,
    rank: Annotated[int, typer.Option(min=1, help="LoRA rank.")] = 8,
    epochs: Annotated[int, typer.Option(min=1, help="Passes over the data.")] = 2,
    lr: Annotated[float, typer.Option(min=0, help="AdamW peak learning rate.")] = 5e-4,
    seed: Annotated[int, typer.Option(help="Seed.")] = 0,
    threads: Annotated[int | None, typer.Option(min=1, help="torch CPU threads.")] = None,
) -> None:
    """Train a supersession adapter for the configured cross-encoder (GCMEM_NLI_MODEL, a
    local directory) on labelled (older, newer) pairs; use it with
    GCMEM_ORACLE_ADAPTER=<out>. Choose the thresholds on pairs the training never saw
    (`python -m bench adapter cv` shows how the shipped one's were)."""
    from gcmem.oracle.adapter_train import TrainConfig, train_adapter
    from gcmem.oracle.fingerprint import WeightsFingerprint
    from gcmem.runtime import resolve_model_source
    from gcmem.settings import load_settings

    if surface_threshold > threshold:
        raise typer.BadParameter("--surface-threshold must not exceed --threshold")
    pairs = [p for path in data for p in read_adapter_pairs(path)]
    source = resolve_model_source(load_settings().oracle.model)
    if not Path(source).is_dir():
        typer.echo(f"error: GCMEM_NLI_MODEL must be a local directory, got {source!r}", err=True)
        raise typer.Exit(2)
    config = TrainConfig(
        rank=rank,
        epochs=epochs,
        lr=lr,
        seed=seed,
        threads=threads,
        extra={"data": [str(p) for p in data]},
    )
    try:
        adapter = train_adapter(
            source, pairs, config, weights_sha256=WeightsFingerprint().of(source), log=typer.echo
        )
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    path = adapter.with_thresholds(threshold, surface_threshold).save(
        out if out.suffix == ".safetensors" else out.with_suffix(".safetensors")
    )
    typer.echo(f"wrote {path} and {path.with_suffix('.json').name}")


@oracle_app.command()
def finetune(
    data: Annotated[
        list[Path], typer.Argument(help="JSONL files: labelled pairs and/or statements.")
    ],
    out: Annotated[Path, typer.Option(help="Model directory to write.")],
    base_model: Annotated[
        str, typer.Option(help="Sequence-classification model (dir or hub id) to start from.")
    ] = "",
    epochs: Annotated[float, typer.Option(min=0.01, help="Passes over the data.")] = 1.0,
    batch_size: Annotated[int, typer.Option(min=1, help="Pairs per step.")] = 16,
    lr: Annotated[float, typer.Option(min=0, help="AdamW learning rate.")] = 3e-5,
    max_length: Annotated[int, typer.Option(min=16, help="Tokens per pair.")] = 128,
    seed: Annotated[int, typer.Option(help="Seed (sampling, augmentation, init).")] = 0,
    device: Annotated[str, typer.Option(help="auto|cpu|cuda.")] = "auto",
    threads: Annotated[int | None, typer.Option(min=1, help="torch CPU threads.")] = None,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Train on a random sample of this many rows.")
    ] = None,
    augment_unrelated: Annotated[
        float, typer.Option(min=0, help="Unrelated-pair neutrals per labelled pair.")
    ] = 0.25,
    augment_flips: Annotated[
        float, typer.Option(min=0, help="Value-flip contradictions per labelled pair.")
    ] = 0.1,
    statement_pairs: Annotated[
        int, typer.Option(min=0, help="Augmentation pairs per statement group and kind.")
    ] = 12,
    neutral_ratio: Annotated[
        float | None,
        typer.Option(min=0, help="Statement neutrals kept per statement contradiction."),
    ] = 3.0,
    question_share: Annotated[
        float, typer.Option(min=0, max=1, help="Rows with a question: trained with it this often.")
    ] = 0.5,
    progress: Annotated[bool, typer.Option(help="Progress bar.")] = True,
) -> None:
    """Fine-tune a cross-encoder on labelled pairs (premise, hypothesis, label, optional
    question) with built-in augmentation; writes a model directory κ loads
    (GCMEM_NLI_MODEL=<out>) and its provenance (gcmem-finetune.json)."""
    from gcmem.oracle.finetune import FinetuneConfig
    from gcmem.oracle.finetune import finetune as run
    from gcmem.settings import load_settings

    cfg = FinetuneConfig(
        base_model=base_model or load_settings().oracle.model,
        data=list(data),
        out=out,
        epochs=epochs,
        batch_size=batch_size,
        lr=lr,
        max_length=max_length,
        seed=seed,
        device=device,
        threads=threads,
        limit=limit,
        augment_unrelated=augment_unrelated,
        augment_flips=augment_flips,
        statement_pairs=statement_pairs,
        neutral_ratio=neutral_ratio,
        question_share=question_share,
        progress=progress,
    )
    try:
        provenance = run(cfg, log=typer.echo)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(json.dumps({k: provenance[k] for k in ("rows", "steps", "weights_sha256")}))


def _labelled(path: Path) -> tuple[list[tuple[str, str]], list[int]]:
    """Labelled pairs (1 = contradiction); a bad line ends the command naming file and line."""
    from gcmem.oracle.finetune import read_rows

    try:
        examples, statements = read_rows([path])
        if statements:
            raise ValueError(f"{path}: needs premise/hypothesis/label rows, not statements")
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    return [(e.premise, e.hypothesis) for e in examples], [
        int(e.label == "contradiction") for e in examples
    ]


@oracle_app.command()
def calibrate(
    dev: Annotated[Path, typer.Argument(help="Labelled dev pairs (premise, hypothesis, label).")],
    out: Annotated[Path, typer.Option(help="Calibration JSON to write.")],
    method: Annotated[str, typer.Option(help="temperature|isotonic")] = "temperature",
    precision_target: Annotated[
        float, typer.Option(min=0.01, max=1.0, help="Threshold: highest recall at this precision.")
    ] = 0.9,
) -> None:
    """Fit a calibration of the configured model (model, template, direction, question
    template) on a dev split; with GCMEM_ORACLE_GATE set, on the dev pairs the gate lets
    through (those are the pairs the model will see). Use it: GCMEM_ORACLE_CALIBRATION=<out>
    (and GCMEM_ORACLE_CALIBRATION_THRESHOLD=true to decide at its threshold)."""
    import numpy as np

    from gcmem.oracle.calibration import METHODS, fit_calibration
    from gcmem.oracle.factory import build_model_oracle
    from gcmem.oracle.relatedness import related
    from gcmem.settings import load_settings

    if method not in METHODS:
        raise typer.BadParameter(f"method must be one of {METHODS}")
    pairs, labels = _labelled(dev)
    settings = load_settings()
    oracle = build_model_oracle(
        settings.oracle,
        settings.judge,
        device=settings.models.device,
        weights_cache=settings.storage.weights_cache(),
    )
    if settings.oracle.gate == "entity":
        kept = [i for i, (a, b) in enumerate(pairs) if related(a, b)]
        pairs, labels = [pairs[i] for i in kept], [labels[i] for i in kept]
    scores = oracle.score(pairs)
    cal = fit_calibration(
        np.asarray(scores),
        np.asarray(labels),
        method=method,
        precision_target=precision_target,
        oracle_theta=oracle.identity.digest,
        source=f"{dev} (gate: {settings.oracle.gate})",
    )
    cal.save(out)
    typer.echo(
        f"wrote {out}: threshold {cal.threshold:.3f} (dev precision {cal.dev['precision']:.3f}, "
        f"recall {cal.dev['recall']:.3f}, target {'met' if cal.target_met else 'NOT met'})"
    )


@oracle_app.command()
def evaluate(
    pairs_file: Annotated[
        Path, typer.Argument(help="Labelled pairs (premise, hypothesis, label).")
    ],
) -> None:
    """P/R/F1 of the configured oracle (with its gate, calibration and band) on labelled pairs."""
    import numpy as np

    from gcmem.oracle.factory import build_oracle
    from gcmem.settings import load_settings

    pairs, labels = _labelled(pairs_file)
    settings = load_settings()
    oracle = build_oracle(
        settings.oracle,
        settings.judge,
        device=settings.models.device,
        weights_cache=settings.storage.weights_cache(),
    )
    flags = np.asarray(oracle.decide(oracle.score(pairs)), dtype=bool)
    y = np.asarray(labels, dtype=bool)
    tp, fp, fn = int((flags & y).sum()), int((flags & ~y).sum()), int((~flags & y).sum())
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    typer.echo(
        json.dumps(
            {
                "pairs": len(labels),
                "threshold": oracle.threshold,
                "precision": p,
                "recall": r,
                "f1": f1,
                "theta": oracle.identity.digest,
            }
        )
    )
