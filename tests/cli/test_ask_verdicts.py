"""`unifind ask` prints each flagged (sentence, cited id) pair — contradicted, not supported,
unknown id, uncited claim — with the source sentence that decided it; ``--json`` holds
every verdict (issue #20)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app
from unifind.testing.openai_server import OpenAIServer

ANSWER = (
    "Refunds take 90 days from delivery [ref_001]. "
    "Shipping is free [ref_001, ref_009].\n\n"
    "- Refunds are paid in gold bars"
)


def _ask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[str, str]:
    with OpenAIServer() as llm:
        config = tmp_path / "unifind.yaml"
        config.write_text(
            f"home: {tmp_path / 'home'}\nkb: {{embedder: hash}}\n"
            f"agents: {{answer: {{base_url: '{llm.base_url}', model: m}}}}\n",
            encoding="utf-8",
        )
        monkeypatch.setenv("UNIFIND_CONFIG", str(config))
        run = CliRunner().invoke
        assert run(app, ["kb", "create", "docs", "--no-embedder"]).exit_code == 0
        doc = tmp_path / "refunds.txt"
        doc.write_text("Refunds take 30 days from delivery. Shipping is free.", encoding="utf-8")
        assert run(app, ["kb", "ingest", "docs", str(doc)]).exit_code == 0
        llm.script_chat(ANSWER)
        res = run(app, ["ask", "how long do refunds take?", "--support", "lexical", *args])
    assert res.exit_code == 0, res.stderr
    return res.stdout, res.stderr


def test_text_output_shows_each_flagged_pair_and_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, err = _ask(tmp_path, monkeypatch)
    assert ANSWER in out
    lines = [" ".join(line.split()) for line in err.splitlines()]
    assert ("contradicted [ref_001]: Refunds take 90 days from delivery [ref_001]. "
            "(number: '90 days' vs '30 days')") in lines  # fmt: skip
    assert "source [ref_001]: Refunds take 30 days from delivery." in lines
    assert any(line.startswith("unknown id [ref_009]: Shipping is free") for line in lines)
    assert any(line.startswith("uncited claim: - Refunds are paid in gold bars") for line in lines)
    assert not any(line.startswith("supported") for line in lines)  # only flags are listed


def test_json_output_holds_every_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out, _ = _ask(tmp_path, monkeypatch, "--json")
    data = json.loads(out[out.index("{") :])
    got = [(v.get("citation"), v["verdict"]) for v in data["citations"]["verdicts"]]
    assert got == [("ref_001", "contradicted"), ("ref_001", "supported"),
                   ("ref_009", "unknown_id"), (None, "uncited_claim")]  # fmt: skip
    assert data["citations"]["verdicts"][0]["evidence"]["citation_id"] == "ref_001"
