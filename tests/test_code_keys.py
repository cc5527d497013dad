"""Settings the question names by their key (``gcmem.facts.code_keys``) and the announced
stage's use of them."""

from __future__ import annotations

from datetime import timedelta

import pytest

from gcmem.facts.code_keys import asked_keys, key_changes, key_values
from gcmem.filters.announced import AnnouncedChangeFilter
from gcmem.filters.base import QueryContext
from tests.doubles import T0, scored_chunk

TERRAFORM = (
    'resource "aws_instance" "bastion" {\n'
    "  ami           = var.bastion_ami\n"
    '  instance_type = "t3.medium"\n'
    "  subnet_id     = aws_subnet.public_a.id\n"
    "}"
)
REQUIREMENTS = "requirements.txt:\nbeautifulsoup4==4.12.2\nrequests==2.28.1\nlxml==4.9.3"


def pairs(text: str) -> list[tuple[str, str]]:
    return [(kv.key, kv.value) for kv in key_values(text)]


def test_assignments_in_lines_and_sentences() -> None:
    assert ("instance_type", "t3.medium") in pairs(TERRAFORM)
    assert ("requests", "2.28.1") in pairs(REQUIREMENTS)
    # a pin and a setting inside a sentence
    assert pairs("chore(deps): requests==2.31.0 for the proxy CVE") == [("requests", "2.31.0")]
    # words after a code name's "=" say where or why; a file's name before a colon labels
    assert pairs("WORKER_POOL_SIZE=16 in .env.production after the queue alerts.") == [
        ("WORKER_POOL_SIZE", "16")
    ]
    assert pairs("Bumped lxml in requirements.txt: lxml==5.1.0 for the parser fix.") == [
        ("lxml", "5.1.0")
    ]
    # a package installed at a version: a Go module's key is its name, as in go.mod
    assert pairs("go get github.com/jackc/pgx/v5@v5.5.5 && go mod tidy") == [("pgx", "v5.5.5")]
    assert pairs("npm install zod@3.23.8 --save, then rebuild") == [("zod", "3.23.8")]
    assert ("replicas", "6") in pairs("checkout deployment set to replicas: 6 until December.")
    assert ("replicas", "6") in pairs("Black Friday prep: checkout deployment set to replicas: 6")
    assert pairs("On the laptop: 192.168.1.52") == [("laptop", "192.168.1.52")]
    # a label's "value" may hold the key: it is read again from there
    assert pairs('last night: JAVA_OPTS="-Xms2g -Xmx6g"') == [
        ("JAVA_OPTS", "-Xms2g -Xmx6g"),
        ("Xms", "2g"),  # a JVM heap flag is a setting of its own
        ("Xmx", "6g"),
    ]
    # "bumped KEY to VALUE"
    assert pairs("bumped client_max_body_size to 50m in the vhost") == [
        ("client_max_body_size", "50m")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Maya: I finally got the job at Stripe!",  # a speaker's label
        "Note: the key lives in the vault.",  # a label before words
        "Heads up: staging is down.",
        # a label that adds a member to a collection: one entry of several, no key's value
        "added to /etc/hosts on the laptop: 192.168.1.52  printer.home",
    ],
)
def test_labels_are_no_assignments(text: str) -> None:
    assert key_values(text) == []


def test_the_question_names_a_key_as_written_or_word_by_word() -> None:
    keys = {"instance_type", "MAX_RETRIES", "requests", "ami"}
    assert asked_keys("What instance type is the bastion?", keys) == {"instance_type"}
    assert asked_keys("What is MAX_RETRIES set to?", keys) == {"MAX_RETRIES"}
    assert asked_keys("Which version of requests does the scraper pin?", keys) == {"requests"}
    assert asked_keys("Which bastion image do we use?", keys) == set()


