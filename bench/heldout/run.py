"""``python -m bench no-harm``: what each filter chain drops on held-out text.

For every instance, each condition's ``Memory`` ingests the same turns (one namespace per
instance or group) and answers the same query; the candidate sets R_k of all conditions are
checked to be identical, so the numbers compare filters, not retrieval. Per family:

- ``still_true_drop_rate``: chunks of still-true turns (and the parts of a stale turn that
  carry no stale value) in R_k that the chain dropped, unless a kept chunk restates them;
- ``current_lost``: queries whose answer-bearing chunks were in R_k and all dropped;
- ``current_present``: queries with an answer-bearing chunk in the final context;
- ``stale_exposure``: queries (with a stale turn) whose context still shows a stale value, read
  the way a reader gets it (``ScoredChunk.visible_text``: superseded statements inside a kept
  chunk are excised); ``stale_unflagged``: ... without a surfaced conflict noting that it may
  be superseded;
- ``still_true_excised``: still-true (or current) chunks kept with a statement excised; they
  count in ``still_true_dropped`` too (part of something true is no longer shown);
- ``decision_precision``: of the chain's drops of labelled chunks and its excisions of
  statements inside kept ones that were right (a stale value removed from what the reader
  sees) or wrong (a still-true fact, or the only current answer, no longer shown, or part of
  a still-true chunk hidden), the right share, overall and per stage ("... (statement)" for
  excisions; the issue's pair precision, on the decided pairs);
- ``note_precision``: of the notes the context gives a reader about labelled chunks (a
  surfaced conflict's older chunk, a kept chunk that names a replaced value), the share on a
  stale chunk; a note on a still-true fact or the current answer casts doubt on something true;
- ``unlabelled_dropped``: drops of turns the set does not label (LoCoMo), counted only.

Conditions: ``rag`` (no filter), ``v0.1`` (the previous default's κ rule: Φ_T drops on the
bare offline checkpoint at θ 0.6, max direction, alone), ``default`` (``Settings()`` as
shipped), plus any ``--condition NAME='{"setting": value}'``.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import typer
from tqdm.auto import tqdm

from bench.cleanup import delete_matching, require_server
from bench.embedding import CachedEmbedder
from bench.heldout.data import REAL_SETS, WRITTEN_SETS, Instance, load_set
from gcmem import Memory, Turn
from gcmem.embedding import Embedder
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.memory.candidates import CandidateSet
from gcmem.models import Decision, RetrievalResult, unmarked
from gcmem.settings import Settings, load_settings

RESULTS = Path(__file__).resolve().parents[1] / "results" / "no-harm"

# The previous default's κ rule (κ alone decides Φ_T: max direction >= 0.6, no anchoring, no
# confirmation, nothing surfaced), spelled out so later defaults cannot change it; the
# supersession stage is today's (grammar and frame alignment).
V01: dict[str, Any] = {
    "filters": ["supersession", "dominance"],
    "oracle_gate": "none",
    "oracle_adapter": "none",
    "oracle_calibration": "none",
    "oracle_threshold": 0.6,
    "oracle_direction": "max",
    "dominance_anchor": False,
    "dominance_surface_threshold": None,
    "dominance_confirm_threshold": None,
    "supersession_exclude": False,
}
# ``rag`` is plain retrieval: the index as stored, no write-time exclusion either; ``adapter``
# the default with the supersession adapter shipped for the offline checkpoint (opt-in:
# GCMEM_ORACLE_ADAPTER=auto; docs/benchmarks.md "Supersession adapter (stop 26)").
CONDITIONS: dict[str, dict[str, Any]] = {
    "rag": {"filters": [], "supersession_exclude": False},
    "v0.1": V01,
    "default": {},
    # the default before the announced-change stage (stop 28)
    "stop27": {"filters": ["supersession", "dominance"]},
    "adapter": {"oracle_adapter": "auto"},
}


@dataclass
class Tally:
    queries: int = 0
    still_true_candidates: int = 0
    still_true_dropped: int = 0
    current_in_candidates: int = 0
    current_lost: int = 0
    current_present: int = 0
    with_stale: int = 0
    stale_exposed: int = 0
    stale_unflagged: int = 0
    still_true_excised: int = 0
    unlabelled_dropped: int = 0
    excluded_at_write: int = 0
    conflicts: int = 0
    # the context's notes ("[2] may be superseded by [5]", "in [3], ... is superseded") on
    # labelled chunks: (right: a stale chunk, wrong: a still-true or current one)
    notes: list[int] = field(default_factory=lambda: [0, 0])
    # decisions the chain made on labelled chunks, by stage: (right, wrong)
    decisions: dict[str, list[int]] = field(default_factory=dict)
    filter_ms: list[float] = field(default_factory=list)
    # each stage's own time per query (``RetrievalResult.timings_ms``)
    stage_ms: dict[str, list[float]] = field(default_factory=dict)
    drops: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        def rate(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        return {
            "queries": self.queries,
            "still_true_candidates": self.still_true_candidates,
            "still_true_dropped": self.still_true_dropped,
            "still_true_drop_rate": rate(self.still_true_dropped, self.still_true_candidates),
            "current_in_candidates": self.current_in_candidates,
            "current_lost": self.current_lost,
            "current_present": rate(self.current_present, self.queries),
            "queries_with_stale": self.with_stale,
            "stale_exposure": rate(self.stale_exposed, self.with_stale),
            "stale_unflagged": rate(self.stale_unflagged, self.with_stale),
            "still_true_excised": self.still_true_excised,
            "conflicts_surfaced": self.conflicts,
            "notes_right": self.notes[0],
            "notes_wrong": self.notes[1],
            "note_precision": precision([self.notes]),
            "decision_precision": precision(self.decisions.values()),
            "decisions_by_stage": {
                stage: {"right": r, "wrong": w, "precision": precision([(r, w)])}
                for stage, (r, w) in sorted(self.decisions.items())
            },
            "unlabelled_dropped": self.unlabelled_dropped,
            "excluded_at_write": self.excluded_at_write,
            "filter_ms_p50": round(float(np.median(self.filter_ms)), 2) if self.filter_ms else None,
            "stage_ms_p50": {
                stage: round(float(np.median(ms)), 2) for stage, ms in sorted(self.stage_ms.items())
            },
        }


def precision(counts: Iterable[Sequence[int]]) -> float | None:
    """right / (right + wrong) over (right, wrong) counts; None without decisions."""
    right = wrong = 0
    for r, w in counts:
        right, wrong = right + r, wrong + w
    return round(right / (right + wrong), 4) if right + wrong else None


def score(instance: Instance, result: RetrievalResult, tally: Tally, ns: str) -> None:
    """Add one query's outcome to ``tally`` (chunk-level, see the module docstring)."""
    label: dict[str, str] = {}
    for kind, ids in (
        ("current", instance.current_turns),
        ("stale", instance.stale_turns),
        ("still", instance.still_true_turns),
    ):
        for tid in ids:
            label[f"{ns}-{tid}"] = kind

    def bearing(text: str, kind: str) -> bool:
        if kind == "current":
            return not instance.current_value or instance.current_value in text
        if kind == "stale":
            return not instance.stale_values or any(v in text for v in instance.stale_values)
        return False

    # what a reader gets of each kept chunk: its text with superseded statements excised (the
    # markers left in their place are read without their dates and current values, in which
    # a short stale value such as "20" may recur: "[superseded on 2024-08-31 ...]")
    kept = [(c.chunk.turn_id, c.chunk.text) for c in result.kept]
    visible = {c.chunk.text: unmarked(c.visible_text) for c in result.kept}
    dropped = [(d.chunk.chunk.turn_id, d.chunk.chunk.text, d) for d in result.dropped]
    kept_texts = {t for _, t in kept}
    tally.queries += 1
    # answer-bearing chunks: if no chunk of a current turn carries the value verbatim (the
    # value was split across chunks), every chunk of the current turns counts
    cand = [(tid, text) for tid, text in kept] + [(tid, text) for tid, text, _ in dropped]
    current_cands = [(t, x) for t, x in cand if label.get(t) == "current"]
    answer = [(t, x) for t, x in current_cands if bearing(x, "current")] or current_cands
    answer_texts = {x for _, x in answer}
    shown_answer = any(
        x in answer_texts and (bearing(visible[x], "current") or not bearing(x, "current"))
        for _, x in kept
    )
    if answer:
        tally.current_in_candidates += 1
        if not shown_answer:
            tally.current_lost += 1
    if any(label.get(t) == "current" for t, _ in kept) and shown_answer:
        tally.current_present += 1
    tally.conflicts += len(result.conflicts)
    noted = [c.older for c in result.conflicts] + [
        k for k in result.kept if any(not s.excised for s in k.stale_sentences)
    ]
    for chunk in noted:
        kind = label.get(chunk.chunk.turn_id)
        if kind == "stale" and bearing(chunk.chunk.text, "stale"):
            tally.notes[0] += 1
        elif kind is not None:  # a still-true fact, the current answer
            tally.notes[1] += 1
    # statements excised from kept chunks are decisions: right when they took a stale value
    # out of what the reader sees, wrong when they hid part of a still-true or current chunk
    for c in result.kept:
        if not any(s.excised for s in c.stale_sentences):
            continue
        kind = label.get(c.chunk.turn_id)
        stages = {s.stage for s in c.stale_sentences if s.excised}
        right = (
            kind == "stale"
            and bearing(c.chunk.text, "stale")
            and not bearing(unmarked(c.visible_text), "stale")
        )
        wrong = (
            kind == "still"
            or kind == "current"
            or (kind == "stale" and not bearing(c.chunk.text, "stale"))
        )
        if right or wrong:
            for stage in stages:
                counts = tally.decisions.setdefault(f"{stage} (statement)", [0, 0])
                counts[0 if right else 1] += 1
        if wrong:
            tally.still_true_excised += 1
            tally.still_true_dropped += 1
            tally.drops.append(
                {
                    "instance": instance.id,
                    "family": instance.family,
                    "text": c.chunk.text[:200],
                    "stage": ",".join(sorted(stages)) + " (statement)",
                    "reason": "; ".join(s.text for s in c.stale_sentences if s.excised)[:300],
                }
            )
    if instance.stale_turns:
        tally.with_stale += 1
        shown = [
            c.id
            for c in result.kept
            if label.get(c.chunk.turn_id) == "stale" and bearing(unmarked(c.visible_text), "stale")
        ]
        if shown:
            tally.stale_exposed += 1
            flagged = {c.older.id for c in result.conflicts}
            if any(cid not in flagged for cid in shown):
                tally.stale_unflagged += 1
    for tid, text in cand:
        kind = label.get(tid)
        if kind == "still" or (kind == "stale" and not bearing(text, "stale")):
            tally.still_true_candidates += 1
    kept_answer = any(x in answer_texts for _, x in kept)
    for tid, text, decision in dropped:
        kind = label.get(tid)
        harmful = kind == "still" or (kind == "stale" and not bearing(text, "stale"))
        # a decision is right when it removed a stale value, wrong when it removed something
        # true that the context no longer shows (a still-true fact, the only current answer)
        right = kind == "stale" and bearing(text, "stale")
        wrong = (harmful and text not in kept_texts) or (
            kind == "current" and text in answer_texts and not kept_answer
        )
        if right or wrong:
            at_write = "(at write time)" in decision.reason
            stage = decision.stage + (" (write time)" if at_write else "")
            counts = tally.decisions.setdefault(stage, [0, 0])
            counts[0 if right else 1] += 1
        if harmful and text not in kept_texts:
            tally.still_true_dropped += 1
            tally.drops.append(
                {
                    "instance": instance.id,
                    "family": instance.family,
                    "text": text[:200],
                    "stage": decision.stage,
                    "reason": decision.reason[:300],
                }
            )
        elif kind is None:
            tally.unlabelled_dropped += 1


