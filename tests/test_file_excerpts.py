"""File excerpts: line forms, the path header as provenance, in-place line replacement, and κ's
anchor on code. Units of logic on text first; then end to end through ``Memory`` (real Redis
ledger; the hashing embedder stands in for MiniLM, as in the other alignment tests)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from gcmem.facts.align import FRAME_SUBJECT, Unit, align_units, placed_restatement, units_of
from gcmem.facts.chunking import chunk_text, split_units
from gcmem.facts.extract import extract_triples, proposed
from gcmem.facts.lines import (
    bare_header,
    describe,
    file_header,
    grown_list,
    inline_header,
    is_path,
    list_members,
    named_file,
    same_file,
)
from gcmem.memory import Memory
from gcmem.models import Turn
from gcmem.oracle.relatedness import anchored
from gcmem.settings import Settings
from tests.alignment_support import alignment_memory, outcome, stale_lines
from tests.doubles import HashingEmbedder

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NS = "excerpts"


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(f.subject, f.relation, f.object) for f in extract_triples(text)]


# --- headers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("requests/adapters.py:", "requests/adapters.py"),
        ("go.mod:", "go.mod"),
        ("Dockerfile:", "Dockerfile"),
        (".github/workflows/ci.yml:", ".github/workflows/ci.yml"),
        ("services:", None),  # a YAML key, not a file
        ("app.port:", None),  # "port" is not a file type
        ("Settings for the API:", None),
    ],
)
def test_file_header(line: str, path: str | None) -> None:
    assert file_header(line) == path


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("# services/payments/values.yaml", "services/payments/values.yaml"),
        ("// src/app.ts", "src/app.ts"),
        ("# .env.production", ".env.production"),
        ("charts/gateway/values.yaml", "charts/gateway/values.yaml"),  # bare
        ("/etc/systemd/system/chat-gateway.service", "/etc/systemd/system/chat-gateway.service"),
        ("# /etc/resolv.conf on the build hosts", None),  # a comment about a file, no header
        ("# TODO: raise this", None),
        ("# retries", None),
    ],
)
def test_a_line_naming_only_a_file_heads_an_excerpt(line: str, path: str | None) -> None:
    assert bare_header(line) == path


def test_dotenv_variants_and_systemd_units_are_files() -> None:
    assert is_path(".env.production") and is_path(".env.local") and is_path(".env")
    assert is_path("etc/systemd/system/chat-gateway.service")
    assert not is_path("env.production")


def test_an_address_after_a_name_is_no_version() -> None:
    assert triples("nameserver 10.20.0.2") == []
    assert triples("server 192.168.1.10") == []
    assert triples("libfoo 1.2.3") == [("libfoo", "version", "1.2.3")]
    assert triples("protobuf 3.20.3") == [("protobuf", "version", "3.20.3")]


def test_inline_header_needs_a_path() -> None:
    assert inline_header("go.mod: require x v1.2.3") == ("go.mod", "require x v1.2.3")
    assert inline_header("timeout: 30s") is None
    assert inline_header("app.port: 8080") is None


def test_an_excerpt_keeps_every_line_even_prose_like_ones() -> None:
    text = "src/help.rs:\nThis flag overrides the other one when both are given.\nlet x = 1;"
    units = split_units(text)
    assert [u.text for u in units] == [
        "src/help.rs:",
        "This flag overrides the other one when both are given.",
        "let x = 1;",
    ]
    assert all(u.line for u in units)


def test_later_chunks_of_an_excerpt_repeat_the_header() -> None:
    lines = [f"CONSTANT_{i} = {i}" for i in range(12)]
    chunks = chunk_text("pkg/settings.py:\n" + "\n".join(lines), 80)
    assert len(chunks) > 1
    assert all(c.startswith("pkg/settings.py:\n") for c in chunks)


# --- header keys: provenance, not a subject ------------------------------------------------------


def test_two_lines_of_one_file_never_share_a_key_through_the_header() -> None:
    a = triples("go.mod: go.opentelemetry.io/otel v1.44.0 // indirect")
    b = triples("go.mod: google.golang.org/grpc v1.82.1 // indirect")
    assert a == [("go.opentelemetry.io/otel", "version in go.mod", "v1.44.0")]
    assert b == [("google.golang.org/grpc", "version in go.mod", "v1.82.1")]
    assert {(s, r) for s, r, _ in a}.isdisjoint({(s, r) for s, r, _ in b})


def test_a_line_key_is_qualified_by_its_file() -> None:
    assert triples("requests/adapters.py:\nDEFAULT_POOLSIZE = 10") == [
        ("default_poolsize", "is in requests/adapters.py", "10")
    ]
    # the same key in another file is another key
    assert triples("other/mod.py:\nDEFAULT_POOLSIZE = 10") == [
        ("default_poolsize", "is in other/mod.py", "10")
    ]
    assert triples("DEFAULT_POOLSIZE = 10") == [("default_poolsize", "is", "10")]


# --- line forms ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'package.json:\n{\n  "dependencies": {\n    "debug": "2.6.9",\n'
            '    "ms": "2.0.0"\n  }\n}',
            [
                ("debug", "is in package.json > dependencies", "2.6.9"),
                ("ms", "is in package.json > dependencies", "2.0.0"),
            ],
        ),
        (
            "go.mod:\nrequire golang.org/x/text v0.40.0 // indirect",
            [("golang.org/x/text", "version in go.mod", "v0.40.0")],
        ),
        (
            ".github/workflows/ci.yml:\n    steps:\n      - uses: actions/checkout@v3",
            [("actions/checkout", "version in .github/workflows/ci.yml > steps", "v3")],
        ),
        (
            'Cargo.toml:\n[dependencies]\nmemmap = { package = "memmap2", version = "0.3.0" }',
            [
                ("memmap", "package in cargo.toml > dependencies", "memmap2"),
                ("memmap", "version in cargo.toml > dependencies", "0.3.0"),
            ],
        ),
        (
            "Dockerfile:\nFROM python:3.11-slim AS base",
            [("python", "image tag in dockerfile", "3.11-slim")],
        ),
        (
            "requirements.txt:\nrequests==2.31.0\nflask>=2.0",
            [
                ("requests", "version in requirements.txt", "2.31.0"),
                ("flask", "version in requirements.txt", ">=2.0"),
            ],
        ),
        ("config/app.env:\nLOG_LEVEL=debug", [("log_level", "is in config/app.env", "debug")]),
    ],
)
def test_manifest_and_config_line_forms(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert triples(text) == expected


def test_a_quoted_requirement_in_a_python_manifest_pins_its_package() -> None:
    setup = (
        'setup.py:\nminimal_requirements = [\n    "click>=7.*",\n    "h11>=0.8",\n'
        '    "typing-extensions;" + env_marker_below_38,'
    )
    assert triples(setup) == [
        ("click", "version in setup.py > minimal_requirements", ">=7.*"),
        ("h11", "version in setup.py > minimal_requirements", ">=0.8"),
    ]
    extras = 'setup.py:\nextras = [\n    "httptools==0.1.* ;" + env_marker_cpython,'
    assert triples(extras) == [("httptools", "version in setup.py > extras", "0.1.*")]
    # a quoted string that pins nothing, or a spec inside a call, is no manifest line
    assert triples('app.py:\nprint("x==1.0")') == []
    assert triples('pyproject.toml:\ndependencies = [\n  "rich",\n]') == []


def test_keys_inside_yaml_list_items_and_local_bindings_are_not_line_keys() -> None:
    yaml = "ci.yml:\njobs:\n  test:\n    steps:\n      - name: lint\n        run: make lint"
    assert triples(yaml) == []  # every step has a "run": the key names no one step
    code = "app/views.py:\ndef index():\n    timeout = 5\n    return timeout"
    assert triples(code) == []  # a local binding; the file binds "timeout" in every function
    assert triples("app/views.py:\nTIMEOUT = 5") == [("timeout", "is in app/views.py", "5")]
    # a block scalar's indicator is not a value
    assert triples("release.yml:\nrun: |") == []


def test_a_yaml_list_element_with_a_version_pins_its_name() -> None:
    # a CI matrix cut without its "rvm:" key: the versioned element still names its runtime
    rubies = ".travis.yml:\n  - ruby-head\n  - rbx-2\n  - jruby-9.1.8.0\n  - jruby-head"
    assert triples(rubies) == [("jruby", "version in .travis.yml", "9.1.8.0")]
    shown = "ci.yml:\n  python:\n    - pypy-3.10\n    - '3.12'"
    assert triples(shown) == [("pypy", "version in ci.yml > python", "3.10")]
    # two versions of one name side by side: a matrix testing both, no one value
    assert triples(".travis.yml:\n  - jruby-9.1.8.0\n  - jruby-9.2.0.0") == []
    # no dot: a build number or an OS image, not a version; and a list outside YAML says nothing
    assert triples("ci.yml:\n  - windows-2019\n  - rbx-3") == []
    assert triples("NOTES.md:\n- jruby-9.1.8.0") == []


def test_json_lines_inside_an_unseen_object_are_not_line_keys() -> None:
    # cut from inside one message's plural forms: every message has a "one" and an "other"
    nested = 'locales/tr.json:\n    "one": "Eksik argüman: %s",\n    "other": "Eksik: %s"\n  },'
    assert triples(nested) == []
    # the closer's own level, and lines under an opener the excerpt shows, still name one key
    shown = (
        'locales/tr.json:\n      "x": 1\n    },\n  "count": "sayı",\n  "plural": {\n'
        '    "one": "bir"'
    )
    assert triples(shown) == [
        ("count", "is in locales/tr.json", "sayı"),
        ("one", "is in locales/tr.json > plural", "bir"),
    ]
    # an excerpt with no closer is read as before: its keys are the file's
    flat = 'locales/tr.json:\n  "Examples:": "Örnekler:",\n  "count": "sayı",'
    assert ("count", "is in locales/tr.json", "sayı") in triples(flat)
    # a version pin names its package whatever block it was cut from
    deps = 'package.json:\n    "through2": "^4.0.0",\n    "typescript": "~5.1"\n  },'
    assert triples(deps) == [
        ("through2", "is in package.json", "^4.0.0"),
        ("typescript", "is in package.json", "~5.1"),
    ]
    # the root's own closer says nothing about the lines above it
    assert triples('package.json:\n  "version": "1.2.0"\n}') == [
        ("version", "is in package.json", "1.2.0")
    ]


# --- alignment of lines ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "frame", "values"),
    [
        ("settings.py:\nPOOL_SIZE = 10", "settings.py:\nPOOL_SIZE = 20", "= _", ("10", "20")),
        ("app.yml:\nport: 8080", "app.yml:\nport: 9090", "port : _", ("8080", "9090")),
        ("run.sh:\nserve --port=8080", "run.sh:\nserve --port=9090", "port", ("8080", "9090")),
        (
            "requirements.txt:\nhttpx==0.27.0",
            "requirements.txt:\nhttpx==0.28.1",
            "httpx == _",
            ("0.27.0", "0.28.1"),
        ),
        (
            'package.json:\n"debug": "^1.2",',
            'package.json:\n"debug": "^1.3",',
            "debug : _",
            ("^1.2", "^1.3"),
        ),
    ],
)
def test_line_forms_align_with_the_file_in_the_frame(
    old: str, new: str, frame: str, values: tuple[str, str]
) -> None:
    [match] = align_units(units_of(old), units_of(new)).frames
    path = old.split(":", 1)[0]
    assert match.frame.startswith(path) and frame in match.frame
    assert (match.old_value, match.new_value) == values


WINDOW = [
    "def send(self, request):",
    "    conn = self.get_connection(request.url)",
    "    self.cert_verify(conn, request.url, verify)",
    "    resp = conn.urlopen(method=request.method, url=url)",
    "    return self.build_response(request, resp)",
]


def test_a_code_line_changed_in_place_is_one_replacement() -> None:
    new = list(WINDOW)
    new[2] = "    self.check_cert(conn, request.url, verify)"  # a renamed call: no key form
    old_units = units_of("http/adapters.py:\n" + "\n".join(WINDOW))
    new_units = units_of("http/adapters.py:\n" + "\n".join(new))
    al = align_units(old_units, new_units)
    [match] = al.frames
    assert old_units[match.old_unit].text == WINDOW[2].strip()
    assert new_units[match.new_unit].text == new[2].strip()
    assert match.frame.startswith("http/adapters.py > line after")
    assert len(al.restated) == 4  # every other line restated


def test_no_replacement_across_files_or_without_neighbours() -> None:
    new = list(WINDOW)
    new[2] = "    self.check_cert(conn, request.url, verify)"
    a = units_of("http/adapters.py:\n" + "\n".join(WINDOW))
    assert align_units(a, units_of("http/other.py:\n" + "\n".join(new))).frames == []
    # a line rewritten whole at the edge of the excerpt: it may have moved, not changed
    edge = units_of("http/adapters.py:\n" + "\n".join(WINDOW[2:]))
    rewritten = ["    verify_tls(conn)", *new[3:]]
    assert align_units(edge, units_of("http/adapters.py:\n" + "\n".join(rewritten))).frames == []
    # an edited line at the edge with one identical line after it: too little to fix its place
    short = units_of("http/adapters.py:\n" + "\n".join(WINDOW[2:4]))
    short_new = units_of("http/adapters.py:\n" + "\n".join(new[2:4]))
    assert align_units(short, short_new).frames == []
    # only closers around it: no place
    closers = units_of("lib/x.js:\n}\nreturn mixin(parent, params);\n}")
    closers_new = units_of("lib/x.js:\n}\nreturn mixin(obj, params);\n}")
    assert align_units(closers, closers_new).frames == []


def excerpt(path: str, lines: list[str]) -> list[Unit]:
    return units_of(f"{path}:\n" + "\n".join(lines))


def replaced(old: list[Unit], new: list[Unit]) -> list[tuple[str, str]]:
    return [(old[f.old_unit].text, new[f.new_unit].text) for f in align_units(old, new).frames]


def test_a_case_change_in_a_file_line_is_a_change() -> None:
    lines = ["// the first file path", "// is in PATTERN.", '.conflicts(&["file", "PATTERN"]);']
    lines += ["args.push(arg);", "}"]
    new = [*lines[:2], '.conflicts(&["file", "pattern"]);', *lines[3:]]
    old_units, new_units = excerpt("src/app.rs", lines), excerpt("src/app.rs", new)
    assert replaced(old_units, new_units) == [(lines[2], new[2])]
    # a keyed line: the value keeps its case too
    [match] = align_units(excerpt("ci.yml", ["name: ci"]), excerpt("ci.yml", ["name: 'CI'"])).frames
    assert (match.old_value, match.new_value) == ("ci", "CI")
    # prose still compares case-folded
    assert align_units(units_of("Ship it on Monday."), units_of("ship it on monday.")).frames == []


def test_a_word_respelled_is_its_line_edited_beside_one_identical_line() -> None:
    # a typo fixed at the excerpt's end, one identical statement above it: one line's edit
    old = ["def when_ready(server):", '    server.log.info("Server is ready. Spwawning workers")']
    new = ["def when_ready(server):", '    server.log.info("Server is ready. Spawning workers")']
    assert replaced(excerpt("example_config.py", old), excerpt("example_config.py", new)) == [
        (old[1].strip(), new[1].strip())
    ]
    # separators only: one name spelled two ways
    ci = ["steps:", "  - run: go build -tags nobdger -trimpath"]
    fixed = ["steps:", "  - run: go build -tags no_bdger -trimpath"]
    assert len(replaced(excerpt("ci.yml", ci), excerpt("ci.yml", fixed))) == 1


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('    x = getItem("a")', '    x = setItem("a")'),  # the first letter: another word
        ("    use handler;", "    use handlers;"),  # the last letter
        ('    return "encoder"', '    return "decoder"'),  # two letters
        ("    wait(timeout_ms)", "    wait(timeout_s)"),  # a word of fewer letters
    ],
)
def test_another_word_beside_one_identical_line_is_no_place(old: str, new: str) -> None:
    # twin lines of one file differ in a word that names another thing: one identical
    # statement beside them is too little to place them
    a = excerpt("src/lib.py", ["def handle(self):", old])
    b = excerpt("src/lib.py", ["def handle(self):", new])
    assert replaced(a, b) == []


def test_a_value_right_of_a_key_operator_is_a_value() -> None:
    [m] = align_units(
        excerpt("pipelines.yml", ["pool:", "  vmImage: $(image)"]),
        excerpt("pipelines.yml", ["pool:", "  vmImage: $(vmImage)"]),
    ).frames
    assert (m.old_value, m.new_value) == ("image", "vmImage")
    [m] = align_units(
        excerpt("Cargo.toml", ['license = "Unlicense/MIT"']),
        excerpt("Cargo.toml", ['license = "Unlicense OR MIT"']),
    ).frames  # a value longer than its key
    assert (m.old_value, m.new_value) == ("Unlicense/MIT", "Unlicense OR MIT")


MAIN = [
    "        Err(err) => {",
    '            let _ = writeln!(&mut io::stderr(), "{}", err);',
    "            process::exit(1);",
    "        }",
    "    }",
]


def test_an_edited_line_among_other_changed_lines_is_a_replacement() -> None:
    new = [MAIN[0], '            eprintln!("{}", err);', "            process::exit(2);", *MAIN[3:]]
    old_units, new_units = excerpt("src/main.rs", MAIN), excerpt("src/main.rs", new)
    # the rewritten line has no partner; the edited one has one
    assert replaced(old_units, new_units) == [(MAIN[2].strip(), new[2].strip())]
    # two edited lines of one block: two pairs, in order, each its own key
    two = [
        MAIN[0],
        '            let _ = writeln!(&mut io::stdout(), "{}", err);',
        new[2],
        *MAIN[3:],
    ]
    found = align_units(old_units, excerpt("src/main.rs", two)).frames
    assert [(f.old_unit, f.new_unit) for f in found] == [(2, 2), (3, 3)]
    assert len({f.frame for f in found}) == 2


def test_edited_lines_need_one_partner_and_the_same_order() -> None:
    head, tail = ["def send(self):"], ["    return first", "# end of send"]
    old = [*head, "    first = compute(value, 1)", "    second = compute(value, 1)", *tail]
    edited = [*head, "    first = compute(value, 2)", "    second = compute(value, 3)", *tail]
    assert len(replaced(excerpt("m.py", old), excerpt("m.py", edited))) == 2
    # each old line is one span from both new lines: which is which is not known
    renamed = [*head, "    third = compute(value, 1)", "    fourth = compute(value, 1)", *tail]
    assert replaced(excerpt("m.py", old), excerpt("m.py", renamed)) == []
    # crossed pairs: lines moved, not edited
    crossed = [*head, "    second = compute(other, 1)", "    first = compute(other, 1)", *tail]
    assert replaced(excerpt("m.py", old), excerpt("m.py", crossed)) == []


def test_an_edited_line_needs_context_and_a_statement() -> None:
    # one identical line either side: twin functions of one file look like this
    sync = ["    with map_exceptions():", "        resp = self._pool.request(", "        method=m,"]
    async_ = [
        "    with map_exceptions():",
        "        resp = await self._pool.arequest(",
        "        method=m,",
    ]
    assert replaced(excerpt("t.py", sync), excerpt("t.py", async_)) == []
    # at the edge of both excerpts with two identical lines on the other side: replaced
    dep = ["      - uses: actions/checkout@v3", "      - name: 'Dependency Review'"]
    old = excerpt("deps.yml", [*dep, "        uses: actions/dependency-review-action@v2"])
    new = excerpt("deps.yml", [*dep, "        uses: actions/dependency-review-action@v3"])
    assert len(replaced(old, new)) == 1
    # what stays of the line must say something: not closers and a short word
    close = ["  }", "  run();", "  stop();", "})('https://a.example/x');"]
    close_new = [*close[:3], "})('https://b.example/y');"]
    assert replaced(excerpt("bin/x.js", close), excerpt("bin/x.js", close_new)) == []


def test_blank_lines_of_an_excerpt_are_lines_of_its_file() -> None:
    text = "src/core.py:\n    if rv:\n\n\n        return rv\n    done()"
    assert chunk_text(text, 1000) == ["src/core.py:\n    if rv:\n\n        return rv\n    done()"]
    assert chunk_text("One sentence.\n\nAnother one.", 1000) == ["One sentence. Another one."]
    # a statement and a blank line either side: four identical lines fix the place
    old = ["    if rv is not None:", "", "        return self.split(rv)", "", "    return rv"]
    new = [old[0], "", "        rv = self.split(rv)", "", old[4]]
    assert replaced(excerpt("src/core.py", old), excerpt("src/core.py", new)) == [
        (old[2].strip(), new[2].strip())
    ]
    # without the blank lines: one line either side, as between twin functions
    assert replaced(excerpt("src/core.py", old[::2]), excerpt("src/core.py", new[::2])) == []
    # blank lines do not count at an excerpt's edge: statements only
    edge, edge_new = [old[0], "", old[2]], [old[0], "", new[2]]
    assert replaced(excerpt("src/core.py", edge), excerpt("src/core.py", edge_new)) == []


def test_captions_key_nothing_and_inspecting_commands_state_nothing() -> None:
    caption, command = units_of("mirror job for the APAC box:\nrsync -az --bwlimit=5000 a b:c")
    assert not caption.keyed and command.content
    shown, output = units_of(
        "$ kafka-topics.sh --describe --topic orders | head -1\nTopic: orders\tPartitionCount: 24"
    )
    assert not shown.content and output.content
    # a code block's opener is a statement, and so is a command that sets something
    assert units_of("class Config:\n    debug = True")[0].content
    assert units_of("$ pg_dump --jobs=4 -f /b orders\ndone in 2h")[0].content


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("services/worker/.env\nLOG_LEVEL=debug", "services/worker/.env"),
        (
            "/etc/systemd/system/agent.service (excerpt)\n[Service]\nRestartSec=5",
            "etc/systemd/system/agent.service",
        ),
        ("In settings/base.py:\n```\nX = 1\n```", "settings/base.py"),
        ("so settings/prod.py now overrides it:\n```python\nX = 2\n```", "settings/prod.py"),
        ("services/worker/.env", None),  # a path alone: no excerpt
        ("compare a.py and b.py:\n```\nX = 1\n```", None),  # two paths: which one?
        ("LOG_LEVEL=debug\nPORT=80", None),
    ],
)
def test_the_file_an_excerpt_names(text: str, path: str | None) -> None:
    assert named_file(text) == path


def test_a_shorter_path_is_the_same_file() -> None:
    assert same_file("app/settings.py", "settings.py") and same_file("a.py", "a.py")
    assert not same_file("settings/base.py", "settings/prod.py")
    assert not same_file("my_settings.py", "settings.py")


def test_block_openers_of_code_are_statements_not_contexts() -> None:
    where = [w for w in describe(split_units("srv.go:\nif status >= 400 {\n  log()\n}")) if w]
    assert [w.context for w in where] == [(), (), (), ()]
    units = units_of("srv.go:\nif status >= 400 {\n  log()\n}")
    assert units[1].content and units[2].context == ("srv.go",)


# --- κ's anchor on code -------------------------------------------------------------------------


def test_code_excerpts_are_anchored_only_by_a_shared_line() -> None:
    a = "lib/utils.js:\nfunction isArrayBufferView(val) {\n  var result;"
    b = "lib/utils.js:\nfor (var key in obj) {\n  fn.call(null, obj[key], key, obj);"
    assert not anchored(a, b)  # one file, unrelated lines: the path is not a shared subject
    c = "lib/utils.js:\nfor (var key in obj) {\n  fn.call(null, obj[key], key, obj, 1);"
    assert anchored(b, c)  # the same place of the same file
    assert not anchored(b, b.replace("lib/utils.js", "lib/other.js"))
    assert not anchored("go.mod: x.io/a v1.0.0", "go.mod: x.io/b v1.2.0")
    # prose keeps the entity rule
    assert anchored("The API listens on port 8080.", "The API listens on port 9090.")


# --- end to end: one changed line of a multi-line snippet -------------------------------------


@pytest.fixture
def memory(redis_settings: Settings, hashing_embedder: HashingEmbedder) -> Iterator[Memory]:
    with alignment_memory(redis_settings, hashing_embedder) as m:
        yield m


SNIPPET = [
    "DEFAULT_POOLBLOCK = False",
    "DEFAULT_POOLSIZE = 10",
    "DEFAULT_RETRIES = 0",
    "DEFAULT_POOL_TIMEOUT = None",
]


def test_one_changed_line_of_a_snippet_supersedes_once_and_drops_nothing_else(
    memory: Memory,
) -> None:
    header = "requests/adapters.py:\n"
    new = list(SNIPPET)
    new[1] = "DEFAULT_POOLSIZE = 20"
    memory.ingest(
        [
            Turn(id="old", namespace=NS, text=header + "\n".join(SNIPPET), ts=T0),
            # still true: another part of the same file, and the same key in another file
            Turn(
                id="other",
                namespace=NS,
                text=header + "CITATION = 'https://x'\nDEFAULT_CA_BUNDLE_PATH = certs()",
                ts=T0 + timedelta(days=1),
            ),
            Turn(
                id="elsewhere",
                namespace=NS,
                text="pool/config.py:\nDEFAULT_POOLSIZE = 4",
                ts=T0 + timedelta(days=2),
            ),
        ]
    )
    memory.ingest(
        [Turn(id="new", namespace=NS, text=header + "\n".join(new), ts=T0 + timedelta(days=5))]
    )
    result = memory.retrieve("What is DEFAULT_POOLSIZE?", namespace=NS, k=10)
    assert outcome(result) == {
        "old": "dropped",
        "other": "kept",
        "elsewhere": "kept",
        "new": "kept",
    }
    [d] = result.dropped
    superseded = [a for a in d.details["assertions"] if a.get("superseded_by")]
    assert len(superseded) == 1
    [a] = superseded
    assert a["object"] == "10" and a["superseded_by"]["object"] == "20"
    assert "requests/adapters.py" in a["relation"]


def test_an_excerpts_label_line_edited_is_no_edited_line_of_the_file(memory: Memory) -> None:
    # the writer's words over the lines changed, the lines were kept and one added: the
    # older excerpt states nothing stale
    memory.ingest(
        [
            Turn(
                id="old",
                namespace=NS,
                text="ingest service requirements.txt right now:\nrequests==2.31.0\n"
                "pydantic==2.5.3",
                ts=T0,
            ),
            Turn(
                id="new",
                namespace=NS,
                text="ingest service requirements.txt after the retry PR:\nrequests==2.31.0\n"
                "pydantic==2.5.3\ntenacity==8.2.3",
                ts=T0 + timedelta(days=3),
            ),
        ]
    )
    result = memory.retrieve("Which version of pydantic does ingest pin?", namespace=NS, k=10)
    assert outcome(result) == {"old": "kept", "new": "kept"}
    assert stale_lines(result) == {"old": [], "new": []}


# two jobs of tokio-rs/mio's CI workflow each install a toolchain with the same three lines
TOOLCHAIN_JOB = (
    ".github/workflows/ci.yml:\n      with:\n        profile: minimal\n        toolchain: {}\n"
    "        override: true\n    - name: Install minimal verions"
)
TOOLCHAIN_TWIN = (
    ".github/workflows/ci.yml:\n        profile: minimal\n        toolchain: stable\n"
    "        override: true"
)


def placed(old: str, new: str, line: str) -> bool:
    """Whether ``line`` of the newer excerpt is the older excerpt's very line."""
    ou, nu = units_of(old), units_of(new)
    al = align_units(ou, nu)
    [(o, n)] = [(o, n) for o, n in al.restated if ou[o].text == line]
    return placed_restatement(ou, o, nu, n, al)