@pytest.mark.parametrize(
    ("query", "older", "newer", "old", "new"),
    [
        (
            "What instance type is the bastion?",
            TERRAFORM,
            'instance_type = "m6i.large"  # the bastion was swapping',
            "t3.medium",
            "m6i.large",
        ),
        # a module fetched at a version replaces go.mod's require line
        (
            "Which version of chi does go.mod require?",
            "go.mod\nrequire (\n\tgithub.com/go-chi/chi/v5 v5.0.8\n\tgithub.com/lib/pq v1.10.7\n)",
            "go get github.com/go-chi/chi/v5@v5.0.12 && go mod tidy, pushed",
            "v5.0.8",
            "v5.0.12",
        ),
        # a JVM heap flag asked by its words; the newer names the older's file by its name
        (
            "What max heap does the search indexer JVM get?",
            'indexer/run.sh\nexport JAVA_OPTS="-Xms1g -Xmx3g"\nexec java $JAVA_OPTS -jar idx.jar',
            'GC pauses again. JAVA_OPTS="-Xms1g -Xmx8g" is what run.sh has now.',
            "3g",
            "8g",
        ),
        # a heading of words before a colon is the message's, not the key's owner
        (
            "How many replicas does the search deployment run?",
            "kind: Deployment\nmetadata:\n  name: search\nspec:\n  replicas: 3",
            "Launch week prep: search deployment set to replicas: 8 until Friday.",
            "3",
            "8",
        ),
        # a directive said in a sentence as it is written in its file
        (
            "What is client_max_body_size set to in nginx?",
            "nginx.conf:\nserver {\n    listen 8080;\n    client_max_body_size 20m;\n}",
            "editors upload 4K masters, so nginx now has client_max_body_size 200m; reloaded.",
            "20m",
            "200m",
        ),
        (
            "Which version of requests does the scraper pin?",
            REQUIREMENTS,
            "chore(deps): requests==2.31.0 in requirements.txt for the proxy auth CVE",
            "2.28.1",
            "2.31.0",
        ),
        (
            # a review's reference names no owner; "only" limits the schedule, not the key
            "What is the inventory client's defaultTimeout?",
            "const defaultTimeout = 10 * time.Second",
            "PR #412: const defaultTimeout = 3 * time.Second, weekdays only",
            "10 * time.Second",
            "3 * time.Second",
        ),
        (
            # a file's path is provenance: the newer sentence need not say it
            "What is MAX_RETRIES set to in retry.py?",
            "retry.py\nMAX_RETRIES = 5\nBACKOFF_BASE_SECONDS = 2",
            "Lowered it, MAX_RETRIES = 3 now; webhook workers were held for a minute.",
            "5",
            "3",
        ),
        (
            # a JSON flag file, and a PR title that flips the flag (the environment is the
            # file's: "prod.json")
            "Is the dark_mode flag on or off in prod now?",
            'flags/prod.json\n{\n  "dark_mode": false,\n  "beta_banner": true\n}',
            'Merged PR #51 "flip dark_mode to true in flags/prod.json"',
            "false",
            "true",
        ),
        (
            # one key spelled two ways: a chart value and the flag it renders
            "What is the importer's HTTP read timeout?",
            "kubectl get deploy importer -o yaml | grep -A2 args\n"
            "  - --http-read-timeout=20s\n  - --log-format=json",
            "```diff\n--- a/charts/importer/values.yaml\n+++ b/charts/importer/values.yaml\n"
            "@@ -3,2 +3,2 @@\n-httpReadTimeout: 20s\n+httpReadTimeout: 60s\n```",
            "20s",
            "60s",
        ),
        (
            # a Go module requirement and a commit message that bumps it
            "Which pgx version does billing-gw require?",
            "go.mod\nmodule example.com/billing-gw\nrequire (\n\tgithub.com/jackc/pgx/v5 v5.4.3\n"
            "\tgo.uber.org/zap v1.26.0\n)",
            "deps(billing-gw): bump pgx to v5.5.5",
            "v5.4.3",
            "v5.5.5",
        ),
        (
            # a command's flag among other flags; the flags before it name no owner
            "What is the retention.ms of the audit topic?",
            "kafka-topics.sh --bootstrap-server k1:9092 --create --topic audit "
            "--config retention.ms=86400000",
            "kafka-configs.sh --bootstrap-server k1:9092 --alter --entity-type topics "
            "--entity-name audit "
            "--add-config retention.ms=604800000",
            "86400000",
            "604800000",
        ),
        (
            # an arithmetic value is one value; a trailing comment leaves it whole
            "How long is the shop's session cookie age?",
            "shop/settings.py\nSESSION_COOKIE_AGE = 60 * 60 * 24 * 14  # two weeks\nDEBUG = False",
            "the shop settings now have `SESSION_COOKIE_AGE = 60 * 60 * 12` in settings.py",
            "60 * 60 * 24 * 14",
            "60 * 60 * 12",
        ),
        (
            # a key under two blocks: the newer names which ("limits")
            "What is the renderer's memory limit?",
            "renderer container:\n  resources:\n    requests:\n      memory: 512Mi\n"
            "    limits:\n      memory: 1Gi",
            "renderer limits now `memory: 4Gi` after the OOM kills",
            "1Gi",
            "4Gi",
        ),
        (
            # a field of a Rust struct literal (its trailing comma), and a newer value that
            # was in the older as part of another number ("9200")
            "What is the crawler's default max_depth?",
            "impl Default for CrawlerConfig {\n    fn default() -> Self {\n        Self {\n"
            "            max_depth: 3,\n            port: 9200,\n        }\n    }\n}",
            "bumped the crawler default to `max_depth: 200,` in CrawlerConfig::default",
            "3",
            "200",
        ),
        (
            # a key and its new value quoted as code in a chat note; another key's name
            # ("workers") in the older file is no thing the newer must name
            "What is the gunicorn timeout for the admin service?",
            "admin/gunicorn.conf.py\n```python\nbind = '0.0.0.0:8000'\n"
            "workers = 4\ntimeout = 30\n```",
            "raised the admin gunicorn `timeout` to `120`, the CSV exports finish now",
            "30",
            "120",
        ),
        (
            # a plain key right before "to" and a quoted value
            "What is the Sidekiq concurrency on invoicer?",
            "invoicer config/sidekiq.yml\n```yaml\n:concurrency: 10\n:queues:\n  - default\n```",
            "dropped invoicer sidekiq concurrency to `5`, the PDF jobs were starving the db",
            "10",
            "5",
        ),
        (
            # a changelog's bullet pins a package
            "Which pydantic version is pricing-svc pinned to?",
            "pricing-svc pyproject.toml\n```toml\n[tool.poetry.dependencies]\n"
            'pydantic = "1.10.13"\n```',
            "## pricing-svc 4.0.0\n- pydantic is now pinned to 2.4.2\n- FastAPI bumped to 0.104.0",
            "1.10.13",
            "2.4.2",
        ),
        (
            # a database's prompt and a command's own words name no owner; "Postgres" is said
            # in "postgresql.conf"
            "What is max_connections on the orders Postgres primary?",
            "postgresql.conf on orders-primary:\n```\nmax_connections = 200\nwork_mem = 16MB\n```",
            "orders-primary:\n```\npostgres=# ALTER SYSTEM SET max_connections = 350;\n```",
            "200",
            "350",
        ),
        (
            # Redis's CONFIG SET sets a key to a value
            "What maxmemory-policy does the session cache use?",
            "session cache redis.conf\n```\nmaxmemory-policy noeviction\nmaxmemory 6gb\n```",
            "```\n$ redis-cli -h session-cache CONFIG SET maxmemory-policy allkeys-lru\nOK\n```",
            "noeviction",
            "allkeys-lru",
        ),
        (
            # "how many replicas" asks for the replica count; a dotted property is its last
            # segment's setting
            "How many replicas does checkout-api run?",
            "checkout-api values.yaml:\n```yaml\nreplicaCount: 4\n```",
            "checkout-api: `helm upgrade checkout-api charts/checkout-api --set replicaCount=7`",
            "4",
            "7",
        ),
        (
            "What is the Hikari maximum pool size for notifications?",
            "notifications application.properties\n```\n"
            "spring.datasource.hikari.maximum-pool-size=10\n```",
            "bumped the notifications hikari `maximum-pool-size` to `24` after the timeouts",
            "10",
            "24",
        ),
        # one assignment said twice, a negation in a clause of its own; the block that holds
        # the key is said by naming its file
        (
            "How many replicas does the ingest deployment run?",
            "deploy/ingest.yaml\nspec:\n  replicas: 2\n  template:\n    metadata: {}",
            "Backlog again, so:\nkubectl scale deploy/ingest --replicas=6\n"
            "and committed replicas: 6 to deploy/ingest.yaml so flux doesn't undo it.",
            "2",
            "6",
        ),
        (
            "What is the Hikari connection-timeout?",
            "application.yml\nspring:\n  datasource:\n    hikari:\n      connection-timeout: 3000",
            "Timeouts under load test, raised it: connection-timeout: 8000 in application.yml.",
            "3000",
            "8000",
        ),
        # a comment after the line's code holds nothing on
        (
            "What is MAX_UPLOAD_MB set to?",
            "MAX_UPLOAD_MB = 20  # keep in sync with nginx client_max_body_size",
            "settings.py now has MAX_UPLOAD_MB = 100, and I bumped client_max_body_size to match.",
            "20",
            "100",
        ),
        # the same database's label on both: its setting changed
        (
            "What's the max connections setting on the transactional database?",
            "transactional db: max_connections = 500",
            "transactional db: max_connections = 800, the pool was starving",
            "500",
            "800",
        ),
    ],
)
def test_a_newer_assignment_of_the_asked_key_replaces_the_older(
    query: str, older: str, newer: str, old: str, new: str
) -> None:
    (change,) = key_changes(query, older, newer)
    assert (change.old, change.new) == (old, new)
    assert old in change.unit


