"""Frame alignment end to end through ``Memory``: ingest-side ledger writes from aligned
neighbours, the pre-filter's unit rule, stale sentences on kept chunks, write-time flags.

The hashing embedder (a test double) stands in for MiniLM: which neighbours a chunk is aligned
with only needs "texts sharing words are close"; the ledger and Redis are the real parts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from gcmem.facts.align import FRAME_SUBJECT
from gcmem.filters.supersession import SupersessionStage
from gcmem.memory import Memory
from gcmem.models import Turn
from gcmem.settings import PolicyRule, Settings
from tests.alignment_support import alignment_memory, outcome, stale_lines
from tests.doubles import HashingEmbedder

T0 = datetime(2026, 2, 2, 9, 0, tzinfo=UTC)
NS = "align"


def turn(tid: str, text: str, days: float) -> Turn:
    return Turn(id=tid, namespace=NS, text=text, ts=T0 + timedelta(days=days))


make = alignment_memory


@pytest.fixture
def memory(redis_settings: Settings, hashing_embedder: HashingEmbedder) -> Iterator[Memory]:
    with make(redis_settings, hashing_embedder) as m:
        yield m


@pytest.fixture
def align_only(redis_settings: Settings, hashing_embedder: HashingEmbedder) -> Iterator[Memory]:
    """Alignment without the grammar, for statements the grammar would key itself (where
    both run, a pair the grammar keys is left to the grammar: one decision, one key)."""
    with make(redis_settings, hashing_embedder, supersession_grammar=False) as m:
        yield m


def stage(memory: Memory) -> SupersessionStage:
    s = memory.filters[0]
    assert isinstance(s, SupersessionStage)
    return s


def test_grammar_and_alignment_give_one_key_per_decision(memory: Memory) -> None:
    memory.ingest([turn("t1", "The local dev server listens on port 3000.", 0)])
    memory.ingest([turn("t2", "The local dev server listens on port 5173.", 2)])
    result = memory.retrieve("dev server port", namespace=NS, k=10)
    [d] = result.dropped
    [a] = d.details["assertions"]
    assert a["subject"] != FRAME_SUBJECT  # the grammar's key decided it


def test_a_value_change_the_grammar_misses_drops_the_stale_chunk(memory: Memory) -> None:
    memory.ingest(
        [
            turn("t1", "Marco sits on the developer-experience team in the platform org.", 0),
            turn("t2", "Lunch order for Thursday: the noodle place.", 1),
        ]
    )
    memory.ingest(
        [turn("t3", "Since March, Marco sits on the observability team in the platform org.", 5)]
    )
    result = memory.retrieve("Which team does Marco sit on?", namespace=NS, k=10)
    assert outcome(result) == {"t1": "dropped", "t2": "kept", "t3": "kept"}
    [d] = result.dropped
    assert d.stage == "supersession" and d.dominated_by_turn_id == "t3"
    [a] = d.details["assertions"]
    assert a["subject"] == FRAME_SUBJECT
    assert a["relation"] == "marco sits on _ team in platform org"
    assert a["object"] == "developer-experience"
    assert a["superseded_by"]["object"] == "observability"
    assert "developer-experience" in d.reason and "observability" in d.reason and "t3" in d.reason
    # as of before the change, the old statement was the valid one
    before = memory.retrieve(
        "Which team does Marco sit on?", namespace=NS, k=10, as_of=T0 + timedelta(days=2)
    )
    assert outcome(before)["t1"] == "kept"


def test_a_grammar_key_with_one_value_on_both_sides_leaves_the_frame_to_decide(
    memory: Memory,
) -> None:
    # the grammar reads "home games ... is at Millfield Leisure Centre" from both: no change
    old = "Home games this season are at Millfield Leisure Centre, court 2, warm-up from 7."
    new = "Home games this season are at Millfield Leisure Centre, court 4, warm-up from 7."
    memory.ingest([turn("t1", old, 0)])
    memory.ingest([turn("t2", new, 3)])
    result = memory.retrieve("Which court are home games on?", namespace=NS, k=10)
    assert outcome(result) == {"t1": "dropped", "t2": "kept"}
    [a] = result.dropped[0].details["assertions"]
    assert a["subject"] == FRAME_SUBJECT and (a["object"], a["superseded_by"]["object"]) == (
        "2",
        "4",
    )


def test_the_ledger_decides_by_event_time_not_arrival(align_only: Memory) -> None:
    align_only.ingest([turn("new", "The local dev server listens on port 5173.", 9)])
    align_only.ingest([turn("old", "The local dev server listens on port 3000.", 1)])
    result = align_only.retrieve("What port does the dev server listen on?", namespace=NS, k=10)
    assert outcome(result) == {"old": "dropped", "new": "kept"}
    ledger = stage(align_only).ledger
    [(subject, relation)] = [k for k in ledger.keys_of(NS) if k[0] == FRAME_SUBJECT]
    current = ledger.current(NS, subject, relation)
    assert current is not None and current.object == "5173" and current.turn_id == "new"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The staging API listens on port 8080.", "The production API listens on port 9090."),
        ("The API listens on port 8080.", "The API no longer listens on port 8080."),
        ("The API might listen on port 8080.", "The API might listen on port 9090."),
        ("I like tea.", "I like coffee."),
        # "US" names a country: the other clause names another place, so two regions
        (
            "Ledgerly runs in us-east-2, that's where the US customers' data lives.",
            "Ledgerly runs in ap-southeast-2, that's where the Australian customers' data lives.",
        ),
        # a preposition takes the cluster as its object: no lead-in before one subject
        (
            "The main Postgres cluster is on version 15.4.",
            "Maintenance window for the main Postgres cluster is Sunday 04:00-06:00 UTC.",
        ),
    ],
)
def test_guarded_pairs_drop_nothing(memory: Memory, old: str, new: str) -> None:
    memory.ingest([turn("a", old, 0), turn("b", new, 3)])
    result = memory.retrieve("port", namespace=NS, k=10)
    assert outcome(result) == {"a": "kept", "b": "kept"}


# three coaches of one team: the second said with "too", so the third is one more as well
COACHES = [
    "Under-12s at Millbrook RFC are coached by Dave Ormerod, Level 2 badge.",
    "Under-12s at Millbrook RFC are coached by Sian Griffiths too, she played for the Ospreys.",
    "Under-12s at Millbrook RFC are coached by Kwame Boateng, he takes the forwards.",
]


@pytest.mark.parametrize("grammar", [True, False])
def test_a_value_another_statement_adds_with_too_replaces_none(
    redis_settings: Settings, hashing_embedder: HashingEmbedder, grammar: bool
) -> None:
    # the grammar keys these statements ("under-12s at millbrook rfc" / "coached by"); without
    # it the frame aligns them: either way the "too" between them keeps every coach
    with make(redis_settings, hashing_embedder, supersession_grammar=grammar) as memory:
        memory.ingest([turn(f"t{i}", text, 7 * i) for i, text in enumerate(COACHES)])
        result = memory.retrieve("Which coach takes the forwards?", namespace=NS, k=10)
        assert outcome(result) == {"t0": "kept", "t1": "kept", "t2": "kept"}
    # the guard's positive twin: without the "too" statement the third replaces the first
    with make(redis_settings, hashing_embedder, supersession_grammar=grammar) as memory:
        memory.ingest([turn("t0", COACHES[0], 0), turn("t2", COACHES[2], 14)])
        result = memory.retrieve("Which coach takes the forwards?", namespace=NS, k=10)
        assert outcome(result) == {"t0": "dropped", "t2": "kept"}


def test_a_too_that_is_not_the_values_own_adds_nothing(memory: Memory) -> None:
    # "Told the courier rep too": the lead-in's, not where orders ship out of
    memory.ingest(
        [
            turn("t1", "Online orders ship out of the unit in Castlefield.", 0),
            turn(
                "t2",
                "Told the courier rep too: online orders ship out of the unit in Castlefield.",
                5,
            ),
            turn("t3", "Lease signed! Online orders ship out of the unit in Trafford Park.", 20),
        ]
    )
    result = memory.retrieve("Where do online orders ship out of?", namespace=NS, k=10)
    assert outcome(result) == {"t1": "dropped", "t2": "dropped", "t3": "kept"}


def test_a_value_for_some_cases_replaces_no_value_for_all(memory: Memory) -> None:
    memory.ingest(
        [
            turn("t1", "Checkout alerts go to #checkout-oncall in Slack.", 0),
            turn(
                "t2",
                "Checkout alerts go to PagerDuty service P7XQ2, but only severity=critical.",
                12,
            ),
        ]
    )
    result = memory.retrieve("Where do checkout alerts go?", namespace=NS, k=10)
    assert outcome(result) == {"t1": "kept", "t2": "kept"}


PARA = [
    "Casa Alta is a boutique hotel in the old town of Oaxaca.",
    "It has 14 rooms and a rooftop mezcal bar.",
    "The hotel organises cooking classes and day trips to Monte Alban.",
]


def test_a_revision_that_restates_the_rest_drops_the_old_paragraph(memory: Memory) -> None:
    old = " ".join(PARA)
    memory.ingest([turn("v1", old, 0)])
    memory.ingest(
        [turn("v2", "Their website now says:\n" + old.replace("14 rooms", "22 rooms"), 4)]
    )
    result = memory.retrieve("How many rooms does Casa Alta have?", namespace=NS, k=10)
    assert outcome(result) == {"v1": "dropped", "v2": "kept"}
    [d] = result.dropped
    statuses = [(s["index"], s["status"]) for s in d.details["sentences"]]
    assert statuses == [(0, "restated"), (1, "superseded"), (2, "restated")]


def test_a_reworded_revision_drops_the_old_paragraph(memory: Memory) -> None:
    old = (
        "Casa Alta is a boutique hotel in the old town of Oaxaca. "
        "The hotel organises cooking classes and day trips to Monte Alban. "
        "Guests get breakfast on the terrace."
    )
    new = (
        "Casa Alta is a boutique hotel in the old town of Puebla. "
        "The hotel runs cooking classes and day trips to Monte Alban. "
        "Guests are served breakfast on the terrace."
    )
    memory.ingest([turn("v1", old, 0)])
    memory.ingest([turn("v2", new, 4)])
    result = memory.retrieve("Where is Casa Alta?", namespace=NS, k=10)
    assert outcome(result) == {"v1": "dropped", "v2": "kept"}
    [d] = result.dropped
    statuses = [(s["index"], s["status"]) for s in d.details["sentences"]]
    assert statuses == [(0, "superseded"), (1, "restated"), (2, "restated")]


def test_a_chunk_with_a_still_true_statement_stays_and_names_its_stale_one(memory: Memory) -> None:
    memory.ingest([turn("v1", " ".join(PARA), 0)])
    memory.ingest([turn("v2", "Casa Alta update: it has 22 rooms and a rooftop mezcal bar.", 4)])
    result = memory.retrieve("How many rooms does Casa Alta have?", namespace=NS, k=10)
    assert outcome(result) == {"v1": "kept", "v2": "kept"}
    v1 = next(c for c in result.kept if c.chunk.turn_id == "v1")
    [note] = v1.stale_sentences
    assert note.index == 1 and note.text == PARA[1]
    assert note.value == "14" and note.current_value == "22"
    assert note.superseded_by_turn_id == "v2" and note.since == T0 + timedelta(days=4)
    v2 = next(c for c in result.kept if c.chunk.turn_id == "v2")
    assert v2.stale_sentences == ()
    # the reader gets the chunk with the stale statement excised in place, and what replaced it
    context = result.context()
    assert PARA[1] not in context and "14 rooms" not in context
    assert f"{PARA[0]} [superseded on 2026-02-06; current value: 22] {PARA[2]}" in context
    assert v1.visible_text in result.texts and v1.chunk.text == " ".join(PARA)


def test_a_config_diff_records_one_assertion_per_changed_line(align_only: Memory) -> None:
    align_only.ingest([turn("c1", "DB_HOST=db1.internal\nDB_PORT=5432\nLOG_LEVEL=info", 0)])
    align_only.ingest([turn("c2", "DB_HOST=db2.internal\nDB_PORT=5432\nLOG_LEVEL=debug", 2)])
    ledger = stage(align_only).ledger
    frames = sorted(r for s, r in ledger.keys_of(NS) if s == FRAME_SUBJECT)
    assert frames == ["db_host = _", "log_level = _"]
    result = align_only.retrieve("What is DB_HOST?", namespace=NS, k=10)
    # DB_PORT is restated by the newer file, so nothing still true is lost with c1
    assert outcome(result) == {"c1": "dropped", "c2": "kept"}


def test_restating_a_framed_statement_reinforces_the_frame(align_only: Memory) -> None:
    align_only.ingest([turn("a", "The local dev server listens on port 3000.", 0)])
    align_only.ingest([turn("b", "The local dev server listens on port 5173.", 2)])
    align_only.ingest([turn("c", "The local dev server listens on port 5173.", 4)])
    ledger = stage(align_only).ledger
    [(s, r)] = [k for k in ledger.keys_of(NS) if k[0] == FRAME_SUBJECT]
    current = ledger.current(NS, s, r)
    assert current is not None and current.object == "5173"
    assert sorted(current.provenance) == ["b", "c"]


def test_redelivery_changes_nothing(align_only: Memory) -> None:
    turns = [
        turn("t1", "The local dev server listens on port 3000.", 0),
        turn("t2", "The local dev server listens on port 5173.", 2),
    ]
    align_only.ingest(turns)
    ledger = stage(align_only).ledger
    before = ledger.stats(NS)
    align_only.ingest(turns)
    align_only.ingest(turns[::-1])
    after = ledger.stats(NS)
    assert (after.keys, after.assertions, after.versions, after.rows) == (
        before.keys,
        before.assertions,
        before.versions,
        before.rows,
    )
    assert after.duplicates > 0  # recognised as redelivered, not recorded again
    result = align_only.retrieve("dev server port", namespace=NS, k=10)
    assert outcome(result) == {"t1": "dropped", "t2": "kept"}


def test_write_time_gc_flags_the_aligned_stale_chunk(align_only: Memory) -> None:
    align_only.ingest([turn("t1", "The local dev server listens on port 3000.", 0)])
    align_only.ingest([turn("t2", "The local dev server listens on port 5173.", 2)])
    cands = align_only.candidates("dev server port", namespace=NS, k=10, exclude_flagged=True)
    assert {c.turn_id for c in cands.candidates} == {"t2"}


def test_alignment_off_leaves_the_grammar_alone(
    redis_settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    with make(redis_settings, hashing_embedder, supersession_align=False) as m:
        m.ingest([turn("t1", "Marco sits on the infra team in the platform org.", 0)])
        m.ingest([turn("t2", "Marco sits on the payments team in the platform org.", 2)])
        result = m.retrieve("Which team does Marco sit on?", namespace=NS, k=10)
        assert outcome(result) == {"t1": "kept", "t2": "kept"}


def test_an_accumulate_policy_keeps_a_multi_valued_frame(
    redis_settings: Settings, hashing_embedder: HashingEmbedder
) -> None:
    # (constructed languages: the spoken ones are several by alignment's own rule, whatever
    # the table says)
    rule = PolicyRule(subject="frame", relation="* speaks _ *", policy="accumulate")
    turns = [
        turn("t1", "Alice speaks Esperanto with her colleagues in Lyon.", 0),
        turn("t2", "Alice speaks Interlingua with her colleagues in Lyon.", 3),
    ]
    # without the built-in table of multi-valued relations the frame is one value's
    with make(redis_settings, hashing_embedder, ledger_known_multi_valued=False) as plain:
        plain.ingest(turns)
        result = plain.retrieve("Which languages does Alice speak?", namespace=NS, k=10)
        assert outcome(result) == {"t1": "dropped", "t2": "kept"}
    # a declared rule, and the built-in table by default, keep both languages
    for ns, over in (("align2", {"ledger_policies": [rule]}), ("align3", {})):
        other = [t.model_copy(update={"namespace": ns}) for t in turns]
        with make(
            redis_settings, hashing_embedder, ledger_known_multi_valued=not over, **over
        ) as m:
            m.ingest(other)
            result = m.retrieve("Which languages does Alice speak?", namespace=ns, k=10)
            assert outcome(result) == {"t1": "kept", "t2": "kept"}


@pytest.mark.parametrize(
    ("first", "second", "query"),
    [
        (
            "Welcome Aisha to the data platform team, she joins us from Shopify.",
            "Welcome Rhys to the data platform team, our first grad hire this year.",
            "Who joined the data platform team from Shopify?",
        ),
        (
            "Panel for the staff backend role: Farid, he'll run the system design round.",
            "Panel for the staff backend role: Lucia, she'll run the system design round.",
            "Who runs the system design round for the staff backend role?",
        ),
    ],
)
def test_a_welcome_and_a_panel_are_members_not_one_value(
    memory: Memory, first: str, second: str, query: str
) -> None:
    memory.ingest([turn("t1", first, 0)])
    memory.ingest([turn("t2", second, 3)])
    result = memory.retrieve(query, namespace=NS, k=10)
    assert outcome(result) == {"t1": "kept", "t2": "kept"}


@pytest.mark.parametrize(
    ("texts", "query"),
    [
        # a directive its file repeats, quoted after a label
        (
            [
                "haproxy backend api: `server api1 10.8.0.11:3000 check`",
                "haproxy backend api: `server api2 10.8.0.12:3000 check`",
                "haproxy backend api: `server api3 10.8.0.13:3000 check`",
            ],
            "What address is api3 on in the haproxy api backend?",
        ),
        (
            ["in my vimrc: `Plug 'tpope/vim-fugitive'`", "in my vimrc: `Plug 'junegunn/fzf.vim'`"],
            "Which vim plugins are in my vimrc?",
        ),
        (
            [
                f"`server 10.0.4.{n}:8080;` in the checkout upstream block (nginx.conf on lb-1)"
                for n in (11, 12)
            ],
            "Which servers are in the checkout upstream?",
        ),
        # lines quoted after a label that names their file
        (
            [
                'Brewfile in the dotfiles repo: `brew "ripgrep"`',
                'Brewfile in the dotfiles repo: `brew "hyperfine"`',
                'Brewfile in the dotfiles repo: `cask "wezterm"`',
            ],
            "Which benchmarking tool is in the dotfiles Brewfile?",
        ),
        (
            [
                f"inventory/prod.ini under [kafka]: `kafka-{h}1.prod.internal broker_id={n}`"
                for n, h in ((1, "a"), (2, "b"), (3, "c"))
            ],
            "Which host has broker_id=2 in the prod inventory?",
        ),
        # the courses someone takes in a term
        (
            [
                "Leo's taking Organic Chemistry this semester, Mondays and Wednesdays.",
                "Leo's taking Intro to Linguistics this semester, Tuesdays and Thursdays.",
            ],
            "Which course does Leo have on Tuesdays and Thursdays?",
        ),
        # lines said to be added
        (
            [
                f"added to the node job in prometheus.yml:\n```yaml\n      - '{host}:9100'\n```"
                for host in ("db-01", "cache-02", "gw-edge-1")
            ],
            "Which hosts does the node job scrape?",
        ),
        # a suite's line in sources.list, beside another suite's
        (
            [
                "/etc/apt/sources.list on the lab workstations:\n```\n"
                "deb http://mirror.aarnet.edu.au/ubuntu focal main universe\n```",
                "```\ndeb http://security.ubuntu.com/ubuntu focal-security main universe\n```",
                "```\ndeb [arch=amd64] https://download.docker.com/linux/ubuntu focal stable\n```",
            ],
            "Which mirror do the lab workstations pull focal packages from?",
        ),
        # a second passport; a cell line in another rack
        (
            [
                "Elif has a Turkish passport, renewed it at the consulate in 2021.",
                "Elif has a German passport, got it when she naturalised last year.",
            ],
            "Which passport does Elif have?",
        ),
        (
            [
                "We've got HEK293 in the liquid nitrogen dewar, rack 2.",
                "We've got HeLa in the liquid nitrogen dewar, rack 4.",
            ],
            "Which cell lines are in the dewar?",
        ),
        # payments of one kind, each an amount and where it goes
        (
            [
                "Standing order: £75 to the climbing club on the 1st",
                "Standing order: £30 to Oxfam on the 1st",
            ],
            "How much goes to Oxfam?",
        ),
        # a dotfile's lines quoted after its name; settings quoted by their own names
        (
            [
                ".dockerignore line: `node_modules/`",
                ".dockerignore line: `.env.production` (Ola pushed a secret once)",
            ],
            "What does .dockerignore leave out?",
        ),
        (
            [
                ".npmrc in the web repo: `@acme:registry=https://npm.acme.dev/`",
                ".npmrc in the web repo: `@fonts:registry=https://npm.fonts.dev/`",
            ],
            "Which registry serves @fonts?",
        ),
        (
            [
                "registry config for the web repo: `@acme:registry=https://npm.acme.dev/`",
                "registry config for the web repo: `@fonts:registry=https://npm.fonts.dev/`",
            ],
            "Which registry serves @fonts?",
        ),
        # a directive line a named file or block has; a file that lists people
        (
            [f"lb.conf upstream block has `server 10.2.0.{n}:9000;`" for n in (5, 6)],
            "Which servers does lb.conf send traffic to?",
        ),
        (
            [
                "MAINTAINERS file for tinyparse: `Ana Ruiz <ana@tinyparse.dev>`",
                "MAINTAINERS file for tinyparse: `Tomas Lee <tomas@tinyparse.dev>`",
            ],
            "Who maintains tinyparse?",
        ),
        # what a lab keeps; the pieces of a concert; required checks; affected versions
        (
            [
                "We keep Vero cells in the lab, the log sheet is by the hood.",
                "We keep CHO cells in the lab, they came from the Okafor group.",
            ],
            "Which cells do we keep in the lab?",
        ),
        (
            [
                "The band's doing 'Jolene' at the harvest festival.",
                "The band's doing 'Valerie' at the harvest festival.",
            ],
            "What is the band doing at the harvest festival?",
        ),
        (
            ["Required check on main: `build`.", "Required check on main: `unit-tests`."],
            "Which checks are required on main?",
        ),
        (
            ["Affects version: 2.0.1", "Affects version: 2.1.0-beta"],
            "Which versions does the bug affect?",
        ),
        # the elements of a file's repeated sections (fluent-bit's outputs)
        (
            [
                "fluent-bit outputs:\n[OUTPUT]\n    Name  es\n    Match app.*",
                "[OUTPUT]\n    Name  kafka\n    Match audit.*\n    topic audit-events",
            ],
            "Which fluent-bit output takes the audit logs?",
        ),
        # an interest is one more
        (
            [
                "Gus has gotten really into bouldering, he's at the Arch three nights a week.",
                "Gus has gotten really into sourdough, the starter lives in our fridge.",
            ],
            "What is Gus into?",
        ),
    ],
)
def test_lines_and_interests_of_several_are_members_not_one_value(
    memory: Memory, texts: list[str], query: str
) -> None:
    for i, text in enumerate(texts):
        memory.ingest([turn(f"t{i}", text, 7 * i)])
    result = memory.retrieve(query, namespace=NS, k=10)
    assert outcome(result) == {f"t{i}": "kept" for i in range(len(texts))}
    assert stale_lines(result) == {f"t{i}": [] for i in range(len(texts))}  # nothing excised


def test_a_block_restated_around_added_lines_still_changes_its_other_lines(
    memory: Memory,
) -> None:
    # "with web3 added" adds a server line; the timeout line it restates changed as well
    block = (
        "backend web_pool\n    balance source\n    timeout server {t}\n    server web1 10.0.0.11:80"
    )
    memory.ingest([turn("t1", f"```\n{block.format(t='20s')}\n```", 0)])
    memory.ingest(
        [
            turn(
                "t2",
                f"web_pool now, with web3 added:\n```\n{block.format(t='45s')}\n"
                "    server web3 10.0.0.13:80\n```",
                14,
            )
        ]
    )
    result = memory.retrieve("web_pool timeout server", namespace=NS, k=10)
    # dropped at read time, or flagged at write time and never a candidate
    assert outcome(result).get("t1", "dropped") == "dropped" and outcome(result)["t2"] == "kept"


def test_a_renamed_section_drops_the_excerpt_under_its_old_name(memory: Memory) -> None:
    old = "setup.cfg:\nmax-line-length=99\n\n[wheel]\nuniversal = 1"
    memory.ingest([turn("t1", old, 0)])
    memory.ingest([turn("t2", old.replace("[wheel]", "[bdist_wheel]"), 3)])
    result = memory.retrieve("setup.cfg wheel universal", namespace=NS, k=10)
    assert outcome(result) == {"t1": "dropped", "t2": "kept"}


def _matrix(versions: str) -> str:
    return f"CI matrix in .github/workflows/test.yml:\n```yaml\n  python-version: [{versions}]\n```"


def test_a_grown_list_keeps_its_older_value_until_a_member_is_removed(memory: Memory) -> None:
    # every member of the older list is still one: it states nothing untrue
    memory.ingest([turn("t1", _matrix('"3.9"'), 0)])
    memory.ingest([turn("t2", _matrix('"3.9", "3.10"'), 14)])
    result = memory.retrieve("python-version CI matrix", namespace=NS, k=10)
    assert outcome(result) == {"t1": "kept", "t2": "kept"}
    # 3.9 removed: both older lists name it, so both go
    memory.ingest([turn("t3", _matrix('"3.10", "3.11"'), 30)])
    result = memory.retrieve("python-version CI matrix", namespace=NS, k=10)
    found = outcome(result)
    assert found.get("t1", "dropped") == found.get("t2", "dropped") == "dropped"
    assert found["t3"] == "kept"


def test_a_list_that_loses_a_member_is_a_change(memory: Memory) -> None:
    memory.ingest([turn("t1", _matrix('"3.8", "3.9"'), 0)])
    memory.ingest([turn("t2", _matrix('"3.9"'), 14)])
    result = memory.retrieve("python-version CI matrix", namespace=NS, k=10)
    found = outcome(result)
    assert found.get("t1", "dropped") == "dropped" and found["t2"] == "kept"


def test_a_numbered_place_that_alone_changes_is_a_move(memory: Memory) -> None:
    # the rack differing beside another value names a second place (see the members test);
    # the rack alone differing is where the one line went
    memory.ingest([turn("t1", "We've got HEK293 in the liquid nitrogen dewar, rack 2.", 0)])
    memory.ingest([turn("t2", "We've got HEK293 in the liquid nitrogen dewar, rack 5.", 9)])
    result = memory.retrieve("Which rack is HEK293 in?", namespace=NS, k=10)
    found = outcome(result)
    assert found.get("t1", "dropped") == "dropped" and found["t2"] == "kept"