def test_an_excerpt_of_a_twin_block_is_no_restatement_of_a_longer_one() -> None:
    job, twin = TOOLCHAIN_JOB.format("stable"), TOOLCHAIN_TWIN
    # the twin's lines are all in the job's excerpt, but the job's goes on where the twin's
    # ends: one line either side fits two jobs of one workflow
    assert not placed(job, twin, "toolchain: stable")
    assert not placed(twin, job, "toolchain: stable")
    # two copies of one window are one place, and so is a window edited around the line
    assert placed(job, job, "toolchain: stable")
    edited = job.replace("profile: minimal", "profile: default").replace("verions", "versions")
    assert placed(job, edited, "toolchain: stable")
    # a window slid along the file: a neighbour differs on one side
    slid = job.replace("      with:\n", "      uses: actions-rs/toolchain@v1\n").rsplit("\n", 1)[0]
    assert placed(job, slid, "toolchain: stable")
    # the first line under a top-level key, which its file has once
    script = "appveyor.yml:\ntest_script:\n  - C:\\Python35\\python -m tox\n"
    assert placed(
        script, script + "\n# We don't deploy anything on tags", script.split("\n")[2].strip()
    )
    # a line whose key names one thing of its file needs no place
    keyed = "config/app.yml:\ntimeout: 30"
    assert placed(keyed + "\nretries: 2\nworkers: 4", keyed, "timeout: 30")


