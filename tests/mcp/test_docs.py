"""docs/mcp.md: every client snippet is valid JSON and names the real command, URL and tools."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from unifind import KnowledgeBase, load_settings
from unifind.mcp_server.tools import NAMES

DOC = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"


def snippets() -> list[dict[str, object]]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)]


def test_each_client_has_a_stdio_and_an_http_snippet() -> None:
    text = DOC.read_text()
    for client in ("### Claude Desktop", "### Cursor", "### VS Code"):
        section = text.split(client, 1)[1].split("\n### ", 1)[0]
        blocks = re.findall(r"```json\n(.*?)```", section, re.S)
        assert len(blocks) == 2, client
        stdio, http = (json.dumps(json.loads(b)) for b in blocks)
        assert '"args": ["mcp"]' in stdio
        assert "http://127.0.0.1:8765/mcp" in http and "Bearer" in http


def test_snippets_parse_and_the_tool_table_matches_the_server() -> None:
    assert len(snippets()) == 6
    table = re.findall(r"^\| `(\w+)` \|", DOC.read_text(), re.M)
    assert tuple(table) == NAMES


def python_snippet() -> str:
    (code,) = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    return str(code)


def test_the_python_snippet_runs_and_searches_the_callers_home(tmp_path: Path) -> None:
    """The SDK's stdio client starts the server with a minimal environment: the snippet must
    pass UNIFIND_HOME on, or it searches ~/.unifind (here an empty HOME) instead."""
    home = tmp_path / "home-with-docs"
    with KnowledgeBase.open(load_settings(home=str(home))) as kb:
        kb.create("docs", embedder=None)
        kb.ingest_text("docs", "Refund policy: refunds are paid within 30 days.",
                       document_id="refunds", title="Quokka refund policy")  # fmt: skip
    (script := tmp_path / "snippet.py").write_text(python_snippet(), encoding="utf-8")
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path / "empty-user-home"),
        "UNIFIND_HOME": str(home),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "OMP_NUM_THREADS": "1",
    }
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "[ref_001] Quokka refund policy" in proc.stdout
    # Offline, the web leg says why instead of vanishing.
    assert "web/duckduckgo: degraded" in proc.stdout
    assert f"unifind mcp: home {home}, config none (built-in defaults)" in proc.stderr


@pytest.mark.parametrize("command", [["unifind", "mcp"], ["-m", "unifind.mcp_server"]])
def test_the_stdio_server_names_its_home_and_config_on_stderr(
    command: list[str], tmp_path: Path
) -> None:
    config = tmp_path / "unifind.yaml"
    config.write_text("records: false\n", encoding="utf-8")
    home = tmp_path / "the-home"
    exe = [str(Path(sys.executable).parent / "unifind"), "mcp"] if command[0] == "unifind" \
        else [sys.executable, *command]  # fmt: skip
    env = {**os.environ, "UNIFIND_HOME": str(home), "UNIFIND_CONFIG": str(config)}
    init = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}},
    }  # fmt: skip
    proc = subprocess.run(exe, input=json.dumps(init) + "\n", env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # stdout is the protocol alone: the line went to stderr.
    reply = json.loads(proc.stdout.splitlines()[0])
    assert reply["id"] == 1 and reply["result"]["serverInfo"]
    assert f"unifind mcp: home {home}, config {config}\n" in proc.stderr
