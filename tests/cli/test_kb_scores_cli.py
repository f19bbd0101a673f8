"""`unifind search --kb`: an emptying threshold says so, --by-document counts documents."""

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


@pytest.fixture
def docs(tmp_path: Path) -> str:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "refunds.md").write_text("# Refunds\n\nRefunds are paid within 30 days.\n")
    (folder / "returns.md").write_text("# Returns\n\nReturns and refunds need a receipt.\n")
    (folder / "ship.md").write_text("# Shipping\n\nOrders ship within two days.\n")
    long = "\n\n".join(f"Paragraph {i} on refunds, receipts and returns. " * 12 for i in range(6))
    (folder / "manual.md").write_text(f"# Manual\n\n{long}\n")
    assert runner.invoke(app, ["kb", "create", "docs"]).exit_code == 0
    assert runner.invoke(app, ["kb", "ingest", "docs", str(folder)]).exit_code == 0
    return "docs"


def search(*args: str) -> dict:  # type: ignore[type-arg]
    res = runner.invoke(app, ["search", *args, "--kb", "docs", "--json"])
    assert res.exit_code == 0, res.output
    out: dict = json.loads(res.output)  # type: ignore[type-arg]
    return out


def test_a_threshold_that_removes_every_hit_says_so(docs: str) -> None:
    out = search("receipt warehouse", "--threshold", "1")
    assert out["items"] == []  # the arms disagree on their best chunk: none scores 1
    note = next(n for n in out["notes"] if n.startswith("threshold 1 removed all"))
    assert "on the 0-1 scale" in note
    res = runner.invoke(app, ["search", "x", "--kb", "docs", "--threshold", "1.5"])
    assert res.exit_code != 0


def test_by_document_lists_each_document_once(docs: str) -> None:
    chunks = search("refunds receipts returns", "--limit", "10")
    names = [Path(it["document_id"]).name for it in chunks["items"]]
    assert names.count("manual.md") > 1  # the manual's chunks, each labelled
    titles = [it["title"] for it in chunks["items"] if it["document_id"].endswith("manual.md")]
    assert len(set(titles)) == len(titles) and all("(chunk " in t for t in titles)
    docs_ = search("refunds receipts returns", "--limit", "10", "--by-document")
    names = [Path(it["document_id"]).name for it in docs_["items"]]
    assert sorted(names) == sorted(set(names)) and len(names) == 4