def test_a_config_line_with_no_same_line_around_is_no_restatement() -> None:
    # two rubocop cops: each ``Enabled: 'pending'`` sits under its own ``StyleGuide:``
    ids = (
        "config/default.yml:\n  Description: 'Use `ids`.'\n"
        "  StyleGuide: 'https://rails.rubystyle.guide/#ids'\n  Enabled: 'pending'\n"
        "  Safe: false\n  VersionAdded: '2.7'"
    )
    inquiry = (
        "config/default.yml:\n  StyleGuide: 'https://rails.rubystyle.guide/#inquiry'\n"
        "  Enabled: 'pending'\n  VersionAdded: '2.7'"
    )
    assert not placed(ids, inquiry, "Enabled: 'pending'")
    # with a line beside it the same, one window edited around the line
    assert placed(ids, ids.replace("Safe: false", "Safe: true"), "Enabled: 'pending'")
    # a value that names its own thing (a repository's URL) has no twin in other blocks
    repo = "  - repo: https://github.com/asottile/reorder_python_imports"
    intro = f".pre-commit-config.yaml:\n    hooks:\n      - id: pyupgrade\n{repo}\n    rev: v2.2.0"
    later = f'.pre-commit-config.yaml:\n        args: ["--py37-plus"]\n{repo}\n    rev: v2.6.0'
    assert placed(intro, later, repo.strip())
    # and so does a requirement pin, however short: it names its package (tqdm's tox deps)
    pin = "    tf: tensorflow!=2.5.0"
    intro = f"tox.ini:\n    numpy\n    pandas\n{pin}\n    !py27-keras: keras"
    later = f"tox.ini:\n    pandas\n    rich\n{pin}\n    keras: keras\ncommands="
    assert placed(intro, later, pin.strip())


