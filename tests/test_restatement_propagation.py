"""A decision about a line reaches the older identical statements of it (backward along
restatements); what stays of an edited line is measured by character; the lines around a
replaced line may say something together. Real Redis ledger; the hashing embedder stands in for
MiniLM, as in the other alignment tests."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from gcmem.facts.align import Unit, align_units, units_of
from gcmem.memory import Memory
from gcmem.models import Turn
from gcmem.settings import Settings
from tests.alignment_support import alignment_memory, outcome, stale_lines
from tests.doubles import HashingEmbedder

T0 = datetime(2025, 6, 2, 9, 0, tzinfo=UTC)
NS = "restated"
PATH = "srv/proxy.go"
LINE = '        logger.Error("aborting with incomplete response", zap.Error(err))'
WARN = LINE.replace("logger.Error", "logger.Warn")
# The introducing version: its window's other lines changed before the value did.
INTRO = [
    "        // the standard proxy panics at this point, but we log",
    "        // the error and abort the stream here",
    LINE,
    "        return nil",
    "    }",
]
# A later version of the same file, the old value still there, the window rewritten around it.
LATER = [
    "        // the standard proxy to propagate the stream error.",
    "        // see the tracking issue for the details",
    LINE,
    "        // no extra logging from the standard library",
    "        panic(http.ErrAbortHandler)",
]
NEW = [*LATER[:2], WARN, *LATER[3:]]


def excerpt(lines: list[str], path: str = PATH) -> str:
    return f"{path}:\n" + "\n".join(lines)


def turn(turn_id: str, lines: list[str], days: int, path: str = PATH) -> Turn:
    return Turn(id=turn_id, namespace=NS, text=excerpt(lines, path), ts=T0 + timedelta(days=days))


@pytest.fixture
def memory(redis_settings: Settings, hashing_embedder: HashingEmbedder) -> Iterator[Memory]:
    with alignment_memory(redis_settings, hashing_embedder) as m:
        yield m


def test_the_introducing_excerpt_does_not_align_with_the_new_one_by_itself() -> None:
    # the premise: no identical line around the changed one, so only the restatement aligns
    assert align_units(units_of(excerpt(INTRO)), units_of(excerpt(NEW))).frames == []
    assert len(align_units(units_of(excerpt(LATER)), units_of(excerpt(NEW))).frames) == 1


@pytest.mark.parametrize("one_batch", [True, False])
def test_a_superseded_restatement_supersedes_the_older_identical_line(
    memory: Memory, one_batch: bool
) -> None:
    turns = [turn("intro", INTRO, 0), turn("later", LATER, 30), turn("new", NEW, 60)]
    if one_batch:
        memory.ingest(turns)
    else:
        for t in turns:
            memory.ingest([t])
    result = memory.retrieve("aborting with incomplete response", namespace=NS, k=10)
    assert outcome(result) == {"intro": "kept", "later": "dropped", "new": "kept"}
    # the intro's other lines are still true and restated nowhere: kept, its old line noted
    [note] = next(c for c in result.kept if c.chunk.turn_id == "intro").stale_sentences
    assert note.text == LINE.strip()
    assert note.current_value == WARN.strip()


def test_the_walk_follows_a_chain_of_restatements_through_the_stored_maps(
    redis_settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    # one neighbour per chunk: the new excerpt is aligned with the later one only; the intro
    # is reached through "again" (which restates it) from the stored unit maps
    again = [LATER[0], *INTRO[1:]]
    with alignment_memory(redis_settings, hashing_embedder, supersession_align_neighbours=1) as m:
        for t in [turn("intro", INTRO, 0), turn("again", again, 10), turn("later", LATER, 30)]:
            m.ingest([t])
        m.ingest([turn("new", NEW, 60)])
        result = m.retrieve("aborting with incomplete response", namespace=NS, k=10)
    assert outcome(result) == {"intro": "kept", "again": "kept", "later": "dropped", "new": "kept"}
    notes = stale_lines(result)
    assert notes["intro"] == [LINE.strip()] and notes["again"] == [LINE.strip()]


def test_near_misses_of_the_old_line_are_still_true(memory: Memory) -> None:
    # the same line in another file, and the same place with the line's case changed: neither
    # is the statement the restatement made, so nothing reaches them
    lower = [*INTRO[:2], LINE.replace("logger.Error", "logger.error"), *INTRO[3:]]
    memory.ingest(
        [
            turn("elsewhere", INTRO, 0, path="srv/other.go"),
            turn("lower", lower, 1),
            turn("later", LATER, 30),
            turn("new", NEW, 60),
        ]
    )
    result = memory.retrieve("aborting with incomplete response", namespace=NS, k=10)
    assert outcome(result) == {
        "elsewhere": "kept",
        "lower": "kept",
        "later": "dropped",
        "new": "kept",
    }
    notes = stale_lines(result)
    assert notes["elsewhere"] == [] and notes["lower"] == []


def test_a_newer_identical_line_is_not_reached_backward(memory: Memory) -> None:
    # the walk goes to older chunks only: a chunk after the change that states the old line
    # again (a revert) is its own statement, decided by its own alignments
    revert = [*INTRO[:2], LINE, "        return err", "    }"]
    memory.ingest([turn("later", LATER, 30), turn("new", NEW, 60), turn("revert", revert, 90)])
    result = memory.retrieve("aborting with incomplete response", namespace=NS, k=10)
    assert outcome(result)["revert"] == "kept"
    assert stale_lines(result)["revert"] == []


# --- what stays of an edited line, by character ----------------------------------------------


def lines_of(path: str, lines: list[str]) -> list[Unit]:
    return units_of(excerpt(lines, path))


def replaced(old: list[Unit], new: list[Unit]) -> list[tuple[str, str]]:
    return [(old[f.old_unit].text, new[f.new_unit].text) for f in align_units(old, new).frames]


def test_a_token_changed_in_part_keeps_the_rest_of_its_characters() -> None:
    # the URL is one token: what stays of the line, by token, is "}) ( ) ;"; by character it
    # is "})('https://" and "/data/sponsors.md');"
    head = ["    await fs.writeFile('./temp/sponsors.md', newContent);", "  }"]
    old = lines_of(
        "bin/sponsors.js", [*head, "})('https://old-host.netlify.app/data/sponsors.md');"]
    )
    new = lines_of("bin/sponsors.js", [*head, "})('https://axios-http.com/data/sponsors.md');"])
    assert len(replaced(old, new)) == 1
    # a repository URL in a YAML list item, between identical lines
    around = (
        ["      - id: pyupgrade", '        args: ["--py37-plus"]'],
        ["    rev: v3.9.0", "    hooks:"],
    )
    repo = "  - repo: https://github.com/asottile/reorder_python_imports"
    old = lines_of(".pre-commit-config.yaml", [*around[0], repo, *around[1]])
    new = lines_of(".pre-commit-config.yaml", [*around[0], repo.replace("_", "-"), *around[1]])
    assert replaced(old, new) == [(repo.strip(), repo.replace("_", "-").strip())]


def test_little_kept_by_character_is_still_too_little() -> None:
    # a short host and path, and a list element: fewer than eight letters or digits stay
    head = ["  }", "  run();", "  stop();"]
    old = lines_of("bin/x.js", [*head, "})('https://a.example/x');"])
    new = lines_of("bin/x.js", [*head, "})('https://b.example/y');"])
    assert replaced(old, new) == []
    # at the excerpts' edge, two statements before it: only an edited line would do
    files = ['    "docs/",', '    "tests/",']
    old = lines_of("pyproject.toml", [*files, '    "CHANGES.rst",'])
    new = lines_of("pyproject.toml", [*files, '    "CHANGES.md",'])
    assert replaced(old, new) == []
    # enough kept by character, but one identical line either side: twin places of one file
    twin = ["    with map_exceptions():", "        resp = self._pool.request_sync(", "      x=1,"]
    twin_new = [twin[0], "        resp = self._pool.request_async(", twin[2]]
    assert replaced(lines_of("t.py", twin), lines_of("t.py", twin_new)) == []


# --- identical lines around a replaced line that say something together ----------------------

FILES = ['    "docs/",', '    "tests/",'], ['    "uv.lock"', "]"]
CRON = ["on:", "  schedule:"], ["", "jobs:"]


def around(path: str, sides: tuple[list[str], list[str]], line: str) -> list[Unit]:
    return lines_of(path, [*sides[0], line, *sides[1]])


def test_lines_that_say_something_together_fix_the_place() -> None:
    # no line of the context is an anchor (two words, eight letters or digits), but four
    # identical lines, two on each side, hold "docs tests uv.lock" / "on schedule jobs"
    old = around("pyproject.toml", FILES, '    "CHANGES.rst",')
    new = around("pyproject.toml", FILES, '    "CHANGES.md",')
    assert replaced(old, new) == [('"CHANGES.rst",', '"CHANGES.md",')]
    old = around(".github/workflows/lock.yml", CRON, "    - cron: '0/15 * * * *'")
    new = around(".github/workflows/lock.yml", CRON, "    - cron: '0 0 * * *'")
    assert replaced(old, new) == [("- cron: '0/15 * * * *'", "- cron: '0 0 * * *'")]


def test_context_that_says_nothing_together_fixes_no_place() -> None:
    # closers only; one word repeated ("end" counts once); three lines; three and one
    closers = ["  }", "}"], ["}", ")"]
    assert replaced(around("a.js", closers, "  x()"), around("a.js", closers, "  y()")) == []
    ends = ["  end", "end"], ["end", "end"]
    assert replaced(around("a.rb", ends, "  foo"), around("a.rb", ends, "  bar")) == []
    three = FILES[0], FILES[1][:1]
    old = around("pyproject.toml", three, '    "CHANGES.rst",')
    assert replaced(old, around("pyproject.toml", three, '    "CHANGES.md",')) == []
    lopsided = ['    "src/",', *FILES[0]], FILES[1][:1]
    old = around("pyproject.toml", lopsided, '    "CHANGES.rst",')
    assert replaced(old, around("pyproject.toml", lopsided, '    "CHANGES.md",')) == []


def test_a_list_element_between_closers_is_still_true(memory: Memory) -> None:
    # end to end: an older excerpt with a different element between closers only is not the
    # same place as the newer one, and stays; the same place with words around is replaced
    closers = ["    }", "  ]"], ["  ]", "}"]
    memory.ingest(
        [
            turn("closers", [*closers[0], '    "tox.ini",', *closers[1]], 0, path="pkg.json"),
            turn("files", [*FILES[0], '    "CHANGES.rst",', *FILES[1]], 1, path="pkg.json"),
            turn("closers-new", [*closers[0], '    "uv.lock",', *closers[1]], 30, path="pkg.json"),
            turn("files-new", [*FILES[0], '    "CHANGES.md",', *FILES[1]], 31, path="pkg.json"),
        ]
    )
    result = memory.retrieve("CHANGES tox.ini", namespace=NS, k=10)
    assert outcome(result) == {
        "closers": "kept",
        "files": "dropped",
        "closers-new": "kept",
        "files-new": "kept",
    }
    assert stale_lines(result)["closers"] == []


# --- forward: a restatement in other framing words, said before the change ----------------

PLOT = "the allotment plot we rent is number 17, right by the water trough."


def say(turn_id: str, text: str, days: int) -> Turn:
    return Turn(id=turn_id, namespace=NS, text=text, ts=T0 + timedelta(days=days))


@pytest.mark.parametrize("one_batch", [True, False])
def test_a_restatement_with_a_lead_in_is_superseded_with_the_statement_it_restates(
    memory: Memory, one_batch: bool
) -> None:
    # the later restatement conditions only the telling ("if you're ..."): it does not align
    # with the change itself (two lead-ins), but it says the value its older statement says
    turns = [
        say("first", "The " + PLOT, 0),
        say("again", "If you're dropping off compost, " + PLOT, 10),
        say("change", "We swapped plots, so " + PLOT.replace("17", "23"), 30),
        say("other", "The allotment committee meets on the first Sunday of the month.", 31),
    ]
    if one_batch:
        memory.ingest(turns)
    else:
        for t in turns:
            memory.ingest([t])
    result = memory.retrieve("Which allotment plot do we rent?", namespace=NS, k=10)
    assert outcome(result) == {
        "first": "dropped",
        "again": "dropped",
        "change": "kept",
        "other": "kept",
    }


def test_a_scoped_or_hedged_restatement_is_not_the_statement_said_again(memory: Memory) -> None:
    memory.ingest(
        [
            say("first", "The " + PLOT, 0),
            say("scoped", "In the summer, " + PLOT, 10),
            say("hedged", "Maybe " + PLOT, 11),
            say("change", "We swapped plots, so " + PLOT.replace("17", "23"), 30),
        ]
    )
    result = memory.retrieve("Which allotment plot do we rent?", namespace=NS, k=10)
    assert outcome(result) == {
        "first": "dropped",
        "scoped": "kept",
        "hedged": "kept",
        "change": "kept",
    }
