"""Code written into a sentence: pins, ``FROM image:tag``, ``NAME=VALUE`` and JSON pairs key
like their lines, and only where the sentence says they hold (no model, no Redis)."""

from __future__ import annotations

import pytest

from gcmem.facts.extract import extract_triples, owned_code_tokens


def triples(text: str) -> set[tuple[str, str, str]]:
    return {(f.subject, f.relation, f.object) for f in extract_triples(text)}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        # each keys as its own line does ("requests==2.28.1" -> (requests, version, 2.28.1))
        (
            "Dependabot PR #311 merged: requests==2.31.0 (CVE fix). flask untouched.",
            ("requests", "version", "2.31.0"),
        ),
        (
            "security bump, requirements now has requests==2.31.0.",
            ("requests", "version", "2.31.0"),
        ),
        (
            "Dockerfile for ingest now starts FROM python:3.12-slim, tests pass.",
            ("python", "image tag", "3.12-slim"),
        ),
        ("FROM python:3.10-slim\nWORKDIR /app\nCOPY . .", ("python", "image tag", "3.10-slim")),
        (
            "Loki bill was silly, so we set LOG_LEVEL=warn in compose.",
            ("log_level", "is", "warn"),
        ),
        # "using" says the flag holds, as "uses" does
        (
            "Using `--max-workers=12` now on the big runner, the rest is unchanged.",
            ("--max-workers", "is", "12"),
        ),
        (
            'Burst credits were killing us, now instance_type = "m6i.large".',
            ("instance_type", "is", "m6i.large"),
        ),
        (
            'package.json now has "react": "^18.2.0" and react-dom to match.',
            ("react", "is", "^18.2.0"),
        ),
        ("commit 9f3a2c1: raise RETRY_LIMIT = 5 for flaky endpoints", ("retry_limit", "is", "5")),
        # a section the sentence names scopes the setting, as its header line would
        ("[Makefile] uses indent_style = tab", ("indent_style", "is in makefile", "tab")),
        # a camelCase setting and a command-line flag are code no sentence word spells
        (
            "Bumped just the compile SDK: compileSdk = 35 in app/build.gradle.kts.",
            ("compilesdk", "is", "35"),
        ),
        ("Changed it, so we now use --max-workers=8.", ("--max-workers", "is", "8")),
    ],
)
def test_a_code_token_in_a_sentence_keys_like_its_line(
    text: str, fact: tuple[str, str, str]
) -> None:
    assert fact in triples(text)


def test_inline_tokens_share_the_key_of_the_file_line() -> None:
    old = triples("requirements.txt\n\nflask==2.2.5\nrequests==2.28.1")
    new = triples("Dependabot PR merged: requests==2.31.0 (CVE fix).")
    assert ("requests", "version", "2.28.1") in old
    assert ("requests", "version", "2.31.0") in new


@pytest.mark.parametrize(
    "text",
    [
        "We used to pin requests==2.28.1.",  # an old value
        "requests==2.28.1 was the last release before the fix.",
        "Maybe set LOG_LEVEL=debug for a day?",  # a question, a hedge
        "Do not set LOG_LEVEL=debug in prod.",  # a negation
        "We could pin requests==2.31.0 next sprint.",  # a modal
        "Heads up: requests==2.28.1 has a known CVE.",  # what the clause talks about
        "We moved off requests==2.28.1, now on requests==2.31.0",  # two values, one key
        "see https://example.org/?page_size=50 for the list",  # a URL's query, not a key
        # a setting of a thing the sentence names: another thing may have the same key
        'the jenkins agent instances use instance_type = "c6i.xlarge"',
        "set the worker to LOG_LEVEL=warn in compose",
        # a path names which file's setting it is; "as well" puts it beside another's
        "inventory-svc/.env.production has LOG_LEVEL=warn, leave it",
        "We set LOG_LEVEL=warn as well, for the batch jobs",
    ],
)
def test_no_inline_fact_where_the_sentence_does_not_say_it_holds(text: str) -> None:
    found = triples(text)
    assert not any(
        r in ("version", "is") and s in ("requests", "log_level", "page_size") for s, r, _ in found
    ), found


def test_a_long_run_before_a_setting_is_read_once() -> None:
    # the path test used to rescan a long run without "/" from every offset
    assert triples("run " + "a-" * 20000 + " now has LOG_LEVEL=warn") == {
        ("log_level", "is", "warn")
    }
    assert triples("run " + "a-" * 20000 + "/x now has LOG_LEVEL=warn") == set()


def owned(text: str) -> list[tuple[str, str, str, list[str]]]:
    return [
        (t.fact.subject, t.fact.relation, t.fact.object, sorted(t.owner))
        for t in owned_code_tokens(text)
    ]


def test_a_setting_after_its_owner_is_an_owned_token() -> None:
    # left out of the sentence's facts, kept with the words that name the owner
    text = "set the worker to LOG_LEVEL=warn in compose"
    assert not any(s == "log_level" for s, _, _ in triples(text))
    assert owned(text) == [("log_level", "is", "warn", ["worker"])]
    # "key: value" after a word that says it holds: a YAML line's form, owned even bare
    assert owned("the cache now uses image: redis:7.2-alpine") == [
        ("image", "is", "redis:7.2-alpine", ["cache"])
    ]
    assert owned("updated budget.yaml -> groceries: 750") == [("groceries", "is", "750", [])]
    # what inline_code_facts keys is no owned token
    assert owned("so we set LOG_LEVEL=warn") == []