def test_a_changed_line_of_one_job_keeps_its_twin_in_another(memory: Memory) -> None:
    memory.ingest([Turn(id="old", namespace=NS, text=TOOLCHAIN_JOB.format("stable"), ts=T0)])
    memory.ingest([Turn(id="twin", namespace=NS, text=TOOLCHAIN_TWIN, ts=T0 + timedelta(days=1))])
    memory.ingest(
        [
            Turn(
                id="new",
                namespace=NS,
                text=TOOLCHAIN_JOB.format("nightly"),
                ts=T0 + timedelta(days=3),
            )
        ]
    )
    result = memory.retrieve("What is toolchain in .github/workflows/ci.yml?", namespace=NS, k=10)
    assert outcome(result) == {"old": "dropped", "twin": "kept", "new": "kept"}


def test_a_renamed_call_in_a_snippet_drops_the_old_snippet_only(memory: Memory) -> None:
    new = list(WINDOW)
    new[2] = "    self.check_cert(conn, request.url, verify)"
    header = "http/adapters.py:\n"
    memory.ingest([Turn(id="old", namespace=NS, text=header + "\n".join(WINDOW), ts=T0)])
    memory.ingest(
        [
            Turn(id="new", namespace=NS, text=header + "\n".join(new), ts=T0 + timedelta(days=3)),
        ]
    )
    result = memory.retrieve("cert_verify in send", namespace=NS, k=10)
    assert outcome(result) == {"old": "dropped", "new": "kept"}
    [d] = result.dropped
    assert any(a["subject"] == FRAME_SUBJECT for a in d.details["assertions"])


DIFF = """diff for the pool bump:
```
--- a/config/database.yml
+++ b/config/database.yml
@@ -1,4 +1,4 @@
 production:
   adapter: postgresql
-  pool: 5
+  pool: 10
   timeout: 5000
```"""


def test_a_unified_diff_states_its_new_lines_in_their_file_and_block() -> None:
    units = {u.text: u for u in units_of(DIFF)}
    # the marker column is no indentation: the added line sits under ``production:``
    added, removed = units["pool: 10"], units["pool: 5"]
    assert added.content and added.path == "config/database.yml"
    assert added.context == ("config/database.yml", "production")
    assert not removed.content  # what the file no longer says
    assert ("pool", "is in config/database.yml > production", "10") in triples(DIFF)
    assert not any(o == "5" for s, _, o in triples(DIFF) if s == "pool")


def test_a_label_ending_on_a_key_scopes_the_block_under_it() -> None:
    payments = "In gateway.yaml, payments-svc:\n  upstream_timeout: 5s\n  retries: 1"
    search = "Further down the same gateway.yaml, search-svc:\n  upstream_timeout: 2s"
    assert ("upstream_timeout", "is in payments-svc", "5s") in triples(payments)
    assert ("upstream_timeout", "is in search-svc", "2s") in triples(search)
    # a path or a phrase after the comma names no key
    merged = 'merged the upgrade PR, dashboard/package.json:\n  "react": "^18.2.0",'
    assert all("dashboard" not in r for _, r, _ in triples(merged))


def test_a_renamed_section_is_replaced_and_its_lines_are_the_same_lines() -> None:
    old = "setup.cfg:\n[flake8]\nmax-line-length=99\n\n[wheel]\nuniversal = 1"
    new = old.replace("[wheel]", "[bdist_wheel]")
    al = align_units(units_of(old), units_of(new))
    # the section's name, and "universal = 1" under it: the same words under another name
    assert [(f.old_value, f.new_value) for f in al.frames] == [
        ("[wheel]", "[bdist_wheel]"),
        ("[wheel] universal = 1", "[bdist_wheel] universal = 1"),
    ]
    assert al.frames[0].frame != al.frames[1].frame
    assert al.restated == [(2, 2)]
    yaml = "ci.yml:\n  - TARGET: x86_64\n  - TARGET: i686\nlnstall:\n  - curl -sSf -o init.exe x\n"
    found = align_units(units_of(yaml), units_of(yaml.replace("lnstall:", "install:"))).frames
    assert (found[0].old_value, found[0].new_value) == ("lnstall:", "install:")
    assert len(found) == 2
    # a list's key: jsonschema's format_nongpl extra renamed format-nongpl
    extra = 'pyproject.toml:\n  "webcolors>=1.11",\n]\nformat_nongpl = [\n  "fqdn",\n  "idna",'
    renamed = align_units(units_of(extra), units_of(extra.replace("_nongpl", "-nongpl"))).frames
    assert (renamed[0].old_value, renamed[0].new_value) == (
        "format_nongpl = [",
        "format-nongpl = [",
    )
    # a key whose case changed (rubocop's include: -> Include:): its line is replaced too
    cop = "config/default.yml:\n  Enabled: false\n  VersionAdded: '2.10'\n  include:\n    - db/*.rb"
    cased = align_units(units_of(cop), units_of(cop.replace("include", "Include")))
    assert [f.new_value for f in cased.frames] == ["Include:", "Include: - db/*.rb"]
    assert cased.restated == [(1, 1), (2, 2)]
    # another change elsewhere in the excerpt: not one renamed block
    other = new.replace("max-line-length=99", "max-line-length=120")
    assert [f.old_value for f in align_units(units_of(old), units_of(other)).frames] == ["99"]
    # too little around it
    short = "setup.cfg:\n[wheel]\nuniversal = 1"
    short_new = short.replace("[wheel]", "[bdist_wheel]")
    assert align_units(units_of(short), units_of(short_new)).frames == []


def test_the_one_element_of_a_list_shown_whole_is_replaced_in_place() -> None:
    def found(old: str, new: str) -> list[tuple[str, str]]:
        al = align_units(units_of(old), units_of(new))
        return [(f.old_value, f.new_value) for f in al.frames]

    old = ".travis.yml:\ngo:\n  - 1.6.3\n\nbranches:"
    assert found(old, old.replace("1.6.3", "1.8.1")) == [("- 1.6.3", "- 1.8.1")]
    # the list's end not shown: another element may follow, and may be the one that stays
    assert found(".travis.yml:\ngo:\n  - 1.6.3", ".travis.yml:\ngo:\n  - 1.8.1") == []
    # one of several elements: its key before it and the next element after it place it
    many = ".travis.yml:\ngo:\n  - 1.6.3\n  - 1.7\n\nbranches:"
    assert found(many, many.replace("1.6.3", "1.8.1")) == [("- 1.6.3", "- 1.8.1")]
    # ... unless the old element is still in the list, moved
    moved = many.replace("  - 1.7\n", "  - 1.7\n  - 1.6.3\n").replace("- 1.6.3", "- 1.8.1", 1)
    assert found(many, moved) == []


def _replaced(old: str, new: str) -> list[tuple[str, str]]:
    al = align_units(units_of(old), units_of(new))
    return [(f.old_value, f.new_value) for f in al.frames]


def test_a_yaml_sequence_at_its_keys_indent_is_the_keys() -> None:
    text = "ci.yml:\non:\n  push:\n    branches:\n    - main\n    - dev\n    tags:\n    - v*\n"
    contexts = {u.text: u.context for u in units_of(text)}
    assert contexts["- main"] == contexts["- dev"] == ("ci.yml", "on", "push", "branches")
    assert contexts["- v*"] == ("ci.yml", "on", "push", "tags")
    assert contexts["tags:"] == ("ci.yml", "on", "push")
    # not in other line-oriented files, where a dash under a label is a bullet of text
    notes = {u.text: u.context for u in units_of("NOTES.md:\nbranches:\n- main\n")}
    assert notes["- main"] == ("NOTES.md",)


def test_the_one_element_of_a_compact_or_closed_list_is_replaced_in_place() -> None:
    compact = ".github/workflows/CI.yml:\n  push:\n    branches:\n    - master\n  pull_request: {}"
    assert _replaced(compact, compact.replace("master", "main")) == [("- master", "- main")]
    # each excerpt shows the list whole, whatever follows it in each
    old = '.github/workflows/docker.yml:\n  push:\n    branches:\n      - "master"\n\njobs:'
    new = '.github/workflows/docker.yml:\n  push:\n    branches:\n      - "main"\n  release:\n'
    assert _replaced(old, new + "    types: created") == [('- "master"', '- "main"')]
    # the new list goes on past the excerpt: the old element may still be in it
    assert _replaced(old, new.replace("  release:\n", '      - "v2"\n')) == []


def test_a_top_level_lists_first_element_is_placed_by_its_key_and_the_next() -> None:
    old = ".travis.yml:\ngo:\n  - 1.9.x\n  - tip"
    assert _replaced(old, old.replace("1.9.x", '"1.11.x"')) == [("- 1.9.x", '- "1.11.x"')]
    # a nested key may name a list of one of several blocks: two lines do not place it
    nested = ".travis.yml:\n  go:\n    - 1.9.x\n    - tip"
    assert _replaced(nested, nested.replace("1.9.x", "1.11.x")) == []


