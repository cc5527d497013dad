"""The miner: atomic value transitions from a repository's git history (plumbing only).

Per repository (a bare git dir, e.g. a ``fetch`` snapshot): the newest ``max_commits`` non-merge
commits reachable from HEAD (pinned by HEAD's sha) are scanned with one ``git log --numstat``
pass; commits whose non-ignored files change exactly one line pair (``criteria``, rule 1-2) are
read with ``git show --unified=0`` and the pair is checked (rules 3-7). For each transition:

- the old value's *introduction*: ``git blame`` of the old line at the parent gives the commit
  that wrote it and its author time (the old memory is dated there, with the lines around it
  in that commit's version of the file); a transition whose new author time is not after the
  introduction's (rebased or back-dated commits) is dropped, since event time must order them;
- restatements: up to ``RESTATEMENTS`` later commits that touched the file while the old line
  held (evenly spaced over them), each with the old line and its surroundings in that version,
  dated at that commit; when fewer exist, the parent's version dated at evenly spaced times
  between the introduction and the change fills up (``real: false``);
- the new line with its surroundings at the new commit;
- distractors: windows of real lines from the same file at the new commit (away from the
  change) and from two other candidate files of the repository at that commit.

Everything is deterministic: commit order is git's, choices are seeded by the commit sha.
"""

from __future__ import annotations

import random
import re
import subprocess
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.real_history.criteria import (
    Span,
    check_pair,
    classify_path,
    quantity_name,
    question_for,
    value_kind,
)

RESTATEMENTS = 9  # the most r - 1 the runner asks for (r = 10)
CONTEXT = 2  # real lines kept either side of the changed line
DISTRACTOR_LINES = 3
SAME_FILE_DISTRACTORS = 2
OTHER_FILE_DISTRACTORS = 2
MAX_BLOB = 400_000  # bytes: larger files are generated or vendored text
_SEP = "\x00"


class GitError(RuntimeError):
    pass


