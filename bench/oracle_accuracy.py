"""κ accuracy on agent memory: relatedness gates, query conditioning, calibration, fine-tuning.

    python -m bench.oracle_accuracy data          # training statements + dev/eval candidate pairs
    python -m bench.oracle_accuracy evaluate --model base=<dir> --model tuned=<dir>
    python -m bench oracle-accuracy ...               # the same commands

Splits (generator seeds and entity types never shared between training and evaluation):
- train: statements from generator seeds 11-13, the training categories (every category but
  ``HELD_OUT_CATEGORIES``), for ``gcmem oracle finetune``'s statement augmentation;
- dev: candidate pairs from seed 21, training categories (calibration and threshold choice);
- eval-seed: candidate pairs from seed 7, training categories (a seed the model never saw;
  the vocabulary's templates do recur across seeds, so this split measures in-domain accuracy);
- eval-types: candidate pairs from seed 7, the held-out categories only (entity types and their
  templates the model never saw: the honest generalisation number).

Candidate pairs are the pairs Φ_T schedules: R_k = the MTM top-k (cosine of the real embedder
to the question) ∪ the newest ``stm`` turns, every pair with different times and contents,
labelled by the scenario (both assert a state and the states differ = contradiction).

Metrics: pair P/R/F1 of each oracle variant; Φ_T on every candidate set alone (κ decides every
pair) and as the full filter (pairs sharing a ledger key decided by the ledger's rule, the rest
by κ): behavioural/keyed purity and the share of still-true candidates (everything not ``old``)
dropped.
"""

from __future__ import annotations

import json
import os
import platform
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from bench.scenarios.generate import Generator, SizeSpec
from bench.scenarios.model import Scenario
from bench.scenarios.vocab import BEHAVIORS, KEYED
from bench.sweep.oracles import GoldLabels
from gcmem.facts.extract import extract_triples
from gcmem.normalize import normalize_key, normalize_object
from gcmem.oracle.calibration import (
    Calibration,
    fit_calibration,
)
from gcmem.oracle.relatedness import related

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO / ".bench-cache" / "oracle-accuracy"
DEFAULT_OUT = REPO / "bench" / "results" / "oracle-accuracy"
HELD_OUT_CATEGORIES = ("hobby", "sleep", "pets", "home city", "region", "log level")
TRAIN_SEEDS = (11, 12, 13)
DEV_SEED = 21
EVAL_SEED = 7
# Training: every ratio, enough instances per ratio for every category; eval: a few ratios.
TRAIN_SPEC = SizeSpec(instances_per_ratio=14, distractors=20, ratios=(1, 2, 5))
EVAL_SPEC = SizeSpec(instances_per_ratio=14, distractors=40, ratios=(1, 5, 20))
CHUNK_MAX_CHARS = 480
QUESTION_TEMPLATE = "{question} [SEP] {text}"
PRECISION_TARGET = 0.9
# General NLI pairs mixed into training so the model keeps its NLI skills (the base checkpoint
# was trained on this file already; none of it is in any evaluation set).
NLI_TRAIN = Path("/work/shared/data/nli/snli_mnli_train_subset_openie/train.jsonl")
NLI_SAMPLE = 1500


def categories(held_out: bool) -> list[str]:
    names = [b.name for b in BEHAVIORS] + [k.name for k in KEYED]
    return [n for n in names if (n in HELD_OUT_CATEGORIES) == held_out]


def scenarios_for(seed: int, held_out: bool, spec: SizeSpec) -> list[Scenario]:
    return list(Generator(spec, seed, categories(held_out)).scenarios())


# --- data ---------------------------------------------------------------------------------------