def test_a_yaml_anchor_keys_the_list_element_it_names() -> None:
    travis = ".travis.yml:\nrvm:\n  - &ruby1 2.6.0\n  - &jruby jruby-9.2.7.0\n  - &base\n"
    assert triples(travis) == [
        ("&ruby1", "is in .travis.yml > rvm", "2.6.0"),
        ("&jruby", "is in .travis.yml > rvm", "jruby-9.2.7.0"),
    ]
    # an alias refers to a node, and a text file's "&" is a word
    assert triples(".travis.yml:\nrvm:\n  - *jruby") == []
    assert triples("notes.md:\n- &jruby jruby-9.2.7.0") == []


def test_an_element_between_elements_of_its_list_is_replaced_in_place() -> None:
    old = ".travis.yml:\n  - 2.4.5\n  - 2.5.5\n  - 2.6.2\n  - ruby-head\n  - rbx-3"
    new = ".travis.yml:\n  - 2.4.6\n  - 2.5.5\n  - 2.6.3\n  - ruby-head\n  - rbx-3"
    # the first element sits at the excerpt's edge: another may stand before it
    assert _replaced(old, new) == [("- 2.6.2", "- 2.6.3")]
    # the list's keys before it count as its place, an element after it
    matrix = "main.yml:\n      matrix:\n        node-version:\n          - 20\n          - 18\n"
    assert _replaced(matrix + "          - 16", matrix.replace("20", "22") + "        os:") == [
        ("- 20", "- 22")
    ]
    # two lines around it are too few; a line of another block is no element of the list
    short = ".travis.yml:\n  - 2.5.5\n  - 2.6.2\n  - ruby-head"
    assert _replaced(short, short.replace("2.6.2", "2.6.3")) == []
    # an element's own lines under it are passed over to the next element
    hooks = '.pre-commit-config.yaml:\n  hooks:\n    - id: ruff\n      args: ["--fix"]\n'
    hooks += "    - id: ruff-format"
    assert _replaced(hooks, hooks.replace("id: ruff\n", "id: ruff-check\n")) == [
        ("- id: ruff", "- id: ruff-check")
    ]
    # what follows the list's end is no part of its place
    mixed = ".travis.yml:\n  - 2.5.5\n  - 2.6.2\n  - ruby-head\nbranches:\n  - main"
    assert _replaced(mixed, mixed.replace("2.6.2", "2.6.3")) == [("- 2.6.2", "- 2.6.3")]
    # an element replaced by two: the first takes its place
    rvm = ".travis.yml:\nscript: bundle exec rake ci\nrvm:\n  - 2.2.3\n  - ruby-head\n  - rbx-2"
    newer = rvm.replace("  - 2.2.3\n", "  - 2.2.4\n  - 2.3.0\n").removesuffix("\n  - rbx-2")
    assert _replaced(rvm, newer) == [("- 2.2.3", "- 2.2.4")]
    # ... the one most like it, where it is not the first
    ruby = "test.yaml:\n  - '3.1'\n  - '3.2'\n  - jruby\n  - truffleruby-head\ninclude:"
    rubies = ruby.replace("  - '3.1'\n", "").replace("- jruby\n", "- '3.3'\n  - jruby-head\n")
    assert _replaced(ruby, rubies) == [("- jruby", "- jruby-head")]
    # bullets of a text file are lines of prose, not a list's values
    md = "NOTES.md:\n- alpha\n- beta\n- gamma\n- delta"
    assert _replaced(md, md.replace("gamma", "omega")) == []


def test_an_absolute_path_heads_an_excerpt() -> None:
    assert file_header("/etc/logrotate.d/shopfront:") == "/etc/logrotate.d/shopfront"
    assert file_header("/health:") is None  # a route, not a file


def test_a_label_naming_the_file_reads_its_lines_as_that_files() -> None:
    old = (
        "/etc/logrotate.d/shopfront:\n"
        "/var/log/shopfront/*.log {\n    daily\n    rotate 7\n    compress"
    )
    new = (
        "Changed /etc/logrotate.d/shopfront for the audit requirement:\n"
        "/var/log/shopfront/*.log {\n    daily\n    rotate 30\n    compress"
    )
    al = align_units(units_of(old), units_of(new))
    assert [(f.old_value, f.new_value) for f in al.frames] == [("7", "30")]
    # a label naming another file leaves the lines apart
    other = new.replace("/etc/logrotate.d/shopfront", "/etc/logrotate.d/backoffice")
    assert align_units(units_of(old), units_of(other)).frames == []


def test_array_tables_are_named_as_a_lines_context_names_them() -> None:
    from gcmem.facts.lines import array_tables

    text = 'Cargo.toml:\n[[Example]]\nname = "gateway"\n[package]\nname = "hyper"'
    assert array_tables(text) == {"example"}
    assert array_tables("[example]\nname = 1") == frozenset()


def test_a_bracketed_line_of_source_code_is_a_list_literal_not_a_section() -> None:
    lines = ["    pairs = [", "        [key, value]", "        for key, value in items()", "    ]"]
    text = "app/client.py:\n" + "\n".join(lines)
    where = [w for w in describe(split_units(text)) if w]
    assert all("key, value" not in w.context for w in where)
    assert [
        w.content for w in where if w.text in ("[key, value]", "for key, value in items()")
    ] == [
        True,
        True,
    ]
    # in a config file it is a section
    ini = [w for w in describe(split_units("setup.cfg:\n[metadata]\nname = x")) if w]
    assert ini[-1].context == ("metadata",)


def test_a_yaml_flow_sequence_is_a_line_not_a_section() -> None:
    matrix = (
        ".github/workflows/test.yml:\n        os: [Ubuntu, Windows, macOS]\n"
        '        python_version:\n          ["3.10", "{}", "pypy3.9"]\n\n    steps:'
    )
    where = [w for w in describe(split_units(matrix.format("3.11-dev"))) if w]
    listed = next(w for w in where if w.text.startswith("["))
    assert listed.content and listed.context == ("python_version",)
    # so a newer excerpt that edits one element replaces the line in place
    [m] = align_units(units_of(matrix.format("3.11-dev")), units_of(matrix.format("3.11"))).frames
    assert '"3.11-dev"' in m.old_value and '"3.11"' in m.new_value


def test_an_indented_line_that_names_a_file_is_a_line_of_the_open_excerpt() -> None:
    cfg = "setup.cfg:\n[metadata]\nlicense_files =\n   {}\n\n[tool:pytest]"
    where = [w for w in describe(split_units(cfg.format("LICENSE.txt"))) if w]
    assert {w.path for w in where} == {"setup.cfg"}
    [m] = align_units(
        units_of(cfg.format("LICENSES/*")), units_of(cfg.format("LICENSE.txt"))
    ).frames
    assert (m.old_value, m.new_value) == ("LICENSES/*", "LICENSE.txt")
    # at a line's start it still names the next file
    two = "setup.cfg:\n[metadata]\nname = x\nLICENSE.txt\nMIT"
    assert [w.path for w in describe(split_units(two)) if w][-1] == "LICENSE.txt"


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("config.yml:\nreplicas: 3  # scaled for launch", ("replicas", "is in config.yml", "3")),
        ("settings.py:\nTIMEOUT = 5  # seconds", ("timeout", "is in settings.py", "5")),
        (
            ".github/workflows/release.yml:\n      uses: pypa/gh-action-pypi-publish@67339c7 # v1",
            ("pypa/gh-action-pypi-publish", "version in .github/workflows/release.yml", "67339c7"),
        ),
        ('app.js:\nconst URL = "http://x"; // api', ("const url", "is in app.js", "http://x")),
        # a marker in quotes or not after a space is the value's
        ('config.yml:\ncolor: "#fff"', ("color", "is in config.yml", "#fff")),
        ("config.yml:\nurl: http://a/#b", ("url", "is in config.yml", "http://a/#b")),
    ],
)
def test_a_comment_after_a_line_is_no_part_of_its_value(
    text: str, fact: tuple[str, str, str]
) -> None:
    assert triples(text) == [fact]


def test_a_diff_fence_strips_the_marker_column() -> None:
    old = "Diff to the worker's .env:\n```diff\n QUEUE=jobs\n+BATCH_SIZE=50\n LOG=info\n```"
    new = "Worker .env now:\n```\nQUEUE=jobs\nBATCH_SIZE=200\nLOG=info\n```"
    [m] = align_units(units_of(old), units_of(new)).frames
    assert (m.frame, m.old_value, m.new_value) == ("BATCH_SIZE = _", "50", "200")


def test_a_block_pasted_without_a_path_is_compared_by_its_lines_places() -> None:
    block = ["```", "Host build-box", "  HostName 10.1.2.3", "  User ci"]
    old = units_of("\n".join(["Entry for the build box:", *block, "  Port 2200", "```"]))
    new = units_of("\n".join(["The entry is now", *block, "  Port 40022", "```"]))
    [m] = align_units(old, new).frames
    # the ``Host`` stanza is the context of its lines: the value is the port, keyed by it
    assert (m.frame, m.old_value, m.new_value) == ("host build-box > port _", "2200", "40022")
    # a line whose neighbours differ has no place: another entry's Port line
    other = units_of("\n".join(["```", "Host gpu-box", "  HostName 10.9.9.9", "  User ml"]))
    other_new = units_of("\n".join(["```", "Host gpu-box", "  HostName 10.9.9.9", "  User ml"]))
    assert align_units(old, other).frames == []
    assert align_units(other, other_new).frames == []


def test_a_command_that_sets_a_key_names_the_key_first() -> None:
    def frames(old: str, new: str) -> list[tuple[str, str]]:
        found = align_units(units_of(old), units_of(new)).frames
        return [(f.old_value, f.new_value) for f in found]

    base = "```\n$ redis-cli -h jobs-redis CONFIG SET {}\nOK\n```"
    assert frames(base.format("maxmemory 6gb"), base.format("appendfsync always")) == []
    assert frames(base.format("maxmemory 6gb"), base.format("maxmemory 8gb")) == [("6gb", "8gb")]


