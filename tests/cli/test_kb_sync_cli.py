"""`unifind kb ingest --sync` and the names files are shown by, as a user runs them (#18)."""

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


def test_ingest_sync_removes_and_reports_in_text_and_json(tmp_path: Path) -> None:
    docs = tmp_path / "handbook"
    (docs / "old").mkdir(parents=True)
    for name in ("refunds.md", "shipping.md", "old/faq.md", "old/notes.md"):
        (docs / name).write_text(f"# {name}\n\nSome text about {name}.\n")
    assert run("kb", "create", "docs")[0] == 0
    assert run("kb", "ingest", "docs", str(docs))[0] == 0
    (docs / "shipping.md").unlink()

    code, out = run("kb", "ingest", "docs", str(docs), "--sync")
    assert code == 0
    assert "removed: 1" in out and "handbook/shipping.md" in out

    code, out = run("kb", "ingest", "docs", str(docs), "--sync", "--exclude", "old/*", "--json")
    report = json.loads(out)
    assert code == 0 and report["excluded"] == 2 and report["removed"] == 2
    assert sorted(report["removed_documents"]) == ["handbook/old/faq.md", "handbook/old/notes.md"]

    code, out = run("kb", "docs", "docs", "--json")
    assert [d["document_id"] for d in json.loads(out)] == [str((docs / "refunds.md").resolve())]
    # kb rm takes the name a search shows, as well as the path.
    assert run("kb", "rm", "docs", "handbook/refunds.md")[0] == 0
    assert json.loads(run("kb", "docs", "docs", "--json")[1]) == []


def test_without_sync_the_report_has_no_removed_line(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    assert run("kb", "create", "docs")[0] == 0
    code, out = run("kb", "ingest", "docs", str(tmp_path))
    assert code == 0 and "removed" not in out