def git(repo: Path, *args: str, timeout: float = 120.0) -> str:
    try:
        out = subprocess.run(
            ["git", "--git-dir", str(repo), *args],
            capture_output=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.CalledProcessError as exc:
        raise GitError(f"git {' '.join(args[:3])}: {exc.stderr.decode(errors='replace')}") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {' '.join(args[:3])}: timed out") from exc
    return out.stdout.decode("utf-8", errors="replace")


def iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat()


# --- licence ---------------------------------------------------------------------------------


def spdx_of(text: str) -> str:
    """The SPDX id of a licence text, by its distinctive phrases; NOASSERTION if unknown."""
    t = " ".join(text.split()).lower()
    if "apache license" in t and "version 2.0" in t:
        return "Apache-2.0"
    if "permission is hereby granted, free of charge" in t:
        return "MIT"
    if "unlicense" in t or "this is free and unencumbered software" in t:
        return "Unlicense"
    if "permission to use, copy, modify, and/or distribute" in t:
        return "ISC"
    if "redistribution and use in source and binary forms" in t:
        return "BSD-3-Clause" if "neither the name" in t or "the names of" in t else "BSD-2-Clause"
    if "mozilla public license" in t and "2.0" in t:
        return "MPL-2.0"
    return "NOASSERTION"


# LICENSE, LICENSE.md, COPYING, UNLICENSE, and one file per licence: LICENSE-MIT, MIT-LICENSE
_LICENCE_FILE = re.compile(r"^(?:[a-z0-9]+[-_])?(?:un)?(?:licen[cs]e|copying)\b", re.I)


def licence_files(names: Sequence[str]) -> list[str]:
    """The top-level files that hold a repository's licence text."""
    return sorted(n for n in names if _LICENCE_FILE.match(n))


def repo_license(repo: Path, rev: str) -> str:
    found = licence_files(git(repo, "ls-tree", "--name-only", rev).split("\n"))
    ids = []
    for name in found:
        try:
            ids.append(spdx_of(git(repo, "show", f"{rev}:{name}")))
        except GitError:
            continue
    known = [i for i in dict.fromkeys(ids) if i != "NOASSERTION"]
    # Dual-licensed repositories ship one file per licence (ripgrep: LICENSE-MIT, UNLICENSE).
    return " OR ".join(known) if known else "NOASSERTION"


# --- scanning ----------------------------------------------------------------------------------


@dataclass
class Commit:
    sha: str
    parents: list[str]
    time: int
    files: list[tuple[str, str, str]] = field(default_factory=list)  # (added, deleted, path)


def scan_commits(repo: Path, head: str, max_commits: int) -> Iterator[Commit]:
    out = git(
        repo,
        "log",
        "--no-merges",
        "--no-renames",
        f"--max-count={max_commits}",
        "--format=%x00%H %P%x09%at",
        "--numstat",
        head,
        timeout=600,
    )
    for block in out.split(_SEP)[1:]:
        lines = block.strip("\n").split("\n")
        shas, _, ts = lines[0].partition("\t")
        sha, *parents = shas.split()
        commit = Commit(sha, parents, int(ts))
        for line in lines[1:]:
            parts = line.split("\t")
            if len(parts) == 3:
                commit.files.append((parts[0], parts[1], parts[2]))
        yield commit


def single_pair_file(commit: Commit) -> str | None:
    """Rules 1-2 on numstat: the one non-ignored file, changed 1/1, and it is a candidate."""
    counted = [f for f in commit.files if classify_path(f[2]) != "ignored"]
    if len(counted) != 1 or len(commit.parents) != 1:
        return None
    added, deleted, path = counted[0]
    if (added, deleted) != ("1", "1") or classify_path(path) != "candidate":
        return None
    return path


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def line_pair(repo: Path, sha: str, path: str) -> tuple[int, str, int, str] | None:
    """(old line no, old line, new line no, new line) of a one-pair diff, 1-based."""
    diff = git(
        repo, "show", "--format=", "--unified=0", "--no-renames", "--no-color", sha, "--", path
    )
    hunks = [ln for ln in diff.split("\n") if ln.startswith("@@")]
    if len(hunks) != 1 or "Binary files" in diff:
        return None
    m = _HUNK.match(hunks[0])
    if not m:
        return None
    body = diff.split(hunks[0], 1)[1].split("\n")[1:]
    removed = [ln[1:] for ln in body if ln.startswith("-")]
    added = [ln[1:] for ln in body if ln.startswith("+")]
    if len(removed) != 1 or len(added) != 1:
        return None
    return int(m.group(1)), removed[0], int(m.group(3)), added[0]


# --- file versions and windows -----------------------------------------------------------------


class Blobs:
    """``git show rev:path`` as lines, cached per (rev, path); None when absent or too large."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._cache: dict[tuple[str, str], list[str] | None] = {}

    def lines(self, rev: str, path: str) -> list[str] | None:
        key = (rev, path)
        if key not in self._cache:
            try:
                size = int(git(self.repo, "cat-file", "-s", f"{rev}:{path}").strip())
                text = None if size > MAX_BLOB else git(self.repo, "show", f"{rev}:{path}")
            except (GitError, ValueError):
                text = None
            self._cache[key] = text.split("\n") if text is not None else None
            if len(self._cache) > 256:
                self._cache.pop(next(iter(self._cache)))
        return self._cache[key]


def window(lines: Sequence[str], index: int, radius: int = CONTEXT) -> dict[str, Any]:
    """Real lines around ``lines[index]`` (0-based), blank edges trimmed; ``index`` re-based."""
    lo, hi = max(0, index - radius), min(len(lines), index + radius + 1)
    while lo < index and not lines[lo].strip():
        lo += 1
    while hi - 1 > index and not lines[hi - 1].strip():
        hi -= 1
    return {"lines": [ln.rstrip() for ln in lines[lo:hi]], "index": index - lo}


def nearest(lines: Sequence[str], text: str, around: int) -> int | None:
    hits = [i for i, ln in enumerate(lines) if ln == text]
    return min(hits, key=lambda i: abs(i - around)) if hits else None


PLACE_RADIUS = 8  # lines either side compared to place a line that recurs in its file


def placed(lines: Sequence[str], text: str, reference: Sequence[str], at: int) -> int | None:
    """Where ``reference[at]`` (the old line at the change's parent) is in another version of
    the file: among the lines equal to ``text``, the one with the most lines around it the
    same as around ``reference[at]`` (at the same offsets, ``PLACE_RADIUS`` either side), the
    nearest of those. A line that recurs (``"expect_formatting_changes": true,`` in every
    project of black's primer.json, ``@property``) is otherwise another block's; with no
    line around any occurrence the same, only a line the file has once is placed."""
    hits = [i for i, ln in enumerate(lines) if ln == text]
    if len(hits) <= 1:
        return hits[0] if hits else None

    def same_around(i: int) -> int:
        return sum(
            0 <= i + d < len(lines)
            and 0 <= at + d < len(reference)
            and bool(lines[i + d].strip())
            and lines[i + d] == reference[at + d]
            for d in range(-PLACE_RADIUS, PLACE_RADIUS + 1)
            if d
        )

    scores = {i: same_around(i) for i in hits}
    best = max(scores.values())
    if best == 0:
        return None
    return min((i for i in hits if scores[i] == best), key=lambda i: abs(i - at))


def _substantive(block: Sequence[str]) -> bool:
    real = [ln for ln in block if len(ln.strip()) >= 8]
    return len(real) >= 2 and all(len(ln) <= 200 for ln in block)


def distractor_windows(
    lines: Sequence[str], rng: random.Random, count: int, avoid: int | None
) -> list[list[str]]:
    starts = [
        s
        for s in range(0, max(0, len(lines) - DISTRACTOR_LINES))
        if (avoid is None or abs(s - avoid) > DISTRACTOR_LINES + 2 * CONTEXT + 2)
        and _substantive(lines[s : s + DISTRACTOR_LINES])
    ]
    rng.shuffle(starts)
    chosen: list[int] = []
    for s in starts:
        if all(abs(s - c) >= DISTRACTOR_LINES for c in chosen):
            chosen.append(s)
        if len(chosen) == count:
            break
    return [[ln.rstrip() for ln in lines[s : s + DISTRACTOR_LINES]] for s in sorted(chosen)]


# --- one transition ----------------------------------------------------------------------------


@dataclass
class MineStats:
    commits: int = 0
    single_pair: int = 0
    transitions: int = 0
    rejected: Counter[str] = field(default_factory=Counter)


def blame_origin(repo: Path, parent: str, path: str, line_no: int) -> tuple[str, int, int]:
    """(sha, author time, line number there) of the commit that wrote line ``line_no``."""
    out = git(
        repo, "blame", "--porcelain", "-L", f"{line_no},{line_no}", parent, "--", path, timeout=60
    )
    head = out.split("\n", 1)[0].split()
    sha, orig = head[0], int(head[1])
    m = re.search(r"^author-time (\d+)$", out, re.M)
    if not m:
        raise GitError(f"blame of {path}:{line_no} has no author-time")
    return sha, int(m.group(1)), orig


def restatements(
    repo: Path,
    blobs: Blobs,
    *,
    intro: str,
    intro_time: int,
    parent: str,
    path: str,
    old_line: str,
    old_no: int,
    new_time: int,
) -> list[dict[str, Any]]:
    log = git(repo, "log", "--format=%H %at", f"{intro}..{parent}", "--", path).split("\n")
    touched = sorted(
        ((sha, int(ts)) for sha, ts in (ln.split() for ln in log if ln.strip())),
        key=lambda x: x[1],
    )
    touched = [(s, t) for s, t in touched if intro_time < t < new_time]
    if len(touched) > RESTATEMENTS:
        step = len(touched) / RESTATEMENTS
        touched = [touched[int(i * step)] for i in range(RESTATEMENTS)]
    out: list[dict[str, Any]] = []
    parent_lines = blobs.lines(parent, path)
    for sha, ts in touched:
        lines = blobs.lines(sha, path)
        if lines is None:
            continue
        if parent_lines is not None and 0 <= old_no - 1 < len(parent_lines):
            idx = placed(lines, old_line, parent_lines, old_no - 1)
        else:
            idx = nearest(lines, old_line, old_no - 1)
        if idx is None:
            continue
        out.append({"sha": sha, "time": iso(ts), "real": True, **window(lines, idx)})
    filler = window(parent_lines, old_no - 1) if parent_lines else {"lines": [old_line], "index": 0}
    missing = RESTATEMENTS - len(out)
    taken = {r["time"] for r in out}
    for i in range(1, missing + 1):
        ts = intro_time + (new_time - intro_time) * i // (missing + 1)
        if iso(ts) in taken or ts <= intro_time or ts >= new_time:
            continue
        out.append({"sha": parent, "time": iso(ts), "real": False, **filler})
    return sorted(out, key=lambda r: r["time"])


def build_transition(
    repo: Path,
    blobs: Blobs,
    commit: Commit,
    path: str,
    pair: tuple[int, str, int, str],
    span: Span,
    meta: dict[str, str],
) -> dict[str, Any] | str:
    old_no, old_line, new_no, new_line = pair
    parent = commit.parents[0]
    intro, intro_time, intro_no = blame_origin(repo, parent, path, old_no)
    if intro_time >= commit.time:
        return "time_order"
    intro_lines = blobs.lines(intro, path)
    new_lines = blobs.lines(commit.sha, path)
    if intro_lines is None or new_lines is None:
        return "blob_absent"
    idx = intro_no - 1 if 0 <= intro_no - 1 < len(intro_lines) else None
    if idx is None or intro_lines[idx] != old_line:
        idx = nearest(intro_lines, old_line, intro_no - 1)
    if idx is None:
        return "blob_absent"
    rng = random.Random(commit.sha)
    distractors = [
        {"path": path, "lines": w, "same_file": True}
        for w in distractor_windows(new_lines, rng, SAME_FILE_DISTRACTORS, new_no - 1)
    ]
    others = [p for p in candidate_files(repo, commit.sha) if p != path]
    rng.shuffle(others)
    for other in others:
        if len(distractors) >= SAME_FILE_DISTRACTORS + OTHER_FILE_DISTRACTORS:
            break
        lines = blobs.lines(commit.sha, other)
        if lines:
            for w in distractor_windows(lines, rng, 1, None):
                distractors.append({"path": other, "lines": w, "same_file": False})
    name = quantity_name(span.prefix)
    return {
        "id": f"{meta['repo']}@{commit.sha[:10]}",
        "repo": meta["repo"],
        "license": meta["license"],
        "mined_at": meta["head"],
        "sha": commit.sha,
        "parent": parent,
        "path": path,
        "old_line": old_line,
        "new_line": new_line,
        "old_value": span.old_value,
        "new_value": span.new_value,
        "kind": value_kind(span.old_value, span.new_value),
        "name": name,
        "question": question_for(path, new_line, span.new_start, len(span.new_value), name),
        "old_line_no": old_no,
        "new_line_no": new_no,
        "time": iso(commit.time),
        "intro_sha": intro,
        "intro_time": iso(intro_time),
        "old_context": window(intro_lines, idx),
        "new_context": window(new_lines, new_no - 1),
        "restatements": restatements(
            repo,
            blobs,
            intro=intro,
            intro_time=intro_time,
            parent=parent,
            path=path,
            old_line=old_line,
            old_no=old_no,
            new_time=commit.time,
        ),
        "distractors": distractors,
    }


def candidate_files(repo: Path, rev: str) -> list[str]:
    names = git(repo, "ls-tree", "-r", "--name-only", rev).split("\n")
    return sorted(n for n in names if n and classify_path(n) == "candidate")


def repo_name(repo: Path) -> str:
    """``owner/name`` from a fetch mirror path (``.../owner+name/repo``), else the dir name."""
    for part in reversed(repo.resolve().parts):
        if "+" in part:
            return part.replace("+", "/", 1)
    return repo.resolve().name.removesuffix(".git")


def mine_repo(
    repo: Path, *, max_commits: int, progress: bool = True
) -> tuple[list[dict[str, Any]], MineStats, dict[str, str]]:
    from tqdm.auto import tqdm

    head = git(repo, "rev-parse", "HEAD").strip()
    meta = {"repo": repo_name(repo), "head": head, "license": repo_license(repo, head)}
    stats = MineStats()
    blobs = Blobs(repo)
    out: list[dict[str, Any]] = []
    commits = list(scan_commits(repo, head, max_commits))
    stats.commits = len(commits)
    for commit in tqdm(commits, desc=meta["repo"], disable=not progress, leave=False):
        path = single_pair_file(commit)
        if path is None:
            continue
        stats.single_pair += 1
        try:
            pair = line_pair(repo, commit.sha, path)
            if pair is None:
                stats.rejected["no_single_pair"] += 1
                continue
            checked = check_pair(path, pair[1], pair[3])
            if isinstance(checked, str):
                stats.rejected[checked] += 1
                continue
            record = build_transition(repo, blobs, commit, path, pair, checked, meta)
        except GitError:
            stats.rejected["git_error"] += 1
            continue
        if isinstance(record, str):
            stats.rejected[record] += 1
            continue
        stats.transitions += 1
        out.append(record)
    return out, stats, meta


def select(records: Sequence[dict[str, Any]], per_repo: int) -> list[dict[str, Any]]:
    """At most ``per_repo`` transitions per repository, spread over value kinds and quantities.

    Version bumps are most of what the criteria find (manifests and ``__version__`` lines), so
    an unstratified sample would measure little else. Per repository: kinds in a fixed order,
    taken round-robin, newest first within a kind, and a (path, quantity) pair is taken again
    only once every other pair of that kind has had its turn. Deterministic."""
    out: list[dict[str, Any]] = []
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_repo.setdefault(r["repo"], []).append(r)
    for repo in sorted(by_repo):
        queues: dict[str, list[dict[str, Any]]] = {}
        for r in sorted(by_repo[repo], key=lambda r: (r["time"], r["sha"]), reverse=True):
            queues.setdefault(r["kind"], []).append(r)
        seen: dict[str, set[tuple[str, str | None]]] = {k: set() for k in queues}
        taken: list[dict[str, Any]] = []
        while len(taken) < per_repo and any(queues.values()):
            for kind in sorted(queues):
                queue = queues[kind]
                if not queue or len(taken) >= per_repo:
                    continue
                fresh = next((r for r in queue if (r["path"], r["name"]) not in seen[kind]), None)
                if fresh is None:
                    seen[kind].clear()
                    fresh = queue[0]
                queue.remove(fresh)
                seen[kind].add((fresh["path"], fresh["name"]))
                taken.append(fresh)
        out.extend(sorted(taken, key=lambda r: (r["time"], r["sha"])))
    return out


def restate(repo: Path, records: Sequence[dict[str, Any]]) -> int:
    """Re-derive, in place, the restatements of ``records`` mined from ``repo`` (matched by
    name) with the current miner, each pinned by its recorded shas (nothing else changes, so
    a miner fix reaches committed sets without re-selecting them). Returns how many changed."""
    name, blobs, changed = repo_name(repo), Blobs(repo), 0
    for r in records:
        if r["repo"] != name:
            continue
        found = restatements(
            repo,
            blobs,
            intro=r["intro_sha"],
            intro_time=int(datetime.fromisoformat(r["intro_time"]).timestamp()),
            parent=r["parent"],
            path=r["path"],
            old_line=r["old_line"],
            old_no=r["old_line_no"],
            new_time=int(datetime.fromisoformat(r["time"]).timestamp()),
        )
        if found != r["restatements"]:
            r["restatements"] = found
            changed += 1
    return changed
