"""Citation ids of one ``--request-id`` continue across processes (issue #20): two CLI
searches with the same id, no Redis, number on from the first, and a chunk keeps its id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def cli(*args: str) -> dict[str, object]:
    env = {**os.environ, "UNIFIND_EMBEDDER": "hash"}
    proc = subprocess.run(
        [sys.executable, "-m", "unifind.cli", *args], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, object] = json.loads(proc.stdout) if proc.stdout.startswith("{") else {}
    return out


def ids(out: dict[str, object]) -> dict[str, str]:
    """document id → citation id."""
    items = out["items"]
    assert isinstance(items, list)
    return {Path(i["document_id"]).name: i["citation_id"] for i in items}


@pytest.fixture
def kb(tmp_path: Path, unifind_home: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "refunds.md").write_text("# Refunds\n\nRefunds are paid within 30 days.\n")
    (folder / "returns.md").write_text("# Returns\n\nReturns need a receipt and a label.\n")
    (folder / "shipping.md").write_text("# Shipping\n\nShipping takes 3 days with a label.\n")
    cli("kb", "create", "docs", "--no-embedder")
    cli("kb", "ingest", "docs", str(folder))


def test_two_processes_continue_one_numbering(kb: None) -> None:
    first = ids(cli("search", "refunds", "--kb", "docs", "--request-id", "turn-1", "--json"))
    second = ids(cli("search", "label", "--kb", "docs", "--request-id", "turn-1", "--json"))
    assert first == {"refunds.md": "ref_001"}
    # returns.md and shipping.md are new to turn-1: they take the next numbers, never ref_001.
    assert sorted(second.values()) == ["ref_002", "ref_003"]
    third = ids(cli("search", "refunds label", "--kb", "docs", "--request-id", "turn-1",
                    "--json"))  # fmt: skip
    assert third == {**first, **second}  # the same chunk keeps its id in every process
    # Another request id is its own numbering.
    other = ids(cli("search", "label", "--kb", "docs", "--request-id", "turn-2", "--json"))
    assert sorted(other.values()) == ["ref_001", "ref_002"]


def test_serve_says_where_citation_ids_live_without_redis(
    unifind_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from unifind import load_settings
    from unifind.cli.serve import _announce

    _announce(load_settings(server={"auth": True}), 4)
    err = " ".join(capsys.readouterr().err.split())
    assert "per worker; citation ids through the records database" in err
    _announce(load_settings(server={"auth": True}, records=False), 4)
    assert "citation ids per worker too (records are off)" in capsys.readouterr().err