def statements(scenarios: Sequence[Scenario]) -> list[dict[str, Any]]:
    """Finetune statement rows: group = the instance's subject; distractors their own group."""
    rows: list[dict[str, Any]] = []
    for s in scenarios:
        subject = str(s.meta.get("subject", "?"))
        instance = f"seed{s.meta.get('seed')}:{s.id}"  # ids repeat across seeds
        group = f"{instance}:{subject}"
        for t in s.turns:
            if t.role == "distractor":
                rows.append({"text": t.text, "group": f"{instance}:distractors"})
            elif t.state is not None:
                rows.append(
                    {
                        "text": t.text,
                        "group": group,
                        "attribute": s.category,
                        "state": t.state,
                        "question": s.question,
                    }
                )
            else:  # a still-true fact about another attribute of the same subject
                rows.append({"text": t.text, "group": group, "question": s.question})
    return rows


@dataclass
class CandidateSet:
    instance: str
    kind: str
    category: str
    question: str
    turns: list[dict[str, Any]]  # id, text, ts (epoch s), role


def candidate_sets(
    scenarios: Sequence[Scenario], embed: Any, *, k: int = 10, stm: int = 3
) -> list[CandidateSet]:
    out = []
    for s in scenarios:
        turns = sorted(s.turns, key=lambda t: (t.ts, t.id))
        vecs = embed([t.text for t in turns] + [s.question])
        vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
        sims = vecs[:-1] @ vecs[-1]
        top = set(np.argsort(-sims, kind="stable")[:k].tolist())
        top |= set(range(max(0, len(turns) - stm), len(turns)))
        chosen = [turns[i] for i in sorted(top)]
        out.append(
            CandidateSet(
                s.id,
                s.kind,
                s.category,
                s.question,
                [
                    {"id": t.id, "text": t.text, "ts": t.ts.timestamp(), "role": t.role}
                    for t in chosen
                ],
            )
        )
    return out


def labelled_pairs(
    sets: Sequence[CandidateSet], scenarios: dict[str, Scenario], embed: Any
) -> list[dict[str, Any]]:
    rows = []
    for cs in sets:
        labels = GoldLabels(scenarios[cs.instance], CHUNK_MAX_CHARS)
        texts = [t["text"] for t in cs.turns]
        vecs = embed([*texts, cs.question])
        vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
        q = vecs[-1]
        for i, a in enumerate(cs.turns):
            for j in range(i + 1, len(cs.turns)):
                b = cs.turns[j]
                if a["ts"] == b["ts"] or a["text"] == b["text"]:
                    continue
                rows.append(
                    {
                        "instance": cs.instance,
                        "kind": cs.kind,
                        "category": cs.category,
                        "question": cs.question,
                        "premise": a["text"],
                        "hypothesis": b["text"],
                        "older": a["id"],
                        "newer": b["id"],
                        "label": "contradiction"
                        if labels.contradicts(a["text"], b["text"])
                        else "neutral",
                        "cos": float(vecs[i] @ vecs[j]),
                        "q_min": float(min(vecs[i] @ q, vecs[j] @ q)),
                    }
                )
    return rows


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        for row in rows:
            fh.write(json.dumps(row, sort_keys=True) + "\n")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open() as fh:
        return [json.loads(line) for line in fh if line.strip()]


def make_data(out: Path, threads: int | None = None) -> dict[str, int]:
    import torch

    from bench.embedding import CachedEmbedder
    from gcmem.embedding.transformer import TransformerEmbedder
    from gcmem.settings import DEFAULT_EMBEDDER

    if threads:
        torch.set_num_threads(threads)
    train = [s for seed in TRAIN_SEEDS for s in scenarios_for(seed, False, TRAIN_SPEC)]
    write_jsonl(out / "train-statements.jsonl", statements(train))
    embedder = CachedEmbedder(TransformerEmbedder(DEFAULT_EMBEDDER, device="cpu"))
    counts = {"train-statements": sum(1 for _ in statements(train))}
    if NLI_TRAIN.exists():
        nli = read_jsonl(NLI_TRAIN)
        picked = random.Random(0).sample(nli, min(NLI_SAMPLE, len(nli)))
        write_jsonl(
            out / "nli-sample.jsonl",
            [{k: r[k] for k in ("premise", "hypothesis", "label")} for r in picked],
        )
        counts["nli-sample"] = len(picked)
    for split, seed, held_out in (
        ("dev", DEV_SEED, False),
        ("eval-seed", EVAL_SEED, False),
        ("eval-types", EVAL_SEED, True),
    ):
        scen = scenarios_for(seed, held_out, EVAL_SPEC)
        sets = candidate_sets(scen, embedder.embed)
        rows = labelled_pairs(sets, {s.id: s for s in scen}, embedder.embed)
        write_jsonl(out / f"{split}-pairs.jsonl", rows)
        write_jsonl(out / f"{split}-sets.jsonl", [cs.__dict__ for cs in sets])
        counts[split] = len(rows)
    (out / "manifest.json").write_text(json.dumps(counts, indent=2) + "\n")
    return counts