def test_a_terraform_plan_update_marker_is_no_part_of_the_key() -> None:
    plan = "terraform plan: aws_instance.web will be updated in-place\n"
    plan += '  ~ instance_type = "c6i.xlarge"'
    [line] = [u for u in units_of(plan) if u.line]
    assert line.text == 'instance_type = "c6i.xlarge"'
    assert ("instance_type", "is", "c6i.xlarge") in {
        (f.subject, f.relation, f.object) for f in extract_triples(line.text)
    }
    # a plan shows the old value and the new one: the line states the new
    arrow = units_of('```\n  ~ backup_window = "03:00-04:00" -> "01:00-02:00"\n```')
    assert [u.text for u in arrow if u.content] == ['backup_window = "01:00-02:00"']


def _fenced(*lines: str) -> str:
    return "```\n" + "\n".join(lines) + "\n```"


def test_a_bare_header_keeps_two_files_settings_apart(memory: Memory) -> None:
    payments = _fenced(
        "# services/payments/values.yaml", "replicaCount: 6", "resources:", "  cpu: 2"
    )
    notifications = _fenced("# services/notifications/values.yaml", "replicaCount: 2")
    memory.ingest(
        [
            Turn(id="payments", namespace=NS, text=payments, ts=T0),
            Turn(
                id="notifications",
                namespace=NS,
                text=notifications + "\nnotifications is tiny, no reason to give it more",
                ts=T0 + timedelta(days=7),
            ),
        ]
    )
    result = memory.retrieve("How many replicas does payments run?", namespace=NS, k=10)
    assert outcome(result) == {"payments": "kept", "notifications": "kept"}
    assert stale_lines(result)["payments"] == []


def test_a_bare_header_still_lets_its_file_change(memory: Memory) -> None:
    old = _fenced("# services/payments/values.yaml", "replicaCount: 6", "image: payments:1.4")
    new = _fenced("# services/payments/values.yaml", "replicaCount: 8", "image: payments:1.4")
    memory.ingest(
        [
            Turn(id="old", namespace=NS, text=old, ts=T0),
            Turn(id="new", namespace=NS, text=new, ts=T0 + timedelta(days=7)),
        ]
    )
    result = memory.retrieve("How many replicas does payments run?", namespace=NS, k=10)
    assert outcome(result)["new"] == "kept"
    assert outcome(result)["old"] == "dropped" or any(
        "replicaCount: 6" in line for line in stale_lines(result).get("old", [])
    )


def test_a_second_nameserver_line_adds_an_address(memory: Memory) -> None:
    memory.ingest(
        [
            Turn(
                id="first",
                namespace=NS,
                text=_fenced("# /etc/resolv.conf", "nameserver 10.20.0.2", "search corp.internal"),
                ts=T0,
            ),
            Turn(
                id="second",
                namespace=NS,
                text=_fenced("# /etc/resolv.conf", "nameserver 10.20.0.3")
                + "\nthat's the secondary in the other AZ, appended under the first",
                ts=T0 + timedelta(days=8),
            ),
        ]
    )
    result = memory.retrieve("What is the primary nameserver?", namespace=NS, k=10)
    assert outcome(result) == {"first": "kept", "second": "kept"}
    assert stale_lines(result)["first"] == []


@pytest.mark.parametrize(
    "lead",
    ["Draft PR #4412:", "Proposal (not merged):", "WIP, do not merge:", "Up for review:"],
)
def test_a_proposed_excerpt_changes_no_line(memory: Memory, lead: str) -> None:
    current = _fenced("# .env.production", "LOG_LEVEL=warn", "SENTRY_SAMPLE_RATE=0.2")
    proposed = lead + "\n" + _fenced("# .env.production", "SENTRY_SAMPLE_RATE=1.0")
    memory.ingest(
        [
            Turn(id="current", namespace=NS, text=current, ts=T0),
            Turn(id="proposed", namespace=NS, text=proposed, ts=T0 + timedelta(days=4)),
        ]
    )
    result = memory.retrieve("What is the Sentry sample rate?", namespace=NS, k=10)
    assert outcome(result) == {"current": "kept", "proposed": "kept"}
    assert stale_lines(result)["current"] == []


def test_a_merged_excerpt_changes_its_line(memory: Memory) -> None:
    current = _fenced("# .env.production", "LOG_LEVEL=warn", "SENTRY_SAMPLE_RATE=0.2")
    merged = "PR #4412 merged:\n" + _fenced("# .env.production", "SENTRY_SAMPLE_RATE=1.0")
    memory.ingest(
        [
            Turn(id="current", namespace=NS, text=current, ts=T0),
            Turn(id="merged", namespace=NS, text=merged, ts=T0 + timedelta(days=4)),
        ]
    )
    result = memory.retrieve("What is the Sentry sample rate?", namespace=NS, k=10)
    assert outcome(result)["merged"] == "kept"
    assert any("SENTRY_SAMPLE_RATE=0.2" in line for line in stale_lines(result)["current"])


def test_a_path_alone_above_a_fence_heads_the_block() -> None:
    fenced = units_of("charts/gateway/values.yaml\n```yaml\nimage:\n  tag: v1.18.3\n```")
    assert [u.path for u in fenced if u.text.startswith("tag")] == ["charts/gateway/values.yaml"]
    # above bare lines the path line may be a caption: the lines stay unqualified
    bare = units_of("k8s/api/deployment.yaml\nspec:\n  replicas: 3")
    assert [u.path for u in bare if u.text.startswith("replicas")] == [None]
    # a sentence that names a path heads nothing
    said = units_of("I edited k8s/api/deployment.yaml today.\n```\nspec:\n  replicas: 3\n```")
    assert [u.path for u in said if u.text.startswith("replicas")] == [None]


def _two(memory: Memory, older: str, newer: str) -> dict[str, str]:
    memory.ingest(
        [
            Turn(id="older", namespace=NS, text=older, ts=T0),
            Turn(id="newer", namespace=NS, text=newer, ts=T0 + timedelta(days=9)),
        ]
    )
    result = memory.retrieve("Which value is set?", namespace=NS, k=10)
    lines = stale_lines(result)
    return {tid: "kept" if not lines.get(tid) else "excised" for tid in lines} | {
        d.chunk.chunk.turn_id: "dropped" for d in result.dropped
    }


def test_two_charts_named_above_their_blocks_are_two_files(memory: Memory) -> None:
    gateway = "charts/gateway/values.yaml\n" + _fenced(
        "image:", "  repository: ghcr.io/northwind/gateway", "  tag: v1.18.3"
    )
    auth = "charts/auth/values.yaml\n" + _fenced(
        "image:", "  repository: ghcr.io/northwind/auth", "  tag: v0.9.12"
    )
    assert _two(memory, gateway, auth) == {"older": "kept", "newer": "kept"}


def test_another_package_by_its_name_is_another_owner(memory: Memory) -> None:
    ui_kit = "packages/ui-kit/package.json\n" + _fenced(
        "{", '  "name": "@lumen/ui-kit",', '  "version": "3.2.0",', '  "main": "dist/index.js"', "}"
    )
    date_utils = (
        _fenced('  "name": "@lumen/date-utils",', '  "version": "1.7.4"')
        + "\nthat's packages/date-utils/package.json"
    )
    assert _two(memory, ui_kit, date_utils) == {"older": "kept", "newer": "kept"}


def test_the_same_package_by_its_name_changes_its_version(memory: Memory) -> None:
    old = _fenced('  "name": "@lumen/ui-kit",', '  "version": "3.2.0",', '  "private": false')
    new = _fenced('  "name": "@lumen/ui-kit",', '  "version": "3.3.0",', '  "private": false')
    assert _two(memory, old, new)["older"] in ("dropped", "excised")


def test_two_elements_of_a_toml_array_of_tables_are_two_things(memory: Memory) -> None:
    internal = (
        "```toml\n"
        + "\n".join(
            [
                "[[tool.poetry.source]]",
                'name = "internal"',
                'url = "https://pypi.corp.example/simple/"',
                'priority = "supplemental"',
            ]
        )
        + "\n```"
    )
    torch = (
        "Second source for the torch wheels:\n```toml\n"
        + "\n".join(
            [
                "[[tool.poetry.source]]",
                'name = "pytorch-cu121"',
                'url = "https://download.pytorch.org/whl/cu121"',
                'priority = "explicit"',
            ]
        )
        + "\n```"
    )
    assert _two(memory, internal, torch) == {"older": "kept", "newer": "kept"}


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            _fenced("env:", "  - name: FEATURE_FLAGS_URL", "    value: http://unleash:4242/api"),
            "orders-svc got `- name: OTEL_EXPORTER_OTLP_ENDPOINT` with "
            "`value: http://otel-collector:4317`",
        ),
        (
            _fenced("scrape_configs:", "  - job_name: node", "    targets: ['10.1.0.5:9100']"),
            _fenced("  - job_name: blackbox", "    targets: ['https://shop.example.com']"),
        ),
        (
            _fenced("ingress:", "  hosts:", "    - host: shop.example.dev", "      tls: true"),
            "added the German store under ingress.hosts:\n"
            + _fenced("    - host: shop.example.de", "      tls: true"),
        ),
        # two classes of one module, the same constant in each (a fence's language keys an
        # indented binding as a .py file's: local to its block)
        (
            "```python\nclass SlackNotifier(BaseNotifier):\n    RATE_LIMIT_PER_MIN = 55\n"
            "    channel = '#ops-alerts'\n```",
            "same module, further down:\n```python\nclass PagerDutyNotifier(BaseNotifier):\n"
            "    RATE_LIMIT_PER_MIN = 120\n    routing_key = os.environ['PD_KEY']\n```",
        ),
        # two named blocks of code
        (
            "```rust\nimpl Default for IngestConfig {\n    fn default() -> Self {\n"
            "        Self { batch_size: 512, flush_ms: 200 }\n    }\n}\n```",
            "```rust\nimpl Default for CompactionConfig {\n    fn default() -> Self {\n"
            "        Self { batch_size: 48, max_level: 4 }\n    }\n}\n```",
        ),
        # elements of a TOML array of tables and items of a YAML list of mappings, in notes
        # that name no file: each element's first line says which one it is
        (
            "notifier routes.toml:\n[[route]]\nmatch = 'billing'\nreceiver = 'finance-oncall'",
            "routes.toml, another one:\n[[route]]\nmatch = 'search'\nreceiver = 'search-team'",
        ),
        (
            "proxy.yaml, orders route:\n  - name: orders\n    upstream: http://orders:8080\n"
            "    timeout: 5s",
            "proxy.yaml, images route:\n  - name: images\n    upstream: http://imgproxy:9000\n"
            "    timeout: 30s",
        ),
    ],
)
def test_list_entries_named_apart_are_two_entries(memory: Memory, older: str, newer: str) -> None:
    assert _two(memory, older, newer) == {"older": "kept", "newer": "kept"}


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "notifier routes.toml:\n[[route]]\nmatch = 'billing'\nreceiver = 'finance-oncall'",
            "routes.toml now:\n[[route]]\nmatch = 'billing'\nreceiver = 'finance-team'",
        ),
        (
            "proxy.yaml, orders route:\n  - name: orders\n    upstream: http://orders:8080\n"
            "    timeout: 5s",
            "proxy.yaml, orders route:\n  - name: orders\n    upstream: http://orders:8080\n"
            "    timeout: 8s",
        ),
    ],
)
def test_one_element_edited_is_a_change(memory: Memory, older: str, newer: str) -> None:
    assert _two(memory, older, newer)["older"] in ("dropped", "excised")


