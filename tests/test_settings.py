from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import SecretStr

from gcmem.settings import PolicyRule, Settings, SettingsError, load_settings

# Every variable a deployment may set: the value as an env file writes it, where it lands
# (section.field) and what it parses to. Each differs from its default, so a variable read
# into the wrong place (or not at all) fails the test below.
EVERY_VARIABLE: dict[str, tuple[str, str, object]] = {
    "GCMEM_DATA_DIR": ("/srv/gcmem", "storage.data_dir", Path("/srv/gcmem")),
    "GCMEM_EPHEMERAL": ("true", "storage.ephemeral", True),
    "GCMEM_EMBEDDED_SNAPSHOT_INTERVAL_S": ("7.5", "storage.embedded_snapshot_interval_s", 7.5),
    "GCMEM_REDIS_URL": ("redis://cache:6379/0", "storage.redis_url", "redis://cache:6379/0"),
    "GCMEM_REDIS_USERNAME": ("app", "storage.redis_username", "app"),
    "GCMEM_REDIS_PASSWORD": ("pw-redis", "storage.redis_password", "pw-redis"),
    "GCMEM_REDIS_TLS_CA_FILE": ("/tls/ca.pem", "storage.redis_tls_ca_file", Path("/tls/ca.pem")),
    "GCMEM_REDIS_TLS_CERT_FILE": ("/tls/c.pem", "storage.redis_tls_cert_file", Path("/tls/c.pem")),
    "GCMEM_REDIS_TLS_KEY_FILE": ("/tls/k.pem", "storage.redis_tls_key_file", Path("/tls/k.pem")),
    "GCMEM_REDIS_CLUSTER": ("1", "storage.redis_cluster", True),
    "GCMEM_KEY_PREFIX": ("tenant-a", "storage.key_prefix", "tenant-a"),
    "GCMEM_QDRANT_URL": ("http://qdrant:6333", "storage.qdrant_url", "http://qdrant:6333"),
    "GCMEM_QDRANT_API_KEY": ("pw-qdrant", "storage.qdrant_api_key", "pw-qdrant"),
    "GCMEM_QDRANT_PATH": ("/srv/q", "storage.qdrant_path", Path("/srv/q")),
    "GCMEM_QDRANT_COLLECTION": ("chunks2", "storage.qdrant_collection", "chunks2"),
    "GCMEM_EMBEDDED_ENGINE": ("local", "storage.embedded_engine", "local"),
    "GCMEM_STM_SIZE": ("9", "storage.stm_size", 9),
    "GCMEM_EMBEDDER": ("/models/emb", "models.embedder", "/models/emb"),
    "GCMEM_DEVICE": ("cuda", "models.device", "cuda"),
    "GCMEM_EMBED_BATCH_SIZE": ("16", "models.embed_batch_size", 16),
    "GCMEM_EMBED_MAX_LENGTH": ("128", "models.embed_max_length", 128),
    "GCMEM_NAMESPACE": ("team", "memory.namespace", "team"),
    "GCMEM_TOP_K": ("12", "memory.top_k", 12),
    "GCMEM_MAX_K": ("60", "memory.max_k", 60),
    "GCMEM_MAX_TEXT_CHARS": ("1000", "memory.max_text_chars", 1000),
    "GCMEM_CHUNK_MAX_CHARS": ("300", "memory.chunk_max_chars", 300),
    "GCMEM_FILTERS": ("supersession", "memory.filters", ["supersession"]),
    "GCMEM_INGEST": ('["verdict-precompute"]', "memory.ingest", ["verdict-precompute"]),
    "GCMEM_EARLIER_QUESTIONS": ("false", "memory.earlier_questions", False),
    "GCMEM_SUPERSESSION_GC": ("false", "supersession.gc", False),
    "GCMEM_SUPERSESSION_EXCLUDE": ("false", "supersession.exclude", False),
    "GCMEM_SUPERSESSION_GRAMMAR": ("false", "supersession.grammar", False),
    "GCMEM_SUPERSESSION_ALIGN": ("false", "supersession.align", False),
    "GCMEM_SUPERSESSION_ALIGN_REWORDED": ("false", "supersession.align_reworded", False),
    "GCMEM_SUPERSESSION_ALIGN_MENTIONS": ("false", "supersession.align_mentions", False),
    "GCMEM_SUPERSESSION_ALIGN_NEIGHBOURS": ("3", "supersession.align_neighbours", 3),
    "GCMEM_LEDGER_POLICY_FILE": ("/etc/p.yaml", "ledger.policy_file", Path("/etc/p.yaml")),
    "GCMEM_LEDGER_POLICIES": (
        '[{"relation": "* speak* _", "policy": "accumulate"}]',
        "ledger.policies",
        [PolicyRule(relation="* speak* _", policy="accumulate")],
    ),
    "GCMEM_LEDGER_KNOWN_MULTI_VALUED": ("false", "ledger.known_multi_valued", False),
    "GCMEM_LEDGER_POLICY_DEFAULT": ("evidence", "ledger.policy_default", "evidence"),
    "GCMEM_LEDGER_SOURCE_FIELD": ("origin", "ledger.source_field", "origin"),
    "GCMEM_LEDGER_SOURCE_TRUST": ('{"ehr": 3.0}', "ledger.source_trust", {"ehr": 3.0}),
    "GCMEM_LEDGER_CONFIRM_TTL_S": ("60", "ledger.confirm_ttl_s", 60.0),
    "GCMEM_ORACLE": ("llm-judge", "oracle.backend", "llm-judge"),
    "GCMEM_NLI_MODEL": ("/models/nli", "oracle.model", "/models/nli"),
    "GCMEM_ORACLE_THRESHOLD": ("0.7", "oracle.threshold", 0.7),
    "GCMEM_ORACLE_DIRECTION": ("both", "oracle.direction", "both"),
    "GCMEM_ORACLE_MAX_LENGTH": ("128", "oracle.max_length", 128),
    "GCMEM_ORACLE_BATCH_SIZE": ("8", "oracle.batch_size", 8),
    "GCMEM_ORACLE_PRECISION": ("fp16", "oracle.precision", "fp16"),
    "GCMEM_ORACLE_TEMPLATE": ("Memory: {text}", "oracle.template", "Memory: {text}"),
    "GCMEM_ORACLE_CONTRADICTION_LABEL": ("CONTRA", "oracle.contradiction_label", "CONTRA"),
    "GCMEM_ORACLE_GATE": ("entity", "oracle.gate", "entity"),
    "GCMEM_ORACLE_QUESTION_TEMPLATE": (
        "{question} [SEP] {text}",
        "oracle.question_template",
        "{question} [SEP] {text}",
    ),
    "GCMEM_ORACLE_ADAPTER": ("/a.safetensors", "oracle.adapter", "/a.safetensors"),
    "GCMEM_ORACLE_CALIBRATION": ("/c.json", "oracle.calibration", "/c.json"),
    "GCMEM_ORACLE_CALIBRATION_THRESHOLD": ("false", "oracle.calibration_threshold", False),
    "GCMEM_ORACLE_BAND": ("0.3,0.7", "oracle.band", [0.3, 0.7]),
    "GCMEM_VERDICT_PRECOMPUTE_M": ("4", "oracle.verdict_precompute_m", 4),
    "GCMEM_DOMINANCE_ANCHOR": ("false", "dominance.anchor", False),
    "GCMEM_DOMINANCE_CONFIRM_THRESHOLD": ("0.8", "dominance.confirm_threshold", 0.8),
    "GCMEM_DOMINANCE_GC_PAGE_SIZE": ("6", "dominance.gc_page_size", 6),
    "GCMEM_DOMINANCE_GC_PAGES": ("12", "dominance.gc_pages", 12),
    "GCMEM_DOMINANCE_GC_RESUME": ("0", "dominance.gc_resume", 0),
    "GCMEM_DOMINANCE_SURFACE_THRESHOLD": ("0.4", "dominance.surface_threshold", 0.4),
    "GCMEM_DOMINANCE_COSINE_FLOOR": ("0.2", "dominance.cosine_floor", 0.2),
    "GCMEM_ORACLE_PAIR_BUDGET": ("77", "dominance.pair_budget", 77),
    "GCMEM_LLM_JUDGE_URL": ("http://judge/v1", "judge.url", "http://judge/v1"),
    "GCMEM_LLM_JUDGE_MODEL": ("judge-1", "judge.model", "judge-1"),
    "GCMEM_LLM_JUDGE_API_KEY": ("pw-judge", "judge.api_key", "pw-judge"),
    "GCMEM_LLM_JUDGE_PROMPT": ("{a} vs {b}?", "judge.prompt", "{a} vs {b}?"),
    "GCMEM_LLM_JUDGE_LOGPROBS": ("true", "judge.logprobs", True),
    "GCMEM_LLM_JUDGE_TIMEOUT_S": ("5", "judge.timeout_s", 5.0),
    "GCMEM_LLM_JUDGE_CONCURRENCY": ("2", "judge.concurrency", 2),
    "GCMEM_BASELINE_K": ("6", "baselines.k", 6),
    "GCMEM_MULTIFACTOR_WEIGHTS": ("1,0,0,1", "baselines.weights", [1.0, 0.0, 0.0, 1.0]),
    "GCMEM_MULTIFACTOR_HALF_LIFE_DAYS": ("3", "baselines.half_life_days", 3.0),
    "GCMEM_MULTIFACTOR_SIMILARITY": ("0.5", "baselines.similarity", 0.5),
    "GCMEM_PIPELINE_STREAM": ("turns", "pipeline.stream", "turns"),
    "GCMEM_PIPELINE_GROUP": ("g2", "pipeline.group", "g2"),
    "GCMEM_PIPELINE_CONSUMER": ("w1", "pipeline.consumer", "w1"),
    "GCMEM_PIPELINE_BATCH_SIZE": ("32", "pipeline.batch_size", 32),
    "GCMEM_PIPELINE_BLOCK_MS": ("50", "pipeline.block_ms", 50),
    "GCMEM_PIPELINE_CLAIM_IDLE_MS": ("1000", "pipeline.claim_idle_ms", 1000),
    "GCMEM_PIPELINE_MAX_ATTEMPTS": ("2", "pipeline.max_attempts", 2),
    "GCMEM_PIPELINE_MAX_MESSAGE_BYTES": ("4096", "pipeline.max_message_bytes", 4096),
    "GCMEM_PIPELINE_QUERY_TIMEOUT_S": ("9", "pipeline.query_timeout_s", 9.0),
    "GCMEM_PIPELINE_INDEX": ("bus", "pipeline.index", "bus"),
    "GCMEM_MAX_JSON_DEPTH": ("8", "pipeline.max_json_depth", 8),
    "GCMEM_QUERY_DEADLINE_S": ("3", "pipeline.query_deadline_s", 3.0),
    "GCMEM_QUERY_WORKERS": ("2", "pipeline.query_workers", 2),
    "GCMEM_QUERY_QUEUE": ("10", "pipeline.query_queue", 10),
    "GCMEM_SHUTDOWN_TIMEOUT_S": ("4", "pipeline.shutdown_timeout_s", 4.0),
    "GCMEM_EMBEDDED_REDIS_PORT": ("6390", "pipeline.embedded_redis_port", 6390),
    "GCMEM_HTTP_HOST": ("0.0.0.0", "http.host", "0.0.0.0"),
    "GCMEM_HTTP_PORT": ("9000", "http.port", 9000),
    "GCMEM_HTTP_TOKEN": ("pw-http", "http.token", "pw-http"),
    "GCMEM_HTTP_NAMESPACE_TOKENS": (
        '{"team": "pw-team"}',
        "http.namespace_tokens",
        {"team": "pw-team"},
    ),
    "GCMEM_HTTP_MAX_BODY_BYTES": ("2048", "http.max_body_bytes", 2048),
}