@pytest.mark.parametrize(
    ("query", "older", "newer"),
    [
        # a file's line after a label naming the file: no assignment of the label's last word
        (
            "What IP does printer.lan point to on the kiosk laptops?",
            "/etc/hosts on the kiosk laptops: 10.0.0.5  till.lan",
            "/etc/hosts on the kiosk laptops: 10.0.0.6  scale.lan",
        ),
        # a negation in the clause that assigns; two values said
        (
            "How many replicas does the ingest deployment run?",
            "deploy/ingest.yaml\nspec:\n  replicas: 2",
            "We did not commit replicas: 6 to deploy/ingest.yaml, flux would undo it.",
        ),
        (
            "How many replicas does the ingest deployment run?",
            "deploy/ingest.yaml\nspec:\n  replicas: 2",
            "kubectl scale deploy/ingest --replicas=6, committed replicas: 4 to deploy/ingest.yaml",
        ),
        # a test environment named in the newer statement only
        (
            "What is the Hikari connection-timeout?",
            "application.yml\nspring:\n  datasource:\n    hikari:\n      connection-timeout: 3000",
            "For the test profile: connection-timeout: 8000 in application.yml.",
        ),
        # another environment
        (
            "What LOG_LEVEL does the worker use?",
            "worker staging: LOG_LEVEL=debug",
            "worker prod: LOG_LEVEL=info",
        ),
        # the older says its value holds on
        (
            "What LOG_LEVEL does the worker use?",
            "the worker stays on LOG_LEVEL=debug",
            "worker: LOG_LEVEL=info",
        ),
        # another owner of the same key
        (
            "What's the request timeout for the search service?",
            "auth-service: request_timeout: 5s",
            "billing-service: request_timeout: 12s",
        ),
        # the question asks what was added: the key gathers values
        (
            "Which allowed origin was added for the reseller portal?",
            "ALLOWED_ORIGIN=https://app.example.com",
            "ALLOWED_ORIGIN=https://partners.example.com  # reseller portal",
        ),
        # a hedged newer unit
        (
            "What is MAX_RETRIES set to?",
            "MAX_RETRIES = 5",
            "we might set MAX_RETRIES = 3 if the workers keep stalling",
        ),
        # the same value again
        ("What is MAX_RETRIES set to?", "MAX_RETRIES = 5", "MAX_RETRIES = 5 is fine for now"),
        # a key the question does not name
        ("What is the retry backoff?", "MAX_RETRIES = 5", "MAX_RETRIES = 3"),
        # the newer names a thing the older does not
        (
            "How many replicas does the checkout deployment run?",
            "replicas: 2",
            "checkout deployment set to replicas: 6",
        ),
        # the same key in two files: a base file and its override
        (
            "What replicaCount does the chart's base values.yaml set?",
            "charts/api/values.yaml:\nreplicaCount: 3\nimage: api:1.4",
            "charts/api/values-prod.yaml:\nreplicaCount: 12",
        ),
        # the same value written two ways
        (
            "What read timeout does edge-proxy use?",
            "```go\nsrv := &http.Server{\n    ReadTimeout: 15 * time.Second,\n}\n```",
            "edge-proxy startup log: `level=info msg=listening read_timeout=15s`",
        ),
        # a key under two blocks, the newer naming neither
        (
            "What is the renderer's memory?",
            "renderer:\n  requests:\n    memory: 512Mi\n  limits:\n    memory: 1Gi",
            "renderer now `memory: 4Gi`",
        ),
        # the same flag of another command's owner
        (
            "What concurrency does the mailer worker run with?",
            "celery -A mailer worker -Q outbound --concurrency=4",
            "celery -A billing worker -Q invoices --concurrency=8",
        ),
        # the same key in another block: another job's
        (
            "What timeout-minutes does the unit job have?",
            "build.yml\n```yaml\njobs:\n  unit:\n    runs-on: ubuntu-latest\n"
            "    timeout-minutes: 15\n```",
            "integration job in the same build.yml:\n```yaml\n  integration:\n"
            "    needs: unit\n    timeout-minutes: 40\n```",
        ),
        # a Procfile's process names its owner
        (
            "What concurrency does the ingest celery worker run with?",
            "ingest: celery -A pipeline worker -Q ingest --concurrency=16",
            "reports: celery -A pipeline worker -Q reports --concurrency=3\n"
            "added so a slow render can't block ingest.",
        ),
        # two files an excerpt names: a base settings file and its override
        (
            "What SESSION_COOKIE_AGE is set?",
            "In settings/base.py:\n```\nSESSION_COOKIE_AGE = 1209600\n```",
            "settings/prod.py now overrides it:\n```python\nSESSION_COOKIE_AGE = 28800\n```",
        ),
        # the newer is a draft: it sets nothing yet
        (
            "What is SENTRY_SAMPLE_RATE set to in production?",
            ".env.production:\nSENTRY_SAMPLE_RATE=0.2",
            "Draft PR #4412:\n.env.production:\nSENTRY_SAMPLE_RATE=1.0\nDo not merge yet.",
        ),
        (
            "What is SENTRY_SAMPLE_RATE set to in production?",
            ".env.production:\nSENTRY_SAMPLE_RATE=0.2",
            "PR #4412 (in review): SENTRY_SAMPLE_RATE=1.0 for the incident",
        ),
        # a list the newer assignment keeps every member of, with one added
        (
            "Which admin hostname is in ALLOWED_HOSTS?",
            'ALLOWED_HOSTS = ["api.fernleaf.io"]',
            'ALLOWED_HOSTS = ["api.fernleaf.io", "www.api.fernleaf.io"]',
        ),
        # a list's name, one member each: one more origin
        (
            "Which origin did the dashboard api allow first?",
            "`ALLOWED_ORIGIN=https://app.quillbase.io`",
            "`ALLOWED_ORIGIN=https://admin.quillbase.io` for the internal admin console",
        ),
        # a label naming another database owns the setting after it
        (
            "What's the max connections setting on the reporting database?",
            "transactional db: max_connections = 500",
            "audit db: max_connections = 100, it's tiny",
        ),
        # a crontab's line after a label is no "key: value"
        (
            "Which script runs every six hours on db-backup-01?",
            "crontab on db-backup-01: 15 2 * * * /opt/scripts/pg_dump_nightly.sh",
            "crontab on db-backup-01: 0 */6 * * * /opt/scripts/wal_archive_check.sh",
        ),
    ],
)
def test_near_misses_change_nothing(query: str, older: str, newer: str) -> None:
    assert key_changes(query, older, newer) == []


