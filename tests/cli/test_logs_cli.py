"""`unifind logs list | show | delete`: the recorded searches (issue #9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app

runner = CliRunner()


@pytest.fixture
def docs(tmp_path: Path) -> str:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "refunds.md").write_text("# Refunds\n\nRefunds are paid within 30 days.\n")
    (folder / "returns.md").write_text("# Returns\n\nReturns and refunds need a receipt.\n")
    assert runner.invoke(app, ["kb", "create", "docs", "--no-embedder"]).exit_code == 0
    assert runner.invoke(app, ["kb", "ingest", "docs", str(folder)]).exit_code == 0
    return "docs"


def search(*args: str) -> None:
    res = runner.invoke(app, ["search", *args, "--kb", "docs", "--json"])
    assert res.exit_code == 0, res.output


def logs(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, ["logs", *args], terminal_width=200)
    return res.exit_code, res.output


def test_searches_with_a_request_id_are_listed_shown_and_deleted(docs: str) -> None:
    search("refunds", "--request-id", "turn-1", "--chat-id", "chat-a")
    search("receipt", "--request-id", "turn-2", "--chat-id", "chat-b")
    search("refunds")  # no request id: not recorded

    code, out = logs("list", "--json")
    listed = json.loads(out)
    assert code == 0
    assert [(r["request_id"], r["query"], r["status"], r["references"]) for r in listed] == [
        ("turn-2", "receipt", "ok", 1),
        ("turn-1", "refunds", "ok", 2),
    ]
    assert listed[0]["created_at"] >= listed[1]["created_at"]
    assert [r["request_id"] for r in json.loads(logs("list", "--limit", "1", "--json")[1])] == [
        "turn-2"
    ]
    code, out = logs("list")
    assert code == 0 and "turn-1" in out and "refunds" in out

    code, out = logs("show", "turn-1", "--json")
    (record,) = json.loads(out)
    assert record["chat_id"] == "chat-a"
    assert [(r["index"], r["citation_id"], r["title"]) for r in record["references"]] == [
        (1, "ref_001", "Refunds"),
        (2, "ref_002", "Returns"),
    ]
    code, out = logs("show", "turn-1")
    assert code == 0 and "[ref_002] Returns" in out and "2 references" in out
    assert logs("show", "nope")[0] == 1

    code, out = logs("delete", "--chat", "chat-a")
    assert code == 0 and "deleted 1 recorded search of chat chat-a" in out
    assert [r["request_id"] for r in json.loads(logs("list", "--json")[1])] == ["turn-2"]
    assert json.loads(logs("show", "turn-1", "--json")[1]) == []


def test_records_off_says_so(docs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "off.yaml"
    config.write_text("records: false\n")
    monkeypatch.setenv("UNIFIND_CONFIG", str(config))
    search("refunds", "--request-id", "turn-1")
    code, out = logs("list")
    assert code == 1 and "records: false" in out
    monkeypatch.delenv("UNIFIND_CONFIG")
    assert json.loads(logs("list", "--json")[1]) == []  # nothing was recorded meanwhile


def test_logs_act_as_the_configured_principal(
    docs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    search("refunds", "--request-id", "mine")
    acme = tmp_path / "acme.yaml"
    acme.write_text("principal: {tenant: acme, user: ana}\n")
    code, out = logs("list", "--json", "--config", str(acme))
    assert code == 0 and json.loads(out) == []  # tenant-less records aren't acme's
    code, out = logs("delete", "--chat", "x", "--config", str(acme))
    assert code == 0 and "deleted 0 recorded searches" in out
