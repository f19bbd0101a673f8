"""Typed config sections (issue #9): wrong types and misspelt keys are refused by name,
every typed key has an environment override, and an unusable home is one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from unifind import ConfigError, load_settings


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "unifind.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("web: {timeout_s: abc}", "web.timeout_s: Input should be a valid number"),
        ("web: {retries: many}", "web.retries: Input should be a valid integer"),
        ("web: {search_provder: tavily}", "did you mean 'search_provider'"),
        ("db: {row_cap: lots}", "db.row_cap: Input should be a valid integer"),
        ("db: {statment_timeout_s: 3}", "did you mean 'statement_timeout_s'"),
        ("timeouts: {wbe: 5}", "did you mean 'web'"),
        ("kb: {chunk_char: 100}", "did you mean 'chunk_chars'"),
        ("redis_ur: redis://x", "did you mean 'redis_url'"),
    ],
)
def test_mistakes_in_sections_are_named(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match="invalid configuration") as err:
        load_settings(write(tmp_path, text))
    assert message in str(err.value)


def test_values_are_typed_and_plug_sections_kept(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path, 'web: {timeout_s: "20", tavily: {api_key: k}}'))
    assert s.web == {"timeout_s": 20.0, "tavily": {"api_key": "k"}}
    assert load_settings(write(tmp_path, "timeouts: {web: 3}")).timeouts == {"web": 3.0}


def test_every_typed_key_has_an_env_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UNIFIND_WEB_TIMEOUT_S", "3")
    monkeypatch.setenv("UNIFIND_DB_ROW_CAP", "7")
    monkeypatch.setenv("UNIFIND_KB_CHUNK_CHARS", "800")
    monkeypatch.setenv("UNIFIND_SERVER_PORT", "9001")
    monkeypatch.setenv("UNIFIND_TIMEOUTS_KB", "4")
    monkeypatch.setenv("UNIFIND_RECORDS", "false")
    monkeypatch.setenv("UNIFIND_TELEMETRY_LANG", "zh")
    s = load_settings(write(tmp_path, "web: {timeout_s: 10, retries: 1}"))
    assert s.web == {"timeout_s": 3.0, "retries": 1}  # the environment wins over the file
    assert s.db["row_cap"] == 7 and s.kb.chunk_chars == 800 and s.server.port == 9001
    assert s.telemetry.lang == "zh"
    assert s.timeouts == {"kb": 4.0} and s.records is False
    monkeypatch.setenv("UNIFIND_DB_ROW_CAP", "lots")
    with pytest.raises(ConfigError, match=r"db\.row_cap"):
        load_settings()


def test_a_misspelt_provider_section_is_refused(tmp_path: Path) -> None:
    from unifind.web.leg import WebLeg

    s = load_settings(write(tmp_path, "web: {tavly: {api_key: k}}"))
    with pytest.raises(ConfigError, match="did you mean 'tavily'"):
        WebLeg.from_settings(s)


def test_a_home_that_cannot_be_created_is_one_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    s = load_settings(home=str(blocker / "home"))
    with pytest.raises(ConfigError, match="set UNIFIND_HOME"):
        s.ensure_home()


def test_db_models_of_the_wrong_shape_are_a_config_error() -> None:
    from unifind.db.models import load_models

    with pytest.raises(ConfigError, match="must be a mapping"):
        load_models({"products": 5})


@pytest.mark.parametrize(
    "args", [["kb", "list"], ["search", "x"], ["keys", "list"], ["db", "demo"]]
)
def test_cli_with_an_unusable_home_prints_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    from typer.testing import CliRunner

    from unifind.cli import app

    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("UNIFIND_HOME", str(blocker / "home"))
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 1
    assert "Traceback" not in res.output and "set UNIFIND_HOME" in res.output