@pytest.mark.parametrize(
    ("query", "newer"),
    [
        # a plain word for a key: "listen 9090" in a sentence is no directive
        ("Which port does nginx listen on?", "for the demo nginx can listen 9090 instead"),
        # hedged: nothing set yet
        (
            "What is client_max_body_size set to in nginx?",
            "we might give nginx client_max_body_size 200m next week",
        ),
    ],
)
def test_a_spaced_directive_in_prose_needs_a_distinctive_key_and_no_hedge(
    query: str, newer: str
) -> None:
    older = "nginx.conf:\nserver {\n    listen 8080;\n    client_max_body_size 20m;\n}"
    assert key_changes(query, older, newer) == []


def test_the_stage_excises_only_the_reassigned_line() -> None:
    older = scored_chunk(TERRAFORM, 0)
    newer = scored_chunk('instance_type = "m6i.large"  # the bastion was swapping', 5)
    query = QueryContext(
        query="What instance type is the bastion?", namespace="ns", as_of=T0 + timedelta(days=9)
    )
    outcome = AnnouncedChangeFilter().apply([older, newer], query)
    assert outcome.dropped == []
    (kept_older,) = [c for c in outcome.kept if c.id == older.id]
    (stale,) = kept_older.stale_sentences
    assert stale.excised and "t3.medium" in stale.text
    assert (stale.value, stale.current_value, stale.superseded_by) == (
        "t3.medium",
        "m6i.large",
        newer.id,
    )
    assert "t3.medium" not in kept_older.visible_text and "subnet_id" in kept_older.visible_text


