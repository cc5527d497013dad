"""``python -m bench no-harm-pairs``: κ's candidate pairs on held-out text, labelled.

Every pair Φ_T would send to the oracle (after the supersession pre-filter, ledger-decided
pairs excluded) is labelled from the instance's turn labels: ``justified`` (the older chunk is
stale and the newer one holds the current value), ``harmful`` (the older chunk is still true:
dropping it loses a fact) or ``other``. Each pair gets the features a decision rule may use:
P(contradiction) in both directions, the best sentence pair's score in both directions, the
entity test, cosine similarity, and both chunks' similarity to the query. ``--table``
turns the file into the precision and recall of each candidate drop rule (``RULES``): the
rule and its thresholds are chosen on the dev split and only reported on the test split.
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import typer
from tqdm.auto import tqdm

from bench.embedding import CachedEmbedder
from bench.heldout.data import Instance, load_set
from bench.heldout.run import RESULTS, _namespace, memory_turns
from gcmem import Memory
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.facts.chunking import split_sentences
from gcmem.models import ScoredChunk
from gcmem.oracle.calibration import Calibration
from gcmem.oracle.cross_encoder import CrossEncoderOracle
from gcmem.oracle.pairs import ledger_facts, plan_pairs, read_facts
from gcmem.oracle.relatedness import anchored, entities
from gcmem.settings import Settings, load_settings


def _label(instance: Instance, ns: str, older_turn: str, newer_turn: str) -> str:
    def kind(turn_id: str) -> str:
        tid = turn_id.removeprefix(f"{ns}-")
        if tid in instance.stale_turns:
            return "stale"
        if tid in instance.current_turns:
            return "current"
        return "still" if tid in instance.still_true_turns else "unlabelled"

    old, new = kind(older_turn), kind(newer_turn)
    if old == "stale" and new == "current":
        return "justified"
    if old in ("still", "current"):
        return "harmful"
    return "other"


def sentence_scores(oracle: CrossEncoderOracle, older: str, newer: str) -> tuple[float, float, int]:
    """Best sentence pair by min(forward, backward): its two scores and the pair count."""
    a, b = split_sentences(older) or [older], split_sentences(newer) or [newer]
    pairs = [(x, y) for x in a for y in b]
    fwd = oracle.score_directed(pairs)
    bwd = oracle.score_directed([(y, x) for x, y in pairs])
    best = int(np.argmax(np.minimum(fwd, bwd)))
    return float(fwd[best]), float(bwd[best]), len(pairs)


def planned_pairs(
    instances: Sequence[Instance], *, embedder: CachedEmbedder, k: int, desc: str = "pairs"
) -> Iterator[tuple[Instance, str, list[ScoredChunk], list[tuple[ScoredChunk, ScoredChunk]]]]:
    """Per instance: its namespace, R_k after the supersession pre-filter, and the pairs Φ_T
    would send to κ (ledger-decided pairs left out), on an ephemeral memory."""
    with tempfile.TemporaryDirectory(prefix="gcmem-pairs-") as tmp:
        settings = load_settings(
            data_dir=Path(tmp),
            ephemeral=True,
            redis_url=None,
            key_prefix=f"pairs-{uuid.uuid4().hex[:8]}",
            stm_size=0,
            filters=["supersession"],
        )
        with Memory(settings, embedder=embedder) as mem:
            ingested: set[str] = set()
            for inst in tqdm(instances, desc=desc, unit="query"):
                ns = _namespace(inst)
                if ns not in ingested:
                    mem.ingest(memory_turns(inst, ns))
                    ingested.add(ns)
                survivors = mem.filter(mem.candidates(inst.query, namespace=ns, k=k)).kept
                facts = read_facts([c.chunk for c in survivors], ledger_facts)
                yield inst, ns, survivors, plan_pairs(survivors, facts=facts, vectors={}).oracle


def collect(
    instances: Sequence[Instance], *, embedder: CachedEmbedder, oracle: CrossEncoderOracle, k: int
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for inst, ns, survivors, planned in planned_pairs(instances, embedder=embedder, k=k):
        if not planned:
            continue
        qvec = embedder.embed([inst.query])[0]
        vecs = dict(
            zip(
                [c.id for c in survivors],
                embedder.embed([c.chunk.text for c in survivors]),
                strict=True,
            )
        )
        pairs = [(a.chunk.text, b.chunk.text) for a, b in planned]
        fwd = oracle.score_directed(pairs)
        bwd = oracle.score_directed([(b, a) for a, b in pairs])
        for (a, b), f, r in zip(planned, fwd, bwd, strict=True):
            row: dict[str, Any] = {
                "instance": inst.id,
                "family": inst.family,
                "label": _label(inst, ns, a.chunk.turn_id, b.chunk.turn_id),
                "older": a.chunk.text,
                "newer": b.chunk.text,
                "fwd": float(f),
                "bwd": float(r),
                "cosine": float(vecs[a.id] @ vecs[b.id]),
                "q_older": float(vecs[a.id] @ qvec),
                "q_newer": float(vecs[b.id] @ qvec),
                "entities_shared": bool(entities(a.chunk.text) & entities(b.chunk.text)),
                "entities_known": bool(entities(a.chunk.text) and entities(b.chunk.text)),
            }
            if max(f, r) >= 0.3:
                sf, sb, n = sentence_scores(oracle, a.chunk.text, b.chunk.text)
                row.update(sent_fwd=sf, sent_bwd=sb, sent_pairs=n)
            else:
                row.update(sent_fwd=0.0, sent_bwd=0.0, sent_pairs=0)
            rows.append(row)
    return rows


# Candidate drop rules over a pair's features; "v0.1" is the previous default (κ alone).
RULES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "v0.1: max >= 0.6": lambda r: max(r["fwd"], r["bwd"]) >= 0.6,
    "both >= 0.6": lambda r: min(r["fwd"], r["bwd"]) >= 0.6,
    "both >= 0.6, common subject": lambda r: (
        min(r["fwd"], r["bwd"]) >= 0.6 and r["entities_shared"]
    ),
    "raw 0.6 rule: both >= 0.6, anchored": lambda r: (
        min(r["fwd"], r["bwd"]) >= 0.6 and anchored(r["older"], r["newer"])
    ),
}


def calibrated_rules(cal: Calibration) -> dict[str, Callable[[dict[str, Any]], bool]]:
    """The raw 0.6 rule read on the calibration's scale (the raw 0.6 mapped through it: the
    same decisions), and the calibration's own rule, the default: both directions at its
    threshold."""
    scaled = cal.scaled(0.6)

    def both(r: dict[str, Any]) -> float:
        return float(cal.apply([min(r["fwd"], r["bwd"])])[0])

    return {
        f"calibrated scale: both >= {scaled:.3f} (= raw 0.6), anchored": lambda r: (
            both(r) >= scaled and anchored(r["older"], r["newer"])
        ),
        f"default, calibration's threshold: both >= {cal.threshold:.3f} "
        f"(raw {cal.invert(cal.threshold):.3f}), anchored": lambda r: (
            both(r) >= cal.threshold and anchored(r["older"], r["newer"])
        ),
    }


def rule_table(
    rows: Sequence[dict[str, Any]],
    rules: dict[str, Callable[[dict[str, Any]], bool]] | None = None,
) -> str:
    """Markdown: per rule, the pairs it would drop on, and how many were justified/harmful."""
    justified = sum(r["label"] == "justified" for r in rows)
    lines = [
        f"{len(rows)} κ pairs, {justified} justified (older stale, newer current)",
        "",
        "| rule | drops | justified | harmful | other | precision | recall |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, rule in (rules or RULES).items():
        hit = [r["label"] for r in rows if rule(r)]
        j, h = hit.count("justified"), hit.count("harmful")
        precision = f"{j / (j + h):.2f}" if j + h else "-"
        recall = f"{j / justified:.2f}" if justified else "-"
        lines.append(
            f"| {name} | {len(hit)} | {j} | {h} | {len(hit) - j - h} | {precision} | {recall} |"
        )
    return "\n".join(lines) + "\n"


def cli(
    sets: list[str] = typer.Option(["static", "changes", "tsqa-revisions"], "--set"),
    split: str = typer.Option(
        "dev", help="dev or dev2 (rules are chosen here), test, test2, test3 or test4 (held out)."
    ),
    limit: int | None = typer.Option(None, help="At most this many queries per set."),
    k: int = typer.Option(10),
    out: Path = typer.Option(RESULTS / "pairs"),
    table: Path | None = typer.Option(None, help="Only print the rule table of this JSONL."),
    calibration: Path | None = typer.Option(
        None, help="Add the rules of this calibration JSON (gcmem/oracle/calibrations/...)."
    ),
) -> None:
    """Labelled κ pairs with decision features, for choosing the drop rule on dev."""
    rules = dict(RULES)
    if calibration is not None:
        rules.update(calibrated_rules(Calibration.load(calibration)))
    if table is not None:
        rows = [json.loads(line) for line in table.read_text().splitlines() if line.strip()]
        typer.echo(rule_table(rows, rules))
        return
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    s = Settings()
    embedder = CachedEmbedder(TransformerEmbedder(s.models.embedder))
    oracle = CrossEncoderOracle(s.oracle.model, direction="forward", max_length=s.oracle.max_length)
    rows: list[dict[str, Any]] = []
    for name in sets:
        for row in collect(
            load_set(name, split, limit=limit), embedder=embedder, oracle=oracle, k=k
        ):
            rows.append({"set": name, **row})
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"pairs-{split}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    typer.echo(f"{len(rows)} pairs -> {path}")
    typer.echo(rule_table(rows, rules))
