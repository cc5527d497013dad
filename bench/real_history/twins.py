"""Twin lines: the precision half of the real-history benchmark.

A transition is one line of a file changed in one span between two commits; a *twin pair* is
two lines of one file at one commit that differ in one span by the same criteria
(``criteria.check_pair``: one span, value <= 40 characters and <= 4 tokens, no comment or prose
line), each at its own place: two jobs of one workflow, two test functions, a sync and an async
transport. Both lines are true. A memory holding a window of each (the one dated earlier, the
other later, both before the question) looks to a supersession rule exactly like an old and a
new version of one line: the measure is how often the chain hides the earlier twin (drops its
chunk or excises its line) or the later one. Plain retrieval hides neither; every hide is a
still-true fact lost.

Mined deterministically from one snapshot per repository (HEAD, pinned by sha in each record),
from the files the transition miner scans (``classify_path`` "candidate"): per file at most
``PER_FILE`` pairs, per repository at most ``per_repo``, spread over files by a seeded RNG.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.real_history.criteria import TOKEN, Span, check_pair, question_for
from bench.real_history.instances import Format, line_text, snippet_text
from bench.real_history.mine import (
    CONTEXT,
    Blobs,
    candidate_files,
    git,
    repo_license,
    repo_name,
    window,
)

PER_FILE = 2
MAX_BUCKET = 40  # lines compared per bucket (a file's 300 ``}`` lines are not 45,000 pairs)
MIN_LINE_CHARS = 8
# the earlier twin's window is dated this long before the later one's (the snapshot's time);
# the question is asked a day after the later one: both lines are still in the file
APART = timedelta(days=180)
_BLANKISH = re.compile(r"^[\W_]*$")


def twin_pairs(path: str, lines: Sequence[str]) -> Iterator[tuple[int, int, Span]]:
    """Pairs (i, j), i < j, of lines of one file that differ in one span (``check_pair``),
    far enough apart that neither window shows the other line, found through buckets of
    lines sharing their first or their last two tokens (a line changed in one span keeps
    one end unless the span is most of it)."""
    buckets: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for i, line in enumerate(lines):
        toks = TOKEN.findall(line)
        if len(toks) < 3 or len(line.strip()) < MIN_LINE_CHARS or _BLANKISH.match(line):
            continue
        buckets.setdefault(("first", tuple(toks[:2])), []).append(i)
        buckets.setdefault(("last", tuple(toks[-2:])), []).append(i)
    seen: set[tuple[int, int]] = set()
    for members in buckets.values():
        for a, i in enumerate(members[:MAX_BUCKET]):
            for j in members[a + 1 : MAX_BUCKET]:
                if (i, j) in seen or j - i <= 2 * CONTEXT or lines[i].strip() == lines[j].strip():
                    continue
                seen.add((i, j))
                span = check_pair(path, lines[i], lines[j])
                if not isinstance(span, str):
                    yield i, j, span


def mine_twins(repo: Path, *, per_repo: int, seed: int = 0) -> list[dict[str, Any]]:
    """Twin pairs of one repository's HEAD snapshot (see the module docstring)."""
    head = git(repo, "rev-parse", "HEAD").strip()
    name = repo_name(repo)
    licence = repo_license(repo, head)
    when = datetime.fromtimestamp(
        int(git(repo, "show", "-s", "--format=%ct", head).strip()), tz=UTC
    )
    rng = random.Random(f"{name}:{seed}")
    blobs = Blobs(repo)
    files = candidate_files(repo, head)
    rng.shuffle(files)
    out: list[dict[str, Any]] = []
    for path in files:
        if len(out) >= per_repo:
            break
        lines = blobs.lines(head, path)
        if not lines:
            continue
        found = list(twin_pairs(path, lines))
        rng.shuffle(found)
        for i, j, span in found[:PER_FILE]:
            older, newer = window(lines, i), window(lines, j)
            if older["lines"] == newer["lines"]:
                continue
            # which twin the memory saw first is the RNG's: the question is about it
            if rng.random() < 0.5:
                i, j, older, newer = j, i, newer, older
                swapped = check_pair(path, lines[i], lines[j])
                if isinstance(swapped, str):
                    continue  # (the criteria read a pair alike both ways)
                span = swapped
            out.append(
                {
                    "id": f"{name}@{head[:10]}:{path}:{i + 1}:{j + 1}",
                    "repo": name,
                    "license": licence,
                    "sha": head,
                    "path": path,
                    "older_line": lines[i],
                    "newer_line": lines[j],
                    "older_line_no": i + 1,
                    "newer_line_no": j + 1,
                    "older_value": span.old_value,
                    "newer_value": span.new_value,
                    "older_context": older,
                    "newer_context": newer,
                    "question": question_for(
                        path, lines[i], span.old_start, len(span.old_value), None
                    ),
                    "older_time": (when - APART).isoformat(),
                    "newer_time": when.isoformat(),
                }
            )
    return out[:per_repo]


