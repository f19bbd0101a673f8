"""`unifind ask` (issue #20): the answer is followed by its references; --kb/--web/--db
scope the searches; an LLM that fails still leaves the references and an extractive answer,
and the exit status says whether anything was answered (0 answered, 1 nothing, 2 bad input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app

run = CliRunner().invoke
REFUNDS = "# Refunds\n\nRefunds are accepted within 30 days of delivery. Gift cards become credit."
LEAVE = "# Leave\n\nEmployees get 25 days of paid leave per year."


def configure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, llm: str | None = None) -> None:
    text = f"home: {tmp_path / 'home'}\nkb: {{embedder: hash}}\n"
    if llm is not None:
        text += f"agents: {{answer: {{base_url: '{llm}', model: m}}}}\n"
    (config := tmp_path / "unifind.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setenv("UNIFIND_CONFIG", str(config))


def ingest(tmp_path: Path, collection: str, name: str, text: str) -> None:
    assert run(app, ["kb", "create", collection, "--no-embedder"]).exit_code in (0, 1)
    (doc := tmp_path / name).write_text(text, encoding="utf-8")
    assert run(app, ["kb", "ingest", collection, str(doc)]).exit_code == 0


@pytest.fixture
def handbook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    configure(tmp_path, monkeypatch)
    ingest(tmp_path, "policies", "refunds.md", REFUNDS)
    ingest(tmp_path, "people", "leave.md", LEAVE)
    return tmp_path


def test_the_answer_is_followed_by_its_references(handbook: Path) -> None:
    res = run(app, ["ask", "what is our refund window?"])
    assert res.exit_code == 0, res.output
    answer, _, refs = res.stdout.partition("references:\n")
    assert "within 30 days of delivery" in answer
    first = refs.splitlines()[0]
    assert first.startswith("[ref_001] Refunds") and first.endswith("policies: refunds.md")
    out = json.loads(run(app, ["ask", "what is our refund window?", "--json"]).stdout)
    ref = out["references"][0]
    assert (ref["citation_id"], ref["collection"], ref["document_id"]) == (
        "ref_001", "policies", "refunds.md")  # fmt: skip


def test_kb_scopes_the_searches_to_the_named_collection(handbook: Path) -> None:
    for name in ("people", "policies"):  # "days" is in both
        out = json.loads(run(app, ["ask", "how many days?", "--kb", name, "--json"]).stdout)
        assert out["references"] and {r["collection"] for r in out["references"]} == {name}
        assert {r["backend"] for r in out["reports"]} == {name}
        assert out["plan"]["why"].startswith("the request named the legs")


def test_web_alone_searches_no_collection(handbook: Path) -> None:
    res = run(app, ["ask", "what is our refund window?", "--web", "--json"])
    out = json.loads(res.stdout)
    assert {r["leg"] for r in out["reports"]} == {"web"}  # offline: degraded, said so
    assert out["references"] == [] and out["text"] == ""
    assert "no references" in out["note"] and res.exit_code == 1


def test_bad_scopes_are_refused_naming_the_fix(handbook: Path) -> None:
    res = run(app, ["ask", "refunds?", "--kb", "nosuch"])
    assert res.exit_code == 2 and "valid: people, policies" in res.stderr
    res = run(app, ["ask", "refunds?", "--db", "sqlite:///shop.db"])
    assert res.exit_code == 2 and "declared model" in res.stderr


def test_an_llm_that_is_down_leaves_references_and_an_extractive_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(tmp_path, monkeypatch, llm="http://127.0.0.1:9/v1")  # nothing listens there
    ingest(tmp_path, "policies", "refunds.md", REFUNDS)
    res = run(app, ["ask", "what is our refund window?"])
    assert res.exit_code == 0, res.output
    assert "within 30 days of delivery. [ref_001]" in res.stdout
    assert "[ref_001] Refunds" in res.stdout.partition("references:\n")[2]
    err = " ".join(res.stderr.split())
    assert "the LLM (agent:answer) failed: unreachable" in err
    assert "extractive answer from the references" in err


def test_nothing_answered_exits_1_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(tmp_path, monkeypatch, llm="http://127.0.0.1:9/v1")
    assert run(app, ["kb", "create", "empty", "--no-embedder"]).exit_code == 0
    res = run(app, ["ask", "what is our refund window?"])
    assert res.exit_code == 1
    assert res.stdout.strip() == "" and "references:" not in res.stdout
    err = " ".join(res.stderr.split())
    assert "was not asked (no references)" in err and "no answer" in err
    out = json.loads(run(app, ["ask", "what is our refund window?", "--json"]).stdout)
    assert out["text"] == "" and out.get("llm") is None and "no answer" in out["note"]


def test_help_documents_the_exit_status_and_scopes() -> None:
    text = " ".join(run(app, ["ask", "--help"], terminal_width=200).stdout.split())
    assert "Exit status: 0 when there is an answer" in text and "1 when nothing" in text
    for flag in ("--kb", "--web", "--db"):
        assert flag in text
