"""Tables piped into grep/awk keep every value whole, and each has --json (#18).

The real CLI runs as a process with stdout captured (not a terminal) and a narrow
``COLUMNS``: a table fitted to that width would cut ids (``req_newcome…``) or fold paths.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

LONG_ID = "req_newcomer_onboarding_question_2026_000001"


def cli(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "40", "UNIFIND_EMBEDDER": "hash"}
    proc = subprocess.run(
        [sys.executable, "-m", "unifind.cli", *args], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def rows(out: str) -> list[list[str]]:
    return [line.split("\t") for line in out.splitlines() if "\t" in line]


@pytest.fixture
def kb(tmp_path: Path, unifind_home: Path) -> Path:
    folder = tmp_path / "a_folder_with_a_rather_long_name" / "handbook"
    folder.mkdir(parents=True)
    (folder / "refunds_and_returns_policy.md").write_text("# Refunds\n\nRefunds take 30 days.\n")
    cli("kb", "create", "docs", "--description", "the company handbook, every policy in it")
    cli("kb", "ingest", "docs", str(folder))
    return folder


def test_kb_list_and_docs_print_whole_values(kb: Path, unifind_home: Path) -> None:
    out = cli("kb", "list")
    assert "…" not in out
    header, row = rows(out)
    assert header[:3] == ["name", "owner", "store"]
    (store,) = [c for c in row if str(unifind_home) in c]  # the path whole, in one cell
    assert store.endswith(".db") or store.endswith(".sqlite") or "sqlite" in store
    assert "the company handbook, every policy in it" in row
    assert json.loads(cli("kb", "list", "--json"))[0]["store"] == store

    out = cli("kb", "docs", "docs")
    doc_id = str((kb / "refunds_and_returns_policy.md").resolve())
    assert [r[0] for r in rows(out)] == ["document_id", doc_id]
    assert json.loads(cli("kb", "docs", "docs", "--json"))[0]["document_id"] == doc_id


def test_logs_list_prints_the_whole_request_id(kb: Path) -> None:
    cli("search", "how long do refunds take", "--kb", "docs", "--request-id", LONG_ID)
    out = cli("logs", "list")
    assert "…" not in out
    header, row = rows(out)
    assert (header[0], row[0]) == ("request", LONG_ID)
    assert "how long do refunds take" in row
    assert json.loads(cli("logs", "list", "--json"))[0]["request_id"] == LONG_ID


def test_search_reports_and_keys_list_are_whole(kb: Path) -> None:
    out = cli("search", "refunds", "--kb", "docs")
    table = rows(out)
    assert table[0][:4] == ["leg", "backend", "stage", "status"]
    assert {tuple(r[:2]) for r in table[1:]} == {("kb", "docs")}

    cli("keys", "create", "--tenant", "a_tenant_with_a_long_name", "--user", "someone@example.org")
    out = cli("keys", "list")
    header, row = rows(out)
    assert header[:3] == ["key_id", "tenant", "user"]
    assert row[1:3] == ["a_tenant_with_a_long_name", "someone@example.org"]
    assert json.loads(cli("keys", "list", "--json"))[0]["key_id"] == row[0]


def test_db_models_are_whole_and_have_json(unifind_home: Path) -> None:
    cli("db", "demo")
    out = cli("db", "models")
    assert "…" not in out and rows(out)[0] == [
        "column", "type", "search", "unit", "values / description",
    ]  # fmt: skip
    assert isinstance(json.loads(cli("db", "models", "--json")), dict)


def test_demo_has_json(unifind_home: Path) -> None:
    out = json.loads(cli("demo", "--json", "--query", "how do refunds work"))
    assert out["ingested"]["failed"] == 0 and out["collection"] == "demo"
    [result] = out["searches"]
    assert result["status"] == "ok" and result["items"]
    from unifind.cli.demo import corpus_dir

    shown = json.dumps(result["items"])
    assert "corpus/" in shown and str(corpus_dir()) not in shown  # relative names only


def test_providers_are_whole_and_have_json(unifind_home: Path) -> None:
    out = cli("providers")
    assert "…" not in out
    table = rows(out)
    assert table[0] == ["name", "usable", "key", "why", "base URL"]
    listed = json.loads(cli("providers", "--json"))
    why = {p["name"]: p["why"] for kind in listed.values() for p in kind["plugs"]}
    shown = {r[0]: r[3] for r in table if r[0] in why}
    assert shown and all(shown[n] == why[n] for n in shown)  # each reason whole
