"""`unifind ask` through a loopback LLM: the answer on stdout, the citation check on stderr
with every flagged sentence shown whole (its [ref_NNN] is text, not console markup)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app
from unifind.testing.openai_server import OpenAIServer

ANSWER = (
    "Refunds take 30 days [ref_001]. Unicorns approve each refund [ref_001]. "
    "Shipping is free [ref_001, ref_009]."
)


@pytest.fixture
def llm() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


def test_the_check_names_unknown_ids_and_unsupported_sentences(
    tmp_path: Path, llm: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    added = run(app, ["kb", "ingest", "docs", str(doc)])
    assert added.exit_code == 0, added.output
    llm.script_chat(ANSWER)
    res = run(app, ["ask", "how long do refunds take?", "--support", "lexical"])
    assert res.exit_code == 0, res.stderr
    assert ANSWER in res.stdout
    err = " ".join(res.stderr.split())
    assert "1 unknown (ref_009)" in err
    assert "1 of 3 cited sentence(s) unsupported" in err
    assert "Unicorns approve each refund [ref_001]." in err  # not eaten as markup
