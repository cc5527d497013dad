"""The real-history miner's criteria, on small synthetic line pairs and a synthetic git repo."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bench.real_history.criteria import (
    Span,
    check_pair,
    classify_path,
    differing_span,
    quantity_name,
    question_for,
    value_kind,
)
from bench.real_history.instances import build
from bench.real_history.mine import (
    licence_files,
    mine_repo,
    nearest,
    placed,
    restate,
    select,
    spdx_of,
)


def _span(path: str, old: str, new: str) -> Span:
    result = check_pair(path, old, new)
    assert isinstance(result, Span), result
    return result


@pytest.mark.parametrize(
    ("path", "old", "new", "old_value", "new_value", "kind"),
    [
        (
            "requests/adapters.py",
            "DEFAULT_POOLSIZE = 10",
            "DEFAULT_POOLSIZE = 20",
            "10",
            "20",
            "number",
        ),
        (
            "requirements.txt",
            "fastapi==0.110.0",
            "fastapi==0.111.2",
            "0.110.0",
            "0.111.2",
            "version",
        ),
        (
            "package.json",
            '    "debug": "2.6.9",',
            '    "debug": "4.3.4",',
            "2.6.9",
            "4.3.4",
            "version",
        ),
        (
            "app/api.py",
            "def get_proxy(url):",
            "def resolve_proxy(url):",
            "get_proxy",
            "resolve_proxy",
            "name",
        ),
        (
            "cmd/root.go",
            '\tflags.Bool("verbose", false, "")',
            '\tflags.Bool("verbose", true, "")',
            "false",
            "true",
            "boolean",
        ),
        (
            ".github/ci.yml",
            "  - uses: actions/checkout@v3",
            "  - uses: actions/checkout@v4",
            "v3",
            "v4",
            "version",
        ),
        (
            "app/routes.py",
            '@app.route("/api/v1/users")',
            '@app.route("/api/v2/users")',
            "v1",
            "v2",
            "version",
        ),
    ],
)
def test_atomic_value_changes_are_accepted(
    path: str, old: str, new: str, old_value: str, new_value: str, kind: str
) -> None:
    span = _span(path, old, new)
    assert (span.old_value, span.new_value) == (old_value, new_value)
    assert value_kind(span.old_value, span.new_value) == kind


@pytest.mark.parametrize(
    ("path", "old", "new", "reason"),
    [
        # whitespace only: no token differs
        ("a.py", "x = 1", "x  =  1", "no_single_span"),
        # two separate differing spans
        ("a.py", "f(a=1, b=2)", "f(a=3, b=4)", "no_single_span"),
        # a pure insertion has no old value
        ("a.py", "f(a)", "f(a, b)", "no_single_span"),
        # comment-only lines, in hash and slash languages
        ("a.py", "# timeout is 10", "# timeout is 20", "comment"),
        ("a.go", "// retries: 3", "// retries: 5", "comment"),
        ("a.js", " * @default 10", " * @default 20", "comment"),
        # the change sits in a trailing comment
        ("a.py", "x = 1  # was 2", "x = 1  # was 3", "comment"),
        # prose and docstrings
        (
            "a.py",
            "This function returns the value of the thing",
            "This function returns the value of a thing",
            "prose",
        ),
        ("a.py", '"""Stream decodes a iterator."""', '"""Stream decodes an iterator."""', "prose"),
        (
            "a.py",
            "    ``'content-type'`` is a string",
            "    ``'content_type'`` is a string",
            "prose",
        ),
        # value over 40 characters or 4 tokens
        (
            "a.py",
            "URL = 'https://example.org/a'",
            "URL = 'https://example.org/b/c/d/e'",
            "value_too_long",
        ),
        ("a.py", "X = " + "a" * 41, "X = " + "b" * 41, "value_too_long"),
        # an over-long line
        ("a.py", "x = 1" + " " * 200 + "+ 1", "x = 2" + " " * 200 + "+ 1", "long_line"),
    ],
)
def test_non_atomic_changes_are_rejected(path: str, old: str, new: str, reason: str) -> None:
    assert check_pair(path, old, new) == reason


def test_span_is_one_contiguous_replace_and_keeps_dotted_versions_whole() -> None:
    span = differing_span("numpy>=1.26.0,<2", "numpy>=1.26.4,<2")
    assert span is not None and (span.old_value, span.new_value) == ("1.26.0", "1.26.4")
    assert span.old_tokens == span.new_tokens == 1
    assert differing_span("a b c", "a b c") is None


@pytest.mark.parametrize(
    ("path", "group"),
    [
        ("CHANGES.rst", "ignored"),
        ("CHANGELOG.md", "ignored"),
        ("package-lock.json", "ignored"),
        ("go.sum", "ignored"),
        ("docs/conf.py", "ignored"),
        ("tests/test_api.py", "ignored"),
        ("pkg/client_test.go", "ignored"),
        ("src/app.test.js", "ignored"),
        ("README.md", "ignored"),
        ("requirements-dev.txt", "candidate"),
        ("go.mod", "candidate"),
        ("src/app.py", "candidate"),
        ("Dockerfile", "candidate"),
        ("static/site.css", "other"),
        ("vendor/lib/x.go", "other"),
    ],
)
def test_file_groups(path: str, group: str) -> None:
    assert classify_path(path) == group


def test_question_names_the_quantity() -> None:
    line = "DEFAULT_POOLSIZE = 20"
    span = _span("requests/adapters.py", "DEFAULT_POOLSIZE = 10", line)
    name = quantity_name(span.prefix)
    assert name == "DEFAULT_POOLSIZE"
    assert question_for("requests/adapters.py", line, span.new_start, 2, name) == (
        "What is DEFAULT_POOLSIZE in requests/adapters.py?"
    )
    # No key before the span (a rename): the question masks the value in the line instead.
    span = _span("a.py", "def get_proxy(url):", "def resolve_proxy(url):")
    assert quantity_name(span.prefix) is None
    q = question_for("a.py", "def resolve_proxy(url):", span.new_start, 13, None)
    assert q == "In a.py, what fills the blank in `def ___(url):`?"
    # A word before a space is not a key ("you meant http://").
    assert quantity_name('f"Perhaps you meant ') is None
    # A typed declaration names its quantity before the type: "What is COUNT", not "u64".
    span = _span("src/benchmark.rs", "    const COUNT: u64 = 200;", "    const COUNT: u64 = 50;")
    assert quantity_name(span.prefix) == "COUNT"
    assert quantity_name("    check_hostname: Optional[bool] = ") == "check_hostname"
    assert quantity_name("args: [--target-version=") == "target-version"


def test_spdx_of_common_licences() -> None:
    assert spdx_of("Permission is hereby granted, free of charge, to any person") == "MIT"
    assert spdx_of("Apache License\n Version 2.0, January 2004") == "Apache-2.0"
    bsd = "Redistribution and use in source and binary forms ... Neither the name of"
    assert spdx_of(bsd) == "BSD-3-Clause"
    assert spdx_of("some custom terms") == "NOASSERTION"
    names = ["MIT-LICENSE", "LICENSE.md", "COPYING", "UNLICENSE", "LICENSE-APACHE", "README.md"]
    assert licence_files([*names, "licenses.py", "src"]) == sorted(names[:5])


# --- the miner on a synthetic repository ------------------------------------------------------


def _git(repo: Path, *args: str, date: str | None = None) -> None:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _commit(repo: Path, files: dict[str, str], date: str) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        _git(repo, "add", name)
    _git(repo, "commit", "-m", "c", date=date)


@pytest.fixture
def history(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q", "-b", "main")
    settings = "import os\n\nDEFAULT_POOLSIZE = 10\nDEFAULT_RETRIES = 0\nNAME = 'x'\n"
    _commit(
        work,
        {
            "LICENSE": "Permission is hereby granted, free of charge, to any",
            "pkg/settings.py": settings,
            "pkg/other.py": "A = 1\nB = 2\nC = 3\n",
        },
        "2024-01-01T00:00:00+00:00",
    )
    # a commit touching the file elsewhere while the old value holds (a real restatement)
    _commit(
        work,
        {"pkg/settings.py": settings.replace("NAME = 'x'", "NAME = 'y'")},
        "2024-02-01T00:00:00+00:00",
    )
    settings = settings.replace("NAME = 'x'", "NAME = 'y'")
    # the atomic change, with a changelog line and a test (both ignored by rule 1)
    _commit(
        work,
        {
            "pkg/settings.py": settings.replace("POOLSIZE = 10", "POOLSIZE = 20"),
            "CHANGES.md": "- pool size 20\n",
            "tests/test_settings.py": "assert DEFAULT_POOLSIZE == 20\n",
        },
        "2024-03-01T00:00:00+00:00",
    )
    # not atomic: two files of the project change
    _commit(
        work,
        {
            "pkg/other.py": "A = 5\nB = 2\nC = 3\n",
            "pkg/settings.py": settings.replace("POOLSIZE = 10", "POOLSIZE = 20").replace(
                "RETRIES = 0", "RETRIES = 3"
            ),
        },
        "2024-04-01T00:00:00+00:00",
    )
    bare = tmp_path / "owner+name" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare


def test_miner_finds_the_atomic_commit_only(history: Path) -> None:
    records, stats, meta = mine_repo(history, max_commits=100, progress=False)
    assert meta["repo"] == "owner/name" and meta["license"] == "MIT"
    assert stats.commits == 4
    records.sort(key=lambda r: r["time"])
    assert [(r["old_value"], r["new_value"]) for r in records] == [("x", "y"), ("10", "20")]
    rec = records[1]
    assert rec["path"] == "pkg/settings.py" and rec["name"] == "DEFAULT_POOLSIZE"
    assert rec["question"] == "What is DEFAULT_POOLSIZE in pkg/settings.py?"
    assert rec["intro_time"].startswith("2024-01-01") and rec["time"].startswith("2024-03-01")
    old = rec["old_context"]
    assert old["lines"][old["index"]] == "DEFAULT_POOLSIZE = 10"
    real = [r for r in rec["restatements"] if r["real"]]
    assert [r["time"][:10] for r in real] == ["2024-02-01"]
    assert all(r["lines"][r["index"]] == "DEFAULT_POOLSIZE = 10" for r in rec["restatements"])
    assert all(rec["intro_time"] < r["time"] < rec["time"] for r in rec["restatements"])
    assert {d["path"] for d in rec["distractors"]} <= {"pkg/settings.py", "pkg/other.py"}
    # selection: kinds round-robin in a fixed order ("name" before "number"), capped per repo
    assert [r["kind"] for r in select(records, 1)] == ["name"]
    assert len(select(records, 5)) == 2


def test_restate_re_derives_only_the_restatements(history: Path) -> None:
    records, _, _ = mine_repo(history, max_commits=100, progress=False)
    mined = [dict(r) for r in records]
    rec = max(records, key=lambda r: r["time"])
    rec["restatements"] = [{"sha": "x", "time": rec["time"], "real": True, "lines": ["y"]}]
    other = {**rec, "repo": "another/repo", "restatements": []}
    assert restate(history, [*records, other]) == 1
    assert records == mined  # every field as mined, the restatements re-derived
    assert other["restatements"] == []  # another repository's records are left alone
    assert restate(history, records) == 0


def test_restate_refuses_a_path_that_is_no_snapshot_of_the_set(
    history: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from bench.real_history.__main__ import app

    records, _, _ = mine_repo(history, max_commits=100, progress=False)
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    before = jsonl.read_text()
    for bad in (tmp_path / "nope", history.parent.parent / "work"):
        out = CliRunner().invoke(app, ["restate", "--repo", str(bad), "--transitions", str(jsonl)])
        assert out.exit_code == 2, out.output
        assert jsonl.read_text() == before
    out = CliRunner().invoke(app, ["restate", "--repo", str(history), "--transitions", str(jsonl)])
    assert out.exit_code == 0 and "0 transitions' restatements changed" in out.output


def test_instances_vary_the_accumulation_ratio(history: Path) -> None:
    records, _, _ = mine_repo(history, max_commits=100, progress=False)
    rec = max(records, key=lambda r: r["time"])
    for r in (1, 3, 10):
        inst = build(rec, 0, r, "snippet")
        old = [m for m in inst.items if m.role == "old"]
        assert len(old) == r
        assert all("DEFAULT_POOLSIZE = 10" in m.text for m in old)
        assert all(m.ts < inst.asked_at for m in inst.items)
        new = [m for m in inst.items if m.role == "new"]
        assert len(new) == 1 and "DEFAULT_POOLSIZE = 20" in new[0].text
        assert max(m.ts for m in old) < new[0].ts
    line = build(rec, 0, 3, "line")
    assert [m.text for m in line.items if m.role == "new"] == [
        "pkg/settings.py: DEFAULT_POOLSIZE = 20"
    ]


def test_every_committed_transition_set_is_well_formed() -> None:
    from bench.real_history import TRANSITIONS_JSONL

    sets = [TRANSITIONS_JSONL, *sorted(TRANSITIONS_JSONL.parent.glob("*/transitions.jsonl"))]
    assert len(sets) >= 10
    seen: dict[str, str] = {}
    for path in sets:
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        assert records, path
        for r in records:
            assert r["license"] and r["license"] != "NOASSERTION", (path, r["id"])
            assert len(r["sha"]) == 40 and len(r["mined_at"]) == 40
            assert r["old_value"] != r["new_value"]
            assert r["old_value"] in r["old_line"] and r["new_value"] in r["new_line"]
            # one transition belongs to one set: a development set never holds a held-out one
            assert seen.setdefault(r["id"], path.parent.name) == path.parent.name, r["id"]


def test_a_line_that_recurs_in_its_file_is_placed_by_the_lines_around_it() -> None:
    # black's primer.json: every project has "expect_formatting_changes": true
    def block(name: str) -> list[str]:
        return [
            f'  "{name}": {{',
            '    "cli_arguments": [],',
            '    "expect": true,',
            f'    "git_clone_url": "https://github.com/{name}.git",',
            "  },",
        ]

    parent = block("tox") + block("virtualenv")
    later = block("attrs") + block("tox") + block("virtualenv")  # a project added above
    # the nearest occurrence to the old line number is attrs's; the lines around say tox's
    assert nearest(later, '    "expect": true,', 2) == 2
    assert placed(later, '    "expect": true,', parent, 2) == 7
    # no occurrence with a line around it the same: not placed
    assert (
        placed(block("a") + block("b"), '    "expect": true,', ["x", "y", '    "expect": true,'], 2)
        is None
    )
    # a line the file has once is where it is
    assert placed(["a", "b", "DEFAULT_POOLSIZE = 10"], "DEFAULT_POOLSIZE = 10", ["z"], 0) == 2