def test_a_yes_no_question_naming_a_key_engages_the_stage() -> None:
    older = scored_chunk('flags/prod.json\n{\n  "dark_mode": false,\n  "beta": true\n}', 0)
    newer = scored_chunk('Merged PR #51 "flip dark_mode to true in flags/prod.json"', 5)
    query = QueryContext(
        query="Is the dark_mode flag on in prod?", namespace="ns", as_of=T0 + timedelta(days=9)
    )
    outcome = AnnouncedChangeFilter().apply([older, newer], query)
    (kept_older,) = [c for c in outcome.kept if c.id == older.id]
    (stale,) = kept_older.stale_sentences
    assert (stale.value, stale.current_value) == ("false", "true")
    assert '"beta": true' in kept_older.visible_text


def test_a_changed_keys_old_value_said_of_another_thing_is_no_mention() -> None:
    older = scored_chunk(
        "ingest-worker/logging.yaml\n```\nloggers:\n  kafka: WARN\n  ingest.pipeline: INFO\n```", 0
    )
    other = scored_chunk(
        "kafka client logger stays at WARN on ingest-worker, at INFO it writes 2GB a day", 2
    )
    repeat = scored_chunk("ingest.pipeline is at INFO, so the offsets never show up", 3)
    newer = scored_chunk("turned the `ingest.pipeline` logger up to `DEBUG` on ingest-worker", 5)
    query = QueryContext(
        query="What level is the ingest.pipeline logger at on ingest-worker?",
        namespace="ns",
        as_of=T0 + timedelta(days=9),
    )
    outcome = AnnouncedChangeFilter().apply([older, other, repeat, newer], query)
    kept = {c.id: c for c in outcome.kept}
    assert other.id in kept and kept[other.id].stale_sentences == ()
    assert [s.value for s in kept[older.id].stale_sentences] == ["INFO"]
    # the old value said of the key itself goes with it
    assert repeat.id not in kept or kept[repeat.id].stale_sentences