ORDERS = "from rds.tf:\n" + _fenced(
    'resource "aws_db_instance" "orders" {',
    '  engine         = "postgres"',
    '  instance_class = "db.r6g.2xlarge"',
    "  multi_az       = true",
    "}",
)


def test_a_line_said_to_be_another_things_states_no_older_key(memory: Memory) -> None:
    other = "the reporting replica is its own resource in the same file:\n" + _fenced(
        '  instance_class = "db.t4g.large"'
    )
    assert _two(memory, ORDERS, other) == {"older": "kept", "newer": "kept"}


def test_a_line_with_less_context_still_states_the_older_key(memory: Memory) -> None:
    bumped = "bumped the orders instance for the sale:\n" + _fenced(
        '  instance_class = "db.r6g.4xlarge"'
    )
    assert _two(memory, ORDERS, bumped)["older"] in ("dropped", "excised")


def test_a_renamed_block_is_still_a_rename(memory: Memory) -> None:
    body = ("    RATE_LIMIT_PER_MIN = 55", "    channel = '#ops-alerts'")
    old = "```python\nclass SlackNotifier(BaseNotifier):\n" + "\n".join(body) + "\n```"
    new = "```python\nclass TeamNotifier(BaseNotifier):\n" + "\n".join(body) + "\n```"
    assert _two(memory, old, new)["older"] in ("dropped", "excised")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "services/worker/.env\n"
            + _fenced("QUEUE_URL=amqp://rabbit:5672", "LOG_LEVEL=debug", "PREFETCH=20"),
            "services/api/.env\n"
            + _fenced("PORT=8080", "LOG_LEVEL=info", "DATABASE_URL=postgres://db/app"),
        ),
        (
            "/etc/systemd/system/log-shipper.service\n"
            + _fenced(
                "[Service]", "ExecStart=/usr/bin/vector", "Restart=on-failure", "RestartSec=30"
            ),
            "/etc/systemd/system/metrics-agent.service\n"
            + _fenced(
                "[Service]", "ExecStart=/opt/agent/bin/agent", "Restart=always", "RestartSec=5"
            ),
        ),
    ],
)
def test_two_files_named_above_their_blocks_are_two_files(
    memory: Memory, older: str, newer: str
) -> None:
    assert _two(memory, older, newer) == {"older": "kept", "newer": "kept"}


EXPORTER = _fenced(
    "# /etc/systemd/system/metrics-exporter.service",
    "[Service]",
    "ExecStart=/opt/exporter/bin/exporter --listen=:9105",
    "Restart=always",
)


@pytest.mark.parametrize(
    ("newer", "superseded"),
    [
        ("log-shipper.service has `ExecStart=/usr/local/bin/vector --config /etc/v.toml`", False),
        ("metrics-exporter.service has `ExecStart=/opt/exporter/bin/exporter2 --verbose`", True),
    ],
)
def test_a_sentence_naming_another_file_states_no_key_of_this_one(
    memory: Memory, newer: str, superseded: bool
) -> None:
    assert _two(memory, EXPORTER, newer)["older"] == ("excised" if superseded else "kept")


def test_a_snippet_pasted_without_its_path_may_be_the_named_files(memory: Memory) -> None:
    old = "# client/http.py\nMAX_RETRIES = 3\nBACKOFF_BASE = 0.5\nTIMEOUT = 10"
    new = "MAX_RETRIES = 5  # the carrier API is flaky in the mornings"
    assert _two(memory, old, new)["older"] in ("dropped", "excised")


def test_only_the_texts_own_words_call_an_excerpt_a_proposal() -> None:
    assert proposed("Draft PR #4412:\n```\nSENTRY_SAMPLE_RATE=1.0\n```")
    assert proposed("```\nLOG_LEVEL=debug\n```\nIn review, do not merge yet.")
    # a file's own lines say "draft" or "review" as keys and comments
    assert not proposed(".github/release.yml:\ndraft: false\nreview_required: true")
    assert not proposed("src/app.py:\n# WIP markers are stripped here\nMAX_RETRIES = 3")


def test_a_fences_language_is_the_file_type_where_no_path_says_it() -> None:
    fenced = units_of("```python\nclass Notifier:\n    LIMIT = 5\n```")
    assert [u.keyed for u in fenced if u.text.startswith("LIMIT")] == [False]
    # untagged, or a config language: the indented line keeps its own key
    bare = units_of("```\nclass Notifier:\n    LIMIT = 5\n```")
    assert [u.keyed for u in bare if u.text.startswith("LIMIT")] == [True]


@pytest.mark.parametrize(
    ("older_path", "newer_path", "superseded"),
    [
        ("services/api/.env", "services/worker/.env", False),  # two files: two keys
        ("services/worker/.env", "services/worker/.env", True),
        ("services/worker/.env", "worker/.env", True),  # the same file, a shorter path
    ],
)
def test_a_key_of_another_named_file_replaces_nothing(
    memory: Memory, older_path: str, newer_path: str, superseded: bool
) -> None:
    older = f"{older_path}\nPORT=8080\nLOG_LEVEL=info\nDATABASE_URL=postgres://db/app"
    newer = f"{newer_path}\nQUEUE_URL=amqp://rabbit:5672\nLOG_LEVEL=debug\nPREFETCH=20"
    memory.ingest([Turn(id="old", namespace=NS, text=older, ts=T0)])
    memory.ingest([Turn(id="new", namespace=NS, text=newer, ts=T0 + timedelta(days=3))])
    result = memory.retrieve("What LOG_LEVEL does the worker use?", namespace=NS, k=10)
    assert outcome(result) == {"old": "kept", "new": "kept"}
    assert stale_lines(result)["old"] == (["LOG_LEVEL=info"] if superseded else [])


def test_an_ini_key_names_nothing_outside_a_section_the_excerpt_shows() -> None:
    # every key of an INI file sits in a section, and tox.ini has ``commands =`` in each
    assert triples("tox.ini:\ndeps = flake8\ncommands = flake8") == []
    assert triples("setup.cfg:\nmax-line-length = 88") == []
    assert triples("tox.ini:\n[testenv:lint]\ncommands = flake8") == [
        ("commands", "is in tox.ini > testenv:lint", "flake8")
    ]


def test_a_command_of_another_tox_section_is_no_old_value(memory: Memory) -> None:
    bench = "tox.ini:\ncommands = falcon-bench {posargs}\n\n[testenv:py33_bench_cython]"
    lint = "tox.ini:\ndeps = flake8\ncommands = flake8 \\\n             --max-complexity={} \\"
    memory.ingest([Turn(id="old", namespace=NS, text=lint.format(12), ts=T0)])
    memory.ingest([Turn(id="bench", namespace=NS, text=bench, ts=T0 + timedelta(days=1))])
    memory.ingest([Turn(id="new", namespace=NS, text=lint.format(15), ts=T0 + timedelta(days=3))])
    result = memory.retrieve("What is max-complexity in tox.ini?", namespace=NS, k=10)
    assert outcome(result) == {"old": "dropped", "bench": "kept", "new": "kept"}


@pytest.mark.parametrize(
    ("above", "old"),
    [
        ("[testenv:docs]", "dropped"),
        # a continuation line where the header was: three plain lines name no place
        ("    sphinx", "kept"),
    ],
)
def test_a_section_header_places_a_renamed_key_under_it(
    memory: Memory, above: str, old: str
) -> None:
    docs = "tox.ini:\n" + above + "\n{} =\n    make\ncommands ="
    memory.ingest([Turn(id="old", namespace=NS, text=docs.format("whitelist_externals"), ts=T0)])
    renamed = docs.format("allowlist_externals")
    memory.ingest([Turn(id="new", namespace=NS, text=renamed, ts=T0 + timedelta(days=3))])
    result = memory.retrieve("external commands allowed in tox.ini", namespace=NS, k=10)
    assert outcome(result) == {"old": old, "new": "kept"}


LICENSE_KEY = ["[metadata]", "license_file = LICENSE"]


