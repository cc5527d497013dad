from __future__ import annotations

from pathlib import Path

import pytest

from gcmem.settings import Settings, SettingsError, load_settings


def test_env_prefix_and_types(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GCMEM_STM_SIZE", "7")
    monkeypatch.setenv("GCMEM_TOP_K", "25")
    monkeypatch.setenv("GCMEM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GCMEM_FILTERS", "supersession, dominance")
    monkeypatch.setenv("GCMEM_DEVICE", "cpu")
    s = load_settings()
    assert s.stm_size == 7
    assert s.top_k == 25
    assert s.data_dir == tmp_path
    assert s.filters == ["supersession", "dominance"]
    assert s.embedded_redis and s.embedded_qdrant


def test_filters_accept_json_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCMEM_FILTERS", '["supersession"]')
    assert load_settings().filters == ["supersession"]
    monkeypatch.setenv("GCMEM_FILTERS", "")
    assert load_settings().filters == []


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
    assert not s.embedded_redis
    assert not s.embedded_qdrant


def test_ephemeral_keeps_qdrant_in_memory(tmp_path: Path) -> None:
    assert Settings(data_dir=tmp_path, ephemeral=True).resolved_qdrant_path() == ":memory:"
    assert Settings(data_dir=tmp_path).resolved_qdrant_path() == str(tmp_path / "qdrant")


def test_empty_server_url_means_embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCMEM_REDIS_URL", "")
    monkeypatch.setenv("GCMEM_QDRANT_URL", " ")
    s = load_settings()
    assert s.embedded_redis and s.embedded_qdrant


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
    for name in Settings.model_fields:
        assert f"| `GCMEM_{name.upper()}` |" in table
    assert '| `GCMEM_FILTERS` | list[str] | `["supersession", "dominance"]` |' in table
    assert "| `GCMEM_REDIS_URL` | str \\| unset | unset |" in table


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
    assert shown["GCMEM_REDIS_URL"] == "redis://app:****@127.0.0.1:6379/0"
    assert shown["GCMEM_PIPELINE_STREAM"] == "shown:{pipeline}:turns", "the stream actually used"
    assert shown["GCMEM_BASELINE_K"] == shown["GCMEM_TOP_K"]


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
    assert (s.max_k, s.oracle_pair_budget, s.query_deadline_s) == (50, 200, 2.5)
    monkeypatch.setenv("GCMEM_MAX_K", "5000")
    with pytest.raises(SettingsError, match="GCMEM_MAX_K"):
        load_settings()
