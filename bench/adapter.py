"""``python -m bench adapter``: the supersession adapter shipped for the offline NLI checkpoint.

Training data: every (older, newer) turn pair of the helper-written development splits
(``bench/heldout/data/{changes,static}/<split>.jsonl``, ``DEV_SPLITS``), labelled *supersedes*
when the older turn is stale and the newer one current; every other pair (a still-true fact
and a change announced beside it, parallel keys, elaborations, compatible opposites, restated
facts, two stale restatements) is a negative. The held-out splits (``test`` ... ``test7``),
Time-Sensitive QA, LoCoMo and the real-history sets are never read here.

``cv``: leave-one-writer-out cross-validation. Each fold (``FOLDS``: the splits one helper, or
helpers at one time, wrote) is held out in turn: an adapter trained on the other folds scores
the pairs Φ_T would send to κ on the held-out fold's queries (R_k after the supersession
stage, as ``bench no-harm-pairs`` gathers them), labelled ``justified`` (older stale, newer
current), ``harmful`` (older still true) or ``other``. The pooled out-of-fold scores choose the
thresholds: the drop threshold is the one with the most justified drops whose pair precision
(justified / (justified + harmful)) reaches ``--precision``; the surface threshold, below it,
the one with the most notes that are about a stale chunk at least ``--note-precision`` of the
time. ``train``: the adapter on every development split, with those thresholds, into
``gcmem/oracle/adapters/<base weights sha256>.safetensors`` (+ ``.json``: data files and their
sha256, hyper-parameters, the cross-validation table).

    python -m bench adapter cv        # 4 folds, about 20 min each on 2 CPU cores
    python -m bench adapter train     # about 25 min on 2 CPU cores

``question``: whether reading the query's question helps. An adapter trained on every other
development split scores every time-ordered turn pair of held-out writers' splits
(``QUESTION_HELD_OUT``), reading (older, newer) or (question + older, newer); run it once each
way on the same data and compare the tables (per family, at the threshold that reaches the
precision target). The offline NLI checkpoint's own P(contradiction) is scored beside it.

    python -m bench adapter question [--no-question]   # about 40 min on 2 CPU cores
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import typer

from bench.embedding import CachedEmbedder
from bench.heldout.data import DATA_DIR, Instance, load_jsonl
from bench.heldout.pairs import _label, planned_pairs
from gcmem.embedding.transformer import TransformerEmbedder
from gcmem.oracle.adapter import SHIPPED_DIR, Adapter, LabelledPair
from gcmem.oracle.calibration import select_threshold
from gcmem.oracle.fingerprint import WeightsFingerprint
from gcmem.oracle.relatedness import apart, narrated_event
from gcmem.runtime import resolve_model_source
from gcmem.settings import Settings

RESULTS = Path(__file__).resolve().parent / "results" / "adapter"
CACHE = Path(__file__).resolve().parents[1] / ".bench-cache" / "adapter"
# Held out by writer: each fold holds two or three helpers' splits whole (every fold has
# change instances and static traps), so an out-of-fold score is a score on a writer the
# adapter never read.
FOLDS: tuple[tuple[str, ...], ...] = (
    ("dev7", "dev"),
    ("dev2", "dev8", "dev3"),
    ("dev5", "dev9", "dev6"),
    ("dev10", "devconv"),
)
DEV_SPLITS = tuple(s for fold in FOLDS for s in fold)
# devconv's 24 long chats give 8,624 pairs, more than any other split: a seeded sample keeps
# one split from outweighing the rest.
MAX_PAIRS_PER_SPLIT = 1500
PRECISION = 0.98
GENERATED = 0
NOTE_PRECISION = 0.6
# Held out by ``question``: splits written after the adapter's folds, by other helpers (five
# families each, and one draw each of changed habits and restated keyed changes).
QUESTION_HELD_OUT = ("dev29", "dev31", "dev33", "dev34", "dev35", "dev37", "dev38")
QUESTION_PRECISION = 0.97  # the no-harm target of a drop's pair precision

app = typer.Typer(no_args_is_help=True, help=__doc__.split("\n\n")[0])


def split_files(split: str) -> list[Path]:
    return [
        p for kind in ("changes", "static") if (p := DATA_DIR / kind / f"{split}.jsonl").is_file()
    ]


def instances(split: str) -> list[Instance]:
    return [inst for path in split_files(split) for inst in load_jsonl(path)]


def turn_pairs(split: str) -> list[dict[str, Any]]:
    """Every time-ordered turn pair of the split's instances with the instance's question,
    labelled as ``cv`` labels κ pairs: ``justified`` (older stale, newer current), ``harmful``
    (older still true or current), ``other`` (older stale, newer not current)."""
    rows = []
    for inst in instances(split):
        turns = sorted(inst.turns, key=lambda t: t.ts)
        for a, b in itertools.combinations(turns, 2):
            if a.ts == b.ts:
                continue
            if a.id in inst.stale_turns:
                label = "justified" if b.id in inst.current_turns else "other"
            else:
                label = "harmful"
            rows.append(
                {
                    "split": split,
                    "family": inst.family,
                    "question": inst.query,
                    "older": a.text,
                    "newer": b.text,
                    "label": label,
                }
            )
    return rows


def asked(row: dict[str, Any], with_question: bool) -> str:
    """The older statement as the adapter reads it: after the question, when it reads one."""
    return f"{row['question']} || {row['older']}" if with_question else row["older"]


def training_pairs(
    splits: Iterable[str], *, cap: int = MAX_PAIRS_PER_SPLIT, with_question: bool = False
) -> list[LabelledPair]:
    """Every time-ordered turn pair of the splits' instances (``turn_pairs``), *supersedes*
    when justified; at most ``cap`` a split (a seeded sample). ``with_question``: the older
    statement after the instance's question (``asked``)."""
    out: list[LabelledPair] = []
    for split in splits:
        rows = [
            LabelledPair(asked(r, with_question), r["newer"], r["label"] == "justified", split)
            for r in turn_pairs(split)
        ]
        if len(rows) > cap:
            rows = random.Random(0).sample(rows, cap)
        out += rows
    return out


