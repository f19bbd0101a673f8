"""KnowledgeBase.search_sync: many calls hold no more files than a few (issue #9)."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from unifind import KnowledgeBase, SearchRequest
from unifind.config import Settings

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="counts open files through /proc/self/fd"
)


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_600_sync_searches_leak_no_connections(tmp_path: Path) -> None:
    with KnowledgeBase.open(Settings(home=tmp_path / "home")) as kb:
        kb.create("docs", embedder=None)
        kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="r")
        req = SearchRequest(type="kb", query="refunds")
        assert kb.search_sync(req).items  # warm: the loop, its workers and their connections
        before = open_files()
        for _ in range(600):
            assert kb.search_sync(req).items
        # Before the fix: +2 files per call (a connection and its WAL), 1,200 here.
        assert open_files() - before <= 4
        threads = threading.active_count()
    assert threading.active_count() < threads  # close() stopped the loop and its workers
    assert open_files() < before


def test_sync_search_inside_a_loop_is_refused(tmp_path: Path) -> None:
    async def inside() -> None:
        with KnowledgeBase.open(Settings(home=tmp_path / "home")) as kb:
            kb.create("docs", embedder=None)
            with pytest.raises(RuntimeError, match="await it instead"):
                kb.search_sync(SearchRequest(type="kb", query="refunds"))

    asyncio.run(inside())