@pytest.mark.parametrize(
    ("new", "found"),
    [
        # the newer excerpt shows the section's end: the renamed key is its one line
        (["[metadata]", "license_files = LICENSE", "", "[flake8]"], True),
        (["[metadata]", "license_files = LICENSE", "[flake8]"], True),
        # the section goes on: the old line may sit further down
        (["[metadata]", "license_files = LICENSE", "name = mkdocs"], False),
        # the newer excerpt ends at the line too: nothing places its end
        (["[metadata]", "license_files = LICENSE"], False),
        # an array of tables names many elements, not one place
        (["[[metadata]]", "license_files = LICENSE", "", "[flake8]"], False),
    ],
)
def test_the_first_line_of_a_section_is_placed_by_its_header(new: list[str], found: bool) -> None:
    old = LICENSE_KEY if not new[0].startswith("[[") else ["[[metadata]]", LICENSE_KEY[1]]
    pairs = replaced(excerpt("setup.cfg", old), excerpt("setup.cfg", new))
    assert pairs == ([("license_file = LICENSE", "license_files = LICENSE")] if found else [])


@pytest.mark.parametrize(("above", "found"), [("[testenv:docs]", True), ("deps = sphinx", False)])
def test_a_line_right_under_a_section_header_with_a_line_after_it_is_placed(
    above: str, found: bool
) -> None:
    # one line on either side; only a section header (once in its file) places the line
    old = [above, "whitelist_externals = make", "commands = make html"]
    new = [above, "allowlist_externals = make", "commands = make html"]
    pairs = replaced(excerpt("tox.ini", old), excerpt("tox.ini", new))
    assert pairs == ([(old[1], new[1])] if found else [])


def test_a_comment_line_of_a_file_states_no_setting(memory: Memory) -> None:
    # rubocop's todo file notes each cop's offense count in a comment above it: one shape,
    # many cops; and a commented-out setting is not in effect
    assert triples(".rubocop_todo.yml:\n# Offense count: 14\n# Cop supports --auto-correct.") == []
    assert triples("app/config.yml:\n# port: 80\nport: 8080") == [
        ("port", "is in app/config.yml", "8080")
    ]
    todo = ".rubocop_todo.yml:\n\n# Offense count: {}\n# Cop supports --auto-correct.\n{}:"
    memory.ingest([Turn(id="next", namespace=NS, text=todo.format(14, "Style/Next"), ts=T0)])
    later = todo.format(1, "Lint/SuppressedException")
    memory.ingest([Turn(id="lint", namespace=NS, text=later, ts=T0 + timedelta(days=3))])
    result = memory.retrieve("offense count in .rubocop_todo.yml", namespace=NS, k=10)
    assert outcome(result) == {"next": "kept", "lint": "kept"}
    assert stale_lines(result) == {"next": [], "lint": []}


def test_a_file_line_opens_on_its_key_not_a_lead_in() -> None:
    # the inline table's ``version`` is rand's; the package's own ``version`` is another key
    dep = 'rand = {{ path = "..", version = "{}", features = ["small_rng"] }}'
    old = excerpt("rand_distr/Cargo.toml", [dep.format("=0.9.0-alpha.0"), "# Histogram"])
    package = ['name = "rand_distr"', 'version = "0.5.0-alpha.1"', 'authors = ["Rand"]']
    assert replaced(old, excerpt("rand_distr/Cargo.toml", package)) == []
    # in prose the few words first are a lead-in ("After the upgrade the port is ...")
    prose = align_units(
        units_of("The api service listens on port 8080 now."),
        units_of("After the upgrade, the api service listens on port 9090 now."),
    )
    assert [(f.old_value, f.new_value) for f in prose.frames] == [("8080", "9090")]


def test_a_value_replaced_in_one_block_is_no_mention_in_another(memory: Memory) -> None:
    # black's primer.json: tox's expect_formatting_changes went true -> false; ptr's stays true
    project = (
        'src/black_primer/primer.json:\n    "{}": {{\n      "cli_arguments": [],\n'
        '      "expect_formatting_changes": {},'
    )
    memory.ingest([Turn(id="tox", namespace=NS, text=project.format("tox", "true"), ts=T0)])
    ptr = project.format("ptr", "true")
    memory.ingest([Turn(id="ptr", namespace=NS, text=ptr, ts=T0 + timedelta(days=1))])
    later = project.format("tox", "false")
    memory.ingest([Turn(id="new", namespace=NS, text=later, ts=T0 + timedelta(days=3))])
    query = "What is expect_formatting_changes in src/black_primer/primer.json?"
    result = memory.retrieve(query, namespace=NS, k=10)
    assert outcome(result) == {"tox": "dropped", "ptr": "kept", "new": "kept"}
    assert stale_lines(result) == {"ptr": [], "new": []}


def test_an_indented_toml_key_names_nothing_outside_a_table_the_excerpt_shows() -> None:
    # towncrier's types are elements of an array of tables, each with its directory and name
    towncrier = 'pyproject.toml:\n    directory = "bugfix"\n    name = "Bug fixes"'
    assert triples(towncrier) == []
    assert triples('Cargo.toml:\nversion = "0.5.0"') == [("version", "is in cargo.toml", "0.5.0")]
    assert triples('pyproject.toml:\n[tool.x]\n  name = "a"') == [
        ("name", "is in pyproject.toml > tool.x", "a")
    ]
    # an indented array element assigns no key: its line aligns with the same element's
    old = excerpt("pyproject.toml", ['    "pyyaml",', '    "httpx>=0.22.0",', "]"])
    new = excerpt("pyproject.toml", ['    "pyyaml",', '    "httpx>=0.27.0,<0.29.0",', "]"])
    assert replaced(old, new) == [('"httpx>=0.22.0",', '"httpx>=0.27.0,<0.29.0",')]


def test_an_action_run_at_a_branch_or_channel_is_no_version_of_the_file() -> None:
    # one workflow's jobs run dtolnay/rust-toolchain at several channels side by side
    assert triples(".github/workflows/ci.yml:\n      - uses: dtolnay/rust-toolchain@nightly") == []
    assert triples(".github/workflows/ci.yml:\n      - uses: actions/checkout@v4") == [
        ("actions/checkout", "version in .github/workflows/ci.yml", "v4")
    ]


def test_two_keys_of_one_file_that_differ_in_name_are_two_keys() -> None:
    # libc's hermit.rs: SHUT_RDWR and AF_VSOCK are both 2; neither is the other renamed
    shut = excerpt("src/hermit.rs", ["pub const SHUT_RDWR: i32 = 2;", "", "pub const X: i32 = 4;"])
    af = excerpt("src/hermit.rs", ["pub const AF_INET6: i32 = 1;", "pub const AF_VSOCK: i32 = 2;"])
    assert replaced(shut, af) == []
    # a value of one key still changes wherever the excerpts sit
    moved = excerpt(
        "src/hermit.rs", ["pub const AF_INET6: i32 = 1;", "pub const SHUT_RDWR: i32 = 3;"]
    )
    assert replaced(shut, moved) == [
        ("pub const SHUT_RDWR: i32 = 2;", "pub const SHUT_RDWR: i32 = 3;")
    ]


def test_a_table_and_a_scalar_of_one_key_name_are_two_tables_keys() -> None:
    # retrofit's libs.versions.toml names robovm in [versions] and in [libraries]
    lib = 'robovm = { module = "com.mobidevelop.robovm:robovm-rt", version.ref = "robovm" }'
    libraries = excerpt("gradle/libs.versions.toml", ['jsoup = "x"', lib])
    versions = excerpt("gradle/libs.versions.toml", ['kotlin = "2.0.20"', 'robovm = "2.3.14"'])
    assert replaced(libraries, versions) == []


def test_a_json_member_two_levels_deep_without_its_opener_names_nothing() -> None:
    # conf's package.json: the author's "name", not the package's
    author = 'package.json:\n    "name": "Sindre Sorhus",\n    "email": "sindresorhus@gmail.com",'
    assert triples(author) == []
    assert triples('package.json:\n\t\t"name": "Sindre Sorhus",') == []
    # a version pin names its package wherever it sits (comma-first style too)
    assert units_of('package.json:\n    , "nopt": "1"')[1].keyed
    # one level deep it is the file's own, and its opener shown names its block
    assert triples('package.json:\n  "name": "conf",') == [("name", "is in package.json", "conf")]
    assert triples('package.json:\n  "author": {\n    "name": "Sindre Sorhus",') == [
        ("name", "is in package.json > author", "Sindre Sorhus")
    ]


def test_a_yaml_key_with_a_slash_is_a_key_of_the_file_not_another_file() -> None:
    # rubocop's cops: ``Lint/EndAlignment:`` opens a block of .rubocop.yml
    old = excerpt(
        ".rubocop.yml", ["Lint/EndAlignment:", "  Enabled: true", "  AlignWith: variable"]
    )
    assert {u.path for u in old} == {".rubocop.yml"}
    new = excerpt(
        ".rubocop.yml",
        ["Lint/EndAlignment:", "  Enabled: true", "  EnforcedStyleAlignWith: variable"],
    )
    assert replaced(old, new) == [("AlignWith: variable", "EnforcedStyleAlignWith: variable")]
    # a file's name still heads the next excerpt
    two = units_of("a.yml:\nx: 1\nb/c.yml:\ny: 2")
    assert [u.path for u in two] == ["a.yml", "a.yml", "b/c.yml", "b/c.yml"]


@pytest.mark.parametrize(
    ("value", "members"),
    [
        ('["3.9", "3.10"]', {"3.9", "3.10"}),
        ("['node-exporter:9100']", {"node-exporter:9100"}),
        ('["203.0.113.10/32"]  # office', {"203.0.113.10/32"}),
        ("[beta, stable, 1.36.0]", {"beta", "stable", "1.36.0"}),
        ("[]", None),
        ("Callable[[int], str]", None),  # a type's arguments, not a list
        ("3.9", None),
    ],
)
def test_list_members(value: str, members: set[str] | None) -> None:
    found = list_members(value)
    assert (None if found is None else set(found)) == members
    assert found is None or all(n == 1 for n in found.values())


def test_grown_list_is_members_added_never_one_removed() -> None:
    assert grown_list('["3.9"]', '["3.9", "3.10"]')
    assert grown_list("[a, b]", "[b, a]")  # reordered: the same members
    assert not grown_list("[a, b]", "[b, c]")
    assert not grown_list('["3.9"]', "3.10")
    assert not grown_list("[0, 2, 0]", "[0, 2, 9]")  # a version tuple's component changed