# --- scoring ------------------------------------------------------------------------------------


def score_rows(
    model: str, rows: Sequence[dict[str, Any]], *, question: bool, threads: int | None
) -> np.ndarray:
    """P(contradiction), max over both orders, optionally with the question in front."""
    import torch

    from gcmem.oracle.cross_encoder import CrossEncoderOracle

    if threads:
        torch.set_num_threads(threads)
    oracle = CrossEncoderOracle(model, device="cpu", max_length=128, batch_size=64, progress=True)

    def render(text: str, q: str) -> str:
        return QUESTION_TEMPLATE.format(question=q, text=text) if question else text

    pairs = [
        (render(r["premise"], r["question"]), render(r["hypothesis"], r["question"])) for r in rows
    ]
    return oracle.score(pairs)


@dataclass(frozen=True)
class Gates:
    entity: bool = False
    cosine: float | None = None  # pair cosine floor
    query: float | None = None  # both statements at least this similar to the question

    @property
    def name(self) -> str:
        parts = []
        if self.entity:
            parts.append("entity")
        if self.cosine is not None:
            parts.append(f"cos≥{self.cosine:g}")
        if self.query is not None:
            parts.append(f"query≥{self.query:g}")
        return "+".join(parts) or "none"


def gate_mask(rows: Sequence[dict[str, Any]], gates: Gates) -> np.ndarray:
    keep = np.ones(len(rows), dtype=bool)
    if gates.entity:
        keep &= np.array([related(r["premise"], r["hypothesis"]) for r in rows])
    if gates.cosine is not None:
        keep &= np.array([r["cos"] >= gates.cosine for r in rows])
    if gates.query is not None:
        keep &= np.array([r["q_min"] >= gates.query for r in rows])
    return keep


def prf(flags: np.ndarray, y: np.ndarray) -> dict[str, float]:
    tp = int(np.sum(flags & y))
    fp = int(np.sum(flags & ~y))
    fn = int(np.sum(~flags & y))
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f, "tp": tp, "fp": fp, "fn": fn}


def _ledger_keys(text: str) -> dict[tuple[str, str], frozenset[str]]:
    out: dict[tuple[str, str], set[str]] = {}
    for fact in extract_triples(text):
        out.setdefault(normalize_key(fact.subject, fact.relation), set()).add(
            normalize_object(fact.object)
        )
    return {k: frozenset(v) for k, v in out.items()}


