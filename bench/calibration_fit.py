"""``python -m bench calibration-fit``: fit the calibration that ships for an NLI checkpoint.

The map is fitted on one-direction P(contradiction) scores (premise -> hypothesis) of the
configured model (``GCMEM_NLI_MODEL``, at the configured template and max length) over:
- the agent-memory dev split of ``bench oracle-accuracy data`` (generator seed 21, training
  categories; each candidate pair in both orders, labelled by the scenario), and
- licensed NLI pairs from ``/work/shared/data/nli/`` (SNLI test and MNLI dev-mismatched
  samples: pairs the offline checkpoint was not trained on).

None of the held-out sets (``bench/heldout``: static/changes dev, test, test2; Time-Sensitive
QA; LoCoMo) is read. The threshold is chosen on the agent-memory dev pairs under the drop
decision's score (the smaller P(contradiction) of the two orders): the lowest calibrated
threshold whose precision there reaches ``--precision-target``.

Scores are cached per weights fingerprint, template and max length under
``.bench-cache/calibration/``, so a refit with another method or target does not re-run the
model. ``--write`` puts the result where the
package ships it: ``gcmem/oracle/calibrations/<fingerprint>.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from bench.oracle_accuracy import DEFAULT_DATA, make_data, read_jsonl
from gcmem.oracle.calibration import (
    METHODS,
    Calibration,
    fit_map,
    precision_recall_at,
    select_threshold,
)
from gcmem.oracle.shipped import SHIPPED_DIR, shipped_path

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".bench-cache" / "calibration"
NLI_DIR = Path("/work/shared/data/nli")
# Pairs the offline checkpoint was not trained on (its README): calibrating on its training
# pairs would fit its overconfidence there, not its behaviour on new text.
NLI_FILES = ("snli/test.jsonl", "mnli/dev_mismatched.jsonl")
NLI_PER_FILE = 1500
SEED = 0


def nli_rows(per_file: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name in NLI_FILES:
        data = read_jsonl(NLI_DIR / name)
        for r in random.Random(SEED).sample(data, min(per_file, len(data))):
            rows.append(
                {
                    "source": f"nli/{name}",
                    "a": r["premise"],
                    "b": r["hypothesis"],
                    "y": int(r["label"] == "contradiction"),
                }
            )
    return rows


def memory_rows(data_dir: Path) -> list[dict[str, Any]]:
    path = data_dir / "dev-pairs.jsonl"
    if not path.exists():
        make_data(data_dir, threads=1)
    return [
        {
            "source": "agent-memory-dev",
            "a": r["premise"],
            "b": r["hypothesis"],
            "y": int(r["label"] == "contradiction"),
        }
        for r in read_jsonl(path)
    ]


def scored(rows: list[dict[str, Any]], cache: Path, oracle: Any, both: bool) -> list[dict]:
    """Rows with ``fwd`` (and ``bwd`` when ``both``) P(contradiction), cached in ``cache``."""
    if cache.exists():
        cached = read_jsonl(cache)
        if len(cached) == len(rows) and all(
            c["a"] == r["a"] and c["b"] == r["b"] for c, r in zip(cached, rows, strict=True)
        ):
            return cached
    pairs = [(r["a"], r["b"]) for r in rows]
    fwd = oracle.score_directed(pairs)
    bwd = oracle.score_directed([(b, a) for a, b in pairs]) if both else None
    out = []
    for i, r in enumerate(rows):
        row = {**r, "fwd": float(fwd[i])}
        if bwd is not None:
            row["bwd"] = float(bwd[i])
        out.append(row)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("".join(json.dumps(r) + "\n" for r in out))
    return out


def cli(
    method: Annotated[str, typer.Option(help="temperature|isotonic")] = "temperature",
    precision_target: Annotated[float, typer.Option(min=0.5, max=1.0)] = 0.97,
    nli_per_file: Annotated[int, typer.Option(min=0)] = NLI_PER_FILE,
    data: Annotated[Path, typer.Option(help="oracle-accuracy data dir.")] = DEFAULT_DATA,
    threads: Annotated[int, typer.Option(min=1)] = 1,
    write: Annotated[bool, typer.Option(help="Write into gcmem/oracle/calibrations/.")] = False,
    out: Annotated[Path | None, typer.Option(help="Write the calibration JSON here.")] = None,
) -> None:
    """Fit the shipped calibration of the configured NLI model on non-held-out pairs."""
    import torch

    from gcmem.oracle.cross_encoder import CrossEncoderOracle
    from gcmem.settings import Settings

    if method not in METHODS:
        raise typer.BadParameter(f"method must be one of {METHODS}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(threads)
    s = Settings()
    oracle = CrossEncoderOracle(
        s.oracle.model,
        device="cpu",
        direction="forward",
        max_length=s.oracle.max_length,
        template=s.oracle.template,
        progress=True,
    )
    weights = str(oracle.identity.params["weights_sha256"])
    # Scores depend on the weights, the template and the truncation: the cache is keyed by all.
    inputs = hashlib.sha256(f"{oracle.template}|{oracle.max_length}".encode()).hexdigest()[:8]
    stem = f"{weights[:16]}-{inputs}"
    memory = scored(memory_rows(data), CACHE / f"{stem}-memory.jsonl", oracle, True)
    nli = scored(nli_rows(nli_per_file), CACHE / f"{stem}-nli.jsonl", oracle, False)

    # The map: one-direction scores, every memory pair in both orders, plus the NLI pairs.
    x = np.array([r["fwd"] for r in memory] + [r["bwd"] for r in memory] + [r["fwd"] for r in nli])
    y = np.array([r["y"] for r in memory] * 2 + [r["y"] for r in nli])
    params = fit_map(x, y, method)
    draft = Calibration(method, params, 0.5, precision_target, False, "")
    # The threshold: on the drop decision's score of the memory pairs (both orders must agree).
    decision = draft.apply(np.minimum([r["fwd"] for r in memory], [r["bwd"] for r in memory]))
    labels = np.array([r["y"] for r in memory])
    threshold, met = select_threshold(decision, labels, precision_target)
    p, r, n = precision_recall_at(decision, labels, threshold)
    nli_p, nli_r, nli_n = precision_recall_at(
        draft.apply([r["fwd"] for r in nli]), np.array([r["y"] for r in nli]), threshold
    )
    raw_equivalent = draft.invert(threshold)
    cal = Calibration(
        method,
        params,
        threshold,
        precision_target,
        met,
        "",
        {
            "pairs": len(labels),
            "positives": int(labels.sum()),
            "precision": p,
            "recall": r,
            "flagged": n,
            "source": "agent-memory dev split (bench oracle-accuracy data, seed 21), "
            "direction both",
            "map_pairs": len(x),
            "nli": {
                "files": list(NLI_FILES),
                "pairs": len(nli),
                "precision": nli_p,
                "recall": nli_r,
                "flagged": nli_n,
            },
            "raw_threshold": raw_equivalent,
        },
        model=Path(oracle.source).name,
        weights_sha256=weights,
        template=oracle.template,
        max_length=oracle.max_length,
        fitted_on=(
            f"{len(memory)} agent-memory dev pairs (bench oracle-accuracy data, generator "
            f"seed 21), both orders; {len(nli)} NLI pairs ({', '.join(NLI_FILES)}, "
            f"{nli_per_file} per file, seed {SEED})"
        ),
        date=datetime.now(UTC).date().isoformat(),
    )
    typer.echo(json.dumps(cal.dev, indent=2))
    typer.echo(
        f"{method}: {params}; threshold {threshold:.4f} (raw {raw_equivalent:.4f}), "
        f"target {'met' if met else 'NOT met'}"
    )
    if write:
        SHIPPED_DIR.mkdir(parents=True, exist_ok=True)
        typer.echo(f"wrote {cal.save(shipped_path(weights))}")
    if out is not None:
        typer.echo(f"wrote {cal.save(out)}")
