"""The checks every helper-written instance set passed (``python -m bench.heldout.validate``).

Each writer of ``dev2``, ``dev3``, ``dev5``, ``dev6``, ``devconv`` and ``test2``-``test5`` ran a
copy of these checks in its own folder (the brief in ``data/<split>/BRIEF.md`` names it), with
the family counts and turn range of its brief: a ``profile`` here. ``tests/test_heldout_data.py``
runs them over the committed files, so a set edited by hand later fails loudly.

    python -m bench.heldout.validate --profile written /work/dev5   # changes.jsonl + static.jsonl
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import typer

__all__ = ["PROFILES", "Profile", "check"]


@dataclass(frozen=True)
class Profile:
    """What a brief asked for: instances per family in each file, turns per instance."""

    changes: Mapping[str, int]
    static: Mapping[str, int]
    turns: tuple[int, int] = (4, 9)


_STATIC_TRAPS = [
    "parallel_keys",
    "elaborations",
    "compatible_opposites",
    "multi_valued",
    "same_topic_unrelated",
    "static_restated",
]
PROFILES = {
    # dev2, dev5, dev57, dev59, dev63, dev65, dev73, dev77, dev81, dev83, dev87, dev89, dev92,
    # dev93, dev96, dev97, dev100, dev101, dev104, dev105, dev107, dev110, dev111,
    # dev114, dev115, dev118, dev121, dev122, dev125, dev126, dev127, dev128, dev131,
    # test2-test5: the changes and static families of the no-harm brief
    "written": Profile(
        changes=dict.fromkeys(
            ["keyed_prose", "keyed_restated", "code_config", "paragraph_revision", "behavioural"],
            16,
        ),
        static=dict.fromkeys([*_STATIC_TRAPS, "long_paragraphs"], 12),
    ),
    # dev3, dev6: static traps only
    "traps": Profile(changes={}, static=dict.fromkeys(_STATIC_TRAPS, 20)),
    # dev14: long encyclopedic paragraphs about parallel entities, and their revisions
    "paragraphs": Profile(
        changes={"paragraph_revision": 20}, static={"long_paragraphs": 30}, turns=(4, 8)
    ),
    # dev15, test9: one sentence or line restated with its value changed, and the traps of
    # that alignment (a parallel subject, a negation or modal, a multi-valued attribute)
    "frames": Profile(
        changes={"frame_prose": 24, "frame_lines": 16, "frame_restated": 16},
        static={"frame_parallel": 16, "frame_negation_modality": 12, "frame_multi_valued": 12},
        turns=(4, 8),
    ),
    # dev19: the multi-valued and parallel traps of the frames brief, more of them
    "members": Profile(
        changes={}, static={"frame_multi_valued": 32, "frame_parallel": 16}, turns=(4, 8)
    ),
    # dev20: the frames brief weighted to free prose and to multi-valued traps
    "prose": Profile(
        changes={"frame_prose": 40, "frame_restated": 12},
        static={"frame_parallel": 12, "frame_multi_valued": 20},
        turns=(4, 8),
    ),
    # dev21: the frames brief weighted to restated sentences, with hedged and negated traps
    "restated": Profile(
        changes={"frame_restated": 40, "frame_prose": 16},
        static={"frame_parallel": 12, "frame_negation_modality": 12},
        turns=(4, 8),
    ),
    # dev37: people's habits that change, and the traps of a habit rule (another habit of the
    # same person changing, the same habit of another person, habits added, exceptions)
    "habits": Profile(
        changes={"behavioural": 40},
        static=dict.fromkeys(
            ["parallel_keys", "elaborations", "compatible_opposites", "multi_valued"], 20
        ),
    ),
    # dev38: facts about people (where they live and work, who they report to, when things
    # happen) restated before they change, and still-true facts around them
    # dev52: people, pets and things named by their relation to the speaker and by name, in
    # either way at either time ("my sister Ana" ... "Ana"), changed and kept
    "named": Profile(
        changes={"keyed_prose": 30, "behavioural": 10},
        static={"parallel_keys": 16, "elaborations": 12, "same_topic_unrelated": 12},
        turns=(4, 8),
    ),
    "people": Profile(
        changes={"keyed_restated": 30},
        static=dict.fromkeys(
            ["elaborations", "same_topic_unrelated", "parallel_keys", "static_restated"], 15
        ),
    ),
    # dev39: how- and what-questions about people's ways and facts, changed and restated, and
    # still-true statements that share the question's words
    "ways": Profile(
        changes={"keyed_restated": 20, "behavioural": 20},
        static=dict.fromkeys(["elaborations", "same_topic_unrelated", "compatible_opposites"], 20),
    ),
    # dev40: values restated in passing before an announced change that does not repeat the
    # old value, and parallel subjects whose own value changes or recurs beside the asked one
    "passing": Profile(
        changes={"keyed_restated": 30},
        static=dict.fromkeys(["parallel_keys", "same_topic_unrelated", "multi_valued"], 20),
    ),
    # dev41, dev51, dev54, dev55, dev58, dev60, dev62, dev64, dev66, dev67, dev69, dev71, dev74,
    # dev75, dev78, dev79, dev82, dev84, dev85, dev86, dev88, dev90, dev94, dev98, dev102,
    # dev106, dev108, dev112, dev116, dev119, dev123, dev129:
    # more multi-valued traps of the frames brief (values that accumulate, said in the same
    # sentence or line shape), with parallel and hedged ones
    "accumulating": Profile(
        changes={},
        static={"frame_multi_valued": 40, "frame_parallel": 10, "frame_negation_modality": 10},
        turns=(4, 8),
    ),
    # dev42: still-true facts a later turn seems to contradict (another value mentioned, not
    # adopted) and values that accumulate in the words of a single-valued statement
    "mentioned": Profile(
        changes={},
        static={"mentioned_alternative": 36, "multi_valued": 24},
        turns=(4, 8),
    ),
    # dev43: still-true code and config: parallel owners of one key, more of a file, another
    # key of the file changed, list values that grow
    "codetraps": Profile(
        changes={},
        static={
            "parallel_keys": 20,
            "elaborations": 10,
            "same_topic_unrelated": 15,
            "multi_valued": 15,
        },
        turns=(4, 8),
    ),
    # dev44: still-true facts beside announcements of change (another attribute, another
    # subject, an exception, more detail), in people's and teams' prose
    "announcing": Profile(
        changes={},
        static={
            "same_topic_unrelated": 20,
            "parallel_keys": 15,
            "compatible_opposites": 15,
            "elaborations": 10,
        },
        turns=(4, 8),
    ),
    # dev45: still-true habits beside other habits and exceptions, and long paragraphs that
    # are revised or elaborated elsewhere than the asked sentence
    "habitsparas": Profile(
        changes={},
        static={"compatible_opposites": 20, "elaborations": 20, "same_topic_unrelated": 20},
        turns=(4, 8),
    ),
    # dev46: more still-true code and config (a second draw of dev43's families, other shapes)
    "codetraps2": Profile(
        changes={},
        static={"parallel_keys": 30, "same_topic_unrelated": 15, "multi_valued": 15},
        turns=(4, 8),
    ),
    # dev47: code and config values that change, in the shapes engineers paste, with parallel
    # owners beside them
    "codechanges": Profile(
        changes={"code_config": 40},
        static={"parallel_keys": 20},
        turns=(4, 9),
    ),
    # dev48: code and config changes in other shapes (plans, --set flags, migrations, chat
    # notes), a re-pasted file whose other lines changed, and parallel owners
    "codechanges2": Profile(
        changes={"code_config": 40},
        static={"parallel_keys": 15, "same_topic_unrelated": 15},
        turns=(4, 9),
    ),
    # dev49: old values taken for granted in passing before an announced change (possessives,
    # names opening a line, identifiers in tickets and commands) with still-true turns naming
    # the old value for another reason; paragraphs revised in one value whose kind the question
    # does not name; re-posted paragraphs whose unasked values changed
    "oldvalues": Profile(
        changes={"keyed_restated": 30, "paragraph_revision": 10},
        static={"same_topic_unrelated": 20},
        turns=(4, 9),
    ),
    # dev50, dev56, dev61, dev68, dev70, dev72, dev76, dev80, dev91, dev95, dev99, dev103,
    # dev109, dev113, dev117, dev120, dev124, dev130:
    # still-true facts that accumulate, long paragraphs elaborated or re-posted, and compatible
    # opposites, in agents' and people's words
    "traps3": Profile(
        changes={},
        static={"multi_valued": 20, "long_paragraphs": 20, "compatible_opposites": 20},
        turns=(4, 9),
    ),
    # devconv: two-person chat transcripts
    "chats": Profile(changes={}, static={"conversation": 24}, turns=(24, 40)),
}
KEYS = {
    *("id", "family", "turns", "query", "current_turns", "stale_turns", "still_true_turns"),
    *("current_value", "stale_values"),
}
_TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def _when(ts: str) -> datetime:
    return datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ")


def _words(text: str) -> int:
    return len(text.split())


def check(files: Mapping[str, Path], profile: Profile) -> tuple[list[str], Counter[str]]:
    """Errors and per-family counts of ``files`` ({"changes": path, "static": path}, either
    may be absent when the profile has no families for it)."""
    errs: list[str] = []
    counts: Counter[str] = Counter()
    ids: set[str] = set()
    texts: Counter[str] = Counter()
    for kind, fams in (("changes", profile.changes), ("static", profile.static)):
        if not fams:
            continue
        for ln, line in enumerate(files[kind].read_text(encoding="utf-8").splitlines(), 1):
            r = json.loads(line)
            i = r.get("id", f"{kind}:{ln}")
            errs.extend(f"{i}: {m}" for m in _instance(r, kind, fams, profile, texts))
            if i in ids:
                errs.append(f"{i}: duplicate id")
            ids.add(i)
            counts[r.get("family", "")] += 1
    errs.extend(f"duplicate turn text used {n}x: {t[:60]!r}" for t, n in texts.items() if n > 1)
    for fam, want in {**profile.changes, **profile.static}.items():
        if counts[fam] != want:
            errs.append(f"{fam}: {counts[fam]} instances, the brief asked for {want}")
    return errs, counts


def _instance(
    r: dict, kind: str, fams: Mapping[str, int], profile: Profile, texts: Counter[str]
) -> list[str]:
    out: list[str] = []
    if set(r) != KEYS:
        return [f"keys {set(r) ^ KEYS}"]
    fam, i, turns = r["family"], r["id"], r["turns"]
    if fam not in fams:
        out.append(f"family {fam} not allowed in {kind}")
    if not re.fullmatch(re.escape(fam) + r"-\d{3}", i):
        out.append("bad id format")
    lo, hi = profile.turns
    if not lo <= len(turns) <= hi:
        out.append(f"{len(turns)} turns")
    tids = [t["id"] for t in turns]
    if tids != [f"t{k}" for k in range(1, len(turns) + 1)]:
        out.append(f"turn ids {tids}")
    prev: datetime | None = None
    for t in turns:
        if set(t) != {"id", "ts", "text"}:
            out.append("turn keys")
        if not _TS.match(t["ts"]):
            out.append(f"bad ts {t['ts']}")
            continue
        d = _when(t["ts"])
        if prev and d <= prev:
            out.append(f"ts not increasing at {t['id']}")
        prev = d
        if not t["text"].strip():
            out.append("empty text")
        texts[t["text"]] += 1
    if prev is not None and (prev - _when(turns[0]["ts"])).days < 14:
        out.append("time span under 14 days")
    labels = r["current_turns"] + r["stale_turns"] + r["still_true_turns"]
    if sorted(labels) != sorted(tids) or len(labels) != len(set(labels)):
        out.append("labels do not cover turns exactly once")
    if not r["current_turns"]:
        out.append("no current turns")
    if not isinstance(r["query"], str) or not r["query"].strip():
        out.append("empty query")
    by_id = {t["id"]: t["text"].lower() for t in turns}
    cv = r["current_value"].lower()
    if not cv.strip():
        out.append("empty current_value")
    out.extend(f"current_value not in {c}" for c in r["current_turns"] if cv not in by_id[c])
    if kind == "static":
        if r["stale_turns"] or r["stale_values"]:
            out.append("static instance has stale data")
    else:
        out.extend(_stale(r, by_id, cv, tids))
    out.extend(_family(r, fam, by_id))
    return out


def _stale(r: dict, by_id: Mapping[str, str], cv: str, tids: list[str]) -> list[str]:
    out: list[str] = []
    if not r["stale_turns"] or not r["stale_values"]:
        return ["change instance lacks stale data"]
    for sv in r["stale_values"]:
        s = sv.lower()
        if not s.strip():
            out.append("empty stale value")
        if not any(s in by_id[x] for x in r["stale_turns"]):
            out.append(f"stale value {sv!r} not in any stale turn")
        out.extend(
            f"stale value {sv!r} appears in current turn {c}"
            for c in r["current_turns"]
            if s in by_id[c]
        )
        if s in cv or cv in s:
            out.append(f"stale value {sv!r} overlaps current value")
    for x in r["stale_turns"]:
        if not any(s.lower() in by_id[x] for s in r["stale_values"]):
            out.append(f"stale turn {x} contains no stale value")
    last_current = max(tids.index(c) for c in r["current_turns"])
    out.extend(
        f"stale turn {x} after last current turn"
        for x in r["stale_turns"]
        if tids.index(x) > last_current
    )
    return out


def _family(r: dict, fam: str, by_id: Mapping[str, str]) -> list[str]:
    out: list[str] = []
    if fam in ("keyed_restated", "frame_restated") and not 2 <= len(r["stale_turns"]) <= 4:
        out.append(f"{fam} needs 2-4 stale turns, has {len(r['stale_turns'])}")
    if fam == "paragraph_revision":
        for x in r["stale_turns"] + r["current_turns"]:
            if not 40 <= _words(by_id[x]) <= 90:
                out.append(f"paragraph {x} has {_words(by_id[x])} words")
    if fam == "long_paragraphs":
        sizes = {tid: _words(text) for tid, text in by_id.items()}
        if sum(50 <= n <= 90 for n in sizes.values()) < 2:
            out.append("fewer than 2 paragraphs of 50-90 words")
        out.extend(f"{tid} exceeds 90 words" for tid, n in sizes.items() if n > 90)
        out.extend(
            f"current paragraph {c} has {sizes[c]} words"
            for c in r["current_turns"]
            if not 50 <= sizes[c] <= 90
        )
    if fam == "static_restated" and len(by_id) < 3:
        out.append("too few turns")
    return out


def main(
    folder: Path = typer.Argument(..., help="A writer's folder: changes.jsonl, static.jsonl."),
    profile: str = typer.Option("written", help=f"One of {', '.join(PROFILES)}."),
) -> None:
    """Check a helper-written set as its brief asked; exit 1 on any error."""
    errs, counts = check(
        {"changes": folder / "changes.jsonl", "static": folder / "static.jsonl"},
        PROFILES[profile],
    )
    for fam, n in sorted(counts.items()):
        typer.echo(f"{fam:22s} {n:3d}")
    if errs:
        typer.echo(f"{len(errs)} ERRORS\n" + "\n".join(errs))
        raise typer.Exit(1)
    typer.echo("ALL CHECKS PASSED")


if __name__ == "__main__":
    typer.run(main)