@pytest.mark.parametrize(
    "text",
    [
        "Heads up: the build is red",  # a label, not a key
        "Black Friday prep: checkout is frozen",  # a label after a word that says nothing
        "the staging cache uses image: redis:7.2 too",  # beside another owner's
        "the cache might use image: redis:7.2",  # hedged
    ],
)
def test_no_owned_token_where_the_sentence_does_not_say_it_holds(text: str) -> None:
    assert owned(text) == []


def test_a_path_before_a_setting_names_its_owner() -> None:
    # the path's words are the owner's: only an older excerpt of that file may be keyed
    assert owned("inventory-svc/.env.production has LOG_LEVEL=warn") == [
        ("log_level", "is", "warn", ["env", "inventory", "production", "svc"])
    ]
    # the words that link the owner's names name nothing
    assert owned("production in config/database.yml now says `pool: 25`") == [
        ("pool", "is", "25", ["config", "database", "production", "yml"])
    ]


def test_a_shell_line_continued_on_the_next_keeps_its_value_without_the_backslash() -> None:
    old = triples("launch on the hypervisors:\n./node_exporter \\\n  --web.listen-address=:9100 \\")
    assert ("--web.listen-address", "is", ":9100") in old


def test_a_configuration_directive_keys_in_its_block_and_in_a_sentence() -> None:
    block = "location /upload {\n    client_max_body_size 10m;\n    proxy_read_timeout 120s;\n}"
    assert ("client_max_body_size", "is in location /upload", "10m") in triples(block)
    # C declarations have that shape: not in a code file
    assert triples("src/x.c:\nint main() {\n  size_t n;\n  return_code rc;\n}") == set()
    # in a sentence the semicolon must end it, after words naming whose setting it is
    [token] = owned_code_tokens("so the upload location now has client_max_body_size 50m;")
    assert (token.fact.subject, token.fact.object) == ("client_max_body_size", "50m")
    assert token.owner == {"upload", "location"}
    assert owned_code_tokens("I bumped client_max_body_size again") == []
    assert ("client_max_body_size", "is", "50m") in triples("Set client_max_body_size 50m;")


def test_a_key_value_token_after_says_is_read_with_its_owner() -> None:
    [token] = owned_code_tokens(
        "pulled the new release, compose now says image: ghcr.io/ha/ha:2024.3"
    )
    assert (token.fact.object, token.owner) == ("ghcr.io/ha/ha:2024.3", {"compose"})


def test_a_key_value_span_in_backticks_is_code_whatever_its_key() -> None:
    [token] = owned_code_tokens(
        "mailer.ini now reads `host = smtp.relay.example.net` under [smtp]."
    )
    assert (token.fact.subject, token.fact.object) == ("host", "smtp.relay.example.net")
    # a form that reads the span itself keeps it ("requests==2.31.0" is a pin, not "=2.31.0")
    assert owned_code_tokens("requirements now has `requests==2.31.0`.") == []
    assert ("requests", "version", "2.31.0") in triples("requirements now has `requests==2.31.0`.")
    # a directive in backticks, its semicolon inside them
    [directive] = owned_code_tokens("the uploads server block now has `client_max_body_size 50m;`")
    assert directive.fact.object == "50m"


def test_a_go_module_in_a_sentence_pins_its_version() -> None:
    text = "Dependabot PR merged, go.mod now has `github.com/segmentio/kafka-go v0.4.47`."
    assert ("github.com/segmentio/kafka-go", "version", "v0.4.47") in triples(text)


def test_a_pronoun_before_a_setting_names_no_owner() -> None:
    text = "Support kept hearing about logouts, so now it's SESSION_TTL=7200 in .env.production."
    assert ("session_ttl", "is", "7200") in triples(text)
    assert owned(text) == []


def test_a_setting_quoted_alone_in_backticks_keeps_its_whole_value() -> None:
    # the backticks end the value, not its space; "the line" names no owner
    text = "FYI the line in jenkins.env is now `JAVA_OPTS=-Xmx6g -XX:+UseG1GC`, it kept OOMing."
    assert ("java_opts", "is", "-Xmx6g -XX:+UseG1GC") in triples(text)
    # unquoted, a space still ends it
    assert ("java_opts", "is", "-Xmx6g") in triples("the line is now JAVA_OPTS=-Xmx6g for now")


def test_a_manifest_line_quoted_whole_pins_its_package() -> None:
    text = 'Bumped tokio for the io_uring fix: `tokio = { version = "1.35", features = ["full"] }`'
    assert ("tokio", "version", "1.35") in triples(text)
    # the same line in a sentence about an old value pins nothing
    assert not any(
        r == "version" for _, r, _ in triples('We were on `tokio = { version = "1.30" }`')
    )


def test_a_clause_opening_on_a_verb_in_ing_names_its_owner_after_it() -> None:
    # "from now on" says since when, not from which old value
    text = "running the indexer with `--batch-size=2000` from now on, other flags the same"
    assert owned(text) == [("--batch-size", "is", "2000", ["indexer"])]


def test_a_quoted_line_opening_its_clause_with_only_its_place_after_it() -> None:
    # the section named after it is the owner an older excerpt must name
    assert owned("`host = relay.mailgun.org` in the [smtp] section now") == [
        ("host", "is", "relay.mailgun.org", ["smtp"])
    ]
    # anything else after it says something about the line, not that it holds
    assert owned("`host = relay.mailgun.org` is wrong, keep the old one") == []
    assert owned("`host = relay.mailgun.org` was the old relay") == []
