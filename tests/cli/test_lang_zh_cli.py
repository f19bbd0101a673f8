"""`--lang zh`: the tables, footers and summary lines of search and ask are Chinese too (#18).

Every word the CLI adds around the data comes from ``unifind.trace``'s table, the one the
progress lines use; only the data (titles, text, backend and collection names) stays as is.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind import KnowledgeBase, load_settings
from unifind.cli import app

#: Every English word search and ask printed around the data before #18.
ENGLISH = {
    "leg", "backend", "stage", "status", "reason", "hits", "hit", "ms", "detail", "result",
    "results", "score", "matched", "note", "lexical", "vector", "ok", "No", "of", "request",
    "citations", "valid", "unknown", "unsupported", "cited", "sentence", "kb", "untitled",
    "name", "owner", "store", "documents", "chunks", "document_id", "title", "time", "query",
}  # fmt: skip


def english(text: str) -> set[str]:
    """The English words the CLI itself put into ``text``: a note's text (注意：...), a
    report's detail cell (the last column) and the engine's own notes are the data."""
    lines = [line.rsplit("\t", 1)[0] if "\t" in line else line for line in text.splitlines()]
    kept = [line for line in lines if not line.startswith("注意：") and "LLM" not in line]
    return set(re.findall(r"[A-Za-z_]+", "\n".join(kept))) & ENGLISH


@pytest.fixture
def config(tmp_path: Path) -> str:
    home = tmp_path / "home"
    path = tmp_path / "unifind.yaml"
    path.write_text(f"home: {home}\nkb: {{embedder: hash}}\n", encoding="utf-8")
    settings = load_settings(path)
    with KnowledgeBase.open(settings) as kb:
        kb.create("docs")
        kb.ingest_text("docs", "客户收到商品后三十天内可以申请退款。", document_id="退款",
                       title="退款流程")  # fmt: skip
        kb.ingest_text("docs", "退款会退回到原支付方式，一般需要五个工作日。", document_id="到账",
                       title="退款到账")  # fmt: skip
    return str(path)


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_search_text_output_in_chinese(config: str) -> None:
    code, out, _ = run("search", "退款", "--kb", "docs", "--lang", "zh", "--config", config)
    assert code == 0, out
    assert "退款流程" in out and "状态" in out and "得分" in out and "匹配" in out
    assert not english(out), out
    # The same search in English keeps the words people and scripts know.
    code, out, _ = run("search", "退款", "--kb", "docs", "--config", config)
    assert {"leg", "backend", "status", "score", "matched"} <= english(out)


def test_search_footers_for_pipes_and_no_results_in_chinese(config: str) -> None:
    args = ("--kb", "docs", "--mode", "text", "--lang", "zh", "--config", config)
    code, out, _ = run("search", "火星", *args)
    assert code == 0 and "没有结果" in out and not english(out), out
    code, out, err = run("search", "火星", "--format", "ndjson", *args)
    assert code == 0 and out == "" and "状态" in err and not english(err), err


def test_ask_summary_lines_in_chinese(config: str) -> None:
    code, _, err = run("ask", "退款要多久", "--answer", "none", "--lang", "zh", "--config", config)
    assert code == 0, err
    assert "引用：" in err and "  知识库/docs 关键词：正常" in err and not english(err), err
    code, _, err = run("ask", "退款要多久", "--answer", "none", "--config", config)
    assert code == 0 and "citations:" in err


def test_ask_plan_in_chinese(config: str) -> None:
    code, _, err = run("ask", "退款要多久", "--plan", "--lang", "zh", "--config", config)
    assert code == 0, err
    assert ("原因：" in err or "无需搜索" in err) and "why:" not in err
    assert "legs:" not in err and "keywords:" not in err


def test_kb_and_logs_tables_follow_telemetry_lang(
    config: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # kb and logs take no --lang: their headers follow the progress lines' telemetry.lang.
    monkeypatch.setenv("UNIFIND_CONFIG", config)
    monkeypatch.setenv("UNIFIND_TELEMETRY_LANG", "zh")
    assert run("search", "退款", "--kb", "docs", "--request-id", "r1")[0] == 0
    for args in (("kb", "list"), ("kb", "docs", "docs"), ("logs", "list")):
        code, out, _ = run(*args)
        header = out.splitlines()[0]
        assert code == 0 and "\t" in header and not english(header), (args, header)
    assert "名称" in run("kb", "list")[1] and "请求" in run("logs", "list")[1]
    monkeypatch.setenv("UNIFIND_TELEMETRY_LANG", "en")
    assert run("kb", "list")[1].startswith("name\towner\tstore")
