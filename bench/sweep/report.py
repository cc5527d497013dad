"""From per-instance records to numbers people compare: results JSON, markdown tables (one per
research question) and PNG plots.

Every number is a mean over instances with a 95% bootstrap interval; differences against
standard RAG are paired (same instances, same candidate sets).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.scenarios.model import Scenario
from bench.sweep.config import SweepConfig, noisy_name
from bench.sweep.harness import (
    BAG,
    GC_FULL,
    GC_PREFILTER,
    KGC_FULL,
    STM_MODES,
    decode_candidates,
    key,
    scheduled_pairs,
    uses_gc_set,
)
from bench.sweep.metrics import InstanceLabels, context_metrics, grade
from bench.sweep.oracles import GoldLabels, pair_uniform
from bench.sweep.stats import Estimate, bootstrap, paired_delta

KEY_METRICS = (
    "accuracy_majority",
    "accuracy_top",
    "accuracy_llm",
    "stale_answer_majority",
    "purity",
    "purity_if_retrieved",
    "stale_exposure",
    "recall_current",
    "static_retention",
)
OTHER_METRICS = (
    "stale_answer_llm",
    "abstain_llm",
    "stale_answer_top",
    "abstain_majority",
    "abstain_top",
    "stale_share",
    "recall_old",
    "recall_static",
    "recall_distractor",
    "shadows_removed",
    "current_in_candidates",
    "context_size",
)
METRICS = KEY_METRICS + OTHER_METRICS
KINDS = ("behavioral", "keyed", "static")
RESAMPLES = 1000


def main_conditions(config: SweepConfig, model_name: str, writegc: Sequence[str] = ()) -> list[str]:
    names = ["rag", "timestamp", "multi-factor", "supersession"]
    for oracle in (model_name, "gold"):
        if oracle == model_name and "nli" not in config.oracles:
            continue
        if oracle == "gold" and "gold" not in config.oracles:
            continue
        names += [f"phi[{oracle}]", f"gcmem[{oracle}]"]
    names.append(GC_PREFILTER)
    names += [f"{GC_FULL}[{o}]" for o in (model_name, "gold") if f"gcmem[{o}]" in names]
    names += [f"{KGC_FULL}[{o}]" for o in (model_name, "gold") if o in writegc]
    return names


@dataclass
class MetricTable:
    """metric arrays per condition key, aligned with ``ids`` (NaN where undefined)."""

    ids: list[str]
    ratio: np.ndarray
    kind: np.ndarray
    values: dict[str, dict[str, np.ndarray]]

    def get(self, cond: str, metric: str) -> np.ndarray:
        return self.values[cond][metric]

    def estimate(self, cond: str, metric: str, mask: np.ndarray | None = None) -> Estimate:
        v = self.get(cond, metric)
        sel = ~np.isnan(v) if mask is None else (~np.isnan(v) & mask)
        return bootstrap(v[sel].tolist(), RESAMPLES)

    def mean(self, cond: str, metric: str, mask: np.ndarray | None = None) -> float:
        v = self.get(cond, metric)
        sel = ~np.isnan(v) if mask is None else (~np.isnan(v) & mask)
        return float(v[sel].mean()) if sel.any() else float("nan")

    def delta(self, cond: str, base: str, metric: str, mask: np.ndarray | None = None) -> Estimate:
        a, b = self.get(cond, metric), self.get(base, metric)
        sel = ~np.isnan(a) & ~np.isnan(b)
        if mask is not None:
            sel &= mask
        return paired_delta(a[sel].tolist(), b[sel].tolist(), RESAMPLES)


def _pools(encoded: dict[str, Any]) -> dict[str, list[str]]:
    """Turn ids of a stored candidate set, with the STM buffer on and off."""
    cands = encoded["candidates"]
    return {
        "on": [c["chunk"]["turn_id"] for c in cands],
        "off": [c["chunk"]["turn_id"] for c in cands if "mtm" in c["sources"]],
    }


def build_table(
    scenarios: dict[str, Scenario],
    retrieval: dict[str, dict[str, Any]],
    evaluation: dict[str, dict[str, Any]],
    llm: dict[str, dict[str, str | None]] | None = None,
    writegc: dict[str, dict[str, dict[str, Any]]] | None = None,
) -> MetricTable:
    """Per-instance metrics of every condition; ``llm``: the LLM reader's answers per
    condition per instance, where it ran; ``writegc``: per oracle, the κ write-time GC records
    (their own candidate sets R''_k; a condition run on fewer instances is NaN elsewhere)."""
    llm = llm or {}
    writegc = writegc or {}
    ids = [i for i in retrieval if i in evaluation]
    n = len(ids)
    values: dict[str, dict[str, np.ndarray]] = {}
    partial = {key(f"{KGC_FULL}[{name}]", stm) for name in writegc for stm in STM_MODES}

    def put(
        cond: str, metrics: dict[str, float | None], row: int, inst: str, labels: InstanceLabels
    ) -> None:
        if cond in llm and inst in llm[cond]:
            g = grade(labels, llm[cond][inst])
            metrics["accuracy_llm"] = float(g == "correct")
            metrics["stale_answer_llm"] = float(g == "stale")
            metrics["abstain_llm"] = float(g == "abstain")
        slot = values.setdefault(cond, {m: np.full(n, np.nan) for m in METRICS})
        seen.setdefault(cond, set()).add(row)
        for m in METRICS:
            v = metrics.get(m)
            slot[m][row] = np.nan if v is None else float(v)

    seen: dict[str, set[int]] = {}
    for row, inst in enumerate(ids):
        scenario, rec = scenarios[inst], retrieval[inst]
        labels = InstanceLabels.of(scenario)
        turn_of = {c["chunk"]["id"]: c["chunk"]["turn_id"] for c in rec["candidates"]["candidates"]}
        pools = {which: _pools(rec[which]) for which in ("candidates", "candidates_gc")}
        for c in rec["candidates_gc"]["candidates"]:
            turn_of.setdefault(c["chunk"]["id"], c["chunk"]["turn_id"])
        contexts = {**rec["contexts"], **evaluation[inst]["contexts"]}
        for cond, ctx in contexts.items():
            stm = cond.rsplit("|", 1)[1]
            pool = pools["candidates_gc" if uses_gc_set(cond) else "candidates"][stm]
            turns = [turn_of[c] for c in ctx["kept"]]
            put(cond, context_metrics(labels, turns, pool), row, inst, labels)
        for records in writegc.values():
            w = records.get(inst)
            if w is None:
                continue
            w_pool = _pools(w["candidates"])
            w_turn = {
                c["chunk"]["id"]: c["chunk"]["turn_id"] for c in w["candidates"]["candidates"]
            }
            for cond, ctx in w["contexts"].items():
                stm = cond.rsplit("|", 1)[1]
                turns = [w_turn[c] for c in ctx["kept"]]
                put(cond, context_metrics(labels, turns, w_pool[stm]), row, inst, labels)
        put(key(BAG, "-"), context_metrics(labels, rec["bag"], rec["bag"]), row, inst, labels)
    for cond, rows in seen.items():
        if len(rows) != n and cond not in partial:
            raise ValueError(f"condition {cond!r} is missing from some instances")
    return MetricTable(
        ids=ids,
        ratio=np.array([scenarios[i].ratio or 0.0 for i in ids], dtype=np.float64),
        kind=np.array([scenarios[i].kind for i in ids]),
        values=values,
    )


# --- aggregation -------------------------------------------------------------------------------


def _ratio_label(r: float) -> str:
    return f"{r:g}:1"


def summarise(
    table: MetricTable, conditions: Sequence[str], detector: Sequence[str]
) -> dict[str, Any]:
    """Per condition: all instances; evolving ones (keyed + behavioural: the ratio curves); each
    kind; each evolving kind by ratio; paired deltas against standard RAG (same STM setting)."""
    ratios = sorted(set(table.ratio.tolist()))
    evolving = table.kind != "static"
    out: dict[str, Any] = {}
    for cond in conditions:
        if cond not in table.values:
            continue
        stm = cond.rsplit("|", 1)[1]
        base = key("rag", stm if stm in STM_MODES else "off")

        def est(metric: str, mask: np.ndarray | None = None, c: str = cond) -> dict[str, Any]:
            return table.estimate(c, metric, mask).as_dict()

        entry: dict[str, Any] = {
            "overall": {m: est(m) for m in KEY_METRICS},
            "overall_means": {m: table.mean(cond, m) for m in OTHER_METRICS},
            "evolving": {m: est(m, evolving) for m in KEY_METRICS},
            "by_ratio": {
                _ratio_label(r): {m: est(m, evolving & (table.ratio == r)) for m in KEY_METRICS}
                for r in ratios
            },
            "by_kind": {
                kind: {m: est(m, table.kind == kind) for m in KEY_METRICS}
                for kind in KINDS
                if (table.kind == kind).any()
            },
            "by_kind_ratio": {
                kind: {
                    _ratio_label(r): {
                        m: est(m, (table.kind == kind) & (table.ratio == r))
                        for m in ("accuracy_majority", "accuracy_top", "purity", "recall_current")
                    }
                    for r in ratios
                }
                for kind in ("behavioral", "keyed")
                if (table.kind == kind).any()
            },
        }
        if cond != base:
            deltas = ("accuracy_majority", "accuracy_top", "accuracy_llm", "purity")
            entry["delta_vs_rag"] = {m: table.delta(cond, base, m).as_dict() for m in deltas}
            entry["delta_vs_rag_evolving"] = {
                m: table.delta(cond, base, m, evolving).as_dict() for m in deltas
            }
            entry["delta_vs_rag_by_ratio"] = {
                _ratio_label(r): table.delta(
                    cond, base, "accuracy_majority", evolving & (table.ratio == r)
                ).as_dict()
                for r in ratios
            }
        out[cond] = entry
    for cond in detector:
        if cond not in table.values:
            continue
        stm = cond.rsplit("|", 1)[1]
        out[cond] = {
            "overall": {
                m: table.estimate(cond, m).as_dict()
                for m in ("accuracy_majority", "purity", "static_retention", "stale_exposure")
            },
            "delta_vs_rag": {
                m: table.delta(cond, key("rag", stm), m).as_dict()
                for m in ("accuracy_majority", "accuracy_top", "purity")
            },
        }
    return out


def latency_summary(
    retrieval: dict[str, dict[str, Any]], evaluation: dict[str, dict[str, Any]], model_name: str
) -> dict[str, dict[str, float]]:
    samples: dict[str, list[float]] = {}

    def add(name: str, value: float | None) -> None:
        if value is not None:
            samples.setdefault(name, []).append(float(value))

    for inst, rec in retrieval.items():
        chunks = max(int(rec["chunks"]), 1)
        for stage, ms in rec["ingest_ms"].items():
            # The sweep embeds each distinct text once (texts recur across instances), so the
            # ingest embed time is not the model's; the model's throughput is in meta.embedding.
            if stage != "embed":
                add(f"ingest: {stage} per chunk", ms / chunks)
        for stage, ms in rec["candidates"]["ms"].items():
            add(f"query: {stage}", ms)
        for cond in ("timestamp", "multi-factor", "supersession"):
            for stage, ms in rec["contexts"][key(cond, "on")]["ms"].items():
                add(f"filter: {stage} (STM on)", ms)
        ev = evaluation.get(inst)
        if ev is None:
            continue
        kappa = ev["kappa"].get(model_name)
        if kappa is not None:
            # Verdicts seeded from the archive were scored cold by an earlier run: its timing.
            cold = kappa.get("archived_ms", kappa["ms"])
            add(f"filter: dominance[{model_name}], cold log (STM on)", cold)
        for oracle in (model_name, "gold"):
            ctx = ev["contexts"].get(key(f"phi[{oracle}]", "on"))
            if ctx is not None:
                add(f"filter: dominance[{oracle}], warm log (STM on)", ctx["ms"].get("dominance"))
    return {
        name: {
            "p50": float(np.percentile(v, 50)),
            "p95": float(np.percentile(v, 95)),
            "mean": float(np.mean(v)),
            "n": len(v),
        }
        for name, v in sorted(samples.items())
    }


def model_pair_quality(
    scenarios: dict[str, Scenario],
    evaluation: dict[str, dict[str, Any]],
    model_name: str,
    threshold: float,
) -> dict[str, Any]:
    """Precision / recall of the model oracle's κ on the pairs the sweep scheduled."""
    counts: dict[str, list[int]] = {}  # group -> [tp, fp, fn, tn]
    for inst, ev in evaluation.items():
        kappa = ev["kappa"].get(model_name)
        if kappa is None:
            continue
        scenario = scenarios[inst]
        state = {t.id: t.state for t in scenario.turns if t.role != "distractor"}
        for older, newer, score in kappa["pairs"]:
            sa, sb = state.get(older), state.get(newer)
            truth = sa is not None and sb is not None and sa != sb
            flagged = score >= threshold
            for group in ("all", scenario.kind):
                c = counts.setdefault(group, [0, 0, 0, 0])
                c[(0 if flagged else 2) if truth else (1 if flagged else 3)] += 1
    out: dict[str, Any] = {}
    for group, (tp, fp, fn, tn) in counts.items():
        out[group] = {
            "pairs": tp + fp + fn + tn,
            "contradictions": tp + fn,
            "precision": tp / (tp + fp) if tp + fp else None,
            "recall": tp / (tp + fn) if tp + fn else None,
            "false_positive_rate": fp / (fp + tn) if fp + tn else None,
        }
    return out


