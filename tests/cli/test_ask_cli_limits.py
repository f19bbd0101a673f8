"""`unifind ask` when the LLM's stream breaks a limit (issue #18): the references are still
printed, and a check the deadline cut says what it left unchecked."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app
from unifind.testing.openai_server import OpenAIServer, Reply, sse_chunk

SENTENCE = "Refunds take 30 days [ref_001]. "


@pytest.fixture
def llm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        config = tmp_path / "unifind.yaml"
        config.write_text(
            f"home: {tmp_path / 'home'}\nkb: {{embedder: hash}}\n"
            f"agents: {{answer: {{base_url: '{srv.base_url}', model: m}}}}\n"
            "ask: {support: lexical, max_answer_chars: 10000000}\n",
            encoding="utf-8",
        )
        monkeypatch.setenv("UNIFIND_CONFIG", str(config))
        run = CliRunner().invoke
        assert run(app, ["kb", "create", "docs", "--no-embedder"]).exit_code == 0
        doc = tmp_path / "refunds.txt"
        doc.write_text("Refunds take 30 days from delivery.", encoding="utf-8")
        assert run(app, ["kb", "ingest", "docs", str(doc)]).exit_code == 0
        yield srv


def test_a_newline_less_stream_fails_the_answer_not_the_references(llm: OpenAIServer) -> None:
    endless = itertools.repeat(b"x" * 65_536, 4_096)  # 256 MB, no line break
    llm.script_chat(Reply(chunks=itertools.chain([b'data: {"x": "'], endless)))
    res = CliRunner().invoke(app, ["ask", "how long do refunds take?", "--json"])
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    assert "bad_response" in out["note"] and "without a line break" in out["note"]
    assert [r["citation_id"] for r in out["references"]] == ["ref_001"]


def test_a_check_cut_by_the_deadline_says_what_it_left(llm: OpenAIServer) -> None:
    def slow() -> Iterator[bytes]:
        for _ in range(100_000):
            time.sleep(0.01)
            yield sse_chunk(SENTENCE * 100)

    llm.script_chat(Reply(chunks=slow()))
    warm = CliRunner().invoke(app, ["ask", "how long do refunds take?", "--plan"])
    assert warm.exit_code == 0, warm.stderr  # the first plan loads jieba, slowly
    res = CliRunner().invoke(app, ["ask", "how long do refunds take?", "--deadline", "3"])
    assert res.exit_code == 0, res.stderr
    err = " ".join(res.stderr.split())
    assert "deadline cut the LLM" in err
    assert "more were not checked for support" in err