def turns(record: dict[str, Any], namespace: str, fmt: Format = "snippet") -> list[dict[str, Any]]:
    """The two twins as dated memories, read as a transition's memories are
    (``instances.snippet_text``: ``path:`` then the window's real lines; ``instances.line_text``:
    ``path: line``, the line alone)."""
    path = record["path"]
    return [
        {
            "id": f"{namespace}-{which}",
            "namespace": namespace,
            "text": (
                snippet_text(path, record[f"{which}_context"]["lines"])
                if fmt == "snippet"
                else line_text(path, record[f"{which}_line"])
            ),
            "ts": datetime.fromisoformat(record[f"{which}_time"]),
        }
        for which in ("older", "newer")
    ]


def asked_at(record: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(record["newer_time"]) + timedelta(days=1)


def hidden(result: Any, turn_id: str, candidates: Sequence[str]) -> bool:
    """Whether the chain hid the twin: it was a candidate and is not kept, or kept with a line
    excised from what the reader gets."""
    if turn_id not in candidates:
        return False
    kept = [k for k in result.kept if k.chunk.turn_id == turn_id]
    return not kept or any(bool(k.stale_sentences) for k in kept)


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per condition: the share of pairs whose earlier (later, either) twin was hidden."""
    out: dict[str, Any] = {"pairs": len(rows)}
    conditions = sorted({c for r in rows for c in r["conditions"]})
    for cond in conditions:
        counts: Counter[str] = Counter()
        for r in rows:
            c = r["conditions"][cond]
            counts["older"] += c["older_hidden"]
            counts["newer"] += c["newer_hidden"]
            counts["either"] += c["older_hidden"] or c["newer_hidden"]
        n = len(rows) or 1
        out[cond] = {
            "older_hidden": counts["older"],
            "newer_hidden": counts["newer"],
            "pairs_hidden": counts["either"],
            "hide_rate": round(counts["either"] / n, 4),
        }
    return out


def measure(
    records: Sequence[dict[str, Any]],
    memory: Any,
    chains: dict[str, list[Any]],
    *,
    fmt: Format = "snippet",
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Every pair through ``memory`` (its own namespace), each chain on the same candidates;
    ``best``: the default chain on R'_k (write-time GC's flagged chunks left out before top-k:
    a twin left out counts as hidden)."""
    from tqdm.auto import tqdm

    rows = []
    for k, rec in enumerate(tqdm(records, desc="twins", unit="pair", disable=not progress)):
        ns = f"twin-{fmt}-{k:05d}"
        memory.ingest(turns(rec, ns, fmt))
        ids = {"older": f"{ns}-older", "newer": f"{ns}-newer"}
        cands = memory.candidates(rec["question"], namespace=ns, stm=False, as_of=asked_at(rec))
        pool = [c.chunk.turn_id for c in cands.candidates]
        out: dict[str, dict[str, bool]] = {}
        for name, chain in chains.items():
            result = memory.filter(cands, filters=chain)
            out[name] = {f"{w}_hidden": hidden(result, tid, pool) for w, tid in ids.items()}
        if "gcmem" in chains:
            gc = memory.candidates(
                rec["question"], namespace=ns, stm=False, as_of=asked_at(rec), exclude_flagged=True
            )
            present = [c.chunk.turn_id for c in gc.candidates]
            result = memory.filter(gc, filters=chains["gcmem"])
            out["best"] = {
                f"{w}_hidden": (tid in pool and tid not in present) or hidden(result, tid, present)
                for w, tid in ids.items()
            }
        rows.append({"id": rec["id"], "repo": rec["repo"], "path": rec["path"], "conditions": out})
    return rows