def realised_noise(
    scenarios: dict[str, Scenario],
    retrieval: Iterable[dict[str, Any]],
    config: SweepConfig,
    base_rate: float,
    chunk_max_chars: int,
) -> dict[str, dict[str, float | None]]:
    """Precision and recall each noisy oracle actually had on the scheduled pairs (STM on)."""
    from bench.sweep.oracles import false_positive_rate

    draws: list[tuple[bool, float]] = []
    for rec in retrieval:
        labels = GoldLabels(scenarios[rec["id"]], chunk_max_chars)
        for a, b in scheduled_pairs(decode_candidates(rec["candidates"]).candidates):
            draws.append(
                (
                    labels.contradicts(a.chunk.text, b.chunk.text),
                    pair_uniform(config.noisy_seed, a.chunk.text, b.chunk.text),
                )
            )
    truth = np.array([d[0] for d in draws], dtype=bool)
    u = np.array([d[1] for d in draws])
    out: dict[str, dict[str, float | None]] = {}
    for name, precision, recall in config.noisy_names(base_rate):
        fp_rate = false_positive_rate(recall, precision, base_rate)
        flagged = np.where(truth, u < recall, u < fp_rate)
        tp = int((flagged & truth).sum())
        out[name] = {
            "target_precision": precision,
            "target_recall": recall,
            "false_positive_rate": fp_rate,
            "precision": tp / int(flagged.sum()) if flagged.any() else None,
            "recall": tp / int(truth.sum()) if truth.any() else None,
        }
    return out