CIRCLECI = ".circleci/config.yml:\n---\nversion: {}\n\njobs:"
# the workflows' own "version: 2", its "workflows:" opener above the excerpt
WORKFLOWS = ".circleci/config.yml:\n  version: 2\n  node_exporter:\n    jobs:"


def test_a_line_of_a_block_the_excerpt_does_not_show_is_another_key() -> None:
    query = "What is version in .circleci/config.yml?"
    assert key_changes(query, WORKFLOWS, CIRCLECI.format("2.1")) == []
    # control: the top-level line of the same file changes
    (change,) = key_changes(query, CIRCLECI.format("2"), CIRCLECI.format("2.1"))
    assert (change.old, change.new) == ("2", "2.1")
    # two excerpts of the same unseen block are one key's
    (change,) = key_changes(query, WORKFLOWS, WORKFLOWS.replace("version: 2", "version: 3"))
    assert (change.old, change.new) == ("2", "3")


def test_an_old_value_on_a_line_whose_key_names_nothing_is_no_mention() -> None:
    older = scored_chunk(CIRCLECI.format("2"), 0)
    workflows = scored_chunk(WORKFLOWS, 2)
    newer = scored_chunk(CIRCLECI.format("2.1"), 5)
    query = QueryContext(
        query="What is version in .circleci/config.yml?",
        namespace="ns",
        as_of=T0 + timedelta(days=9),
    )
    outcome = AnnouncedChangeFilter().apply([older, workflows, newer], query)
    kept = {c.id: c for c in outcome.kept}
    assert workflows.id in kept and kept[workflows.id].stale_sentences == ()
    assert older.id not in kept or kept[older.id].stale_sentences


# a matrix of Go versions: each element of the list has its own ``go:`` (testify's .travis.yml)
MATRIX = '.travis.yml:\nmatrix:\n  include:\n    - go: "1.8.x"'
MATRIX_LATER = '.travis.yml:\n    - go: "1.13.x"\n      env: GO111MODULE=on\n    - go: master'


def test_a_key_of_a_yaml_list_element_gives_no_change() -> None:
    query = "What is go in .travis.yml?"
    assert key_changes(query, MATRIX, MATRIX_LATER) == []
    # control: the same key as a plain mapping line is one value
    (change,) = key_changes(query, ".travis.yml:\ngo: 1.8.x", ".travis.yml:\ngo: 1.13.x")
    assert (change.old, change.new) == ("1.8.x", "1.13.x")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\n",
        "=",
        "KEY=",
        ": : :",
        "a" * 5000,
        "ключ = значение",
        "x = {unclosed",
        "\x00\x01",
    ],
)
def test_odd_text_gives_no_change_and_no_error(text: str) -> None:
    key_values(text)
    assert key_changes("What is KEY set to?", text, "KEY = 2") == []


def test_a_typed_declaration_is_keyed_by_its_name() -> None:
    rust = "src/unix/redox/mod.rs:\npub const MAP_FIXED: c_int = 0x0010;\nlet limit: u32 = 5;"
    assert pairs(rust) == [("MAP_FIXED", "0x0010"), ("limit", "5")]
    assert pairs("app.py:\nTIMEOUT: int = 30") == [("TIMEOUT", "30")]
    assert pairs("Retries.kt:\nval retries: Int = 3") == [("retries", "3")]
    assert pairs("redis/cluster.py:\n    check_hostname: bool = True,") == [
        ("check_hostname", "True")
    ]
    # outside code, without a declaration word, a key and its value
    assert pairs("ci.yml:\ncommand: FOO=bar") == [("command", "FOO=bar")]


