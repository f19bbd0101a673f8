"""docs/mcp.md: every client snippet is valid JSON and names the real command, URL and tools."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
