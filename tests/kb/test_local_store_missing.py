"""A Qdrant-local or Milvus-Lite folder that was moved or deleted: searching and listing
create nothing and say which folder is missing (a search used to create an empty folder
and answer ok with 0 hits); only creating a collection creates the folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from unifind.config import Settings, load_settings
from unifind.errors import UnknownName
from unifind.kb.service import KnowledgeBase
from unifind.kb.stores import open_store
from unifind.types import Reason, SearchRequest, Status


@pytest.fixture(params=["qdrant", "milvus"])
def engine(request: pytest.FixtureRequest) -> str:
    if request.param == "qdrant":
        pytest.importorskip("qdrant_client", reason="needs pip install 'unifind[qdrant]'")
    else:
        pytest.importorskip("milvus_lite", reason="needs pip install 'unifind[milvus]'")
    return str(request.param)


def _settings(home: Path, store: str = "sqlite") -> Settings:
    return load_settings(home=home, kb={"store": store, "embedder": "hash:64"})


def _fill(kb: KnowledgeBase, name: str, store: str | None = None) -> None:
    kb.create(name, store=store)
    kb.ingest_text(name, "Refunds are paid within 30 days.", document_id=f"{name}-1")


def test_a_missing_folder_reads_as_empty_and_is_created_only_by_create(
    engine: str, tmp_path: Path
) -> None:
    folder = tmp_path / "gone"
    with open_store(f"{engine}://{folder}", tmp_path) as store:
        assert store.list_collections() == []
        with pytest.raises(UnknownName):
            store.lexical_search("docs", ["refund"], limit=3)
        assert not folder.exists()
        assert store.missing == folder
        store.create_collection("docs", embedder=None, dim=None)
        assert store.missing is None and (folder / "kb.sqlite").is_file()
        assert [c.name for c in store.list_collections()] == ["docs"]


def test_a_placed_collection_whose_folder_is_gone_is_degraded_naming_it(
    engine: str, unifind_home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "placed"
    settings = _settings(unifind_home)
    with KnowledgeBase.open(settings) as kb:
        _fill(kb, "docs", f"{engine}://{folder}")
        _fill(kb, "notes")
    shutil.rmtree(folder)
    with KnowledgeBase.open(settings) as kb:
        res = kb.search_sync(SearchRequest(type="kb", query="refunds paid"))
        assert {r.status for r in res.reports if r.backend == "notes"} == {Status.OK}
        down = [r for r in res.reports if r.backend == "docs"]
        assert {r.stage for r in down} == {"lexical", "vector"}
        for r in down:
            assert (r.status, r.reason) == (Status.DEGRADED, Reason.ERROR)
            assert f"its folder {folder} is missing (moved or deleted?)" in (r.error or "")
        assert {i.collection for i in res.items} == {"notes"}
        assert [c.name for c in kb.collections()] == ["docs", "notes"]  # still listed
    assert not folder.exists()
    listed = _cli("kb", "list", home=unifind_home)
    assert listed.returncode == 0, listed.stderr
    assert f"its folder {folder} is missing" in listed.stderr and "docs" in listed.stdout
    assert not folder.exists()


def test_the_configured_store_folder_gone_is_a_degraded_leg_until_created(
    engine: str, unifind_home: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "kb"
    settings = _settings(unifind_home, f"{engine}://{folder}")
    with KnowledgeBase.open(settings) as kb:
        _fill(kb, "docs")
    shutil.rmtree(folder)
    with KnowledgeBase.open(settings) as kb:
        for names in ((), ("docs",)):
            res = kb.search_sync(SearchRequest(type="kb", query="refunds", collections=names))
            [report] = res.reports
            assert (report.status, report.stage) == (Status.DEGRADED, "store")
            assert f"has no folder {folder} (moved or deleted?)" in (report.error or "")
        assert not folder.exists()
        _fill(kb, "fresh")  # an explicit write starts a new store there
        assert (folder / "kb.sqlite").is_file()
        res = kb.search_sync(SearchRequest(type="kb", query="refunds"))
        assert res.status == "ok" and [i.collection for i in res.items] == ["fresh"]


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "UNIFIND_HOME": str(home), "UNIFIND_EMBEDDER": "hash:64"}
    return subprocess.run(
        [sys.executable, "-m", "unifind.cli", *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