def generated_pairs(n: int, *, seed: int = 0) -> list[LabelledPair]:
    """``n`` pairs from the sweep generator's training seeds and categories (those of
    ``bench oracle-accuracy``'s training split; its held-out categories stay out): two turns of
    one instance asserting different states of the asked attribute, the newer superseding the
    older (keyed flips in one frame, behavioural states), against restatements, still-true
    facts about the same subject and distractors. The helper-written sets hold few one-value
    flips in near-identical sentences (their near-identical pairs are parallel keys), so
    without these the adapter learns to keep a plain "port 8000" -> "port 8080" change."""
    from bench.oracle_accuracy import TRAIN_SEEDS, scenarios_for
    from bench.scenarios.generate import SizeSpec

    spec = SizeSpec(instances_per_ratio=14, distractors=2, statics=2, ratios=(1, 2))
    rows: list[LabelledPair] = []
    for gen_seed in TRAIN_SEEDS:
        for sc in scenarios_for(gen_seed, False, spec):
            turns = sorted(sc.turns, key=lambda t: t.ts)
            for a, b in itertools.combinations(turns, 2):
                if a.ts == b.ts:
                    continue
                flip = a.state is not None and b.state is not None and a.state != b.state
                rows.append(LabelledPair(a.text, b.text, flip, f"generated:{gen_seed}"))
    rng = random.Random(seed)
    pos = [r for r in rows if r.supersedes]
    neg = [r for r in rows if not r.supersedes]
    half = min(n // 2, len(pos))
    return rng.sample(pos, half) + rng.sample(neg, min(n - half, len(neg)))


def candidate_pairs(split: str, *, k: int = 10, limit: int | None = None) -> list[dict[str, Any]]:
    """The pairs Φ_T sends to κ on the split's queries (R_k after the supersession stage, pairs
    the ledger decides left out), labelled; cached per split (no model but the embedder).
    ``limit``: the first instances only (the smoke run)."""
    path = CACHE / (f"rk-{split}.jsonl" if limit is None else f"rk-{split}-first{limit}.jsonl")
    if path.is_file():
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    embedder = CachedEmbedder(TransformerEmbedder(Settings().models.embedder))
    rows = [
        {
            "split": split,
            "instance": inst.id,
            "family": inst.family,
            "label": _label(inst, ns, a.chunk.turn_id, b.chunk.turn_id),
            "older": a.chunk.text,
            "newer": b.chunk.text,
        }
        for inst, ns, _, planned in planned_pairs(
            instances(split)[:limit], embedder=embedder, k=k, desc=f"R_k {split}"
        )
        for a, b in planned
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


def base_model() -> tuple[str, str]:
    """The configured NLI checkpoint (a local directory) and its weights fingerprint."""
    source = resolve_model_source(Settings().oracle.model)
    if not Path(source).is_dir():
        raise typer.BadParameter(f"GCMEM_NLI_MODEL must be a local directory, got {source!r}")
    return source, WeightsFingerprint().of(source)


def counts_at(rows: Sequence[dict[str, Any]], t: float) -> dict[str, int]:
    hit = [r["label"] for r in rows if r["score"] >= t]
    return {
        "drops": len(hit),
        "justified": hit.count("justified"),
        "harmful": hit.count("harmful"),
        "other": len(hit) - hit.count("justified") - hit.count("harmful"),
    }


def drop_threshold(rows: Sequence[dict[str, Any]], precision: float) -> float:
    """The threshold with the most justified drops whose pair precision, justified /
    (justified + harmful), reaches ``precision`` (the calibration's rule,
    ``gcmem.oracle.calibration.select_threshold``; pairs labelled other are left out)."""
    judged = [r for r in rows if r["label"] in ("justified", "harmful")]
    scores = np.array([r["score"] for r in judged])
    labels = np.array([r["label"] == "justified" for r in judged])
    t, met = select_threshold(scores, labels, precision)
    return t if met else 1.0


def note_threshold(rows: Sequence[dict[str, Any]], drop: float, precision: float) -> float:
    """The same rule for notes: among the pairs below the drop threshold, the threshold whose
    notes are about a stale chunk (justified or other: the older chunk is stale) at least
    ``precision`` of the time."""
    band = [r for r in rows if r["score"] < drop]
    scores = np.array([r["score"] for r in band])
    labels = np.array([r["label"] != "harmful" for r in band])
    t, met = select_threshold(scores, labels, precision)
    return min(t, drop) if met else drop


def table(rows: Sequence[dict[str, Any]], thresholds: Sequence[float]) -> list[dict[str, Any]]:
    justified = sum(r["label"] == "justified" for r in rows)
    out = []
    for t in thresholds:
        c = counts_at(rows, t)
        jh = c["justified"] + c["harmful"]
        out.append(
            {
                "threshold": round(t, 4),
                **c,
                "precision": c["justified"] / jh if jh else None,
                "recall": c["justified"] / justified if justified else None,
            }
        )
    return out


@app.command("cv")
def cv(
    folds: list[str] = typer.Option([], help="Only these folds (comma-joined splits)."),
    epochs: int = typer.Option(2),
    rank: int = typer.Option(8),
    threads: int = typer.Option(2),
    precision: float = typer.Option(PRECISION, help="Pair precision target of a drop."),
    note_precision: float = typer.Option(NOTE_PRECISION, help="Precision target of a note."),
    generated: int = typer.Option(GENERATED, help="Generator pairs added to training."),
    out: Path = typer.Option(RESULTS),
    smoke: bool = typer.Option(False, help="Tiny data, one fold, rank 2, one epoch (CI)."),
) -> None:
    """Leave-one-writer-out: out-of-fold scores on every fold's κ pairs, and the thresholds."""
    from gcmem.oracle.adapter_train import TrainConfig, score_pairs, train_adapter

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    base, weights = base_model()
    chosen = [tuple(f.split(",")) for f in folds] or list(FOLDS[:1] if smoke else FOLDS)
    out.mkdir(parents=True, exist_ok=True)
    oof_path = out / ("oof-smoke.jsonl" if smoke else "oof.jsonl")
    done = _read_rows(oof_path)
    rows = [r for r in done if tuple(r["fold"].split(",")) in chosen]
    for fold in chosen:
        name = ",".join(fold)
        if any(r["fold"] == name for r in rows):
            typer.echo(f"fold {name}: scored already ({oof_path})")
            continue
        train_splits = [s for s in DEV_SPLITS if s not in fold]
        data = training_pairs(train_splits, cap=40 if smoke else MAX_PAIRS_PER_SPLIT)
        data += generated_pairs(10 if smoke else generated) if generated else []
        if smoke:
            data = data[:120]
        config = TrainConfig(
            rank=2 if smoke else rank, epochs=1 if smoke else epochs, threads=threads
        )
        typer.echo(f"fold {name}: {len(data)} pairs, {sum(p.supersedes for p in data)} positive")
        adapter = train_adapter(base, data, config, weights_sha256=weights, log=typer.echo)
        # kept for out-of-fold runs of the whole chain (GCMEM_ORACLE_ADAPTER=<this file>)
        folds_dir = out / "folds-smoke" if smoke else CACHE / "folds"
        adapter.save(folds_dir / f"{name.replace(',', '+')}.safetensors")
        held = [r for s in fold for r in candidate_pairs(s, limit=4 if smoke else None)]
        scores = score_pairs(base, adapter, [(r["older"], r["newer"]) for r in held])
        rows += [{**r, "fold": name, "score": s} for r, s in zip(held, scores, strict=True)]
        oof_path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # Φ_T neither drops nor surfaces a pair provably about two things, whatever κ says, and
    # only surfaces one whose older statement narrates a past event: the thresholds are
    # chosen on the pairs it may act on.
    acting = [r for r in rows if not apart(r["older"], r["newer"])]
    droppable = [r for r in acting if not narrated_event(r["older"], r["newer"])]
    drop = drop_threshold(droppable, precision)
    note = note_threshold(acting, drop, note_precision)
    grid = sorted({0.5, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, note, drop})
    report = {
        "folds": [",".join(f) for f in chosen],
        "precision_target": precision,
        "note_precision_target": note_precision,
        "threshold": drop,
        "surface_threshold": note,
        "pairs": len(rows),
        "pairs_apart": len(rows) - len(acting),
        "pairs_narrated": len(acting) - len(droppable),
        "pooled": table(droppable, grid),
        "pooled_without_apart_test": table(rows, grid),
        "per_fold": {
            ",".join(f): table([r for r in droppable if r["fold"] == ",".join(f)], [note, drop])
            for f in chosen
        },
        "per_family": {
            fam: table([r for r in droppable if r["family"] == fam], [note, drop])
            for fam in sorted({r["family"] for r in droppable})
        },
    }
    stem = "cv-smoke" if smoke else "cv"
    (out / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / f"{stem}.md").write_text(_markdown(report))
    if not smoke:
        _plot(rows, drop, note, out / "pr.png")
    typer.echo(_markdown(report))


def development_splits() -> list[str]:
    """Every helper-written development split (a change or a trap set, or both)."""
    return sorted(
        {p.stem for kind in ("changes", "static") for p in (DATA_DIR / kind).glob("dev*.jsonl")}
    )


@app.command("question")
def question(
    with_question: bool = typer.Option(True, "--question/--no-question"),
    held_out: list[str] = typer.Option(list(QUESTION_HELD_OUT), help="Held-out splits."),
    cap: int = typer.Option(300, help="Training pairs sampled per split."),
    epochs: int = typer.Option(2),
    rank: int = typer.Option(8),
    threads: int = typer.Option(2),
    precision: float = typer.Option(QUESTION_PRECISION, help="Pair precision target."),
    out: Path = typer.Option(RESULTS),
    smoke: bool = typer.Option(False, help="Tiny data: 5 pairs a split, one epoch, rank 2 (CI)."),
) -> None:
    """Whether reading the question helps the adapter: out-of-writer pair precision and
    recall per family, beside the NLI checkpoint's own score."""
    from gcmem.oracle.adapter_train import TrainConfig, score_pairs, train_adapter
    from gcmem.oracle.cross_encoder import CrossEncoderOracle

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    base, weights = base_model()
    if smoke:
        cap, epochs, rank, held_out = 5, 1, 2, held_out[:1]
    train_splits = [s for s in development_splits() if s not in held_out]
    data = training_pairs(train_splits, cap=cap, with_question=with_question)
    held = [r for s in held_out for r in turn_pairs(s)][: 60 if smoke else None]
    typer.echo(f"{len(data)} training pairs from {len(train_splits)} splits, {len(held)} held out")
    config = TrainConfig(rank=rank, epochs=epochs, threads=threads, max_length=160)
    adapter = train_adapter(base, data, config, weights_sha256=weights, log=typer.echo)
    scores = score_pairs(base, adapter, [(asked(r, with_question), r["newer"]) for r in held])
    nli = CrossEncoderOracle(base, device="cpu").score([(r["older"], r["newer"]) for r in held])
    variant = ("question" if with_question else "pair") + ("-smoke" if smoke else "")
    report: dict[str, Any] = {
        "variant": variant,
        "held_out": list(held_out),
        "trained_on": train_splits,
        "training_pairs": len(data),
        "precision_target": precision,
        "config": {"cap": cap, "epochs": epochs, "rank": rank, "max_length": 160},
    }
    for name, values in (("adapter", scores), ("nli", [float(x) for x in nli])):
        rows = [{**r, "score": float(v)} for r, v in zip(held, values, strict=True)]
        t = drop_threshold(rows, precision)
        report[name] = {
            "threshold": t,
            "pooled": table(rows, sorted({0.5, 0.9, 0.95, 0.98, 0.99, t})),
            "per_family": {
                fam: table([r for r in rows if r["family"] == fam], [t])[0]
                for fam in sorted({r["family"] for r in rows})
            },
        }
    out.mkdir(parents=True, exist_ok=True)
    (out / f"question-{variant}.json").write_text(json.dumps(report, indent=2) + "\n")
    justified = Counter(r["family"] for r in held if r["label"] == "justified")
    lines = [f"# Adapter reading {variant}s: held out {', '.join(held_out)}", ""]
    for name in ("adapter", "nli"):
        r = report[name]
        lines += [
            f"## {name}: threshold {r['threshold']:.4f} (pair precision >= {precision})",
            "",
            "| family | justified pairs | dropped justified | dropped harmful | precision |",
            "|---|---|---|---|---|",
        ]
        for fam, c in r["per_family"].items():
            lines.append(
                f"| {fam} | {justified[fam]} | {c['justified']} | {c['harmful']} "
                f"| {_fmt(c['precision'])} |"
            )
        lines.append("")
    (out / f"question-{variant}.md").write_text("\n".join(lines))
    typer.echo("\n".join(lines))


@app.command("train")
def train(
    cv_report: Path = typer.Option(RESULTS / "cv.json", help="Thresholds from `cv`."),
    epochs: int = typer.Option(2),
    rank: int = typer.Option(8),
    threads: int = typer.Option(2),
    generated: int = typer.Option(GENERATED, help="Generator pairs added to training."),
    out_dir: Path = typer.Option(SHIPPED_DIR, help="Where the adapter goes."),
) -> None:
    """The adapter on every development split, with the cross-validated thresholds."""
    from gcmem.oracle.adapter_train import TrainConfig, train_adapter

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    base, weights = base_model()
    report = json.loads(cv_report.read_text())
    data = training_pairs(DEV_SPLITS) + (generated_pairs(generated) if generated else [])
    files = {
        str(p.relative_to(DATA_DIR)): hashlib.sha256(p.read_bytes()).hexdigest()
        for s in DEV_SPLITS
        for p in split_files(s)
    }
    config = TrainConfig(
        rank=rank,
        epochs=epochs,
        threads=threads,
        extra={
            "trained_on": "helper-written development splits " + ", ".join(DEV_SPLITS),
            "data_files": files,
            "max_pairs_per_split": MAX_PAIRS_PER_SPLIT,
            "generated_pairs": generated,
            "held_out_never_read": "test ... test7, Time-Sensitive QA, LoCoMo, real history",
        },
    )
    adapter = train_adapter(base, data, config, weights_sha256=weights, log=typer.echo)
    _save(_with_cv(adapter, report), out_dir / f"{weights}.safetensors")


@app.command("thresholds")
def thresholds(
    cv_report: Path = typer.Option(RESULTS / "cv.json", help="Thresholds from `cv`."),
    out_dir: Path = typer.Option(SHIPPED_DIR, help="Where the adapter is."),
) -> None:
    """Rewrite the shipped adapter's thresholds and cross-validation table from `cv` (after a
    change of the rule that chooses them; the tensors, hence θ, stay as they are)."""
    _, weights = base_model()
    path = out_dir / f"{weights}.safetensors"
    _save(_with_cv(Adapter.load(path), json.loads(cv_report.read_text())), path)


def _with_cv(adapter: Adapter, report: dict[str, Any]) -> Adapter:
    keys = ("folds", "precision_target", "note_precision_target", "pooled", "per_fold")
    return adapter.with_thresholds(
        report["threshold"],
        report["surface_threshold"],
        cross_validation={k: report[k] for k in keys},
    )


def _save(adapter: Adapter, path: Path) -> None:
    adapter.save(path)
    loaded = Adapter.load(path)
    typer.echo(f"{path} ({path.stat().st_size:,} bytes): {loaded.describe()}")


def _read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def len_droppable(report: dict[str, Any]) -> int:
    return int(report["pairs"] - report["pairs_apart"] - report["pairs_narrated"])


def _markdown(report: dict[str, Any]) -> str:
    head = "| threshold | drops | justified | harmful | other | precision | recall |\n"
    head += "|---|---|---|---|---|---|---|\n"

    def rows(items: list[dict[str, Any]], name: str | None = None) -> str:
        first = "" if name is None else f"| {name} "
        return "".join(
            f"{first}| {r['threshold']:.4f} | {r['drops']} | {r['justified']} | {r['harmful']} "
            f"| {r['other']} | {_fmt(r['precision'])} | {_fmt(r['recall'])} |\n"
            for r in items
        )

    text = (
        f"# Supersession adapter: leave-one-writer-out cross-validation\n\n"
        f"{report['pairs']} κ pairs over folds {', '.join(report['folds'])}; drop threshold "
        f"{report['threshold']:.4f} (the most justified drops at pair precision >= "
        f"{report['precision_target']}), surface threshold "
        f"{report['surface_threshold']:.4f} (notes about a stale chunk >= "
        f"{report['note_precision_target']}).\n\n"
        f"## Pooled (the {len_droppable(report)} pairs Φ_T may drop: not apart, the older "
        "not a narrated event)\n\n"
        + head
        + rows(report["pooled"])
        + f"\n## Pooled, without the apart test (all {report['pairs']} pairs)\n\n"
        + head
        + rows(report["pooled_without_apart_test"])
    )
    for title, key in (("Per held-out fold", "per_fold"), ("Per family", "per_family")):
        text += f"\n## {title} (surface, drop)\n\n| {key[4:]} " + head.replace(
            "|---|", "|---|---|", 1
        )
        for name, items in report[key].items():
            text += rows(items, name)
    return text


def _plot(rows: Sequence[dict[str, Any]], drop: float, note: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ts = np.linspace(0.0, 1.0, 201)
    prec, rec = [], []
    justified = max(sum(r["label"] == "justified" for r in rows), 1)
    for t in ts:
        c = counts_at(rows, float(t))
        jh = c["justified"] + c["harmful"]
        prec.append(c["justified"] / jh if jh else np.nan)
        rec.append(c["justified"] / justified)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(ts, prec, label="pair precision")
    ax.plot(ts, rec, label="recall of justified drops")
    ax.axvline(drop, color="k", ls="--", lw=1, label=f"drop {drop:.3f}")
    ax.axvline(note, color="gray", ls=":", lw=1, label=f"surface {note:.3f}")
    ax.set_xlabel("adapter score P(newer supersedes older), out of fold")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("Supersession adapter, leave-one-writer-out")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
