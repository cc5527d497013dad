"""The README's miss classes (``bench/real_history/misses.py``) on a committed transition."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

from bench.real_history import TRANSITIONS_JSONL
from bench.real_history.misses import CLASSES, alignment_class, classify

WARN = "caddyserver/caddy@2bb2ecc549"  # logger.Error("aborting ...") -> logger.Warn("aborting ...")


def record() -> dict[str, Any]:
    with TRANSITIONS_JSONL.open() as f:
        return next(r for r in map(json.loads, f) if r["id"] == WARN)


def row(stale_in: int, dropped: int, noted: int, ratio: int = 1) -> dict[str, Any]:
    gcmem = {"stale_in_candidates": stale_in, "stale_dropped": dropped}
    gcmem["stale_noted_in_context"] = noted
    return {
        "transition": WARN,
        "ratio": ratio,
        "format": "snippet",
        "conditions": {"gcmem": gcmem},
    }


def test_an_edited_line_without_context_and_a_rewritten_one() -> None:
    rec = record()
    assert alignment_class(rec) == CLASSES[1]
    rewritten = copy.deepcopy(rec)
    line = '\t\treturn fmt.Errorf("stream: %w", err)'
    rewritten["new_line"] = line
    rewritten["new_context"]["lines"][rewritten["new_context"]["index"]] = line
    assert alignment_class(rewritten) == CLASSES[2]


def test_rows_are_counted_at_r1_by_what_the_chain_did() -> None:
    rows = [row(0, 0, 0), row(1, 1, 0), row(2, 1, 1), row(1, 0, 0), row(3, 0, 0, ratio=3)]
    counts = classify(rows, [record()])
    assert counts == {CLASSES[4]: 1, CLASSES[0]: 1, CLASSES[3]: 1, CLASSES[1]: 1}


def test_results_of_a_set_mined_apart_need_its_transitions(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from bench.real_history.__main__ import INSTANCES, app

    stray = row(1, 0, 0)
    stray["transition"] = "someone/elsewhere@0000000000"
    with gzip.open(tmp_path / INSTANCES, "wt") as f:
        f.write(json.dumps(stray) + "\n")
    result = CliRunner().invoke(app, ["misses", "--from", str(tmp_path)])
    assert result.exit_code != 0
    assert "--transitions" in result.output


def test_an_excised_line_is_noted_though_its_marker_names_a_longer_value() -> None:
    from datetime import UTC, datetime

    from bench.real_history.run import noted_stale
    from bench.sweep.metrics import InstanceLabels
    from gcmem.models import Chunk, RetrievalResult, ScoredChunk, StaleSentence, Turn

    text = "test.yaml:\n  - '3.1'\n  - jruby\n  - jruby-head-nightly"
    when = datetime(2024, 6, 5, tzinfo=UTC)
    chunk = Chunk.from_turn(Turn(id="old", namespace="ns", text=text, ts=when), 0, text)
    excised = StaleSentence(
        index=2, text="- jruby", key="k", value="- jruby", current_value="- jruby-head", since=when
    )
    kept = ScoredChunk(chunk=chunk, score=1.0, sources=("mtm",), stale_sentences=[excised])
    result = RetrievalResult(query="q", namespace="ns", k=1, as_of=when, kept=[kept], candidates=1)
    labels = InstanceLabels(
        answer="jruby-head",
        stale=frozenset({"jruby"}),
        role={chunk.id: "old"},
        state={chunk.id: "jruby"},
        current=frozenset(),
        totals={"old": 1},
        evolving=True,
    )
    # the reader gets "[superseded on 2024-06-05; current value: - jruby-head]", which holds
    # "- jruby" as text, and the chunk's longer line "- jruby-head-nightly" does too: the old
    # line is excised all the same
    assert "- jruby" in kept.visible_text
    assert noted_stale(labels, result, "- jruby") == {chunk.id}


def test_a_still_true_chunk_kept_with_a_line_excised_is_counted() -> None:
    from datetime import UTC, datetime

    from bench.real_history.run import result_metrics
    from bench.sweep.metrics import InstanceLabels
    from gcmem.models import Chunk, RetrievalResult, ScoredChunk, StaleSentence, Turn

    when = datetime(2024, 6, 5, tzinfo=UTC)

    def scored(turn: str, text: str, excised: bool) -> ScoredChunk:
        chunk = Chunk.from_turn(Turn(id=turn, namespace="ns", text=text, ts=when), 0, text)
        note = StaleSentence(
            index=1, text=text.splitlines()[1], key="k", value="14", current_value="1", since=when
        )
        return ScoredChunk(chunk=chunk, score=1.0, stale_sentences=[note] if excised else [])

    kept = [
        scored("d1", ".rubocop_todo.yml:\n# Offense count: 14\nStyle/Next:", excised=True),
        scored("d2", ".rubocop_todo.yml:\n# Offense count: 3\nStyle/If:", excised=False),
        scored("new", "lib/a.rb:\nVERSION = '2'", excised=False),
    ]
    result = RetrievalResult(query="q", namespace="ns", k=3, as_of=when, kept=kept, candidates=3)
    role = {kept[0].id: "distractor", kept[1].id: "distractor", kept[2].id: "new"}
    labels = InstanceLabels(
        answer="2",
        stale=frozenset({"1"}),
        role=role,
        state={kept[2].id: "2"},
        current=frozenset({kept[2].id}),
        totals={"new": 1},
        evolving=True,
    )
    m = result_metrics(labels, result, [k.id for k in kept])
    assert (m["still_true_dropped"], m["still_true_excised"]) == (0, 1)