# fastify's lib/warnings.js: one object per warning, each with its ``code:``
WARNING = "lib/warnings.js:\n  code: '{}',\n  message: '{}',\n  unlimited: true"


def test_two_lines_of_unseen_blocks_are_one_key_only_at_one_place() -> None:
    query = "What is code in lib/warnings.js?"
    schema = WARNING.format("FSTWRN001", "The %s schema for %s: %s is missing.")
    router = WARNING.format("FSTDEP022", "The router options for %s are deprecated.")
    assert key_changes(query, schema, router) == []
    # the same object's message beside it: the code of one warning changed
    renamed = schema.replace("FSTWRN001", "FSTWRN002")
    (change,) = key_changes(query, schema, renamed)
    assert (change.old, change.new) == ("FSTWRN001", "FSTWRN002")


def test_a_line_every_item_has_places_no_key() -> None:
    # ``hooks:`` follows the ``rev:`` of every repository of a pre-commit config
    query = "What is rev in .pre-commit-config.yaml?"
    hooks = ".pre-commit-config.yaml:\n    rev: v6.0.0\n    hooks:\n      - id: trailing-whitespace"
    ruff = (
        ".pre-commit-config.yaml:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n"
        "    rev: v0.15.15\n    hooks:"
    )
    assert key_changes(query, hooks, ruff) == []


def test_two_same_lines_around_place_a_line_of_an_unseen_block() -> None:
    # jinja's dependabot rule: the list's key and its first item's opener above the line
    rule = (
        ".dependabot/config.yml:\n    ignored_updates:\n      - match:\n"
        '          dependency_name: "{}"'
    )
    query = "What is dependency_name in .dependabot/config.yml?"
    (change,) = key_changes(query, rule.format("pytest"), rule.format("sphinx"))
    assert (change.old, change.new) == ("pytest", "sphinx")


def test_a_named_line_beside_places_a_line_whatever_differs_further_off() -> None:
    block = ".circleci/config.yml:\n  schedule: {}\n  node_exporter:\n    version: {}"
    query = "What is version in .circleci/config.yml?"
    (change,) = key_changes(query, block.format("daily", 2), block.format("weekly", 3))
    assert (change.old, change.new) == ("2", "3")


def test_two_excerpt_headers_name_two_files() -> None:
    # meow's package.json and its test fixture's estest/package.json each have a version
    query = "What is version in package.json?"
    fixture = 'estest/package.json:\n\t"type": "module",\n\t"version": "1.2.3"\n}'
    root = 'package.json:\n\t"name": "meow",\n\t"version": "10.1.3",'
    assert key_changes(query, fixture, root) == []
    (change,) = key_changes(query, root.replace("10.1.3", "10.1.2"), root)
    assert (change.old, change.new) == ("10.1.2", "10.1.3")


def test_an_excerpt_inside_another_does_not_place_a_line() -> None:
    # mio's ci.yml: two jobs set up the toolchain with the same three lines
    query = "What is toolchain in .github/workflows/ci.yml?"
    twin = ".github/workflows/ci.yml:\n        profile: minimal\n        toolchain: stable\n"
    twin += "        override: true"
    job = (
        ".github/workflows/ci.yml:\n      with:\n        profile: minimal\n"
        "        toolchain: nightly\n        override: true\n    - name: Install minimal versions"
    )
    assert key_changes(query, twin, job) == []
    (change,) = key_changes(query, job.replace("nightly", "stable"), job)
    assert (change.old, change.new) == ("stable", "nightly")


def test_an_excerpt_ending_at_the_line_is_the_window_that_goes_on() -> None:
    # multidict's CI: the older excerpt stops at the changed line, the newer goes on
    query = "What is path in .github/workflows/ci.yml?"
    old = ".github/workflows/ci.yml:\n      with:\n        name: dist\n        path: dist"
    new = old.replace("path: dist", "path: /ws/wheelhouse") + "\n\n  build-binary:"
    (change,) = key_changes(query, old, new)
    assert (change.old, change.new) == ("dist", "/ws/wheelhouse")


def test_a_key_under_a_block_and_the_same_key_at_the_top_are_two_keys() -> None:
    # a workflow's job ``name: Lint`` and the workflow's own ``name: ci``, both shown
    older = ".github/workflows/ci.yml:\njobs:\n  lint:\n    name: Lint\n    runs-on: ubuntu-latest"
    newer = ".github/workflows/ci.yml:\nname: ci\n\non:\n  push:"
    question = "In .github/workflows/ci.yml, what is name?"
    assert key_changes(question, older, newer) == []
    # the job's name renamed under the same job is its change
    renamed = older.replace("name: Lint", "name: Linters")
    assert [(c.old, c.new) for c in key_changes(question, older, renamed)] == [("Lint", "Linters")]


