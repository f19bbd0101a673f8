"""The kb and search commands end to end, as a user runs them (hash embedder for speed)."""

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


def test_collection_lifecycle(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "refunds.md").write_text("# Refunds\n\nRefunds are paid within 30 days.\n")
    (docs / "leave.txt").write_text("年假制度\n员工每年享有十五天带薪年假。\n", encoding="utf-8")
    (docs / "blob.bin").write_bytes(b"\x00\x01\x02")
    (docs / "empty.md").write_text("")

    assert run("kb", "create", "docs")[0] == 0
    code, out = run("kb", "create", "docs")
    assert code == 2 and "exists" in out

    code, out = run("kb", "ingest", "docs", str(docs), "--json")
    assert code == 1  # a file failed
    report = json.loads(out)
    assert (report["added"], report["failed"], report["skipped"]) == (2, 1, 1)
    failed = {Path(o["path"]).name: o["status"] for o in report["outcomes"] if o["error"]}
    assert failed == {"blob.bin": "skipped", "empty.md": "failed"}

    code, out = run("search", "how long do refunds take", "--kb", "docs", "--json")
    assert code == 0
    res = json.loads(out)
    assert res["status"] == "ok" and res["items"][0]["title"] == "Refunds"
    assert {r["stage"] for r in res["reports"]} == {"lexical", "vector"}

    code, out = run("search", "年假", "--kb", "docs", "--mode", "text", "--json")
    assert json.loads(out)["items"][0]["title"] == "年假制度"

    code, out = run("kb", "list", "--json")
    assert json.loads(out)[0]["documents"] == 2
    code, out = run("kb", "docs", "docs", "--json")
    doc_ids = [d["document_id"] for d in json.loads(out)]
    assert len(doc_ids) == 2

    assert run("kb", "rm", "docs", doc_ids[0])[0] == 0
    code, out = run("kb", "rm", "docs", doc_ids[0])
    assert code == 2 and "no document" in out
    assert run("kb", "delete", "docs", "--yes")[0] == 0
    code, out = run("kb", "list", "--json")
    assert json.loads(out) == []


def test_bad_input_is_explained() -> None:
    code, out = run("search", "", "--kb", "docs")
    assert code == 2 and "the query is empty" in out and "pydantic" not in out
    code, out = run("search", "x", "--kb", "nope")
    assert code == 2 and "unknown collection 'nope'" in out
    code, out = run("kb", "ingest", "nope", ".")
    assert code == 2 and "valid: none yet" in out


def test_stream_prints_progress(tmp_path: Path) -> None:
    run("kb", "create", "docs")
    (tmp_path / "a.txt").write_text("refund policy: 30 days")
    run("kb", "ingest", "docs", str(tmp_path / "a.txt"))
    code, out = run("search", "refund", "--kb", "docs", "--stream", "--lang", "zh")
    assert code == 0
    assert "正在搜索 1 个来源" in out and "找到 1 条参考资料" in out


def test_create_on_an_existing_collection_names_the_cli_flag() -> None:
    assert run("kb", "create", "docs", "--no-embedder")[0] == 0
    code, out = run("kb", "create", "docs", "--no-embedder")
    assert code == 2 and "--exist-ok" in out and "exist_ok" not in out
    assert run("kb", "create", "docs", "--no-embedder", "--exist-ok")[0] == 0


def test_rm_takes_a_path_relative_to_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nAlpha.\n")
    (folder / "b.md").write_text("# B\n\nBeta.\n")
    run("kb", "create", "docs", "--no-embedder")
    assert run("kb", "ingest", "docs", str(folder))[0] == 0
    monkeypatch.chdir(folder)
    code, out = run("kb", "rm", "docs", "a.md")
    assert code == 0 and f"removed {folder / 'a.md'}" in " ".join(out.split())
    code, out = run("kb", "docs", "docs", "--json")
    assert [d["document_id"] for d in json.loads(out)] == [str(folder / "b.md")]
    code, out = run("kb", "rm", "docs", "a.md")
    assert code == 2 and "no document 'a.md'" in out


def test_counts_read_as_english(tmp_path: Path) -> None:
    (tmp_path / "one.md").write_text("# One\n\nA single short chunk about refunds.\n")
    run("kb", "create", "docs", "--no-embedder")
    code, out = run("kb", "ingest", "docs", str(tmp_path / "one.md"))
    out = " ".join(out.split())  # rich wraps long lines
    assert code == 0 and "1 chunk" in out and "1 chunks" not in out
    code, out = run("search", "refunds", "--kb", "docs")
    out = " ".join(out.split())
    assert code == 0 and "1 of 1 result ·" in out and "results" not in out


def test_include_and_exclude_globs_pick_files_inside_folders(tmp_path: Path) -> None:
    (tmp_path / "d" / "guides").mkdir(parents=True)
    (tmp_path / "d" / "guides" / "tents.md").write_text("# Tents\nhow to pitch a tent")
    (tmp_path / "d" / "guides" / "draft.md").write_text("# Draft\nunfinished")
    (tmp_path / "d" / "notes.txt").write_text("tent notes")
    assert runner.invoke(app, ["kb", "create", "c", "--no-embedder"]).exit_code == 0
    args = ["kb", "ingest", "c", str(tmp_path / "d"), "--include", "guides/*", "--exclude"]
    res = runner.invoke(app, [*args, "draft*", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert [Path(o["path"]).name for o in out["outcomes"]] == ["tents.md"]
    assert out["excluded"] == 2


def test_ingest_progress_shows_chunks_and_their_rate() -> None:
    from unifind.cli.kb import chunk_rate

    assert chunk_rate(1234, 2.0) == "1,234 chunks · 617.0 chunks/s"
    assert chunk_rate(0, 0.0) == "0 chunks · 0.0 chunks/s"