# --- markdown ----------------------------------------------------------------------------------


def _cell(est: dict[str, Any], digits: int = 2, ci: bool = False) -> str:
    if not est or est.get("n", 0) == 0 or est["mean"] is None or math.isnan(est["mean"]):
        return "–"
    if ci:
        return f"{est['mean']:.{digits}f} [{est['lo']:.{digits}f}, {est['hi']:.{digits}f}]"
    return f"{est['mean']:.{digits}f}"


def _signed(est: dict[str, Any]) -> str:
    if not est or est.get("n", 0) == 0:
        return "–"
    return f"{est['mean']:+.2f} [{est['lo']:+.2f}, {est['hi']:+.2f}]"


LABELS = {
    "rag": "standard RAG",
    "timestamp": "timestamp re-ranking",
    "multi-factor": "multi-factor scoring",
    "supersession": "supersession pre-filter",
    BAG: "bag-of-facts (k = ∞)",
}


def label(cond: str) -> str:
    name = cond.split("|")[0]
    if name in LABELS:
        return LABELS[name]
    if name.startswith("phi["):
        return f"Φ_T alone, κ = {name[4:-1]}"
    if name.startswith("gcmem["):
        return f"full gcmem, κ = {name[6:-1]}"
    if name == GC_PREFILTER:
        return "supersession pre-filter + write-time GC (R'_k)"
    if name.startswith(f"{KGC_FULL}["):
        return (
            f"full gcmem + write-time GC with κ flags, κ = {name[len(KGC_FULL) + 1 : -1]} (R''_k)"
        )
    if name.startswith(f"{GC_FULL}["):
        return f"full gcmem + write-time GC, κ = {name[len(GC_FULL) + 1 : -1]} (R'_k)"
    return name