def write_time_drops(
    mem: Memory, stored: CandidateSet, searched: CandidateSet, ns: str
) -> list[Decision]:
    """The chunks of the stored R_k that write-time exclusion kept out of the searched one
    (excluding flagged chunks only removes, so these are exactly the flagged members of the
    stored top-k), each with the decision record ``Memory.explain`` gives."""
    kept = {c.id for c in searched.candidates}
    out: list[Decision] = []
    for cand in stored.candidates:
        if cand.id in kept:
            continue
        decision = mem.explain(cand.id, namespace=ns)
        if decision is None:  # a flag the ledger does not back: still a drop, unexplained
            decision = Decision(chunk=cand, stage="write-time", reason="flagged, no record")
        out.append(decision.model_copy(update={"reason": decision.reason + " (at write time)"}))
    return out


def _memory(
    name: str,
    overrides: Mapping[str, Any],
    embedder: Embedder,
    data_dir: Path,
    redis_url: str | None = None,
) -> Memory:
    base = {
        "data_dir": data_dir / name,
        "ephemeral": True,
        "redis_url": redis_url,
        "key_prefix": f"noharm-{uuid.uuid4().hex[:10]}",
        "stm_size": 0,
    }
    return Memory(load_settings(**{**base, **overrides}), embedder=embedder)