def filter_metrics(
    sets: Sequence[dict[str, Any]], rows: Sequence[dict[str, Any]], flags: np.ndarray, *, full: bool
) -> dict[str, Any]:
    """Φ_T over every candidate set with κ = ``flags``; ``full``: ledger keys decide first."""
    by_pair = {(r["older"], r["newer"]): bool(f) for r, f in zip(rows, flags, strict=True)}
    purity: list[float] = []
    true_total = true_dropped = static_total = static_dropped = old_total = old_dropped = 0
    for cs in sets:
        turns = cs["turns"]
        keys = {t["id"]: _ledger_keys(t["text"]) if full else {} for t in turns}
        dominated: set[str] = set()
        for i, a in enumerate(turns):
            for b in turns[i + 1 :]:
                if a["ts"] == b["ts"] or a["text"] == b["text"]:
                    continue
                older, newer = (a, b) if a["ts"] < b["ts"] else (b, a)
                ka, kb = keys[older["id"]], keys[newer["id"]]
                shared = set(ka) & set(kb)
                if shared:
                    conflict = any(ka[s] != kb[s] for s in shared)
                else:
                    conflict = by_pair.get((a["id"], b["id"]), False)
                if conflict:
                    dominated.add(older["id"])
        kept = [t for t in turns if t["id"] not in dominated]
        for t in turns:
            if t["role"] == "old":
                old_total += 1
                old_dropped += t["id"] in dominated
            else:
                true_total += 1
                true_dropped += t["id"] in dominated
                if t["role"] == "static":
                    static_total += 1
                    static_dropped += t["id"] in dominated
        if cs["kind"] != "static" and any(t["role"] == "new" for t in turns):
            purity.append(
                float(
                    any(t["role"] == "new" for t in kept)
                    and not any(t["role"] == "old" for t in kept)
                )
            )
    return {
        "purity": float(np.mean(purity)) if purity else None,
        "purity_n": len(purity),
        "still_true_dropped": true_dropped,
        "still_true_total": true_total,
        "still_true_dropped_share": true_dropped / true_total if true_total else 0.0,
        "static_dropped": static_dropped,
        "static_total": static_total,
        "stale_removed_share": old_dropped / old_total if old_total else 0.0,
    }


def machine() -> dict[str, Any]:
    import torch

    return {
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "load1": round(os.getloadavg()[0], 2),
    }


