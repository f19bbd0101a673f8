"""`unifind config show --explain` (issue #10): every setting, its value (secrets masked)
and the layer it came from; each assistant's effective ask settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app

CONFIG = """\
kb: {chunk_chars: 900}
web: {tavily: {api_key: sk-secret}}
ask: {uses: {intent: "agent:fast"}}
agents: {fast: {base_url: "http://127.0.0.1:1/v1", model: m}}
assistants:
  support: {uses: {keywords: none}, skip_threshold: 2}
"""


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "unifind.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    monkeypatch.setenv("UNIFIND_ASK_TOP_N", "5")
    monkeypatch.setenv("UNIFIND_HOME", str(tmp_path / "home"))
    return path


def test_explain_json_names_the_layer_of_each_value(config: Path) -> None:
    res = CliRunner().invoke(
        app, ["config", "show", "--explain", "--json", "--config", str(config)]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    rows, where = data["settings"], f"file:{config.absolute()}"
    assert rows["kb.chunk_chars"] == {"value": 900, "layer": where}
    assert rows["kb.chunk_overlap"] == {"value": 150, "layer": "default"}
    assert rows["ask.top_n"] == {"value": 5, "layer": "env:UNIFIND_ASK_TOP_N"}
    assert rows["home"]["layer"] == "env:UNIFIND_HOME"
    assert rows["web.tavily.api_key"] == {"value": "***", "layer": where}
    assert rows["assistants.support.skip_threshold"] == {"value": 2, "layer": where}
    support = data["assistants"]["support"]
    assert support["ask.uses.keywords"] == {"value": "none", "layer": "assistant:support"}
    assert support["ask.skip_threshold"] == {"value": 2, "layer": "assistant:support"}
    assert support["ask.uses.intent"] == {"value": "agent:fast", "layer": where}
    assert support["ask.top_n"] == {"value": 5, "layer": "env:UNIFIND_ASK_TOP_N"}
    assert support["ask.uses.answer"] == {"value": "builtin", "layer": "default"}
    # Every key of the plain `config show`, flattened, is explained.
    plain = json.loads(CliRunner().invoke(app, ["config", "show", "--json", "--config",
                                                str(config)]).stdout)  # fmt: skip
    assert {k.split(".")[0] for k in rows} == set(plain)


def test_explain_text_is_one_line_per_setting(config: Path) -> None:
    res = CliRunner().invoke(
        app, ["config", "show", "--explain", "--config", str(config)], terminal_width=200
    )
    assert res.exit_code == 0, res.output
    lines = [" ".join(line.split()) for line in res.stdout.splitlines()]
    assert f"kb.chunk_chars = 900 # file:{config.absolute()}" in lines
    assert "ask.top_n = 5 # env:UNIFIND_ASK_TOP_N" in lines
    assert 'ask.uses.answer = "builtin" # default' in lines
    assert "sk-secret" not in res.stdout
    block = res.stdout.split("# assistant support")[1]
    assert 'ask.uses.keywords = "none" # assistant:support' in " ".join(block.split())


def test_a_bad_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("assistants: {x: {uses: {intnt: builtin}}}\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["config", "show", "--explain", "--config", str(bad)])
    assert res.exit_code != 0 and "did you mean 'intent'" in res.output