def _namespace(instance: Instance) -> str:
    raw = instance.group or instance.id
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in raw)[:60]


def memory_turns(instance: Instance, namespace: str) -> list[Turn]:
    """The instance's turns as gcmem turns of ``namespace`` (ids prefixed, so instances
    sharing a memory never collide)."""
    return [
        Turn(id=f"{namespace}-{t.id}", namespace=namespace, text=t.text, ts=t.ts)
        for t in instance.turns
    ]


def evaluate(
    sets: Mapping[str, list[Instance]],
    conditions: Mapping[str, Mapping[str, Any]],
    *,
    embedder: Embedder,
    k: int = 10,
    redis_url: str | None = None,
) -> dict[str, Any]:
    """Every condition over every set: per-family tallies, and whether R_k matched.
    ``redis_url``: each condition's stores on that server (its own key prefix, deleted at the
    end) instead of the embedded one."""
    out: dict[str, Any] = {"k": k, "conditions": {n: dict(c) for n, c in conditions.items()}}
    out["redis"] = "server" if redis_url else "embedded"
    with tempfile.TemporaryDirectory(prefix="gcmem-noharm-") as tmp:
        memories = {
            name: _memory(name, over, embedder, Path(tmp), redis_url)
            for name, over in conditions.items()
        }
        results: dict[str, Any] = {}
        mismatched = 0
        for set_name, instances in sets.items():
            tallies: dict[str, dict[str, Tally]] = {n: {} for n in conditions}
            ingested: set[str] = set()
            for inst in tqdm(instances, desc=set_name, unit="query"):
                ns = _namespace(inst)
                if ns not in ingested:
                    turns = memory_turns(inst, ns)
                    for mem in memories.values():
                        for start in range(0, len(turns), 64):
                            mem.ingest(turns[start : start + 64])
                    ingested.add(ns)
                reference: set[str] | None = None
                for name, mem in memories.items():
                    cands = mem.candidates(inst.query, namespace=ns, k=k)
                    # R_k as stored: with write-time exclusion the searched set differs, so
                    # parity is checked on the stored one and every chunk the exclusion kept
                    # out of the top-k is scored as a drop, with its decision record
                    stored = mem.candidates(inst.query, namespace=ns, k=k, exclude_flagged=False)
                    ids = {c.id for c in stored.candidates}
                    if reference is None:
                        reference = ids
                    elif ids != reference:
                        mismatched += 1
                    t0 = time.perf_counter()
                    result = mem.filter(cands)
                    ms = (time.perf_counter() - t0) * 1e3
                    excluded = write_time_drops(mem, stored, cands, ns)
                    result.dropped = excluded + result.dropped
                    for fam in (inst.family, "all"):
                        tally = tallies[name].setdefault(fam, Tally())
                        tally.filter_ms.append(ms)
                        for stage, stage_ms in result.timings_ms.items():
                            if stage != "total":
                                tally.stage_ms.setdefault(stage, []).append(stage_ms)
                        tally.excluded_at_write += len(excluded)
                        score(inst, result, tally, ns)
            results[set_name] = {
                name: {fam: t.summary() for fam, t in sorted(fams.items())}
                for name, fams in tallies.items()
            }
            results[set_name]["_drops"] = {
                name: fams["all"].drops[:50] for name, fams in tallies.items() if "all" in fams
            }
        for mem in memories.values():
            if redis_url:
                delete_matching(mem.redis, mem.keys.pattern())  # the run's own keys
            mem.close()
    out["sets"] = results
    out["candidate_sets_mismatched"] = mismatched
    return out


