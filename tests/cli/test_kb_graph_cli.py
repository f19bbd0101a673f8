"""`unifind kb create --graph` and `unifind kb graph NAME ENTITY`, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def _fast_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNIFIND_EMBEDDER", "hash")


def run(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.output


def test_graph_shows_neighbours_and_chunks(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("The HNSW index sits beside the BM25 postings in Rotterdam.\n")
    (docs / "b.md").write_text("Our team in Rotterdam tunes reciprocal rank fusion.\n")
    assert run("kb", "create", "g", "--graph")[0] == 0
    assert run("kb", "create", "plain")[0] == 0
    for name in ("g", "plain"):
        assert run("kb", "ingest", name, str(docs))[0] == 0
    code, out = run("kb", "graph", "g", "Rotterdam", "--json", "--limit", "50")
    assert code == 0, out
    got = json.loads(out)
    assert got["entity"] == ["rotterdam"]
    assert {Path(c["document_id"]).name for c in got["chunks"]} == {"a.md", "b.md"}
    assert {"hnsw", "bm25", "rank fusion"} <= {n["name"] for n in got["neighbours"]}
    code, out = run("kb", "graph", "g", "Rotterdam")
    assert code == 0 and "neighbour" in out and "hnsw" in out
    code, out = run("kb", "graph", "plain", "Rotterdam")
    assert code == 2 and "keeps no entities" in out
    code, out = run("kb", "graph", "nope", "x")
    assert code != 0 and "nope" in out
