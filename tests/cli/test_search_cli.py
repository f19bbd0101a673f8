"""`unifind search` and `unifind db search` show a citation id on every item."""

from __future__ import annotations

import json
import re
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
    (folder / "leave.txt").write_text("年假制度\n员工每年享有十五天带薪年假。\n", encoding="utf-8")
    assert runner.invoke(app, ["kb", "create", "docs", "--no-embedder"]).exit_code == 0
    assert runner.invoke(app, ["kb", "ingest", "docs", str(folder)]).exit_code == 0
    return "docs"


def test_json_items_carry_citation_ids(docs: str) -> None:
    res = runner.invoke(app, ["search", "refunds", "--kb", docs, "--json"])
    out = json.loads(res.output)
    assert re.fullmatch(r"req_[0-9a-f]{12}", out["request_id"])
    assert [i["citation_id"] for i in out["items"]] == ["ref_001", "ref_002"]


def test_multi_leg_json_cites_fused_items(docs: str) -> None:
    res = runner.invoke(app, ["search", "refunds", "--kb", docs, "--db", "", "--json"])
    out = json.loads(res.output)
    assert out["request_id"].startswith("req_")
    assert [i["citation_id"] for i in out["items"]] == ["ref_001", "ref_002"]
    kb_items = out["results"][0]["items"]
    assert {i["citation_id"] for i in kb_items} == {"ref_001", "ref_002"}


def test_text_output_shows_the_id_before_each_title(docs: str) -> None:
    res = runner.invoke(app, ["search", "年假", "--kb", docs, "--mode", "text"])
    assert res.exit_code == 0
    assert re.search(r"^1\. \[ref_001\] 年假制度", res.output, re.M), res.output


def test_db_search_items_carry_citation_ids() -> None:
    assert runner.invoke(app, ["db", "demo"]).exit_code == 0
    res = runner.invoke(app, ["db", "search", "cheapest 3 laptops", "--json"])
    items = json.loads(res.output)["items"]
    assert items and [i["citation_id"] for i in items] == [
        f"ref_{n:03d}" for n in range(1, len(items) + 1)
    ]
