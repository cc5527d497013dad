"""Marker-free evolving-knowledge scenarios for the supersession benchmark.

Four evolving sets (code_mutation, config_migration, dependency_bump, api_evolution) and static
project facts. An evolving scenario is one mutable fact stated in one realistic frame: state A,
then state B (chains: then C), each state's text identical to the others except for the value,
with no recency words ("now", "currently", "no longer", "updated", "new", ...): the only signal
that B replaces A is the event time. Static scenarios state a fact nothing ever contradicts.

Generation is a pure function of (seed, per-set count): frames are drawn round-robin so every
frame is used, entities and values by a seeded RNG, with distinct values per scenario.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

EVOLVING_SETS = ("code_mutation", "config_migration", "dependency_bump", "api_evolution")
STATIC_SET = "static"

# Words that tell a reader which statement is newer. None may appear in a generated text; a
# test checks every scenario (tokens are split on anything that is not a letter, so
# identifiers such as fetch_latest are caught too).
_MARKER_TEXT = """
now currently current no longer updated update updates new newer newest old older oldest
deprecated deprecate latest previous previously former formerly recent recently lately still
anymore changed change changes switched switch migrated migrate moved move replaced replace
instead renamed rename bumped bump upgraded upgrade downgraded obsolete outdated stale
superseded legacy today nowadays presently originally initially again earlier later before
after since until was were used going forward
"""
RECENCY_MARKERS = frozenset(_MARKER_TEXT.split())
_MULTIWORD_MARKERS = ("no longer", "as of", "going forward", "from now on", "these days", "used to")


def marker_words(text: str) -> list[str]:
    """Recency markers found in ``text`` (empty for a marker-free text)."""
    low = text.lower()
    tokens = re.split(r"[^a-z]+", low)
    found = sorted({t for t in tokens if t in RECENCY_MARKERS})
    found += [m for m in _MULTIWORD_MARKERS if re.search(rf"\b{m}\b", low)]
    return found


@dataclass(frozen=True)
class ScenarioTurn:
    text: str
    value: str
    state: int  # 0 = A, 1 = B, 2 = C
    copy: int  # accumulation copy number (0 for the first statement of a state)
    ts: datetime
    id: str


@dataclass(frozen=True)
class Scenario:
    id: str
    set: str
    frame: str
    question: str
    template: str  # the statement with "{value}"
    values: tuple[str, ...]  # A, B[, C]; static: one value
    turns: tuple[ScenarioTurn, ...] = field(default=())

    @property
    def evolving(self) -> bool:
        return self.set != STATIC_SET

    @property
    def answer(self) -> str:
        return self.values[-1]

    @property
    def stale_values(self) -> tuple[str, ...]:
        return self.values[:-1]

    def statement(self, state: int) -> str:
        return self.template.replace("{value}", self.values[state])


# --- entity pools ------------------------------------------------------------------------------
_SERVICES = [
    "payments service",
    "auth service",
    "search worker",
    "billing API",
    "notification worker",
    "export job",
    "ingest queue consumer",
    "report generator",
    "image resizer",
    "web frontend",
    "ledger service",
    "feature flag service",
    "metrics collector",
    "email dispatcher",
    "inventory service",
    "checkout service",
    "recommendation engine",
    "audit logger",
]
_TASKS = [
    ("parses the config file", "config_file"),
    ("validates session tokens", "session_token"),
    ("retries failed uploads", "upload"),
    ("builds the search index", "search_index"),
    ("renders the invoice PDF", "invoice_pdf"),
    ("hashes user passwords", "password"),
    ("normalises phone numbers", "phone_number"),
    ("sends the weekly digest", "weekly_digest"),
    ("resizes profile images", "profile_image"),
    ("computes shipping costs", "shipping_cost"),
    ("merges duplicate accounts", "duplicate_account"),
    ("signs outgoing webhooks", "webhook"),
    ("exports the audit log", "audit_log"),
    ("schedules nightly backups", "nightly_backup"),
    ("deduplicates event streams", "event_stream"),
    ("encrypts stored secrets", "stored_secret"),
]
_VERBS = [
    "parse",
    "load",
    "read",
    "fetch",
    "build",
    "make",
    "compute",
    "resolve",
    "handle",
    "process",
    "check",
    "verify",
    "render",
    "emit",
    "collect",
    "prepare",
    "apply",
    "run",
]
_MODULE_DIRS = [
    "src/utils",
    "src/core",
    "app/services",
    "app/lib",
    "pkg/internal",
    "lib/common",
    "src/helpers",
    "app/domain",
    "core/io",
    "src/platform",
]
_CLASSES = [
    "PaymentGateway",
    "UserRepository",
    "OrderProcessor",
    "CacheClient",
    "EventBus",
    "TokenStore",
    "ReportWriter",
    "SearchIndexer",
    "RateLimiter",
    "SessionManager",
    "InvoiceBuilder",
    "RetryPolicy",
    "MetricsSink",
    "FileUploader",
]
_BASES = [
    "BaseModel",
    "ABC",
    "Protocol",
    "BaseRepository",
    "Generic[T]",
    "AbstractClient",
    "Service",
    "Component",
    "Mapping[str, Any]",
    "Exception",
    "NamedTuple",
    "Enum",
]
_RETURNS = [
    "Status('Good')",
    "['GOOD']",
    "dict[str, int]",
    "Optional[User]",
    "list[Order]",
    "tuple[int, str]",
    "Result[Config, Error]",
    "None",
    "bool",
    "AsyncIterator[Event]",
    "Iterator[Row]",
    "Mapping[str, float]",
    "User | None",
    "set[str]",
    "bytes",
    "pd.DataFrame",
    "np.ndarray",
    "Response",
    "JSONResponse",
    "int",
]
_DECORATORS = [
    "@cached",
    "@lru_cache(maxsize=128)",
    "@retry(times=3)",
    "@login_required",
    "@transactional",
    "@timed",
    "@staticmethod",
    "@classmethod",
    "@cache",
    "@rate_limited(10)",
    "@traced",
    "@validate_call",
]
_EXCEPTIONS = [
    "ValueError",
    "TimeoutError",
    "ConfigError",
    "RetryExhausted",
    "PermissionError",
    "UploadFailed",
    "KeyError",
    "ConnectionError",
    "RuntimeError",
    "QuotaExceeded",
]
_FAILURES = [
    "timeout",
    "an expired token",
    "a missing config key",
    "a full disk",
    "a rejected upload",
    "a bad checksum",
    "a closed connection",
    "quota exhaustion",
]
_COMPONENTS = ["CLI", "worker", "scheduler", "admin console", "migration runner", "API server"]
_FEATURES = [
    "password reset",
    "invoice export",
    "search ranking",
    "rate limiting",
    "session expiry",
    "webhook signing",
    "bulk import",
    "email digests",
]
_PARAMS = [
    "retries",
    "timeout",
    "batch_size",
    "encoding",
    "max_workers",
    "page_size",
    "strict",
    "verbose",
]

_CONFIG_KEYS = [
    "max_connections",
    "request_timeout",
    "log_level",
    "cache_ttl",
    "worker_count",
    "retry_limit",
    "queue_depth",
    "pool_size",
    "upload_limit",
    "session_ttl",
    "batch_window",
    "flush_interval",
]
_CONFIG_FILES = [
    "config.yaml",
    "settings.toml",
    "app.ini",
    "values.yaml",
    ".env.production",
    "service.conf",
]
_ENV_KEYS = [
    "DATABASE_POOL_SIZE",
    "LOG_LEVEL",
    "CACHE_TTL_SECONDS",
    "WORKER_CONCURRENCY",
    "REQUEST_TIMEOUT_MS",
    "MAX_UPLOAD_MB",
    "SENTRY_SAMPLE_RATE",
    "FEATURE_CHECKOUT_V2",
    "QUEUE_PREFETCH",
    "SMTP_PORT",
    "REDIS_DB",
    "GUNICORN_WORKERS",
]
_REGIONS = [
    "eu-west-1",
    "us-east-1",
    "eu-central-1",
    "ap-southeast-2",
    "us-west-2",
    "ca-central-1",
    "eu-north-1",
    "sa-east-1",
]
_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"]
_BACKENDS = ["s3", "gcs", "azure-blob", "minio", "local-disk", "nfs"]
_FLAGS = [
    "checkout_v2",
    "smart_search",
    "bulk_export",
    "dark_mode",
    "fast_refunds",
    "inline_editing",
    "beta_reports",
    "two_factor_prompt",
]
_FLAG_STATES = ["enabled", "disabled"]

_PACKAGES = [
    "fastapi",
    "pydantic",
    "sqlalchemy",
    "requests",
    "httpx",
    "numpy",
    "pandas",
    "celery",
    "redis",
    "boto3",
    "uvicorn",
    "django",
    "flask",
    "pytest",
    "alembic",
    "structlog",
    "orjson",
    "tenacity",
]
_NPM = [
    "react",
    "vite",
    "typescript",
    "eslint",
    "next",
    "zod",
    "axios",
    "lodash",
    "express",
    "webpack",
]
_LANGS = [
    ("Python", ["3.9.18", "3.10.13", "3.11.8", "3.12.2", "3.13.0"]),
    ("Node", ["18.19.1", "20.11.1", "21.6.2", "22.1.0"]),
    ("Go", ["1.20.14", "1.21.7", "1.22.1", "1.23.0"]),
    ("Ruby", ["3.1.4", "3.2.3", "3.3.0"]),
    ("Rust", ["1.74.1", "1.75.0", "1.76.0", "1.77.2"]),
]
_TOOLS = ["terraform", "kubectl", "helm", "poetry", "ruff", "mypy", "black", "protoc", "buf"]
_IMAGES = [
    ("python", ["3.10-slim", "3.11-slim", "3.12-slim", "3.12-alpine"]),
    ("node", ["18-alpine", "20-alpine", "20-bookworm", "22-alpine"]),
    ("postgres", ["14.11", "15.6", "16.2", "16.3"]),
    ("nginx", ["1.24.0", "1.25.4", "1.26.0"]),
]

_PROJECTS = [
    "the project",
    "the storefront",
    "the partner portal",
    "the mobile backend",
    "the analytics platform",
    "the billing platform",
    "the support desk",
]
_RESOURCES = [
    "users",
    "orders",
    "invoices",
    "payments",
    "products",
    "sessions",
    "shipments",
    "subscriptions",
    "refunds",
    "customers",
    "webhooks",
    "reports",
]
_EVENTS = [
    "order creation",
    "payment failure",
    "refund approval",
    "user signup",
    "subscription renewal",
    "shipment dispatch",
    "invoice payment",
]
_ACTIONS = [
    "creating an order",
    "listing invoices",
    "refunding a payment",
    "inviting a user",
    "cancelling a subscription",
    "uploading a file",
    "rotating an API key",
]
_CASES = [
    "duplicate requests",
    "expired tokens",
    "missing fields",
    "unknown ids",
    "quota overruns",
    "version conflicts",
]


def _ident(rng: random.Random, stem: str) -> str:
    return f"{rng.choice(_VERBS)}_{stem}"


def _distinct(make: Callable[[], str], n: int) -> list[str]:
    out: list[str] = []
    for _ in range(200):
        value = make()
        if value not in out:
            out.append(value)
        if len(out) == n:
            return out
    raise RuntimeError("value pool too small")


def _from(rng: random.Random, pool: Sequence[str], n: int) -> list[str]:
    return rng.sample(list(pool), n)


def _version(rng: random.Random) -> str:
    return f"{rng.randint(0, 4)}.{rng.randint(0, 120)}.{rng.randint(0, 12)}"


# A frame: rng, number of states -> (template with {value}, question, values).
Frame = Callable[[random.Random, int], tuple[str, str, list[str]]]


# --- code_mutation ----------------------------------------------------------------------------
def _cm_task_function(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    task, stem = rng.choice(_TASKS)
    values = _distinct(lambda: _ident(rng, stem), n)
    return f"The function that {task} is `{{value}}`.", f"Which function {task}?", values


def _cm_returns(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    _task, stem = rng.choice(_TASKS)
    func = _ident(rng, stem)
    return f"`{func}` returns `{{value}}`.", f"What does `{func}` return?", _from(rng, _RETURNS, n)


def _cm_defined_in(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    _task, stem = rng.choice(_TASKS)
    func = _ident(rng, stem)
    values = _distinct(lambda: f"{rng.choice(_MODULE_DIRS)}/{stem}.py", n)
    return f"`{func}` is defined in `{{value}}`.", f"Where is `{func}` defined?", values


def _cm_signature(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    _task, stem = rng.choice(_TASKS)
    func = _ident(rng, stem)
    extras = ["", ", *, timeout=30", ", retries=3", ", *, strict=False", ", **options"]
    values = _distinct(lambda: f"{func}({stem}{rng.choice(extras)})", n)
    return (
        f"The signature of `{func}` is `{{value}}`.",
        f"What is the signature of `{func}`?",
        values,
    )


def _cm_default(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    _task, stem = rng.choice(_TASKS)
    func, param = _ident(rng, stem), rng.choice(_PARAMS)
    pool = ["3", "5", "10", "30", "60", "None", "True", "False", "'utf-8'", "'latin-1'", "128"]
    return (
        f"The default value of `{param}` in `{func}()` is `{{value}}`.",
        f"What is the default value of `{param}` in `{func}()`?",
        _from(rng, pool, n),
    )


def _cm_inherits(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    cls = rng.choice(_CLASSES)
    return (
        f"`{cls}` inherits from `{{value}}`.",
        f"What does `{cls}` inherit from?",
        _from(rng, _BASES, n),
    )


def _cm_decorator(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    _task, stem = rng.choice(_TASKS)
    func = _ident(rng, stem)
    return (
        f"The decorator on `{func}` is `{{value}}`.",
        f"Which decorator is on `{func}`?",
        _from(rng, _DECORATORS, n),
    )


def _cm_entry_point(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    comp = rng.choice(_COMPONENTS)
    mods = ["app.main", "app.cli", "service.entry", "tools.run", "src.launch", "pkg.boot"]
    values = _distinct(lambda: f"{rng.choice(mods)}:{rng.choice(['main', 'run', 'start'])}", n)
    return (
        f"The entry point of the {comp} is `{{value}}`.",
        f"What is the entry point of the {comp}?",
        values,
    )


def _cm_test_location(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    feature = rng.choice(_FEATURES)
    slug = feature.replace(" ", "_")
    dirs = ["tests/unit", "tests/integration", "tests/api", "tests/e2e", "spec", "tests/functional"]
    values = _distinct(lambda: f"{rng.choice(dirs)}/test_{slug}.py", n)
    return (
        f"The test for {feature} lives in `{{value}}`.",
        f"Where does the test for {feature} live?",
        values,
    )


def _cm_exception(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    failure = rng.choice(_FAILURES)
    return (
        f"The exception raised on {failure} is `{{value}}`.",
        f"Which exception is raised on {failure}?",
        _from(rng, _EXCEPTIONS, n),
    )


def _cm_handled_by(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    cls = rng.choice(_CLASSES)
    values = _distinct(
        lambda: f"{cls}.{rng.choice(_VERBS)}_{rng.choice(['all', 'one', 'batch'])}", n
    )
    task, _stem = rng.choice(_TASKS)
    return (
        f"The job that {task} is handled by `{{value}}`.",
        f"What handles the job that {task}?",
        values,
    )


# --- config_migration ------------------------------------------------------------------------
def _cfg_set_in_file(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    key, file = rng.choice(_CONFIG_KEYS), rng.choice(_CONFIG_FILES)
    values = _distinct(lambda: str(rng.choice([8, 16, 30, 32, 50, 64, 100, 120, 250, 500])), n)
    return (
        f"`{key}` is set to {{value}} in `{file}`.",
        f"What is `{key}` set to in `{file}`?",
        values,
    )


def _cfg_env(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    key = rng.choice(_ENV_KEYS)
    values = _distinct(lambda: str(rng.choice([1, 2, 4, 8, 10, 20, 25, 60, 300, 900])), n)
    return f"{key}={{value}}", f"What is {key} set to?", values


def _cfg_yaml(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    key = rng.choice(_CONFIG_KEYS)
    values = _distinct(lambda: f"{rng.choice([5, 10, 15, 30, 45, 90])}s", n)
    return f"{key}: {{value}}", f"What is {key} in the config?", values


def _cfg_port(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    values = _distinct(lambda: str(rng.choice([8000, 8080, 8081, 8443, 9000, 9090, 5000, 3000])), n)
    return (
        f"The {svc} listens on port {{value}}.",
        f"Which port does the {svc} listen on?",
        values,
    )


def _cfg_log_level(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    return (
        f"The log level for the {svc} is {{value}}.",
        f"What is the log level for the {svc}?",
        _from(rng, _LEVELS, n),
    )


def _cfg_db_url(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    hosts = ["db-primary", "db-replica-2", "pg-main", "orders-db", "pg-eu-1", "aurora-cluster"]
    values = _distinct(lambda: f"postgresql://{rng.choice(hosts)}:5432/{svc.split()[0]}", n)
    return (
        f"The database URL for the {svc} is `{{value}}`.",
        f"What is the database URL for the {svc}?",
        values,
    )


def _cfg_timeout(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    values = _distinct(lambda: f"{rng.choice([5, 10, 15, 20, 30, 45, 60, 90])} seconds", n)
    return (
        f"The request timeout for the {svc} is {{value}}.",
        f"What is the request timeout for the {svc}?",
        values,
    )


def _cfg_region(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    return (
        f"The deploy region for the {svc} is {{value}}.",
        f"What is the deploy region for the {svc}?",
        _from(rng, _REGIONS, n),
    )


def _cfg_flag(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    flag = rng.choice(_FLAGS)
    values = [_FLAG_STATES[i % 2] for i in range(n)]
    if n == 3:  # a chain needs three distinct values
        values = ["enabled", "disabled", "enabled for staff"]
    rng.shuffle(values)
    return (
        f"The `{flag}` feature flag is {{value}}.",
        f"Is the `{flag}` feature flag enabled?",
        values,
    )


def _cfg_storage(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    return (
        f"The {svc} uses the `{{value}}` storage backend.",
        f"Which storage backend does the {svc} use?",
        _from(rng, _BACKENDS, n),
    )


def _cfg_worker_count(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    values = _distinct(lambda: str(rng.choice([2, 4, 6, 8, 12, 16, 24, 32])), n)
    return (
        f"The worker count for the {svc} is {{value}}.",
        f"How many workers does the {svc} run?",
        values,
    )


def _cfg_settings_file(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    values = _distinct(
        lambda: f"{rng.choice(['/etc', '/opt/app', 'deploy', 'conf'])}/{rng.choice(_CONFIG_FILES)}",
        n,
    )
    return (
        f"The settings file for the {svc} is `{{value}}`.",
        f"Where is the settings file for the {svc}?",
        values,
    )


# --- dependency_bump -----------------------------------------------------------------------
def _dep_pin_requirements(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    pkg = rng.choice(_PACKAGES)
    return (
        f"We pin {pkg} at {{value}} in requirements.txt.",
        f"Which {pkg} version do we pin in requirements.txt?",
        _distinct(lambda: _version(rng), n),
    )


def _dep_spec_line(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    pkg = rng.choice(_PACKAGES)
    return (
        f"{pkg}=={{value}}",
        f"Which version of {pkg} is required?",
        _distinct(lambda: _version(rng), n),
    )


def _dep_lockfile(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    pkg = rng.choice(_PACKAGES)
    return (
        f"The lockfile has {pkg} {{value}}.",
        f"Which {pkg} version is in the lockfile?",
        _distinct(lambda: _version(rng), n),
    )


def _dep_language(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    lang, versions = rng.choice(_LANGS)
    project = rng.choice(_PROJECTS)
    sentence_project = project[0].upper() + project[1:]
    return (
        f"{sentence_project} uses {lang} {{value}}.",
        f"Which {lang} version does {project} use?",
        _from(rng, versions, n),
    )


def _dep_image(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    image, tags = rng.choice(_IMAGES)
    svc = rng.choice(_SERVICES)
    return (
        f"The {svc} image is built from `{{value}}`.",
        f"Which base image is the {svc} image built from?",
        [f"{image}:{t}" for t in _from(rng, tags, n)],
    )


def _dep_poetry_lock(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    pkg = rng.choice(_PACKAGES)
    return (
        f"`{pkg}` is locked at {{value}} in poetry.lock.",
        f"Which {pkg} version is locked in poetry.lock?",
        _distinct(lambda: _version(rng), n),
    )


def _dep_ci_tool(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    tool = rng.choice(_TOOLS)
    return (
        f"The CI runner uses {tool} {{value}}.",
        f"Which {tool} version does the CI runner use?",
        _distinct(lambda: _version(rng), n),
    )


def _dep_pinned_to(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    pkg = rng.choice(_PACKAGES)
    return (
        f"{pkg} is pinned to {{value}}.",
        f"Which version is {pkg} pinned to?",
        _distinct(lambda: _version(rng), n),
    )


def _dep_minimum(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    lang, versions = rng.choice(_LANGS)
    return (
        f"The minimum supported {lang} version is {{value}}.",
        f"What is the minimum supported {lang} version?",
        _from(rng, versions, n),
    )


def _dep_npm(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    pkg = rng.choice(_NPM)
    return (
        f"package.json pins {pkg}@{{value}}.",
        f"Which {pkg} version does package.json pin?",
        _distinct(lambda: _version(rng), n),
    )


def _dep_installs(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    tool = rng.choice(_TOOLS)
    return (
        f"The Dockerfile installs {tool} {{value}}.",
        f"Which {tool} version does the Dockerfile install?",
        _distinct(lambda: _version(rng), n),
    )


def _dep_version_in_lockfile(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    pkg = rng.choice(_PACKAGES)
    return (
        f"The {pkg} version in the lockfile is {{value}}.",
        f"What is the {pkg} version in the lockfile?",
        _distinct(lambda: _version(rng), n),
    )


# --- api_evolution ---------------------------------------------------------------------------
def _api_base_path(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    project = rng.choice(_PROJECTS)
    values = _distinct(lambda: rng.choice(["/api/v1", "/api/v2", "/API/v1", "/v3", "/api"]), n)
    return (
        f"The API base path for {project} is {{value}}.",
        f"What is the API base path for {project}?",
        values,
    )


def _api_endpoint(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    res = rng.choice(_RESOURCES)
    values = _distinct(
        lambda: (
            f"{rng.choice(['GET', 'POST', 'PUT'])} /{rng.choice(['v1', 'v2', 'api'])}/{res}"
            f"{rng.choice(['', '/{id}', '/search'])}"
        ),
        n,
    )
    return (
        f"The {res} endpoint is `{{value}}`.",
        f"What is the {res} endpoint?",
        values,
    )


def _api_returns(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    res = rng.choice(_RESOURCES)
    name = res[:-1].capitalize() if res.endswith("s") else res.capitalize()
    pool = [
        f"{name}",
        f"list[{name}]",
        f"Page[{name}]",
        f"{name}Out",
        f"{{'items': [{name}]}}",
        f"{name}Envelope",
        f"Paginated{name}",
    ]
    return (
        f"The {res} endpoint returns `{{value}}`.",
        f"What does the {res} endpoint return?",
        _from(rng, pool, n),
    )


def _api_auth_header(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    pool = [
        "Authorization: Bearer <token>",
        "X-API-Key: <key>",
        "Authorization: Token <key>",
        "X-Auth-Token: <token>",
        "Authorization: Basic <credentials>",
    ]
    return (
        f"The auth header for the {svc} is `{{value}}`.",
        f"What is the auth header for the {svc}?",
        _from(rng, pool, n),
    )


def _api_rate_limit(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    values = _distinct(
        lambda: f"{rng.choice([60, 100, 120, 300, 600, 1000])} requests per minute", n
    )
    return (
        f"The rate limit for the {svc} is {{value}}.",
        f"What is the rate limit for the {svc}?",
        values,
    )


def _api_version(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    values = _distinct(
        lambda: rng.choice(["v1", "v2", "v3", "2023-10-16", "2024-04-10", "v2beta"]), n
    )
    return (
        f"The API version of the {svc} is {{value}}.",
        f"What is the API version of the {svc}?",
        values,
    )


def _api_pagination(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    return (
        f"Pagination in the {svc} uses the `{{value}}` parameter.",
        f"Which parameter does pagination in the {svc} use?",
        _from(rng, ["page", "cursor", "offset", "page_token", "continuation", "start"], n),
    )


def _api_field_name(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    res = rng.choice(_RESOURCES)
    thing = rng.choice(["creation time", "owner id", "total amount", "status", "display name"])
    stem = thing.split()[0]
    pool = [f"{stem}", f"{stem}_at", f"{stem}At", f"{stem}_value", f"{stem}Id", f"{stem}_ts"]
    return (
        f"The {thing} field in the {res} payload is called `{{value}}`.",
        f"What is the {thing} field in the {res} payload called?",
        _from(rng, pool, n),
    )


def _api_webhook(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    event = rng.choice(_EVENTS)
    slug = event.replace(" ", "-")
    values = _distinct(
        lambda: (
            f"https://{rng.choice(['hooks', 'events', 'api'])}.example.com/{slug}"
            f"{rng.choice(['', '/v2', '/inbound'])}"
        ),
        n,
    )
    return (
        f"The webhook URL for {event} is `{{value}}`.",
        f"What is the webhook URL for {event}?",
        values,
    )


def _api_content_type(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    svc = rng.choice(_SERVICES)
    pool = [
        "application/json",
        "application/vnd.api+json",
        "application/x-protobuf",
        "application/merge-patch+json",
        "application/x-ndjson",
    ]
    return (
        f"The content type for the {svc} is `{{value}}`.",
        f"What is the content type for the {svc}?",
        _from(rng, pool, n),
    )


def _api_sdk_method(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    action = rng.choice(_ACTIONS)
    obj = action.split()[-1]
    values = _distinct(
        lambda: f"client.{rng.choice(['create', 'make', 'submit', 'post', 'add'])}_{obj}()", n
    )
    return (
        f"The SDK method for {action} is `{{value}}`.",
        f"What is the SDK method for {action}?",
        values,
    )


def _api_status_code(rng: random.Random, n: int) -> tuple[str, str, list[str]]:
    case = rng.choice(_CASES)
    return (
        f"The status code for {case} is `{{value}}`.",
        f"Which status code is returned for {case}?",
        _from(rng, ["400", "409", "410", "422", "429", "404", "412"], n),
    )


FRAMES: dict[str, dict[str, Frame]] = {
    "code_mutation": {
        "task_function": _cm_task_function,
        "returns": _cm_returns,
        "defined_in": _cm_defined_in,
        "signature": _cm_signature,
        "default_value": _cm_default,
        "inherits": _cm_inherits,
        "decorator": _cm_decorator,
        "entry_point": _cm_entry_point,
        "test_location": _cm_test_location,
        "exception": _cm_exception,
        "handled_by": _cm_handled_by,
    },
    "config_migration": {
        "set_in_file": _cfg_set_in_file,
        "env_line": _cfg_env,
        "yaml_line": _cfg_yaml,
        "port": _cfg_port,
        "log_level": _cfg_log_level,
        "database_url": _cfg_db_url,
        "timeout": _cfg_timeout,
        "region": _cfg_region,
        "feature_flag": _cfg_flag,
        "storage_backend": _cfg_storage,
        "worker_count": _cfg_worker_count,
        "settings_file": _cfg_settings_file,
    },
    "dependency_bump": {
        "pin_requirements": _dep_pin_requirements,
        "spec_line": _dep_spec_line,
        "lockfile": _dep_lockfile,
        "language": _dep_language,
        "base_image": _dep_image,
        "poetry_lock": _dep_poetry_lock,
        "ci_tool": _dep_ci_tool,
        "pinned_to": _dep_pinned_to,
        "minimum_version": _dep_minimum,
        "npm_pin": _dep_npm,
        "dockerfile_install": _dep_installs,
        "lockfile_version": _dep_version_in_lockfile,
    },
    "api_evolution": {
        "base_path": _api_base_path,
        "endpoint": _api_endpoint,
        "returns": _api_returns,
        "auth_header": _api_auth_header,
        "rate_limit": _api_rate_limit,
        "api_version": _api_version,
        "pagination": _api_pagination,
        "field_name": _api_field_name,
        "webhook": _api_webhook,
        "content_type": _api_content_type,
        "sdk_method": _api_sdk_method,
        "status_code": _api_status_code,
    },
}

# Static project facts: stated once, never contradicted; they must survive every filter.
STATIC_FACTS: list[tuple[str, str, str]] = [
    ("The project is licensed under {value}.", "Which licence is the project under?", "Apache-2.0"),
    ("The repository is hosted on {value}.", "Where is the repository hosted?", "GitHub"),
    (
        "The code of conduct lives in `{value}`.",
        "Where does the code of conduct live?",
        "CODE_OF_CONDUCT.md",
    ),
    (
        "The issue tracker for the project is {value}.",
        "What is the issue tracker for the project?",
        "Linear",
    ),
    ("The team chat channel is `{value}`.", "What is the team chat channel?", "#platform-dev"),
    (
        "The on-call rotation is managed in {value}.",
        "Where is the on-call rotation managed?",
        "PagerDuty",
    ),
    ("The docs site is built with {value}.", "What is the docs site built with?", "MkDocs"),
    (
        "The default branch of the repository is `{value}`.",
        "What is the default branch of the repository?",
        "main",
    ),
    ("The coding style guide is `{value}`.", "What is the coding style guide?", "docs/STYLE.md"),
    (
        "The secrets for the project are stored in {value}.",
        "Where are the secrets for the project stored?",
        "HashiCorp Vault",
    ),
    (
        "The product owner for the project is {value}.",
        "Who is the product owner for the project?",
        "Priya Raman",
    ),
    (
        "The error tracker for the project is {value}.",
        "What is the error tracker for the project?",
        "Sentry",
    ),
    (
        "The metrics dashboard lives in {value}.",
        "Where does the metrics dashboard live?",
        "Grafana",
    ),
    (
        "The release notes are written in `{value}`.",
        "Where are the release notes written?",
        "CHANGELOG.md",
    ),
]


def _entity(pattern: str, kind: str) -> Callable[[str], str]:
    """Identity of a frame's fact: its kind and the entity named in the template (case-folded:
    LOG_LEVEL=... and log_level: ... set one setting)."""

    def identity(template: str) -> str:
        m = re.search(pattern, template)
        return f"{kind}:{m.group(1).lower()}" if m else template

    return identity


_PINNED = _entity(r"^`?([\w.-]+?)`?(?:==| is pinned to)", "pinned version")
_LOCKED = _entity(
    r"(?:lockfile has |^The )([\w.-]+)(?: \{value\}| version in the lockfile)", "lockfile"
)
_CONFIG = _entity(r"^`?([A-Za-z_]+)`?(?::|=| is set to)", "config key")
_FACT_IDENTITY: dict[str, Callable[[str], str]] = {
    "spec_line": _PINNED,
    "pinned_to": _PINNED,
    "lockfile": _LOCKED,
    "lockfile_version": _LOCKED,
    "set_in_file": _CONFIG,
    "yaml_line": _CONFIG,
    "env_line": _CONFIG,
}

START = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)
STATE_WINDOW = timedelta(days=20)


def generate_set(
    name: str,
    *,
    count: int,
    chain_share: float = 0.3,
    copies: int = 1,
    seed: int = 0,
) -> list[Scenario]:
    """``count`` scenarios of one evolving set (``copies`` statements of every stale state;
    the current state is stated once), or the static facts (``name == "static"``)."""
    rng = random.Random(f"{seed}:{name}")
    if name == STATIC_SET:
        return _static(count, rng)
    frames = FRAMES[name]
    frame_names = list(frames)
    chains = round(count * chain_share)
    out: list[Scenario] = []
    seen: set[str] = set()
    i = 0
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > count * 50:
            raise RuntimeError(f"cannot draw {count} distinct scenarios for {name}")
        frame = frame_names[i % len(frame_names)]
        states = 3 if len(out) < chains else 2
        template, question, values = frames[frame](rng, states)
        # One scenario per real-world fact: two frames can state the same fact (a package's
        # pinned version as "X==V" and as "X is pinned to V"), so they share an identity.
        identity = _FACT_IDENTITY.get(frame, lambda t: t)(template)
        if identity in seen:
            continue
        seen.add(identity)
        i += 1
        sid = f"{name}-{len(out):03d}"
        turns = []
        for state, value in enumerate(values):
            n = copies if state < len(values) - 1 else 1
            window_start = START + state * STATE_WINDOW
            for c in range(n):
                offset = timedelta(seconds=rng.randrange(1, int(STATE_WINDOW.total_seconds())))
                turns.append(
                    ScenarioTurn(
                        text=template.replace("{value}", value),
                        value=value,
                        state=state,
                        copy=c,
                        ts=window_start + offset,
                        id=f"{sid}-s{state}-c{c}",
                    )
                )
        out.append(Scenario(sid, name, frame, question, template, tuple(values), tuple(turns)))
    return out


def _static(count: int, rng: random.Random) -> list[Scenario]:
    facts = STATIC_FACTS[:count]
    out = []
    for i, (template, question, value) in enumerate(facts):
        sid = f"static-{i:03d}"
        ts = START + timedelta(seconds=rng.randrange(1, int(3 * STATE_WINDOW.total_seconds())))
        turn = ScenarioTurn(template.replace("{value}", value), value, 0, 0, ts, f"{sid}-s0-c0")
        out.append(Scenario(sid, STATIC_SET, "static", question, template, (value,), (turn,)))
    return out