def _plain(value: object) -> object:
    """Secrets compared by their value."""
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _documented_variables() -> list[str]:
    page = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text(
        encoding="utf-8"
    )
    return re.findall(r"^\| `(GCMEM_[A-Z0-9_]+)` \|", page, flags=re.M)


def test_every_documented_variable_lands_in_its_section(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    documented = _documented_variables()
    assert sorted(documented) == sorted(EVERY_VARIABLE), "a variable added, renamed or dropped"
    env_file = tmp_path / "gcmem.env"  # what `docker run --env-file` / compose hand over
    env_file.write_text("".join(f"{k}={raw}\n" for k, (raw, _, _) in EVERY_VARIABLE.items()))
    for line in env_file.read_text().splitlines():
        key, _, value = line.partition("=")
        monkeypatch.setenv(key, value)
    settings = load_settings()
    for variable, (_, where, expected) in EVERY_VARIABLE.items():
        section, field = where.split(".")
        got = _plain(getattr(getattr(settings, section), field))
        assert got == expected, f"{variable} -> {where}: {got!r}"
        default = (
            type(getattr(settings, section))
            .model_fields[field]
            .get_default(call_default_factory=True)
        )
        assert _plain(default) != expected, f"{variable}: the test value is the default"


def test_env_prefix_and_types(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GCMEM_STM_SIZE", "7")
    monkeypatch.setenv("GCMEM_TOP_K", "25")
    monkeypatch.setenv("GCMEM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GCMEM_FILTERS", "supersession, dominance")
    monkeypatch.setenv("GCMEM_DEVICE", "cpu")
    s = load_settings()
    assert s.storage.stm_size == 7
    assert s.memory.top_k == 25
    assert s.storage.data_dir == tmp_path
    assert s.memory.filters == ["supersession", "dominance"]
    assert s.storage.embedded_redis and s.storage.embedded_qdrant


def test_filters_accept_json_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCMEM_FILTERS", '["supersession"]')
    assert load_settings().memory.filters == ["supersession"]
    monkeypatch.setenv("GCMEM_FILTERS", "")
    assert load_settings().memory.filters == []


@pytest.mark.parametrize(
    ("var", "value"),
    [
        ("GCMEM_STM_SIZE", "-1"),
        ("GCMEM_TOP_K", "zero"),
        ("GCMEM_DEVICE", "tpu"),
        ("GCMEM_NAMESPACE", "bad namespace!"),
        ("GCMEM_KEY_PREFIX", "a:b"),
        ("GCMEM_EMBED_BATCH_SIZE", "0"),
    ],
)
def test_validation_error_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, var: str, value: str
) -> None:
    monkeypatch.setenv(var, value)
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert var in str(info.value)
    assert repr(value) in str(info.value)


def test_server_urls_switch_off_embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCMEM_REDIS_URL", "redis://127.0.0.1:6379/3")
    monkeypatch.setenv("GCMEM_QDRANT_URL", "http://qdrant:6333")
    s = load_settings()
    assert not s.storage.embedded_redis
    assert not s.storage.embedded_qdrant


def test_ephemeral_keeps_qdrant_in_memory(tmp_path: Path) -> None:
    assert (
        load_settings(data_dir=tmp_path, ephemeral=True).storage.resolved_qdrant_path()
        == ":memory:"
    )
    assert load_settings(data_dir=tmp_path).storage.resolved_qdrant_path() == str(
        tmp_path / "qdrant"
    )


def test_empty_server_url_means_embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCMEM_REDIS_URL", "")
    monkeypatch.setenv("GCMEM_QDRANT_URL", " ")
    s = load_settings()
    assert s.storage.embedded_redis and s.storage.embedded_qdrant


def test_docs_configuration_table_matches_the_settings() -> None:
    from gcmem.cli.config import REFERENCE_END, REFERENCE_START, settings_reference

    page = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text(
        encoding="utf-8"
    )
    start = page.index(REFERENCE_START) + len(REFERENCE_START)
    table = page[start : page.index(REFERENCE_END)]
    assert table == settings_reference(), (
        "docs/configuration.md out of date: run "
        "`gcmem config reference --write docs/configuration.md`"
    )


def test_config_reference_write_replaces_only_the_block(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gcmem.cli import app
    from gcmem.cli.config import REFERENCE_END, REFERENCE_START, settings_reference

    page = tmp_path / "configuration.md"
    page.write_text(f"# head\n{REFERENCE_START}| stale |\n{REFERENCE_END}\ntail\n")
    result = CliRunner().invoke(app, ["config", "reference", "--write", str(page)])
    assert result.exit_code == 0, result.output
    assert page.read_text() == (
        f"# head\n{REFERENCE_START}{settings_reference()}{REFERENCE_END}\ntail\n"
    )
    no_block = tmp_path / "other.md"
    no_block.write_text("no markers\n")
    result = CliRunner().invoke(app, ["config", "reference", "--write", str(no_block)])
    assert result.exit_code != 0
    assert no_block.read_text() == "no markers\n"


def test_reference_lists_every_variable_with_its_default() -> None:
    from gcmem.cli.config import settings_reference

    table = settings_reference()
    for variable, (_, where, _) in EVERY_VARIABLE.items():
        assert f"| `{variable}` | `{where}` |" in table
    assert (
        "| `GCMEM_FILTERS` | `memory.filters` | list[str] | "
        '`["supersession", "announced", "dominance"]` |' in table
    )
    assert "| `GCMEM_REDIS_URL` | `storage.redis_url` | str \\| unset | unset |" in table
    for section in Settings.model_fields:
        assert f"### {section}\n" in table


# --- masking: credentials never leave in clear ------------------------------------------------
@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://app:s3cret@10.0.0.5:6379/0", "redis://app:****@10.0.0.5:6379/0"),
        ("rediss://:s3cret@cache.internal:6380", "rediss://:****@cache.internal:6380"),
        ("https://key:tok%2Fen@qdrant.example", "https://key:****@qdrant.example"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("redis://user@host/0", "redis://user@host/0"),
    ],
)
def test_mask_url_hides_the_password_only(url: str, shown: str) -> None:
    from gcmem.settings import mask_url

    assert mask_url(url) == shown


def test_config_show_masks_url_credentials_and_shows_derived_values(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from gcmem.cli import app as cli_app

    env = {
        "GCMEM_REDIS_URL": "redis://app:s3cret@127.0.0.1:6379/0",
        "GCMEM_QDRANT_URL": "http://reader:qpass@127.0.0.1:6333",
        "GCMEM_HTTP_TOKEN": "tok-admin",
        "GCMEM_KEY_PREFIX": "shown",
        "GCMEM_DATA_DIR": str(tmp_path),
    }
    result = CliRunner().invoke(cli_app, ["config", "show"], env=env)
    assert result.exit_code == 0, result.output
    for secret in ("s3cret", "qpass", "tok-admin"):
        assert secret not in result.output
    shown = json.loads(result.stdout)
    assert list(shown) == list(Settings.model_fields), "one object per section, in order"
    assert shown["storage"]["GCMEM_REDIS_URL"] == "redis://app:****@127.0.0.1:6379/0"
    stream = shown["pipeline"]["GCMEM_PIPELINE_STREAM"]
    assert stream == "shown:{pipeline}:turns", "the stream actually used"
    assert shown["baselines"]["GCMEM_BASELINE_K"] == shown["memory"]["GCMEM_TOP_K"]


def test_settings_errors_never_echo_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCMEM_HTTP_NAMESPACE_TOKENS", '{"team-a": 12345678}')
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "12345678" not in str(err.value) and "GCMEM_HTTP_NAMESPACE_TOKENS" in str(err.value)


def test_log_lines_are_masked() -> None:
    import logging

    from gcmem.settings import MaskSecretsFilter

    record = logging.LogRecord(
        "gcmem",
        logging.ERROR,
        __file__,
        1,
        "cannot reach %s: %s",
        ("redis://u:pw@h:1/0", "x"),
        None,
    )
    assert MaskSecretsFilter().filter(record)
    assert record.getMessage() == "cannot reach redis://u:****@h:1/0: x"


def test_max_k_and_bounds_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCMEM_MAX_K", "50")
    monkeypatch.setenv("GCMEM_ORACLE_PAIR_BUDGET", "200")
    monkeypatch.setenv("GCMEM_QUERY_DEADLINE_S", "2.5")
    s = load_settings()
    assert (s.memory.max_k, s.dominance.pair_budget, s.pipeline.query_deadline_s) == (50, 200, 2.5)
    monkeypatch.setenv("GCMEM_MAX_K", "5000")
    with pytest.raises(SettingsError, match="GCMEM_MAX_K"):
        load_settings()