def _load(meta: dict[str, Any]) -> str:
    value = meta.get("mean_load1")
    return "n/a" if value is None else f"{value:.1f}"


def _size(summary: dict[str, Any], cond: str) -> float:
    value = summary.get(cond, {}).get("overall_means", {}).get("context_size")
    return float("nan") if value is None else float(value)


def ratio_table(
    summary: dict[str, Any],
    conds: Sequence[str],
    metric: str,
    ratios: Sequence[str],
    kind: str | None = None,
) -> list[str]:
    """Rows: conditions; columns: ratios (evolving instances, or one ``kind``), then all ratios
    with the 95% interval."""
    lines = [
        "| condition | " + " | ".join(ratios) + " | all ratios (95% CI) |",
        "|---|" + "---:|" * len(ratios) + "---:|",
    ]
    for cond in conds:
        entry = summary.get(cond)
        if entry is None:
            continue
        if kind is None:
            cells = [_cell(entry["by_ratio"][r][metric]) for r in ratios]
            total = entry["evolving"][metric]
        else:
            by = entry["by_kind_ratio"].get(kind, {})
            cells = [_cell(by.get(r, {}).get(metric, {})) for r in ratios]
            total = entry["by_kind"].get(kind, {}).get(metric, {})
        lines.append(f"| {label(cond)} | " + " | ".join(cells) + f" | {_cell(total, ci=True)} |")
    return lines


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def render_markdown(results: dict[str, Any]) -> str:
    meta = results["meta"]
    summary = results["conditions"]
    names = meta["main_conditions"]
    ratios = meta["ratios"]
    off = [key(c, "off") for c in names] + [key(BAG, "-")]
    on = [key(c, "on") for c in names]
    phases = meta["phase_seconds"]
    out: list[str] = [
        "# Accumulation-ratio sweep",
        "",
        f"Command: `{meta['command']}`  ",
        f"Scenarios: `{meta['scenarios']}` (sha256 `{meta['scenarios_sha256'][:16]}…`), "
        f"{meta['instances']} instances, {meta['chunks']:,} chunks; k = {meta['config']['k']}, "
        f"STM buffer {meta['config']['stm_size']}, rankers keep {meta['config']['context_k']}.  ",
        f"Machine: {meta['machine']} (shared; mean 1-minute load average during the run "
        f"{_load(meta)}), {meta.get('torch_threads', '?')} torch thread(s); time in the phases "
        f"{meta['wall_time_s'] / 60:.1f} min (retrieval {phases.get('retrieval', 0) / 60:.1f}, "
        f"evaluation {phases.get('evaluation', 0) / 60:.1f}).  ",
        "Cells: means over instances; the last column with its 95% bootstrap interval. Ratio "
        "tables cover the evolving instances (keyed and behavioural; static instances are in "
        "RQ2). Readers are the deterministic proxies of `bench/sweep/metrics.py` (majority: the "
        "state most context chunks assert, ties to the higher-ranked; top: the state of the "
        "highest-ranked chunk that asserts one).",
        "",
        "## RQ1. Does the context stay correct as stale history piles up?",
        "",
        "Forced-reader accuracy (majority reader), STM buffer off:",
        "",
        *ratio_table(summary, off, "accuracy_majority", ratios),
        "",
        "The same, behavioural state changes only (no (subject, relation) key to supersede):",
        "",
        *ratio_table(summary, off, "accuracy_majority", ratios, "behavioral"),
        "",
        "The same, keyed value changes only:",
        "",
        *ratio_table(summary, off, "accuracy_majority", ratios, "keyed"),
        "",
        "Forced-reader accuracy (top-ranked reader), STM buffer off:",
        "",
        *ratio_table(summary, off, "accuracy_top", ratios),
        "",
        "Purity (a current chunk in context and no stale one), STM buffer off:",
        "",
        *ratio_table(summary, off, "purity", ratios),
        "",
        "Purity where R_k holds a current chunk at all (what a filter can reach), STM off:",
        "",
        *ratio_table(summary, off, "purity_if_retrieved", ratios),
        "",
        "Current-state recall (share of the instance's current turns in context), STM off:",
        "",
        *ratio_table(summary, off, "recall_current", ratios),
        "",
        "Forced-reader accuracy (majority reader), STM buffer on:",
        "",
        *ratio_table(summary, on, "accuracy_majority", ratios),
        "",
        "## RQ2. Without destroying facts that never changed?",
        "",
        "Static retention: the share of still-true static chunks in R_k that the context keeps. "
        "Static instances: the attribute never changed and is restated (r + 1) * M times.",
        "",
        "| condition | static retention | static recall | stale exposure | accuracy, static "
        "instances | Δ accuracy vs RAG, all instances (paired) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for cond in off[:-1] + on:
        if cond not in summary:
            continue
        e = summary[cond]
        static_acc = e["by_kind"].get("static", {}).get("accuracy_majority", {})
        recall_static = e["overall_means"].get("recall_static")
        out.append(
            f"| {label(cond)}, STM {cond.split('|')[1]} | "
            f"{_cell(e['overall']['static_retention'], ci=True)} | {_fmt(recall_static)} | "
            f"{_cell(e['overall']['stale_exposure'], ci=True)} | {_cell(static_acc, ci=True)} | "
            f"{_signed(e.get('delta_vs_rag', {}).get('accuracy_majority', {}))} |"
        )
    out += [
        "",
        "## RQ3. What does the short-term buffer change? (evolving instances)",
        "",
        "| condition | accuracy STM off | accuracy STM on | purity off | purity on | "
        "current recall off | current recall on |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in names:
        a, b = summary.get(key(name, "off")), summary.get(key(name, "on"))
        if a is None or b is None:
            continue
        ea, eb = a["evolving"], b["evolving"]
        out.append(
            f"| {label(name)} | {_cell(ea['accuracy_majority'], ci=True)} | "
            f"{_cell(eb['accuracy_majority'], ci=True)} | {_cell(ea['purity'])} | "
            f"{_cell(eb['purity'])} | {_cell(ea['recall_current'])} | "
            f"{_cell(eb['recall_current'])} |"
        )
    out += _detector_section(results)
    out += [
        "",
        "## RQ5. Bag-of-facts: every turn in context (k = ∞)",
        "",
        *ratio_table(
            summary,
            [key(BAG, "-"), key("rag", "off")]
            + [key(c, "off") for c in names if c.startswith("gcmem")],
            "accuracy_majority",
            ratios,
        ),
        "",
        f"Mean context size: bag-of-facts {_size(summary, key(BAG, '-')):.1f} chunks, "
        f"standard RAG {_size(summary, key('rag', 'off')):.1f}.",
        "",
        "## RQ6. Latency per stage (ms, this machine)",
        "",
        "| stage | p50 | p95 | n |",
        "|---|---:|---:|---:|",
    ]
    for stage, v in results["latency"].items():
        out.append(f"| {stage} | {v['p50']:.2f} | {v['p95']:.2f} | {v['n']} |")
    embedding = meta.get("embedding") or {}
    if embedding.get("seconds"):
        out += [
            "",
            f"Embedder throughput while ingesting: {embedding['texts']:,} distinct texts in "
            f"{embedding['seconds']:.0f} s ({embedding['texts'] / embedding['seconds']:.0f} "
            "texts/s); texts that recur across instances are embedded once.",
        ]
    quality = results.get("model_pairs")
    if quality:
        out += [
            "",
            f"## The model oracle on the sweep's pairs (threshold {meta['threshold']}, direction "
            f"{meta.get('direction')})",
            "",
            f"`{meta['model_oracle']}`",
            "",
            "| pairs | count | contradictions | precision | recall | false-positive rate |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for group, q in quality.items():
            out.append(
                f"| {group} | {q['pairs']:,} | {q['contradictions']:,} | "
                f"{_fmt(q['precision'])} | {_fmt(q['recall'])} | "
                f"{_fmt(q['false_positive_rate'])} |"
            )
    llm_conds = [c for c in summary if summary[c]["overall"].get("accuracy_llm", {}).get("n")]
    if llm_conds:
        out += [
            "",
            f"## A real reader: {meta.get('llm_reader', 'LLM')} (forced choice, dated context)",
            "",
            *ratio_table(summary, llm_conds, "accuracy_llm", ratios),
        ]
    out += [
        "",
        "## By kind (majority reader, STM off, all ratios)",
        "",
        "| condition | " + " | ".join(f"{k} accuracy | {k} purity" for k in KINDS) + " |",
        "|---|" + "---:|" * (2 * len(KINDS)),
    ]
    for cond in off:
        e = summary.get(cond)
        if e is None:
            continue
        cells = []
        for kind in KINDS:
            g = e["by_kind"].get(kind, {})
            cells += [_cell(g.get("accuracy_majority", {})), _cell(g.get("purity", {}))]
        out.append(f"| {label(cond)} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def _detector_section(results: dict[str, Any]) -> list[str]:
    detector = results.get("detector", {})
    if not detector.get("rows"):
        return []
    meta, noise = results["meta"], results.get("noise", {})
    precisions = detector["precisions"]
    head = "| detector recall | " + " | ".join(f"precision {p:g}" for p in precisions) + " |"
    rule = "|---:|" + "---:|" * len(precisions)
    out = [
        "",
        "## RQ4. How good must the conflict detector be? (noisy gold κ)",
        "",
        "κ reports a true contradiction with probability = recall and flags other pairs at the "
        "rate that gives the stated precision on the pairs Φ_T schedules (base rate of true "
        f"contradictions among them: {meta['base_rate']:.3f}). Cells: Δ accuracy against "
        "standard RAG, majority reader, paired, STM off, over all instances (static ones "
        "included: a false positive can only hurt them).",
        "",
        f"Summary (the README's detector-dependency line): {detector_summary(results)}",
    ]
    for part, title in (
        ("gcmem", "Full gcmem (the supersession pre-filter decides keyed pairs whatever κ says)"),
        ("phi", "Φ_T alone (κ decides every pair)"),
    ):
        out += ["", f"{title}:", "", head, rule]
        for row in detector["rows"]:
            out.append(f"| {row['recall']:g} | " + " | ".join(_signed(c) for c in row[part]) + " |")
        out += ["", "Where it stops helping (the lowest recall from which up Δ's 95% interval lies "
                "above zero at every recall tested):"]  # fmt: skip
        lowest = min(row["recall"] for row in detector["rows"])
        for p, r in detector["helps_from"][part].items():
            out.append(f"- precision {p}: {_helps_phrase(r, lowest)}")
    out += [
        "",
        "Realised precision / recall of each detector on the scheduled pairs:",
        "",
        head,
        rule,
    ]
    for row in detector["rows"]:
        cells = []
        for p in precisions:
            n = noise.get(noisy_name(p, row["recall"]), {})
            cells.append(f"{_fmt(n.get('precision'))} / {_fmt(n.get('recall'))}")
        out.append(f"| {row['recall']:g} | " + " | ".join(cells) + " |")
    return out


def _helps_phrase(start: float | None, lowest: float) -> str:
    if start is None:
        return "never reliably above zero"
    if start <= lowest:
        return f"helps at every recall tested (down to {lowest:g}): no threshold in range"
    return f"helps from recall {start:g} up (not reliably below it)"


SUMMARY_PRECISIONS = (1.0, 0.9, 0.75)


def detector_summary(
    results: dict[str, Any], precisions: Sequence[float] = SUMMARY_PRECISIONS
) -> str:
    """The detector-dependency finding in a few sentences, at ``precisions`` (those the run
    has): the recall below which the paired Δ accuracy against standard RAG stops being
    reliably above zero, Δ at the lowest, middle and highest recall tested, what precision
    costs in static retention, and where the real model's realised precision and recall put
    it on the curve."""
    detector, summary = results.get("detector", {}), results.get("conditions", {})
    rows = detector.get("rows") or []
    if not rows:
        return "Not measured (run with the noisy oracle in --oracles)."
    grid = [float(p) for p in detector["precisions"]]
    shown = [p for p in precisions if p in grid] or grid[:3]
    cols = [grid.index(p) for p in shown]
    ps = " / ".join(f"{p:g}" for p in shown)
    recalls = [float(row["recall"]) for row in rows]
    lowest, highest = min(recalls), max(recalls)
    middle = min(range(len(rows)), key=lambda i: abs(recalls[i] - 0.5))
    picks = sorted({recalls.index(lowest), middle, recalls.index(highest)})
    starts = {
        part: [detector["helps_from"][part].get(f"{p:g}") for p in shown]
        for part in ("gcmem", "phi")
    }

    sentences = []
    if all(s is not None and s <= lowest for v in starts.values() for s in v):
        sentences.append(
            f"no recall threshold in the range tested: at precision {ps} the paired Δ accuracy "
            "against standard RAG (all instances, STM off) has its 95% interval above zero at "
            f"every recall from {lowest:g} to {highest:g}, for full gcmem and for Φ_T alone"
        )
    elif all(s is None for v in starts.values() for s in v):
        sentences.append(
            f"at precision {ps} the paired Δ accuracy against standard RAG (all instances, STM "
            "off) never has its 95% interval above zero, at any recall tested "
            f"({lowest:g}-{highest:g}), for full gcmem or for Φ_T alone"
        )
    else:
        where = {
            part: " / ".join("nowhere" if s is None else f"≥ {s:g}" for s in v)
            for part, v in starts.items()
        }
        sentences.append(
            f"at precision {ps} the paired Δ accuracy against standard RAG (all instances, STM "
            f"off) has its 95% interval above zero at recall {where['gcmem']} for full gcmem "
            f"and {where['phi']} for Φ_T alone; below that the filter stops helping"
        )
    for part, name in (("gcmem", "full gcmem"), ("phi", "Φ_T alone")):
        cells = ", ".join(
            " / ".join(_mean_signed(rows[i][part][c]) for c in cols) + f" at recall {recalls[i]:g}"
            for i in picks
        )
        sentence = f"{name}: {cells}"
        pre = summary.get(key("supersession", "off"), {}).get("delta_vs_rag", {})
        if part == "gcmem" and pre.get("accuracy_majority", {}).get("n"):
            sentence += (
                f" (the supersession pre-filter alone: {_mean_signed(pre['accuracy_majority'])})"
            )
        sentences.append(sentence)
    retention = [
        summary.get(key(f"phi[{noisy_name(p, highest)}]", "off"), {})
        .get("overall", {})
        .get("static_retention", {})
        for p in shown
    ]
    if all(est.get("n") for est in retention):
        sentences.append(
            f"precision costs still-true facts: Φ_T's static retention at recall {highest:g} is "
            + " / ".join(f"{est['mean']:.2f}" for est in retention)
        )
    model = results.get("model_pairs", {}).get("all", {})
    real = summary.get(key("phi[nli]", "off"), {}).get("delta_vs_rag", {}).get("accuracy_majority")
    if model.get("recall") is not None and model.get("precision") is not None and real:
        # The grid point nearest the real model's realised precision and recall.
        p_near = min(grid, key=lambda p: abs(p - model["precision"]))
        r_near = min(recalls, key=lambda r: abs(r - model["recall"]))
        near = summary.get(key(f"phi[{noisy_name(p_near, r_near)}]", "off"), {})
        near_delta = near.get("delta_vs_rag", {}).get("accuracy_majority", {})
        sentence = (
            f"the real NLI model (realised precision {model['precision']:.2f}, recall "
            f"{model['recall']:.2f} on the scheduled pairs) gets {_signed(real)} with Φ_T alone"
        )
        if near_delta.get("n"):
            sentence += (
                f", the noisy gold detector at precision {p_near:g} / recall {r_near:g} "
                f"{_signed(near_delta)}"
            )
        sentences.append(sentence)
    return " ".join(s[0].upper() + s[1:] + "." for s in sentences)


def _mean_signed(est: dict[str, Any]) -> str:
    return "–" if not est or est.get("n", 0) == 0 else f"{est['mean']:+.2f}"


# --- plots -------------------------------------------------------------------------------------


def plot(results: dict[str, Any], out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meta, summary = results["meta"], results["conditions"]
    ratios = meta["ratios"]
    xs = [float(r.split(":")[0]) for r in ratios]
    names = [*meta["main_conditions"], BAG]
    written: list[Path] = []
    for metric, title, fname in (
        ("accuracy_majority", "forced-reader accuracy (majority reader)", "accuracy_vs_ratio.png"),
        ("recall_current", "current-state recall", "recall_vs_ratio.png"),
    ):
        fig, axes = plt.subplots(2, 2, figsize=(14, 9), sharey=True, sharex=True)
        for row, kind in enumerate(("behavioral", "keyed")):
            for col, stm in enumerate(STM_MODES):
                ax = axes[row][col]
                for name in names:
                    cond = key(name, "-" if name == BAG else stm)
                    by = summary.get(cond, {}).get("by_kind_ratio", {}).get(kind)
                    if not by:
                        continue
                    points = [by[r][metric] for r in ratios]
                    color, style = _style(name)
                    ax.plot(
                        xs, [p["mean"] for p in points], style, color=color, marker="o", ms=3,
                        label=label(name),
                    )  # fmt: skip
                    if name in BANDS:  # intervals for the headline conditions only
                        ax.fill_between(
                            xs, [p["lo"] for p in points], [p["hi"] for p in points],
                            color=color, alpha=0.12, lw=0,
                        )  # fmt: skip
                ax.set_xscale("log")
                ax.set_xticks(xs, ratios)
                ax.set_title(f"{kind} instances, STM buffer {stm}")
                ax.grid(alpha=0.3)
            axes[row][0].set_ylabel(title)
        for ax in axes[1]:
            ax.set_xlabel("accumulation ratio (stale : current)")
        axes[0][1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.0))
        fig.suptitle(
            f"{title} vs accumulation ratio ({meta['instances']} instances; bands: 95% CI)"
        )
        fig.tight_layout()
        path = out_dir / fname
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    detector = results.get("detector", {})
    if detector.get("rows"):
        fig, ax = plt.subplots(figsize=(8, 5.2))
        recalls = [row["recall"] for row in detector["rows"]]
        colors = plt.get_cmap("viridis")
        n = len(detector["precisions"])
        for i, p in enumerate(detector["precisions"]):
            shade = colors(i / max(n - 1, 1))
            for part, style, name in (("gcmem", "-", "full gcmem"), ("phi", "--", "Φ_T alone")):
                cells = [row[part][i] for row in detector["rows"]]
                ax.plot(
                    recalls, [_val(c, "mean") for c in cells], style, color=shade, marker="o",
                    ms=3, label=f"{name}, precision {p:g}",
                )  # fmt: skip
                if part == "phi":
                    ax.fill_between(
                        recalls, [_val(c, "lo") for c in cells], [_val(c, "hi") for c in cells],
                        color=shade, alpha=0.1, lw=0,
                    )  # fmt: skip
        model = results.get("model_pairs", {}).get("all", {})
        phi_model = summary.get(key(f"phi[{meta.get('model_name', 'nli')}]", "off"), {})
        delta = phi_model.get("delta_vs_rag", {}).get("accuracy_majority", {})
        if model.get("recall") is not None and delta.get("mean") is not None:
            ax.errorbar(
                [model["recall"]], [delta["mean"]],
                yerr=[[delta["mean"] - delta["lo"]], [delta["hi"] - delta["mean"]]],
                fmt="*", color="tab:red", ms=12,
                label=f"Φ_T alone with the NLI model (precision {model['precision']:.2f})",
            )  # fmt: skip
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xlabel("detector recall")
        ax.set_ylabel("Δ accuracy vs standard RAG (majority reader)")
        ax.set_title("Detector dependency (noisy gold κ, STM off; bands: 95% CI)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
        fig.tight_layout()
        path = out_dir / "detector_dependency.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def _val(est: dict[str, Any], name: str) -> float:
    """An estimate's field for plotting; NaN (a gap) where the condition was not run."""
    value = est.get(name)
    return math.nan if value is None else float(value)


BANDS = {"rag", "gcmem[nli]", "gcmem[gold]", f"{GC_FULL}[gold]"}


def _style(name: str) -> tuple[str, str]:
    """(colour, line style): one colour per family, the line style tells the variant."""
    fixed = {
        "rag": ("black", "-"),
        "timestamp": ("tab:orange", "-"),
        "multi-factor": ("tab:brown", "-"),
        "supersession": ("tab:red", "-"),
        GC_PREFILTER: ("tab:red", "-."),
        BAG: ("tab:gray", ":"),
    }
    if name in fixed:
        return fixed[name]
    color = "tab:green" if "[gold]" in name else "tab:purple"
    if name.startswith("phi["):
        return color, "--"
    return color, "-." if name.startswith(GC_FULL) else "-"


def detector_rows(summary: dict[str, Any], config: SweepConfig) -> dict[str, Any]:
    if "noisy" not in config.oracles:
        return {}
    rows = []
    for r in config.noisy_recalls:
        row: dict[str, Any] = {"recall": r, "gcmem": [], "phi": [], "phi_static": []}
        for p in config.noisy_precisions:
            name = noisy_name(p, r)
            for part in ("gcmem", "phi"):
                entry = summary.get(key(f"{part}[{name}]", "off"), {})
                row[part].append(entry.get("delta_vs_rag", {}).get("accuracy_majority", {}))
            phi = summary.get(key(f"phi[{name}]", "off"), {})
            row["phi_static"].append(phi.get("overall", {}).get("static_retention", {}))
        rows.append(row)
    # Per part and precision: the lowest recall from which up the Δ interval lies above 0 at
    # every recall tested (None: never reliably helps).
    helps_from: dict[str, dict[str, float | None]] = {}
    for part in ("gcmem", "phi"):
        helps_from[part] = {}
        for i, p in enumerate(config.noisy_precisions):
            start: float | None = None
            for row in reversed(rows):
                cell = row[part][i]
                if not cell:
                    continue  # not run: precision unreachable at this recall and base rate
                if cell.get("lo") is None or cell["lo"] <= 0:
                    break
                start = row["recall"]
            helps_from[part][f"{p:g}"] = start
    return {"precisions": list(config.noisy_precisions), "rows": rows, "helps_from": helps_from}


HEADLINE = (
    "rag",
    "timestamp",
    "multi-factor",
    "supersession",
    "gcmem[nli]",
    "gcmem[gold]",
    f"{GC_FULL}[nli]",
    f"{GC_FULL}[gold]",
    f"{KGC_FULL}[nli]",
    f"{KGC_FULL}[gold]",
)


def render_headline(results: dict[str, Any], stm: str = "off") -> str:
    """The headline table: accuracy on evolving facts across the sweep (ratio columns and all
    ratios), their purity and stale exposure, and collateral damage: static retention and
    accuracy on static instances (facts that never changed)."""
    summary, ratios = results["conditions"], results["meta"]["ratios"]
    shown = [r for r in ("1:1", "5:1", "20:1", "100:1") if r in ratios] or ratios[:4]
    lines = [
        f"| condition (STM {stm}) | "
        + " | ".join(f"accuracy {r}" for r in shown)
        + " | accuracy, all ratios | purity | stale exposure | static retention | "
        "accuracy, static facts |",
        "|---|" + "---:|" * (len(shown) + 5),
    ]
    for name in [*HEADLINE, BAG]:
        cond = key(name, "-" if name == BAG else stm)
        e = summary.get(cond)
        if e is None:
            continue
        cells = [_cell(e["by_ratio"][r]["accuracy_majority"]) for r in shown]
        ev, o = e["evolving"], e["overall"]
        static = e["by_kind"].get("static", {}).get("accuracy_majority", {})
        lines.append(
            f"| {label(name)} | "
            + " | ".join(cells)
            + f" | {_cell(ev['accuracy_majority'], ci=True)} | {_cell(ev['purity'])} | "
            f"{_cell(ev['stale_exposure'])} | {_cell(o['static_retention'])} | {_cell(static)} |"
        )
    return "\n".join(lines) + "\n"


def writegc_summary(writegc: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Per κ write-time GC oracle: flags set, paging work and ingest cost per turn."""
    out: dict[str, Any] = {}
    for name, records in writegc.items():
        recs = list(records.values())
        turns = sum(r["turns"] for r in recs)
        stage_ms = sum(r["ingest_ms"].get("dominance-gc", 0.0) for r in recs)
        out[name] = {
            "instances": len(recs),
            "turns": turns,
            "kappa_flags": sum(r["kappa_flags"] for r in recs),
            "ledger_flags": sum(r["ledger_flags"] for r in recs),
            "queued_after_ingest": sum(r["queued_after_ingest"] for r in recs),
            "pages": sum(r["pages"] for r in recs),
            "dominance_gc_ms_per_turn": stage_ms / turns if turns else None,
            "drain_ms_per_turn": sum(r["drain_ms"] for r in recs) / turns if turns else None,
        }
    return out


def headline_numbers(table: MetricTable, model_name: str, ratio: float = 100) -> dict[str, Any]:
    """``headline.json``: at ``ratio``:1 with the STM off, the accuracy (majority reader) on
    the evolving instances of full gcmem with κ write-time GC (gold κ and the model's) and
    of standard RAG, and the static retention of the two write-time GC conditions; with the
    instance counts each number is over (the model's condition may run on fewer)."""
    at = table.ratio == ratio
    evolving = at & (table.kind != "static")
    conds = {
        "gold": key(f"{KGC_FULL}[gold]", "off"),
        "nli": key(f"{KGC_FULL}[{model_name}]", "off"),
        "rag": key("rag", "off"),
    }

    def mean(cond: str, metric: str, mask: np.ndarray) -> float | None:
        if cond not in table.values:
            return None
        v = table.mean(cond, metric, mask)
        return None if math.isnan(v) else round(v, 4)

    def count(cond: str, metric: str, mask: np.ndarray) -> int:
        if cond not in table.values:
            return 0
        return int((~np.isnan(table.get(cond, metric)) & mask).sum())

    row: dict[str, Any] = {n: mean(c, "accuracy_majority", evolving) for n, c in conds.items()}
    for n in ("gold", "nli"):
        row[f"static_retention_{n}"] = mean(conds[n], "static_retention", at)
    row["instances"] = {n: count(c, "accuracy_majority", evolving) for n, c in conds.items()}
    row["instances_static_retention"] = {
        n: count(conds[n], "static_retention", at) for n in ("gold", "nli")
    }
    return {f"ratio_{ratio:g}_stm_off": row}


def write_outputs(results: dict[str, Any], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "results.json", out_dir / "tables.md", out_dir / "headline.md"]
    if "headline" in results:
        paths.append(out_dir / "headline.json")
        paths[-1].write_text(json.dumps(_finite(results["headline"]), indent=1) + "\n")
    paths[0].write_text(json.dumps(_finite(results), indent=1, default=_json_default) + "\n")
    paths[1].write_text(render_markdown(results))
    paths[2].write_text(render_headline(results, "off") + "\n" + render_headline(results, "on"))
    paths += plot(results, out_dir)
    return paths


def _finite(obj: Any) -> Any:
    """NaN (an empty group) becomes null: results.json stays standard JSON."""
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


def _json_default(obj: object) -> object:
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
