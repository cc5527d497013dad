"""results.json -> a markdown table and the stale-fact-error plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.real_history.run import CONDITIONS, LABELS

PAPER_YIELD = 0.18


def _f(v: float | None, digits: int = 2) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def markdown(results: dict[str, Any]) -> str:
    run = results["run"]
    lines = [
        "# Stale-fact benchmark on real git history",
        "",
        f"Transitions: {results['transitions']} from {results['repositories']} repositories "
        f"(mined from {results['mining']['commits_scanned']} non-merge commits: "
        f"{results['mining']['transitions_found']} atomic transitions, yield "
        f"{results['mining']['yield']:.1%}; the paper's ~{PAPER_YIELD:.0%} was over SWE-bench "
        "fixes, a different denominator). "
        f"Ratios r = {', '.join(map(str, results['ratios']))} (old memories per current one). "
        f"Run: {run['runtime_s']:.0f} s, κ pairs computed {run['kappa_pairs_computed']} "
        f"({1e3 * run['kappa_model_s'] / max(1, run['kappa_pairs_computed']):.0f} ms/pair cold).",
        "",
    ]
    for fmt, conds in results["by_format"].items():
        lines += [
            f"## Memory format: {fmt}"
            + (" (headline)" if fmt == results["headline_format"] else ""),
            "",
            "| condition | stale-fact error (forced, majority) | same, ignoring stale notes "
            "| accuracy "
            "| stale error r=1 / 3 / 10 | accuracy r=1 / 3 / 10 | stale error, top reader "
            "| stale error / abstain, allowed reader | current in R_k "
            "| current-value recall in context | still-true dropped | stale removed "
            "| latency ms (p50 / p95) |",
            "|---|---:|---:|---:|---|---|---:|---|---:|---:|---:|---:|---|",
        ]
        for cond in CONDITIONS:
            c = conds[cond]
            by = c["by_ratio"]
            rs = [str(r) for r in results["ratios"]]
            lines.append(
                f"| {LABELS[cond]} | {_f(c['stale_fact_error'])} | "
                f"{_f(c.get('stale_fact_error_ignoring_notes', c['stale_fact_error']))} | "
                f"{_f(c['accuracy'])} | "
                + " / ".join(_f(by[r].get("stale_fact_error")) for r in rs)
                + " | "
                + " / ".join(_f(by[r].get("accuracy")) for r in rs)
                + f" | {_f(c['stale_answer_top'])} | {_f(c['stale_answer_allowed'])} / "
                f"{_f(c['abstain_allowed'])} | {_f(c['current_in_candidates'])} | "
                f"{_f(c['current_value_recall'])} | {c['still_true_dropped']}/"
                f"{c['still_true_in_candidates']} | {_f(c['stale_removed_rate'])} | "
                f"{c['latency_ms_p50']:.1f} / {c['latency_ms_p95']:.1f} |"
            )
        lines.append("")
        lines += ["Still-true chunks dropped, by the stage that dropped them:", ""]
        for cond in CONDITIONS:
            stages = conds[cond].get("still_true_dropped_by_stage") or {}
            parts = ", ".join(f"{k} {v}" for k, v in stages.items()) or "none"
            excised = conds[cond].get("still_true_excised")
            if excised:
                parts += f"; kept with a line excised {excised}"
            excluded = conds[cond].get("still_true_excluded_at_write")
            if excluded is not None:
                parts += f"; left out of R'_k at write time (absent, not dropped) {excluded}"
            lines.append(f"- {LABELS[cond]}: {parts}")
        lines.append("")
    split = results.get("split", "all")
    if split != "all":
        lines[2:2] = [f"Repositories: split `{split}` (`bench/real_history/split.py`).", ""]
    lines += ["## Miss classes (gcmem default chain, r = 1)", ""]
    counts = results["miss_classes"]["counts"]
    for key in sorted(k for k in counts if ":" not in k):
        parts = ", ".join(f"{k}: {v}" for k, v in sorted(counts[key].items(), key=lambda x: -x[1]))
        lines.append(f"- **{key}**: {parts}")
    lines += ["", "By file type:", ""]
    for key in sorted(k for k in counts if ":" in k):
        parts = ", ".join(f"{k}: {v}" for k, v in sorted(counts[key].items(), key=lambda x: -x[1]))
        lines.append(f"- {key}: {parts}")
    lines += ["", "Examples of misses:", ""]
    for key, examples in sorted(results["miss_classes"]["examples"].items()):
        lines.append(f"- {key}")
        lines += [f"  - `{e}`" for e in examples]
    lines += [
        "",
        "## Repositories (pinned)",
        "",
        "| repository | mined at | licence | commits | transitions | in benchmark |",
        "|---|---|---|---:|---:|---:|",
    ]
    for repo in results["mining"]["repositories"]:
        lines.append(
            f"| {repo['repo']} | `{repo['head'][:12]}` | {repo['license']} | {repo['commits']} | "
            f"{repo['transitions']} | {repo['selected']} |"
        )
    return "\n".join(lines) + "\n"


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    formats = list(results["by_format"])
    fig, axes = plt.subplots(1, len(formats), figsize=(6 * len(formats), 4.2), squeeze=False)
    ratios = results["ratios"]
    for ax, fmt in zip(axes[0], formats, strict=True):
        for cond in CONDITIONS:
            by = results["by_format"][fmt][cond]["by_ratio"]
            ys = [by[str(r)].get("stale_fact_error") for r in ratios]
            ax.plot(ratios, ys, marker="o", label=LABELS[cond])
        ax.set_xscale("log")
        ax.set_xticks(ratios)
        ax.set_xticklabels([str(r) for r in ratios])
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("accumulation ratio r (stale memories per current one)")
        ax.set_ylabel("stale-fact error (forced majority reader)")
        ax.set_title(f"memory format: {fmt}")
        ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=7, loc="upper left")
    fig.suptitle(
        f"Real git history: {results['transitions']} transitions, "
        f"{results['repositories']} repositories"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
