"""A Qdrant-local or Milvus-Lite folder another process holds (``unifind serve``, say): a
second process gets a degraded vector stage whose one-line reason says who holds the folder
and what to do, in Python and in the CLI; no traceback (Milvus Lite logged a 20-line one)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind.config import load_settings
from unifind.kb.service import KnowledgeBase
from unifind.types import Reason, SearchRequest, Status

#: The other process: fills the store, runs one vector search (the engine now holds its
#: folder), says "ready" and keeps it until its stdin closes.
HOLDER = """
import sys
from unifind.config import load_settings
from unifind.kb.service import KnowledgeBase
from unifind.types import SearchRequest
with KnowledgeBase.open(load_settings()) as kb:
    kb.create("docs")
    kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="refunds")
    res = kb.search_sync(SearchRequest(type="kb", query="refunds", mode="semantic"))
    assert res.status == "ok", res.reports
    print("ready", flush=True)
    sys.stdin.read()
"""


@pytest.fixture(params=["qdrant", "milvus"])
def held(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    unifind_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Path]:
    """The folder of a store another process holds; the environment configures that store."""
    if request.param == "qdrant":
        pytest.importorskip("qdrant_client", reason="needs pip install 'unifind[qdrant]'")
    else:
        pytest.importorskip("milvus_lite", reason="needs pip install 'unifind[milvus]'")
    folder = tmp_path / "held"
    monkeypatch.setenv("UNIFIND_KB_STORE", f"{request.param}://{folder}")
    monkeypatch.setenv("UNIFIND_EMBEDDER", "hash:64")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        yield folder
    finally:
        holder.communicate(timeout=60)  # closes its stdin: it lets go and exits
    assert holder.returncode == 0, holder.stderr


def _says_who_holds_it(text: str, folder: Path) -> bool:
    return f"another process holds its folder {folder}" in text and "search through" in text


def test_a_second_process_gets_a_degraded_vector_stage(
    held: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with KnowledgeBase.open(load_settings()) as kb:
        res = kb.search_sync(SearchRequest(type="kb", query="refunds paid"))
    by_stage = {r.stage: r for r in res.reports}
    vector = by_stage["vector"]
    assert (vector.status, vector.reason) == (Status.DEGRADED, Reason.UNREACHABLE)
    assert _says_who_holds_it(vector.error or "", held)
    # The SQLite sidecar is shared (WAL): BM25 still answers.
    assert by_stage["lexical"].status == Status.OK and res.status == "partial"
    assert [i.document_id for i in res.items] == ["refunds"]
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


def test_the_cli_prints_one_line_and_no_traceback(held: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "unifind.cli", "search", "refunds", "--kb", "docs"],
        capture_output=True, text=True, env={**os.environ, "COLUMNS": "400"}, timeout=120,
        check=False,
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert "Traceback" not in out and "DataDirLockedError" not in out, out
    assert run.returncode == 0, out  # partial: BM25 answered
    [line] = [ln for ln in out.splitlines() if "another process holds" in ln]
    assert _says_who_holds_it(line, held)