def evaluate(
    data: Path,
    models: dict[str, str],
    out: Path,
    *,
    threads: int | None,
    method: str = "temperature",
    target: float = PRECISION_TARGET,
    floors: Sequence[float] = (0.2, 0.3, 0.4),
    query_floors: Sequence[float] = (0.1, 0.2),
    raw_threshold: float = 0.5,
    conditioned: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Score every split with every model (plain and query-conditioned), then derive the gate,
    calibration and threshold variants from the cached scores."""
    splits = {s: read_jsonl(data / f"{s}-pairs.jsonl") for s in ("dev", "eval-seed", "eval-types")}
    sets = {s: read_jsonl(data / f"{s}-sets.jsonl") for s in ("eval-seed", "eval-types")}
    cache_dir = data / "scores"  # per (model, form, split); delete to rescore
    cache_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    scores: dict[tuple[str, bool, str], np.ndarray] = {}
    forms = {
        n: (False, True) if conditioned is None or n in conditioned else (False,) for n in models
    }
    for name, path in models.items():
        for question in forms[name]:
            for split, rows in splits.items():
                cache = cache_dir / f"{name}-{'q' if question else 'plain'}-{split}.npy"
                if cache.exists():
                    scores[(name, question, split)] = np.load(cache)
                    continue
                s = score_rows(path, rows, question=question, threads=threads)
                np.save(cache, s)
                scores[(name, question, split)] = s
    scoring_s = time.perf_counter() - t0
    ys = {s: np.array([r["label"] == "contradiction" for r in rows]) for s, rows in splits.items()}
    gate_list = [Gates(), Gates(entity=True)]
    gate_list += [Gates(cosine=f) for f in floors]
    gate_list += [Gates(query=f) for f in query_floors]
    gate_list += [Gates(entity=True, cosine=floors[0])]
    variants: list[dict[str, Any]] = []
    for name in models:
        for question in forms[name]:
            for gates in gate_list:
                # The calibration is fitted on the dev pairs the gates let through (the pairs
                # the model sees); gated pairs are never flagged.
                dev_mask = gate_mask(splits["dev"], gates)
                cal: Calibration | None = None
                try:
                    cal = fit_calibration(
                        scores[(name, question, "dev")][dev_mask],
                        ys["dev"][dev_mask].astype(int),
                        method=method,  # type: ignore[arg-type]
                        precision_target=target,
                        oracle_theta=f"{name}|q={question}|{gates.name}",
                        source="dev",
                    )
                except ValueError:
                    cal = None
                for mode in ("raw", "calibrated"):
                    if mode == "calibrated" and cal is None:
                        continue
                    entry: dict[str, Any] = {
                        "model": name,
                        "question": question,
                        "gates": gates.name,
                        "mode": mode,
                    }
                    for split in ("eval-seed", "eval-types"):
                        mask = gate_mask(splits[split], gates)
                        raw = scores[(name, question, split)]
                        if mode == "raw":
                            s, thr = raw, raw_threshold
                        else:
                            assert cal is not None
                            s, thr = cal.apply(raw), cal.threshold
                        flags = mask & (s >= thr)
                        entry["threshold"] = thr
                        entry[split] = {
                            **prf(flags, ys[split]),
                            "alone": filter_metrics(sets[split], splits[split], flags, full=False),
                            "full": filter_metrics(sets[split], splits[split], flags, full=True),
                        }
                    if mode == "calibrated" and cal is not None:
                        entry["dev"] = cal.dev
                        entry["target_met_on_dev"] = cal.target_met
                    variants.append(entry)
    curves: dict[str, dict[str, list[list[float]]]] = {}
    for name in models:
        for question in forms[name]:
            for gates in (Gates(), Gates(entity=True)):
                label = f"{name}{' +question' if question else ''}, gate {gates.name}"
                curves[label] = {}
                for split in ("eval-seed", "eval-types"):
                    mask = gate_mask(splits[split], gates)
                    raw = scores[(name, question, split)]
                    points = []
                    for t in np.arange(0.05, 0.951, 0.05):
                        e = prf(mask & (raw >= t), ys[split])
                        points.append([round(float(t), 2), e["precision"], e["recall"]])
                    curves[label][split] = points
    result = {
        "meta": {
            "generated": datetime.now(UTC).isoformat(timespec="seconds"),
            "models": models,
            "data": str(data),
            "pairs": {s: len(r) for s, r in splits.items()},
            "positives": {s: int(y.sum()) for s, y in ys.items()},
            "held_out_categories": list(HELD_OUT_CATEGORIES),
            "train_seeds": list(TRAIN_SEEDS),
            "dev_seed": DEV_SEED,
            "eval_seed": EVAL_SEED,
            "calibration": method,
            "precision_target": target,
            "raw_threshold": raw_threshold,
            "question_template": QUESTION_TEMPLATE,
            "scoring_seconds": round(scoring_s, 1),  # 0 when every score came from the cache
            "score_cache": str(cache_dir),
            "machine": machine(),
        },
        "variants": variants,
        "curves": curves,  # label -> split -> [threshold, precision, recall] (raw scores)
        "gold": {
            split: {
                "alone": filter_metrics(sets[split], splits[split], ys[split], full=False),
                "full": filter_metrics(sets[split], splits[split], ys[split], full=True),
            }
            for split in ("eval-seed", "eval-types")
        },
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "results.md").write_text(markdown(result))
    plot(result, out / "pr.png")
    return result


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def markdown(res: dict[str, Any]) -> str:
    m = res["meta"]
    lines = [
        "# κ accuracy on held-out agent-memory candidate pairs",
        "",
        f"Pairs: dev {m['pairs']['dev']} ({m['positives']['dev']} contradictions), eval-seed "
        f"{m['pairs']['eval-seed']} ({m['positives']['eval-seed']}), eval-types "
        f"{m['pairs']['eval-types']} ({m['positives']['eval-types']}). Held-out types: "
        f"{', '.join(m['held_out_categories'])}. Calibration: {m['calibration']} on dev, "
        f"threshold for precision ≥ {m['precision_target']}; raw threshold {m['raw_threshold']}.",
        "",
    ]
    for split in ("eval-seed", "eval-types"):
        g = res["gold"][split]["full"]
        lines += [
            f"## {split}",
            "",
            f"Gold κ, full filter: purity {_fmt(g['purity'])}, still-true dropped "
            f"{g['still_true_dropped']}/{g['still_true_total']}.",
            "",
            "| model | question | gates | mode | thr | P | R | F1 | purity (alone) | "
            "true dropped (alone) | purity (full) | true dropped (full) |",
            "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for v in res["variants"]:
            e = v[split]
            a, f = e["alone"], e["full"]
            lines.append(
                f"| {v['model']} | {'yes' if v['question'] else 'no'} | {v['gates']} | "
                f"{v['mode']} | {v['threshold']:.2f} | {e['precision']:.2f} | {e['recall']:.2f} "
                f"| {e['f1']:.2f} | {_fmt(a['purity'])} | {a['still_true_dropped']}/"
                f"{a['still_true_total']} | {_fmt(f['purity'])} | {f['still_true_dropped']}/"
                f"{f['still_true_total']} |"
            )
        lines.append("")
    return "\n".join(lines) + "\n"


def plot(res: dict[str, Any], path: Path) -> None:
    """Precision-recall over raw thresholds per model and gate; calibrated operating points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, split in zip(axes, ("eval-seed", "eval-types"), strict=True):
        for i, (label, by_split) in enumerate(sorted(res["curves"].items())):
            pts = np.array(by_split[split])
            style = "--" if "gate entity" in label else "-"
            colour = colours[(i // 2) % len(colours)]
            ax.plot(pts[:, 2], pts[:, 1], style, color=colour, lw=1.2, label=label)
        for v in res["variants"]:
            if v["mode"] == "calibrated" and v["gates"] in ("none", "entity"):
                e = v[split]
                ax.scatter(e["recall"], e["precision"], s=14, color="black", zorder=3)
        ax.axhline(0.9, color="grey", lw=0.8, ls=":")
        ax.axvline(0.7, color="grey", lw=0.8, ls=":")
        ax.set_title(f"{split}: lines = raw thresholds, dots = calibrated")
        ax.set_xlabel("pair recall")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
    axes[0].set_ylabel("pair precision")
    axes[1].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- CLI ----------------------------------------------------------------------------------------

app = typer.Typer(no_args_is_help=True, help=__doc__.split("\n")[0] if __doc__ else None)


@app.command("data")
def data_cmd(
    out: Annotated[Path, typer.Option(help="Where the JSONL splits go.")] = DEFAULT_DATA,
    threads: Annotated[int | None, typer.Option(min=1, help="torch CPU threads.")] = 2,
) -> None:
    """Generate the training statements and the dev / eval candidate pairs."""
    counts = make_data(out, threads)
    typer.echo(json.dumps(counts))


def _models(specs: Sequence[str]) -> dict[str, str]:
    out = {}
    for spec in specs:
        name, _, path = spec.partition("=")
        if not path:
            raise typer.BadParameter(f"--model takes NAME=DIR, got {spec!r}")
        out[name] = path
    return out


@app.command("evaluate")
def evaluate_cmd(
    model: Annotated[list[str], typer.Option(help="NAME=model dir (repeat).")],
    data: Annotated[Path, typer.Option(help="The `data` command's output.")] = DEFAULT_DATA,
    out: Annotated[Path, typer.Option(help="Results directory.")] = DEFAULT_OUT,
    threads: Annotated[int | None, typer.Option(min=1, help="torch CPU threads.")] = 2,
    method: Annotated[str, typer.Option(help="temperature|isotonic")] = "temperature",
    target: Annotated[float, typer.Option(help="Precision target for the threshold.")] = 0.9,
    conditioned: Annotated[
        list[str] | None,
        typer.Option(help="Models also scored with the question in front (default: all)."),
    ] = None,
) -> None:
    """Score dev/eval pairs with each model; gates, calibration, Φ_T metrics; write results."""
    res = evaluate(
        data,
        _models(model),
        out,
        threads=threads,
        method=method,
        target=target,
        conditioned=conditioned,
    )
    typer.echo(markdown(res))


cli = app

if __name__ == "__main__":
    app()
