"""A newer config line that names a key with less of its block context states the older,
scoped key when exactly one such key is among its neighbours; two candidate scopes are
parallel keys. Real Redis ledger (and the embedded one); the hashing embedder stands in for
MiniLM, as in the other alignment tests."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from gcmem.memory import Memory
from gcmem.models import Turn
from gcmem.settings import Settings
from tests.alignment_support import alignment_memory, outcome, stale_lines
from tests.doubles import HashingEmbedder

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
NS = "scoped"

PGBOUNCER = "[pgbouncer]\nlisten_port = 6432\npool_mode = transaction\nmax_client_conn = 300"


def turn(turn_id: str, text: str, days: int) -> Turn:
    return Turn(id=turn_id, namespace=NS, text=text, ts=T0 + timedelta(days=days))


@pytest.fixture
def memory(redis_settings: Settings, hashing_embedder: HashingEmbedder) -> Iterator[Memory]:
    with alignment_memory(redis_settings, hashing_embedder) as m:
        yield m


@pytest.mark.parametrize(
    "newer",
    [
        "Ops changed pgbouncer.ini on all nodes:\nmax_client_conn = 800\nEverything else stays.",
        "Raised it on all pgbouncer nodes, so now max_client_conn = 800.",
    ],
)
def test_an_unscoped_line_or_token_supersedes_the_one_scoped_key(
    memory: Memory, newer: str
) -> None:
    memory.ingest([turn("old", PGBOUNCER, 0), turn("new", newer, 20)])
    result = memory.retrieve("pgbouncer max_client_conn", namespace=NS, k=10)
    # the old section's other lines still hold: it stays, its changed line noted
    assert outcome(result) == {"old": "kept", "new": "kept"}
    assert stale_lines(result)["old"] == ["max_client_conn = 300"]


def test_a_suffix_of_the_context_names_the_same_key(memory: Memory) -> None:
    old = 'auth.toml:\n[jwt]\nexpiry = "1h"'
    new = 'Security review asked for shorter tokens:\n[jwt]\nexpiry = "15m"'
    memory.ingest([turn("old", old, 0), turn("new", new, 5)])
    result = memory.retrieve("jwt expiry", namespace=NS, k=10)
    assert outcome(result) == {"old": "dropped", "new": "kept"}


def test_two_scoped_keys_of_that_name_are_parallel_keys(memory: Memory) -> None:
    compose = (
        "docker-compose.yml\nservices:\n  web:\n    environment:\n      - LOG_LEVEL=debug\n"
        "  worker:\n    environment:\n      - LOG_LEVEL=info"
    )
    memory.ingest([turn("old", compose, 0), turn("new", "We set LOG_LEVEL=warn today.", 5)])
    result = memory.retrieve("LOG_LEVEL", namespace=NS, k=10)
    assert outcome(result) == {"old": "kept", "new": "kept"}
    assert stale_lines(result)["old"] == []


def test_separate_parallel_sections_are_not_merged(memory: Memory) -> None:
    staging = "[staging]\nport = 5433"
    production = "[production]\nport = 5432"
    memory.ingest(
        [
            turn("staging", staging, 0),
            turn("production", production, 1),
            turn("new", "port = 6000", 9),
        ]
    )
    result = memory.retrieve("port", namespace=NS, k=10)
    assert set(outcome(result).values()) == {"kept"}
    assert all(lines == [] for lines in stale_lines(result).values())


def test_a_prose_statement_never_takes_a_scoped_key(memory: Memory) -> None:
    # a sentence with the key as its subject states the unscoped key only: no line, no token
    assert_no_stale_line(
        memory,
        PGBOUNCER,
        "Our max_client_conn is 800 now, see the runbook.",
        "pgbouncer max_client_conn",
    )


def assert_no_stale_line(memory: Memory, old: str, new: str, query: str) -> None:
    memory.ingest([turn("old", old, 0), turn("new", new, 9)])
    result = memory.retrieve(query, namespace=NS, k=10)
    assert stale_lines(result)["old"] == []


def test_a_sentence_naming_another_section_is_another_key(memory: Memory) -> None:
    editorconfig = "root = true\n\n[*.py]\nindent_style = space\nindent_size = 2"
    memory.ingest(
        [
            turn("old", editorconfig, 0),
            turn("makefile", "[Makefile] uses indent_style = tab", 5),
            turn(
                "new",
                "fix .editorconfig for black:\n[*.py]\nindent_style = space\nindent_size = 4",
                9,
            ),
        ]
    )
    result = memory.retrieve("editorconfig indent_style", namespace=NS, k=10)
    assert outcome(result)["makefile"] == "kept"
    assert stale_lines(result)["makefile"] == []


DEPLOYMENT = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: checkout\nspec:\n  replicas: 2\n"
    "  template:\n    spec:\n      containers:\n        - name: api"
)


@pytest.mark.parametrize(
    "newer",
    [
        "Holiday prep: the checkout deployment is set to replicas: 6 for the weekend.",
        "Scaled up. checkout now runs with replicas: 6, HPA off for the week.",
    ],
)
def test_a_setting_after_its_owner_states_the_key_of_the_excerpt_naming_it(
    memory: Memory, newer: str
) -> None:
    memory.ingest([turn("old", DEPLOYMENT, 0), turn("new", newer, 9)])
    result = memory.retrieve("checkout deployment replicas", namespace=NS, k=10)
    assert outcome(result)["old"] == "kept"  # its other lines still hold
    assert stale_lines(result)["old"] == ["replicas: 2"]


def test_an_owner_the_older_excerpt_does_not_name_is_another_thing(memory: Memory) -> None:
    assert_no_stale_line(
        memory,
        DEPLOYMENT,
        "The search deployment is set to replicas: 6 for the weekend.",
        "deployment replicas",
    )


@pytest.mark.parametrize(
    ("older", "newer", "query", "line"),
    [
        # a flag quoted after "running <owner> with", "from now on" after it
        (
            "./bin/indexer \\\n  --shards=8 \\\n  --batch-size=500 \\\n  --timeout=30s",
            "running the indexer with `--batch-size=2000` from now on, other flags the same",
            "indexer batch size",
            "--batch-size=500 \\",
        ),
        # a quoted line that opens its clause, its section after it
        (
            "[smtp]\nhost = mail.example.org\nport = 587\nuse_tls = true",
            "`host = relay.mailgun.org` in the [smtp] section now",
            "smtp host",
            "host = mail.example.org",
        ),
    ],
)
def test_a_quoted_line_states_the_key_of_the_excerpt_naming_its_owner(
    memory: Memory, older: str, newer: str, query: str, line: str
) -> None:
    memory.ingest([turn("old", older, 0), turn("new", newer, 9)])
    result = memory.retrieve(query, namespace=NS, k=10)
    assert outcome(result)["old"] == "kept"  # its other lines still hold
    assert stale_lines(result)["old"] == [line]


def test_a_quoted_line_of_another_section_states_nothing(memory: Memory) -> None:
    assert_no_stale_line(
        memory,
        "[smtp]\nhost = mail.example.org\nport = 587",
        "`host = relay.mailgun.org` in the [imap] section now",
        "smtp host",
    )


@pytest.mark.parametrize(
    ("old", "new", "query"),
    [
        (
            "# scraper image\nFROM python:3.10-slim\nWORKDIR /app\nCOPY . .",
            "changed the base image in the scraper Dockerfile: `FROM python:3.12-slim`",
            "scraper base image",
        ),
        # the service named before the image owns it, and the excerpt names that service
        (
            "Dockerfile (billing-worker):\nFROM python:3.10-slim\nWORKDIR /app\nCOPY . .",
            "base image for billing-worker is now FROM python:3.12-slim, runs are 20% faster",
            "billing-worker Dockerfile base image",
        ),
    ],
)
def test_a_dockerfile_after_a_comment_or_a_label_keys_its_base_image(
    memory: Memory, old: str, new: str, query: str
) -> None:
    memory.ingest([turn("old", old, 0), turn("new", new, 9)])
    result = memory.retrieve(query, namespace=NS, k=10)
    assert stale_lines(result)["old"] == ["FROM python:3.10-slim"]


def test_a_line_without_its_array_of_tables_header_names_none_of_them(memory: Memory) -> None:
    # ``[[example]]`` opens one of several examples: "name" without it is another example's
    assert_no_stale_line(
        memory,
        'Cargo.toml:\n[[example]]\nname = "gateway"\npath = "examples/gateway.rs"',
        'Cargo.toml:\nname = "multi_server"\npath = "examples/multi_server.rs"',
        "cargo example name path",
    )


WORKFLOW = (
    "release pipeline:\n```yaml\n  build-web:\n    runs-on: ubuntu-22.04\n"
    "    steps:\n      - run: npm run build\n```"
)


def test_a_sentence_naming_a_sibling_block_states_nothing(memory: Memory) -> None:
    # "the docs build" is a sibling of build-web, not build-web without its context
    assert_no_stale_line(
        memory,
        WORKFLOW,
        "the docs build needs no node at all, it's on `runs-on: ubuntu-24.04`, same file.",
        "which runner does build-web run on",
    )


def test_a_sentence_naming_the_block_by_one_word_still_states_its_key(memory: Memory) -> None:
    memory.ingest(
        [
            turn("old", WORKFLOW, 0),
            turn("new", "the web build is on `runs-on: ubuntu-24.04` now.", 9),
        ]
    )
    result = memory.retrieve("which runner does build-web run on", namespace=NS, k=10)
    assert stale_lines(result)["old"] == ["runs-on: ubuntu-22.04"]


def test_a_window_of_the_same_file_without_the_header_states_no_scoped_key(
    memory: Memory,
) -> None:
    # quart's pyproject.toml: a dependabot group's description, not the project's
    project = 'pyproject.toml:\n[project]\nname = "Quart"\ndescription = "An ASGI web framework"'
    group = 'pyproject.toml:\ndescription = "update GitHub Actions pins"\nlabels = ["update"]'
    memory.ingest([turn("old", project, 0), turn("group", group, 20)])
    result = memory.retrieve("description in pyproject.toml", namespace=NS, k=10)
    assert outcome(result) == {"old": "kept", "group": "kept"}
    assert stale_lines(result) == {"old": [], "group": []}


def test_a_setting_said_after_a_list_items_head_states_that_items_key(memory: Memory) -> None:
    # the item's head line (``- repo: ...``) scopes the lines under it; a sentence that sets
    # one of them states the one scoped key (the head is a line, no block a word could be a
    # sibling of: "ran pre-commit" names no other block than ``repo: .../pre-commit-hooks``)
    memory.ingest(
        [
            turn(
                "old",
                "- repo: https://github.com/pre-commit/pre-commit-hooks\n  rev: v4.4.0\n"
                "  hooks:\n    - id: trailing-whitespace",
                0,
            ),
            turn("new", "ran pre-commit autoupdate, pre-commit-hooks is at rev: v4.5.0 now", 9),
        ]
    )
    result = memory.retrieve("which pre-commit-hooks rev are we on", namespace=NS, k=10)
    assert stale_lines(result)["old"] == ["rev: v4.4.0"]


def test_another_services_base_image_states_nothing_of_the_excerpt(memory: Memory) -> None:
    assert_no_stale_line(
        memory,
        "Dockerfile (billing-worker):\nFROM python:3.9-slim\nWORKDIR /app\nCOPY . .",
        "report-builder runs on Python 3.11 in its Dockerfile (`FROM python:3.11-slim`)",
        "Dockerfile base image",
    )
