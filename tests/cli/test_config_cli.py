"""Config discovery and `unifind config path | show | check` (issue #9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app
from unifind.config import find_config, load_settings

runner = CliRunner()


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A working folder and a user config dir, each with a config file; none in use yet."""
    work, xdg = tmp_path / "work", tmp_path / "xdg"
    (xdg / "unifind").mkdir(parents=True)
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    return {"cwd": work / "unifind.yaml", "user": xdg / "unifind" / "config.yaml"}


def test_discovery_order_env_then_cwd_then_user_dir(
    places: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert find_config() is None and load_settings().kb.chunk_chars == 1200
    places["user"].write_text("kb: {chunk_chars: 300}\n")
    assert find_config() == places["user"] and load_settings().kb.chunk_chars == 300
    places["cwd"].write_text("kb: {chunk_chars: 400}\n")
    assert load_settings().kb.chunk_chars == 400
    named = tmp_path / "named.yaml"
    named.write_text("kb: {chunk_chars: 500}\n")
    monkeypatch.setenv("UNIFIND_CONFIG", str(named))
    assert load_settings().kb.chunk_chars == 500
    assert load_settings(places["user"]).kb.chunk_chars == 300  # an explicit path wins


def test_the_user_dir_defaults_to_dot_config(
    places: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    user = tmp_path / "home" / ".config" / "unifind" / "config.yaml"
    user.parent.mkdir(parents=True)
    user.write_text("records: false\n")
    assert find_config() == user and load_settings().records is False
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")  # invalid per the spec: ignored
    assert find_config() == user


def test_path_names_the_file_in_use_and_the_search_order(places: dict[str, Path]) -> None:
    res = runner.invoke(app, ["config", "path"], terminal_width=200)
    assert res.exit_code == 0 and res.output.startswith("none: built-in defaults")
    places["user"].write_text("records: true\n")
    out = json.loads(runner.invoke(app, ["config", "path", "--json"]).stdout)
    assert out["path"] == str(places["user"])
    assert [(o["where"], o["exists"]) for o in out["search_order"]] == [
        ("$UNIFIND_CONFIG", False),
        ("unifind.yaml", False),
        (str(places["user"]), True),
    ]
    res = runner.invoke(app, ["config", "path"], terminal_width=200)
    assert res.output.splitlines()[0] == str(places["user"])


def test_show_prints_effective_settings_with_secrets_masked(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    places["cwd"].write_text(
        "web:\n  tavily: {api_key: tvly-secret}\n"
        "agents:\n  writer: {base_url: 'http://127.0.0.1:1/v1', model: m, api_key: sk-secret,"
        " api_key_env: OPENAI_API_KEY}\n"
        "records_url: 'postgresql+psycopg://app:hunter2@db.internal/unifind'\n"
    )
    monkeypatch.setenv("UNIFIND_REDIS_URL", "redis://:redispw@127.0.0.1:6379/0")
    res = runner.invoke(app, ["config", "show", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["web"]["tavily"]["api_key"] == "***"
    assert out["agents"]["writer"]["api_key"] == "***"
    assert out["agents"]["writer"]["api_key_env"] == "OPENAI_API_KEY"  # a name, not a secret
    assert out["records_url"] == "postgresql+psycopg://app:***@db.internal/unifind"
    assert out["redis_url"] == "redis://:***@127.0.0.1:6379/0"
    assert out["kb"]["chunk_chars"] == 1200  # defaults shown too
    human = runner.invoke(app, ["config", "show"]).output
    assert "secret" not in human and "hunter2" not in human and "chunk_chars: 1200" in human


def test_check_validates_and_exits_2_with_a_one_line_error(
    places: dict[str, Path], tmp_path: Path
) -> None:
    res = runner.invoke(app, ["config", "check"])
    assert res.exit_code == 0 and "built-in defaults" in res.output
    places["cwd"].write_text("kb: {fusion: rrf}\n")
    res = runner.invoke(app, ["config", "check"])
    assert res.exit_code == 0 and "unifind.yaml: valid" in res.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("kbb:\n  embedder: hash\nkb: {fusion: magic}\n")
    res = runner.invoke(app, ["config", "check", str(bad)])
    assert res.exit_code == 2
    (line,) = res.output.splitlines()
    assert line.startswith("error: invalid configuration in") and "kbb" in line
    res = runner.invoke(app, ["config", "check", str(tmp_path / "none.yaml")])
    assert res.exit_code == 2 and "no such file" in res.output