PACKAGE_JSON = (
    'from package.json:\n"dependencies": {\n  "react": "^17.0.2",\n  "react-dom": "^17.0.2",\n'
    '  "zustand": "^3.6.9"\n}'
)


@pytest.mark.parametrize(
    "newer",
    [
        # a JSON pair opening a sentence, words after it
        '"react": "^18.2.0" builds fine on the CI node image too.',
        # packages upgraded together to one version range
        "chore(deps): upgrade react and react-dom to ^18.2.0, switched root to createRoot",
    ],
)
def test_a_json_pair_or_packages_upgraded_together_assign_a_version(newer: str) -> None:
    (change,) = key_changes("Which React version range is in package.json?", PACKAGE_JSON, newer)
    assert (change.key, change.old, change.new) == ("react", "^17.0.2", "^18.2.0")
    assert ("react-dom", "^18.2.0") in pairs("upgrade react and react-dom to ^18.2.0")
    # a label before words stays no setting
    assert pairs("Heads up: the channel is #ops") == []


def test_a_line_a_file_says_after_a_verb_assigns() -> None:
    workflow = ".github/workflows/test.yml\njobs:\n  test:\n    runs-on: ubuntu-20.04"
    newer = "GitHub is deprecating the old image so test.yml now says runs-on: ubuntu-22.04"
    (change,) = key_changes("What runner does the test workflow use?", workflow, newer)
    assert (change.old, change.new) == ("ubuntu-20.04", "ubuntu-22.04")
    configmap = "k8s/prod/configmap.yaml\ndata:\n  LOG_LEVEL: debug\n  LOG_FORMAT: json"
    newer = "Log volume bill was ugly. prod configmap now has LOG_LEVEL: warn, rolled the pods."
    (change,) = key_changes("What is LOG_LEVEL set to in the prod configmap?", configmap, newer)
    assert (change.old, change.new) == ("debug", "warn")


def test_a_manifest_is_the_file_not_a_thing_the_setting_belongs_to() -> None:
    manifest = "deploy/search-api.yaml\nspec:\n  replicas: 3\n  template:\n    spec:\n" + (
        "      containers:\n        - name: search-api"
    )
    newer = "Black Friday prep: scaled search-api, manifest now has replicas: 8 and HPA max 12."
    query = "How many replicas does search-api have in its manifest?"
    (change,) = key_changes(query, manifest, newer)
    assert (change.old, change.new) == ("3", "8")


def test_a_parameters_default_in_a_signature_is_its_setting() -> None:
    older = (
        "def fetch_feed(url: str, timeout=30, verify=True):\n"
        "    resp = session.get(url, timeout=timeout, verify=verify)\n"
        "    return resp.json()"
    )
    assert ("timeout", "30") in pairs(older) and ("verify", "True") in pairs(older)
    newer = "Partner feeds are slow, so the default is now def fetch_feed(url: str, timeout=90)"
    (change,) = key_changes("What is the default timeout in fetch_feed?", older, newer)
    assert (change.old, change.new) == ("30", "90")
    # a call's keyword argument is no default of the function
    assert ("timeout", "timeout") not in pairs(older)


def test_a_cargo_dependency_table_gives_its_version() -> None:
    cargo = (
        'Cargo.toml:\n[dependencies]\ntokio = { version = "1.28", features = ["full"] }\n'
        'axum = "0.6"'
    )
    assert ("tokio", "1.28") in pairs(cargo)
    newer = 'cargo update bumped tokio to version = "1.36" in Cargo.toml, tests pass'
    (change,) = key_changes("Which tokio version is in Cargo.toml?", cargo, newer)
    assert (change.old, change.new) == ("1.28", "1.36")


def test_a_code_name_said_to_hold_a_value_now_is_assigned() -> None:
    older = TERRAFORM.replace('"bastion"', '"ci_runner"')
    newer = 'terraform apply done: aws_instance.ci_runner instance_type is now "m6i.large".'
    assert pairs(newer) == [("instance_type", "m6i.large")]
    assert pairs("The bastion is now on Ubuntu 24.04.") == []  # no code name
    # the resource named by its dotted address ("aws_instance.ci_runner") is the one asked
    changes = key_changes("What instance type is the ci_runner?", older, newer)
    assert [(c.old, c.new) for c in changes] == [("t3.medium", "m6i.large")]
