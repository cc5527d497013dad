"""``python -m bench.real_history mine --repo PATH...`` and ``python -m bench.real_history run``."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Annotated, Any, cast

import typer

from bench.real_history import MINING_JSON, TRANSITIONS_JSONL, TWINS_DIR
from bench.real_history.instances import FORMATS, Format
from bench.real_history.split import SPLITS, select

app = typer.Typer(no_args_is_help=True, add_completion=False)
DEFAULT_OUT = Path("bench") / "results" / "real-history"
SMOKE_TRANSITIONS = 4
INSTANCES = "instances.jsonl.gz"  # one row per instance: every condition's metrics


NliModel = Annotated[str | None, typer.Option(help="NLI checkpoint (default: $GCMEM_NLI_MODEL).")]
RedisUrl = Annotated[
    str | None,
    typer.Option(help="A Redis server for the ledger and verdict log (default: the embedded one)."),
]


def _nli_model(given: str | None) -> str:
    model = given or os.environ.get("GCMEM_NLI_MODEL")
    if not model:
        raise typer.BadParameter("set --nli-model or GCMEM_NLI_MODEL (an offline checkpoint)")
    return model


def _formats(given: str) -> tuple[Format, ...]:
    fmts = tuple(f.strip() for f in given.split(",") if f.strip())
    if not fmts or any(f not in FORMATS for f in fmts):
        raise typer.BadParameter(f"unknown format in {given!r}: one of {', '.join(FORMATS)}")
    return cast(tuple[Format, ...], fmts)


def _snapshot(path: Path) -> None:
    if not (path / "HEAD").is_file():
        raise typer.BadParameter(f"{path} is not a bare git dir (a fetch snapshot's repo)")


def read_transitions(path: Path) -> list[dict[str, Any]]:
    with path.open() as f:
        return [json.loads(line) for line in f if line.strip()]


@app.command()
def mine(
    repo: Annotated[list[Path], typer.Option(help="Bare git dir of a repository (repeatable).")],
    max_commits: Annotated[
        int, typer.Option(help="Newest non-merge commits scanned per repo.")
    ] = 2000,
    per_repo: Annotated[int, typer.Option(help="Transitions kept per repository.")] = 20,
    out: Annotated[Path, typer.Option(help="Transitions JSONL.")] = TRANSITIONS_JSONL,
    progress: bool = True,
) -> None:
    """Re-mine transitions from fetched snapshots (git plumbing, deterministic)."""
    from bench.real_history.mine import mine_repo, select

    records: list[dict[str, Any]] = []
    repos: list[dict[str, Any]] = []
    for path in repo:
        found, stats, meta = mine_repo(path, max_commits=max_commits, progress=progress)
        chosen = select(found, per_repo)
        records.extend(chosen)
        repos.append(
            {
                **meta,
                "commits": stats.commits,
                "single_pair_commits": stats.single_pair,
                "transitions": stats.transitions,
                "selected": len(chosen),
                "rejected": dict(sorted(stats.rejected.items())),
                "kinds": _count(r["kind"] for r in found),
            }
        )
        typer.echo(
            f"{meta['repo']} @ {meta['head'][:12]} ({meta['license']}): {stats.commits} commits, "
            f"{stats.transitions} transitions, {len(chosen)} kept"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    commits = sum(r["commits"] for r in repos)
    found_total = sum(r["transitions"] for r in repos)
    summary = {
        "max_commits": max_commits,
        "per_repo": per_repo,
        "commits_scanned": commits,
        "single_pair_commits": sum(r["single_pair_commits"] for r in repos),
        "transitions_found": found_total,
        "yield": found_total / commits if commits else 0.0,
        "selected": len(records),
        "repositories": repos,
    }
    (out.parent / MINING_JSON.name).write_text(json.dumps(summary, indent=2) + "\n")
    typer.echo(
        f"{found_total} transitions in {commits} commits (yield {summary['yield']:.1%}); "
        f"{len(records)} written to {out}"
    )


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))


@app.command()
def restate(
    repo: Annotated[list[Path], typer.Option(help="Bare git dir of a repository (repeatable).")],
    transitions: Annotated[Path, typer.Option(help="Transitions JSONL.")] = TRANSITIONS_JSONL,
) -> None:
    """Re-derive the restatements of these repositories' transitions in the JSONL with the
    current miner (pinned by each record's shas; the selection and every other field stay)."""
    from bench.real_history.mine import repo_name
    from bench.real_history.mine import restate as restate_records

    records = read_transitions(transitions)
    for path in repo:
        _snapshot(path)
        if not any(r["repo"] == repo_name(path) for r in records):
            raise typer.BadParameter(f"no transition of {repo_name(path)} in {transitions}")
    # every repository checked before anything is written: a bad one leaves the file as it was
    changed = {str(path): restate_records(path, records) for path in repo}
    with transitions.open("w") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    for path, n in changed.items():
        typer.echo(f"{path}: {n} transitions' restatements changed")


@app.command()
def run(
    transitions: Annotated[Path, typer.Option(help="Transitions JSONL.")] = TRANSITIONS_JSONL,
    out: Annotated[Path, typer.Option(help="Results directory.")] = DEFAULT_OUT,
    smoke: Annotated[
        bool, typer.Option(help=f"First {SMOKE_TRANSITIONS} transitions only.")
    ] = False,
    limit: Annotated[int | None, typer.Option(help="Cap: first N transitions.")] = None,
    split: Annotated[
        str, typer.Option(help="Repositories: all, dev (rules chosen on) or heldout (report only).")
    ] = "all",
    ratios: Annotated[str, typer.Option(help="Accumulation ratios, comma-separated.")] = "1,3,10",
    formats: Annotated[str, typer.Option(help="Memory formats: snippet,line.")] = "snippet,line",
    nli_model: NliModel = None,
    redis_url: RedisUrl = None,
    progress: bool = True,
) -> None:
    """Run the benchmark from the committed JSONL (offline)."""
    from bench.cleanup import require_server
    from bench.real_history.run import RunConfig, aggregate, engagement_table, run_all

    model = _nli_model(nli_model)
    require_server(redis_url)
    if split not in SPLITS:
        raise typer.BadParameter(f"unknown split {split!r}: one of {', '.join(SPLITS)}")
    records = select(read_transitions(transitions), split)
    cap = SMOKE_TRANSITIONS if smoke else limit
    if cap is not None:
        records = _spread(records, cap)
    fmts = _formats(formats)
    config = RunConfig(
        nli_model=model,
        ratios=tuple(int(r) for r in ratios.split(",")),
        formats=fmts,
        redis_url=redis_url,
    )
    rows, info = run_all(records, config, progress=progress)
    # The mining summary beside the JSONL, else the committed one (a subset of its transitions).
    mining_path = transitions.parent / MINING_JSON.name
    mining_path = mining_path if mining_path.exists() else MINING_JSON
    mining = json.loads(mining_path.read_text())
    by_format = {
        fmt: aggregate([r for r in rows if r["format"] == fmt], config.ratios) for fmt in fmts
    }
    headline = fmts[0]
    results = {
        "transitions": len(records),
        "repositories": len({r["repo"] for r in records}),
        "ratios": list(config.ratios),
        "formats": list(fmts),
        "headline_format": headline,
        "cap": cap,
        "split": split,
        "conditions": by_format[headline],
        "by_format": by_format,
        "miss_classes": engagement_table(rows, records),
        "mining": {
            k: mining.get(k)
            for k in ("commits_scanned", "transitions_found", "yield", "max_commits", "per_repo")
        }
        | {"paper_yield": 0.18, "repositories": _repo_rows(mining, records)},
        "run": info,
    }
    write_results(out, results, rows)
    g, rag = by_format[headline]["gcmem"], by_format[headline]["rag"]
    typer.echo(
        f"{len(records)} transitions, {results['repositories']} repositories, {len(rows)} "
        f"instances in {info['runtime_s']:.0f} s; {headline}: stale-fact error rag "
        f"{rag['stale_fact_error']:.3f}, gcmem {g['stale_fact_error']:.3f}; still-true dropped "
        f"gcmem {g['still_true_dropped']}/{g['still_true_in_candidates']} (kept with a line "
        f"excised {g['still_true_excised']}) -> {out}"
    )


@app.command("twins-mine")
def twins_mine(
    repo: Annotated[list[Path], typer.Option(help="Bare git dir of a repository (repeatable).")],
    out: Annotated[Path, typer.Option(help="Twin pairs JSONL.")],
    per_repo: Annotated[int, typer.Option(help="Pairs kept per repository.")] = 15,
) -> None:
    """Mine twin pairs (two lines of one file at one commit differing in one span) from
    fetched snapshots' HEAD (deterministic)."""
    from bench.real_history.twins import mine_twins

    for path in repo:
        _snapshot(path)
    records = []
    for path in repo:
        found = mine_twins(path, per_repo=per_repo)
        records.extend(found)
        typer.echo(f"{path}: {len(found)} twin pairs")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as f:
        for r in records:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    typer.echo(f"{len(records)} twin pairs from {len(repo)} repositories -> {out}")


@app.command()
def twins(
    pairs: Annotated[Path, typer.Option(help="Twin pairs JSONL (twins-mine).")] = TWINS_DIR
    / "dev.jsonl",
    out: Annotated[Path, typer.Option(help="Results directory.")] = DEFAULT_OUT / "twins",
    formats: Annotated[str, typer.Option(help="Memory formats: snippet,line.")] = "snippet,line",
    smoke: Annotated[bool, typer.Option(help=f"First {SMOKE_TRANSITIONS} pairs only.")] = False,
    nli_model: NliModel = None,
    redis_url: RedisUrl = None,
    progress: bool = True,
) -> None:
    """Precision on real files: how often each chain hides one of two still-true twin lines."""
    import tempfile

    from bench.cleanup import require_server
    from bench.real_history.run import RunConfig, Runner
    from bench.real_history.twins import measure, summarize

    model = _nli_model(nli_model)
    fmts = _formats(formats)
    require_server(redis_url)
    if not pairs.is_file():
        raise typer.BadParameter(
            f"no twin pairs file {pairs} (python -m bench.real_history twins-mine)"
        )
    records = read_transitions(pairs)
    if smoke:
        records = records[:SMOKE_TRANSITIONS]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gcmem-twins-") as tmp:
        runner = Runner.open(RunConfig(nli_model=model, redis_url=redis_url), Path(tmp))
        try:
            chains = {n: runner.chains[n] for n in ("rag", "supersession", "gcmem")}
            for fmt in fmts:
                found = measure(records, runner.memory, chains, fmt=fmt, progress=progress)
                rows.extend({**r, "format": fmt} for r in found)
        finally:
            runner.close()
    by_format = {fmt: summarize([r for r in rows if r["format"] == fmt]) for fmt in fmts}
    hidden = [
        {
            "id": r["id"],
            "format": r["format"],
            "conditions": [c for c, v in r["conditions"].items() if any(v.values())],
        }
        for r in rows
        if any(any(v.values()) for v in r["conditions"].values())
    ]
    out.mkdir(parents=True, exist_ok=True)
    results = {"pairs_file": str(pairs), "repositories": len({r["repo"] for r in records})}
    results |= {"redis": "server" if redis_url else "embedded"}
    results |= {"headline_format": fmts[0], "summary": by_format[fmts[0]]}
    results |= {"by_format": by_format, "hidden": hidden}
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    with gzip.open(out / "pairs.jsonl.gz", "wt") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    conditions = ("rag", "supersession", "gcmem", "best")
    table = [
        f"Twin pairs: {len(records)} from {results['repositories']} repositories (`{pairs}`)",
        "",
        "| format | condition | pairs with a twin hidden | hide rate | earlier | later |",
        "|---|---|---|---|---|---|",
        *(
            f"| {fmt} | {c} | {m[c]['pairs_hidden']} | {m[c]['hide_rate']:.3f} | "
            f"{m[c]['older_hidden']} | {m[c]['newer_hidden']} |"
            for fmt, m in by_format.items()
            for c in conditions
        ),
    ]
    (out / "results.md").write_text("\n".join(table) + "\n")
    cells = "; ".join(
        f"{fmt}: " + ", ".join(f"{c} {m[c]['pairs_hidden']}" for c in conditions)
        for fmt, m in by_format.items()
    )
    typer.echo(f"{len(records)} twin pairs; pairs with a still-true twin hidden: {cells} -> {out}")


@app.command()
def report(
    out: Annotated[Path, typer.Option(help="Results directory with results.json.")] = DEFAULT_OUT,
    transitions: Annotated[Path, typer.Option(help="Transitions JSONL.")] = TRANSITIONS_JSONL,
    reaggregate: Annotated[
        bool, typer.Option(help="Recompute the aggregates from instances.jsonl.gz first.")
    ] = False,
) -> None:
    """Rewrite the table and the plot from an existing results.json (no model, no run)."""
    from bench.real_history.report import markdown, plot
    from bench.real_history.run import aggregate, engagement_table, write_json

    results = json.loads((out / "results.json").read_text())
    if reaggregate:
        with gzip.open(out / INSTANCES, "rt") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        used = {r["transition"] for r in rows}
        records = [r for r in read_transitions(transitions) if r["id"] in used]
        results["by_format"] = {
            fmt: aggregate([r for r in rows if r["format"] == fmt], results["ratios"])
            for fmt in results["formats"]
        }
        results["conditions"] = results["by_format"][results["headline_format"]]
        results["miss_classes"] = engagement_table(rows, records)
        write_json(out / "results.json", results)
    (out / "results.md").write_text(markdown(results))
    plot(results, out / "stale_error_vs_ratio.png")
    typer.echo(f"wrote {out / 'results.md'} and {out / 'stale_error_vs_ratio.png'}")


@app.command()
def misses(
    parts: Annotated[list[Path], typer.Option("--from", help="Results directories to count.")],
    transitions: Annotated[Path, typer.Option(help="Transitions JSONL.")] = TRANSITIONS_JSONL,
) -> None:
    """The README's miss classes at r = 1 (counts only: no transition text is printed)."""
    from bench.real_history.misses import CLASSES, classify

    rows: list[dict[str, Any]] = []
    for p in parts:
        with gzip.open(p / INSTANCES, "rt") as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    used = {r["transition"] for r in rows}
    records = [r for r in read_transitions(transitions) if r["id"] in used]
    unknown = used - {r["id"] for r in records}
    if unknown:
        raise typer.BadParameter(
            f"{len(unknown)} transitions of the results are not in {transitions} (a set "
            "mined apart, such as data/dev6: pass its transitions.jsonl with --transitions)"
        )
    counts = classify(rows, records)
    for name in CLASSES:
        typer.echo(f"{counts[name]:4d}  {name}")


@app.command()
def combine(
    parts: Annotated[list[Path], typer.Option("--from", help="Results directories to join.")],
    out: Annotated[Path, typer.Option(help="Results directory to write.")] = DEFAULT_OUT,
    transitions: Annotated[Path, typer.Option(help="Transitions JSONL.")] = TRANSITIONS_JSONL,
) -> None:
    """One results directory from runs on disjoint transition sets (the dev and held-out
    halves): their instance rows joined and re-aggregated (no model, no run). Each instance
    has its own namespace, so the rows are those of one run over the union; run times add."""
    from bench.real_history.run import aggregate, engagement_table

    rows: list[dict[str, Any]] = []
    metas = [json.loads((p / "results.json").read_text()) for p in parts]
    for p in parts:
        with gzip.open(p / INSTANCES, "rt") as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    used = {r["transition"] for r in rows}
    records = [r for r in read_transitions(transitions) if r["id"] in used]
    results = dict(metas[0])
    results["transitions"] = len(records)
    results["repositories"] = len({r["repo"] for r in records})
    results["split"] = "+".join(str(m.get("split", "all")) for m in metas)
    results["by_format"] = {
        fmt: aggregate([r for r in rows if r["format"] == fmt], results["ratios"])
        for fmt in results["formats"]
    }
    results["conditions"] = results["by_format"][results["headline_format"]]
    results["miss_classes"] = engagement_table(rows, records)
    results["mining"]["repositories"] = _repo_rows(json.loads(MINING_JSON.read_text()), records)
    results["run"] = dict(metas[0]["run"]) | {
        k: sum(m["run"][k] for m in metas)
        for k in ("runtime_s", "kappa_pairs_computed", "kappa_model_s")
    }
    write_results(out, results, rows)
    typer.echo(f"{len(records)} transitions, {len(rows)} instances -> {out}")


def write_results(out: Path, results: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """``results.json``, its table, the plot and the per-instance rows, in ``out``."""
    from bench.real_history.report import markdown, plot
    from bench.real_history.run import write_json

    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "results.json", results)
    (out / "results.md").write_text(markdown(results))
    plot(results, out / "stale_error_vs_ratio.png")
    with gzip.open(out / INSTANCES, "wt") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")


def _spread(records: list[dict[str, Any]], cap: int) -> list[dict[str, Any]]:
    """The first ``cap`` transitions taken round-robin over repositories (every repo early)."""
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_repo.setdefault(r["repo"], []).append(r)
    out: list[dict[str, Any]] = []
    queues = [list(reversed(v)) for _, v in sorted(by_repo.items())]  # newest first
    while len(out) < cap and any(queues):
        for q in queues:
            if q and len(out) < cap:
                out.append(q.pop(0))
    return out


def _repo_rows(mining: dict[str, Any], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    used: dict[str, int] = {}
    for r in records:
        used[r["repo"]] = used.get(r["repo"], 0) + 1
    return [
        {
            "repo": r["repo"],
            "head": r["head"],
            "license": r["license"],
            "commits": r["commits"],
            "transitions": r["transitions"],
            "selected": used.get(r["repo"], 0),
        }
        for r in mining.get("repositories", [])
    ]


if __name__ == "__main__":
    app()