def write_report(report: dict[str, Any], out: Path, tag: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{tag}.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    lines = [
        f"# No-harm on held-out text ({tag})",
        "",
        f"k = {report['k']}, STM off; candidate sets identical across conditions: "
        f"{'yes' if report['candidate_sets_mismatched'] == 0 else 'NO'}.",
        "",
    ]
    for set_name, per_cond in report["sets"].items():
        lines += [
            f"## {set_name}",
            "",
            "| family | condition | queries | still-true dropped | drop rate | current lost "
            "| current present | stale exposure | stale unflagged | still-true excised "
            "| decision precision | note precision |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        conds = [c for c in per_cond if not c.startswith("_")]
        families = sorted({f for c in conds for f in per_cond[c]}, key=lambda f: (f == "all", f))
        for fam in families:
            for cond in conds:
                r = per_cond[cond].get(fam)
                if r is None:
                    continue
                lines.append(
                    f"| {fam} | {cond} | {r['queries']} | {r['still_true_dropped']}/"
                    f"{r['still_true_candidates']} | {_fmt(r['still_true_drop_rate'])} | "
                    f"{r['current_lost']} | {_fmt(r['current_present'])} | "
                    f"{_fmt(r['stale_exposure'])} | {_fmt(r['stale_unflagged'])} | "
                    f"{r.get('still_true_excised', '-')} | {_decided(r)} | {_noted(r)} |"
                )
        lines.append("")
    (out / f"{tag}.md").write_text("\n".join(lines))


def _decided(r: Mapping[str, Any]) -> str:
    """Decision precision with its counts: ``0.950 (19/20)``."""
    stages = r.get("decisions_by_stage") or {}
    right = sum(v["right"] for v in stages.values())
    total = right + sum(v["wrong"] for v in stages.values())
    return f"{_fmt(r.get('decision_precision'))} ({right}/{total})" if total else "-"


def _noted(r: Mapping[str, Any]) -> str:
    """Note precision with its counts: ``0.200 (2/10)``."""
    right, wrong = r.get("notes_right", 0), r.get("notes_wrong", 0)
    return f"{_fmt(r.get('note_precision'))} ({right}/{right + wrong})" if right + wrong else "-"


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def cli(
    sets: list[str] = typer.Option(
        ["static", "changes", "tsqa-revisions"],
        "--set",
        help=f"Sets to run: {', '.join(WRITTEN_SETS + REAL_SETS)}.",
    ),
    split: str = typer.Option(
        "test",
        help="dev, dev2, dev3, dev5 ... dev13, devconv (for development); test ... test8 (held "
        "out); all but dev and test for written sets only.",
    ),
    condition: list[str] = typer.Option(
        [], help="Extra condition NAME='{json settings overrides}' (repeatable)."
    ),
    only: list[str] = typer.Option([], help="Run only these conditions (default: all)."),
    limit: int | None = typer.Option(None, help="At most this many queries per set."),
    k: int = typer.Option(10, help="MTM top-k."),
    out: Path = typer.Option(RESULTS, help="Where results go."),
    tag: str | None = typer.Option(None, help="File name stem (default: the split)."),
    smoke: bool = typer.Option(False, help="A few queries per set (CI)."),
    redis_url: str | None = typer.Option(
        None, help="A Redis server for the ledger and verdict log (default: the embedded one)."
    ),
) -> None:
    """Still-true facts dropped, current value lost, stale exposure: per family, per chain."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    require_server(redis_url)
    conds = dict(CONDITIONS)
    for spec in condition:
        name, _, raw = spec.partition("=")
        conds[name] = json.loads(raw)
    if only:
        conds = {n: c for n, c in conds.items() if n in only}
    n = 6 if smoke else limit
    data = {s: load_set(s, split, limit=n) for s in sets}
    embedder = CachedEmbedder(TransformerEmbedder(Settings().models.embedder))
    report = evaluate(data, conds, embedder=embedder, k=k, redis_url=redis_url)
    report["split"] = split
    write_report(report, out, tag or ("smoke" if smoke else split))
    for set_name, per_cond in report["sets"].items():
        for cond, fams in per_cond.items():
            if cond.startswith("_"):
                continue
            a = fams["all"]
            typer.echo(
                f"{set_name:16s} {cond:10s} still-true dropped {a['still_true_dropped']}/"
                f"{a['still_true_candidates']}  current lost {a['current_lost']}  "
                f"present {_fmt(a['current_present'])}  stale {_fmt(a['stale_exposure'])} "
                f"(unflagged {_fmt(a['stale_unflagged'])})  excised {a['still_true_excised']}  "
                f"decisions {_decided(a)}  notes {_noted(a)}"
            )
