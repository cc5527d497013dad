"""``python -m bench alignment``: frame alignment vs the grammar, per phrasing family, with cost.

Three supersession chains on the same held-out instances (``bench.heldout``: the helper-written
``changes`` and ``static`` sets, real Time-Sensitive QA paragraph revisions), each a
``Memory`` with only the ``supersession`` stage:

- ``grammar``: the extractor's triples only (``supersession_align=false``);
- ``exact``: frame alignment of one exact differing span only (``supersession_grammar=false``,
  ``supersession_align_reworded=false``);
- ``align``: frame alignment only, local frames and paragraph revisions included
  (``supersession_grammar=false``);
- ``both``: the shipped stage (grammar and alignment).

Per family: stale exposure, current present, still-true drops and current lost (scored exactly
as ``python -m bench no-harm`` scores them), and cost: the supersession stage's ingest time per
turn against the embedder's time for the same turns (embedded once, uncached, with the real
model), and its read-path time per query (the pre-filter on the candidate set R_k, which is
the same object for all three chains).

``--tsqa train`` builds the paragraph revisions from TSQA's train file (for development);
``--tsqa test`` from its test file (the held-out measurement).
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import typer
from tqdm.auto import tqdm

from bench.cleanup import delete_matching
from bench.embedding import CachedEmbedder
from bench.heldout.data import REAL_DIR, Instance, _sample, load_set, tsqa_revisions
from bench.heldout.run import Tally, _namespace, memory_turns, score
from gcmem import Memory
from gcmem.embedding import Embedder
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.facts.chunking import chunk_text
from gcmem.settings import Settings, load_settings

RESULTS = Path(__file__).resolve().parent / "results" / "alignment"
CHAINS: dict[str, dict[str, Any]] = {
    "grammar": {"supersession_align": False},
    "exact": {"supersession_grammar": False, "supersession_align_reworded": False},
    "align": {"supersession_grammar": False},
    "both": {},
}
STAGE = "supersession"


def _memory(
    overrides: Mapping[str, Any], embedder: Embedder, data_dir: Path, redis_url: str | None
) -> Memory:
    settings = load_settings(
        data_dir=data_dir,
        ephemeral=True,
        redis_url=redis_url,
        key_prefix=f"align-{uuid.uuid4().hex[:10]}",
        stm_size=0,
        filters=[STAGE],
        **overrides,
    )
    return Memory(settings, embedder=embedder)


def run(
    sets: Mapping[str, list[Instance]],
    *,
    embedder: Embedder,
    k: int = 10,
    redis_url: str | None = None,
) -> dict[str, Any]:
    """Every chain over every set. ``redis_url``: the ledger on that server (the pipeline's
    deployment) instead of the embedded one, whose Lua runs in the Python process."""
    timed = CachedEmbedder(embedder)
    out: dict[str, Any] = {
        "k": k,
        "chains": CHAINS,
        "redis": "server" if redis_url else "embedded",
        "sets": {},
    }
    with tempfile.TemporaryDirectory(prefix="gcmem-align-") as tmp:
        mems = {n: _memory(o, timed, Path(tmp) / n, redis_url) for n, o in CHAINS.items()}
        chunk_chars = mems["both"].settings.memory.chunk_max_chars
        for set_name, instances in sets.items():
            tallies: dict[str, dict[str, Tally]] = {n: {} for n in CHAINS}
            cost: dict[str, dict[str, dict[str, list[float]]]] = {
                n: defaultdict(lambda: defaultdict(list)) for n in CHAINS
            }
            embed_ms: dict[str, list[float]] = defaultdict(list)
            done: set[str] = set()
            for inst in tqdm(instances, desc=set_name, unit="query"):
                ns = _namespace(inst)
                if ns not in done:
                    turns = memory_turns(inst, ns)
                    texts = [c for t in turns for c in chunk_text(t.text, chunk_chars)]
                    timed.embed(texts)  # the model's time for these turns, once
                    per_turn = sum(timed.ms[c] for c in texts) / len(turns)
                    for fam in (inst.family, "all"):
                        embed_ms[fam].append(per_turn)
                    for name, mem in mems.items():
                        report = mem.ingest(turns)
                        for fam in (inst.family, "all"):
                            cost[name][fam]["ingest"].append(
                                report.timings_ms.get(STAGE, 0.0) / len(turns)
                            )
                    done.add(ns)
                # R_k as stored: write-time exclusion would hand every chain the shipped
                # stage's decisions; each chain decides on the same candidates at read time
                cands = mems["both"].candidates(
                    inst.query, namespace=ns, k=k, exclude_flagged=False
                )
                for name, mem in mems.items():
                    result = mem.filter(cands)
                    for fam in (inst.family, "all"):
                        score(inst, result, tallies[name].setdefault(fam, Tally()), ns)
                        cost[name][fam]["read"].append(result.timings_ms.get(STAGE, 0.0))
            per_set: dict[str, Any] = {}
            for name in CHAINS:
                fams = {}
                for fam, tally in sorted(tallies[name].items()):
                    s = tally.summary()
                    ingest = float(np.mean(cost[name][fam]["ingest"]))
                    embed = float(np.mean(embed_ms[fam]))
                    s.update(
                        ingest_ms_per_turn=round(ingest, 3),
                        embed_ms_per_turn=round(embed, 3),
                        ingest_vs_embed=round(ingest / embed, 4) if embed else None,
                        read_ms_p50=round(float(np.median(cost[name][fam]["read"])), 3),
                        read_ms_p95=round(float(np.percentile(cost[name][fam]["read"], 95)), 3),
                    )
                    s.pop("filter_ms_p50", None)
                    fams[fam] = s
                per_set[name] = fams
            per_set["_drops"] = {n: t["all"].drops[:30] for n, t in tallies.items() if "all" in t}
            out["sets"][set_name] = per_set
        for mem in mems.values():
            if redis_url:
                delete_matching(mem.redis, mem.keys.pattern())  # the run's own keys
            mem.close()
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = []
    for set_name, per in report["sets"].items():
        lines += [
            f"### {set_name}",
            "",
            "| family | chain | stale exposure | current present | still-true dropped | "
            "ingest ms/turn | vs embed | read ms p50 |",
            "|---|---|---|---|---|---|---|---|",
        ]
        fams = sorted({f for n in CHAINS for f in per[n]}, key=lambda f: (f == "all", f))
        for fam in fams:
            for name in CHAINS:
                s = per[name].get(fam)
                if s is None:
                    continue
                stale = "-" if s["stale_exposure"] is None else f"{s['stale_exposure']:.2f}"
                lines.append(
                    f"| {fam} | {name} | {stale} | {s['current_present']:.2f} | "
                    f"{s['still_true_dropped']}/{s['still_true_candidates']} | "
                    f"{s['ingest_ms_per_turn']:.2f} | {100 * (s['ingest_vs_embed'] or 0):.1f}% | "
                    f"{s['read_ms_p50']:.2f} |"
                )
        lines.append("")
    return "\n".join(lines)


def cli(
    sets: list[str] = typer.Option(["changes", "static"], "--set", help="changes, static."),
    split: str = typer.Option("dev", help="dev (for development) or test (held out)."),
    tsqa: str = typer.Option(
        "train", help="TSQA paragraph revisions from 'train' (development), 'test', or 'none'."
    ),
    tsqa_limit: int = typer.Option(60, help="At most this many TSQA revision queries."),
    limit: int | None = typer.Option(None, help="At most this many queries per set."),
    k: int = typer.Option(10, help="MTM top-k."),
    out: Path = typer.Option(RESULTS, help="Where results go."),
    tag: str | None = typer.Option(None, help="File name stem (default: the split)."),
    redis_url: str | None = typer.Option(
        None, help="A Redis server for the ledger (default: the embedded one)."
    ),
) -> None:
    """Grammar-only, exact alignment, alignment-only and both: quality per family, ingest and
    read cost."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    data = {s: load_set(s, split, limit=limit) for s in sets}
    if tsqa != "none":
        path = REAL_DIR / "time_sensitive_qa" / f"human_annotated_{tsqa}.json"
        items = list(tsqa_revisions(path))
        data[f"tsqa-revisions-{tsqa}"] = _sample(items, tsqa_limit, 0)
    embedder = TransformerEmbedder(Settings().models.embedder)
    report = run(data, embedder=embedder, k=k, redis_url=redis_url)
    report.update(split=split, tsqa=tsqa)
    out.mkdir(parents=True, exist_ok=True)
    stem = tag or split
    (out / f"{stem}.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    md = markdown(report)
    (out / f"{stem}.md").write_text(md + "\n")
    typer.echo(md)
