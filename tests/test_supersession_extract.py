"""The deterministic triple extractor and the key normalisation (no model, no Redis)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcmem.facts.chunking import chunk_turn
from gcmem.facts.extract import added_facts, chunk_facts, extract_triples
from gcmem.models import Fact, Turn
from gcmem.normalize import fact_key, normalize_key, normalize_object, normalize_term


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(f.subject, f.relation, f.object) for f in extract_triples(text)]


# (sentence, the one triple it must yield)
FORMS = [
    # copula, with the attribute carried by "of"/"for"/possessive
    ("The API base path for the project is /api/v1.", ("project", "api base path", "/api/v1")),
    ("The port of the payments service is 8080.", ("payments service", "port", "8080")),
    ("Sam's favourite food is ramen.", ("sam", "favourite food", "ramen")),
    ("The default branch is main.", ("default branch", "is", "main")),
    # a dependency bump as a commit message says it: the package's version, as its pin keys it
    ("commit 4e1a9c2: bump pydantic to 2.7.1", ("pydantic", "version", "2.7.1")),
    ("chore(deps): bump axios from 1.6.2 to 1.7.4", ("axios", "version", "1.7.4")),
    ("The standup is at 9:30.", ("standup", "is at", "9:30")),
    # assignment
    ("The request timeout is set to 30 seconds.", ("request timeout", "is", "30 seconds")),
    ("We set the log level for the worker to DEBUG.", ("worker", "log level", "DEBUG")),
    ("timeout = 30", ("timeout", "is", "30")),
    ("LOG_LEVEL=debug", ("log_level", "is", "debug")),
    ("log_level: DEBUG", ("log_level", "is", "DEBUG")),
    ("The `retries` parameter defaults to 3.", ("retries parameter", "default", "3")),
    # ports
    ("The payments service runs on port 8080.", ("payments service", "port", "8080")),
    ("The worker listens on port 9000.", ("worker", "port", "9000")),
    ("The dashboard is served on port 3000.", ("dashboard", "port", "3000")),
    # versions
    ("fastapi is pinned at 0.110.0.", ("fastapi", "version", "0.110.0")),
    ("fastapi is pinned to 0.110.0.", ("fastapi", "version", "0.110.0")),
    ("We pin fastapi at 0.95.2.", ("fastapi", "version", "0.95.2")),
    ("fastapi==0.110.0", ("fastapi", "version", "0.110.0")),
    ("fastapi 0.110.0", ("fastapi", "version", "0.110.0")),
    ("numpy>=1.26", ("numpy", "version", ">=1.26")),
    # a bare major with any operator (requirements files write "tornado<6", "Django>=4")
    ("tornado<6", ("tornado", "version", "<6")),
    ("Django>=4", ("django", "version", ">=4")),
    ("requirements.txt pins fastapi==0.110.0.", ("fastapi", "version", "0.110.0")),
    ("package.json pins react@18.2.0.", ("react", "version", "18.2.0")),
    ("The project uses Python 3.11.", ("project", "uses python", "3.11")),
    ("The lockfile has fastapi 0.110.0.", ("lockfile", "has fastapi", "0.110.0")),
    # named / called
    ("The staging database is called orders_stage.", ("staging database", "name", "orders_stage")),
    ("The staging database is named orders_stage.", ("staging database", "name", "orders_stage")),
    # active relations
    ("The service uses Postgres.", ("service", "uses", "Postgres")),
    ("Sam lives in Berlin.", ("sam", "location", "Berlin")),
    ("Sam is based in Berlin.", ("sam", "location", "Berlin")),  # one relation for "where"
    ("Maria works at Acme Corp.", ("maria", "works at", "Acme Corp")),
    ("Maria works for Globex.", ("maria", "works at", "Globex")),
    ("Maria reports to Dana.", ("maria", "reports to", "Dana")),
    ("Maria reports to Will.", ("maria", "reports to", "Will")),
    (
        "Token validation lives in `auth/tokens.py`.",
        ("token validation", "location", "auth/tokens.py"),
    ),
    ("`get_status` returns `Status('Good')`.", ("get_status", "returns", "Status('Good')")),
    ("`get_status` returns `None`.", ("get_status", "returns", "None")),
    ("`CacheClient` inherits from `BaseClient`.", ("cacheclient", "inherits from", "BaseClient")),
    ("The service runs on Kubernetes.", ("service", "runs on", "Kubernetes")),
    # passive
    ("The project is licensed under Apache-2.0.", ("project", "licensed under", "Apache-2.0")),
    (
        "`parse_config` is defined in `src/config.py`.",
        ("parse_config", "defined in", "src/config.py"),
    ),
    ("The repository is hosted on GitHub.", ("repository", "location", "GitHub")),
    ("The job is handled by `Worker.run_batch`.", ("job", "handled by", "Worker.run_batch")),
    # relative clauses in the subject
    (
        "The function that parses the config is `parse_config`.",
        ("function that parses config", "is", "parse_config"),
    ),
    # qualifiers become part of the relation: different scopes never supersede each other
    (
        "We pin fastapi at 0.95.2 in requirements.txt.",
        ("fastapi", "version in requirements.txt", "0.95.2"),
    ),
    (
        "The payments service listens on port 9000 in staging.",
        ("payments service", "port in staging", "9000"),
    ),
    ("In production, the port is 8080.", ("port", "is in production", "8080")),
    ("The service uses Postgres for storage.", ("service", "uses for storage", "Postgres")),
    # discourse leads and bullets
    ("Note: the port is 8080.", ("port", "is", "8080")),
    ("By the way, Maria reports to Dana.", ("maria", "reports to", "Dana")),
    ("- timeout: 30s", ("timeout", "is", "30s")),
    # announced changes key like the statement of the new state
    ("Ops bumped the upload cap to 200 MB.", ("upload cap", "is", "200 MB")),
    (
        "We raised the API rate limit for the project to 200.",
        ("project", "api rate limit", "200"),
    ),
    ("The retention window has been extended to 90 days.", ("retention window", "is", "90 days")),
    (
        "We moved the payments service from port 8080 to port 9090.",
        ("payments service", "port", "9090"),
    ),
    ("The standup time moved to 10am.", ("standup time", "is", "10am")),
    ("The price went up to $12.", ("price", "is", "$12")),
    # a plural head keys like its singular
    ("Quarterly offsites are in Lisbon from now on.", ("quarterly offsite", "is in", "Lisbon")),
    ("The quarterly offsite is always in Barcelona.", ("quarterly offsite", "is in", "Barcelona")),
    (
        "The customer wiki now lives in Notion, so update your bookmarks.",
        ("customer wiki", "location", "Notion"),
    ),
    ("My brother Tomas lives in Porto.", ("tomas", "location", "Porto")),
    ("New rent is $1,525, same due date.", ("rent", "is", "$1,525")),
    ("Owner: Ann", ("owner", "is", "Ann")),  # an attribute, not a speaker
    ("New Relic agent: v2.4", ("new relic agent", "is", "v2.4")),  # "New Relic" is a name
    ("Max's piano teacher is Mrs. Hargreave.", ("max", "piano teacher", "Mrs. Hargreave")),
    ("bumped the CI runners to Node 22 today, builds are faster.", ("ci runner", "is", "Node 22")),
    (
        "Payments team lead: Dmitri Havel, as of this quarter.",
        ("payments team lead", "is", "Dmitri Havel"),
    ),
    (
        "The analytics bucket is acme-raw-events, dump the nightly exports in there.",
        ("analytics bucket", "is", "acme-raw-events"),
    ),
    # independent clauses are statements of their own
    (
        "We dropped TensorFlow for PyTorch, so the ML service targets Python 3.12 now.",
        ("ml service", "targets python", "3.12"),
    ),
    (
        "The ML service targets Python 3.9 because of the TensorFlow pin.",
        ("ml service", "targets python", "3.9"),
    ),
    # a hedge in a reason or purpose clause does not hedge the statement it explains
    (
        "We moved standup to 10:15 so the Lisbon folks can actually join.",
        ("standup", "is", "10:15"),
    ),
    (
        "The standup is at 9:30 because the Lisbon team can't join earlier.",
        ("standup", "is at", "9:30"),
    ),
    # ... nor does one in a clause about the person the statement names
    (
        "Sarah works at Shopify, on the finance team, and she seems way happier.",
        ("sarah", "works at", "Shopify"),
    ),
    (
        "FYI the API gateway's request timeout is 30 seconds, so long exports will get cut off.",
        ("api gateway", "request timeout", "30 seconds"),
    ),
    # "about" before anything but a quantity is a preposition; a tail may open on a contraction
    (
        "The team lead for Payments is Marisol Ortega, talk to her about the PSP migration.",
        ("payments", "team lead", "Marisol Ortega"),
    ),
    (
        "Priya works at Stripe, she's on one of the infra teams there.",
        ("priya", "works at", "Stripe"),
    ),
    # the speaker's possessive: one memory is one person's or one team's
    ("Our design system is called Bedrock.", ("design system", "name", "Bedrock")),
    ("My editor is VS Code.", ("editor", "is", "VS Code")),
    ("Our quarterly offsite is always in Barcelona.", ("quarterly offsite", "is in", "Barcelona")),
    # ... and in a transcript, the labelled speaker's
    ("Maya: My favourite colour is green.", ("maya", "favourite colour", "green")),
    ("Jordan: Our wifi password is pinecone42.", ("jordan", "wifi password", "pinecone42")),
    ("Maya: Long story.\nMy favourite colour is green.", ("maya", "favourite colour", "green")),
    # a clause after a spaced dash is read on its own: its hedge or aside is not the value's
    (
        "Miso's vet is Paws & Claws now — the other place never had appointments.",
        ("miso", "vet", "Paws & Claws"),
    ),
    (
        "The analytics cluster now lives in eu-west-1 -- the GDPR review wanted it in the EU.",
        ("analytics cluster", "location", "eu-west-1"),
    ),
    # 's before a preposition is "is", never a possessive
    ("Maya's in Denver now.", ("maya", "is in", "Denver")),
]


def test_two_speakers_possessives_are_two_keys() -> None:
    transcript = "Maya: Our wifi password is pinecone42.\nJordan: Our wifi password is larch77."
    assert sorted((f.subject, f.relation, f.object) for f in extract_triples(transcript)) == [
        ("jordan", "wifi password", "larch77"),
        ("maya", "wifi password", "pinecone42"),
    ]


@pytest.mark.parametrize(("text", "expected"), FORMS, ids=[t for t, _ in FORMS])
def test_each_form_yields_one_triple(text: str, expected: tuple[str, str, str]) -> None:
    assert triples(text) == [expected]


RENAMES = [
    (
        "We renamed the CRM's main Postgres database to crm_core.",
        "crm's main postgres database",
        "crm_core",
    ),
    ("The design system was rebranded to Atlas.", "design system", "Atlas"),
    (
        "The design system was rebranded to Atlas, the package name changed too.",
        "design system",
        "Atlas",
    ),
    (
        "Heads up all - we renamed the analytics bucket to acme-lake over the weekend.",
        "analytics bucket",
        "acme-lake",
    ),
]


@pytest.mark.parametrize(("text", "subject", "value"), RENAMES, ids=[t for t, _, _ in RENAMES])
def test_a_rename_states_the_name_and_the_value(text: str, subject: str, value: str) -> None:
    # "the analytics bucket is acme-raw-events" names it as much as "is called" does
    assert sorted(triples(text)) == [(subject, "is", value), (subject, "name", value)]


NEGATIVES = [
    "Sam is tired.",  # a description, not an attribute's value
    "Sam is a doctor.",  # class membership: several hold at once
    "The payments service is stateless.",
    "The port is not 8080.",  # negation
    "The port isn't 8080.",
    "The port is 8080 or 8081.",  # several values
    "The ports are 80 and 443.",
    "The port is 8000, 8080.",
    "Maybe the port is 8080.",  # hedges
    "We think the port is 8080.",
    "The timeout is about 30 seconds.",
    "The timeout should be 30 seconds.",  # prescriptive, not a statement of fact
    "The port will be 8080.",
    "Is the port 8080?",  # question
    "If the port is 8080, restart it.",  # conditional
    "It is 8080.",  # pronoun subject: no coreference, no guess
    "The port was 8000.",  # past tense: not the current value
    "The port is 8000. The port is 8080.",  # one text, two values for one key
    "We pin fastapi at latest.",  # not a version
    "Hello there, how are you doing today?",
    "The function that is called on startup is",
    "",
    # announced changes that do not say which value changed, or not yet
    "We will raise the upload cap to 300 MB.",
    "We might rename the database to crm_core.",
    "If traffic grows, we raise the cap to 500.",
    "We moved the team to Berlin.",  # what relation "the team" changes is not said
    "We moved to Linear and archived the old board.",  # no object: what moved?
    "We renamed the service to port 9090.",
    # a third person's possessive names nobody the sentence says
    "His editor is Emacs.",
    "I switched my editor to Neovim.",
    # a transcript line after a remark: whose "my" it is stays with the line, not a key
    "Jordan: Ha. My dog is a husky.",
    "Everyone's handles were renamed to first initial + surname.",
    "The cap is 500 when traffic spikes.",  # a condition, not a clause of its own
    # hedged statements, a reason clause or not
    "The standup might be at 9:30 because of Lisbon.",
    "We dropped TensorFlow, so the ML service might target Python 3.12.",
    "The pool has about 5 lanes.",
    "Standup is around 9:30.",
    "The rate limit is about a thousand requests per minute.",
    "The port is 8000, and the port is 8080.",  # two values, one key
    "The offices are Berlin, Paris and Rome.",  # a list, not a clause after the comma
    "Figma: we upgraded the org to Enterprise.",  # a clause is not a value
    "We cut over to db-pg16-a.internal last night.",  # "over" is a particle, not a subject
    # a chat transcript's speaker is not a key
    "Lucy: Yes.",
    "Daniel: Ha, my sister was the same at thirty.",
    "Yuki: Mostly, but we moved the sink under the window.",
    # a dash tail that hedges or conditions the clause before it, or is too short to be one
    "The VPN endpoint is gw.acme.io — or at least it was on Monday.",
    "The port is 8080 — I think.",
    "The port is 8080 — not sure though, ask Sam.",
    "The port is 8080 — unless ops changed it again.",
    "The port is 8000 — and the port is 8080 on staging.",
    # a third-person pronoun in the subject: whose thing it is, an earlier sentence says
    "She died in 1931, and the largest collection of her works is held by the Romsdal Museum.",
    "The main span of its bridge is 46 metres.",
    # a bump not (yet) made
    "we should bump pydantic to 2.7.1",
    "Bump pydantic to 2.7.1?",
    # a command's flag: no subject, and its "value" runs on into the other arguments
    "rsync -az --delete --bwlimit=5000 /srv/releases/ mirror-apac:/srv/releases/",
    "pg_dump -h db-replica-2 -Fd --jobs=4 -f /backups/orders orders",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_refuses_to_guess(text: str) -> None:
    assert extract_triples(text) == []


def test_several_keys_in_one_text() -> None:
    text = "fastapi==0.110.0 pydantic==2.6.0\nThe worker listens on port 9000."
    assert sorted(triples(text)) == [
        ("fastapi", "version", "0.110.0"),
        ("pydantic", "version", "2.6.0"),
        ("worker", "port", "9000"),
    ]


def test_config_lines_stay_apart_from_prose() -> None:
    text = "Config for the worker:\ntimeout: 30\nretries: 3\n"
    assert sorted(triples(text)) == [("retries", "is", "3"), ("timeout", "is", "30")]


def test_case_and_punctuation_are_kept_in_objects() -> None:
    a = triples("The API base path for the project is /api/v1.")[0]
    b = triples("The API base path for the project is /API/v1.")[0]
    assert a[:2] == b[:2] and a[2] != b[2]
    c = triples("`get_status` returns `['GOOD']`.")[0]
    assert c[2] == "['GOOD']"


def test_key_normalisation() -> None:
    assert normalize_key("The  API Base Path", "IS") == ("api base path", "is")
    assert fact_key("The project", "API base path") == fact_key("project", "api  base path")
    assert normalize_term("“The” `timeout`") == "timeout"
    assert normalize_object("  a   b\n c ") == "a b c"
    assert normalize_object("/API") != normalize_object("/api")


@given(st.text(max_size=80))
@settings(max_examples=200, deadline=None)
def test_normalize_term_is_idempotent(text: str) -> None:
    once = normalize_term(text)
    assert normalize_term(once) == once


# Sentence-ish text: fragments of the forms mixed with code punctuation, so most examples
# reach the form matchers instead of failing the first check.
_FRAGMENTS = st.sampled_from(
    [
        *"abcXY0129 .,:=`'\"()[]-_/@",
        " is ",
        " are ",
        " the ",
        " of ",
        " for ",
        "'s ",
        " in ",
        " runs on port ",
        " uses ",
        " and ",
        "==",
        " is pinned at ",
        " reports to ",
        " not ",
    ]
)


@given(st.one_of(st.text(max_size=200), st.lists(_FRAGMENTS, max_size=30).map("".join)))
@settings(max_examples=300, deadline=None)
def test_extraction_never_fails_and_keys_are_normalised(text: str) -> None:
    for fact in extract_triples(text):
        assert (fact.subject, fact.relation) == normalize_key(fact.subject, fact.relation)
        assert fact.object == normalize_object(fact.object) and fact.object


def _turn(text: str, facts: list[Fact] | None = None) -> Turn:
    return Turn(id="t1", text=text, ts=datetime(2026, 1, 1, tzinfo=UTC), facts=facts)


def test_chunk_facts_extracts_without_explicit_facts() -> None:
    [chunk] = chunk_turn(_turn("The worker listens on port 9000."), 480)
    assert [(f.subject, f.relation, f.object) for f in chunk_facts(chunk)] == [
        ("worker", "port", "9000")
    ]


def test_explicit_facts_bypass_extraction() -> None:
    explicit = [Fact(subject="Worker", relation="port", object="9001")]
    chunks = chunk_turn(_turn("The worker listens on port 9000. " * 30, explicit), 200)
    assert len(chunks) > 1
    assert chunk_facts(chunks[0]) == explicit
    # the turn's other chunks assert nothing: the explicit list is the turn's whole claim
    assert all(chunk_facts(c) == [] for c in chunks[1:])
    [empty] = chunk_turn(_turn("The worker listens on port 9000.", []), 480)
    assert chunk_facts(empty) == []


def test_long_unsplittable_text_is_refused_quickly() -> None:
    text = "the port is 8080 and " * 2000  # 42k characters, no sentence boundary
    assert extract_triples(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "The order-events queue is read by the warehouse-sync job too, every 5 min batch.",
        "Ruth avoids dairy as well.",
        "The API also listens on 8443.",
    ],
)
def test_a_value_said_to_hold_beside_others_keys_nothing(text: str) -> None:
    assert extract_triples(text) == []


def test_an_also_in_another_clause_leaves_the_statement_keyed() -> None:
    text = "The current coach is Ana Ruiz, who is the club's first coach and also its founder."
    assert [(f.subject, f.object) for f in extract_triples(text)] == [("current coach", "Ana Ruiz")]


def test_a_bracketed_role_qualifies_the_key_not_the_value() -> None:
    """Two roles at once ("@dmitri (primary)", "@ayesha (secondary)"); a new primary
    replaces the old one. A bracket with more than words in it stays part of the value."""
    primary = triples("On call this week for payments: @dmitri (primary)")
    secondary = triples("On call this week for payments: @ayesha (secondary)")
    new_primary = triples("On call this week for payments: @tomasz (primary)")
    assert primary == [("payments", "on call this week as primary", "@dmitri")]
    assert secondary[0][1] != primary[0][1]
    assert new_primary[0][:2] == primary[0][:2]
    assert triples("Port: 8080 (was 8000)") == [("port", "is", "8080 (was 8000)")]


def test_a_month_after_a_preposition_is_when_not_a_scope() -> None:
    old = extract_triples("Rent is $1,450 a month.")
    new = extract_triples("Rent went up to $1,525 from May.")
    assert [(f.subject, f.relation) for f in new] == [(f.subject, f.relation) for f in old]


def test_who_comes_along_is_no_scope_of_the_key() -> None:
    # "with her two cats" says who lives there too; "with TLS" still scopes the port
    assert triples("My sister Ruth lives in Denver with her two cats.") == [
        ("ruth", "location", "Denver")
    ]
    assert triples("Ruth lives in Portland now.") == [("ruth", "location", "Portland")]
    assert triples("The API runs on port 8080 with TLS.") == [("api", "port with tls", "8080")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a label before the colon says what kind of message it is
        ("note to self: my dentist is Dr. Okafor", ("dentist", "is", "Dr. Okafor")),
        ("Done: the new one is D08E553B", ("new one", "is", "D08E553B")),
        # where someone is based, however it is said
        ("Hannah's home base is Portland now.", ("hannah", "location", "Portland")),
        # a label, then the setting's own name
        ("PR #331 (sync client): MAX_RETRIES = 5 since the API flaps.", ("max_retries", "is", "5")),
    ],
)
def test_labels_and_wordings_key_what_they_name(text: str, expected: tuple[str, str, str]) -> None:
    assert triples(text) == [expected]


@pytest.mark.parametrize(
    "text",
    ["src/x.rs:\npub const PT_SUSPEND: c_int = 23;", "src/x.rs:\npub const SIGIOT: c_int = 6;"],
)
def test_a_declarations_type_is_no_setting_name(text: str) -> None:
    # "NAME: type = value" declares NAME; the type names nothing the next line shares
    subjects = {s for s, _, _ in triples(text)}
    assert subjects and "c_int" not in subjects


def test_a_scope_label_stays_in_the_key() -> None:
    # "prod:" scopes a plain word; a quoted line of a directive its file repeats is no value
    assert triples("prod: replicas = 5") == [("prod: replica", "is", "5")]
    assert triples("haproxy backend api: `server api1 10.8.0.11:3000 check`") == []
    assert triples("db host: `db-1.internal`") == [("db host", "is", "db-1.internal")]


def test_a_manifest_line_written_out_after_the_line_is_now_pins_its_version() -> None:
    said = 'Bumped it for the fix, the line is now serde = { version = "1.0.190", features = [] }'
    assert ("serde", "version", "1.0.190") in [
        (f.subject, f.relation, f.object) for f in extract_triples(said)
    ]
    hedged = 'We might bump it; the line is now serde = { version = "1.0.190" }'
    assert all(f.subject != "serde" for f in extract_triples(hedged))


def test_a_crontab_entry_after_a_label_is_no_value_of_the_label() -> None:
    # a crontab holds many lines: the label names the file, not one value of it
    assert triples("crontab on backup01: `0 2 * * * /opt/scripts/pg_dump_all.sh`, nightly") == []
    assert triples("crontab on web1: `*/15 * * * * /opt/check_disk.sh`") == []
    # a quoted command of several words stays one value where the label is one setting's
    assert triples("build command: `npm run build`") == [("build command", "is", "npm run build")]
    # unquoted, too
    assert triples("crontab on db-backup-01: 15 2 * * * /opt/scripts/pg_dump_nightly.sh") == []


def test_a_repeated_directive_after_a_file_label_is_one_line_of_many() -> None:
    # resolv.conf holds several nameserver lines; written out unquoted after its name
    assert triples("resolv.conf on the VPN gateway: nameserver 10.8.0.2") == []
    assert triples("Primary DNS: 10.8.0.2") == [("primary dns", "is", "10.8.0.2")]


def test_a_label_naming_a_database_or_host_owns_the_setting_after_it() -> None:
    # two databases' settings are two keys; a message's label names no owner
    assert triples("transactional db: max_connections = 500") == [
        ("transactional db: max_connections", "is", "500")
    ]
    assert triples("reporting db: max_connections = 300") == [
        ("reporting db: max_connections", "is", "300")
    ]
    assert triples("PR #331 (sync client): MAX_RETRIES = 5") == [("max_retries", "is", "5")]
    assert triples("commit 9f7e1a2: MAX_RETRIES = 5 now") == [("max_retries", "is", "5")]


def test_a_mapping_row_after_a_label_is_keyed_by_its_left_side() -> None:
    assert triples("ownership sheet: billing-api -> Kestrel squad (lead: Sato)") == [
        ("ownership sheet billing-api", "is", "Kestrel squad (lead: Sato)")
    ]
    assert triples("routing: /api → api-svc") == [("routing /api", "is", "api-svc")]


@pytest.mark.parametrize(
    ("older", "newer", "key"),
    [
        (
            "The max_connections setting is 100.",
            "Bumped max_connections to 200.",
            "max_connections",
        ),
        ("The value of MAX_RETRIES is 4.", "MAX_RETRIES = 6", "max_retries"),
        ("The log.level option is debug.", "log.level: info", "log.level"),
        ("The FEATURE_X flag is off.", "We set FEATURE_X to on.", "feature_x"),
    ],
)
def test_a_setting_is_keyed_by_its_name_however_it_is_called(
    older: str, newer: str, key: str
) -> None:
    (old,) = extract_triples(older)
    (new,) = extract_triples(newer)
    assert (old.subject, old.relation) == (new.subject, new.relation) == (key, "is")
    assert old.object != new.object


def test_a_plain_word_keeps_what_it_is_called() -> None:
    # "the privacy setting" names no identifier: which setting, the words say
    (fact,) = extract_triples("The privacy setting is public.")
    assert fact.subject == "privacy setting"
    (fact,) = extract_triples("The value of the house is 300k.")
    assert (fact.subject, fact.relation) == ("house", "value")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (
            "Under-12s at Millbrook RFC are coached by Sian Griffiths too, she played rugby.",
            ("under-12s at millbrook rfc", "coached by"),
        ),
        ("Our office is in Leeds as well.", ("office", "is in")),
    ],
)
def test_a_value_added_with_too_states_its_key_there(text: str, key: tuple[str, str]) -> None:
    assert extract_triples(text) == []  # one more value: nothing keyed, nothing replaced
    [fact] = added_facts(text)
    assert normalize_key(fact.subject, fact.relation) == key


@pytest.mark.parametrize(
    "text",
    [
        "Our office is in Leeds.",  # no additive word
        "Told Ana too: the office is in Leeds.",  # the lead-in's "too"
        "The package name changed too.",  # a change said of one more thing
    ],
)
def test_no_value_is_added_without_an_additive_word_of_its_own(text: str) -> None:
    assert added_facts(text) == []


def test_a_statement_under_a_heading_is_no_value_of_the_heading() -> None:
    # one entry of the rota each: frame alignment compares two entries, not the label's key
    assert triples("Payments on-call rota: Priya covers weekday nights.") == []
    assert triples("Payments on-call rota: Dmitri covers weekends.") == []
    # a value after the label, a name alone or with words, stays the label's value
    assert triples("On-call this week: Priya") == [("on-call this week", "is", "Priya")]
    assert triples("Primary DNS: 10.8.0.2") == [("primary dns", "is", "10.8.0.2")]


def test_a_base_image_of_a_named_service_is_that_services() -> None:
    # two services' Dockerfiles each start FROM python: one key each, not one image's tag
    said = "{} runs on Python {} in its Dockerfile (`FROM python:{}-slim`)."
    for service, version in (("ingest-worker", "3.10"), ("report-builder", "3.12")):
        assert ("python", "image tag", f"{version}-slim") not in triples(
            said.format(service, version, version)
        )
    # a Dockerfile alone, or with no service named, is the image's tag as before
    assert ("python", "image tag", "3.12-slim") in triples(
        "Dockerfile now starts FROM python:3.12-slim"
    )


def test_an_amount_to_a_named_payee_without_its_currency_is_one_payment() -> None:
    assert triples("Standing order: 450 to Castlegate Lettings on the 1st.") == []
    assert triples("Standing order: 25 to the RNLI on the 1st.") == []
    # a range is a value of its label
    assert triples("Timeout: 30 to 60 seconds") == [("timeout", "is", "30 to 60 seconds")]


def test_a_medicine_s_dose_is_keyed_by_the_medicine() -> None:
    # someone takes several at once; one medicine's dose changes
    a = extract_triples("Dad's on amlodipine 5mg, once in the morning.")
    b = extract_triples("Dad's on atorvastatin 20mg, once at night.")
    assert [(f.subject, f.relation, f.object) for f in a] == [("dad", "is on amlodipine", "5mg")]
    assert [(f.subject, f.relation, f.object) for f in b] == [("dad", "is on atorvastatin", "20mg")]
    c = extract_triples("Dad's on amlodipine 10mg now.")
    assert [(f.relation, f.object) for f in c] == [("is on amlodipine", "10mg")]
